/* The human text of status: one Run (its facts, the report so far, the
 * next choices) or the listing, one line per Run.  Every human rendering
 * of a Run's record is here; cli/cmd_status.c only prints it. */

#include "service/ops.h"

#include <string.h>

#include <jansson.h>

#include "io/store/run_record.h"
#include "io/util/buf.h"
#include "io/wire/render.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The waiting question of the current Action (`cur`, may be NULL): its
 * words joined by single spaces; over 200 characters it keeps 199 and ends
 * with an ellipsis. */
static void question(struct sw_buf *out, const struct run_record *rec,
		     const struct run_action *cur)
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
		sw_buf_fmt(out, "Pending question: %.*s\u2026\n", (int)cut, text);
	else
		sw_buf_fmt(out, "Pending question: %s\n", text);
	sw_free(text);
}

/* The destructive request a person is asked to confirm: every target and
 * the impact, as the host sent them. */
static void request(struct sw_buf *out, const struct run_request *req)
{
	if (req == NULL)
		return;
	sw_buf_fmt(out, "Destructive request: %s\nTargets:\n", req->request_id);
	for (size_t i = 0; i < req->n_targets; i++)
		sw_buf_fmt(out, "  - %s: %s\n", req->targets[i].kind, req->targets[i].value);
	sw_buf_fmt(out, "Impact: %s\nScope digest: %s\n", req->impact, req->scope_sha256);
}

static void facts(struct sw_buf *out, const struct run_record *rec)
{
	/* A stopped or ended Run shows no current Action (as its runStatus). */
	const struct run_action *cur =
		rec->state == FSM_RUN_STOPPED || rec->state == FSM_RUN_ENDED ? NULL
									      : rec->current_action;
	const struct run_pinned_source *pinned = rec->pinned_source;
	const struct run_source_candidate *cand = rec->source_candidate;

	sw_buf_fmt(out, "Run: %s\nState: %s\nGoal: %s\nBudget remaining: %lld\n", rec->id,
		   tbl_runstate_wire[rec->state], rec->goal, rec->remaining_budget);
	if (pinned)
		sw_buf_fmt(out, "Pinned source: %s (%s)\nSource revision: %s\nRequirements revision: %s\n",
			   pinned->canonical_url, pinned->issue_id, pinned->source_revision,
			   pinned->requirements_revision);
	if (rec->pause_reason != FSM_PAUSE_NONE)
		sw_buf_fmt(out, "Pause reason: %s\n", tbl_pause_wire[rec->pause_reason]);
	question(out, rec, cur);
	request(out, rec->pending_destructive_request);
	if (cand) {
		sw_buf_fmt(out, "Current source candidate: %s (%s, %s)\n", cand->candidate_id,
			   cand->classification, cand->classification_code);
		if (cand->classification_error)
			sw_buf_fmt(out, "Candidate classification: %s\n", cand->classification_error);
	}
	if (cur)
		sw_buf_fmt(out, "Current action: %s (%s)\n", cur->action_id, tbl_kind_wire[cur->kind]);
	if (rec->summary)
		sw_buf_fmt(out, "\nSummary:\n%s", rec->summary);
}

/* One Run as text: its facts, the report so far, then the next choices. */
static char *one_text(const struct svc_status_found *found)
{
	const struct run_record *rec = run_record(found->run);
	struct sw_error err = SW_ERROR_INIT;
	struct sw_buf out = SW_BUF_INIT;
	char *choices = NULL;

	facts(&out, rec);
	if (rec->summary == NULL) {
		char *report = run_report(found->run);

		if (report)
			sw_buf_fmt(&out, "\nReport so far:\n%s", report);
		sw_free(report);
	}
	if (found->next &&
	    render_next_choices(&choices, found->next, RENDER_SHELL_NATIVE, NULL, &err) == 0 &&
	    choices && choices[0])
		sw_buf_str(&out, choices);
	sw_free(choices);
	return sw_buf_detach(&out);
}

/* The listing as text: one line per Run, then one per unavailable Run. */
static char *list_text(const struct svc_listing *l)
{
	struct sw_buf out = SW_BUF_INIT;
	json_t *entry;
	size_t i;

	if (json_array_size(l->runs) == 0 && json_array_size(l->unavailable) == 0)
		sw_buf_str(&out, "No run journals were found.\n");
	json_array_foreach(l->runs, i, entry) {
		if (json_is_true(json_object_get(entry, "workspace_foreign")))
			sw_buf_fmt(&out, "%s  %-7s  foreign=true  workspace=%s  %s\n", jstr(entry, "id"),
				   jstr(entry, "state"), jstr(entry, "workspace"), jstr(entry, "goal"));
		else
			sw_buf_fmt(&out, "%s  %-7s  remaining=%lld  %s\n", jstr(entry, "id"),
				   jstr(entry, "state"),
				   (long long)json_integer_value(json_object_get(entry, "remaining_budget")),
				   jstr(entry, "goal"));
	}
	json_array_foreach(l->unavailable, i, entry)
		sw_buf_fmt(&out, "%s  unavailable  code=%s  %s\n", jstr(entry, "id"),
			   jstr(entry, "code"), jstr(entry, "detail"));
	return sw_buf_detach(&out);
}

char *svc_status_text(const struct svc_status_found *found)
{
	if (found->run)
		return one_text(found);
	if (found->listed)
		return list_text(&found->list);
	return NULL;
}
