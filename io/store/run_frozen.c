/* Frozen Action records: every record but the last kept as its run.json
 * text plus the facts the rules read, shared by a Run and its clones;
 * freezing, thawing, and parsing one back against its digest.  Never
 * writes run.json or the checkpoint (run_project.c does). */

#include <string.h>

#include <jansson.h>

#include "io/store/journal.h"
#include "io/store/run_internal.h"
#include "io/util/digest.h"
#include "io/util/json.h"

/* Reads `len` bytes at `at` of fd into a new buffer (NULL on failure). */
static char *read_at(int fd, unsigned long long at, size_t len)
{
	char *buf = sw_malloc(len + 1);

	if (buf != NULL && sw_pread_full(fd, buf, len, at) != len) {
		sw_free(buf);
		return NULL;
	}
	return buf;
}

/* One frozen record parsed back (new reference), or NULL when its text
 * cannot be read, no longer has the digest it was frozen with or does not
 * parse. */
json_t *run__fz_parse(const struct frozen *fz, const struct fz_entry *e)
{
	char hex[SW_HEX_LEN], *own = NULL;
	const char *text = e->text ? e->text : (own = read_at(fz->src_fd, e->text_at, e->text_len));
	json_t *v = NULL;

	if (text != NULL) {
		sw_sha256_hex(text, e->text_len, hex);
		if (strcmp(hex, e->text_sha) == 0)
			v = json_loadb(text, e->text_len, JSON_REJECT_DUPLICATES, NULL);
	}
	sw_free(own);
	return v;
}

unsigned run__record_flags(const json_t *v)
{
	return (json_object_get(v, "outcome") ? FZ_OUTCOME : 0) |
	       (json_is_true(json_object_get(v, "voided")) ? FZ_VOIDED : 0) |
	       (json_is_true(json_object_get(v, "skipped")) ? FZ_SKIPPED : 0);
}

/* Makes `d` (a copy of e's facts) own its strings, item and `text`. */
static int fz_own(struct fz_entry *d, const struct fz_entry *e, const char *text)
{
	const char *part[4] = { e->id, e->kind, e->sha, e->text_sha };
	size_t len[4], total = e->item_len + e->text_len + 1;
	char *p;

	for (int k = 0; k < 4; k++)
		total += (len[k] = strlen(part[k])) + 1;
	*d = *e;
	if ((d->own = p = sw_malloc(total)) == NULL)
		return -1;
	for (int k = 0; k < 4; k++) {
		memcpy(p, part[k], len[k] + 1);
		part[k] = p;
		p += len[k] + 1;
	}
	d->id = part[0];
	d->kind = part[1];
	d->sha = part[2];
	d->text_sha = part[3];
	if (e->item) {
		memcpy(p, e->item, e->item_len);
		d->item = p;
		p += e->item_len;
	}
	memcpy(p, text, e->text_len);
	d->text = p;
	return 0;
}

/* Room for one more entry after this Run's prefix.  A set another Run has
 * already extended past our prefix is copied first (owned texts too). */
static int fz_reserve(struct run *r)
{
	struct frozen *fz = r->fz;

	if (fz == NULL) {
		if ((fz = sw_calloc(1, sizeof(*fz))) == NULL)
			return -1;
		fz->refs = 1;
		fz->src_fd = -1;
		r->fz = fz;
	} else if (fz->n != r->nfz) {
		struct frozen *c = sw_calloc(1, sizeof(*c));

		if (c == NULL || (c->e = sw_calloc(r->nfz + 1, sizeof(*c->e))) == NULL) {
			sw_free(c);
			return -1;
		}
		c->refs = 1;
		c->src_fd = -1;
		c->cap = r->nfz + 1;
		for (size_t i = 0; i < r->nfz; i++) {
			const struct fz_entry *e = &fz->e[i];
			char *text = e->text ? NULL : read_at(fz->src_fd, e->text_at, e->text_len);

			if ((e->text == NULL && text == NULL) ||
			    fz_own(&c->e[i], e, e->text ? e->text : text) < 0) {
				sw_free(text);
				c->n = i;
				run__fz_release(c);
				return -1;
			}
			sw_free(text);
			c->n = i + 1;
		}
		run__fz_release(fz);
		r->fz = fz = c;
	}
	if (fz->n == fz->cap) {
		size_t cap = fz->cap ? fz->cap * 2 : 16;
		struct fz_entry *e = sw_realloc(fz->e, cap * sizeof(*e));

		if (e == NULL)
			return -1;
		fz->e = e;
		fz->cap = cap;
	}
	return 0;
}

/* Freezes Action record `v` as entry r->nfz.  1 when `v` cannot be kept
 * frozen (an id or kind too long for the entry), 0, or -1 (memory). */
static int fz_add(struct run *r, const json_t *v)
{
	const json_t *action = json_object_get(v, "action");
	const char *id = run__str(action, "action_id"), *kind = run__str(action, "kind");
	const char *sha = run__str(v, "outcome_payload_sha256");
	char *item = NULL, *dump = NULL, *text = NULL, text_sha[SW_HEX_LEN];
	size_t text_len = 0;
	struct fz_entry e = { 0 };
	int rc = -1;

	if (id == NULL || kind == NULL || strlen(id) > FZ_ID_MAX || strlen(kind) > FZ_KIND_MAX ||
	    (sha && strlen(sha) >= SW_DIGEST_LEN))
		return 1;
	if (run__action_item(&item, v) < 0 || (dump = sw_json_dump(v)) == NULL ||
	    journal_projection_value(&text, &text_len, dump, strlen(dump), 3,
				     &(struct sw_error)SW_ERROR_INIT) < 0 ||
	    fz_reserve(r) < 0)
		goto out;
	sw_sha256_hex(text, text_len, text_sha);
	e.id = id;
	e.kind = kind;
	e.sha = sha ? sha : "";
	e.text_sha = text_sha;
	e.flags = run__record_flags(v);
	e.item = item;
	e.item_len = item ? strlen(item) : 0;
	e.text_len = text_len;
	if (fz_own(&r->fz->e[r->fz->n], &e, text) < 0)
		goto out;
	r->fz->n++;
	r->nfz++;
	rc = 0;
out:
	sw_free(item);
	sw_free(dump);
	sw_free(text);
	return rc;
}

int run_freeze(struct run *r, struct sw_error *err)
{
	json_t *actions = json_object_get(r->rec, "actions"), *rest;
	size_t n = json_array_size(actions), k = 0;

	/* Every record before the last is final. */
	while (k + 1 < n) {
		int rc = fz_add(r, json_array_get(actions, k));

		if (rc < 0)
			return run__oom(err);
		if (rc > 0)
			break;
		k++;
	}
	if (k == 0)
		return 0;
	if ((rest = json_array()) == NULL)
		return run__oom(err);
	for (size_t i = k; i < n; i++)
		if (json_array_append(rest, json_array_get(actions, i)) < 0) {
			json_decref(rest);
			return run__oom(err);
		}
	if (json_object_set_new(r->rec, "actions", rest) < 0)
		return run__oom(err);
	return run__view_refresh(r, err);
}

/* The frozen records parsed back, in order (new reference, or NULL). */
json_t *run__fz_records(const struct run *r)
{
	json_t *all = json_array();

	for (size_t i = 0; all && i < r->nfz; i++) {
		json_t *v = run__fz_parse(r->fz, &r->fz->e[i]);

		if (v == NULL || json_array_append_new(all, v) < 0) {
			json_decref(all);
			return NULL;
		}
	}
	return all;
}

int run_thaw(struct run *r, struct sw_error *err)
{
	json_t *all, *v;
	size_t i;

	if (r->nfz == 0)
		return 0;
	if ((all = run__fz_records(r)) == NULL)
		return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID, "a frozen Action record does not parse");
	json_array_foreach(json_object_get(r->rec, "actions"), i, v)
		if (json_array_append(all, v) < 0) {
			json_decref(all);
			return run__oom(err);
		}
	if (json_object_set_new(r->rec, "actions", all) < 0)
		return run__oom(err);
	run__fz_release(r->fz);
	r->fz = NULL;
	r->nfz = 0;
	return run__view_refresh(r, err);
}

/* The frozen entry of `action_id`, or NULL. */
const struct fz_entry *run__fz_find(const struct run *r, const char *action_id)
{
	for (size_t i = r->nfz; action_id && i-- > 0;)
		if (strcmp(r->fz->e[i].id, action_id) == 0)
			return &r->fz->e[i];
	return NULL;
}
