/* The JSON forms of the source results (pinned source, candidate).  See
 * io/source/source_json.h. */

#include "io/source/source_json.h"

#include <jansson.h>
#include <string.h>

#include "io/util/json.h"

/* Adds a member built by a Jansson constructor; NULL values mean ENOMEM. */
static int put(json_t *o, const char *k, json_t *v)
{
	return v != NULL && json_object_set_new(o, k, v) == 0;
}

static json_t *parent_json(const struct source_parent *p)
{
	json_t *o = json_object();

	if (o && put(o, "repository_id", json_string(p->repository_id)) &&
	    put(o, "issue_id", json_string(p->issue_id)) &&
	    put(o, "canonical_url", json_string(p->canonical_url)))
		return o;
	json_decref(o);
	return NULL;
}

json_t *source_aliases_merged(const struct source_pinned *cur, const char *canonical_url)
{
	json_t *out = json_array();

	for (size_t i = 0; out && i <= cur->n_url_aliases; i++) {
		const char *v = i < cur->n_url_aliases ? cur->url_aliases[i] : cur->canonical_url;
		size_t j;

		if (strcmp(v, canonical_url) == 0)
			continue;
		for (j = 0; j < json_array_size(out) &&
			    strcmp(json_string_value(json_array_get(out, j)), v) != 0; j++)
			;
		if (j == json_array_size(out) && json_array_append_new(out, json_string(v)) < 0) {
			json_decref(out);
			out = NULL;
		}
	}
	return out;
}

static json_t *section_json(const struct source_section *s)
{
	const struct source_provenance *v = &s->provenance;
	json_t *o = json_object(), *pv = json_object();
	int ok = o && pv &&
		 put(pv, "comment_node_id", json_string(v->comment_node_id)) &&
		 put(pv, "comment_database_id", json_integer(v->comment_database_id)) &&
		 put(pv, "url", json_string(v->url)) &&
		 put(pv, "author_id", json_string(v->author_id)) &&
		 put(pv, "observed_updated_at", json_string(v->observed_updated_at)) &&
		 put(o, "key", json_string(s->key)) &&
		 put(o, "role", json_string(source_role_wire[s->role])) &&
		 put(o, "title", json_string(s->title)) &&
		 put(o, "body_sha256", json_string(s->body_sha256)) &&
		 put(o, "section_revision", json_string(s->section_revision)) &&
		 put(o, "material_sha256", json_string(s->material_sha256)) &&
		 put(o, "bytes", json_integer((json_int_t)s->bytes));

	if (ok && json_object_set_new(o, "provenance", pv) == 0)
		return o;
	if (!ok)
		json_decref(pv);
	json_decref(o);
	return NULL;
}

int source_pinned_to_json(struct json_t **out, const struct source_pinned *p,
			  struct sw_error *err)
{
	json_t *o = json_object(), *secs = json_array();
	int ok = o && secs &&
		 put(o, "source_version", json_integer(p->source_version)) &&
		 put(o, "parser_version", json_integer(p->parser_version)) &&
		 put(o, "manifest_version", json_integer(p->manifest_version)) &&
		 put(o, "profile", json_string(p->profile)) &&
		 put(o, "provider", json_string(p->provider)) &&
		 put(o, "host", json_string(p->host)) &&
		 put(o, "repository_id", json_string(p->repository_id)) &&
		 put(o, "issue_id", json_string(p->issue_id)) &&
		 put(o, "issue_number", json_integer(p->issue_number)) &&
		 put(o, "canonical_url", json_string(p->canonical_url)) &&
		 put(o, "url_aliases", sw_json_strings(p->url_aliases, p->n_url_aliases)) &&
		 put(o, "source_revision", json_string(p->source_revision)) &&
		 put(o, "manifest_revision", json_string(p->manifest_revision)) &&
		 put(o, "requirements_revision", json_string(p->requirements_revision)) &&
		 (!p->parent_requirements_revision[0] ||
		  put(o, "parent_requirements_revision",
		      json_string(p->parent_requirements_revision))) &&
		 put(o, "title", json_string(p->title)) &&
		 (!p->parent || put(o, "parent", parent_json(p->parent)));

	for (size_t i = 0; ok && i < p->n_sections; i++)
		ok = json_array_append_new(secs, section_json(&p->sections[i])) == 0;
	*out = NULL;
	if (ok && json_object_set_new(o, "sections", secs) == 0) {
		*out = o;
		return 0;
	}
	if (!ok)
		json_decref(secs);
	json_decref(o);
	return sw_error_set(err, SW_ENOMEM, "cannot encode pinned source");
}

int source_candidate_to_json(struct json_t **out,
			     const struct source_candidate *c,
			     const char *candidate_id, const char *created_at,
			     struct sw_error *err)
{
	json_t *o = json_object(), *snap = NULL;
	int ok, rc;

	*out = NULL;
	ok = o && put(o, "candidate_id", json_string(candidate_id)) &&
	     put(o, "valid", json_boolean(c->valid)) &&
	     put(o, "classification", json_string(c->valid ? "valid" : "invalid")) &&
	     put(o, "classification_code", json_string(source_class_wire[c->code])) &&
	     (!c->classification_error ||
	      put(o, "classification_error", json_string(c->classification_error))) &&
	     put(o, "source_version", json_integer(c->source_version)) &&
	     put(o, "parser_version", json_integer(c->parser_version)) &&
	     put(o, "provider", json_string(c->provider)) &&
	     put(o, "host", json_string(c->host)) &&
	     put(o, "repository_id", json_string(c->repository_id)) &&
	     put(o, "issue_id", json_string(c->issue_id)) &&
	     put(o, "issue_number", json_integer(c->issue_number)) &&
	     put(o, "canonical_url", json_string(c->canonical_url)) &&
	     put(o, "url_aliases", sw_json_strings(c->url_aliases, c->n_url_aliases)) &&
	     (!c->observation_sha256[0] ||
	      put(o, "observation_sha256", json_string(c->observation_sha256))) &&
	     (!c->source_revision[0] ||
	      put(o, "source_revision", json_string(c->source_revision))) &&
	     (!c->requirements_revision[0] ||
	      put(o, "requirements_revision", json_string(c->requirements_revision))) &&
	     (!c->title || put(o, "title", json_string(c->title))) &&
	     (!c->parent || put(o, "parent", parent_json(c->parent)));
	if (!ok) {
		json_decref(o);
		return sw_error_set(err, SW_ENOMEM, "cannot encode source candidate");
	}
	if (c->snapshot) {
		if ((rc = source_pinned_to_json(&snap, c->snapshot, err)) < 0) {
			json_decref(o);
			return rc;
		}
		if (json_object_set_new(o, "snapshot", snap) < 0) {
			json_decref(o);
			return sw_error_set(err, SW_ENOMEM, "cannot encode source candidate");
		}
	}
	if (!put(o, "created_at", json_string(created_at))) {
		json_decref(o);
		return sw_error_set(err, SW_ENOMEM, "cannot encode source candidate");
	}
	*out = o;
	return 0;
}

/* ---- decoding ------------------------------------------------------------ */

struct dec {
	const char *bad;	/* first offending key */
	int nomem;
};

static int keys_exact(const json_t *o, const char *const *req, size_t nreq,
		      const char *const *opt, size_t nopt, struct dec *d)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o))
		return 0;
	json_object_foreach((json_t *)o, k, v) {
		size_t i;
		int found = 0;

		for (i = 0; !found && i < nreq; i++)
			found = strcmp(k, req[i]) == 0;
		for (i = 0; !found && i < nopt; i++)
			found = strcmp(k, opt[i]) == 0;
		if (!found) {
			d->bad = k;
			return 0;
		}
	}
	for (size_t i = 0; i < nreq; i++)
		if (json_object_get(o, req[i]) == NULL) {
			d->bad = req[i];
			return 0;
		}
	return 1;
}

/* The error for a shape failure found while decoding. */
static int shape_error(const struct dec *d, const char *what,
		       struct sw_error *err)
{
	if (d->nomem)
		return sw_error_set(err, SW_ENOMEM, "cannot decode: out of memory");
	return sw_error_set(err, SW_EPARSE, "%s: \"%s\" is unknown, missing or "
			    "has the wrong type", what, d->bad ? d->bad : "(root)");
}

static char *dstr(const json_t *o, const char *k, struct dec *d)
{
	const char *s = json_string_value(json_object_get(o, k));
	char *c;

	if (s == NULL) {
		if (!d->bad)
			d->bad = k;
		return NULL;
	}
	if ((c = sw_strdup(s)) == NULL)
		d->nomem = 1;
	return c;
}

static void dfixed(char out[SW_DIGEST_LEN], const json_t *o, const char *k,
		   struct dec *d)
{
	const char *s = json_string_value(json_object_get(o, k));

	out[0] = '\0';
	if (s == NULL || strlen(s) >= SW_DIGEST_LEN) {
		if (!d->bad)
			d->bad = k;
		return;
	}
	memcpy(out, s, strlen(s) + 1);
}

static int64_t dint(const json_t *o, const char *k, struct dec *d)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v)) {
		if (!d->bad)
			d->bad = k;
		return 0;
	}
	return json_integer_value(v);
}

static int dsmall(const json_t *o, const char *k, struct dec *d)
{
	int64_t v = dint(o, k, d);

	return v > 1000 || v < -1000 ? -1 : (int)v;
}

static void decode_section(struct source_section *s, const json_t *o,
			   struct dec *d)
{
	static const char *const req[] = {
		"key", "role", "title", "body_sha256", "section_revision",
		"material_sha256", "bytes", "provenance",
	};
	static const char *const preq[] = {
		"comment_node_id", "comment_database_id", "url", "author_id",
		"observed_updated_at",
	};
	const json_t *pv;
	int64_t bytes;

	if (!keys_exact(o, req, 8, NULL, 0, d)) {
		if (!d->bad)
			d->bad = "sections";
		return;
	}
	s->key = dstr(o, "key", d);
	s->role = source_role_from_wire(json_string_value(json_object_get(o, "role")));
	if (s->role == SOURCE_ROLE_NONE && !d->bad)
		d->bad = "role";
	s->title = dstr(o, "title", d);
	dfixed(s->body_sha256, o, "body_sha256", d);
	dfixed(s->section_revision, o, "section_revision", d);
	dfixed(s->material_sha256, o, "material_sha256", d);
	bytes = dint(o, "bytes", d);
	s->bytes = bytes > 0 ? (size_t)bytes : 0;
	pv = json_object_get(o, "provenance");
	if (!keys_exact(pv, preq, 5, NULL, 0, d)) {
		if (!d->bad)
			d->bad = "provenance";
		return;
	}
	s->provenance.comment_node_id = dstr(pv, "comment_node_id", d);
	s->provenance.comment_database_id = dint(pv, "comment_database_id", d);
	s->provenance.url = dstr(pv, "url", d);
	s->provenance.author_id = dstr(pv, "author_id", d);
	s->provenance.observed_updated_at = dstr(pv, "observed_updated_at", d);
}

int source_pinned_from_json(struct source_pinned **out, const struct json_t *v,
			    struct sw_error *err)
{
	static const char *const req[] = {
		"source_version", "parser_version", "manifest_version", "profile",
		"provider", "host", "repository_id", "issue_id", "issue_number",
		"canonical_url", "url_aliases", "source_revision",
		"manifest_revision", "requirements_revision", "title", "sections",
	};
	static const char *const opt[] = { "parent_requirements_revision", "parent" };
	static const char *const preq[] = { "repository_id", "issue_id", "canonical_url" };
	struct source_pinned *p = NULL;
	struct dec d = { 0 };
	const json_t *a, *x;
	size_t i;
	int rc = 0;

	*out = NULL;
	if ((p = sw_calloc(1, sizeof(*p))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot decode pinned source");
		goto out;
	}
	if (!keys_exact(v, req, 16, opt, 2, &d)) {
		rc = shape_error(&d, "invalid pinned source", err);
		goto out;
	}
	p->source_version = dsmall(v, "source_version", &d);
	p->parser_version = dsmall(v, "parser_version", &d);
	p->manifest_version = dsmall(v, "manifest_version", &d);
	p->profile = dstr(v, "profile", &d);
	p->provider = dstr(v, "provider", &d);
	p->host = dstr(v, "host", &d);
	p->repository_id = dstr(v, "repository_id", &d);
	p->issue_id = dstr(v, "issue_id", &d);
	p->issue_number = dint(v, "issue_number", &d);
	p->canonical_url = dstr(v, "canonical_url", &d);
	dfixed(p->source_revision, v, "source_revision", &d);
	dfixed(p->manifest_revision, v, "manifest_revision", &d);
	dfixed(p->requirements_revision, v, "requirements_revision", &d);
	if (json_object_get(v, "parent_requirements_revision"))
		dfixed(p->parent_requirements_revision, v,
		       "parent_requirements_revision", &d);
	p->title = dstr(v, "title", &d);
	a = json_object_get(v, "url_aliases");
	if (!json_is_array(a)) {
		d.bad = d.bad ? d.bad : "url_aliases";
	} else if (json_array_size(a) > 0) {
		if ((p->url_aliases = sw_calloc(json_array_size(a),
						sizeof(char *))) == NULL)
			d.nomem = 1;
		for (i = 0; p->url_aliases && i < json_array_size(a); i++) {
			const char *s = json_string_value(json_array_get(a, i));

			p->n_url_aliases = i + 1;
			if (s == NULL) {
				d.bad = d.bad ? d.bad : "url_aliases";
				break;
			}
			if ((p->url_aliases[i] = sw_strdup(s)) == NULL)
				d.nomem = 1;
		}
	}
	x = json_object_get(v, "parent");
	if (x != NULL) {
		if (!keys_exact(x, preq, 3, NULL, 0, &d) ||
		    (p->parent = sw_calloc(1, sizeof(*p->parent))) == NULL) {
			d.bad = d.bad ? d.bad : "parent";
		} else {
			p->parent->repository_id = dstr(x, "repository_id", &d);
			p->parent->issue_id = dstr(x, "issue_id", &d);
			p->parent->canonical_url = dstr(x, "canonical_url", &d);
		}
	}
	a = json_object_get(v, "sections");
	if (!json_is_array(a)) {
		d.bad = d.bad ? d.bad : "sections";
	} else if (json_array_size(a) > 0) {
		if ((p->sections = sw_calloc(json_array_size(a),
					     sizeof(*p->sections))) == NULL)
			d.nomem = 1;
		for (i = 0; p->sections && i < json_array_size(a); i++) {
			p->n_sections = i + 1;
			decode_section(&p->sections[i], json_array_get(a, i), &d);
		}
	}
	if (d.nomem || d.bad) {
		rc = shape_error(&d, "invalid pinned source", err);
		goto out;
	}
	if ((rc = source_pinned_validate(p, err)) < 0)
		goto out;
	*out = p;
	p = NULL;
out:
	source_pinned_free(p);
	return rc;
}

int source_candidate_from_json(struct source_candidate **out,
			       char **candidate_id, char **created_at,
			       const struct json_t *v, struct sw_error *err)
{
	static const char *const req[] = {
		"candidate_id", "valid", "classification", "classification_code",
		"source_version", "parser_version", "provider", "host",
		"repository_id", "issue_id", "issue_number", "canonical_url",
		"url_aliases", "created_at",
	};
	static const char *const opt[] = {
		"classification_error", "observation_sha256", "source_revision",
		"requirements_revision", "title", "parent", "snapshot",
	};
	static const char *const preq[] = { "repository_id", "issue_id", "canonical_url" };
	struct source_candidate *c = NULL;
	char *id = NULL, *at = NULL;
	struct dec d = { 0 };
	const json_t *a, *x;
	const char *cls;
	int rc = 0;

	*out = NULL;
	*candidate_id = NULL;
	*created_at = NULL;
	if ((c = sw_calloc(1, sizeof(*c))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot decode source candidate");
		goto out;
	}
	if (!keys_exact(v, req, 14, opt, 7, &d)) {
		rc = shape_error(&d, "invalid source candidate", err);
		goto out;
	}
	id = dstr(v, "candidate_id", &d);
	at = dstr(v, "created_at", &d);
	x = json_object_get(v, "valid");
	if (!json_is_boolean(x))
		d.bad = d.bad ? d.bad : "valid";
	c->valid = json_is_true(x);
	cls = json_string_value(json_object_get(v, "classification"));
	if (!cls || strcmp(cls, c->valid ? "valid" : "invalid") != 0)
		d.bad = d.bad ? d.bad : "classification";
	c->code = source_class_from_wire(json_string_value(
		json_object_get(v, "classification_code")));
	if (c->code == SOURCE_CLASS_NONE)
		d.bad = d.bad ? d.bad : "classification_code";
	if (json_object_get(v, "classification_error"))
		c->classification_error = dstr(v, "classification_error", &d);
	c->source_version = dsmall(v, "source_version", &d);
	c->parser_version = dsmall(v, "parser_version", &d);
	c->provider = dstr(v, "provider", &d);
	c->host = dstr(v, "host", &d);
	c->repository_id = dstr(v, "repository_id", &d);
	c->issue_id = dstr(v, "issue_id", &d);
	c->issue_number = dint(v, "issue_number", &d);
	c->canonical_url = dstr(v, "canonical_url", &d);
	if (json_object_get(v, "observation_sha256"))
		dfixed(c->observation_sha256, v, "observation_sha256", &d);
	if (json_object_get(v, "source_revision"))
		dfixed(c->source_revision, v, "source_revision", &d);
	if (json_object_get(v, "requirements_revision"))
		dfixed(c->requirements_revision, v, "requirements_revision", &d);
	if (json_object_get(v, "title"))
		c->title = dstr(v, "title", &d);
	a = json_object_get(v, "url_aliases");
	if (!json_is_array(a)) {
		d.bad = d.bad ? d.bad : "url_aliases";
	} else if (json_array_size(a) > 0) {
		if ((c->url_aliases = sw_calloc(json_array_size(a),
						sizeof(char *))) == NULL)
			d.nomem = 1;
		for (size_t i = 0; c->url_aliases && i < json_array_size(a); i++) {
			const char *s = json_string_value(json_array_get(a, i));

			c->n_url_aliases = i + 1;
			if (s == NULL) {
				d.bad = d.bad ? d.bad : "url_aliases";
				break;
			}
			if ((c->url_aliases[i] = sw_strdup(s)) == NULL)
				d.nomem = 1;
		}
	}
	x = json_object_get(v, "parent");
	if (x != NULL) {
		if (!keys_exact(x, preq, 3, NULL, 0, &d) ||
		    (c->parent = sw_calloc(1, sizeof(*c->parent))) == NULL) {
			d.bad = d.bad ? d.bad : "parent";
		} else {
			c->parent->repository_id = dstr(x, "repository_id", &d);
			c->parent->issue_id = dstr(x, "issue_id", &d);
			c->parent->canonical_url = dstr(x, "canonical_url", &d);
		}
	}
	if (d.nomem || d.bad) {
		rc = shape_error(&d, "invalid source candidate", err);
		goto out;
	}
	x = json_object_get(v, "snapshot");
	if (x != NULL && (rc = source_pinned_from_json(&c->snapshot, x, err)) < 0)
		goto out;
	if ((rc = source_candidate_validate(c, err)) < 0)
		goto out;
	*out = c;
	*candidate_id = id;
	*created_at = at;
	c = NULL;
	id = at = NULL;
out:
	sw_free(id);
	sw_free(at);
	source_candidate_free(c);
	return rc;
}
