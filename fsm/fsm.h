#ifndef FSM_FSM_H
#define FSM_FSM_H

/* The Run state machine: a pure interpreter over the rule tables of tables/.
 *
 * fsm_step() maps (run, event, facts) to (verdict, new run, effects) and
 * names the table rows that fired so the journal can record them.  It does
 * no I/O, reads no clock, environment or randomness and allocates nothing:
 * io/ works out every fact (Git changed, the named Action is current, the
 * payload digest matches, ...) and passes it in as bits; the driver applies
 * the effects to the full Run record.  `make check-purity` proves the
 * "nothing" part by link check. */

#include <stddef.h>
#include <stdint.h>

#include "tables/machine.h"

/* The parts of an Outcome the matrix constrains. */
struct fsm_outcome_shape {
	enum fsm_kind kind;		/* action_kind */
	enum fsm_status status;
	enum fsm_pause pause;		/* NONE when pause is null */
	int has_supersedes;		/* pause.supersedes_answer_action_id present */
	int has_destructive_request;	/* pause.destructive_request non-null */
	int has_implementation;
	enum fsm_result implementation;	/* its result when present */
	int has_review;
	enum fsm_result review;		/* its result when present */
	size_t findings;		/* review findings count */
	size_t suggestions;
	enum fsm_kind suggestion_kind;	/* first suggestion's kind */
};

/* Checks `s` against the matrix; FSM_VIOLATION_NONE when legal. */
enum fsm_violation fsm_outcome_check(const struct fsm_outcome_shape *s);

/* ---- the interpreter ---- */

/* The part of a Run the state machine decides on. */
struct fsm_run {
	enum fsm_state state;
	enum fsm_kind action;		/* current Action's kind; NONE if none */
	unsigned char review_enabled;
	unsigned char review_pending;
	unsigned char grant;		/* the current Action carries a grant */
	unsigned char request;		/* a destructive request is pending */
	unsigned char queued;		/* a suggestion is queued */
	unsigned char issue_backed;
	unsigned char candidate;	/* a source candidate is pending */
	unsigned char candidate_valid;
	unsigned initial_budget;
	unsigned remaining;
};

struct fsm_input {
	enum fsm_event event;
	uint64_t facts;			/* FSM_F(...) of the input group */
	struct fsm_outcome_shape outcome;	/* SUBMIT */
	unsigned budget;		/* START: initial; RESUME: with BUDGET_GIVEN */
	int review;			/* START: review enabled */
	int issue_backed;		/* START: the Run pins a source */
};

#define FSM_NO_RULE ((size_t)-1)

struct fsm_step {
	enum fsm_verdict verdict;
	enum tbl_err err;		/* REJECT and APPLY_ERROR */
	enum fsm_violation violation;	/* why an Outcome was invalid */
	struct fsm_run run;		/* the run after the event */
	uint32_t ops;
	enum fsm_kind issued;		/* the Action issued, or NONE */
	enum fsm_brief brief;
	size_t rule;			/* tbl_rules row that fired */
	size_t issue_rule;		/* tbl_issue_rules row, or FSM_NO_RULE */
	uint64_t facts;			/* all facts the rules saw */
	enum tbl_jevent journal;	/* APPLY: the journal event type */
	const char *note;		/* NOTE: the observation, or NULL */
	size_t note_rule;		/* tbl_note_rules row, or FSM_NO_RULE */
};

/* The minimum budget a resume restores when none is left. */
#define FSM_MIN_RESUME_BUDGET 3u
#define FSM_MAX_BUDGET 1000u
#define FSM_DEFAULT_BUDGET 8u

struct fsm_step fsm_step(const struct fsm_run *run, const struct fsm_input *in);

/* The facts of the GIT group that the step of `in` (whose GIT facts are
 * not known yet) would read: those some row that can still match needs or
 * denies, or, when the row that will match reads none, the facts of an
 * effect of it that consumes the observation (tbl_ops_git).  0: do not
 * observe Git, the step does not depend on it.  Pure, like fsm_step. */
uint64_t fsm_wants(const struct fsm_run *run, const struct fsm_input *in);

/* The first tbl_rules row matching (state, event, facts), or FSM_NO_RULE. */
size_t fsm_match(enum fsm_state state, enum fsm_event event, uint64_t facts);

/* The facts derived from `run` alone (HAS_ACTION, BUDGET, NEXT_RESUME ...). */
uint64_t fsm_run_facts(const struct fsm_run *run);

/* The next rule that applies to `run`; its index through *rule. */
const struct fsm_next_rule *fsm_next(const struct fsm_run *run, size_t *rule);

#endif
