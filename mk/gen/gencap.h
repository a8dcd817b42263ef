#ifndef DOCS_GENCAP_H
#define DOCS_GENCAP_H

#include <stdio.h>

/* Expands the capability text template `in` (see mk/gen/gencap.c for the
 * markers) into the file `out`, written whole through a rename, or to
 * stdout when `out` is NULL.  Returns 0, or 1 after a message on stderr
 * naming the file and line when a marker is unknown, unclosed or has the
 * wrong argument, an example Outcome is refused by the validator, a source
 * rejection code has no fix row, or a file cannot be read or written; on 1
 * nothing is written. */
int gencap_expand(const char *in, const char *out);

/* Prints example Outcome `name` (one of the capability texts' examples,
 * decoded by io/outcome.c first) as a ```json block preceded by the
 * comment `<!-- example: outcome KIND -->`; 0, or -1 after a message. */
int gencap_example_block(FILE *out, const char *name);

#endif
