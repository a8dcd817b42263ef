/* Status records: each dirty path's record and the canonical porcelain v2
 * line behind status_fingerprint, from a libgit2 status entry or from a
 * neutral tracked entry (struct tent, the fast scan's and the gitlinks').
 * Reads the index and the worktree's file types; never hashes content, never
 * walks the worktree, never writes the index. */

#include "io/git/observe_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io/util/buf.h"

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

void vcs__collect_release(struct collect *c)
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

int vcs__add_untracked(struct collect *c, const char *path)
{
	char *text = sw_asprintf("? %s", path);
	int rc;

	if ((rc = push_line(c, LINE_UNTRACKED, text, text ? strlen(text) : 0, 2)) < 0)
		return rc;
	return push_rec(c, path, "untracked", "??");
}

int vcs__add_tracked(struct collect *c, const struct tent *t)
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
void vcs__unskip_present_files(git_repository *repo, git_index *index, int rootfd)
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
int vcs__add_entry(struct collect *c, git_index *index,
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
	    (rc = vcs__add_untracked(c, i2w->new_file.path)) < 0)
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
		return 0;	/* vcs__add_gitlinks records it */
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
	return vcs__add_tracked(c, &t);
}
