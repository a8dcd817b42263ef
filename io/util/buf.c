/* A growable, NUL-terminated byte string with a sticky allocation
 * failure.  See io/util/buf.h. */

#include "io/util/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io/util/err.h"

void sw_buf_add(struct sw_buf *b, const void *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if ((p = sw_realloc(b->p, cap)) == NULL) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sw_buf_str(struct sw_buf *b, const char *s)
{
	sw_buf_add(b, s, strlen(s));
}

void sw_buf_ch(struct sw_buf *b, char c)
{
	sw_buf_add(b, &c, 1);
}

void sw_buf_fmt(struct sw_buf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		sw_buf_add(b, small, (size_t)n);
		return;
	}
	char *big = sw_malloc((size_t)n + 1);

	if (big == NULL) {
		b->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sw_buf_add(b, big, (size_t)n);
	sw_free(big);
}

char *sw_buf_detach(struct sw_buf *b)
{
	char *out;

	if (!b->failed && b->p == NULL)
		sw_buf_add(b, "", 0);
	if (b->failed) {
		sw_buf_release(b);
		return NULL;
	}
	out = b->p;
	b->p = NULL;
	b->len = b->cap = 0;
	return out;
}

void sw_buf_release(struct sw_buf *b)
{
	sw_free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->failed = 0;
}

size_t sw_write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

size_t sw_pread_full(int fd, void *buf, size_t len, unsigned long long off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}
