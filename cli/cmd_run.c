/* slipway run: start a Run. */

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "io/input.h"
#include "io/outcome.h"
#include "io/source.h"

/* Reads and accepts the envelope at `path` (a new Run needs a valid Change
 * body).  A rejection is invalid_source with the start-with-source next. */
static int import_source(const struct driver *d, struct source_pinned **out,
			 const char *path, unsigned budget, int no_review)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	char *buf = NULL, msg[600];
	size_t len = 0;
	int rc = 0;

	if (cli_read_source(&buf, &len, path, &err) < 0)
		snprintf(msg, sizeof(msg), "source file could not be read safely");
	else if (source_parse(out, NULL, buf, len, &err) < 0)
		snprintf(msg, sizeof(msg), "source file could not be imported: %s", err.msg);
	if (*out == NULL) {
		sw_error_clear(&err);
		if (next_build_start(&n, d->ws.id, d->ws.worktree_root, budget, no_review, 1, &err) < 0)
			next_none_identity(&n, d->ws.id, &err);
		rc = cli_fail(TBL_ERR_INVALID_SOURCE, 0, msg, n, d->ws.worktree_root, NULL);
	}
	next_free(n);
	sw_free(buf);
	return rc;
}

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
	struct sw_error err = SW_ERROR_INIT;
	struct driver d = { 0 };
	struct run *run = NULL;
	struct source_pinned *source = NULL;
	char **pos = NULL, *goal_buf = NULL, headline[200];
	const char *goal = NULL;
	size_t npos = 0, goal_len = 0;
	long budget = 8;
	int modes;

	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "run", &pos, &npos,
				    cli_raw_root(argc, argv))) >= 0)
		return rc;
	if (!json)
		(void)cli_human_output();
	d.root_arg = root && *root ? root : NULL;
	if ((rc = cli_max_args(npos, 1, d.root_arg)) != 0)
		goto out;
	modes = (int)npos + opts[0].seen + (goal_stdin != 0);
	if (modes == 0) {
		rc = driver_usage(&d, TBL_ERR_GOAL_REQUIRED,
				  "exactly one positional goal, goal-file, or goal-stdin input is required");
		goto out;
	}
	if (modes > 1) {
		rc = driver_usage(&d, TBL_ERR_GOAL_MODE_CONFLICT,
				  "positional goal, goal-file, and goal-stdin are mutually exclusive");
		goto out;
	}
	if (opts[0].seen && goal_file[strspn(goal_file, " \t\r\n")] == '\0') {
		rc = driver_usage(&d, TBL_ERR_GOAL_FILE_REQUIRED, "goal-file cannot be empty");
		goto out;
	}
	if (npos == 1) {
		goal = pos[0];
		goal_len = strlen(goal);
	} else {
		int r = opts[0].seen
			? input_read_regular_file(&goal_buf, &goal_len, goal_file, INPUT_MAX_TEXT_BYTES, &err)
			: input_read_stdin(&goal_buf, &goal_len, INPUT_MAX_TEXT_BYTES, &err);

		if (r < 0) {
			struct sw_error mapped = SW_ERROR_INIT;

			input_goal_read_error(&err, &mapped);
			rc = driver_usage(&d, mapped.proto ? mapped.proto
									  : TBL_ERR_GOAL_UNAVAILABLE,
					  err.msg);
			goto out;
		}
		goal = goal_buf;
	}
	if (input_goal_check(goal, goal_len, &err) < 0 || strlen(goal) != goal_len) {
		rc = driver_usage(&d, err.proto ? err.proto
								: TBL_ERR_INVALID_GOAL,
				  err.msg[0] ? err.msg : "goal contains a NUL byte");
		goto out;
	}
	if (budget_s && input_budget_parse(&budget, budget_s, &err) < 0) {
		rc = driver_usage(&d, err.proto, err.msg);
		goto out;
	}
	if (opts[2].seen && source_file[0] == '\0') {
		rc = driver_usage(&d, TBL_ERR_SOURCE_FILE_REQUIRED, "source-file cannot be empty");
		goto out;
	}
	if ((rc = driver_discover(&d)) != 0)
		goto out;
	if (opts[2].seen && (rc = import_source(&d, &source, source_file, (unsigned)budget,
						 no_review)) != 0) {
		driver_close(&d);
		goto out;
	}
	if ((rc = driver_open_store(&d, true)) != 0)
		goto out;
	if ((rc = driver_start(&d, goal, (unsigned)budget, !no_review, source, &run)) != 0)
		goto close;
	snprintf(headline, sizeof(headline), "Run %s started.", run_id(run));
	rc = driver_print_state(&d, run, !json, headline, 1, NULL);
close:
	run_free(run);
	driver_close(&d);
out:
	source_pinned_free(source);
	sw_free(goal_buf);
	sw_free(pos);
	return rc;
}
