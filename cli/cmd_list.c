/* slipway list: every host adapter and its installation state. */

#include <stdio.h>

#include <jansson.h>

#include "cli/adapter_cli.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "io/adapter.h"

static json_t *list_json(const struct adapter_host_status *st)
{
	json_t *doc = json_object(), *hosts = json_array();

	if (doc == NULL || hosts == NULL ||
	    json_object_set_new(doc, "contract_version", json_integer(2)) < 0 ||
	    json_object_set(doc, "hosts", hosts) < 0)
		goto fail;
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		json_t *h = json_object(), *caps = json_array();

		if (h == NULL || caps == NULL || json_array_append_new(hosts, h) < 0) {
			json_decref(caps);
			goto fail;
		}
		for (size_t c = 0; c < st[i].ncaps; c++)
			if (json_array_append_new(caps, json_string(st[i].caps[c])) < 0) {
				json_decref(caps);
				goto fail;
			}
		if (json_object_set_new(h, "id", json_string(st[i].id)) < 0 ||
		    json_object_set_new(h, "detected", json_boolean(st[i].detected)) < 0 ||
		    json_object_set_new(h, "installed", json_boolean(st[i].installed)) < 0 ||
		    json_object_set_new(h, "needs_refresh", json_boolean(st[i].needs_refresh)) < 0 ||
		    json_object_set_new(h, "capabilities", caps) < 0 ||
		    (st[i].warning && json_object_set_new(h, "warning", json_string(st[i].warning)) < 0))
			goto fail;
	}
	json_decref(hosts);
	return doc;
fail:
	json_decref(hosts);
	json_decref(doc);
	return NULL;
}

static int print_human(const struct adapter_host_status *st)
{
	printf("%-10s %-9s %-14s %-14s %s\n", "HOST", "DETECTED", "INSTALLED", "REFRESH", "HEALTHY CAPABILITIES");
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		printf("%-10s %-9s %-14s %-14s %zu/%d\n", st[i].id, st[i].detected ? "yes" : "no",
		       st[i].installed ? "yes" : "no",
		       st[i].needs_refresh ? "needed" : "-", st[i].ncaps, ADAPTER_NCAPS);
		if (st[i].mcp_config)
			printf("  mcp: slipway mcp is registered in %s\n", st[i].mcp_config);
		if (st[i].warning)
			printf("  warning: %s\n", st[i].warning);
	}
	return fflush(stdout) == EOF ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
	const char *raw_root = NULL;
	int json = 0, rc;
	struct cli_opt opts[] = {
		{ "json", CLI_OPT_BOOL, &json, 0, "emit JSON", NULL },
		{ "root", CLI_OPT_STRING, &raw_root, 0, "workspace root (default: the Git worktree containing the current directory)", "string" },
		{ NULL, 0, NULL, 0, NULL, NULL }
	};
	const struct cli_command cmd = {
		"list [flags]",
		"List host adapters and their installation state",
		"  slipway list\n  slipway list --json",
		opts
	};
	struct adapter_host_status st[ADAPTER_NHOSTS];
	struct sw_error err = SW_ERROR_INIT;
	char *root = NULL, *common = NULL;
	json_t *doc = NULL;

	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		st[i].warning = NULL;
	if ((rc = cli_adapter_parse(argc, argv, &cmd)) >= 0)
		goto out;
	if (!json)
		(void)cli_human_output();
	if ((rc = cli_adapter_root(&root, &common, raw_root)) != 0)
		goto out;
	if (adapter_list(st, root, cli_adapter_texts(), &err) < 0 ||
	    (json && (doc = list_json(st)) == NULL)) {
		const char *argv2[] = { "slipway", "list", "--root", root, NULL };
		struct sw_error nerr = SW_ERROR_INIT;
		struct next *n = NULL;

		if (next_command(&n, TBL_NEXTOP_COMMAND, TBL_VARIANT_RETRY_LIST, root, argv2, &nerr) < 0)
			rc = SVC_EXIT_DEFECT;
		else
			rc = svc_fail(TBL_ERR_LIST_FAILED, 0, err.msg[0] ? err.msg : "out of memory", n, root, NULL);
		next_free(n);
		goto out;
	}
	rc = json ? (svc_print_json(doc) < 0 ? SVC_EXIT_DEFECT : SVC_EXIT_OK) : print_human(st);
out:
	json_decref(doc);
	adapter_list_release(st);
	sw_free(root);
	sw_free(common);
	return rc;
}
