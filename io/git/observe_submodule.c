/* Gitlinks (submodules) as git's porcelain v2 reports them: X from HEAD's
 * tree, Y and "S<C><M><U>" from the submodule's own repository, up to
 * GITLINK_MAX_DEPTH deep.  Never loads libgit2's submodule configuration
 * (it leaks in this libgit2) and never writes a repository. */

#include "io/git/observe_internal.h"

#include <string.h>
#include <sys/stat.h>

#include "io/util/buf.h"

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
int vcs__own_gitlinks(git_repository *repo, git_index *index, int unborn)
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
int vcs__add_gitlinks(struct collect *c, git_repository *repo, git_index *index, int unborn,
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
			rc = vcs__add_tracked(c, &t);
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
		rc = vcs__add_tracked(c, &t);
	}
	sw_free(lost);
	git_diff_free(diff);
	git_object_free(tree);
	return rc;
}
