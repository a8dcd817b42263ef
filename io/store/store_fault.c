/* The fault seam: every write, fsync, rename, mkdir, unlink and create of
 * the store is one store__f_* step, which a test build can fail, tear or
 * turn into an exit (store_fault_arm); and the writers below it (whole
 * buffers, pieces, ranges copied by sw_os_copy_range).  Knows no run directory:
 * its callers hand it descriptors and names. */

#include "io/store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io/util/os.h"

#ifdef SW_TESTING
static unsigned fault_kinds;
static unsigned long fault_nth, fault_seen;
static enum store_fault_mode fault_mode;
static int fault_fired;

void store_fault_arm(unsigned kinds, unsigned long nth, enum store_fault_mode mode)
{
	fault_kinds = kinds;
	fault_nth = nth;
	fault_mode = mode;
	fault_seen = 0;
	fault_fired = 0;
}

void store_fault_disarm(void)
{
	fault_kinds = 0;
	fault_nth = 0;
}

unsigned long store_fault_steps(void)
{
	return fault_seen;
}

int store_fault_fired(void)
{
	return fault_fired;
}

void store_test_buffered_copies(bool on)
{
	sw_os_test_buffered_copies(on);
}

/* 0: go on; 1: fail this step; 2: tear this write. */
static int fault_at(unsigned kind)
{
	if (!(fault_kinds & kind) || fault_nth == 0)
		return 0;
	if (++fault_seen != fault_nth)
		return 0;
	fault_fired = 1;
	if (fault_mode == STORE_FAULT_TORN && kind == STORE_STEP_WRITE)
		return 2;
	if (fault_mode != STORE_FAULT_FAIL)
		_exit(STORE_FAULT_EXIT);
	return 1;
}
#else
static int fault_at(unsigned kind)
{
	(void)kind;
	return 0;
}
#endif

/* write(2) until all of buf is written; *done (may be NULL) gets the
 * bytes that reached the file. */
static int write_all(int fd, const char *p, size_t n, size_t *done)
{
	size_t off = sw_write_full(fd, p, n);

	if (done)
		*done = off;
	return off == n ? 0 : -1;
}

/* Writes all of buf, as one write step of the fault seam; *done gets the
 * bytes that reached the file. */
int store__f_write(int fd, const void *buf, size_t n, size_t *done)
{
	int f = fault_at(STORE_STEP_WRITE);

	if (done)
		*done = 0;
	if (f == 1) {
		errno = EIO;
		return -1;
	}
	if (f == 2) {
		ssize_t w = write(fd, buf, n / 2);

		(void)w;
		_exit(STORE_FAULT_EXIT);
	}
	return write_all(fd, buf, n, done);
}

/* writev(2) until every iovec is written (modifies iov). */
static int writev_all(int fd, struct iovec *iov, size_t n)
{
	for (;;) {
		ssize_t w;

		while (n > 0 && iov->iov_len == 0) {
			iov++;
			n--;
		}
		if (n == 0)
			return 0;
		w = writev(fd, iov, (int)n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
}

/* Writes up to `limit` bytes of the pieces in order (ranges of `src` for
 * pieces without bytes), batching the ones in memory. */
static int write_pieces(int fd, const struct sw_piece *pc, size_t n, int src, size_t limit)
{
	for (size_t i = 0; i < n && limit > 0;) {
		if (pc[i].bytes == NULL) {
			size_t take = pc[i].len < limit ? pc[i].len : limit;

			if (sw_os_copy_range(fd, src, pc[i].from, take) < 0)
				return -1;
			limit -= take;
			i++;
			continue;
		}
		{
			struct iovec batch[64];
			size_t nb = 0, total = 0, k = i;

			for (; k < n && nb < 64 && pc[k].bytes != NULL && total < limit; k++) {
				size_t take = pc[k].len < limit - total ? pc[k].len : limit - total;

				batch[nb].iov_base = (void *)pc[k].bytes;
				batch[nb++].iov_len = take;
				total += take;
			}
			if (writev_all(fd, batch, nb) < 0)
				return -1;
			limit -= total;
			i = k;
		}
	}
	return 0;
}

/* Writes the pieces in order, as one write step of the fault seam (a
 * torn write stops halfway through the total). */
int store__f_write_pieces(int fd, const struct sw_piece *pc, size_t n, int src)
{
	size_t total = 0;
	int f = fault_at(STORE_STEP_WRITE);

	for (size_t k = 0; k < n; k++)
		total += pc[k].len;
	if (f == 1) {
		errno = EIO;
		return -1;
	}
	if (f == 2) {
		(void)write_pieces(fd, pc, n, src, total / 2);
		_exit(STORE_FAULT_EXIT);
	}
	return write_pieces(fd, pc, n, src, SIZE_MAX);
}

int store__f_fsync(int fd)
{
	if (fault_at(STORE_STEP_FSYNC)) {
		errno = EIO;
		return -1;
	}
	return sw_os_fsync(fd);
}

/* store__f_fsync for a directory opened for reading. */
int store__f_fsync_dir(int fd)
{
	if (fault_at(STORE_STEP_FSYNC)) {
		errno = EIO;
		return -1;
	}
	return sw_os_fsync_dir(fd);
}

int store__f_rename(int dfd, const char *from, const char *to)
{
	if (fault_at(STORE_STEP_RENAME)) {
		errno = EIO;
		return -1;
	}
	return sw_os_rename_noreplace(dfd, from, to);
}

int store__f_mkdir(int dfd, const char *name)
{
	if (fault_at(STORE_STEP_MKDIR)) {
		errno = EIO;
		return -1;
	}
	return mkdirat(dfd, name, 0700);
}

int store__f_unlink(int dfd, const char *name, int flags)
{
	if (fault_at(STORE_STEP_UNLINK)) {
		errno = EIO;
		return -1;
	}
	return unlinkat(dfd, name, flags);
}

int store__f_create(int dfd, const char *name, int flags)
{
	if (fault_at(STORE_STEP_CREATE)) {
		errno = EIO;
		return -1;
	}
	return openat(dfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600);
}
