/* What slipway installed, for the Run report: the files each host's
 * ownership manifest claims, read leniently (an unreadable manifest claims
 * nothing).  Reads only the manifests; never checks the files' bytes. */
#include "io/adapters/adapter_internal.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/digest.h"
#include "io/util/json.h"

/* 1 when `rel` lies in one of the folders `h` keeps its files in. */
static int host_folder(const struct host *h, const char *rel)
{
	const char *dirs[8] = { h->skills, h->owner };
	size_t n = 2;

	for (size_t i = 0; i < 5 && h->detect[i]; i++)
		dirs[n++] = h->detect[i];
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dirs[i]);

		if (strncmp(rel, dirs[i], len) == 0 && rel[len] == '/')
			return 1;
	}
	return 0;
}

static int owned_add(struct sw_owned_group *g, char *path, const char *hex)
{
	struct sw_owned_file *grown;

	if (path == NULL || (grown = sw_realloc(g->files, (g->n + 1) * sizeof(*grown))) == NULL) {
		sw_free(path);
		return -1;
	}
	g->files = grown;
	g->files[g->n].path = path;
	g->files[g->n].sha256[0] = '\0';
	if (hex)
		snprintf(g->files[g->n].sha256, sizeof(g->files[g->n].sha256), "sha256:%s", hex);
	g->n++;
	return 0;
}

/* Reads `h`'s manifest into `g`: 0 with g->n == 0 when there is none or
 * it cannot be read, -1 on ENOMEM. */
static int installed_host(struct sw_owned_group *g, const char *root, const struct host *h)
{
	struct sw_error e = SW_ERROR_INIT;
	char *path = adapter__owner_file(root, h, MANIFEST_NAME, &e), *raw = NULL;
	char sentinel_sha[SW_HEX_LEN];
	json_t *doc = NULL, *f;
	size_t len = 0, i;
	int rc = 0;

	g->owner = h->id;
	if (path == NULL)
		return e.code == SW_ENOMEM ? -1 : 0;
	if (adapter__read_small(&raw, &len, path, MANIFEST_MAX, &e) < 0 ||
	    sw_json_load_strict(&doc, raw, len, MANIFEST_MAX, &e) < 0 || !json_is_object(doc) ||
	    json_integer_value(json_object_get(doc, "version")) != 2 ||
	    !json_is_string(json_object_get(doc, "tool_id")) ||
	    strcmp(json_string_value(json_object_get(doc, "tool_id")), h->id) != 0 ||
	    !json_is_array(json_object_get(doc, "files"))) {
		rc = e.code == SW_ENOMEM ? -1 : 0;
		goto out;
	}
	json_array_foreach(json_object_get(doc, "files"), i, f) {
		const char *p = json_string_value(json_object_get(f, "path"));
		const char *hex = json_string_value(json_object_get(f, "sha256"));
		char *rel;

		if (p == NULL || hex == NULL || strlen(hex) != SW_HEX_LEN - 1)
			continue;
		if ((rel = adapter__normalize_rel(p, &e)) == NULL) {
			if (e.code == SW_ENOMEM) {
				rc = -1;
				goto out;
			}
			continue;
		}
		if (!host_folder(h, rel)) {
			sw_free(rel);
			continue;
		}
		if (owned_add(g, rel, hex) < 0) {
			rc = -1;
			goto out;
		}
	}
	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	if (owned_add(g, adapter__owner_rel(h, MANIFEST_NAME), NULL) < 0 ||
	    owned_add(g, adapter__owner_rel(h, SENTINEL_NAME), sentinel_sha) < 0)
		rc = -1;
	/* The records of its MCP registrations (struct mcp_reg). */
	for (const struct mcp_reg *r = h->mcp; rc == 0 && r && r->config; r++)
		if (owned_add(g, adapter__owner_rel(h, r->record), NULL) < 0)
			rc = -1;
	if (rc == 0 && owned_add(g, adapter__owner_rel(h, "created-folders.json"), NULL) < 0)
		rc = -1;
out:
	json_decref(doc);
	sw_free(raw);
	sw_free(path);
	return rc;
}

int adapter_installed(struct sw_owned *out, const char *root, struct sw_error *err)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		struct sw_owned_group *g = &out->groups[out->n];

		if (installed_host(g, root, &adapter__hosts[i]) < 0) {
			sw_owned_release(out);
			return sw_error_set(err, SW_ENOMEM, "out of memory reading the ownership manifests");
		}
		if (g->n > 0)
			out->n++;
	}
	return 0;
}
