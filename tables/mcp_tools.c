/* The rows of tables/mcp_tools.def and tables/mcp_args.def. */

#include "tables/mcp_tools.h"

#include <stddef.h>

#define A(x) (1ul << TBL_MCPARG_##x)

_Static_assert(TBL_MCPARG__COUNT <= 8 * sizeof(unsigned long), "argument sets are bit masks");

const struct tbl_mcparg_row tbl_mcpargs[TBL_MCPARG__COUNT] = {
#define MCPARG(id, name, kind, flag, file, in) \
	[TBL_MCPARG_##id] = { name, TBL_MCPKIND_##kind, flag, file, in },
#include "tables/mcp_args.def"
#undef MCPARG
};

const struct tbl_mcptool_row tbl_mcptools[TBL_MCPTOOL__COUNT] = {
#define MCPTOOL(id, name, words, accepts, required, ro) \
	[TBL_MCPTOOL_##id] = { name, words, accepts, required, ro },
#include "tables/mcp_tools.def"
#undef MCPTOOL
};
