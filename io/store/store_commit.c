/* store_create and store_update: the order of a mutation's steps
 * (leftovers swept, a damaged lock marker replaced, materials, run.json
 * temp, journal append, commit, install, caches) and the staged directory
 * a new Run is built in and published by one rename.  Each step's own file
 * work is in the rooms below (io/store/store_internal.h). */

#include "io/store/store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/store/store_names.h"

/* A Run under construction: ".tmp-<run id>-<16 hex>", outside the run id
 * grammar so that no listing takes it for a Run. */
#define STAGED_PREFIX STORE_STAGED_PREFIX
#define STAGED_NAME_MAX 160

static int require_writable(struct store *s, struct txn *t, struct sw_error *err)
{
	t->phase = "validation";
	if (!s->writable)
		return sw_error_set(err, SW_EINVAL, "run store is read-only");
	return 0;
}

/* Removes from directory `dfd` the entries `is_ours` names: temporaries
 * of mutations killed before they finished.  A directory of such a name
 * (a damaged entry parked by a mutation killed before it removed it) goes
 * only when empty.  Only under the Run's exclusive lock, where no live
 * mutation owns one.  With `found` not NULL, only counts them there. */
static int sweep_dir(int dfd, bool (*is_ours)(const char *name), size_t *found,
		     struct sw_error *err)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		rc = sw_error_sys(err, errno, "cannot list leftovers");
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat st;

		bool dir;

		if (!is_ours(de->d_name) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (found != NULL) {
			(*found)++;
			continue;
		}
		dir = S_ISDIR(st.st_mode);
		if (store__f_unlink(dfd, de->d_name, dir ? AT_REMOVEDIR : 0) < 0 && errno != ENOENT &&
		    !(dir && (errno == ENOTEMPTY || errno == EEXIST)))
			rc = sw_error_sys(err, errno, "cannot remove leftover '%s'", de->d_name);
	}
	closedir(d);
	return rc;
}

/* A mutation makes material temporaries only while its run.json temporary
 * exists (commit_mutation prepares run.json before it puts materials, and
 * renames or removes that temporary only after put_blob has renamed or
 * removed each of its own; a new Run's are in its staged directory).  So
 * a killed mutation that left one in materials/ left a leftover in the
 * run directory too: materials/ (a blob an Action, a thousand names in a
 * long Run) is listed only when the run directory holds any, and the run
 * directory's own go last, so that a sweep killed half-way leaves them
 * there to send the next one into materials/ again. */
static int sweep_temporaries(struct run_dir *r, struct txn *t, struct sw_error *err)
{
	struct sw_error e = SW_ERROR_INIT;
	struct stat mst;
	size_t found = 0;
	int mfd = -1, rc;

	t->phase = "leftover_cleanup";
	if ((rc = sweep_dir(r->fd, store__is_run_temporary, &found, err)) < 0 || found == 0)
		return rc;
	/* No materials/ (or one that is no directory) holds no leftover. */
	if (store__open_dir_at(&mfd, &mst, NULL, r->fd, MATERIALS_NAME, false, false, &e) == 0) {
		rc = sweep_dir(mfd, store__is_material_temporary, NULL, err);
		if (rc == 0)
			rc = store__check_dir_at(r->fd, MATERIALS_NAME, &mst, err);
		store__close_fd(&mfd);
	}
	return rc < 0 ? rc : sweep_dir(r->fd, store__is_run_temporary, NULL, err);
}

/* Replaces a damaged run.lock marker with an empty regular one: the new
 * marker is made under a temporary name, the damaged entry parked and the
 * marker renamed into place. */
static int repair_lock_file(struct run_dir *r, struct txn *t, struct sw_error *err)
{
	char rnd[17], tmp[64], parked[96] = "";
	struct stat st;
	int fd = -1, rc;

	t->phase = "lock_repair";
	if (fstatat(r->fd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return sw_error_sys(err, errno, "cannot inspect run lock");
	if ((rc = store__random_hex16(rnd, err)) < 0)
		return rc;
	snprintf(tmp, sizeof(tmp), ".tmp-%s-%s", LOCK_NAME, rnd);
	if ((fd = store__f_create(r->fd, tmp, O_WRONLY)) < 0)
		return sw_error_sys(err, errno, "cannot create run lock");
	if (fchmod(fd, 0600) < 0 || (rc = store__check_leaf(r->fd, tmp, fd, err)) < 0) {
		rc = rc < 0 ? rc : sw_error_sys(err, errno, "cannot secure run lock");
		goto out;
	}
	if ((rc = store__park_entry(r, LOCK_NAME, &st, parked, err)) < 0)
		goto out;
	if (store__f_rename(r->fd, tmp, LOCK_NAME) < 0) {
		rc = sw_error_sys(err, errno, "cannot install run lock");
		sw_os_rename_noreplace(r->fd, parked, LOCK_NAME);
		goto out;
	}
	tmp[0] = '\0';
	r->lock_damaged = false;
	rc = store__drop_parked(r, parked, &st, err);
out:
	store__close_fd(&fd);
	if (tmp[0])
		unlinkat(r->fd, tmp, 0);
	return rc;
}

#ifdef SW_TESTING
static void (*after_materials)(void *);
static void *after_materials_arg;

void store_test_after_materials(void (*fn)(void *), void *arg)
{
	after_materials = fn;
	after_materials_arg = arg;
}
#endif

/* Everything after the callback: projection temp, materials, journal,
 * commit, projection install.  `create` follows the create ordering. */
static int commit_mutation(struct store *s, struct run_dir *r,
			   struct store_mutation *m, bool create,
			   struct txn *t, struct sw_error *err)
{
	struct prepared p = { .prev_fd = -1 };
	char jhex[SW_XXH_HEX_LEN] = "", prev_jhex[SW_XXH_HEX_LEN] = "";
	char *journal = NULL, *proj = NULL;
	size_t jlen = 0, plen = 0;
	bool existed = false;
	struct sw_piece whole = { NULL, 0, 0 };
	int rc;

	if ((rc = store__encode_mutation(&journal, &jlen, &proj, &plen, s, m, t, err)) < 0)
		goto out;
	/* A mutation that commits first clears what killed ones left and
	 * mends a damaged lock marker; a refused one changes nothing. */
	if (!create && ((rc = sweep_temporaries(r, t, err)) < 0 ||
			(r->lock_damaged && (rc = repair_lock_file(r, t, err)) < 0)))
		goto out;
	if (create && (rc = store__put_materials(r, m, t, err)) < 0)
		goto out;
	whole.bytes = proj;
	whole.len = plen;
	if ((rc = store__prepare_projection(&p, r, m->piece ? m->piece : &whole,
					    m->piece ? m->npiece : 1, &m->src_st, t, err)) < 0)
		goto out;
	/* After the run.json temporary exists: sweep_temporaries relies on it. */
	if (!create && (rc = store__put_materials(r, m, t, err)) < 0)
		goto out;
#ifdef SW_TESTING
	if (after_materials != NULL)
		after_materials(after_materials_arg);
#endif
	t->phase = "namespace_verify";
	if ((rc = store__verify_materials(r, m, err)) < 0)
		goto out;
	if ((rc = store__append_journal(&existed, &m->jst, s, r, journal, jlen, t, err)) < 0)
		goto out;
	if (!existed) {
		/* A new journal is committed once its directory entry is; a
		 * new Run only once its staged directory is published. */
		t->phase = "directory_sync";
		if ((rc = store__sync_dir(r->fd, &r->st, "run", err)) < 0)
			goto out;
		t->committed = !create;
		t->pending = !create;
	}
	t->phase = "journal_verify";
	if ((rc = store__verify_materials(r, m, err)) < 0)
		goto out;
	if ((rc = store__install_projection(&p, r, t, err)) < 0)
		goto out;
	if (create) {
		struct sw_lchain *h = NULL;

		if (sw_lchain_new(&h, &(struct sw_error)SW_ERROR_INIT) == 0) {
			sw_lchain_update(h, journal, jlen);
			sw_lchain_peek_hex(h, jhex);
		}
		sw_lchain_free(h);
	} else if (m->jhash != NULL) {
		sw_lchain_peek_hex(m->jhash, prev_jhex);
		sw_lchain_update(m->jhash, journal, jlen);
		sw_lchain_peek_hex(m->jhash, jhex);
	}
	if (!create && m->cp_body != NULL && jhex[0]) {
		struct stat lst, pst;
		long long seq = m->base + (long long)m->nev;
		off_t end = m->jlen + (off_t)jlen;

		if (store__checkpoint_write(r, m, seq, end, jhex, &lst, &pst))
			store__warm_keep(r, m, seq, end, &lst, &pst);
		else
			store__warm_clear();
	} else if (!create) {
		store__warm_clear();
	}
	store__summary_write(r, m, create, prev_jhex, (long long)(m->jlen + (off_t)jlen), jhex);
out:
	if (rc < 0 && !create && !t->committed && !t->wrote)
		store__drop_new_materials(r, m);
	store__prepared_discard(&p, r);
	sw_free(proj);
	sw_free(journal);
	return rc;
}

/* A Run is built under a staging name and renamed into place (no
 * replace) once its journal, projection, lock and materials are durable:
 * a creation that fails or is interrupted never leaves a directory under
 * the run id.  The rename is the commit point.  The staging directories
 * killed creations left are removed first; the shared lock on runs/ is
 * held until this one's staging directory is locked, so that no other
 * creation takes it for such a leftover (io/store/store_names.h). */
int store_create(struct store *s, const char *run_id, store_mutate_fn *mutate,
		 void *payload, struct sw_error *err)
{
	struct store_mutation m = { 0 };
	struct txn t = { "validation", false, false, false, false };
	struct run_dir r = RUN_DIR_INIT;
	char staged[STAGED_NAME_MAX] = "", rnd[17];
	int rc;

	store__fail_reset(s);
	m.s = s;
	if ((rc = require_writable(s, &t, err)) < 0)
		goto out;
	if (!store_run_id_valid(run_id)) {
		rc = sw_error_set(err, SW_EINVAL, "invalid run id");
		goto out;
	}
	t.phase = "callback";
	if ((rc = mutate(&m, payload, err)) < 0) {
		if (err && err->code == SW_OK)
			rc = sw_error_set(err, rc, "mutation callback failed");
		goto out;
	}
	t.phase = "validation";
	if (m.nev != 1) {
		rc = sw_error_set(err, SW_EINVAL, "a new run needs exactly one event");
		goto out;
	}
	t.phase = "namespace_verify";
	if ((rc = store__anchors_valid(s, err)) < 0)
		goto out;
	t.phase = "directory_create";
	if (faccessat(s->runs_fd, run_id, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		rc = sw_error_set(err, SW_ECONFLICT, "run '%s' already exists", run_id);
		goto out;
	}
	if ((rc = store__random_hex16(rnd, err)) < 0)
		goto out;
	store__collect_staged(s);
	if ((rc = store__staging_hold(s, err)) < 0)
		goto out;
	snprintf(staged, sizeof(staged), "%s%s-%s", STAGED_PREFIX, run_id, rnd);
	if (store__f_mkdir(s->runs_fd, staged) < 0) {
		staged[0] = '\0';
		rc = sw_error_sys(err, errno, "cannot create run directory");
		goto out;
	}
	r.id = staged;
	if ((rc = store__open_dir_at(&r.fd, &r.st, NULL, s->runs_fd, staged, false,
				     true, err)) < 0)
		goto out;
	t.phase = "lock_open";
	if ((rc = store__run_lock(&r, s, true, err)) < 0)
		goto out;
	store__staging_release(s);
	if ((rc = store__ensure_lock_file(&r, &t, err)) < 0)
		goto out;
	if ((rc = commit_mutation(s, &r, &m, true, &t, err)) < 0)
		goto out;
	t.phase = "directory_create";
	if ((rc = store__run_valid(s, &r, err)) < 0)
		goto out;
	if (store__f_rename(s->runs_fd, staged, run_id) < 0) {
		rc = errno == EEXIST ?
			sw_error_set(err, SW_ECONFLICT, "run '%s' already exists", run_id) :
			sw_error_sys(err, errno, "cannot publish run directory");
		goto out;
	}
	staged[0] = '\0';
	r.id = run_id;
	t.committed = true;
	t.phase = "directory_sync";
	if ((rc = store__sync_dir(s->runs_fd, &s->runs_st, RUNS_NAME, err)) < 0)
		goto out;
	t.phase = "namespace_verify";
	rc = store__run_valid(s, &r, err);
out:
	if (staged[0] && r.fd >= 0) {
		/* Nothing of the staged Run is visible: its bytes do not count
		 * as written. */
		store__remove_staged(r.fd);
		unlinkat(s->runs_fd, staged, AT_REMOVEDIR);
		t.wrote = false;
	} else if (staged[0]) {
		unlinkat(s->runs_fd, staged, AT_REMOVEDIR);
	}
	store__staging_release(s);
	store__run_close(&r);
	store__mutation_release(&m);
	return store__finish_mutation(s, &t, rc, err);
}

/* Replays under the lock, from a checkpoint `resume` adopts when there
 * is one (resume may be NULL); m->jhash gets the journal's digest state
 * when it is usable for the next checkpoint. */
static int replay_for_update(struct store *s, struct run_dir *r, store_resume_fn *resume,
			     store_visit_fn *visit, void *payload, long long *count,
			     struct store_mutation *m, struct sw_error *err)
{
	struct replay_from from = { 0 };
	struct store_checkpoint cp;
	struct sw_xxh *lhash = NULL;
	struct stat pst;
	char *file = NULL;
	int rc;

	if (resume == NULL)
		return store__replay(s, r, true, visit, payload, count, NULL, err);
	if (store__warm_adopt(&cp, &from, &lhash, m, &pst, r) ||
	    store__checkpoint_load(&cp, &file, &from.hash, &from.skip, &lhash, &m->lst, &pst, r)) {
		size_t llen = cp.log_len;

		/* A later checkpoint appends to this log: keep its bytes. */
		if (store__warm_on() && llen > 0 && (m->old_log = sw_malloc(llen)) != NULL)
			memcpy(m->old_log, cp.log, llen);
		rc = resume(&cp, payload, err);
		store_checkpoint_release(&cp);
		sw_free(file);
		if (rc != 0) {
			sw_lchain_free(from.hash);
			sw_xxh_free(lhash);
			if (rc < 0)
				return rc;
			from.hash = NULL;
			from.skip = 0;
		} else {
			from.base = cp.sequence;
			m->lhash = lhash;
			m->llen = llen;
			m->src_st = pst;
		}
	}
	if (from.hash == NULL && sw_lchain_new(&from.hash, &(struct sw_error)SW_ERROR_INIT) < 0)
		from.hash = NULL;	/* no checkpoint this time */
	rc = store__replay(s, r, true, visit, payload, count, &from, err);
	if (rc < 0 || from.repaired || from.hash == NULL) {
		sw_lchain_free(from.hash);
		return rc;
	}
	m->jhash = from.hash;
	m->jlen = from.end;
	return 0;
}

int store_update_resumable(struct store *s, const char *run_id,
			   store_resume_fn *resume, store_visit_fn *visit,
			   store_mutate_fn *mutate, void *payload,
			   struct sw_error *err)
{
	struct store_mutation m = { 0 };
	struct txn t = { "validation", false, false, false, false };
	struct run_dir r = RUN_DIR_INIT;
	long long count = 0;
	int rc;

	store__fail_reset(s);
	m.s = s;
	if ((rc = require_writable(s, &t, err)) < 0)
		goto out;
	t.phase = "namespace_verify";
	if ((rc = store__run_open(&r, s, run_id, true, err)) < 0)
		goto out;
	t.phase = "lock_open";
	if ((rc = store__run_lock(&r, s, true, err)) < 0)
		goto out;
	if ((rc = store__ensure_lock_file(&r, &t, err)) < 0)
		goto out;
	t.phase = "replay";
	if ((rc = replay_for_update(s, &r, resume, visit, payload, &count, &m, err)) < 0)
		goto out;
	m.base = count;
	t.phase = "callback";
	if ((rc = mutate(&m, payload, err)) < 0) {
		if (err && err->code == SW_OK)
			rc = sw_error_set(err, rc, "mutation callback failed");
		goto out;
	}
	/* The Run's directory is re-proved (store__run_valid: the anchors,
	 * and the directory held still the one at runs/<id>) when the lock
	 * is taken and around the journal append, the commit point
	 * (store__append_journal: before it, and after the write and the
	 * fsync, which tell a detached commit).  The steps in between need
	 * no check of their own: each reads and writes through the directory
	 * descriptor held, so what it does lands in the Run's own directory
	 * wherever that is, and a directory moved meanwhile fails the check
	 * before the append, which refuses the mutation with nothing
	 * committed (its new blobs taken back and its temporaries removed or
	 * swept, as after any refusal).  Once the append's last check has
	 * proved the commit at its name, installing run.json and the caches
	 * through the same descriptor cannot make it less so: a move after
	 * that is a move after the reply (store__install_projection).  A
	 * mutation with nothing to commit answers from what it read, which is
	 * re-proved as a reader's is. */
	if (m.nev == 0) {
		t.phase = "lock_verify";
		rc = store__run_valid(s, &r, err);
		goto out;
	}
	rc = commit_mutation(s, &r, &m, false, &t, err);
out:
	store__run_close(&r);
	store__mutation_release(&m);
	return store__finish_mutation(s, &t, rc, err);
}

#ifdef SW_TESTING
int store_test_projection(struct store *s, const char *run_id, char **out, size_t *len)
{
	struct run_dir r = RUN_DIR_INIT;
	struct stat st;
	int rc;

	*out = NULL;
	if ((rc = store__run_open(&r, s, run_id, false, NULL)) == 0 &&
	    (*out = store__read_leaf(len, &st, &r, PROJECTION_NAME, SIZE_MAX, SIZE_MAX)) == NULL)
		rc = SW_EIO;
	store__run_close(&r);
	return rc;
}

int store_replay_unlocked(struct store *s, const char *run_id, store_visit_fn *visit,
			  void *payload, struct sw_error *err)
{
	struct run_dir r = RUN_DIR_INIT;
	long long count = 0;
	int rc;

	if ((rc = store__run_open(&r, s, run_id, false, err)) == 0)
		rc = store__replay(s, &r, false, visit, payload, &count, NULL, err);
	store__run_close(&r);
	return rc;
}
#endif

int store_update(struct store *s, const char *run_id, store_visit_fn *visit,
		 store_mutate_fn *mutate, void *payload, struct sw_error *err)
{
	return store_update_resumable(s, run_id, NULL, visit, mutate, payload, err);
}
