#ifndef MCP_MESSAGE_H
#define MCP_MESSAGE_H

/* slipway mcp: what one line of input is, in JSON-RPC 2.0 terms.
 *
 * A line is trimmed of JSON whitespace (space, tab, CR, LF) at both ends;
 * a blank line is nothing.  What is left must be one JSON value, or it is
 * a parse error (-32700, id null): a NUL byte, a byte order mark or any
 * other byte that JSON does not allow there included.  Valid JSON that
 * holds what the server cannot take (an integer of 2^63 or more, or below
 * -2^63, anywhere; a NUL, \u0000, in any string or key) is refused with
 * the request's id when the id itself can be read: -32602 when that is in
 * `params`, else -32600. */

#include <stddef.h>

struct json_t;

#define RPC_PARSE_ERROR -32700
#define RPC_INVALID_REQUEST -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS -32602
#define RPC_INTERNAL_ERROR -32603
/* A request other than initialize or ping before initialize succeeded:
 * the code the official MCP TypeScript SDK answers (its -32002 is taken
 * here by "resource not found"). */
#define RPC_NOT_INITIALIZED -32000

enum mcp_message_kind {
	MCP_MESSAGE_NONE,	/* blank, a notification or a response: no reply */
	MCP_MESSAGE_REQUEST,	/* `method`, `params`, `id` are set */
	MCP_MESSAGE_ERROR	/* answer `code` and `why`, with `id` (NULL: null) */
};

struct mcp_message {
	enum mcp_message_kind kind;
	struct json_t *doc;	/* the message as parsed, or NULL */
	struct json_t *id;	/* a new reference, or NULL */
	const char *method;	/* borrowed from doc (NUL-free) */
	struct json_t *params;	/* borrowed from doc, or NULL */
	int code;
	char why[160];
};

/* Reads the `len` bytes of one line (without its newline) into *m, which
 * the caller releases with mcp_message_release.  Returns 0, or -1 when
 * memory ran out (m->kind is then MCP_MESSAGE_ERROR, -32603). */
int mcp_message_read(struct mcp_message *m, const char *line, size_t len);

void mcp_message_release(struct mcp_message *m);

#endif
