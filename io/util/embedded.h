#ifndef IO_UTIL_EMBEDDED_H
#define IO_UTIL_EMBEDDED_H

/* Text files embedded into the binary at build time (mk/embed.sh), below
 * both front ends: the capability templates of io/adapters/capabilities/
 * after their markers were expanded (build/gen/capabilities.c), and our
 * JSON Schemas (build/gen/schemas.c).  `bytes` is NUL-terminated; `len`
 * excludes the terminator.  Each table ends with an entry whose name is
 * NULL. */

#include <stddef.h>

struct sw_embedded {
	const char *name;
	const char *bytes;
	size_t len;
};

extern const struct sw_embedded sw_embedded_capabilities[];
extern const struct sw_embedded sw_embedded_schemas[];

#endif
