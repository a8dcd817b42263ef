/* The folders slipway created for a host (see io/adapters/adapter_folders.h). */

#include "io/adapters/adapter_folders.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/digest.h"
#include "io/util/file.h"

#define RECORD_NAME ADAPTER_FOLDERS_RECORD
#define RECORD_MAX (64u << 10)

/* A clean repository-relative folder path: no empty, "." or ".." part,
 * not absolute, no control character. */
static bool clean_rel(const char *p)
{
	const char *seg = p;

	if (*p == '\0' || *p == '/')
		return false;
	for (const char *c = p;; c++) {
		if (*c != '/' && *c != '\0') {
			if ((unsigned char)*c < 0x20)
				return false;
			continue;
		}
		if (c == seg || (c - seg == 1 && seg[0] == '.') ||
		    (c - seg == 2 && seg[0] == '.' && seg[1] == '.'))
			return false;
		if (*c == '\0')
			return true;
		seg = c + 1;
	}
}

static void put_string(struct sw_buf *b, const char *s)
{
	json_t *v = json_string(s);
	char *t = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;

	if (t == NULL)
		b->failed = 1;
	else
		sw_buf_str(b, t);
	sw_free(t);
	json_decref(v);
}

/* The record as slipway writes it (sw_malloc'd), or NULL. */
static char *record_text(const char *host_id, const struct adapter_strs *f, size_t *len)
{
	struct sw_buf b = SW_BUF_INIT;
	char *out;

	sw_buf_str(&b, "{\n  \"version\": 1,\n  \"tool_id\": ");
	put_string(&b, host_id);
	sw_buf_str(&b, ",\n  \"folders\": [");
	for (size_t i = 0; i < f->n; i++) {
		sw_buf_str(&b, i ? ",\n    " : "\n    ");
		put_string(&b, f->v[i]);
	}
	sw_buf_str(&b, f->n ? "\n  ]\n}\n" : "]\n}\n");
	*len = b.len;
	out = sw_buf_detach(&b);
	return out;
}

struct record {
	int found, ours;
	char *bytes;
	size_t len;
	char sha[SW_HEX_LEN];
	struct adapter_strs folders;
};

static void record_release(struct record *r)
{
	for (size_t i = 0; i < r->folders.n; i++)
		sw_free(r->folders.v[i]);
	sw_free(r->folders.v);
	sw_free(r->bytes);
	memset(r, 0, sizeof(*r));
}

/* Reads the record at `abs`; r->ours when its bytes are exactly those
 * slipway writes for `host_id`.  SW_ENOMEM only. */
static int record_read(struct record *r, const char *abs, const char *host_id, struct sw_error *err)
{
	struct sw_error e = SW_ERROR_INIT;
	struct stat st;
	json_t *doc = NULL, *list, *v;
	char *again = NULL;
	size_t i, len = 0;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (lstat(abs, &st) < 0 && errno == ENOENT)
		return 0;
	r->found = 1;
	if (sw_read_regular_file(&r->bytes, &r->len, abs, RECORD_MAX, &e) < 0)
		return e.code == SW_ENOMEM ? sw_error_set(err, SW_ENOMEM, "out of memory") : 0;
	sw_sha256_hex(r->bytes, r->len, r->sha);
	doc = json_loadb(r->bytes, r->len, JSON_REJECT_DUPLICATES, NULL);
	list = json_object_get(doc, "folders");
	if (!json_is_array(list) || json_integer_value(json_object_get(doc, "version")) != 1 ||
	    !json_is_string(json_object_get(doc, "tool_id")) ||
	    strcmp(json_string_value(json_object_get(doc, "tool_id")), host_id) != 0)
		goto out;
	json_array_foreach(list, i, v)
		if (!json_is_string(v) || !clean_rel(json_string_value(v)) ||
		    (rc = adapter_strs_add(&r->folders, json_string_value(v), err)) < 0)
			goto out;
	if ((again = record_text(host_id, &r->folders, &len)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	r->ours = len == r->len && memcmp(again, r->bytes, len) == 0;
out:
	if (!r->ours) {
		for (size_t k = 0; k < r->folders.n; k++)
			sw_free(r->folders.v[k]);
		sw_free(r->folders.v);
		r->folders.v = NULL;
		r->folders.n = 0;
	}
	sw_free(again);
	json_decref(doc);
	return rc;
}

static bool has(const struct adapter_strs *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], v) == 0)
			return true;
	return false;
}

/* Adds to `s` every parent folder of `rel` (below `root`) missing now. */
static int add_missing_parents(struct adapter_strs *s, const char *root, const char *rel,
			       struct sw_error *err)
{
	for (const char *slash = strchr(rel, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
		char *anc = sw_strndup(rel, (size_t)(slash - rel)), *abs = NULL;
		struct stat st;
		int rc = 0;

		if (anc == NULL || (abs = sw_asprintf("%s/%s", root, anc)) == NULL)
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		else if (lstat(abs, &st) < 0 && errno == ENOENT && !has(s, anc) && clean_rel(anc))
			rc = adapter_strs_add(s, anc, err);
		sw_free(abs);
		sw_free(anc);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int adapter_folders_plan_install(struct adapter_report *rep, struct adapter_txn *txn,
				 const char *root, const char *host_id, const char *owner,
				 size_t first, struct sw_error *err)
{
	struct adapter_strs all = { NULL, 0 };
	struct record r;
	size_t rootlen = strlen(root), before, len = 0;
	char *rel = sw_asprintf("%s/slipway/%s", owner, RECORD_NAME), *abs = NULL, *text = NULL;
	int rc;

	memset(&r, 0, sizeof(r));
	if (rel == NULL || (abs = sw_asprintf("%s/%s", root, rel)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = record_read(&r, abs, host_id, err)) < 0)
		goto out;
	if (r.found && !r.ours) {
		if ((rc = adapter_strs_add(&rep->preserved, rel, err)) == 0)
			rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
				"%s: %s is not a record slipway wrote; it was kept, and the folders "
				"this install creates are not recorded for uninstall", host_id, rel), err);
		goto out;
	}
	for (size_t i = 0; i < r.folders.n; i++)
		if ((rc = adapter_strs_add(&all, r.folders.v[i], err)) < 0)
			goto out;
	before = all.n;
	for (size_t i = first; i < adapter_txn_size(txn); i++) {
		const char *p = adapter_txn_written_path(txn, i);

		if (p != NULL && strncmp(p, root, rootlen) == 0 && p[rootlen] == '/' &&
		    (rc = add_missing_parents(&all, root, p + rootlen + 1, err)) < 0)
			goto out;
	}
	if (all.n == before)
		goto out;	/* nothing new: the record stays as it is */
	if ((rc = add_missing_parents(&all, root, rel, err)) < 0)
		goto out;
	qsort(all.v, all.n, sizeof(*all.v), cmp_str);
	if ((text = record_text(host_id, &all, &len)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = adapter_txn_write(txn, abs, text, len, 0600,
				    r.found ? ADAPTER_TXN_EXPECT_SHA256 : ADAPTER_TXN_EXPECT_MISSING,
				    r.sha, err)) == 0)
		rc = adapter_strs_add(&rep->written, rel, err);
out:
	for (size_t i = 0; i < all.n; i++)
		sw_free(all.v[i]);
	sw_free(all.v);
	sw_free(text);
	sw_free(abs);
	sw_free(rel);
	record_release(&r);
	return rc;
}

int adapter_folders_plan_uninstall(struct adapter_report *rep, struct adapter_txn *txn,
				   const char *root, const char *host_id, const char *owner,
				   struct adapter_strs *folders, struct sw_error *err)
{
	struct record r;
	char *rel = sw_asprintf("%s/slipway/%s", owner, RECORD_NAME), *abs = NULL;
	int rc;

	memset(&r, 0, sizeof(r));
	if (rel == NULL || (abs = sw_asprintf("%s/%s", root, rel)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = record_read(&r, abs, host_id, err)) < 0 || !r.found)
		goto out;
	if (!r.ours) {
		if ((rc = adapter_strs_add(&rep->preserved, rel, err)) == 0)
			rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
				"%s: %s is not a record slipway wrote; it was kept, and no folder was "
				"removed", host_id, rel), err);
		goto out;
	}
	if ((rc = adapter_txn_remove(txn, abs, ADAPTER_TXN_EXPECT_SHA256, r.sha, err)) < 0 ||
	    (rc = adapter_strs_add(&rep->removed, rel, err)) < 0)
		goto out;
	for (size_t i = 0; i < r.folders.n && rc == 0; i++)
		if (!has(folders, r.folders.v[i]))
			rc = adapter_strs_add(folders, r.folders.v[i], err);
out:
	sw_free(abs);
	sw_free(rel);
	record_release(&r);
	return rc;
}
