/* Source envelope intake: read, validate and pin a host-supplied GitHub
 * Issue envelope, or describe why it is an invalid candidate.  Never opens
 * the run directory.  See io/source/source.h. */

#include "io/source/source.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/util/file.h"
#include "io/util/json.h"
#include "io/source/source_body.h"
#include "io/source/source_util.h"

/* ---- reading ------------------------------------------------------------ */

int source_read_file(char **out, size_t *out_len, const char *path,
		     struct sw_error *err)
{
	*out = NULL;
	if (path == NULL || path[0] == '\0')
		return sw_error_set(err, SW_EINVAL, "source file path is empty");
	/* The one safe reader of host files (io/util/file.h) does the no-follow,
	 * regular-file and identity checks. */
	return sw_read_regular_file(out, out_len, path, SOURCE_MAX_FILE_BYTES, err);
}

/* ---- the envelope ------------------------------------------------------- */

struct envelope {
	const char *provider, *host, *repository_id, *issue_id, *canonical_url;
	const char *updated_at, *fetched_at, *title, *body;
	size_t body_len;
	int64_t source_version, issue_number;
	json_t *labels;
	struct source__comment *comments;
	size_t ncomments;
	int has_parent, has_comments;
	const char *parent_repository_id, *parent_issue_id, *parent_url;
};

static int only_keys(json_t *o, const char *const *keys, size_t n,
		     const char **unknown)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; i < n; i++)
			if (strcmp(k, keys[i]) == 0)
				break;
		if (i == n) {
			*unknown = k;
			return 0;
		}
	}
	return 1;
}

/* The envelope decodes as the reference's Go decoder does: an absent member
 * keeps its zero value ("" / 0 / false / no array) and the validation that
 * follows decides; a member that is present must have its type, and null is
 * a type error for strings, numbers and booleans. */
static const char *field_str(json_t *o, const char *k, const char **bad)
{
	json_t *x = json_object_get(o, k);

	if (x == NULL)
		return "";
	if (!json_is_string(x)) {
		if (*bad == NULL)
			*bad = k;
		return "";
	}
	return json_string_value(x);
}

static size_t field_str_len(json_t *o, const char *k)
{
	return json_string_length(json_object_get(o, k));
}

static void field_int(json_t *o, const char *k, int64_t *v, const char **bad)
{
	json_t *x = json_object_get(o, k);

	*v = 0;
	if (x == NULL)
		return;
	if (!json_is_integer(x)) {
		if (*bad == NULL)
			*bad = k;
		return;
	}
	*v = json_integer_value(x);
}

/* An array member: absent or null is no array (NULL, refused later by the
 * validation), anything else but an array is a type error. */
static json_t *field_array(json_t *o, const char *k, const char **bad)
{
	json_t *x = json_object_get(o, k);

	if (x == NULL || json_is_null(x))
		return NULL;
	if (!json_is_array(x) && *bad == NULL)
		*bad = k;
	return json_is_array(x) ? x : NULL;
}

static int decode_envelope(struct envelope *e, json_t *root,
			   struct sw_error *err)
{
	static const char *const top[] = {
		"source_version", "provider", "host", "repository_id", "issue_id",
		"issue_number", "canonical_url", "updated_at", "fetched_at",
		"title", "body", "labels", "parent", "comments",
	};
	static const char *const com[] = {
		"node_id", "database_id", "url", "updated_at", "author_id",
		"is_minimized", "body",
	};
	static const char *const par[] = { "repository_id", "issue_id", "canonical_url" };
	const char *unknown = NULL, *bad = NULL;
	json_t *v, *arr, *p;
	size_t i;

	if (!json_is_object(root))
		return sw_error_set(err, SW_EPARSE, "parse source: envelope must "
				    "be a json object");
	if (!only_keys(root, top, 14, &unknown))
		return sw_error_set(err, SW_EPARSE, "parse source: unknown field "
				    "\"%s\"", unknown);
	field_int(root, "source_version", &e->source_version, &bad);
	e->provider = field_str(root, "provider", &bad);
	e->host = field_str(root, "host", &bad);
	e->repository_id = field_str(root, "repository_id", &bad);
	e->issue_id = field_str(root, "issue_id", &bad);
	field_int(root, "issue_number", &e->issue_number, &bad);
	e->canonical_url = field_str(root, "canonical_url", &bad);
	e->updated_at = field_str(root, "updated_at", &bad);
	e->fetched_at = field_str(root, "fetched_at", &bad);
	e->title = field_str(root, "title", &bad);
	e->body = field_str(root, "body", &bad);
	e->body_len = field_str_len(root, "body");
	e->labels = field_array(root, "labels", &bad);
	arr = field_array(root, "comments", &bad);
	if (bad)
		return sw_error_set(err, SW_EPARSE, "parse source: \"%s\" has "
				    "the wrong type", bad);
	json_array_foreach(e->labels, i, v)
		if (!json_is_string(v))
			return sw_error_set(err, SW_EPARSE, "parse source: "
					    "labels[%zu] must be a string", i);
	p = json_object_get(root, "parent");
	if (p != NULL && !json_is_null(p)) {
		if (!json_is_object(p) || !only_keys(p, par, 3, &unknown))
			return sw_error_set(err, SW_EPARSE, "parse source: "
					    "\"parent\" must be an object of "
					    "repository_id, issue_id, canonical_url");
		e->has_parent = 1;
		e->parent_repository_id = field_str(p, "repository_id", &bad);
		e->parent_issue_id = field_str(p, "issue_id", &bad);
		e->parent_url = field_str(p, "canonical_url", &bad);
		if (bad)
			return sw_error_set(err, SW_EPARSE, "parse source: "
					    "parent.%s has the wrong type", bad);
	}
	e->has_comments = arr != NULL;
	e->ncomments = json_array_size(arr);
	if (e->ncomments &&
	    (e->comments = sw_calloc(e->ncomments, sizeof(*e->comments))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot decode source");
	json_array_foreach(arr, i, v) {
		struct source__comment *c = &e->comments[i];
		json_t *m;

		if (!json_is_object(v) || !only_keys(v, com, 7, &unknown))
			return sw_error_set(err, SW_EPARSE, "parse source: "
					    "comments[%zu] must be an object of "
					    "known fields", i);
		c->node_id = field_str(v, "node_id", &bad);
		field_int(v, "database_id", &c->database_id, &bad);
		c->url = field_str(v, "url", &bad);
		c->updated_at = field_str(v, "updated_at", &bad);
		c->author_id = field_str(v, "author_id", &bad);
		c->body = field_str(v, "body", &bad);
		m = json_object_get(v, "is_minimized");
		if (m != NULL && !json_is_boolean(m) && bad == NULL)
			bad = "is_minimized";
		if (bad)
			return sw_error_set(err, SW_EPARSE, "parse source: "
					    "comments[%zu].%s has the wrong "
					    "type", i, bad);
		c->is_minimized = json_is_true(m);
		c->body_len = field_str_len(v, "body");
	}
	return 0;
}

#define PLAIN_OK(s) source__no_controls((s), strlen(s), 0)

static int invalid(struct sw_error *err, const char *what)
{
	return sw_error_set(err, SW_EINVAL, "validate source: %s", what);
}

static int check_comment(const struct source__comment *c, size_t i,
			 const char *issue_url, struct sw_error *err)
{
	if (!source__node_id_valid(c->node_id, strlen(c->node_id)))
		return sw_error_set(err, SW_EINVAL, "validate source: comments[%zu]."
				    "node_id must be a github node id", i);
	if (c->database_id <= 0)
		return sw_error_set(err, SW_EINVAL, "validate source: comments[%zu]."
				    "database_id must be positive", i);
	if (!source__node_id_valid(c->author_id, strlen(c->author_id)))
		return sw_error_set(err, SW_EINVAL, "validate source: comments[%zu]."
				    "author_id must be a github node id", i);
	if (!PLAIN_OK(c->url) || !PLAIN_OK(c->updated_at) ||
	    !source__no_controls(c->body, c->body_len, 1))
		return sw_error_set(err, SW_EINVAL, "validate source: comments[%zu] "
				    "contains a disallowed control", i);
	if (!source__rfc3339_valid(c->updated_at, strlen(c->updated_at)))
		return sw_error_set(err, SW_EINVAL, "validate source: comments[%zu]."
				    "updated_at must be rfc3339", i);
	if (!source__comment_url_valid(c->url, strlen(c->url), issue_url,
				       c->database_id))
		return sw_error_set(err, SW_EINVAL, "validate source: comments[%zu]."
				    "url must be an issue comment url of the source "
				    "issue", i);
	return 0;
}

/* validateRawSourceEnvelope, in the reference's order. */
static int validate_envelope(const struct envelope *e, struct sw_error *err)
{
	const char *plain[] = {
		e->provider, e->host, e->repository_id, e->issue_id,
		e->canonical_url, e->updated_at, e->fetched_at, e->title,
	};
	const char *why;
	json_t *v;
	size_t i;

	if (e->source_version != SOURCE_VERSION)
		return invalid(err, "source_version must be 2");
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!PLAIN_OK(plain[i]))
			return invalid(err, "a text field contains a disallowed control");
	if (!source__no_controls(e->body, e->body_len, 1))
		return invalid(err, "body contains a disallowed control");
	if (strcmp(e->provider, "github") != 0)
		return invalid(err, "provider must be exactly github");
	if (strcmp(e->host, "github.com") != 0)
		return invalid(err, "host must be exactly github.com");
	if (!source__node_id_valid(e->repository_id, strlen(e->repository_id)))
		return invalid(err, "repository_id must be a github node id");
	if (!source__node_id_valid(e->issue_id, strlen(e->issue_id)))
		return invalid(err, "issue_id must be a github node id");
	if (e->issue_number <= 0)
		return invalid(err, "issue_number must be positive");
	if (source__blank(e->title, strlen(e->title), 1))
		return invalid(err, "title must be nonempty");
	if (!source__rfc3339_valid(e->updated_at, strlen(e->updated_at)))
		return invalid(err, "updated_at must be rfc3339");
	if (!source__rfc3339_valid(e->fetched_at, strlen(e->fetched_at)))
		return invalid(err, "fetched_at must be rfc3339");
	if ((why = source__issue_url_check(e->canonical_url,
					   strlen(e->canonical_url),
					   e->issue_number)) != NULL)
		return sw_error_set(err, SW_EINVAL, "validate source: canonical_url "
				    "%s", why);
	if (e->labels == NULL)
		return invalid(err, "labels must be an initialized array");
	if (json_array_size(e->labels) > SOURCE_MAX_LABELS)
		return invalid(err, "labels must contain at most 100 entries");
	json_array_foreach(e->labels, i, v) {
		const char *s = json_string_value(v);

		if (!PLAIN_OK(s) || source__blank(s, strlen(s), 1))
			return sw_error_set(err, SW_EINVAL, "validate source: "
					    "labels[%zu] must be nonempty plain "
					    "text", i);
	}
	if (!e->has_comments)
		return invalid(err, "comments must be an initialized array");
	if (e->ncomments > SOURCE_MAX_SECTIONS)
		return invalid(err, "comments must contain at most 64 entries");
	for (i = 0; i < e->ncomments; i++) {
		int rc = check_comment(&e->comments[i], i, e->canonical_url, err);

		if (rc < 0)
			return rc;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(e->comments[j].node_id, e->comments[i].node_id) == 0)
				return sw_error_set(err, SW_EINVAL, "validate source: "
						    "comments[%zu].node_id is "
						    "duplicated", i);
			if (e->comments[j].database_id == e->comments[i].database_id)
				return sw_error_set(err, SW_EINVAL, "validate source: "
						    "comments[%zu].database_id is "
						    "duplicated", i);
		}
	}
	if (e->has_parent) {
		if (!PLAIN_OK(e->parent_repository_id) ||
		    !PLAIN_OK(e->parent_issue_id) || !PLAIN_OK(e->parent_url))
			return invalid(err, "parent contains a disallowed control");
		if (!source__node_id_valid(e->parent_repository_id,
					   strlen(e->parent_repository_id)))
			return invalid(err, "parent.repository_id must be a github node id");
		if (!source__node_id_valid(e->parent_issue_id,
					   strlen(e->parent_issue_id)))
			return invalid(err, "parent.issue_id must be a github node id");
		if ((why = source__issue_url_check(e->parent_url,
						   strlen(e->parent_url), 0)))
			return sw_error_set(err, SW_EINVAL, "validate source: "
					    "parent.canonical_url %s", why);
	}
	return 0;
}

/* ---- results ------------------------------------------------------------ */

static void parent_free(struct source_parent *p)
{
	if (p == NULL)
		return;
	sw_free(p->repository_id);
	sw_free(p->issue_id);
	sw_free(p->canonical_url);
	sw_free(p);
}

static int parent_dup(struct source_parent **out, const char *repo,
		      const char *issue, const char *url, struct sw_error *err)
{
	struct source_parent *p = sw_calloc(1, sizeof(*p));

	*out = NULL;
	if (p == NULL || (p->repository_id = sw_strdup(repo)) == NULL ||
	    (p->issue_id = sw_strdup(issue)) == NULL ||
	    (p->canonical_url = sw_strdup(url)) == NULL) {
		parent_free(p);
		return sw_error_set(err, SW_ENOMEM, "cannot copy parent");
	}
	*out = p;
	return 0;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		sw_free(v[i]);
	sw_free(v);
}

void source_pinned_free(struct source_pinned *p)
{
	if (p == NULL)
		return;
	sw_free(p->profile);
	sw_free(p->provider);
	sw_free(p->host);
	sw_free(p->repository_id);
	sw_free(p->issue_id);
	sw_free(p->canonical_url);
	strv_free(p->url_aliases, p->n_url_aliases);
	sw_free(p->title);
	parent_free(p->parent);
	for (size_t i = 0; p->sections && i < p->n_sections; i++)
		source__section_release(&p->sections[i]);
	sw_free(p->sections);
	sw_free(p);
}

void source_candidate_free(struct source_candidate *c)
{
	if (c == NULL)
		return;
	sw_free(c->classification_error);
	sw_free(c->provider);
	sw_free(c->host);
	sw_free(c->repository_id);
	sw_free(c->issue_id);
	sw_free(c->canonical_url);
	strv_free(c->url_aliases, c->n_url_aliases);
	sw_free(c->title);
	parent_free(c->parent);
	source_pinned_free(c->snapshot);
	sw_free(c);
}

static int cmp_comment(const void *a, const void *b)
{
	const struct source__comment *const *x = a, *const *y = b;

	return strcmp((*x)->node_id, (*y)->node_id);
}

/* framed("slipway-source-observation/v2", host, repository, issue, title,
 * body, then per comment in node id order: node id, body digest). */
static int observation(char out[SW_DIGEST_LEN], const struct envelope *e,
		       const char *body, size_t blen, struct sw_error *err)
{
	const struct source__comment **order = NULL;
	struct sw_sha256 *h = NULL;
	char *t = NULL, *cb = NULL;
	char digest[SW_DIGEST_LEN];
	size_t tlen = 0, cblen = 0;
	int rc;

	if ((t = source__normalize(e->title, strlen(e->title), &tlen)) == NULL ||
	    (e->ncomments &&
	     (order = sw_calloc(e->ncomments, sizeof(*order))) == NULL)) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot hash observation");
		goto out;
	}
	for (size_t i = 0; i < e->ncomments; i++)
		order[i] = &e->comments[i];
	if (e->ncomments)
		qsort(order, e->ncomments, sizeof(*order), cmp_comment);
	if ((rc = sw_sha256_new(&h, err)) < 0)
		goto out;
	sw_sha256_field(h, "slipway-source-observation/v2", 29);
	sw_sha256_field(h, e->host, strlen(e->host));
	sw_sha256_field(h, e->repository_id, strlen(e->repository_id));
	sw_sha256_field(h, e->issue_id, strlen(e->issue_id));
	sw_sha256_field(h, t, tlen);
	sw_sha256_field(h, body, blen);
	for (size_t i = 0; i < e->ncomments; i++) {
		sw_free(cb);
		if ((cb = source__normalize(order[i]->body, order[i]->body_len,
					    &cblen)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot hash observation");
			goto out;
		}
		if ((rc = source__comment_digest(digest, cb, cblen, err)) < 0)
			goto out;
		sw_sha256_field(h, order[i]->node_id, strlen(order[i]->node_id));
		sw_sha256_field(h, digest, strlen(digest));
	}
	sw_sha256_final_prefixed(h, out);
	h = NULL;
out:
	sw_sha256_free(h);
	sw_free(cb);
	sw_free(t);
	sw_free(order);
	return rc;
}

/* Plain text for classification_error: controls become '?', at most
 * SOURCE_MAX_CLASS_ERROR_BYTES bytes, cut on a code point boundary. */
static char *plain_reason(const char *why)
{
	size_t n = strlen(why), k = 0;
	char *o;

	if (n > SOURCE_MAX_CLASS_ERROR_BYTES) {
		n = SOURCE_MAX_CLASS_ERROR_BYTES;
		while (n > 0 && ((unsigned char)why[n] & 0xc0) == 0x80)
			n--;
	}
	if ((o = sw_malloc(n + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)why[i];

		/* C1 controls are U+0080..U+009F, encoded 0xC2 0x80..0x9F. */
		if (c == 0xc2 && i + 1 < n && (unsigned char)why[i + 1] <= 0x9f) {
			o[k++] = '?';
			i++;
			continue;
		}
		o[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	o[k] = '\0';
	if (!sw_utf8_valid(o, k) || source__blank(o, k, 1)) {
		sw_free(o);
		return sw_strdup("change source bundle is structurally invalid");
	}
	return o;
}

static int fill_identity(struct source_candidate *c, const struct envelope *e,
			 struct sw_error *err)
{
	c->source_version = SOURCE_VERSION;
	c->parser_version = SOURCE_PARSER_VERSION;
	c->issue_number = e->issue_number;
	if ((c->provider = sw_strdup(e->provider)) == NULL ||
	    (c->host = sw_strdup(e->host)) == NULL ||
	    (c->repository_id = sw_strdup(e->repository_id)) == NULL ||
	    (c->issue_id = sw_strdup(e->issue_id)) == NULL ||
	    (c->canonical_url = sw_strdup(e->canonical_url)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy source identity");
	if (e->has_parent)
		return parent_dup(&c->parent, e->parent_repository_id,
				  e->parent_issue_id, e->parent_url, err);
	return 0;
}

static int fill_snapshot(struct source_pinned *p, const struct envelope *e,
			 struct sw_error *err)
{
	int rc;

	p->source_version = SOURCE_VERSION;
	p->parser_version = SOURCE_PARSER_VERSION;
	p->issue_number = e->issue_number;
	if ((p->provider = sw_strdup(e->provider)) == NULL ||
	    (p->host = sw_strdup(e->host)) == NULL ||
	    (p->repository_id = sw_strdup(e->repository_id)) == NULL ||
	    (p->issue_id = sw_strdup(e->issue_id)) == NULL ||
	    (p->canonical_url = sw_strdup(e->canonical_url)) == NULL ||
	    (p->title = sw_strdup(e->title)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy source identity");
	if (e->has_parent &&
	    (rc = parent_dup(&p->parent, e->parent_repository_id,
			     e->parent_issue_id, e->parent_url, err)) < 0)
		return rc;
	return source__source_revision(p->source_revision, p->host,
				       p->repository_id, p->issue_id, p->title,
				       p->manifest_revision, err);
}

int source_parse_candidate(struct source_candidate **out, const char *buf,
			   size_t len, struct sw_error *err)
{
	struct envelope e = { 0 };
	struct source_candidate *c = NULL;
	struct source_pinned *pin = NULL;
	enum source_class code = SOURCE_CLASS_NONE;
	json_t *root = NULL;
	char *body = NULL;
	char why[1200] = "";
	size_t blen = 0;
	int rc;

	*out = NULL;
	if (len > SOURCE_MAX_FILE_BYTES) {
		rc = sw_error_set(err, SW_ETOOBIG, "parse source: payload exceeds "
				  "%u bytes", SOURCE_MAX_FILE_BYTES);
		goto out;
	}
	if ((rc = sw_json_load_strict(&root, buf, len, SOURCE_MAX_FILE_BYTES,
				      err)) < 0 ||
	    (rc = decode_envelope(&e, root, err)) < 0 ||
	    (rc = validate_envelope(&e, err)) < 0)
		goto out;
	if ((c = sw_calloc(1, sizeof(*c))) == NULL ||
	    (pin = sw_calloc(1, sizeof(*pin))) == NULL ||
	    (body = source__normalize(e.body, e.body_len, &blen)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot parse source");
		goto out;
	}
	if ((rc = fill_identity(c, &e, err)) < 0 ||
	    (rc = source__classify(pin, &code, why, sizeof(why), body, blen,
				   e.comments, e.ncomments, err)) < 0)
		goto out;
	c->code = code;
	if (code != SOURCE_CLASS_VALID_CHANGE) {
		if ((rc = observation(c->observation_sha256, &e, body, blen,
				      err)) < 0)
			goto out;
		if ((c->classification_error = plain_reason(why)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot copy reason");
			goto out;
		}
		*out = c;
		c = NULL;
		goto out;
	}
	if ((rc = fill_snapshot(pin, &e, err)) < 0)
		goto out;
	c->valid = 1;
	memcpy(c->source_revision, pin->source_revision, SW_DIGEST_LEN);
	memcpy(c->requirements_revision, pin->requirements_revision, SW_DIGEST_LEN);
	if ((c->title = sw_strdup(pin->title)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot copy title");
		goto out;
	}
	c->snapshot = pin;
	pin = NULL;
	*out = c;
	c = NULL;
out:
	source_pinned_free(pin);
	source_candidate_free(c);
	sw_free(body);
	sw_free(e.comments);
	json_decref(root);
	return rc;
}

int source_parse(struct source_pinned **out, enum source_class *code_out,
		 const char *buf, size_t len, struct sw_error *err)
{
	struct source_candidate *c = NULL;
	int rc;

	*out = NULL;
	if (code_out)
		*code_out = SOURCE_CLASS_NONE;
	if ((rc = source_parse_candidate(&c, buf, len, err)) < 0)
		return rc;
	if (code_out)
		*code_out = c->code;
	if (!c->valid) {
		rc = sw_error_set(err, SW_EINVAL, "parse source body: %s: %s",
				  source_class_wire[c->code],
				  c->classification_error);
		source_candidate_free(c);
		return rc;
	}
	*out = c->snapshot;
	c->snapshot = NULL;
	source_candidate_free(c);
	return 0;
}

int source_comment_body_sha256(char out[SW_DIGEST_LEN], const char *body,
			       size_t len, struct sw_error *err)
{
	size_t n = 0;
	char *norm = source__normalize(body, len, &n);
	int rc;

	if (norm == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot normalize body");
	rc = source__comment_digest(out, norm, n, err);
	sw_free(norm);
	return rc;
}

/* ---- persisted source rules ---------------------------------------------- */

static int pinned_comment_url_ok(const struct source_pinned *p,
				 const struct source_section *s)
{
	const char *u = s->provenance.url;

	if (source__comment_url_valid(u, strlen(u), p->canonical_url,
				      s->provenance.comment_database_id))
		return 1;
	for (size_t i = 0; i < p->n_url_aliases; i++)
		if (source__comment_url_valid(u, strlen(u), p->url_aliases[i],
					      s->provenance.comment_database_id))
			return 1;
	return 0;
}

static int bad(struct sw_error *err, const char *what)
{
	return sw_error_set(err, SW_EINVAL, "invalid persisted source: %s", what);
}

static int check_projection(const struct source_pinned *p, int title_required,
			    struct sw_error *err)
{
	const char *why;

	if (p->source_version != SOURCE_VERSION)
		return bad(err, "source_version must be 2");
	if (p->parser_version != SOURCE_PARSER_VERSION)
		return bad(err, "parser_version must be 2");
	if (!p->provider || strcmp(p->provider, "github") != 0)
		return bad(err, "provider must be exactly github");
	if (!p->host || strcmp(p->host, "github.com") != 0)
		return bad(err, "host must be exactly github.com");
	if (!p->repository_id || !source__node_id_valid(p->repository_id,
							strlen(p->repository_id)))
		return bad(err, "repository_id must be a github node id");
	if (!p->issue_id || !source__node_id_valid(p->issue_id, strlen(p->issue_id)))
		return bad(err, "issue_id must be a github node id");
	if (p->issue_number <= 0)
		return bad(err, "issue_number must be positive");
	if (!p->canonical_url || (why = source__issue_url_check(
		     p->canonical_url, strlen(p->canonical_url), p->issue_number)))
		return bad(err, "canonical_url is not the issue url");
	if (p->n_url_aliases > SOURCE_MAX_URL_ALIASES)
		return bad(err, "url_aliases must contain at most 64 entries");
	for (size_t i = 0; i < p->n_url_aliases; i++) {
		const char *a = p->url_aliases[i];

		if (!PLAIN_OK(a) || source__issue_url_check(a, strlen(a), 0))
			return bad(err, "url_aliases holds an invalid issue url");
		if (strcmp(a, p->canonical_url) == 0)
			return bad(err, "url_aliases must differ from canonical_url");
		for (size_t j = 0; j < i; j++)
			if (strcmp(a, p->url_aliases[j]) == 0)
				return bad(err, "url_aliases holds a duplicate");
	}
	if (!sw_digest_valid(p->source_revision))
		return bad(err, "source_revision must be a sha256 digest");
	if (title_required && (!p->title || !PLAIN_OK(p->title) ||
			       source__blank(p->title, strlen(p->title), 1)))
		return bad(err, "title must be nonempty plain text");
	if (!title_required && p->title)
		return bad(err, "an invalid candidate must omit title");
	if (p->parent != NULL) {
		const struct source_parent *q = p->parent;

		if (!q->repository_id || !q->issue_id || !q->canonical_url ||
		    !source__node_id_valid(q->repository_id, strlen(q->repository_id)) ||
		    !source__node_id_valid(q->issue_id, strlen(q->issue_id)) ||
		    source__issue_url_check(q->canonical_url,
					    strlen(q->canonical_url), 0))
			return bad(err, "parent is invalid");
	}
	return 0;
}

static int check_sections(const struct source_pinned *p, struct sw_error *err)
{
	size_t total = 0;

	if (p->n_sections == 0 || p->n_sections > SOURCE_MAX_SECTIONS)
		return bad(err, "sections must contain 1..64 entries");
	for (size_t i = 0; i < p->n_sections; i++) {
		const struct source_section *s = &p->sections[i];
		const struct source_provenance *v = &s->provenance;

		if (!s->key || !source__key_valid(s->key, strlen(s->key)))
			return bad(err, "a section key is invalid");
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->sections[j].key, s->key) == 0)
				return bad(err, "a section key is duplicated");
		if (s->role <= SOURCE_ROLE_NONE || s->role >= SOURCE_ROLE__COUNT)
			return bad(err, "a section role is invalid");
		if (!s->title || !PLAIN_OK(s->title) ||
		    source__blank(s->title, strlen(s->title), 1) ||
		    strlen(s->title) > SOURCE_MAX_TITLE_BYTES)
			return bad(err, "a section title is invalid");
		if (!sw_digest_valid(s->body_sha256) ||
		    !sw_digest_valid(s->section_revision) ||
		    !sw_digest_valid(s->material_sha256))
			return bad(err, "section revisions must be sha256 digests");
		if (s->bytes == 0 || s->bytes > SOURCE_MAX_SECTION_BYTES)
			return bad(err, "section bytes must be 1..262144");
		if (total > SOURCE_MAX_BUNDLE_BYTES - s->bytes)
			return bad(err, "sections exceed 4194304 bytes");
		total += s->bytes;
		if (!v->comment_node_id || !v->url || !v->author_id ||
		    !v->observed_updated_at ||
		    !source__node_id_valid(v->comment_node_id,
					   strlen(v->comment_node_id)))
			return bad(err, "a provenance comment node id is invalid");
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->sections[j].provenance.comment_node_id,
				   v->comment_node_id) == 0)
				return bad(err, "a provenance comment node id is duplicated");
		if (v->comment_database_id <= 0)
			return bad(err, "a provenance comment database id is not positive");
		if (!source__node_id_valid(v->author_id, strlen(v->author_id)))
			return bad(err, "a provenance author id is invalid");
		if (!PLAIN_OK(v->url))
			return bad(err, "a provenance url contains a control");
		if (!source__rfc3339_valid(v->observed_updated_at,
					   strlen(v->observed_updated_at)))
			return bad(err, "a provenance observed_updated_at is not rfc3339");
	}
	return 0;
}

int source_pinned_validate(const struct source_pinned *p, struct sw_error *err)
{
	struct source__manifest_section *m = NULL;
	char digest[SW_DIGEST_LEN], why[384];
	int rc;

	if ((rc = check_projection(p, 1, err)) < 0)
		return rc;
	if (p->manifest_version != SOURCE_MANIFEST_VERSION)
		return bad(err, "manifest_version must be 2");
	if (!p->profile || strcmp(p->profile, SOURCE_PROFILE) != 0)
		return bad(err, "profile must be exactly change/v2");
	if (!sw_digest_valid(p->manifest_revision) ||
	    !sw_digest_valid(p->requirements_revision))
		return bad(err, "revisions must be sha256 digests");
	if (p->parent_requirements_revision[0] &&
	    !sw_digest_valid(p->parent_requirements_revision))
		return bad(err, "parent_requirements_revision must be a sha256 digest");
	if ((rc = check_sections(p, err)) < 0)
		return rc;
	for (size_t i = 0; i < p->n_sections; i++) {
		const struct source_section *s = &p->sections[i];

		if (s->payload == NULL)
			continue;
		if ((rc = sw_material_digest(digest, s->payload, s->bytes,
						  err)) < 0)
			return rc;
		if (strcmp(digest, s->material_sha256) != 0)
			return bad(err, "a section material does not match its digest");
		if ((rc = source__section_digest(digest, s->key, s->role, s->title,
						 s->payload, s->bytes, err)) < 0)
			return rc;
		if (strcmp(digest, s->section_revision) != 0)
			return bad(err, "a section revision does not match its material");
	}
	if ((m = sw_calloc(p->n_sections, sizeof(*m))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot validate source");
	for (size_t i = 0; i < p->n_sections; i++) {
		const struct source_section *s = &p->sections[i];

		m[i] = (struct source__manifest_section){
			s->key, s->role, s->title, s->provenance.comment_node_id,
			s->provenance.comment_database_id, s->body_sha256,
			s->section_revision,
		};
	}
	if (source__manifest_check(m, p->n_sections, why, sizeof(why))) {
		rc = sw_error_set(err, SW_EINVAL, "invalid pinned source: manifest: %s",
				  why);
		goto out;
	}
	for (size_t i = 0; i < p->n_sections; i++)
		if (!pinned_comment_url_ok(p, &p->sections[i])) {
			rc = bad(err, "a provenance url is not a comment of the issue");
			goto out;
		}
	if ((rc = source__manifest_revision(digest, p->manifest_version,
					    p->profile,
					    p->parent_requirements_revision, m,
					    p->n_sections, err)) < 0)
		goto out;
	if (strcmp(digest, p->manifest_revision) != 0) {
		rc = bad(err, "manifest_revision does not match sections");
		goto out;
	}
	if ((rc = source__source_revision(digest, p->host, p->repository_id,
					  p->issue_id, p->title,
					  p->manifest_revision, err)) < 0)
		goto out;
	if (strcmp(digest, p->source_revision) != 0) {
		rc = bad(err, "source_revision does not match source identity "
			 "and manifest");
		goto out;
	}
	if ((rc = source__requirements_revision(digest, p->profile, m,
						p->n_sections, err)) < 0)
		goto out;
	if (strcmp(digest, p->requirements_revision) != 0)
		rc = bad(err, "requirements_revision does not match sections");
out:
	sw_free(m);
	return rc;
}

static int dup_or_null(char **out, const char *s)
{
	*out = NULL;
	return s == NULL || (*out = sw_strdup(s)) != NULL;
}

int source_pinned_clone(struct source_pinned **out,
			const struct source_pinned *p, struct sw_error *err)
{
	struct source_pinned *c = sw_calloc(1, sizeof(*c));
	int ok;

	*out = NULL;
	if (c == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy source");
	*c = *p;
	c->profile = c->provider = c->host = c->repository_id = NULL;
	c->issue_id = c->canonical_url = c->title = NULL;
	c->url_aliases = NULL;
	c->n_url_aliases = 0;
	c->parent = NULL;
	c->sections = NULL;
	c->n_sections = 0;
	ok = dup_or_null(&c->profile, p->profile) &&
	     dup_or_null(&c->provider, p->provider) &&
	     dup_or_null(&c->host, p->host) &&
	     dup_or_null(&c->repository_id, p->repository_id) &&
	     dup_or_null(&c->issue_id, p->issue_id) &&
	     dup_or_null(&c->canonical_url, p->canonical_url) &&
	     dup_or_null(&c->title, p->title);
	if (ok && p->n_url_aliases) {
		ok = (c->url_aliases = sw_calloc(p->n_url_aliases,
						 sizeof(char *))) != NULL;
		for (size_t i = 0; ok && i < p->n_url_aliases; i++) {
			ok = dup_or_null(&c->url_aliases[i], p->url_aliases[i]);
			c->n_url_aliases = i + 1;
		}
	}
	if (ok && p->parent)
		ok = parent_dup(&c->parent, p->parent->repository_id,
				p->parent->issue_id, p->parent->canonical_url,
				err) == 0;
	if (ok && p->n_sections) {
		ok = (c->sections = sw_calloc(p->n_sections,
					      sizeof(*c->sections))) != NULL;
		for (size_t i = 0; ok && i < p->n_sections; i++) {
			const struct source_section *s = &p->sections[i];
			struct source_section *d = &c->sections[i];

			c->n_sections = i + 1;
			*d = *s;
			d->key = d->title = d->provenance.comment_node_id = NULL;
			d->provenance.url = d->provenance.author_id = NULL;
			d->provenance.observed_updated_at = NULL;
			d->payload = NULL;
			ok = dup_or_null(&d->key, s->key) &&
			     dup_or_null(&d->title, s->title) &&
			     dup_or_null(&d->provenance.comment_node_id,
					 s->provenance.comment_node_id) &&
			     dup_or_null(&d->provenance.url, s->provenance.url) &&
			     dup_or_null(&d->provenance.author_id,
					 s->provenance.author_id) &&
			     dup_or_null(&d->provenance.observed_updated_at,
					 s->provenance.observed_updated_at);
			if (ok && s->payload) {
				ok = (d->payload = sw_malloc(s->bytes ? s->bytes : 1)) != NULL;
				if (ok)
					memcpy(d->payload, s->payload, s->bytes);
			}
		}
	}
	if (!ok) {
		source_pinned_free(c);
		return sw_error_set(err, SW_ENOMEM, "cannot copy source");
	}
	*out = c;
	return 0;
}

static int str_eq(const char *a, const char *b)
{
	return (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
}

/* The candidate's projection equals its snapshot's. */
static int matches_snapshot(const struct source_candidate *c)
{
	const struct source_pinned *p = c->snapshot;

	if (c->source_version != p->source_version ||
	    c->parser_version != p->parser_version ||
	    !str_eq(c->provider, p->provider) || !str_eq(c->host, p->host) ||
	    !str_eq(c->repository_id, p->repository_id) ||
	    !str_eq(c->issue_id, p->issue_id) ||
	    c->issue_number != p->issue_number ||
	    !str_eq(c->canonical_url, p->canonical_url) ||
	    c->n_url_aliases != p->n_url_aliases ||
	    strcmp(c->source_revision, p->source_revision) != 0 ||
	    strcmp(c->requirements_revision, p->requirements_revision) != 0 ||
	    !str_eq(c->title, p->title))
		return 0;
	for (size_t i = 0; i < c->n_url_aliases; i++)
		if (!str_eq(c->url_aliases[i], p->url_aliases[i]))
			return 0;
	if (c->parent == NULL || p->parent == NULL)
		return c->parent == p->parent;
	return str_eq(c->parent->repository_id, p->parent->repository_id) &&
	       str_eq(c->parent->issue_id, p->parent->issue_id) &&
	       str_eq(c->parent->canonical_url, p->parent->canonical_url);
}

int source_candidate_validate(const struct source_candidate *c,
			      struct sw_error *err)
{
	struct source_pinned view = { 0 };
	const char *e = c->classification_error;
	size_t n;
	int rc;

	if (c->valid ? c->observation_sha256[0] != '\0' ||
		       !sw_digest_valid(c->source_revision) :
		       c->source_revision[0] != '\0' ||
		       !sw_digest_valid(c->observation_sha256))
		return bad(err, "candidate revisions do not fit its validity");
	/* The projection rules of a pinned source, on the candidate's fields;
	 * an invalid candidate's observation digest stands in for the source
	 * revision and it carries no title. */
	view.source_version = c->source_version;
	view.parser_version = c->parser_version;
	view.provider = c->provider;
	view.host = c->host;
	view.repository_id = c->repository_id;
	view.issue_id = c->issue_id;
	view.issue_number = c->issue_number;
	view.canonical_url = c->canonical_url;
	view.url_aliases = c->url_aliases;
	view.n_url_aliases = c->n_url_aliases;
	memcpy(view.source_revision, c->valid ? c->source_revision :
	       c->observation_sha256, SW_DIGEST_LEN);
	view.title = c->title;
	view.parent = c->parent;
	if ((rc = check_projection(&view, c->valid, err)) < 0)
		return rc;
	if (c->valid) {
		if (c->code != SOURCE_CLASS_VALID_CHANGE || e != NULL)
			return bad(err, "valid candidate has an inconsistent classification");
		if (c->snapshot == NULL)
			return bad(err, "valid candidate requires a snapshot");
		if ((rc = source_pinned_validate(c->snapshot, err)) < 0)
			return rc;
		if (c->requirements_revision[0] == '\0' || !matches_snapshot(c))
			return bad(err, "valid candidate does not match its snapshot");
		return 0;
	}
	if (c->code <= SOURCE_CLASS_VALID_CHANGE || c->code >= SOURCE_CLASS__COUNT)
		return bad(err, "invalid candidate has an inconsistent classification");
	if (e == NULL || source__blank(e, strlen(e), 0))
		return bad(err, "invalid candidate requires classification_error");
	n = strlen(e);
	if (n > SOURCE_MAX_CLASS_ERROR_BYTES)
		return bad(err, "classification_error exceeds 1024 bytes");
	if (!source__no_controls(e, n, 0))
		return bad(err, "classification_error contains a control");
	if (c->requirements_revision[0] != '\0' || c->snapshot != NULL)
		return bad(err, "invalid candidate must omit requirements and snapshot");
	return 0;
}

int source_revision_compute(char out[SW_DIGEST_LEN], const char *host,
			    const char *repository_id, const char *issue_id,
			    const char *title, const char *manifest_revision,
			    struct sw_error *err)
{
	return source__source_revision(out, host, repository_id, issue_id, title,
				       manifest_revision, err);
}
