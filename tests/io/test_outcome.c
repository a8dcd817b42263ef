/* Strict Outcome decoding, the content rules, the scope digest and the
 * canonical JSON (io/wire/outcome.h). */

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

#include "io/wire/outcome.h"

/* The request structs hold mutable char * (they are filled by the decoder);
 * the tests point them at literals and never write through them. */
#ifdef __clang__
#pragma clang diagnostic ignored "-Wincompatible-pointer-types-discards-qualifiers"
#else
#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"
#endif

#define AID "5b1e8c1e-2f7d-4f57-9a43-1f6f0d7b9a10"

static void setup(void)
{
	sw_alloc_init();
}

TestSuite(outcome, .init = setup);

/* An Outcome with the fixed action_id and `rest` after the kind/status
 * (summary, lists, suggestions, pause, implementation, review). */
static char *outcome_text(const char *kind, const char *status,
			  const char *suggestions, const char *pause,
			  const char *impl, const char *review)
{
	char *s = sw_asprintf(
		"{\"contract_version\":2,\"action_id\":\"" AID "\","
		"\"action_kind\":\"%s\",\"status\":\"%s\",\"summary\":\"Did the thing.\","
		"\"observations\":[\"seen\"],\"known_issues\":[],"
		"\"suggested_actions\":%s,\"pause\":%s,\"implementation\":%s,\"review\":%s}",
		kind, status, suggestions, pause, impl, review);

	cr_assert_not_null(s);
	return s;
}

#define NO_SUGG "[]"
#define ONE_SUGG "[{\"kind\":\"implement\",\"brief\":\"Apply the fix.\"}]"
#define DECISION "{\"reason\":\"decision_required\",\"question\":\"Which one?\",\"destructive_request\":null}"
#define ENVIRONMENT "{\"reason\":\"environment_unavailable\",\"question\":\"Start the DB?\",\"destructive_request\":null}"
#define IMPL(result) "{\"result\":\"" result "\",\"files_changed\":[\"a.c\"],\"activities\":[{\"kind\":\"test\",\"command\":\"make test\",\"exit_code\":-1,\"summary\":\"killed\"}],\"uncertainties\":[],\"attempts\":1}"
#define REVIEW(result, findings) "{\"result\":\"" result "\",\"findings\":" findings ",\"uncertainties\":[\"maybe\"]}"
#define FINDING "[{\"location\":\"io/x.c:10\",\"summary\":\"leak\",\"detail\":\"free it\"}]"

/* A destructive request whose digest the test computes independently. */
#define REQ_ID "123e4567-e89b-42d3-a456-426614174000"
#define REQ_IMPACT_JSON "Deletes \\\"build\\\" \\\\ everything\\n\\tfor ever é"
#define REQ_TARGETS "[{\"kind\":\"git_ref\",\"value\":\"refs/heads/old\"},{\"kind\":\"path\",\"value\":\"build/\"}]"

/* The canonical scope text, written by hand from MAP 8. */
static const char canonical_scope[] =
	"{\"impact\":\"Deletes \\\"build\\\" \\\\ everything\\n\\tfor ever \xc3\xa9\","
	"\"request_id\":\"" REQ_ID "\",\"scope_version\":1,"
	"\"targets\":[{\"kind\":\"git_ref\",\"value\":\"refs/heads/old\"},"
	"{\"kind\":\"path\",\"value\":\"build/\"}]}";

static void openssl_digest(const void *buf, size_t len, char out[SW_DIGEST_LEN])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	size_t i;

	SHA256(buf, len, md);
	memcpy(out, "sha256:", 7);
	for (i = 0; i < sizeof(md); i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", md[i]);
}

static char *destructive_pause(const char *scope)
{
	char *s = sw_asprintf(
		"{\"reason\":\"destructive_confirmation_required\",\"question\":\"Delete?\","
		"\"destructive_request\":{\"request_id\":\"" REQ_ID "\",\"targets\":" REQ_TARGETS ","
		"\"impact\":\"" REQ_IMPACT_JSON "\",\"scope_sha256\":\"%s\"}}", scope);

	cr_assert_not_null(s);
	return s;
}

static int decode_str(const char *text, struct outcome *o, struct sw_error *err)
{
	return outcome_decode(o, text, strlen(text), err);
}

static void expect_ok(const char *text)
{
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;
	int rc = decode_str(text, &o, &err);

	cr_assert_eq(rc, 0, "rejected: %s (%s)", err.msg, text);
	outcome_release(&o);
}

static void expect_code(const char *text, const char *proto)
{
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;
	int rc = decode_str(text, &o, &err);

	cr_assert_eq(rc, SW_EPROTO, "rc %d for %s", rc, text);
	cr_assert_str_eq(tbl_err_wire[err.proto], proto, "%s: %s", err.msg, text);
	cr_assert_null(o.action_id);
}

static void expect_bytes_code(const char *buf, size_t len, const char *proto)
{
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(outcome_decode(&o, buf, len, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], proto, "%s", err.msg);
}

/* Replaces the first `from` in `base` by `to`; the caller frees. */
static char *subst(const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	char *s;

	cr_assert_not_null(at, "'%s' not in '%s'", from, base);
	s = sw_asprintf("%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
	cr_assert_not_null(s);
	return s;
}

static void expect_subst(const char *base, const char *from, const char *to,
			 const char *proto)
{
	char *s = subst(base, from, to);

	if (proto)
		expect_code(s, proto);
	else
		expect_ok(s);
	sw_free(s);
}

static char *valid_orient(void)
{
	return outcome_text("orient", "completed", ONE_SUGG, "null", "null", "null");
}

/* valid_orient() with one substitution. */
static char *orient_with(const char *from, const char *to)
{
	char *base = valid_orient(), *s = subst(base, from, to);

	sw_free(base);
	return s;
}

/* ---- the twelve matrix rows ---- */

Test(outcome, decodes_a_valid_outcome_for_every_matrix_row)
{
	char scope[SW_DIGEST_LEN], *dp;
	struct {
		const char *kind, *status, *sugg, *pause, *impl, *review;
	} rows[] = {
		{ "orient", "partial", ONE_SUGG, "null", "null", "null" },
		{ "orient", "needs_input", NO_SUGG, ENVIRONMENT, "null", "null" },
		{ "clarify", "error", "[{\"kind\":\"summarize\",\"brief\":\"Wrap up.\"}]", "null", "null", "null" },
		{ "clarify", "needs_input", NO_SUGG, DECISION, "null", "null" },
		{ "implement", "completed", NO_SUGG, "null", IMPL("not_needed"), "null" },
		{ "implement", "partial", NO_SUGG, "null", IMPL("partial"), "null" },
		{ "implement", "error", NO_SUGG, "null", IMPL("unable"), "null" },
		{ "implement", "needs_input", NO_SUGG, DECISION, "null", "null" },
		{ "review", "completed", NO_SUGG, "null", "null", REVIEW("findings_reported", FINDING) },
		{ "review", "partial", NO_SUGG, "null", "null", REVIEW("inconclusive", "[]") },
		{ "review", "error", NO_SUGG, "null", "null", REVIEW("error", "[]") },
		{ "summarize", "completed", NO_SUGG, "null", "null", "null" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *s = outcome_text(rows[i].kind, rows[i].status, rows[i].sugg,
				       rows[i].pause, rows[i].impl, rows[i].review);

		expect_ok(s);
		sw_free(s);
	}
	/* the destructive variant of the paused Implement row */
	openssl_digest(canonical_scope, strlen(canonical_scope), scope);
	dp = destructive_pause(scope);
	{
		char *s = outcome_text("implement", "needs_input", NO_SUGG, dp, "null", "null");

		expect_ok(s);
		sw_free(s);
	}
	sw_free(dp);
}

Test(outcome, fills_the_struct_and_digests_the_raw_bytes)
{
	char *s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");
	char want[SW_DIGEST_LEN];
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(decode_str(s, &o, &err), 0, "%s", err.msg);
	openssl_digest(s, strlen(s), want);
	cr_assert_str_eq(o.payload_sha256, want);
	cr_assert_str_eq(o.action_id, AID);
	cr_assert_eq(o.kind, FSM_KIND_IMPLEMENT);
	cr_assert_eq(o.status_id, FSM_STATUS_COMPLETED);
	cr_assert_eq(o.observations.len, 1);
	cr_assert_str_eq(o.observations.items[0], "seen");
	cr_assert_not_null(o.implementation);
	cr_assert_eq(o.implementation->result_id, FSM_RESULT_APPLIED);
	cr_assert_eq(o.implementation->n_activities, 1);
	cr_assert_eq(o.implementation->activities[0].exit_code, -1);
	cr_assert_str_eq(o.implementation->activities[0].command, "make test");
	cr_assert_null(o.pause);
	cr_assert_null(o.review);
	outcome_release(&o);
	sw_free(s);
}

Test(outcome, whitespace_around_the_payload_changes_the_digest_but_not_the_outcome)
{
	char *s = valid_orient(), *t = sw_asprintf(" %s\n", s);
	struct outcome a, b;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(decode_str(s, &a, &err), 0);
	cr_assert_eq(decode_str(t, &b, &err), 0);
	cr_assert_str_neq(a.payload_sha256, b.payload_sha256);
	cr_assert_str_eq(a.summary, b.summary);
	outcome_release(&a);
	outcome_release(&b);
	sw_free(s);
	sw_free(t);
}

/* ---- decoding order ---- */

Test(outcome, rejects_a_byte_order_mark)
{
	char *s = valid_orient(), *t = sw_asprintf("\xef\xbb\xbf%s", s);

	expect_code(t, "invalid_outcome");
	sw_free(s);
	sw_free(t);
}

Test(outcome, rejects_invalid_utf8)
{
	char *s = valid_orient();

	expect_subst(s, "Did the thing.", "Did \xff thing.", "invalid_outcome");
	expect_subst(s, "Did the thing.", "Did \xc0\xaf thing.", "invalid_outcome");
	sw_free(s);
}

Test(outcome, rejects_a_payload_over_one_mebibyte_even_if_valid)
{
	char *s = valid_orient();
	size_t len = strlen(s), total = OUTCOME_MAX_BYTES + 1;
	char *big = sw_malloc(total);

	/* pad with trailing spaces: valid JSON, one byte too long */
	memcpy(big, s, len);
	memset(big + len, ' ', total - len);
	expect_bytes_code(big, total, "invalid_outcome");
	{
		struct outcome o;
		struct sw_error err = SW_ERROR_INIT;

		cr_assert_eq(outcome_decode(&o, big, total - 1, &err), 0, "%s", err.msg);
		outcome_release(&o);
	}
	sw_free(big);
	sw_free(s);
}

Test(outcome, rejects_blank_and_empty_input)
{
	expect_bytes_code("", 0, "invalid_outcome");
	expect_code(" \n\t ", "invalid_outcome");
}

Test(outcome, rejects_duplicate_keys_at_any_depth)
{
	char *s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");

	expect_subst(s, "\"attempts\":1", "\"attempts\":1,\"attempts\":2", "invalid_outcome");
	expect_subst(s, "\"exit_code\":-1", "\"exit_code\":-1,\"exit_code\":-1", "invalid_outcome");
	expect_subst(s, "\"status\"", "\"status\":\"x\",\"status\"", "invalid_outcome");
	sw_free(s);
}

Test(outcome, rejects_unknown_keys_at_any_depth_and_wrong_case)
{
	char *s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");

	expect_subst(s, "\"attempts\":1", "\"attempts\":1,\"extra\":true", "invalid_outcome");
	expect_subst(s, "\"exit_code\"", "\"extra\":0,\"exit_code\"", "invalid_outcome");
	expect_subst(s, "\"summary\":\"Did", "\"Summary\":\"Did", "invalid_outcome");
	expect_subst(s, "{\"contract_version\"", "{\"x\":1,\"contract_version\"", "invalid_outcome");
	sw_free(s);
}

Test(outcome, rejects_missing_keys_at_any_depth)
{
	char *s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");

	expect_subst(s, ",\"attempts\":1", "", "invalid_outcome");
	expect_subst(s, "\"command\":\"make test\",", "", "invalid_outcome");
	expect_subst(s, ",\"review\":null", "", "invalid_outcome");
	expect_subst(s, "\"known_issues\":[],", "", "invalid_outcome");
	sw_free(s);
	s = outcome_text("orient", "needs_input", NO_SUGG, DECISION, "null", "null");
	expect_subst(s, ",\"destructive_request\":null", "", "invalid_outcome");
	sw_free(s);
}

Test(outcome, rejects_malformed_json_and_trailing_data)
{
	char *s = valid_orient(), *t;

	t = sw_asprintf("%s{}", s);
	expect_code(t, "invalid_outcome");
	sw_free(t);
	t = sw_asprintf("%s x", s);
	expect_code(t, "invalid_outcome");
	sw_free(t);
	t = sw_asprintf("%.*s", (int)strlen(s) - 1, s);
	expect_code(t, "invalid_outcome");
	sw_free(t);
	expect_code("[]", "invalid_outcome");
	expect_code("null", "invalid_outcome");
	expect_code("\"text\"", "invalid_outcome");
	sw_free(s);
}

Test(outcome, integers_must_be_integer_literals_that_fit_int64)
{
	char *s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");

	expect_subst(s, "\"attempts\":1", "\"attempts\":1.0", "invalid_outcome");
	expect_subst(s, "\"attempts\":1", "\"attempts\":1e0", "invalid_outcome");
	expect_subst(s, "\"contract_version\":2", "\"contract_version\":2.0", "invalid_outcome");
	expect_subst(s, "\"contract_version\":2", "\"contract_version\":2e0", "invalid_outcome");
	expect_subst(s, "\"exit_code\":-1", "\"exit_code\":9223372036854775808", "invalid_outcome");
	expect_subst(s, "\"exit_code\":-1", "\"exit_code\":\"1\"", "invalid_outcome");
	expect_subst(s, "\"exit_code\":-1", "\"exit_code\":9223372036854775807", NULL);
	expect_subst(s, "\"exit_code\":-1", "\"exit_code\":-9223372036854775808", NULL);
	expect_subst(s, "\"attempts\":1", "\"attempts\":0", "invalid_outcome");
	sw_free(s);
}

Test(outcome, null_is_allowed_only_where_the_reference_decoder_allows_it)
{
	char *s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");

	expect_subst(s, "\"Did the thing.\"", "null", "invalid_outcome");
	expect_subst(s, "\"attempts\":1", "\"attempts\":null", "invalid_outcome");
	expect_subst(s, "[\"seen\"]", "[null]", "invalid_outcome");
	expect_subst(s, "\"files_changed\":[\"a.c\"]", "\"files_changed\":null", "invalid_outcome");
	expect_subst(s, "\"known_issues\":[]", "\"known_issues\":null", "invalid_outcome");
	sw_free(s);
	s = outcome_text("orient", "needs_input", NO_SUGG, DECISION, "null", "null");
	expect_subst(s, "\"destructive_request\":null",
		     "\"destructive_request\":null,\"supersedes_answer_action_id\":null",
		     "invalid_outcome");
	expect_subst(s, "\"destructive_request\":null",
		     "\"destructive_request\":null,\"supersedes_answer_action_id\":\"old\"", NULL);
	sw_free(s);
}

Test(outcome, lone_surrogate_escape_decodes_to_replacement_character)
{
	char *s = valid_orient(), *t = subst(s, "Did the thing.", "Did \\ud800 thing.");
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(decode_str(t, &o, &err), 0, "%s", err.msg);
	cr_assert_str_eq(o.summary, "Did \xef\xbf\xbd thing.");
	outcome_release(&o);
	sw_free(t);
	sw_free(s);
}

Test(outcome, contract_version_other_than_two_is_a_mismatch)
{
	char *s = valid_orient();

	expect_subst(s, "\"contract_version\":2", "\"contract_version\":1", "contract_version_mismatch");
	expect_subst(s, "\"contract_version\":2", "\"contract_version\":3", "contract_version_mismatch");
	expect_subst(s, "\"contract_version\":2,", "", "contract_version_mismatch");
	sw_free(s);
}

Test(outcome, unknown_fields_and_type_errors_win_over_the_version)
{
	char *s = orient_with("\"contract_version\":2", "\"contract_version\":1");

	expect_subst(s, "\"status\"", "\"bogus\":1,\"status\"", "invalid_outcome");
	expect_subst(s, "\"Did the thing.\"", "7", "invalid_outcome");
	expect_subst(s, "\"Did the thing.\"", "null", "invalid_outcome");
	/* missing keys and null arrays are shape checks, after the version */
	expect_subst(s, "\"known_issues\":[],", "", "contract_version_mismatch");
	expect_subst(s, "\"known_issues\":[]", "\"known_issues\":null", "contract_version_mismatch");
	sw_free(s);
}

Test(outcome, escaped_nul_is_a_control_but_decodes_for_the_version_check)
{
	char *s = valid_orient();
	char *v1 = subst(s, "\"contract_version\":2", "\"contract_version\":1");

	expect_subst(s, "Did the thing.", "Did \\u0000 thing.", "invalid_outcome");
	expect_subst(v1, "Did the thing.", "Did \\u0000 thing.", "contract_version_mismatch");
	sw_free(v1);
	sw_free(s);
}

Test(outcome, escaped_nul_is_refused_by_check_not_by_parse)
{
	char *s = orient_with("Did the thing.", "Did \\u0000 thing.");
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(outcome_parse(&o, s, strlen(s), &err), 0, "%s", err.msg);
	cr_assert(o.text_has_nul);
	cr_assert_eq(outcome_check(&o, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "invalid_outcome");
	outcome_release(&o);
	sw_free(s);
}

Test(outcome, scope_digest_writes_html_characters_and_line_separators_raw)
{
	struct outcome_target t[2] = {
		{ "external_resource", "service/<prod>&\xe2\x80\xa8" },
		{ "path", "/tmp/\"quoted\"" },
	};
	struct outcome_request r = {
		"11111111-1111-4111-8111-111111111111", t, 2,
		"delete <records>&\npermanently", NULL,
	};
	static const char canon[] =
		"{\"impact\":\"delete <records>&\\npermanently\","
		"\"request_id\":\"11111111-1111-4111-8111-111111111111\","
		"\"scope_version\":1,\"targets\":["
		"{\"kind\":\"external_resource\",\"value\":\"service/<prod>&\xe2\x80\xa8\"},"
		"{\"kind\":\"path\",\"value\":\"/tmp/\\\"quoted\\\"\"}]}";
	char want[SW_DIGEST_LEN], got[SW_DIGEST_LEN];
	struct sw_error err = SW_ERROR_INIT;

	openssl_digest(canon, strlen(canon), want);
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), 0, "%s", err.msg);
	cr_assert_str_eq(got, want);
}

/* ---- text rules ---- */

Test(outcome, markdown_text_refuses_controls_but_tab_lf_cr)
{
	char *s = valid_orient();

	expect_subst(s, "Did the thing.", "Did\\t\\r\\nthe thing.", NULL);
	expect_subst(s, "Did the thing.", "Did \\u0001 thing.", "invalid_outcome");
	expect_subst(s, "Did the thing.", "Did \\u007f thing.", "invalid_outcome");
	expect_subst(s, "Did the thing.", "Did \xc2\x85 thing.", "invalid_outcome");
	expect_subst(s, "Did the thing.", "Did \\u009f thing.", "invalid_outcome");
	expect_subst(s, "Did the thing.", "Did \xc2\xa0 thing.", NULL);
	expect_subst(s, "[\"seen\"]", "[\"\"]", NULL);
	expect_subst(s, "[\"seen\"]", "[\"a\\u0080\"]", "invalid_outcome");
	sw_free(s);
}

Test(outcome, plain_text_refuses_every_control)
{
	char *s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");

	expect_subst(s, "\"a.c\"", "\"\"", NULL);
	expect_subst(s, "\"a.c\"", "\"a\\tc\"", "invalid_outcome");
	expect_subst(s, "\"" AID "\"", "\"id\\n\"", "invalid_outcome");
	sw_free(s);
	s = outcome_text("review", "completed", NO_SUGG, "null", "null", REVIEW("findings_reported", FINDING));
	expect_subst(s, "io/x.c:10", "io/x.c\\t10", "invalid_outcome");
	expect_subst(s, "io/x.c:10", " ", "invalid_outcome");
	sw_free(s);
}

Test(outcome, non_empty_text_is_checked_with_both_space_definitions)
{
	char *s = valid_orient();

	expect_subst(s, "Did the thing.", "", "invalid_outcome");
	expect_subst(s, "Did the thing.", " \\t\\n ", "invalid_outcome");
	/* NBSP: a space for Go and for ECMAScript */
	expect_subst(s, "Did the thing.", "\xc2\xa0\xc2\xa0", "invalid_outcome");
	expect_subst(s, "Did the thing.", "\\u00a0", "invalid_outcome");
	/* U+3000 ideographic space and U+2028 line separator */
	expect_subst(s, "Did the thing.", "\\u3000\\u2028", "invalid_outcome");
	/* U+FEFF: not a Go space, but ECMAScript \s; the schema needs \S */
	expect_subst(s, "Did the thing.", "\\ufeff", "invalid_outcome");
	expect_subst(s, "Did the thing.", "\xef\xbb\xbf", "invalid_outcome");
	/* ... and mixed with real text it is fine */
	expect_subst(s, "Did the thing.", "\\ufeffx", NULL);
	/* U+180E: neither a Go nor an ECMAScript space in current Unicode */
	expect_subst(s, "Did the thing.", "\\u180e", NULL);
	sw_free(s);
	s = outcome_text("orient", "needs_input", NO_SUGG, DECISION, "null", "null");
	expect_subst(s, "Which one?", " ", "invalid_outcome");
	sw_free(s);
}

Test(outcome, text_rules_in_nested_objects)
{
	char *s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");

	expect_subst(s, "\"make test\"", "\" \"", "invalid_outcome");
	expect_subst(s, "\"killed\"", "\"\\u0002\"", "invalid_outcome");
	expect_subst(s, "\"kind\":\"test\"", "\"kind\":\"fuzz\"", "invalid_outcome");
	sw_free(s);
	s = outcome_text("review", "completed", NO_SUGG, "null", "null", REVIEW("findings_reported", FINDING));
	expect_subst(s, "\"free it\"", "\"\"", "invalid_outcome");
	expect_subst(s, "[\"maybe\"]", "[\"\\u001b[31m\"]", "invalid_outcome");
	sw_free(s);
}

Test(outcome, suggestion_brief_is_capped_at_8192_bytes)
{
	char *base = valid_orient(), *brief = sw_malloc(8194), *t;

	memset(brief, 'b', 8193);
	brief[8193] = '\0';
	t = subst(base, "Apply the fix.", brief);
	expect_code(t, "invalid_outcome");
	sw_free(t);
	brief[8192] = '\0';
	t = subst(base, "Apply the fix.", brief);
	expect_ok(t);
	sw_free(t);
	sw_free(brief);
	sw_free(base);
}

/* ---- the matrix, through fsm_outcome_check ---- */

Test(outcome, matrix_violations_are_invalid_outcome)
{
	char *s;

	s = outcome_text("summarize", "completed", ONE_SUGG, "null", "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("orient", "completed", "[{\"kind\":\"orient\",\"brief\":\"x\"}]", "null", "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("orient", "completed", "[{\"kind\":\"clarify\",\"brief\":\"x\"},{\"kind\":\"clarify\",\"brief\":\"y\"}]", "null", "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("review", "completed", NO_SUGG, "null", "null", REVIEW("no_findings_reported", FINDING));
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("review", "completed", NO_SUGG, "null", "null", REVIEW("not_run", "[]"));
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("partial"), "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("orient", "needs_input", NO_SUGG, "null", "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("orient", "needs_input", NO_SUGG,
			 "{\"reason\":\"budget_exhausted\",\"question\":\"q\",\"destructive_request\":null}",
			 "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("orient", "needs_input", NO_SUGG,
			 "{\"reason\":\"environment_unavailable\",\"question\":\"q\",\"destructive_request\":null,\"supersedes_answer_action_id\":\"x\"}",
			 "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("bogus", "completed", NO_SUGG, "null", "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	s = outcome_text("orient", "done", NO_SUGG, "null", "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
}

/* ---- destructive requests ---- */

Test(outcome, scope_digest_matches_an_independent_computation)
{
	struct outcome_target t[2] = {
		{ "git_ref", "refs/heads/old" }, { "path", "build/" },
	};
	struct outcome_request r = {
		REQ_ID, t, 2, "Deletes \"build\" \\ everything\n\tfor ever \xc3\xa9", NULL,
	};
	char want[SW_DIGEST_LEN], got[SW_DIGEST_LEN];
	struct sw_error err = SW_ERROR_INIT;

	openssl_digest(canonical_scope, strlen(canonical_scope), want);
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), 0, "%s", err.msg);
	cr_assert_str_eq(got, want);
}

Test(outcome, scope_digest_escapes_other_c0_controls_as_lowercase_u00xx)
{
	/* impact must be markdown, so a raw \x1f cannot reach the digest; the
	 * target value of kind data_domain is plain too.  What remains testable
	 * is DEL and non-ASCII, which are written raw. */
	struct outcome_target t[1] = { { "data_domain", "x\x7fy" } };
	struct outcome_request r = { REQ_ID, t, 1, "i", NULL };
	char got[SW_DIGEST_LEN];
	struct sw_error err = SW_ERROR_INIT;

	/* DEL is a control: refused as a plain value before hashing */
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
}

Test(outcome, destructive_request_scope_must_match)
{
	char scope[SW_DIGEST_LEN], *dp, *s, *bad;

	openssl_digest(canonical_scope, strlen(canonical_scope), scope);
	dp = destructive_pause(scope);
	s = outcome_text("implement", "needs_input", NO_SUGG, dp, "null", "null");
	bad = sw_strdup(scope);
	bad[10] = bad[10] == 'a' ? 'b' : 'a';
	expect_subst(s, scope, bad, "invalid_outcome");
	/* uppercase hex is not a digest */
	expect_subst(s, "sha256:", "SHA256:", "invalid_outcome");
	/* any change to the scope changes the digest */
	expect_subst(s, "refs/heads/old", "refs/heads/new", "invalid_outcome");
	sw_free(bad);
	sw_free(s);
	sw_free(dp);
}

Test(outcome, scope_canonical_is_the_text_the_digest_hashes)
{
	struct outcome_target t[2] = {
		{ "git_ref", "refs/heads/old" }, { "path", "build/" },
	};
	struct outcome_request r = {
		REQ_ID, t, 2, "Deletes \"build\" \\ everything\n\tfor ever \xc3\xa9", NULL,
	};
	struct sw_error err = SW_ERROR_INIT;
	char *canon;
	size_t len;

	cr_assert_eq(outcome_scope_canonical(&canon, &len, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(len, strlen(canonical_scope));
	cr_assert_str_eq(canon, canonical_scope);
	sw_free(canon);
	t[0].kind = "path";	/* unsorted now: refused, nothing returned */
	cr_assert_eq(outcome_scope_canonical(&canon, &len, &r, &err), SW_EINVAL);
	cr_assert_null(canon);
	cr_assert_eq(len, 0);
}

Test(outcome, the_worked_scope_example_is_a_valid_request)
{
	struct outcome_target t[2];
	struct outcome_request r;
	struct sw_error err = SW_ERROR_INIT;
	char digest[SW_DIGEST_LEN];

	outcome_scope_example(&r, t);
	cr_assert_eq(r.n_targets, 2);
	cr_assert_eq(outcome_scope_sha256(&r, digest, &err), 0, "%s", err.msg);
	cr_assert(sw_digest_valid(digest));
}

Test(outcome, a_scope_mismatch_names_the_canonical_form_and_the_expected_digest)
{
	struct outcome_target t[2] = {
		{ "git_ref", "refs/heads/old" }, { "path", "build/" },
	};
	struct outcome_request r = {
		REQ_ID, t, 2, "Deletes \"build\" \\ everything\n\tfor ever \xc3\xa9", NULL,
	};
	char want[SW_DIGEST_LEN], wrong[] = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
	struct sw_error err = SW_ERROR_INIT;

	openssl_digest(canonical_scope, strlen(canonical_scope), want);
	r.scope_sha256 = wrong;
	cr_assert_eq(outcome_request_verify(&r, &err), SW_EINVAL);
	cr_assert(strstr(err.msg, "scope_sha256 does not match its canonical scope") != NULL, "%s", err.msg);
	cr_assert(strstr(err.msg, want) != NULL, "the expected digest is named: %s", err.msg);
	cr_assert(strstr(err.msg, "{\"impact\":I,\"request_id\":R,\"scope_version\":1,\"targets\":"
			  "[{\"kind\":K,\"value\":V},...]}") != NULL, "%s", err.msg);
	r.scope_sha256 = want;
	cr_assert_eq(outcome_request_verify(&r, &err), 0, "%s", err.msg);
}

Test(outcome, destructive_request_id_must_be_a_canonical_rfc4122_uuid)
{
	cr_assert(outcome_uuid_valid(REQ_ID));
	cr_assert(outcome_uuid_valid("123e4567-e89b-02d3-b456-426614174000"));
	cr_assert_not(outcome_uuid_valid("123E4567-E89B-42D3-A456-426614174000"));
	cr_assert_not(outcome_uuid_valid("123e4567-e89b-42d3-c456-426614174000"));
	cr_assert_not(outcome_uuid_valid("123e4567-e89b-42d3-7456-426614174000"));
	cr_assert_not(outcome_uuid_valid("00000000-0000-0000-0000-000000000000"));
	cr_assert_not(outcome_uuid_valid("{123e4567-e89b-42d3-a456-426614174000}"));
	cr_assert_not(outcome_uuid_valid("123e4567e89b42d3a456426614174000"));
	cr_assert_not(outcome_uuid_valid("urn:uuid:123e4567-e89b-42d3-a456-426614174000"));
	cr_assert_not(outcome_uuid_valid("123e4567-e89b-42d3-a456-42661417400g"));
}

Test(outcome, destructive_targets_must_be_sorted_unique_and_known)
{
	struct outcome_target sorted[2] = { { "git_ref", "b" }, { "path", "a" } };
	struct outcome_target unsorted[2] = { { "path", "a" }, { "git_ref", "b" } };
	struct outcome_target by_value[2] = { { "path", "b" }, { "path", "a" } };
	struct outcome_target dup[2] = { { "path", "a" }, { "path", "a" } };
	struct outcome_target unknown[1] = { { "file", "a" } };
	struct outcome_target blank[1] = { { "path", "\xc2\xa0" } };
	struct outcome_request r = { REQ_ID, sorted, 2, "impact", NULL };
	char got[SW_DIGEST_LEN];
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(outcome_scope_sha256(&r, got, &err), 0);
	r.targets = unsorted;
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
	r.targets = by_value;
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
	r.targets = dup;
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
	r.targets = unknown;
	r.n_targets = 1;
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
	r.targets = blank;
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
	r.n_targets = 0;
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
	r.targets = sorted;
	r.n_targets = 2;
	r.impact = " ";
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
	r.impact = "impact";
	r.request_id = "00000000-0000-0000-0000-000000000000";
	cr_assert_eq(outcome_scope_sha256(&r, got, &err), SW_EINVAL);
}

Test(outcome, destructive_pause_needs_a_request_and_only_it_may_carry_one)
{
	char scope[SW_DIGEST_LEN], *dp, *s;

	openssl_digest(canonical_scope, strlen(canonical_scope), scope);
	dp = destructive_pause(scope);
	/* a destructive pause on Orient */
	s = outcome_text("orient", "needs_input", NO_SUGG, dp, "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	/* a request on a decision pause */
	{
		char *dec = subst(dp, "destructive_confirmation_required", "decision_required");

		s = outcome_text("implement", "needs_input", NO_SUGG, dec, "null", "null");
		expect_code(s, "invalid_outcome");
		sw_free(s);
		sw_free(dec);
	}
	/* an empty target list */
	s = outcome_text("implement", "needs_input", NO_SUGG, dp, "null", "null");
	expect_subst(s, REQ_TARGETS, "[]", "invalid_outcome");
	expect_subst(s, REQ_TARGETS, "null", "invalid_outcome");
	sw_free(s);
	s = outcome_text("implement", "needs_input", NO_SUGG,
			 "{\"reason\":\"destructive_confirmation_required\",\"question\":\"q\",\"destructive_request\":null}",
			 "null", "null");
	expect_code(s, "invalid_outcome");
	sw_free(s);
	sw_free(dp);
}

/* ---- binding ---- */

Test(outcome, validate_for_binds_action_id_and_kind)
{
	char *s = valid_orient();
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(decode_str(s, &o, &err), 0);
	cr_assert_eq(outcome_validate_for(&o, FSM_KIND_ORIENT, AID, &err), 0, "%s", err.msg);
	cr_assert_eq(outcome_validate_for(&o, FSM_KIND_CLARIFY, AID, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "invalid_outcome");
	sw_error_clear(&err);
	cr_assert_eq(outcome_validate_for(&o, FSM_KIND_ORIENT, "other", &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "invalid_outcome");
	sw_error_clear(&err);
	cr_assert_eq(outcome_validate_for(&o, FSM_KIND_ORIENT, "", &err), SW_EPROTO);
	outcome_release(&o);
	sw_free(s);
}

Test(outcome, parse_leaves_content_rules_to_check)
{
	char *s = orient_with("Did the thing.", " ");
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(outcome_parse(&o, s, strlen(s), &err), 0, "%s", err.msg);
	cr_assert_eq(outcome_validate_for(&o, FSM_KIND_ORIENT, "other", &err), SW_EPROTO);
	cr_assert(strstr(err.msg, "action_id") != NULL, "%s", err.msg);
	sw_error_clear(&err);
	cr_assert_eq(outcome_check(&o, &err), SW_EPROTO);
	cr_assert_str_eq(tbl_err_wire[err.proto], "invalid_outcome");
	outcome_release(&o);
	sw_free(s);
}

/* ---- canonical JSON ---- */

Test(outcome, canonical_json_round_trips)
{
	char scope[SW_DIGEST_LEN], *dp, *texts[4];
	size_t i;

	openssl_digest(canonical_scope, strlen(canonical_scope), scope);
	dp = destructive_pause(scope);
	texts[0] = outcome_text("implement", "needs_input", NO_SUGG, dp, "null", "null");
	texts[1] = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");
	texts[2] = outcome_text("review", "completed", NO_SUGG, "null", "null", REVIEW("findings_reported", FINDING));
	texts[3] = outcome_text("clarify", "needs_input", NO_SUGG,
				"{\"destructive_request\":null,\"question\":\"<q> & \\u2028\",\"reason\":\"decision_required\",\"supersedes_answer_action_id\":\"old\"}",
				"null", "null");
	for (i = 0; i < 4; i++) {
		struct outcome a, b;
		struct sw_error err = SW_ERROR_INIT;
		char *j1 = NULL, *j2 = NULL;

		cr_assert_eq(decode_str(texts[i], &a, &err), 0, "%s", err.msg);
		cr_assert_eq(outcome_to_json(&j1, &a, &err), 0);
		cr_assert_eq(decode_str(j1, &b, &err), 0, "%s: %s", err.msg, j1);
		cr_assert_eq(outcome_to_json(&j2, &b, &err), 0);
		cr_assert_str_eq(j1, j2);
		cr_assert(strncmp(j1, "{\"contract_version\":2,\"action_id\":", 34) == 0, "%s", j1);
		if (i == 3) {
			cr_assert(strstr(j1, "\"reason\":\"decision_required\",\"question\"") != NULL, "%s", j1);
			cr_assert(strstr(j1, "<q> & ") != NULL, "%s", j1);
		}
		sw_free(j1);
		sw_free(j2);
		outcome_release(&a);
		outcome_release(&b);
		sw_free(texts[i]);
	}
	sw_free(dp);
}

/* ---- allocation failures ---- */

/* Fails the 1st, 2nd, ... allocation until decoding and encoding succeed;
 * every earlier attempt must fail with SW_ENOMEM, nothing may leak (ASan),
 * and the final result must equal the one decoded without failures. */
static void alloc_walk(const char *text)
{
	struct outcome ref;
	struct sw_error rerr = SW_ERROR_INIT;
	char *want = NULL;
	unsigned long n;
	int done = 0;

	cr_assert_eq(outcome_decode(&ref, text, strlen(text), &rerr), 0);
	cr_assert_eq(outcome_to_json(&want, &ref, &rerr), 0);
	outcome_release(&ref);

	for (n = 1; n < 100000 && !done; n++) {
		struct outcome o;
		struct sw_error err = SW_ERROR_INIT;
		char *json = NULL;
		int rc;

		sw_alloc_fail_after(n);
		rc = outcome_decode(&o, text, strlen(text), &err);
		if (rc == 0) {
			rc = outcome_to_json(&json, &o, &err);
			outcome_release(&o);
			done = rc == 0;
		}
		sw_alloc_fail_after(0);
		if (done)
			cr_assert_str_eq(json, want, "n=%lu\n%s\n%s", n, json, want);
		sw_free(json);
		if (rc != 0)
			cr_assert_eq(rc, SW_ENOMEM, "n=%lu rc=%d %s %s", n, rc, tbl_err_wire[err.proto], err.msg);
	}
	cr_assert(done);
	sw_free(want);
}

Test(outcome, allocation_failures_never_crash_or_leak)
{
	char scope[SW_DIGEST_LEN], *dp, *s;

	openssl_digest(canonical_scope, strlen(canonical_scope), scope);
	dp = destructive_pause(scope);
	s = outcome_text("implement", "needs_input", NO_SUGG, dp, "null", "null");
	alloc_walk(s);
	sw_free(s);
	s = outcome_text("implement", "completed", NO_SUGG, "null", IMPL("applied"), "null");
	alloc_walk(s);
	sw_free(s);
	s = outcome_text("review", "completed", NO_SUGG, "null", "null", REVIEW("findings_reported", FINDING));
	alloc_walk(s);
	sw_free(s);
	sw_free(dp);
}

/* ---- the fuzz seed corpus ---- */

Test(outcome, every_fuzz_seed_is_a_valid_outcome)
{
	const char *root = getenv("SLIPWAY_TEST_ROOT");
	char *dirname = sw_asprintf("%s/tests/fuzz/corpus/outcome", root ? root : ".");
	bool seen[FSM_KIND__COUNT][FSM_STATUS__COUNT] = { { false } };
	struct dirent *de;
	DIR *d = opendir(dirname);
	size_t files = 0, k, st, cells = 0;

	cr_assert_not_null(d, "cannot open %s", dirname);
	while ((de = readdir(d)) != NULL) {
		char *path, buf[65536];
		struct outcome o;
		struct sw_error err = SW_ERROR_INIT;
		size_t n;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		path = sw_asprintf("%s/%s", dirname, de->d_name);
		cr_assert_not_null(f = fopen(path, "rb"));
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		cr_assert_eq(outcome_decode(&o, buf, n, &err), 0, "%s: %s", path, err.msg);
		seen[o.kind][o.status_id] = true;
		outcome_release(&o);
		sw_free(path);
		files++;
	}
	closedir(d);
	sw_free(dirname);
	/* one seed at least for each legal (kind, status) cell */
	for (k = 1; k < FSM_KIND__COUNT; k++)
		for (st = 1; st < FSM_STATUS__COUNT; st++)
			if (tbl_legal[k][st].legal) {
				cells++;
				cr_assert(seen[k][st], "no seed for %s/%s",
					  tbl_kind_wire[k], tbl_status_wire[st]);
			}
	cr_assert_geq(files, cells);
}

Test(outcome, request_verify_recomputes_the_scope)
{
	struct outcome_target t[2] = {
		{ "git_ref", "refs/heads/old" }, { "path", "build/" },
	};
	char want[SW_DIGEST_LEN];
	struct outcome_request r = {
		REQ_ID, t, 2, "Deletes \"build\" \\ everything\n\tfor ever \xc3\xa9", want,
	};
	struct sw_error err = SW_ERROR_INIT;

	openssl_digest(canonical_scope, strlen(canonical_scope), want);
	cr_assert_eq(outcome_request_verify(&r, &err), 0, "%s", err.msg);
	want[7] = want[7] == '0' ? '1' : '0';
	cr_assert_eq(outcome_request_verify(&r, &err), SW_EINVAL);
	r.scope_sha256 = "sha256:short";
	cr_assert_eq(outcome_request_verify(&r, &err), SW_EINVAL);
}

/* ---- rejection messages name what is wrong and what is allowed ---- */

static void expect_message(const char *text, const char *const *words)
{
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(decode_str(text, &o, &err), SW_EPROTO, "accepted: %s", text);
	for (size_t i = 0; words[i]; i++)
		cr_expect(strstr(err.msg, words[i]) != NULL, "'%s' not in '%s'", words[i], err.msg);
}

Test(outcome, rejections_name_the_missing_fields_and_the_allowed_values)
{
	char *base = valid_orient(), *s;
	static const char *const missing_version[] = { "contract_version", "missing", "2", NULL };
	static const char *const missing_two[] = { "\"pause\"", "\"review\"", "are missing", NULL };
	static const char *const reasons[] = { "\"later\"", "decision_required", "environment_unavailable",
					       "destructive_confirmation_required", NULL };
	static const char *const statuses[] = { "\"done\"", "completed", "partial", "error", "needs_input", NULL };
	static const char *const clarify_statuses[] = { "completed", "needs_input", "error", NULL };
	static const char *const kinds[] = { "\"deploy\"", "clarify", "implement", "summarize", NULL };
	static const char *const results[] = { "\"done\"", "applied", "partial", "not_needed", "unable", NULL };
	static const char *const pauses_for_orient[] = { "orient needs_input", "decision_required",
							 "environment_unavailable", NULL };

	s = subst(base, "\"contract_version\":2,", "");
	expect_message(s, missing_version);
	sw_free(s);
	s = subst(base, ",\"pause\":null", "");
	{
		char *t = subst(s, ",\"review\":null", "");

		expect_message(t, missing_two);
		sw_free(t);
	}
	sw_free(s);
	s = subst(base, "\"status\":\"completed\"", "\"status\":\"done\"");
	expect_message(s, statuses);
	sw_free(s);
	s = subst(base, "\"kind\":\"implement\"", "\"kind\":\"deploy\"");
	expect_message(s, kinds);
	sw_free(s);
	sw_free(base);

	base = outcome_text("orient", "needs_input", "[]",
			    "{\"reason\":\"later\",\"question\":\"q?\",\"destructive_request\":null}", "null", "null");
	expect_message(base, reasons);
	s = subst(base, "later", "destructive_confirmation_required");
	{
		char *t = subst(s, "\"destructive_request\":null",
				"\"destructive_request\":{\"request_id\":\"3f0c6a52-9b1e-4d7a-8c2f-5e4b1a9d7c60\","
				"\"targets\":[{\"kind\":\"path\",\"value\":\"a\"}],\"impact\":\"gone\",\"scope_sha256\":"
				"\"sha256:0000000000000000000000000000000000000000000000000000000000000000\"}");

		expect_message(t, (const char *const[]){ "scope_sha256", NULL });
		sw_free(t);
	}
	sw_free(s);
	sw_free(base);

	base = outcome_text("clarify", "partial", "[]", "null", "null", "null");
	expect_message(base, clarify_statuses);
	sw_free(base);

	base = outcome_text("orient", "needs_input", "[]",
			    "{\"reason\":\"destructive_confirmation_required\",\"question\":\"q?\",\"destructive_request\":"
			    "{\"request_id\":\"3f0c6a52-9b1e-4d7a-8c2f-5e4b1a9d7c60\",\"targets\":[{\"kind\":\"path\","
			    "\"value\":\"a\"}],\"impact\":\"gone\",\"scope_sha256\":\"SCOPE\"}}", "null", "null");
	{
		struct outcome_target t = { (char *)"path", (char *)"a" };
		struct outcome_request r = { (char *)"3f0c6a52-9b1e-4d7a-8c2f-5e4b1a9d7c60", &t, 1,
					     (char *)"gone", NULL };
		char digest[SW_DIGEST_LEN];
		struct sw_error err = SW_ERROR_INIT;

		cr_assert_eq(outcome_scope_sha256(&r, digest, &err), 0);
		s = subst(base, "SCOPE", digest);
		expect_message(s, pauses_for_orient);
		sw_free(s);
	}
	sw_free(base);

	base = outcome_text("implement", "completed", "[]", "null",
			    "{\"result\":\"done\",\"files_changed\":[],\"activities\":[],\"uncertainties\":[],\"attempts\":1}",
			    "null");
	expect_message(base, results);
	sw_free(base);
}
