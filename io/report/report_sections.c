/* The sections of the report, one handler per row of
 * tables/report_sections.def (a row without one does not compile): what
 * changed, destructive work, decisions, review, checks, requirements, known
 * issues, uncertainties, observations, skipped Actions, the log and the
 * paths dirty at the start.  Never writes the headline or bounds the text. */

#include <string.h>

#include "io/git/observe.h"
#include "io/report/report_internal.h"
#include "io/store/run_record.h"
#include "io/util/owned.h"
#include "tables/report.h"

#define SECTION(id, title) static void section_##id(struct rr *r);
#include "tables/report_sections.def"
#undef SECTION

static void section_NONE(struct rr *r)
{
	(void)r;
}

static void section_CHANGES(struct rr *r)
{
	size_t hosts[SW_OWNED_MAX_GROUPS] = { 0 }, shown = report__changes_shown(r), gone = 0;

	if (!r->compared) {
		report__heading(r, TBL_SECTION_CHANGES, 1);
		report__item(r);
		report__put(r, "Git's observations of the Run start and of now cannot be compared.\n");
		return;
	}
	for (size_t i = 0; i < r->nreported; i++)
		gone += !report__changed(r, r->reported[i]);
	report__heading(r, TBL_SECTION_CHANGES, shown + (r->ch.n - shown) + gone + (size_t)r->ch.head_moved);
	if (r->md && shown)
		report__put(r, "| Path | Change | Reported by the host |\n| --- | --- | --- |\n");
	for (size_t i = 0; i < r->ch.n; i++) {
		const struct vcs_change *c = &r->ch.v[i];
		const char *host = report__installed_by(r, c->now);

		if (host) {
			hosts[report__host_index(r, host)]++;
			continue;
		}
		if (r->md) {
			report__put(r, "| ");
			report__code(r, c->path, 1);
			report__putf(r, " | %s%s | %s |\n", tbl_change_word[c->kind], c->staged ? ", staged" : "",
				     report__was_reported(r, c->path) ? "yes" : "no");
		} else {
			report__item(r);
			report__putf(r, "%s%s: %s (%s)\n", tbl_change_word[c->kind], c->staged ? ", staged" : "",
				     c->path, report__was_reported(r, c->path) ? "reported" : "not reported by the host");
		}
	}
	if (r->md && shown)
		report__put(r, "\n");
	report__installed_lines(r, hosts);
	if (gone) {
		report__item(r);
		report__put(r, "reported by the host, but Git shows no change:");
		for (size_t i = 0; i < r->nreported; i++)
			if (!report__changed(r, r->reported[i])) {
				report__put(r, " ");
				report__code(r, r->reported[i], 0);
			}
		report__put(r, "\n");
	}
	if (r->ch.head_moved) {
		report__item(r);
		report__putf(r, "HEAD moved from %.12s to %.12s; committed files are not listed.\n",
			     r->in->start->head, r->in->now->head);
	}
	if (r->ch.bounded) {
		report__item(r);
		report__put(r, "Git's observation keeps a bounded list of paths; further changes may not be listed.\n");
	}
}

/* The answer to the Action that asked, or NULL. */
static const struct run_answer *answer_to(const struct run_record *rec, const char *action_id)
{
	return run_record_answer(rec, action_id);
}

static void targets_line(struct rr *r, const struct run_target *t, size_t n)
{
	report__put(r, report__cont(r));
	report__put(r, "targets:");
	for (size_t i = 0; i < n; i++) {
		report__putf(r, "%s %s ", i ? ";" : "", t[i].kind);
		report__code(r, t[i].value, 0);
	}
	report__put(r, "\n");
}

static void section_DESTRUCTIVE(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t n = 0;

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		n += o && o->pause && o->pause->destructive_request;
	}
	report__heading(r, TBL_SECTION_DESTRUCTIVE, n);
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];
		const struct run_request *req = ar->outcome && ar->outcome->pause
							? ar->outcome->pause->destructive_request : NULL;
		const struct run_answer *ans;
		const struct run_action_record *by = NULL;

		if (req == NULL)
			continue;
		ans = answer_to(rec, ar->action.action_id);
		for (size_t k = 0; k < rec->n_actions; k++) {
			const struct run_authorization *au = rec->actions[k].action.destructive_authorization;

			if (au && strcmp(au->request_id, req->request_id) == 0)
				by = &rec->actions[k];
		}
		report__item(r);
		if (ans && ans->confirm_destructive) {
			report__putf(r, "confirmed by the person at %s; ", ans->at);
			if (by) {
				report__putf(r, "carried out by %s ", tbl_kind_wire[by->action.kind]);
				report__short_id(r, by->action.action_id);
				report__putf(r, " (%s)\n", by->outcome ? by->outcome->status
						 : by->voided ? "voided before it finished"
						 : "in progress");
			} else {
				report__put(r, "no Implement has carried it out yet\n");
			}
		} else if (ans) {
			report__put(r, "declined by the person: ");
			report__block(r, ans->text, report__cont(r));
			report__put(r, "\n");
		} else if (rec->pending_destructive_request &&
			   strcmp(rec->pending_destructive_request->request_id, req->request_id) == 0) {
			report__put(r, "waiting for the person's confirmation\n");
		} else {
			report__putf(r, "closed without a decision (the Action was %s)\n",
				     ar->skipped ? "skipped" : "voided by a stop or a resume");
		}
		targets_line(r, req->targets, req->n_targets);
		report__put(r, report__cont(r));
		report__put(r, "impact: ");
		report__block(r, req->impact, report__cont(r));
		report__put(r, "\n");
	}
}

/* An answer a later answer replaced (one given under earlier requirements
 * stays, marked). */
static int replaced(const struct run_answer *a)
{
	return a->superseded_by && a->superseded_by[0] && strncmp(a->superseded_by, "requirements:", 13) != 0;
}

static void section_DECISIONS(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t n = 0;

	for (size_t i = 0; i < rec->n_answers; i++) {
		const struct run_answer *a = &rec->answers[i];
		const struct run_action_record *ar = run_record_action(rec, a->action_id);
		size_t at, len;

		report__trimmed(a->text, &at, &len);
		n += !a->confirm_destructive && len > 0 && !replaced(a) &&
		     !(ar && ar->outcome && ar->outcome->pause && ar->outcome->pause->destructive_request);
	}
	report__heading(r, TBL_SECTION_DECISIONS, n);
	for (size_t i = 0; i < rec->n_answers; i++) {
		const struct run_answer *a = &rec->answers[i];
		const struct run_action_record *ar = run_record_action(rec, a->action_id);
		const char *q = ar && ar->outcome && ar->outcome->pause ? ar->outcome->pause->question : NULL;
		size_t at, len;

		report__trimmed(a->text, &at, &len);
		if (a->confirm_destructive || len == 0 || replaced(a) ||
		    (ar && ar->outcome && ar->outcome->pause && ar->outcome->pause->destructive_request))
			continue;
		report__item(r);
		report__put(r, r->md ? "**Q:** " : "Q: ");
		report__one_line(r, q ? q : "(the question was not recorded)", 300);
		report__put(r, "\n");
		report__put(r, report__cont(r));
		report__put(r, r->md ? "**A:** " : "A: ");
		report__block(r, a->text, report__cont(r));
		if (a->superseded_by && strncmp(a->superseded_by, "requirements:", 13) == 0)
			report__put(r, r->md ? " _(given under earlier requirements)_" : " (given under earlier requirements)");
		report__put(r, "\n");
	}
}

static void section_REVIEW(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_action_record *last = NULL;
	int skipped = 0, voided = 0;
	size_t findings = 0;

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];

		if (ar->action.kind != FSM_KIND_REVIEW)
			continue;
		skipped |= ar->skipped;
		voided |= ar->voided;
		if (ar->outcome && ar->outcome->review) {
			last = ar;
			findings += ar->outcome->review->n_findings;
		}
	}
	report__heading(r, TBL_SECTION_REVIEW, 1);
	if (findings) {
		for (size_t i = 0; i < rec->n_actions; i++) {
			const struct run_review *rv = rec->actions[i].outcome ? rec->actions[i].outcome->review : NULL;

			for (size_t k = 0; rv && k < rv->n_findings; k++) {
				report__item(r);
				report__code(r, rv->findings[k].location ? rv->findings[k].location : "", 0);
				report__put(r, ": ");
				report__one_line(r, rv->findings[k].summary, 300);
				report__put(r, "\n");
				report__put(r, report__cont(r));
				report__block(r, rv->findings[k].detail, report__cont(r));
				report__put(r, "\n");
			}
		}
		return;
	}
	report__item(r);
	if (skipped)
		report__put(r, "Review was skipped by the user.\n");
	else if (last) {
		report__putf(r, "%s: ", last->outcome->review->result);
		report__block(r, last->outcome->summary, report__cont(r));
		report__put(r, "\n");
	} else if (voided)
		report__put(r, "A Review Action was issued but voided before it finished.\n");
	else if (!rec->review_enabled)
		report__put(r, "Review was disabled for this Run (--no-review).\n");
	else if (r->ended)
		report__put(r, "Review did not run: the worktree did not change or no Implement ran.\n");
	else
		report__put(r, "No Review has run yet.\n");
}

/* 1 when a known issue of any Outcome names `command`: the host reported
 * the failing check as one that failed before the Run. */
static int known_failure(const struct run_record *rec, const char *command)
{
	size_t at, n;

	report__trimmed(command, &at, &n);
	if (n == 0)
		return 0;
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		for (size_t k = 0; o && k < o->n_known_issues; k++)
			if (memmem(o->known_issues[k], strlen(o->known_issues[k]), command + at, n))
				return 1;
	}
	return 0;
}

static void section_CHECKS(struct rr *r)
{
	const struct run_record *rec = r->rec;

	report__heading(r, TBL_SECTION_CHECKS, rec->n_activities);
	for (size_t i = 0; i < rec->n_activities; i++) {
		const struct run_activity *a = &rec->activities[i];

		report__item(r);
		report__putf(r, "%s %s", a->kind, r->md ? "" : "`");
		report__code(r, a->command ? a->command : "", 0);
		report__put(r, r->md ? "" : "`");
		report__putf(r, " exited %lld", a->exit_code);
		if (a->exit_code != 0 && known_failure(rec, a->command))
			report__put(r, " (a known issue: the host reported it failing before the Run)");
		report__put(r, ": ");
		report__block(r, a->summary, report__cont(r));
		report__put(r, "\n");
	}
}

/* The requirements revision an Action was issued under, or NULL. */
static const char *revision_of(const struct run_action_record *ar)
{
	return ar->action.requirements ? ar->action.requirements->requirements_revision : NULL;
}

/* How the sections `to` differ from `from`, per key: "changed: a, b;
 * added: c; removed: d; unchanged: 2". */
static void section_diff(struct rr *r, const struct run_section *from, size_t nfrom,
			 const struct run_section *to, size_t nto, int per_key)
{
	static const char *const word[] = { "changed", "added", "removed" };
	size_t unchanged = 0;

	for (size_t i = 0; i < nto; i++) {
		const struct run_section *f = run_section_find(from, nfrom, to[i].key);

		unchanged += f && strcmp(f->section_revision, to[i].section_revision) == 0;
	}
	if (per_key) {
		for (size_t i = 0; i < nto; i++) {
			const struct run_section *f = run_section_find(from, nfrom, to[i].key);

			report__put(r, report__cont(r));
			report__item(r);
			report__code(r, to[i].key, 0);
			report__putf(r, ": %s\n", f == NULL ? "added"
					  : strcmp(f->section_revision, to[i].section_revision) ? "changed"
					  : "unchanged");
		}
		for (size_t i = 0; i < nfrom; i++)
			if (run_section_find(to, nto, from[i].key) == NULL) {
				report__put(r, report__cont(r));
				report__item(r);
				report__code(r, from[i].key, 0);
				report__put(r, ": removed\n");
			}
		return;
	}
	for (int w = 0; w < 3; w++) {
		const struct run_section *list = w == 2 ? from : to, *other = w == 2 ? to : from;
		size_t nlist = w == 2 ? nfrom : nto, nother = w == 2 ? nto : nfrom;
		int first = 1;

		for (size_t i = 0; i < nlist; i++) {
			const struct run_section *o = run_section_find(other, nother, list[i].key);

			if (w == 0 ? o == NULL || strcmp(o->section_revision, list[i].section_revision) == 0
				   : o != NULL)
				continue;
			report__putf(r, first ? "; %s: " : ", ", word[w]);
			report__code(r, list[i].key, 0);
			first = 0;
		}
	}
	report__putf(r, "; unchanged: %zu", unchanged);
}

static void section_REQUIREMENTS(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_pinned_source *pinned = rec->pinned_source;
	const struct run_source_candidate *cand = rec->source_candidate;
	const struct run_action_record *prev = NULL;

	if (pinned == NULL)
		return;
	report__heading(r, TBL_SECTION_REQUIREMENTS, 1);
	report__item(r);
	report__putf(r, "pinned: %s (%zu section%s), requirements revision ", pinned->canonical_url,
		     pinned->n_sections, pinned->n_sections == 1 ? "" : "s");
	report__code(r, pinned->requirements_revision, 0);
	report__put(r, "\n");
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];
		const char *a = prev ? revision_of(prev) : NULL, *b = revision_of(ar);

		if (b == NULL)
			continue;
		if (a && strcmp(a, b) != 0) {
			report__item(r);
			report__put(r, "moved from revision ");
			report__code(r, a, 0);
			report__put(r, " to ");
			report__code(r, b, 0);
			report__put(r, " (an adopted amendment)");
			section_diff(r, prev->action.requirements->sections, prev->action.requirements->n_sections,
				     ar->action.requirements->sections, ar->action.requirements->n_sections, 0);
			report__put(r, "\n");
		}
		prev = ar;
	}
	if (cand) {
		report__item(r);
		report__putf(r, "a refreshed Issue waits for the person's choice (candidate %s, %s)", cand->candidate_id,
			     cand->classification);
		if (cand->snapshot == NULL) {
			report__put(r, "; it cannot be adopted\n");
			return;
		}
		report__put(r, "; its sections against the pinned ones:\n");
		section_diff(r, pinned->sections, pinned->n_sections, cand->snapshot->sections,
			     cand->snapshot->n_sections, 1);
		report__put(r, report__cont(r));
		report__put(r, "read one: ");
		{
			char *cmd = sw_asprintf("slipway status %s --section KEY --candidate", rec->id);

			if (cmd == NULL)
				r->failed = 1;
			else
				report__code(r, cmd, 0);
			sw_free(cmd);
		}
		report__put(r, "\n");
	}
}

/* The normalised form two known issues are compared in: words joined by
 * one space, ASCII letters in lower case, a final full stop dropped. */
static char *issue_key(const char *s)
{
	struct sw_buf b = SW_BUF_INIT;
	int gap = 0;

	for (const char *p = s ? s : ""; *p; p++) {
		if (report__space(*p)) {
			gap = b.len > 0;
			continue;
		}
		if (gap)
			sw_buf_ch(&b, ' ');
		gap = 0;
		sw_buf_ch(&b, (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p);
	}
	if (!b.failed && b.len > 0 && b.p[b.len - 1] == '.')
		b.p[--b.len] = '\0';
	return sw_buf_detach(&b);
}

static void section_KNOWN_ISSUES(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_outcome *last = NULL;
	char **keys = NULL;
	size_t n = 0, earlier = 0;

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		if (o && o->n_known_issues > 0)
			last = o;
	}
	if (last && (keys = sw_calloc(last->n_known_issues, sizeof(*keys))) == NULL) {
		r->failed = 1;
		return;
	}
	for (size_t k = 0; last && k < last->n_known_issues; k++) {
		size_t j;

		if ((keys[n] = issue_key(last->known_issues[k])) == NULL) {
			r->failed = 1;
			break;
		}
		for (j = 0; j < n && strcmp(keys[j], keys[n]) != 0; j++)
			;
		if (j == n && keys[n][0])
			n++;
		else
			sw_free(keys[n]);
	}
	/* Issues reported earlier and not repeated by the last report. */
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		for (size_t k = 0; o && o != last && k < o->n_known_issues; k++) {
			char *key = issue_key(o->known_issues[k]);
			size_t j;

			for (j = 0; key && j < n && strcmp(keys[j], key) != 0; j++)
				;
			earlier += key && j == n;
			sw_free(key);
		}
	}
	report__heading(r, TBL_SECTION_KNOWN_ISSUES, n + (earlier > 0));
	for (size_t k = 0, shown = 0; last && shown < n && k < last->n_known_issues; k++) {
		char *key = issue_key(last->known_issues[k]);

		if (key && strcmp(key, keys[shown]) == 0) {
			report__item(r);
			report__block(r, last->known_issues[k], report__cont(r));
			report__put(r, "\n");
			shown++;
		}
		sw_free(key);
	}
	if (earlier) {
		report__item(r);
		report__putf(r, "%zu reported by earlier Actions and not repeated by the last report; "
			"taken as resolved.\n", earlier);
	}
	for (size_t k = 0; k < n; k++)
		sw_free(keys[k]);
	sw_free(keys);
}

/* The row of report_notes.def for the note `s` ("code: text" or the code
 * alone), or NULL. */
static const struct tbl_report_note *note_of(const char *s)
{
	for (size_t i = 0; i < tbl_report_notes_len; i++) {
		size_t n = strlen(tbl_report_notes[i].code);

		if (strncmp(s, tbl_report_notes[i].code, n) == 0 && (s[n] == ':' || s[n] == '\0'))
			return &tbl_report_notes[i];
	}
	return NULL;
}

/* Prints the notes of `list` in plain words; returns how many it printed
 * (with `dry`, only counts). */
static size_t notes(struct rr *r, const char **list, size_t n, int dry)
{
	size_t shown = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tbl_report_note *row = note_of(list[i]);
		const char *text = list[i];

		if (row && row->plain == NULL)
			continue;
		if (row && row->plain[0])
			text = row->plain;
		else if (row) {
			text += strlen(row->code);
			text += *text == ':';
		}
		shown++;
		if (dry)
			continue;
		report__item(r);
		report__block(r, text, report__cont(r));
		report__put(r, "\n");
	}
	return shown;
}

static void section_UNCERTAINTIES(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct vcs_changes *c = &r->ch;
	int incomplete = r->in->now && !r->in->now->content_observation_complete;
	size_t counted = c->missing + c->unreadable + c->unobserved;
	size_t n = notes(r, rec->uncertainties, rec->n_uncertainties, 1) + (incomplete ? 1 : 0);

	report__heading(r, TBL_SECTION_UNCERTAINTIES, n);
	if (incomplete) {
		report__item(r);
		if (c->missing)
			report__putf(r, "%zu deleted file%s could not be fingerprinted (a deleted file has no content "
				"to hash). ", c->missing, c->missing == 1 ? "" : "s");
		if (c->unreadable)
			report__putf(r, "%zu file%s could not be read. ", c->unreadable, c->unreadable == 1 ? "" : "s");
		if (c->unobserved)
			report__putf(r, "%zu file%s were not hashed: Git's observation ran out of %s. ", c->unobserved,
				     c->unobserved == 1 ? "" : "s",
				     r->in->now->content_deadline_exceeded ? "time" : "its byte budget");
		if (counted == 0)
			report__put(r, "Not every dirty file could be fingerprinted. ");
		report__put(r, "Review stays advisory.\n");
	}
	(void)notes(r, rec->uncertainties, rec->n_uncertainties, 0);
}

static void section_OBSERVATIONS(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t n = notes(r, rec->observations, rec->n_observations, 1);

	if (n == 0)
		return;
	report__heading(r, TBL_SECTION_OBSERVATIONS, n);
	(void)notes(r, rec->observations, rec->n_observations, 0);
}

/* Why an Action was voided. */
static const char *void_reason(const struct run_record *rec, const struct run_action_record *ar)
{
	if (answer_to(rec, ar->action.action_id))
		return "closed by the person's answer";
	return "closed by a stop or a resume";
}

static void section_SKIPPED(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t n = 0;

	for (size_t i = 0; i < rec->n_actions; i++)
		n += rec->actions[i].skipped || rec->actions[i].voided;
	report__heading(r, TBL_SECTION_SKIPPED, n);
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];

		if (!ar->skipped && !ar->voided)
			continue;
		report__item(r);
		report__putf(r, "%s ", tbl_kind_wire[ar->action.kind]);
		report__short_id(r, ar->action.action_id);
		report__putf(r, ": %s\n", ar->voided ? void_reason(rec, ar) : "skipped by the user");
	}
}

static void section_LOG(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_action_record *sum = r->ended ? report__summarize(rec) : NULL;

	report__heading(r, TBL_SECTION_LOG, rec->n_actions);
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];
		const struct run_outcome *o = ar->outcome;

		report__putf(r, r->md ? "%zu. %s " : "  %zu. %s ", i + 1, tbl_kind_wire[ar->action.kind]);
		report__short_id(r, ar->action.action_id);
		report__put(r, ": ");
		if (ar->skipped)
			report__put(r, "skipped");
		else if (ar == sum && o)
			report__put(r, "its report is the Final report");
		else if (o && o->pause) {
			report__putf(r, "paused (%s): ", o->pause->reason ? o->pause->reason : o->status);
			report__block(r, o->summary, r->md ? "   " : "     ");
		} else if (o)
			report__block(r, o->summary, r->md ? "   " : "     ");
		else if (ar->voided)
			report__put(r, "voided without an outcome");
		else
			report__put(r, "in progress");
		if (ar->voided && o)
			report__put(r, " (voided)");
		report__put(r, "\n");
	}
}

static void section_DIRTY_AT_START(struct rr *r)
{
	const struct vcs_observation *g = r->in->start;
	size_t hosts[SW_OWNED_MAX_GROUPS] = { 0 }, listed = 0;

	if (g == NULL)
		return;
	report__heading(r, TBL_SECTION_DIRTY_AT_START, (size_t)g->path_count);
	for (size_t i = 0; i < g->retained; i++) {
		const char *host = report__installed_by(r, &g->paths[i]);

		if (host) {
			hosts[report__host_index(r, host)]++;
			continue;
		}
		listed++;
		report__item(r);
		report__code(r, g->paths[i].path, 0);
		report__putf(r, " (%s %s)\n", g->paths[i].category, g->paths[i].state);
	}
	report__installed_lines(r, hosts);
	if (g->details_truncated) {
		report__item(r);
		report__putf(r, "%lld more path(s) left out of the bounded list.\n",
			     (long long)(g->path_count - (int64_t)g->retained));
	}
	(void)listed;
}

/* clang-format off */
report__section_fn *const report__section_handler[TBL_SECTION__COUNT] = {
#define SECTION(id, title) [TBL_SECTION_##id] = section_##id,
#include "tables/report_sections.def"
#undef SECTION
};
/* clang-format on */
