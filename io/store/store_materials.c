/* Materials: content-addressed blobs under materials/ (temp, fsync,
 * rename-no-replace; one already there compared byte for byte), their
 * re-check before the append and after the commit, the blobs a failed
 * mutation takes back, and store_read_material.  Never touches the
 * journal or run.json. */

#include "io/store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads blob `hex` below `mfd` and checks its size and, with `check`, its
 * digest (a caller that compares the bytes with ones of that digest need
 * not); *st (may be NULL) gets the status of the file read. */
static int read_blob(void **out, size_t *len, struct stat *st, int mfd, const char *hex,
		     const char *digest, bool check, struct sw_error *err)
{
	char *buf = NULL;
	char got[SW_DIGEST_LEN];
	size_t n = 0;
	int fd = -1, rc;

	*out = NULL;
	*len = 0;
	if ((rc = store__open_leaf(&fd, mfd, hex, O_RDONLY, err)) < 0)
		goto out;
	if ((buf = sw_malloc(STORE_MATERIAL_MAX + 1)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot read material");
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, STORE_MATERIAL_MAX + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = sw_error_sys(err, errno, "cannot read material %s", digest);
			goto out;
		}
		if (r == 0 || (n += (size_t)r) > STORE_MATERIAL_MAX)
			break;
	}
	if (n == 0 || n > STORE_MATERIAL_MAX) {
		rc = sw_error_set(err, SW_EPARSE, "material %s has invalid size", digest);
		goto out;
	}
	if ((rc = store__check_leaf(mfd, hex, fd, err)) < 0)
		goto out;
	if (st != NULL && fstat(fd, st) < 0) {
		rc = sw_error_sys(err, errno, "cannot inspect material %s", digest);
		goto out;
	}
	if (check && (sw_material_digest(got, buf, n, NULL), strcmp(got, digest) != 0)) {
		rc = sw_error_set(err, SW_EPARSE, "material %s is corrupt", digest);
		goto out;
	}
	*out = buf;
	*len = n;
	buf = NULL;
out:
	sw_free(buf);
	store__close_fd(&fd);
	return rc;
}

static int put_blob(int mfd, struct mut_material *mm, struct sw_error *err)
{
	const char *hex = mm->digest + 7;
	char rnd[17], tmp[128] = "";
	void *have = NULL;
	size_t have_len = 0;
	struct stat st, wrote;
	bool renamed = false;
	int fd = -1, rc = 0;

	if (fstatat(mfd, hex, &st, AT_SYMLINK_NOFOLLOW) == 0)
		goto compare;
	if (errno != ENOENT)
		return sw_error_sys(err, errno, "cannot inspect material %s", mm->digest);
	if ((rc = store__random_hex16(rnd, err)) < 0)
		return rc;
	snprintf(tmp, sizeof(tmp), ".tmp-%s-%s", hex, rnd);
	if ((fd = store__f_create(mfd, tmp, O_WRONLY)) < 0)
		return sw_error_sys(err, errno, "cannot create material temp");
	if (fchmod(fd, 0600) < 0 || store__f_write(fd, mm->bytes, mm->len, NULL) < 0) {
		rc = sw_error_sys(err, errno, "cannot write material temp");
		goto out;
	}
	if ((rc = store__check_leaf(mfd, tmp, fd, err)) < 0)
		goto out;
	if (store__f_fsync(fd) < 0 || fstat(fd, &wrote) < 0) {
		rc = sw_error_sys(err, errno, "cannot sync material temp");
		goto out;
	}
	/* The inode the rename will publish: what a mutation that does not
	 * commit takes back, even when reading the blob back fails below
	 * (read_blob replaces it with the blob's whole identity). */
	if (fstat(fd, &mm->st) < 0) {
		rc = sw_error_sys(err, errno, "cannot inspect material temp");
		goto out;
	}
	store__close_fd(&fd);
	if (store__f_rename(mfd, tmp, hex) < 0) {
		if (errno != EEXIST) {
			rc = sw_error_sys(err, errno, "cannot commit material %s",
					  mm->digest);
			goto out;
		}
		goto compare;
	}
	renamed = true;
	mm->created = true;
	/* The rename replaced nothing: the name is the very file this
	 * process wrote whole and synced, which reading it back would only
	 * repeat.  Its status is what verify_materials holds it to. */
	if (fstatat(mfd, hex, &mm->st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(mm->st.st_mode) &&
	    store__same_file(&mm->st, &wrote) && mm->st.st_size == (off_t)mm->len)
		goto out;
compare:
	/* An existing or concurrent blob must match byte for byte. */
	if ((rc = read_blob(&have, &have_len, &mm->st, mfd, hex, mm->digest, false, err)) < 0)
		goto out;
	if (have_len != mm->len || memcmp(have, mm->bytes, mm->len) != 0)
		rc = sw_error_set(err, SW_ECONFLICT,
				  "material %s content conflicts with existing blob",
				  mm->digest);
out:
	store__close_fd(&fd);
	if (!renamed && tmp[0] == '.')
		unlinkat(mfd, tmp, 0);
	sw_free(have);
	return rc;
}

int store__put_materials(struct run_dir *r, struct store_mutation *m,
			 struct txn *t, struct sw_error *err)
{
	struct stat mst;
	bool created = false;
	int mfd = -1, rc = 0;

	if (m->nmat == 0)
		return 0;
	t->phase = "material_write";
	if ((rc = store__open_dir_at(&mfd, &mst, &created, r->fd, MATERIALS_NAME,
				     true, true, err)) < 0)
		goto out;
	m->mat_dir_created = created;
	t->phase = "directory_sync";
	if (created && ((rc = store__sync_dir(mfd, &mst, MATERIALS_NAME, err)) < 0 ||
			(rc = store__sync_dir(r->fd, &r->st, "run", err)) < 0))
		goto out;
	t->phase = "material_write";
	for (size_t i = 0; i < m->nmat; i++) {
		size_t j = 0;

		while (j < i && strcmp(m->mat[i].digest, m->mat[j].digest) != 0)
			j++;
		if (j < i)
			m->mat[i].st = m->mat[j].st;	/* the same blob */
		else if ((rc = put_blob(mfd, &m->mat[i], err)) < 0)
			goto out;
	}
	t->phase = "directory_sync";
	if ((rc = store__sync_dir(mfd, &mst, MATERIALS_NAME, err)) < 0)
		goto out;
	t->phase = "namespace_verify";
	rc = store__check_dir_at(r->fd, MATERIALS_NAME, &mst, err);
out:
	store__close_fd(&mfd);
	return rc;
}

/* Checks, through an anchored materials/, that every material of `m` is
 * still the file store__put_materials wrote or compared byte for byte (same
 * inode, size, and modification and change times: any write or
 * replacement changes the change time): before the journal append (an
 * event must never reference a missing or altered blob) and after the
 * commit. */
int store__verify_materials(struct run_dir *r, const struct store_mutation *m,
			    struct sw_error *err)
{
	struct stat mst;
	int mfd = -1, rc = 0;

	if (m->nmat == 0)
		return 0;
	if ((rc = store__open_dir_at(&mfd, &mst, NULL, r->fd, MATERIALS_NAME, false,
				     false, err)) < 0)
		return rc;
	for (size_t i = 0; i < m->nmat && rc == 0; i++) {
		struct stat st;

		if (fstatat(mfd, m->mat[i].digest + 7, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || !store__same_identity(&st, &m->mat[i].st))
			rc = sw_error_set(err, SW_EUNSAFE, "material %s changed after it was written",
					  m->mat[i].digest);
	}
	if (rc == 0)
		rc = store__check_dir_at(r->fd, MATERIALS_NAME, &mst, err);
	store__close_fd(&mfd);
	return rc;
}

int store_read_material(void **out, size_t *len, struct store *s,
			const char *run_id, const char *digest,
			struct sw_error *err)
{
	struct run_dir r = RUN_DIR_INIT;
	struct stat mst;
	int mfd = -1, rc;

	*out = NULL;
	*len = 0;
	store__fail_reset(s);
	if (!sw_digest_valid(digest))
		return sw_error_set(err, SW_EINVAL,
				    "material digest must use lowercase sha256:<64 hex> format");
	if ((rc = store__run_open(&r, s, run_id, false, err)) < 0)
		goto out;
	{
		struct sw_error e = SW_ERROR_INIT;

		if ((rc = store__open_dir_at(&mfd, &mst, NULL, r.fd, MATERIALS_NAME,
					     false, false, &e)) < 0) {
			rc = e.sys_errno == ENOENT ?
				sw_error_set(err, SW_ENOTFOUND, "material %s not found", digest) :
				store__pass_up(err, &e);
			goto out;
		}
	}
	if ((rc = read_blob(out, len, NULL, mfd, digest + 7, digest, true, err)) < 0)
		goto out;
	if ((rc = store__check_dir_at(r.fd, MATERIALS_NAME, &mst, err)) < 0 ||
	    (rc = store__run_valid(s, &r, err)) < 0) {
		sw_free(*out);
		*out = NULL;
		*len = 0;
	}
out:
	store__close_fd(&mfd);
	store__run_close(&r);
	return rc;
}

/* A mutation that did not commit takes back the blobs it made, which no
 * journal line names, and the materials/ it made, so that the Run's
 * directory holds what it held (a failed creation removes its staged
 * directory whole).  Best effort, under the lock: a blob left behind is
 * only unreferenced. */
void store__drop_new_materials(struct run_dir *r, struct store_mutation *m)
{
	bool any = false;
	int mfd;

	for (size_t i = 0; i < m->nmat; i++)
		any = any || m->mat[i].created;
	if (any && (mfd = openat(r->fd, MATERIALS_NAME,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		for (size_t i = 0; i < m->nmat; i++) {
			struct stat st;

			/* Only the very file put_blob made: its inode, which
			 * whatever failed after the rename may not have read. */
			if (m->mat[i].created &&
			    fstatat(mfd, m->mat[i].digest + 7, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(st.st_mode) && store__same_file(&st, &m->mat[i].st))
				unlinkat(mfd, m->mat[i].digest + 7, 0);
			m->mat[i].created = false;
		}
		close(mfd);
	}
	/* Removed only when empty: what it holds stays. */
	if (m->mat_dir_created)
		unlinkat(r->fd, MATERIALS_NAME, AT_REMOVEDIR);
	m->mat_dir_created = false;
}
