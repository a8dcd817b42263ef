/* The POSIX.1-2008 pieces of the OS seam that os_posix.c and os_linux.c
 * share (io/util/os_common.h): the link+unlink rename, the component walk
 * below a root, the buffered copy, the temp-file memfd and the stdout
 * filter, through a temporary file or a stream of the C library.  Compiled strictly
 * (-D_XOPEN_SOURCE=700, no _GNU_SOURCE) in every build. */

#include "io/util/os_common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/buf.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int sw_os__rename_link(int dfd, const char *from, const char *to)
{
	struct stat st;

	if (fstatat(dfd, from, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		/* link() never replaces: the check and the new name are one
		 * step.  A crash before the unlink leaves two names. */
		if (linkat(dfd, from, dfd, to, 0) < 0)
			return -1;
		(void)unlinkat(dfd, from, 0);
		return 0;
	}
	/* A directory cannot be linked.  rename(2) replaces only an empty
	 * directory, so what slips in after this check loses no record. */
	if (fstatat(dfd, to, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		errno = EEXIST;
		return -1;
	}
	if (errno != ENOENT)
		return -1;
	if (renameat(dfd, from, dfd, to) == 0)
		return 0;
	if (errno == ENOTEMPTY)
		errno = EEXIST;
	return -1;
}

int sw_os__beneath_check(const char *rel)
{
	const char *p = rel;

	if (*rel == '/') {
		errno = EXDEV;
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			errno = EXDEV;
			return -1;
		}
		p += n;
		if (*p == '/')
			p++;
	}
	return 0;
}

int sw_os__walk_beneath(int rootfd, const char *rel, int anchor, int last)
{
	char work[PATH_MAX], *p = work, *slash;
	size_t len = strlen(rel);
	int fd;

	anchor |= O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	last |= O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	if (len == 0)
		return openat(rootfd, ".", last);
	if (len >= sizeof(work)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(work, rel, len + 1);
	if ((fd = openat(rootfd, ".", anchor)) < 0)
		return -1;
	for (;;) {
		int next, end;

		if ((slash = strchr(p, '/')) != NULL)
			*slash = '\0';
		end = slash == NULL;
		if (*p == '\0' && !end) {
			p = slash + 1;
			continue;
		}
		next = openat(fd, *p ? p : ".", end ? last : anchor);
		if (next < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		close(fd);
		fd = next;
		if (end)
			return fd;
		p = slash + 1;
	}
}

int sw_os__copy_buffered(int dst, int src, unsigned long long from, size_t len)
{
	char buf[65536];

	while (len > 0) {
		ssize_t n = pread(src, buf, len < sizeof(buf) ? len : sizeof(buf), (off_t)from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;	/* the source is shorter than said */
			return -1;
		}
		if (sw_write_full(dst, buf, (size_t)n) != (size_t)n)
			return -1;
		from += (unsigned long long)n;
		len -= (size_t)n;
	}
	return 0;
}

static int tmp_in(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd, n = snprintf(path, sizeof(path), "%s/.%s-XXXXXX", dir, name);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(path)) < 0)
		return -1;
	if (unlink(path) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;

		(void)unlink(path);
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int sw_os__memfd_tmp(const char *name)
{
	const char *dir = getenv("TMPDIR");
	int fd = -1;

	if (dir != NULL && dir[0] == '/')
		fd = tmp_in(dir, name);
	if (fd < 0)
		fd = tmp_in("/tmp", name);
	return fd;
}

/* ---- stdout through a temporary file ------------------------------------ */

static struct {
	int active;
	int registered;
	int saved;		/* the original stdout, moved aside */
	int tmp;		/* what descriptor 1 writes into meanwhile */
	off_t at;		/* the bytes of tmp already filtered */
	int failed;		/* errno of the first failed write, sticky */
	pid_t owner;		/* the process that began it */
	sw_os_filter_write_fn *write;
	sw_os_filter_end_fn *end;
	void *cookie;
} fdf = { 0, 0, -1, -1, 0, 0, 0, NULL, NULL, NULL };

/* A forked child that calls exit() inherits the handler but not the
 * output: only the process that began the filter ends it. */
static void filter_fd_at_exit(void)
{
	if (fdf.active && fdf.owner == getpid())
		(void)sw_os__filter_fd_end();
}

int sw_os__filter_fd_begin(int (*anon)(const char *name), sw_os_filter_write_fn *write,
			   sw_os_filter_end_fn *end, void *cookie)
{
	int tmp = -1, saved = -1;

	if (fdf.active) {
		errno = EBUSY;
		return -1;
	}
	if (fflush(stdout) == EOF)
		return -1;
	/* The original first: with descriptor 1 closed this fails before
	 * the anonymous file could take its number. */
	if ((saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (tmp = anon("slipway-stdout")) < 0 ||
	    dup2(tmp, STDOUT_FILENO) < 0) {
		int e = errno;

		if (saved >= 0)
			close(saved);
		if (tmp >= 0)
			close(tmp);
		errno = e;
		return -1;
	}
	fdf.saved = saved;
	fdf.tmp = tmp;
	fdf.at = 0;
	fdf.failed = 0;
	fdf.owner = getpid();
	fdf.write = write;
	fdf.end = end;
	fdf.cookie = cookie;
	fdf.active = 1;
	if (!fdf.registered && atexit(filter_fd_at_exit) == 0)
		fdf.registered = 1;
	return 0;
}

/* Passes what descriptor 1 wrote since the last drain through the filter. */
static void drain(void)
{
	char buf[65536];

	if (fflush(stdout) == EOF && fdf.failed == 0)
		fdf.failed = errno ? errno : EIO;
	for (;;) {
		ssize_t n = pread(fdf.tmp, buf, sizeof(buf), fdf.at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0 && fdf.failed == 0)
				fdf.failed = errno;
			return;
		}
		fdf.at += n;
		if (fdf.failed == 0 && fdf.write(fdf.cookie, fdf.saved, buf, (size_t)n) != n)
			fdf.failed = errno ? errno : EIO;
	}
}

int sw_os__filter_fd_flush(void)
{
	if (!fdf.active)
		return fflush(stdout) == EOF ? -1 : 0;
	drain();
	if (fdf.failed != 0) {
		errno = fdf.failed;
		return -1;
	}
	return 0;
}

int sw_os__filter_fd_end(void)
{
	if (!fdf.active)
		return 0;
	drain();
	fdf.active = 0;
	if (fdf.end(fdf.cookie, fdf.saved) < 0 && fdf.failed == 0)
		fdf.failed = errno ? errno : EIO;
	if (dup2(fdf.saved, STDOUT_FILENO) < 0 && fdf.failed == 0)
		fdf.failed = errno;
	close(fdf.saved);
	close(fdf.tmp);
	fdf.saved = fdf.tmp = -1;
	clearerr(stdout);
	if (fdf.failed != 0) {
		errno = fdf.failed;
		return -1;
	}
	return 0;
}

/* ---- the stdout filter as a stream of the C library ------------------- */

static struct {
	FILE **slot;		/* &stdout */
	FILE *was;		/* the stdout put back at the end */
	FILE *filtered;
	sw_os_filter_write_fn *write;
	sw_os_filter_end_fn *end;
	void *cookie;
} sf;

ssize_t sw_os__filter_stream_write(const char *buf, size_t len)
{
	return sf.write(sf.cookie, STDOUT_FILENO, buf, len);
}

int sw_os__filter_stream_close(void)
{
	return sf.end(sf.cookie, STDOUT_FILENO);
}

int sw_os__filter_stream_begin(FILE **slot, FILE *(*open)(void), sw_os_filter_write_fn *write,
			       sw_os_filter_end_fn *end, void *cookie)
{
	FILE *f;

	if (sf.filtered != NULL) {
		errno = EBUSY;
		return -1;
	}
	if (fflush(*slot) == EOF)
		return -1;
	sf.write = write;
	sf.end = end;
	sf.cookie = cookie;
	if ((f = open()) == NULL)
		return -1;
	sf.slot = slot;
	sf.was = *slot;
	sf.filtered = f;
	*slot = f;
	return 0;
}

static int filter_stream_flush(void)
{
	return fflush(stdout) == EOF ? -1 : 0;
}

static int filter_stream_end(void)
{
	FILE *f = sf.filtered;

	if (f == NULL)
		return 0;
	*sf.slot = sf.was;
	sf.filtered = NULL;
	return fclose(f) == 0 ? 0 : -1;	/* flushes, then the close function */
}

/* ---- whichever filter is active ---------------------------------------- */

int sw_os__filter_flush(void)
{
	return sf.filtered != NULL ? filter_stream_flush() : sw_os__filter_fd_flush();
}

int sw_os__filter_end(void)
{
	return sf.filtered != NULL ? filter_stream_end() : sw_os__filter_fd_end();
}
