#ifndef SERVICE_SVC_H
#define SERVICE_SVC_H

/* The service core shared by the operations (R6): find the workspace, open the
 * run store, load a Run by replaying its journal, ask the state machine,
 * carry out its effects, append the event, and render the answer or the
 * structured error.
 *
 * Every function that can fail here has already written the cliError to
 * stderr and returns the exit status (2 or 3, or 1 for a defect); 0 means
 * success and nothing has been printed. */

#include <stdbool.h>

#include "fsm/fsm.h"
#include "io/wire/next.h"
#include "io/store/run.h"
#include "io/git/vcs.h"

struct json_t;
struct store;
struct outcome;
struct source_pinned;
struct source_candidate;
struct run_history;

struct svc {
	const char *root_arg;		/* --root as given, or NULL */
	struct vcs_identity ws;		/* the discovered workspace */
	struct store *store;
	/* The contexts this operation stored, material digest -> text, so
	 * that its reply need not read them back (NULL until one is). */
	struct json_t *contexts;
};

/* Discovers the workspace at d->root_arg (the current directory when NULL)
 * and opens its store, writable or read-only. */
int svc_open(struct svc *d, bool writable);
/* The two halves of svc_open, for commands with work between them
 * (submit decodes its Outcome and run --source-file imports its envelope
 * before the store is touched).  svc_open_store releases the workspace
 * when it fails. */
int svc_discover(struct svc *d);
/* Reports the discovery failure `err` as svc_discover does (no worktree
 * there: git_repository_required; discovery could not be made, as when
 * memory runs out: git_repository_unavailable) and returns the exit
 * status. */
int svc_discover_failed(const struct sw_error *err, const char *root_arg);
int svc_open_store(struct svc *d, bool writable);
void svc_close(struct svc *d);

/* The Run's next (DeriveNext), or with `resume_only` its resume variants
 * (DeriveResumeNext).  Falls back to operation none on failure. */
struct next *svc_run_next(const struct run *r, int resume_only);

/* What a mutation needs from its command. */
struct svc_mutation {
	enum fsm_event event;
	const char *run_id;
	const char *action_id;		/* submit, answer, skip */
	/* submit */
	const struct outcome *outcome;
	struct json_t *outcome_json;	/* canonical Outcome (owned by caller) */
	/* answer */
	const char *text;
	size_t text_len;
	int confirm;
	const char *scope;		/* "" when not given */
	/* resume */
	int budget_given;
	unsigned budget;
	int source_options;
	/* resume --source-file (FSM_EV_RESUME_REFRESH): the refreshed
	 * envelope, classified (borrowed) */
	const struct source_candidate *refresh;
	/* resume --source-choice (FSM_EV_CHOOSE_PINNED / CHOOSE_ADOPT) */
	const char *candidate_id;
	/* results */
	struct run *run;		/* the Run after the event (owned) */
	struct fsm_step step;
};

/* The resume_operation a resume event reports ("ad_hoc_resumed",
 * "source_refresh_skipped"), or NULL for other events. */
const char *svc_resume_operation(enum fsm_event ev);

/* Runs one mutation; on success m->run is the Run after the event and the
 * caller renders it.  A committed-then-error step (APPLY_ERROR) is written
 * here and its status returned. */
int svc_mutate(struct svc *d, struct svc_mutation *m);
void svc_mutation_release(struct svc_mutation *m);

/* Creates a Run (`run`); *out is the new Run.  `source` (borrowed, may be
 * NULL) makes it issue-backed: the record pins it and its section payloads
 * are stored as materials in the creating mutation. */
int svc_start(struct svc *d, const char *goal, unsigned budget,
		 int review, const struct source_pinned *source, struct run **out);

/* Prints the protocolState of `r` (JSON), or with `human` the text form:
 * `headline`, with `with_facts` the state, goal, budget and current Action,
 * then the next choices.  `resume_operation` (may be NULL) adds
 * resume_operation and budget_applied, taken from the Run's
 * last_resume_result when it has one.  Every caller has committed its
 * mutation, so a reply that cannot be derived or written is reported as
 * mutation_committed_output_failed (exit 3, inspect-run), never exit 1. */
int svc_print_state(struct svc *d, const struct run *r, int human,
		       const char *headline, int with_facts, const char *resume_operation);

/* Loads a Run read-only (status); *out owned by the caller.  `quiet`
 * suppresses the error output and returns the error code in *code. */
int svc_load(struct svc *d, const char *run_id, struct run **out,
		int quiet, enum tbl_err *code);
/* svc_load (not quiet), gathering the Run's history from the same replay
 * into *history (the caller's, run_history_free; NULL on failure). */
int svc_load_history(struct svc *d, const char *run_id, struct run **out,
		     struct run_history **history);

/* `status` without a run id: runStatus entries (foreign stubs included)
 * and unavailable runs, as JSON arrays owned by the listing.  With
 * `brief`, a local Run's entry holds only what the human listing prints
 * (id, state, remaining_budget, goal, created_at).  A run directory whose
 * name is not the run id its journal records is unavailable
 * (run_journal_invalid). */
struct svc_listing {
	struct json_t *runs;
	struct json_t *unavailable;
	char *runs_dir;			/* where the Runs live (the human list names it) */
};
int svc_list(struct svc *d, struct svc_listing *out, int brief);
void svc_listing_release(struct svc_listing *l);

/* The runStatus document of `r` with its next (new reference), or NULL
 * with `err` set (SW_ENOMEM).  A damaged material hides nothing: an
 * Action context that cannot be read back from materials/ is shown as a
 * note naming its material, and *damaged (may be NULL; a new reference
 * to an array, empty when all were read) gets one "sha256:...: why"
 * string per such material. */
struct json_t *svc_status_json(struct svc *d, const struct run *r, struct json_t **damaged,
			       struct sw_error *err);

/* Writes the cliError for a svc_status_json failure of a targeted
 * status: material_unavailable (runtime_error when out of memory), with
 * the list-runs next where the Run stays listed as unavailable. */
int svc_fail_status(struct svc *d, const struct sw_error *err);

/* `protocol material` (action_id given) and `status RUN --section`
 * (action_id NULL): the checks in the reference's order (key syntax, Run,
 * Action, staleness, issue-backed, catalog, blob, byte count, section
 * revision), then prints the actionMaterial or pinnedMaterial document, or
 * with SVC_MATERIAL_HUMAN in `how` (status only) the chapter as text.  An
 * ad-hoc Run ends with material_unavailable.  With SVC_MATERIAL_CANDIDATE
 * (status, text only) the chapter is the waiting source candidate's:
 * material_unavailable when none waits or it holds no sections,
 * material_section_not_found when it has no such key.  The store may be
 * read-only. */
enum { SVC_MATERIAL_HUMAN = 1u, SVC_MATERIAL_CANDIDATE = 2u };
int svc_material(struct svc *d, const char *run_id, const char *action_id,
		    const char *section, unsigned how);

/* Writes a cliError for a usage problem, bound to d->root_arg. */
int svc_usage(const struct svc *d, enum tbl_err code, const char *msg);

/* Reads a source envelope: `bytes` (borrowed, `len` bytes) when not NULL,
 * as a front end that holds the envelope in memory passes it, else the file
 * at `path` (source_read_file).  *out is sw_malloc'd; codes as
 * source_read_file (SW_ETOOBIG over SOURCE_MAX_FILE_BYTES). */
struct sw_error;
int svc_read_source(char **out, size_t *out_len, const char *path, const char *bytes,
		    size_t len, struct sw_error *err);

/* The current time as RFC3339Nano UTC ("...Z") into `buf` (>= 40 bytes). */
void svc_now(char *buf, size_t len);

#endif
