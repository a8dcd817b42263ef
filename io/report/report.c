/* The person's report of a Run: the headline, the Run as it stands, the
 * sections in order, the next choices of the text form, and the final
 * summary bounded as the reference bounds it.  See io/report/report.h.
 * Never reads the record's encoding or the run directory. */

#include "io/report/report.h"

#include <stdio.h>
#include <string.h>

#include "io/git/observe.h"
#include "io/report/report_internal.h"
#include "io/store/run_record.h"
#include "io/util/digest.h"
#include "io/wire/render.h"

/* ---- the headline --------------------------------------------------------- */

static size_t confirmed_targets(const struct run_record *rec)
{
	size_t n = 0;

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_authorization *au = rec->actions[i].action.destructive_authorization;

		n += au ? au->n_targets : 0;
	}
	return n;
}

static void headline(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_action_record *sum = report__summarize(rec);
	size_t done, skipped, voided, n = report__count_actions(rec, &done, &skipped, &voided);
	size_t targets = confirmed_targets(rec);

	if (r->md) {
		report__put(r, "# ");
		report__one_line(r, rec->goal, 200);
		report__put(r, "\n\n**Slipway Run** ");
		report__code(r, rec->id, 0);
		report__putf(r, " \u00b7 %s", tbl_runstate_wire[rec->state]);
		if (rec->pause_reason != FSM_PAUSE_NONE)
			report__putf(r, " (%s)", tbl_pause_wire[rec->pause_reason]);
		report__put(r, "\n\n");
	} else {
		report__putf(r, "Run %s %s", rec->id, tbl_runstate_wire[rec->state]);
		if (rec->pause_reason != FSM_PAUSE_NONE)
			report__putf(r, " (%s)", tbl_pause_wire[rec->pause_reason]);
		report__put(r, ": ");
		report__one_line(r, rec->goal, 200);
		report__put(r, "\n");
	}
	report__putf(r, "%s %zu Action%s (%zu with an outcome, %zu skipped, %zu voided)",
		     r->ended ? "Outcome: ended after" : "So far:", n, n == 1 ? "" : "s", done, skipped, voided);
	if (!r->ended)
		report__putf(r, ", %lld of %lld budget left", rec->remaining_budget, rec->initial_budget);
	if (r->ended && !rec->final_git_observed)
		report__put(r, "; the final Git observation could not be made");
	else if (!r->compared)
		report__put(r, "; Git cannot be compared with the Run start");
	else
		report__putf(r, "; Git shows %zu changed path%s", report__changes_shown(r), report__changes_shown(r) == 1 ? "" : "s");
	if (targets)
		report__putf(r, "; %zu destructive target%s confirmed", targets, targets == 1 ? "" : "s");
	report__put(r, r->md ? ".\n" : ".\n");
	if (!r->ended)
		return;
	if (sum && sum->outcome && !sum->skipped) {
		if (r->md) {
			report__put(r, "\n## Final report\n\n> ");
			report__block(r, sum->outcome->summary, "> ");
			report__put(r, "\n");
		} else {
			report__put(r, "Final report:\n  ");
			report__block(r, sum->outcome->summary, "  ");
			report__put(r, "\n");
		}
	} else {
		report__put(r, r->md ? "\n## Final report\n\nNone: the Summarize Action was skipped.\n"
			     : "Final report: none (the Summarize Action was skipped).\n");
	}
}

/* The Run as it stands, for a Run still going (text and Markdown). */
static void now_block(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_action_record *cur = run_record_current(rec);
	const struct run_request *req = rec->pending_destructive_request;
	const struct run_pinned_source *pinned = rec->pinned_source;

	if (pinned) {
		report__put(r, r->md ? "\n**Pinned source:** " : "Pinned source: ");
		report__putf(r, "%s (%s)%s", pinned->canonical_url, pinned->issue_id,
			     r->md ? ", requirements revision " : "\nRequirements revision: ");
		report__code(r, pinned->requirements_revision, 0);
		report__put(r, "\n");
	}
	if (r->ended)
		return;
	if (cur && cur->outcome && cur->outcome->pause && cur->outcome->pause->question) {
		report__put(r, r->md ? "\n**Pending question:** " : "Pending question: ");
		report__one_line(r, cur->outcome->pause->question, 200);
		report__put(r, "\n");
	}
	if (req) {
		if (r->md)
			report__put(r, "\n**Destructive request** ");
		else
			report__put(r, "Destructive request: ");
		report__code(r, req->request_id, 0);
		report__put(r, r->md ? "\n\n" : "\nTargets:\n");
		for (size_t i = 0; i < req->n_targets; i++) {
			report__item(r);
			report__putf(r, "%s: ", req->targets[i].kind);
			report__code(r, req->targets[i].value, 0);
			report__put(r, "\n");
		}
		report__put(r, r->md ? "\n**Impact:** " : "Impact: ");
		report__block(r, req->impact, r->md ? "" : "  ");
		report__put(r, r->md ? "\n\n**Scope digest:** " : "\nScope digest: ");
		report__code(r, req->scope_sha256, 0);
		report__put(r, "\n");
	}
	if (rec->source_candidate) {
		const struct run_source_candidate *c = rec->source_candidate;

		report__putf(r, "%sCurrent source candidate: %s (%s, %s)\n", r->md ? "\n" : "", c->candidate_id,
			     c->classification, c->classification_code);
		if (c->classification_error)
			report__putf(r, "Candidate classification: %s\n", c->classification_error);
	}
	if (rec->current_action && rec->state != FSM_RUN_STOPPED)
		report__putf(r, "%sCurrent action: %s (%s)\n", r->md ? "\n" : "", rec->current_action->action_id,
			     tbl_kind_wire[rec->current_action->kind]);
}

/* ---- the report ----------------------------------------------------------- */

char *report_bound_summary(const char *s, size_t limit)
{
	size_t n = strlen(s), cut = limit;
	char digest[SW_DIGEST_LEN], marker[160];
	int m = 0;
	char *out;

	if (n <= limit)
		return sw_strdup(s);
	sw_sha256_prefixed(s, n, digest);
	/* The marker's length depends on the omitted count, which depends on
	 * the cut: four rounds settle it, as upstream. */
	for (int round = 0; round < 4; round++) {
		m = snprintf(marker, sizeof(marker),
			     "\n\n...[summary truncated omitted_bytes=%zu original_sha256=%s]\n",
			     n - cut, digest);
		cut = (size_t)m < limit ? limit - (size_t)m : 0;
		while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
	}
	if ((out = sw_malloc(cut + (size_t)m + 1)) == NULL)
		return NULL;
	memcpy(out, s, cut);
	memcpy(out + cut, marker, (size_t)m + 1);
	return out;
}

/* The reference's three lines for a Run whose Summarize was skipped, then
 * only the facts a person must hear: changes, destructive work and
 * decisions, each when there is one. */
static void skipped_summary(struct rr *r)
{
	report__put(r, "The Summarize Action was skipped.\n");
	if (!r->rec->final_git_observed)
		report__put(r, "Git: the final observation could not be made.\n");
	else if (r->compared && (r->ch.n > 0 || r->ch.head_moved))
		report__put(r, "Git: the worktree differs from the Run start; people, other Runs or tools may "
		       "have contributed.\n");
	else
		report__put(r, "Git: no difference from the Run start was observed.\n");
	report__put(r, "The host wrote no final report.\n");
	for (int s = TBL_SECTION_CHANGES; s <= TBL_SECTION_DECISIONS; s++) {
		size_t before = r->b.len;

		r->count = 0;
		report__section_handler[s](r);
		/* A section with nothing to say stays out. */
		if (!r->b.failed && r->count == 0) {
			r->b.len = before;
			r->b.p[before] = '\0';
		}
	}
}

int report_run(char **out, const struct report_in *in, enum report_form form,
		  struct sw_error *err)
{
	struct rr r = { .form = form, .md = form == REPORT_MARKDOWN, .in = in, .rec = in->rec };
	const struct run_action_record *sum;
	char *choices = NULL, *text = NULL;
	int rc = 0;

	*out = NULL;
	r.ended = r.rec->state == FSM_RUN_ENDED;
	if (in->start && in->now) {
		if (vcs_changes_between(&r.ch, in->start, in->now, err) < 0)
			return err->code;
		r.compared = 1;
	}
	if (report__gather_reported(&r) < 0) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot render the report");
		goto out;
	}
	sum = report__summarize(r.rec);
	if (form == REPORT_SUMMARY && sum && sum->skipped) {
		skipped_summary(&r);
	} else {
		headline(&r);
		if (form != REPORT_SUMMARY)
			now_block(&r);
		for (int s = TBL_SECTION_NONE + 1; s < TBL_SECTION__COUNT; s++)
			report__section_handler[s](&r);
	}
	if (form == REPORT_TEXT && in->next) {
		if ((rc = render_next_choices(&choices, in->next, RENDER_SHELL_NATIVE, NULL, err)) < 0)
			goto out;
		if (choices[0]) {
			report__put(&r, "\n");
			report__put(&r, choices);
		}
	}
	if (r.failed || (text = sw_buf_detach(&r.b)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot render the report");
		goto out;
	}
	if (form == REPORT_SUMMARY) {
		if ((*out = report_bound_summary(text, RUN_MAX_SUMMARY_BYTES)) == NULL)
			rc = sw_error_set(err, SW_ENOMEM, "cannot render the report");
	} else {
		*out = text;
		text = NULL;
	}
out:
	sw_free(text);
	sw_free(choices);
	sw_buf_release(&r.b);
	for (size_t i = 0; i < r.nreported; i++)
		sw_free(r.reported[i]);
	sw_free(r.reported);
	vcs_changes_release(&r.ch);
	return rc;
}

char *report_summary(const struct run_record *rec, const struct run_event *events,
		     size_t n_events, const struct vcs_observation *start,
		     const struct vcs_observation *now, const struct sw_owned *installed)
{
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;

	(void)report_run(&out, &(struct report_in){
		.rec = rec, .events = events, .n_events = n_events, .start = start, .now = now,
		.installed = installed },
		REPORT_SUMMARY, &err);
	return out;
}
