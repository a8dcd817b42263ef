#ifndef MCP_TOOL_RESULT_H
#define MCP_TOOL_RESULT_H

/* One operation's answer in MCP terms, shared by tools and resources. */

struct json_t;
struct mcp_op_request;

/* The answer of one operation: its exit status, the printed document as
 * text (owned, sw_free) and parsed (new reference; NULL when the text is
 * not JSON, as after a defect). */
struct mcp_answer {
	int exit_status;
	char *text;
	struct json_t *doc;
};

/* Carries out `req` through mcp/ops.h.  0, or -1 when out of memory or the
 * operation could not be run (a->text then says why). */
int mcp_answer_of(struct mcp_answer *a, const struct mcp_op_request *req);
void mcp_answer_release(struct mcp_answer *a);

/* The CallToolResult for `req` (new reference): content holds the document
 * as text, structuredContent the document, isError whether it is the CLI's
 * error document, and, when the document's `next` has variants,
 * _meta["slipway/next"] the tool call of each (io/wire/next_call.h); when
 * the Run is paused, _meta["slipway/pending"] the question or destructive
 * request it waits on; for the text forms of status,
 * _meta["slipway/content-type"] "text/markdown".  NULL when out of memory. */
struct json_t *mcp_tool_result_of(const struct mcp_op_request *req);

#endif
