#ifndef IO_ADAPTERS_ADAPTER_TXN_H
#define IO_ADAPTERS_ADAPTER_TXN_H

/* An all-or-nothing batch of file writes and removals under one directory
 * tree, used by install and uninstall, that survives a kill.
 *
 * Calling sequence: adapter_txn_new (with the locked folder of the intent
 * record, io/adapters/adapter_intent.h), adapter_txn_write / _remove /
 * _verify (each with a guard on the current bytes), adapter_txn_describe,
 * adapter_txn_remove_folder, adapter_txn_apply once, adapter_txn_free.
 * apply opens the root once and reaches each target's
 * directory from it with O_DIRECTORY | O_NOFOLLOW, one component at a
 * time; every later step is relative to that descriptor (openat, renameat2,
 * unlinkat), so a directory swapped for a symlink meanwhile cannot send a
 * change outside the root.  It checks every guard before touching anything, then
 * stages each new file as a temporary sibling, moves every existing target
 * aside to a backup sibling, renames the staged files into place and finally
 * deletes the backups.  When a step fails after the first change, every
 * completed step is undone in reverse order; the outcome says whether that
 * undo was complete.
 *
 * Across a kill: after the guards and before the first change, apply
 * writes the intent record (prepared), naming every target, its staged
 * copy and backup, the bytes it held and the bytes it gets, and the
 * directories it creates.  Once every target is in place and the changed
 * directories are synced, the record is rewritten committed; the backups
 * are deleted, the queued folders removed when empty, and the record
 * removed last.  An in-process failure that is undone in full removes the
 * record too; one whose undo failed (ambiguous) leaves it prepared, and so
 * does a kill: adapter_txn_recover, at the start of the next install or
 * uninstall, rolls a prepared record back and a committed one forward. */

#include <stddef.h>

#include "io/util/digest.h"
#include "io/util/err.h"

enum adapter_txn_outcome {
	ADAPTER_TXN_NOT_COMMITTED = 0,	/* nothing was changed */
	ADAPTER_TXN_COMMITTED,		/* every op took effect */
	ADAPTER_TXN_ROLLED_BACK,	/* a step failed and was fully undone */
	ADAPTER_TXN_AMBIGUOUS		/* a step failed and the undo failed too */
};

/* Wire spelling of an outcome ("committed", ...). */
const char *adapter_txn_outcome_wire(enum adapter_txn_outcome o);

/* What the file must be right before the transaction changes it. */
enum adapter_txn_guard {
	ADAPTER_TXN_EXPECT_ANY = 0,
	ADAPTER_TXN_EXPECT_MISSING,
	ADAPTER_TXN_EXPECT_SHA256	/* regular non-symlink with this hex hash */
};

struct adapter_txn;
struct adapter_intent;
struct adapter_intent_dir;

/* Every queued path must lie under `root` (copied); apply refuses a path
 * whose directories below `root` include a symlink or a non-directory.
 * `intents` (borrowed; it must outlive the batch) is the locked folder
 * the intent record is written to. */
int adapter_txn_new(struct adapter_txn **out, const char *root,
		    struct adapter_intent_dir *intents, struct sw_error *err);

/* Names the batch in its record ("install", and the host ids), for the
 * recovery's report.  SW_ENOMEM. */
int adapter_txn_describe(struct adapter_txn *t, const char *operation, char *const *hosts,
			 size_t nhosts, struct sw_error *err);

/* Queues folder `rel` (relative to the root) for removal after the commit,
 * when it is empty then; reached without following a symlink, deepest
 * first; a recovery that finishes the batch removes it too.  SW_ENOMEM. */
int adapter_txn_remove_folder(struct adapter_txn *t, const char *rel, struct sw_error *err);

/* After apply: the queued folders it removed (borrowed), written into
 * `out` (at most `max`); returns how many there are. */
size_t adapter_txn_removed_folders(const struct adapter_txn *t, const char **out, size_t max);

/* Queues a write of `len` bytes (copied) with permission `mode` to the
 * absolute `path`; missing parent directories are created.  `sha256` (hex)
 * is read only with ADAPTER_TXN_EXPECT_SHA256. */
int adapter_txn_write(struct adapter_txn *t, const char *path,
		      const void *data, size_t len, unsigned mode,
		      enum adapter_txn_guard guard, const char *sha256,
		      struct sw_error *err);

/* Queues the removal of `path`. */
int adapter_txn_remove(struct adapter_txn *t, const char *path,
		       enum adapter_txn_guard guard, const char *sha256,
		       struct sw_error *err);

/* Queues a guard-only assertion on `path` (nothing is changed). */
int adapter_txn_verify(struct adapter_txn *t, const char *path,
		       enum adapter_txn_guard guard, const char *sha256,
		       struct sw_error *err);

/* The number of ops queued so far, and the absolute path op `i` writes
 * (borrowed; NULL for a removal or a check), so that a planner can see
 * what the ops it queued will need (io/adapters/adapter_folders.h). */
size_t adapter_txn_size(const struct adapter_txn *t);
const char *adapter_txn_written_path(const struct adapter_txn *t, size_t i);

/* Runs the queued ops.  Always sets *outcome.  Returns 0 when committed
 * (warnings about leftover backups go to `err` only if nothing else failed
 * and are then reported through *cleanup_warning, a sw_malloc'd string or
 * NULL); otherwise SW_ECONFLICT (a guard failed), SW_EIO or SW_ENOMEM. */
int adapter_txn_apply(struct adapter_txn *t, enum adapter_txn_outcome *outcome,
		      char **cleanup_warning, struct sw_error *err);

/* After an ambiguous apply: the backup paths still holding a previous
 * target (borrowed, valid until adapter_txn_free), written into `out` (at
 * most `max`); returns how many there are. */
size_t adapter_txn_artifacts(const struct adapter_txn *t, const char **out,
			     size_t max);

void adapter_txn_free(struct adapter_txn *t);

/* ---- after a kill (io/adapters/adapter_txn_recover.c) ---- */

/* What a recovery did, or read only would do, one call per file; `path`
 * is relative to the root.  A non-zero return stops the recovery with
 * that code. */
enum adapter_txn_event {
	ADAPTER_TXN_EV_NONE = 0,
	ADAPTER_TXN_EV_RESTORED,	/* `path` holds its bytes from before again */
	ADAPTER_TXN_EV_DISCARDED,	/* `path`, new where nothing was, removed */
	ADAPTER_TXN_EV_COLLECTED,	/* `path`, a staged copy or backup provably ours, deleted */
	ADAPTER_TXN_EV_KEPT,		/* `path`, a staged copy or backup not provably ours, kept */
	ADAPTER_TXN_EV_FOLDER		/* folder `path` removed (it was empty) */
};

typedef int adapter_txn_event_fn(enum adapter_txn_event ev, const char *path, void *payload);

/* Whether `sha256` (hex) is the hash of bytes slipway generates for the
 * repository-relative `path`: a leftover holding them loses nothing when
 * deleted. */
typedef int adapter_txn_known_fn(const char *path, const char *sha256, void *payload);

/* Reads the intent record in `intents` into *found (phase NONE: nothing
 * was interrupted; release it with adapter_intent_release) and, unless
 * `dry_run`, acts on it and removes it:
 *
 *  - prepared (the batch never committed): rolled back.  Each staged copy
 *    is deleted (a regular file no longer than its new bytes); a backup is
 *    renamed back over its target when the target is missing or holds
 *    exactly the batch's new bytes; a target that did not exist before and
 *    holds exactly the new bytes is removed; the directories the batch
 *    created are removed when empty.
 *  - committed: rolled forward.  A backup is deleted only while it holds
 *    exactly the bytes its target held before and the target holds the
 *    new ones (or is gone, for a removal); staged copies are deleted; the
 *    queued folders are removed when empty.
 *
 * Nothing else is ever deleted or replaced: a file that does not match,
 * or a staged copy or backup that cannot be deleted, is kept and reported
 * (ADAPTER_TXN_EV_KEPT), and the record is removed, so a kept file is not
 * acted on again (the sweep reports it from then on).  A rollback step
 * that fails stops the recovery and keeps the record, so that no install
 * runs while a user's file is still a backup.  With `dry_run` (doctor; the folder
 * need not be locked) nothing changes and `fn` hears what would happen.
 * SW_EPARSE for a damaged record (nothing is changed), SW_EUNSAFE,
 * SW_EIO, SW_ENOMEM. */
int adapter_txn_recover(struct adapter_intent *found, const char *root,
			struct adapter_intent_dir *intents, int dry_run,
			adapter_txn_event_fn *fn, void *payload, struct sw_error *err);

/* Looks in folder `dir` (relative to `root`; "" for the root itself,
 * reached without following a symlink) for staged copies and backups,
 * ".NAME.slipway-tmp-PID-N" and ".NAME.slipway-bak-PID-N", that `named`
 * (NULL: none) does not name.  One whose process is gone and that holds
 * bytes `known` recognises for NAME is deleted (ADAPTER_TXN_EV_COLLECTED,
 * read only: would be); every other is kept and reported
 * (ADAPTER_TXN_EV_KEPT).  A missing folder holds none.  SW_EIO, SW_ENOMEM,
 * or what `fn` returns. */
int adapter_txn_sweep(const char *root, const char *dir, const struct adapter_intent *named,
		      int dry_run, adapter_txn_known_fn *known, adapter_txn_event_fn *fn,
		      void *payload, struct sw_error *err);

#ifdef SW_TESTING
/* Test seam: make the n-th mutating step of the next apply fail (1 = the
 * first); with `break_undo` the undo of every step fails as well.  0
 * disables.  When unset, apply reads SLIPWAY_TEST_TXN_FAIL_STEP (and
 * SLIPWAY_TEST_TXN_BREAK_UNDO) from the environment: test builds only. */
void adapter_txn_fail_step(unsigned n, int break_undo);

/* Test seam: stop the next apply at its n-th step as a kill would, leaving
 * every file, staged copy, backup and the intent record as they are (the
 * later steps include the commit record, each backup's deletion and each
 * folder's removal).  0 disables. */
void adapter_txn_crash_step(unsigned n);

/* Test seam: `fn(point, arg)` runs in every apply at point 1, right after
 * the guards were checked, and at point 2, after the new files were
 * staged and before any target is moved, to race them.  NULL disables. */
void adapter_txn_race_hook(void (*fn)(int point, void *arg), void *arg);
#endif

#endif
