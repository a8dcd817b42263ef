#ifndef IO_UTIL_OWNED_H
#define IO_UTIL_OWNED_H

/* Files an owner claims to have written, each with the digest of the bytes
 * it wrote: slipway's own install, per host (io/adapters fills it from the
 * ownership manifests; the Run report and the briefs in io/store read it).
 * Plain data, so that neither room reaches the other. */

#include <stddef.h>

#include "io/util/digest.h"

#define SW_OWNED_MAX_GROUPS 16

struct sw_owned_file {
	char *path;			/* repository-relative, owned */
	char sha256[SW_DIGEST_LEN];	/* "sha256:HEX", or "" for any content */
};

struct sw_owned_group {
	const char *owner;		/* static (a host id) */
	struct sw_owned_file *files;	/* owned */
	size_t n;
};

/* Zero-initialise; release with sw_owned_release. */
struct sw_owned {
	struct sw_owned_group groups[SW_OWNED_MAX_GROUPS];
	size_t n;
};

void sw_owned_release(struct sw_owned *o);

/* The owner that wrote `path` with the content digest `content_sha256`
 * ("sha256:HEX", or NULL/"" when unknown: then only a file claimed with any
 * content matches), or NULL.  `o` may be NULL. */
const char *sw_owned_by(const struct sw_owned *o, const char *path, const char *content_sha256);

/* Appends a count of the files `owner` wrote in the words the person's
 * report and the Review and Summarize briefs share: "N files installed by
 * slipway for OWNER (managed files and install records)", so that beside
 * doctor's "M managed files" it says what it counts. */
struct sw_buf;
void sw_owned_count_line(struct sw_buf *b, size_t n, const char *owner);

#endif
