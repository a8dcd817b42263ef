#ifndef IO_ADAPTERS_ADAPTER_INTENT_H
#define IO_ADAPTERS_ADAPTER_INTENT_H

/* The intent record of an adapter transaction: what one batch of install
 * or uninstall is about to do to a worktree, written durably before its
 * first change, so that a batch killed midway is rolled back or forward
 * by the next install or uninstall and described by doctor
 * (adapter_txn_recover, io/adapters/adapter_txn.h).
 *
 * It lives in the worktree's own Git directory, never in the worktree:
 * `<git dir>/slipway/adapter-txn.json` (0600; the folder is made 0700 when
 * missing, as the run store makes it).  One batch at a time per worktree:
 * install and uninstall hold an exclusive flock on that folder from their
 * recovery to the end of their batch, so a record is never acted on while
 * the process that wrote it lives.
 *
 * Format, version 1 (paths relative to the worktree root; `tmp` and `bak`
 * are names in the target's own folder):
 *
 *   {"version": 1, "phase": "prepared" | "committed",
 *    "operation": "install" | "uninstall", "hosts": [ID...], "pid": N,
 *    "ops": [{"path": P, "kind": "write" | "remove",
 *             "tmp": NAME,              (writes: the staged new bytes)
 *             "bak": NAME,              (a target that existed: moved aside)
 *             "prior": "missing" | "unknown" | SHA256,   (the target before)
 *             "new": SHA256, "size": N}],                (writes)
 *    "dirs": [P...],     (folders the batch creates, in creation order)
 *    "folders": [P...]}  (folders it removes once empty after the commit)
 *
 * "unknown" is a target that existed but could not be hashed (a symlink,
 * or over 1 MiB).  Phases: the record is written `prepared` before the
 * first change and rewritten `committed` once every target is in place and
 * its folder synced; it is removed when the backups are gone.  Each write
 * goes to adapter-txn.json.tmp, is fsynced, renamed over the record and the
 * folder fsynced. */

#include <stddef.h>

#include "io/util/digest.h"
#include "io/util/err.h"

/* The record's file name in its folder (also skipped by doctor's check of
 * retired data in the Git common directory). */
#define ADAPTER_INTENT_NAME "adapter-txn.json"

enum adapter_intent_phase {
	ADAPTER_INTENT_NONE = 0,	/* no record: nothing was interrupted */
	ADAPTER_INTENT_PREPARED,
	ADAPTER_INTENT_COMMITTED
};

enum adapter_intent_kind { ADAPTER_INTENT_KIND_NONE = 0, ADAPTER_INTENT_WRITE, ADAPTER_INTENT_REMOVE };

enum adapter_intent_prior {
	ADAPTER_PRIOR_NONE = 0,
	ADAPTER_PRIOR_MISSING,		/* nothing was there */
	ADAPTER_PRIOR_UNKNOWN,		/* something was, not hashed */
	ADAPTER_PRIOR_SHA256		/* a regular file with prior_sha */
};

struct adapter_intent_op {
	char *path;
	enum adapter_intent_kind kind;
	char *tmp;			/* NULL for a removal */
	char *bak;			/* NULL when the target did not exist */
	enum adapter_intent_prior prior;
	char prior_sha[SW_HEX_LEN];
	char new_sha[SW_HEX_LEN];	/* writes */
	size_t size;			/* writes: the new bytes' length */
};

struct adapter_intent {
	enum adapter_intent_phase phase;
	char *operation;
	char **hosts;
	size_t nhosts;
	long pid;
	struct adapter_intent_op *ops;
	size_t nops;
	char **dirs;
	size_t ndirs;
	char **folders;
	size_t nfolders;
};

/* Frees what `in` holds and zeroes it (phase NONE).  NULL-safe. */
void adapter_intent_release(struct adapter_intent *in);

/* The record as written (sw_malloc'd, *len bytes), or NULL on ENOMEM. */
char *adapter_intent_encode(const struct adapter_intent *in, size_t *len);

/* Decodes a record strictly into *out (zeroed first; release it).
 * SW_EPARSE (or SW_ETOOBIG) when it is not a version 1 record whose every
 * path is a clean relative path and every name a plain file name;
 * SW_ENOMEM. */
int adapter_intent_decode(struct adapter_intent *out, const char *bytes, size_t len,
			  struct sw_error *err);

/* The open folder of the records, `<git dir>/slipway`. */
struct adapter_intent_dir;

/* Opens `dir`.  With `lock`: creates it when missing (0700) and takes the
 * exclusive flock, waiting up to 5 seconds (SW_EBUSY: another install or
 * uninstall runs in this worktree).  Without: read only, and a missing
 * folder opens as an empty one.  SW_EUNSAFE when `dir` is a symlink or not
 * a folder; SW_EIO, SW_ENOMEM. */
int adapter_intent_dir_open(struct adapter_intent_dir **out, const char *dir, int lock,
			    struct sw_error *err);

/* Opened read only: whether another process holds the folder's lock now. */
int adapter_intent_dir_busy(const struct adapter_intent_dir *d);

/* The folder as given to _open (borrowed). */
const char *adapter_intent_dir_path(const struct adapter_intent_dir *d);

void adapter_intent_dir_close(struct adapter_intent_dir *d);

/* Reads the record into *out (phase NONE when there is none).  Locked, a
 * staged adapter-txn.json.tmp left by a killed writer is removed first.
 * SW_EPARSE/SW_ETOOBIG for a damaged record, SW_EUNSAFE, SW_EIO, SW_ENOMEM. */
int adapter_intent_read(struct adapter_intent *out, struct adapter_intent_dir *d,
			struct sw_error *err);

/* Writes `in` durably over the record (locked folders only). */
int adapter_intent_write(struct adapter_intent_dir *d, const struct adapter_intent *in,
			 struct sw_error *err);

/* Removes the record; none is no error.  Not synced: a record found again
 * after a power loss is recovered again, to the same end. */
int adapter_intent_remove(struct adapter_intent_dir *d, struct sw_error *err);

#endif
