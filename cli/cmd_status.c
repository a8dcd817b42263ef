/* slipway status: the Runs of this repository, or one Run. */

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "io/util/buf.h"
#include "io/wire/render.h"
#include "io/store/run.h"
#include "io/store/run_record.h"
#include "service/ops.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The waiting question of the current Action (`cur`, may be NULL): its
 * words joined by single spaces; over 200 characters it keeps 199 and ends
 * with an ellipsis. */
static void print_question(const struct run_record *rec, const struct run_action *cur)
{
	const struct run_action_record *ar = cur ? run_record_action(rec, cur->action_id) : NULL;
	struct sw_buf b = SW_BUF_INIT;
	const char *q = NULL, *p;
	size_t i, chars = 0, cut = 0;
	char *text;

	if (ar && ar->outcome && ar->outcome->pause)
		q = ar->outcome->pause->question;
	if (q == NULL)
		return;
	for (p = q; *p;) {
		size_t n;

		while (*p && strchr(" \t\n\r\v\f", *p))
			p++;
		n = strcspn(p, " \t\n\r\v\f");
		if (n == 0)
			break;
		if (b.len)
			sw_buf_ch(&b, ' ');
		sw_buf_add(&b, p, n);
		p += n;
	}
	if ((text = sw_buf_detach(&b)) == NULL)
		return;
	for (i = 0; text[i]; i++)
		if (((unsigned char)text[i] & 0xc0) != 0x80 && ++chars == 200)
			cut = i;
	if (chars > 200)
		printf("Pending question: %.*s\u2026\n", (int)cut, text);
	else
		printf("Pending question: %s\n", text);
	sw_free(text);
}

/* The destructive request a person is asked to confirm: every target and
 * the impact, as the host sent them. */
static void print_request(const struct run_request *req)
{
	if (req == NULL)
		return;
	printf("Destructive request: %s\nTargets:\n", req->request_id);
	for (size_t i = 0; i < req->n_targets; i++)
		printf("  - %s: %s\n", req->targets[i].kind, req->targets[i].value);
	printf("Impact: %s\nScope digest: %s\n", req->impact, req->scope_sha256);
}

static int print_run(const struct run_record *rec)
{
	/* A stopped or ended Run shows no current Action (as its runStatus). */
	const struct run_action *cur =
		rec->state == FSM_RUN_STOPPED || rec->state == FSM_RUN_ENDED ? NULL
									      : rec->current_action;
	const struct run_pinned_source *pinned = rec->pinned_source;
	const struct run_source_candidate *cand = rec->source_candidate;

	printf("Run: %s\nState: %s\nGoal: %s\nBudget remaining: %lld\n", rec->id,
	       tbl_runstate_wire[rec->state], rec->goal, rec->remaining_budget);
	if (pinned)
		printf("Pinned source: %s (%s)\nSource revision: %s\nRequirements revision: %s\n",
		       pinned->canonical_url, pinned->issue_id, pinned->source_revision,
		       pinned->requirements_revision);
	if (rec->pause_reason != FSM_PAUSE_NONE)
		printf("Pause reason: %s\n", tbl_pause_wire[rec->pause_reason]);
	print_question(rec, cur);
	print_request(rec->pending_destructive_request);
	if (cand) {
		printf("Current source candidate: %s (%s, %s)\n", cand->candidate_id,
		       cand->classification, cand->classification_code);
		if (cand->classification_error)
			printf("Candidate classification: %s\n", cand->classification_error);
	}
	if (cur)
		printf("Current action: %s (%s)\n", cur->action_id, tbl_kind_wire[cur->kind]);
	if (rec->summary)
		printf("\nSummary:\n%s", rec->summary);
	return 0;
}

/* One Run as text: its facts, the report so far, then the next choices. */
static int print_one(const struct svc_status_found *res)
{
	struct sw_error err = SW_ERROR_INIT;
	char *choices = NULL;

	print_run(run_record(res->run));
	if (run_record(res->run)->summary == NULL) {
		char *report = run_report(res->run);

		if (report)
			printf("\nReport so far:\n%s", report);
		sw_free(report);
	}
	if (res->next && render_next_choices(&choices, res->next, RENDER_SHELL_NATIVE, NULL, &err) == 0 &&
	    choices && choices[0])
		fputs(choices, stdout);
	sw_free(choices);
	return cli_flush();
}

/* The listing as text: one line per Run, then one per unavailable Run. */
static int print_list(const struct svc_listing *l)
{
	json_t *entry;
	size_t i;

	if (json_array_size(l->runs) == 0 && json_array_size(l->unavailable) == 0)
		printf("No run journals were found.\n");
	json_array_foreach(l->runs, i, entry) {
		if (json_is_true(json_object_get(entry, "workspace_foreign")))
			printf("%s  %-7s  foreign=true  workspace=%s  %s\n", jstr(entry, "id"),
			       jstr(entry, "state"), jstr(entry, "workspace"), jstr(entry, "goal"));
		else
			printf("%s  %-7s  remaining=%lld  %s\n", jstr(entry, "id"),
			       jstr(entry, "state"),
			       (long long)json_integer_value(json_object_get(entry, "remaining_budget")),
			       jstr(entry, "goal"));
	}
	json_array_foreach(l->unavailable, i, entry)
		printf("%s  unavailable  code=%s  %s\n", jstr(entry, "id"), jstr(entry, "code"),
		       jstr(entry, "detail"));
	return cli_flush();
}

int cmd_status(int argc, char **argv)
{
	struct svc_status_found res = { 0 };
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_STATUS, argc, argv, &a, cli_raw_root(argc, argv))) >= 0)
		goto out;
	if (!a.json)
		(void)cli_human_output();
	rc = svc_op_status(&(struct svc_status_request){
		.root = cli_root(&a), .run_id = a.npos == 1 ? a.pos[0] : NULL,
		.section = a.section.v, .section_given = a.section.given, .human = !a.json },
		&res, NULL);
	if (rc == 0 && !a.json && res.run)
		rc = print_one(&res);
	else if (rc == 0 && !a.json && res.listed)
		rc = print_list(&res.list);
out:
	svc_status_found_release(&res);
	cli_args_release(&a);
	return rc;
}
