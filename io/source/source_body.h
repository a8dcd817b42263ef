#ifndef IO_SOURCE_SOURCE_BODY_H
#define IO_SOURCE_SOURCE_BODY_H

/* Body classification of a source envelope (module-internal to
 * io/source/source.c): the level marker, the slipway-manifest fence, stray markers
 * outside Markdown code fences, the manifest rules and each referenced
 * comment's section. */

#include <stddef.h>
#include <stdint.h>

#include "io/util/err.h"
#include "io/source/source.h"

/* One envelope comment, borrowed from the decoded envelope. */
struct source__comment {
	const char *node_id;
	int64_t database_id;
	const char *url;
	const char *author_id;
	const char *updated_at;
	int is_minimized;
	const char *body;
	size_t body_len;
};

/* Classifies the normalized Issue body `body` (`len` bytes) against the
 * comments.  Returns 0 with *code set: SOURCE_CLASS_VALID_CHANGE, after
 * filling `pin`'s manifest_version, profile, parent_requirements_revision,
 * manifest_revision, requirements_revision and sections (with payloads; the
 * caller frees them with pin); or another code with a plain-text reason in
 * `why` (at most `whylen` - 1 bytes) and `pin` untouched.  Negative codes
 * (SW_ENOMEM) for resource failures only. */
int source__classify(struct source_pinned *pin, enum source_class *code,
		     char *why, size_t whylen, const char *body, size_t len,
		     const struct source__comment *comments, size_t ncomments,
		     struct sw_error *err);

/* Frees the strings and payload of one section (not the struct). */
void source__section_release(struct source_section *s);

/* Scans the lines after the manifest fence (`text`, `len` bytes, normalized)
 * for a second manifest fence or a level marker outside Markdown code
 * fences.  Returns 0 if clean, 1 if a stray marker or fence was found (its
 * reason in `why`), SW_ENOMEM on allocation failure.  Exposed for tests. */
int source__scan_after_manifest(const char *text, size_t len, char *why,
				size_t whylen, struct sw_error *err);

#endif
