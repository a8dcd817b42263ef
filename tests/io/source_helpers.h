/* Shared fixtures for the source tests (tests/io/test_source.c,
 * tests/io/test_source_json.c): independent digests computed with OpenSSL
 * directly, an envelope builder, parse helpers and the reference fixture. */
#ifndef TESTS_IO_SOURCE_HELPERS_H
#define TESTS_IO_SOURCE_HELPERS_H

#pragma GCC diagnostic ignored "-Wunused-function"

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

static json_t *first_comment(json_t *e)
{
	return json_array_get(json_object_get(e, "comments"), 0);
}

#endif
