/* The fast scan decides that an untracked path is not ignored without
 * asking libgit2 only when it has proved that no ignore rule can reach it
 * (observe_scan.c ignored): no .gitignore in any directory from the root
 * down to the path's own, and no rule in info/exclude, core.excludesFile
 * or the XDG ignore file.  Each case below puts rules where one of those
 * proofs must fail, with files they ignore and files they do not, and
 * asserts that the fast scan reports exactly what libgit2's status and git
 * report, and whether it skipped libgit2's lookups. */

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "io/git/observe.h"
#include "io/git/vcs.h"
#include "io/util/err.h"
#include "tests/support/vcs_fixture.h"

TestSuite(observe_ignore);

/* A scratch tree: root/r the repository, root/xdg the XDG configuration
 * home, root/sys and root/home empty system and global directories, so
 * that the machine's own files play no part. */
struct world {
	char *root, *repo;
};

static void world_init(struct world *w)
{
	char *xdg, *sys, *home;

	w->root = fx_tmpdir();
	fx_sh(w->root, "mkdir -p r xdg/git sys home");
	w->repo = sw_asprintf("%s/r", w->root);
	xdg = sw_asprintf("%s/xdg", w->root);
	sys = sw_asprintf("%s/sys", w->root);
	home = sw_asprintf("%s/home", w->root);
	cr_assert(w->repo && xdg && sys && home);
	/* git (a child) and libgit2 (in process) look in the same places. */
	cr_assert_eq(setenv("XDG_CONFIG_HOME", xdg, 1), 0);
	cr_assert_geq(git_libgit2_init(), 1);
	sw_free(xdg);
	xdg = sw_asprintf("%s/xdg/git", w->root);
	cr_assert_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, sys), 0);
	cr_assert_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, xdg), 0);
	cr_assert_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, home), 0);
	sw_free(xdg);
	sw_free(sys);
	sw_free(home);
	/* Tracked files two levels down, and untracked ones at every level,
	 * in a new directory and in a new directory tree. */
	fx_sh(w->repo, "git init -q . && mkdir -p sub/deep && echo a > a.c && echo b > sub/b.c && "
		       "echo c > sub/deep/c.c && git add -A && git commit -q -m base && "
		       "echo u > u.c && echo l > x.log && echo k > keep.log && echo t > t.tmp && "
		       "echo u > sub/u.c && echo l > sub/x.log && echo t > sub/t.tmp && "
		       "echo u > sub/deep/u.c && echo l > sub/deep/x.log && echo k > sub/deep/keep.log && "
		       "mkdir -p fresh/inner build && echo n > fresh/n.c && echo l > fresh/inner/y.log && "
		       "echo o > build/o.o");
}

static void world_free(struct world *w)
{
	fx_rmrf(w->root);
	sw_free(w->root);
	sw_free(w->repo);
	git_libgit2_shutdown();
}

/* The fast scan equals libgit2's status and git, its dirty paths are
 * exactly `want` (comma-separated), and it skipped libgit2's ignore
 * lookup for `skipped` untracked paths (-1: for at least one). */
static void check(const struct world *w, const char *want, int skipped)
{
	struct vcs_observation fast, slow;
	unsigned before = vcs_test_unignored(), after;
	struct fx_dirty *d = NULL;
	char got[2048] = "";
	size_t used = 0, n;

	fx_observe(&fast, w->repo, 0);
	after = vcs_test_unignored();
	if (skipped < 0)
		cr_assert_gt(after, before, "every ignore lookup went to libgit2");
	else
		cr_assert_eq(after - before, (unsigned)skipped, "ignore lookups skipped: %u",
			     after - before);
	fx_observe(&slow, w->repo, 1);
	for (size_t i = 0; i < fast.retained; i++)
		used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s", i ? "," : "",
					 fast.paths[i].path);
	cr_assert_str_eq(got, want);
	cr_assert_str_eq(fast.status_fingerprint, slow.status_fingerprint);
	cr_assert_str_eq(fast.snapshot_hash, slow.snapshot_hash);
	n = fx_git_dirty(w->repo, &d);
	cr_assert_eq(n, (size_t)fast.path_count);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(d[i].path, fast.paths[i].path);
	fx_dirty_free(d, n);
	vcs_observation_release(&fast);
	vcs_observation_release(&slow);
}

#define ALL_UNTRACKED                                                                      \
	"build/o.o,fresh/inner/y.log,fresh/n.c,keep.log,sub/deep/keep.log,sub/deep/u.c,"   \
	"sub/deep/x.log,sub/t.tmp,sub/u.c,sub/x.log,t.tmp,u.c,x.log"

/* No rule anywhere (git init's info/exclude holds comments only): every
 * untracked path and directory is decided without libgit2. */
Test(observe_ignore, with_no_rule_anywhere_no_lookup_reaches_libgit2)
{
	struct world w;

	world_init(&w);
	check(&w, ALL_UNTRACKED, 16);	/* 13 files and the directories build, fresh, fresh/inner */
	world_free(&w);
}

/* Comment lines, empty lines and CRLF comment lines are no rules; a line
 * of one space is one. */
Test(observe_ignore, an_info_exclude_of_comments_and_blank_lines_holds_no_rule)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "printf '# a\\n\\n#b\\r\\n\\r\\n# *.log\\n' > .git/info/exclude");
	check(&w, ALL_UNTRACKED, 16);
	fx_sh(w.repo, "printf '# a\\n \\n' > .git/info/exclude");
	check(&w, ALL_UNTRACKED, 0);
	world_free(&w);
}

Test(observe_ignore, a_root_gitignore_with_a_negation_reaches_every_level)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "printf '*.log\\n!keep.log\\nbuild/\\n' > .gitignore");
	check(&w, ".gitignore,fresh/n.c,keep.log,sub/deep/keep.log,sub/deep/u.c,sub/t.tmp,"
		  "sub/u.c,t.tmp,u.c", 0);
	world_free(&w);
}

/* Only sub/deep holds rules: the root and sub are decided without
 * libgit2, sub/deep's files by it. */
Test(observe_ignore, a_nested_gitignore_reaches_only_its_own_directory)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "printf '*.log\\n!keep.log\\n' > sub/deep/.gitignore");
	check(&w, "build/o.o,fresh/inner/y.log,fresh/n.c,keep.log,sub/deep/.gitignore,"
		  "sub/deep/keep.log,sub/deep/u.c,sub/t.tmp,sub/u.c,sub/x.log,t.tmp,u.c,x.log", -1);
	fx_sh(w.repo, "rm sub/deep/.gitignore && printf '*.tmp\\n' > sub/.gitignore");
	check(&w, "build/o.o,fresh/inner/y.log,fresh/n.c,keep.log,sub/.gitignore,"
		  "sub/deep/keep.log,sub/deep/u.c,sub/deep/x.log,sub/u.c,sub/x.log,t.tmp,u.c,x.log",
	      -1);
	world_free(&w);
}

/* A committed .gitignore in a directory with no untracked file of its own
 * is seen only in its listing (no lookup there asks whether it exists),
 * and must still reach the directories below: z/ is visited while sub/ is
 * still queued, so its listing comes before its subdirectories are. */
Test(observe_ignore, a_committed_gitignore_over_a_directory_with_nothing_new_reaches_below_it)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "mkdir -p z/inner && echo t > z/inner/t.c && printf '*.log\\n' > z/.gitignore && "
		      "git add z && git commit -q -m z && echo l > z/inner/new.log && "
		      "echo n > z/inner/new.c");
	check(&w, ALL_UNTRACKED ",z/inner/new.c", -1);
	world_free(&w);
}

/* A .gitignore inside an untracked directory applies to what is below it,
 * and one that ignores a whole untracked directory hides it. */
Test(observe_ignore, a_gitignore_in_an_untracked_directory_is_read)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "printf '*.log\\n' > fresh/.gitignore && printf 'inner/\\n' > fresh/inner/.gitignore");
	check(&w, "build/o.o,fresh/.gitignore,fresh/inner/.gitignore,fresh/n.c,keep.log,"
		  "sub/deep/keep.log,sub/deep/u.c,sub/deep/x.log,sub/t.tmp,sub/u.c,sub/x.log,t.tmp,"
		  "u.c,x.log", -1);
	world_free(&w);
}

Test(observe_ignore, info_exclude_rules_reach_every_level)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "printf '*.tmp\\nbuild\\n' >> .git/info/exclude");
	check(&w, "fresh/inner/y.log,fresh/n.c,keep.log,sub/deep/keep.log,sub/deep/u.c,"
		  "sub/deep/x.log,sub/u.c,sub/x.log,u.c,x.log", 0);
	world_free(&w);
}

Test(observe_ignore, core_excludesfile_rules_are_read_and_a_missing_one_holds_none)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "printf 'x.log\\n' > ../excl && git config core.excludesFile \"$PWD/../excl\"");
	check(&w, "build/o.o,fresh/inner/y.log,fresh/n.c,keep.log,sub/deep/keep.log,sub/deep/u.c,"
		  "sub/t.tmp,sub/u.c,t.tmp,u.c", 0);
	fx_sh(w.repo, "rm ../excl");
	check(&w, ALL_UNTRACKED, 16);
	world_free(&w);
}

Test(observe_ignore, the_xdg_ignore_file_is_read)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "printf '*.c\\n!u.c\\n' > ../xdg/git/ignore");
	check(&w, "build/o.o,fresh/inner/y.log,keep.log,sub/deep/keep.log,sub/deep/u.c,"
		  "sub/deep/x.log,sub/t.tmp,sub/u.c,sub/x.log,t.tmp,u.c,x.log", 0);
	world_free(&w);
}

/* A .gitignore written between two observations, at the root and in a
 * tracked subdirectory, applies to the second, with a fresh handle and
 * with one kept between observations. */
Test(observe_ignore, a_gitignore_created_between_two_observations_applies)
{
	for (int warm = 0; warm <= 1; warm++) {
		struct world w;

		world_init(&w);
		vcs_keep_warm(warm);
		check(&w, ALL_UNTRACKED, 16);
		fx_sh(w.repo, "printf 'u.c\\n' > sub/.gitignore");
		check(&w, "build/o.o,fresh/inner/y.log,fresh/n.c,keep.log,sub/.gitignore,"
			  "sub/deep/keep.log,sub/deep/x.log,sub/t.tmp,sub/x.log,t.tmp,u.c,x.log", -1);
		fx_sh(w.repo, "printf '*.log\\n' > .gitignore");
		check(&w, ".gitignore,build/o.o,fresh/n.c,sub/.gitignore,sub/t.tmp,t.tmp,u.c", 0);
		vcs_keep_warm(0);
		world_free(&w);
	}
}

/* Above 1,024 tracked files the scan runs on threads, and with a staged
 * change ignore lookups take a second handle: a nested .gitignore must
 * still apply to its own directory only. */
Test(observe_ignore, a_threaded_scan_beside_a_diff_reads_nested_rules)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "for d in 0 1 2 3 4 5 6 7 8 9 10; do mkdir t$d; "
		      "for f in $(seq 0 99); do echo $d $f > t$d/f$f.txt; done; done && "
		      "git add -A && git commit -q -m many && echo s >> t0/f0.txt && git add t0/f0.txt && "
		      "printf '*.log\\n' > t3/.gitignore && "
		      "for d in 0 3 7; do echo l > t$d/a.log && echo n > t$d/n.txt; done");
	check(&w, "t0/a.log,t0/f0.txt,t0/n.txt,t3/.gitignore,t3/n.txt,t7/a.log,t7/n.txt", -1);
	world_free(&w);
}

/* On threads the root's visit queues its subdirectories before it lists
 * the root: a committed root .gitignore must reach them all the same. */
Test(observe_ignore, a_threaded_scan_queues_the_roots_subdirectories_with_its_rules)
{
	struct world w;

	world_init(&w);
	fx_sh(w.repo, "for d in 0 1 2 3 4 5 6 7 8 9 10; do mkdir t$d; "
		      "for f in $(seq 0 99); do echo $d $f > t$d/f$f.txt; done; done && "
		      "printf '*.tmp\\n' > .gitignore && git add .gitignore 't[0-9]*' && "
		      "git commit -q -m many && echo x > t5/x.tmp && echo n > t5/n.txt");
	check(&w, "build/o.o,fresh/inner/y.log,fresh/n.c,keep.log,sub/deep/keep.log,sub/deep/u.c,"
		  "sub/deep/x.log,sub/u.c,sub/x.log,t5/n.txt,u.c,x.log", 0);
	world_free(&w);
}
