/* The sections of the report, one handler per row of
 * tables/report_sections.def (a row without one does not compile): what
 * changed, destructive work, decisions, review, checks, requirements, known
 * issues, uncertainties, observations, skipped Actions, the log with the
 * Run's history and the paths dirty at the start.  A fact said several
 * times is said once with its count.  Never writes the headline or bounds
 * the text; a long list keeps what report.c's bound lets it (r->keep). */

#include <stdio.h>
#include <string.h>

#include "io/git/observe.h"
#include "io/report/report_internal.h"
#include "io/store/run_record.h"
#include "io/util/mem.h"
#include "io/util/owned.h"
#include "tables/report.h"

#define SECTION(id, title) static void section_##id(struct rr *r);
#include "tables/report_sections.def"
#undef SECTION

static void section_NONE(struct rr *r)
{
	(void)r;
}

/* The first item a list of `n` shows under the bound, the newest last;
 * says how many it leaves out (`what`: "earlier Actions", ...). */
static size_t newest_from(struct rr *r, size_t n, const char *what)
{
	size_t from = r->keep && n > r->keep ? n - r->keep : 0;

	if (from) {
		report__item(r);
		report__putf(r, "%zu %s left out of this bounded report\n", from, what);
		r->left_out += from;
	}
	return from;
}

/* The line saying `n` more items of a list shown from its start were left
 * out. */
static void more_left_out(struct rr *r, size_t n, const char *what)
{
	if (n == 0)
		return;
	report__item(r);
	report__putf(r, "%zu more %s left out of this bounded report\n", n, what);
	r->left_out += n;
}

static void section_CHANGES(struct rr *r)
{
	size_t hosts[SW_OWNED_MAX_GROUPS] = { 0 }, shown = report__changes_shown(r), gone = 0;
	size_t listed = 0, total;
	int exact;

	if (!r->compared) {
		report__heading(r, TBL_SECTION_CHANGES, 1);
		report__item(r);
		report__put(r, "Git's observations of the Run start and of now cannot be compared.\n");
		return;
	}
	total = report__changes_total(r, &exact);
	for (size_t i = 0; i < r->nreported; i++)
		gone += !report__changed(r, r->reported[i]);
	report__heading(r, TBL_SECTION_CHANGES, r->ch.n + gone + (size_t)r->ch.head_moved + (total > shown));
	if (r->md && shown)
		report__put(r, "| Path | Change | Reported by the host |\n| --- | --- | --- |\n");
	for (size_t i = 0; i < r->ch.n; i++) {
		const struct vcs_change *c = &r->ch.v[i];
		const char *host = report__installed_by(r, c->now);
		int before = c->now && report__dirty_at_start(r, c->path) != NULL;
		int told = report__was_reported(r, c->path);

		if (host) {
			hosts[report__host_index(r, host)]++;
			continue;
		}
		if (r->keep && listed >= r->keep)
			continue;
		listed++;
		if (r->md) {
			report__put(r, "| ");
			report__code(r, c->path, 1);
			report__putf(r, " | %s%s%s | %s |\n", tbl_change_word[c->kind], c->staged ? ", staged" : "",
				     before ? ", also dirty before the Run" : "", told ? "yes" : "no");
		} else {
			report__item(r);
			report__putf(r, "%s%s: ", tbl_change_word[c->kind], c->staged ? ", staged" : "");
			report__code(r, c->path, 0);
			report__putf(r, " (%s%s)\n", told ? "reported" : "not reported by the host",
				     before ? "; also dirty before the Run" : "");
		}
	}
	if (r->md && shown)
		report__put(r, "\n");
	more_left_out(r, shown - listed, "changed paths");
	report__installed_lines(r, hosts);
	if (gone) {
		report__item(r);
		report__put(r, "reported by the host, but Git shows no change:");
		for (size_t i = 0, k = 0; i < r->nreported; i++)
			if (!report__changed(r, r->reported[i]) && !(r->keep && k++ >= r->keep)) {
				report__put(r, " ");
				report__code(r, r->reported[i], 0);
			}
		if (r->keep && gone > r->keep)
			report__putf(r, " and %zu more", gone - r->keep);
		report__put(r, "\n");
	}
	if (r->ch.head_moved) {
		report__item(r);
		report__putf(r, "HEAD moved from %.12s to %.12s; committed files are not listed.\n",
			     r->in->start->head, r->in->now->head);
	}
	if (r->ch.bounded) {
		report__item(r);
		report__putf(r, "Git's observation keeps a bounded list of paths: %s%zu further changed path%s "
			     "%s not listed.\n", exact ? "" : "at least ", total - shown,
			     total - shown == 1 ? "" : "s", total - shown == 1 ? "is" : "are");
	}
}

static void targets_line(struct rr *r, const struct run_target *t, size_t n)
{
	report__put(r, report__cont(r));
	report__put(r, "targets:");
	for (size_t i = 0; i < n; i++) {
		report__put(r, i ? "; " : " ");
		report__text(r, t[i].kind);
		report__put(r, " ");
		report__code(r, t[i].value, 0);
	}
	report__put(r, "\n");
}

/* Why Action `i` was voided, in the words of the event that closed it. */
static void void_reason(struct rr *r, size_t i)
{
	const struct run_action_record *ar = &r->rec->actions[i];
	const struct tbl_report_history *h;

	if (run_record_answer(r->rec, ar->action.action_id))
		report__put(r, "closed by the person's answer");
	else if ((h = report__closed_by(r, i)) != NULL)
		report__putf(r, "voided %s", h->closes);
	else
		report__put(r, "closed by a stop or a resume");
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
		size_t at, len;

		if (req == NULL)
			continue;
		ans = run_record_answer(rec, ar->action.action_id);
		for (size_t k = 0; k < rec->n_actions; k++) {
			const struct run_authorization *au = rec->actions[k].action.destructive_authorization;

			if (au && strcmp(au->request_id, req->request_id) == 0)
				by = &rec->actions[k];
		}
		report__item(r);
		if (ans && ans->confirm_destructive) {
			report__put(r, "confirmed by the person at ");
			report__text(r, ans->at);
			report__put(r, "; ");
			if (by) {
				report__putf(r, "carried out by %s ", tbl_kind_wire[by->action.kind]);
				report__short_id(r, by->action.action_id);
				report__put(r, " (");
				report__text(r, by->outcome ? by->outcome->status
						: by->voided ? "voided before it finished" : "in progress");
				report__put(r, ")\n");
			} else {
				report__put(r, "no Implement has carried it out yet\n");
			}
			/* The person's words given with the confirmation. */
			report__trimmed(ans->text, &at, &len);
			if (len > 0) {
				report__put(r, report__cont(r));
				report__put(r, "the person's words: ");
				report__block(r, ans->text, report__cont(r));
				report__put(r, "\n");
			}
		} else if (ans) {
			report__put(r, "declined by the person: ");
			report__block(r, ans->text, report__cont(r));
			report__put(r, "\n");
		} else if (rec->pending_destructive_request &&
			   strcmp(rec->pending_destructive_request->request_id, req->request_id) == 0) {
			report__put(r, "waiting for the person's confirmation\n");
		} else if (ar->skipped) {
			report__put(r, "closed without a decision (the Action was skipped)\n");
		} else {
			report__put(r, "closed without a decision (the Action was ");
			void_reason(r, i);
			report__put(r, ")\n");
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

/* 1 for an answer the Decisions section lists: a decision's, not a
 * destructive request's (Destructive work shows those), not blank, not
 * replaced by a later one. */
static int decision(const struct run_record *rec, const struct run_answer *a,
		    const struct run_action_record **ar)
{
	size_t at, len;

	*ar = run_record_action(rec, a->action_id);
	report__trimmed(a->text, &at, &len);
	return !a->confirm_destructive && len > 0 && !replaced(a) &&
	       !(*ar && (*ar)->outcome && (*ar)->outcome->pause && (*ar)->outcome->pause->destructive_request);
}

static void section_DECISIONS(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_action_record *ar;
	size_t n = 0;

	for (size_t i = 0; i < rec->n_answers; i++)
		n += (size_t)decision(rec, &rec->answers[i], &ar);
	report__heading(r, TBL_SECTION_DECISIONS, n);
	for (size_t i = 0; i < rec->n_answers; i++) {
		const struct run_answer *a = &rec->answers[i];
		const struct run_outcome_pause *p;
		const char *q;

		if (!decision(rec, a, &ar))
			continue;
		p = ar && ar->outcome ? ar->outcome->pause : NULL;
		q = p ? p->question : NULL;
		report__item(r);
		report__put(r, r->md ? "**Q**" : "Q");
		if (ar) {
			report__putf(r, " (%s ", tbl_kind_wire[ar->action.kind]);
			report__short_id(r, ar->action.action_id);
			report__put(r, ")");
		}
		report__put(r, ": ");
		report__one_line(r, q ? q : "(the question was not recorded)", 300);
		report__put(r, "\n");
		report__put(r, report__cont(r));
		report__put(r, r->md ? "**A:** " : "A: ");
		report__block(r, a->text, report__cont(r));
		if (a->superseded_by && strncmp(a->superseded_by, "requirements:", 13) == 0)
			report__put(r, r->md ? " _(given under earlier requirements)_" : " (given under earlier requirements)");
		if (p && p->supersedes_answer_action_id && p->supersedes_answer_action_id[0]) {
			report__put(r, r->md ? " _(replaces the answer to " : " (replaces the answer to ");
			report__short_id(r, p->supersedes_answer_action_id);
			report__put(r, r->md ? ")_" : ")");
		}
		report__put(r, "\n");
	}
}

static void section_REVIEW(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t earlier;
	const struct run_action_record *last = report__last_review(rec, &earlier);
	const struct run_review *rv = last ? last->outcome->review : NULL;
	int skipped = 0, voided = 0;

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];

		if (ar->action.kind != FSM_KIND_REVIEW)
			continue;
		skipped |= ar->skipped;
		voided |= ar->voided;
	}
	report__heading(r, TBL_SECTION_REVIEW, 1);
	if (rv && rv->n_findings) {
		for (size_t k = 0; k < rv->n_findings; k++) {
			report__item(r);
			report__code(r, rv->findings[k].location ? rv->findings[k].location : "", 0);
			report__put(r, ": ");
			report__one_line(r, rv->findings[k].summary, 300);
			report__put(r, "\n");
			report__put(r, report__cont(r));
			report__block(r, rv->findings[k].detail, report__cont(r));
			report__put(r, "\n");
		}
	} else {
		report__item(r);
		if (rv) {
			report__text(r, rv->result);
			report__put(r, ": ");
			report__block(r, last->outcome->summary, report__cont(r));
			report__put(r, "\n");
		} else if (skipped)
			report__put(r, "Review was skipped by the user.\n");
		else if (voided)
			report__put(r, "A Review Action was issued but voided before it finished.\n");
		else if (!rec->review_enabled)
			report__put(r, "Review was disabled for this Run (--no-review).\n");
		else if (r->ended)
			report__put(r, "Review did not run: the worktree did not change or no Implement ran.\n");
		else
			report__put(r, "No Review has run yet.\n");
	}
	if (earlier) {
		report__item(r);
		report__put(r, "the last Review (");
		report__short_id(r, last->action.action_id);
		report__putf(r, ") supersedes %zu earlier one%s\n", earlier, earlier == 1 ? "" : "s");
	}
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
			if (sw_memmem(o->known_issues[k], strlen(o->known_issues[k]), command + at, n))
				return 1;
	}
	return 0;
}

static int same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static int same_activity(const struct run_activity *a, const struct run_activity *b)
{
	return same_str(a->kind, b->kind) && same_str(a->command, b->command) &&
	       a->exit_code == b->exit_code && same_str(a->summary, b->summary);
}

static void section_CHECKS(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t distinct = 0, shown = 0, skip, dropped = 0;

	/* Each check once, at its last report, with the times it was reported. */
	for (size_t i = 0; i < rec->n_activities; i++) {
		size_t k;

		for (k = i + 1; k < rec->n_activities && !same_activity(&rec->activities[i], &rec->activities[k]); k++)
			;
		distinct += k == rec->n_activities;
	}
	report__heading(r, TBL_SECTION_CHECKS, distinct);
	/* Under the bound: every check still failing, and the newest others. */
	skip = r->keep && distinct > r->keep ? distinct - r->keep : 0;
	for (size_t i = 0; i < rec->n_activities; i++) {
		const struct run_activity *a = &rec->activities[i];
		size_t times = 1, k;

		for (k = i + 1; k < rec->n_activities && !same_activity(a, &rec->activities[k]); k++)
			;
		if (k < rec->n_activities)
			continue;
		for (k = 0; k < i; k++)
			times += (size_t)same_activity(a, &rec->activities[k]);
		if (shown++ < skip && !report__failed_last(rec, i)) {
			dropped++;
			continue;
		}
		report__item(r);
		report__text(r, a->kind);
		report__put(r, r->md ? " " : " `");
		report__code(r, a->command ? a->command : "", 0);
		report__put(r, r->md ? "" : "`");
		report__putf(r, " exited %lld", a->exit_code);
		if (a->exit_code != 0 && known_failure(rec, a->command))
			report__put(r, " (a known issue: the host reported it failing before the Run)");
		report__put(r, ": ");
		if (r->keep)
			report__one_line(r, a->summary, 200);
		else
			report__block(r, a->summary, report__cont(r));
		report__times(r, times);
		report__put(r, "\n");
	}
	if (dropped) {
		report__item(r);
		report__putf(r, "%zu earlier checks left out of this bounded report\n", dropped);
		r->left_out += dropped;
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

/* The new requirements of an adoption `moved` no Implement covered, named
 * against those of `base`: "`a`, `b` changed, `c` added" (the sections
 * whose text differs or that are new; "no section changed" when only
 * sections were removed). */
void report__new_requirements(struct rr *r, const struct run_action_record *base,
			      const struct run_action_record *moved)
{
	const struct run_requirements *from = base->action.requirements, *to = moved->action.requirements;
	const char *sep = "";

	for (int w = 0; w < 2; w++) {
		size_t n = 0;

		for (size_t i = 0; i < to->n_sections; i++) {
			const struct run_section *f = run_section_find(from->sections, from->n_sections,
									to->sections[i].key);

			if (w == 0 ? f == NULL || strcmp(f->section_revision, to->sections[i].section_revision) == 0
				   : f != NULL)
				continue;
			report__put(r, n ? ", " : sep);
			report__code(r, to->sections[i].key, 0);
			n++;
		}
		if (n) {
			report__put(r, w == 0 ? " changed" : " added");
			sep = ", ";
		}
	}
	if (*sep == '\0')
		report__put(r, "no section changed");
}

static void section_REQUIREMENTS(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_pinned_source *pinned = rec->pinned_source;
	const struct run_source_candidate *cand = rec->source_candidate;
	const struct run_action_record *prev = NULL, *moved = report__unimplemented_move(rec, NULL);

	if (pinned == NULL)
		return;
	report__heading(r, TBL_SECTION_REQUIREMENTS, 1);
	report__item(r);
	report__put(r, "pinned: ");
	report__text(r, pinned->canonical_url);
	report__putf(r, " (%zu section%s), requirements revision ", pinned->n_sections,
		     pinned->n_sections == 1 ? "" : "s");
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
			if (ar == moved)
				report__put(r, "; not implemented in this Run");
			report__put(r, "\n");
		}
		prev = ar;
	}
	if (cand) {
		report__item(r);
		report__put(r, "a refreshed Issue waits for the person's choice (candidate ");
		report__text(r, cand->candidate_id);
		report__put(r, ", ");
		report__text(r, cand->classification);
		report__put(r, ")");
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

static void section_KNOWN_ISSUES(struct rr *r)
{
	const struct run_outcome *last;
	char **keys;
	size_t earlier, n = report__known_issues(r->rec, &last, &keys, &earlier);

	if (n == (size_t)-1) {
		r->failed = 1;
		return;
	}
	report__heading(r, TBL_SECTION_KNOWN_ISSUES, n + (earlier > 0));
	for (size_t k = 0, shown = 0; last && shown < n && k < last->n_known_issues; k++) {
		char *key = report__issue_key(last->known_issues[k]);

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
		report__putf(r, "%zu reported by earlier Actions and not repeated by the last report: "
			"resolved, or said again in other words; the Action log has %s.\n", earlier,
			earlier == 1 ? "it" : "them");
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

/* The plain words of note `s`, or NULL when a section says it. */
static const char *note_text(const char *s)
{
	const struct tbl_report_note *row = note_of(s);

	if (row && row->plain == NULL)
		return NULL;
	if (row && row->plain[0])
		return row->plain;
	if (row) {
		s += strlen(row->code);
		s += *s == ':';
	}
	return s;
}

/* The index of the first note before note `i` said as it is, or i. */
static size_t first_alike(size_t i, char **keys)
{
	for (size_t k = 0; k < i; k++)
		if (keys[k] && keys[i] && strcmp(keys[k], keys[i]) == 0)
			return k;
	return i;
}

/* Prints the notes of `list` in plain words, each distinct one once with
 * how often it was recorded (under the bound, the newest `keep`); returns
 * how many distinct ones there are (with `dry`, only counts). */
static size_t notes(struct rr *r, const char **list, size_t n, int dry)
{
	char **keys = n ? sw_calloc(n, sizeof(*keys)) : NULL;
	size_t distinct = 0, from, seen = 0;

	if (n && keys == NULL) {
		r->failed = 1;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *t = note_text(list[i]);

		if (t && (keys[i] = report__issue_key(t)) == NULL)
			r->failed = 1;
		distinct += t && first_alike(i, keys) == i;
	}
	if (!dry) {
		from = newest_from(r, distinct, "earlier notes");
		for (size_t i = 0; i < n; i++) {
			size_t times = 0;

			if (keys[i] == NULL || first_alike(i, keys) != i || seen++ < from)
				continue;
			for (size_t k = i; k < n; k++)
				times += keys[k] && strcmp(keys[k], keys[i]) == 0;
			report__item(r);
			if (r->keep)
				report__one_line(r, note_text(list[i]), 300);
			else
				report__block(r, note_text(list[i]), report__cont(r));
			report__times(r, times);
			report__put(r, "\n");
		}
	}
	for (size_t i = 0; i < n; i++)
		sw_free(keys[i]);
	sw_free(keys);
	return distinct;
}

static void section_UNCERTAINTIES(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t missing, unreadable, unobserved, counted;
	int incomplete;

	/* Only this Run's changed paths count: a path already unreadable or
	 * deleted before the Run, and unchanged since, is no uncertainty of
	 * this Run's. */
	report__own_unhashed(r, &missing, &unreadable, &unobserved);
	counted = missing + unreadable + unobserved;
	incomplete = r->in->now && !r->in->now->content_observation_complete &&
		     (counted > 0 || (r->ch.bounded && r->ch.beyond_now > 0));
	report__heading(r, TBL_SECTION_UNCERTAINTIES,
			notes(r, rec->uncertainties, rec->n_uncertainties, 1) + (incomplete ? 1 : 0));
	if (incomplete) {
		report__item(r);
		if (missing)
			report__putf(r, "%zu deleted file%s could not be fingerprinted (a deleted file has no content "
				"to hash). ", missing, missing == 1 ? "" : "s");
		if (unreadable)
			report__putf(r, "%zu file%s could not be read. ", unreadable, unreadable == 1 ? "" : "s");
		if (unobserved)
			report__putf(r, "%zu file%s were not hashed: Git's observation ran out of %s. ", unobserved,
				     unobserved == 1 ? "" : "s",
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

static void section_SKIPPED(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t n = 0, from, seen = 0;

	for (size_t i = 0; i < rec->n_actions; i++)
		n += rec->actions[i].skipped || rec->actions[i].voided;
	report__heading(r, TBL_SECTION_SKIPPED, n);
	from = newest_from(r, n, "earlier skipped or voided Actions");
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];

		if ((!ar->skipped && !ar->voided) || seen++ < from)
			continue;
		report__item(r);
		report__putf(r, "%s ", tbl_kind_wire[ar->action.kind]);
		report__short_id(r, ar->action.action_id);
		report__put(r, ": ");
		if (ar->voided)
			void_reason(r, i);
		else
			report__put(r, "skipped by the user");
		report__put(r, "\n");
	}
}

/* The events of the Run's history that followed Action `i` (the last
 * Action takes those after it too), each once with its count. */
static void history_after(struct rr *r, size_t i, const char *indent)
{
	const struct run_event *ev = r->in->events;
	size_t n = r->in->n_events, last = r->rec->n_actions;

	for (size_t k = 0; k < n; k++) {
		const struct tbl_report_history *h = tbl_report_history_of(ev[k].type, ev[k].pause);
		size_t at = ev[k].after < 1 ? 1 : ev[k].after > last ? last : ev[k].after, times = 1;

		if (h == NULL || at != i + 1)
			continue;
		/* The same event again right after: said once, counted. */
		while (k + 1 < n && ev[k + 1].type == ev[k].type && ev[k + 1].pause == ev[k].pause &&
		       ev[k + 1].budget == ev[k].budget && ev[k + 1].after == ev[k].after) {
			k++;
			times++;
		}
		report__put(r, indent);
		report__put(r, "- ");
		report__put(r, h->said);
		if (h->budget && ev[k].budget >= 0)
			report__putf(r, "%s%s %lld", strchr(";,", h->budget[0]) ? "" : " ", h->budget, ev[k].budget);
		report__times(r, times);
		report__put(r, "\n");
	}
}

static void section_LOG(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_action_record *sum = r->ended ? report__summarize(rec) : NULL;
	size_t from;

	report__heading(r, TBL_SECTION_LOG, rec->n_actions);
	from = newest_from(r, rec->n_actions, "earlier Actions");
	for (size_t i = from; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];
		const struct run_outcome *o = ar->outcome;
		char indent[32];

		/* Continuation lines start where the item's text does. */
		snprintf(indent, sizeof(indent), "%*s", (int)(snprintf(NULL, 0, "%zu", i + 1) + 2 + (r->md ? 0 : 2)),
			 "");
		report__putf(r, r->md ? "%zu. %s " : "  %zu. %s ", i + 1, tbl_kind_wire[ar->action.kind]);
		report__short_id(r, ar->action.action_id);
		report__put(r, ": ");
		if (ar->skipped)
			report__put(r, "skipped");
		else if (ar == sum && o)
			report__put(r, "its report is the Final report");
		else if (o && o->pause) {
			report__put(r, "paused (");
			report__text(r, o->pause->reason ? o->pause->reason : o->status);
			report__put(r, "): ");
		}
		if (!ar->skipped && !(ar == sum && o) && o) {
			if (r->keep)
				report__one_line(r, o->summary, 200);
			else
				report__block(r, o->summary, indent);
		} else if (!ar->skipped && !(ar == sum && o)) {
			report__put(r, ar->voided ? "voided without an outcome" : "in progress");
		}
		if (ar->voided && o)
			report__put(r, " (voided)");
		report__put(r, "\n");
		history_after(r, i, indent);
	}
}

static void section_DIRTY_AT_START(struct rr *r)
{
	const struct vcs_observation *g = r->in->start;
	size_t hosts[SW_OWNED_MAX_GROUPS] = { 0 }, listed = 0, own = 0;

	if (g == NULL)
		return;
	report__heading(r, TBL_SECTION_DIRTY_AT_START, (size_t)g->path_count);
	for (size_t i = 0; i < g->retained; i++) {
		const char *host = report__installed_by(r, &g->paths[i]);

		if (host) {
			hosts[report__host_index(r, host)]++;
			own++;
			continue;
		}
		if (r->keep && listed >= r->keep)
			continue;
		listed++;
		report__item(r);
		report__code(r, g->paths[i].path, 0);
		report__put(r, " (");
		report__text(r, g->paths[i].category);
		report__put(r, " ");
		report__text(r, g->paths[i].state);
		report__put(r, ")\n");
	}
	more_left_out(r, g->retained - own - listed, "paths");
	report__installed_lines(r, hosts);
	if (g->details_truncated) {
		report__item(r);
		report__putf(r, "%lld more path(s) left out of the bounded list.\n",
			     (long long)(g->path_count - (int64_t)g->retained));
	}
}

/* clang-format off */
report__section_fn *const report__section_handler[TBL_SECTION__COUNT] = {
#define SECTION(id, title) [TBL_SECTION_##id] = section_##id,
#include "tables/report_sections.def"
#undef SECTION
};
/* clang-format on */
