#ifndef DOCS_GENCAP_SOURCE_H
#define DOCS_GENCAP_SOURCE_H

#include <stddef.h>
#include <stdio.h>

/* Sections about the Change Issue format and the source envelope, printed
 * from io/source/source.h and the source tables (mk/gen/gencap_source.c).  Each
 * writes to `out` and returns 0, or -1 after a message on stderr; `arg` is
 * the marker's argument or NULL. */

/* The manifest roles in table order: `a`, `b` and `c`. */
int gencap_source_roles(FILE *out, const char *arg);

/* The first line of the section comment whose key is `arg`. */
int gencap_source_section_marker(FILE *out, const char *arg);

/* The fix rows of the codes of tables/error_help.def (the source
 * rejection codes among them), one per row in order.  Row `i` (below gencap_source_fix_count()) sets `*code` to the
 * code's wire spelling and `*exit_status` to its exit status, or to 0 for a
 * body classification code, and returns the fix text, which may hold inline
 * markers: the caller (mk/gen/gencap.c) expands them. */
size_t gencap_source_fix_count(void);
const char *gencap_source_fix_row(size_t i, const char **code, int *exit_status);

/* -1 (after naming each on stderr) when a body classification code other
 * than valid_change, or an error code whose wire spelling contains
 * "source", has no row in tables/error_help.def. */
int gencap_source_check_fixes(void);

#endif
