#ifndef TESTS_SUPPORT_VCS_FIXTURE_H
#define TESTS_SUPPORT_VCS_FIXTURE_H

/* Scratch Git repositories for the io/vcs and io/observe tests.  Tests may
 * run git; the library never does.  Every helper aborts the test (Criterion
 * assertion) on failure. */

#include <stddef.h>

struct vcs_observation;

/* A new empty directory under $TMPDIR or /tmp (tests/support/tmp.h),
 * symlink-resolved; sw_free it after fx_rmrf. */
char *fx_tmpdir(void);

/* Runs `sh -c` with the formatted command inside `dir`, with an isolated
 * git configuration (no global/system config, fixed identity, branch
 * "main").  Asserts exit status 0. */
void fx_sh(const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* As fx_sh, returning stdout (sw_malloc'd) and its length in *len. */
char *fx_sh_out(const char *dir, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Removes `dir` recursively. */
void fx_rmrf(const char *dir);

/* One dirty path as git reports it: merged categories and states. */
struct fx_dirty {
	char *path;
	char *category;
	char *state;
};

/* Parses `git status --porcelain=v2 -z --untracked-files=all` run in `dir`
 * into sorted, merged dirty paths (the reference's rules).  Returns the
 * count; release with fx_dirty_free. */
size_t fx_git_dirty(const char *dir, struct fx_dirty **out);
void fx_dirty_free(struct fx_dirty *d, size_t n);

/* Discovers the repository at `dir` and observes it into *o (with
 * libgit2's own status when `libgit2_status`); release with
 * vcs_observation_release. */
void fx_observe(struct vcs_observation *o, const char *dir, int libgit2_status);

#endif
