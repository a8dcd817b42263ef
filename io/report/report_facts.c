/* The facts the report reads once and every part of it shares: the paths
 * Implement reported, what Git's change list holds, which files slipway's
 * own install wrote (counted per host), the Actions of the record, what is
 * still open (the last Review, failed checks, known issues, an amendment
 * not implemented) and the Run's history.  Never writes a section of its
 * own. */

#include <stdlib.h>
#include <string.h>

#include "io/git/observe.h"
#include "io/report/report_internal.h"
#include "io/store/run_record.h"
#include "io/util/owned.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every path Implement reported changed, trimmed, sorted, once each. */
int report__gather_reported(struct rr *r)
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

			report__trimmed(p, &at, &len);
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

int report__was_reported(const struct rr *r, const char *path)
{
	return r->nreported > 0 &&
	       bsearch(&path, r->reported, r->nreported, sizeof(*r->reported), cmp_str) != NULL;
}

int report__changed(const struct rr *r, const char *path)
{
	for (size_t i = 0; i < r->ch.n; i++)
		if (strcmp(r->ch.v[i].path, path) == 0)
			return 1;
	return 0;
}

/* The host whose install wrote the path as it is now, or NULL. */
const char *report__installed_by(const struct rr *r, const struct vcs_path_obs *p)
{
	return p ? sw_owned_by(r->in->installed, p->path, p->content_sha256) : NULL;
}

/* Appends "N files installed by slipway for HOST" lines for the paths
 * `count[host]` counts. */
void report__installed_lines(struct rr *r, const size_t *count)
{
	const struct sw_owned *in = r->in->installed;

	for (size_t h = 0; in && h < in->n; h++) {
		if (count[h] == 0)
			continue;
		report__item(r);
		sw_owned_count_line(&r->b, count[h], in->groups[h].owner);
		report__put(r, "\n");
	}
}

size_t report__host_index(const struct rr *r, const char *id)
{
	for (size_t h = 0; r->in->installed && h < r->in->installed->n; h++)
		if (strcmp(r->in->installed->groups[h].owner, id) == 0)
			return h;
	return 0;
}

size_t report__count_actions(const struct run_record *rec, size_t *done, size_t *skipped,
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
const struct run_action_record *report__summarize(const struct run_record *rec)
{
	for (size_t i = rec->n_actions; i-- > 0;)
		if (rec->actions[i].action.kind == FSM_KIND_SUMMARIZE)
			return &rec->actions[i];
	return NULL;
}

/* The number of changed paths slipway's install did not write. */
size_t report__changes_shown(const struct rr *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ch.n; i++)
		if (report__installed_by(r, r->ch.v[i].now) == NULL)
			n++;
	return n;
}

/* The number of changed paths slipway's install did not write, beyond the
 * listed ones too: exact (*exact 1) when only one side has dirty paths
 * past the compared ones, else the fewest there can be. */
size_t report__changes_total(const struct rr *r, int *exact)
{
	size_t a = r->ch.beyond_now, b = r->ch.beyond_start;

	*exact = a == 0 || b == 0;
	return report__changes_shown(r) + (*exact ? a + b : a > b ? a - b : b - a);
}

/* The path's observation at the Run start, when it was dirty then. */
const struct vcs_path_obs *report__dirty_at_start(const struct rr *r, const char *path)
{
	const struct vcs_observation *g = r->in->start;
	size_t lo = 0, hi = g ? g->retained : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(g->paths[mid].path, path);

		if (c == 0)
			return &g->paths[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* This Run's changed paths whose content could not be fingerprinted, by
 * why (a path dirty before the Run and unchanged is not this Run's). */
void report__own_unhashed(const struct rr *r, size_t *missing, size_t *unreadable,
			  size_t *unobserved)
{
	*missing = *unreadable = *unobserved = 0;
	for (size_t i = 0; i < r->ch.n; i++) {
		const struct vcs_path_obs *p = r->ch.v[i].now;

		if (p == NULL)
			continue;
		*missing += strcmp(p->observation, "missing") == 0;
		*unreadable += strcmp(p->observation, "unreadable") == 0;
		*unobserved += strcmp(p->observation, "content_unobserved") == 0;
	}
}

/* The last Review with a result, and how many earlier ones it supersedes. */
const struct run_action_record *report__last_review(const struct run_record *rec,
						    size_t *earlier)
{
	const struct run_action_record *last = NULL;

	*earlier = 0;
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];

		if (ar->action.kind != FSM_KIND_REVIEW || ar->outcome == NULL || ar->outcome->review == NULL)
			continue;
		*earlier += last != NULL;
		last = ar;
	}
	return last;
}

/* 1 when activity `i` failed and is the last one of its command: a
 * failure a later run of the same command did not clear. */
int report__failed_last(const struct run_record *rec, size_t i)
{
	const struct run_activity *a = &rec->activities[i];

	if (a->exit_code == 0)
		return 0;
	for (size_t k = i + 1; k < rec->n_activities; k++)
		if (strcmp(rec->activities[k].command ? rec->activities[k].command : "",
			   a->command ? a->command : "") == 0)
			return 0;
	return 1;
}

size_t report__failed_checks(const struct run_record *rec)
{
	size_t n = 0;

	for (size_t i = 0; i < rec->n_activities; i++)
		n += (size_t)report__failed_last(rec, i);
	return n;
}

static const char *revision_of(const struct run_action_record *ar)
{
	return ar->action.requirements ? ar->action.requirements->requirements_revision : NULL;
}

/* Whether an Implement covered the requirements it was issued under: its
 * Outcome was accepted (not voided, not skipped) with status completed.
 * A partial or failed Implement, or one that paused, covers nothing. */
static int covers(const struct run_action_record *ar)
{
	return ar->action.kind == FSM_KIND_IMPLEMENT && ar->outcome && !ar->voided && !ar->skipped &&
	       ar->outcome->pause == NULL && strcmp(ar->outcome->status, "completed") == 0;
}

/* The adopted amendment this Run left unimplemented: the first Action
 * issued under the requirements the last adoption moved the Run to, when
 * no Implement issued under them covered them (`covers`: every such
 * Implement was issued after the adoption); else NULL.  In *base (may be
 * NULL) the last Action under the requirements before the adoptions since
 * the last covered revision, against which the new requirements are
 * named. */
const struct run_action_record *report__unimplemented_move(const struct run_record *rec,
							   const struct run_action_record **base)
{
	const struct run_action_record *moved = NULL, *from = NULL, *last = NULL;

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *ar = &rec->actions[i];
		const char *rev = revision_of(ar);

		if (rev == NULL)
			continue;
		if (last && strcmp(revision_of(last), rev) != 0) {
			if (moved == NULL)
				from = last;
			moved = ar;
		}
		last = ar;
		if (moved && covers(ar))
			moved = from = NULL;
	}
	if (base)
		*base = moved ? from : NULL;
	return moved;
}

/* The normalised form two known issues are compared in: words joined by
 * one space, ASCII letters in lower case, a final full stop dropped. */
char *report__issue_key(const char *s)
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

/* The known issues still open: those of the last Outcome that lists any,
 * once each (*last that Outcome, *keys their keys, the caller frees them
 * and the array), and in *earlier how many earlier ones it does not
 * repeat.  Returns their number; (size_t)-1 on ENOMEM. */
size_t report__known_issues(const struct run_record *rec, const struct run_outcome **last,
			    char ***keys, size_t *earlier)
{
	size_t n = 0;

	*last = NULL;
	*keys = NULL;
	*earlier = 0;
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		if (o && o->n_known_issues > 0)
			*last = o;
	}
	if (*last == NULL)
		return 0;
	if ((*keys = sw_calloc((*last)->n_known_issues, sizeof(**keys))) == NULL)
		return (size_t)-1;
	for (size_t k = 0; k < (*last)->n_known_issues; k++) {
		size_t j;

		if (((*keys)[n] = report__issue_key((*last)->known_issues[k])) == NULL)
			goto oom;
		for (j = 0; j < n && strcmp((*keys)[j], (*keys)[n]) != 0; j++)
			;
		if (j == n && (*keys)[n][0]) {
			n++;
		} else {
			sw_free((*keys)[n]);
			(*keys)[n] = NULL;
		}
	}
	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_outcome *o = rec->actions[i].outcome;

		for (size_t k = 0; o && o != *last && k < o->n_known_issues; k++) {
			char *key = report__issue_key(o->known_issues[k]);
			size_t j;

			if (key == NULL)
				goto oom;
			for (j = 0; j < n && strcmp((*keys)[j], key) != 0; j++)
				;
			*earlier += j == n;
			sw_free(key);
		}
	}
	return n;
oom:
	for (size_t k = 0; k < n; k++)
		sw_free((*keys)[k]);
	sw_free(*keys);
	*keys = NULL;
	return (size_t)-1;
}

/* The budget the Run was last given: its last resume's, or its start's. */
long long report__budget_set(const struct rr *r)
{
	for (size_t i = r->in->n_events; i-- > 0;)
		if (r->in->events[i].budget >= 0)
			return r->in->events[i].budget;
	return r->rec->initial_budget;
}

/* What closed Action `i` (voided without an answer): the row of the first
 * event after it that closes an Action, or NULL. */
const struct tbl_report_history *report__closed_by(const struct rr *r, size_t i)
{
	for (size_t k = 0; k < r->in->n_events; k++) {
		const struct run_event *e = &r->in->events[k];
		const struct tbl_report_history *h;

		if (e->after != i + 1)
			continue;
		if ((h = tbl_report_history_of(e->type, e->pause)) != NULL && h->closes)
			return h;
	}
	return NULL;
}
