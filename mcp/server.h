#ifndef MCP_SERVER_H
#define MCP_SERVER_H

/* slipway mcp: a Model Context Protocol server speaking newline-delimited
 * JSON-RPC 2.0 on two descriptors.
 *
 * Methods: initialize (protocol-version negotiation), ping, tools/list,
 * tools/call, resources/list, resources/templates/list, resources/read;
 * notifications are accepted and never answered.  Malformed JSON is -32700,
 * a message that is not a request -32600, an unknown method -32601, bad
 * params -32602; the server goes on serving after each.  A message longer
 * than MCP_MAX_MESSAGE bytes is skipped without being held in memory and
 * answered with -32600.  Logs go to stderr only. */

#include "io/source/source.h"

/* The largest message: the largest source envelope plus room for the
 * request around it. */
#define MCP_MAX_MESSAGE (SOURCE_MAX_FILE_BYTES + 1048576u)

/* The protocol versions served, newest first. */
extern const char *const mcp_protocol_versions[];

/* Serves requests read from `in_fd` on `out_fd` until end of input.
 * `root` (borrowed, may be NULL) is the workspace root every operation
 * uses.  Returns 0 at end of input, -1 when reading or writing failed. */
int mcp_serve(int in_fd, int out_fd, const char *root, const char *version);

#endif
