/* The host table for the generated documentation (mk/gen/gendocs): one
 * row per host, and every path install writes or claims for it, walked by
 * the same generation code as install.  Writes nothing. */
#include "io/adapters/adapter_internal.h"
#include "io/adapters/adapter_folders.h"
#include "io/adapters/adapter_mcp.h"

#include <string.h>

int adapter_host_doc(struct adapter_host_doc *out, size_t i)
{
	if (i >= ADAPTER_NHOSTS)
		return -1;
	memset(out, 0, sizeof(*out));
	out->id = adapter__hosts[i].id;
	out->owner = adapter__hosts[i].owner;
	out->detect = adapter__hosts[i].detect;
	while (out->ndetect < 5 && adapter__hosts[i].detect[out->ndetect])
		out->ndetect++;
	out->chooses_surface = adapter__hosts[i].choice == CHOSEN_SURFACE;
	out->nmcp = adapter_mcp_configs(adapter__hosts[i].id, out->mcp_config, NULL);
	out->product = adapter__hosts[i].source->product;
	out->checked = adapter__hosts[i].source->checked;
	out->docs = adapter__hosts[i].source->docs;
	while (out->ndocs < 4 && out->docs[out->ndocs])
		out->ndocs++;
	out->note = adapter__hosts[i].source->note;
	return 0;
}

int adapter_host_walk(size_t i, const char *surface, const struct adapter_text *texts,
		      adapter_path_fn *fn, void *payload, struct sw_error *err)
{
	const struct host *h;
	enum surface s;
	struct gen_set g = { NULL, 0 };
	char *rel;
	int rc;

	if (i >= ADAPTER_NHOSTS)
		return sw_error_set(err, SW_EINVAL, "no host %zu", i);
	h = &adapter__hosts[i];
	s = h->choice == CHOSEN_SURFACE ? adapter__kiro_surface(surface) : h->surface;
	if (s == SURF_NONE || (h->choice != CHOSEN_SURFACE && surface && *surface))
		return sw_error_set(err, SW_EINVAL, "host %s has no surface \"%s\"", h->id,
				    surface ? surface : "");
	if ((rc = adapter__generate(&g, h, s, texts, err)) < 0)
		return rc;
	for (size_t k = 0; k < g.n; k++)
		fn(ADAPTER_PATH_GENERATED, g.v[k].rel, g.v[k].cap, payload);
	adapter__gen_release(&g);
	{
		const char *configs[ADAPTER_MCP_MAX], *records[ADAPTER_MCP_MAX];
		size_t n = adapter_mcp_configs(h->id, configs, records);
		const char *own[3 + ADAPTER_MCP_MAX] = { MANIFEST_NAME, SENTINEL_NAME, ADAPTER_FOLDERS_RECORD };
		enum adapter_path_role role[3 + ADAPTER_MCP_MAX] = { ADAPTER_PATH_MANIFEST, ADAPTER_PATH_SENTINEL,
								    ADAPTER_PATH_FOLDERS };

		for (size_t k = 0; k < n; k++) {
			own[3 + k] = records[k];
			role[3 + k] = ADAPTER_PATH_MCP_RECORD;
		}
		for (size_t k = 0; k < 3 + n; k++) {
			if ((rel = adapter__owner_rel(h, own[k])) == NULL)
				return sw_error_set(err, SW_ENOMEM, "out of memory");
			fn(role[k], rel, NULL, payload);
			sw_free(rel);
		}
		for (size_t k = 0; k < n; k++)
			fn(ADAPTER_PATH_MCP_CONFIG, configs[k], NULL, payload);
	}
	return 0;
}
