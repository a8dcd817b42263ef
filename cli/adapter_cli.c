#include "cli/adapter_cli.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/embedded.h"
#include "io/vcs.h"

int cli_adapter_parse(int argc, char **argv, const struct cli_command *cmd)
{
	const char *root = cli_raw_root(argc, argv);
	char **pos = NULL;
	size_t npos = 0;
	int rc;

	if ((rc = cli_parse_command(argc, argv, cmd->opts, cmd, argv[0], &pos, &npos, root)) >= 0)
		return rc;
	rc = cli_no_args(npos, pos, argv[0], root);
	sw_free(pos);
	return rc ? rc : -1;
}

int cli_adapter_root(char **root, char **common, const char *raw)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;
	int rc;

	*root = NULL;
	*common = NULL;
	if (vcs_discover(&id, raw, &err) < 0) {
		char msg[600];

		snprintf(msg, sizeof(msg), "%s", err.msg[0] ? err.msg : "not inside a Git worktree");
		vcs_identity_release(&id);
		return svc_fail(TBL_ERR_GIT_REPOSITORY_REQUIRED, 0, msg, NULL, raw, NULL);
	}
	*root = sw_strdup(id.worktree_root);
	*common = sw_strdup(id.git_common_dir);
	vcs_identity_release(&id);
	if (*root == NULL || *common == NULL) {
		sw_free(*root);
		sw_free(*common);
		*root = *common = NULL;
		rc = svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "out of memory", NULL, raw, NULL);
		return rc;
	}
	return 0;
}

const struct adapter_text *cli_adapter_texts(void)
{
	static struct adapter_text texts[32];
	static int ready;

	if (!ready) {
		size_t n = 0;

		for (const struct cli_embedded *e = cli_embedded_files; e->name && n + 1 < 32; e++, n++)
			texts[n] = (struct adapter_text){ e->name, e->bytes, e->len };
		texts[n] = (struct adapter_text){ NULL, NULL, 0 };
		ready = 1;
	}
	return texts;
}

static json_t *strs_json(const struct adapter_strs *s)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < s->n; i++)
		if (json_array_append_new(a, json_string(s->v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *report_json(const struct adapter_report *r)
{
	json_t *o = json_object();

	if (o == NULL ||
	    json_object_set_new(o, "contract_version", json_integer(2)) < 0 ||
	    json_object_set_new(o, "hosts", strs_json(&r->hosts)) < 0 ||
	    json_object_set_new(o, "transaction_outcome",
				json_string(adapter_txn_outcome_wire(r->outcome))) < 0 ||
	    json_object_set_new(o, "written", strs_json(&r->written)) < 0 ||
	    json_object_set_new(o, "removed", strs_json(&r->removed)) < 0 ||
	    json_object_set_new(o, "preserved", strs_json(&r->preserved)) < 0 ||
	    json_object_set_new(o, "recovery_artifacts", strs_json(&r->recovery)) < 0 ||
	    json_object_set_new(o, "warnings", strs_json(&r->warnings)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int cli_adapter_selection_fail(enum tbl_err code, const char *root, const char *message)
{
	const char *argv[] = { "slipway", "list", "--root", root, NULL };
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	int rc;

	if (next_command(&n, TBL_NEXTOP_COMMAND, TBL_VARIANT_LIST_HOST_ADAPTERS, root, argv, &err) < 0)
		return SVC_EXIT_DEFECT;
	rc = svc_fail(code, 0, message, n, root, NULL);
	next_free(n);
	return rc;
}

static int surface_fail(const char *root, const char *message)
{
	static const char *const choices[] = { "ide", "cli", NULL };
	const char *argv[] = { "slipway", "install", "--root", root, "--tool", "kiro", NULL };
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	int rc;

	if (next_command(&n, TBL_NEXTOP_COMMAND, TBL_VARIANT_INSTALL_KIRO, root, argv, &err) < 0 ||
	    next_variant_add_input(&n->variants[0], "surface", TBL_INPUT_ENUM, "--surface", 1,
				   choices, &err) < 0) {
		next_free(n);
		return SVC_EXIT_DEFECT;
	}
	rc = svc_fail(TBL_ERR_INVALID_ADAPTER_SURFACE, 0, message, n, root, NULL);
	next_free(n);
	return rc;
}

int cli_adapter_fail(enum tbl_err fallback, const char *root,
		     const struct sw_error *err, const struct adapter_report *rep)
{
	const char *argv[] = { "slipway", "list", "--root", root, NULL };
	struct sw_error nerr = SW_ERROR_INIT;
	struct next *n = NULL;
	json_t *details = NULL;
	const char *msg = err->msg[0] ? err->msg : "adapter operation failed";
	int rc;

	if (err->code == SW_EPROTO) {
		if (err->proto == TBL_ERR_UNKNOWN_HOST_ADAPTER)
			return cli_adapter_selection_fail(TBL_ERR_UNKNOWN_HOST_ADAPTER, root, msg);
		if (err->proto == TBL_ERR_HOST_ADAPTER_REQUIRED)
			return cli_adapter_selection_fail(TBL_ERR_HOST_ADAPTER_REQUIRED, root, msg);
		if (err->proto == TBL_ERR_INVALID_ADAPTER_SURFACE)
			return surface_fail(root, msg);
	}
	if (next_command(&n, TBL_NEXTOP_COMMAND, TBL_VARIANT_INSPECT_HOST_ADAPTERS, root, argv, &nerr) < 0)
		return SVC_EXIT_DEFECT;
	if (rep) {
		details = json_object();
		if (details == NULL ||
		    json_object_set_new(details, "transaction_outcome",
					json_string(adapter_txn_outcome_wire(rep->outcome))) < 0 ||
		    json_object_set_new(details, "report", report_json(rep)) < 0) {
			json_decref(details);
			next_free(n);
			return SVC_EXIT_DEFECT;
		}
	}
	rc = svc_fail(fallback, 0, msg, n, root, details);
	json_decref(details);
	next_free(n);
	return rc;
}

int cli_change_report_print(const char *heading, const struct adapter_report *r, int json)
{
	static const char *const labels[] = { "wrote", "removed", "preserved", "recovery artifact:", "warning:" };
	const struct adapter_strs *lists[] = { &r->written, &r->removed, &r->preserved, &r->recovery, &r->warnings };

	if (json) {
		json_t *doc = report_json(r);
		int rc = doc ? svc_print_json(doc) : -1;

		json_decref(doc);
		return rc < 0 ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
	}
	printf("%s for: ", heading);
	for (size_t i = 0; i < r->hosts.n; i++)
		printf("%s%s", i ? ", " : "", r->hosts.v[i]);
	printf("%s\n", r->hosts.n ? "" : "(no host)");
	for (size_t l = 0; l < 5; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			printf("  %s %s\n", labels[l], lists[l]->v[i]);
	if (r->written.n + r->removed.n == 0)
		printf("  nothing changed\n");
	return fflush(stdout) == EOF ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
}
