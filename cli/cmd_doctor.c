/* slipway doctor: diagnose the repository, the host adapters, the run
 * store and the GitHub CLI.  Exit 0 whatever it finds. */

#include <stdio.h>

#include <jansson.h>

#include "cli/adapter_cli.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "io/adapter_doctor.h"

static json_t *doctor_json(const struct adapter_checks *c)
{
	json_t *doc = json_object(), *checks = json_array();

	if (doc == NULL || checks == NULL ||
	    json_object_set_new(doc, "contract_version", json_integer(2)) < 0 ||
	    json_object_set(doc, "checks", checks) < 0)
		goto fail;
	for (size_t i = 0; i < c->n; i++) {
		const struct adapter_check *k = &c->v[i];
		json_t *o = json_object();

		if (o == NULL || json_array_append_new(checks, o) < 0 ||
		    json_object_set_new(o, "code", json_string(k->code)) < 0 ||
		    json_object_set_new(o, "status", json_string(k->status)) < 0 ||
		    json_object_set_new(o, "host_id", json_string(k->host)) < 0 ||
		    json_object_set_new(o, "name", json_string(k->name)) < 0 ||
		    json_object_set_new(o, "detail", json_string(k->detail)) < 0)
			goto fail;
		if (k->has_durability) {
			json_t *d = json_object();

			if (d == NULL || json_object_set_new(o, "durability", d) < 0 ||
			    json_object_set_new(d, "level", json_string(k->level)) < 0 ||
			    json_object_set_new(d, "file_sync", json_boolean(k->file_sync)) < 0 ||
			    json_object_set_new(d, "directory_sync", json_boolean(k->dir_sync)) < 0 ||
			    (k->limitation && json_object_set_new(d, "limitation", json_string(k->limitation)) < 0))
				goto fail;
		}
	}
	json_decref(checks);
	return doc;
fail:
	json_decref(checks);
	json_decref(doc);
	return NULL;
}

int cmd_doctor(int argc, char **argv)
{
	const char *raw_root = NULL;
	int json = 0, rc;
	struct cli_opt opts[] = {
		{ "json", CLI_OPT_BOOL, &json, 0, "emit JSON", NULL },
		{ "root", CLI_OPT_STRING, &raw_root, 0, "workspace root (default: the Git worktree containing the current directory)", "string" },
		{ NULL, 0, NULL, 0, NULL, NULL }
	};
	const struct cli_command cmd = {
		"doctor [flags]",
		"Diagnose host installation and runtime availability",
		"  slipway doctor\n  slipway doctor --json",
		opts
	};
	struct adapter_checks checks = { NULL, 0 };
	struct sw_error err = SW_ERROR_INIT;
	char *root = NULL, *common = NULL;
	json_t *doc = NULL;

	if ((rc = cli_adapter_parse(argc, argv, &cmd)) >= 0)
		goto out;
	if (!json)
		(void)cli_human_output();
	if ((rc = cli_adapter_root(&root, &common, raw_root)) != 0)
		goto out;
	if (adapter_doctor(&checks, root, common, cli_adapter_texts(), &err) < 0 ||
	    (json && (doc = doctor_json(&checks)) == NULL)) {
		const char *argv2[] = { "slipway", "doctor", "--root", root, "--json", NULL };
		struct sw_error nerr = SW_ERROR_INIT;
		struct next *n = NULL;

		if (next_command(&n, TBL_NEXTOP_COMMAND, TBL_VARIANT_RETRY_DOCTOR, root, argv2, &nerr) < 0)
			rc = SVC_EXIT_DEFECT;
		else
			rc = svc_fail(TBL_ERR_DOCTOR_FAILED, 0, err.msg[0] ? err.msg : "out of memory", n, root, NULL);
		next_free(n);
		goto out;
	}
	if (json) {
		rc = svc_print_json(doc) < 0 ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
	} else {
		for (size_t i = 0; i < checks.n; i++)
			printf("%-7s %-10s %-34s %s\n", checks.v[i].status, checks.v[i].host,
			       checks.v[i].code, checks.v[i].detail);
		rc = fflush(stdout) == EOF ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
	}
out:
	json_decref(doc);
	adapter_checks_release(&checks);
	sw_free(root);
	sw_free(common);
	return rc;
}
