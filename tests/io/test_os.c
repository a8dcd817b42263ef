/* The OS seam (io/util/os.h), run against the implementation this build
 * links (io/util/os_linux.c, or io/util/os_posix.c with PORTABLE=1), and
 * the shared POSIX pieces (io/util/os_common.h) that Linux falls back on,
 * so both ways run in every build. */

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/util/err.h"
#include "io/util/os.h"
#include "io/util/os_common.h"
#include "tests/support/tmp.h"

static char g_root[PATH_MAX];
static int g_fd = -1;

static void scratch_init(void)
{
	test_tmp_name(g_root, sizeof(g_root), "sw-os-XXXXXX");
	cr_assert_not_null(mkdtemp(g_root));
	g_fd = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(g_fd, 0);
	sw_alloc_init();
}

static void scratch_fini(void)
{
	char cmd[PATH_MAX + 32];

	close(g_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", g_root);
}

TestSuite(io_os, .init = scratch_init, .fini = scratch_fini);

static void put(const char *name, const char *text)
{
	int fd = openat(g_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", name, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* The text of file `name` (a static buffer), or NULL when it is missing. */
static const char *get(const char *name)
{
	static char buf[256];
	int fd = openat(g_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

static int exists(const char *name)
{
	struct stat st;

	return fstatat(g_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void mkdirs(const char *name)
{
	cr_assert_eq(mkdirat(g_fd, name, 0700), 0, "%s: %s", name, strerror(errno));
}

/* ---- rename without replacing ---------------------------------------- */

typedef int rename_fn(int dfd, const char *from, const char *to);

static void rename_refuses_an_existing_file(rename_fn *rn)
{
	put("a", "A");
	put("b", "B");
	errno = 0;
	cr_assert_eq(rn(g_fd, "a", "b"), -1);
	cr_assert_eq(errno, EEXIST, "%s", strerror(errno));
	cr_assert_str_eq(get("a"), "A");
	cr_assert_str_eq(get("b"), "B");
	/* Onto a symlink, even a dangling one: refused, the link kept. */
	cr_assert_eq(symlinkat("nowhere", g_fd, "l"), 0);
	cr_assert_eq(rn(g_fd, "a", "l"), -1);
	cr_assert_eq(errno, EEXIST);
	cr_assert_str_eq(get("a"), "A");
}

static void rename_moves_a_file_to_a_free_name(rename_fn *rn)
{
	struct stat before, after;

	put("a", "A");
	cr_assert_eq(fstatat(g_fd, "a", &before, 0), 0);
	cr_assert_eq(rn(g_fd, "a", "c"), 0, "%s", strerror(errno));
	cr_assert(!exists("a"));
	cr_assert_str_eq(get("c"), "A");
	cr_assert_eq(fstatat(g_fd, "c", &after, 0), 0);
	cr_assert_eq(before.st_ino, after.st_ino);
	cr_assert_eq(after.st_nlink, 1);
	/* A symlink moves as itself. */
	cr_assert_eq(symlinkat("c", g_fd, "l"), 0);
	cr_assert_eq(rn(g_fd, "l", "m"), 0);
	cr_assert_eq(fstatat(g_fd, "m", &after, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert(S_ISLNK(after.st_mode));
	cr_assert_str_eq(get("c"), "A");
}

static void rename_refuses_an_existing_directory(rename_fn *rn)
{
	mkdirs("d1");
	put("d1/x", "X");
	mkdirs("d2");
	put("d2/y", "Y");
	mkdirs("empty");
	put("f", "F");
	cr_assert_eq(rn(g_fd, "d1", "d2"), -1);
	cr_assert_eq(errno, EEXIST, "%s", strerror(errno));
	cr_assert_eq(rn(g_fd, "d1", "empty"), -1);	/* even an empty one */
	cr_assert_eq(errno, EEXIST, "%s", strerror(errno));
	cr_assert_eq(rn(g_fd, "d1", "f"), -1);
	cr_assert_eq(errno, EEXIST, "%s", strerror(errno));
	cr_assert_str_eq(get("d1/x"), "X");
	cr_assert_str_eq(get("d2/y"), "Y");
	cr_assert_str_eq(get("f"), "F");
	cr_assert(exists("empty"));
}

static void rename_moves_a_directory_to_a_free_name(rename_fn *rn)
{
	mkdirs("d1");
	put("d1/x", "X");
	cr_assert_eq(rn(g_fd, "d1", "d3"), 0, "%s", strerror(errno));
	cr_assert(!exists("d1"));
	cr_assert_str_eq(get("d3/x"), "X");
}

Test(io_os, rename_noreplace_refuses_an_existing_file_and_loses_nothing)
{
	rename_refuses_an_existing_file(sw_os_rename_noreplace);
}

Test(io_os, rename_noreplace_moves_a_file_to_a_free_name)
{
	rename_moves_a_file_to_a_free_name(sw_os_rename_noreplace);
}

Test(io_os, rename_noreplace_refuses_an_existing_directory_and_loses_nothing)
{
	rename_refuses_an_existing_directory(sw_os_rename_noreplace);
}

Test(io_os, rename_noreplace_moves_a_directory_to_a_free_name)
{
	rename_moves_a_directory_to_a_free_name(sw_os_rename_noreplace);
}

/* The POSIX way (link + unlink, check + rename), which Linux falls back
 * on where the file system has no RENAME_NOREPLACE. */
Test(io_os, posix_rename_refuses_an_existing_file_and_loses_nothing)
{
	rename_refuses_an_existing_file(sw_os__rename_link);
}

Test(io_os, posix_rename_moves_a_file_to_a_free_name)
{
	rename_moves_a_file_to_a_free_name(sw_os__rename_link);
}

Test(io_os, posix_rename_refuses_an_existing_directory_and_loses_nothing)
{
	rename_refuses_an_existing_directory(sw_os__rename_link);
}

Test(io_os, posix_rename_moves_a_directory_to_a_free_name)
{
	rename_moves_a_directory_to_a_free_name(sw_os__rename_link);
}

Test(io_os, rename_noreplace_of_a_missing_name_fails_with_enoent)
{
	put("b", "B");
	cr_assert_eq(sw_os_rename_noreplace(g_fd, "nothing", "b"), -1);
	cr_assert_eq(errno, ENOENT);
	cr_assert_eq(sw_os__rename_link(g_fd, "nothing", "c"), -1);
	cr_assert_eq(errno, ENOENT);
	cr_assert_str_eq(get("b"), "B");
}

/* ---- anchors and walks ------------------------------------------------ */

static int is_symlink_refusal(int e)
{
	return e == ELOOP || e == ENOTDIR;
}

Test(io_os, anchor_opens_a_directory_and_refuses_a_symlink_or_a_file)
{
	struct stat st;
	int fd;

	mkdirs("real");
	put("real/x", "X");
	put("f", "F");
	cr_assert_eq(symlinkat("real", g_fd, "link"), 0);
	fd = sw_os_open_anchor(g_fd, "real");
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_assert_eq(fstatat(fd, "x", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	cr_assert_eq(sw_os_open_anchor(g_fd, "link"), -1);
	cr_assert(is_symlink_refusal(errno), "%s", strerror(errno));
	cr_assert_eq(sw_os_open_anchor(g_fd, "f"), -1);
	cr_assert_eq(errno, ENOTDIR);
	fd = sw_os_open_anchor(g_fd, ".");
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstatat(fd, "f", &st, 0), 0);
	close(fd);
}

static void beneath_cases(unsigned walk)
{
	struct stat st;
	int fd;

	mkdirs("a");
	mkdirs("a/b");
	mkdirs("a/b/c");
	put("a/b/c/f", "F");
	cr_assert_eq(symlinkat("a", g_fd, "s"), 0);
	cr_assert_eq(symlinkat("c", g_fd, "a/b/t"), 0);
	/* A path of directories: listed, or as an anchor. */
	fd = sw_os_open_beneath(g_fd, "a/b/c", SW_OS_BENEATH_LIST | walk);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_assert_eq(fstatat(fd, "f", &st, 0), 0);
	close(fd);
	fd = sw_os_open_beneath(g_fd, "a/b/c", SW_OS_BENEATH_ANCHOR | walk);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_assert_eq(fstatat(fd, "f", &st, 0), 0);
	close(fd);
	/* "" is the root; an empty component is skipped. */
	fd = sw_os_open_beneath(g_fd, "", walk);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstatat(fd, "a/b/c/f", &st, 0), 0);
	close(fd);
	fd = sw_os_open_beneath(g_fd, "a//b", walk);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	close(fd);
	/* A symlink first, in the middle or last. */
	cr_assert_eq(sw_os_open_beneath(g_fd, "s/b/c", walk), -1);
	cr_assert(is_symlink_refusal(errno), "%s", strerror(errno));
	cr_assert_eq(sw_os_open_beneath(g_fd, "a/b/t", walk), -1);
	cr_assert(is_symlink_refusal(errno), "%s", strerror(errno));
	cr_assert_eq(sw_os_open_beneath(g_fd, "s", SW_OS_BENEATH_ANCHOR | walk), -1);
	cr_assert(is_symlink_refusal(errno), "%s", strerror(errno));
	/* Never above the root. */
	cr_assert_eq(sw_os_open_beneath(g_fd, "a/../a", walk), -1);
	cr_assert_eq(errno, EXDEV);
	cr_assert_eq(sw_os_open_beneath(g_fd, "..", walk), -1);
	cr_assert_eq(errno, EXDEV);
	cr_assert_eq(sw_os_open_beneath(g_fd, "/tmp", walk), -1);
	cr_assert_eq(errno, EXDEV);
	/* A file, a missing name. */
	cr_assert_eq(sw_os_open_beneath(g_fd, "a/b/c/f", walk), -1);
	cr_assert_eq(errno, ENOTDIR);
	cr_assert_eq(sw_os_open_beneath(g_fd, "a/nothing", walk), -1);
	cr_assert_eq(errno, ENOENT);
}

Test(io_os, open_beneath_refuses_a_symlink_on_the_way_and_the_way_up)
{
	beneath_cases(0);
}

Test(io_os, open_beneath_walk_refuses_a_symlink_on_the_way_and_the_way_up)
{
	beneath_cases(SW_OS_BENEATH_WALK);
}

/* ---- listing a directory ---------------------------------------------- */

#define NFILES 1500	/* names of 40 bytes: several getdents64 buffers */

static enum sw_os_ftype lstat_type(int dfd, const char *name)
{
	struct stat st;

	cr_assert_eq(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW), 0, "%s", name);
	return S_ISREG(st.st_mode) ? SW_OS_FT_REG : S_ISDIR(st.st_mode) ? SW_OS_FT_DIR :
	       S_ISLNK(st.st_mode) ? SW_OS_FT_LNK : SW_OS_FT_OTHER;
}

Test(io_os, dir_reader_lists_every_entry_once_with_its_type)
{
	static unsigned char seen[NFILES];
	int seen_dir = 0, seen_link = 0, seen_fifo = 0, fd, r;
	struct sw_os_dir *d = NULL;
	struct sw_os_dirent ent;
	char name[64];

	mkdirs("list");
	for (int i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "list/file-%034d", i);
		put(name, "");
	}
	mkdirs("list/sub");
	cr_assert_eq(symlinkat("sub", g_fd, "list/link"), 0);
	cr_assert_eq(mkfifoat(g_fd, "list/fifo", 0600), 0);
	fd = sw_os_open_beneath(g_fd, "list", SW_OS_BENEATH_LIST);
	cr_assert_geq(fd, 0);
	cr_assert_eq(sw_os_dir_open(&d, fd), 0, "%s", strerror(errno));
	while ((r = sw_os_dir_next(d, &ent)) == 1) {
		enum sw_os_ftype want = lstat_type(fd, ent.name);
		int i;

		cr_assert(ent.type == SW_OS_FT_UNKNOWN || ent.type == want,
			  "%s: type %d, lstat %d", ent.name, ent.type, want);
		if (strcmp(ent.name, "sub") == 0) {
			seen_dir++;
		} else if (strcmp(ent.name, "link") == 0) {
			seen_link++;
		} else if (strcmp(ent.name, "fifo") == 0) {
			seen_fifo++;
		} else {
			cr_assert_eq(sscanf(ent.name, "file-%d", &i), 1, "%s", ent.name);
			cr_assert(i >= 0 && i < NFILES);
			seen[i]++;
		}
	}
	cr_assert_eq(r, 0, "%s", strerror(errno));
	sw_os_dir_free(d);
	cr_assert_eq(seen_dir + seen_link + seen_fifo, 3);
	for (int i = 0; i < NFILES; i++)
		cr_assert_eq(seen[i], 1, "file-%d seen %d times", i, seen[i]);
	/* The caller's descriptor is still open and still its own. */
	cr_assert_neq(fcntl(fd, F_GETFD), -1);
	close(fd);
	sw_os_dir_free(NULL);
}

Test(io_os, dir_reader_of_an_empty_directory_ends_at_once)
{
	struct sw_os_dir *d = NULL;
	struct sw_os_dirent ent;
	int fd;

	mkdirs("empty");
	fd = sw_os_open_beneath(g_fd, "empty", SW_OS_BENEATH_LIST);
	cr_assert_geq(fd, 0);
	cr_assert_eq(sw_os_dir_open(&d, fd), 0);
	cr_assert_eq(sw_os_dir_next(d, &ent), 0);
	sw_os_dir_free(d);
	close(fd);
}

/* ---- locks, syncs, copies --------------------------------------------- */

Test(io_os, lock_excludes_a_second_open_of_the_directory)
{
	int a = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int b = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(a, 0);
	cr_assert_geq(b, 0);
	cr_assert_eq(sw_os_lock(a, SW_OS_LOCK_EX | SW_OS_LOCK_NB), 0);
	cr_assert_eq(sw_os_lock(b, SW_OS_LOCK_SH | SW_OS_LOCK_NB), -1);
	cr_assert(errno == EWOULDBLOCK || errno == EAGAIN, "%s", strerror(errno));
	cr_assert_eq(sw_os_lock(a, SW_OS_LOCK_UN), 0);
	cr_assert_eq(sw_os_lock(b, SW_OS_LOCK_SH | SW_OS_LOCK_NB), 0);
	cr_assert_eq(sw_os_lock(a, SW_OS_LOCK_SH | SW_OS_LOCK_NB), 0);
	close(a);
	close(b);
}

Test(io_os, fsync_and_fsync_dir_succeed)
{
	int f, d;

	put("f", "F");
	f = openat(g_fd, "f", O_WRONLY | O_CLOEXEC);
	d = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_eq(sw_os_fsync(f), 0, "%s", strerror(errno));
	cr_assert_eq(sw_os_fsync_dir(d), 0, "%s", strerror(errno));
	close(f);
	close(d);
	cr_assert_eq(sw_os_fsync(-1), -1);
	cr_assert_eq(errno, EBADF);
}

typedef int copy_fn(int dst, int src, unsigned long long from, size_t len);

static void copy_cases(copy_fn *copy)
{
	enum { N = 200000, AT = 12345, LEN = 100000 };
	unsigned char *src_bytes = malloc(N), *got = malloc(4 + LEN + 1);
	int src = openat(g_fd, "src", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int dst = openat(g_fd, "dst", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert(src >= 0 && dst >= 0 && src_bytes && got);
	for (int i = 0; i < N; i++)
		src_bytes[i] = (unsigned char)(i * 7 + i / 251);
	cr_assert_eq(write(src, src_bytes, N), N);
	cr_assert_eq(write(dst, "HEAD", 4), 4);
	cr_assert_eq(copy(dst, src, AT, LEN), 0, "%s", strerror(errno));
	cr_assert_eq(lseek(dst, 0, SEEK_CUR), 4 + LEN);	/* dst's position advanced */
	cr_assert_eq(lseek(src, 0, SEEK_CUR), N);	/* src's did not move */
	cr_assert_eq(pread(dst, got, 4 + LEN + 1, 0), 4 + LEN);
	cr_assert_eq(memcmp(got, "HEAD", 4), 0);
	cr_assert_eq(memcmp(got + 4, src_bytes + AT, LEN), 0);
	/* Nothing to copy; past the end of the source. */
	cr_assert_eq(copy(dst, src, 0, 0), 0);
	cr_assert_eq(copy(dst, src, N - 10, 20), -1);
	cr_assert_eq(errno, EIO);
	close(src);
	close(dst);
	free(src_bytes);
	free(got);
}

Test(io_os, copy_range_copies_exactly_the_range)
{
	copy_cases(sw_os_copy_range);
}

Test(io_os, buffered_copy_range_copies_exactly_the_range)
{
	sw_os_test_buffered_copies(1);
	copy_cases(sw_os_copy_range);
	sw_os_test_buffered_copies(0);
	copy_cases(sw_os__copy_buffered);
}

/* ---- descriptors ------------------------------------------------------ */

static void memfd_cases(int fd)
{
	char buf[16] = "";
	struct stat st;

	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_assert_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_size, 0);
	cr_assert_eq(write(fd, "hello", 5), 5);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(read(fd, buf, sizeof(buf)), 5);
	cr_assert_str_eq(buf, "hello");
	close(fd);
}

Test(io_os, memfd_is_readable_after_lseek_and_closed_on_exec)
{
	memfd_cases(sw_os_memfd("sw-test"));
}

Test(io_os, posix_memfd_leaves_no_name_in_tmpdir)
{
	struct sw_os_dir *d = NULL;
	struct sw_os_dirent ent;
	struct stat st;
	int fd;

	cr_assert_eq(setenv("TMPDIR", g_root, 1), 0);
	fd = sw_os__memfd_tmp("sw-test");
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_nlink, 0);
	cr_assert_eq(sw_os_dir_open(&d, g_fd), 0);
	cr_assert_eq(sw_os_dir_next(d, &ent), 0, "left behind: %s", ent.name);
	sw_os_dir_free(d);
	memfd_cases(fd);
	/* A $TMPDIR that cannot be written: /tmp instead. */
	cr_assert_eq(setenv("TMPDIR", "/nonexistent/dir", 1), 0);
	memfd_cases(sw_os__memfd_tmp("sw-test"));
}

Test(io_os, pipe_ends_are_closed_on_exec)
{
	int fds[2];
	char c = 0;

	cr_assert_eq(sw_os_pipe_cloexec(fds), 0);
	cr_assert_eq(fcntl(fds[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	cr_assert_eq(fcntl(fds[1], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	cr_assert_eq(write(fds[1], "x", 1), 1);
	cr_assert_eq(read(fds[0], &c, 1), 1);
	cr_assert_eq(c, 'x');
	close(fds[0]);
	close(fds[1]);
}

/* ---- the system ------------------------------------------------------- */

Test(io_os, random_bytes_fill_the_buffer_and_differ)
{
	unsigned char a[1000], b[1000];
	size_t zero = 0;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	cr_assert_eq(sw_os_random(a, sizeof(a)), 0);	/* past 256-byte pieces */
	cr_assert_eq(sw_os_random(b, sizeof(b)), 0);
	cr_assert_neq(memcmp(a, b, sizeof(a)), 0);
	for (size_t i = 0; i < sizeof(a); i++)
		zero += a[i] == 0;
	cr_assert_lt(zero, 30);	/* about 4 expected */
	cr_assert_eq(sw_os_random(a, 0), 0);
}

static int boot_id_well_formed(const char *id)
{
	size_t hex = 0;

	for (const char *p = id; *p; p++) {
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
			hex++;
		else if (*p != '-')
			return 0;
	}
	return hex == 32;
}

Test(io_os, boot_id_is_a_uuid_on_linux_and_stable)
{
	char id[64], again[64], tiny[8];

	sw_os_boot_id(id, sizeof(id));
	sw_os_boot_id(again, sizeof(again));
	cr_assert_str_eq(id, again);
	if (strcmp(sw_os_name(), "linux") == 0) {
		cr_assert_eq(strlen(id), 36, "'%s'", id);
		cr_assert(id[8] == '-' && id[13] == '-' && id[18] == '-' && id[23] == '-', "%s", id);
		cr_assert(boot_id_well_formed(id), "%s", id);
	} else {
		/* Linux's file where there is one (PORTABLE=1 on Linux), the
		 * system's where it has one, else "" (unknown). */
		cr_assert(id[0] == '\0' || boot_id_well_formed(id), "%s", id);
	}
	memset(tiny, 'x', sizeof(tiny));
	sw_os_boot_id(tiny, sizeof(tiny));
	cr_assert_str_eq(tiny, "");	/* too small: unknown, never cut */
}

Test(io_os, stat_times_are_the_ones_set)
{
	struct timespec times[2] = { { 1000000000, 123456789 }, { 1234567890, 987654321 } };
	struct timespec m, c;
	struct stat st;

	put("f", "F");
	cr_assert_eq(utimensat(g_fd, "f", times, 0), 0);
	cr_assert_eq(fstatat(g_fd, "f", &st, 0), 0);
	m = sw_os_st_mtim(&st);
	c = sw_os_st_ctim(&st);
	cr_assert_eq(m.tv_sec, 1234567890);
	cr_assert_eq(m.tv_nsec, 987654321);
	cr_assert_gt(c.tv_sec, 1234567890);	/* now */
}

Test(io_os, map_file_maps_the_bytes_and_prefault_is_harmless)
{
	size_t n = 1u << 20;
	char *p = malloc(n);
	const char *map;
	int fd;

	cr_assert_not_null(p);
	sw_os_prefault(p, n);
	memset(p, 'z', n);
	sw_os_prefault(NULL, 0);
	free(p);
	put("f", "mapped bytes");
	fd = openat(g_fd, "f", O_RDONLY | O_CLOEXEC);
	map = sw_os_map_file(fd, 12);
	close(fd);
	cr_assert_not_null(map, "%s", strerror(errno));
	cr_assert_eq(memcmp(map, "mapped bytes", 12), 0);
	munmap((void *)map, 12);
}

/* ---- where a new thread starts --------------------------------------- */

Test(io_os, placement_takes_the_cpus_after_the_callers_and_leaves_the_rest_to_the_scheduler)
{
	const int two[] = { 0, 1 }, gaps[] = { 0, 2, 5 }, one[] = { 3 }, wrap[] = { 4, 1023 };

	if (strcmp(sw_os_name(), "linux") != 0) {
		/* POSIX never places a thread. */
		cr_assert_eq(sw_os_test_placed_cpu(two, 2, 0, 0), -1);
		return;
	}
	cr_assert_eq(sw_os_test_placed_cpu(two, 2, 0, 0), 1);
	cr_assert_eq(sw_os_test_placed_cpu(two, 2, 1, 0), 0);
	cr_assert_eq(sw_os_test_placed_cpu(two, 2, 0, 1), -1);	/* k = n-1: one past */
	cr_assert_eq(sw_os_test_placed_cpu(two, 2, 0, UINT_MAX), -1);
	cr_assert_eq(sw_os_test_placed_cpu(gaps, 3, 2, 0), 5);
	cr_assert_eq(sw_os_test_placed_cpu(gaps, 3, 2, 1), 0);	/* k = n-2: the limit */
	cr_assert_eq(sw_os_test_placed_cpu(gaps, 3, 2, 2), -1);
	cr_assert_eq(sw_os_test_placed_cpu(gaps, 3, 5, 0), 0);
	cr_assert_eq(sw_os_test_placed_cpu(gaps, 3, 5, 1), 2);
	cr_assert_eq(sw_os_test_placed_cpu(gaps, 3, 0, 0), 2);
	cr_assert_eq(sw_os_test_placed_cpu(gaps, 3, 1, 0), -1);	/* not one of them */
	cr_assert_eq(sw_os_test_placed_cpu(gaps, 3, -1, 0), -1);	/* unknown */
	cr_assert_eq(sw_os_test_placed_cpu(one, 1, 3, 0), -1);
	cr_assert_eq(sw_os_test_placed_cpu(wrap, 2, 1023, 0), 4);
	cr_assert_eq(sw_os_test_placed_cpu(wrap, 2, 4, 0), 1023);
}

struct ran {
	int cpu;
	cpu_set_t mask;
};

static void *note_run(void *arg)
{
	struct ran *r = arg;

	r->cpu = sched_getcpu();
	cr_assert_eq(pthread_getaffinity_np(pthread_self(), sizeof(r->mask), &r->mask), 0);
	return arg;
}

Test(io_os, a_started_thread_runs_on_a_cpu_it_was_placed_on_then_free_to_move)
{
	const unsigned ks[] = { 0, 1, 2, 7, UINT_MAX };
	cpu_set_t all;
	int n;

	cr_assert_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	n = CPU_COUNT(&all);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		struct ran r = { -1 };
		int caller, placed, first;
		pthread_t t;
		void *back = NULL;

		cr_assert_eq(sw_os_thread_start(&t, note_run, &r, ks[i]), 0);
		cr_assert_eq(pthread_join(t, &back), 0);
		cr_assert_eq(back, &r, "k %u", ks[i]);
		/* It runs fn with every CPU the process may use. */
		cr_assert(CPU_EQUAL(&r.mask, &all), "k %u", ks[i]);
		cr_assert(r.cpu >= 0 && CPU_ISSET(r.cpu, &all), "k %u", ks[i]);
		sw_os_test_last_start(&caller, &placed, &first);
		if (strcmp(sw_os_name(), "linux") != 0 || n < 2 || ks[i] >= (unsigned)(n - 1)) {
			cr_assert_eq(placed, -1, "k %u of %d CPUs", ks[i], n);
			cr_assert_eq(first, -1, "k %u", ks[i]);
			continue;
		}
		{
			int cpus[CPU_SETSIZE], m = 0;

			for (int c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &all))
					cpus[m++] = c;
			cr_assert_eq(placed, sw_os_test_placed_cpu(cpus, m, caller, ks[i]),
				     "k %u", ks[i]);
		}
		cr_assert_neq(placed, caller, "k %u", ks[i]);
		/* Pinned until it ran: where it first ran is where it was put. */
		cr_assert_eq(first, placed, "k %u", ks[i]);
	}
	if (strcmp(sw_os_name(), "linux") == 0 && n < 2)
		cr_skip_test("one CPU: no thread is placed");
}

/* ---- the stdout filter ------------------------------------------------ */

struct upper {
	char seen[256];	/* every piece, in order */
	size_t nseen;
	int ended;
};

/* Writes the bytes upper-cased; a '|' is held until the next piece or the
 * end, so a "sequence" split between two pieces must still come out in
 * order. */
static ssize_t upper_write(void *cookie, int fd, const char *buf, size_t len)
{
	struct upper *u = cookie;
	char out[256];

	cr_assert_eq(u->ended, 0);
	cr_assert_lt(u->nseen + len, sizeof(u->seen));
	memcpy(u->seen + u->nseen, buf, len);
	u->nseen += len;
	for (size_t i = 0; i < len && i < sizeof(out); i++)
		out[i] = buf[i] >= 'a' && buf[i] <= 'z' ? (char)(buf[i] - 'a' + 'A') : buf[i];
	return write(fd, out, len) == (ssize_t)len ? (ssize_t)len : -1;
}

static int upper_end(void *cookie, int fd)
{
	struct upper *u = cookie;

	u->ended++;
	return write(fd, "<end>", 5) == 5 ? 0 : -1;
}

/* Points descriptor 1 at `name` (or at /dev/full); returns the original. */
static int stdout_to(const char *path)
{
	int saved = dup(STDOUT_FILENO);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert(saved >= 0 && fd >= 0);
	fflush(stdout);
	cr_assert_geq(dup2(fd, STDOUT_FILENO), 0);
	close(fd);
	return saved;
}

static void stdout_back(int saved)
{
	fflush(stdout);
	cr_assert_geq(dup2(saved, STDOUT_FILENO), 0);
	close(saved);
}

Test(io_os, filter_stdout_passes_every_byte_through_the_filter_in_order)
{
	struct upper u = { "", 0, 0 };
	char path[PATH_MAX + 8], got[256] = "";
	int saved, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/out", g_root);
	saved = stdout_to(path);
	printf("before ");
	cr_assert_eq(sw_os_filter_stdout(upper_write, upper_end, &u), 0, "%s", strerror(errno));
	printf("ab");
	fflush(stdout);
	printf("c\xe2\x80");	/* a sequence cut by a flush */
	fflush(stdout);
	printf("\xaeq\n");
	fputs("tail", stdout);
	cr_assert_eq(sw_os_filter_stdout_end(), 0, "%s", strerror(errno));
	printf(" after");	/* stdout is back and unfiltered */
	stdout_back(saved);
	cr_assert_eq(u.ended, 1);
	cr_assert_eq(u.nseen, 12);
	cr_assert_eq(memcmp(u.seen, "abc\xe2\x80\xaeq\ntail", 12), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	cr_assert_eq(n, 30);
	cr_assert_eq(memcmp(got, "before ABC\xe2\x80\xaeQ\nTAIL<end> after", 30), 0, "%.*s", (int)n, got);
	cr_assert_eq(sw_os_filter_stdout_end(), 0);	/* no filter: nothing to do */
}

Test(io_os, filter_stdout_flush_and_end_report_a_failed_write)
{
	struct upper u = { "", 0, 0 };
	int saved;

	saved = stdout_to("/dev/full");
	cr_assert_eq(sw_os_filter_stdout(upper_write, upper_end, &u), 0);
	printf("lost");
	cr_assert_eq(sw_os_filter_stdout_flush(), -1);
	cr_assert_eq(errno, ENOSPC, "%s", strerror(errno));
	cr_assert_eq(sw_os_filter_stdout_end(), -1);
	clearerr(stdout);
	stdout_back(saved);
}

Test(io_os, posix_filter_stdout_flush_and_end_report_a_failed_write)
{
	struct upper u = { "", 0, 0 };
	int saved;

	saved = stdout_to("/dev/full");
	cr_assert_eq(sw_os__filter_fd_begin(sw_os_memfd, upper_write, upper_end, &u), 0);
	printf("lost");
	cr_assert_eq(fflush(stdout), 0);	/* into the anonymous file */
	cr_assert_eq(sw_os__filter_fd_flush(), -1);
	cr_assert_eq(errno, ENOSPC, "%s", strerror(errno));
	printf("more");
	cr_assert_eq(sw_os__filter_fd_flush(), -1);	/* sticky */
	cr_assert_eq(sw_os__filter_fd_end(), -1);
	cr_assert_eq(u.ended, 1);
	stdout_back(saved);
}

Test(io_os, posix_filter_stdout_passes_every_byte_through_the_filter_in_order)
{
	struct upper u = { "", 0, 0 };
	char path[PATH_MAX + 8], got[64] = "";
	int saved, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/out", g_root);
	saved = stdout_to(path);
	cr_assert_eq(sw_os__filter_fd_begin(sw_os_memfd, upper_write, upper_end, &u), 0, "%s", strerror(errno));
	printf("ab");
	cr_assert_eq(sw_os__filter_fd_flush(), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_eq(read(fd, got, sizeof(got) - 1), 2);	/* out at the flush */
	close(fd);
	cr_assert_str_eq(got, "AB");
	cr_assert_eq(write(STDOUT_FILENO, "c", 1), 1);	/* straight to descriptor 1 */
	printf("d\n");
	cr_assert_eq(sw_os__filter_fd_end(), 0, "%s", strerror(errno));
	stdout_back(saved);
	cr_assert_eq(u.ended, 1);
	cr_assert_eq(u.nseen, 5);
	cr_assert_eq(memcmp(u.seen, "abcd\n", 5), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	cr_assert_eq(n, 10);
	cr_assert_eq(memcmp(got, "ABCD\n<end>", 10), 0, "%.*s", (int)n, got);
}

Test(io_os, posix_filter_stdout_is_ended_by_its_own_process_only)
{
	struct upper u = { "", 0, 0 };
	char path[PATH_MAX + 8], got[64] = "";
	int saved, fd, status;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/out", g_root);
	saved = stdout_to(path);
	cr_assert_eq(sw_os__filter_fd_begin(sw_os_memfd, upper_write, upper_end, &u), 0);
	printf("x");
	fflush(stdout);
	if ((pid = fork()) == 0)
		exit(0);	/* runs the atexit handler it inherited */
	cr_assert_gt(pid, 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(sw_os__filter_fd_end(), 0);
	stdout_back(saved);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	cr_assert_eq(n, 6, "%.*s", (int)n, got);
	cr_assert_eq(memcmp(got, "X<end>", 6), 0);
}
