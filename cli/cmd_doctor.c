/* slipway doctor: diagnose the repository, the host adapters, the run
 * store and the GitHub CLI.  Exit 0 whatever it finds. */

#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cmd_doctor(int argc, char **argv)
{
	struct svc_adapters_found found = { 0 };
	struct svc_adapter_request req;
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_DOCTOR, argc, argv, &a, cli_raw_root(argc, argv))) >= 0)
		goto out;
	if (!a.json)
		(void)cli_human_output();
	req = cli_adapter_request(&a);
	if ((rc = svc_op_doctor(&req, &found, NULL)) == 0 && !a.json) {
		for (size_t i = 0; i < found.checks.n; i++)
			printf("%-7s %-10s %-34s %s\n", found.checks.v[i].status, found.checks.v[i].host,
			       found.checks.v[i].code, found.checks.v[i].detail);
		rc = cli_flush();
	}
out:
	svc_adapters_found_release(&found);
	cli_args_release(&a);
	return rc;
}
