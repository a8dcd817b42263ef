/* The ownership manifest (<ownership root>/slipway/ownership-manifest.json):
 * reading it strictly, checking every claim against what this build
 * generates, and encoding a new one.  Never writes it: install and
 * uninstall hand the bytes to the transaction. */
#include "io/adapters/adapter_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "io/util/digest.h"
#include "io/util/json.h"

void adapter__manifest_release(struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		sw_free(m->files[i].path);
	sw_free(m->files);
	sw_free(m->surface);
	memset(m, 0, sizeof(*m));
}

int adapter__cmp_claim(const void *a, const void *b)
{
	return strcmp(((const struct claim *)a)->path, ((const struct claim *)b)->path);
}

const struct claim *adapter__claim_find(const struct manifest *m, const char *rel)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->files[i].path, rel) == 0)
			return &m->files[i];
	return NULL;
}

static int only_keys(json_t *o, const char *const *allowed, const char *what,
		     struct sw_error *err)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; allowed[i]; i++)
			if (strcmp(k, allowed[i]) == 0)
				break;
		if (allowed[i] == NULL)
			return sw_error_set(err, SW_EPARSE, "%s has the unknown field \"%s\"", what, k);
	}
	return 0;
}

int adapter__read_small(char **out, size_t *len, const char *path, size_t limit,
			struct sw_error *err)
{
	char *buf = sw_malloc(limit + 1);
	size_t off = 0;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	*out = NULL;
	if (buf == NULL) {
		if (fd >= 0)
			close(fd);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	if (fd < 0) {
		sw_free(buf);
		return sw_error_sys(err, errno, "cannot open '%s'", path);
	}
	while (off <= limit && (got = read(fd, buf + off, limit + 1 - off)) > 0)
		off += (size_t)got;
	close(fd);
	if (off > limit) {
		sw_free(buf);
		return sw_error_set(err, SW_ETOOBIG, "'%s' exceeds %zu bytes", path, limit);
	}
	buf[off] = '\0';
	*out = buf;
	*len = off;
	return 0;
}

/* Loads and validates `h`'s manifest: m->found = 0 when there is none. */
int adapter__manifest_load(struct manifest *m, const char *root, const struct host *h,
			   const struct adapter_text *texts, struct sw_error *err)
{
	static const char *const top_keys[] = { "version", "tool_id", "surface", "files", NULL };
	static const char *const file_keys[] = { "path", "sha256", NULL };
	struct gen_set g = { NULL, 0 };
	char *path = NULL, *raw = NULL;
	json_t *doc = NULL, *v, *files;
	struct stat st;
	size_t len = 0;
	enum surface s = h->surface;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	if ((path = adapter__owner_file(root, h, MANIFEST_NAME, err)) == NULL)
		return err->code;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			rc = sw_error_sys(err, errno, "cannot inspect the ownership manifest for %s", h->id);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = sw_error_set(err, SW_EUNSAFE, "ownership manifest for %s is not a regular file", h->id);
		goto out;
	}
	if ((size_t)st.st_size > MANIFEST_MAX) {
		rc = sw_error_set(err, SW_ETOOBIG, "ownership manifest for %s exceeds %u bytes", h->id, MANIFEST_MAX);
		goto out;
	}
	if ((rc = adapter__read_small(&raw, &len, path, MANIFEST_MAX, err)) < 0)
		goto out;
	if ((rc = sw_json_load_strict(&doc, raw, len, MANIFEST_MAX, err)) < 0)
		goto out;
	if (!json_is_object(doc)) {
		rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s is not a JSON object", h->id);
		goto out;
	}
	if ((rc = only_keys(doc, top_keys, "ownership manifest", err)) < 0)
		goto out;
	v = json_object_get(doc, "version");
	if (v && !json_is_integer(v)) {
		rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a non-integer version", h->id);
		goto out;
	}
	if (!v || json_integer_value(v) != 2) {
		rc = sw_error_set(err, SW_EINVAL, "unsupported ownership manifest version %lld for %s",
				  v ? (long long)json_integer_value(v) : 0LL, h->id);
		goto out;
	}
	v = json_object_get(doc, "tool_id");
	if (v && !json_is_string(v)) {
		rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a non-string tool_id", h->id);
		goto out;
	}
	if (!v || strcmp(json_string_value(v), h->id) != 0) {
		rc = sw_error_set(err, SW_EINVAL, "ownership manifest for %s belongs to \"%s\"", h->id,
				  v ? json_string_value(v) : "");
		goto out;
	}
	v = json_object_get(doc, "surface");
	if (v && !json_is_null(v)) {
		const char *k;
		json_t *sv;

		if (!json_is_object(v)) {
			rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a malformed surface", h->id);
			goto out;
		}
		json_object_foreach(v, k, sv)
			if (!json_is_string(sv)) {
				rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a malformed surface", h->id);
				goto out;
			}
		if ((sv = json_object_get(v, h->id)) != NULL &&
		    (m->surface = sw_strdup(json_string_value(sv))) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (h->choice == CHOSEN_SURFACE) {
		if ((s = adapter__kiro_surface(m->surface)) == SURF_NONE) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "the kiro ownership manifest records no valid surface (ide or cli)");
			goto out;
		}
	}
	files = json_object_get(doc, "files");
	if (!json_is_array(files)) {
		rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s needs a files array", h->id);
		goto out;
	}
	if ((rc = adapter__generate(&g, h, s, texts, err)) < 0)
		goto out;
	if ((m->files = sw_calloc(json_array_size(files) + 1, sizeof(*m->files))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(files); i++) {
		json_t *f = json_array_get(files, i), *p, *hv;
		const char *hx;
		char *rel;

		if (!json_is_object(f) || (rc = only_keys(f, file_keys, "ownership manifest entry", err)) < 0) {
			rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a malformed entry", h->id);
			goto out;
		}
		p = json_object_get(f, "path");
		hv = json_object_get(f, "sha256");
		if ((p && !json_is_string(p)) || (hv && !json_is_string(hv))) {
			rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a malformed entry", h->id);
			goto out;
		}
		if ((rel = adapter__normalize_rel(p ? json_string_value(p) : "", err)) == NULL) {
			rc = err->code;
			goto out;
		}
		m->files[m->n].path = rel;
		m->n++;
		if (adapter__claim_find(m, rel) != &m->files[m->n - 1]) {
			rc = sw_error_set(err, SW_EINVAL, "duplicate ownership path \"%s\"", rel);
			goto out;
		}
		hx = hv ? json_string_value(hv) : "";
		while (*hx == ' ' || *hx == '\t' || *hx == '\n' || *hx == '\r')
			hx++;
		{
			size_t k;

			for (k = 0; k < 64; k++) {
				char c = hx[k];

				if (c >= 'A' && c <= 'F')
					c = (char)(c - 'A' + 'a');
				if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
					break;
				m->files[m->n - 1].sha[k] = c;
			}
			for (size_t t = 64; k == 64 && hx[t]; t++)
				if (!strchr(" \t\r\n", hx[t]))
					k = 0;
			if (k != 64) {
				rc = sw_error_set(err, SW_EINVAL, "invalid sha256 for \"%s\"", rel);
				goto out;
			}
			m->files[m->n - 1].sha[64] = '\0';
		}
		if (adapter__gen_find(&g, rel) == NULL && !adapter__gen_moved(&g, rel)) {
			rc = sw_error_set(err, SW_EINVAL,
					  "ownership manifest for %s claims \"%s\", which is not a path slipway manages",
					  h->id, rel);
			goto out;
		}
	}
	qsort(m->files, m->n, sizeof(*m->files), adapter__cmp_claim);
	sw_sha256_hex(raw, len, m->sha);
	m->found = 1;
out:
	if (rc < 0)
		adapter__manifest_release(m);
	adapter__gen_release(&g);
	json_decref(doc);
	sw_free(raw);
	sw_free(path);
	return rc;
}

/* The manifest bytes for `claims` (sorted by the caller). */
char *adapter__manifest_encode(const struct host *h, enum surface s,
			       const struct claim *claims, size_t n, size_t *len)
{
	size_t cap = 256 + n * 160;
	char *out = sw_malloc(cap), *p = out;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		cap += strlen(claims[i].path);
	sw_free(out);
	if ((out = sw_malloc(cap)) == NULL)
		return NULL;
	p = out;
	p += snprintf(p, cap, "{\n  \"version\": 2,\n  \"tool_id\": \"%s\",\n", h->id);
	if (h->choice == CHOSEN_SURFACE)
		p += snprintf(p, cap - (size_t)(p - out), "  \"surface\": {\n    \"kiro\": \"%s\"\n  },\n",
			      s == SURF_KIRO_CLI ? "cli" : "ide");
	p += snprintf(p, cap - (size_t)(p - out), "  \"files\": [");
	for (size_t i = 0; i < n; i++)
		p += snprintf(p, cap - (size_t)(p - out), "%s\n    {\n      \"path\": \"%s\",\n      \"sha256\": \"%s\"\n    }",
			      i ? "," : "", claims[i].path, claims[i].sha);
	p += snprintf(p, cap - (size_t)(p - out), n ? "\n  ]\n}\n" : "]\n}\n");
	*len = (size_t)(p - out);
	return out;
}
