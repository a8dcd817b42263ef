/* slipway install: write the capability files for AI coding hosts. */

#include "cli/adapter_cli.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "io/adapter.h"

int cmd_install(int argc, char **argv)
{
	const char *raw_root = NULL, *surface = NULL;
	struct cli_strings tools = { NULL, 0 };
	int refresh = 0, json = 0, mcp = 0, rc;
	struct cli_opt opts[] = {
		{ "json", CLI_OPT_BOOL, &json, 0, "emit JSON", NULL },
		{ "mcp", CLI_OPT_BOOL, &mcp, 0, "also register slipway mcp in the host's project MCP configuration (claude, copilot, cursor, kilo, kiro)", NULL },
		{ "refresh", CLI_OPT_BOOL, &refresh, 0, "rewrite the files slipway still owns and recreate missing ones", NULL },
		{ "root", CLI_OPT_STRING, &raw_root, 0, "workspace root (default: the Git worktree containing the current directory)", "string" },
		{ "surface", CLI_OPT_STRING, &surface, 0, "kiro surface to install: ide or cli", "string", "ide cli" },
		{ "tool", CLI_OPT_STRINGS, &tools, 0, "host adapter to install (claude, codex, copilot, cursor, kilo, kiro, opencode, pi, qwen, windsurf or all); repeat or comma-separate", "strings", CLI_TOOL_CHOICES },
		{ NULL, 0, NULL, 0, NULL, NULL }
	};
	const struct cli_command cmd = {
		"install [flags]",
		"Install Slipway capabilities for detected AI coding hosts",
		"  slipway install --tool claude\n  slipway install --tool claude,cursor --mcp\n"
		"  slipway install --tool kiro --surface ide\n  slipway install --refresh",
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
		struct adapter_request req = { root, tools.v, tools.n, opts[5].seen, surface, refresh,
					       cli_adapter_texts(), mcp };

		if (adapter_install(&rep, &req, &err) < 0)
			rc = cli_adapter_fail(TBL_ERR_INSTALL_FAILED, root, &err, &rep);
		else
			rc = cli_change_report_print("Install result", &rep, json);
	}
out:
	adapter_report_release(&rep);
	sw_free(root);
	sw_free(common);
	cli_strings_release(&tools);
	return rc;
}
