/* The adapter reports (list, doctor) when they cannot be produced: each
 * allocation the operation makes fails once in turn, and whatever the
 * failure stops is reported with its code, exit status 3 and the retry
 * the table names, never as a missing repository. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "cli/cli.h"
#include "io/util/err.h"
#include "service/adapters.h"
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

TestSuite(service_adapters, .init = setup, .fini = teardown);

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The first variant of doc's next is `variant`, a command whose argv is
 * `slipway <command> --root <repo>`. */
static void assert_retry(const json_t *doc, const char *variant, const char *command)
{
	const json_t *v = json_array_get(json_object_get(json_object_get(doc, "next"), "variants"), 0);
	const json_t *argv = json_object_get(v, "base_argv");

	cr_assert_str_eq(str(json_object_get(doc, "next"), "operation"), "command");
	cr_assert_str_eq(str(v, "id"), variant);
	cr_assert_str_eq(json_string_value(json_array_get(argv, 0)), "slipway");
	cr_assert_str_eq(json_string_value(json_array_get(argv, 1)), command);
	cr_assert_str_eq(json_string_value(json_array_get(argv, 2)), "--root");
	cr_assert_str_eq(json_string_value(json_array_get(argv, 3)), repo);
}

/* Walks every allocation of list (or doctor) and returns how many failures
 * were reported as `code` (each checked to be exit 3 with the retry of
 * `command`). */
static unsigned walk(int doctor, const char *code, const char *variant, const char *command)
{
	unsigned reported = 0;

	for (unsigned long n = 1;; n++) {
		struct svc_adapter_request req = { .root = repo, .texts = cli_adapter_texts() };
		struct svc_adapters_found found = { 0 };
		unsigned long before = sw_alloc_failures();
		struct svc_result res;
		json_t *doc;
		int rc;

		sw_alloc_fail_after(n);
		rc = doctor ? svc_op_doctor(&req, &found, &res) : svc_op_list(&req, &found, &res);
		sw_alloc_fail_after(0);
		svc_adapters_found_release(&found);
		if (sw_alloc_failures() == before) {
			cr_assert_eq(rc, 0, "without a failed allocation: %s", res.error);
			svc_result_release(&res);
			break;
		}
		cr_assert_lt(n, 100000);
		if (res.error == NULL || res.error[0] == '\0') {
			svc_result_release(&res);
			continue;
		}
		doc = json_loads(res.error, 0, NULL);
		cr_assert_not_null(doc, "allocation %lu: %s", n, res.error);
		cr_assert_str_neq(str(doc, "code"), "git_repository_required",
				  "allocation %lu: a failed allocation is no missing repository: %s", n, res.error);
		if (strcmp(str(doc, "code"), code) == 0) {
			cr_assert_eq(rc, 3, "allocation %lu: %s", n, res.error);
			cr_assert_eq(json_integer_value(json_object_get(doc, "exit_code")), 3);
			cr_assert_str_eq(str(doc, "message"), "out of memory");
			assert_retry(doc, variant, command);
			reported++;
		} else if (strcmp(str(doc, "code"), "git_repository_unavailable") == 0) {
			cr_assert_eq(rc, 3, "allocation %lu: %s", n, res.error);
			assert_retry(doc, "retry-doctor", "doctor");
		}
		json_decref(doc);
		svc_result_release(&res);
	}
	return reported;
}

Test(service_adapters, a_list_that_cannot_be_produced_is_list_failed_with_retry_list)
{
	cr_assert_gt(walk(0, "list_failed", "retry-list", "list"), 0, "list_failed was never reported");
}

Test(service_adapters, a_doctor_report_that_cannot_be_produced_is_doctor_failed_with_retry_doctor)
{
	cr_assert_gt(walk(1, "doctor_failed", "retry-doctor", "doctor"), 0, "doctor_failed was never reported");
}

/* Discovery that cannot be made (memory runs out) is no missing
 * repository: git_repository_unavailable, exit 3, retry with doctor.  The
 * first allocation that discovery cannot do without is found by failing
 * each in turn (an earlier one may be one a missing file tolerates). */
Test(service_adapters, discovery_that_cannot_be_made_is_git_repository_unavailable)
{
	int found_it = 0;

	for (unsigned long n = 1; !found_it; n++) {
		struct svc_adapter_request req = { .root = repo, .texts = cli_adapter_texts() };
		struct svc_adapters_found found = { 0 };
		unsigned long before = sw_alloc_failures();
		struct svc_result res;
		json_t *doc;
		int rc;

		sw_alloc_fail_after(n);
		rc = svc_op_list(&req, &found, &res);
		sw_alloc_fail_after(0);
		svc_adapters_found_release(&found);
		cr_assert_neq(sw_alloc_failures(), before,
			      "every allocation succeeded before discovery failed once");
		doc = res.error && res.error[0] ? json_loads(res.error, 0, NULL) : NULL;
		if (doc && strcmp(str(doc, "code"), "git_repository_unavailable") == 0) {
			cr_assert_eq(rc, 3, "%s", res.error);
			assert_retry(doc, "retry-doctor", "doctor");
			found_it = 1;
		}
		json_decref(doc);
		svc_result_release(&res);
		cr_assert_lt(n, 1000, "no failed allocation made discovery unavailable");
	}
}
