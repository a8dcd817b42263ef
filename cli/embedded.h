#ifndef CLI_EMBEDDED_H
#define CLI_EMBEDDED_H

#include <stddef.h>

/* A text file embedded into the binary at build time (cli/embed.sh).
 * `bytes` is NUL-terminated; `len` excludes the terminator. */
struct cli_embedded {
	const char *name;
	const char *bytes;
	size_t len;
};

/* Terminated by an entry whose name is NULL. */
extern const struct cli_embedded cli_embedded_files[];

#endif
