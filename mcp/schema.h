#ifndef MCP_SCHEMA_H
#define MCP_SCHEMA_H

/* Schema fragments cut from our embedded JSON Schemas
 * (sw_embedded_schemas, io/util/embedded.h) for the MCP tool definitions. */

#include "io/util/embedded.h"

struct json_t;

/* The definitions `names` (NULL-terminated) reach, as a new "$defs"
 * object, added into `defs` (borrowed, must be an object).  0 or -1. */
int mcp_schema_add_defs(struct json_t *defs, const char *const *names);

#endif
