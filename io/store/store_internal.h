/* What the files of the run store (store_*.c) share and nothing outside
 * io/store/ includes: the store handle, a Run's directory handle, the
 * records of a mutation, and the store__ functions each file lends its
 * siblings.  Listed lowest first: each file calls only the ones above its
 * own block (make check-layers proves there is no circle). */
#ifndef IO_STORE_STORE_INTERNAL_H
#define IO_STORE_STORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "io/store/store.h"
#include "io/util/os.h"

/* The fixed names, from the rows of io/store/store_layout.def. */
#define SLIPWAY_NAME store_entries[STORE_ENTRY_SLIPWAY].name
#define RUNS_NAME store_entries[STORE_ENTRY_RUNS].name
#define JOURNAL_NAME store_entries[STORE_ENTRY_JOURNAL].name
#define PROJECTION_NAME store_entries[STORE_ENTRY_PROJECTION].name
#define LOCK_NAME store_entries[STORE_ENTRY_LOCK].name
#define CHECKPOINT_NAME store_entries[STORE_ENTRY_CHECKPOINT].name
#define CHECKPOINT_LOG_NAME store_entries[STORE_ENTRY_CHECKPOINT_LOG].name
#define SUMMARY_NAME store_entries[STORE_ENTRY_SUMMARY].name
#define MATERIALS_NAME store_entries[STORE_ENTRY_MATERIALS].name

struct store {
	char *common_path;
	bool writable;
	bool empty;		/* read-only and slipway/ or runs/ absent */
	int common_fd, slipway_fd, runs_fd;
	struct stat common_st, slipway_st, runs_st;
	store_clock_fn *clock;
	void *clock_payload;
	unsigned lock_timeout_ms;
	/* One deadline for every lock wait of this handle (one command):
	 * set when a lock first has to wait, 0 before. */
	long long lock_deadline;
	struct store_failure fail;
};

/* An opened run directory and, while locked, its lock descriptor (the Run
 * record itself is io/store/run.h's struct run). */
struct run_dir {
	const char *id;
	int fd;
	struct stat st;
	int lock_fd;
	off_t cut_at;	/* a torn only record to cut when the journal is next appended */
	bool lock_damaged;	/* run.lock is no regular file we can open: a commit replaces it */
};

#define RUN_DIR_INIT { NULL, -1, { 0 }, -1, -1, false }

/* What is known about an in-flight mutation (upstream mutationTracker). */
struct txn {
	const char *phase;
	bool wrote;		/* journal bytes reached the file */
	bool committed;		/* journal fsynced (and dir for a new journal) */
	bool pending;		/* committed but run.json not yet installed */
	bool detached;		/* a write hit an inode whose path moved */
};

struct mut_event {
	enum tbl_jevent type;
	char *data;
	size_t len;
};

struct mut_material {
	char digest[SW_DIGEST_LEN];
	void *bytes;
	size_t len;
	struct stat st;		/* the blob as put_blob found its content right;
				 * once created, at least its device and inode */
	bool created;		/* put_blob made the blob (it was not there) */
};

struct store_mutation {
	struct store *s;
	long long base;
	struct mut_event *ev;
	size_t nev;
	char *proj;
	size_t proj_len;
	struct sw_piece *piece;	/* run.json given whole (borrowed bytes) */
	size_t npiece;
	struct mut_material *mat;
	size_t nmat;
	bool mat_dir_created;	/* store__put_materials made materials/ */
	const char *cp_body;	/* checkpoint body (borrowed), or NULL */
	size_t cp_len;
	const char *cp_log;	/* log bytes to add after cp_log_base */
	size_t cp_log_len, cp_log_base;
	char *sum_body;		/* listing summary body (owned), or NULL */
	size_t sum_len;
	/* Set by store_update_resumable: the hash of the whole journal as
	 * replayed (NULL when a repair or a read made it unusable), and of
	 * the checkpoint log adopted with its length and file (lhash NULL
	 * when none was). */
	struct sw_lchain *jhash;
	off_t jlen;
	struct sw_xxh *lhash;
	size_t llen;
	struct stat lst;
	/* The run.json adopted with the checkpoint (st_ino 0 when none):
	 * pieces without bytes are copied from it. */
	struct stat src_st;
	/* While the store keeps warm: the adopted log's bytes (its first
	 * llen), and the journal as the append left it. */
	char *old_log;
	struct stat jst;
};

/* Where a replay starts and what it hashes (store_update_resumable). */
struct replay_from {
	off_t skip;		/* bytes a checkpoint covers */
	long long base;		/* events they hold */
	struct sw_lchain *hash;	/* gets every byte read after `skip` */
	bool repaired;		/* out: the tail was cut or terminated */
	off_t end;		/* out: the journal's length afterwards */
};

/* A run.json temp written and not yet installed (store_projection.c). */
struct prepared {
	int prev_fd;		/* pinned old run.json, or -1 */
	struct stat prev_st;	/* its status, or the damaged entry's */
	bool damaged;		/* run.json is there but no regular file we can read */
	char tmp[64];
	struct stat tmp_st;
	bool renamed;
};

/* store_names.c: a random suffix of 16 hex digits for a temporary name. */
int store__random_hex16(char out[17], struct sw_error *err);

/* store_fault.c: each call is one step of the fault seam (STORE_STEP_*);
 * they fail as the system calls they stand for do (-1 and errno). */
int store__f_write(int fd, const void *buf, size_t n, size_t *done);
int store__f_write_pieces(int fd, const struct sw_piece *pc, size_t n, int src);
int store__f_fsync(int fd);
int store__f_fsync_dir(int fd);
int store__f_rename(int dfd, const char *from, const char *to);
int store__f_mkdir(int dfd, const char *name);
int store__f_unlink(int dfd, const char *name, int flags);
int store__f_create(int dfd, const char *name, int flags);

/* store_anchor.c: identities, anchored opening and re-checks (contracts at
 * each definition); 0 or a negative sw_code. */
void store__close_fd(int *fd);
bool store__same_file(const struct stat *a, const struct stat *b);
bool store__same_identity(const struct stat *a, const struct stat *b);
int store__open_dir_at(int *fd, struct stat *st, bool *created, int pfd,
		       const char *name, bool create, bool secure,
		       struct sw_error *err);
int store__check_dir_at(int pfd, const char *name, const struct stat *st,
			struct sw_error *err);
int store__check_leaf(int dfd, const char *name, int fd, struct sw_error *err);
int store__open_leaf(int *fd, int dfd, const char *name, int flags,
		     struct sw_error *err);
int store__open_journal(int *fd, int dfd, int flags, struct sw_error *err);
int store__sync_dir(int fd, const struct stat *st, const char *what,
		    struct sw_error *err);
int store__anchors_valid(struct store *s, struct sw_error *err);
int store__run_valid(struct store *s, struct run_dir *r, struct sw_error *err);
int store__pass_up(struct sw_error *err, const struct sw_error *e);

/* store_open.c: the failure record of the handle (store_last_failure). */
void store__fail_reset(struct store *s);
int store__finish_mutation(struct store *s, const struct txn *t, int rc,
			   struct sw_error *err);
int store__fail_proto(struct store *s, struct sw_error *err, enum tbl_err code,
		      const char *fmt, const char *arg);

/* store_lock.c: a Run's directory handle and its lock. */
void store__run_close(struct run_dir *r);
int store__run_open(struct run_dir *r, struct store *s, const char *id, bool secure,
		    struct sw_error *err);
int store__lock_wait(int fd, struct store *s, int op, struct sw_error *err);
int store__run_lock(struct run_dir *r, struct store *s, bool exclusive,
		    struct sw_error *err);
int store__ensure_lock_file(struct run_dir *r, struct txn *t, struct sw_error *err);

/* store_staged.c: staging directories (io/store/store_names.h): the
 * shared lock on runs/ a creation holds until its own is locked (0 or
 * run_busy), the removal of a staging directory's contents and of the
 * ones killed creations left (best effort). */
int store__staging_hold(struct store *s, struct sw_error *err);
void store__staging_release(struct store *s);
void store__remove_staged(int dfd);
void store__collect_staged(struct store *s);

/* store_replay.c: streams the journal through `visit` (from may be NULL). */
int store__replay(struct store *s, struct run_dir *r, bool repair,
		  store_visit_fn *visit, void *payload, long long *count,
		  struct replay_from *from, struct sw_error *err);

/* store_mutation.c: the collected mutation, released and encoded. */
void store__mutation_release(struct store_mutation *m);
int store__encode_mutation(char **journal, size_t *jlen, char **proj,
			   size_t *plen, struct store *s,
			   const struct store_mutation *m, struct txn *t,
			   struct sw_error *err);

/* store_materials.c: the mutation's blobs written, re-checked, taken back. */
int store__put_materials(struct run_dir *r, struct store_mutation *m,
			 struct txn *t, struct sw_error *err);
int store__verify_materials(struct run_dir *r, const struct store_mutation *m,
			    struct sw_error *err);
void store__drop_new_materials(struct run_dir *r, struct store_mutation *m);

/* store_projection.c: run.json's temp and install; damaged entries parked. */
int store__park_entry(struct run_dir *r, const char *name, const struct stat *st,
		      char parked[96], struct sw_error *err);
int store__drop_parked(struct run_dir *r, const char *parked, const struct stat *st,
		       struct sw_error *err);
void store__prepared_discard(struct prepared *p, struct run_dir *r);
int store__prepare_projection(struct prepared *p, struct run_dir *r,
			      const struct sw_piece *pc, size_t n, const struct stat *src,
			      struct txn *t, struct sw_error *err);
int store__install_projection(struct prepared *p, struct run_dir *r, struct txn *t,
			      struct sw_error *err);

/* store_append.c: the journal append and its fsync. */
int store__append_journal(bool *existed, struct stat *after, struct store *s,
			  struct run_dir *r, const char *bytes, size_t len, struct txn *t,
			  struct sw_error *err);

/* store_checkpoint.c: run.checkpoint and its log; and the small leaf
 * reader, writer, identity text and prefix hash the summary shares. */
char *store__read_leaf(size_t *len, struct stat *st, struct run_dir *r, const char *name,
		       size_t want, size_t max);
void store__identity_text(char out[160], const struct stat *st);
bool store__hash_prefix(struct sw_lchain *h, int fd, off_t len);
bool store__replace_leaf(struct run_dir *r, const char *name, const struct iovec *iov, int n);
bool store__rewrite_leaf(struct run_dir *r, const char *name, const struct iovec *iov, int n);
bool store__pwrite_iov(int fd, const struct iovec *iov, int n, off_t at);
bool store__leaf_is_ours(const struct stat *st);
const char *store__boot_id(void);
#ifdef SW_TESTING
/* store_test_kill_rewrite: when it names `name`, writes (half of) iov at
 * `at` and exits; else false. */
bool store__test_kill_here(int fd, const char *name, const struct iovec *iov, int n, off_t at);
#endif
int store__checkpoint_load(struct store_checkpoint *cp, char **file, struct sw_lchain **jhash,
			   off_t *skip, struct sw_xxh **lhash, struct stat *lst,
			   struct stat *pst, struct run_dir *r);
bool store__checkpoint_write(struct run_dir *r, struct store_mutation *m,
			     long long sequence, off_t jlen, const char *jhex,
			     struct stat *lst, struct stat *pst);

/* store_warm.c: the checkpoint kept in memory (store_keep_warm). */
bool store__warm_on(void);
void store__warm_clear(void);
void store__warm_keep(struct run_dir *r, struct store_mutation *m, long long sequence,
		      off_t jlen, const struct stat *lst, const struct stat *pst);
bool store__warm_adopt(struct store_checkpoint *cp, struct replay_from *from,
		       struct sw_xxh **lhash, struct store_mutation *m, struct stat *pst,
		       struct run_dir *r);

/* store_summary.c: run.summary for the committed state (best effort). */
void store__summary_write(struct run_dir *r, const struct store_mutation *m, bool create,
			  const char *prev_jhex, long long jlen, const char *jhex);

#endif
