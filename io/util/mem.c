/* Plain-C memmem and memrchr (io/util/mem.h). */

#include "io/util/mem.h"

#include <string.h>

const void *sw_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen)
{
	const unsigned char *h = hay, *n = needle, *end;

	if (nlen == 0)
		return hay;
	if (nlen > hlen)
		return NULL;
	/* memchr finds each candidate first byte; memcmp checks the rest. */
	end = h + (hlen - nlen) + 1;
	while (h < end) {
		const unsigned char *c = memchr(h, n[0], (size_t)(end - h));

		if (c == NULL)
			return NULL;
		if (memcmp(c + 1, n + 1, nlen - 1) == 0)
			return c;
		h = c + 1;
	}
	return NULL;
}

const void *sw_memrchr(const void *p, int c, size_t n)
{
	const unsigned char *s = p;

	while (n-- > 0)
		if (s[n] == (unsigned char)c)
			return s + n;
	return NULL;
}
