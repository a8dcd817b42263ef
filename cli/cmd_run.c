/* slipway run: start a Run. */

#include "cli/cli.h"
#include "cli/commands.h"
#include "io/err.h"
#include "service/ops.h"

int cmd_run(int argc, char **argv)
{
	const char *goal_file = NULL, *source_file = NULL, *budget_s = NULL, *root = NULL;
	int goal_stdin = 0, no_review = 0, json = 0, rc;
	struct cli_opt opts[] = {
		{ "goal-file", CLI_OPT_STRING, &goal_file, 0, "read the exact Run goal from a regular non-symlink file", "string" },
		{ "goal-stdin", CLI_OPT_BOOL, &goal_stdin, 0, "read the exact Run goal from stdin", NULL },
		{ "source-file", CLI_OPT_STRING, &source_file, 0, "raw GitHub Change source envelope", "string" },
		{ "budget", CLI_OPT_STRING, &budget_s, 0, "maximum number of Actions before pausing (default 8)", "int" },
		{ "no-review", CLI_OPT_BOOL, &no_review, 0, "omit the default advisory review", NULL },
		{ "json", CLI_OPT_BOOL, &json, 0, "emit machine-protocol JSON", NULL },
		{ "root", CLI_OPT_STRING, &root, 0, "workspace root (default: current Git worktree)", "string" },
		{ NULL, 0, NULL, 0, NULL, NULL },
	};
	static const struct cli_command cmd = {
		"run [flags] [-- <goal>]", "Start a Run: slipway issues its first Action",
		"  slipway run --budget 8 --json -- \"<goal>\"\n"
		"  slipway run --goal-file GOAL --source-file SOURCE --budget 8 --json", NULL
	};
	struct svc_start_request req = { 0 };
	char **pos = NULL;
	size_t npos = 0;

	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "run", &pos, &npos,
				    cli_raw_root(argc, argv))) >= 0)
		return rc;
	if (!json)
		(void)cli_human_output();
	req.root = root && *root ? root : NULL;
	if ((rc = cli_max_args(npos, 1, req.root)) == 0) {
		req.goal = npos == 1 ? pos[0] : NULL;
		req.goal_file = goal_file;
		req.goal_file_given = opts[0].seen;
		req.goal_stdin = goal_stdin;
		req.budget = budget_s;
		req.source_file = source_file;
		req.source_file_given = opts[2].seen;
		req.no_review = no_review;
		req.human = !json;
		rc = svc_op_start(&req, NULL);
	}
	sw_free(pos);
	return rc;
}
