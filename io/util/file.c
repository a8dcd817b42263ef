/* Bounded reads of a file or a descriptor (see io/util/file.h). */

#include "io/util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


int sw_read_fd(char **out, size_t *out_len, int fd, size_t limit,
		  struct sw_error *err)
{
	char *buf = NULL, *grown;
	size_t cap = 0, len = 0;
	ssize_t n;
	int rc = 0;

	*out = NULL;
	*out_len = 0;
	for (;;) {
		/* Grow to at most limit + 1 bytes: one byte past the limit is
		 * enough to know the input is too large. */
		if (len == cap) {
			size_t want = cap ? cap * 2 : 4096;

			if (want > limit || want < cap)	/* limit + 1 without overflow */
				want = limit < SIZE_MAX - 1 ? limit + 1 : SIZE_MAX - 1;
			if (want <= len) {
				rc = sw_error_set(err, SW_ETOOBIG,
						  "input exceeds %zu bytes", limit);
				goto out;
			}
			if ((grown = sw_realloc(buf, want + 1)) == NULL) {
				rc = sw_error_set(err, SW_ENOMEM, "cannot read input");
				goto out;
			}
			buf = grown;
			cap = want;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = sw_error_sys(err, errno, "cannot read input");
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > limit) {
			rc = sw_error_set(err, SW_ETOOBIG, "input exceeds %zu bytes", limit);
			goto out;
		}
	}
	if (buf == NULL && (buf = sw_malloc(1)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot read input");
		goto out;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	buf = NULL;
out:
	sw_free(buf);
	return rc;
}

int sw_read_stdin(char **out, size_t *out_len, size_t limit,
		     struct sw_error *err)
{
	return sw_read_fd(out, out_len, STDIN_FILENO, limit, err);
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int open_error(const char *path, int e, struct sw_error *err)
{
	if (e == ENOENT || e == ENOTDIR)
		return sw_error_set(err, SW_ENOTFOUND, "cannot open '%s': no such file", path);
	if (e == ELOOP)
		return sw_error_set(err, SW_EUNSAFE,
				    "'%s' must be a regular non-symlink file", path);
	return sw_error_sys(err, e, "cannot open '%s'", path);
}

int sw_read_regular_file(char **out, size_t *out_len, const char *path,
			    size_t limit, struct sw_error *err)
{
	struct stat before, opened, after;
	int fd = -1;
	int rc = 0;

	*out = NULL;
	*out_len = 0;
	if (lstat(path, &before) < 0) {
		rc = open_error(path, errno, err);
		goto out;
	}
	if (!S_ISREG(before.st_mode)) {
		rc = sw_error_set(err, SW_EUNSAFE,
				  "'%s' must be a regular non-symlink file", path);
		goto out;
	}
	/* O_NONBLOCK: if a FIFO replaced the file after lstat, open must not
	 * wait for a writer; the identity check below then refuses it. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rc = open_error(path, errno, err);
		goto out;
	}
	if (fstat(fd, &opened) < 0) {
		rc = sw_error_sys(err, errno, "cannot stat '%s'", path);
		goto out;
	}
	if (lstat(path, &after) < 0) {
		rc = open_error(path, errno, err);
		goto out;
	}
	if (!S_ISREG(opened.st_mode) || !S_ISREG(after.st_mode) ||
	    !same_file(&before, &opened) || !same_file(&before, &after)) {
		rc = sw_error_set(err, SW_EUNSAFE, "'%s' changed while opening", path);
		goto out;
	}
	rc = sw_read_fd(out, out_len, fd, limit, err);
out:
	if (fd >= 0)
		close(fd);
	return rc;
}
