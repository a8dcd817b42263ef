/* run: start a Run. */

#include "service/ops.h"

#include <stdio.h>
#include <string.h>

#include "io/util/file.h"
#include "io/wire/input.h"
#include "io/source/source.h"
#include "service/emit.h"

/* Reads and accepts the envelope at `path` (a new Run needs a valid Change
 * body).  A rejection is invalid_source with the start-with-source next. */
static int import_source(const struct svc *d, struct source_pinned **out,
			 const struct svc_start_request *req, unsigned budget)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	char *buf = NULL, msg[600];
	size_t len = 0;
	int rc = 0;

	if (svc_read_source(&buf, &len, req->source_file, req->source_bytes, req->source_len, &err) < 0)
		snprintf(msg, sizeof(msg), "source file could not be read safely");
	else if (source_parse(out, NULL, buf, len, &err) < 0)
		snprintf(msg, sizeof(msg), "source file could not be imported: %s", err.msg);
	if (*out == NULL) {
		sw_error_clear(&err);
		if (next_build_start(&n, d->ws.id, d->ws.worktree_root, budget, req->no_review, 1, &err) < 0)
			next_none_identity(&n, d->ws.id, &err);
		rc = svc_fail(TBL_ERR_INVALID_SOURCE, 0, msg, n, d->ws.worktree_root, NULL);
	}
	next_free(n);
	sw_free(buf);
	return rc;
}

static int start(const struct svc_start_request *req)
{
	const char *goal_file = req->goal_file, *source_file = req->source_file,
		   *budget_s = req->budget;
	int goal_stdin = req->goal_stdin, no_review = req->no_review, rc;
	struct sw_error err = SW_ERROR_INIT;
	struct svc d = { .root_arg = req->root };
	struct run *run = NULL;
	struct source_pinned *source = NULL;
	char *goal_buf = NULL, headline[200];
	const char *goal = NULL;
	size_t goal_len = 0;
	long budget = 8;
	int modes;

	modes = (req->goal != NULL) + (req->goal_file_given != 0) + (goal_stdin != 0);
	if (modes == 0) {
		rc = svc_usage(&d, TBL_ERR_GOAL_REQUIRED,
				  "exactly one positional goal, goal-file, or goal-stdin input is required");
		goto out;
	}
	if (modes > 1) {
		rc = svc_usage(&d, TBL_ERR_GOAL_MODE_CONFLICT,
				  "positional goal, goal-file, and goal-stdin are mutually exclusive");
		goto out;
	}
	if (req->goal_file_given && goal_file[strspn(goal_file, " \t\r\n")] == '\0') {
		rc = svc_usage(&d, TBL_ERR_GOAL_FILE_REQUIRED, "goal-file cannot be empty");
		goto out;
	}
	if (req->goal != NULL) {
		goal = req->goal;
		goal_len = strlen(goal);
	} else {
		int r = req->goal_file_given
			? sw_read_regular_file(&goal_buf, &goal_len, goal_file, INPUT_MAX_TEXT_BYTES, &err)
			: sw_read_stdin(&goal_buf, &goal_len, INPUT_MAX_TEXT_BYTES, &err);

		if (r < 0) {
			struct sw_error mapped = SW_ERROR_INIT;

			input_goal_read_error(&err, &mapped);
			rc = svc_usage(&d, mapped.proto ? mapped.proto
									  : TBL_ERR_GOAL_UNAVAILABLE,
					  err.msg);
			goto out;
		}
		goal = goal_buf;
	}
	if (input_goal_check(goal, goal_len, &err) < 0 || strlen(goal) != goal_len) {
		rc = svc_usage(&d, err.proto ? err.proto
								: TBL_ERR_INVALID_GOAL,
				  err.msg[0] ? err.msg : "goal contains a NUL byte");
		goto out;
	}
	if (budget_s && input_budget_parse(&budget, budget_s, &err) < 0) {
		rc = svc_usage(&d, err.proto, err.msg);
		goto out;
	}
	if (req->source_file_given && source_file[0] == '\0') {
		rc = svc_usage(&d, TBL_ERR_SOURCE_FILE_REQUIRED, "source-file cannot be empty");
		goto out;
	}
	if ((rc = svc_discover(&d)) != 0)
		goto out;
	if (req->source_file_given && (rc = import_source(&d, &source, req, (unsigned)budget)) != 0) {
		svc_close(&d);
		goto out;
	}
	if ((rc = svc_open_store(&d, true)) != 0)
		goto out;
	if ((rc = svc_start(&d, goal, (unsigned)budget, !no_review, source, &run)) != 0)
		goto close;
	snprintf(headline, sizeof(headline), "Run %s started.", run_id(run));
	rc = svc_print_state(&d, run, req->human, headline, 1, NULL);
close:
	run_free(run);
	svc_close(&d);
out:
	source_pinned_free(source);
	sw_free(goal_buf);
	return rc;
}

int svc_op_start(const struct svc_start_request *req, struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT : svc_result_end(res, start(req));
}
