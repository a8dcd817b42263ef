/* The fast scan hashes a stat-dirty file without libgit2's filters only
 * when it has proved that no filter applies (observe_scan.c
 * no_filter_applies).  Each case below sets one condition under which a
 * filter changes a file's id, commits files whose worktree form differs
 * from their blob only by that filter (CRLF line ends, an expanded $Id$)
 * and touches every file, so that the scan must hash them.  The filtered
 * hash finds them clean; a plain hash would find them modified.  So every
 * case asserts that the fast scan reports exactly what libgit2's status
 * (filters applied) and git report, and that it hashed nothing without
 * filters; the last case, with no condition at all, that it did. */

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "io/git/observe.h"
#include "io/git/vcs.h"
#include "io/util/err.h"
#include "tests/support/vcs_fixture.h"

TestSuite(observe_attrs);

/* A scratch tree: root/r the repository, root/xdg the XDG configuration
 * home, root/sys the system configuration directory and root/home an
 * empty global one, so that the machine's own files play no part. */
struct world {
	char *root, *repo, *sys;
};

static void world_init(struct world *w)
{
	char *xdg, *home;

	w->root = fx_tmpdir();
	fx_sh(w->root, "mkdir -p r xdg/git sys home");
	w->repo = sw_asprintf("%s/r", w->root);
	w->sys = sw_asprintf("%s/sys", w->root);
	xdg = sw_asprintf("%s/xdg", w->root);
	home = sw_asprintf("%s/home", w->root);
	cr_assert(w->repo && w->sys && xdg && home);
	/* git (a child) and libgit2 (in process) look in the same places. */
	cr_assert_eq(setenv("XDG_CONFIG_HOME", xdg, 1), 0);
	cr_assert_geq(git_libgit2_init(), 1);
	sw_free(xdg);
	xdg = sw_asprintf("%s/xdg/git", w->root);
	cr_assert_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, w->sys), 0);
	cr_assert_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, xdg), 0);
	cr_assert_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, home), 0);
	sw_free(xdg);
	sw_free(home);
	fx_sh(w->repo, "git init -q . && mkdir -p sub/deep");
}

static void world_free(struct world *w)
{
	fx_sh(w->root, "chmod -R u+rwx . 2>/dev/null; true");
	fx_rmrf(w->root);
	sw_free(w->root);
	sw_free(w->repo);
	sw_free(w->sys);
	git_libgit2_shutdown();
}

/* Writes the files in their worktree form, runs `setup` (the condition,
 * so that `git add` applies it: the blobs get LF and a bare $Id$), commits
 * with `add` as git's extra options, runs `after`, and touches every file.
 * What stays in the worktree is the smudged form with new stat data. */
static void build(const struct world *w, const char *setup, const char *add, const char *after)
{
	fx_sh(w->repo, "%s && printf 'a\\r\\nb\\r\\n' > lf.txt && printf 'c\\r\\nd\\r\\n' > sub/lf.txt && "
		       "printf 'e\\r\\n' > sub/deep/lf.txt && "
		       "printf '$Id: 0123456789abcdef $\\nx\\n' > sub/ident.c && printf 'plain\\n' > p.md && "
		       "git %s add -A && git commit -q -m base && %s && "
		       "find . -path ./.git -prune -o -type f -exec touch {} +",
	      setup, add, after);
}

/* The fast scan equals libgit2's status (and git's, when git can see the
 * condition), its dirty paths are exactly `want` (comma-separated, "" for
 * none), and it hashed without filters only when `plain`. */
static void check(const struct world *w, const char *want, int git_sees, int plain)
{
	struct vcs_observation fast, slow;
	unsigned before = vcs_test_unfiltered();
	char got[1024] = "";
	size_t used = 0;

	fx_observe(&fast, w->repo, 0);
	if (plain)
		cr_assert_gt(vcs_test_unfiltered(), before, "no file was hashed without filters");
	else
		cr_assert_eq(vcs_test_unfiltered(), before, "a file was hashed without filters");
	fx_observe(&slow, w->repo, 1);
	for (size_t i = 0; i < fast.retained; i++)
		used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s", i ? "," : "",
					 fast.paths[i].path);
	cr_assert_str_eq(got, want);
	cr_assert_str_eq(fast.status_fingerprint, slow.status_fingerprint);
	cr_assert_str_eq(fast.snapshot_hash, slow.snapshot_hash);
	if (git_sees) {
		struct fx_dirty *d = NULL;
		size_t n = fx_git_dirty(w->repo, &d);

		cr_assert_eq(n, (size_t)fast.path_count);
		for (size_t i = 0; i < n; i++)
			cr_assert_str_eq(d[i].path, fast.paths[i].path);
		fx_dirty_free(d, n);
	}
	vcs_observation_release(&fast);
	vcs_observation_release(&slow);
}

Test(observe_attrs, autocrlf_true_is_a_filter)
{
	struct world w;

	world_init(&w);
	build(&w, "git config core.autocrlf true", "", "true");
	check(&w, "", 1, 0);
	world_free(&w);
}

Test(observe_attrs, autocrlf_input_is_a_filter)
{
	struct world w;

	world_init(&w);
	build(&w, "git config core.autocrlf input", "", "true");
	check(&w, "", 1, 0);
	world_free(&w);
}

Test(observe_attrs, a_root_gitattributes_is_seen)
{
	struct world w;

	world_init(&w);
	build(&w, "printf '*.txt text eol=crlf\\n*.c ident\\n' > .gitattributes", "", "true");
	check(&w, "", 1, 0);
	world_free(&w);
}

/* Gone from the worktree, it still applies from the index. */
Test(observe_attrs, a_gitattributes_only_in_the_index_is_seen)
{
	struct world w;

	world_init(&w);
	build(&w, "printf '*.txt text eol=crlf\\n*.c ident\\n' > .gitattributes", "",
	      "rm .gitattributes");
	check(&w, ".gitattributes", 1, 0);
	world_free(&w);
}

Test(observe_attrs, a_gitattributes_in_a_subdirectory_is_seen)
{
	struct world w;

	world_init(&w);
	build(&w, "printf '*.c ident\\n*.txt text eol=crlf\\n' > sub/.gitattributes", "", "true");
	check(&w, "", 1, 0);
	world_free(&w);
}

/* A directory that can be searched but not listed may hide one. */
Test(observe_attrs, an_unlistable_directory_may_hide_a_gitattributes)
{
	struct world w;

	if (geteuid() == 0)
		cr_skip_test("root lists every directory");
	world_init(&w);
	build(&w, "printf '*.txt text eol=crlf\\n' > sub/deep/.gitattributes", "",
	      "chmod a-r sub/deep");
	check(&w, "", 1, 0);
	world_free(&w);
}

Test(observe_attrs, info_attributes_is_read)
{
	struct world w;

	world_init(&w);
	build(&w, "printf '*.txt text eol=crlf\\n*.c ident\\n' > .git/info/attributes", "", "true");
	check(&w, "", 1, 0);
	world_free(&w);
}

/* A linked worktree reads info/attributes from the common directory. */
Test(observe_attrs, info_attributes_of_the_common_directory_is_read_in_a_linked_worktree)
{
	struct world w;
	char *linked;

	world_init(&w);
	build(&w, "printf '*.txt text eol=crlf\\n*.c ident\\n' > .git/info/attributes", "",
	      "git worktree add -q ../linked && cd ../linked && "
	      "find . -path ./.git -prune -o -type f -exec touch {} +");
	linked = sw_asprintf("%s/linked", w.root);
	cr_assert_not_null(linked);
	{
		struct world l = w;

		l.repo = linked;
		check(&l, "", 1, 0);
	}
	sw_free(linked);
	world_free(&w);
}

Test(observe_attrs, core_attributesfile_is_read)
{
	struct world w;

	world_init(&w);
	build(&w, "printf '*.txt text eol=crlf\\n*.c ident\\n' > ../attrs && "
		  "git config core.attributesfile \"$PWD/../attrs\"", "", "true");
	check(&w, "", 1, 0);
	world_free(&w);
}

Test(observe_attrs, xdg_attributes_are_read)
{
	struct world w;

	world_init(&w);
	build(&w, "printf '*.txt text eol=crlf\\n*.c ident\\n' > ../xdg/git/attributes", "", "true");
	check(&w, "", 1, 0);
	world_free(&w);
}

/* git reads its own system file, not this one: the commit takes the same
 * rules from core.attributesfile, and only libgit2 is compared. */
Test(observe_attrs, system_gitattributes_are_read)
{
	struct world w;

	world_init(&w);
	build(&w, "printf '*.txt text eol=crlf\\n*.c ident\\n' > ../sys/gitattributes",
	      "-c core.attributesfile=\"$PWD/../sys/gitattributes\"", "true");
	check(&w, "", 0, 0);
	world_free(&w);
}

/* No condition: the same bytes are committed as they are, and the scan
 * hashes them without loading filters. */
Test(observe_attrs, with_no_attribute_and_no_autocrlf_files_are_hashed_plainly)
{
	struct world w;

	world_init(&w);
	build(&w, "git config core.autocrlf false", "", "true");
	check(&w, "", 1, 1);
	world_free(&w);
}
