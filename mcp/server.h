#ifndef MCP_SERVER_H
#define MCP_SERVER_H

/* slipway mcp: a Model Context Protocol server speaking newline-delimited
 * JSON-RPC 2.0 on two descriptors.
 *
 * Methods: initialize (protocol-version negotiation), ping, tools/list,
 * tools/call, resources/list, resources/templates/list, resources/read;
 * notifications are accepted and never answered.  Before an initialize
 * succeeds, every request but initialize and ping gets -32000 (not
 * initialized).  How a line becomes a message or an error (JSON
 * whitespace, -32700, \u0000, integers past 64 bits) is mcp/message.h; a
 * message that is not a request is -32600, an unknown method -32601, bad
 * params -32602; the server goes on serving after each.  A message longer
 * than MCP_MAX_MESSAGE bytes, ended by a newline or by the end of input, is
 * skipped without being held in memory and answered with -32600.  Logs go
 * to stderr only, a reply that cannot be written among them. */

#include "io/adapters/adapter.h"
#include "io/source/source.h"

/* The largest message: the largest source envelope plus room for the
 * request around it. */
#define MCP_MAX_MESSAGE (SOURCE_MAX_FILE_BYTES + 1048576u)

/* The protocol versions served, newest first. */
extern const char *const mcp_protocol_versions[];

/* Serves requests read from `in_fd` on `out_fd` until end of input.
 * `root` (borrowed, may be NULL) is the workspace root every operation
 * uses; `texts` the capability texts of this build (install, list,
 * doctor).  Returns 0 at end of input, -1 when reading or writing failed
 * (said on stderr). */
int mcp_serve(int in_fd, int out_fd, const char *root, const char *version,
	      const struct adapter_text *texts);

#endif
