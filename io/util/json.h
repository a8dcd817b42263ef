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

/* Parses JSON that slipway wrote itself with sw_json_dump and keeps under
 * a digest (the replay checkpoint's Run record): an object or array of
 * objects, arrays, strings, integers, reals, true, false and null, as
 * json_loadb(JSON_REJECT_DUPLICATES) reads it, 2 to 3 times faster (Jansson
 * reads a byte at a time through a callback).  NULL on ENOMEM and on
 * anything it does not take, which the caller handles as a damaged cache;
 * it never accepts a text json_loadb rejects. */
struct json_t *sw_json_load_own(const char *buf, size_t len);

/* The length (2..4) of the valid multi-byte UTF-8 sequence at `s`, which
 * has `left` bytes, or 0 (overlong, surrogate, past U+10FFFF, truncated,
 * or not a lead byte). */
size_t sw_utf8_seq(const unsigned char *s, size_t left);

/* The value of hex digit `c` (either case), or -1. */
int sw_hex_digit(int c);

/* 1 if the `len` bytes at `s` are valid UTF-8, else 0. */
int sw_utf8_valid(const char *s, size_t len);

/* The `len` bytes at `s` with each byte that starts no valid UTF-8
 * sequence replaced by U+FFFD, the string Go's decoder reads back from
 * what its encoder wrote for those bytes: a sw_malloc'd, NUL-terminated
 * copy (*out_len its length when not NULL), or NULL on ENOMEM. */
char *sw_utf8_lossy(const char *s, size_t len, size_t *out_len);

/* A JSON string holding the bytes of the C string `s` as they are, valid
 * UTF-8 or not (text from the system: a path, an errno message), for
 * sw_json_dump to write as Go would.  A new reference, or NULL on ENOMEM
 * (or when `s` is NULL). */
struct json_t *sw_json_text(const char *s);

/* A JSON array of the `n` UTF-8 strings at `v`: a new reference, or NULL
 * on ENOMEM or when one of them is not valid UTF-8. */
struct json_t *sw_json_strings(char *const *v, size_t n);

/* Encodes `v` compactly, keys in insertion order, byte for byte as the
 * reference's Go encoder with HTML escaping off: non-ASCII kept as UTF-8
 * except U+2028 and U+2029 (always \u2028, \u2029); `\" \\ \b \f \n \r \t`
 * short; other C0 controls \u00xx in lowercase hex; in a string or key that
 * is not valid UTF-8 (json_stringn_nocheck, sw_json_text) each byte that
 * starts no valid sequence (Latin-1, stray continuation, overlong,
 * surrogate, past U+10FFFF, truncated) written \ufffd.  Returns a
 * sw_malloc'd string or NULL on ENOMEM. */
char *sw_json_dump(const struct json_t *v);

/* As sw_json_dump with Go's HTML escaping on (json.Marshal): < > & are also
 * written \u003c \u003e \u0026. */
char *sw_json_dump_html(const struct json_t *v);

/* The same bytes (html 0 or 1) from Jansson's dumper and a rewriting pass
 * (for strings that are not UTF-8, Jansson dumps a copy with a marker in
 * place of each invalid byte): the oracle the one-pass encoder of
 * sw_json_dump is tested against, and where it falls back (real numbers,
 * deep nesting).  NULL on ENOMEM or where Jansson cannot encode `v` (a
 * cycle). */
char *sw_json_dump_jansson(const struct json_t *v, int html);

#endif
