#ifndef IO_GIT_VCS_CHANGES_H
#define IO_GIT_VCS_CHANGES_H

/* What Git saw change between two observations of one workspace (the
 * Run's start and now): every retained path whose observation differs, with
 * how it changed, read from the path's status record (spec/git-observation.md
 * "Dirty paths").  A path dirty in both with the same category, state,
 * observation, size and content digest did not change; a path dirty only
 * at the start is clean again (reverted or committed).
 *
 * Only retained paths can be compared: when either observation's details
 * are truncated, `bounded` says so, and paths that sort after the last one
 * both sides retain are not listed: `beyond_now` and `beyond_start` count
 * the dirty paths of each side there. */

#include <stddef.h>
#include <stdint.h>

#include "io/util/err.h"
#include "io/git/observe.h"
#include "tables/report.h"

struct vcs_change {
	const char *path;		/* borrowed from an observation */
	enum tbl_change kind;
	int staged;			/* the change is (partly) in the index */
	const struct vcs_path_obs *now;	/* NULL when clean again */
};

struct vcs_changes {
	struct vcs_change *v;		/* sorted by path */
	size_t n;
	int bounded;			/* a side's details were truncated */
	size_t beyond_now, beyond_start;	/* dirty paths past the compared ones */
	int head_moved;			/* HEAD differs */
	/* Now-side paths whose content could not be fingerprinted, by why. */
	size_t missing, unreadable, unobserved;
};

/* Fills *out (zeroed by the caller) from `start` and `now`; the paths are
 * borrowed from both, which must outlive *out.  SW_ENOMEM. */
int vcs_changes_between(struct vcs_changes *out, const struct vcs_observation *start,
			const struct vcs_observation *now, struct sw_error *err);
void vcs_changes_release(struct vcs_changes *c);

/* How one status record changed: the kind its category and state say
 * (`existed`: the path was dirty at the start too) and whether the index
 * holds part of it. */
enum tbl_change vcs_change_kind(const struct vcs_path_obs *p, int existed, int *staged);

#endif
