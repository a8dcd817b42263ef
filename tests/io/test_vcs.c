#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/util/json.h"
#include "io/git/vcs.h"
#include "tests/support/vcs_fixture.h"

TestSuite(vcs);

static char *join(const char *a, const char *b)
{
	char *s = sw_asprintf("%s/%s", a, b);

	cr_assert_not_null(s);
	return s;
}

static void discover_ok(struct vcs_identity *id, const char *start)
{
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(vcs_discover(id, start, &err), 0, "%s: %s", start, err.msg);
}

static void discover_fails(const char *start, int code)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(vcs_discover(&id, start, &err), code, "%s: %d %s", start, err.code, err.msg);
	cr_assert_eq(err.code, code);
	cr_assert_null(id.worktree_root);
}

Test(vcs, normal_repository_identity_names_root_and_dot_git)
{
	char *dir = fx_tmpdir(), *gd = join(dir, ".git");
	struct vcs_identity id = VCS_IDENTITY_INIT, again = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;
	char id_before[SW_DIGEST_LEN];

	fx_sh(dir, "git init -q .");
	discover_ok(&id, dir);
	cr_assert_str_eq(id.worktree_root, dir);
	cr_assert_str_eq(id.git_dir, gd);
	cr_assert_str_eq(id.git_common_dir, gd);
	cr_assert(sw_digest_valid(id.id));
	memcpy(id_before, id.id, sizeof(id_before));
	cr_assert_eq(vcs_identity_compute_id(&id, &err), 0);
	cr_assert_str_eq(id.id, id_before);
	discover_ok(&again, dir);
	cr_assert(vcs_identity_equal(&id, &again));
	vcs_identity_release(&id);
	vcs_identity_release(&again);
	fx_rmrf(dir);
	sw_free(gd);
	sw_free(dir);
}

Test(vcs, subdirectory_file_and_symlinked_starts_find_the_same_worktree)
{
	char *dir = fx_tmpdir(), *sub = join(dir, "a/b"), *file = join(dir, "a/b/f.txt");
	char *link = NULL;
	struct vcs_identity root = VCS_IDENTITY_INIT, s = VCS_IDENTITY_INIT;

	fx_sh(dir, "git init -q . && mkdir -p a/b && echo x > a/b/f.txt && ln -s a/b lnk");
	link = join(dir, "lnk");
	discover_ok(&root, dir);
	discover_ok(&s, sub);
	cr_assert(vcs_identity_equal(&root, &s));
	vcs_identity_release(&s);
	discover_ok(&s, file);
	cr_assert(vcs_identity_equal(&root, &s));
	vcs_identity_release(&s);
	discover_ok(&s, link);
	cr_assert(vcs_identity_equal(&root, &s));
	vcs_identity_release(&s);
	vcs_identity_release(&root);
	fx_rmrf(dir);
	sw_free(link);
	sw_free(file);
	sw_free(sub);
	sw_free(dir);
}

Test(vcs, linked_worktrees_share_common_dir_but_differ_in_identity)
{
	char *dir = fx_tmpdir(), *a = join(dir, "a"), *b = join(dir, "b");
	char *gd = join(dir, "a/.git"), *wgd = join(dir, "a/.git/worktrees/b");
	struct vcs_identity ia = VCS_IDENTITY_INIT, ib = VCS_IDENTITY_INIT;

	fx_sh(dir, "git init -q a && cd a && git commit -q --allow-empty -m one && "
		   "git worktree add -q ../b 2>/dev/null");
	discover_ok(&ia, a);
	discover_ok(&ib, b);
	cr_assert_str_eq(ia.worktree_root, a);
	cr_assert_str_eq(ib.worktree_root, b);
	cr_assert_str_eq(ib.git_dir, wgd);
	cr_assert_str_eq(ib.git_common_dir, gd);
	cr_assert_str_eq(ia.git_common_dir, gd);
	cr_assert_str_neq(ia.id, ib.id);
	cr_assert_not(vcs_identity_equal(&ia, &ib));
	vcs_identity_release(&ia);
	vcs_identity_release(&ib);
	fx_rmrf(dir);
	sw_free(wgd);
	sw_free(gd);
	sw_free(b);
	sw_free(a);
	sw_free(dir);
}

Test(vcs, separate_git_dir_is_both_git_dir_and_common_dir)
{
	char *dir = fx_tmpdir(), *wt = join(dir, "wt"), *meta = join(dir, "meta");
	struct vcs_identity id = VCS_IDENTITY_INIT;

	fx_sh(dir, "git init -q --separate-git-dir=meta wt");
	discover_ok(&id, wt);
	cr_assert_str_eq(id.worktree_root, wt);
	cr_assert_str_eq(id.git_dir, meta);
	cr_assert_str_eq(id.git_common_dir, meta);
	vcs_identity_release(&id);
	fx_rmrf(dir);
	sw_free(meta);
	sw_free(wt);
	sw_free(dir);
}

Test(vcs, non_repository_bare_repository_and_git_dir_are_not_found)
{
	char *dir = fx_tmpdir(), *plain = join(dir, "plain"), *bare = join(dir, "bare.git");
	char *inside = join(dir, "r/.git/refs"), *missing = join(dir, "nope/deeper");

	fx_sh(dir, "mkdir plain && git init -q --bare bare.git && git init -q r");
	discover_fails(plain, SW_ENOTFOUND);
	discover_fails(bare, SW_ENOTFOUND);
	discover_fails(inside, SW_ENOTFOUND);
	discover_fails(missing, SW_ENOTFOUND);
	fx_rmrf(dir);
	sw_free(missing);
	sw_free(inside);
	sw_free(bare);
	sw_free(plain);
	sw_free(dir);
}

Test(vcs, identity_json_round_trips_and_rejects_tampering)
{
	char *dir = fx_tmpdir();
	struct vcs_identity id = VCS_IDENTITY_INIT, back = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;
	json_t *j;
	char *text;

	fx_sh(dir, "git init -q .");
	discover_ok(&id, dir);
	j = vcs_identity_to_json(&id);
	cr_assert_not_null(j);
	text = sw_json_dump(j);
	cr_assert_not_null(text);
	cr_assert(strncmp(text, "{\"version\":1,\"worktree_root\":", 29) == 0, "%s", text);
	cr_assert_eq(vcs_identity_from_json(&back, j, &err), 0, "%s", err.msg);
	cr_assert(vcs_identity_equal(&id, &back));
	vcs_identity_release(&back);

	json_object_set_new(j, "git_dir", json_string("/elsewhere"));
	sw_error_clear(&err);
	cr_assert_eq(vcs_identity_from_json(&back, j, &err), SW_EINVAL);
	json_object_set_new(j, "git_dir", json_string("/a/../b"));
	sw_error_clear(&err);
	cr_assert_eq(vcs_identity_from_json(&back, j, &err), SW_EINVAL);
	json_object_set_new(j, "extra", json_true());
	sw_error_clear(&err);
	cr_assert_eq(vcs_identity_from_json(&back, j, &err), SW_EPARSE);
	cr_assert_null(back.worktree_root);
	json_decref(j);
	sw_free(text);
	vcs_identity_release(&id);
	fx_rmrf(dir);
	sw_free(dir);
}

/* Discovery takes libgit2's names without realpath where they are
 * provably canonical (vcs.c canonical_dir): each case must still give
 * exactly the realpath of the expected worktree, Git directory and common
 * directory, whether started from the current directory (NULL, "" or
 * ".") or from a --root, through symlinks or not. */
static void expect_paths(const char *cwd, const char *start, const char *wt, const char *gd,
			 const char *cd)
{
	char *want[3] = { realpath(wt, NULL), realpath(gd, NULL), realpath(cd, NULL) };
	struct vcs_identity id = VCS_IDENTITY_INIT;

	cr_assert(want[0] && want[1] && want[2], "%s %s %s", wt, gd, cd);
	if (cwd != NULL)
		cr_assert_eq(chdir(cwd), 0, "%s", cwd);
	discover_ok(&id, start);
	cr_assert_str_eq(id.worktree_root, want[0], "from %s, %s", cwd, start);
	cr_assert_str_eq(id.git_dir, want[1], "from %s, %s", cwd, start);
	cr_assert_str_eq(id.git_common_dir, want[2], "from %s, %s", cwd, start);
	vcs_identity_release(&id);
	for (int i = 0; i < 3; i++)
		free(want[i]);
}

Test(vcs, shortcut_paths_equal_their_realpath_in_every_layout)
{
	char *dir = fx_tmpdir();
	char *r = join(dir, "r"), *rgd = join(dir, "r/.git"), *rsub = join(dir, "r/a/b");
	char *lnk = join(dir, "lnk"), *lnksub = join(dir, "lnk/a/b"), *sublnk = join(dir, "r/sl");
	char *lw = join(dir, "linked"), *lwsub = join(dir, "linked/a/b");
	char *lwgd = join(dir, "r/.git/worktrees/linked");
	char *cw = join(dir, "cw"), *cwsub = join(dir, "cw/a"), *meta = join(dir, "meta");
	char *sg = join(dir, "sg"), *sggd = join(dir, "sg/.git"), *sgsub = join(dir, "sg/a");
	char *file = join(dir, "r/a/b/f.txt");

	fx_sh(dir, "git init -q r && cd r && mkdir -p a/b && echo x > a/b/f.txt && "
		   "git add -A && git commit -q -m one && ln -s a/b sl && cd .. && ln -s r lnk && "
		   "git -C r worktree add -q ../linked 2>/dev/null && "
		   /* core.worktree named through a symlink, from a .git file */
		   "mkdir -p cw/a && ln -s cw cwlink && git init -q --bare meta && "
		   "git -C meta config core.bare false && "
		   "git -C meta config core.worktree \"$PWD/cwlink\" && "
		   "echo \"gitdir: $PWD/meta\" > cw/.git && "
		   /* a .git that is a symlink to the real directory */
		   "git init -q store && mkdir -p sg/a && mv store/.git sg/real.git && "
		   "ln -s real.git sg/.git && git -C sg config core.worktree \"$PWD/sg\"");
	/* From the current directory: root, subdirectory, reached through a
	 * symlink, each spelling of "here". */
	expect_paths(r, NULL, r, rgd, rgd);
	expect_paths(rsub, "", r, rgd, rgd);
	expect_paths(lnksub, ".", r, rgd, rgd);
	expect_paths(sublnk, NULL, r, rgd, rgd);
	/* --root: symlinked, a subdirectory, a file, relative with "..". */
	expect_paths(dir, lnk, r, rgd, rgd);
	expect_paths(dir, lnksub, r, rgd, rgd);
	expect_paths(dir, sublnk, r, rgd, rgd);
	expect_paths(dir, file, r, rgd, rgd);
	expect_paths(rsub, "../..", r, rgd, rgd);
	expect_paths(dir, "lnk/a/../a/b", r, rgd, rgd);
	/* A linked worktree: its Git directory below the common one. */
	expect_paths(lw, NULL, lw, lwgd, rgd);
	expect_paths(lwsub, NULL, lw, lwgd, rgd);
	expect_paths(dir, lwsub, lw, lwgd, rgd);
	/* core.worktree. */
	expect_paths(cw, NULL, cw, meta, meta);
	expect_paths(cwsub, NULL, cw, meta, meta);
	/* A symlinked .git. */
	expect_paths(sg, NULL, sg, sggd, sggd);
	expect_paths(sgsub, NULL, sg, sggd, sggd);
	expect_paths(dir, sgsub, sg, sggd, sggd);
	cr_assert_eq(chdir("/"), 0);
	fx_rmrf(dir);
	sw_free(file);
	sw_free(sgsub);
	sw_free(sggd);
	sw_free(sg);
	sw_free(meta);
	sw_free(cwsub);
	sw_free(cw);
	sw_free(lwgd);
	sw_free(lwsub);
	sw_free(lw);
	sw_free(sublnk);
	sw_free(lnksub);
	sw_free(lnk);
	sw_free(rsub);
	sw_free(rgd);
	sw_free(r);
	sw_free(dir);
}
