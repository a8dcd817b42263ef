#include "io/git/observe.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include <git2.h>
#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/json.h"

#define HEAD_UNBORN "unborn"

/* ---- status records ---------------------------------------------------- */

/* One dirty-path record before merging: the path observation keys. */
struct srec {
	char *path;
	const char *category;	/* static */
	char state[16];
	size_t seq;		/* canonical status order, for merging */
};

/* Where git's porcelain v2 prints a record: changed tracked entries, then
 * unmerged ones, then untracked paths, each group by path. */
enum line_group { LINE_TRACKED = 0, LINE_UNMERGED, LINE_UNTRACKED };

/* One canonical status line (spec: "status_fingerprint"). */
struct sline {
	enum line_group group;
	char *path;		/* borrowed from the line's text */
	char *text;		/* whole record, NUL terminated, len bytes + NUL */
	size_t len;
};

struct collect {
	struct srec *recs;
	size_t nrecs, caprecs;
	struct sline *lines;
	size_t nlines, caplines;
	int rootfd;		/* the worktree root, for git's special cases */
	int own_gitlinks;	/* gitlinks come from add_gitlinks, not libgit2 */
};

static int push_rec(struct collect *c, const char *path, const char *category,
		    const char *state)
{
	if (c->nrecs == c->caprecs) {
		size_t cap = c->caprecs ? c->caprecs * 2 : 64;
		struct srec *n = sw_realloc(c->recs, cap * sizeof(*n));

		if (n == NULL)
			return SW_ENOMEM;
		c->recs = n;
		c->caprecs = cap;
	}
	struct srec *r = &c->recs[c->nrecs];

	if ((r->path = sw_strdup(path)) == NULL)
		return SW_ENOMEM;
	r->category = category;
	snprintf(r->state, sizeof(r->state), "%s", state);
	/* Untracked records follow every tracked one in the status order. */
	r->seq = c->nrecs + (strcmp(category, "untracked") == 0 ? (SIZE_MAX >> 1) : 0);
	c->nrecs++;
	return 0;
}

/* Takes ownership of `text` (len bytes, path starting at text + path_off). */
static int push_line(struct collect *c, enum line_group group, char *text, size_t len,
		     size_t path_off)
{
	if (text == NULL)
		return SW_ENOMEM;
	if (c->nlines == c->caplines) {
		size_t cap = c->caplines ? c->caplines * 2 : 64;
		struct sline *n = sw_realloc(c->lines, cap * sizeof(*n));

		if (n == NULL) {
			sw_free(text);
			return SW_ENOMEM;
		}
		c->lines = n;
		c->caplines = cap;
	}
	c->lines[c->nlines].group = group;
	c->lines[c->nlines].text = text;
	c->lines[c->nlines].len = len;
	c->lines[c->nlines].path = text + path_off;
	c->nlines++;
	return 0;
}

static void collect_release(struct collect *c)
{
	for (size_t i = 0; i < c->nrecs; i++)
		sw_free(c->recs[i].path);
	for (size_t i = 0; i < c->nlines; i++)
		sw_free(c->lines[i].text);
	sw_free(c->recs);
	sw_free(c->lines);
}

static char index_letter(unsigned s)
{
	if (s & GIT_STATUS_INDEX_NEW)
		return 'A';
	if (s & GIT_STATUS_INDEX_DELETED)
		return 'D';
	if (s & GIT_STATUS_INDEX_RENAMED)
		return 'R';
	if (s & GIT_STATUS_INDEX_TYPECHANGE)
		return 'T';
	if (s & GIT_STATUS_INDEX_MODIFIED)
		return 'M';
	return '.';
}

static char worktree_letter(unsigned s)
{
	if (s & GIT_STATUS_WT_DELETED)
		return 'D';
	if (s & GIT_STATUS_WT_TYPECHANGE)
		return 'T';
	if (s & GIT_STATUS_WT_MODIFIED)
		return 'M';
	return '.';
}

static const char *sub_field(unsigned mode)
{
	return mode == GIT_FILEMODE_COMMIT ? "S..." : "N...";
}

/* Unmerged XY from which conflict stages exist (git's short codes). */
static const char *unmerged_xy(int anc, int ours, int theirs)
{
	if (anc && !ours && !theirs)
		return "DD";
	if (!anc && ours && !theirs)
		return "AU";
	if (anc && ours && !theirs)
		return "UD";
	if (!anc && !ours && theirs)
		return "UA";
	if (anc && !ours && theirs)
		return "DU";
	if (!anc && ours && theirs)
		return "AA";
	return "UU";
}

static int add_unmerged(struct collect *c, git_index *index, const char *path,
			const git_diff_delta *i2w)
{
	const git_index_entry *anc = NULL, *ours = NULL, *theirs = NULL;
	char h1[GIT_OID_HEXSZ + 1], h2[GIT_OID_HEXSZ + 1], h3[GIT_OID_HEXSZ + 1];
	git_oid zero;
	const char *xy;
	char *text;
	int n, rc;

	memset(&zero, 0, sizeof(zero));
	if (git_index_conflict_get(&anc, &ours, &theirs, index, path) < 0)
		anc = ours = theirs = NULL;
	xy = unmerged_xy(anc != NULL, ours != NULL, theirs != NULL);
	git_oid_tostr(h1, sizeof(h1), anc ? &anc->id : &zero);
	git_oid_tostr(h2, sizeof(h2), ours ? &ours->id : &zero);
	git_oid_tostr(h3, sizeof(h3), theirs ? &theirs->id : &zero);
	text = sw_asprintf("u %s N... %06o %06o %06o %06o %s %s %s %s", xy,
			   anc ? anc->mode : 0, ours ? ours->mode : 0,
			   theirs ? theirs->mode : 0,
			   i2w ? (unsigned)i2w->new_file.mode : 0u, h1, h2, h3, path);
	if (text == NULL)
		return SW_ENOMEM;
	n = (int)strlen(text);
	if ((rc = push_line(c, LINE_UNMERGED, text, (size_t)n, (size_t)n - strlen(path))) < 0)
		return rc;
	return push_rec(c, path, "unmerged", xy);
}

/* 1 when `path` (below the root, not followed) exists and is neither a
 * regular file, a symlink nor a directory. */
static int special_file(int rootfd, const char *path)
{
	struct stat st;

	if (fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	return !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Turns one libgit2 status entry into dirty-path records and canonical
 * status lines. */
/* One tracked status entry in neutral form: produced from a libgit2 status
 * entry or by the fast worktree scan. */
struct tent {
	const char *path;	/* the index path (destination of a rename) */
	const char *orig;	/* rename origin, else NULL */
	char x, y;		/* head-to-index and index-to-worktree letters */
	unsigned similarity;
	unsigned m_head, m_index, m_wt;
	const git_oid *h_head, *h_index;	/* NULL: zero id */
	const char *sub;	/* a gitlink's "S<C><M><U>", else NULL */
};

static int add_untracked(struct collect *c, const char *path)
{
	char *text = sw_asprintf("? %s", path);
	int rc;

	if ((rc = push_line(c, LINE_UNTRACKED, text, text ? strlen(text) : 0, 2)) < 0)
		return rc;
	return push_rec(c, path, "untracked", "??");
}

static int add_tracked(struct collect *c, const struct tent *t)
{
	char hh[GIT_OID_HEXSZ + 1], hi[GIT_OID_HEXSZ + 1], xy[3] = { t->x, t->y, '\0' };
	git_oid zero;
	char *text;
	int rc;

	if (t->x == '.' && t->y == '.')
		return 0;
	memset(&zero, 0, sizeof(zero));
	git_oid_tostr(hh, sizeof(hh), t->h_head ? t->h_head : &zero);
	git_oid_tostr(hi, sizeof(hi), t->h_index ? t->h_index : &zero);
	if (t->orig != NULL) {
		char score[8], state[16];
		size_t off;

		snprintf(score, sizeof(score), "R%u", t->similarity);
		text = sw_asprintf("2 %s %s %06o %06o %06o %s %s %s %s%c%s", xy,
				   t->sub ? t->sub : sub_field(t->m_index), t->m_head, t->m_index, t->m_wt,
				   hh, hi, score, t->path, '\x01', t->orig);
		if (text == NULL)
			return SW_ENOMEM;
		/* The record separates destination and origin by a NUL. */
		off = strlen(text) - strlen(t->orig) - 1;
		text[off] = '\0';
		if ((rc = push_line(c, LINE_TRACKED, text, off + 1 + strlen(t->orig),
				    off - strlen(t->path))) < 0)
			return rc;
		snprintf(state, sizeof(state), "%s %s", xy, score);
		if ((rc = push_rec(c, t->path, "rename", state)) < 0)
			return rc;
		return push_rec(c, t->orig, "rename_origin", state);
	}
	text = sw_asprintf("1 %s %s %06o %06o %06o %s %s %s", xy,
			   t->sub ? t->sub : sub_field(t->m_index ? t->m_index : t->m_head), t->m_head,
			   t->m_index, t->m_wt, hh, hi, t->path);
	if (text == NULL)
		return SW_ENOMEM;
	if ((rc = push_line(c, LINE_TRACKED, text, strlen(text), strlen(text) - strlen(t->path))) < 0)
		return rc;
	return push_rec(c, t->path, "ordinary", xy);
}

/* 1 when the index entry at `path` keeps git's skip-worktree bit: git then
 * never looks at the worktree for it (libgit2 still reports a missing file
 * deleted). */
static int skip_worktree(git_index *index, const char *path)
{
	const git_index_entry *e = path ? git_index_get_bypath(index, path, 0) : NULL;

	return e != NULL && (e->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE) != 0;
}

/* Boolean `key` as git reads it: $GIT_DIR/config.worktree first when
 * extensions.worktreeConfig is on (git sparse-checkout writes its settings
 * there; this libgit2 does not read that file), then the usual levels.
 * 0 when unset. */
static int config_flag(git_repository *repo, git_config *cfg, const char *key)
{
	git_config *wt = NULL;
	int on = 0, v;

	if (git_config_get_bool(&v, cfg, "extensions.worktreeConfig") == 0 && v) {
		char *path = sw_asprintf("%sconfig.worktree", git_repository_path(repo));
		struct stat st;

		if (path && stat(path, &st) == 0 && git_config_open_ondisk(&wt, path) == 0 &&
		    git_config_get_bool(&v, wt, key) == 0) {
			git_config_free(wt);
			sw_free(path);
			return v;
		}
		git_config_free(wt);
		sw_free(path);
	}
	if (git_config_get_bool(&v, cfg, key) == 0)
		on = v;
	return on;
}

/* In a sparse checkout (core.sparseCheckout, and not
 * sparse.expectFilesOutsideOfPatterns) git clears, in memory, the
 * skip-worktree bit of every entry whose path is present in the worktree,
 * so that such a file is compared like any other.  Does the same to the
 * loaded index (never written back). */
static void unskip_present_files(git_repository *repo, git_index *index, int rootfd)
{
	git_config *cfg = NULL;
	int sparse, expect;

	if (git_repository_config_snapshot(&cfg, repo) < 0)
		return;
	sparse = config_flag(repo, cfg, "core.sparseCheckout");
	expect = config_flag(repo, cfg, "sparse.expectFilesOutsideOfPatterns");
	git_config_free(cfg);
	if (!sparse || expect)
		return;
	for (size_t i = 0, n = git_index_entrycount(index); i < n; i++) {
		/* libgit2 hands entries out const; only this flag changes. */
		git_index_entry *e = (git_index_entry *)git_index_get_byindex(index, i);
		struct stat st;

		if ((e->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE) &&
		    fstatat(rootfd, e->path, &st, AT_SYMLINK_NOFOLLOW) == 0)
			e->flags_extended &= (uint16_t)~GIT_INDEX_ENTRY_SKIP_WORKTREE;
	}
}

/* A path added with intent (git add -N) is in the index with the empty
 * blob and a flag; libgit2 reports it added and modified.  git prints it
 * as added in the worktree only, with no HEAD or index mode and zero ids,
 * or, once the file is gone, deleted in the worktree against the index
 * entry as it stands. */
static void intent_to_add(git_index *index, struct tent *t)
{
	const git_index_entry *ie = index ? git_index_get_bypath(index, t->path, 0) : NULL;

	if (ie == NULL || !(ie->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD) || t->orig)
		return;
	t->x = '.';
	if (t->y == 'D') {
		t->m_head = t->m_index = ie->mode;
		t->m_wt = 0;
		t->h_head = t->h_index = &ie->id;
	} else {
		t->y = 'A';
		t->m_head = t->m_index = 0;
		t->h_head = t->h_index = NULL;
	}
}

/* Turns one libgit2 status entry into dirty-path records and canonical
 * status lines. */
static int add_entry(struct collect *c, git_index *index,
		     const git_status_entry *e)
{
	const git_diff_delta *h2i = e->head_to_index, *i2w = e->index_to_workdir;
	const git_diff_file *head, *idx;
	unsigned s = e->status;
	struct tent t = { 0 };
	int rc;

	if (s & GIT_STATUS_CONFLICTED)
		return add_unmerged(c, index, i2w ? i2w->old_file.path : h2i->old_file.path, i2w);
	if ((s & GIT_STATUS_WT_NEW) && i2w != NULL &&
	    (rc = add_untracked(c, i2w->new_file.path)) < 0)
		return rc;
	t.x = index_letter(s);
	t.y = worktree_letter(s);
	/* libgit2 reports a tracked file replaced by a FIFO, socket or device
	 * as deleted; git reports it modified, keeping the index mode. */
	if (t.y == 'D' && i2w != NULL && special_file(c->rootfd, i2w->old_file.path))
		t.y = 'M';
	if (t.y != '.' && i2w != NULL && skip_worktree(index, i2w->old_file.path))
		t.y = '.';
	if (t.x == '.' && t.y == '.')
		return 0;
	/* HEAD and index sides: from the head-to-index delta when the index
	 * changed, else both equal the index side of the workdir delta. */
	if (h2i != NULL) {
		head = &h2i->old_file;
		idx = &h2i->new_file;
	} else {
		head = idx = &i2w->old_file;
	}
	if (c->own_gitlinks && (head->mode == GIT_FILEMODE_COMMIT ||
				idx->mode == GIT_FILEMODE_COMMIT))
		return 0;	/* add_gitlinks records it */
	t.m_head = head->mode;
	t.m_index = idx->mode;
	t.m_wt = (i2w != NULL && t.y != '.' && i2w->new_file.mode != 0) ? i2w->new_file.mode :
		 (t.y == 'D' ? 0 : t.m_index);
	t.h_head = git_oid_is_zero(&head->id) ? NULL : &head->id;
	t.h_index = git_oid_is_zero(&idx->id) ? NULL : &idx->id;
	t.path = idx->path ? idx->path : head->path;
	if (t.x == 'R') {
		t.path = h2i->new_file.path;
		t.orig = h2i->old_file.path;
		t.similarity = h2i->similarity;
	}
	intent_to_add(index, &t);
	return add_tracked(c, &t);
}

/* ---- submodules -------------------------------------------------------- */

/* libgit2's status cannot tell a submodule's new commits from its modified or
 * untracked content (porcelain v2's "S<C><M><U>"), and loading the
 * submodule configuration leaks in this libgit2 (a regular-expression match
 * data on every miss).  The status therefore runs with submodules excluded
 * (only a gitlink deleted from the index is still reported) and every
 * gitlink of the index is recorded here, as git derives it: X from HEAD's
 * tree, Y and the state from the submodule's own repository. */

#define GITLINK_MAX_DEPTH 8

enum { DIRT_COMMITS = 1, DIRT_MODIFIED = 2, DIRT_UNTRACKED = 4 };

static int gitlink_worktree(char *y, unsigned *m_wt, int *dirt, git_repository *repo,
			    const git_index_entry *e, int depth);

/* X, mH and hH of gitlink entry `e` against `head` (NULL: unborn).  *te
 * receives the tree entry to free. */
static char gitlink_index_side(git_tree_entry **te, git_tree *head, const git_index_entry *e)
{
	*te = NULL;
	if (head == NULL || git_tree_entry_bypath(te, head, e->path) < 0)
		return 'A';
	if (git_tree_entry_filemode(*te) != GIT_FILEMODE_COMMIT)
		return 'T';
	return git_oid_equal(git_tree_entry_id(*te), &e->id) ? '.' : 'M';
}

/* The "modified" and "untracked" dirt of submodule repository `sr`, as git
 * reads it from the submodule's own porcelain v2 status: an untracked path,
 * or a nested submodule with untracked content, is untracked content; any
 * other tracked change is modified content, except the line of a nested
 * submodule whose only dirt is untracked content ("S..U"). */
static int submodule_dirt(git_repository *sr, int depth)
{
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	git_index *index = NULL;
	git_object *tree = NULL;
	int dirt = 0;

	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES |
		   GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
	if (git_status_list_new(&list, sr, &so) == 0) {
		for (size_t i = 0, n = git_status_list_entrycount(list); i < n; i++) {
			const git_status_entry *se = git_status_byindex(list, i);

			dirt |= se->status == GIT_STATUS_WT_NEW ? DIRT_UNTRACKED : DIRT_MODIFIED;
		}
		git_status_list_free(list);
	}
	if (git_repository_index(&index, sr) < 0)
		return dirt;
	if (git_revparse_single(&tree, sr, "HEAD^{tree}") < 0)
		tree = NULL;
	for (size_t i = 0, n = git_index_entrycount(index); i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		git_tree_entry *te = NULL;
		unsigned m_wt;
		char x, y;
		int sub = 0;

		if (e->mode != GIT_FILEMODE_COMMIT || GIT_INDEX_ENTRY_STAGE(e) != 0)
			continue;
		x = gitlink_index_side(&te, (git_tree *)tree, e);
		git_tree_entry_free(te);
		if (gitlink_worktree(&y, &m_wt, &sub, sr, e, depth + 1) < 0 ||
		    (x == '.' && y == '.'))
			continue;
		if (sub & DIRT_UNTRACKED)
			dirt |= DIRT_UNTRACKED;
		if (sub != DIRT_UNTRACKED)
			dirt |= DIRT_MODIFIED;
	}
	git_object_free(tree);
	git_index_free(index);
	return dirt;
}

/* Y, mW and the dirt of gitlink entry `e` of `repo`: a missing path is
 * deleted, another file type a type change, a directory without a
 * repository (not populated) unchanged.  SW_ENOMEM. */
static int gitlink_worktree(char *y, unsigned *m_wt, int *dirt, git_repository *repo,
			    const git_index_entry *e, int depth)
{
	const char *wd = git_repository_workdir(repo);
	char *path = sw_asprintf("%s%s", wd ? wd : "", e->path);
	git_repository *sr = NULL;
	struct stat st;
	git_oid head;

	*y = '.';
	*m_wt = GIT_FILEMODE_COMMIT;
	*dirt = 0;
	if (path == NULL)
		return SW_ENOMEM;
	if (lstat(path, &st) != 0) {
		*y = 'D';
		*m_wt = 0;
	} else if (!S_ISDIR(st.st_mode)) {
		*y = 'T';
		*m_wt = S_ISLNK(st.st_mode) ? GIT_FILEMODE_LINK :
			(st.st_mode & 0100) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	} else if (depth < GITLINK_MAX_DEPTH &&
		   git_repository_open_ext(&sr, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0) {
		if (git_reference_name_to_id(&head, sr, "HEAD") < 0 || !git_oid_equal(&head, &e->id))
			*dirt |= DIRT_COMMITS;
		*dirt |= submodule_dirt(sr, depth);
		git_repository_free(sr);
		if (*dirt)
			*y = 'M';
	}
	sw_free(path);
	return 0;
}

/* Whether the gitlinks are recorded here rather than by libgit2's status:
 * when the index has one, or HEAD has a .gitmodules (a gitlink may have
 * left the index). */
static int own_gitlinks(git_repository *repo, git_index *index, int unborn)
{
	git_object *obj = NULL;
	int own = 0;

	for (size_t i = 0, n = git_index_entrycount(index); i < n && !own; i++)
		own = git_index_get_byindex(index, i)->mode == GIT_FILEMODE_COMMIT;
	if (!own && !unborn && git_revparse_single(&obj, repo, "HEAD:.gitmodules") == 0)
		own = 1;
	git_object_free(obj);
	return own;
}

/* A gitlink HEAD has and the index lost: deleted, or the origin of an exact
 * rename (git pairs a lost and a new gitlink of one commit, by path order). */
struct lost_gitlink {
	const git_diff_file *f;
	int used;
};

/* Records every gitlink of HEAD or of the index (stage 0).  0 or
 * SW_ENOMEM. */
static int add_gitlinks(struct collect *c, git_repository *repo, git_index *index, int unborn,
			int renames)
{
	git_object *tree = NULL;
	git_diff *diff = NULL;
	struct lost_gitlink *lost = NULL;
	size_t nlost = 0;
	int rc = 0;

	if (!unborn && git_revparse_single(&tree, repo, "HEAD^{tree}") < 0)
		tree = NULL;
	if (tree && git_diff_tree_to_index(&diff, repo, (git_tree *)tree, index, NULL) == 0) {
		size_t nd = git_diff_num_deltas(diff);

		if (nd && (lost = sw_calloc(nd, sizeof(*lost))) == NULL)
			rc = SW_ENOMEM;
		for (size_t i = 0; i < nd && rc == 0; i++) {
			const git_diff_delta *d = git_diff_get_delta(diff, i);

			if (d->status == GIT_DELTA_DELETED && d->old_file.mode == GIT_FILEMODE_COMMIT)
				lost[nlost++].f = &d->old_file;
		}
	}
	for (size_t i = 0, n = git_index_entrycount(index); i < n && rc == 0; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		git_tree_entry *te = NULL;
		struct tent t = { 0 };
		char sub[5] = "S...";
		int dirt;

		if (e->mode != GIT_FILEMODE_COMMIT || GIT_INDEX_ENTRY_STAGE(e) != 0)
			continue;
		t.path = e->path;
		t.x = gitlink_index_side(&te, (git_tree *)tree, e);
		t.m_index = e->mode;
		t.h_index = &e->id;
		t.m_head = te ? git_tree_entry_filemode(te) : 0;
		t.h_head = te ? git_tree_entry_id(te) : NULL;
		for (size_t k = 0; renames && t.x == 'A' && k < nlost; k++)
			if (!lost[k].used && git_oid_equal(&lost[k].f->id, &e->id)) {
				lost[k].used = 1;
				t.x = 'R';
				t.orig = lost[k].f->path;
				t.similarity = 100;
				t.m_head = lost[k].f->mode;
				t.h_head = &lost[k].f->id;
			}
		if ((rc = gitlink_worktree(&t.y, &t.m_wt, &dirt, repo, e, 0)) == 0) {
			sub[1] = dirt & DIRT_COMMITS ? 'C' : '.';
			sub[2] = dirt & DIRT_MODIFIED ? 'M' : '.';
			sub[3] = dirt & DIRT_UNTRACKED ? 'U' : '.';
			t.sub = sub;
			rc = add_tracked(c, &t);
		}
		git_tree_entry_free(te);
	}
	for (size_t k = 0; k < nlost && rc == 0; k++) {
		struct tent t = { 0 };

		if (lost[k].used)
			continue;
		t.path = lost[k].f->path;
		t.x = 'D';
		t.y = '.';
		t.m_head = lost[k].f->mode;
		t.h_head = &lost[k].f->id;
		rc = add_tracked(c, &t);
	}
	sw_free(lost);
	git_diff_free(diff);
	git_object_free(tree);
	return rc;
}

static int cmp_line(const void *a, const void *b)
{
	const struct sline *x = a, *y = b;

	if (x->group != y->group)
		return (int)x->group - (int)y->group;
	return strcmp(x->path, y->path);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct srec *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* status.renames, else diff.renames; default on (git's default). */
static int renames_enabled(git_config *cfg)
{
	int v;

	if (cfg == NULL)
		return 1;
	if (git_config_get_bool(&v, cfg, "status.renames") == 0)
		return v;
	if (git_config_get_bool(&v, cfg, "diff.renames") == 0)
		return v;
	return 1;
}

/* ---- budget and clock -------------------------------------------------- */

struct budget {
	int64_t remaining, limit, hashed, deadline;
	vcs_clock_fn *clock;
	void *clock_ctx;
	int complete, byte_limit_exceeded, deadline_exceeded;
};

static int64_t mono_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int deadline_reached(struct budget *b)
{
	if (b->clock(b->clock_ctx) >= b->deadline) {
		b->complete = 0;
		b->deadline_exceeded = 1;
		return 1;
	}
	return 0;
}

static int reserve(struct budget *b, int64_t bytes)
{
	if (deadline_reached(b))
		return 0;
	if (bytes > b->remaining) {
		b->complete = 0;
		b->byte_limit_exceeded = 1;
		return 0;
	}
	b->remaining -= bytes;
	return 1;
}

/* ---- one path ---------------------------------------------------------- */

static void set_obs(struct vcs_path_obs *p, const char *obs)
{
	snprintf(p->observation, sizeof(p->observation), "%s", obs);
}

/* 1 while openat2(2) may be tried: cleared when the kernel lacks it. */
static int openat2_usable = 1;

/* Opens directory `rel` (relative, clean; "" is the root itself) below
 * `rootfd` without following any symlink on the way, with `flags`
 * (O_RDONLY or O_PATH) and O_DIRECTORY.  One openat2 with
 * RESOLVE_NO_SYMLINKS where the kernel has it (and `try2`), else
 * component by component with O_NOFOLLOW.  Returns the fd, or -1 with
 * errno set. */
static int open_below(int rootfd, const char *rel, int flags, int try2)
{
	char work[PATH_MAX], *p = work, *slash;
	size_t len = strlen(rel);
	int fd;

	flags |= O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	if (len == 0)
		return openat(rootfd, ".", flags);
#ifdef SYS_openat2
	if (try2 && __atomic_load_n(&openat2_usable, __ATOMIC_RELAXED)) {
		struct open_how how = { .flags = (uint64_t)flags,
					.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		long r = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));

		if (r >= 0)
			return (int)r;
		if (errno != ENOSYS && errno != EPERM && errno != EAGAIN)
			return -1;
		/* No openat2 here (ENOSYS), a filter refused it (EPERM: some
		 * container runtimes), or a rename raced a ".." (EAGAIN): walk
		 * the components instead. */
		if (errno == ENOSYS)
			__atomic_store_n(&openat2_usable, 0, __ATOMIC_RELAXED);
	}
#endif
	if (len >= sizeof(work)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(work, rel, len + 1);
	if ((fd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	for (;;) {
		int next, last;

		if ((slash = strchr(p, '/')) != NULL)
			*slash = '\0';
		last = slash == NULL;
		if (*p == '\0' && !last) {
			p = slash + 1;
			continue;
		}
		next = openat(fd, *p ? p : ".", last ? flags : O_PATH | O_DIRECTORY | O_NOFOLLOW |
						     O_CLOEXEC);
		if (next < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		close(fd);
		fd = next;
		if (last)
			return fd;
		p = slash + 1;
	}
}

/* Opens the directory holding `rel` below `rootfd` without following any
 * symlink; *base points into `work` (a writable copy of rel).  Returns the fd
 * or -1 with errno set. */
static int open_parent(int rootfd, char *work, const char **base, int try2)
{
	char *slash = strrchr(work, '/');
	int fd;

	if (slash == NULL) {
		*base = work;
		return openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	*slash = '\0';
	fd = open_below(rootfd, work, O_PATH, try2);
	*base = slash + 1;
	return fd;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int same_meta(const struct stat *a, const struct stat *b)
{
	return S_ISREG(a->st_mode) && S_ISREG(b->st_mode) && same_file(a, b) &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Sample offsets of an oversize file (adjacent duplicates dropped). */
static size_t sample_offsets(int64_t size, int64_t off[3])
{
	int64_t half = VCS_OBSERVE_SAMPLE_BYTES / 2, c[3];
	size_t n = 0;

	c[0] = 0;
	c[1] = size / 2 - half > 0 ? size / 2 - half : 0;
	c[2] = size - VCS_OBSERVE_SAMPLE_BYTES > 0 ? size - VCS_OBSERVE_SAMPLE_BYTES : 0;
	for (size_t i = 0; i < 3; i++)
		if (n == 0 || off[n - 1] != c[i])
			off[n++] = c[i];
	return n;
}

static int64_t sample_len(int64_t size, int64_t off)
{
	return size - off < VCS_OBSERVE_SAMPLE_BYTES ? size - off : VCS_OBSERVE_SAMPLE_BYTES;
}

/* Hashes `size` bytes from fd; 0, or -1 on a read error, short file or
 * deadline. */
static int hash_full(int fd, int64_t size, struct budget *b, unsigned char *buf,
		     char out[SW_DIGEST_LEN])
{
	struct sw_sha256 *h = NULL;
	int rc = -1;
	struct sw_error e = SW_ERROR_INIT;
	int64_t total = 0;

	if (sw_sha256_new(&h, &e) < 0)
		return -1;
	while (total < size) {
		size_t want = VCS_OBSERVE_SAMPLE_BYTES;
		ssize_t got;

		if (deadline_reached(b))
			goto out;
		if ((int64_t)want > size - total)
			want = (size_t)(size - total);
		got = read(fd, buf, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			goto out;
		b->hashed += got;
		sw_sha256_update(h, buf, (size_t)got);
		total += got;
	}
	sw_sha256_final_prefixed(h, out);
	h = NULL;
	rc = 0;
out:
	sw_sha256_free(h);
	return rc;
}

static int hash_samples(int fd, int64_t size, struct budget *b,
			unsigned char *buf, char out[SW_DIGEST_LEN])
{
	struct sw_sha256 *h = NULL;
	int rc = -1;
	struct sw_error e = SW_ERROR_INIT;
	int64_t off[3];
	size_t n = sample_offsets(size, off);
	char dec[32];

	if (sw_sha256_new(&h, &e) < 0)
		return -1;
	sw_sha256_section_str(h, "mode", "oversize_samples_v1");
	snprintf(dec, sizeof(dec), "%" PRId64, size);
	sw_sha256_section_str(h, "size", dec);
	for (size_t i = 0; i < n; i++) {
		int64_t len = sample_len(size, off[i]), got;

		if (deadline_reached(b))
			goto out;
		got = (int64_t)sw_pread_full(fd, buf, (size_t)len, (unsigned long long)off[i]);
		b->hashed += got;
		if (got != len)
			goto out;
		snprintf(dec, sizeof(dec), "%" PRId64, off[i]);
		sw_sha256_section_str(h, "offset", dec);
		sw_sha256_section(h, "sample", buf, (size_t)len);
	}
	sw_sha256_final_prefixed(h, out);
	h = NULL;
	rc = 0;
out:
	sw_sha256_free(h);
	return rc;
}

/* Fills the observation fields of `p` (path/category/state already set). */
static void observe_path(struct vcs_path_obs *p, int rootfd, struct budget *b,
			 int64_t full_max, unsigned char *buf, int try2)
{
	struct stat st, opened, final, current;
	char *work = sw_strdup(p->path);
	const char *base = NULL;
	int dirfd = -1, fd = -1, ok;
	size_t wl;

	if (work == NULL) {
		b->complete = 0;
		set_obs(p, "unreadable");
		return;
	}
	wl = strlen(work);
	while (wl > 1 && work[wl - 1] == '/')	/* "dir/" of a nested repository */
		work[--wl] = '\0';
	if ((dirfd = open_parent(rootfd, work, &base, try2)) < 0 ||
	    fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		b->complete = 0;
		set_obs(p, errno == ENOENT ? "missing" : "unreadable");
		goto out;
	}
	p->has_size = 1;
	p->size = st.st_size;
	if (S_ISLNK(st.st_mode)) {
		char *target = sw_malloc((size_t)st.st_size + 2);
		ssize_t n = target ? readlinkat(dirfd, base, target, (size_t)st.st_size + 1) : -1;

		if (n < 0 || n > st.st_size) {
			sw_free(target);
			b->complete = 0;
			set_obs(p, "unreadable");
			goto out;
		}
		set_obs(p, "symlink");
		p->size = n;
		sw_sha256_prefixed(target, (size_t)n, p->content_sha256);
		snprintf(p->content_kind, sizeof(p->content_kind), "symlink_target_sha256");
		sw_free(target);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		set_obs(p, "non_regular");
		goto out;
	}
	fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode) ||
	    !same_file(&st, &opened)) {
		b->complete = 0;
		set_obs(p, "unreadable");
		goto out;
	}
	{
		int over = opened.st_size > full_max;
		int64_t planned = opened.st_size;

		if (over) {
			int64_t off[3];
			size_t n = sample_offsets(opened.st_size, off);

			planned = 0;
			for (size_t i = 0; i < n; i++)
				planned += sample_len(opened.st_size, off[i]);
		}
		if (!reserve(b, planned)) {
			set_obs(p, "content_unobserved");
			ok = 0;
		} else if (over) {
			set_obs(p, "oversize_sampled");
			ok = hash_samples(fd, opened.st_size, b, buf, p->content_sha256);
			snprintf(p->content_kind, sizeof(p->content_kind), "oversize_samples_v1");
		} else {
			set_obs(p, "regular");
			ok = hash_full(fd, opened.st_size, b, buf, p->content_sha256);
			snprintf(p->content_kind, sizeof(p->content_kind), "full_sha256");
		}
	}
	if (ok != 0 || fstat(fd, &final) != 0 ||
	    fstatat(dirfd, base, &current, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !same_meta(&opened, &final) || !same_meta(&final, &current)) {
		b->complete = 0;
		set_obs(p, "unreadable");
		p->content_sha256[0] = '\0';
		p->content_kind[0] = '\0';
		goto out;
	}
	p->size = final.st_size;
	p->has_mtime = 1;
	p->modified_unix_nano = (int64_t)final.st_mtim.tv_sec * 1000000000LL +
				final.st_mtim.tv_nsec;
out:
	if (fd >= 0)
		close(fd);
	if (dirfd >= 0)
		close(dirfd);
	sw_free(work);
}

/* The path as the observation records it, once its file has been
 * observed by its bytes: a name that is not UTF-8 keeps its bytes in the
 * status records (status_fingerprint), and is recorded with each byte that
 * starts no valid sequence replaced by U+FFFD, which is what a decoder reads
 * back from the JSON (spec: "Names that are not UTF-8").  0 or SW_ENOMEM. */
static int record_path(struct vcs_path_obs *p)
{
	size_t n = strlen(p->path);
	char *lossy;

	if (sw_utf8_valid(p->path, n))
		return 0;
	if ((lossy = sw_utf8_lossy(p->path, n, NULL)) == NULL)
		return SW_ENOMEM;
	sw_free(p->path);
	p->path = lossy;
	return 0;
}

/* ---- fingerprints ------------------------------------------------------ */

static void section_i64(struct sw_sha256 *h, const char *name, int64_t v)
{
	char dec[32];

	snprintf(dec, sizeof(dec), "%" PRId64, v);
	sw_sha256_section_str(h, name, dec);
}

static void section_bool(struct sw_sha256 *h, const char *name, int v)
{
	sw_sha256_section_str(h, name, v ? "true" : "false");
}

static void hash_path_obs(struct sw_sha256 *h, const struct vcs_path_obs *p)
{
	sw_sha256_section_str(h, "path", p->path);
	sw_sha256_section_str(h, "category", p->category);
	sw_sha256_section_str(h, "state", p->state);
	sw_sha256_section_str(h, "observation", p->observation);
	if (p->has_size)
		section_i64(h, "size", p->size);
	else
		sw_sha256_section_str(h, "size", "unknown");
	if (p->has_mtime)
		section_i64(h, "modified_unix_nano", p->modified_unix_nano);
	else
		sw_sha256_section_str(h, "modified_unix_nano", "unknown");
	sw_sha256_section_str(h, "content_sha256", p->content_sha256);
	sw_sha256_section_str(h, "content_fingerprint_kind", p->content_kind);
}

static int64_t detail_cost(const struct vcs_path_obs *p)
{
	return 12 * (int64_t)strlen(p->path) +
	       6 * (int64_t)(strlen(p->category) + strlen(p->state) + strlen(p->observation)) +
	       (int64_t)strlen(p->content_sha256) + (int64_t)strlen(p->content_kind) + 320;
}

int vcs_observation_seal(struct vcs_observation *o, struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	int rc;

	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	section_i64(h, "version", o->version);
	sw_sha256_section_str(h, "head", o->head ? o->head : "");
	sw_sha256_section_str(h, "index_fingerprint", o->index_fingerprint);
	sw_sha256_section_str(h, "status_fingerprint", o->status_fingerprint);
	section_i64(h, "path_count", o->path_count);
	sw_sha256_section_str(h, "path_fingerprint", o->path_fingerprint);
	section_bool(h, "details_truncated", o->details_truncated);
	section_bool(h, "content_observation_complete", o->content_observation_complete);
	section_i64(h, "content_bytes_hashed", o->content_bytes_hashed);
	section_i64(h, "content_byte_limit", o->content_byte_limit);
	section_bool(h, "content_byte_limit_exceeded", o->content_byte_limit_exceeded);
	section_bool(h, "content_deadline_exceeded", o->content_deadline_exceeded);
	section_i64(h, "retained_path_count", (int64_t)o->retained);
	for (size_t i = 0; i < o->retained; i++)
		hash_path_obs(h, &o->paths[i]);
	sw_sha256_final_prefixed(h, o->snapshot_hash);
	return 0;
}

static int path_fingerprint_of(const struct vcs_observation *o,
			       char out[SW_DIGEST_LEN], struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	int rc;

	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	section_i64(h, "path_count", (int64_t)o->retained);
	for (size_t i = 0; i < o->retained; i++)
		hash_path_obs(h, &o->paths[i]);
	sw_sha256_final_prefixed(h, out);
	return 0;
}

/* ---- the index file, read directly ------------------------------------- */

/* libgit2 builds a full in-memory index (an allocation and a map insert per
 * entry) even to list it; the observation only needs the entries and the
 * cache-tree root, so it parses the file itself.  Versions 2-4 with SHA-1
 * ids are supported; a split or sparse index, or anything malformed, makes
 * the caller use libgit2's index instead.  As git does by default, the
 * trailing checksum is not verified.
 *
 * The file is mapped, not read: fresh anonymous memory costs a page fault
 * per page, which dominates reading a 50,000-entry index on a virtual
 * machine, while mapped page-cache pages come in one populating call.  Git
 * replaces the index by renaming a new file over it, so the mapped inode
 * never changes under us. */
struct rawindex {
	const unsigned char *buf;	/* the mapping, or NULL */
	size_t len;
	git_index_entry *ents;
	const git_index_entry **ptrs;
	size_t n;
	char *v4paths;
	int tree_valid;		/* the TREE extension's root is valid */
	git_oid tree;
	const unsigned char *tree_ext;	/* the whole TREE extension, or NULL */
	size_t tree_len;
	int64_t mtime;		/* index file mtime, seconds */
	struct stat st;		/* the file read */
};

/* Faults in a large fresh allocation with one call instead of a page fault
 * per page (about half the cost where faults are expensive).  Advisory: a
 * kernel without MADV_POPULATE_WRITE (before 5.14) just faults lazily. */
static void prefault(void *p, size_t n)
{
	const uintptr_t page = 4096;
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(page - 1);

	if (p != NULL && n >= (256u << 10) && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void rawindex_free(struct rawindex *ri)
{
	if (ri->buf != NULL)
		munmap((void *)ri->buf, ri->len);
	sw_free(ri->ents);
	sw_free(ri->ptrs);
	sw_free(ri->v4paths);
	memset(ri, 0, sizeof(*ri));
}

/* Parses the TREE extension's root entry. */
static void rawindex_tree(struct rawindex *ri, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len, *nl;
	long count;

	if (len < 1 || p[0] != '\0')
		return;
	p++;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (nl == NULL)
		return;
	count = strtol((const char *)p, NULL, 10);
	if (count < 0 || (size_t)(end - nl - 1) < GIT_OID_RAWSZ)
		return;
	git_oid_fromraw(&ri->tree, nl + 1);
	ri->tree_valid = 1;
}

/* 0 on success (a missing file is an empty index), 1 when unsupported or
 * malformed, SW_ENOMEM. */
static int rawindex_read(struct rawindex *ri, const char *path)
{
	struct stat st;
	size_t off = 12, v4len = 0, v4cap = 0;
	uint32_t version;
	void *map;
	int fd, rc = 1;

	memset(ri, 0, sizeof(*ri));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : 1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 32 ||
	    st.st_size > (1LL << 31)) {
		close(fd);
		return 1;
	}
	ri->mtime = (int64_t)st.st_mtim.tv_sec;
	ri->st = st;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 1;
	ri->buf = map;
	ri->len = (size_t)st.st_size;
	version = be32(ri->buf + 4);
	if (memcmp(ri->buf, "DIRC", 4) != 0 || version < 2 || version > 4)
		goto out;
	ri->n = be32(ri->buf + 8);
	if (ri->n > ri->len / 40)
		goto out;
	/* Not calloc: every field is set below, and a long-lived caller's
	 * heap would otherwise clear 3.6 MiB per 50,000 entries first. */
	if (ri->n && ((ri->ents = sw_malloc(ri->n * sizeof(*ri->ents))) == NULL ||
		      (ri->ptrs = sw_malloc(ri->n * sizeof(*ri->ptrs))) == NULL)) {
		rc = SW_ENOMEM;
		goto out;
	}
	prefault(ri->ents, ri->n * sizeof(*ri->ents));
	prefault(ri->ptrs, ri->n * sizeof(*ri->ptrs));
	if (version == 4) {
		v4cap = ri->len * 2 + 64;
		if ((ri->v4paths = sw_malloc(v4cap)) == NULL) {
			rc = SW_ENOMEM;
			goto out;
		}
	}
	{
		const char *prev = "";
		size_t prevlen = 0;
		size_t body = ri->len - GIT_OID_RAWSZ;

		for (size_t i = 0; i < ri->n; i++) {
			const unsigned char *p = ri->buf + off;
			git_index_entry *e = &ri->ents[i];
			size_t hdr = 62, plen;
			uint16_t flags;

			if (off + hdr > body)
				goto out;
			e->ctime.seconds = (int32_t)be32(p);
			e->ctime.nanoseconds = be32(p + 4);
			e->mtime.seconds = (int32_t)be32(p + 8);
			e->mtime.nanoseconds = be32(p + 12);
			e->dev = be32(p + 16);
			e->ino = be32(p + 20);
			e->mode = be32(p + 24);
			e->uid = be32(p + 28);
			e->gid = be32(p + 32);
			e->file_size = be32(p + 36);
			git_oid_fromraw(&e->id, p + 40);
			flags = (uint16_t)(p[60] << 8 | p[61]);
			e->flags = flags;
			e->flags_extended = 0;
			if (flags & 0x4000) {
				if (version < 3 || off + 64 > body)
					goto out;
				e->flags_extended = (uint16_t)(p[62] << 8 | p[63]);
				hdr = 64;
			}
			if (version == 4) {
				const unsigned char *q = p + hdr, *nul;
				size_t strip, sl;
				unsigned c = *q++;

				strip = c & 127;
				while (c & 128) {
					if (q >= ri->buf + body)
						goto out;
					c = *q++;
					strip = ((strip + 1) << 7) | (c & 127);
				}
				nul = memchr(q, '\0', (size_t)(ri->buf + body - q));
				if (nul == NULL || strip > prevlen)
					goto out;
				sl = (size_t)(nul - q);
				plen = prevlen - strip + sl;
				if (v4len + plen + 1 > v4cap)
					goto out;	/* cannot happen with the bound above */
				memcpy(ri->v4paths + v4len, prev, prevlen - strip);
				memcpy(ri->v4paths + v4len + prevlen - strip, q, sl);
				ri->v4paths[v4len + plen] = '\0';
				e->path = ri->v4paths + v4len;
				prev = e->path;
				prevlen = plen;
				v4len += plen + 1;
				off = (size_t)(nul + 1 - ri->buf);
			} else {
				const unsigned char *nul = memchr(p + hdr, '\0', body - off - hdr);

				if (nul == NULL)
					goto out;
				plen = (size_t)(nul - p - hdr);
				e->path = (const char *)p + hdr;
				off += (hdr + plen + 8) & ~(size_t)7;
			}
			if (plen == 0)
				goto out;
			ri->ptrs[i] = e;
		}
		/* Extensions: a split or sparse index is not handled here. */
		while (off + 8 <= body) {
			const unsigned char *p = ri->buf + off;
			size_t sz = be32(p + 4);

			if (sz > body - off - 8)
				goto out;
			if (memcmp(p, "link", 4) == 0 || memcmp(p, "sdir", 4) == 0)
				goto out;
			if (memcmp(p, "TREE", 4) == 0) {
				rawindex_tree(ri, p + 8, sz);
				ri->tree_ext = p + 8;
				ri->tree_len = sz;
			}
			off += 8 + sz;
		}
	}
	rc = 0;
out:
	if (rc != 0)
		rawindex_free(ri);
	return rc;
}

/* ---- index fingerprint ------------------------------------------------- */

/* sha256 over the ls-files --stage -z form of every index entry. */
static int index_fingerprint(const git_index_entry *const *ents, size_t n,
			     char out[SW_DIGEST_LEN], struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	char *buf = NULL;
	size_t cap = 1 << 16, used = 0;
	int rc;

	if ((buf = sw_malloc(cap)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate index buffer");
	if ((rc = sw_sha256_new(&h, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const git_index_entry *e = ents[i];
		size_t pl = strlen(e->path);
		char hex[GIT_OID_HEXSZ + 1];

		if (used + pl + 64 > cap) {
			sw_sha256_update(h, buf, used);
			used = 0;
			if (pl + 64 > cap) {
				char *nb = sw_realloc(buf, pl + 64);

				if (nb == NULL) {
					sw_sha256_free(h);
					rc = sw_error_set(err, SW_ENOMEM, "cannot allocate index buffer");
					goto out;
				}
				buf = nb;
				cap = pl + 64;
			}
		}
		if (e->mode <= 0777777) {
			/* "%06o %s %d\t" by hand: this runs once per entry. */
			char *o = buf + used;

			for (int k = 5; k >= 0; k--)
				*o++ = (char)('0' + ((e->mode >> (3 * k)) & 7));
			*o++ = ' ';
			git_oid_fmt(o, &e->id);
			o += GIT_OID_HEXSZ;
			*o++ = ' ';
			*o++ = (char)('0' + GIT_INDEX_ENTRY_STAGE(e));
			*o++ = '\t';
			used = (size_t)(o - buf);
		} else {
			git_oid_tostr(hex, sizeof(hex), &e->id);
			used += (size_t)snprintf(buf + used, cap - used, "%06o %s %d\t",
						 e->mode, hex, GIT_INDEX_ENTRY_STAGE(e));
		}
		memcpy(buf + used, e->path, pl + 1);	/* with the NUL */
		used += pl + 1;
	}
	sw_sha256_update(h, buf, used);
	sw_sha256_final_prefixed(h, out);
out:
	sw_free(buf);
	return rc;
}

/* ---- the observation --------------------------------------------------- */

static int git_fail(struct sw_error *err, const char *what)
{
	const git_error *e = git_error_last();

	return sw_error_set(err, SW_EGIT, "%s: %s", what,
			    e && e->message ? e->message : "libgit2 error");
}

/* ---- fast worktree scan ------------------------------------------------ */

/* libgit2's status lstats every path by its absolute name on one thread.
 * For a plain repository (no conflicts, gitlinks, intent-to-add or
 * skip-worktree entries; case-sensitive, trusted file modes and symlinks)
 * we compute the same index-to-worktree side ourselves: index entries are
 * lstat'ed relative to a cached parent directory by several threads while
 * one thread walks the tree for untracked files, then entries whose stat
 * data does not prove them clean are hashed with libgit2 (filters
 * applied).  Anything else falls back to git_status_list_new. */

struct pset {
	const char **slot;
	size_t *len;
	size_t mask;
};

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static int pset_init(struct pset *s, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap <<= 1;
	s->slot = sw_calloc(cap, sizeof(*s->slot));
	s->len = sw_calloc(cap, sizeof(*s->len));
	s->mask = cap - 1;
	return s->slot && s->len ? 0 : SW_ENOMEM;
}

static void pset_free(struct pset *s)
{
	sw_free(s->slot);
	sw_free(s->len);
}

/* Looks up (k, n); inserts it (borrowing k) when `add`.  1 when present. */
static int pset_probe(struct pset *s, const char *k, size_t n, int add)
{
	size_t i = (size_t)str_hash(k, n) & s->mask;

	while (s->slot[i] != NULL) {
		if (s->len[i] == n && memcmp(s->slot[i], k, n) == 0)
			return 1;
		i = (i + 1) & s->mask;
	}
	if (add) {
		s->slot[i] = k;
		s->len[i] = n;
	}
	return 0;
}

/* The head-to-index side as the scan consumes it: libgit2's deltas copied
 * out of the diff, so that they can outlive it (and be kept warm). */
struct hdelta {
	git_delta_t status;
	unsigned old_mode, similarity;
	git_oid old_id;
	char *old_path, *new_path;
};

struct hdiff {
	struct hdelta *d;
	size_t n;
};

static void hdiff_release(struct hdiff *h)
{
	for (size_t i = 0; i < h->n; i++) {
		sw_free(h->d[i].old_path);
		sw_free(h->d[i].new_path);
	}
	sw_free(h->d);
	h->d = NULL;
	h->n = 0;
}

/* Copies the deltas of `diff` into *h.  SW_ENOMEM. */
static int hdiff_from(struct hdiff *h, git_diff *diff)
{
	size_t n = git_diff_num_deltas(diff);

	h->n = 0;
	if (n == 0) {
		h->d = NULL;
		return 0;
	}
	if ((h->d = sw_calloc(n, sizeof(*h->d))) == NULL)
		return SW_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct hdelta *o = &h->d[h->n++];

		o->status = d->status;
		o->old_mode = d->old_file.mode;
		o->similarity = d->similarity;
		git_oid_cpy(&o->old_id, &d->old_file.id);
		if ((o->old_path = sw_strdup(d->old_file.path ? d->old_file.path : "")) == NULL ||
		    (o->new_path = sw_strdup(d->new_file.path ? d->new_file.path : "")) == NULL) {
			hdiff_release(h);
			return SW_ENOMEM;
		}
	}
	return 0;
}

/* One tracked directory of the worktree to visit: the index entries
 * [lo, hi) lie below it. */
struct dtask {
	char *rel;		/* its path, "" for the root (sw_malloc'd) */
	size_t rl, lo, hi;
};

struct scan {
	git_repository *repo;
	int rootfd;
	size_t n;
	const git_index_entry **ent;	/* borrowed */
	char *y;		/* per entry: '.', 'M', 'D', 'T', or 'c' (check) */
	unsigned *mwt;		/* per entry: worktree mode when y != '.' */
	int64_t index_mtime;	/* seconds; entries not older are racy */
	char **untracked;
	size_t nunt, capunt;
	int walk_rc;
	pthread_mutex_t mu;	/* guards the tasks, untracked and walk_rc */
	pthread_cond_t cv;	/* a task was pushed, or the last one ended */
	struct dtask *tasks;	/* tracked directories waiting for a visit */
	size_t ntasks, captasks;
	size_t busy;		/* directories being visited */
	int diff_taken;		/* the head-to-index diff has a thread */
	pthread_mutex_t gitmu;	/* serialises every libgit2 call on `repo` */
	/* While the diff holds `repo`, ignore lookups use a second handle on
	 * the same repository (opened on first use, guarded by ignmu);
	 * ign_shared sends them to `repo` instead. */
	pthread_mutex_t ignmu;
	git_repository *irepo;
	int ign_shared, irepo_failed;
	char *wd, *gd;		/* `repo`'s worktree and Git dir */
	git_index *index;	/* libgit2's, for the diff (NULL: the repository's) */
	int renames, unborn, need_diff, diff_rc;
	int reload_index;	/* the repository's index may be stale: read it */
	int openat2;		/* open_below may try openat2 */
	const git_oid *tree_id;	/* HEAD's tree, NULL when unborn */
	const unsigned char *tree_ext;	/* the index's TREE extension, or NULL */
	size_t tree_len;
	struct hdiff diff;	/* the head-to-index side, once computed */
	char diff_err[256];
};

static unsigned stat_mode(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return GIT_FILEMODE_LINK;
	return (st->st_mode & 0100) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
}

/* Classifies entry i from its lstat: git's ie_match_stat decisions,
 * erring towards 'c' (hash it) whenever stat data cannot prove the entry
 * clean. */
static void scan_classify(struct scan *s, size_t i, const struct stat *st)
{
	const git_index_entry *e = s->ent[i];
	int is_link = (e->mode & 0170000) == 0120000;

	s->mwt[i] = 0;
	if (S_ISDIR(st->st_mode)) {
		s->y[i] = 'D';
		return;
	}
	if (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode)) {
		s->y[i] = 'M';	/* git keeps the index mode for these */
		s->mwt[i] = e->mode;
		return;
	}
	s->mwt[i] = stat_mode(st);
	if (S_ISLNK(st->st_mode) != is_link) {
		s->y[i] = 'T';
		return;
	}
	if (!is_link && s->mwt[i] != e->mode) {
		s->y[i] = 'M';
		return;
	}
	if ((uint32_t)st->st_size != e->file_size && e->file_size != 0) {
		s->y[i] = 'M';
		return;
	}
	/* A git built without nanosecond support writes 0 there; then only
	 * the seconds can be compared, as git does. */
	if ((uint32_t)st->st_mtim.tv_sec != (uint32_t)e->mtime.seconds ||
	    (e->mtime.nanoseconds != 0 &&
	     (uint32_t)st->st_mtim.tv_nsec != e->mtime.nanoseconds) ||
	    (uint32_t)st->st_ctim.tv_sec != (uint32_t)e->ctime.seconds ||
	    (e->ctime.nanoseconds != 0 &&
	     (uint32_t)st->st_ctim.tv_nsec != e->ctime.nanoseconds) ||
	    (uint32_t)st->st_ino != e->ino || (uint32_t)st->st_dev != e->dev ||
	    st->st_uid != e->uid || st->st_gid != e->gid ||
	    (uint32_t)st->st_size != e->file_size ||
	    (int64_t)e->mtime.seconds >= s->index_mtime)
		s->y[i] = 'c';
	else
		s->y[i] = '.';
}

/* Called with s->mu held. */
static int scan_push_untracked_locked(struct scan *s, const char *path)
{
	if (s->nunt == s->capunt) {
		size_t cap = s->capunt ? s->capunt * 2 : 32;
		char **n = sw_realloc(s->untracked, cap * sizeof(*n));

		if (n == NULL)
			return SW_ENOMEM;
		s->untracked = n;
		s->capunt = cap;
	}
	if ((s->untracked[s->nunt] = sw_strdup(path)) == NULL)
		return SW_ENOMEM;
	s->nunt++;
	return 0;
}

static int scan_push_untracked(struct scan *s, const char *path)
{
	int rc;

	pthread_mutex_lock(&s->mu);
	rc = scan_push_untracked_locked(s, path);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

/* Queues a visit of tracked directory `rel` (rl bytes, taken over). */
static int scan_push_dir(struct scan *s, char *rel, size_t rl, size_t lo, size_t hi)
{
	int rc = 0;

	pthread_mutex_lock(&s->mu);
	if (s->ntasks == s->captasks) {
		size_t cap = s->captasks ? s->captasks * 2 : 64;
		struct dtask *n = sw_realloc(s->tasks, cap * sizeof(*n));

		if (n == NULL) {
			rc = SW_ENOMEM;
			goto out;
		}
		s->tasks = n;
		s->captasks = cap;
	}
	s->tasks[s->ntasks++] = (struct dtask){ rel, rl, lo, hi };
	rel = NULL;
	pthread_cond_signal(&s->cv);
out:
	pthread_mutex_unlock(&s->mu);
	sw_free(rel);
	return rc;
}

/* A second handle on the repository `s->repo` was opened on, or NULL
 * when it cannot be opened or is not the same worktree and Git dir. */
static git_repository *ignore_handle(const struct scan *s)
{
	git_repository *r = NULL;

	if (s->wd == NULL || s->gd == NULL ||
	    git_repository_open_ext(&r, s->wd, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return NULL;
	if (git_repository_workdir(r) == NULL || strcmp(git_repository_workdir(r), s->wd) != 0 ||
	    strcmp(git_repository_path(r), s->gd) != 0) {
		git_repository_free(r);
		r = NULL;
	}
	return r;
}

/* Ignore lookups run only for paths that are not tracked.  Beside the
 * diff they take their own handle: a lookup is short and the diff long,
 * and with 2,000 untracked files in tracked directories of a staged
 * 50,000-file worktree, waiting for it cost 10 to 25% of the scan. */
static int is_ignored(struct scan *s, const char *path)
{
	git_repository *repo = NULL;
	pthread_mutex_t *mu = &s->gitmu;
	int ign = 0;

	if (!s->ign_shared) {	/* set before the workers start */
		pthread_mutex_lock(&s->ignmu);
		if (s->irepo == NULL && !s->irepo_failed && (s->irepo = ignore_handle(s)) == NULL)
			s->irepo_failed = 1;
		if (s->irepo != NULL) {
			repo = s->irepo;
			mu = &s->ignmu;
		} else {
			pthread_mutex_unlock(&s->ignmu);
		}
	}
	if (repo == NULL) {
		pthread_mutex_lock(&s->gitmu);
		repo = s->repo;
	}
	if (git_ignore_path_is_ignored(&ign, repo, path) < 0)
		ign = 0;
	pthread_mutex_unlock(mu);
	return ign;
}

/* The index entries are sorted bytewise by path (scan_status checks it), so
 * the entries below a directory form one contiguous range and membership
 * is a binary search: no set is built and no memory is touched for it. */
static size_t ent_lower_bound(const struct scan *s, size_t lo, size_t hi, const char *key)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->ent[mid]->path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Narrows [*lo, *hi) to the entries below directory `rel` (rl bytes; the
 * buffer has room for two more).  The range is [rel "/", rel "0"): '0'
 * follows '/' in byte order. */
static void ent_dir_range(const struct scan *s, char *rel, size_t rl, size_t *lo, size_t *hi)
{
	rel[rl] = '/';
	rel[rl + 1] = '\0';
	*lo = ent_lower_bound(s, *lo, *hi, rel);
	rel[rl] = '0';
	*hi = ent_lower_bound(s, *lo, *hi, rel);
	rel[rl] = '\0';
}

static int ent_tracked(const struct scan *s, size_t lo, size_t hi, const char *path)
{
	size_t i = ent_lower_bound(s, lo, hi, path);

	return i < hi && strcmp(s->ent[i]->path, path) == 0;
}

#define DIRENT_BUF 32768

/* Lists directory `fd` (path `rel`, rl bytes, in a PATH_MAX buffer;
 * entries below it in [lo, hi)) for untracked files, as git status
 * --untracked-files=all lists them.  Tracked subdirectories are left to
 * their own visit; an untracked one is listed here, recursively.  Reads
 * the directory with getdents64 (a DIR stream costs an fstat and two
 * fcntl per directory). */
static int scan_list(struct scan *s, int fd, char *rel, size_t rl, size_t lo, size_t hi)
{
	char *buf = sw_malloc(DIRENT_BUF);
	ssize_t got = 0;
	int rc = 0;

	if (buf == NULL)
		return SW_ENOMEM;
	while (rc == 0 && (got = getdents64(fd, buf, DIRENT_BUF)) > 0) {
		for (ssize_t off = 0; rc == 0 && off < got;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);
			const char *name = de->d_name;
			size_t nl = strlen(name), fl = rl ? rl + 1 + nl : nl;
			unsigned char type = de->d_type;

			off += de->d_reclen;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
			    strcmp(name, ".git") == 0 || fl + 2 >= PATH_MAX)
				continue;
			if (rl) {
				rel[rl] = '/';
				memcpy(rel + rl + 1, name, nl + 1);
			} else {
				memcpy(rel, name, nl + 1);
			}
			if (type == DT_UNKNOWN) {
				struct stat st;

				if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
					continue;
				type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
				       S_ISLNK(st.st_mode) ? DT_LNK : DT_FIFO;
			}
			if (type == DT_DIR) {
				size_t clo = lo, chi = hi;
				int sub;

				ent_dir_range(s, rel, fl, &clo, &chi);
				if (clo < chi || is_ignored(s, rel))
					continue;	/* tracked: visited on its own */
				sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub < 0)
					continue;
				if (faccessat(sub, ".git", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
					/* a nested repository: listed as a directory */
					close(sub);
					rel[fl] = '/';
					rel[fl + 1] = '\0';
					rc = scan_push_untracked(s, rel);
					continue;
				}
				rc = scan_list(s, sub, rel, fl, clo, chi);
				close(sub);
			} else if (type == DT_REG || type == DT_LNK) {
				if (!ent_tracked(s, lo, hi, rel) && !is_ignored(s, rel))
					rc = scan_push_untracked(s, rel);
			}
		}
	}
	sw_free(buf);
	rel[rl] = '\0';
	return rc;
}

/* Visits tracked directory `t`: lists it for untracked files, lstats the
 * index entries directly in it through its descriptor and queues its
 * tracked subdirectories.  Every directory is opened once, by its path
 * below the root without following symlinks; an entry left unvisited
 * (its directory gone, replaced or a symlink) stays 'D'.  `rel` is the
 * worker's PATH_MAX buffer. */
static int scan_dir(struct scan *s, const struct dtask *t, char *rel)
{
	size_t pl = t->rl ? t->rl + 1 : 0;
	int fd, rc = 0;

	if (t->rl + 2 >= PATH_MAX)
		return 0;
	if ((fd = open_below(s->rootfd, t->rel, O_RDONLY, s->openat2)) >= 0) {
		memcpy(rel, t->rel, t->rl + 1);
		rc = scan_list(s, fd, rel, t->rl, t->lo, t->hi);
	} else if (errno != EACCES ||
		   (fd = open_below(s->rootfd, t->rel, O_PATH, s->openat2)) < 0) {
		return 0;	/* the lstats need only search permission */
	}
	for (size_t i = t->lo; rc == 0 && i < t->hi;) {
		const char *name = s->ent[i]->path + pl, *slash = strchr(name, '/');
		size_t cl, sl, j;
		char *sub;

		if (slash == NULL) {
			struct stat st;

			if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				scan_classify(s, i, &st);
			i++;
			continue;
		}
		/* A subdirectory: entries [i, j) are below it. */
		cl = (size_t)(slash - name);
		sl = pl + cl;
		if ((sub = sw_malloc(sl + 2)) == NULL) {
			rc = SW_ENOMEM;
			break;
		}
		memcpy(sub, s->ent[i]->path, sl);
		sub[sl] = '0';
		sub[sl + 1] = '\0';
		j = ent_lower_bound(s, i, t->hi, sub);
		sub[sl] = '\0';
		if ((cl == 1 && name[0] == '.') || (cl == 2 && name[0] == '.' && name[1] == '.') ||
		    cl == 0)
			sw_free(sub);	/* not a path git writes: left 'D' */
		else
			rc = scan_push_dir(s, sub, sl, i, j);
		i = j;
	}
	close(fd);
	return rc;
}

/* The head-to-index side, as status computes it (task 0).  libgit2's
 * error text is per thread, so it is copied for the caller. */
/* ---- the head-to-index side from the cache tree -------------------------- */

/* git keeps in the index's TREE extension, for each directory, the tree
 * its entries make when that is known ("valid").  A directory whose valid
 * tree is the one HEAD has there holds no change, so the head-to-index
 * diff only descends where the two differ, as git's own status does;
 * libgit2's diff reads every tree of HEAD and the whole index again.
 * Renames need libgit2's pairing: when the changes hold both an addition
 * and a deletion (and renames are on), its diff is used instead. */

#ifdef SW_TESTING
static unsigned test_ct_diffs;	/* head-to-index sides taken from the cache tree */
#endif

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
static int cache_tree_diff(struct scan *s)
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
		__atomic_add_fetch(&test_ct_diffs, 1, __ATOMIC_RELAXED);
#endif
	if (rc != 0)
		hdiff_release(&s->diff);
	if (rc == -1)
		rc = 1;
out:
	git_tree_free(head);
	sw_free(prefix);
	ctree_free(&ct);
	return rc;
}

static void scan_diff(struct scan *s)
{
	git_diff_options dopt = GIT_DIFF_OPTIONS_INIT;
	git_index *own = NULL, *index = s->index;
	git_tree *tree = NULL;
	git_diff *diff = NULL;
	const char *what = NULL;

	if (!s->need_diff)	/* the cache tree proved the index equals HEAD */
		return;
	pthread_mutex_lock(&s->gitmu);
	if ((s->diff_rc = cache_tree_diff(s)) <= 0) {
		if (s->diff_rc < 0)
			snprintf(s->diff_err, sizeof(s->diff_err), "cannot record the head-to-index diff");
		pthread_mutex_unlock(&s->gitmu);
		return;
	}
	s->diff_rc = 0;
	dopt.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
	/* libgit2's own index is loaded here, beside the scan, only when
	 * the diff is needed; a repository handle kept from an earlier
	 * observation reads it again. */
	if (index == NULL) {
		if (git_repository_index(&own, s->repo) < 0 ||
		    (s->reload_index && git_index_read(own, 1) < 0))
			what = "cannot read index";
		index = own;
	}
	if (what != NULL)
		goto out;
	if (s->tree_id != NULL && git_tree_lookup(&tree, s->repo, s->tree_id) < 0)
		what = "cannot read the HEAD tree";
	else if (git_diff_tree_to_index(&diff, s->repo, tree, index, &dopt) < 0)
		what = "cannot diff HEAD to index";
	if (what == NULL && s->renames) {
		git_diff_find_options fo = GIT_DIFF_FIND_OPTIONS_INIT;

		fo.flags = GIT_DIFF_FIND_FOR_UNTRACKED | GIT_DIFF_FIND_RENAMES;
		if (git_diff_find_similar(diff, &fo) < 0)
			what = "cannot detect renames";
	}
	if (what == NULL && hdiff_from(&s->diff, diff) < 0) {
		snprintf(s->diff_err, sizeof(s->diff_err), "cannot copy the head-to-index diff");
		s->diff_rc = SW_ENOMEM;
	}
out:
	if (what != NULL) {
		const git_error *e = git_error_last();

		snprintf(s->diff_err, sizeof(s->diff_err), "%s: %s", what,
			 e && e->message ? e->message : "libgit2 error");
		s->diff_rc = SW_EGIT;
	}
	git_diff_free(diff);
	git_tree_free(tree);
	git_index_free(own);
	pthread_mutex_unlock(&s->gitmu);
}

/* A worker: the head-to-index diff first when nobody has taken it, then
 * directory visits until none is queued and none is under way (a visit
 * queues the tracked subdirectories it finds). */
static void *scan_worker(void *arg)
{
	struct scan *s = arg;
	char *rel = sw_malloc(PATH_MAX);

	pthread_mutex_lock(&s->mu);
	if (rel == NULL)
		s->walk_rc = SW_ENOMEM;
	for (;;) {
		struct dtask t;
		int rc;

		if (!s->diff_taken) {
			s->diff_taken = 1;
			pthread_mutex_unlock(&s->mu);
			scan_diff(s);
			pthread_mutex_lock(&s->mu);
			continue;
		}
		if (s->ntasks == 0 || rel == NULL) {
			if (s->busy == 0 || rel == NULL)
				break;
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		t = s->tasks[--s->ntasks];
		s->busy++;
		pthread_mutex_unlock(&s->mu);
		rc = scan_dir(s, &t, rel);
		sw_free(t.rel);
		pthread_mutex_lock(&s->mu);
		if (rc < 0)
			s->walk_rc = rc;
		if (--s->busy == 0 && s->ntasks == 0)
			pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	sw_free(rel);
	return NULL;
}

/* 1 when the fast scan computes what git status would for this repository. */
static int scan_eligible(git_config *cfg, const git_index_entry *const *ents, size_t count)
{
	int v, ok = cfg != NULL;

	if (ok && ((git_config_get_bool(&v, cfg, "core.ignorecase") == 0 && v) ||
		   (git_config_get_bool(&v, cfg, "core.filemode") == 0 && !v) ||
		   (git_config_get_bool(&v, cfg, "core.symlinks") == 0 && !v)))
		ok = 0;
	for (size_t i = 0; ok && i < count; i++) {
		const git_index_entry *e = ents[i];

		if (GIT_INDEX_ENTRY_STAGE(e) != 0 || e->mode == GIT_FILEMODE_COMMIT ||
		    (e->flags_extended & GIT_INDEX_ENTRY_EXTENDED_FLAGS) != 0 ||
		    (e->mode != GIT_FILEMODE_BLOB && e->mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
		     e->mode != GIT_FILEMODE_LINK))
			ok = 0;
	}
	return ok;
}

static char delta_letter(git_delta_t st)
{
	switch (st) {
	case GIT_DELTA_ADDED: return 'A';
	case GIT_DELTA_DELETED: return 'D';
	case GIT_DELTA_MODIFIED: return 'M';
	case GIT_DELTA_RENAMED: return 'R';
	case GIT_DELTA_TYPECHANGE: return 'T';
	case GIT_DELTA_COPIED: return 'C';
	case GIT_DELTA_UNMODIFIED:
	case GIT_DELTA_IGNORED:
	case GIT_DELTA_UNTRACKED:
	case GIT_DELTA_UNREADABLE:
	case GIT_DELTA_CONFLICTED:
		break;
	}
	return '.';
}

/* Content check of entry i: hashes the worktree file as git would. */
static char scan_check(struct scan *s, size_t i)
{
	const git_index_entry *e = s->ent[i];
	git_oid oid;

	if ((e->mode & 0170000) == 0120000) {
		char target[PATH_MAX + 1];
		ssize_t n = readlinkat(s->rootfd, e->path, target, PATH_MAX);

		if (n < 0 || git_odb_hash(&oid, target, (size_t)n, GIT_OBJECT_BLOB) < 0)
			return 'D';
	} else if (git_repository_hashfile(&oid, s->repo, e->path, GIT_OBJECT_BLOB, NULL) < 0) {
		return 'D';
	}
	return git_oid_equal(&oid, &e->id) ? '.' : 'M';
}

/* What the fast scan works from. */
struct scan_in {
	git_repository *repo;
	git_index *index;		/* libgit2's, or NULL: the repository's */
	const git_index_entry **ents;	/* the index entries, in index order */
	size_t count;
	int64_t index_mtime;		/* seconds */
	int rootfd, renames, unborn, threads, openat2;
	int reload_index;		/* a kept repository: its index may be stale */
	const git_oid *tree_id;		/* HEAD's tree, NULL when unborn */
	const unsigned char *tree_ext;	/* the index's TREE extension, or NULL */
	size_t tree_len;
	/* The head-to-index side: `known` when it is known already (the
	 * index provably equals HEAD: no deltas), else computed with
	 * libgit2 and, when `keep` is not NULL, copied there. */
	const struct hdiff *known;
	struct hdiff *keep;
};

/* Fills `c` from the fast scan.  Returns 1 when not eligible (caller falls
 * back to libgit2's status), 0 on success, or a negative code. */
static int scan_status(struct collect *c, const struct scan_in *in, struct sw_error *err)
{
	struct scan s = { 0 };
	const struct hdiff *hd = in->known;
	struct pset byidx = { 0 };
	const struct hdelta **dl = NULL;
	const git_index_entry **ents = in->ents;
	int threads = in->threads, need_diff = in->known == NULL;
	pthread_t tid[8];
	int nt = 0, rc = 0;

	s.repo = in->repo;
	s.rootfd = in->rootfd;
	s.index = in->index;
	s.need_diff = need_diff;
	s.renames = in->renames;
	s.unborn = in->unborn;
	s.n = in->count;
	s.ent = ents;
	s.index_mtime = in->index_mtime;
	s.openat2 = in->openat2;
	s.reload_index = in->reload_index;
	s.tree_id = in->tree_id;
	s.tree_ext = in->tree_ext;
	s.tree_len = in->tree_len;
	/* The walk's binary searches need bytewise path order, which git
	 * writes; anything else is left to libgit2. */
	for (size_t i = 1; i < s.n; i++)
		if (strcmp(ents[i - 1]->path, ents[i]->path) > 0) {
			rc = 1;
			goto out;
		}
	/* An entry no visit reaches (its directory is gone, replaced or a
	 * symlink) is deleted. */
	if (s.n && ((s.y = sw_malloc(s.n)) == NULL ||
		    (s.mwt = sw_calloc(s.n, sizeof(*s.mwt))) == NULL)) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate scan");
		goto out;
	}
	if (s.n)
		memset(s.y, 'D', s.n);
	/* Threads: one takes the HEAD-to-index diff, the others (and it,
	 * once done) visit the directories.  Without a diff, two per CPU: a
	 * stat waits as often as it computes (on a cold inode, or a
	 * hypervisor), as git's own preload of the index assumes too;
	 * measured at 50,000 files on 2 CPUs: 96 ms with 2 threads, 91 with
	 * 4.  A diff is one long computation that more threads would only
	 * slow down (115 ms with 2, 110 to 155 with 4, staged at 50,000). */
	/* Below 1,024 tracked files the whole scan takes less than starting
	 * and joining a thread (stack mapping, wake-ups; a process on a busy
	 * machine waits for a CPU at each), so it stays on the caller's
	 * thread. */
	if (threads <= 0 && s.n < 1024) {
		threads = 1;
	} else if (threads <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		int per = need_diff ? 1 : 2;

		threads = cpus < 1 ? 1 : cpus > 8 / per ? 8 : per * (int)cpus;
	}
	if (threads > 8)
		threads = 8;
	s.diff_taken = !need_diff;
	/* The first task: the root. */
	if ((s.tasks = sw_malloc(64 * sizeof(*s.tasks))) == NULL ||
	    (s.tasks[0].rel = sw_strdup("")) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot scan worktree");
		goto out;
	}
	s.tasks[0].rl = s.tasks[0].lo = 0;
	s.tasks[0].hi = s.n;
	s.ntasks = 1;
	s.captasks = 64;
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	pthread_mutex_init(&s.gitmu, NULL);
	pthread_mutex_init(&s.ignmu, NULL);
	s.ign_shared = !(s.need_diff && threads > 1);
	if (!s.ign_shared) {
		s.wd = git_repository_workdir(s.repo) ? sw_strdup(git_repository_workdir(s.repo)) : NULL;
		s.gd = sw_strdup(git_repository_path(s.repo));
	}
	for (nt = 0; nt < threads - 1; nt++)
		if (pthread_create(&tid[nt], NULL, scan_worker, &s) != 0)
			break;
	scan_worker(&s);
	for (int i = 0; i < nt; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&s.mu);
	pthread_cond_destroy(&s.cv);
	pthread_mutex_destroy(&s.gitmu);
	pthread_mutex_destroy(&s.ignmu);
	git_repository_free(s.irepo);
	sw_free(s.wd);
	sw_free(s.gd);
	if (s.diff_rc < 0) {
		rc = sw_error_set(err, s.diff_rc, "%s", s.diff_err);
		goto out;
	}
	if (need_diff)
		hd = &s.diff;
	if ((rc = s.walk_rc) < 0) {
		rc = sw_error_set(err, rc, "cannot scan worktree");
		goto out;
	}
	for (size_t i = 0; i < s.n; i++)
		if (s.y[i] == 'c')
			s.y[i] = scan_check(&s, i);

	{
		size_t nd = hd ? hd->n : 0;

		if (pset_init(&byidx, nd) < 0 ||
		    (nd && (dl = sw_calloc(nd, sizeof(*dl))) == NULL)) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot allocate deltas");
			goto out;
		}
		for (size_t i = 0; i < nd; i++) {
			const struct hdelta *d = &hd->d[i];
			struct tent t = { 0 };

			if (d->status == GIT_DELTA_DELETED) {
				t.path = d->old_path;
				t.x = 'D';
				t.y = '.';
				t.m_head = d->old_mode;
				t.h_head = &d->old_id;
				if ((rc = add_tracked(c, &t)) < 0)
					goto out;
				continue;
			}
			dl[i] = d;
			pset_probe(&byidx, d->new_path, strlen(d->new_path), 1);
		}
		for (size_t i = 0; i < s.n; i++) {
			const git_index_entry *e = s.ent[i];
			const struct hdelta *d = NULL;
			struct tent t = { 0 };

			if (nd > 0 && pset_probe(&byidx, e->path, strlen(e->path), 0)) {
				/* few deltas: a linear search is fine */
				for (size_t k = 0; k < nd && d == NULL; k++)
					if (dl[k] && strcmp(dl[k]->new_path, e->path) == 0)
						d = dl[k];
			}
			if (d == NULL && s.y[i] == '.')
				continue;
			t.path = e->path;
			t.x = d ? delta_letter(d->status) : '.';
			t.y = s.y[i];
			t.m_index = e->mode;
			t.h_index = &e->id;
			t.m_head = d ? d->old_mode : e->mode;
			t.h_head = d ? (git_oid_is_zero(&d->old_id) ? NULL : &d->old_id) : &e->id;
			t.m_wt = t.y == '.' ? e->mode : t.y == 'D' ? 0 : s.mwt[i];
			if (d && d->status == GIT_DELTA_RENAMED) {
				t.orig = d->old_path;
				t.similarity = d->similarity;
			}
			if ((rc = add_tracked(c, &t)) < 0)
				goto out;
		}
	}
	for (size_t i = 0; i < s.nunt; i++)
		if ((rc = add_untracked(c, s.untracked[i])) < 0)
			goto out;
	if (need_diff && in->keep != NULL) {
		*in->keep = s.diff;
		memset(&s.diff, 0, sizeof(s.diff));
	}
	rc = 0;
out:
	if (rc == SW_ENOMEM)	/* add_* report allocation failure bare */
		sw_error_set(err, SW_ENOMEM, "cannot record status");
	for (size_t i = 0; i < s.nunt; i++)
		sw_free(s.untracked[i]);
	sw_free(s.untracked);
	for (size_t i = 0; i < s.ntasks; i++)	/* left by a failure */
		sw_free(s.tasks[i].rel);
	sw_free(s.tasks);
	sw_free(dl);
	pset_free(&byidx);
	hdiff_release(&s.diff);
	sw_free(s.y);
	sw_free(s.mwt);
	return rc;
}

/* The status records from libgit2's own status (the general path). */
static int libgit2_status(struct collect *c, git_repository *repo, git_index *index,
			  int renames, int unborn, struct sw_error *err)
{
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	int rc = 0;

	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
		   GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		   GIT_STATUS_OPT_SORT_CASE_SENSITIVELY |
		   GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
	if (renames)
		so.flags |= GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX;
	if ((c->own_gitlinks = own_gitlinks(repo, index, unborn)))
		so.flags |= GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&list, repo, &so) < 0)
		return git_fail(err, "cannot compute status");
	for (size_t i = 0, n = git_status_list_entrycount(list); i < n && rc == 0; i++)
		if (add_entry(c, index, git_status_byindex(list, i)) < 0)
			rc = sw_error_set(err, SW_ENOMEM, "cannot record status");
	git_status_list_free(list);
	if (rc == 0 && c->own_gitlinks && add_gitlinks(c, repo, index, unborn, renames) < 0)
		rc = sw_error_set(err, SW_ENOMEM, "cannot record submodule status");
	return rc;
}

/* Merges the category (or state) list of a path with one more record's:
 * the two strings as a set, sorted and comma-joined.  The left side may
 * already be a joined list; it is compared as one string (spec
 * "Dirty paths"). */
static char *merge_tokens(const char *left, const char *right)
{
	int c = strcmp(left, right);

	if (c == 0)
		return sw_strdup(left);
	return c < 0 ? sw_asprintf("%s,%s", left, right) : sw_asprintf("%s,%s", right, left);
}

/* ---- kept between observations (vcs_keep_warm) ------------------------ */

/* A long-lived process (slipway mcp) keeps what an observation built and
 * the next one can prove still current:
 *   - the repository handle, while the workspace names the same worktree,
 *     Git dir and common dir (libgit2 itself re-reads configuration, refs
 *     and ignore files whose stamp changed; its index is read again before
 *     every use; objects are immutable);
 *   - the parsed index and its fingerprint, while the index file is the
 *     one they were read from: same device, inode, size, modification and
 *     change times, and the same trailing checksum (git writes a new file
 *     and renames it over the old one, and any write changes the change
 *     time);
 *   - the head-to-index deltas, while HEAD's tree, that index and the
 *     rename setting are the ones they were computed for. */
static struct {
	int on;
	char *wd, *gd, *cd;	/* the workspace `repo` was opened for */
	git_repository *repo;
	int ri_ok;		/* `ri` and `fp` hold a current-when-read index */
	unsigned long ri_gen;	/* bumped whenever `ri` is read again */
	struct rawindex ri;
	char fp[SW_DIGEST_LEN];
	int diff_ok;		/* `diff` is for diff_tree, diff_gen, diff_renames */
	unsigned long diff_gen;
	git_oid diff_tree;
	int diff_renames, diff_unborn;
	struct hdiff diff;
	unsigned hits[3];	/* reuses of the handle, the index, the deltas */
} warm;

static void warm_drop(void)
{
	git_repository_free(warm.repo);
	sw_free(warm.wd);
	sw_free(warm.gd);
	sw_free(warm.cd);
	rawindex_free(&warm.ri);
	hdiff_release(&warm.diff);
	warm.repo = NULL;
	warm.wd = warm.gd = warm.cd = NULL;
	warm.ri_ok = warm.diff_ok = 0;
	warm.ri_gen++;
}

#ifdef SW_TESTING
void vcs_test_counts(unsigned out[4])
{
	memcpy(out, warm.hits, sizeof(warm.hits));
	out[3] = __atomic_load_n(&test_ct_diffs, __ATOMIC_RELAXED);
}
#endif

void vcs_keep_warm(int on)
{
	if (!on)
		warm_drop();
	warm.on = on;
}

/* The handle for workspace `ws`: the kept one when it was opened for the
 * very same paths (*kept = 1), else a new one, kept when keeping is on.
 * The caller frees it only when keeping is off.  0 or a libgit2 error. */
static int repo_for(git_repository **out, const struct vcs_identity *ws, int *kept)
{
	*kept = 0;
	if (warm.on && warm.repo != NULL && strcmp(warm.wd, ws->worktree_root) == 0 &&
	    strcmp(warm.gd, ws->git_dir) == 0 && strcmp(warm.cd, ws->git_common_dir) == 0) {
		*out = warm.repo;
		*kept = 1;
		warm.hits[0]++;
		return 0;
	}
	if (git_repository_open_ext(out, ws->worktree_root, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0)
		return -1;
	if (warm.on) {
		warm_drop();
		if ((warm.wd = sw_strdup(ws->worktree_root)) != NULL &&
		    (warm.gd = sw_strdup(ws->git_dir)) != NULL &&
		    (warm.cd = sw_strdup(ws->git_common_dir)) != NULL)
			warm.repo = *out;
		else
			warm_drop();
	}
	return 0;
}

/* 1 when the index file at `path` is still the one `ri` was read from:
 * same device, inode, size, modification and change times, and trailing
 * checksum. */
static int rawindex_current(const struct rawindex *ri, const char *path)
{
	const struct stat *was = &ri->st;
	unsigned char sum[GIT_OID_RAWSZ];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0 || ri->buf == NULL || ri->len < sizeof(sum)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	ok = fstat(fd, &st) == 0 && st.st_dev == was->st_dev && st.st_ino == was->st_ino &&
	     st.st_size == was->st_size &&
	     st.st_mtim.tv_sec == was->st_mtim.tv_sec && st.st_mtim.tv_nsec == was->st_mtim.tv_nsec &&
	     st.st_ctim.tv_sec == was->st_ctim.tv_sec && st.st_ctim.tv_nsec == was->st_ctim.tv_nsec &&
	     pread(fd, sum, sizeof(sum), st.st_size - (off_t)sizeof(sum)) == (ssize_t)sizeof(sum) &&
	     memcmp(sum, ri->buf + ri->len - sizeof(sum), sizeof(sum)) == 0;
	close(fd);
	return ok;
}

/* libgit2's index of `repo` (a new reference), read again from its file
 * when the handle was kept from an earlier observation (`kept`): the
 * loaded copy may be stale, or changed in memory by unskip_present_files. */
static int repo_index(git_index **out, git_repository *repo, int kept, struct sw_error *err)
{
	if (git_repository_index(out, repo) < 0 || (kept && git_index_read(*out, 1) < 0))
		return git_fail(err, "cannot read index");
	return 0;
}

/* The tree of commit `head`, as "HEAD^{tree}" peels it. */
static int head_tree(git_oid *out, git_repository *repo, const git_oid *head,
		     struct sw_error *err)
{
	git_object *obj = NULL, *tree = NULL;
	int rc = 0;

	if (git_object_lookup(&obj, repo, head, GIT_OBJECT_ANY) < 0 ||
	    git_object_peel(&tree, obj, GIT_OBJECT_TREE) < 0)
		rc = git_fail(err, "cannot read the HEAD tree");
	else
		git_oid_cpy(out, git_object_id(tree));
	git_object_free(tree);
	git_object_free(obj);
	return rc;
}

int vcs_observe(struct vcs_observation *out, const struct vcs_identity *ws,
		const struct vcs_observe_opts *opts, struct sw_error *err)
{
	struct vcs_observe_opts o = { 0 };
	struct collect c = { 0 };
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_config *cfg = NULL;
	struct sw_sha256 *ph = NULL;
	struct rawindex own_ri = { 0 }, *ri = &own_ri;
	struct hdiff kept_diff = { NULL, 0 };
	int renames, unborn, kept = 0, fresh_index = 0;
	struct budget b = { 0 };
	unsigned char *buf = NULL;
	int rootfd = -1, rc;
	int64_t detail = 0;
	git_oid head;
	size_t npaths = 0;

	*out = (struct vcs_observation)VCS_OBSERVATION_INIT;
	if (opts != NULL)
		o = *opts;
	if (o.byte_limit <= 0)
		o.byte_limit = VCS_OBSERVE_BYTE_LIMIT;
	if (o.full_hash_max <= 0)
		o.full_hash_max = VCS_OBSERVE_FULL_HASH_MAX;
	if (o.deadline_ns <= 0)
		o.deadline_ns = VCS_OBSERVE_DEADLINE_NS;
	if (o.detail_bytes == 0)
		o.detail_bytes = VCS_OBSERVE_DETAIL_BYTES;
	if (o.clock == NULL)
		o.clock = mono_ns;

	if ((rc = vcs__libgit2_init(err)) < 0)
		goto out;
	if (repo_for(&repo, ws, &kept) < 0) {
		rc = git_fail(err, "cannot open repository");
		goto out;
	}
	/* HEAD: the commit id, or "unborn" for a branch with no commit yet. */
	if (git_reference_name_to_id(&head, repo, "HEAD") == 0) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &head);
		out->head = sw_strdup(hex);
	} else if (git_repository_head_unborn(repo) == 1) {
		out->head = sw_strdup(HEAD_UNBORN);
	} else {
		rc = git_fail(err, "cannot resolve HEAD");
		goto out;
	}
	if (out->head == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate head");
		goto out;
	}
	/* The index: parsed directly when possible (or the one kept, while its
	 * file is unchanged), else through libgit2. */
	{
		char *ipath = sw_asprintf("%sindex", git_repository_path(repo));

		if (ipath != NULL && warm.on && warm.ri_ok && rawindex_current(&warm.ri, ipath)) {
			ri = &warm.ri;
			memcpy(out->index_fingerprint, warm.fp, sizeof(warm.fp));
			warm.hits[1]++;
			rc = 0;
		} else {
			if (warm.on) {
				warm.ri_ok = 0;
				warm.ri_gen++;
			}
			rc = ipath ? rawindex_read(ri, ipath) : SW_ENOMEM;
			fresh_index = rc == 0;
		}
		sw_free(ipath);
		if (rc < 0) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot read index");
			goto out;
		}
	}
	if (rc == 1) {
		if ((rc = repo_index(&index, repo, kept, err)) < 0)
			goto out;
		ri->n = git_index_entrycount(index);
		if (ri->n && (ri->ptrs = sw_calloc(ri->n, sizeof(*ri->ptrs))) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot read index");
			goto out;
		}
		for (size_t i = 0; i < ri->n; i++)
			ri->ptrs[i] = git_index_get_byindex(index, i);
		{
			struct stat ist;

			ri->mtime = stat(git_index_path(index), &ist) == 0 ?
				    (int64_t)ist.st_mtim.tv_sec : INT64_MAX;
		}
	}
	if (ri != &warm.ri &&
	    (rc = index_fingerprint(ri->ptrs, ri->n, out->index_fingerprint, err)) < 0)
		goto out;
	if (fresh_index && warm.on) {
		/* Kept for the next observation. */
		rawindex_free(&warm.ri);
		warm.ri = own_ri;
		memset(&own_ri, 0, sizeof(own_ri));
		ri = &warm.ri;
		memcpy(warm.fp, out->index_fingerprint, sizeof(warm.fp));
		warm.ri_ok = 1;
	}

	if ((rootfd = open(ws->worktree_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = sw_error_sys(err, errno, "cannot open worktree '%s'", ws->worktree_root);
		goto out;
	}
	c.rootfd = rootfd;
	if (git_repository_config_snapshot(&cfg, repo) < 0)
		cfg = NULL;
	renames = renames_enabled(cfg);
	unborn = strcmp(out->head, HEAD_UNBORN) == 0;
	rc = 1;
	if (!o.libgit2_status && scan_eligible(cfg, ri->ptrs, ri->n)) {
		static const struct hdiff none = { NULL, 0 };
		struct scan_in in = {
			.repo = repo, .index = index, .ents = ri->ptrs, .count = ri->n,
			.index_mtime = ri->mtime, .rootfd = rootfd, .renames = renames,
			.unborn = unborn, .threads = o.threads, .openat2 = !o.no_openat2,
			.reload_index = kept, .tree_ext = ri->tree_ext, .tree_len = ri->tree_len,
		};
		git_oid tree_id;

		if (!unborn && (rc = head_tree(&tree_id, repo, &head, err)) < 0)
			goto out;
		in.tree_id = unborn ? NULL : &tree_id;
		/* A valid cache-tree root equal to HEAD's tree proves that
		 * nothing is staged: the head-to-index diff can be skipped.
		 * With an unborn HEAD, an empty index is all of it. */
		if (unborn ? ri->n == 0 : ri->tree_valid && git_oid_equal(&tree_id, &ri->tree))
			in.known = &none;
		else if (ri == &warm.ri && warm.diff_ok && warm.diff_gen == warm.ri_gen &&
			 warm.diff_renames == renames && warm.diff_unborn == unborn &&
			 (unborn || git_oid_equal(&warm.diff_tree, &tree_id))) {
			in.known = &warm.diff;
			warm.hits[2]++;
		}
		else if (ri == &warm.ri && index == NULL)
			in.keep = &kept_diff;
		rc = scan_status(&c, &in, err);
		if (rc < 0)
			goto out;
		if (in.keep != NULL && rc == 0) {
			/* Kept for the next observation of this index and tree. */
			hdiff_release(&warm.diff);
			warm.diff = kept_diff;
			memset(&kept_diff, 0, sizeof(kept_diff));
			warm.diff_ok = 1;
			warm.diff_gen = warm.ri_gen;
			warm.diff_renames = renames;
			warm.diff_unborn = unborn;
			if (!unborn)
				git_oid_cpy(&warm.diff_tree, &tree_id);
		}
	}
	if (rc == 1) {
		if (index == NULL && (rc = repo_index(&index, repo, kept, err)) < 0)
			goto out;
		unskip_present_files(repo, index, rootfd);
		if ((rc = libgit2_status(&c, repo, index, renames, unborn, err)) < 0)
			goto out;
	}

	/* status_fingerprint: tracked, unmerged, then untracked records, each
	 * group by path, as git prints them. */
	if (c.nlines > 1)
		qsort(c.lines, c.nlines, sizeof(*c.lines), cmp_line);
	{
		struct sw_sha256 *sh = NULL;

		if ((rc = sw_sha256_new(&sh, err)) < 0)
			goto out;
		for (size_t i = 0; i < c.nlines; i++)
			sw_sha256_update(sh, c.lines[i].text, c.lines[i].len + 1);
		sw_sha256_final_prefixed(sh, out->status_fingerprint);
	}

	/* Dirty paths: merge duplicates, observe, fingerprint, retain. */
	if (c.nrecs > 1)
		qsort(c.recs, c.nrecs, sizeof(*c.recs), cmp_rec);
	if ((buf = sw_malloc(VCS_OBSERVE_SAMPLE_BYTES)) == NULL ||
	    (rc = sw_sha256_new(&ph, err)) < 0) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate observation");
		goto out;
	}
	b.remaining = b.limit = o.byte_limit;
	b.clock = o.clock;
	b.clock_ctx = o.clock_ctx;
	b.deadline = o.clock(o.clock_ctx) + o.deadline_ns;
	b.complete = 1;
	/* Pass 1: one entry per distinct path, records merged in order. */
	if (c.nrecs > 0 &&
	    (out->paths = sw_calloc(c.nrecs, sizeof(*out->paths))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate paths");
		goto out;
	}
	for (size_t i = 0; i < c.nrecs;) {
		struct vcs_path_obs *p = &out->paths[npaths++];
		size_t j = i + 1;

		p->path = c.recs[i].path;
		c.recs[i].path = NULL;
		p->category = sw_strdup(c.recs[i].category);
		p->state = sw_strdup(c.recs[i].state);
		for (; j < c.nrecs && strcmp(c.recs[j].path, p->path) == 0; j++) {
			char *cat = p->category ? merge_tokens(p->category, c.recs[j].category) : NULL;
			char *st = p->state ? merge_tokens(p->state, c.recs[j].state) : NULL;

			sw_free(p->category);
			sw_free(p->state);
			p->category = cat;
			p->state = st;
		}
		i = j;
		if (p->category == NULL || p->state == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot allocate path");
			goto out;
		}
	}
	/* Pass 2: observe every path; the fingerprint covers all of them, the
	 * details keep the prefix that fits the cost budget. */
	out->path_count = (int64_t)npaths;
	section_i64(ph, "path_count", out->path_count);
	for (size_t i = 0; i < npaths; i++) {
		struct vcs_path_obs *p = &out->paths[i];

		observe_path(p, rootfd, &b, o.full_hash_max, buf, !o.no_openat2);
		if (record_path(p) < 0) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot allocate path");
			goto out;
		}
		hash_path_obs(ph, p);
		/* The details are a prefix sorted and unique as recorded: a
		 * name recorded with U+FFFD that no longer sorts after the one
		 * before it ends them, as the cost budget does. */
		if (!out->details_truncated &&
		    detail + detail_cost(p) <= (int64_t)o.detail_bytes &&
		    (i == 0 || strcmp(out->paths[i - 1].path, p->path) < 0)) {
			detail += detail_cost(p);
			out->retained++;
		} else {
			out->details_truncated = 1;
		}
	}
	sw_sha256_final_prefixed(ph, out->path_fingerprint);
	ph = NULL;
	/* Drop the details past the retained prefix. */
	for (size_t i = out->retained; i < npaths; i++) {
		sw_free(out->paths[i].path);
		sw_free(out->paths[i].category);
		sw_free(out->paths[i].state);
	}
	npaths = out->retained;
	out->content_observation_complete = b.complete;
	out->content_bytes_hashed = b.hashed;
	out->content_byte_limit = b.limit;
	out->content_byte_limit_exceeded = b.byte_limit_exceeded;
	out->content_deadline_exceeded = b.deadline_exceeded;
	rc = vcs_observation_seal(out, err);
out:
	/* On failure, count the partly built entries so release frees them. */
	if (rc < 0 && out->paths != NULL && out->retained < npaths)
		out->retained = npaths;
	sw_sha256_free(ph);
	sw_free(buf);
	if (rootfd >= 0)
		close(rootfd);
	git_index_free(index);
	git_config_free(cfg);
	if (ri != &warm.ri)
		rawindex_free(ri);
	hdiff_release(&kept_diff);
	if (repo != warm.repo)
		git_repository_free(repo);
	else if (rc < 0 && repo != NULL)
		warm_drop();	/* a kept handle that failed: start afresh */
	collect_release(&c);
	if (rc < 0)
		vcs_observation_release(out);
	return rc;
}

/* ---- validation, comparison, lifetime ---------------------------------- */

static const char *const observation_names[] = {
	"regular", "symlink", "oversize_sampled", "content_unobserved",
	"missing", "non_regular", "unreadable",
};

static int known_observation(const char *s)
{
	for (size_t i = 0; i < sizeof(observation_names) / sizeof(*observation_names); i++)
		if (strcmp(s, observation_names[i]) == 0)
			return 1;
	return 0;
}

static int valid_text(const char *s)
{
	return s != NULL && *s != '\0' && sw_utf8_valid(s, strlen(s));
}

/* Relative to the worktree: not absolute, not "..", not under "../". */
static int valid_rel_path(const char *s)
{
	return valid_text(s) && s[0] != '/' && strcmp(s, "..") != 0 &&
	       strncmp(s, "../", 3) != 0;
}

static int check_path_obs(const struct vcs_path_obs *p, struct sw_error *err)
{
	const char *o = p->observation;
	int has_sha = p->content_sha256[0] != '\0', has_kind = p->content_kind[0] != '\0';

	if (!valid_text(p->category) || !valid_text(p->state))
		return sw_error_set(err, SW_EINVAL,
				    "path observation '%s' requires valid category and state", p->path);
	if (has_sha && !sw_digest_valid(p->content_sha256))
		return sw_error_set(err, SW_EINVAL,
				    "path observation '%s' has a malformed content digest", p->path);
	if (strcmp(o, "regular") == 0 || strcmp(o, "oversize_sampled") == 0 ||
	    strcmp(o, "symlink") == 0) {
		const char *kind = o[0] == 'r' ? "full_sha256" :
				   o[0] == 'o' ? "oversize_samples_v1" : "symlink_target_sha256";

		if (!has_sha || strcmp(p->content_kind, kind) != 0)
			return sw_error_set(err, SW_EINVAL,
					    "path observation '%s' requires a %s digest", p->path, kind);
		if (o[0] != 's' && !p->has_mtime)
			return sw_error_set(err, SW_EINVAL,
					    "path observation '%s' requires modification metadata", p->path);
	} else if (known_observation(o)) {
		if (has_sha || has_kind)
			return sw_error_set(err, SW_EINVAL,
					    "path observation '%s' cannot keep a content digest for %s",
					    p->path, o);
	} else {
		return sw_error_set(err, SW_EINVAL,
				    "path observation '%s' has unsupported observation '%s'", p->path, o);
	}
	if (p->has_size && p->size < 0)
		return sw_error_set(err, SW_EINVAL, "path observation '%s' has negative size", p->path);
	return 0;
}

int vcs_observation_validate(const struct vcs_observation *o,
			     struct sw_error *err)
{
	char expect[SW_DIGEST_LEN];
	struct vcs_observation copy;
	int rc;

	if (o->version != 1)
		return sw_error_set(err, SW_EINVAL, "git observation version must be 1");
	if (!valid_text(o->head))
		return sw_error_set(err, SW_EINVAL, "git observation head must be nonempty UTF-8");
	if (!sw_digest_valid(o->index_fingerprint) || !sw_digest_valid(o->status_fingerprint) ||
	    !sw_digest_valid(o->path_fingerprint) || !sw_digest_valid(o->snapshot_hash))
		return sw_error_set(err, SW_EINVAL, "git observation digests must be lowercase sha256");
	if (o->path_count < 0 || o->content_byte_limit <= 0 ||
	    o->content_bytes_hashed < 0 || o->content_bytes_hashed > o->content_byte_limit)
		return sw_error_set(err, SW_EINVAL, "git observation counters out of range");
	if (o->content_observation_complete &&
	    (o->content_byte_limit_exceeded || o->content_deadline_exceeded))
		return sw_error_set(err, SW_EINVAL,
				    "complete git content observation cannot report a budget limit");
	if ((int64_t)o->retained > o->path_count)
		return sw_error_set(err, SW_EINVAL,
				    "git observation path_count cannot be smaller than retained details");
	if (!o->details_truncated != (o->path_count == (int64_t)o->retained))
		return sw_error_set(err, SW_EINVAL,
				    "git observation details_truncated must state whether details were omitted");
	for (size_t i = 0; i < o->retained; i++) {
		const struct vcs_path_obs *p = &o->paths[i];

		if (!valid_rel_path(p->path))
			return sw_error_set(err, SW_EINVAL,
					    "dirty_files[%zu] must be a relative UTF-8 path", i);
		if (i > 0 && strcmp(o->paths[i - 1].path, p->path) >= 0)
			return sw_error_set(err, SW_EINVAL,
					    "git observation dirty files must be sorted and unique");
		if ((rc = check_path_obs(p, err)) < 0)
			return rc;
	}
	if (!o->details_truncated) {
		if ((rc = path_fingerprint_of(o, expect, err)) < 0)
			return rc;
		if (strcmp(expect, o->path_fingerprint) != 0)
			return sw_error_set(err, SW_EINVAL,
					    "git observation path_fingerprint does not match path details");
	}
	copy = *o;
	if ((rc = vcs_observation_seal(&copy, err)) < 0)
		return rc;
	if (strcmp(copy.snapshot_hash, o->snapshot_hash) != 0)
		return sw_error_set(err, SW_EINVAL,
				    "git observation snapshot_hash does not match its fields");
	return 0;
}

/* Observations that say something definite about the content. */
static int concrete(const char *obs)
{
	return strcmp(obs, "content_unobserved") != 0 && strcmp(obs, "unreadable") != 0;
}

static int path_changed(const struct vcs_path_obs *now, const struct vcs_path_obs *was)
{
	if (strcmp(now->category, was->category) != 0 || strcmp(now->state, was->state) != 0)
		return 1;
	if (now->content_sha256[0] && was->content_sha256[0])
		return strcmp(now->content_sha256, was->content_sha256) != 0 ||
		       strcmp(now->content_kind, was->content_kind) != 0;
	if (now->has_size && was->has_size && now->size != was->size)
		return 1;
	return concrete(now->observation) && concrete(was->observation) &&
	       strcmp(now->observation, was->observation) != 0;
}

static const struct vcs_path_obs *find_path(const struct vcs_observation *o,
					    const char *path)
{
	size_t lo = 0, hi = o->retained;

	/* Retained details are sorted bytewise (validated on decode). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(o->paths[mid].path, path);

		if (c == 0)
			return &o->paths[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int vcs_observation_changed_from(const struct vcs_observation *now,
				 const struct vcs_observation *start)
{
	if (strcmp(now->snapshot_hash, start->snapshot_hash) == 0)
		return 0;
	if (now->content_observation_complete && start->content_observation_complete)
		return 1;
	if (strcmp(now->head, start->head) != 0 ||
	    strcmp(now->index_fingerprint, start->index_fingerprint) != 0 ||
	    strcmp(now->status_fingerprint, start->status_fingerprint) != 0)
		return 1;
	for (size_t i = 0; i < now->retained; i++) {
		const struct vcs_path_obs *was = find_path(start, now->paths[i].path);

		if (was != NULL && path_changed(&now->paths[i], was))
			return 1;
	}
	return 0;
}

void vcs_observation_release(struct vcs_observation *o)
{
	if (o == NULL)
		return;
	for (size_t i = 0; i < o->retained; i++) {
		sw_free(o->paths[i].path);
		sw_free(o->paths[i].category);
		sw_free(o->paths[i].state);
	}
	sw_free(o->paths);
	sw_free(o->head);
	*o = (struct vcs_observation)VCS_OBSERVATION_INIT;
}

int vcs_observation_copy(struct vcs_observation *dst,
			 const struct vcs_observation *src,
			 struct sw_error *err)
{
	int rc = SW_ENOMEM;

	*dst = *src;
	dst->head = NULL;
	dst->paths = NULL;
	dst->retained = 0;
	if ((dst->head = sw_strdup(src->head)) == NULL)
		goto out;
	if (src->retained > 0 &&
	    (dst->paths = sw_calloc(src->retained, sizeof(*dst->paths))) == NULL)
		goto out;
	for (size_t i = 0; i < src->retained; i++) {
		struct vcs_path_obs *d = &dst->paths[i];

		*d = src->paths[i];
		d->path = sw_strdup(src->paths[i].path);
		d->category = sw_strdup(src->paths[i].category);
		d->state = sw_strdup(src->paths[i].state);
		dst->retained++;
		if (!d->path || !d->category || !d->state)
			goto out;
	}
	rc = 0;
out:
	if (rc < 0) {
		vcs_observation_release(dst);
		sw_error_set(err, SW_ENOMEM, "cannot copy git observation");
	}
	return rc;
}

/* ---- JSON -------------------------------------------------------------- */

static json_t *path_obs_json(const struct vcs_path_obs *p)
{
	json_t *o = json_object();

	if (o == NULL ||
	    json_object_set_new(o, "path", json_string(p->path)) < 0 ||
	    json_object_set_new(o, "category", json_string(p->category)) < 0 ||
	    json_object_set_new(o, "state", json_string(p->state)) < 0 ||
	    json_object_set_new(o, "observation", json_string(p->observation)) < 0 ||
	    (p->has_size && json_object_set_new(o, "size", json_integer(p->size)) < 0) ||
	    (p->has_mtime &&
	     json_object_set_new(o, "modified_unix_nano", json_integer(p->modified_unix_nano)) < 0) ||
	    (p->content_sha256[0] &&
	     json_object_set_new(o, "content_sha256", json_string(p->content_sha256)) < 0) ||
	    (p->content_kind[0] &&
	     json_object_set_new(o, "content_fingerprint_kind", json_string(p->content_kind)) < 0)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

struct json_t *vcs_observation_to_json(const struct vcs_observation *o)
{
	json_t *j = json_object(), *files = json_array(), *paths = json_array();
	json_t *result = NULL;

	if (j == NULL || files == NULL || paths == NULL)
		goto out;
	for (size_t i = 0; i < o->retained; i++) {
		if (json_array_append_new(files, json_string(o->paths[i].path)) < 0 ||
		    json_array_append_new(paths, path_obs_json(&o->paths[i])) < 0)
			goto out;
	}
	if (json_object_set_new(j, "version", json_integer(o->version)) < 0 ||
	    json_object_set_new(j, "head", json_string(o->head)) < 0 ||
	    json_object_set_new(j, "index_fingerprint", json_string(o->index_fingerprint)) < 0 ||
	    json_object_set_new(j, "status_fingerprint", json_string(o->status_fingerprint)) < 0 ||
	    json_object_set_new(j, "snapshot_hash", json_string(o->snapshot_hash)) < 0 ||
	    json_object_set_new(j, "path_count", json_integer(o->path_count)) < 0 ||
	    json_object_set_new(j, "path_fingerprint", json_string(o->path_fingerprint)) < 0 ||
	    json_object_set_new(j, "details_truncated", json_boolean(o->details_truncated)) < 0 ||
	    json_object_set_new(j, "content_observation_complete",
				json_boolean(o->content_observation_complete)) < 0 ||
	    json_object_set_new(j, "content_bytes_hashed", json_integer(o->content_bytes_hashed)) < 0 ||
	    json_object_set_new(j, "content_byte_limit", json_integer(o->content_byte_limit)) < 0 ||
	    json_object_set_new(j, "content_byte_limit_exceeded",
				json_boolean(o->content_byte_limit_exceeded)) < 0 ||
	    json_object_set_new(j, "content_deadline_exceeded",
				json_boolean(o->content_deadline_exceeded)) < 0)
		goto out;
	if (json_object_set_new(j, "dirty_files", files) < 0) {
		files = NULL;
		goto out;
	}
	files = NULL;
	if (json_object_set_new(j, "path_observations", paths) < 0) {
		paths = NULL;
		goto out;
	}
	paths = NULL;
	result = j;
	j = NULL;
out:
	json_decref(files);
	json_decref(paths);
	json_decref(j);
	return result;
}

static int get_digest(char out[SW_DIGEST_LEN], const json_t *o, const char *key,
		      struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= SW_DIGEST_LEN)
		return sw_error_set(err, json_is_string(v) ? SW_EINVAL : SW_EPARSE,
				    "git observation %s must be a sha256 digest string", key);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int get_bool(int *out, const json_t *o, const char *key, struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return sw_error_set(err, SW_EPARSE, "git observation %s must be a boolean", key);
	*out = json_is_true(v);
	return 0;
}

static int get_int(int64_t *out, const json_t *o, const char *key, struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		return sw_error_set(err, SW_EPARSE, "git observation %s must be an integer", key);
	*out = json_integer_value(v);
	return 0;
}

static int dup_string(char **out, const json_t *o, const char *key, struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return sw_error_set(err, SW_EPARSE, "%s must be a string", key);
	if (strlen(json_string_value(v)) != json_string_length(v))
		return sw_error_set(err, SW_EINVAL, "%s must not contain NUL", key);
	if ((*out = sw_strdup(json_string_value(v))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate %s", key);
	return 0;
}

static int path_obs_from_json(struct vcs_path_obs *p, const json_t *v,
			      struct sw_error *err)
{
	static const char *const keys[] = {
		"path", "category", "state", "observation", "size",
		"modified_unix_nano", "content_sha256", "content_fingerprint_kind",
	};
	const char *key;
	json_t *val;
	int rc;

	if (!json_is_object(v))
		return sw_error_set(err, SW_EPARSE, "path observation must be an object");
	json_object_foreach((json_t *)v, key, val) {
		size_t k = 0;

		while (k < sizeof(keys) / sizeof(*keys) && strcmp(keys[k], key) != 0)
			k++;
		if (k == sizeof(keys) / sizeof(*keys))
			return sw_error_set(err, SW_EPARSE, "path observation has unknown key '%s'", key);
	}
	if ((rc = dup_string(&p->path, v, "path", err)) < 0 ||
	    (rc = dup_string(&p->category, v, "category", err)) < 0 ||
	    (rc = dup_string(&p->state, v, "state", err)) < 0)
		return rc;
	val = json_object_get(v, "observation");
	if (!json_is_string(val) || json_string_length(val) >= sizeof(p->observation))
		return sw_error_set(err, SW_EPARSE, "path observation kind must be a known string");
	memcpy(p->observation, json_string_value(val), json_string_length(val) + 1);
	if (json_object_get(v, "size") != NULL) {
		if ((rc = get_int(&p->size, v, "size", err)) < 0)
			return rc;
		p->has_size = 1;
	}
	if (json_object_get(v, "modified_unix_nano") != NULL) {
		if ((rc = get_int(&p->modified_unix_nano, v, "modified_unix_nano", err)) < 0)
			return rc;
		p->has_mtime = 1;
	}
	if (json_object_get(v, "content_sha256") != NULL &&
	    (rc = get_digest(p->content_sha256, v, "content_sha256", err)) < 0)
		return rc;
	val = json_object_get(v, "content_fingerprint_kind");
	if (val != NULL) {
		if (!json_is_string(val) || json_string_length(val) >= sizeof(p->content_kind) ||
		    json_string_length(val) == 0)
			return sw_error_set(err, SW_EPARSE,
					    "content_fingerprint_kind must be a known string");
		memcpy(p->content_kind, json_string_value(val), json_string_length(val) + 1);
	}
	return 0;
}

int vcs_observation_from_json(struct vcs_observation *out,
			      const struct json_t *v, struct sw_error *err)
{
	static const char *const keys[] = {
		"version", "head", "index_fingerprint", "status_fingerprint",
		"snapshot_hash", "path_count", "path_fingerprint", "details_truncated",
		"content_observation_complete", "content_bytes_hashed",
		"content_byte_limit", "content_byte_limit_exceeded",
		"content_deadline_exceeded", "dirty_files", "path_observations",
	};
	json_t *files, *paths, *val;
	int64_t version = 0;
	size_t n;
	int rc;

	*out = (struct vcs_observation)VCS_OBSERVATION_INIT;
	if (!json_is_object(v) || json_object_size(v) != sizeof(keys) / sizeof(*keys)) {
		rc = sw_error_set(err, SW_EPARSE, "git observation must be an object with %zu keys",
				  sizeof(keys) / sizeof(*keys));
		goto out;
	}
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		if (json_object_get(v, keys[k]) == NULL) {
			rc = sw_error_set(err, SW_EPARSE, "git observation lacks '%s'", keys[k]);
			goto out;
		}
	}
	if ((rc = get_int(&version, v, "version", err)) < 0 ||
	    (rc = dup_string(&out->head, v, "head", err)) < 0 ||
	    (rc = get_digest(out->index_fingerprint, v, "index_fingerprint", err)) < 0 ||
	    (rc = get_digest(out->status_fingerprint, v, "status_fingerprint", err)) < 0 ||
	    (rc = get_digest(out->snapshot_hash, v, "snapshot_hash", err)) < 0 ||
	    (rc = get_int(&out->path_count, v, "path_count", err)) < 0 ||
	    (rc = get_digest(out->path_fingerprint, v, "path_fingerprint", err)) < 0 ||
	    (rc = get_bool(&out->details_truncated, v, "details_truncated", err)) < 0 ||
	    (rc = get_bool(&out->content_observation_complete, v,
			   "content_observation_complete", err)) < 0 ||
	    (rc = get_int(&out->content_bytes_hashed, v, "content_bytes_hashed", err)) < 0 ||
	    (rc = get_int(&out->content_byte_limit, v, "content_byte_limit", err)) < 0 ||
	    (rc = get_bool(&out->content_byte_limit_exceeded, v,
			   "content_byte_limit_exceeded", err)) < 0 ||
	    (rc = get_bool(&out->content_deadline_exceeded, v,
			   "content_deadline_exceeded", err)) < 0)
		goto out;
	if (version != 1) {
		rc = sw_error_set(err, SW_EINVAL, "git observation version must be 1");
		goto out;
	}
	out->version = 1;
	files = json_object_get(v, "dirty_files");
	paths = json_object_get(v, "path_observations");
	if (!json_is_array(files) || !json_is_array(paths)) {
		rc = sw_error_set(err, SW_EPARSE, "dirty_files and path_observations must be arrays");
		goto out;
	}
	n = json_array_size(paths);
	if (json_array_size(files) != n) {
		rc = sw_error_set(err, SW_EINVAL,
				  "git observation dirty files and path observations must correspond");
		goto out;
	}
	if (n > 0 && (out->paths = sw_calloc(n, sizeof(*out->paths))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate paths");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		out->retained++;
		if ((rc = path_obs_from_json(&out->paths[i], json_array_get(paths, i), err)) < 0)
			goto out;
		val = json_array_get(files, i);
		if (!json_is_string(val) || strcmp(json_string_value(val), out->paths[i].path) != 0) {
			rc = sw_error_set(err, SW_EINVAL,
					  "path observations must match dirty files in order");
			goto out;
		}
	}
	rc = vcs_observation_validate(out, err);
out:
	if (rc < 0)
		vcs_observation_release(out);
	return rc;
}
