#ifndef MCP_SCHEMA_H
#define MCP_SCHEMA_H

/* Our JSON Schemas, embedded at build time (build/gen/mcp_schemas.c), and
 * schema fragments cut from them for the MCP tool definitions. */

#include "cli/embedded.h"

struct json_t;

/* machine-protocol.schema.json and source-envelope.schema.json; terminated
 * by an entry whose name is NULL. */
extern const struct cli_embedded mcp_embedded_schemas[];

/* The definitions `names` (NULL-terminated) reach, as a new "$defs"
 * object, added into `defs` (borrowed, must be an object).  0 or -1. */
int mcp_schema_add_defs(struct json_t *defs, const char *const *names);

#endif
