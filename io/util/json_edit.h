#ifndef IO_UTIL_JSON_EDIT_H
#define IO_UTIL_JSON_EDIT_H

/* Edits one member of an object in the text of a JSON document and keeps
 * every other byte as it was: the user's numbers (0.3, 1E5, 10000000000),
 * string escapes, key order, spacing and line ends.  A document that is
 * read and written back through Jansson loses those (0.3 comes back as
 * 0.29999999999999999).
 *
 * The object is named by `path`: the root object for depth 0, else the
 * object value of its member path[0], of that one's member path[1], ...
 * An added member goes after the last one, in the layout of the object's
 * members (one per line with their indentation, or on one line); in an
 * empty object it goes on a line of its own, indented two spaces past the
 * object's line.  A removed member takes its separator with it.
 *
 * Each edit is checked before it is returned: the new text must parse
 * (duplicate keys refused) to exactly the original document with the one
 * member added or removed, keys in their order; else SW_EPARSE and no
 * text.  So a document Jansson cannot read (not JSON, duplicate keys, an
 * integer past 64 bits, NUL in a string) is never edited.
 *
 * With SW_JSON_WITH_COMMENTS the text may also hold what JSONC allows
 * (the files of VS Code, OpenCode, Kilo and Qwen Code): // and block
 * comments and a comma after the last element.  They are kept where they
 * are; the document is read and checked as if each were spaces.
 *
 * *out is sw_malloc'd (NUL-terminated, *out_len bytes).  Errors:
 * SW_EPARSE (not a JSON object, unreadable, or the check failed),
 * SW_EINVAL (the path is no object, the member to add is there already or
 * the one to remove is not), SW_ENOMEM. */

#include <stddef.h>

#include "io/util/err.h"

struct json_t;

/* What the text may hold besides JSON. */
enum sw_json_syntax {
	SW_JSON_STRICT = 0,
	SW_JSON_WITH_COMMENTS		/* JSONC: comments and trailing commas */
};

/* A copy of `text` of the same length in which every comment and every
 * comma before a closing bracket is replaced by spaces (line ends kept),
 * so that a JSON parser reads what a JSONC reader reads and every offset
 * still points at the same token.  *out is sw_malloc'd and NUL-terminated.
 * SW_EPARSE for a comment or string that does not end, SW_ENOMEM. */
int sw_json_uncomment(char **out, const char *text, size_t len, struct sw_error *err);

/* Adds member `key` with `value` (borrowed) to the object at `path`. */
int sw_json_edit_add(char **out, size_t *out_len, const char *text, size_t len,
		     enum sw_json_syntax syntax, const char *const *path, size_t depth,
		     const char *key, const struct json_t *value, struct sw_error *err);

/* Removes member `key` from the object at `path`. */
int sw_json_edit_remove(char **out, size_t *out_len, const char *text, size_t len,
			enum sw_json_syntax syntax, const char *const *path, size_t depth,
			const char *key, struct sw_error *err);

#endif
