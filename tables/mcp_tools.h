#ifndef TABLES_MCP_TOOLS_H
#define TABLES_MCP_TOOLS_H

/* The tools `slipway mcp` serves and the CLI flags their arguments stand
 * for (tables/mcp_tools.def, tables/mcp_args.def): what the MCP front end
 * lists and decodes, and how a `next` variant's argv reads as a tool call
 * (io/wire/next_call.h). */

/* How an argument's JSON value is read. */
enum tbl_mcpkind {
	TBL_MCPKIND_NONE = 0,	/* no argument: the flag is implied */
	TBL_MCPKIND_STRING,	/* a string, the flag's value */
	TBL_MCPKIND_BYTES,	/* a string, the exact bytes of the file or stdin */
	TBL_MCPKIND_SWITCH,	/* true or false: the switch given or not */
	TBL_MCPKIND_INTEGER,	/* an integer */
	TBL_MCPKIND_DOCUMENT,	/* any JSON value, handed over as its JSON text */
	TBL_MCPKIND_SOURCE	/* an envelope object, or a string naming its file */
};

enum tbl_mcparg {
#define MCPARG(id, name, kind, flag, file, in) TBL_MCPARG_##id,
#include "tables/mcp_args.def"
#undef MCPARG
	TBL_MCPARG__COUNT
};

enum tbl_mcptool {
#define MCPTOOL(id, name, words, accepts, required, ro) TBL_MCPTOOL_##id,
#include "tables/mcp_tools.def"
#undef MCPTOOL
	TBL_MCPTOOL__COUNT
};

struct tbl_mcparg_row {
	const char *name;	/* "" for an implied flag */
	enum tbl_mcpkind kind;
	const char *flag;	/* value flag or switch, or NULL */
	const char *file_flag;	/* or NULL */
	const char *stdin_flag;	/* or NULL */
};

struct tbl_mcptool_row {
	const char *name;
	const char *words;	/* e.g. "protocol submit" */
	unsigned long accepts;	/* bit TBL_MCPARG_x */
	unsigned long required;
	int read_only;
};

extern const struct tbl_mcparg_row tbl_mcpargs[TBL_MCPARG__COUNT];
extern const struct tbl_mcptool_row tbl_mcptools[TBL_MCPTOOL__COUNT];

#endif
