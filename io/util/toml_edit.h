#ifndef IO_UTIL_TOML_EDIT_H
#define IO_UTIL_TOML_EDIT_H

/* Finds, adds and removes one table of a TOML document in its text, and
 * keeps every other byte as it was: the user's keys, comments, blank lines,
 * number and string spellings and line ends.  Made for one job: slipway's
 * [mcp_servers.slipway] table in a project's .codex/config.toml.
 *
 * The text is scanned line by line as TOML 1.0 spells it (comments, table
 * and array-of-tables headers, dotted and quoted keys, basic, literal and
 * multi-line strings, arrays and inline tables over several lines,
 * numbers, booleans, dates).  A text the scan cannot follow is SW_EPARSE,
 * with its line, and is never edited.  The scan checks the shape of every
 * line, not every rule of TOML (a duplicate key elsewhere is not found).
 *
 * A table is named by its dotted path of bare keys ("mcp_servers.slipway");
 * a quoted key in the text names the same key as its bare spelling. */

#include <stddef.h>

#include "io/util/err.h"

/* How a document holds the table at a path. */
enum sw_toml_state {
	SW_TOML_ABSENT = 0,	/* nowhere: it may be added */
	SW_TOML_HEADER,		/* one [path] header and the key/value lines under it */
	SW_TOML_OTHER		/* in any other way (dotted keys, an inline table, a
				 * sub-table or array of tables under it, two headers),
				 * or its parent is a value or dotted keys: never edited */
};

struct sw_toml_table {
	enum sw_toml_state state;
	size_t start;		/* SW_TOML_HEADER: where the header line starts */
	size_t end;		/* past the line end of its last line; comment and blank
				 * lines before the next header are not its */
};

/* How `text` holds the table at `path`.  0, SW_EPARSE (err says which
 * line), SW_EINVAL for a path that is not dotted bare keys. */
int sw_toml_find(struct sw_toml_table *out, const char *text, size_t len, const char *path,
		 struct sw_error *err);

/* 1 when the lines of the table `t` found in `text` are exactly `block`
 * (line ends compared as LF), else 0. */
int sw_toml_is(const struct sw_toml_table *t, const char *text, const char *block);

/* `text` with `block` (the [path] header line and its key/value lines, LF
 * line ends, ending with one) appended after a blank line, written with
 * the document's line ends (CRLF when it has any).  The table must be
 * absent (else SW_EINVAL); the result must scan with the table holding
 * exactly `block` (else SW_EPARSE).  *out is sw_malloc'd, NUL-terminated,
 * *out_len bytes; NULL on failure. */
int sw_toml_add(char **out, size_t *out_len, const char *text, size_t len, const char *path,
		const char *block, struct sw_error *err);

/* `text` without the table at `path`, which must hold exactly `block`
 * (else SW_EINVAL), and without the one blank line before its header.  The
 * result must scan with the table absent (else SW_EPARSE). */
int sw_toml_remove(char **out, size_t *out_len, const char *text, size_t len, const char *path,
		   const char *block, struct sw_error *err);

#endif
