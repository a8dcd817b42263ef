#ifndef IO_UTIL_OS_COMMON_H
#define IO_UTIL_OS_COMMON_H

/* The POSIX.1-2008 pieces that both implementations of the OS seam
 * (io/util/os.h) build on: os_posix.c as its way of doing things,
 * os_linux.c as its fallback where the kernel or the C library refuses the
 * Linux call.  Only io/util/os_*.c include this header. */

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "io/util/os.h"

/* sw_os_rename_noreplace's POSIX promise (see os.h): linkat + unlinkat
 * for a non-directory, a check + renameat for a directory. */
int sw_os__rename_link(int dfd, const char *from, const char *to);

/* 0 when `rel` is relative and has no ".." component, else -1 with
 * errno EXDEV (what openat2's RESOLVE_BENEATH answers). */
int sw_os__beneath_check(const char *rel);

/* sw_os_open_beneath's walk: opens each component of `rel` below
 * `rootfd` with `anchor` | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, and the
 * last with `last` | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC.  `rel` has
 * passed sw_os__beneath_check. */
int sw_os__walk_beneath(int rootfd, const char *rel, int anchor, int last);

/* sw_os_copy_range through a 64 KiB buffer (pread, write). */
int sw_os__copy_buffered(int dst, int src, unsigned long long from, size_t len);

/* sw_os_memfd's POSIX promise: mkstemp in $TMPDIR or /tmp, unlinked,
 * FD_CLOEXEC. */
int sw_os__memfd_tmp(const char *name);

/* sw_os_filter_stdout's POSIX promise for a stdout that cannot be
 * replaced: descriptor 1 on an anonymous file from `anon` (the
 * implementation's sw_os_memfd, passed in so that this file calls nothing
 * of theirs), filtered at each flush and at the end (or at exit). */
int sw_os__filter_fd_begin(int (*anon)(const char *name), sw_os_filter_write_fn *write,
			   sw_os_filter_end_fn *end, void *cookie);
int sw_os__filter_fd_flush(void);
int sw_os__filter_fd_end(void);

/* sw_os_filter_stdout for a C library whose stdout can be assigned and
 * that makes a FILE over functions (glibc's fopencookie, the BSDs'
 * funopen): `open` makes that FILE, writing through
 * sw_os__filter_stream_write and closing through
 * sw_os__filter_stream_close; `slot` is &stdout.  The flush is fflush. */
int sw_os__filter_stream_begin(FILE **slot, FILE *(*open)(void), sw_os_filter_write_fn *write,
			       sw_os_filter_end_fn *end, void *cookie);
ssize_t sw_os__filter_stream_write(const char *buf, size_t len);
int sw_os__filter_stream_close(void);

/* sw_os_filter_stdout_flush and sw_os_filter_stdout_end of whichever
 * filter began (the stream or the descriptor one; without a filter, a
 * plain fflush and 0). */
int sw_os__filter_flush(void);
int sw_os__filter_end(void);

#endif
