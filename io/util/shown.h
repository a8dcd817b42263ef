#ifndef IO_UTIL_SHOWN_H
#define IO_UTIL_SHOWN_H

/* Which characters a person must see as "<U+XXXX>" rather than have a
 * terminal or a renderer act on: the C0 controls but tab and line feed,
 * DEL, the C1 controls, the bidi marks, embeddings, overrides and isolates,
 * and the Unicode line and paragraph separators.  Text from outside
 * slipway (a goal, host text, an answer, a path Git observed, an Issue)
 * could otherwise set a terminal's title, clear its screen, plant links or
 * reorder what the person reads.  The human output filter (cli/cli.c) and
 * the person's report (io/report/) both read this one rule. */

#include <stddef.h>

/* 1 when code point `cp` is shown as "<U+XXXX>". */
int sw_cp_shown_as_code(unsigned cp);

/* The code point of the UTF-8 sequence at `s` (at most `n` bytes) in *cp
 * and its length; a byte that starts no valid sequence is returned as
 * itself with length 1 (callers copy it unchanged).  0 when n == 0. */
size_t sw_utf8_next(const char *s, size_t n, unsigned *cp);

/* Appends `s` to `b` with each code point sw_cp_shown_as_code names
 * written as "<U+XXXX>" (text from outside slipway that slipway's own
 * text, such as a brief, repeats). */
struct sw_buf;
void sw_buf_shown(struct sw_buf *b, const char *s);

#endif
