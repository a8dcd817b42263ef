/* Files an owner wrote.  See io/util/owned.h. */

#include "io/util/owned.h"

#include <string.h>

#include "io/util/buf.h"
#include "io/util/err.h"

void sw_owned_release(struct sw_owned *o)
{
	if (o == NULL)
		return;
	for (size_t g = 0; g < SW_OWNED_MAX_GROUPS; g++) {
		for (size_t k = 0; k < o->groups[g].n; k++)
			sw_free(o->groups[g].files[k].path);
		sw_free(o->groups[g].files);
	}
	memset(o, 0, sizeof(*o));
}

const char *sw_owned_by(const struct sw_owned *o, const char *path, const char *content_sha256)
{
	for (size_t g = 0; o && path && g < o->n; g++)
		for (size_t k = 0; k < o->groups[g].n; k++) {
			const struct sw_owned_file *f = &o->groups[g].files[k];

			if (f->path && strcmp(f->path, path) == 0 &&
			    (f->sha256[0] == '\0' ||
			     strcmp(f->sha256, content_sha256 ? content_sha256 : "") == 0))
				return o->groups[g].owner;
		}
	return NULL;
}

void sw_owned_count_line(struct sw_buf *b, size_t n, const char *owner)
{
	sw_buf_fmt(b, "%zu file%s installed by slipway for %s (managed files and install records)",
		   n, n == 1 ? "" : "s", owner);
}
