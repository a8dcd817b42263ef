/* slipway run: start a Run. */

#include "cli/cli.h"
#include "cli/commands.h"
#include "service/ops.h"

int cmd_run(int argc, char **argv)
{
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_RUN, argc, argv, &a, cli_raw_root(argc, argv))) < 0) {
		if (!a.json)
			(void)cli_human_output();
		rc = svc_op_start(&(struct svc_start_request){
			.root = cli_root(&a), .goal = a.npos == 1 ? a.pos[0] : NULL,
			.goal_file = a.goal_file.v, .goal_file_given = a.goal_file.given,
			.goal_stdin = a.goal_stdin, .budget = a.budget.v,
			.source_file = a.source_file.v, .source_file_given = a.source_file.given,
			.no_review = a.no_review, .human = !a.json }, NULL);
	}
	cli_args_release(&a);
	return rc;
}
