/* slipway list: every host adapter and its installation state. */

#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

static int print_hosts(const struct adapter_host_status *st)
{
	printf("%-10s %-9s %-14s %-14s %s\n", "HOST", "DETECTED", "INSTALLED", "REFRESH",
	       "HEALTHY CAPABILITIES");
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		printf("%-10s %-9s %-14s %-14s %zu/%d\n", st[i].id, st[i].detected ? "yes" : "no",
		       st[i].installed ? "yes" : "no", st[i].needs_refresh ? "needed" : "-",
		       st[i].ncaps, ADAPTER_NCAPS);
		for (size_t k = 0; k < ADAPTER_NMCP && st[i].mcp_config[k]; k++)
			printf("  mcp: slipway mcp is registered in %s\n", st[i].mcp_config[k]);
		if (st[i].warning)
			printf("  warning: %s\n", st[i].warning);
	}
	return cli_flush();
}

int cmd_list(int argc, char **argv)
{
	struct svc_adapters_found found = { 0 };
	struct svc_adapter_request req;
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_LIST, argc, argv, &a, cli_raw_root(argc, argv))) >= 0)
		goto out;
	if (!a.json)
		(void)cli_human_output();
	req = cli_adapter_request(&a);
	if ((rc = svc_op_list(&req, &found, NULL)) == 0 && !a.json)
		rc = print_hosts(found.hosts);
out:
	svc_adapters_found_release(&found);
	cli_args_release(&a);
	return rc;
}
