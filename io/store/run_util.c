/* The bottom of the Run record's code: the helpers every other part
 * shares (the record's arrays and strings, a cut marked with its digest,
 * decoding the record again after a change) and a Run's lifetime (clone,
 * free, the frozen set's references).  Calls none of the record's other
 * files but its decoder (run_decode.c). */

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "io/store/run_codec.h"
#include "io/store/run_internal.h"
#include "io/util/digest.h"

int run__oom(struct sw_error *err)
{
	return sw_error_set(err, SW_ENOMEM, "out of memory building the Run record");
}

int run_decode(struct run *r, struct sw_error *err)
{
	struct run_view *v = NULL;
	int rc = run_view_decode(&v, r->rec, err);

	if (rc < 0)
		return rc;
	run_view_free(r->view);
	r->view = v;
	return 0;
}

/* Keeps a decoded record in step after a change. */
int run__view_refresh(struct run *r, struct sw_error *err)
{
	return r->view ? run_decode(r, err) : 0;
}

const struct run_record *run_record(const struct run *r)
{
	assert(r->view != NULL && "run_record before run_check");
	return run_view_record(r->view);
}

json_t *run__arr(json_t *rec, const char *key)
{
	json_t *a = json_object_get(rec, key);

	if (a == NULL) {
		a = json_array();
		if (a == NULL || json_object_set_new(rec, key, a) < 0)
			return NULL;
	}
	return a;
}

int run__append_str(json_t *rec, const char *key, const char *s)
{
	json_t *a = run__arr(rec, key);

	return a ? json_array_append_new(a, json_string(s)) : -1;
}

static int has_string(const json_t *a, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

int run__append_unique(json_t *rec, const char *key, const char *s)
{
	json_t *a = run__arr(rec, key);

	if (a == NULL)
		return -1;
	return has_string(a, s) ? 0 : json_array_append_new(a, json_string(s));
}

int run__extend(json_t *rec, const char *key, const json_t *items)
{
	json_t *a, *v;
	size_t i;

	if (!json_is_array(items) || json_array_size(items) == 0)
		return 0;
	if ((a = run__arr(rec, key)) == NULL)
		return -1;
	json_array_foreach(items, i, v)
		if (json_array_append(a, v) < 0)
			return -1;
	return 0;
}

const char *run__str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

json_t *run__record_for(const json_t *rec, const char *action_id)
{
	json_t *actions = json_object_get(rec, "actions"), *r;
	size_t i;

	if (action_id == NULL)
		return NULL;
	json_array_foreach(actions, i, r) {
		const char *id = run__str(json_object_get(r, "action"), "action_id");

		if (id && strcmp(id, action_id) == 0)
			return r;
	}
	return NULL;
}

/* Cuts `s` to `limit` bytes at a UTF-8 boundary, ending with a marker that
 * names the original size and digest.  Returns a sw_malloc'd string. */
char *run__truncate_marked(const char *s, size_t limit)
{
	size_t n = strlen(s), keep;
	char hex[SW_HEX_LEN], marker[160];
	int m;

	if (n <= limit)
		return sw_strdup(s);
	sw_sha256_hex(s, n, hex);
	m = snprintf(marker, sizeof(marker),
		     "...[truncated original_bytes=%zu sha256=%s]", n, hex);
	if ((size_t)m >= limit)
		return sw_strndup(marker, limit);
	keep = limit - (size_t)m;
	while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	char *out = sw_malloc(keep + (size_t)m + 1);

	if (out == NULL)
		return NULL;
	memcpy(out, s, keep);
	memcpy(out + keep, marker, (size_t)m + 1);
	return out;
}

void run__fz_release(struct frozen *fz)
{
	if (fz == NULL || --fz->refs > 0)
		return;
	for (size_t i = 0; i < fz->n; i++)
		sw_free(fz->e[i].own);
	sw_free(fz->e);
	sw_free(fz->log);
	if (fz->src_fd >= 0)
		close(fz->src_fd);
	sw_free(fz);
}

int run_clone(struct run **out, const struct run *r, struct sw_error *err)
{
	struct run *c = sw_calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (c == NULL || (c->rec = json_deep_copy(r->rec)) == NULL ||
	    (c->contexts = json_array()) == NULL) {
		run_free(c);
		return run__oom(err);
	}
	if ((c->fz = r->fz) != NULL)
		c->fz->refs++;
	c->nfz = r->nfz;
	if (r->view && (rc = run_decode(c, err)) < 0) {
		run_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void run_free(struct run *r)
{
	if (r == NULL)
		return;
	json_decref(r->rec);
	json_decref(r->contexts);
	run__fz_release(r->fz);
	run_view_free(r->view);
	sw_free(r);
}
