#ifndef IO_STORE_STORE_H
#define IO_STORE_STORE_H

/* The durable run store: <git-common-dir>/slipway/runs/<run-id>/ holding
 * journal.jsonl (authoritative, append-only), run.json (a replaceable
 * projection, never read back), run.lock (empty marker),
 * materials/<64 hex> (content-addressed blobs), and two caches of our
 * own: run.checkpoint(-log) and run.summary.  Directories are 0700,
 * files 0600.  Every path is reached by openat from an anchored directory
 * descriptor with O_NOFOLLOW and re-checked by (dev, inode); a symlinked
 * or swapped directory or file is refused.
 *
 * The store is generic over event payloads: `data` and the projection are
 * JSON text supplied by the caller; the Run semantics live above.
 *
 * Calling sequence: store_open, then any of store_create / store_update /
 * store_visit / store_first_event / store_list / store_read_material, then
 * store_free.
 *
 * Durability contract.  Create: removal of the staging directories of
 * creations that were killed (io/store/store_names.h), mkdir run dir,
 * fsync it and runs/, lock, materials (temp, fsync, rename-no-replace,
 * fsync materials/), projection temp, journal append + fsync, fsync run
 * dir (commit point), install run.json, fsync runs/.  Update: lock, replay (repairing a torn tail),
 * mutate callback; when it adds events: removal of the temporaries killed
 * mutations left (io/store/store_names.h) and of a damaged run.lock marker,
 * which is replaced, then projection temp, materials, journal append with
 * O_APPEND + fsync (commit point), then run.json is replaced through a
 * quarantine name with rename-no-replace (a run.json that is no regular
 * file it can read is replaced the same way).  Neither the run.json temp nor
 * those renames are synced: run.json is a projection that the next
 * mutation rewrites from the journal, and the checkpoint, the one reader
 * of its bytes, is refused after a reboot (see below).
 *
 * Errors.  Every failure returns a negative sw_code; store failures carry
 * the wire code in err->proto (SW_EPROTO): run_not_found, run_journal_invalid,
 * run_busy, journal_record_too_large, mutation_not_committed,
 * mutation_outcome_ambiguous, mutation_committed_projection_stale,
 * mutation_committed_verification_failed, runstore_unavailable.
 * store_last_failure() returns the details of the last failed call. */

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "io/util/buf.h"
#include "io/util/digest.h"
#include "io/util/err.h"
#include "tables/tables.h"

#define STORE_RUN_ID_MAX 128
#define STORE_MATERIAL_MAX 262144u
#define STORE_LOCK_TIMEOUT_MS 5000u
#define STORE_LOCK_POLL_MS 25u

/* The names of the run store (io/store/store_layout.def): every fixed name the
 * store opens, and the run-time names as patterns, for the docs. */
enum store_entry {
#define STORE_ENTRY(id, parent, name, kind, doc) STORE_ENTRY_##id,
#include "io/store/store_layout.def"
#undef STORE_ENTRY
	STORE_ENTRY__COUNT
};

enum store_entry_kind { STORE_KIND_DIR, STORE_KIND_FILE, STORE_KIND_STAGED };

struct store_entry_row {
	enum store_entry parent;
	const char *name;
	enum store_entry_kind kind;
	const char *doc;
};

extern const struct store_entry_row store_entries[STORE_ENTRY__COUNT];

struct store;
struct store_mutation;

/* One journal event handed to a visitor; every pointer is borrowed and
 * valid only during the call. */
struct store_event {
	long long sequence;
	enum tbl_jevent type;
	const char *at;		/* RFC3339Nano */
	const char *data;	/* raw JSON text, NUL-terminated */
	size_t data_len;
};

/* Details of the last failure (cliError details shapes M and J). */
struct store_failure {
	enum tbl_err code;	/* wire code, TBL_ERR_NONE after success */
	bool has_mutation;	/* shape M below is meaningful */
	char phase[32];
	bool committed;
	bool projection_stale;
	bool namespace_detached;
	bool ambiguous;
	bool has_limit;		/* shape J below is meaningful */
	char limit_context[32];
	size_t limit_size;
	size_t limit_max;
};

/* Visitor: called once per event in sequence order.  Return 0 to go on or
 * a negative sw_code (after setting err) to stop the replay. */
typedef int store_visit_fn(const struct store_event *ev, void *payload,
			   struct sw_error *err);
/* Mutator: called once under the lock after replay; adds 0..n events, the
 * projection and materials to `m`.  Returning an error rejects the
 * mutation and leaves the run untouched. */
typedef int store_mutate_fn(struct store_mutation *m, void *payload,
			    struct sw_error *err);
/* Clock used to stamp events; fills *now. */
typedef void store_clock_fn(struct timespec *now, void *payload);

/* Opens the store below the absolute `git_common_dir`.  Writable mode
 * creates slipway/ and runs/ (0700, fsynced); read-only mode creates,
 * chmods and repairs nothing (a missing namespace is an empty store).
 * *out is the caller's (store_free).  SW_EPROTO runstore_unavailable. */
int store_open(struct store **out, const char *git_common_dir, bool writable,
	       struct sw_error *err);
void store_free(struct store *s);

/* Replaces the event clock (default: CLOCK_REALTIME). */
void store_set_clock(struct store *s, store_clock_fn *fn, void *payload);
/* Replaces the 5 s lock wait (tests and tooling).  The wait is one for
 * the whole handle: it starts when a lock of `s` first has to wait, and
 * every lock after that waits only for what is left of it (a lock met
 * once it has run out is tried once), so a command that meets several
 * busy Runs waits `ms` in all, not `ms` per Run.  Test builds take the
 * default from SLIPWAY_TEST_LOCK_TIMEOUT_MS. */
void store_set_lock_timeout(struct store *s, unsigned ms);
/* Details of the last failed call on `s`; borrowed. */
const struct store_failure *store_last_failure(const struct store *s);

/* 1 if `id` matches [A-Za-z0-9_-]{1,128}. */
int store_run_id_valid(const char *id);
/* A random lowercase UUIDv4 (sw_os_random: getrandom(2) on Linux).  SW_EIO. */
int store_new_run_id(char out[37], struct sw_error *err);

/* Creates run `run_id`: `mutate` must add exactly one event.  Fails with
 * mutation_not_committed when the run exists. */
int store_create(struct store *s, const char *run_id, store_mutate_fn *mutate,
		 void *payload, struct sw_error *err);

/* Replays every event of `run_id` through `visit`, then runs `mutate`;
 * appends what it added (no events = no write).  run_not_found when the
 * run directory is absent. */
int store_update(struct store *s, const char *run_id, store_visit_fn *visit,
		 store_mutate_fn *mutate, void *payload, struct sw_error *err);

/* Replays `run_id` under the lock: shared and without tail repair in
 * read-only mode, exclusive with tail repair in writable mode.  A torn
 * final record is skipped in read-only mode.  *count (may be NULL) gets
 * the number of events.  run_not_found, run_journal_invalid, run_busy. */
int store_visit(struct store *s, const char *run_id, store_visit_fn *visit,
		void *payload, long long *count, struct sw_error *err);

/* Reads only event 1, without any lock, and hands it to `visit`. */
int store_first_event(struct store *s, const char *run_id,
		      store_visit_fn *visit, void *payload,
		      struct sw_error *err);

/* The run ids present, sorted; names outside the grammar are ignored.
 * *out is an array of *n strings; free with store_list_free. */
int store_list(char ***out, size_t *n, struct store *s, struct sw_error *err);
void store_list_free(char **ids, size_t n);

/* What the store holds besides Runs, and damage, for diagnosis (doctor):
 * found without a lock, nothing changed (io/store/store_inspect.c). */
enum store_finding_kind {
	STORE_FOUND_STAGED = 1,	/* runs/.tmp-<run id>-<hex>/: a creation a
				 * killed process never published (its
				 * owner provably ended); the next
				 * store_create removes it */
	STORE_FOUND_NO_JOURNAL,	/* runs/<id>/ without a journal, left by a
				 * failed creation of an older version */
	STORE_FOUND_TEMPORARY,	/* a temporary of a killed mutation (`size`
				 * bytes; io/store/store_names.h); the next
				 * mutation of the Run removes it */
	STORE_FOUND_PARKED,	/* a directory holding something, found at
				 * run.json or run.lock and moved aside by a
				 * mutation; never removed (an empty one is a
				 * TEMPORARY and goes) */
	STORE_FOUND_REPAIRABLE,	/* run.json or run.lock no regular file the
				 * store can read (`why`); the next mutation
				 * replaces it */
	STORE_FOUND_DAMAGED,	/* the journal, materials/ or a material no
				 * regular readable file, or a material whose
				 * bytes no longer match its name (`why`) */
	STORE_FOUND_STAGED_HELD,	/* runs/.tmp-...: a staging directory
					 * whose owner cannot be proven to
					 * have ended, or of a name slipway
					 * never gives one (`why`); left */
};
struct store_finding {
	enum store_finding_kind kind;
	char *path;		/* below runs/ */
	long long size;		/* TEMPORARY, PARKED: st_size; else -1 */
	char *why;		/* REPAIRABLE, DAMAGED, STAGED_HELD; else NULL */
};
/* The findings under runs/, sorted by path; *out is freed with
 * store_findings_free.  An empty store has none.  SW_ENOMEM, SW_EIO. */
int store_inspect(struct store_finding **out, size_t *n, struct store *s,
		  struct sw_error *err);
void store_findings_free(struct store_finding *v, size_t n);

/* Reads and verifies material `digest` ("sha256:<64 hex>").  *out
 * (sw_malloc'd, caller frees) holds *len bytes.  SW_ENOTFOUND, SW_EPARSE
 * when corrupt. */
int store_read_material(void **out, size_t *len, struct store *s,
			const char *run_id, const char *digest,
			struct sw_error *err);


/* Replay checkpoint.  run.checkpoint and run.checkpoint-log in the run
 * directory are a cache, never the authority: store_update_resumable
 * writes them after a committed mutation whose callback supplied a body
 * (store_mutation_set_checkpoint), and trusts them on a later update only
 * when it was written in this boot (the kernel's boot id: files written
 * without fsync lose bytes only in a power loss or kernel crash, which
 * both start a new boot), the journal's first `journal_bytes` still hash
 * to what they hashed then, run.json is still the file written then (same
 * size, inode, modification and change time: any write or replacement
 * changes the change time) and the digests of the body and of the log's
 * first `log_len` bytes hold.  The body is replaced whole each time; the log
 * only grows, so a mutation writes just what it adds to it.
 * Then the callback adopts the body and only the later events are replayed.
 * A missing, stale, torn or altered checkpoint just means a full replay,
 * so a corrupt earlier journal record is still found.  It is written after
 * run.json is installed, without fsync and outside the fault seam; failing
 * to write it never fails the mutation. */
struct store_checkpoint {
	long long sequence;		/* events the body covers */
	const char *body;		/* the callback's own format (borrowed) */
	size_t body_len;
	char *log;			/* the log (sw_malloc'd), or NULL when empty */
	size_t log_len;
	int projection_fd;		/* the run.json it was written with */
	size_t projection_len;
};
/* Resume callback: 0 after adopting `cp`, 1 to refuse it (a full replay
 * follows), or a negative sw_code.  It may take `log` and `projection_fd`
 * (setting them to NULL and -1); the store releases what it leaves.  An
 * update that adopted a checkpoint may give run.json pieces without bytes
 * (store_mutation_set_projection_pieces): ranges of that run.json, which
 * the store copies from the file itself. */
typedef int store_resume_fn(struct store_checkpoint *cp, void *payload,
			    struct sw_error *err);
void store_checkpoint_release(struct store_checkpoint *cp);
/* store_update with a checkpoint: `resume` may adopt a verified one, after
 * which `visit` sees only the events after it. */
int store_update_resumable(struct store *s, const char *run_id,
			   store_resume_fn *resume, store_visit_fn *visit,
			   store_mutate_fn *mutate, void *payload,
			   struct sw_error *err);
/* With `on`, the process keeps the last checkpoint it wrote in memory,
 * with the status of the journal, the log and run.json it left, and the
 * next store_update_resumable of that Run adopts it instead of reading and
 * hashing the files, but only while each of the three is still the very
 * file with the size, modification and change times the mutation left;
 * otherwise it is dropped and the files are read.  For a long-lived
 * process (slipway mcp); off releases it.  Locking and durability are
 * unchanged.  Not thread-safe. */
void store_keep_warm(bool on);
/* Mutation builder, used inside a store_mutate_fn.  Copies its inputs.
 * add_event: `data` must be one JSON value of at most 4128768 bytes
 * (journal_record_too_large, context "event payload"); SW_EPARSE.
 * set_projection: the run projection as JSON text (required when events
 * are added).  add_material: 1..262144 bytes; `digest` (may be NULL)
 * receives its name. */
int store_mutation_add_event(struct store_mutation *m, enum tbl_jevent type,
			     const char *data, size_t len,
			     struct sw_error *err);
int store_mutation_set_projection(struct store_mutation *m, const char *json,
				  size_t len, struct sw_error *err);
int store_mutation_add_material(struct store_mutation *m, const void *bytes,
				size_t len, char digest[SW_DIGEST_LEN],
				struct sw_error *err);
/* As store_mutation_add_material, with `digest` the caller's
 * sw_material_digest of these very bytes, so they are hashed once (test
 * builds hash them again and fail SW_EINVAL when the two differ). */
int store_mutation_add_material_named(struct store_mutation *m, const void *bytes,
				      size_t len, const char *digest,
				      struct sw_error *err);
/* run.json given whole, already encoded, as the concatenation of `n`
 * pieces (instead of store_mutation_set_projection).  The array is copied;
 * the bytes are borrowed until the store call returns.  A piece without
 * bytes is a range of the run.json this update adopted with its
 * checkpoint (SW_EINVAL when it adopted none). */
int store_mutation_set_projection_pieces(struct store_mutation *m,
					 const struct sw_piece *pieces, size_t n,
					 struct sw_error *err);
/* The checkpoint to keep once this mutation is committed (borrowed until
 * the store call returns); see store_update_resumable.  `log` follows the
 * first `log_base` bytes of the log adopted by this update (0: it is the
 * whole log); a base that is not the adopted log's length writes no
 * checkpoint. */
void store_mutation_set_checkpoint(struct store_mutation *m, const char *body,
				   size_t len, const char *log, size_t log_len,
				   size_t log_base);
/* Listing summary.  run.summary in the run directory is a cache of what
 * the listing prints, never the authority: a mutation whose callback
 * supplied a body (copied) writes it after the commit, without fsync and
 * outside the fault seam, with the digest of the whole journal and the
 * identity (IDENTITY_FMT: size, device, inode, modification and change
 * times) of every material the Run holds.  A mutation that finds no
 * summary matching the journal it replayed removes it instead, so the
 * list of materials is always complete.  SW_ENOMEM. */
int store_mutation_set_summary(struct store_mutation *m, const char *body, size_t len,
			       struct sw_error *err);
/* The body of run `run_id`'s summary (*body sw_malloc'd, caller frees),
 * under a shared lock taken without waiting: 1 when the summary is intact
 * and the journal and every material are still exactly what it was
 * written with; 0 otherwise (a busy, missing, damaged, stale or unsafe
 * one alike), when the caller replays the journal instead. */
int store_read_summary(char **body, size_t *len, struct store *s, const char *run_id);
/* Number of events replayed before the callback (0 for create). */
long long store_mutation_base(const struct store_mutation *m);

/* Fault seam.  The step kinds are always defined (io/store/store_fault.c
 * names its steps with them); arming exists only in test builds (SW_TESTING).
 * Steps are counted across the armed kinds; the nth one (1 = next) fails
 * with EIO, or _exit(STORE_FAULT_EXIT)s the process, or for a write writes
 * half the bytes and then _exits. */
enum store_fault_kind {
	STORE_STEP_WRITE = 1,
	STORE_STEP_FSYNC = 2,
	STORE_STEP_RENAME = 4,
	STORE_STEP_MKDIR = 8,
	STORE_STEP_CREATE = 16,	/* openat with O_CREAT */
	STORE_STEP_UNLINK = 32,	/* removing a leftover or a damaged entry */
	STORE_STEP_ALL = 63
};
#define STORE_FAULT_EXIT 77

#ifdef SW_TESTING
/* Replays `run_id` without taking its lock (a caller that already holds
 * it checks what it loaded); no repair. */
int store_replay_unlocked(struct store *s, const char *run_id,
			  store_visit_fn *visit, void *payload,
			  struct sw_error *err);
enum store_fault_mode { STORE_FAULT_FAIL, STORE_FAULT_ABORT, STORE_FAULT_TORN };
void store_fault_arm(unsigned kinds, unsigned long nth,
		     enum store_fault_mode mode);
void store_fault_disarm(void);
/* Steps seen since the last arm, and whether the fault fired. */
unsigned long store_fault_steps(void);
int store_fault_fired(void);
/* Ranges of the old run.json go through a buffer, as where the kernel
 * cannot copy them itself. */
void store_test_buffered_copies(bool on);
/* Calls fn(arg) in every mutation once its materials are written and
 * checked, before they are checked again (NULL: no call). */
void store_test_after_materials(void (*fn)(void *), void *arg);
/* Stands for the kernel's boot id in checkpoints (NULL: the real one). */
void store_test_boot_id(const char *id);
/* How often a checkpoint's journal prefix was read back and hashed (its
 * journal was not left as the checkpoint's own append left it). */
unsigned long store_test_prefix_reads(void);
/* Kills the process (_exit(STORE_FAULT_EXIT)) in the middle of the next
 * in-place write of cache `name` (run.checkpoint or run.summary): after
 * half its bytes when `torn`, else after all of them but before the file
 * is cut to its new length (NULL: none). */
void store_test_kill_rewrite(const char *name, bool torn);
/* How many summaries were written by appending to the last one. */
unsigned long store_test_summary_appends(void);
/* A clock for the lock waits that only the waits advance (no sleeping),
 * started at 0; and how far it has gone. */
void store_test_lock_clock(bool fake);
long long store_test_lock_clock_ms(void);
/* run.json of `run_id` as it is on disk (*out sw_malloc'd). */
int store_test_projection(struct store *s, const char *run_id, char **out, size_t *len);
#endif

#endif
