/* io/source: envelope intake, body classification, digests, JSON forms.
 *
 * Envelopes are built here with Jansson; every comment body digest the
 * manifest declares is computed in this file with OpenSSL directly, so a
 * mutation breaks exactly the rule a test names. */

#include "tests/io/source_helpers.h"
#include "tests/support/tmp.h"

Test(io_source, fixture_parses_and_every_digest_matches_an_independent_computation)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	char *path = fixture_path(), *buf = NULL;
	size_t len = 0;
	json_t *raw;
	const struct source_pinned *p;
	char want[72], mrev[72];
	EVP_MD_CTX *ctx;

	cr_assert_eq(source_read_file(&buf, &len, path, &err), 0, "%s", err.msg);
	cr_assert_eq(source_parse_candidate(&c, buf, len, &err), 0, "%s", err.msg);
	cr_assert_eq(c->valid, 1);
	cr_expect_eq(c->code, SOURCE_CLASS_VALID_CHANGE);
	p = c->snapshot;
	cr_assert_not_null(p);
	cr_expect_eq(p->n_sections, 5);
	cr_expect_str_eq(p->title, "[Change] Container source smoke");
	cr_expect_eq(p->issue_number, 434);
	cr_expect_str_eq(p->parent_requirements_revision, "");
	cr_expect_null(p->parent);

	raw = json_loadb(buf, len, 0, NULL);
	cr_assert_not_null(raw);
	/* body digests: recomputed from each comment; also what the manifest
	 * declares (the fixture's own numbers). */
	for (size_t i = 0; i < p->n_sections; i++) {
		const struct source_section *s = &p->sections[i];
		json_t *cm = json_array_get(json_object_get(raw, "comments"), i);
		const char *body = json_string_value(json_object_get(cm, "body"));
		const char *nl = strchr(body, '\n');
		char *payload = strdup(nl + 1);

		t_comment_digest(want, body);
		cr_expect_str_eq(s->body_sha256, want);
		cr_expect(strstr(json_string_value(json_object_get(raw, "body")),
				 s->body_sha256) != NULL);
		cr_expect_eq(s->bytes, strlen(payload));
		cr_expect_eq(memcmp(s->payload, payload, s->bytes), 0);
		t_framed(want, 2, "slipway-material/v1", payload);
		cr_expect_str_eq(s->material_sha256, want);
		t_framed(want, 5, "slipway-section/v2", s->key,
			 source_role_wire[s->role], s->title, payload);
		cr_expect_str_eq(s->section_revision, want);
		free(payload);
	}
	/* manifest revision: 4 + 6 fields per section */
	{
		unsigned char md[32], be[8];
		unsigned int mdlen;
		const char *head[] = { "slipway-manifest/v2", "2", "change/v2", "" };

		ctx = EVP_MD_CTX_new();
		EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
#define FIELD(str) do { size_t l_ = strlen(str); \
	for (int k = 0; k < 8; k++) be[k] = (unsigned char)((uint64_t)l_ >> (56 - 8 * k)); \
	EVP_DigestUpdate(ctx, be, 8); EVP_DigestUpdate(ctx, str, l_); } while (0)
		for (int i = 0; i < 4; i++)
			FIELD(head[i]);
		for (size_t i = 0; i < p->n_sections; i++) {
			char id[32];

			snprintf(id, sizeof(id), "%lld",
				 (long long)p->sections[i].provenance.comment_database_id);
			FIELD(p->sections[i].key);
			FIELD(source_role_wire[p->sections[i].role]);
			FIELD(p->sections[i].title);
			FIELD(p->sections[i].provenance.comment_node_id);
			FIELD(id);
			FIELD(p->sections[i].body_sha256);
		}
		EVP_DigestFinal_ex(ctx, md, &mdlen);
		memcpy(mrev, "sha256:", 7);
		for (int i = 0; i < 32; i++)
			snprintf(mrev + 7 + 2 * i, 3, "%02x", md[i]);
		cr_expect_str_eq(p->manifest_revision, mrev);
		/* requirements revision */
		EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
		FIELD("slipway-requirements/v2");
		FIELD("change/v2");
		for (size_t i = 0; i < p->n_sections; i++) {
			FIELD(p->sections[i].key);
			FIELD(source_role_wire[p->sections[i].role]);
			FIELD(p->sections[i].title);
			FIELD(p->sections[i].section_revision);
		}
		EVP_DigestFinal_ex(ctx, md, &mdlen);
		memcpy(want, "sha256:", 7);
		for (int i = 0; i < 32; i++)
			snprintf(want + 7 + 2 * i, 3, "%02x", md[i]);
		cr_expect_str_eq(p->requirements_revision, want);
#undef FIELD
		EVP_MD_CTX_free(ctx);
	}
	t_framed(want, 7, "slipway-source/v2", "2", "github.com", "R_containerSmoke",
		 "I_containerSmoke", "[Change] Container source smoke", mrev);
	cr_expect_str_eq(p->source_revision, want);
	cr_expect_str_eq(c->source_revision, p->source_revision);
	cr_expect_str_eq(c->requirements_revision, p->requirements_revision);
	cr_expect_str_eq(c->observation_sha256, "");
	cr_expect_eq(source_pinned_validate(p, &err), 0, "%s", err.msg);
	json_decref(raw);
	source_candidate_free(c);
	sw_free(buf);
	free(path);
}

Test(io_source, digests_match_the_reference_golden_vectors)
{
	struct sw_error err = SW_ERROR_INIT;
	char d[SW_DIGEST_LEN];
	struct source__manifest_section m = {
		"requirements", SOURCE_ROLE_REQUIREMENTS, "Requirements",
		"IC_requirements", 42,
		"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"sha256:abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
	};

	cr_assert_eq(source_comment_body_sha256(d, "hello\r\n", 7, &err), 0);
	cr_expect_str_eq(d, "sha256:e3d8ed9910845a2586b220f77cbeeb12ccf5cbdb654301b6b84ea059fadd2f08");
	sw_material_digest(d, "hello\n", 6, &err);
	cr_expect_str_eq(d, "sha256:b60997511c1ba1fa5441e3395a48951bfa247c8f0e838c8af36632b8e56e238e");
	source__section_digest(d, "requirements", SOURCE_ROLE_REQUIREMENTS,
			       "Requirements", "hello\n", 6, &err);
	cr_expect_str_eq(d, "sha256:c270635399a40865f1f8d3a62ad9f68ec6c2959336f5b7b6a309285ab763a257");
	source__manifest_revision(d, 2, "change/v2", "sha256:parent", &m, 1, &err);
	cr_expect_str_eq(d, "sha256:d2af09b9003689494b769cb4c3e3ad437bba13bee6f5ed9a2a54164f566d2a88");
	source__requirements_revision(d, "change/v2", &m, 1, &err);
	cr_expect_str_eq(d, "sha256:63e981153a43384d9774ae98004edfaba804d62e3dac5dfb400c60331fb77f78");
	source__source_revision(d, "github.com", "R_example", "I_example",
				"[Change] Example\r\nTitle", m.body_sha256, &err);
	cr_expect_str_eq(d, "sha256:ae2212cb7e93245b78eadbad656c99278ebaf1775d7736cfe376b03a253b851a");
	cr_expect_eq(err.code, SW_OK);
}

Test(io_source, built_envelope_is_valid_and_crlf_bodies_normalize)
{
	struct builder b;

	builder_init(&b);
	expect_valid(&b);
	builder_init(&b);
	b.crlf = 1;
	expect_valid(&b);
	builder_init(&b);
	set_payload(&b, 1, "# Requirements\r\n\r\nWindows lines.\r\n");
	expect_valid(&b);
}

Test(io_source, invalid_candidate_observation_digest_is_framed_over_sorted_comments)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e;
	char *body, want[72], d[5][72];
	const char *first, *second;

	builder_init(&b);
	b.marker = "<!-- no marker -->";
	/* Make node ids sort against array order. */
	snprintf(b.s[0].node, sizeof(b.s[0].node), "IC_z");
	snprintf(b.s[1].node, sizeof(b.s[1].node), "IC_a");
	for (size_t i = 2; i < b.n; i++)
		b.s[i].not_in_comments = 1;
	e = envelope(&b);
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(c->valid, 0);
	cr_expect_eq(c->code, SOURCE_CLASS_CHANGE_MARKER_REQUIRED);
	body = t_normalize(json_string_value(json_object_get(e, "body")));
	first = b.s[1].body;
	second = b.s[0].body;
	t_comment_digest(d[0], first);
	t_comment_digest(d[1], second);
	t_framed(want, 10, "slipway-source-observation/v2", "github.com", "R_t",
		 "I_t", "[Change] Test source", body, "IC_a", d[0], "IC_z", d[1]);
	cr_expect_str_eq(c->observation_sha256, want);
	free(body);
	source_candidate_free(c);
	json_decref(e);
	builder_release(&b);
}

/* ---- classification codes ----------------------------------------------- */

Test(io_source, body_without_marker_requires_the_change_marker)
{
	struct builder b;

	builder_init(&b);
	b.marker = "# Just an issue";
	expect_class(&b, SOURCE_CLASS_CHANGE_MARKER_REQUIRED);
}

Test(io_source, empty_body_requires_the_change_marker)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e;

	builder_init(&b);
	e = envelope(&b);
	json_object_set_new(e, "body", json_string(""));
	json_object_set_new(e, "comments", json_array());
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_expect_eq(c->code, SOURCE_CLASS_CHANGE_MARKER_REQUIRED);
	source_candidate_free(c);
	json_decref(e);
	builder_release(&b);
}

Test(io_source, objective_marker_is_classified)
{
	struct builder b;

	builder_init(&b);
	b.marker = "<!-- slipway-level: objective/v1 -->";
	expect_class(&b, SOURCE_CLASS_OBJECTIVE_MARKER);
}

Test(io_source, other_level_marker_is_unsupported)
{
	struct builder b;

	builder_init(&b);
	b.marker = "<!-- slipway-level: change/v1 -->";
	expect_class(&b, SOURCE_CLASS_UNSUPPORTED_MARKER);
	builder_init(&b);
	b.marker = MARKER " ";	/* exact match only */
	expect_class(&b, SOURCE_CLASS_UNSUPPORTED_MARKER);
}

Test(io_source, manifest_fence_must_follow_the_marker)
{
	struct builder b;

	builder_init(&b);
	b.between = "\nprose\n";
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
}

Test(io_source, manifest_fence_must_close)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e;

	builder_init(&b);
	e = envelope(&b);
	json_object_set_new(e, "body", json_string(MARKER "\n```slipway-manifest\n{}\n"));
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_expect_eq(c->code, SOURCE_CLASS_MANIFEST_INVALID);
	source_candidate_free(c);
	json_decref(e);
	builder_release(&b);
}

Test(io_source, empty_and_malformed_and_oversized_manifests_are_invalid)
{
	struct builder b;
	char *big;

	builder_init(&b);
	b.manifest_text = "";
	/* "```slipway-manifest\n\n```": one empty line is still empty text */
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);
	b.manifest_text = "{\"manifest_version\":2,";
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);
	b.manifest_text = "{\"manifest_version\":2,\"manifest_version\":2}";
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	big = malloc(262146);
	memset(big, ' ', 262145);
	big[0] = '{';
	big[262143] = '}';
	big[262145] = '\0';
	builder_init(&b);
	b.manifest_text = big;
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	free(big);
}

Test(io_source, manifest_rules_are_enforced)
{
	struct builder b;

	builder_init(&b);	/* four sections */
	b.s[4].not_in_manifest = 1;
	b.s[4].not_in_comments = 1;
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* bad key */
	snprintf(b.s[0].key, sizeof(b.s[0].key), "Outcome");
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* duplicate key */
	snprintf(b.s[1].key, sizeof(b.s[1].key), "outcome");
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* unknown role */
	snprintf(b.s[1].role, sizeof(b.s[1].role), "design");
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* missing role */
	snprintf(b.s[4].role, sizeof(b.s[4].role), "constraints");
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* blank title */
	snprintf(b.s[0].title, sizeof(b.s[0].title), " \xc2\xa0");
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* title over 512 bytes */
	memset(b.s[0].title, 'x', 513);
	b.s[0].title[513] = '\0';
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* bad digest form */
	b.s[0].declared = "sha256:ABC";
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* bad parent */
	b.parent_rev = "sha256:parent";
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);	/* unknown manifest key */
	b.manifest_text = "{\"manifest_version\":2,\"profile\":\"change/v2\",\"sections\":[],\"x\":1}";
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
}

Test(io_source, title_of_exactly_512_bytes_and_a_valid_parent_are_accepted)
{
	struct builder b;

	builder_init(&b);
	memset(b.s[0].title, 'x', 512);
	b.s[0].title[512] = '\0';
	b.parent_rev = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	expect_valid(&b);
}

Test(io_source, stray_level_marker_or_second_fence_outside_code_is_invalid)
{
	struct builder b;

	builder_init(&b);
	b.suffix = "\nLater text\n<!-- slipway-level: objective/v1 -->\n";
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	builder_init(&b);
	b.suffix = "\n  ```slipway-manifest  \n";
	expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
}

Test(io_source, referenced_comment_missing)
{
	struct builder b;

	builder_init(&b);
	b.s[2].not_in_comments = 1;
	expect_class(&b, SOURCE_CLASS_SECTION_MISSING);
}

Test(io_source, database_id_mismatch_is_section_invalid)
{
	struct builder b;

	builder_init(&b);
	b.s[1].manifest_dbid = 9999;
	expect_class(&b, SOURCE_CLASS_SECTION_INVALID);
}

Test(io_source, minimized_comment)
{
	struct builder b;

	builder_init(&b);
	b.s[3].minimized = 1;
	expect_class(&b, SOURCE_CLASS_SECTION_MINIMIZED);
}

Test(io_source, body_digest_mismatch)
{
	struct builder b;

	builder_init(&b);
	b.s[0].declared = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
	expect_class(&b, SOURCE_CLASS_SECTION_HASH_MISMATCH);
}

Test(io_source, section_marker_must_lead_and_payload_must_not_be_blank)
{
	struct builder b;

	builder_init(&b);	/* marker names another key */
	free(b.s[0].body);
	b.s[0].body = strdup("<!-- slipway-section:v1 key=requirements -->\nx\n");
	expect_class(&b, SOURCE_CLASS_SECTION_INVALID);
	builder_init(&b);	/* text before the marker */
	free(b.s[0].body);
	b.s[0].body = strdup("intro\n<!-- slipway-section:v1 key=outcome -->\nx\n");
	expect_class(&b, SOURCE_CLASS_SECTION_INVALID);
	builder_init(&b);	/* blank payload */
	set_payload(&b, 0, " \n\t\n");
	expect_class(&b, SOURCE_CLASS_SECTION_INVALID);
	builder_init(&b);	/* no newline after the marker */
	free(b.s[0].body);
	b.s[0].body = strdup("<!-- slipway-section:v1 key=outcome -->");
	expect_class(&b, SOURCE_CLASS_SECTION_INVALID);
	builder_init(&b);	/* blank lines before the marker are fine */
	free(b.s[0].body);
	b.s[0].body = strdup("\n  \n<!-- slipway-section:v1 key=outcome -->\nok\n");
	expect_valid(&b);
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

Test(io_source, section_payload_limit_is_262144_bytes)
{
	struct builder b;
	char *x = repeat('x', 262144);

	builder_init(&b);
	set_payload(&b, 0, x);
	expect_valid(&b);
	free(x);
	x = repeat('x', 262145);
	builder_init(&b);
	set_payload(&b, 0, x);
	expect_class(&b, SOURCE_CLASS_SECTION_TOO_LARGE);
	free(x);
}

Test(io_source, bundle_limit_is_4194304_bytes)
{
	struct builder b;
	char *x = repeat('y', 262144);

	builder_init(&b);
	for (int i = 0; b.n < 16; i++) {
		char key[16];

		snprintf(key, sizeof(key), "extra-%d", i);
		add_sec(&b, key, "requirements", "More", "z\n");
	}
	for (size_t i = 0; i < 16; i++)
		set_payload(&b, i, x);	/* 16 * 256 KiB = exactly 4 MiB */
	expect_valid(&b);
	builder_init(&b);
	for (int i = 0; b.n < 17; i++) {
		char key[16];

		snprintf(key, sizeof(key), "extra-%d", i);
		add_sec(&b, key, "requirements", "More", "z\n");
	}
	for (size_t i = 0; i < 17; i++)
		set_payload(&b, i, x);
	expect_class(&b, SOURCE_CLASS_BUNDLE_TOO_LARGE);
	free(x);
}

Test(io_source, unreferenced_comment_is_unexpected)
{
	struct builder b;

	builder_init(&b);
	add_sec(&b, "discussion", "outcome", "Talk", "chatter\n");
	b.s[5].not_in_manifest = 1;
	expect_class(&b, SOURCE_CLASS_SECTION_UNEXPECTED);
}

Test(io_source, every_classification_code_has_a_wire_spelling)
{
	cr_expect_str_eq(source_class_wire[SOURCE_CLASS_INVALID_CHANGE_BODY],
			 "invalid_change_body");
	for (int i = SOURCE_CLASS_NONE + 1; i < SOURCE_CLASS__COUNT; i++)
		cr_expect_eq((int)source_class_from_wire(source_class_wire[i]), i);
	cr_expect_eq(source_class_from_wire("nope"), SOURCE_CLASS_NONE);
}

/* ---- Markdown fences ---------------------------------------------------- */

static void expect_suffix(const char *md, int ok)
{
	struct builder b;
	char *suffix;

	if (asprintf(&suffix, "\n%s\n", md) < 0)
		abort();
	builder_init(&b);
	b.suffix = suffix;
	cr_log_info("markdown case: %s", md);
	if (ok)
		expect_valid(&b);
	else
		expect_class(&b, SOURCE_CLASS_MANIFEST_INVALID);
	free(suffix);
}

Test(io_source, level_markers_inside_code_fences_are_allowed)
{
	static const char *const ok[] = {
		"~~~~\n```\n<!-- slipway-level: change/v2 -->\n```\n~~~~",
		"```text\n<!-- slipway-level: objective/v3 -->\n```slipway-manifest\n```",
		"> ~~~\n> <!-- slipway-level: change/v1 -->\n> ~~~",
		"* ```md\n  <!-- slipway-level: x -->\n  ```",
		">> 1. ```\n>>    <!-- slipway-level: x -->\n>>    ```",
		"+ Item:\n\n    ~~~\n    <!-- slipway-level: x -->\n    ~~~",
		"- Item:\n  ~~~\n  <!-- slipway-level: x -->\n  ~~~",
		"* > ~~~\n  > <!-- slipway-level: x -->\n  > ~~~",
		"7) ```\n   <!-- slipway-level: x -->\n   ```",
		"```\nunclosed fence runs to the end\n<!-- slipway-level: x -->",
		"Some paragraph\n1. ~~~\n   <!-- slipway-level: x -->\n   ~~~",
		"> * old\n\n>   ~~~\n> <!-- slipway-level: x -->\n> ~~~",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		expect_suffix(ok[i], 1);
}

Test(io_source, level_markers_that_leave_their_fence_container_are_rejected)
{
	static const char *const bad[] = {
		"* Item:\n  ~~~\n<!-- slipway-level: x -->\n  ~~~",
		"+ Item:\n\n  > ~~~\n> <!-- slipway-level: x -->\n  > ~~~",
		"Some paragraph\n3. ~~~\n   <!-- slipway-level: x -->\n   ~~~",
		"``` a`b\n<!-- slipway-level: x -->\n```",
		"    ```\n<!-- slipway-level: x -->\n```",
		"~~~\n~~~\n<!-- slipway-level: x -->",
		/* indented code blocks are not modelled: only fences hide */
		"+ Item:\n\n      ~~~\n      <!-- slipway-level: x -->\n      ~~~",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_suffix(bad[i], 0);
}

Test(io_source, scanner_reports_only_markers_outside_fences)
{
	struct sw_error err = SW_ERROR_INIT;
	char why[256];

	cr_expect_eq(source__scan_after_manifest("a\n<!-- slipway-level: q", 23,
						 why, sizeof(why), &err), 1);
	cr_expect_eq(source__scan_after_manifest("```\n<!-- slipway-level: q\n```",
						 29, why, sizeof(why), &err), 0);
	cr_expect_eq(source__scan_after_manifest("", 0, why, sizeof(why), &err), 0);
}

Test(io_source, rfc3339_and_issue_url_rules_follow_the_reference_parser)
{
	static const char *const good_times[] = {
		"2026-07-12T09:00:00Z", "2024-02-29T00:00:00+00:00",
		"2026-07-12T9:00:00Z", "2026-07-12T09:00:00.5Z",
		"2026-07-12T09:00:00,123-03:30", "2026-07-12T09:00:00+24:60",
		"0000-02-29T00:00:00Z",
	};
	static const char *const bad_times[] = {
		"2026-07-12t09:00:00Z", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
		"2026-07-12T24:00:00Z", "2026-07-12T09:60:00Z", "2026-07-12T09:00:60Z",
		"2026-07-12T09:00:00", "2026-07-12T09:00:00z", "2026-07-12T09:00:00+25:00",
		"2026-07-12T09:00:00+0100", "2026-07-12T09:00:00.Z", "26-07-12T09:00:00Z",
		"2026-07-12T09:00:00Z ", "2026-7-12T09:00:00Z",
	};

	for (size_t i = 0; i < sizeof(good_times) / sizeof(*good_times); i++)
		cr_expect(source__rfc3339_valid(good_times[i], strlen(good_times[i])),
			  "%s", good_times[i]);
	for (size_t i = 0; i < sizeof(bad_times) / sizeof(*bad_times); i++)
		cr_expect(!source__rfc3339_valid(bad_times[i], strlen(bad_times[i])),
			  "%s", bad_times[i]);
#define URL_OK(u, n) cr_expect_null(source__issue_url_check(u, strlen(u), n), "%s", u)
#define URL_BAD(u, n) cr_expect_not_null(source__issue_url_check(u, strlen(u), n), "%s", u)
	URL_OK("https://github.com/a-b/c_d.e/issues/18446744073709551615", 0);
	URL_BAD("https://github.com/a/b/issues/18446744073709551616", 0);
	URL_OK("HTTPS://github.com/a/b/issues/5", 5);
	URL_BAD("https://github.com/a/b/issues/5", 6);
	URL_BAD("https://github.com/a_b/c/issues/5", 0);
	URL_BAD("https://github.com/a/./issues/5", 0);
	URL_BAD("https://github.com/a/b/issues/5/", 0);
	URL_BAD("https://github.com/a/b/pulls/5", 0);
	URL_BAD("https://github.com/a/b/issues/", 0);
	URL_BAD("http://github.com/a/b/issues/5", 0);
	URL_BAD("https://github.com/a/b/issues/5#", 0);
#undef URL_OK
#undef URL_BAD
	cr_expect(source__comment_url_valid("https://github.com/a/b/issues/5#issuecomment-12", 47,
					    "https://github.com/a/b/issues/5", 12));
	cr_expect(!source__comment_url_valid("https://github.com/a/b/issues/5#issuecomment-12%", 48,
					     "https://github.com/a/b/issues/5", 12));
	cr_expect(!source__comment_url_valid("https://github.com/a/b/issues/5?#issuecomment-12", 48,
					     "https://github.com/a/b/issues/5", 12));
}

/* ---- hard rules ----------------------------------------------------------- */


static void m_version(json_t *e) { json_object_set_new(e, "source_version", json_integer(1)); }
static void m_version_real(json_t *e) { json_object_set_new(e, "source_version", json_real(2.0)); }
static void m_unknown(json_t *e) { json_object_set_new(e, "extra", json_true()); }
static void m_missing(json_t *e) { json_object_del(e, "fetched_at"); }
static void m_provider(json_t *e) { json_object_set_new(e, "provider", json_string("gitlab")); }
static void m_host(json_t *e) { json_object_set_new(e, "host", json_string("GitHub.com")); }
static void m_repo_space(json_t *e) { json_object_set_new(e, "repository_id", json_string("R \u00a0x")); }
static void m_issue_empty(json_t *e) { json_object_set_new(e, "issue_id", json_string("")); }
static void m_number(json_t *e) { json_object_set_new(e, "issue_number", json_integer(0)); }
static void m_title_blank(json_t *e) { json_object_set_new(e, "title", json_string("\xe2\x80\x83")); }
static void m_title_del(json_t *e) { json_object_set_new(e, "title", json_string("a\x7f")); }
static void m_title_c1(json_t *e) { json_object_set_new(e, "title", json_string("a\xc2\x85")); }
static void m_body_ctrl(json_t *e) { json_object_set_new(e, "body", json_string("x\x01")); }
static void m_updated(json_t *e) { json_object_set_new(e, "updated_at", json_string("2026-02-30T00:00:00Z")); }
static void m_fetched(json_t *e) { json_object_set_new(e, "fetched_at", json_string("2026-07-12 09:01:00Z")); }
static void m_url_port(json_t *e) { json_object_set_new(e, "canonical_url", json_string("https://github.com:443/acme/widgets/issues/77")); }
static void m_url_num(json_t *e) { json_object_set_new(e, "canonical_url", json_string("https://github.com/acme/widgets/issues/78")); }
static void m_url_zero(json_t *e) { json_object_set_new(e, "canonical_url", json_string("https://github.com/acme/widgets/issues/077")); }
static void m_url_query(json_t *e) { json_object_set_new(e, "canonical_url", json_string(ISSUE_URL "?x=1")); }
static void m_url_escape(json_t *e) { json_object_set_new(e, "canonical_url", json_string("https://github.com/acme/widget%73/issues/77")); }
static void m_url_dotdot(json_t *e) { json_object_set_new(e, "canonical_url", json_string("https://github.com/acme/../issues/77")); }
static void m_url_user(json_t *e) { json_object_set_new(e, "canonical_url", json_string("https://u@github.com/acme/widgets/issues/77")); }
static void m_labels_null(json_t *e) { json_object_set_new(e, "labels", json_null()); }
static void m_label_blank(json_t *e) { json_array_append_new(json_object_get(e, "labels"), json_string(" ")); }
static void m_labels_101(json_t *e)
{
	json_t *a = json_array();

	for (int i = 0; i < 101; i++)
		json_array_append_new(a, json_string("l"));
	json_object_set_new(e, "labels", a);
}
static void m_comments_65(json_t *e)
{
	json_t *a = json_array();

	for (int i = 0; i < 65; i++) {
		char url[128], node[32];

		snprintf(url, sizeof(url), ISSUE_URL "#issuecomment-%d", 100 + i);
		snprintf(node, sizeof(node), "IC_%d", i);
		json_array_append_new(a, json_pack("{s:s,s:i,s:s,s:s,s:s,s:b,s:s}",
			"node_id", node, "database_id", 100 + i, "url", url,
			"updated_at", "2026-07-12T09:00:00Z", "author_id", "U",
			"is_minimized", 0, "body", ""));
	}
	json_object_set_new(e, "comments", a);
}
static void m_comment_url(json_t *e) { json_object_set_new(first_comment(e), "url", json_string("https://github.com/acme/widgets/issues/41#issuecomment-5001")); }
static void m_comment_frag(json_t *e) { json_object_set_new(first_comment(e), "url", json_string(ISSUE_URL "#issuecomment-5002")); }
static void m_comment_port(json_t *e) { json_object_set_new(first_comment(e), "url", json_string("https://github.com:443/acme/widgets/issues/77#issuecomment-5001")); }
static void m_comment_dbid(json_t *e) { json_object_set_new(first_comment(e), "database_id", json_integer(0)); }
static void m_comment_author(json_t *e) { json_object_set_new(first_comment(e), "author_id", json_string("U x")); }
static void m_comment_time(json_t *e) { json_object_set_new(first_comment(e), "updated_at", json_string("yesterday")); }
static void m_comment_minimized_type(json_t *e) { json_object_set_new(first_comment(e), "is_minimized", json_integer(0)); }
static void m_comment_unknown(json_t *e) { json_object_set_new(first_comment(e), "reactions", json_integer(0)); }
static void m_dup_node(json_t *e)
{
	json_object_set(json_array_get(json_object_get(e, "comments"), 1), "node_id",
			json_object_get(first_comment(e), "node_id"));
}
static void m_dup_dbid(json_t *e)
{
	json_t *c = json_array_get(json_object_get(e, "comments"), 1);

	json_object_set_new(c, "database_id", json_integer(5001));
	json_object_set_new(c, "url", json_string(ISSUE_URL "#issuecomment-5001"));
}
static void m_parent_url(json_t *e)
{
	json_object_set_new(e, "parent", json_pack("{s:s,s:s,s:s}", "repository_id",
		"R_p", "issue_id", "I_p", "canonical_url", "https://github.com/acme/widgets/pull/3"));
}
static void m_parent_key(json_t *e)
{
	json_object_set_new(e, "parent", json_pack("{s:s,s:s}", "repository_id",
		"R_p", "issue_id", "I_p"));
}

Test(io_source, envelope_rules_are_hard_errors)
{
	expect_hard(m_version, SW_EINVAL, "source_version 1");
	expect_hard(m_version_real, SW_EPARSE, "source_version 2.0");
	expect_hard(m_unknown, SW_EPARSE, "unknown key");
	expect_hard(m_missing, SW_EINVAL, "missing fetched_at is empty, not rfc3339");
	expect_hard(m_provider, SW_EINVAL, "provider");
	expect_hard(m_host, SW_EINVAL, "host");
	expect_hard(m_repo_space, SW_EINVAL, "repository id with NBSP");
	expect_hard(m_issue_empty, SW_EINVAL, "empty issue id");
	expect_hard(m_number, SW_EINVAL, "issue_number 0");
	expect_hard(m_title_blank, SW_EINVAL, "blank title");
	expect_hard(m_title_del, SW_EINVAL, "title DEL");
	expect_hard(m_title_c1, SW_EINVAL, "title C1");
	expect_hard(m_body_ctrl, SW_EINVAL, "body control");
	expect_hard(m_updated, SW_EINVAL, "updated_at Feb 30");
	expect_hard(m_fetched, SW_EINVAL, "fetched_at with a space");
	expect_hard(m_url_port, SW_EINVAL, "url port");
	expect_hard(m_url_num, SW_EINVAL, "url number");
	expect_hard(m_url_zero, SW_EINVAL, "url leading zero");
	expect_hard(m_url_query, SW_EINVAL, "url query");
	expect_hard(m_url_escape, SW_EINVAL, "url escape");
	expect_hard(m_url_dotdot, SW_EINVAL, "url ..");
	expect_hard(m_url_user, SW_EINVAL, "url userinfo");
	expect_hard(m_labels_null, SW_EINVAL, "labels null is an uninitialised array");
	expect_hard(m_label_blank, SW_EINVAL, "blank label");
	expect_hard(m_labels_101, SW_EINVAL, "101 labels");
	expect_hard(m_comments_65, SW_EINVAL, "65 comments");
	expect_hard(m_comment_url, SW_EINVAL, "comment of another issue");
	expect_hard(m_comment_frag, SW_EINVAL, "comment url of another id");
	expect_hard(m_comment_port, SW_EINVAL, "comment url port");
	expect_hard(m_comment_dbid, SW_EINVAL, "comment database id 0");
	expect_hard(m_comment_author, SW_EINVAL, "comment author space");
	expect_hard(m_comment_time, SW_EINVAL, "comment time");
	expect_hard(m_comment_minimized_type, SW_EPARSE, "is_minimized type");
	expect_hard(m_comment_unknown, SW_EPARSE, "comment unknown key");
	expect_hard(m_dup_node, SW_EINVAL, "duplicate node id");
	expect_hard(m_dup_dbid, SW_EINVAL, "duplicate database id");
	expect_hard(m_parent_url, SW_EINVAL, "parent url");
	expect_hard(m_parent_key, SW_EINVAL, "parent missing key is empty, then invalid");
}

static void m_parent_null(json_t *e) { json_object_set_new(e, "parent", json_null()); }
static void m_scheme_case(json_t *e)
{
	json_t *c = first_comment(e);

	/* the reference's URL parser lowercases the scheme and decodes the
	 * fragment before comparing */
	json_object_set_new(c, "url", json_string("HTTPS://github.com/acme/widgets/issues/77#issuecomment-%35001"));
}
static void m_time_forms(json_t *e)
{
	json_object_set_new(e, "updated_at", json_string("2024-02-29T23:59:59.123456789+05:30"));
	json_object_set_new(e, "fetched_at", json_string("2024-02-29T9:59:59,5Z"));
}

static void expect_ok_mutation(void (*mutate)(json_t *), const char *what)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e;

	builder_init(&b);
	e = envelope(&b);
	mutate(e);
	cr_expect_eq(parse_json(&c, e, &err), 0, "%s: %s", what, err.msg);
	cr_expect(c && c->valid, "%s", what);
	source_candidate_free(c);
	json_decref(e);
	builder_release(&b);
}

Test(io_source, reference_accepted_forms_are_accepted)
{
	expect_ok_mutation(m_parent_null, "parent null means absent");
	expect_ok_mutation(m_scheme_case, "scheme case and escaped fragment");
	expect_ok_mutation(m_time_forms, "rfc3339 variants");
}

Test(io_source, oversized_and_malformed_input_is_rejected)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;

	cr_expect_eq(source_parse_candidate(&c, "{}", 16777217, &err), SW_ETOOBIG);
	sw_error_clear(&err);
	cr_expect_eq(source_parse_candidate(&c, "\xef\xbb\xbf{}", 5, &err), SW_EPARSE);
	sw_error_clear(&err);
	cr_expect_eq(source_parse_candidate(&c, "[]", 2, &err), SW_EPARSE);
	sw_error_clear(&err);
	cr_expect_eq(source_parse_candidate(&c, "{} {}", 5, &err), SW_EPARSE);
	cr_expect_null(c);
}

Test(io_source, source_parse_turns_body_failures_into_errors)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_pinned *p = NULL;
	enum source_class code;
	json_t *e;
	char *text;

	builder_init(&b);
	b.s[0].minimized = 1;
	e = envelope(&b);
	text = json_dumps(e, 0);
	cr_expect_eq(source_parse(&p, &code, text, strlen(text), &err), SW_EINVAL);
	cr_expect_null(p);
	cr_expect_eq(code, SOURCE_CLASS_SECTION_MINIMIZED);
	cr_expect(strstr(err.msg, "source_section_minimized") != NULL, "%s", err.msg);
	sw_free(text);
	json_decref(e);
	builder_release(&b);
}

/* ---- reading ------------------------------------------------------------ */

static char tmpdir[4096];

static void mk_tmp(void)
{
	test_tmp_name(tmpdir, sizeof(tmpdir), "sw-source-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static char *in_tmp(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", tmpdir, name) < 0)
		abort();
	return p;
}

Test(io_source, read_refuses_symlinks_and_non_regular_files)
{
	struct sw_error err = SW_ERROR_INIT;
	char *file, *link, *buf = NULL;
	size_t len = 0;
	FILE *f;

	mk_tmp();
	file = in_tmp("env.json");
	link = in_tmp("link.json");
	f = fopen(file, "w");
	fputs("{}", f);
	fclose(f);
	cr_assert_eq(symlink(file, link), 0);
	cr_expect_eq(source_read_file(&buf, &len, link, &err), SW_EUNSAFE);
	cr_expect_null(buf);
	sw_error_clear(&err);
	cr_expect_eq(source_read_file(&buf, &len, tmpdir, &err), SW_EUNSAFE);
	sw_error_clear(&err);
	cr_expect_eq(source_read_file(&buf, &len, "", &err), SW_EINVAL);
	sw_error_clear(&err);
	unlink(link);
	cr_expect_eq(source_read_file(&buf, &len, link, &err), SW_ENOTFOUND);
	sw_error_clear(&err);
	cr_expect_eq(source_read_file(&buf, &len, file, &err), 0, "%s", err.msg);
	cr_expect_eq(len, 2);
	cr_expect_str_eq(buf, "{}");
	sw_free(buf);
	unlink(file);
	rmdir(tmpdir);
	free(file);
	free(link);
}

Test(io_source, read_limit_is_16_mib)
{
	struct sw_error err = SW_ERROR_INIT;
	char *file, *buf = NULL;
	size_t len = 0;
	int fd;

	mk_tmp();
	file = in_tmp("big.json");
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, 16777216), 0);
	cr_expect_eq(source_read_file(&buf, &len, file, &err), 0, "%s", err.msg);
	cr_expect_eq(len, 16777216);
	sw_free(buf);
	buf = NULL;
	cr_assert_eq(ftruncate(fd, 16777217), 0);
	close(fd);
	cr_expect_eq(source_read_file(&buf, &len, file, &err), SW_ETOOBIG);
	cr_expect_null(buf);
	unlink(file);
	rmdir(tmpdir);
	free(file);
}
