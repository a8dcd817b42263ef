/* io/source: envelope intake, body classification, digests, JSON forms.
 *
 * Envelopes are built here with Jansson; every comment body digest the
 * manifest declares is computed in this file with OpenSSL directly, so a
 * mutation breaks exactly the rule a test names. */

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/err.h"
#include "io/util/json.h"
#include "io/source/source.h"
#include "io/source/source_body.h"
#include "io/source/source_json.h"
#include "io/source/source_util.h"

#define ISSUE_URL "https://github.com/acme/widgets/issues/77"
#define MARKER "<!-- slipway-level: change/v2 -->"

/* ---- independent digests (OpenSSL, not io/digest) ---------------------- */

/* framed over `n` NUL-terminated fields, except that a field given as
 * NULL is followed by an explicit (pointer, length) pair. */
static void t_framed(char out[72], int n, ...)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[32], be[8];
	unsigned int mdlen = 0;
	va_list ap;

	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		const char *p = va_arg(ap, const char *);
		size_t len;

		if (p == NULL) {
			p = va_arg(ap, const char *);
			len = va_arg(ap, size_t);
		} else {
			len = strlen(p);
		}
		for (int k = 0; k < 8; k++)
			be[k] = (unsigned char)((uint64_t)len >> (56 - 8 * k));
		EVP_DigestUpdate(ctx, be, 8);
		EVP_DigestUpdate(ctx, p, len);
	}
	va_end(ap);
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	memcpy(out, "sha256:", 7);
	for (int i = 0; i < 32; i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", md[i]);
}

static char *t_normalize(const char *s)
{
	char *o = strdup(s);
	size_t k = 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '\r') {
			o[k++] = '\n';
			if (s[i + 1] == '\n')
				i++;
		} else {
			o[k++] = s[i];
		}
	}
	o[k] = '\0';
	return o;
}

static void t_comment_digest(char out[72], const char *body)
{
	char *n = t_normalize(body);

	t_framed(out, 2, "slipway-comment-body/v1", n);
	free(n);
}

/* ---- envelope builder ---------------------------------------------------- */

struct sec {
	char key[80], role[32], title[600], node[64];
	long long dbid;
	long long manifest_dbid;	/* 0: same as dbid */
	char *body;			/* comment body (owned) */
	const char *declared;		/* manifest body_sha256; NULL: computed */
	int minimized;
	int not_in_manifest;
	int not_in_comments;
};

struct builder {
	struct sec s[80];
	size_t n;
	const char *marker;
	const char *between;		/* between marker and fence */
	const char *suffix;		/* after the closing fence */
	const char *manifest_text;	/* replaces the generated manifest */
	const char *parent_rev;
	int crlf;			/* body line endings as CRLF */
};

static void add_sec(struct builder *b, const char *key, const char *role,
		    const char *title, const char *payload)
{
	struct sec *s = &b->s[b->n];

	memset(s, 0, sizeof(*s));
	snprintf(s->key, sizeof(s->key), "%s", key);
	snprintf(s->role, sizeof(s->role), "%s", role);
	snprintf(s->title, sizeof(s->title), "%s", title);
	snprintf(s->node, sizeof(s->node), "IC_t_%zu", b->n);
	s->dbid = 5001 + (long long)b->n;
	if (asprintf(&s->body, "<!-- slipway-section:v1 key=%s -->\n%s", key,
		     payload) < 0)
		abort();
	b->n++;
}

static void builder_init(struct builder *b)
{
	memset(b, 0, sizeof(*b));
	b->marker = MARKER;
	b->between = "\n";
	add_sec(b, "outcome", "outcome", "Outcome", "# Outcome\n\nShip it.\n");
	add_sec(b, "requirements", "requirements", "Requirements",
		"# Requirements\n\n- one\n- two\n");
	add_sec(b, "acceptance-examples", "acceptance_examples",
		"Acceptance examples", "# Examples\n\nGiven x.\n");
	add_sec(b, "constraints", "constraints", "Constraints",
		"# Constraints\n\nNone.\n");
	add_sec(b, "non-goals", "non_goals", "Non-goals", "# Non-goals\n\nNo UI.\n");
}

static void builder_release(struct builder *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->s[i].body);
}

static void set_payload(struct builder *b, size_t i, const char *payload)
{
	free(b->s[i].body);
	if (asprintf(&b->s[i].body, "<!-- slipway-section:v1 key=%s -->\n%s",
		     b->s[i].key, payload) < 0)
		abort();
}

static char *manifest_text(const struct builder *b)
{
	json_t *m = json_object(), *secs = json_array();
	char *text;

	json_object_set_new(m, "manifest_version", json_integer(2));
	json_object_set_new(m, "profile", json_string("change/v2"));
	if (b->parent_rev)
		json_object_set_new(m, "parent_requirements_revision",
				    json_string(b->parent_rev));
	for (size_t i = 0; i < b->n; i++) {
		const struct sec *s = &b->s[i];
		json_t *o;
		char d[72];

		if (s->not_in_manifest)
			continue;
		t_comment_digest(d, s->body);
		o = json_pack("{s:s,s:s,s:s,s:s,s:I,s:s}", "key", s->key, "role",
			      s->role, "title", s->title, "comment_node_id",
			      s->node, "comment_database_id",
			      (json_int_t)(s->manifest_dbid ? s->manifest_dbid : s->dbid),
			      "body_sha256", s->declared ? s->declared : d);
		json_array_append_new(secs, o);
	}
	json_object_set_new(m, "sections", secs);
	text = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(m);
	return text;
}

static char *crlf(const char *s)
{
	size_t n = strlen(s), k = 0;
	char *o = malloc(2 * n + 1);

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			o[k++] = '\r';
		o[k++] = s[i];
	}
	o[k] = '\0';
	return o;
}

static char *issue_body(const struct builder *b)
{
	char *m = b->manifest_text ? strdup(b->manifest_text) : manifest_text(b);
	char *body;

	if (asprintf(&body, "%s\n%s```slipway-manifest\n%s\n```\n%s", b->marker,
		     b->between, m, b->suffix ? b->suffix : "") < 0)
		abort();
	free(m);
	if (b->crlf) {
		char *c = crlf(body);

		free(body);
		body = c;
	}
	return body;
}

static json_t *envelope(const struct builder *b)
{
	json_t *e, *comments = json_array();
	char *body = issue_body(b);

	for (size_t i = 0; i < b->n; i++) {
		const struct sec *s = &b->s[i];
		char url[256];

		if (s->not_in_comments)
			continue;
		snprintf(url, sizeof(url), "%s#issuecomment-%lld", ISSUE_URL, s->dbid);
		json_array_append_new(comments, json_pack(
			"{s:s,s:I,s:s,s:s,s:s,s:b,s:s}", "node_id", s->node,
			"database_id", (json_int_t)s->dbid, "url", url,
			"updated_at", "2026-07-12T09:00:00Z", "author_id", "U_t",
			"is_minimized", s->minimized, "body", s->body));
	}
	e = json_pack("{s:i,s:s,s:s,s:s,s:s,s:i,s:s,s:s,s:s,s:s,s:s,s:[ss],s:o}",
		      "source_version", 2, "provider", "github", "host",
		      "github.com", "repository_id", "R_t", "issue_id", "I_t",
		      "issue_number", 77, "canonical_url", ISSUE_URL, "updated_at",
		      "2026-07-12T08:00:00Z", "fetched_at", "2026-07-12T09:01:00Z",
		      "title", "[Change] Test source", "body", body, "labels",
		      "level:change", "kind:test", "comments", comments);
	free(body);
	return e;
}

/* ---- parse helpers ------------------------------------------------------- */

static int parse_json(struct source_candidate **out, const json_t *e,
		      struct sw_error *err)
{
	char *text = json_dumps(e, JSON_COMPACT);
	int rc = source_parse_candidate(out, text, strlen(text), err);

	sw_free(text);
	return rc;
}

/* Parses the builder's envelope and expects an invalid candidate. */
static void expect_class(struct builder *b, enum source_class code)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e = envelope(b);
	int rc = parse_json(&c, e, &err);

	cr_assert_eq(rc, 0, "hard error instead of a candidate: %s", err.msg);
	cr_assert_not_null(c);
	cr_expect_eq(c->valid, 0);
	cr_expect_str_eq(source_class_wire[c->code], source_class_wire[code],
			 "reason: %s", c->classification_error);
	cr_expect_not_null(c->classification_error);
	cr_expect(strlen(c->classification_error) <= 1024);
	cr_expect(sw_digest_valid(c->observation_sha256));
	cr_expect_null(c->snapshot);
	cr_expect_null(c->title);
	cr_expect_str_eq(c->source_revision, "");
	source_candidate_free(c);
	json_decref(e);
	builder_release(b);
}

static void expect_valid(struct builder *b)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e = envelope(b);
	int rc = parse_json(&c, e, &err);

	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_expect_eq(c->valid, 1, "code %s: %s", source_class_wire[c->code],
		     c->classification_error ? c->classification_error : "");
	source_candidate_free(c);
	json_decref(e);
	builder_release(b);
}

/* Applies `mutate` to a valid envelope and expects a hard error `code`. */
static void expect_hard(void (*mutate)(json_t *), enum sw_code code,
			const char *what)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e;
	int rc;

	builder_init(&b);
	e = envelope(&b);
	mutate(e);
	rc = parse_json(&c, e, &err);
	cr_expect_eq(rc, code, "%s: rc %d (%s)", what, rc, err.msg);
	cr_expect_null(c, "%s", what);
	source_candidate_free(c);
	json_decref(e);
	builder_release(&b);
}

static void setup(void)
{
	sw_alloc_init();
}

TestSuite(io_source, .init = setup);

/* ---- fixture ---------------------------------------------------------- */

/* Conformance: the reference fixture carries digests computed upstream.
 * It exists only where ../shared/reference does; without it the test is
 * skipped and says so (our own envelope is tests/data/source-envelope.json,
 * checked by the e2e suite). */
static char *fixture_path(void)
{
	const char *shared = getenv("SLIPWAY_SHARED");
	char *p;

	if (asprintf(&p, "%s/reference/fixtures/container-source-envelope.json",
		     shared ? shared : "../shared") < 0)
		abort();
	if (access(p, R_OK) != 0) {
		printf("SKIP conformance with the reference fixture: %s not found\n", p);
		fflush(stdout);
		free(p);
		cr_skip_test("no reference fixture");
	}
	return p;
}

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

static json_t *first_comment(json_t *e)
{
	return json_array_get(json_object_get(e, "comments"), 0);
}

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

static char tmpdir[64];

static void mk_tmp(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sw-source-XXXXXX");
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

/* ---- JSON forms ------------------------------------------------------------ */

static void write_out(const char *name, const json_t *v)
{
	const char *root = getenv("SLIPWAY_TEST_ROOT");
	char *dir, *path;
	char *text = sw_json_dump(v);
	FILE *f;

	if (asprintf(&dir, "%s/build/test-out/source", root ? root : ".") < 0 ||
	    asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
		cr_assert_eq(system(cmd), 0);
	}
	{
		/* write then rename: the e2e check may read concurrently */
		char *tmp;

		if (asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) < 0)
			abort();
		f = fopen(tmp, "w");
		cr_assert_not_null(f);
		fputs(text, f);
		cr_assert_eq(fclose(f), 0);
		cr_assert_eq(rename(tmp, path), 0);
		free(tmp);
	}
	sw_free(text);
	free(path);
	free(dir);
}

Test(io_source, json_forms_follow_the_schema_shapes_and_hold_no_raw_input)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL, *bad = NULL;
	json_t *e, *j = NULL, *jb = NULL, *jp = NULL, *snap;
	char *text;

	builder_init(&b);
	b.parent_rev = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	e = envelope(&b);
	json_object_set_new(e, "parent", json_pack("{s:s,s:s,s:s}", "repository_id",
		"R_p", "issue_id", "I_p", "canonical_url", "https://github.com/acme/plans/issues/1"));
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(c->valid, 1);
	cr_assert_eq(source_candidate_to_json(&j, c, "cand-1", "2026-07-12T10:00:00Z", &err), 0);
	text = sw_json_dump(j);
	cr_expect(strncmp(text, "{\"candidate_id\":\"cand-1\",\"valid\":true,", 38) == 0, "%s", text);
	cr_expect(strstr(text, "slipway-level") == NULL);
	cr_expect(strstr(text, "level:change") == NULL);
	cr_expect(strstr(text, "fetched_at") == NULL);
	cr_expect(strstr(text, "Ship it") == NULL);
	cr_expect(strstr(text, "observation_sha256") == NULL);
	cr_expect(strstr(text, "\"created_at\":\"2026-07-12T10:00:00Z\"}") != NULL);
	snap = json_object_get(j, "snapshot");
	cr_expect_str_eq(json_string_value(json_object_get(snap, "parent_requirements_revision")),
			 b.parent_rev);
	write_out("candidate-valid.json", j);
	sw_free(text);

	/* the embedded snapshot decodes back */
	{
		struct source_pinned *p = NULL;

		cr_assert_eq(source_pinned_from_json(&p, snap, &err), 0, "%s", err.msg);
		cr_expect_str_eq(p->parent->canonical_url, "https://github.com/acme/plans/issues/1");
		source_pinned_free(p);
	}
	cr_assert_eq(source_pinned_to_json(&jp, c->snapshot, &err), 0);
	write_out("pinned.json", jp);
	{
		struct source_pinned *p = NULL;
		json_t *again = NULL;
		char *t1, *t2;

		cr_assert_eq(source_pinned_from_json(&p, jp, &err), 0, "%s", err.msg);
		cr_expect_null(p->sections[0].payload);
		cr_assert_eq(source_pinned_to_json(&again, p, &err), 0);
		t1 = sw_json_dump(jp);
		t2 = sw_json_dump(again);
		cr_expect_str_eq(t1, t2);
		sw_free(t1);
		sw_free(t2);
		json_decref(again);
		source_pinned_free(p);
	}
	json_decref(j);

	/* an invalid candidate */
	json_decref(e);
	builder_release(&b);
	builder_init(&b);
	b.s[0].declared = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
	e = envelope(&b);
	cr_assert_eq(parse_json(&bad, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_candidate_to_json(&jb, bad, "cand-2", "2026-07-12T10:00:00Z", &err), 0);
	cr_expect_null(json_object_get(jb, "snapshot"));
	cr_expect_null(json_object_get(jb, "title"));
	cr_expect_str_eq(json_string_value(json_object_get(jb, "classification_code")),
			 "source_section_hash_mismatch");
	write_out("candidate-invalid.json", jb);
	json_decref(jb);
	json_decref(jp);
	json_decref(e);
	builder_release(&b);
	source_candidate_free(bad);
	source_candidate_free(c);
}

static void tamper_and_expect(const json_t *good, const char *key, json_t *value,
			      enum sw_code want)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_pinned *p = NULL;
	json_t *copy = json_deep_copy(good);

	if (value)
		json_object_set_new(copy, key, value);
	else
		json_object_del(copy, key);
	cr_expect_eq(source_pinned_from_json(&p, copy, &err), want, "%s: %s", key, err.msg);
	cr_expect_null(p);
	json_decref(copy);
}

Test(io_source, pinned_decoder_rejects_tampering_and_unknown_keys)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e, *jp = NULL;
	const char *zero = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

	builder_init(&b);
	e = envelope(&b);
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_pinned_to_json(&jp, c->snapshot, &err), 0);
	tamper_and_expect(jp, "requirements_revision", json_string(zero), SW_EINVAL);
	tamper_and_expect(jp, "manifest_revision", json_string(zero), SW_EINVAL);
	tamper_and_expect(jp, "source_revision", json_string(zero), SW_EINVAL);
	tamper_and_expect(jp, "title", json_string("Another title"), SW_EINVAL);
	tamper_and_expect(jp, "extra", json_true(), SW_EPARSE);
	tamper_and_expect(jp, "sections", NULL, SW_EPARSE);
	tamper_and_expect(jp, "issue_number", json_string("77"), SW_EPARSE);
	tamper_and_expect(jp, "url_aliases",
			  json_pack("[s]", ISSUE_URL), SW_EINVAL);
	{
		json_t *ok = json_deep_copy(jp);
		struct source_pinned *p = NULL;

		/* aliases are projection only: not part of any revision */
		json_object_set_new(ok, "url_aliases",
				    json_pack("[s]", "https://github.com/old/place/issues/9"));
		cr_expect_eq(source_pinned_from_json(&p, ok, &err), 0, "%s", err.msg);
		source_pinned_free(p);
		json_decref(ok);
	}
	json_decref(jp);
	json_decref(e);
	source_candidate_free(c);
	builder_release(&b);
}

Test(io_source, clone_is_deep_and_validates)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	struct source_pinned *p = NULL;
	json_t *e;

	builder_init(&b);
	e = envelope(&b);
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_pinned_clone(&p, c->snapshot, &err), 0);
	cr_expect_neq(p->sections[0].payload, c->snapshot->sections[0].payload);
	cr_expect_eq(memcmp(p->sections[0].payload, c->snapshot->sections[0].payload,
			    p->sections[0].bytes), 0);
	source_candidate_free(c);
	cr_expect_eq(source_pinned_validate(p, &err), 0, "%s", err.msg);
	source_pinned_free(p);
	json_decref(e);
	builder_release(&b);
}

/* ---- allocation failures ------------------------------------------------- */

Test(io_source, every_allocation_failure_is_reported_and_leaks_nothing)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e, *j = NULL;
	char *text;
	int rc = -1, valid = 0;

	builder_init(&b);
	e = envelope(&b);
	text = json_dumps(e, JSON_COMPACT);
	/* Jansson 2.14 itself crashes when an allocation fails inside
	 * json_loadb, so during this loop only our own sw_malloc calls fail:
	 * Jansson gets the plain allocator. */
	json_set_alloc_funcs(malloc, free);
	for (unsigned long n = 1; n < 100000; n++) {
		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = source_parse_candidate(&c, text, strlen(text), &err);
		valid = rc == 0 && c->valid;
		if (rc == 0)
			rc = source_candidate_to_json(&j, c, "id", "2026-07-12T10:00:00Z", &err);
		sw_alloc_fail_after(0);
		json_decref(j);
		j = NULL;
		source_candidate_free(c);
		c = NULL;
		if (rc == 0 && valid)
			break;
		/* Jansson reports its own allocation failures as parse errors,
		 * and one inside the manifest becomes a classification. */
		cr_assert(rc == SW_ENOMEM || rc == SW_EPARSE || rc == 0,
			  "allocation %lu: rc %d %s", n, rc, err.msg);
	}
	cr_expect_eq(rc, 0);
	json_decref(e);
	sw_free(text);
	sw_alloc_init();
	builder_release(&b);
}

static void candidate_roundtrip(const struct source_candidate *c)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *back = NULL;
	char *id = NULL, *at = NULL, *t1, *t2;
	json_t *j = NULL, *again = NULL;

	cr_assert_eq(source_candidate_to_json(&j, c, "cand-9", "2026-07-12T10:00:00Z", &err), 0);
	cr_assert_eq(source_candidate_from_json(&back, &id, &at, j, &err), 0, "%s", err.msg);
	cr_expect_str_eq(id, "cand-9");
	cr_expect_str_eq(at, "2026-07-12T10:00:00Z");
	cr_assert_eq(source_candidate_to_json(&again, back, id, at, &err), 0);
	t1 = sw_json_dump(j);
	t2 = sw_json_dump(again);
	cr_expect_str_eq(t1, t2);
	sw_free(t1);
	sw_free(t2);
	sw_free(id);
	sw_free(at);
	json_decref(j);
	json_decref(again);
	source_candidate_free(back);
}

static void candidate_reject(const struct source_candidate *c, const char *key,
			     json_t *value, enum sw_code want)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *back = NULL;
	char *id = NULL, *at = NULL;
	json_t *j = NULL;

	cr_assert_eq(source_candidate_to_json(&j, c, "cand-9", "2026-07-12T10:00:00Z", &err), 0);
	json_object_set_new(j, key, value);
	cr_expect_eq(source_candidate_from_json(&back, &id, &at, j, &err), want,
		     "%s: %s", key, err.msg);
	cr_expect_null(back);
	cr_expect_null(id);
	json_decref(j);
}

Test(io_source, candidates_round_trip_and_inconsistent_ones_are_rejected)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *good = NULL, *bad = NULL;
	json_t *e;
	const char *zero = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

	builder_init(&b);
	e = envelope(&b);
	cr_assert_eq(parse_json(&good, e, &err), 0, "%s", err.msg);
	json_decref(e);
	b.s[2].minimized = 1;
	e = envelope(&b);
	cr_assert_eq(parse_json(&bad, e, &err), 0, "%s", err.msg);
	cr_assert_eq(bad->valid, 0);
	json_decref(e);
	builder_release(&b);

	candidate_roundtrip(good);
	candidate_roundtrip(bad);
	cr_expect_eq(source_candidate_validate(good, &err), 0);
	cr_expect_eq(source_candidate_validate(bad, &err), 0);
	candidate_reject(good, "title", json_string("Other"), SW_EINVAL);
	candidate_reject(good, "observation_sha256", json_string(zero), SW_EINVAL);
	candidate_reject(good, "requirements_revision", json_string(zero), SW_EINVAL);
	candidate_reject(good, "classification_code", json_string("source_section_missing"), SW_EINVAL);
	candidate_reject(bad, "title", json_string("T"), SW_EINVAL);
	candidate_reject(bad, "classification_error", json_string(" "), SW_EINVAL);
	candidate_reject(bad, "classification_code", json_string("valid_change"), SW_EINVAL);
	candidate_reject(bad, "classification", json_string("valid"), SW_EPARSE);
	candidate_reject(bad, "surprise", json_true(), SW_EPARSE);
	source_candidate_free(good);
	source_candidate_free(bad);
}

Test(io_source, pinned_json_keys_follow_the_reference_field_order)
{
	static const char *const want[] = {
		"source_version", "parser_version", "manifest_version", "profile",
		"provider", "host", "repository_id", "issue_id", "issue_number",
		"canonical_url", "url_aliases", "source_revision", "manifest_revision",
		"requirements_revision", "parent_requirements_revision", "title",
		"parent", "sections",
	};
	static const char *const want_section[] = {
		"key", "role", "title", "body_sha256", "section_revision",
		"material_sha256", "bytes", "provenance",
	};
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e, *j = NULL;
	const char *k;
	json_t *v;
	size_t i = 0;

	builder_init(&b);
	b.parent_rev = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	e = envelope(&b);
	json_object_set_new(e, "parent", json_pack("{s:s,s:s,s:s}", "repository_id",
		"R_p", "issue_id", "I_p", "canonical_url", "https://github.com/acme/plans/issues/1"));
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_pinned_to_json(&j, c->snapshot, &err), 0);
	json_object_foreach(j, k, v) {
		cr_assert(i < sizeof(want) / sizeof(*want));
		cr_expect_str_eq(k, want[i]);
		i++;
	}
	cr_expect_eq(i, sizeof(want) / sizeof(*want));
	i = 0;
	json_object_foreach(json_array_get(json_object_get(j, "sections"), 0), k, v) {
		cr_assert(i < sizeof(want_section) / sizeof(*want_section));
		cr_expect_str_eq(k, want_section[i]);
		i++;
	}
	cr_expect_eq(i, sizeof(want_section) / sizeof(*want_section));
	json_decref(j);
	json_decref(e);
	source_candidate_free(c);
	builder_release(&b);
}

Test(io_source, decoders_and_clone_survive_every_allocation_failure)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL, *back = NULL;
	struct source_pinned *p = NULL;
	json_t *e, *jc = NULL, *jp = NULL;
	char *id = NULL, *at = NULL;
	int rc = -1;

	builder_init(&b);
	e = envelope(&b);
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_candidate_to_json(&jc, c, "i", "2026-07-12T10:00:00Z", &err), 0);
	cr_assert_eq(source_pinned_to_json(&jp, c->snapshot, &err), 0);
	for (unsigned long n = 1; n < 100000; n++) {
		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = source_pinned_from_json(&p, jp, &err);
		if (rc == 0) {
			source_pinned_free(p);
			p = NULL;
			rc = source_candidate_from_json(&back, &id, &at, jc, &err);
		}
		if (rc == 0)
			rc = source_pinned_clone(&p, back->snapshot, &err);
		sw_alloc_fail_after(0);
		source_pinned_free(p);
		source_candidate_free(back);
		sw_free(id);
		sw_free(at);
		p = NULL;
		back = NULL;
		id = at = NULL;
		if (rc == 0)
			break;
		cr_assert_eq(rc, SW_ENOMEM, "allocation %lu: rc %d %s", n, rc, err.msg);
	}
	cr_expect_eq(rc, 0);
	json_decref(jc);
	json_decref(jp);
	json_decref(e);
	source_candidate_free(c);
	builder_release(&b);
}

/* The reference decodes the envelope into Go structs: an absent member keeps
 * its zero value and the validation after it decides, while null stays a type
 * error for a string, number or boolean (an absent or null array is refused
 * by the validation as uninitialised). */
struct member_case {
	int in_comment;			/* the member of comments[0], else top level */
	const char *key;
	json_t *value;			/* stolen; NULL deletes the member */
};

/* Parses the built envelope with one member changed; *c gets the candidate. */
static int parse_changed(const struct member_case *mc, struct source_candidate **c,
			 struct sw_error *err)
{
	struct builder b;
	json_t *e, *holder;
	int rc;

	builder_init(&b);
	e = envelope(&b);
	holder = mc->in_comment ? first_comment(e) : e;
	if (mc->value)
		json_object_set_new(holder, mc->key, mc->value);
	else
		json_object_del(holder, mc->key);
	rc = parse_json(c, e, err);
	json_decref(e);
	builder_release(&b);
	return rc;
}

/* Copies the member names of the built envelope (with a parent) or of its
 * first comment into out; returns how many. */
static size_t member_names(char out[][32], size_t max, int in_comment)
{
	struct builder b;
	json_t *e, *v;
	const char *k;
	size_t n = 0;

	builder_init(&b);
	e = envelope(&b);
	json_object_set_new(e, "parent", json_null());
	json_object_foreach(in_comment ? first_comment(e) : e, k, v)
		if (n < max)
			snprintf(out[n++], 32, "%s", k);
	json_decref(e);
	builder_release(&b);
	return n;
}

Test(io_source, an_absent_envelope_member_keeps_its_zero_value)
{
	for (int in_comment = 0; in_comment <= 1; in_comment++) {
		char names[16][32];
		size_t n = member_names(names, 16, in_comment);

		cr_assert_eq(n, in_comment ? 7u : 14u);
		for (size_t i = 0; i < n; i++) {
			struct member_case mc = { in_comment, names[i], NULL };
			struct sw_error err = SW_ERROR_INIT;
			struct source_candidate *c = NULL;
			int rc = parse_changed(&mc, &c, &err);
			const char *k = names[i];

			if (!in_comment && strcmp(k, "parent") == 0) {
				cr_expect(rc == 0 && c && c->valid, "an absent parent is no parent");
			} else if (!in_comment && strcmp(k, "body") == 0) {
				cr_expect(rc == 0 && c && !c->valid &&
					  c->code == SOURCE_CLASS_CHANGE_MARKER_REQUIRED,
					  "an absent body is an empty body: %s", err.msg);
			} else if (in_comment && strcmp(k, "is_minimized") == 0) {
				cr_expect(rc == 0 && c && c->valid, "an absent is_minimized is false");
			} else if (in_comment && strcmp(k, "body") == 0) {
				cr_expect(rc == 0 && c && !c->valid &&
					  c->code == SOURCE_CLASS_SECTION_HASH_MISMATCH,
					  "an absent comment body is an empty body: %s", err.msg);
			} else {
				cr_expect_eq(rc, SW_EINVAL, "%s%s: rc %d (%s)",
					     in_comment ? "comments[0]." : "", k, rc, err.msg);
				cr_expect(strncmp(err.msg, "validate source: ", 17) == 0, "%s", err.msg);
			}
			source_candidate_free(c);
		}
	}
}

Test(io_source, null_members_are_type_errors_and_null_arrays_uninitialised)
{
	static const struct { int in_comment; const char *key; enum sw_code rc; } rows[] = {
		{ 0, "source_version", SW_EPARSE }, { 0, "provider", SW_EPARSE },
		{ 0, "issue_number", SW_EPARSE }, { 0, "body", SW_EPARSE },
		{ 0, "labels", SW_EINVAL }, { 0, "comments", SW_EINVAL },
		{ 1, "is_minimized", SW_EPARSE }, { 1, "database_id", SW_EPARSE },
		{ 1, "body", SW_EPARSE },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct member_case mc = { rows[i].in_comment, rows[i].key, json_null() };
		struct sw_error err = SW_ERROR_INIT;
		struct source_candidate *c = NULL;

		cr_expect_eq(parse_changed(&mc, &c, &err), rows[i].rc, "%s: %s",
			     rows[i].key, err.msg);
		cr_expect_null(c);
	}
}

Test(io_source, unknown_members_stay_refused_whatever_their_case)
{
	static const struct member_case rows[] = {
		{ 0, "Body", NULL }, { 1, "Is_minimized", NULL }, { 0, "extra", NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct member_case mc = rows[i];
		struct sw_error err = SW_ERROR_INIT;
		struct source_candidate *c = NULL;

		mc.value = json_false();
		cr_expect_eq(parse_changed(&mc, &c, &err), SW_EPARSE, "%s", mc.key);
		cr_expect_null(c);
	}
}

/* Moving an Issue keeps its old canonical URL as an alias once, in order
 * after the aliases it had; the new canonical URL is never an alias. */
Test(io_source, merged_aliases_keep_the_old_url_once_and_never_the_new_one)
{
	char a0[] = "https://github.com/o/old/issues/1", a1[] = "https://github.com/o/mid/issues/1";
	char now[] = "https://github.com/o/r/issues/1", moved[] = "https://github.com/o/new/issues/1";
	char *aliases[] = { a0, a1, a0 };
	struct source_pinned p = { .canonical_url = now, .url_aliases = aliases, .n_url_aliases = 3 };
	json_t *got;
	char *text;

	got = source_aliases_merged(&p, now);
	text = sw_json_dump(got);
	cr_assert_str_eq(text, "[\"https://github.com/o/old/issues/1\",\"https://github.com/o/mid/issues/1\"]");
	sw_free(text);
	json_decref(got);
	got = source_aliases_merged(&p, moved);
	text = sw_json_dump(got);
	cr_assert_str_eq(text, "[\"https://github.com/o/old/issues/1\",\"https://github.com/o/mid/issues/1\","
			       "\"https://github.com/o/r/issues/1\"]");
	sw_free(text);
	json_decref(got);
	/* Back to an old URL: it stops being an alias, the one left becomes one. */
	got = source_aliases_merged(&p, a1);
	text = sw_json_dump(got);
	cr_assert_str_eq(text, "[\"https://github.com/o/old/issues/1\",\"https://github.com/o/r/issues/1\"]");
	sw_free(text);
	json_decref(got);
	p.n_url_aliases = 0;
	got = source_aliases_merged(&p, now);
	cr_assert_eq(json_array_size(got), 0);
	json_decref(got);
}
