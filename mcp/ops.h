#ifndef MCP_OPS_H
#define MCP_OPS_H

/* The one door from the MCP front end to the protocol operations: a typed
 * request in, the document the CLI prints for the same operation and its
 * exit status out.  Nothing else in mcp/ knows how an operation is carried
 * out, so pointing the front end at another implementation of the
 * operations is a change of mcp/ops.c alone.
 *
 * Calling sequence: fill a struct mcp_op_request (mcp_op_request_init),
 * mcp_op_call, read the result, mcp_op_result_release.  Not reentrant: one
 * operation at a time per process. */

#include <stddef.h>

#include "io/adapters/adapter.h"
#include "tables/mcp_tools.h"

/* Borrowed strings; NULL means "not given" (the CLI's flag left out).  The
 * byte strings with a length may hold any bytes the CLI would read from a
 * file or stdin. */
struct mcp_op_request {
	enum tbl_mcptool op;		/* the operation: a tool of tables/mcp_tools.def */
	const char *root;		/* workspace root, or NULL */
	const char *run_id;
	const char *action_id;
	const char *goal;		/* run */
	size_t goal_len;
	int budget_given;		/* run, resume */
	long long budget;
	int no_review;			/* run */
	const char *source_path;	/* run, resume: envelope file */
	const char *source_bytes;	/* run, resume: envelope text */
	size_t source_len;
	const char *outcome;		/* submit: Outcome JSON text */
	size_t outcome_len;
	const char *text;		/* answer */
	size_t text_len;
	int confirm_destructive;	/* answer */
	const char *scope_sha256;	/* answer */
	const char *section;		/* status, material */
	int use_pinned_source;		/* resume */
	const char *source_choice;	/* resume: "pinned" or "adopt" */
	const char *candidate;		/* resume */
	int refresh;			/* install */
	const char *tool;		/* install: the --tool value */
	const char *surface;		/* install */
	int markdown;			/* status: the report as Markdown text */
	int from_candidate;		/* status: a section of the source candidate, as text */
	const struct adapter_text *texts;	/* install, list, doctor: the
						 * capability texts of this build */
};

struct mcp_op_result {
	int exit_status;	/* 0, 2 or 3 as the CLI; 1 for a defect */
	char *document;		/* what the CLI prints: the success document on
				 * exit 0, the cliError otherwise; NUL-terminated,
				 * without the final newline; may be empty on a
				 * defect.  Owned, freed by _release. */
	size_t document_len;
	char *diagnostics;	/* anything else written to stderr (owned) */
};

void mcp_op_request_init(struct mcp_op_request *req);

/* Whether `req` asks for one of the CLI's text forms (status --markdown or
 * --candidate), which answer with text instead of a JSON document. */
int mcp_op_text_form(const struct mcp_op_request *req);

/* Carries out `req`.  Returns 0 with *res filled (whatever the operation's
 * own status), or -1 when the operation could not be started or its output
 * not captured (res->document then empty, exit_status 1).  res is always
 * initialised. */
int mcp_op_call(const struct mcp_op_request *req, struct mcp_op_result *res);

void mcp_op_result_release(struct mcp_op_result *res);

#endif
