#ifndef IO_ADAPTERS_ADAPTER_TXN_H
#define IO_ADAPTERS_ADAPTER_TXN_H

/* An all-or-nothing batch of file writes and removals under one directory
 * tree, used by install and uninstall.
 *
 * Calling sequence: adapter_txn_new, adapter_txn_write / _remove / _verify
 * (each with a guard on the current bytes), adapter_txn_apply once,
 * adapter_txn_free.  apply opens the root once and reaches each target's
 * directory from it with O_DIRECTORY | O_NOFOLLOW, one component at a
 * time; every later step is relative to that descriptor (openat, renameat2,
 * unlinkat), so a directory swapped for a symlink meanwhile cannot send a
 * change outside the root.  It checks every guard before touching anything, then
 * stages each new file as a temporary sibling, moves every existing target
 * aside to a backup sibling, renames the staged files into place and finally
 * deletes the backups.  When a step fails after the first change, every
 * completed step is undone in reverse order; the outcome says whether that
 * undo was complete. */

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

/* Every queued path must lie under `root` (copied); apply refuses a path
 * whose directories below `root` include a symlink or a non-directory. */
int adapter_txn_new(struct adapter_txn **out, const char *root,
		    struct sw_error *err);

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

#ifdef SW_TESTING
/* Test seam: make the n-th mutating step of the next apply fail (1 = the
 * first); with `break_undo` the undo of every step fails as well.  0
 * disables.  When unset, apply reads SLIPWAY_TEST_TXN_FAIL_STEP (and
 * SLIPWAY_TEST_TXN_BREAK_UNDO) from the environment: test builds only. */
void adapter_txn_fail_step(unsigned n, int break_undo);

/* Test seam: `fn(point, arg)` runs in every apply at point 1, right after
 * the guards were checked, and at point 2, after the new files were
 * staged and before any target is moved, to race them.  NULL disables. */
void adapter_txn_race_hook(void (*fn)(int point, void *arg), void *arg);
#endif

#endif
