/* io/adapter*: transaction outcomes under injected failures, allocation
 * failures, and the doctor's parsers. */

#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <openssl/evp.h>
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
#include "tests/support/tmp.h"

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
	char tmpl[4096], *d, *git;

	test_tmp_name(tmpl, sizeof(tmpl), "sw-adapter-XXXXXX");
	d = mkdtemp(tmpl);

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

/* ---- the ownership digests ---- */

static char *manifests[ADAPTER_NHOSTS + 1];
static size_t nmanifests;

static int find_manifest(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	static const char tail[] = "/slipway/ownership-manifest.json";
	size_t n = strlen(path);

	(void)st;
	(void)ftw;
	if (type == FTW_F && n > strlen(tail) && strcmp(path + n - strlen(tail), tail) == 0) {
		cr_assert_lt(nmanifests, ADAPTER_NHOSTS, "more manifests than hosts");
		manifests[nmanifests++] = strdup(path);
	}
	return 0;
}

/* The sha256 of the file at `path` as 64 hex digits, hashed here with
 * OpenSSL (not with the code under test). */
static void file_sha256(const char *path, char out[65])
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	char *data;
	size_t len = 0;
	FILE *f = fopen(path, "rb");
	struct stat st;

	cr_assert_not_null(f, "%s is claimed but cannot be read", path);
	cr_assert_eq(fstat(fileno(f), &st), 0);
	cr_assert_not_null(data = malloc((size_t)st.st_size + 1));
	len = fread(data, 1, (size_t)st.st_size, f);
	fclose(f);
	cr_assert_eq(len, (size_t)st.st_size);
	cr_assert_eq(EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL), 1);
	free(data);
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* Every host installed in one go; returns the files written (rep->written,
 * which the caller releases). */
static void install_all(const char *root, struct adapter_report *rep)
{
	char *tools[] = { (char *)"all", NULL };
	char *git = sw_asprintf("%s/.git", root);
	struct adapter_request req = { root, tools, 1, 1, "ide", 0, cli_adapter_texts(), 0, git };
	struct sw_error err = SW_ERROR_INIT;

	memset(rep, 0, sizeof(*rep));
	cr_assert_eq(adapter_install(rep, &req, &err), 0, "%s", err.msg);
	cr_assert_eq(rep->outcome, ADAPTER_TXN_COMMITTED);
	sw_free(git);
}

/* An install records in each host's ownership manifest, for every file it
 * wrote (the host's own records in its slipway/ folder aside), the sha256
 * of the very bytes on disk; uninstall then finds every one pristine and
 * removes it, with the records. */
Test(io_adapter, install_records_the_digest_of_every_file_it_writes)
{
	struct adapter_report rep, un;
	struct sw_error err = SW_ERROR_INIT;
	char *root = scratch();
	size_t owner = 0, w;
	json_t **docs;

	install_all(root, &rep);
	nmanifests = 0;
	cr_assert_eq(nftw(root, find_manifest, 16, FTW_PHYS), 0);
	cr_assert_eq(nmanifests, ADAPTER_NHOSTS, "one manifest per host");
	cr_assert_not_null(docs = calloc(nmanifests, sizeof(*docs)));
	for (size_t m = 0; m < nmanifests; m++) {
		json_t *f;
		size_t i;

		docs[m] = json_load_file(manifests[m], JSON_REJECT_DUPLICATES, NULL);
		cr_assert(json_is_array(json_object_get(docs[m], "files")), "%s", manifests[m]);
		cr_assert_gt(json_array_size(json_object_get(docs[m], "files")), 0, "%s", manifests[m]);
		json_array_foreach(json_object_get(docs[m], "files"), i, f) {
			const char *rel = json_string_value(json_object_get(f, "path"));
			const char *sha = json_string_value(json_object_get(f, "sha256"));
			char *abs = sw_asprintf("%s/%s", root, rel), want[65];

			cr_assert_not_null(rel);
			cr_assert_not_null(sha, "%s: %s has no digest", manifests[m], rel);
			file_sha256(abs, want);
			cr_assert_str_eq(sha, want, "%s: the digest recorded for %s is not its bytes'",
					 manifests[m], rel);
			sw_free(abs);
			for (w = 0; w < rep.written.n && strcmp(rep.written.v[w], rel) != 0; w++)
				;
			cr_assert_lt(w, rep.written.n, "%s claims %s, which was not written",
				     manifests[m], rel);
		}
	}
	/* Nothing written goes unclaimed. */
	for (w = 0; w < rep.written.n; w++) {
		const char *rel = rep.written.v[w];
		int found = 0;

		/* The host's own records beside its manifest (the manifest,
		 * the sentinel, the folders install created) claim nothing. */
		if (strstr(rel, "/slipway/") != NULL) {
			owner++;
			continue;
		}
		for (size_t m = 0; m < nmanifests && !found; m++) {
			json_t *f;
			size_t i;

			json_array_foreach(json_object_get(docs[m], "files"), i, f)
				found |= strcmp(json_string_value(json_object_get(f, "path")), rel) == 0;
		}
		cr_assert(found, "%s was written but no manifest claims it", rel);
	}
	cr_assert_geq(owner, 2 * ADAPTER_NHOSTS, "a manifest and a sentinel per host");
	/* Each digest holds, so uninstall removes every claimed file. */
	{
		char *tools[] = { (char *)"all", NULL };
		char *git = sw_asprintf("%s/.git", root);
		struct adapter_request req = { root, tools, 1, 1, NULL, 0, cli_adapter_texts(), 0, git };

		memset(&un, 0, sizeof(un));
		cr_assert_eq(adapter_uninstall(&un, &req, &err), 0, "%s", err.msg);
		sw_free(git);
		cr_assert_eq(un.preserved.n, 0, "uninstall kept %s as modified",
			     un.preserved.n ? un.preserved.v[0] : "");
		adapter_report_release(&un);
	}
	for (size_t m = 0; m < nmanifests; m++) {
		json_t *f;
		size_t i;

		json_array_foreach(json_object_get(docs[m], "files"), i, f) {
			char *abs = sw_asprintf("%s/%s", root, json_string_value(json_object_get(f, "path")));

			cr_assert_eq(access(abs, F_OK), -1, "uninstall left %s", abs);
			sw_free(abs);
		}
		json_decref(docs[m]);
		free(manifests[m]);
	}
	free(docs);
	adapter_report_release(&rep);
	drop(root);
}

static int has(const struct adapter_strs *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], v) == 0)
			return 1;
	return 0;
}

/* Refresh and uninstall hash each claimed file and compare it with its
 * ownership digest: a file whose bytes changed since install is the
 * user's (kept, reported preserved, its bytes untouched); one still as
 * installed is slipway's (rewritten, removed). */
Test(io_adapter, refresh_and_uninstall_keep_a_claimed_file_whose_bytes_changed)
{
	static const char *const edited_rel = ".claude/skills/slipway-review/SKILL.md";
	static const char *const pristine_rel = ".claude/skills/slipway-run/SKILL.md";

	for (int refresh = 0; refresh < 2; refresh++) {
		struct adapter_report rep;
		struct sw_error err = SW_ERROR_INIT;
		char *root = scratch(), *edited = NULL, *pristine = NULL, before[65], after[65];
		FILE *f;

		cr_assert_eq(install(root, "claude", 0, &rep, &err), 0, "%s", err.msg);
		adapter_report_release(&rep);
		cr_assert_not_null(edited = sw_asprintf("%s/%s", root, edited_rel));
		cr_assert_not_null(pristine = sw_asprintf("%s/%s", root, pristine_rel));
		cr_assert_not_null(f = fopen(edited, "ab"));
		fputs("\nA line the user added.\n", f);
		cr_assert_eq(fclose(f), 0);
		file_sha256(edited, before);
		if (refresh) {
			cr_assert_eq(unlink(pristine), 0);
			cr_assert_eq(install(root, "claude", 1, &rep, &err), 0, "%s", err.msg);
			cr_assert(has(&rep.written, pristine_rel), "refresh did not restore %s", pristine_rel);
		} else {
			cr_assert_eq(uninstall(root, "claude", &rep, &err), 0, "%s", err.msg);
			cr_assert_eq(access(pristine, F_OK), -1, "uninstall kept a file still as installed");
		}
		cr_assert_eq(access(edited, F_OK), 0, "%s removed a file the user changed",
			     refresh ? "refresh" : "uninstall");
		file_sha256(edited, after);
		cr_assert_str_eq(after, before, "%s rewrote a file the user changed",
				 refresh ? "refresh" : "uninstall");
		cr_assert(has(&rep.preserved, edited_rel), "%s does not report %s preserved",
			  refresh ? "refresh" : "uninstall", edited_rel);
		adapter_report_release(&rep);
		sw_free(edited);
		sw_free(pristine);
		drop(root);
	}
}

/* Every row of the hosts table says where it comes from: the host's
 * program or documentation, the version checked, and at least one page;
 * no two hosts register in the same file. */
Test(io_adapter, every_host_row_cites_its_source_and_version)
{
	const char *configs[ADAPTER_NHOSTS * ADAPTER_NMCP];
	size_t nconfigs = 0;
	struct adapter_host_doc h;

	for (size_t i = 0; adapter_host_doc(&h, i) == 0; i++) {
		cr_expect(h.product && *h.product, "%s", h.id);
		cr_expect(h.checked && *h.checked, "%s", h.id);
		cr_expect_gt(h.ndocs, 0, "%s", h.id);
		for (size_t k = 0; k < h.ndocs; k++)
			cr_expect(strncmp(h.docs[k], "https://", 8) == 0, "%s: %s", h.id, h.docs[k]);
		cr_expect_leq(h.nmcp, ADAPTER_NMCP);
		for (size_t k = 0; k < h.nmcp; k++) {
			for (size_t j = 0; j < nconfigs; j++)
				cr_expect_str_neq(configs[j], h.mcp_config[k], "%s", h.id);
			configs[nconfigs++] = h.mcp_config[k];
		}
	}
}

/* install --mcp and uninstall in a user's TOML and JSONC files, with the
 * n-th allocation failing: reported, never a crash, never a commit. */
Test(io_adapter, allocation_failures_in_toml_and_jsonc_registrations_are_reported)
{
	static const struct { const char *tool, *rel, *text; } rows[] = {
		{ "codex", ".codex/config.toml", "# mine\nmodel = \"o3\"\n[mcp_servers.x]\ncommand = \"x\"\n" },
		{ "kilo", "kilo.jsonc", "{\n  // mine\n  \"mcp\": {\"x\": {\"type\": \"local\", \"command\": [\"x\"]},},\n}\n" },
	};

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		for (int op = 0; op < 2; op++) {
			unsigned long n;

			for (n = 1; n < 20000; n++) {
				char *tools[] = { (char *)rows[r].tool, NULL };
				struct adapter_request req = { NULL, tools, 1, 1, NULL, 0, cli_adapter_texts(), 1 };
				struct adapter_report rep;
				struct sw_error err = SW_ERROR_INIT;
				char *root = scratch(), *path = sw_asprintf("%s/%s", root, rows[r].rel), *dir, *git;
				FILE *f;
				int rc;

				dir = strdup(path);
				*strrchr(dir, '/') = '\0';
				mkdir(dir, 0755);
				free(dir);
				cr_assert_not_null(f = fopen(path, "w"));
				fputs(rows[r].text, f);
				fclose(f);
				req.root = root;
				req.git_dir = git = sw_asprintf("%s/.git", root);
				memset(&rep, 0, sizeof(rep));
				if (op == 1) {
					cr_assert_eq(adapter_install(&rep, &req, &err), 0, "%s", err.msg);
					adapter_report_release(&rep);
					memset(&rep, 0, sizeof(rep));
				}
				sw_alloc_fail_after(n);
				rc = op == 0 ? adapter_install(&rep, &req, &err) : adapter_uninstall(&rep, &req, &err);
				sw_alloc_fail_after(0);
				if (rc < 0)
					cr_assert_neq(rep.outcome, ADAPTER_TXN_COMMITTED);
				adapter_report_release(&rep);
				sw_free(path);
				sw_free(git);
				drop(root);
				if (rc == 0)
					break;
			}
			cr_assert_lt(n, 20000, "%s never succeeded", rows[r].tool);
		}
	}
}

/* ---- after a kill: the intent record and its recovery ---- */

static const char *USER_MCP = "{\"mcpServers\":{\"mine\":{\"command\":\"keep-me\"}}}\n";

static void put(const char *root, const char *rel, const char *text)
{
	char *p = sw_asprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "w");

	cr_assert_not_null(f, "%s", p);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	sw_free(p);
}

static int has_text(const char *root, const char *rel, const char *needle)
{
	char *p = sw_asprintf("%s/%s", root, rel), buf[8192];
	FILE *f = fopen(p, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	sw_free(p);
	return strstr(buf, needle) != NULL;
}

static int record_exists(const char *root)
{
	char *p = sw_asprintf("%s/.git/slipway/" ADAPTER_INTENT_NAME, root);
	int yes = access(p, F_OK) == 0;

	sw_free(p);
	return yes;
}

/* A fixed path, so that the MCP entry (which names the root) is the same
 * in every tree compared. */
static char *fixed_root(void)
{
	char base[4096], *root, *git;

	test_tmp_name(base, sizeof(base), "sw-adapter-crash-");
	root = sw_asprintf("%s%ld", base, (long)getpid());

	drop(strdup(root));
	cr_assert_eq(mkdir(root, 0755), 0);
	git = sw_asprintf("%s/.git", root);
	cr_assert_eq(mkdir(git, 0755), 0);
	sw_free(git);
	return root;
}

struct events {
	size_t n[ADAPTER_TXN_EV_FOLDER + 1];
};

static int count_event(enum adapter_txn_event ev, const char *path, void *payload)
{
	struct events *e = payload;

	(void)path;
	e->n[ev]++;
	return 0;
}

/* Recovers `root` as the next install or uninstall would; the phase of
 * the record found. */
static enum adapter_intent_phase recover(const char *root, struct events *ev)
{
	struct adapter_intent_dir *d = intents_of(root);
	struct adapter_intent found;
	struct sw_error err = SW_ERROR_INIT;
	enum adapter_intent_phase phase;

	memset(ev, 0, sizeof(*ev));
	cr_assert_eq(adapter_txn_recover(&found, root, d, 0, count_event, ev, &err), 0, "%s", err.msg);
	phase = found.phase;
	adapter_intent_release(&found);
	adapter_intent_dir_close(d);
	return phase;
}

enum crash_op { CRASH_INSTALL, CRASH_REFRESH, CRASH_UNINSTALL };

static void crash_setup(const char *root, enum crash_op op)
{
	struct adapter_report rep;
	struct sw_error err = SW_ERROR_INIT;

	put(root, ".mcp.json", USER_MCP);
	if (op == CRASH_INSTALL)
		return;
	cr_assert_eq(install_mcp(root, "claude", 0, op == CRASH_UNINSTALL, &rep, &err), 0, "%s", err.msg);
	adapter_report_release(&rep);
	if (op == CRASH_REFRESH) {
		char *p = sw_asprintf("%s/.claude/skills/slipway-run/SKILL.md", root);

		cr_assert_eq(unlink(p), 0);
		sw_free(p);
		put(root, ".claude/skills/slipway-review/SKILL.md", "my own review\n");
	}
}

static int crash_run(const char *root, enum crash_op op, struct sw_error *err)
{
	struct adapter_report rep;
	int rc = op == CRASH_UNINSTALL ? uninstall(root, "claude", &rep, err)
				       : install_mcp(root, "claude", op == CRASH_REFRESH, 1, &rep, err);

	adapter_report_release(&rep);
	return rc;
}

/* Stops the operation at every step in turn as a kill would; the recovery
 * then leaves the tree exactly as before (a record still prepared) or as
 * an uninterrupted run leaves it (committed), with no record and no
 * staged copy or backup, and the user's .mcp.json keeps "mine". */
static void every_kill_recovered(enum crash_op op)
{
	char *root = fixed_root(), *before, *after;
	struct sw_error err = SW_ERROR_INIT;
	size_t back = 0, forward = 0;
	unsigned n;

	crash_setup(root, op);
	before = snapshot(root);
	cr_assert_eq(crash_run(root, op, &err), 0, "%s", err.msg);
	after = snapshot(root);
	for (n = 1; n < 500; n++) {
		struct events ev;
		char *got;
		int rc;

		sw_free(root);
		root = fixed_root();
		crash_setup(root, op);
		adapter_txn_crash_step(n);
		rc = crash_run(root, op, &err);
		adapter_txn_crash_step(0);
		if (rc == 0)
			break;
		cr_assert(record_exists(root), "step %u: killed, and no record names the batch", n);
		switch (recover(root, &ev)) {
		case ADAPTER_INTENT_PREPARED:
			back++;
			got = snapshot(root);
			cr_assert_str_eq(got, before, "step %u: the rollback left another tree", n);
			break;
		case ADAPTER_INTENT_COMMITTED:
			forward++;
			got = snapshot(root);
			cr_assert_str_eq(got, after, "step %u: the roll forward left another tree", n);
			break;
		case ADAPTER_INTENT_NONE:
		default:
			cr_assert_fail("step %u: no record found", n);
			return;
		}
		cr_assert_eq(ev.n[ADAPTER_TXN_EV_KEPT], 0, "step %u: a file was kept", n);
		cr_assert_not(record_exists(root), "step %u: the record stayed", n);
		cr_assert(has_text(root, ".mcp.json", "keep-me"), "step %u: the user's server is gone", n);
		free(got);
		err = (struct sw_error)SW_ERROR_INIT;
	}
	cr_assert_gt(back, 3, "no kill before the commit");
	cr_assert_gt(forward, 0, "no kill after the commit");
	cr_assert_lt(n, 500);
	free(before);
	free(after);
	drop(root);
}

Test(io_adapter, a_killed_install_is_rolled_back_or_forward_at_every_step)
{
	every_kill_recovered(CRASH_INSTALL);
}

Test(io_adapter, a_killed_refresh_is_rolled_back_or_forward_at_every_step)
{
	every_kill_recovered(CRASH_REFRESH);
}

Test(io_adapter, a_killed_uninstall_is_rolled_back_or_forward_at_every_step)
{
	every_kill_recovered(CRASH_UNINSTALL);
}

/* Kills after the user's .mcp.json was moved aside, then changes what the
 * recovery finds: a target the user wrote meanwhile, a backup that is not
 * what the record says.  Nothing of the user's is deleted or replaced;
 * what cannot be proved is kept and reported. */
Test(io_adapter, recovery_keeps_what_it_cannot_prove_is_its_own)
{
	char *root = fixed_root(), *bak = NULL;
	struct sw_error err = SW_ERROR_INIT;
	struct events ev;
	unsigned n;

	/* The first step that leaves .mcp.json moved aside and not replaced. */
	for (n = 1; n < 500; n++) {
		char *p = sw_asprintf("%s/.mcp.json", root);
		int gone;

		sw_free(root);
		sw_free(p);
		root = fixed_root();
		crash_setup(root, CRASH_INSTALL);
		adapter_txn_crash_step(n);
		cr_assert_lt(crash_run(root, CRASH_INSTALL, &err), 0, "never killed with .mcp.json aside");
		adapter_txn_crash_step(0);
		p = sw_asprintf("%s/.mcp.json", root);
		gone = access(p, F_OK) < 0;
		sw_free(p);
		if (gone)
			break;
		err = (struct sw_error)SW_ERROR_INIT;
	}
	err = (struct sw_error)SW_ERROR_INIT;
	/* The user writes a new .mcp.json before anything recovers. */
	put(root, ".mcp.json", "{\"mcpServers\":{\"new\":{}}}\n");
	cr_assert_eq(recover(root, &ev), ADAPTER_INTENT_PREPARED);
	cr_assert_eq(ev.n[ADAPTER_TXN_EV_KEPT], 1, "the backup is reported");
	cr_assert_eq(ev.n[ADAPTER_TXN_EV_RESTORED], 0);
	cr_assert(has_text(root, ".mcp.json", "\"new\""), "the user's new file was replaced");
	{
		struct adapter_report rep;
		char *git = sw_asprintf("%s/.git", root), *tools[] = { (char *)"claude" };
		struct adapter_request req = { root, tools, 1, 1, NULL, 0, cli_adapter_texts(), 1, git };

		/* The next install reports the kept backup by name, every time. */
		memset(&rep, 0, sizeof(rep));
		cr_assert_eq(adapter_install(&rep, &req, &err), 0, "%s", err.msg);
		cr_assert_eq(rep.recovery.n, 1);
		cr_assert(strstr(rep.recovery.v[0], "..mcp.json.slipway-bak-") == rep.recovery.v[0],
			  "%s", rep.recovery.v[0]);
		bak = sw_asprintf("%s/%s", root, rep.recovery.v[0]);
		cr_assert(has_text(root, rep.recovery.v[0], "keep-me"));
		adapter_report_release(&rep);
		memset(&rep, 0, sizeof(rep));
		cr_assert_eq(adapter_uninstall(&rep, &req, &err), 0, "%s", err.msg);
		cr_assert_eq(rep.recovery.n, 1, "the kept backup is reported again");
		adapter_report_release(&rep);
		sw_free(git);
	}
	cr_assert_eq(access(bak, F_OK), 0, "the user's backup was deleted");
	sw_free(bak);
	drop(root);
}

Test(io_adapter, a_leftover_no_record_names_is_collected_only_when_it_holds_generated_bytes)
{
	char *root = scratch(), *ours = NULL, *theirs = NULL, *alive = NULL;
	struct adapter_report rep;
	struct sw_error err = SW_ERROR_INIT;
	static char gen[1 << 20];
	size_t len;
	FILE *f;

	cr_assert_eq(install(root, "claude", 0, &rep, &err), 0, "%s", err.msg);
	adapter_report_release(&rep);
	f = fopen(ours = sw_asprintf("%s/.claude/skills/slipway-run/SKILL.md", root), "r");
	cr_assert_not_null(f);
	len = fread(gen, 1, sizeof(gen) - 1, f);
	cr_assert(len > 0 && len < sizeof(gen) - 1);
	gen[len] = '\0';
	fclose(f);
	sw_free(ours);
	/* Left by processes long gone (pid 1 is never a slipway here, but is
	 * alive: it stands for a process that still runs). */
	put(root, ".claude/skills/slipway-run/.SKILL.md.slipway-bak-999999999-3", gen);
	put(root, ".claude/skills/slipway-run/.SKILL.md.slipway-tmp-999999999-4", "half a fi");
	put(root, ".claude/skills/slipway-run/.SKILL.md.slipway-bak-1-5", gen);
	ours = sw_asprintf("%s/.claude/skills/slipway-run/.SKILL.md.slipway-bak-999999999-3", root);
	theirs = sw_asprintf("%s/.claude/skills/slipway-run/.SKILL.md.slipway-tmp-999999999-4", root);
	alive = sw_asprintf("%s/.claude/skills/slipway-run/.SKILL.md.slipway-bak-1-5", root);
	cr_assert_eq(install(root, "claude", 1, &rep, &err), 0, "%s", err.msg);
	cr_assert_eq(access(ours, F_OK), -1, "generated bytes of a dead process stay");
	cr_assert_eq(access(theirs, F_OK), 0, "unproven bytes were deleted");
	cr_assert_eq(access(alive, F_OK), 0, "a live process's file was deleted");
	cr_assert_eq(rep.recovery.n, 2);
	adapter_report_release(&rep);
	sw_free(ours);
	sw_free(theirs);
	sw_free(alive);
	drop(root);
}

Test(io_adapter, the_intent_record_is_read_strictly)
{
	static const char *const bad[] = {
		"{\"version\":2,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[]}",
		"{\"version\":1,\"phase\":\"maybe\",\"operation\":\"\",\"pid\":1,\"ops\":[]}",
		"{\"version\":1,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[],\"x\":1}",
		"{\"version\":1,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[{\"path\":\"../a\",\"kind\":\"remove\",\"bak\":\"b\",\"prior\":\"unknown\"}]}",
		"{\"version\":1,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[{\"path\":\"/a\",\"kind\":\"remove\",\"bak\":\"b\",\"prior\":\"unknown\"}]}",
		"{\"version\":1,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[{\"path\":\"a\",\"kind\":\"remove\",\"bak\":\"x/b\",\"prior\":\"unknown\"}]}",
		"{\"version\":1,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[{\"path\":\"a\",\"kind\":\"remove\",\"prior\":\"unknown\"}]}",
		"{\"version\":1,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[{\"path\":\"a\",\"kind\":\"write\",\"tmp\":\"t\",\"prior\":\"missing\",\"size\":1}]}",
		"{\"version\":1,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[],\"dirs\":[\"a/../b\"]}",
		"{\"version\":1,\"phase\":\"prepared\",\"operation\":\"\",\"pid\":1,\"ops\":[]} x",
	};
	struct adapter_intent in, back;
	struct adapter_intent_op op;
	struct sw_error err = SW_ERROR_INIT;
	char *hosts[] = { (char *)"claude" }, *dirs[] = { (char *)".claude", (char *)".claude/skills" };
	char *text;
	size_t len = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = (struct sw_error)SW_ERROR_INIT;
		cr_expect_eq(adapter_intent_decode(&back, bad[i], strlen(bad[i]), &err), SW_EPARSE, "%zu", i);
	}
	memset(&op, 0, sizeof(op));
	op.path = (char *)".mcp.json";
	op.kind = ADAPTER_INTENT_WRITE;
	op.tmp = (char *)"..mcp.json.slipway-tmp-7-1";
	op.bak = (char *)"..mcp.json.slipway-bak-7-1";
	op.prior = ADAPTER_PRIOR_SHA256;
	memset(op.prior_sha, 'a', SW_HEX_LEN - 1);
	memset(op.new_sha, 'b', SW_HEX_LEN - 1);
	op.size = 115;
	in = (struct adapter_intent){ ADAPTER_INTENT_COMMITTED, (char *)"install", hosts, 1, 7, &op, 1,
				      dirs, 2, NULL, 0 };
	cr_assert_not_null(text = adapter_intent_encode(&in, &len));
	cr_assert_eq(adapter_intent_decode(&back, text, len, &err), 0, "%s", err.msg);
	cr_assert_eq(back.phase, ADAPTER_INTENT_COMMITTED);
	cr_assert_str_eq(back.operation, "install");
	cr_assert_eq(back.nops, 1);
	cr_assert_str_eq(back.ops[0].bak, op.bak);
	cr_assert_str_eq(back.ops[0].prior_sha, op.prior_sha);
	cr_assert_str_eq(back.ops[0].new_sha, op.new_sha);
	cr_assert_eq(back.ops[0].size, 115);
	cr_assert_eq(back.ndirs, 2);
	adapter_intent_release(&back);
	sw_free(text);
}

Test(io_adapter, a_second_batch_waits_for_the_lock_and_doctor_sees_it_running)
{
	char *root = scratch();
	struct adapter_intent_dir *held = intents_of(root), *ro = NULL, *again = NULL;
	struct sw_error err = SW_ERROR_INIT;
	char *dir = sw_asprintf("%s/.git/slipway", root);

	cr_assert_eq(adapter_intent_dir_open(&ro, dir, 0, &err), 0, "%s", err.msg);
	cr_assert(adapter_intent_dir_busy(ro));
	cr_assert_eq(adapter_intent_dir_open(&again, dir, 1, &err), SW_EBUSY);
	cr_assert_null(again);
	adapter_intent_dir_close(held);
	cr_assert_not(adapter_intent_dir_busy(ro));
	adapter_intent_dir_close(ro);
	sw_free(dir);
	drop(root);
}
