#ifndef IO_UTIL_JSON_H
#define IO_UTIL_JSON_H

/* Strict JSON intake shared by the io/ decoders (Outcome, source envelope,
 * ownership manifest).  io-internal: only io/ and cli/ sources include this
 * header, because it hands out Jansson values.
 *
 * Rules, in the order they are checked (each failure is SW_EPARSE, or
 * SW_ETOOBIG for the size, with a message naming the rule):
 *   1. at most `limit` bytes;
 *   2. valid UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF);
 *   3. no UTF-8 byte order mark;
 *   4. not blank;
 *   5. one JSON value: duplicate object keys anywhere, malformed text and
 *      trailing data are rejected.
 * An escaped lone surrogate (\ud800) decodes to U+FFFD, as the reference's
 * decoder does, instead of failing. */

#include <stddef.h>

#include "io/util/err.h"

struct json_t;

/* Parses `len` bytes at `buf`.  On success *out is a new reference the caller
 * releases with json_decref; on failure *out is NULL. */
int sw_json_load_strict(struct json_t **out, const char *buf, size_t len,
			size_t limit, struct sw_error *err);

/* As sw_json_load_strict, but an escaped NUL (\u0000) inside a string is
 * accepted, as the reference's decoder accepts it; the caller must read such
 * strings with json_string_length and reject or handle the NUL itself.  An
 * allocation failure inside the parser is SW_ENOMEM in both functions. */
int sw_json_load_strict_nul(struct json_t **out, const char *buf, size_t len,
			    size_t limit, struct sw_error *err);

/* The length (2..4) of the valid multi-byte UTF-8 sequence at `s`, which
 * has `left` bytes, or 0 (overlong, surrogate, past U+10FFFF, truncated,
 * or not a lead byte). */
size_t sw_utf8_seq(const unsigned char *s, size_t left);

/* The value of hex digit `c` (either case), or -1. */
int sw_hex_digit(int c);

/* 1 if the `len` bytes at `s` are valid UTF-8, else 0. */
int sw_utf8_valid(const char *s, size_t len);

/* Encodes `v` compactly, keys in insertion order, byte for byte as the
 * reference's Go encoder with HTML escaping off: non-ASCII kept as UTF-8
 * except U+2028 and U+2029 (always \u2028, \u2029); `\" \\ \b \f \n \r \t`
 * short; other C0 controls \u00xx in lowercase hex.  Returns a sw_malloc'd
 * string or NULL on ENOMEM. */
char *sw_json_dump(const struct json_t *v);

/* As sw_json_dump with Go's HTML escaping on (json.Marshal): < > & are also
 * written \u003c \u003e \u0026. */
char *sw_json_dump_html(const struct json_t *v);

/* The same bytes (html 0 or 1) from Jansson's dumper and a rewriting pass:
 * the oracle the one-pass encoder of sw_json_dump is tested against, and
 * where it falls back (real numbers, strings that are not UTF-8, deep
 * nesting).  NULL on ENOMEM or where Jansson cannot encode `v`. */
char *sw_json_dump_jansson(const struct json_t *v, int html);

#endif
