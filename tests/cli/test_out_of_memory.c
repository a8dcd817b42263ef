/* status and list when memory runs out: each allocation the command makes
 * is failed once in turn, in process, with stdout and stderr caught in
 * files.  A failure either changes nothing (the same bytes as without it,
 * exit 0) or ends as one cliError on stderr with exit status 3 and nothing
 * on stdout: never exit 1 without JSON, never exit 0 with a document that
 * lost something. */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "io/util/err.h"
#include "service/adapters.h"
#include "service/ops.h"
#include "tests/support/vcs_fixture.h"
#include "tests/support/tmp.h"

static char *repo;
static char *ids[2];

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Starts a Run and returns its id (sw_malloc'd). */
static char *start(const char *goal)
{
	struct svc_start_request req = { .root = repo, .goal = goal };
	struct svc_result res;
	json_t *doc;
	char *id;

	cr_assert_eq(svc_op_start(&req, &res), 0, "%s", res.error);
	doc = json_loads(res.document, 0, NULL);
	cr_assert_not_null(doc);
	id = sw_strdup(str(doc, "run_id"));
	json_decref(doc);
	svc_result_release(&res);
	return id;
}

/* Two Runs (one stopped) and claude's capabilities installed, so the
 * listing has an order to sort, a summary to trust and a report to
 * render, and list has manifests to read. */
static void setup(void)
{
	struct svc_adapter_request inst = { .tools = (char *[]){ (char *)"claude" }, .ntools = 1,
					    .tools_given = 1 };
	struct svc_adapters_found found = { 0 };
	struct svc_stop_request stop = { 0 };
	struct svc_result res;

	sw_alloc_init();
	repo = fx_tmpdir();
	fx_sh(repo, "git init -q && echo a > a.c && git add a.c && git commit -q -m init");
	ids[0] = start("Add a --verbose flag.");
	ids[1] = start("Write the docs.");
	stop.root = repo;
	stop.run_id = ids[1];
	cr_assert_eq(svc_op_stop(&stop, &res), 0, "%s", res.error);
	svc_result_release(&res);
	inst.root = repo;
	inst.texts = cli_adapter_texts();
	cr_assert_eq(svc_op_install(&inst, &found, &res), 0, "%s", res.error);
	svc_adapters_found_release(&found);
	svc_result_release(&res);
	fx_sh(repo, "echo b >> a.c");
}

static void teardown(void)
{
	for (int i = 0; i < 2; i++)
		sw_free(ids[i]);
	fx_rmrf(repo);
	sw_free(repo);
}

TestSuite(cli_out_of_memory, .init = setup, .fini = teardown);

struct ran {
	int rc;
	char *out, *err;	/* malloc'd */
};

static char *slurp(int fd)
{
	off_t n = lseek(fd, 0, SEEK_END);
	char *buf = malloc((size_t)n + 1);

	cr_assert_not_null(buf);
	cr_assert_eq(pread(fd, buf, (size_t)n, 0), n);
	buf[n] = '\0';
	close(fd);
	return buf;
}

static int scratch_file(void)
{
	char name[4096];
	int fd;

	test_tmp_name(name, sizeof(name), "sw-oom-XXXXXX");
	fd = mkstemp(name);

	cr_assert_geq(fd, 0);
	unlink(name);
	return fd;
}

/* Runs `fn` (a command of cli/commands.h) on argv as main would, with
 * the n-th allocation failing (0: none), stdout and stderr caught. */
static struct ran run(int (*fn)(int, char **), char **argv, unsigned long n)
{
	int out = scratch_file(), err = scratch_file();
	int saved_out = dup(1), saved_err = dup(2), argc = 0;
	struct ran r;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	sw_alloc_fail_after(n);
	r.rc = fn(argc, argv);
	/* main's own check of stdout after the command */
	if (fflush(stdout) == EOF && r.rc == 0)
		r.rc = 1;
	sw_alloc_fail_after(0);
	/* main's end of the human output (the seam's stdout filter, a stream
	 * on Linux, a file drained here on POSIX) */
	if (cli_human_end() < 0 && r.rc == 0)
		r.rc = 1;
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	r.out = slurp(out);
	r.err = slurp(err);
	return r;
}

static void ran_release(struct ran *r)
{
	free(r->out);
	free(r->err);
}

/* The codes memory running out is reported with: in discovery, in opening
 * or replaying the store (a reason of the system), in building the
 * answer, and list's own. */
static int is_memory_code(const char *code)
{
	static const char *const codes[] = { "git_repository_unavailable", "runstore_unavailable",
					     "runtime_error", "list_failed", NULL };

	for (size_t i = 0; code && codes[i]; i++)
		if (strcmp(code, codes[i]) == 0)
			return 1;
	return 0;
}

/* Fails each allocation of the command in turn; returns how many failures
 * ended as a cliError. */
static unsigned walk(int (*fn)(int, char **), const char *const *args)
{
	char *argv[16];
	struct ran base;
	unsigned reported = 0;
	unsigned long n;
	size_t k = 0;

	for (; args[k] && k + 1 < sizeof(argv) / sizeof(argv[0]); k++)
		argv[k] = (char *)args[k];
	argv[k] = NULL;
	base = run(fn, argv, 0);

	cr_assert_eq(base.rc, 0, "%s: %s", argv[0], base.err);
	cr_assert_str_empty(base.err, "%s: %s", argv[0], base.err);
	cr_assert_str_not_empty(base.out);
	for (n = 1; n < 100000; n++) {
		unsigned long before = sw_alloc_failures();
		struct ran r = run(fn, argv, n);
		json_t *doc;

		if (sw_alloc_failures() == before) {
			cr_assert_eq(r.rc, 0, "without a failed allocation: %s", r.err);
			cr_assert_str_eq(r.out, base.out, "without a failed allocation");
			ran_release(&r);
			break;
		}
		cr_assert_neq(r.rc, 1, "%s: allocation %lu: exit 1 (stderr: %s)", argv[0], n, r.err);
		if (r.rc == 0) {
			cr_assert_str_eq(r.out, base.out,
					 "%s: allocation %lu failed, exit 0, and the output differs:\n%s\n---- without it:\n%s",
					 argv[0], n, r.out, base.out);
			cr_assert_str_empty(r.err, "%s: allocation %lu", argv[0], n);
			ran_release(&r);
			continue;
		}
		cr_assert_eq(r.rc, 3, "%s: allocation %lu: exit %d: %s", argv[0], n, r.rc, r.err);
		cr_assert_str_empty(r.out, "%s: allocation %lu: exit 3 after printing", argv[0], n);
		doc = json_loads(r.err, JSON_REJECT_DUPLICATES, NULL);
		cr_assert_not_null(doc, "%s: allocation %lu: not one JSON document: %s", argv[0], n, r.err);
		cr_assert_eq(json_integer_value(json_object_get(doc, "exit_code")), 3, "%s", r.err);
		cr_assert(is_memory_code(str(doc, "code")), "%s: allocation %lu: %s", argv[0], n, r.err);
		cr_assert_not_null(json_object_get(doc, "next"), "%s", r.err);
		reported++;
		json_decref(doc);
		ran_release(&r);
	}
	cr_assert_lt(n, 100000);
	ran_release(&base);
	return reported;
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

Test(cli_out_of_memory, status_listing_as_json, .timeout = 600)
{
	cr_assert_gt(walk(cmd_status, ARGV("status", "--root", repo, "--json")), 0);
}

Test(cli_out_of_memory, status_listing_as_text, .timeout = 600)
{
	cr_assert_gt(walk(cmd_status, ARGV("status", "--root", repo)), 0);
}

Test(cli_out_of_memory, status_of_one_run_as_json, .timeout = 600)
{
	cr_assert_gt(walk(cmd_status, ARGV("status", ids[0], "--root", repo, "--json")), 0);
}

Test(cli_out_of_memory, status_of_one_run_as_text, .timeout = 600)
{
	cr_assert_gt(walk(cmd_status, ARGV("status", ids[0], "--root", repo)), 0);
}

Test(cli_out_of_memory, status_of_one_run_as_markdown, .timeout = 600)
{
	cr_assert_gt(walk(cmd_status, ARGV("status", ids[0], "--root", repo, "--markdown")), 0);
}

Test(cli_out_of_memory, list_as_json, .timeout = 600)
{
	cr_assert_gt(walk(cmd_list, ARGV("list", "--root", repo, "--json")), 0);
}

Test(cli_out_of_memory, list_as_text, .timeout = 600)
{
	cr_assert_gt(walk(cmd_list, ARGV("list", "--root", repo)), 0);
}
