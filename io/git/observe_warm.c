/* What a long-lived process (slipway mcp) keeps between observations
 * (vcs_keep_warm): the repository handle, the parsed index with its
 * fingerprint and the head-to-index deltas, in the observation's one piece
 * of static state.  Proving each still current is its user's (observe.c). */

#include "io/git/observe_internal.h"

#include <string.h>

#include "io/util/buf.h"

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
struct warm vcs__warm;

void vcs__warm_drop(void)
{
	git_repository_free(vcs__warm.repo);
	sw_free(vcs__warm.wd);
	sw_free(vcs__warm.gd);
	sw_free(vcs__warm.cd);
	vcs__rawindex_free(&vcs__warm.ri);
	vcs__hdiff_release(&vcs__warm.diff);
	vcs__warm.repo = NULL;
	vcs__warm.wd = vcs__warm.gd = vcs__warm.cd = NULL;
	vcs__warm.ri_ok = vcs__warm.diff_ok = 0;
	vcs__warm.ri_gen++;
}

#ifdef SW_TESTING
void vcs_test_counts(unsigned out[4])
{
	memcpy(out, vcs__warm.hits, sizeof(vcs__warm.hits));
	out[3] = __atomic_load_n(&vcs__test_ct_diffs, __ATOMIC_RELAXED);
}

unsigned vcs_test_unfiltered(void)
{
	return __atomic_load_n(&vcs__test_unfiltered, __ATOMIC_RELAXED);
}

unsigned vcs_test_unignored(void)
{
	return __atomic_load_n(&vcs__test_unignored, __ATOMIC_RELAXED);
}

unsigned vcs_test_fp_threads(void)
{
	return __atomic_load_n(&vcs__test_fp_threads, __ATOMIC_RELAXED);
}

unsigned vcs_test_fp_hinted(void)
{
	return __atomic_load_n(&vcs__test_fp_hinted, __ATOMIC_RELAXED);
}

unsigned vcs_test_name_searches(void)
{
	return __atomic_load_n(&vcs__test_name_searches, __ATOMIC_RELAXED);
}

unsigned vcs_test_unordered(void)
{
	return __atomic_load_n(&vcs__test_unordered, __ATOMIC_RELAXED);
}

unsigned vcs_test_prefault_threads(void)
{
	return __atomic_load_n(&vcs__test_prefault_threads, __ATOMIC_RELAXED);
}

void vcs_test_name_hash_bits(unsigned bits)
{
	vcs__test_name_hash_mask = bits >= 32 ? UINT32_MAX : ((uint32_t)1 << bits) - 1;
}
#endif

void vcs_keep_warm(int on)
{
	if (!on) {
		vcs__warm_drop();
		vcs__drop_discovered();
	}
	vcs__warm.on = on;
}

/* The handle for workspace `ws`: the kept one when it was opened for the
 * very same paths (*kept = 1), else a new one, kept when keeping is on.
 * The caller frees it only when keeping is off.  0 or a libgit2 error. */
int vcs__repo_for(git_repository **out, const struct vcs_identity *ws, int *kept)
{
	*kept = 0;
	if (vcs__warm.on && vcs__warm.repo != NULL && strcmp(vcs__warm.wd, ws->worktree_root) == 0 &&
	    strcmp(vcs__warm.gd, ws->git_dir) == 0 && strcmp(vcs__warm.cd, ws->git_common_dir) == 0) {
		vcs__drop_discovered();
		*out = vcs__warm.repo;
		*kept = 1;
		vcs__warm.hits[0]++;
		return 0;
	}
	/* The handle discovery opened for this workspace is a new one (no
	 * index loaded yet), as good as opening it again. */
	if ((*out = vcs__take_discovered(ws)) == NULL &&
	    git_repository_open_ext(out, ws->worktree_root, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0)
		return -1;
	if (vcs__warm.on) {
		vcs__warm_drop();
		if ((vcs__warm.wd = sw_strdup(ws->worktree_root)) != NULL &&
		    (vcs__warm.gd = sw_strdup(ws->git_dir)) != NULL &&
		    (vcs__warm.cd = sw_strdup(ws->git_common_dir)) != NULL)
			vcs__warm.repo = *out;
		else
			vcs__warm_drop();
	}
	return 0;
}
