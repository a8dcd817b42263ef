/* What changed between two Git observations: the kind each status record
 * says, staged or not, a path clean again, unchanged paths left out, and
 * the counts of paths whose content could not be fingerprinted. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "io/git/vcs_changes.h"

TestSuite(io_vcs_changes);

static struct vcs_path_obs po(const char *path, const char *category, const char *state,
			      const char *observation, const char *sha)
{
	struct vcs_path_obs p;

	memset(&p, 0, sizeof(p));
	p.path = (char *)path;
	p.category = (char *)category;
	p.state = (char *)state;
	snprintf(p.observation, sizeof(p.observation), "%s", observation);
	snprintf(p.content_sha256, sizeof(p.content_sha256), "%s", sha);
	return p;
}

static struct vcs_observation obs(struct vcs_path_obs *paths, size_t n, const char *snapshot)
{
	struct vcs_observation o = VCS_OBSERVATION_INIT;

	o.head = (char *)"0123456789abcdef0123456789abcdef01234567";
	o.paths = paths;
	o.retained = n;
	o.path_count = (int64_t)n;
	o.content_observation_complete = 1;
	snprintf(o.snapshot_hash, sizeof(o.snapshot_hash), "%s", snapshot);
	return o;
}

Test(io_vcs_changes, each_status_record_gives_its_kind)
{
	static const struct {
		const char *category, *state;
		int existed;
		enum tbl_change kind;
		int staged;
	} rows[] = {
		{ "untracked",     "??",      0, TBL_CHANGE_ADDED,        0 },
		{ "untracked",     "??",      1, TBL_CHANGE_MODIFIED,     0 },
		{ "ordinary",      ".M",      0, TBL_CHANGE_MODIFIED,     0 },
		{ "ordinary",      "M.",      0, TBL_CHANGE_MODIFIED,     1 },
		{ "ordinary",      "MM",      0, TBL_CHANGE_MODIFIED,     1 },
		{ "ordinary",      "A.",      0, TBL_CHANGE_ADDED,        1 },
		{ "ordinary",      ".A",      0, TBL_CHANGE_ADDED,        0 },
		{ "ordinary",      ".D",      0, TBL_CHANGE_DELETED,      0 },
		{ "ordinary",      "D.",      0, TBL_CHANGE_DELETED,      1 },
		{ "rename",        "R. R100", 0, TBL_CHANGE_RENAMED,      1 },
		{ "rename_origin", "R. R100", 0, TBL_CHANGE_RENAMED_AWAY, 1 },
		{ "unmerged",      "UU",      0, TBL_CHANGE_CONFLICTED,   1 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct vcs_path_obs p = po("f", rows[i].category, rows[i].state, "regular", "");
		int staged = -1;

		cr_expect_eq(vcs_change_kind(&p, rows[i].existed, &staged), rows[i].kind, "row %zu (%s %s)",
			     i, rows[i].category, rows[i].state);
		cr_expect_eq(staged, rows[i].staged, "row %zu staged", i);
	}
}

Test(io_vcs_changes, lists_only_what_differs_and_counts_what_was_not_hashed)
{
	struct vcs_path_obs a[] = {
		po("clean-again.c", "ordinary", ".M", "regular", "sha256:1"),
		po("same.c", "untracked", "??", "regular", "sha256:2"),
		po("touched.c", "untracked", "??", "regular", "sha256:3"),
	};
	struct vcs_path_obs b[] = {
		po("gone.c", "ordinary", ".D", "missing", ""),
		po("new.c", "untracked", "??", "regular", "sha256:4"),
		po("same.c", "untracked", "??", "regular", "sha256:2"),
		po("touched.c", "untracked", "??", "regular", "sha256:5"),
	};
	struct vcs_observation start = obs(a, 3, "sha256:a"), now = obs(b, 4, "sha256:b");
	struct vcs_changes c;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(vcs_changes_between(&c, &start, &now, &err), 0);
	cr_assert_eq(c.n, 4);
	cr_expect_str_eq(c.v[0].path, "clean-again.c");
	cr_expect_eq(c.v[0].kind, TBL_CHANGE_CLEAN_AGAIN);
	cr_expect_null(c.v[0].now);
	cr_expect_str_eq(c.v[1].path, "gone.c");
	cr_expect_eq(c.v[1].kind, TBL_CHANGE_DELETED);
	cr_expect_str_eq(c.v[2].path, "new.c");
	cr_expect_eq(c.v[2].kind, TBL_CHANGE_ADDED);
	cr_expect_str_eq(c.v[3].path, "touched.c");
	cr_expect_eq(c.v[3].kind, TBL_CHANGE_MODIFIED);
	cr_expect_eq(c.missing, 1);
	cr_expect_eq(c.bounded, 0);
	cr_expect_eq(c.head_moved, 0);
	vcs_changes_release(&c);

	/* Equal snapshots: nothing changed, whatever the lists say. */
	now.snapshot_hash[7] = 'a';
	cr_assert_eq(vcs_changes_between(&c, &start, &now, &err), 0);
	cr_expect_eq(c.n, 0);
	vcs_changes_release(&c);
}

/* A truncated side: nothing past the last path both sides retain is
 * compared, so a path the start retained there is not taken as clean
 * again, and the dirty paths past it are counted per side. */
Test(io_vcs_changes, past_a_truncated_list_nothing_is_compared_and_everything_is_counted)
{
	struct vcs_path_obs a[] = {
		po("a.c", "untracked", "??", "regular", "sha256:1"),
		po("z.c", "untracked", "??", "regular", "sha256:2"),
	};
	struct vcs_path_obs b[] = {
		po("a.c", "untracked", "??", "regular", "sha256:1"),
		po("b.c", "untracked", "??", "regular", "sha256:3"),
		po("c.c", "untracked", "??", "regular", "sha256:4"),
	};
	struct vcs_observation start = obs(a, 2, "sha256:a"), now = obs(b, 3, "sha256:b");
	struct vcs_changes c;
	struct sw_error err = SW_ERROR_INIT;

	now.path_count = 20000;
	now.details_truncated = 1;
	cr_assert_eq(vcs_changes_between(&c, &start, &now, &err), 0);
	cr_expect_eq(c.bounded, 1);
	cr_assert_eq(c.n, 2, "b.c and c.c; z.c lies past the cut");
	cr_expect_str_eq(c.v[0].path, "b.c");
	cr_expect_str_eq(c.v[1].path, "c.c");
	cr_expect_eq(c.beyond_now, 20000 - 3);
	cr_expect_eq(c.beyond_start, 1);
	vcs_changes_release(&c);
}
