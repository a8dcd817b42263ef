#ifndef IO_STORE_RUN_RECORD_H
#define IO_STORE_RUN_RECORD_H

/* The Run record as C structs: what the program outside the codec reads of
 * a Run.  io/store/run_check.c decodes the record into these structs in the same
 * pass that checks its shape (one table there names every field), so a
 * missing field or a value of the wrong type is run_journal_invalid at load
 * and can never reach a reader.  The record's code (io/store/run_*.c) decodes
 * the record again after every change it makes (run_create, run_apply, run_clone, run_set_*,
 * run_freeze, run_thaw; run_add_observation touches nothing held here), so
 * the structs and the record never disagree.  The record (a Jansson tree)
 * stays the codec's storage and encoding; frozen Action records are not
 * decoded (rec->actions holds the live ones).
 *
 * Everything here is borrowed from the Run (run_record in io/store/run.h) and
 * valid until the Run changes or is freed.  Strings are NUL-terminated; an
 * optional string that is absent (or JSON null where the record allows it)
 * is NULL; an optional object that is absent is a NULL pointer; an absent
 * list has no elements.  No Jansson type appears here. */

#include <stdbool.h>
#include <stddef.h>

#include "fsm/fsm.h"

/* The reference's bound of the record's `summary` (the ended Run's report,
 * io/report/report.h), in bytes. */
#define RUN_MAX_SUMMARY_BYTES 65536u

struct run_workspace_identity {
	long long version;
	const char *worktree_root;
	const char *git_dir;
	const char *git_common_dir;
	const char *id;
};

/* One entry of a source catalog: a pinned section, or a section of an
 * Action's requirements. */
struct run_section {
	const char *key;
	const char *role;
	const char *title;
	const char *section_revision;
	const char *material_sha256;
	long long bytes;
};

/* An issue-backed Action's requirements catalog. */
struct run_requirements {
	const char *requirements_revision;
	struct run_section *sections;
	size_t n_sections;
};

/* What a confirmed destructive request authorizes the Action that carries
 * it out to do (the Action's `destructive_authorization`). */
struct run_target;
struct run_authorization {
	const char *request_id;
	const char *originating_action_id;
	const char *scope_sha256;
	const char *impact;
	const char *confirmed_at;
	struct run_target *targets;
	size_t n_targets;
};

struct run_action {
	const char *action_id;
	enum fsm_kind kind;
	const char *goal;
	const char *brief;
	long long remaining_budget;
	const char *context_sha256;
	const struct run_requirements *requirements;	/* NULL when ad hoc */
	bool has_source;				/* the `source` object */
	const struct run_authorization *destructive_authorization; /* NULL when none */
};

/* What the record keeps of a recorded Outcome (the Outcome decoder checked
 * it whole at load).  A list of strings is `name` with `n_name` entries. */
struct run_request;

struct run_outcome_pause {
	const char *reason;
	const char *question;
	const char *supersedes_answer_action_id;
	const struct run_request *destructive_request;	/* NULL when none */
};

/* One test, typecheck, build or lint command the host ran. */
struct run_activity {
	const char *kind;
	const char *command;
	long long exit_code;
	const char *summary;
};

struct run_implementation {
	const char *result;
	const char **files_changed;
	size_t n_files_changed;
	struct run_activity *activities;
	size_t n_activities;
};

struct run_finding {
	const char *location;
	const char *summary;
	const char *detail;
};

struct run_review {
	const char *result;
	struct run_finding *findings;
	size_t n_findings;
};

struct run_outcome {
	const char *status;
	const char *summary;
	const char **known_issues;
	size_t n_known_issues;
	const struct run_outcome_pause *pause;		/* NULL when none */
	const struct run_implementation *implementation; /* NULL when none */
	const struct run_review *review;		/* NULL when none */
};

struct run_action_record {
	struct run_action action;
	const struct run_outcome *outcome;		/* NULL before a submit */
	const char *outcome_payload_sha256;
	bool voided;
	bool skipped;
};

struct run_target {
	const char *kind;
	const char *value;
};

struct run_request {
	const char *request_id;
	const char *impact;
	const char *scope_sha256;
	struct run_target *targets;
	size_t n_targets;
};

struct run_answer {
	const char *action_id;
	const char *text;
	bool confirm_destructive;
	const char *payload_sha256;
	bool active;
	const char *at;
	const char *scope_sha256;
	const char *superseded_by;
	const char *requirements_revision;	/* issue-backed Runs */
};

struct run_pinned_source {
	const char *provider;
	const char *host;
	const char *issue_id;
	const char *canonical_url;
	const char *source_revision;
	const char *manifest_revision;
	const char *requirements_revision;
	struct run_section *sections;
	size_t n_sections;
};

struct run_source_candidate {
	const char *candidate_id;
	bool valid;
	const char *classification;
	const char *classification_code;
	const char *classification_error;
	const struct run_pinned_source *snapshot;	/* NULL when invalid */
};

/* The receipt of the last source choice. */
struct run_source_choice {
	const char *candidate_id;
	const char *choice;			/* "adopt" or "pinned" */
	const char *resulting_action_id;
	const char *at;
};

struct run_resume_result {
	const char *operation;
	bool budget_applied;
	const char *candidate_id;
};

/* One event of the Run's history that no Action record keeps: a stop, a
 * resume, a refresh of the Issue, a source choice, or a pause because the
 * budget was spent.  Gathered from the journal (run_history_events in
 * io/store/run_history.h), in journal order; the driver hands them to the
 * person's report beside the record. */
struct run_event {
	enum tbl_jevent type;
	enum fsm_pause pause;		/* the pause it entered, or FSM_PAUSE_NONE */
	long long budget;		/* an event that issued an Action: the
					 * budget left before it (that Action's
					 * unit included); -1 otherwise */
	size_t after;			/* the Actions issued before it */
};

struct run_record {
	const char *id;
	const char *goal;
	const char *workspace;
	struct run_workspace_identity workspace_identity;
	enum fsm_runstate state;
	enum fsm_pause pause_reason;		/* FSM_PAUSE_NONE when none */
	bool review_enabled;
	bool review_pending;
	long long initial_budget;
	long long remaining_budget;
	/* initial_git and current_git: run_git_observation in io/store/run.h */
	bool final_git_observed;
	const struct run_pinned_source *pinned_source;
	const struct run_source_candidate *source_candidate;
	const struct run_source_choice *last_source_choice;
	const struct run_resume_result *last_resume_result;
	const struct run_action *current_action;
	/* On a frozen Run (run_freeze) only the records after the frozen
	 * ones; the current Action's record is always among them. */
	struct run_action_record *actions;
	size_t n_actions;
	struct run_answer *answers;
	size_t n_answers;
	/* Gathered from every Outcome and from Git (notes such as
	 * "observed_since_start: ..."). */
	const char **observations;
	size_t n_observations;
	const char **known_issues;
	size_t n_known_issues;
	const char **uncertainties;
	size_t n_uncertainties;
	struct run_activity *activities;
	size_t n_activities;
	const char *summary;
	const struct run_request *pending_destructive_request;
	bool has_destructive_grant;
	const char *created_at;
	const char *updated_at;
};

/* The record of the current Action, or NULL. */
const struct run_action_record *run_record_current(const struct run_record *rec);

/* The record of the Action named `action_id` among rec->actions, or NULL. */
const struct run_action_record *run_record_action(const struct run_record *rec,
						   const char *action_id);

/* The answer given to the Action named `action_id`, or NULL. */
const struct run_answer *run_record_answer(const struct run_record *rec,
					   const char *action_id);

/* 1 when the request's scope digest is the one its id, targets and impact
 * give (outcome_request_verify), 0 otherwise or without a request. */
int run_request_verifies(const struct run_request *req);

/* What is wrong with the destructive request a Run paused for
 * confirmation waits on, checked in the reference's order
 * (currentDestructiveRequest): no pending request, one that does not
 * verify, no request in the waiting Action's Outcome, one there that does
 * not verify, the two differing, or a grant still held.  Only a damaged
 * record gets anything but RUN_REQUEST_SOUND. */
enum run_request_fault {
	RUN_REQUEST_SOUND = 0,
	RUN_REQUEST_MISSING,		/* destructive_request_missing */
	RUN_REQUEST_INVALID,		/* invalid_destructive_request */
	RUN_REQUEST_CHANGED,		/* destructive_scope_changed */
	RUN_REQUEST_GRANT_HELD		/* destructive_grant_conflict */
};
enum run_request_fault run_request_fault(const struct run_record *rec);

/* The catalog entry named `key` among `sections`, or NULL. */
const struct run_section *run_section_find(const struct run_section *sections, size_t n,
					   const char *key);

#endif
