/* The head-to-index deltas from the index's cache tree (TREE extension)
 * against HEAD's tree, descending only where the two differ, and the
 * release of the delta list (struct hdiff) that libgit2's diff fills too.
 * Reads Git objects; never the worktree, never libgit2's index. */

#include "io/git/observe_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "io/util/buf.h"

/* git keeps in the index's TREE extension, for each directory, the tree
 * its entries make when that is known ("valid").  A directory whose valid
 * tree is the one HEAD has there holds no change, so the head-to-index
 * diff only descends where the two differ, as git's own status does;
 * libgit2's diff reads every tree of HEAD and the whole index again.
 * Renames need libgit2's pairing: when the changes hold both an addition
 * and a deletion (and renames are on), its diff is used instead. */

#ifdef SW_TESTING
unsigned vcs__test_ct_diffs;	/* head-to-index sides taken from the cache tree */
#endif

void vcs__hdiff_release(struct hdiff *h)
{
	for (size_t i = 0; i < h->n; i++) {
		sw_free(h->d[i].old_path);
		sw_free(h->d[i].new_path);
	}
	sw_free(h->d);
	h->d = NULL;
	h->n = 0;
}

struct ctnode {
	const char *name;	/* in the extension, not NUL-terminated */
	size_t nlen;
	long count;		/* index entries below it, -1 when invalid */
	git_oid oid;		/* its tree, when count >= 0 */
	size_t nkid, kid;	/* its subtrees: kids[kid .. kid + nkid) */
};

struct ctree {
	struct ctnode *node;
	size_t n, cap;
	size_t *kids;
	size_t nkids, capkids;
};

static void ctree_free(struct ctree *ct)
{
	sw_free(ct->node);
	sw_free(ct->kids);
	memset(ct, 0, sizeof(*ct));
}

/* Parses the node at *p and its subtrees; its index, or -1 when malformed
 * (or out of memory, or deeper than any path). */
static long ct_parse(struct ctree *ct, const unsigned char **p, const unsigned char *end,
		     int depth)
{
	const unsigned char *q = *p, *nul, *nl;
	char *e;
	long count, nsub;
	size_t idx, kid;

	if (depth > 2048 || q >= end || (nul = memchr(q, '\0', (size_t)(end - q))) == NULL ||
	    (nl = memchr(nul + 1, '\n', (size_t)(end - nul - 1))) == NULL)
		return -1;
	count = strtol((const char *)nul + 1, &e, 10);
	if (*e != ' ' || count < -1)
		return -1;
	nsub = strtol(e + 1, &e, 10);
	if ((const unsigned char *)e != nl || nsub < 0 || nsub > end - nl)
		return -1;
	if (ct->n == ct->cap) {
		size_t cap = ct->cap ? ct->cap * 2 : 64;
		struct ctnode *n = sw_realloc(ct->node, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		ct->node = n;
		ct->cap = cap;
	}
	while (ct->nkids + (size_t)nsub > ct->capkids) {
		size_t cap = ct->capkids ? ct->capkids * 2 : 64;
		size_t *k = sw_realloc(ct->kids, cap * sizeof(*k));

		if (k == NULL)
			return -1;
		ct->kids = k;
		ct->capkids = cap;
	}
	idx = ct->n++;
	kid = ct->nkids;
	ct->nkids += (size_t)nsub;
	ct->node[idx] = (struct ctnode){ (const char *)q, (size_t)(nul - q), count, { { 0 } },
					 (size_t)nsub, kid };
	q = nl + 1;
	if (count >= 0) {
		if ((size_t)(end - q) < GIT_OID_RAWSZ)
			return -1;
		git_oid_fromraw(&ct->node[idx].oid, q);
		q += GIT_OID_RAWSZ;
	}
	for (long k = 0; k < nsub; k++) {
		long child = ct_parse(ct, &q, end, depth + 1);

		if (child < 0)
			return -1;
		ct->kids[kid + (size_t)k] = (size_t)child;
	}
	*p = q;
	return (long)idx;
}

/* The subtree of node `at` named name[0..nlen), or NULL. */
static const struct ctnode *ct_child(const struct ctree *ct, const struct ctnode *at,
				     const char *name, size_t nlen)
{
	for (size_t k = 0; at != NULL && k < at->nkid; k++) {
		const struct ctnode *c = &ct->node[ct->kids[at->kid + k]];

		if (c->nlen == nlen && memcmp(c->name, name, nlen) == 0)
			return c;
	}
	return NULL;
}

/* git's order of names in a tree: a directory sorts as if its name ended
 * in '/', which is also how its entries sort in the index. */
static int name_cmp(const char *a, size_t la, int da, const char *b, size_t lb, int db)
{
	size_t n = la < lb ? la : lb;
	int c = memcmp(a, b, n);
	unsigned ca, cb;

	if (c != 0)
		return c;
	ca = n < la ? (unsigned char)a[n] : da ? '/' : 0;
	cb = n < lb ? (unsigned char)b[n] : db ? '/' : 0;
	return (int)ca - (int)cb;
}

struct hdbuild {
	git_repository *repo;
	const git_index_entry **ent;
	struct hdiff *out;
	size_t cap;
	size_t added, deleted;
};

/* Adds a delta; `path` is copied.  SW_ENOMEM. */
static int hd_add(struct hdbuild *b, git_delta_t status, const char *path, unsigned old_mode,
		  const git_oid *old_id)
{
	struct hdelta *d;

	if (b->out->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct hdelta *n = sw_realloc(b->out->d, cap * sizeof(*n));

		if (n == NULL)
			return SW_ENOMEM;
		b->out->d = n;
		b->cap = cap;
	}
	d = &b->out->d[b->out->n];
	memset(d, 0, sizeof(*d));
	d->status = status;
	d->old_mode = old_mode;
	if (old_id != NULL)
		git_oid_cpy(&d->old_id, old_id);
	if ((d->old_path = sw_strdup(path)) == NULL || (d->new_path = sw_strdup(path)) == NULL) {
		sw_free(d->old_path);
		return SW_ENOMEM;
	}
	b->out->n++;
	if (status == GIT_DELTA_ADDED)
		b->added++;
	else if (status == GIT_DELTA_DELETED)
		b->deleted++;
	return 0;
}

static int hd_deleted_tree(struct hdbuild *b, const git_tree *t, char *prefix, size_t plen);

/* HEAD's entry `te`, whose name (nl bytes) is already at prefix + plen, is
 * deleted: a file is one delta, a tree every file below it.  prefix is
 * cut back to plen. */
static int hd_deleted_entry(struct hdbuild *b, const git_tree_entry *te, char *prefix,
			    size_t plen, size_t nl)
{
	int rc;

	if (git_tree_entry_type(te) == GIT_OBJECT_TREE) {
		git_tree *sub = NULL;

		if (git_tree_lookup(&sub, b->repo, git_tree_entry_id(te)) < 0)
			return -1;
		prefix[plen + nl] = '/';
		prefix[plen + nl + 1] = '\0';
		rc = hd_deleted_tree(b, sub, prefix, plen + nl + 1);
		git_tree_free(sub);
	} else {
		rc = hd_add(b, GIT_DELTA_DELETED, prefix, git_tree_entry_filemode(te),
			    git_tree_entry_id(te));
	}
	prefix[plen] = '\0';
	return rc;
}

/* Every file of HEAD's tree `t` (path prefix[0..plen)) is deleted. */
static int hd_deleted_tree(struct hdbuild *b, const git_tree *t, char *prefix, size_t plen)
{
	int rc = 0;

	for (size_t i = 0, n = git_tree_entrycount(t); i < n && rc == 0; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(t, i);
		const char *name = git_tree_entry_name(te);
		size_t nl = strlen(name);

		if (plen + nl + 2 >= PATH_MAX)
			return -1;
		memcpy(prefix + plen, name, nl + 1);
		rc = hd_deleted_entry(b, te, prefix, plen, nl);
	}
	return rc;
}

static int is_link_mode(unsigned mode)
{
	return mode == GIT_FILEMODE_LINK;
}

/* Compares HEAD's tree `t` (NULL: none) with the index entries [lo, hi),
 * all below directory prefix[0..plen) (a PATH_MAX buffer), whose
 * cache-tree node is `cn` (NULL: unknown). 0, -1 (give up: libgit2's
 * diff then) or SW_ENOMEM. */
static int hd_dir(struct hdbuild *b, const struct ctree *ct, const struct ctnode *cn,
		  const git_tree *t, char *prefix, size_t plen, size_t lo, size_t hi)
{
	size_t nt = t ? git_tree_entrycount(t) : 0, ti = 0, i = lo;
	int rc = 0;

	/* A valid cache tree that is HEAD's tree, over exactly these
	 * entries: nothing below here changed. */
	if (cn != NULL && cn->count >= 0 && (size_t)cn->count == hi - lo && t != NULL &&
	    git_oid_equal(&cn->oid, git_tree_id(t)))
		return 0;
	while (rc == 0 && (ti < nt || i < hi)) {
		const git_tree_entry *te = ti < nt ? git_tree_entry_byindex(t, ti) : NULL;
		const char *tn = te ? git_tree_entry_name(te) : NULL;
		size_t tl = tn ? strlen(tn) : 0, cl = 0, j = i + 1;
		int td = te && git_tree_entry_type(te) == GIT_OBJECT_TREE, cd = 0, c;
		const char *cname = NULL;

		if (i < hi) {
			const char *slash;

			cname = b->ent[i]->path + plen;
			slash = strchr(cname, '/');
			cd = slash != NULL;
			cl = cd ? (size_t)(slash - cname) : strlen(cname);
			if (plen + cl + 2 >= PATH_MAX)
				return -1;
			if (cd) {
				/* entries [i, j) are below it */
				size_t top = hi;

				memcpy(prefix + plen, cname, cl);
				prefix[plen + cl] = '0';
				prefix[plen + cl + 1] = '\0';
				for (j = i; j < top;) {
					size_t mid = j + (top - j) / 2;

					if (strcmp(b->ent[mid]->path, prefix) < 0)
						j = mid + 1;
					else
						top = mid;
				}
				prefix[plen] = '\0';
			}
		}
		if (plen + tl + 2 >= PATH_MAX)
			return -1;
		c = te == NULL ? 1 : cname == NULL ? -1 : name_cmp(tn, tl, td, cname, cl, cd);
		if (c < 0) {			/* only in HEAD */
			memcpy(prefix + plen, tn, tl + 1);
			rc = hd_deleted_entry(b, te, prefix, plen, tl);
			ti++;
		} else if (c > 0) {		/* only in the index */
			for (size_t k = i; k < j && rc == 0; k++)
				rc = hd_add(b, GIT_DELTA_ADDED, b->ent[k]->path, 0, NULL);
			i = j;
		} else if (cd) {		/* a directory on both sides */
			git_tree *sub = NULL;

			if (git_tree_lookup(&sub, b->repo, git_tree_entry_id(te)) < 0)
				return -1;
			memcpy(prefix + plen, cname, cl);
			prefix[plen + cl] = '/';
			prefix[plen + cl + 1] = '\0';
			rc = hd_dir(b, ct, ct_child(ct, cn, cname, cl), sub, prefix, plen + cl + 1, i, j);
			prefix[plen] = '\0';
			git_tree_free(sub);
			ti++;
			i = j;
		} else {			/* a file on both sides */
			const git_index_entry *e = b->ent[i];
			unsigned hm = git_tree_entry_filemode(te);

			if (!git_oid_equal(git_tree_entry_id(te), &e->id) || hm != e->mode)
				rc = hd_add(b, is_link_mode(hm) != is_link_mode(e->mode) ||
					       hm == GIT_FILEMODE_COMMIT ? GIT_DELTA_TYPECHANGE
									: GIT_DELTA_MODIFIED,
					    e->path, hm, git_tree_entry_id(te));
			ti++;
			i++;
		}
	}
	return rc;
}

/* The head-to-index deltas of s's stage-0 index against HEAD's tree,
 * descending only where the cache tree differs from HEAD.  0 with s->diff
 * filled, 1 when libgit2's diff must decide (renames possible, no cache
 * tree, or anything unexpected), SW_ENOMEM.  Called with s->gitmu held. */
int vcs__cache_tree_diff(struct scan *s)
{
	struct ctree ct = { 0 };
	struct hdbuild b = { s->repo, s->ent, &s->diff, 0, 0, 0 };
	const unsigned char *p = s->tree_ext;
	char *prefix = NULL;
	git_tree *head = NULL;
	int rc = 1;

	if (s->tree_ext == NULL || s->tree_id == NULL ||
	    ct_parse(&ct, &p, s->tree_ext + s->tree_len, 0) != 0 ||
	    (prefix = sw_malloc(PATH_MAX)) == NULL ||
	    git_tree_lookup(&head, s->repo, s->tree_id) < 0)
		goto out;
	prefix[0] = '\0';
	rc = hd_dir(&b, &ct, &ct.node[0], head, prefix, 0, 0, s->n);
	if (rc == 0 && s->renames && b.added > 0 && b.deleted > 0)
		rc = 1;		/* a rename is possible: libgit2 pairs them */
#ifdef SW_TESTING
	if (rc == 0)
		__atomic_add_fetch(&vcs__test_ct_diffs, 1, __ATOMIC_RELAXED);
#endif
	if (rc != 0)
		vcs__hdiff_release(&s->diff);
	if (rc == -1)
		rc = 1;
out:
	git_tree_free(head);
	sw_free(prefix);
	ctree_free(&ct);
	return rc;
}
