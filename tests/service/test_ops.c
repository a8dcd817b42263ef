/* The operations as another front end calls them: a typed request in, the
 * typed result (document or cliError, and the exit status) out. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "io/util/err.h"
#include "service/ops.h"
#include "tests/support/vcs_fixture.h"

static char *repo;

static void setup(void)
{
	repo = fx_tmpdir();
	fx_sh(repo, "git init -q && git commit -q --allow-empty -m init");
}

static void teardown(void)
{
	fx_rmrf(repo);
	sw_free(repo);
}

TestSuite(service_ops, .init = setup, .fini = teardown);

static json_t *parse(const char *text)
{
	json_t *doc = json_loads(text, 0, NULL);

	cr_assert_not_null(doc, "not one JSON document: %s", text);
	return doc;
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

Test(service_ops, a_captured_operation_returns_its_document_and_status)
{
	struct svc_start_request start = { .root = repo, .goal = "Write the docs." };
	struct svc_result res;
	json_t *doc;

	cr_assert_eq(svc_op_start(&start, &res), 0, "%s", res.error);
	cr_assert_eq(res.status, 0);
	cr_assert_str_empty(res.error);
	doc = parse(res.document);
	cr_assert_str_eq(str(doc, "state"), "active");
	cr_assert_not_null(str(doc, "run_id"));
	cr_assert_not_null(json_object_get(doc, "next"));
	json_decref(doc);
	svc_result_release(&res);
}

Test(service_ops, a_refused_operation_returns_its_cli_error_and_exit_status)
{
	struct svc_skip_request skip = { .root = repo, .run_id = "no such run", .action_id = "a" };
	struct svc_result res;
	json_t *doc;

	cr_assert_eq(svc_op_skip(&skip, &res), 2);
	cr_assert_eq(res.status, 2);
	cr_assert_str_empty(res.document);
	doc = parse(res.error);
	cr_assert_str_eq(str(doc, "code"), "invalid_run_id");
	cr_assert_eq(json_integer_value(json_object_get(doc, "exit_code")), 2);
	json_decref(doc);
	svc_result_release(&res);
}

Test(service_ops, status_answers_a_started_run_by_its_id)
{
	struct svc_start_request start = { .root = repo, .goal = "Write the docs." };
	struct svc_status_request st = { .root = repo };
	struct svc_result res;
	json_t *doc;
	char *id;

	cr_assert_eq(svc_op_start(&start, &res), 0, "%s", res.error);
	doc = parse(res.document);
	id = sw_strdup(str(doc, "run_id"));
	json_decref(doc);
	svc_result_release(&res);
	st.run_id = id;
	cr_assert_eq(svc_op_status(&st, NULL, &res), 0, "%s", res.error);
	doc = parse(res.document);
	cr_assert_str_eq(str(doc, "id"), id);
	json_decref(doc);
	svc_result_release(&res);
	sw_free(id);
}

Test(service_ops, one_capture_at_a_time)
{
	struct svc_result outer, inner;

	cr_assert_eq(svc_result_begin(&outer), 0);
	cr_assert_eq(svc_result_begin(&inner), -1);
	cr_assert_eq(inner.status, 1);
	cr_assert_eq(svc_result_end(&outer, 0), 0);
	cr_assert_str_empty(outer.document);
	svc_result_release(&outer);
}

/* tests/data/source-envelope.json, read from the project root. */
static char *envelope(size_t *len)
{
	const char *root = getenv("SLIPWAY_TEST_ROOT");
	char path[4096];
	char *buf;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/data/source-envelope.json", root ? root : ".");
	cr_assert_not_null(f = fopen(path, "rb"), "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	cr_assert_geq(n = ftell(f), 0);
	rewind(f);
	cr_assert_not_null(buf = malloc((size_t)n + 1));
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

Test(service_ops, an_envelope_held_in_memory_pins_the_runs_source)
{
	size_t len;
	char *env = envelope(&len);
	struct svc_start_request start = {
		.root = repo, .goal = "Do the issue.", .source_file = "(in memory)",
		.source_file_given = 1, .source_bytes = env, .source_len = len,
	};
	struct svc_result res;
	json_t *doc;

	cr_assert_eq(svc_op_start(&start, &res), 0, "%s", res.error);
	doc = parse(res.document);
	cr_assert_not_null(json_object_get(doc, "pinned_source"), "%s", res.document);
	json_decref(doc);
	svc_result_release(&res);
	free(env);
}

Test(service_ops, a_damaged_envelope_held_in_memory_is_invalid_source)
{
	struct svc_start_request start = {
		.root = repo, .goal = "Do the issue.", .source_file = "(in memory)",
		.source_file_given = 1, .source_bytes = "{\"not\":\"an envelope\"}", .source_len = 21,
	};
	struct svc_result res;
	json_t *doc;

	cr_assert_eq(svc_op_start(&start, &res), 2, "%s", res.error);
	doc = parse(res.error);
	cr_assert_str_eq(str(doc, "code"), "invalid_source");
	json_decref(doc);
	svc_result_release(&res);
}

/* A workspace that cannot be discovered for another reason than there
 * being no worktree (here memory runs out on each allocation discovery
 * makes) is git_repository_unavailable, exit 3, with doctor as the
 * retry; never git_repository_required. */
Test(service_ops, discovery_that_cannot_be_made_is_git_repository_unavailable)
{
	unsigned reported = 0;

	/* Discovery's allocations come first; a failed one it can do without
	 * (an unreadable configuration is left out) lets it go on, so every
	 * one of the first allocations is failed in turn. */
	for (unsigned long n = 1; n <= 300; n++) {
		struct svc_status_request st = { .root = repo };
		struct svc_result res;
		const json_t *v;
		json_t *doc;
		int rc;

		sw_alloc_fail_after(n);
		rc = svc_op_status(&st, NULL, &res);
		sw_alloc_fail_after(0);
		doc = res.error && res.error[0] ? json_loads(res.error, 0, NULL) : NULL;
		if (doc == NULL || strcmp(str(doc, "code"), "git_repository_unavailable") != 0) {
			cr_assert(doc == NULL || strcmp(str(doc, "code"), "git_repository_required") != 0,
				  "allocation %lu: %s", n, res.error);
			json_decref(doc);
			svc_result_release(&res);
			continue;
		}
		cr_assert_eq(rc, 3, "%s", res.error);
		cr_assert_eq(json_integer_value(json_object_get(doc, "exit_code")), 3);
		cr_assert_str_eq(str(json_object_get(doc, "next"), "operation"), "command");
		v = json_array_get(json_object_get(json_object_get(doc, "next"), "variants"), 0);
		cr_assert_str_eq(str(v, "id"), "retry-doctor", "%s", res.error);
		cr_assert_str_eq(json_string_value(json_array_get(json_object_get(v, "base_argv"), 1)), "doctor");
		reported++;
		json_decref(doc);
		svc_result_release(&res);
	}
	cr_assert_gt(reported, 0, "no discovery failure was reported as git_repository_unavailable");
}
