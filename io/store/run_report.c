/* The person's report of a Run.  See io/store/run_report.h. */

#include "io/store/run_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/util/owned.h"
#include "io/util/buf.h"
#include "io/util/digest.h"
#include "io/git/observe.h"
#include "io/wire/render.h"
#include "io/store/run.h"
#include "io/store/run_record.h"
#include "io/git/vcs_changes.h"
#include "tables/report.h"

/* What the section handlers share. */
struct rr {
	struct sw_buf b;
	enum run_report_form form;
	int md;				/* Markdown */
	const struct run_report_in *in;
	const struct run_record *rec;
	int ended;
	struct vcs_changes ch;
	int compared;			/* both observations readable */
	char **reported;		/* paths Implement reported, trimmed, sorted */
	size_t nreported;
	int failed;			/* out of memory outside the buffer */
	size_t count;			/* what the last section's heading counted */
};

/* ---- writing ------------------------------------------------------------ */

static void put(struct rr *r, const char *s)
{
	sw_buf_str(&r->b, s);
}

#define putf(r, ...) sw_buf_fmt(&(r)->b, __VA_ARGS__)

static int space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* `s` without leading and trailing white space: start and length. */
static void trimmed(const char *s, size_t *at, size_t *n)
{
	size_t a = 0, e = s ? strlen(s) : 0;

	while (a < e && space(s[a]))
		a++;
	while (e > a && space(s[e - 1]))
		e--;
	*at = a;
	*n = e - a;
}

/* Host text (Markdown for the host, plain for a person reading the text
 * form), trimmed, CR and CRLF as LF, every line after the first starting
 * with `indent` (blank lines stay blank). */
static void block(struct rr *r, const char *s, const char *indent)
{
	size_t at, n;

	trimmed(s, &at, &n);
	for (size_t i = at; i < at + n; i++) {
		char c = s[i];

		if (c == '\r' && i + 1 < at + n && s[i + 1] == '\n')
			continue;
		if (c == '\r')
			c = '\n';
		sw_buf_ch(&r->b, c);
		if (c == '\n' && i + 1 < at + n && s[i + 1] != '\n' && s[i + 1] != '\r')
			put(r, indent);
	}
}

/* Words of `s` joined by single spaces, at most `max` characters (then it
 * ends with an ellipsis). */
static void one_line(struct rr *r, const char *s, size_t max)
{
	struct sw_buf j = SW_BUF_INIT;
	size_t chars = 0, cut = 0;

	for (const char *p = s ? s : ""; *p;) {
		size_t n;

		while (*p && space(*p))
			p++;
		for (n = 0; p[n] && !space(p[n]); n++)
			;
		if (n == 0)
			break;
		if (j.len)
			sw_buf_ch(&j, ' ');
		sw_buf_add(&j, p, n);
		p += n;
	}
	if (j.failed) {
		r->failed = 1;
		sw_buf_release(&j);
		return;
	}
	/* Over `max` characters: the first max - 1 and an ellipsis. */
	for (size_t i = 0; i < j.len; i++)
		if ((((unsigned char)j.p[i]) & 0xc0) != 0x80 && ++chars == max)
			cut = i;
	for (size_t i = 0; i < (chars > max ? cut : j.len); i++) {
		if (r->md && strchr("\\`*_{}[]<>()#+-.!|~", j.p[i]))
			sw_buf_ch(&r->b, '\\');
		sw_buf_ch(&r->b, j.p[i]);
	}
	if (chars > max)
		put(r, "\u2026");
	sw_buf_release(&j);
}

/* A path, command or id: as it is in text, a code span in Markdown (in a
 * table cell `|` is escaped too). */
static void code(struct rr *r, const char *s, int cell)
{
	size_t run = 0, longest = 0;

	if (!r->md) {
		put(r, s);
		return;
	}
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		sw_buf_ch(&r->b, '`');
	if (s[0] == '`' || (s[0] && s[strlen(s) - 1] == '`') || s[0] == ' ')
		sw_buf_ch(&r->b, ' ');
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r')
			put(r, " ");
		else if (*p == '|' && cell)
			put(r, "\\|");
		else
			sw_buf_ch(&r->b, *p);
	}
	if (s[0] == '`' || (s[0] && s[strlen(s) - 1] == '`') || s[0] == ' ')
		sw_buf_ch(&r->b, ' ');
	for (size_t i = 0; i <= longest; i++)
		sw_buf_ch(&r->b, '`');
}

/* The first eight characters of an id, the way the log names Actions. */
static void short_id(struct rr *r, const char *id)
{
	char s[9];

	snprintf(s, sizeof(s), "%s", id ? id : "");
	code(r, s, 0);
}

/* The start of a section: its title from the table, or the title and
 * "none." when it has nothing to say. */
static void heading(struct rr *r, enum tbl_report_section sec, size_t count)
{
	r->count = count;
	if (r->md)
		putf(r, "\n## %s\n\n%s", tbl_section_title[sec], count ? "" : "None.\n");
	else
		putf(r, "\n%s:%s\n", tbl_section_title[sec], count ? "" : " none.");
}

/* The start of one item of a section's list. */
static void item(struct rr *r)
{
	put(r, r->md ? "- " : "  - ");
}

/* The indent of an item's continuation lines. */
static const char *cont(const struct rr *r)
{
	return r->md ? "  " : "    ";
}

/* ---- facts -------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every path Implement reported changed, trimmed, sorted, once each. */
static int gather_reported(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t n = 0, k = 0;

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		if (o && o->implementation)
			n += o->implementation->n_files_changed;
	}
	if (n == 0)
		return 0;
	if ((r->reported = sw_calloc(n, sizeof(*r->reported))) == NULL)
		return -1;
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		for (size_t f = 0; o && o->implementation && f < o->implementation->n_files_changed; f++) {
			const char *p = o->implementation->files_changed[f];
			size_t at, len;

			trimmed(p, &at, &len);
			if (len == 0)
				continue;
			if ((r->reported[k] = sw_strndup(p + at, len)) == NULL)
				return -1;
			r->nreported = ++k;
		}
	}
	qsort(r->reported, k, sizeof(*r->reported), cmp_str);
	r->nreported = 0;
	for (size_t i = 0; i < k; i++) {
		if (r->nreported && strcmp(r->reported[r->nreported - 1], r->reported[i]) == 0)
			sw_free(r->reported[i]);
		else
			r->reported[r->nreported++] = r->reported[i];
	}
	return 0;
}

static int was_reported(const struct rr *r, const char *path)
{
	return r->nreported > 0 &&
	       bsearch(&path, r->reported, r->nreported, sizeof(*r->reported), cmp_str) != NULL;
}

static int changed(const struct rr *r, const char *path)
{
	for (size_t i = 0; i < r->ch.n; i++)
		if (strcmp(r->ch.v[i].path, path) == 0)
			return 1;
	return 0;
}

/* The host whose install wrote the path as it is now, or NULL. */
static const char *installed_by(const struct rr *r, const struct vcs_path_obs *p)
{
	return p ? sw_owned_by(r->in->installed, p->path, p->content_sha256) : NULL;
}

/* Appends "N files installed by slipway for HOST" lines for the paths
 * `count[host]` counts. */
static void installed_lines(struct rr *r, const size_t *count)
{
	const struct sw_owned *in = r->in->installed;

	for (size_t h = 0; in && h < in->n; h++) {
		if (count[h] == 0)
			continue;
		item(r);
		putf(r, "%zu file%s installed by slipway for %s\n", count[h], count[h] == 1 ? "" : "s",
		     in->groups[h].owner);
	}
}

static size_t host_index(const struct rr *r, const char *id)
{
	for (size_t h = 0; r->in->installed && h < r->in->installed->n; h++)
		if (strcmp(r->in->installed->groups[h].owner, id) == 0)
			return h;
	return 0;
}

static size_t count_actions(const struct run_record *rec, size_t *done, size_t *skipped,
			    size_t *voided)
{
	*done = *skipped = *voided = 0;
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *a = &rec->actions[i];

		if (a->voided)
			(*voided)++;
		else if (a->skipped)
			(*skipped)++;
		else if (a->outcome)
			(*done)++;
	}
	return rec->n_actions;
}

/* The record of the Summarize Action that ended the Run, or NULL. */
static const struct run_action_record *summarize(const struct run_record *rec)
{
	for (size_t i = rec->n_actions; i-- > 0;)
		if (rec->actions[i].action.kind == FSM_KIND_SUMMARIZE)
			return &rec->actions[i];
	return NULL;
}

/* The number of changed paths slipway's install did not write. */
static size_t changes_shown(const struct rr *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ch.n; i++)
		if (installed_by(r, r->ch.v[i].now) == NULL)
			n++;
	return n;
}

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
	const struct run_action_record *sum = summarize(rec);
	size_t done, skipped, voided, n = count_actions(rec, &done, &skipped, &voided);
	size_t targets = confirmed_targets(rec);

	if (r->md) {
		put(r, "# ");
		one_line(r, rec->goal, 200);
		put(r, "\n\n**Slipway Run** ");
		code(r, rec->id, 0);
		putf(r, " \u00b7 %s", tbl_runstate_wire[rec->state]);
		if (rec->pause_reason != FSM_PAUSE_NONE)
			putf(r, " (%s)", tbl_pause_wire[rec->pause_reason]);
		put(r, "\n\n");
	} else {
		putf(r, "Run %s %s", rec->id, tbl_runstate_wire[rec->state]);
		if (rec->pause_reason != FSM_PAUSE_NONE)
			putf(r, " (%s)", tbl_pause_wire[rec->pause_reason]);
		put(r, ": ");
		one_line(r, rec->goal, 200);
		put(r, "\n");
	}
	putf(r, "%s %zu Action%s (%zu with an outcome, %zu skipped, %zu voided)",
	     r->ended ? "Outcome: ended after" : "So far:", n, n == 1 ? "" : "s", done, skipped, voided);
	if (!r->ended)
		putf(r, ", %lld of %lld budget left", rec->remaining_budget, rec->initial_budget);
	if (r->ended && !rec->final_git_observed)
		put(r, "; the final Git observation could not be made");
	else if (!r->compared)
		put(r, "; Git cannot be compared with the Run start");
	else
		putf(r, "; Git shows %zu changed path%s", changes_shown(r), changes_shown(r) == 1 ? "" : "s");
	if (targets)
		putf(r, "; %zu destructive target%s confirmed", targets, targets == 1 ? "" : "s");
	put(r, r->md ? ".\n" : ".\n");
	if (!r->ended)
		return;
	if (sum && sum->outcome && !sum->skipped) {
		if (r->md) {
			put(r, "\n## Final report\n\n> ");
			block(r, sum->outcome->summary, "> ");
			put(r, "\n");
		} else {
			put(r, "Final report:\n  ");
			block(r, sum->outcome->summary, "  ");
			put(r, "\n");
		}
	} else {
		put(r, r->md ? "\n## Final report\n\nNone: the Summarize Action was skipped.\n"
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
		put(r, r->md ? "\n**Pinned source:** " : "Pinned source: ");
		putf(r, "%s (%s)%s", pinned->canonical_url, pinned->issue_id,
		     r->md ? ", requirements revision " : "\nRequirements revision: ");
		code(r, pinned->requirements_revision, 0);
		put(r, "\n");
	}
	if (r->ended)
		return;
	if (cur && cur->outcome && cur->outcome->pause && cur->outcome->pause->question) {
		put(r, r->md ? "\n**Pending question:** " : "Pending question: ");
		one_line(r, cur->outcome->pause->question, 200);
		put(r, "\n");
	}
	if (req) {
		if (r->md)
			put(r, "\n**Destructive request** ");
		else
			put(r, "Destructive request: ");
		code(r, req->request_id, 0);
		put(r, r->md ? "\n\n" : "\nTargets:\n");
		for (size_t i = 0; i < req->n_targets; i++) {
			item(r);
			putf(r, "%s: ", req->targets[i].kind);
			code(r, req->targets[i].value, 0);
			put(r, "\n");
		}
		put(r, r->md ? "\n**Impact:** " : "Impact: ");
		block(r, req->impact, r->md ? "" : "  ");
		put(r, r->md ? "\n\n**Scope digest:** " : "\nScope digest: ");
		code(r, req->scope_sha256, 0);
		put(r, "\n");
	}
	if (rec->source_candidate) {
		const struct run_source_candidate *c = rec->source_candidate;

		putf(r, "%sCurrent source candidate: %s (%s, %s)\n", r->md ? "\n" : "", c->candidate_id,
		     c->classification, c->classification_code);
		if (c->classification_error)
			putf(r, "Candidate classification: %s\n", c->classification_error);
	}
	if (rec->current_action && rec->state != FSM_RUN_STOPPED)
		putf(r, "%sCurrent action: %s (%s)\n", r->md ? "\n" : "", rec->current_action->action_id,
		     tbl_kind_wire[rec->current_action->kind]);
}

/* ---- the sections (one handler per row of report_sections.def) ---------- */

#define SECTION(id, title) static void section_##id(struct rr *r);
#include "tables/report_sections.def"
#undef SECTION

static void section_NONE(struct rr *r)
{
	(void)r;
}

static void section_CHANGES(struct rr *r)
{
	size_t hosts[SW_OWNED_MAX_GROUPS] = { 0 }, shown = changes_shown(r), gone = 0;

	if (!r->compared) {
		heading(r, TBL_SECTION_CHANGES, 1);
		item(r);
		put(r, "Git's observations of the Run start and of now cannot be compared.\n");
		return;
	}
	for (size_t i = 0; i < r->nreported; i++)
		gone += !changed(r, r->reported[i]);
	heading(r, TBL_SECTION_CHANGES, shown + (r->ch.n - shown) + gone + (size_t)r->ch.head_moved);
	if (r->md && shown)
		put(r, "| Path | Change | Reported by the host |\n| --- | --- | --- |\n");
	for (size_t i = 0; i < r->ch.n; i++) {
		const struct vcs_change *c = &r->ch.v[i];
		const char *host = installed_by(r, c->now);

		if (host) {
			hosts[host_index(r, host)]++;
			continue;
		}
		if (r->md) {
			put(r, "| ");
			code(r, c->path, 1);
			putf(r, " | %s%s | %s |\n", tbl_change_word[c->kind], c->staged ? ", staged" : "",
			     was_reported(r, c->path) ? "yes" : "no");
		} else {
			item(r);
			putf(r, "%s%s: %s (%s)\n", tbl_change_word[c->kind], c->staged ? ", staged" : "",
			     c->path, was_reported(r, c->path) ? "reported" : "not reported by the host");
		}
	}
	if (r->md && shown)
		put(r, "\n");
	installed_lines(r, hosts);
	if (gone) {
		item(r);
		put(r, "reported by the host, but Git shows no change:");
		for (size_t i = 0; i < r->nreported; i++)
			if (!changed(r, r->reported[i])) {
				put(r, " ");
				code(r, r->reported[i], 0);
			}
		put(r, "\n");
	}
	if (r->ch.head_moved) {
		item(r);
		putf(r, "HEAD moved from %.12s to %.12s; committed files are not listed.\n",
		     r->in->start->head, r->in->now->head);
	}
	if (r->ch.bounded) {
		item(r);
		put(r, "Git's observation keeps a bounded list of paths; further changes may not be listed.\n");
	}
}

/* The answer to the Action that asked, or NULL. */
static const struct run_answer *answer_to(const struct run_record *rec, const char *action_id)
{
	return run_record_answer(rec, action_id);
}

static void targets_line(struct rr *r, const struct run_target *t, size_t n)
{
	put(r, cont(r));
	put(r, "targets:");
	for (size_t i = 0; i < n; i++) {
		putf(r, "%s %s ", i ? ";" : "", t[i].kind);
		code(r, t[i].value, 0);
	}
	put(r, "\n");
}

static void section_DESTRUCTIVE(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t n = 0;

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		n += o && o->pause && o->pause->destructive_request;
	}
	heading(r, TBL_SECTION_DESTRUCTIVE, n);
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
		item(r);
		if (ans && ans->confirm_destructive) {
			putf(r, "confirmed by the person at %s; ", ans->at);
			if (by) {
				putf(r, "carried out by %s ", tbl_kind_wire[by->action.kind]);
				short_id(r, by->action.action_id);
				putf(r, " (%s)\n", by->outcome ? by->outcome->status
						 : by->voided ? "voided before it finished"
						 : "in progress");
			} else {
				put(r, "no Implement has carried it out yet\n");
			}
		} else if (ans) {
			put(r, "declined by the person: ");
			block(r, ans->text, cont(r));
			put(r, "\n");
		} else if (rec->pending_destructive_request &&
			   strcmp(rec->pending_destructive_request->request_id, req->request_id) == 0) {
			put(r, "waiting for the person's confirmation\n");
		} else {
			putf(r, "closed without a decision (the Action was %s)\n",
			     ar->skipped ? "skipped" : "voided by a stop or a resume");
		}
		targets_line(r, req->targets, req->n_targets);
		put(r, cont(r));
		put(r, "impact: ");
		block(r, req->impact, cont(r));
		put(r, "\n");
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

		trimmed(a->text, &at, &len);
		n += !a->confirm_destructive && len > 0 && !replaced(a) &&
		     !(ar && ar->outcome && ar->outcome->pause && ar->outcome->pause->destructive_request);
	}
	heading(r, TBL_SECTION_DECISIONS, n);
	for (size_t i = 0; i < rec->n_answers; i++) {
		const struct run_answer *a = &rec->answers[i];
		const struct run_action_record *ar = run_record_action(rec, a->action_id);
		const char *q = ar && ar->outcome && ar->outcome->pause ? ar->outcome->pause->question : NULL;
		size_t at, len;

		trimmed(a->text, &at, &len);
		if (a->confirm_destructive || len == 0 || replaced(a) ||
		    (ar && ar->outcome && ar->outcome->pause && ar->outcome->pause->destructive_request))
			continue;
		item(r);
		put(r, r->md ? "**Q:** " : "Q: ");
		one_line(r, q ? q : "(the question was not recorded)", 300);
		put(r, "\n");
		put(r, cont(r));
		put(r, r->md ? "**A:** " : "A: ");
		block(r, a->text, cont(r));
		if (a->superseded_by && strncmp(a->superseded_by, "requirements:", 13) == 0)
			put(r, r->md ? " _(given under earlier requirements)_" : " (given under earlier requirements)");
		put(r, "\n");
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
	heading(r, TBL_SECTION_REVIEW, 1);
	if (findings) {
		for (size_t i = 0; i < rec->n_actions; i++) {
			const struct run_review *rv = rec->actions[i].outcome ? rec->actions[i].outcome->review : NULL;

			for (size_t k = 0; rv && k < rv->n_findings; k++) {
				item(r);
				code(r, rv->findings[k].location ? rv->findings[k].location : "", 0);
				put(r, ": ");
				one_line(r, rv->findings[k].summary, 300);
				put(r, "\n");
				put(r, cont(r));
				block(r, rv->findings[k].detail, cont(r));
				put(r, "\n");
			}
		}
		return;
	}
	item(r);
	if (skipped)
		put(r, "Review was skipped by the user.\n");
	else if (last) {
		putf(r, "%s: ", last->outcome->review->result);
		block(r, last->outcome->summary, cont(r));
		put(r, "\n");
	} else if (voided)
		put(r, "A Review Action was issued but voided before it finished.\n");
	else if (!rec->review_enabled)
		put(r, "Review was disabled for this Run (--no-review).\n");
	else if (r->ended)
		put(r, "Review did not run: the worktree did not change or no Implement ran.\n");
	else
		put(r, "No Review has run yet.\n");
}

/* 1 when a known issue of any Outcome names `command`: the host reported
 * the failing check as one that failed before the Run. */
static int known_failure(const struct run_record *rec, const char *command)
{
	size_t at, n;

	trimmed(command, &at, &n);
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

	heading(r, TBL_SECTION_CHECKS, rec->n_activities);
	for (size_t i = 0; i < rec->n_activities; i++) {
		const struct run_activity *a = &rec->activities[i];

		item(r);
		putf(r, "%s %s", a->kind, r->md ? "" : "`");
		code(r, a->command ? a->command : "", 0);
		put(r, r->md ? "" : "`");
		putf(r, " exited %lld", a->exit_code);
		if (a->exit_code != 0 && known_failure(rec, a->command))
			put(r, " (a known issue: the host reported it failing before the Run)");
		put(r, ": ");
		block(r, a->summary, cont(r));
		put(r, "\n");
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

			put(r, cont(r));
			item(r);
			code(r, to[i].key, 0);
			putf(r, ": %s\n", f == NULL ? "added"
					  : strcmp(f->section_revision, to[i].section_revision) ? "changed"
					  : "unchanged");
		}
		for (size_t i = 0; i < nfrom; i++)
			if (run_section_find(to, nto, from[i].key) == NULL) {
				put(r, cont(r));
				item(r);
				code(r, from[i].key, 0);
				put(r, ": removed\n");
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
			putf(r, first ? "; %s: " : ", ", word[w]);
			code(r, list[i].key, 0);
			first = 0;
		}
	}
	putf(r, "; unchanged: %zu", unchanged);
}

static void section_REQUIREMENTS(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_pinned_source *pinned = rec->pinned_source;
	const struct run_source_candidate *cand = rec->source_candidate;
	const struct run_action_record *prev = NULL;

	if (pinned == NULL)
		return;
	heading(r, TBL_SECTION_REQUIREMENTS, 1);
	item(r);
	putf(r, "pinned: %s (%zu section%s), requirements revision ", pinned->canonical_url,
	     pinned->n_sections, pinned->n_sections == 1 ? "" : "s");
	code(r, pinned->requirements_revision, 0);
	put(r, "\n");
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];
		const char *a = prev ? revision_of(prev) : NULL, *b = revision_of(ar);

		if (b == NULL)
			continue;
		if (a && strcmp(a, b) != 0) {
			item(r);
			put(r, "moved from revision ");
			code(r, a, 0);
			put(r, " to ");
			code(r, b, 0);
			put(r, " (an adopted amendment)");
			section_diff(r, prev->action.requirements->sections, prev->action.requirements->n_sections,
				     ar->action.requirements->sections, ar->action.requirements->n_sections, 0);
			put(r, "\n");
		}
		prev = ar;
	}
	if (cand) {
		item(r);
		putf(r, "a refreshed Issue waits for the person's choice (candidate %s, %s)", cand->candidate_id,
		     cand->classification);
		if (cand->snapshot == NULL) {
			put(r, "; it cannot be adopted\n");
			return;
		}
		put(r, "; its sections against the pinned ones:\n");
		section_diff(r, pinned->sections, pinned->n_sections, cand->snapshot->sections,
			     cand->snapshot->n_sections, 1);
		put(r, cont(r));
		put(r, "read one: ");
		{
			char *cmd = sw_asprintf("slipway status %s --section KEY --candidate", rec->id);

			if (cmd == NULL)
				r->failed = 1;
			else
				code(r, cmd, 0);
			sw_free(cmd);
		}
		put(r, "\n");
	}
}

/* The normalised form two known issues are compared in: words joined by
 * one space, ASCII letters in lower case, a final full stop dropped. */
static char *issue_key(const char *s)
{
	struct sw_buf b = SW_BUF_INIT;
	int gap = 0;

	for (const char *p = s ? s : ""; *p; p++) {
		if (space(*p)) {
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
	heading(r, TBL_SECTION_KNOWN_ISSUES, n + (earlier > 0));
	for (size_t k = 0, shown = 0; last && shown < n && k < last->n_known_issues; k++) {
		char *key = issue_key(last->known_issues[k]);

		if (key && strcmp(key, keys[shown]) == 0) {
			item(r);
			block(r, last->known_issues[k], cont(r));
			put(r, "\n");
			shown++;
		}
		sw_free(key);
	}
	if (earlier) {
		item(r);
		putf(r, "%zu reported by earlier Actions and not repeated by the last report; "
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
		item(r);
		block(r, text, cont(r));
		put(r, "\n");
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

	heading(r, TBL_SECTION_UNCERTAINTIES, n);
	if (incomplete) {
		item(r);
		if (c->missing)
			putf(r, "%zu deleted file%s could not be fingerprinted (a deleted file has no content "
				"to hash). ", c->missing, c->missing == 1 ? "" : "s");
		if (c->unreadable)
			putf(r, "%zu file%s could not be read. ", c->unreadable, c->unreadable == 1 ? "" : "s");
		if (c->unobserved)
			putf(r, "%zu file%s were not hashed: Git's observation ran out of %s. ", c->unobserved,
			     c->unobserved == 1 ? "" : "s",
			     r->in->now->content_deadline_exceeded ? "time" : "its byte budget");
		if (counted == 0)
			put(r, "Not every dirty file could be fingerprinted. ");
		put(r, "Review stays advisory.\n");
	}
	(void)notes(r, rec->uncertainties, rec->n_uncertainties, 0);
}

static void section_OBSERVATIONS(struct rr *r)
{
	const struct run_record *rec = r->rec;
	size_t n = notes(r, rec->observations, rec->n_observations, 1);

	if (n == 0)
		return;
	heading(r, TBL_SECTION_OBSERVATIONS, n);
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
	heading(r, TBL_SECTION_SKIPPED, n);
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];

		if (!ar->skipped && !ar->voided)
			continue;
		item(r);
		putf(r, "%s ", tbl_kind_wire[ar->action.kind]);
		short_id(r, ar->action.action_id);
		putf(r, ": %s\n", ar->voided ? void_reason(rec, ar) : "skipped by the user");
	}
}

static void section_LOG(struct rr *r)
{
	const struct run_record *rec = r->rec;
	const struct run_action_record *sum = r->ended ? summarize(rec) : NULL;

	heading(r, TBL_SECTION_LOG, rec->n_actions);
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];
		const struct run_outcome *o = ar->outcome;

		putf(r, r->md ? "%zu. %s " : "  %zu. %s ", i + 1, tbl_kind_wire[ar->action.kind]);
		short_id(r, ar->action.action_id);
		put(r, ": ");
		if (ar->skipped)
			put(r, "skipped");
		else if (ar == sum && o)
			put(r, "its report is the Final report");
		else if (o && o->pause) {
			putf(r, "paused (%s): ", o->pause->reason ? o->pause->reason : o->status);
			block(r, o->summary, r->md ? "   " : "     ");
		} else if (o)
			block(r, o->summary, r->md ? "   " : "     ");
		else if (ar->voided)
			put(r, "voided without an outcome");
		else
			put(r, "in progress");
		if (ar->voided && o)
			put(r, " (voided)");
		put(r, "\n");
	}
}

static void section_DIRTY_AT_START(struct rr *r)
{
	const struct vcs_observation *g = r->in->start;
	size_t hosts[SW_OWNED_MAX_GROUPS] = { 0 }, listed = 0;

	if (g == NULL)
		return;
	heading(r, TBL_SECTION_DIRTY_AT_START, (size_t)g->path_count);
	for (size_t i = 0; i < g->retained; i++) {
		const char *host = installed_by(r, &g->paths[i]);

		if (host) {
			hosts[host_index(r, host)]++;
			continue;
		}
		listed++;
		item(r);
		code(r, g->paths[i].path, 0);
		putf(r, " (%s %s)\n", g->paths[i].category, g->paths[i].state);
	}
	installed_lines(r, hosts);
	if (g->details_truncated) {
		item(r);
		putf(r, "%lld more path(s) left out of the bounded list.\n",
		     (long long)(g->path_count - (int64_t)g->retained));
	}
	(void)listed;
}

/* clang-format off */
typedef void section_fn(struct rr *r);
static section_fn *const section_handler[TBL_SECTION__COUNT] = {
#define SECTION(id, title) [TBL_SECTION_##id] = section_##id,
#include "tables/report_sections.def"
#undef SECTION
};
/* clang-format on */

/* ---- the report ----------------------------------------------------------- */

char *run_bound_summary(const char *s, size_t limit)
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
	put(r, "The Summarize Action was skipped.\n");
	if (!r->rec->final_git_observed)
		put(r, "Git: the final observation could not be made.\n");
	else if (r->compared && (r->ch.n > 0 || r->ch.head_moved))
		put(r, "Git: the worktree differs from the Run start; people, other Runs or tools may "
		       "have contributed.\n");
	else
		put(r, "Git: no difference from the Run start was observed.\n");
	put(r, "The host wrote no final report.\n");
	for (int s = TBL_SECTION_CHANGES; s <= TBL_SECTION_DECISIONS; s++) {
		size_t before = r->b.len;

		r->count = 0;
		section_handler[s](r);
		/* A section with nothing to say stays out. */
		if (!r->b.failed && r->count == 0) {
			r->b.len = before;
			r->b.p[before] = '\0';
		}
	}
}

int run_report(char **out, const struct run_report_in *in, enum run_report_form form,
		  struct sw_error *err)
{
	struct rr r = { .form = form, .md = form == RUN_REPORT_MARKDOWN, .in = in, .rec = in->rec };
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
	if (gather_reported(&r) < 0) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot render the report");
		goto out;
	}
	sum = summarize(r.rec);
	if (form == RUN_REPORT_SUMMARY && sum && sum->skipped) {
		skipped_summary(&r);
	} else {
		headline(&r);
		if (form != RUN_REPORT_SUMMARY)
			now_block(&r);
		for (int s = TBL_SECTION_NONE + 1; s < TBL_SECTION__COUNT; s++)
			section_handler[s](&r);
	}
	if (form == RUN_REPORT_TEXT && in->next) {
		if ((rc = render_next_choices(&choices, in->next, RENDER_SHELL_NATIVE, NULL, err)) < 0)
			goto out;
		if (choices[0]) {
			put(&r, "\n");
			put(&r, choices);
		}
	}
	if (r.failed || (text = sw_buf_detach(&r.b)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot render the report");
		goto out;
	}
	if (form == RUN_REPORT_SUMMARY) {
		if ((*out = run_bound_summary(text, RUN_MAX_SUMMARY_BYTES)) == NULL)
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
