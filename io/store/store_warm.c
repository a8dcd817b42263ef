/* The checkpoint kept in memory (store_keep_warm): the last one this
 * process wrote, adopted by the next update of that Run while the journal,
 * the log and run.json are provably as the mutation left them.  Writes no
 * file; opens run.json only to pin it. */

#include "io/store/store_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* A long-lived process keeps the last checkpoint it wrote, with the status
 * of the journal, the log and run.json as it left them and the digest
 * states of the journal and the log.  The next update of that Run adopts
 * it instead of reading, hashing and checking run.checkpoint, its log and
 * the journal's prefix, but only while it is provably current: the same
 * run directory, and the journal, the log and run.json each still the
 * very file with the size and the modification and change times the
 * mutation left (any write or replacement through the file system changes
 * the change time, which no unprivileged caller can set back).  Another
 * process that mutates the Run appends to its journal, so the next update
 * finds the kept checkpoint stale, drops it and reads the files. */
static struct {
	bool on, valid;
	char run_id[STORE_RUN_ID_MAX + 1];
	struct stat dir_st;
	long long sequence;
	char *body, *log;
	size_t body_len, log_len;
	struct sw_lchain *jhash;
	struct sw_xxh *lhash;
	off_t jlen;
	struct stat jst, lst, pst;
} warm;

void store__warm_clear(void)
{
	sw_free(warm.body);
	sw_free(warm.log);
	sw_lchain_free(warm.jhash);
	sw_xxh_free(warm.lhash);
	warm.body = warm.log = NULL;
	warm.jhash = NULL;
	warm.lhash = NULL;
	warm.valid = false;
}

/* Whether this process keeps its checkpoints (store_keep_warm). */
bool store__warm_on(void)
{
	return warm.on;
}

void store_keep_warm(bool on)
{
	store__warm_clear();
	warm.on = on;
}

/* Keeps the checkpoint just written for Run r (its journal `jlen` bytes,
 * `sequence` events): m's body and log and the digest states it holds. */
void store__warm_keep(struct run_dir *r, struct store_mutation *m, long long sequence,
		      off_t jlen, const struct stat *lst, const struct stat *pst)
{
	size_t old = m->cp_log_base > 0 ? m->llen : 0;

	store__warm_clear();
	if (!warm.on || m->jhash == NULL || m->lhash == NULL || m->jst.st_ino == 0 ||
	    m->jst.st_size != jlen || (old > 0 && m->old_log == NULL) ||
	    strlen(r->id) > STORE_RUN_ID_MAX)
		return;
	if ((warm.body = sw_malloc(m->cp_len + 1)) == NULL ||
	    (warm.log = sw_malloc(old + m->cp_log_len + 1)) == NULL) {
		store__warm_clear();
		return;
	}
	memcpy(warm.body, m->cp_body, m->cp_len);
	if (old > 0)
		memcpy(warm.log, m->old_log, old);
	memcpy(warm.log + old, m->cp_log, m->cp_log_len);
	warm.body_len = m->cp_len;
	warm.log_len = old + m->cp_log_len;
	warm.jhash = m->jhash;
	warm.lhash = m->lhash;
	m->jhash = NULL;
	m->lhash = NULL;
	snprintf(warm.run_id, sizeof(warm.run_id), "%s", r->id);
	warm.dir_st = r->st;
	warm.sequence = sequence;
	warm.jlen = jlen;
	warm.jst = m->jst;
	warm.lst = *lst;
	warm.pst = *pst;
	warm.valid = true;
}

/* Adopts the kept checkpoint for Run r when it is provably current (see
 * above): fills *cp (the body borrowed, the log a copy), the journal's
 * digest state and length in `from`, the log's state in *lhash and its
 * status in m, run.json's status in *pst.  False, dropping it, when it
 * is stale. */
bool store__warm_adopt(struct store_checkpoint *cp, struct replay_from *from,
		       struct sw_xxh **lhash, struct store_mutation *m, struct stat *pst,
		       struct run_dir *r)
{
	struct sw_error e = SW_ERROR_INIT;
	struct stat st;

	memset(cp, 0, sizeof(*cp));
	cp->projection_fd = -1;
	if (!warm.on || !warm.valid)
		return false;
	if (strcmp(warm.run_id, r->id) != 0 || !store__same_file(&warm.dir_st, &r->st) ||
	    fstatat(r->fd, JOURNAL_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !store__same_identity(&st, &warm.jst) || st.st_size != warm.jlen ||
	    (warm.lst.st_ino != 0 &&
	     (fstatat(r->fd, CHECKPOINT_LOG_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	      !store__same_identity(&st, &warm.lst))) ||
	    store__open_leaf(&cp->projection_fd, r->fd, PROJECTION_NAME, O_RDONLY, &e) < 0 ||
	    fstat(cp->projection_fd, pst) < 0 || !store__same_identity(pst, &warm.pst))
		goto stale;
	if (warm.log_len > 0) {
		if ((cp->log = sw_malloc(warm.log_len + 1)) == NULL)
			goto stale;
		memcpy(cp->log, warm.log, warm.log_len);
	}
	if (sw_lchain_copy(&from->hash, warm.jhash, &e) < 0 ||
	    sw_xxh_copy(lhash, warm.lhash, &e) < 0)
		goto stale;
	cp->sequence = warm.sequence;
	cp->body = warm.body;
	cp->body_len = warm.body_len;
	cp->log_len = warm.log_len;
	cp->projection_len = (size_t)pst->st_size;
	from->skip = warm.jlen;
	m->lst = warm.lst;
	return true;
stale:
	sw_lchain_free(from->hash);
	sw_xxh_free(*lhash);
	from->hash = NULL;
	*lhash = NULL;
	store_checkpoint_release(cp);
	memset(cp, 0, sizeof(*cp));
	cp->projection_fd = -1;
	store__warm_clear();
	return false;
}
