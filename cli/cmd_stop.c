/* slipway stop: stop a Run (the one active or paused Run when no id). */

#include "cli/cli.h"
#include "cli/commands.h"
#include "service/ops.h"

int cmd_stop(int argc, char **argv)
{
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_STOP, argc, argv, &a, cli_raw_root(argc, argv))) < 0) {
		if (!a.json)
			(void)cli_human_output();
		rc = svc_op_stop(&(struct svc_stop_request){
			.root = cli_root(&a), .run_id = a.npos == 1 ? a.pos[0] : NULL,
			.human = !a.json }, NULL);
	}
	cli_args_release(&a);
	return rc;
}
