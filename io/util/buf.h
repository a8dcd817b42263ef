#ifndef IO_UTIL_BUF_H
#define IO_UTIL_BUF_H

/* A growable, always NUL-terminated byte string for building output.  The
 * first failed allocation is sticky (`failed`), so a builder appends freely
 * and checks once at the end with sw_buf_detach. */

#include <stddef.h>

struct sw_buf {
	char *p;
	size_t len, cap;
	int failed;
};

#define SW_BUF_INIT { NULL, 0, 0, 0 }

void sw_buf_add(struct sw_buf *b, const void *s, size_t n);
void sw_buf_str(struct sw_buf *b, const char *s);
void sw_buf_ch(struct sw_buf *b, char c);
void sw_buf_fmt(struct sw_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Hands over the string (the caller's, freed with sw_free; "" when nothing
 * was added), or NULL after an allocation failure, which frees it. */
char *sw_buf_detach(struct sw_buf *b);
void sw_buf_release(struct sw_buf *b);

/* pread(2) until `len` bytes at `off` are in buf (EINTR retried); stops
 * early at the end of the file or on an error.  Returns the bytes read. */
size_t sw_pread_full(int fd, void *buf, size_t len, unsigned long long off);

/* write(2) until all `len` bytes of buf are written (EINTR retried); stops
 * early on an error, with errno set (EIO when write(2) wrote nothing).
 * Returns the bytes written: `len` on success. */
size_t sw_write_full(int fd, const void *buf, size_t len);

/* One piece of a file written in order: `len` bytes at `bytes`, or, when
 * `bytes` is NULL, the `len` bytes at offset `from` of the file the write
 * replaces (copied by the kernel, never through this process's memory). */
struct sw_piece {
	const char *bytes;
	size_t len;
	unsigned long long from;
};

#endif
