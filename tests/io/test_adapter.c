/* io/adapter*: transaction outcomes under injected failures, allocation
 * failures, and the doctor's parsers. */

#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/adapters/adapter.h"
#include "io/adapters/adapter_doctor.h"
#include "io/adapters/adapter_intent.h"
#include "io/util/digest.h"

TestSuite(io_adapter);

static char *snap_buf;
static size_t snap_len;
static const char *snap_root;

static int snap_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char line[4096], hex[SW_HEX_LEN] = "-";

	(void)ftw;
	/* The Git directory holds the intent record, not the worktree's files. */
	if (strncmp(path + strlen(snap_root), "/.git", 5) == 0)
		return 0;
	if (type == FTW_F) {
		FILE *f = fopen(path, "rb");
		char *data = malloc((size_t)st->st_size + 1);
		size_t n = f && data ? fread(data, 1, (size_t)st->st_size, f) : 0;

		sw_sha256_hex(data, n, hex);
		free(data);
		if (f)
			fclose(f);
	}
	snprintf(line, sizeof(line), "%s %s %o\n", path + strlen(snap_root), hex,
		 (unsigned)(st->st_mode & 07777));
	snap_buf = realloc(snap_buf, snap_len + strlen(line) + 1);
	memcpy(snap_buf + snap_len, line, strlen(line) + 1);
	snap_len += strlen(line);
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sorted listing of every path under `root` with its hash and mode. */
static char *snapshot(const char *root)
{
	char *lines[4096], *out, *p;
	size_t n = 0;

	snap_buf = NULL;
	snap_len = 0;
	snap_root = root;
	cr_assert_eq(nftw(root, snap_one, 16, FTW_PHYS), 0);
	if (snap_buf == NULL)
		return strdup("");
	for (p = strtok_r(snap_buf, "\n", &out); p && n < 4096; p = strtok_r(NULL, "\n", &out))
		lines[n++] = p;
	qsort(lines, n, sizeof(*lines), cmp_line);
	out = calloc(snap_len + n + 1, 1);
	for (size_t i = 0; i < n; i++) {
		strncat(out, lines[i], snap_len);
		strncat(out, "\n", 2);
	}
	free(snap_buf);
	return out;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* A scratch worktree with its Git directory, .git (which holds only the
 * folder of the intent record here). */
static char *scratch(void)
{
	char tmpl[] = "/tmp/sw-adapter-XXXXXX";
	char *d = mkdtemp(tmpl), *git;

	cr_assert_not_null(d);
	git = sw_asprintf("%s/.git", d);
	cr_assert_eq(mkdir(git, 0755), 0);
	sw_free(git);
	return strdup(d);
}

/* The locked folder of the intent record of scratch worktree `root`. */
static struct adapter_intent_dir *intents_of(const char *root)
{
	struct adapter_intent_dir *d = NULL;
	struct sw_error err = SW_ERROR_INIT;
	char *dir = sw_asprintf("%s/.git/slipway", root);

	cr_assert_eq(adapter_intent_dir_open(&d, dir, 1, &err), 0, "%s", err.msg);
	sw_free(dir);
	return d;
}

static void drop(char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static int install_mcp(const char *root, const char *tool, int refresh, int mcp,
		       struct adapter_report *rep, struct sw_error *err)
{
	char *tools[] = { (char *)tool, NULL };
	char *git = sw_asprintf("%s/.git", root);
	struct adapter_request req = { root, tools, 1, 1, strcmp(tool, "kiro") == 0 ? "ide" : NULL,
				       refresh, cli_adapter_texts(), mcp, git };
	int rc;

	memset(rep, 0, sizeof(*rep));
	rc = adapter_install(rep, &req, err);
	sw_free(git);
	return rc;
}

static int install(const char *root, const char *tool, int refresh,
		   struct adapter_report *rep, struct sw_error *err)
{
	return install_mcp(root, tool, refresh, 0, rep, err);
}

static int uninstall(const char *root, const char *tool, struct adapter_report *rep,
		     struct sw_error *err)
{
	char *tools[] = { (char *)tool, NULL };
	char *git = sw_asprintf("%s/.git", root);
	struct adapter_request req = { root, tools, tool != NULL, tool != NULL, NULL, 0, cli_adapter_texts(), 0,
				       git };
	int rc;

	memset(rep, 0, sizeof(*rep));
	rc = adapter_uninstall(rep, &req, err);
	sw_free(git);
	return rc;
}

/* Runs `op` with the n-th mutating step failing, for every n until the
 * operation commits; each failure must leave the tree exactly as before. */
static void every_step_all_or_nothing(const char *tool, int refresh_after_delete, int do_uninstall)
{
	unsigned n;

	for (n = 1; n < 500; n++) {
		struct adapter_report rep;
		struct sw_error err = SW_ERROR_INIT;
		char *root = scratch(), *before, *after;
		int rc;

		if (refresh_after_delete || do_uninstall) {
			cr_assert_eq(install(root, tool, 0, &rep, &err), 0, "%s", err.msg);
			adapter_report_release(&rep);
			if (refresh_after_delete) {
				char *p = sw_asprintf("%s/.claude/skills/slipway-review/SKILL.md", root);

				cr_assert_eq(unlink(p), 0);
				sw_free(p);
			}
		}
		before = snapshot(root);
		adapter_txn_fail_step(n, 0);
		rc = do_uninstall ? uninstall(root, tool, &rep, &err)
				  : install(root, tool, refresh_after_delete, &rep, &err);
		adapter_txn_fail_step(0, 0);
		after = snapshot(root);
		if (rc == 0) {
			cr_assert_eq(rep.outcome, ADAPTER_TXN_COMMITTED);
			cr_assert_neq(strcmp(before, after), 0, "a commit changed nothing");
			cr_assert(rep.written.n + rep.removed.n > 0);
		} else {
			cr_assert_eq(rep.outcome, ADAPTER_TXN_ROLLED_BACK, "step %u: %s", n, err.msg);
			cr_assert_str_eq(after, before, "step %u left a partial change", n);
			cr_assert_eq(rep.written.n, 0);
			cr_assert_eq(rep.removed.n, 0);
		}
		adapter_report_release(&rep);
		free(before);
		free(after);
		drop(root);
		if (rc == 0)
			break;
	}
	cr_assert_gt(n, 3, "the seam never fired");
	cr_assert_lt(n, 500);
}

Test(io_adapter, first_install_is_all_or_nothing_at_every_step)
{
	every_step_all_or_nothing("claude", 0, 0);
}

Test(io_adapter, kiro_install_is_all_or_nothing_at_every_step)
{
	every_step_all_or_nothing("kiro", 0, 0);
}

Test(io_adapter, refresh_is_all_or_nothing_at_every_step)
{
	every_step_all_or_nothing("claude", 1, 0);
}

Test(io_adapter, uninstall_is_all_or_nothing_at_every_step)
{
	every_step_all_or_nothing("codex", 0, 1);
}

Test(io_adapter, failed_undo_is_reported_as_ambiguous)
{
	struct adapter_report rep;
	struct sw_error err = SW_ERROR_INIT;
	char *root = scratch();
	int rc;

	cr_assert_eq(install(root, "claude", 0, &rep, &err), 0);
	adapter_report_release(&rep);
	/* Step 2 of an uninstall moves the second file aside; its undo fails. */
	adapter_txn_fail_step(3, 1);
	rc = uninstall(root, "claude", &rep, &err);
	adapter_txn_fail_step(0, 0);
	cr_assert_lt(rc, 0);
	cr_assert_eq(rep.outcome, ADAPTER_TXN_AMBIGUOUS);
	cr_assert_eq(rep.written.n + rep.removed.n, 0);
	cr_assert_gt(rep.recovery.n, 0);
	cr_assert_str_eq(adapter_txn_outcome_wire(rep.outcome), "ambiguous");
	adapter_report_release(&rep);
	drop(root);
}

Test(io_adapter, guard_failure_changes_nothing_and_is_not_committed)
{
	struct adapter_txn *t = NULL;
	struct sw_error err = SW_ERROR_INIT;
	enum adapter_txn_outcome o;
	char *root = scratch(), *a = sw_asprintf("%s/a", root), *b = sw_asprintf("%s/b", root);
	char *warn = NULL;
	FILE *f = fopen(b, "w");

	struct adapter_intent_dir *d = intents_of(root);

	fputs("x", f);
	fclose(f);
	cr_assert_eq(adapter_txn_new(&t, root, d, &err), 0);
	cr_assert_eq(adapter_txn_write(t, a, "1", 1, 0644, ADAPTER_TXN_EXPECT_MISSING, NULL, &err), 0);
	cr_assert_eq(adapter_txn_write(t, b, "2", 1, 0644, ADAPTER_TXN_EXPECT_MISSING, NULL, &err), 0);
	cr_assert_eq(adapter_txn_apply(t, &o, &warn, &err), SW_ECONFLICT);
	cr_assert_eq(o, ADAPTER_TXN_NOT_COMMITTED);
	cr_assert_eq(access(a, F_OK), -1);
	adapter_txn_free(t);
	adapter_intent_dir_close(d);
	sw_free(a);
	sw_free(b);
	drop(root);
}

Test(io_adapter, a_directory_swapped_for_a_symlink_after_planning_is_refused)
{
	struct adapter_txn *t = NULL;
	struct sw_error err = SW_ERROR_INIT;
	enum adapter_txn_outcome o;
	char *root = scratch(), *other = scratch();
	char *dir = sw_asprintf("%s/d", root), *file = sw_asprintf("%s/d/f", root);
	char *warn = NULL;
	struct adapter_intent_dir *d = intents_of(root);

	cr_assert_eq(adapter_txn_new(&t, root, d, &err), 0);
	cr_assert_eq(adapter_txn_write(t, file, "1", 1, 0644, ADAPTER_TXN_EXPECT_MISSING, NULL, &err), 0);
	cr_assert_eq(symlink(other, dir), 0);
	cr_assert_eq(adapter_txn_apply(t, &o, &warn, &err), SW_EUNSAFE);
	cr_assert_eq(o, ADAPTER_TXN_NOT_COMMITTED);
	{
		char *leak = sw_asprintf("%s/f", other);

		cr_assert_eq(access(leak, F_OK), -1);
		sw_free(leak);
	}
	adapter_txn_free(t);
	adapter_intent_dir_close(d);
	sw_free(dir);
	sw_free(file);
	drop(root);
	drop(other);
}

Test(io_adapter, allocation_failures_are_reported_not_fatal)
{
	for (unsigned long n = 1; n < 5000; n++) {
		struct adapter_report rep;
		struct sw_error err = SW_ERROR_INIT;
		char *root = scratch();
		int rc;

		sw_alloc_fail_after(n);
		rc = install(root, "copilot", 0, &rep, &err);
		sw_alloc_fail_after(0);
		if (rc < 0)
			cr_assert_neq(rep.outcome, ADAPTER_TXN_COMMITTED);
		adapter_report_release(&rep);
		drop(root);
		if (rc == 0)
			return;
	}
	cr_assert_fail("install never succeeded");
}

Test(io_adapter, gh_version_is_the_first_dotted_triple)
{
	int v[3];

	cr_assert(adapter_gh_version_parse("gh version 2.94.1 (2026-01-01)\n", 31, v));
	cr_assert(v[0] == 2 && v[1] == 94 && v[2] == 1);
	cr_assert(adapter_gh_version_parse("v10.0.3,", 8, v));
	cr_assert_eq(v[0], 10);
	cr_assert_not(adapter_gh_version_parse("gh version 2.94 dev", 19, v));
	cr_assert_not(adapter_gh_version_parse("", 0, v));
}

Test(io_adapter, only_credential_free_github_remotes_name_a_repository)
{
	char slug[128];

	cr_assert(adapter_github_slug("https://github.com/octo/repo.git", slug, sizeof(slug)));
	cr_assert_str_eq(slug, "octo/repo");
	cr_assert(adapter_github_slug("git@github.com:octo/my.repo", slug, sizeof(slug)));
	cr_assert_str_eq(slug, "octo/my.repo");
	cr_assert(adapter_github_slug("ssh://git@GitHub.com:22/octo/repo", slug, sizeof(slug)));
	cr_assert_not(adapter_github_slug("https://tok@github.com/octo/repo", slug, sizeof(slug)));
	cr_assert_not(adapter_github_slug("ssh://git:pw@github.com/octo/repo", slug, sizeof(slug)));
	cr_assert_not(adapter_github_slug("https://github.com/octo/repo?x=1", slug, sizeof(slug)));
	cr_assert_not(adapter_github_slug("https://github.com/octo/repo/extra", slug, sizeof(slug)));
	cr_assert_not(adapter_github_slug("https://github.com/octo/..", slug, sizeof(slug)));
	cr_assert_not(adapter_github_slug("http://github.com/octo/repo", slug, sizeof(slug)));
	cr_assert_not(adapter_github_slug("https://gitlab.com/octo/repo", slug, sizeof(slug)));
}

/* ---- races: a directory swapped for a symlink after the guards ---- */

struct swap {
	const char *dir;	/* a directory inside the repository */
	const char *outside;	/* where the symlink then points */
	int point;		/* the race point to act at */
	int done;
	char *before;		/* the outside tree when the race ran */
};

static const char *mirror_from, *mirror_to;

/* Gives `mirror_to` the same tree as `mirror_from`, every file holding the
 * user's own bytes. */
static int mirror_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char *dst = sw_asprintf("%s%s", mirror_to, path + strlen(mirror_from));

	(void)st;
	(void)ftw;
	if (type == FTW_D) {
		cr_assert(mkdir(dst, 0755) == 0 || errno == EEXIST);
	} else {
		FILE *f = fopen(dst, "w");

		cr_assert_not_null(f);
		fputs("the user's own file\n", f);
		fclose(f);
	}
	sw_free(dst);
	return 0;
}

/* Moves the directory away and puts a symlink to a look-alike outside in
 * its place: every name the transaction planned now resolves outside. */
static void swap_for_symlink(int point, void *arg)
{
	struct swap *s = arg;
	char *moved;

	if (point != s->point || s->done++)
		return;
	moved = sw_asprintf("%s.moved", s->dir);
	mirror_from = s->dir;
	mirror_to = s->outside;
	cr_assert_eq(nftw(s->dir, mirror_one, 16, FTW_PHYS), 0);
	s->before = snapshot(s->outside);
	cr_assert_eq(rename(s->dir, moved), 0);
	cr_assert_eq(symlink(s->outside, s->dir), 0);
	sw_free(moved);
}

static void race(const char *tool, const char *capability, int op, int point)
{
	struct adapter_report rep;
	struct sw_error err = SW_ERROR_INIT;
	char *root = scratch(), *outside = scratch();
	char *dir = sw_asprintf("%s/.%s/skills/%s", root, tool, capability);
	struct swap s = { dir, outside, point, 0, NULL };

	cr_assert_eq(install(root, tool, 0, &rep, &err), 0, "%s", err.msg);
	adapter_report_release(&rep);
	if (op == 'r') {	/* the refresh then writes into that directory */
		char *p = sw_asprintf("%s/SKILL.md", dir);

		cr_assert_eq(unlink(p), 0);
		sw_free(p);
	}
	adapter_txn_race_hook(swap_for_symlink, &s);
	if (op == 'u')
		(void)uninstall(root, tool, &rep, &err);
	else
		(void)install(root, tool, 1, &rep, &err);
	adapter_txn_race_hook(NULL, NULL);
	adapter_report_release(&rep);
	cr_assert_eq(s.done, 1, "the race never ran");
	{
		char *after = snapshot(outside);

		cr_assert_str_eq(after, s.before, "%s changed a file outside the repository", tool);
		free(after);
	}
	free(s.before);
	sw_free(dir);
	drop(root);
	drop(outside);
}

Test(io_adapter, uninstall_raced_by_a_symlink_swap_changes_nothing_outside)
{
	race("codex", "slipway-review", 'u', 1);
	race("claude", "slipway-clarify", 'u', 1);
	race("claude", "slipway-clarify", 'u', 2);
}

Test(io_adapter, refresh_raced_by_a_symlink_swap_changes_nothing_outside)
{
	race("claude", "slipway-run", 'r', 1);
	race("claude", "slipway-run", 'r', 2);
}

static void make_symlink_at(int point, void *arg)
{
	struct swap *s = arg;

	if (point != s->point || s->done++)
		return;
	cr_assert_eq(symlink(s->outside, s->dir), 0);
}

Test(io_adapter, first_install_raced_by_a_symlinked_directory_writes_nothing_outside)
{
	struct adapter_report rep;
	struct sw_error err = SW_ERROR_INIT;
	char *root = scratch(), *outside = scratch(), *before;
	char *host = sw_asprintf("%s/.claude", root), *dir = sw_asprintf("%s/.claude/skills", root);
	struct swap s = { dir, outside, 1, 0, NULL };
	int rc;

	cr_assert_eq(mkdir(host, 0755), 0);
	before = snapshot(outside);
	adapter_txn_race_hook(make_symlink_at, &s);
	rc = install(root, "claude", 0, &rep, &err);
	adapter_txn_race_hook(NULL, NULL);
	cr_assert_eq(s.done, 1);
	cr_assert_lt(rc, 0, "the install went through a symlink");
	cr_assert_eq(rep.outcome, ADAPTER_TXN_ROLLED_BACK);
	adapter_report_release(&rep);
	{
		char *after = snapshot(outside);

		cr_assert_str_eq(after, before);
		free(after);
	}
	free(before);
	sw_free(host);
	sw_free(dir);
	drop(root);
	drop(outside);
}

