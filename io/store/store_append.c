/* The journal append: the encoded records written with O_APPEND and
 * fsynced, the commit point of an update, after the torn record a replay
 * left is cut.  Reads nothing back. */

#include "io/store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Appends `bytes` with O_APPEND and fsyncs.  *existed says whether the
 * journal was already there: only then is the fsync the commit point (a
 * new journal also needs its directory entry synced). */
int store__append_journal(bool *existed, struct stat *after, struct store *s,
			  struct run_dir *r, const char *bytes, size_t len, struct txn *t,
			  struct sw_error *err)
{
	struct stat st;
	size_t done = 0;
	int fd = -1, rc = 0;

	t->phase = "journal_open";
	*existed = false;
	if ((rc = store__run_valid(s, r, err)) < 0)
		return rc;
	if (fstatat(r->fd, JOURNAL_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		*existed = true;
		if ((rc = store__open_journal(&fd, r->fd, O_WRONLY | O_APPEND, err)) < 0)
			return rc;
	} else if (errno != ENOENT) {
		return sw_error_sys(err, errno, "cannot inspect journal");
	} else if ((fd = store__f_create(r->fd, JOURNAL_NAME, O_WRONLY | O_APPEND)) < 0) {
		return sw_error_sys(err, errno, "cannot create journal");
	}
	if (fchmod(fd, 0600) < 0) {
		rc = sw_error_sys(err, errno, "cannot secure journal");
		goto out;
	}
	t->phase = "journal_verify";
	if ((rc = store__check_leaf(r->fd, JOURNAL_NAME, fd, err)) < 0)
		goto out;
	if (*existed && r->cut_at >= 0 && ftruncate(fd, r->cut_at) < 0) {
		rc = sw_error_sys(err, errno, "cannot truncate torn journal record");
		goto out;
	}
	t->phase = "journal_write";
	if (fstat(fd, &st) < 0) {
		rc = sw_error_sys(err, errno, "cannot inspect journal");
		goto out;
	}
	if (store__f_write(fd, bytes, len, &done) < 0) {
		int e = errno;

		/* A write cut short (a full disk, the file-size limit) left
		 * the start of a record and no newline: take it back, so
		 * that the journal holds exactly what it held.  Only if that
		 * fails is the outcome ambiguous. */
		if (done > 0 && ftruncate(fd, st.st_size) < 0)
			t->wrote = true;
		rc = sw_error_sys(err, e, "cannot append journal");
		goto out;
	}
	t->wrote = true;
	t->phase = "journal_verify";
	if (store__check_leaf(r->fd, JOURNAL_NAME, fd, err) < 0 ||
	    store__run_valid(s, r, err) < 0) {
		t->detached = true;
		rc = err ? err->code : SW_EUNSAFE;
		goto out;
	}
	t->phase = "journal_sync";
	if (store__f_fsync(fd) < 0) {
		rc = sw_error_sys(err, errno, "cannot sync journal");
		goto out;
	}
	if (after != NULL && fstat(fd, after) < 0)
		memset(after, 0, sizeof(*after));
	if (*existed) {
		t->committed = true;
		t->pending = true;
	}
	t->phase = "journal_verify";
	if (store__check_leaf(r->fd, JOURNAL_NAME, fd, err) < 0 ||
	    store__run_valid(s, r, err) < 0) {
		t->detached = true;
		rc = err ? err->code : SW_EUNSAFE;
	}
out:
	store__close_fd(&fd);
	return rc;
}
