/* The facts the report reads once and every part of it shares: the paths
 * Implement reported, what Git's change list holds, which files slipway's
 * own install wrote (counted per host), and the Actions of the record.
 * Never writes a section of its own. */

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
		report__putf(r, "%zu file%s installed by slipway for %s\n", count[h], count[h] == 1 ? "" : "s",
			     in->groups[h].owner);
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
