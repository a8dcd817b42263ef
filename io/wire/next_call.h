#ifndef IO_NEXT_CALL_H
#define IO_NEXT_CALL_H

/* A `next` variant read as the `slipway mcp` tool call that carries out the
 * same operation (tables/mcp_tools.def, tables/mcp_args.def): the tool whose
 * words follow "slipway" in base_argv, each flag of base_argv as the
 * argument it stands for, the run id word as run_id, and each input of the
 * variant as the argument that receives its value (a file input: what the
 * file would hold).  Nothing here runs anything. */

struct json_t;

/* The call for `variant` (a `next.variants[]` element as printed), a new
 * object:
 *
 *	{"variant": ID, "tool": NAME, "arguments": {...},
 *	 "inputs": {INPUT: ARGUMENT, ...}[, "stdin": ARGUMENT]}
 *
 * "stdin" names the argument that carries what the variant's stdin flag
 * would read.  A variant no tool carries out (an unknown command, flag or
 * input) gives {"variant": ID, "tool": null}.  NULL only when out of
 * memory or `variant` is not a variant object. */
struct json_t *next_call(const struct json_t *variant);

#endif
