#ifndef MCP_TOOLS_H
#define MCP_TOOLS_H

/* The MCP tools: one per protocol operation, their input and output
 * schemas, and the decoding of a tools/call's arguments into a typed
 * request for mcp/ops.h.
 *
 * Input schemas are written here from the CLI's flags; the Outcome, the
 * source envelope and every output document are taken from our generated
 * JSON Schema (schemas/machine-protocol.schema.json, embedded at build
 * time), each tool carrying only the definitions it reaches. */

#include <stddef.h>

struct json_t;

/* The tools/list result {"tools":[...]} (new reference), or NULL when out
 * of memory. */
struct json_t *mcp_tools_list(void);

/* Carries out a tools/call with `params` (borrowed).  On success returns 0
 * and *result is the CallToolResult (new reference): structuredContent is
 * the CLI's document, isError true when it is a cliError.  On bad params
 * returns -32602 (or -32603 when out of memory) with `msg` filled and
 * *result NULL.  `root` (may be NULL) is the server's --root. */
int mcp_tools_call(struct json_t **result, const struct json_t *params,
		   const char *root, char *msg, size_t msglen);

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
