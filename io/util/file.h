#ifndef IO_UTIL_FILE_H
#define IO_UTIL_FILE_H

/* Bounded reads of a host's file or of a descriptor, shared by every room
 * of io/ that reads what a host or a user hands over (goal, answer and
 * Outcome files, source envelopes, MCP configuration files). */

#include <stddef.h>

#include "io/util/err.h"

/* Reads the regular file at `path`, at most `limit` bytes.
 *
 * The file must be a regular file reached without following a symlink, and
 * the same file (device and inode) at lstat, at open (O_NOFOLLOW, fstat) and
 * at a second lstat afterwards.  On success *out is a sw_malloc'd buffer of
 * *out_len bytes plus a terminating NUL (the content may hold NULs itself);
 * the caller frees it with sw_free.
 *
 * Errors: SW_ETOOBIG when the file holds more than `limit` bytes; SW_ENOMEM;
 * every other code (SW_ENOTFOUND, SW_EUNSAFE for a symlink, a non-regular
 * file or an identity change, SW_EIO with sys_errno) means "unavailable"
 * (goal_unavailable, outcome_unavailable, answer_unavailable). */
int sw_read_regular_file(char **out, size_t *out_len, const char *path,
			    size_t limit, struct sw_error *err);

/* Reads file descriptor `fd` to its end, at most `limit` bytes; the same
 * ownership and SW_ETOOBIG / SW_ENOMEM / SW_EIO codes as above.  The
 * descriptor is neither closed nor required to be a regular file. */
int sw_read_fd(char **out, size_t *out_len, int fd, size_t limit,
		  struct sw_error *err);

/* sw_read_fd() on standard input. */
int sw_read_stdin(char **out, size_t *out_len, size_t limit,
		     struct sw_error *err);

#endif
