/* Anchored opening: directories and files reached by openat below an
 * anchored descriptor without following a symlink and re-proved by
 * (dev, inode); the store's and a Run's anchors re-checked; directories
 * synced.  Opens nothing by path but the Git common directory's identity
 * check; names no file of the run directory but the journal. */

#include "io/store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

void store__close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

bool store__same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Whether a and b are one file, unchanged: device, inode, size and
 * modification and change times. */
bool store__same_identity(const struct stat *a, const struct stat *b)
{
	return store__same_file(a, b) && a->st_size == b->st_size &&
	       sw_os_st_mtim(a).tv_sec == sw_os_st_mtim(b).tv_sec &&
	       sw_os_st_mtim(a).tv_nsec == sw_os_st_mtim(b).tv_nsec &&
	       sw_os_st_ctim(a).tv_sec == sw_os_st_ctim(b).tv_sec &&
	       sw_os_st_ctim(a).tv_nsec == sw_os_st_ctim(b).tv_nsec;
}

/* Opens directory `name` below `pfd` without following a symlink; with
 * `create` makes it (0700) when missing and reports *created; with
 * `secure` re-applies 0700. */
int store__open_dir_at(int *fd, struct stat *st, bool *created, int pfd,
		       const char *name, bool create, bool secure,
		       struct sw_error *err)
{
	*fd = -1;
	if (created)
		*created = false;
	for (int attempt = 0; attempt < 3; attempt++) {
		struct stat before, opened;
		int d;

		if (fstatat(pfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT || !create)
				return sw_error_sys(err, errno, "cannot inspect '%s'", name);
			if (store__f_mkdir(pfd, name) < 0) {
				if (errno == EEXIST)
					continue;
				return sw_error_sys(err, errno, "cannot create '%s'", name);
			}
			if (created)
				*created = true;
			if (fstatat(pfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0)
				return sw_error_sys(err, errno, "cannot inspect '%s'", name);
		}
		if (!S_ISDIR(before.st_mode))
			return sw_error_set(err, SW_EUNSAFE,
					    "'%s' is not a regular directory", name);
		d = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d < 0) {
			if (errno == ENOENT)
				continue;
			return sw_error_sys(err, errno, "cannot open '%s'", name);
		}
		if (fstat(d, &opened) < 0 || !store__same_file(&before, &opened)) {
			close(d);
			continue;
		}
		if (secure && fchmod(d, 0700) < 0) {
			int e = errno;

			close(d);
			return sw_error_sys(err, e, "cannot secure '%s'", name);
		}
		*fd = d;
		*st = opened;
		return 0;
	}
	return sw_error_set(err, SW_EUNSAFE, "'%s' changed while opening", name);
}

/* 0 when `name` below `pfd` is still the directory `st`. */
int store__check_dir_at(int pfd, const char *name, const struct stat *st,
			struct sw_error *err)
{
	struct stat cur;

	if (fstatat(pfd, name, &cur, AT_SYMLINK_NOFOLLOW) < 0)
		return sw_error_sys(err, errno, "cannot inspect '%s'", name);
	if (!S_ISDIR(cur.st_mode) || !store__same_file(&cur, st))
		return sw_error_set(err, SW_EUNSAFE,
				    "'%s' is not the opened directory", name);
	return 0;
}

/* 0 when the open file `fd` is still the regular file `name`. */
int store__check_leaf(int dfd, const char *name, int fd, struct sw_error *err)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0)
		return sw_error_sys(err, errno, "cannot stat '%s'", name);
	if (fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return sw_error_sys(err, errno, "cannot inspect '%s'", name);
	if (!S_ISREG(a.st_mode) || !S_ISREG(b.st_mode) || !store__same_file(&a, &b))
		return sw_error_set(err, SW_EUNSAFE,
				    "'%s' changed or is not a regular file", name);
	return 0;
}

/* Opens existing regular file `name`; SW_ENOTFOUND when absent. */
int store__open_leaf(int *fd, int dfd, const char *name, int flags,
		     struct sw_error *err)
{
	*fd = -1;
	for (int attempt = 0; attempt < 3; attempt++) {
		struct stat before, opened;
		int f;

		if (fstatat(dfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				return sw_error_set(err, SW_ENOTFOUND,
						    "'%s' does not exist", name);
			return sw_error_sys(err, errno, "cannot inspect '%s'", name);
		}
		if (!S_ISREG(before.st_mode))
			return sw_error_set(err, SW_EUNSAFE,
					    "'%s' is not a regular file", name);
		f = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
		if (f < 0) {
			if (errno == ENOENT)
				continue;
			return sw_error_sys(err, errno, "cannot open '%s'", name);
		}
		if (fstat(f, &opened) < 0 || !store__same_file(&before, &opened)) {
			close(f);
			continue;
		}
		*fd = f;
		return 0;
	}
	return sw_error_set(err, SW_EUNSAFE, "'%s' changed while opening", name);
}

/* store__open_leaf for the journal, which is appended in place: a second hard
 * link would let those appends reach a file outside the run directory,
 * so a journal with more than one link is refused. */
int store__open_journal(int *fd, int dfd, int flags, struct sw_error *err)
{
	struct stat st;
	int rc = store__open_leaf(fd, dfd, JOURNAL_NAME, flags, err);

	if (rc < 0)
		return rc;
	if (fstat(*fd, &st) < 0)
		rc = sw_error_sys(err, errno, "cannot stat '%s'", JOURNAL_NAME);
	else if (st.st_nlink != 1)
		rc = sw_error_set(err, SW_EUNSAFE, "'%s' has %ju hard links; a journal must "
				  "have exactly one", JOURNAL_NAME, (uintmax_t)st.st_nlink);
	if (rc < 0) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

/* fsync of a directory after re-proving its identity. */
int store__sync_dir(int fd, const struct stat *st, const char *what,
		    struct sw_error *err)
{
	struct stat cur;

	if (fstat(fd, &cur) < 0 || !store__same_file(&cur, st))
		return sw_error_set(err, SW_EUNSAFE,
				    "directory '%s' changed before sync", what);
	if (store__f_fsync_dir(fd) < 0)
		return sw_error_sys(err, errno, "cannot sync directory '%s'", what);
	return 0;
}

int store__anchors_valid(struct store *s, struct sw_error *err)
{
	struct stat cur;

	if (lstat(s->common_path, &cur) < 0)
		return sw_error_sys(err, errno, "cannot inspect '%s'", s->common_path);
	if (!S_ISDIR(cur.st_mode) || !store__same_file(&cur, &s->common_st))
		return sw_error_set(err, SW_EUNSAFE,
				    "git common directory changed after opening");
	if (s->slipway_fd >= 0 &&
	    store__check_dir_at(s->common_fd, SLIPWAY_NAME, &s->slipway_st, err) < 0)
		return err ? err->code : SW_EUNSAFE;
	if (s->runs_fd >= 0 &&
	    store__check_dir_at(s->slipway_fd, RUNS_NAME, &s->runs_st, err) < 0)
		return err ? err->code : SW_EUNSAFE;
	return 0;
}

int store__run_valid(struct store *s, struct run_dir *r, struct sw_error *err)
{
	struct stat cur;
	int rc;

	if ((rc = store__anchors_valid(s, err)) < 0)
		return rc;
	if ((rc = store__check_dir_at(s->runs_fd, r->id, &r->st, err)) < 0)
		return rc;
	if (fstat(r->fd, &cur) < 0 || !store__same_file(&cur, &r->st))
		return sw_error_set(err, SW_EUNSAFE, "opened run directory changed");
	return 0;
}

/* Hands a locally collected error to the caller's, first error winning. */
int store__pass_up(struct sw_error *err, const struct sw_error *e)
{
	if (err != NULL && err->code == SW_OK)
		*err = *e;
	return e->code;
}
