/* run.json, the projection: its temp written from pieces (ranges of the
 * old run.json copied in the kernel) and installed through a quarantine
 * name with rename-no-replace; a damaged entry parked and removed (also
 * for run.lock).  Never touches the journal. */

#include "io/store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RENAME_ATTEMPTS 10

/* Puts `name` (the damaged entry `st`) aside under a quarantine name and
 * removes it there: a directory only when empty (one that holds anything
 * stays, under that name, for doctor to report).  *parked gets the name. */
int store__park_entry(struct run_dir *r, const char *name, const struct stat *st,
		      char parked[96], struct sw_error *err)
{
	struct stat cur;
	int attempt, rc;

	for (attempt = 0; attempt < RENAME_ATTEMPTS; attempt++) {
		char rnd[17];

		if ((rc = store__random_hex16(rnd, err)) < 0)
			return rc;
		snprintf(parked, 96, ".quarantine-%s-%s", name, rnd);
		if (fstatat(r->fd, name, &cur, AT_SYMLINK_NOFOLLOW) < 0 || !store__same_file(&cur, st) ||
		    (cur.st_mode & S_IFMT) != (st->st_mode & S_IFMT))
			return sw_error_set(err, SW_EUNSAFE, "'%s' changed before it was replaced", name);
		if (store__f_rename(r->fd, name, parked) == 0)
			break;
		if (errno != EEXIST)
			return sw_error_sys(err, errno, "cannot move damaged '%s' aside", name);
	}
	if (attempt == RENAME_ATTEMPTS)
		return sw_error_set(err, SW_EIO, "could not allocate a quarantine name");
	return 0;
}

int store__drop_parked(struct run_dir *r, const char *parked, const struct stat *st,
		       struct sw_error *err)
{
	struct stat cur;
	bool dir;

	if (fstatat(r->fd, parked, &cur, AT_SYMLINK_NOFOLLOW) < 0 || !store__same_file(&cur, st))
		return sw_error_set(err, SW_EUNSAFE, "the damaged entry parked at '%s' changed", parked);
	dir = S_ISDIR(cur.st_mode);
	if (store__f_unlink(r->fd, parked, dir ? AT_REMOVEDIR : 0) < 0 &&
	    !(dir && (errno == ENOTEMPTY || errno == EEXIST)))
		return sw_error_sys(err, errno, "cannot remove the damaged entry parked at '%s'", parked);
	return 0;
}

void store__prepared_discard(struct prepared *p, struct run_dir *r)
{
	struct stat st;

	store__close_fd(&p->prev_fd);
	if (p->tmp[0] && !p->renamed &&
	    fstatat(r->fd, p->tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    store__same_file(&st, &p->tmp_st))
		unlinkat(r->fd, p->tmp, 0);
}

/* Writes and syncs the run.json temp from the pieces; those without bytes
 * come from the current run.json, which must still be `src` (the one the
 * update adopted). */
int store__prepare_projection(struct prepared *p, struct run_dir *r,
			      const struct sw_piece *pc, size_t n, const struct stat *src,
			      struct txn *t, struct sw_error *err)
{
	char rnd[17];
	int fd = -1, rc;
	bool copies = false;

	t->phase = "projection_prepare";
	{
		struct sw_error e = SW_ERROR_INIT;

		rc = store__open_leaf(&p->prev_fd, r->fd, PROJECTION_NAME, O_RDONLY | O_NONBLOCK, &e);
		/* run.json is a projection of the journal: one that is no
		 * regular file we can read (a directory, a FIFO, a symlink,
		 * mode 000) is replaced like a stale one, once committed. */
		if (rc < 0 && rc != SW_ENOTFOUND) {
			if (fstatat(r->fd, PROJECTION_NAME, &p->prev_st, AT_SYMLINK_NOFOLLOW) < 0)
				return store__pass_up(err, &e);
			p->damaged = true;
		}
	}
	if (p->prev_fd >= 0 && fstat(p->prev_fd, &p->prev_st) < 0)
		return sw_error_sys(err, errno, "cannot stat run projection");
	for (size_t k = 0; k < n; k++)
		copies |= pc[k].bytes == NULL;
	if (copies && (p->prev_fd < 0 || !store__same_identity(&p->prev_st, src)))
		return sw_error_set(err, SW_EUNSAFE, "run projection changed since it was read");
	t->phase = "projection_temp";
	if ((rc = store__random_hex16(rnd, err)) < 0)
		return rc;
	snprintf(p->tmp, sizeof(p->tmp), ".tmp-%s-%s", PROJECTION_NAME, rnd);
	if ((fd = store__f_create(r->fd, p->tmp, O_WRONLY)) < 0) {
		p->tmp[0] = '\0';
		return sw_error_sys(err, errno, "cannot create run projection temp");
	}
	if (fstat(fd, &p->tmp_st) < 0) {
		rc = sw_error_sys(err, errno, "cannot stat run projection temp");
		goto out;
	}
	t->phase = "projection_write";
	if (store__f_write_pieces(fd, pc, n, p->prev_fd) < 0 || fchmod(fd, 0600) < 0) {
		rc = sw_error_sys(err, errno, "cannot write run projection temp");
		goto out;
	}

	/* Not synced: run.json is a projection of the journal, and the only
	 * reader of its bytes, the checkpoint, is refused after a reboot
	 * (boot_id), the one event that loses unsynced data. */
	rc = store__check_leaf(r->fd, p->tmp, fd, err);
out:
	store__close_fd(&fd);
	return rc;
}

static int leaf_is(int dfd, const char *name, const struct stat *want)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && store__same_file(&st, want);
}

/* Installs the prepared run.json: the old one is parked under a quarantine
 * name (no replace), the temp renamed into place (no replace) and the
 * quarantine removed.  The directory is not synced: the journal is
 * already committed, the temp's bytes are synced, and run.json is a
 * projection of the journal.  A power loss may undo these renames,
 * leaving the previous run.json (or none, and a quarantine file); that is
 * the projection a crash just after the commit leaves too, and the next
 * mutation replaces it (a checkpoint naming the lost file is not adopted:
 * its identity differs).  It follows a commit the journal append proved
 * at the Run's name, and is made through the same directory descriptor:
 * the Run's directory is not re-proved here (store_commit.c says why). */
int store__install_projection(struct prepared *p, struct run_dir *r, struct txn *t,
			      struct sw_error *err)
{
	char quarantine[96] = "";
	int rc;

	t->phase = "projection_rename";
	if (p->prev_fd >= 0 && !leaf_is(r->fd, PROJECTION_NAME, &p->prev_st))
		return sw_error_set(err, SW_EUNSAFE, "run projection changed before rename");
	if (p->prev_fd < 0 && !p->damaged &&
	    faccessat(r->fd, PROJECTION_NAME, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return sw_error_set(err, SW_EUNSAFE, "run projection appeared before rename");
	if (!leaf_is(r->fd, p->tmp, &p->tmp_st))
		return sw_error_set(err, SW_EUNSAFE, "run projection temp changed before rename");
	if (p->damaged) {
		if ((rc = store__park_entry(r, PROJECTION_NAME, &p->prev_st, quarantine, err)) < 0)
			return rc;
	} else if (p->prev_fd >= 0) {
		int attempt;

		for (attempt = 0; attempt < RENAME_ATTEMPTS; attempt++) {
			char rnd[17];

			if ((rc = store__random_hex16(rnd, err)) < 0)
				return rc;
			snprintf(quarantine, sizeof(quarantine),
				 ".quarantine-%s-%s", PROJECTION_NAME, rnd);
			if (store__f_rename(r->fd, PROJECTION_NAME, quarantine) == 0)
				break;
			if (errno != EEXIST)
				return sw_error_sys(err, errno,
						    "cannot relocate old run projection");
		}
		if (attempt == RENAME_ATTEMPTS)
			return sw_error_set(err, SW_EIO,
					    "could not allocate projection quarantine name");
		if (!leaf_is(r->fd, quarantine, &p->prev_st)) {
			sw_os_rename_noreplace(r->fd, quarantine, PROJECTION_NAME);
			return sw_error_set(err, SW_EUNSAFE,
					    "run projection changed during relocation");
		}
	}
	if (store__f_rename(r->fd, p->tmp, PROJECTION_NAME) < 0) {
		int e = errno;

		if (quarantine[0])
			sw_os_rename_noreplace(r->fd, quarantine, PROJECTION_NAME);
		return sw_error_sys(err, e, "cannot install run projection");
	}
	p->renamed = true;
	if (!leaf_is(r->fd, PROJECTION_NAME, &p->tmp_st)) {
		t->detached = true;
		return sw_error_set(err, SW_EUNSAFE, "run projection changed after rename");
	}
	t->pending = false;
	if (p->damaged) {
		if ((rc = store__drop_parked(r, quarantine, &p->prev_st, err)) < 0)
			return rc;
	} else if (quarantine[0]) {
		if (!leaf_is(r->fd, quarantine, &p->prev_st))
			return sw_error_set(err, SW_EUNSAFE,
					    "old projection was preserved at '%s' after its identity changed",
					    quarantine);
		if (unlinkat(r->fd, quarantine, 0) < 0)
			return sw_error_sys(err, errno, "cannot remove old projection");
	}
	return 0;
}
