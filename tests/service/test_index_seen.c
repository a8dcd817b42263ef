/* A Run keeps the index file it was last observed with in its replay
 * checkpoint: the next mutation takes that file's fingerprint while the
 * file is unchanged, and hashes the entries again once a new file is in
 * its place.  The recorded fingerprint is git's either way (what a
 * changed index gives is tests/io/test_observe_hint.c's). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "io/git/observe.h"
#include "io/util/digest.h"
#include "io/util/err.h"
#include "service/ops.h"
#include "tests/support/vcs_fixture.h"

static char *repo;

static void setup(void)
{
	repo = fx_tmpdir();
	fx_sh(repo, "git init -q && printf 'one\\n' > a.txt && mkdir src && "
		    "printf 'two\\n' > src/b.txt && git add -A && git commit -q -m init");
}

static void teardown(void)
{
	fx_rmrf(repo);
	sw_free(repo);
}

TestSuite(index_seen, .init = setup, .fini = teardown);

struct at {
	char run[64], action[64], kind[16];
};

static void remember(struct at *a, const char *text)
{
	json_t *doc = json_loads(text, 0, NULL), *act;

	cr_assert_not_null(doc, "%s", text);
	act = json_object_get(doc, "action");
	snprintf(a->run, sizeof(a->run), "%s", json_string_value(json_object_get(doc, "run_id")));
	snprintf(a->action, sizeof(a->action), "%s",
		 json_string_value(json_object_get(act, "action_id")));
	snprintf(a->kind, sizeof(a->kind), "%s", json_string_value(json_object_get(act, "kind")));
	json_decref(doc);
}

/* Submits a completed Outcome for the current Action; returns how many
 * observations took the fingerprint of the index kept. */
static unsigned submit(struct at *a)
{
	char path[4096];
	struct svc_submit_request req = { .root = repo, .outcome_file = path,
					   .outcome_file_given = 1 };
	struct svc_result res;
	unsigned before = vcs_test_fp_hinted();
	FILE *f;

	snprintf(path, sizeof(path), "%s/.git/outcome.json", repo);
	cr_assert_not_null(f = fopen(path, "w"));
	fprintf(f, "{\"contract_version\":2,\"action_id\":\"%s\",\"action_kind\":\"%s\","
		   "\"status\":\"completed\",\"summary\":\"step\",\"observations\":[],"
		   "\"known_issues\":[],\"suggested_actions\":[{\"kind\":\"clarify\","
		   "\"brief\":\"Next step.\"}],\"pause\":null,\"implementation\":null,"
		   "\"review\":null}", a->action, a->kind);
	fclose(f);
	req.run_id = a->run;
	req.action_id = a->action;
	cr_assert_eq(svc_op_submit(&req, &res), 0, "%s", res.error);
	remember(a, res.document);
	svc_result_release(&res);
	return vcs_test_fp_hinted() - before;
}

/* The Run's current_git.index_fingerprint, as run.json records it. */
static void recorded(const struct at *a, char out[SW_DIGEST_LEN])
{
	size_t len;
	char *text = fx_sh_out(repo, &len, "cat .git/slipway/runs/%s/run.json", a->run);
	json_t *doc = json_loads(text, 0, NULL);
	const char *fp = json_string_value(json_object_get(
		json_object_get(json_object_get(doc, "data"), "current_git"), "index_fingerprint"));

	cr_assert_not_null(fp);
	snprintf(out, SW_DIGEST_LEN, "%s", fp);
	json_decref(doc);
	sw_free(text);
}

static void assert_recorded_is_gits(const struct at *a)
{
	char want[SW_DIGEST_LEN], got[SW_DIGEST_LEN];
	size_t len;
	char *raw = fx_sh_out(repo, &len, "git ls-files --stage -z");

	sw_sha256_prefixed(raw, len, want);
	sw_free(raw);
	recorded(a, got);
	cr_assert_str_eq(got, want);
}

Test(index_seen, the_next_mutation_takes_the_fingerprint_while_the_index_file_is_unchanged)
{
	struct svc_start_request start = { .root = repo, .goal = "Write the docs." };
	struct svc_result res;
	struct at a;

	cr_assert_eq(svc_op_start(&start, &res), 0, "%s", res.error);
	remember(&a, res.document);
	svc_result_release(&res);
	/* The Run's first checkpoint is written by its first mutation. */
	cr_assert_eq(submit(&a), 0);
	assert_recorded_is_gits(&a);
	cr_assert_eq(submit(&a), 1);
	assert_recorded_is_gits(&a);
	/* A new index file, as git writes one (a file renamed over it), even
	 * of the same bytes: hashed again, then kept. */
	fx_sh(repo, "cp .git/index .git/index.new && mv .git/index.new .git/index");
	cr_assert_eq(submit(&a), 0);
	assert_recorded_is_gits(&a);
	cr_assert_eq(submit(&a), 1);
	assert_recorded_is_gits(&a);
}

Test(index_seen, an_index_file_that_cannot_be_named_is_kept_by_no_checkpoint)
{
	struct svc_start_request start = { .root = repo, .goal = "Write the docs." };
	struct svc_result res;
	struct at a;
	char want[SW_DIGEST_LEN], got[SW_DIGEST_LEN];
	size_t len;
	char *text;

	text = fx_sh_out(repo, &len, "git ls-files --stage -z");
	sw_sha256_prefixed(text, len, want);
	sw_free(text);
	cr_assert_eq(svc_op_start(&start, &res), 0, "%s", res.error);
	remember(&a, res.document);
	svc_result_release(&res);
	cr_assert_eq(submit(&a), 0);
	text = fx_sh_out(repo, &len, "cat .git/slipway/runs/%s/run.checkpoint", a.run);
	cr_assert_not_null(strstr(text, "\nobserved-index/1 "), "%s", text);
	sw_free(text);
	/* A Run whose index file could not be named (a checksum of zeros, as
	 * index.skipHash writes) keeps no line and hashes every time. */
	fx_sh(repo, "size=$(wc -c < .git/index) && "
		    "dd if=/dev/zero of=.git/index bs=1 seek=$((size - 20)) count=20 "
		    "conv=notrunc 2>/dev/null");
	cr_assert_eq(submit(&a), 0);
	text = fx_sh_out(repo, &len, "cat .git/slipway/runs/%s/run.checkpoint", a.run);
	cr_assert_null(strstr(text, "observed-index/1 "), "%s", text);
	sw_free(text);
	/* Git itself refuses that file: the entries are the ones it had. */
	cr_assert_eq(submit(&a), 0);
	recorded(&a, got);
	cr_assert_str_eq(got, want);
}
