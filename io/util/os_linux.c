/* The OS seam on Linux (io/util/os.h): the calls only Linux or glibc has,
 * each with the POSIX way (io/util/os_common.c) as its fallback where the
 * kernel or the file system refuses it.  The only file of the tree that
 * asks for _GNU_SOURCE.  Kernel interfaces newer than the C library
 * (renameat2, getdents64, openat2) go through syscall(2), so glibc and
 * musl build the same file. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "io/util/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "io/util/err.h"
#include "io/util/os_common.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)	/* linux/fs.h */
#endif

const char *sw_os_name(void)
{
	return "linux";
}

/* ---- names ------------------------------------------------------------ */

int sw_os_rename_noreplace(int dfd, const char *from, const char *to)
{
#ifdef SYS_renameat2
	if (syscall(SYS_renameat2, dfd, from, dfd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	/* A file system without RENAME_NOREPLACE. */
	return sw_os__rename_link(dfd, from, to);
}

/* ---- directories ------------------------------------------------------ */

int sw_os_open_anchor(int dfd, const char *name)
{
	return openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* 1 while openat2(2) may be tried: cleared when the kernel lacks it. */
static int openat2_usable = 1;

int sw_os_open_beneath(int rootfd, const char *rel, unsigned how)
{
	int last = how & SW_OS_BENEATH_ANCHOR ? O_PATH : O_RDONLY;

	if (sw_os__beneath_check(rel) < 0)
		return -1;
	if (rel[0] == '\0')
		return openat(rootfd, ".", last | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
#ifdef SYS_openat2
	if (!(how & SW_OS_BENEATH_WALK) && __atomic_load_n(&openat2_usable, __ATOMIC_RELAXED)) {
		struct open_how oh = {
			.flags = (uint64_t)(last | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		long r = syscall(SYS_openat2, rootfd, rel, &oh, sizeof(oh));

		if (r >= 0)
			return (int)r;
		if (errno != ENOSYS && errno != EPERM && errno != EAGAIN)
			return -1;
		/* No openat2 here (ENOSYS), a filter refused it (EPERM: some
		 * container runtimes), or a rename raced a ".." (EAGAIN): walk
		 * the components instead. */
		if (errno == ENOSYS)
			__atomic_store_n(&openat2_usable, 0, __ATOMIC_RELAXED);
	}
#endif
	return sw_os__walk_beneath(rootfd, rel, O_PATH, last);
}

/* The kernel's record for getdents64(2) (linux/dirent.h has none for user
 * space; glibc's struct dirent64 is the same layout, musl has none). */
struct kdirent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define DIRENT_BUF 32768

struct sw_os_dir {
	int fd;
	size_t off, got;
	char buf[DIRENT_BUF];
};

int sw_os_dir_open(struct sw_os_dir **out, int fd)
{
	struct sw_os_dir *d = sw_malloc(sizeof(*d));

	*out = NULL;
	if (d == NULL) {
		errno = ENOMEM;
		return -1;
	}
	d->fd = fd;
	d->off = d->got = 0;
	*out = d;
	return 0;
}

static enum sw_os_ftype ftype(unsigned char t)
{
	switch (t) {
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
}

int sw_os_dir_next(struct sw_os_dir *d, struct sw_os_dirent *ent)
{
	for (;;) {
		const struct kdirent *k;

		if (d->off >= d->got) {
			long n = syscall(SYS_getdents64, d->fd, d->buf, sizeof(d->buf));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n == 0 ? 0 : -1;
			d->got = (size_t)n;
			d->off = 0;
		}
		k = (const struct kdirent *)(d->buf + d->off);
		d->off += k->d_reclen;
		if (strcmp(k->d_name, ".") == 0 || strcmp(k->d_name, "..") == 0)
			continue;
		ent->name = k->d_name;
		ent->type = ftype(k->d_type);
		return 1;
	}
}

void sw_os_dir_free(struct sw_os_dir *d)
{
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
	return fsync(fd);
}

int sw_os_fsync_dir(int fd)
{
	return fsync(fd);
}

#ifdef SW_TESTING
static int buffered_copies;

void sw_os_test_buffered_copies(int on)
{
	buffered_copies = on;
}
#else
#define buffered_copies 0
#endif

int sw_os_copy_range(int dst, int src, unsigned long long from, size_t len)
{
	loff_t at = (loff_t)from;

	while (len > 0 && !buffered_copies) {
		ssize_t n = copy_file_range(src, &at, dst, NULL, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP || errno == EBADF))
			break;	/* the kernel refuses: copy the rest through memory */
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;	/* the source is shorter than said */
			return -1;
		}
		len -= (size_t)n;
	}
	return len > 0 ? sw_os__copy_buffered(dst, src, (unsigned long long)at, len) : 0;
}

/* ---- descriptors ------------------------------------------------------ */

int sw_os_memfd(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0 && errno == ENOSYS)
		return sw_os__memfd_tmp(name);
	return fd;
}

int sw_os_pipe_cloexec(int fds[2])
{
	return pipe2(fds, O_CLOEXEC);
}

/* ---- the system ------------------------------------------------------- */

int sw_os_random(void *buf, size_t n)
{
	unsigned char *b = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(b + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

void sw_os_boot_id(char *out, size_t n)
{
	char raw[64];
	ssize_t got;
	size_t k = 0, hex = 0;
	int fd;

	if (n == 0)
		return;
	out[0] = '\0';
	if ((fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	got = read(fd, raw, sizeof(raw) - 1);
	close(fd);
	/* The UUID, without its newline; anything else is "unknown". */
	for (ssize_t i = 0; i < got; i++) {
		char c = raw[i];

		if (c == '\n' && i == got - 1)
			break;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-') || k + 1 >= n) {
			k = 0;
			break;
		}
		hex += c != '-';
		out[k++] = c;
	}
	out[hex == 32 ? k : 0] = '\0';
}

struct timespec sw_os_st_mtim(const struct stat *st)
{
	return st->st_mtim;
}

struct timespec sw_os_st_ctim(const struct stat *st)
{
	return st->st_ctim;
}

void sw_os_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t page = 4096;
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(page - 1);

	if (p != NULL && n >= (256u << 10) && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

void *sw_os_map_file(int fd, size_t len)
{
	void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);

	return map == MAP_FAILED ? NULL : map;
}

#ifdef SW_TESTING
static int test_caller = -1, test_placed = -1, test_first = -1;

void sw_os_test_last_start(int *caller, int *placed, int *first)
{
	*caller = __atomic_load_n(&test_caller, __ATOMIC_SEQ_CST);
	*placed = __atomic_load_n(&test_placed, __ATOMIC_SEQ_CST);
	*first = __atomic_load_n(&test_first, __ATOMIC_SEQ_CST);
}
#endif

#ifdef __GLIBC__
/* What a placed thread needs before it runs fn, in one of a few static
 * slots: a malloc or free of its own would make glibc give the new thread
 * an arena first (a 128 MiB reservation, 0.4 ms here).  With every slot
 * taken, the thread is started unplaced. */
struct placed {
	void *(*fn)(void *);
	void *arg;
	cpu_set_t all;		/* the CPUs the process may use */
	int busy;
};

static struct placed placed_slot[16];

static void *placed_run(void *p)
{
	struct placed *slot = p;
	void *(*fn)(void *) = slot->fn;
	void *arg = slot->arg;

#ifdef SW_TESTING
	__atomic_store_n(&test_first, sched_getcpu(), __ATOMIC_SEQ_CST);
#endif
	(void)pthread_setaffinity_np(pthread_self(), sizeof(slot->all), &slot->all);
	__atomic_store_n(&slot->busy, 0, __ATOMIC_RELEASE);
	return fn(arg);
}

/* The CPU thread k of the caller's (on `cur`) starts on: the (k+1)-th of
 * the n in `all` after `cur`, cyclically, for k < n-1; -1 (the scheduler
 * decides) for the others. */
static int placed_cpu(const cpu_set_t *all, int cur, unsigned k)
{
	unsigned seen = 0;

	if (cur < 0 || cur >= CPU_SETSIZE || !CPU_ISSET(cur, all))
		return -1;
	for (int c = (cur + 1) % CPU_SETSIZE; c != cur; c = (c + 1) % CPU_SETSIZE)
		if (CPU_ISSET(c, all) && seen++ == k)
			return c;
	return -1;
}
#endif

#ifdef SW_TESTING
int sw_os_test_placed_cpu(const int *cpus, int n, int cur, unsigned k)
{
#ifdef __GLIBC__
	cpu_set_t all;

	CPU_ZERO(&all);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], &all);
	return placed_cpu(&all, cur, k);
#else
	(void)cpus;
	(void)n;
	(void)cur;
	(void)k;
	return -1;
#endif
}
#endif

int sw_os_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, unsigned k)
{
#ifdef __GLIBC__
	struct placed *pl = NULL;
	pthread_attr_t at;
	cpu_set_t one;
	int cur = -1, cpu = -1, rc = -1;

#ifdef SW_TESTING
	__atomic_store_n(&test_caller, -1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&test_placed, -1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&test_first, -1, __ATOMIC_SEQ_CST);
#endif
	for (size_t i = 0; i < sizeof(placed_slot) / sizeof(placed_slot[0]) && pl == NULL; i++)
		if (__atomic_exchange_n(&placed_slot[i].busy, 1, __ATOMIC_ACQUIRE) == 0)
			pl = &placed_slot[i];
	if (pl == NULL)
		return pthread_create(t, NULL, fn, arg);
	pl->fn = fn;
	pl->arg = arg;
	if (sched_getaffinity(0, sizeof(pl->all), &pl->all) == 0 &&
	    (cpu = placed_cpu(&pl->all, cur = sched_getcpu(), k)) >= 0 &&
	    pthread_attr_init(&at) == 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (pthread_attr_setaffinity_np(&at, sizeof(one), &one) == 0)
			rc = pthread_create(t, &at, placed_run, pl);
		pthread_attr_destroy(&at);
	}
#ifdef SW_TESTING
	__atomic_store_n(&test_caller, cur, __ATOMIC_SEQ_CST);
	__atomic_store_n(&test_placed, rc == 0 ? cpu : -1, __ATOMIC_SEQ_CST);
#endif
	if (rc == 0)
		return 0;
	__atomic_store_n(&pl->busy, 0, __ATOMIC_RELEASE);
#else
	(void)k;
#endif
	return pthread_create(t, NULL, fn, arg);
}

/* ---- the stdout filter ------------------------------------------------ */

#ifdef __GLIBC__
static ssize_t cookie_write(void *c, const char *buf, size_t len)
{
	(void)c;
	return sw_os__filter_stream_write(buf, len);
}

static int cookie_close(void *c)
{
	(void)c;
	return sw_os__filter_stream_close();
}

static FILE *cookie_open(void)
{
	static const cookie_io_functions_t io = { NULL, cookie_write, NULL, cookie_close };

	return fopencookie(NULL, "w", io);
}

int sw_os_filter_stdout(sw_os_filter_write_fn *write, sw_os_filter_end_fn *end, void *cookie)
{
	/* glibc's stdout is a plain variable */
	return sw_os__filter_stream_begin(&stdout, cookie_open, write, end, cookie);
}
#else
/* musl's stdout is a const pointer: the POSIX way. */
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
