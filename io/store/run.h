#ifndef IO_STORE_RUN_H
#define IO_STORE_RUN_H

/* The Run record: everything `status` shows about one Run, rebuilt from the
 * journal.  io-internal: cli/ and io/ include this header, which hands out
 * Jansson values (see io/util/json.h).
 *
 * The record is a JSON object with the fields of the reference's runStatus
 * (less `next`, which is derived).  fsm_step() decides; run_apply() carries
 * out the decision's effects on the record; run_delta() turns the change
 * into journal data and run_replay() applies journal data back, so that
 * replaying a journal reproduces the record exactly.
 *
 * Calling sequence: run_create or run_replay (first event), run_replay*,
 * then per mutation run_clone, run_apply, run_delta; run_free. */

#include <stddef.h>

#include "fsm/fsm.h"
#include "io/util/buf.h"
#include "io/util/digest.h"
#include "io/util/err.h"

struct sw_owned;
struct json_t;
struct run;
struct run_record;
struct vcs_observation;

/* Limits of the Action the reference enforces. */
#define RUN_MAX_BRIEF_BYTES 8192u
#define RUN_MAX_CONTEXT_BYTES 131072u
#define RUN_MAX_ACTION_BYTES 262144u
/* RUN_MAX_SUMMARY_BYTES, the bound of the record's summary: io/store/run_record.h */
#define RUN_PROJECTION_OBSERVATIONS 128u

/* What a new Run starts from.  `identity` is the workspaceIdentity object
 * and `initial_git` the gitObservation object (both borrowed). */
struct run_start {
	const char *id;
	const char *goal;
	const char *workspace;
	const struct json_t *identity;
	const struct json_t *initial_git;
	const char *now;		/* RFC3339Nano UTC */
	/* The pinnedSource object of an issue-backed Run (borrowed, copied
	 * into the record), or NULL for an ad-hoc Run. */
	const struct json_t *pinned_source;
};

/* Writes the ended Run's `summary` from its typed record (every Action
 * record, frozen ones parsed back), its history (`n_events` events, see
 * struct run_event) and its two Git observations (NULL when unreadable),
 * counting the files of `installed` per host: a sw_malloc'd string, or
 * NULL on ENOMEM.  The person's report writes it (report_summary,
 * io/report/report.h); the driver hands it in, so the store never calls
 * the report. */
struct run_event;
typedef char *run_summary_fn(const struct run_record *rec,
			     const struct run_event *events, size_t n_events,
			     const struct vcs_observation *start,
			     const struct vcs_observation *now,
			     const struct sw_owned *installed);

/* The inputs run_apply needs besides the step: values the driver has read
 * or made (clock, new Action id, the Outcome, the answer, Git). */
struct run_effects {
	const char *now;			/* RFC3339Nano UTC */
	const char *new_action_id;		/* for an issued Action */
	/* submit */
	const struct json_t *outcome;		/* the decoded Outcome object */
	const char *outcome_sha256;
	/* answer */
	const char *answer_text;
	int confirm;
	const char *scope_sha256;		/* "" when none */
	const char *answer_sha256;
	/* Git, when the event observed it (FSM_OP(OBSERVE) / GIT_FAILED) */
	const struct json_t *observation;	/* gitObservation, or NULL */
	int observation_complete;
	int changed;				/* differs from the Run start */
	const char *git_error;			/* message when observation failed */
	/* END / END_SKIPPED: the final observation */
	const struct json_t *final_observation;	/* NULL when it failed */
	int final_changed;
	const char *final_error;
	run_summary_fn *summarize;		/* writes the summary (required) */
	const struct run_event *events;		/* the Run's history for it */
	size_t n_events;
	/* CANDIDATE_VALID / CANDIDATE_INVALID: the candidate that waits */
	const struct json_t *candidate;
	/* PIN: the source to pin (answers given under other requirements
	 * than its own become inactive) */
	const struct json_t *pinned;
	/* RESUME_RESULT / CHOICE_RECEIPT: the candidate the event concerns
	 * (the waiting one, or the id a new one takes); the choice made */
	const char *candidate_id;
	const char *choice;
	/* REPLAY_CHOICE: the stored receipt and result of the earlier choice */
	const struct json_t *prior_receipt;
	const struct json_t *prior_result;
	/* The files slipway's install wrote (io/util/owned.h, filled by
	 * adapter_installed in io/adapters/adapter.h), which the briefs
	 * of Review and Summarize and the final summary count per host
	 * instead of listing them; NULL when none are known. */
	const struct sw_owned *installed;
};

int run_create(struct run **out, const struct run_start *start,
	       const struct fsm_step *first, const struct run_effects *fx,
	       struct sw_error *err);

/* Applies one journal event to *r (creating it for `run_started`). */
int run_replay(struct run **r, const char *type, const struct json_t *data,
	       struct sw_error *err);

int run_clone(struct run **out, const struct run *r, struct sw_error *err);
void run_free(struct run *r);

/* The state machine's view of the record. */
struct fsm_run run_machine(const struct run *r);

/* Carries out the effects of an applied `st` (FSM_APPLY / APPLY_ERROR). */
int run_apply(struct run *r, const struct fsm_step *st,
	      const struct run_effects *fx, struct sw_error *err);

/* Carries out the effects of an idempotent `st` (FSM_IDEMPOTENT) on the
 * Run that answers it, in memory: nothing of it is written.  SW_EINVAL for
 * another verdict, SW_ENOMEM. */
int run_apply_replay(struct run *r, const struct fsm_step *st,
		     const struct run_effects *fx, struct sw_error *err);

/* The journal data of the change from `before` to `after` (new reference);
 * "rule" names tbl_rules[rule] by its stable id, never by its position. */
struct json_t *run_delta(const struct run *before, const struct run *after,
			 size_t rule);

/* Reads back the context text stored under `digest` (sha256:...); returns
 * a sw_malloc'd string or NULL. */
typedef char *run_context_fn(const char *digest, void *payload);

/* The record as a runStatus object without `next` (new reference).  With
 * `for_status`, a stopped or ended Run omits current_action.  The Action
 * history keeps each context by digest ("context_sha256"); with `resolve`
 * the texts are put back, without it (the run.json projection) the
 * digests stay. */
struct json_t *run_status_json(const struct run *r, int for_status,
			       run_context_fn *resolve, void *payload);

/* The current Action with its context text (new reference), or NULL when
 * there is none or its text cannot be read. */
struct json_t *run_current_action_full(const struct run *r,
				       run_context_fn *resolve, void *payload);

/* The contexts of the Actions issued since the last call, as a JSON array
 * of [digest, text] pairs, the digest sw_material_digest of the text (new
 * reference, or NULL on ENOMEM).  The driver stores each text as a
 * material before the event that refers to it. */
struct json_t *run_take_contexts(struct run *r);


/* Frozen records (the mutation path).  run_freeze keeps every Action
 * record but the last as its run.json text plus the facts the rules need,
 * so that loading, copying, diffing and projecting stay flat as the Run
 * grows; the record's `actions` then holds only the last record (see
 * run_json).  run_thaw parses them back.  Output that shows the history
 * (run_status_json) parses them on the fly. */
int run_freeze(struct run *r, struct sw_error *err);
int run_thaw(struct run *r, struct sw_error *err);
/* run.json for `r` at `revision`, as pieces to write in order: the
 * encoded record with the frozen records' texts spliced into its
 * `actions`.  text_off[i] is where frozen record i starts in the file.
 * The pieces borrow from `r` and `p`; a piece without bytes is a range of
 * the run.json `r` was read back against (run_from_checkpoint). */
struct run_projection {
	char *head;
	size_t head_len;
	struct sw_piece *piece;
	size_t npiece;
	size_t *text_off;
};
int run_projection(struct run_projection *p, const struct run *r, long long revision,
		   struct sw_error *err);
void run_projection_release(struct run_projection *p);
/* The replay checkpoint of `r` as projected by `p`, with the caller's
 * `extra` text.  It has two parts: `body` (the live record and `extra`),
 * replaced whole each time, and an append-only log of the frozen records'
 * facts.  `log` holds the entries to add after the first `log_base` bytes
 * of the log this Run was read back from (0: a log of its own from the
 * start).  run_from_checkpoint reads one back against the run.json it was
 * written with (`proj_fd`, `proj_len` bytes), whose frozen records then
 * stay in the file: projections copy them from it (struct sw_piece) and
 * only the output that shows them reads them.  *log (sw_malloc'd) is
 * parsed in place, so written to; on success it and *proj_fd are taken
 * over (set to NULL and -1).  *extra
 * is sw_malloc'd.  SW_EPARSE when it does not parse; SW_ENOMEM. */
struct run_checkpoint {
	char *body;
	size_t body_len;
	char *log;
	size_t log_len;
	size_t log_base;
};
int run_checkpoint(struct run_checkpoint *out, const struct run *r,
		   const struct run_projection *p, const char *extra,
		   struct sw_error *err);
void run_checkpoint_release(struct run_checkpoint *c);
int run_from_checkpoint(struct run **out, char **extra, const char *body,
			size_t body_len, char **log, size_t log_len, int *proj_fd,
			size_t proj_len, struct sw_error *err);
/* The record decoded (io/store/run_record.h): valid once run_check accepted the
 * Run, and kept in step by every change made through this header;
 * borrowed, valid until *r changes.  Reading it before run_check is a
 * defect (an assert).  The encoding itself is private to the codec
 * (io/store/run_codec.h). */
const struct run_record *run_record(const struct run *r);

const char *run_id(const struct run *r);
const char *run_workspace(const struct run *r);

/* The Run's Git observation at its start (RUN_GIT_INITIAL) or as last
 * recorded (RUN_GIT_CURRENT), decoded into *out (vcs_observation_release).
 * SW_ENOTFOUND when the record has no current one; the codes of
 * vcs_observation_from_json. */
enum run_git { RUN_GIT_INITIAL = 1, RUN_GIT_CURRENT };
int run_git_observation(struct vcs_observation *out, const struct run *r,
			enum run_git which, struct sw_error *err);

/* Copies the record's fields named by `which` (RUN_REPLY_*), those the
 * Run has, into the reply object `doc` (a Jansson object) as they stand
 * in the record, in the order of the bits.  SW_ENOMEM. */
enum run_reply_field {
	RUN_REPLY_PINNED_SOURCE = 1u << 0,
	RUN_REPLY_SOURCE_CANDIDATE = 1u << 1,
	RUN_REPLY_WORKSPACE_IDENTITY = 1u << 2,
};
int run_reply_fields(struct json_t *doc, const struct run *r, unsigned which,
		     struct sw_error *err);

/* The Run's pinned source, or its waiting source candidate, decoded
 * strictly into the typed source structs (io/source/source.h: caller frees with
 * source_pinned_free, source_candidate_free; *candidate_id sw_malloc'd).
 * SW_ENOTFOUND when the Run has none; the codes of source_pinned_from_json
 * and source_candidate_from_json.  *out NULL on failure. */
struct source_pinned;
struct source_candidate;
int run_pinned_source(struct source_pinned **out, const struct run *r, struct sw_error *err);
int run_source_candidate(struct source_candidate **out, char **candidate_id,
			 const struct run *r, struct sw_error *err);

/* The source a choice of the waiting candidate pins, as a new pinnedSource
 * object in *out: with `adopt`, the candidate's snapshot (NULL when it has
 * none: an invalid candidate cannot be adopted); without, the pinned
 * requirements under the candidate's projection (repository, number, URL,
 * URL aliases, parent) with their source revision recomputed.  SW_ENOTFOUND
 * when the Run has no candidate or pins no source, SW_EINVAL when the
 * projection is no valid pinned source, SW_ENOMEM. */
int run_choice_source(struct json_t **out, const struct run *r, int adopt,
		      struct sw_error *err);

/* 1 when both Runs hold the same record (frozen records compared as
 * stored: thaw both first to compare whole histories). */
int run_equal(const struct run *a, const struct run *b);

const char *run_current_action_id(const struct run *r);		/* or NULL */
const char *run_summary(const struct run *r);			/* or NULL */

/* Replaces the Run's pinnedSource with a copy of `pinned` (a refresh
 * re-pins before the next Action is issued).  SW_ENOMEM. */
int run_set_pinned_source(struct run *r, const struct json_t *pinned,
			  struct sw_error *err);

/* Sets record field `key` (one of the runStatus fields) to a copy of
 * `value`, or removes it when `value` is NULL.  SW_EINVAL for an unknown
 * key, SW_ENOMEM. */
int run_set_field(struct run *r, const char *key, const struct json_t *value,
		  struct sw_error *err);

/* Appends `text` to the Run's observations.  SW_ENOMEM. */
int run_add_observation(struct run *r, const char *text, struct sw_error *err);

/* Records the last resume result {operation, budget_applied}. */
int run_set_resume_result(struct run *r, const char *operation,
			  int budget_applied, struct sw_error *err);

/* Facts about the Action named `action_id` (FSM_F(NAMED_CURRENT),
 * NAMED_VOIDED, PRIOR, PRIOR_SAME) for a submit whose payload digest is
 * `outcome_sha256`, or for an answer whose digest is `answer_sha256`. */
uint64_t run_submit_facts(const struct run *r, const char *action_id,
			  const char *outcome_sha256);
uint64_t run_answer_facts(const struct run *r, const char *action_id,
			  const char *answer_sha256, int *prior_confirm);

/* 1 when an Outcome that supersedes the answer to `old_action_id` names
 * one that is not an active, non-destructive answer of this Run given under
 * its kind of source; 0 when it is, or for NULL (supersedes none).  E.g.
 * the waiting Outcome's
 * run_record_current(rec)->outcome->pause->supersedes_answer_action_id. */
int run_supersedes_invalid(const struct run *r, const char *old_action_id);

#endif
