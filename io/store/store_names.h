#ifndef IO_STORE_STORE_NAMES_H
#define IO_STORE_STORE_NAMES_H

/* The names the run store gives its files, shared by io/store/store_*.c,
 * which write them, and io/store/store_inspect.c, which reports what it finds
 * (io-internal: nothing outside the store includes this).
 *
 * Temporaries.  A mutation writes run.json and its caches through
 * ".tmp-<leaf>-<16 hex>" in the run directory, parks the run.json (or
 * run.lock) it replaces as ".quarantine-<leaf>-<16 hex>", and writes each
 * material through ".tmp-<64 hex>-<16 hex>" in materials/.  A process
 * killed meanwhile leaves them behind; under the Run's exclusive lock no
 * live mutation owns one, so the next mutation that commits removes them
 * (only names of exactly these shapes, and a directory only when empty). */

#include <stdbool.h>
#include <stddef.h>

#define STORE_JOURNAL_NAME "journal.jsonl"
#define STORE_PROJECTION_NAME "run.json"
#define STORE_LOCK_NAME "run.lock"
#define STORE_CHECKPOINT_NAME "run.checkpoint"
#define STORE_CHECKPOINT_LOG_NAME "run.checkpoint-log"
#define STORE_SUMMARY_NAME "run.summary"
#define STORE_MATERIALS_NAME "materials"
#define STORE_STAGED_PREFIX ".tmp-"

/* 1 when `name` is a temporary of a mutation in a run directory. */
bool store__is_run_temporary(const char *name);
/* 1 when `name` is a temporary of a material in materials/. */
bool store__is_material_temporary(const char *name);
/* 1 when `name` (in materials/) is a material's name: 64 lowercase hex. */
bool store__is_material_name(const char *name);
/* 1 when `name` (in runs/) is the staging directory of a creation:
 * STORE_STAGED_PREFIX, a valid run id, '-' and 16 lowercase hex. */
bool store__is_staged_name(const char *name);

struct store;
/* runs/ of an open store after re-checking the anchors (borrowed), or -1
 * when the store is empty or its anchors moved. */
int store__runs_fd(struct store *s);

/* Staging directories.  A creation holds a shared flock on runs/ from
 * before it makes its staging directory until it holds that directory's
 * own flock, which it keeps until the Run is published or the directory
 * removed.  So with the exclusive flock on runs/ and the directory's own
 * flock both taken, the process that made it has provably ended (a
 * flock goes with the last descriptor of its holder, however it dies):
 * the next creation removes it (io/store/store_staged.c).
 * store__staged_owner says why staging directory `name` below `runs_fd`
 * cannot be proven abandoned, in a clause for doctor (static text or
 * `buf`), or NULL when it is.  It takes both locks without waiting and
 * lets them go; it changes nothing. */
const char *store__staged_owner(int runs_fd, const char *name, char *buf, size_t size);

#endif
