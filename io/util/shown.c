/* The characters a person sees as "<U+XXXX>".  See io/util/shown.h. */

#include "io/util/shown.h"

#include <string.h>

#include "io/util/buf.h"

int sw_cp_shown_as_code(unsigned cp)
{
	return (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp <= 0x9F) ||
	       cp == 0x061C || cp == 0x200E || cp == 0x200F ||
	       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t sw_utf8_next(const char *s, size_t n, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, i;
	unsigned v;

	if (n == 0)
		return 0;
	*cp = p[0];
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2, v = p[0] & 0x1Fu;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		len = 3, v = p[0] & 0x0Fu;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		len = 4, v = p[0] & 0x07u;
	else
		return 1;
	if (n < len)
		return 1;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 1;
		v = (v << 6) | (p[i] & 0x3Fu);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are no
	 * sequence: their first byte is taken as itself. */
	if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
	    (v >= 0xD800 && v <= 0xDFFF))
		return 1;
	*cp = v;
	return len;
}

void sw_buf_shown(struct sw_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t k = sw_utf8_next(s + i, n - i, &cp);

		if (sw_cp_shown_as_code(cp))
			sw_buf_fmt(b, "<U+%04X>", cp);
		else
			sw_buf_add(b, s + i, k);
		i += k;
	}
}
