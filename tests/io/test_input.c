/* Host input readers and validators (io/wire/input.h). */

#include <criterion/criterion.h>
#include <fcntl.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/file.h"
#include "io/wire/input.h"
#include "tests/support/tmp.h"

static char dir[4096];

static void setup(void)
{
	test_tmp_name(dir, sizeof(dir), "slipway-input-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char *cmd = sw_asprintf("rm -rf '%s'", dir);

	cr_assert_eq(system(cmd), 0);
	sw_free(cmd);
}

TestSuite(input, .init = setup, .fini = teardown);

static char *path_of(const char *name)
{
	char *p = sw_asprintf("%s/%s", dir, name);

	cr_assert_not_null(p);
	return p;
}

static char *write_file(const char *name, const void *buf, size_t len)
{
	char *p = path_of(name);
	FILE *f = fopen(p, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return p;
}

/* ---- readers ---- */

Test(input, reads_a_regular_file_up_to_the_limit)
{
	char *p = write_file("goal", "hello\0world", 11), *out = NULL;
	size_t len = 0;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(sw_read_regular_file(&out, &len, p, 11, &err), 0, "%s", err.msg);
	cr_assert_eq(len, 11);
	cr_assert_eq(memcmp(out, "hello\0world", 11), 0);
	cr_assert_eq(out[11], '\0');
	sw_free(out);
	cr_assert_eq(sw_read_regular_file(&out, &len, p, 10, &err), SW_ETOOBIG);
	cr_assert_null(out);
	sw_free(p);
}

Test(input, reads_an_empty_file)
{
	char *p = write_file("empty", "", 0), *out = NULL;
	size_t len = 1;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(sw_read_regular_file(&out, &len, p, 10, &err), 0);
	cr_assert_eq(len, 0);
	cr_assert_str_eq(out, "");
	sw_free(out);
	sw_free(p);
}

Test(input, refuses_a_symlink_even_to_a_regular_file)
{
	char *target = write_file("real", "x", 1), *link = path_of("link"), *out = NULL;
	size_t len;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(sw_read_regular_file(&out, &len, link, 10, &err), SW_EUNSAFE);
	cr_assert_null(out);
	sw_free(target);
	sw_free(link);
}

Test(input, refuses_a_fifo_without_blocking)
{
	char *p = path_of("fifo"), *out = NULL;
	size_t len;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(mkfifo(p, 0600), 0);
	cr_assert_eq(sw_read_regular_file(&out, &len, p, 10, &err), SW_EUNSAFE);
	sw_free(p);
}

Test(input, refuses_a_directory_and_reports_a_missing_file)
{
	char *p = path_of("sub"), *missing = path_of("nope"), *out = NULL;
	size_t len;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(mkdir(p, 0700), 0);
	cr_assert_eq(sw_read_regular_file(&out, &len, p, 10, &err), SW_EUNSAFE);
	sw_error_clear(&err);
	cr_assert_eq(sw_read_regular_file(&out, &len, missing, 10, &err), SW_ENOTFOUND);
	sw_free(p);
	sw_free(missing);
}

Test(input, reads_a_pipe_with_a_limit)
{
	int fds[2];
	char *out = NULL;
	size_t len;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], "abcdef", 6), 6);
	close(fds[1]);
	cr_assert_eq(sw_read_fd(&out, &len, fds[0], 5, &err), SW_ETOOBIG);
	close(fds[0]);
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], "abcde", 5), 5);
	close(fds[1]);
	cr_assert_eq(sw_read_fd(&out, &len, fds[0], 5, &err), 0);
	cr_assert_eq(len, 5);
	cr_assert_str_eq(out, "abcde");
	sw_free(out);
	close(fds[0]);
}

Test(input, reads_a_large_file_in_several_steps)
{
	size_t n = 300000, len = 0;
	char *buf = sw_malloc(n), *p, *out = NULL;
	struct sw_error err = SW_ERROR_INIT;

	memset(buf, 'g', n);
	p = write_file("big", buf, n);
	cr_assert_eq(sw_read_regular_file(&out, &len, p, n, &err), 0);
	cr_assert_eq(len, n);
	cr_assert_eq(memcmp(out, buf, n), 0);
	sw_free(out);
	cr_assert_eq(sw_read_regular_file(&out, &len, p, INPUT_MAX_TEXT_BYTES, &err), SW_ETOOBIG);
	sw_free(p);
	sw_free(buf);
}

/* ---- goals ---- */

static void goal_is(const char *goal, size_t len, const char *proto)
{
	struct sw_error err = SW_ERROR_INIT;
	int rc = input_goal_check(goal, len, &err);

	if (proto == NULL) {
		cr_assert_eq(rc, 0, "%s", err.msg);
		return;
	}
	cr_assert_eq(rc, SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], proto, "%s", err.msg);
}

#define GOAL(lit, proto) goal_is(lit, sizeof(lit) - 1, proto)

Test(input, goal_rules_follow_the_reference_order)
{
	GOAL("Fix the bug\tin x\r\n", NULL);
	GOAL("", "goal_required");
	GOAL(" \t\r\n", "goal_required");
	GOAL("\xc2\xa0\xe3\x80\x80", "goal_required");
	GOAL("\xef\xbb\xbf", "goal_required");
	GOAL("fix \xff", "invalid_goal");
	GOAL("fix \x01", "invalid_goal");
	GOAL("fix \x7f", "invalid_goal");
	GOAL("fix \xc2\x9b", "invalid_goal");
	GOAL("fix \0 it", "invalid_goal");
	GOAL("  caf\xc3\xa9  ", NULL);
}

Test(input, goal_encoded_size_is_capped)
{
	size_t n = INPUT_MAX_TEXT_BYTES;
	char *g = sw_malloc(n);

	/* 131071 quotes encode to 262142 + 2 = 262144 bytes: fits */
	memset(g, '"', 131071);
	goal_is(g, 131071, NULL);
	memset(g, '"', 131072);
	goal_is(g, 131072, "action_too_large");
	/* U+2028 is written as \u2028: 6 bytes for 3.  43690 of them encode
	 * to 262140 + 2 quotes; two more ASCII bytes fit, a third does not. */
	{
		size_t k, cnt = 43690;

		for (k = 0; k < cnt; k++)
			memcpy(g + 3 * k, "\xe2\x80\xa8", 3);
		memcpy(g + 3 * cnt, "abc", 3);
		goal_is(g, 3 * cnt + 2, NULL);
		goal_is(g, 3 * cnt + 3, "action_too_large");
	}
	memset(g, 'a', n);
	goal_is(g, n - 2, NULL);
	goal_is(g, n - 1, "action_too_large");
	sw_free(g);
}

Test(input, json_string_size_matches_go_encoding)
{
	cr_assert_eq(input_json_string_size("", 0), 2);
	cr_assert_eq(input_json_string_size("a\"\\", 3), 2 + 1 + 2 + 2);
	cr_assert_eq(input_json_string_size("\b\f\n\r\t", 5), 2 + 10);
	cr_assert_eq(input_json_string_size("\x01\x1f", 2), 2 + 12);
	cr_assert_eq(input_json_string_size("<>&\x7f", 4), 2 + 4);
	cr_assert_eq(input_json_string_size("\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa", 9), 2 + 6 + 6 + 3);
}

Test(input, goal_read_errors_map_to_wire_codes)
{
	struct sw_error rd = SW_ERROR_INIT, err = SW_ERROR_INIT;

	sw_error_set(&rd, SW_ETOOBIG, "big");
	cr_assert_eq(input_goal_read_error(&rd, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "action_too_large");
	sw_error_clear(&rd);
	sw_error_clear(&err);
	sw_error_set(&rd, SW_EUNSAFE, "symlink");
	cr_assert_eq(input_goal_read_error(&rd, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "goal_unavailable");
}

/* ---- answers ---- */

Test(input, answer_text_rules)
{
	struct sw_error err = SW_ERROR_INIT;
	size_t n = INPUT_MAX_TEXT_BYTES;
	char *t = sw_malloc(n + 1);

	cr_assert_eq(input_answer_check("", 0, &err), 0);
	cr_assert_eq(input_answer_check("yes \x01 with controls", 20, &err), 0);
	/* a NUL from a file is valid UTF-8; it only costs six encoded bytes */
	cr_assert_eq(input_answer_check("a\0b", 3, &err), 0);
	cr_assert_eq(input_answer_check("bad \xff", 5, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "invalid_answer");
	sw_error_clear(&err);
	memset(t, 'a', n + 1);
	cr_assert_eq(input_answer_check(t, n - 2, &err), 0);
	cr_assert_eq(input_answer_check(t, n - 1, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "answer_too_large");
	sw_error_clear(&err);
	/* control characters inflate the encoding sixfold */
	memset(t, 1, 43691);
	cr_assert_eq(input_answer_check(t, 43690, &err), 0);	/* 262142 */
	cr_assert_eq(input_answer_check(t, 43691, &err), SW_EPROTO);	/* 262148 */
	cr_assert_str_eq(tbl_err_wire[err.proto], "answer_too_large");
	sw_free(t);
}

static void be64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

/* framed(...) written out by hand. */
static void framed(char out[SW_DIGEST_LEN], const char *const *fields,
		   const size_t *lens, size_t n)
{
	unsigned char buf[4096], md[SHA256_DIGEST_LENGTH];
	size_t off = 0, i;

	for (i = 0; i < n; i++) {
		be64(buf + off, lens[i]);
		off += 8;
		memcpy(buf + off, fields[i], lens[i]);
		off += lens[i];
	}
	SHA256(buf, off, md);
	memcpy(out, "sha256:", 7);
	for (i = 0; i < sizeof(md); i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", md[i]);
}

Test(input, answer_digest_is_the_framed_payload)
{
	const char *scope = "sha256:0000000000000000000000000000000000000000000000000000000000000001";
	const char *f1[] = { "slipway-answer/v1", "act-1", "true", scope, "go ahead" };
	size_t l1[] = { 17, 5, 4, strlen(scope), 8 };
	const char *f2[] = { "slipway-answer/v1", "act-1", "false", "", "a\0b" };
	size_t l2[] = { 17, 5, 5, 0, 3 };
	char want[SW_DIGEST_LEN], got[SW_DIGEST_LEN];
	struct sw_error err = SW_ERROR_INIT;

	framed(want, f1, l1, 5);
	cr_assert_eq(input_answer_digest(got, "act-1", 1, scope, "go ahead", 8, &err), 0);
	cr_assert_str_eq(got, want);
	framed(want, f2, l2, 5);
	cr_assert_eq(input_answer_digest(got, "act-1", 0, NULL, "a\0b", 3, &err), 0);
	cr_assert_str_eq(got, want);
	/* the flag is part of the payload */
	cr_assert_eq(input_answer_digest(got, "act-1", 1, NULL, "a\0b", 3, &err), 0);
	cr_assert_str_neq(got, want);
}

/* ---- run ids and budgets ---- */

Test(input, run_id_grammar)
{
	struct sw_error err = SW_ERROR_INIT;
	char long_id[130];

	cr_assert_eq(input_run_id_check("a", &err), 0);
	cr_assert_eq(input_run_id_check("5b1e8c1e-2f7d-4f57-9a43_1f6f0d7b9a10", &err), 0);
	memset(long_id, 'x', 128);
	long_id[128] = '\0';
	cr_assert_eq(input_run_id_check(long_id, &err), 0);
	long_id[128] = 'x';
	long_id[129] = '\0';
	cr_assert_eq(input_run_id_check(long_id, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "invalid_run_id");
	cr_assert_eq(input_run_id_check("", &err), SW_EPROTO);
	cr_assert_eq(input_run_id_check("a/b", &err), SW_EPROTO);
	cr_assert_eq(input_run_id_check("a.b", &err), SW_EPROTO);
	cr_assert_eq(input_run_id_check("caf\xc3\xa9", &err), SW_EPROTO);
}

static void budget_is(const char *s, long want, const char *proto)
{
	struct sw_error err = SW_ERROR_INIT;
	long got = -99;
	int rc = input_budget_parse(&got, s, &err);

	if (proto == NULL) {
		cr_assert_eq(rc, 0, "%s: %s", s, err.msg);
		cr_assert_eq(got, want, "%s", s);
		return;
	}
	cr_assert_eq(rc, SW_EPROTO, "%s", s);
	cr_assert_str_eq(tbl_err_wire[err.proto], proto, "%s", s);
	cr_assert_eq(got, -99);
}

Test(input, budget_parses_like_go_parseint_base_zero)
{
	budget_is("8", 8, NULL);
	budget_is("1", 1, NULL);
	budget_is("1000", 1000, NULL);
	budget_is("+7", 7, NULL);
	budget_is("0x10", 16, NULL);
	budget_is("010", 8, NULL);
	budget_is("0o17", 15, NULL);
	budget_is("0b101", 5, NULL);
	budget_is("1_000", 1000, NULL);
	budget_is("0", 0, "invalid_budget");
	budget_is("-3", 0, "invalid_budget");
	budget_is("1001", 0, "invalid_budget");
	budget_is("99999999999", 0, "invalid_budget");
	budget_is("", 0, "invalid_usage");
	budget_is("abc", 0, "invalid_usage");
	budget_is("08", 0, "invalid_usage");
	budget_is("1__0", 0, "invalid_usage");
	budget_is("_1", 0, "invalid_usage");
	budget_is("1_", 0, "invalid_usage");
	budget_is("0x", 0, "invalid_usage");
	budget_is("9223372036854775808", 0, "invalid_usage");
	budget_is(" 8", 0, "invalid_usage");
	budget_is("8.0", 0, "invalid_usage");
}

Test(input, an_unbounded_limit_does_not_overflow)
{
	int fds[2];
	char *out = NULL;
	size_t len;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], "abc", 3), 3);
	close(fds[1]);
	cr_assert_eq(sw_read_fd(&out, &len, fds[0], SIZE_MAX, &err), 0, "%s", err.msg);
	cr_assert_eq(len, 3);
	sw_free(out);
	close(fds[0]);
}

Test(input, reader_allocation_failures_are_enomem_and_do_not_leak)
{
	size_t n = 20000, len;
	char *buf = sw_malloc(n), *p, *out = NULL;
	unsigned long k;
	int rc = -1;

	memset(buf, 'q', n);
	p = write_file("walk", buf, n);
	for (k = 1; k < 1000 && rc != 0; k++) {
		struct sw_error err = SW_ERROR_INIT;

		sw_alloc_fail_after(k);
		rc = sw_read_regular_file(&out, &len, p, n, &err);
		sw_alloc_fail_after(0);
		if (rc != 0) {
			cr_assert_eq(rc, SW_ENOMEM);
			cr_assert_null(out);
		}
	}
	cr_assert_eq(rc, 0);
	cr_assert_eq(len, n);
	sw_free(out);
	sw_free(p);
	sw_free(buf);
}
