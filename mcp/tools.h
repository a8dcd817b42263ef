#ifndef MCP_TOOLS_H
#define MCP_TOOLS_H

/* The MCP tools: one per CLI operation a `next` variant can name (the rows
 * of tables/mcp_tools.def), their descriptions and input schemas, and the
 * decoding of a tools/call's arguments into a typed request for mcp/ops.h.
 *
 * Input schemas are written from the CLI's flags (tables/mcp_args.def); the
 * Outcome and the source envelope are taken from our generated JSON Schema
 * (schemas/machine-protocol.schema.json, embedded at build time), each tool
 * carrying only the definitions it reaches, the destructive request with
 * its recipe and a worked example in its descriptions.  Each description
 * names the `next` variants the tool carries out.  No output schema is
 * listed: a result's structuredContent is the CLI's document, described by
 * the schema served as a resource (slipway://schemas/...). */

#include <stddef.h>

#include "io/adapters/adapter.h"

struct json_t;

/* The tools/list result {"tools":[...]} (new reference), or NULL when out
 * of memory. */
struct json_t *mcp_tools_list(void);

/* Carries out a tools/call with `params` (borrowed).  On success returns 0
 * and *result is the CallToolResult (new reference): structuredContent is
 * the CLI's document, isError true when it is a cliError.  On bad params
 * returns -32602 (or -32603 when out of memory) with `msg` filled and
 * *result NULL.  `root` (may be NULL) is the server's --root; `texts` the
 * capability texts install, list and doctor compare against. */
int mcp_tools_call(struct json_t **result, const struct json_t *params,
		   const char *root, const struct adapter_text *texts, char *msg, size_t msglen);

/* The resource side (resources/list, resources/templates/list,
 * resources/read) reads through the same operations: Run status as
 * slipway://runs/{run_id}, pinned chapters as
 * slipway://runs/{run_id}/sections/{section}, Action materials as
 * slipway://runs/{run_id}/actions/{action_id}/sections/{section}.  Same
 * return contract as mcp_tools_call; a read the CLI refuses is -32002 with
 * the cliError in *error_data (new reference). */
struct json_t *mcp_resources_list(const char *root);
struct json_t *mcp_resource_templates(void);
int mcp_resources_read(struct json_t **result, struct json_t **error_data,
		       const struct json_t *params, const char *root,
		       char *msg, size_t msglen);

#endif
