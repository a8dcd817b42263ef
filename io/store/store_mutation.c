/* The mutation builder: what a store_mutate_fn collects (events,
 * materials, run.json whole or in pieces, the checkpoint and summary
 * bodies) and its encoding into journal lines and run.json bytes.
 * Touches no file. */

#include "io/store/store_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/store/journal.h"
#include "io/util/json.h"

void store__mutation_release(struct store_mutation *m)
{
	for (size_t i = 0; i < m->nev; i++)
		sw_free(m->ev[i].data);
	sw_free(m->ev);
	for (size_t i = 0; i < m->nmat; i++)
		sw_free(m->mat[i].bytes);
	sw_free(m->mat);
	sw_free(m->proj);
	sw_free(m->piece);
	sw_free(m->sum_body);
	sw_lchain_free(m->jhash);
	sw_xxh_free(m->lhash);
	sw_free(m->old_log);
	memset(m, 0, sizeof(*m));
}

int store_mutation_set_projection_pieces(struct store_mutation *m,
					 const struct sw_piece *pieces, size_t n,
					 struct sw_error *err)
{
	struct sw_piece *copy;

	for (size_t k = 0; k < n; k++)
		if (pieces[k].bytes == NULL && m->src_st.st_ino == 0)
			return sw_error_set(err, SW_EINVAL,
					    "a projection piece names a run.json this update did not adopt");
	if ((copy = sw_calloc(n ? n : 1, sizeof(*copy))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy projection");
	if (n)
		memcpy(copy, pieces, n * sizeof(*copy));
	sw_free(m->piece);
	m->piece = copy;
	m->npiece = n;
	return 0;
}

void store_mutation_set_checkpoint(struct store_mutation *m, const char *body,
				   size_t len, const char *log, size_t log_len,
				   size_t log_base)
{
	m->cp_body = body;
	m->cp_len = len;
	m->cp_log = log;
	m->cp_log_len = log_len;
	m->cp_log_base = log_base;
}

int store_mutation_set_summary(struct store_mutation *m, const char *body, size_t len,
			       struct sw_error *err)
{
	char *copy = sw_malloc(len + 1);

	if (copy == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy the listing summary");
	memcpy(copy, body, len);
	copy[len] = '\0';
	sw_free(m->sum_body);
	m->sum_body = copy;
	m->sum_len = len;
	return 0;
}

long long store_mutation_base(const struct store_mutation *m)
{
	return m->base;
}

int store_mutation_add_event(struct store_mutation *m, enum tbl_jevent type,
			     const char *data, size_t len,
			     struct sw_error *err)
{
	struct mut_event *p;
	struct json_t *v = NULL;
	char *compact = NULL;
	size_t clen = 0;
	int rc;

	if (type <= TBL_JEVENT_INVALID || type >= TBL_JEVENT__COUNT)
		return sw_error_set(err, SW_EINVAL, "unknown journal event type");
	if ((rc = sw_json_load_strict(&v, data, len, SIZE_MAX, err)) < 0)
		return rc;
	json_decref(v);
	if ((rc = journal_compact(&compact, &clen, data, len, err)) < 0)
		return rc;
	if (clen > JOURNAL_MAX_DATA) {
		struct store_failure *f = &m->s->fail;

		sw_free(compact);
		f->code = TBL_ERR_JOURNAL_RECORD_TOO_LARGE;
		f->has_limit = true;
		snprintf(f->limit_context, sizeof(f->limit_context), "event payload");
		f->limit_size = clen;
		f->limit_max = JOURNAL_MAX_DATA;
		return sw_error_proto(err, TBL_ERR_JOURNAL_RECORD_TOO_LARGE,
				      "event payload exceeds journal record limit: %zu bytes exceeds %u",
				      clen, JOURNAL_MAX_DATA);
	}
	if ((p = sw_realloc(m->ev, (m->nev + 1) * sizeof(*p))) == NULL) {
		sw_free(compact);
		return sw_error_set(err, SW_ENOMEM, "cannot add event");
	}
	m->ev = p;
	m->ev[m->nev].type = type;
	m->ev[m->nev].data = compact;
	m->ev[m->nev].len = clen;
	m->nev++;
	return 0;
}

int store_mutation_set_projection(struct store_mutation *m, const char *json,
				  size_t len, struct sw_error *err)
{
	char *copy = sw_strndup(json, len);

	if (copy == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy projection");
	sw_free(m->proj);
	m->proj = copy;
	m->proj_len = len;
	return 0;
}

/* Adds a copy of the material; `known` is its digest, or NULL to compute
 * it. */
static int add_material(struct store_mutation *m, const void *bytes, size_t len,
			const char *known, char digest[SW_DIGEST_LEN], struct sw_error *err)
{
	struct mut_material *p;
	void *copy;

	if (len == 0 || len > STORE_MATERIAL_MAX)
		return sw_error_set(err, SW_EINVAL,
				    "material must contain 1..%u bytes", STORE_MATERIAL_MAX);
	if ((copy = sw_malloc(len)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy material");
	memcpy(copy, bytes, len);
	if ((p = sw_realloc(m->mat, (m->nmat + 1) * sizeof(*p))) == NULL) {
		sw_free(copy);
		return sw_error_set(err, SW_ENOMEM, "cannot add material");
	}
	m->mat = p;
	if (known != NULL)
		memcpy(m->mat[m->nmat].digest, known, SW_DIGEST_LEN);
	else
		sw_material_digest(m->mat[m->nmat].digest, bytes, len, NULL);
	m->mat[m->nmat].bytes = copy;
	m->mat[m->nmat].len = len;
	m->mat[m->nmat].created = false;
	if (digest)
		memcpy(digest, m->mat[m->nmat].digest, SW_DIGEST_LEN);
	m->nmat++;
	return 0;
}

int store_mutation_add_material(struct store_mutation *m, const void *bytes,
				size_t len, char digest[SW_DIGEST_LEN],
				struct sw_error *err)
{
	return add_material(m, bytes, len, NULL, digest, err);
}

int store_mutation_add_material_named(struct store_mutation *m, const void *bytes,
				      size_t len, const char *digest,
				      struct sw_error *err)
{
	if (!sw_digest_valid(digest))
		return sw_error_set(err, SW_EINVAL, "material digest must use sha256:<64 hex> format");
#ifdef SW_TESTING
	{
		char got[SW_DIGEST_LEN];

		sw_material_digest(got, bytes, len, NULL);
		if (strcmp(got, digest) != 0)
			return sw_error_set(err, SW_EINVAL, "material digest %s does not match its bytes",
					    digest);
	}
#endif
	return add_material(m, bytes, len, digest, NULL, err);
}

/* Journal lines and run.json bytes for the collected mutation. */
int store__encode_mutation(char **journal, size_t *jlen, char **proj,
			   size_t *plen, struct store *s,
			   const struct store_mutation *m, struct txn *t,
			   struct sw_error *err)
{
	char *all = NULL, *line = NULL;
	size_t alen = 0, llen = 0;
	int rc = 0;

	*journal = *proj = NULL;
	t->phase = "journal_write";
	for (size_t i = 0; i < m->nev; i++) {
		struct timespec now = { 0 };
		char at[JOURNAL_TIME_LEN];
		char *p;

		s->clock(&now, s->clock_payload);
		journal_format_time(&now, at);
		if ((rc = journal_record_encode(&line, &llen, m->base + 1 + (long long)i,
						m->ev[i].type, at, m->ev[i].data,
						m->ev[i].len, err)) < 0)
			goto out;
		if (llen > JOURNAL_MAX_LINE) {
			struct store_failure *f = &s->fail;

			f->has_limit = true;
			snprintf(f->limit_context, sizeof(f->limit_context),
				 "encoded journal event");
			f->limit_size = llen;
			f->limit_max = JOURNAL_MAX_LINE;
			rc = sw_error_proto(err, TBL_ERR_JOURNAL_RECORD_TOO_LARGE,
					    "encoded journal event exceeds journal record limit: %zu bytes exceeds %u",
					    llen, JOURNAL_MAX_LINE);
			goto out;
		}
		if ((p = sw_realloc(all, alen + llen + 1)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot encode journal");
			goto out;
		}
		all = p;
		memcpy(all + alen, line, llen + 1);
		alen += llen;
		sw_free(line);
		line = NULL;
	}
	t->phase = "projection_encode";
	if (m->piece == NULL &&
	    (rc = journal_projection_encode(proj, plen, m->base + (long long)m->nev,
					    m->proj ? m->proj : "null",
					    m->proj ? m->proj_len : 4, err)) < 0)
		goto out;
	*journal = all;
	*jlen = alen;
	all = NULL;
out:
	sw_free(line);
	sw_free(all);
	return rc;
}
