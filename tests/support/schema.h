#ifndef TESTS_SUPPORT_SCHEMA_H
#define TESTS_SUPPORT_SCHEMA_H

#include <stddef.h>

/* Test helper: validates `json` against the reference schema's $defs entry
 * `defname` with Debian's python3-jsonschema.  Returns 1 when valid; on
 * failure writes the reason into `why`. */
int schema_valid(const char *defname, const char *json, char *why, size_t whylen);

#endif
