/* Path changes between two Git observations.  See io/git/vcs_changes.h. */

#include "io/git/vcs_changes.h"

#include <string.h>

/* 1 when the comma-separated `list` holds the token `tok`. */
static int has_token(const char *list, const char *tok)
{
	size_t n = strlen(tok);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && strncmp(p, tok, n) == 0)
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* The XY state of an ordinary or rename record among the merged states. */
static const char *xy(const char *state)
{
	for (const char *p = state; p && *p;) {
		if (p[0] != '?' && p[0] != ',' && p[1] && p[1] != ',')
			return p;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

enum tbl_change vcs_change_kind(const struct vcs_path_obs *p, int existed, int *staged)
{
	const char *cat = p->category ? p->category : "", *s = xy(p->state);

	*staged = s && s[0] != '.' && s[0] != '?';
	if (has_token(cat, "unmerged"))
		return TBL_CHANGE_CONFLICTED;
	if (has_token(cat, "rename"))
		return TBL_CHANGE_RENAMED;
	if (has_token(cat, "rename_origin"))
		return TBL_CHANGE_RENAMED_AWAY;
	if (s && (s[0] == 'D' || s[1] == 'D'))
		return TBL_CHANGE_DELETED;
	if (!existed && (has_token(cat, "untracked") || (s && (s[0] == 'A' || s[1] == 'A'))))
		return TBL_CHANGE_ADDED;
	return TBL_CHANGE_MODIFIED;
}

static int str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static int same(const struct vcs_path_obs *a, const struct vcs_path_obs *b)
{
	return str_eq(a->category, b->category) && str_eq(a->state, b->state) &&
	       strcmp(a->observation, b->observation) == 0 &&
	       strcmp(a->content_sha256, b->content_sha256) == 0 &&
	       a->has_size == b->has_size && (!a->has_size || a->size == b->size);
}

static int add(struct vcs_changes *c, size_t cap, const char *path, const struct vcs_path_obs *now,
	       int existed)
{
	struct vcs_change *ch;

	if (c->n >= cap)
		return -1;
	ch = &c->v[c->n++];
	ch->path = path;
	ch->now = now;
	ch->staged = 0;
	ch->kind = now ? vcs_change_kind(now, existed, &ch->staged) : TBL_CHANGE_CLEAN_AGAIN;
	return 0;
}

/* The number of the retained paths of `o` that sort at or before `cut`
 * (all of them when `cut` is NULL). */
static size_t upto(const struct vcs_observation *o, const char *cut)
{
	size_t n = 0;

	while (n < o->retained && (cut == NULL || strcmp(o->paths[n].path, cut) <= 0))
		n++;
	return n;
}

int vcs_changes_between(struct vcs_changes *out, const struct vcs_observation *start,
			const struct vcs_observation *now, struct sw_error *err)
{
	const char *cut = NULL, *c;
	size_t i = 0, k = 0, cap = start->retained + now->retained, ns, nn;

	memset(out, 0, sizeof(*out));
	out->bounded = start->details_truncated || now->details_truncated;
	out->head_moved = !str_eq(start->head, now->head);
	for (size_t j = 0; j < now->retained; j++) {
		const char *o = now->paths[j].observation;

		out->missing += strcmp(o, "missing") == 0;
		out->unreadable += strcmp(o, "unreadable") == 0;
		out->unobserved += strcmp(o, "content_unobserved") == 0;
	}
	/* Past the last path a truncated side retains, that side's paths are
	 * unknown: nothing there is compared. */
	if (start->details_truncated)
		cut = start->retained ? start->paths[start->retained - 1].path : "";
	if (now->details_truncated) {
		c = now->retained ? now->paths[now->retained - 1].path : "";
		if (cut == NULL || strcmp(c, cut) < 0)
			cut = c;
	}
	ns = upto(start, cut);
	nn = upto(now, cut);
	out->beyond_start = (size_t)start->path_count - ns;
	out->beyond_now = (size_t)now->path_count - nn;
	if (strcmp(start->snapshot_hash, now->snapshot_hash) == 0) {
		out->beyond_start = out->beyond_now = 0;
		return 0;
	}
	if (cap == 0)
		return 0;
	if ((out->v = sw_calloc(cap, sizeof(*out->v))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot list the changed paths");
	while (i < ns || k < nn) {
		const struct vcs_path_obs *a = i < ns ? &start->paths[i] : NULL;
		const struct vcs_path_obs *b = k < nn ? &now->paths[k] : NULL;
		int cmp = a && b ? strcmp(a->path, b->path) : a ? -1 : 1;

		if (cmp < 0) {
			(void)add(out, cap, a->path, NULL, 1);
			i++;
		} else if (cmp > 0) {
			(void)add(out, cap, b->path, b, 0);
			k++;
		} else {
			if (!same(a, b))
				(void)add(out, cap, b->path, b, 1);
			i++;
			k++;
		}
	}
	return 0;
}

void vcs_changes_release(struct vcs_changes *c)
{
	if (c == NULL)
		return;
	sw_free(c->v);
	memset(c, 0, sizeof(*c));
}
