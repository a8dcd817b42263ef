#ifndef SERVICE_INTERNAL_H
#define SERVICE_INTERNAL_H

/* Private to service/: what its files share (R2: `svc__` functions).
 * Nothing outside service/ includes this header.
 *
 * The files and their one job each, in the order an operation meets them:
 *   svc.c        the handle: workspace, store, clock, source reader
 *   load.c       a Run loaded: journal replayed, record checked, workspace
 *   facts.c      the facts of a mutation, from the request, the Run, a
 *                refreshed source and Git
 *   mutate.c     the mutation driver (one fsm_step, effects, event) and start
 *   state.c      the protocolState reply and the runStatus document
 *   listing.c    the listing of every Run for status
 *   materials.c  a pinned section for material and status --section
 *   failure.c    the structured errors and the Run's next
 * Calls go one way, down this list's dependencies: mutate -> facts, load,
 * listing, failure; listing -> load, state, failure; everything -> failure. */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "service/svc.h"
#include "io/git/observe.h"
#include "io/git/vcs.h"
#include "io/store/run.h"
#include "io/store/run_history.h"
#include "io/store/store.h"
#include "io/util/digest.h"
#include "io/util/err.h"
#include "tables/tables.h"

struct outcome;

/* Git observed now, beside the Run's start. */
struct git_now {
	struct vcs_observation obs;
	json_t *json;
	int ok;
	int changed;
	char error[512];
};

struct mctx {
	struct svc *d;
	struct svc_mutation *m;
	struct run *run;		/* replayed */
	int exit;			/* set when the callback wrote an error */
	int apply_error;		/* APPLY_ERROR: print after commit */
	/* Gathered while replaying, for source refreshes and choices. */
	struct run_history *history;
	/* What the store writes after the callback (kept until it returns). */
	struct run_projection proj;
	struct run_checkpoint checkpoint;
	int resumed;			/* c->run came from a checkpoint */
	unsigned steps;			/* fsm_step calls: exactly one per mutation */
	/* The index file the Run was last observed with, and its
	 * fingerprint: read from the checkpoint, handed to the observation
	 * and kept in the next checkpoint (struct vcs_index_id). */
	struct vcs_index_id index_seen;
};

/* What the gatherers found besides the fact bits: the message and extra
 * fields a refusal reports (struct fsm_rule's `detail` names the fact) and
 * the data the effects consume. */
struct gathered {
	uint64_t facts;
	struct detail {
		uint64_t fact;
		char text[600];		/* "": the row's why */
		json_t *extra;		/* more error details, or NULL */
	} detail[3];
	size_t ndetail;
	json_t *pinned;			/* PIN: the source to pin */
	json_t *candidate;		/* CANDIDATE_*: the refreshed source */
	const char *candidate_id;	/* the waiting candidate, or the new id */
	const json_t *receipt;		/* REPLAY_CHOICE: the earlier choice */
	const json_t *result;
};

struct context_reader {
	struct svc *d;
	const char *run_id;
	struct sw_error err;	/* why a context could not be read */
	/* status only: the contexts that could not be read, "sha256:...:
	 * why" each, shown in their place as a note (NULL: fail instead) */
	json_t *damaged;
};

/* The listing summary of `r` (store_mutation_set_summary), written with
 * each mutation: the Run's workspace id, a newline, and its brief listing
 * entry.  It stands for the replay and the context reads of list_entry
 * only while the journal and the materials are what they were then. */
int svc__add_list_summary(struct store_mutation *sm, const struct run *r,
			    struct sw_error *err);

struct next *svc__inspect_next(const struct svc *d, const char *run_id_arg);

int svc__fail_run_ex(const struct svc *d, enum tbl_err code, const char *msg,
		       const struct run *r, const json_t *extra);

/* An error raised against a loaded Run, with the table's recovery. */
int svc__fail_run(const struct svc *d, enum tbl_err code, const char *msg,
		    const struct run *r);

/* A Run that cannot be loaded under `run_id_arg`: the cliError for `code`
 * (run_not_found, run_journal_invalid, run_busy, runstore_unavailable)
 * with its recovery (list-runs, inspect-run, run-doctor). */
int svc__fail_load(const struct svc *d, enum tbl_err code, const char *msg,
		   const char *run_id_arg);

/* A failure of the store (or under it), classified by its wire code. */
int svc__fail_store(const struct svc *d, const struct sw_error *err,
		      const char *run_id_arg);

/* Parses one event's data and applies it to *r; *data (may be NULL) gets
 * the parsed value for the caller, who then owns it. */
int svc__replay_event(const struct store_event *ev, struct run **r, json_t **data,
			struct sw_error *err);

/* Checks the Run belongs to this workspace. */
int svc__check_workspace(const struct svc *d, const struct run *r);

/* The unavailableRun code for a Run that cannot be listed. */
const char *svc__unavailable_code(const struct sw_error *err);

/* A run directory whose name is not the run id its journal records (a
 * copied or renamed directory) holds no Run of that name (the reference's
 * journal identity mismatch): true, with `err` set to run_journal_invalid
 * saying so. */
bool svc__misnamed(const struct run *r, const char *dir, struct sw_error *err);

/* Observes Git now into *g.  `seen` (or NULL) is the index file the Run
 * was last observed with: the observation takes its fingerprint while the
 * file is unchanged, and *seen becomes the one observed now. */
void svc__observe_now(const struct svc *d, const struct run *r, struct git_now *g,
		      struct vcs_index_id *seen);

void svc__git_now_release(struct git_now *g);

/* Whether the Run's recorded current Git differs from its start. */
int svc__recorded_changed(const struct run *r);

/* The detail gathered for `fact`, or NULL. */
const struct detail *svc__detail_of(const struct gathered *g, uint64_t fact);

void svc__gathered_release(struct gathered *g);

struct fsm_outcome_shape svc__shape_of(const struct outcome *o);

/* The facts of the event and the data their effects need, gathered from
 * the request and the Run before the one fsm_step; the GIT group is
 * gathered after, when fsm_wants asks for it.  Returns 0, or a negative
 * sw_code (c->exit set when an error was already reported). */
int svc__input_facts(struct mctx *c, struct gathered *g, const char *now,
		       char answer_digest[SW_DIGEST_LEN], struct sw_error *errp);

/* A context this operation stored, or read back from the run's materials. */
char *svc__read_context(const char *digest, void *payload);

/* Every caller of svc_print_state has committed its mutation: when the
 * reply cannot be derived or written the change is still saved, so the
 * error says so and points at the Run instead of a blind retry. */
int svc__fail_committed_output(const struct svc *d, const char *run_id_arg,
				 const char *why);

#endif
