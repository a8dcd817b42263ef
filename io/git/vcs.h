#ifndef IO_GIT_VCS_H
#define IO_GIT_VCS_H

/* Workspace discovery and identity, in process with libgit2 (no git
 * subprocess on any path).
 *
 * A workspace is the Git worktree containing a start directory: its canonical
 * worktree root, its own git dir and the common git dir shared by linked
 * worktrees, each absolute, symlink-resolved and without a trailing slash.
 * Its identity id is
 *   "sha256:" + hex(sha256(S("version","1") S("worktree_root",root)
 *                          S("git_dir",dir) S("git_common_dir",common)))
 * with S the sections framing of io/util/digest.h. */

#include <stddef.h>

#include "io/util/digest.h"
#include "io/util/err.h"

struct json_t;

struct vcs_identity {
	int version;			/* always 1 */
	char *worktree_root;
	char *git_dir;
	char *git_common_dir;
	char id[SW_DIGEST_LEN];
};

#define VCS_IDENTITY_INIT { 1, NULL, NULL, NULL, "" }

/* Discovers the worktree containing `start` (the current directory when
 * NULL or ""): a non-directory start uses its parent.  Fills *out, which the
 * caller releases with vcs_identity_release.  Returns SW_ENOTFOUND when
 * `start` is not inside a Git worktree (bare repositories included),
 * SW_EINVAL when the worktree root, git dir or common dir is not a UTF-8
 * path, SW_EGIT when a repository is there but the system failed to read
 * it or its configuration (an I/O error, libgit2 out of memory),
 * SW_EIO/SW_ENOMEM on other failures. */
int vcs_discover(struct vcs_identity *out, const char *start,
		 struct sw_error *err);

/* Recomputes out->id from the three paths. */
int vcs_identity_compute_id(struct vcs_identity *id, struct sw_error *err);

/* 1 when all five fields are equal. */
int vcs_identity_equal(const struct vcs_identity *a,
		       const struct vcs_identity *b);

void vcs_identity_release(struct vcs_identity *id);

/* The identity a `next` carries when `root` is not a usable workspace:
 * "sha256:" + hex(sha256("unavailable-workspace-root-v1\0" + clean abs root)).
 * Writes the cleaned absolute root into `*clean_out` (sw_malloc'd) when not
 * NULL. */
int vcs_unavailable_identity(char out[SW_DIGEST_LEN], char **clean_out,
			     const char *root, struct sw_error *err);

/* Encodes `id` as the schema's workspaceIdentity object, keys in the
 * reference's order (version, worktree_root, git_dir, git_common_dir, id).
 * Returns a new Jansson reference, or NULL when allocation fails. */
struct json_t *vcs_identity_to_json(const struct vcs_identity *id);

/* Decodes a workspaceIdentity object into *out (caller releases it with
 * vcs_identity_release).  Requires exactly the five keys, version 1, three
 * absolute, clean, NUL-free UTF-8 paths and an id equal to the one they
 * compute.  Returns SW_EPARSE for a wrong shape, SW_EINVAL for a rule
 * broken, SW_ENOMEM; on failure *out holds no allocation. */
int vcs_identity_from_json(struct vcs_identity *out, const struct json_t *v,
			   struct sw_error *err);

/* Lexically cleans an absolute or relative path the way Go's filepath.Abs +
 * Clean do (relative paths are joined to the current directory).  Returns a
 * sw_malloc'd string or NULL with `err` set. */
char *vcs_path_abs_clean(const char *path, struct sw_error *err);

/* After the first discovery or observation: the i-th Git configuration
 * file that could not be read and was left out (a sentence naming it and
 * the reason), or NULL past the last.  git reads on with a warning where
 * libgit2 would fail to open the repository; the front ends say so. */
const char *vcs_config_warning(size_t i);

/* Module-internal (io/git/vcs.c, io/git/observe.c): initialises libgit2 once. */
int vcs__libgit2_init(struct sw_error *err);

#endif
