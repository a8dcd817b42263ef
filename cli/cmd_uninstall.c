/* slipway uninstall: remove the capability files slipway still owns. */

#include "cli/cli.h"
#include "cli/commands.h"

int cmd_uninstall(int argc, char **argv)
{
	struct svc_adapters_found found = { 0 };
	struct svc_adapter_request req;
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_UNINSTALL, argc, argv, &a, cli_raw_root(argc, argv))) >= 0)
		goto out;
	req = cli_adapter_request(&a);
	if ((rc = svc_op_uninstall(&req, &found, NULL)) == 0 && !a.json)
		rc = cli_print_change_report("Uninstall result", &found.report);
out:
	svc_adapters_found_release(&found);
	cli_args_release(&a);
	return rc;
}
