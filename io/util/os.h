#ifndef IO_UTIL_OS_H
#define IO_UTIL_OS_H

/* The one seam to the operating system (SQLite's os_unix.c, git's compat/).
 * It owns every call that one kernel or one C library has and the others
 * lack: renames that never replace, directory anchors, opening a path
 * below a root without following a symlink, listing a directory with the
 * entries' types, random bytes, the boot's identity, a filter on stdout,
 * anonymous in-memory files, close-on-exec pipes, kernel copies of a file
 * range, durable syncs, the struct stat time fields, advisory directory
 * locks, page prefaulting and where a new thread starts.  Everything
 * else in the tree is C11 plus POSIX.1-2008 (with XSI) and calls these
 * instead.
 *
 * Two implementations, one linked (the Makefile picks it from uname -s;
 * PORTABLE=1 forces the second on Linux, so the tests run it there too):
 *   io/util/os_linux.c  Linux: renameat2, O_PATH, openat2, getdents64,
 *                       getrandom, /proc's boot_id, fopencookie,
 *                       memfd_create, pipe2, copy_file_range, madvise,
 *                       sched_getaffinity.
 *   io/util/os_posix.c  POSIX.1-2008 only, with a few #ifdef'd system
 *                       calls where a system has them (macOS and the BSDs:
 *                       getentropy, funopen, sysctl, F_FULLFSYNC).
 * Both build on io/util/os_common.c, the POSIX pieces they share (the
 * component walk, the link+unlink rename, the buffered copy, the temp-file
 * stdout filter).  A port is one more file beside these two.
 *
 * The functions stand for system calls and keep their convention: they
 * return 0 (or a descriptor) on success and -1 with errno set, unless said
 * otherwise; descriptors they open are close-on-exec.  Each says what it
 * promises on Linux and on POSIX; where the POSIX side cannot give what
 * Linux gives, it still never replaces nor loses a file, and says how. */

#include <pthread.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* The implementation linked in: "linux" or "posix". */
const char *sw_os_name(void);

/* ---- names ------------------------------------------------------------ */

/* Renames `from` to `to`, both in directory `dfd`, only if `to` does not
 * exist: EEXIST (never a replacement) when it does.
 *   Linux: renameat2(RENAME_NOREPLACE): one atomic step.  On a file system
 *     without it (EINVAL, ENOSYS), as POSIX below.
 *   POSIX: a file, symlink or other non-directory is linked to `to`
 *     (linkat, which refuses to replace: the check and the new name are one
 *     atomic step) and `from` is then unlinked.  A crash between the two
 *     leaves both names on the one file, never neither and never a
 *     replaced `to`; the callers already treat the extra name (a .tmp- or
 *     quarantine name) as a leftover.  An unlink that fails after the link
 *     leaves the same two names and still returns 0: `to` is in place.  A
 *     file system without hard links (EPERM, ENOTSUP, EMLINK) is a
 *     refusal, -1 with that errno, never a replacing rename.
 *     A directory cannot be linked: `to` is checked (EEXIST when anything
 *     is there) and renamed over with renameat.  Between the check and the
 *     rename another process could create `to`; rename(2) then replaces it
 *     only if it is an empty directory (a non-empty one fails with
 *     ENOTEMPTY or EEXIST, reported as EEXIST; a file fails with ENOTDIR),
 *     so no record is ever lost, at worst an empty directory. */
int sw_os_rename_noreplace(int dfd, const char *from, const char *to);

/* ---- directories ------------------------------------------------------ */

/* Opens directory `name` in `dfd` (`.` for dfd itself) as an anchor: a
 * descriptor for the *at() calls (openat, fstatat, unlinkat, ...), never
 * following a symlink at `name` (ELOOP or ENOTDIR for one; ENOTDIR for a
 * non-directory).
 *   Linux: O_PATH|O_DIRECTORY|O_NOFOLLOW: needs search permission on the
 *     path only, not read permission on the directory.  Cannot be listed.
 *   POSIX: O_SEARCH where the system defines it (same promise as Linux),
 *     else O_RDONLY|O_DIRECTORY|O_NOFOLLOW, which also needs read
 *     permission on the directory itself (EACCES without it). */
int sw_os_open_anchor(int dfd, const char *name);

enum sw_os_beneath {
	SW_OS_BENEATH_LIST = 0,		/* open the directory for reading its entries */
	SW_OS_BENEATH_ANCHOR = 1 << 0,	/* open it as sw_os_open_anchor does */
	SW_OS_BENEATH_WALK = 1 << 1	/* Linux: walk the components even where
					 * openat2 exists (tests, --no-openat2) */
};

/* Opens directory `rel` below `rootfd` ("" is the root itself) without
 * following a symlink anywhere on the way and without leaving the root:
 * an absolute `rel` or a ".." component is refused (EXDEV), a symlink on
 * the way is refused (ELOOP or ENOTDIR).  `how` is a set of enum
 * sw_os_beneath bits.
 *   Linux: one openat2 with RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH; where the
 *     kernel lacks it (ENOSYS, remembered), a filter refuses it (EPERM) or
 *     a rename raced it (EAGAIN), the walk below.
 *   POSIX: the walk: one openat per component from an anchor of the root,
 *     each O_DIRECTORY|O_NOFOLLOW, each closing the one before.  A
 *     component renamed during the walk makes the result the directory now
 *     at that name, but never a path through a symlink nor above the root. */
int sw_os_open_beneath(int rootfd, const char *rel, unsigned how);

/* The type of a directory entry.  Not the DT_* values, which POSIX does
 * not define. */
enum sw_os_ftype {
	SW_OS_FT_UNKNOWN = 0,	/* the system did not say: fstatat it */
	SW_OS_FT_REG,
	SW_OS_FT_DIR,
	SW_OS_FT_LNK,
	SW_OS_FT_OTHER		/* a FIFO, socket or device */
};

struct sw_os_dirent {
	const char *name;	/* borrowed: valid until the next call */
	enum sw_os_ftype type;
};

/* A directory listing, read in order from a directory descriptor; "." and
 * ".." are left out.  Calling sequence: open, next until it returns 0,
 * free.  The descriptor stays the caller's (opened for reading:
 * SW_OS_BENEATH_LIST or O_RDONLY|O_DIRECTORY, not an anchor), to be
 * closed after sw_os_dir_free; its position moves.
 *   Linux: getdents64 into one 32 KiB buffer: many entries a system call,
 *     no fstat and no fcntl for a stream; the types from d_type
 *     (SW_OS_FT_UNKNOWN where the file system leaves it DT_UNKNOWN).
 *   POSIX: readdir on fdopendir of a dup of the descriptor (so the
 *     caller's descriptor stays open after free).  d_type is not POSIX:
 *     where the system's struct dirent has it (macOS, the BSDs), the types
 *     from it; elsewhere every entry is SW_OS_FT_UNKNOWN and the caller
 *     fstatat()s it (what Linux callers already do for DT_UNKNOWN). */
struct sw_os_dir;

/* 0 with *out the caller's (freed with sw_os_dir_free), or -1 with errno
 * (ENOMEM included) and *out NULL. */
int sw_os_dir_open(struct sw_os_dir **out, int fd);
/* 1 with the next entry in *ent, 0 at the end, -1 with errno. */
int sw_os_dir_next(struct sw_os_dir *d, struct sw_os_dirent *ent);
/* Frees the listing (NULL is fine); never closes the caller's descriptor. */
void sw_os_dir_free(struct sw_os_dir *d);

/* An advisory lock on the open directory (or file) `fd`, flock(2)'s:
 * held by the open file description, so two descriptors opened apart
 * exclude each other even within one process, and released when the last
 * descriptor of it closes (a crashed holder releases it).  `op` is
 * SW_OS_LOCK_SH or SW_OS_LOCK_EX, with SW_OS_LOCK_NB for EWOULDBLOCK
 * instead of waiting, or SW_OS_LOCK_UN.
 *   Linux and POSIX: flock.  Not in POSIX.1-2008 (fcntl's record locks
 *     cannot lock a directory exclusively and are dropped by any close of
 *     the file in the process), but every system this builds on has it:
 *     Linux, macOS and the BSDs.  A system without it needs its own file. */
enum sw_os_lock {
	SW_OS_LOCK_SH = 1,
	SW_OS_LOCK_EX = 2,
	SW_OS_LOCK_UN = 3,
	SW_OS_LOCK_NB = 1 << 2
};
int sw_os_lock(int fd, unsigned op);

/* ---- durability ------------------------------------------------------- */

/* Makes the file's data and metadata durable.
 *   Linux: fsync (which reaches the disk's cache flush on Linux).
 *   POSIX: fcntl(F_FULLFSYNC) where the system defines it (macOS, where a
 *     plain fsync may leave the data in the drive's cache); when that
 *     fails (a file system without it: ENOTSUP, EINVAL, ...), fsync.
 *     Elsewhere fsync. */
int sw_os_fsync(int fd);

/* Makes a directory's entries (creations, renames, removals) durable; `fd`
 * is the directory opened for reading (not an anchor).
 *   Linux: fsync of the directory.
 *   POSIX: as sw_os_fsync.  A system that cannot sync a directory fails
 *     (EINVAL, EBADF ...) and the failure is returned, never a 0 that
 *     would claim durability. */
int sw_os_fsync_dir(int fd);

/* Copies `len` bytes at offset `from` of `src` to `dst`'s current
 * position (which advances); `src`'s position does not move.  EIO when
 * `src` holds fewer bytes.
 *   Linux: copy_file_range, in the kernel (a reflink on file systems that
 *     share extents); across file systems or where the kernel refuses
 *     (EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF), as POSIX below.
 *   POSIX: pread and write through a 64 KiB buffer. */
int sw_os_copy_range(int dst, int src, unsigned long long from, size_t len);

/* ---- descriptors ------------------------------------------------------ */

/* An anonymous read-write file of size 0 that no other process can open by
 * name: the descriptor, or -1.  `name` only labels it (Linux shows it in
 * /proc/PID/fd).
 *   Linux: memfd_create(MFD_CLOEXEC): in memory.  Where the kernel lacks
 *     it, as POSIX below.
 *   POSIX: mkstemp in $TMPDIR (else /tmp, also when $TMPDIR fails), the
 *     name unlinked at once, then FD_CLOEXEC: a file on disk until closed.
 *     Between mkstemp and fcntl a fork+exec in another thread of this
 *     process could inherit it; slipway execs only from its main thread. */
int sw_os_memfd(const char *name);

/* pipe(2) whose two ends are close-on-exec.
 *   Linux: pipe2(O_CLOEXEC): atomic.
 *   POSIX: pipe, then FD_CLOEXEC on each end (the same window as
 *     sw_os_memfd for an exec in another thread). */
int sw_os_pipe_cloexec(int fds[2]);

/* ---- the system ------------------------------------------------------- */

/* Fills `buf` with `n` random bytes from the kernel, fit for keys and
 * unguessable names; blocks only until the kernel's pool is first seeded.
 *   Linux: getrandom.
 *   POSIX: getentropy in 256-byte pieces where the system declares it
 *     (macOS, the BSDs), else reads /dev/urandom (which must be a
 *     character device: EIO otherwise). */
int sw_os_random(void *buf, size_t n);

/* The identity of the current boot: a lowercase text holding 32 hex
 * digits (dashes may separate them), the same for every process of one
 * boot and different after a reboot, or "" when the system gives none.
 * Never fails; `out` gets at most n - 1 characters ("" when too small).
 *   Linux: /proc/sys/kernel/random/boot_id, a 36-character UUID.
 *   POSIX: macOS: sysctl kern.bootsessionuuid (a UUID, lowercased), else
 *     kern.boottime; the BSDs: kern.boottime (seconds and microseconds of
 *     the boot as 32 hex digits: a clock step may change it within a
 *     boot); elsewhere (and where those fail) Linux's file above where
 *     it exists (PORTABLE=1 on Linux), else "" (only compiled on macOS,
 *     never run there yet).
 * What callers must do with "": treat it as "a reboot may have happened
 * since anything was written", never as a match.  The store does: it
 * writes no replay checkpoint without a boot id and trusts none whose boot
 * id is not exactly the current 32 digits, so without one it replays the
 * whole journal every time (slower, never wrong).  Nothing may use it to
 * decide that a lock's owner is dead. */
void sw_os_boot_id(char *out, size_t n);

/* The modification and status-change times of a struct stat (POSIX.1-2008
 * names them st_mtim and st_ctim; macOS st_mtimespec and st_ctimespec). */
struct timespec sw_os_st_mtim(const struct stat *st);
struct timespec sw_os_st_ctim(const struct stat *st);

/* Asks the kernel to fault in the pages of the fresh allocation [p, p+n)
 * now, one call instead of a fault per page.  Advisory: never fails.
 *   Linux: madvise(MADV_POPULATE_WRITE) for n of 256 KiB or more (kernels
 *     before 5.14 ignore it).
 *   POSIX: nothing. */
void sw_os_prefault(void *p, size_t n);

/* Maps `len` bytes of file `fd` read-only and private: the mapping, or
 * NULL with errno (unmapped with munmap).
 *   Linux: mmap with MAP_POPULATE: every page read in one call.
 *   POSIX: mmap, then posix_madvise(POSIX_MADV_WILLNEED) (advisory). */
void *sw_os_map_file(int fd, size_t len);

/* Starts fn(arg) on a new thread, as pthread_create(t, NULL, fn, arg) does
 * (0 or an error number); `k` numbers the threads a caller starts
 * together (0, 1, ...).
 *   Linux (glibc): thread k < n-1, of the n CPUs the process may use, is
 *     first placed on the (k+1)-th of them after the caller's, and widens
 *     its affinity to all n before it runs fn.  The scheduler otherwise
 *     queues a new thread on its parent's CPU: on a virtual machine of 2
 *     CPUs one was seen to wait there 0.9 to 2.3 ms while the other CPU
 *     was idle, and placed, to start in 0.1 ms.  Thread k >= n-1, or when
 *     any step of that fails, pthread_create alone (the scheduler places
 *     it and may move it: a thread pinned before it first runs could not
 *     be moved off a CPU its siblings crowd).
 *   POSIX: pthread_create. */
int sw_os_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, unsigned k);

/* ---- the stdout filter ------------------------------------------------ */

/* Called with the bytes written to stdout, in order, in pieces of any size
 * (a multibyte sequence may be split between two calls); writes what it
 * shows to `fd`.  Returns `len` (all taken) or -1 with errno. */
typedef ssize_t sw_os_filter_write_fn(void *cookie, int fd, const char *buf, size_t len);
/* Called once at the end: writes what the filter held back.  0 or -1. */
typedef int sw_os_filter_end_fn(void *cookie, int fd);

/* From here on, what the process prints on stdout goes through `write`
 * (and `end` once, at sw_os_filter_stdout_end) before reaching the file
 * that stdout was.  Call once; `cookie` must live until the end.
 *   Linux (glibc): fopencookie, the stream put in place of stdout: every
 *     write of the stdio buffer goes through the filter at once, and a
 *     failed write fails the fflush or fputs that made it.  Where stdout
 *     is not assignable (musl), as POSIX below.
 *   POSIX: macOS, FreeBSD: funopen, the same way.  Elsewhere (stdout is
 *     not an lvalue in POSIX; musl, OpenBSD and NetBSD make it const or an
 *     address) descriptor 1 is pointed at an anonymous file (sw_os_memfd),
 *     whose bytes go through the filter to the original stdout at each
 *     sw_os_filter_stdout_flush, at sw_os_filter_stdout_end, and at exit
 *     (atexit) if the end was not called: until then nothing reaches the
 *     terminal and a plain fflush(stdout) reports no failed write.  What
 *     children of the process write to their stdout is filtered too. */
int sw_os_filter_stdout(sw_os_filter_write_fn *write, sw_os_filter_end_fn *end, void *cookie);

/* Flushes stdout through the filter to the file stdout was, now: 0, or -1
 * when a write failed (then every later call fails too).  Without a
 * filter, fflush(stdout).  Call it where the caller must learn that its
 * output was lost (a committed mutation whose reply cannot be written). */
int sw_os_filter_stdout_flush(void);

/* Flushes stdout, runs the filter over what is left and puts stdout back:
 * 0, or -1 when a write failed (the command's output is then incomplete).
 * A no-op returning 0 when no filter is in place. */
int sw_os_filter_stdout_end(void);

#ifdef SW_TESTING
/* Makes sw_os_copy_range use the buffered copy (1) or the system's (0). */
void sw_os_test_buffered_copies(int on);

/* The CPU sw_os_thread_start places thread k on when the caller is on
 * `cur` and the process may use the n CPUs `cpus` (-1: none, the
 * scheduler decides); -1 always on POSIX. */
int sw_os_test_placed_cpu(const int *cpus, int n, int cur, unsigned k);

/* The last sw_os_thread_start: the caller's CPU, the CPU the thread was
 * placed on (-1: none) and, once it has run, the CPU it first ran on
 * (-1 until then, and on POSIX). */
void sw_os_test_last_start(int *caller, int *placed, int *first);
#endif

#endif
