/* The OS seam in POSIX.1-2008 (io/util/os.h), built for every system but
 * Linux, and on Linux with PORTABLE=1 so that the tests run it.  The few
 * calls a system has beyond POSIX are #ifdef'd by that system: macOS
 * (compiled by make check-macos, not yet run there) and the BSDs (not
 * compiled here: a port starts by building this file). */

#if defined(__APPLE__) && !defined(_DARWIN_C_SOURCE)
/* Apple's headers hide O_NOFOLLOW, funopen, sysctl and F_FULLFSYNC under
 * _XOPEN_SOURCE without it. */
#define _DARWIN_C_SOURCE 1
#endif
#if defined(__FreeBSD__) || defined(__DragonFly__) || defined(__NetBSD__) || defined(__OpenBSD__)
/* The BSDs show their own calls (funopen, getentropy) only without it. */
#undef _XOPEN_SOURCE
#undef _POSIX_C_SOURCE
#endif

#include "io/util/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__DragonFly__) || \
	defined(__NetBSD__) || defined(__OpenBSD__)
#define HAVE_BSD_SYSCTL 1
#include <sys/sysctl.h>
#include <sys/time.h>
#endif
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__)
#define HAVE_GETENTROPY 1	/* macOS 10.12, FreeBSD 12, OpenBSD 5.6 */
#endif
#ifdef __APPLE__
#include <sys/random.h>		/* getentropy */
#endif
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__DragonFly__)
#define HAVE_FUNOPEN 1		/* and a stdout that can be assigned */
#endif

#include "io/util/err.h"
#include "io/util/os_common.h"

const char *sw_os_name(void)
{
	return "posix";
}

/* ---- names ------------------------------------------------------------ */

int sw_os_rename_noreplace(int dfd, const char *from, const char *to)
{
	return sw_os__rename_link(dfd, from, to);
}

/* ---- directories ------------------------------------------------------ */

#ifdef O_SEARCH
#define ANCHOR_FLAGS O_SEARCH
#else
#define ANCHOR_FLAGS O_RDONLY
#endif

int sw_os_open_anchor(int dfd, const char *name)
{
	return openat(dfd, name, ANCHOR_FLAGS | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int sw_os_open_beneath(int rootfd, const char *rel, unsigned how)
{
	if (sw_os__beneath_check(rel) < 0)
		return -1;
	return sw_os__walk_beneath(rootfd, rel, ANCHOR_FLAGS,
				   how & SW_OS_BENEATH_ANCHOR ? ANCHOR_FLAGS : O_RDONLY);
}

struct sw_os_dir {
	DIR *dir;
};

int sw_os_dir_open(struct sw_os_dir **out, int fd)
{
	struct sw_os_dir *d = sw_malloc(sizeof(*d));
	int dup_fd;

	*out = NULL;
	if (d == NULL) {
		errno = ENOMEM;
		return -1;
	}
	/* closedir closes the descriptor fdopendir took: give it a copy. */
	if ((dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		sw_free(d);
		return -1;
	}
	if ((d->dir = fdopendir(dup_fd)) == NULL) {
		int e = errno;

		close(dup_fd);
		sw_free(d);
		errno = e;
		return -1;
	}
	*out = d;
	return 0;
}

/* d_type and DT_* are not POSIX: used where the headers have them. */
static enum sw_os_ftype ftype(const struct dirent *de)
{
#if defined(DT_UNKNOWN) && defined(DT_REG) && defined(DT_DIR) && defined(DT_LNK)
	switch (de->d_type) {
	case DT_REG:
		return SW_OS_FT_REG;
	case DT_DIR:
		return SW_OS_FT_DIR;
	case DT_LNK:
		return SW_OS_FT_LNK;
	case DT_UNKNOWN:
		return SW_OS_FT_UNKNOWN;
	default:
		return SW_OS_FT_OTHER;
	}
#else
	(void)de;
	return SW_OS_FT_UNKNOWN;
#endif
}

int sw_os_dir_next(struct sw_os_dir *d, struct sw_os_dirent *ent)
{
	for (;;) {
		struct dirent *de;

		errno = 0;
		if ((de = readdir(d->dir)) == NULL)
			return errno == 0 ? 0 : -1;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		ent->name = de->d_name;
		ent->type = ftype(de);
		return 1;
	}
}

void sw_os_dir_free(struct sw_os_dir *d)
{
	if (d == NULL)
		return;
	closedir(d->dir);
	sw_free(d);
}

int sw_os_lock(int fd, unsigned op)
{
	int how = (op & 3) == SW_OS_LOCK_EX ? LOCK_EX : (op & 3) == SW_OS_LOCK_SH ? LOCK_SH : LOCK_UN;

	return flock(fd, how | (op & SW_OS_LOCK_NB ? LOCK_NB : 0));
}

/* ---- durability ------------------------------------------------------- */

int sw_os_fsync(int fd)
{
#ifdef F_FULLFSYNC
	/* macOS: fsync leaves the data in the drive's cache; F_FULLFSYNC
	 * flushes it, where the file system supports it. */
	if (fcntl(fd, F_FULLFSYNC) == 0)
		return 0;
#endif
	return fsync(fd);
}

int sw_os_fsync_dir(int fd)
{
	return sw_os_fsync(fd);
}

#ifdef SW_TESTING
void sw_os_test_buffered_copies(int on)
{
	(void)on;	/* every copy is buffered here */
}
#endif

int sw_os_copy_range(int dst, int src, unsigned long long from, size_t len)
{
	return sw_os__copy_buffered(dst, src, from, len);
}

/* ---- descriptors ------------------------------------------------------ */

int sw_os_memfd(const char *name)
{
	return sw_os__memfd_tmp(name);
}

int sw_os_pipe_cloexec(int fds[2])
{
	if (pipe(fds) < 0)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	return 0;
}

/* ---- the system ------------------------------------------------------- */

int sw_os_random(void *buf, size_t n)
{
	unsigned char *b = buf;
#ifdef HAVE_GETENTROPY
	while (n > 0) {
		size_t k = n < 256 ? n : 256;	/* getentropy's limit */

		if (getentropy(b, k) < 0)
			return -1;
		b += k;
		n -= k;
	}
	return 0;
#else
	struct stat st;
	size_t got = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode)) {
		close(fd);
		errno = EIO;
		return -1;
	}
	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r == 0 ? EIO : errno;
			close(fd);
			errno = e;
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	return 0;
#endif
}

#ifdef HAVE_BSD_SYSCTL
/* The boot's time, as 32 hex digits. */
static void boottime_id(char *out, size_t n)
{
	int mib[2] = { CTL_KERN, KERN_BOOTTIME };
	struct timeval tv;
	size_t len = sizeof(tv);

	if (sysctl(mib, 2, &tv, &len, NULL, 0) == 0 && len == sizeof(tv) && tv.tv_sec > 0)
		snprintf(out, n, "%016llx%016llx", (unsigned long long)tv.tv_sec,
			 (unsigned long long)tv.tv_usec);
	if (strlen(out) != 32)
		out[0] = '\0';
}
#endif

/* Linux's boot id where the file is there (Linux with PORTABLE=1; a
 * plain file read, harmless elsewhere): a UUID, kept only with its 32 hex
 * digits. */
static void proc_boot_id(char *out, size_t n)
{
	char raw[64];
	size_t k = 0, hex = 0;
	ssize_t got;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	got = read(fd, raw, sizeof(raw) - 1);
	close(fd);
	for (ssize_t i = 0; i < got && k + 1 < n; i++) {
		char c = raw[i];

		if (c == '\n')
			break;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-'))
			return;
		hex += c != '-';
		out[k++] = c;
	}
	out[hex == 32 ? k : 0] = '\0';
}

void sw_os_boot_id(char *out, size_t n)
{
	if (n == 0)
		return;
	out[0] = '\0';
#ifdef __APPLE__
	{
		char uuid[64];
		size_t len = sizeof(uuid), hex = 0, k = 0;

		if (sysctlbyname("kern.bootsessionuuid", uuid, &len, NULL, 0) == 0 &&
		    len > 0 && len <= sizeof(uuid) && uuid[len - 1] == '\0') {
			for (size_t i = 0; uuid[i] != '\0' && k + 1 < n; i++) {
				char c = uuid[i];

				if (c >= 'A' && c <= 'F')
					c = (char)(c - 'A' + 'a');
				if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-'))
					break;
				hex += c != '-';
				out[k++] = c;
			}
			out[hex == 32 ? k : 0] = '\0';
			if (out[0] != '\0')
				return;
		}
	}
#endif
#ifdef HAVE_BSD_SYSCTL
	boottime_id(out, n);
#endif
	if (out[0] == '\0')
		proc_boot_id(out, n);
}

struct timespec sw_os_st_mtim(const struct stat *st)
{
#ifdef __APPLE__
	return st->st_mtimespec;
#else
	return st->st_mtim;
#endif
}

struct timespec sw_os_st_ctim(const struct stat *st)
{
#ifdef __APPLE__
	return st->st_ctimespec;
#else
	return st->st_ctim;
#endif
}

void sw_os_prefault(void *p, size_t n)
{
	(void)p;
	(void)n;
}

int sw_os_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, unsigned k)
{
	(void)k;
	return pthread_create(t, NULL, fn, arg);
}

#ifdef SW_TESTING
int sw_os_test_placed_cpu(const int *cpus, int n, int cur, unsigned k)
{
	(void)cpus;
	(void)n;
	(void)cur;
	(void)k;
	return -1;
}

void sw_os_test_last_start(int *caller, int *placed, int *first)
{
	*caller = *placed = *first = -1;
}
#endif

void *sw_os_map_file(int fd, size_t len)
{
	void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);

	if (map == MAP_FAILED)
		return NULL;
	(void)posix_madvise(map, len, POSIX_MADV_WILLNEED);
	return map;
}

/* ---- the stdout filter ------------------------------------------------ */

#ifdef HAVE_FUNOPEN
static int funopen_write(void *c, const char *buf, int len)
{
	ssize_t r;

	(void)c;
	r = sw_os__filter_stream_write(buf, (size_t)len);
	return r < 0 ? -1 : (int)r;
}

static int funopen_close(void *c)
{
	(void)c;
	return sw_os__filter_stream_close();
}

static FILE *funopen_open(void)
{
	return funopen(NULL, NULL, funopen_write, NULL, funopen_close);
}

int sw_os_filter_stdout(sw_os_filter_write_fn *write, sw_os_filter_end_fn *end, void *cookie)
{
	/* an lvalue on macOS and FreeBSD (__stdoutp) */
	return sw_os__filter_stream_begin(&stdout, funopen_open, write, end, cookie);
}
#else
int sw_os_filter_stdout(sw_os_filter_write_fn *write, sw_os_filter_end_fn *end, void *cookie)
{
	return sw_os__filter_fd_begin(sw_os_memfd, write, end, cookie);
}
#endif

int sw_os_filter_stdout_flush(void)
{
	return sw_os__filter_flush();
}

int sw_os_filter_stdout_end(void)
{
	return sw_os__filter_end();
}
