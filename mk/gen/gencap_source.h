#ifndef DOCS_GENCAP_SOURCE_H
#define DOCS_GENCAP_SOURCE_H

#include <stdio.h>

/* Sections about the Change Issue format and the source envelope, printed
 * from io/source/source.h and the source tables (mk/gen/gencap_source.c).  Each
 * writes to `out` and returns 0, or -1 after a message on stderr; `arg` is
 * the marker's argument or NULL. */

/* The manifest roles in table order: `a`, `b` and `c`. */
int gencap_source_roles(FILE *out, const char *arg);

/* The first line of the section comment whose key is `arg`. */
int gencap_source_section_marker(FILE *out, const char *arg);

/* The rejection table: one row per line of tables/source_fixes.def, whose
 * fix texts may hold inline markers. */
int gencap_source_rejections(FILE *out, const char *arg);

/* -1 (after naming each on stderr) when a body classification code other
 * than valid_change, or an error code whose wire spelling contains
 * "source", has no row in tables/source_fixes.def. */
int gencap_source_check_fixes(void);

#endif
