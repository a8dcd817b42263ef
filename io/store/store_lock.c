/* A Run's directory handle and its lock: run_open below the anchored
 * runs/, the flock on the run directory with one deadline per store
 * handle, and the run.lock marker beside it.  Reads and writes no
 * journal. */

#include "io/store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void store__run_close(struct run_dir *r)
{
	if (r->lock_fd >= 0)
		sw_os_lock(r->lock_fd, SW_OS_LOCK_UN);
	store__close_fd(&r->lock_fd);
	store__close_fd(&r->fd);
}

/* Opens run `id`; `secure` (writable paths) re-applies 0700.
 * run_not_found when absent. */
int store__run_open(struct run_dir *r, struct store *s, const char *id, bool secure,
		    struct sw_error *err)
{
	struct sw_error e = SW_ERROR_INIT;
	int rc;

	r->id = id;
	if (!store_run_id_valid(id))
		return sw_error_set(err, SW_EINVAL, "invalid run id");
	if ((rc = store__anchors_valid(s, err)) < 0)
		return rc;
	if (s->empty)
		return store__fail_proto(s, err, TBL_ERR_RUN_NOT_FOUND, "run '%s' not found", id);
	if (store__open_dir_at(&r->fd, &r->st, NULL, s->runs_fd, id, false, secure, &e) < 0) {
		if (e.sys_errno == ENOENT)
			return store__fail_proto(s, err, TBL_ERR_RUN_NOT_FOUND,
						 "run '%s' not found", id);
		return sw_error_set(err, e.code, "inspect run: %s", e.msg);
	}
	return store__run_valid(s, r, err);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#ifdef SW_TESTING
static bool fake_lock_clock;
static long long fake_lock_now;

void store_test_lock_clock(bool fake)
{
	fake_lock_clock = fake;
	fake_lock_now = 0;
}

long long store_test_lock_clock_ms(void)
{
	return fake_lock_now;
}

static long long lock_now(void)
{
	return fake_lock_clock ? fake_lock_now : now_ms();
}

static void lock_sleep(unsigned ms)
{
	if (fake_lock_clock)
		fake_lock_now += ms;
	else
		sleep_ms(ms);
}
#else
#define lock_now now_ms
#define lock_sleep sleep_ms
#endif

/* sw_os_lock `op` (SW_OS_LOCK_EX or SW_OS_LOCK_SH) on `fd`, polled every
 * 25 ms until the handle's one deadline (lock_timeout_ms after the first
 * lock of the handle that had to wait); then run_busy.  A command that meets several
 * busy locks thus waits once in all, and each later lock is tried once
 * after the deadline has passed. */
int store__lock_wait(int fd, struct store *s, int op, struct sw_error *err)
{
	for (;;) {
		long long now, left;

		if (sw_os_lock(fd, (unsigned)op | SW_OS_LOCK_NB) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return sw_error_sys(err, errno, "cannot acquire run lock");
		now = lock_now();
		if (s->lock_deadline == 0)
			s->lock_deadline = now + s->lock_timeout_ms;
		if ((left = s->lock_deadline - now) <= 0) {
			s->fail.code = TBL_ERR_RUN_BUSY;
			return sw_error_proto(err, TBL_ERR_RUN_BUSY,
					      "run lock acquisition timed out after %u ms "
					      "(one wait for every run this command locks)",
					      s->lock_timeout_ms);
		}
		lock_sleep(left < STORE_LOCK_POLL_MS ? (unsigned)left : STORE_LOCK_POLL_MS);
	}
}

/* flock on a descriptor of the run directory (store__lock_wait). */
int store__run_lock(struct run_dir *r, struct store *s, bool exclusive,
		    struct sw_error *err)
{
	struct stat st;
	int rc;

	r->lock_fd = openat(r->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->lock_fd < 0)
		return sw_error_sys(err, errno, "cannot open run lock");
	if (fstat(r->lock_fd, &st) < 0 || !store__same_file(&st, &r->st)) {
		store__close_fd(&r->lock_fd);
		return sw_error_set(err, SW_EUNSAFE,
				    "opened run directory changed before locking");
	}
	if ((rc = store__lock_wait(r->lock_fd, s, exclusive ? SW_OS_LOCK_EX : SW_OS_LOCK_SH, err)) < 0) {
		store__close_fd(&r->lock_fd);
		return rc;
	}
	return store__run_valid(s, r, err);
}

/* Creates the empty run.lock marker on first exclusive lock; every
 * exclusive lock makes it owner-only again (0600), like the reference. */
int store__ensure_lock_file(struct run_dir *r, struct txn *t, struct sw_error *err)
{
	struct stat st;
	int fd = -1, rc = 0;

	t->phase = "lock_open";
	if (fstatat(r->fd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* The lock is the flock on the run directory; the marker only
		 * names it.  One that is no regular file we can open and secure
		 * (a directory, a FIFO, a symlink, mode 000) takes nothing from
		 * the lock: the mutation goes on and, once it commits, replaces
		 * the marker (repair_lock_file). */
		if (!S_ISREG(st.st_mode) ||
		    store__open_leaf(&fd, r->fd, LOCK_NAME, O_RDONLY | O_NONBLOCK,
				     &(struct sw_error)SW_ERROR_INIT) < 0 ||
		    fchmod(fd, 0600) < 0)
			r->lock_damaged = true;
		store__close_fd(&fd);
		return 0;
	}
	if (errno != ENOENT)
		return sw_error_sys(err, errno, "cannot inspect run lock");
	if ((fd = store__f_create(r->fd, LOCK_NAME, O_RDWR)) < 0) {
		rc = sw_error_sys(err, errno, "cannot create run lock");
		goto out;
	}
	t->phase = "lock_sync";
	if (fchmod(fd, 0600) < 0 || store__f_fsync(fd) < 0) {
		rc = sw_error_sys(err, errno, "cannot sync new run lock");
		goto out;
	}
	if ((rc = store__check_leaf(r->fd, LOCK_NAME, fd, err)) < 0)
		goto out;
	t->phase = "directory_sync";
	rc = store__sync_dir(r->fd, &r->st, "run", err);
out:
	store__close_fd(&fd);
	return rc;
}
