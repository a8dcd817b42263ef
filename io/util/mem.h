#ifndef IO_UTIL_MEM_H
#define IO_UTIL_MEM_H

/* Byte-string searches that C11 and POSIX.1-2008 lack: glibc and the BSDs
 * have memmem (and glibc memrchr) as extensions, macOS has no memrchr, so
 * the tree uses these plain-C versions everywhere (no system call, no
 * extension: not part of the OS seam, io/util/os.h). */

#include <stddef.h>

/* The first occurrence of the `nlen` bytes at `needle` in the `hlen` bytes
 * at `hay`, or NULL.  An empty needle is found at `hay` (as memmem does);
 * a needle longer than the haystack is never found.  Borrowed: the result
 * points into `hay`. */
const void *sw_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen);

/* The last byte equal to `c` (converted to unsigned char) in the `n` bytes
 * at `p`, or NULL (also for n == 0).  Borrowed: points into `p`. */
const void *sw_memrchr(const void *p, int c, size_t n);

#endif
