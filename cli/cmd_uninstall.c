/* slipway uninstall: remove the capability files slipway still owns. */

#include "cli/adapter_cli.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "io/adapter.h"

int cmd_uninstall(int argc, char **argv)
{
	const char *raw_root = NULL;
	struct cli_strings tools = { NULL, 0 };
	int json = 0, rc;
	struct cli_opt opts[] = {
		{ "json", CLI_OPT_BOOL, &json, 0, "emit JSON", NULL },
		{ "root", CLI_OPT_STRING, &raw_root, 0, "workspace root (default: the Git worktree containing the current directory)", "string" },
		{ "tool", CLI_OPT_STRINGS, &tools, 0, "host adapter to uninstall, or all; repeat or comma-separate (default: every installed one)", "strings", CLI_TOOL_CHOICES },
		{ NULL, 0, NULL, 0, NULL, NULL }
	};
	const struct cli_command cmd = {
		"uninstall [flags]",
		"Remove pristine Slipway-managed host capabilities",
		"  slipway uninstall --tool claude\n  slipway uninstall",
		opts
	};
	struct adapter_report rep = { 0 };
	struct sw_error err = SW_ERROR_INIT;
	char *root = NULL, *common = NULL;

	if ((rc = cli_adapter_parse(argc, argv, &cmd)) >= 0)
		goto out;
	if ((rc = cli_adapter_root(&root, &common, raw_root)) != 0)
		goto out;
	{
		struct adapter_request req = { root, tools.v, tools.n, opts[2].seen, NULL, 0,
					       cli_adapter_texts() };

		if (adapter_uninstall(&rep, &req, &err) < 0)
			rc = cli_adapter_fail(TBL_ERR_UNINSTALL_FAILED, root, &err, &rep);
		else
			rc = cli_change_report_print("Uninstall result", &rep, json);
	}
out:
	adapter_report_release(&rep);
	sw_free(root);
	sw_free(common);
	cli_strings_release(&tools);
	return rc;
}
