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

/* What is still open, in the first paragraph: the last Review's findings,
 * the known issues, the checks still failing and an adopted amendment no
 * Implement covered, with the sections it changed. */
static void still_open(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_outcome *last;
	const struct run_action_record *base;
	const struct run_action_record *moved = report__unimplemented_move(rec, &base);
	char **keys;
	size_t earlier, known = report__known_issues(rec, &last, &keys, &earlier);
	size_t failed = report__failed_checks(rec), findings = 0;
	const struct run_action_record *review = report__last_review(rec, &earlier);
	const char *sep = "";
	char rev[24];

	if (known == (size_t)-1) {
		r->failed = 1;
		return;
	}
	for (size_t k = 0; k < known; k++)
		sw_free(keys[k]);
	sw_free(keys);
	if (review)
		findings = review->outcome->review->n_findings;
	if (findings + known + failed == 0 && moved == NULL)
		return;
	report__put(r, "Still open: ");
	if (findings) {
		report__putf(r, "%zu Review finding%s", findings, findings == 1 ? "" : "s");
		sep = ", ";
	}
	if (known) {
		report__putf(r, "%s%zu known issue%s", sep, known, known == 1 ? "" : "s");
		sep = ", ";
	}
	if (failed) {
		report__putf(r, "%s%zu failed check%s", sep, failed, failed == 1 ? "" : "s");
		sep = ", ";
	}
	if (moved) {
		/* No Implement of this Run covered the adopted requirements
		 * (report__unimplemented_move): name what they newly ask. */
		report__putf(r, "%sthe adopted amendment is not implemented (", sep[0] ? "; " : "");
		report__new_requirements(r, base, moved);
		report__put(r, ", requirements revision ");
		snprintf(rev, sizeof(rev), "%.19s", moved->action.requirements->requirements_revision);
		report__code(r, rev, 0);
		report__put(r, "): a new Run from the amended Issue implements it");
	}
	report__put(r, ".\n");
}

static void headline(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_action_record *sum = report__summarize(rec);
	size_t done, skipped, voided, n = report__count_actions(rec, &done, &skipped, &voided);
	size_t targets = confirmed_targets(rec), total;
	int exact;

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
		report__putf(r, ", %lld of %lld budget left", rec->remaining_budget, report__budget_set(r));
	if (r->ended && !rec->final_git_observed)
		report__put(r, "; the final Git observation could not be made");
	else if (!r->compared)
		report__put(r, "; Git cannot be compared with the Run start");
	else {
		total = report__changes_total(r, &exact);
		report__putf(r, "; Git shows %s%zu changed path%s", exact ? "" : "at least ", total,
			     total == 1 ? "" : "s");
		if (r->ch.bounded)
			report__putf(r, " (a bounded list of %zu)", report__changes_shown(r));
	}
	if (targets)
		report__putf(r, "; %zu destructive target%s confirmed", targets, targets == 1 ? "" : "s");
	report__put(r, ".\n");
	still_open(r);
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
		report__text(r, pinned->canonical_url);
		report__put(r, " (");
		report__text(r, pinned->issue_id);
		report__put(r, r->md ? "), requirements revision " : ")\nRequirements revision: ");
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
			report__text(r, req->targets[i].kind);
			report__put(r, ": ");
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

		report__put(r, r->md ? "\nCurrent source candidate: " : "Current source candidate: ");
		report__text(r, c->candidate_id);
		report__put(r, " (");
		report__text(r, c->classification);
		report__put(r, ", ");
		report__text(r, c->classification_code);
		report__put(r, ")\n");
		if (c->classification_error) {
			report__put(r, "Candidate classification: ");
			report__one_line(r, c->classification_error, 500);
			report__put(r, "\n");
		}
	}
	if (rec->current_action && rec->state != FSM_RUN_STOPPED)
		report__putf(r, "%sCurrent action: %s (%s)\n", r->md ? "\n" : "", rec->current_action->action_id,
			     tbl_kind_wire[rec->current_action->kind]);
}

/* ---- the report ----------------------------------------------------------- */

/* `shown` (its first `n` bytes) ended with the marker of a cut from
 * `full` (`full_len` bytes), the whole at most `limit` bytes: `shown` is
 * cut at a UTF-8 boundary as far as the marker needs, and the marker
 * gives the bytes of `full` not shown and the digest of `full`.  `word`
 * names what was cut ("summary", "report").  A new string, or NULL on
 * ENOMEM. */
static char *marked(const char *shown, size_t n, const char *full, size_t full_len,
		    const char *word, size_t limit)
{
	size_t cut = n;
	char digest[SW_DIGEST_LEN], marker[160];
	int m = 0;
	char *out;

	sw_sha256_prefixed(full, full_len, digest);
	/* The marker's length depends on the omitted count, which depends on
	 * the cut: four rounds settle it, as upstream. */
	for (int round = 0; round < 4; round++) {
		m = snprintf(marker, sizeof(marker),
			     "\n\n...[%s truncated omitted_bytes=%zu original_sha256=%s]\n", word,
			     full_len - cut, digest);
		if (cut + (size_t)m > limit)
			cut = (size_t)m < limit ? limit - (size_t)m : 0;
		while (cut > 0 && cut < n && ((unsigned char)shown[cut] & 0xc0) == 0x80)
			cut--;
	}
	if ((out = sw_malloc(cut + (size_t)m + 1)) == NULL)
		return NULL;
	memcpy(out, shown, cut);
	memcpy(out + cut, marker, (size_t)m + 1);
	return out;
}

char *report_bound_summary(const char *s, size_t limit)
{
	size_t n = strlen(s);

	return n <= limit ? sw_strdup(s) : marked(s, n, s, n, "summary", limit);
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

/* The report's text into r->b, with lists kept to r->keep items. */
static void render(struct rr *r)
{
	const struct run_action_record *sum = report__summarize(r->rec);

	r->b.len = 0;
	if (r->b.p)
		r->b.p[0] = '\0';
	r->left_out = 0;
	if (r->form == REPORT_SUMMARY && sum && sum->skipped) {
		skipped_summary(r);
		return;
	}
	headline(r);
	if (r->form != REPORT_SUMMARY)
		now_block(r);
	for (int s = TBL_SECTION_NONE + 1; s < TBL_SECTION__COUNT; s++)
		report__section_handler[s](r);
}

/* The report bounded to `limit` bytes: whole when it fits; else with its
 * long lists kept to their newest (or first) items, fewer each round, so
 * that the facts a person decides on stay (the headline, destructive work,
 * decisions, the last Review, failing checks); a text that still does not
 * fit is cut.  Anything left out ends the text with the marker of
 * report_bound_summary, which counts the bytes of the whole report not
 * shown and gives its digest.  A new string (NULL: ENOMEM). */
static char *bounded(struct rr *r, size_t limit, const char *word)
{
	static const size_t rounds[] = { 64, 16, 4 };
	char *full = NULL, *out = NULL;
	size_t full_len;

	r->keep = 0;
	render(r);
	if (r->failed || (full = sw_buf_detach(&r->b)) == NULL)
		return NULL;
	full_len = strlen(full);
	if (full_len <= limit)
		return full;
	for (size_t i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
		r->keep = rounds[i];
		render(r);
		if (r->failed || r->b.failed)
			break;
		if (r->b.len + 160 <= limit || i + 1 == sizeof(rounds) / sizeof(rounds[0])) {
			out = marked(r->b.p, r->b.len, full, full_len, word, limit);
			break;
		}
	}
	sw_free(full);
	return out;
}

int report_run(char **out, const struct report_in *in, enum report_form form,
		  struct sw_error *err)
{
	struct rr r = { .form = form, .md = form == REPORT_MARKDOWN, .in = in, .rec = in->rec };
	char *choices = NULL, *text = NULL;
	size_t limit = RUN_MAX_SUMMARY_BYTES;
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
	/* The next choices follow the report, inside the same bound. */
	if (form == REPORT_TEXT && in->next) {
		if ((rc = render_next_choices(&choices, in->next, RENDER_SHELL_NATIVE, NULL, err)) < 0)
			goto out;
		if (strlen(choices) + 1 < limit / 2)
			limit -= strlen(choices) + 1;
	}
	if ((text = bounded(&r, limit, form == REPORT_SUMMARY ? "summary" : "report")) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot render the report");
		goto out;
	}
	if (choices && choices[0]) {
		char *both = sw_asprintf("%s\n%s", text, choices);

		sw_free(text);
		if ((text = both) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot render the report");
			goto out;
		}
	}
	*out = text;
	text = NULL;
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
