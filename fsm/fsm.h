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

#include "tables/tables.h"

enum fsm_state {
#define FSMSTATE(id, name, runstate, pause) FSM_ST_##id,
#include "tables/fsm_states.def"
#undef FSMSTATE
	FSM_ST__COUNT
};

/* A set of states, for rule rows that apply to several. */
#define FSM_IN(st) (1u << FSM_ST_##st)
#define FSM_IN_PAUSED (FSM_IN(PAUSED_DECISION) | FSM_IN(PAUSED_DESTRUCTIVE) | \
		       FSM_IN(PAUSED_ENVIRONMENT) | FSM_IN(PAUSED_BUDGET))
#define FSM_IN_LIVE (FSM_IN(ACTIVE) | FSM_IN_PAUSED)
#define FSM_IN_ANY (FSM_IN(NEW) | FSM_IN_LIVE | FSM_IN(STOPPED) | FSM_IN(ENDED))

enum fsm_brief {
#define BRIEF(id, text) FSM_BRIEF_##id,
#include "tables/briefs.def"
#undef BRIEF
	FSM_BRIEF__COUNT
};

/* Facts.  The first group comes from io/ with the event; the second is
 * derived by the interpreter from the run and the Outcome. */
enum fsm_fact {
	FSM_F_NAMED_CURRENT	= 1u << 0,  /* the named Action is the current one */
	FSM_F_NAMED_VOIDED	= 1u << 1,  /* the named Action was voided */
	FSM_F_PRIOR		= 1u << 2,  /* it already has an outcome / answer receipt */
	FSM_F_PRIOR_SAME	= 1u << 3,  /* ... with the same payload digest */
	FSM_F_GIT_FAILED	= 1u << 4,  /* the Git observation of this event failed */
	FSM_F_CHANGED		= 1u << 5,  /* Git differs from the Run-start snapshot */
	FSM_F_TEXT_BLANK	= 1u << 6,  /* answer text is blank */
	FSM_F_CONFIRM		= 1u << 7,  /* --confirm-destructive given */
	FSM_F_SCOPE_GIVEN	= 1u << 8,  /* a non-blank --scope-sha256 given */
	FSM_F_SCOPE_WELLFORMED	= 1u << 9,  /* ... and it is a sha256: digest */
	FSM_F_SCOPE_MATCH	= 1u << 10, /* ... equal to the request's digest */
	FSM_F_REQUEST_INVALID	= 1u << 11, /* the pending request failed re-validation */
	FSM_F_SUPERSEDE_INVALID	= 1u << 12, /* the superseded answer is not active */
	FSM_F_BUDGET_GIVEN	= 1u << 13, /* resume --budget N */
	FSM_F_SOURCE_OPTIONS	= 1u << 14, /* resume with a source option */
	FSM_F_OUTCOME_INVALID	= 1u << 15, /* the Outcome breaks the matrix or binding */
	FSM_F__INPUT		= (1u << 16) - 1,

	FSM_F_HAS_ACTION	= 1u << 16, /* the run has a current Action */
	FSM_F_BUDGET		= 1u << 17, /* remaining budget >= 1 */
	FSM_F_REVIEW_ENABLED	= 1u << 18,
	FSM_F_OBSERVES		= 1u << 19, /* current kind observes Git */
	FSM_F_KIND_REVIEW	= 1u << 20,
	FSM_F_KIND_SUMMARIZE	= 1u << 21,
	FSM_F_NEEDS_INPUT	= 1u << 22, /* Outcome status needs_input */
	FSM_F_SUGGESTION	= 1u << 23, /* Outcome carries a suggestion */
	FSM_F_ASK_DECISION	= 1u << 24, /* Outcome pause reason */
	FSM_F_ASK_ENVIRONMENT	= 1u << 25,
	FSM_F_ASK_DESTRUCTIVE	= 1u << 26,
	FSM_F_NEXT_RESUME	= 1u << 27, /* the run's next operation is resume */
	FSM_F_ISSUE_BACKED	= 1u << 28,
	FSM_F_CANDIDATE		= 1u << 29, /* a source candidate is pending */
	FSM_F_CANDIDATE_VALID	= 1u << 30,
	FSM_F_QUEUED		= 1u << 31  /* a suggestion is queued */
};

/* Effects the driver applies, in this order, to the full Run record. */
enum fsm_op {
	FSM_OP_RECORD_OUTCOME	= 1u << 0,  /* record outcome + digest, append lists */
	FSM_OP_OBSERVE		= 1u << 1,  /* record the observation; review_pending := enabled && changed */
	FSM_OP_GIT_FAILED	= 1u << 2,  /* known issue: Git observation failed */
	FSM_OP_KEEP_ACTION	= 1u << 3,  /* the current Action stays current */
	FSM_OP_VOID		= 1u << 4,  /* void the current Action */
	FSM_OP_QUEUE		= 1u << 5,  /* queue the Outcome's suggestion */
	FSM_OP_POP		= 1u << 6,  /* issue from the queued suggestion */
	FSM_OP_DROP_QUEUE	= 1u << 7,  /* drop queued suggestions, each recorded */
	FSM_OP_CLEAR_QUEUE	= 1u << 8,  /* forget queued suggestions silently */
	FSM_OP_RECORD_REQUEST	= 1u << 9,  /* keep the destructive request pending */
	FSM_OP_GRANT		= 1u << 10, /* build the one-shot destructive grant */
	FSM_OP_ANSWER_ACTIVE	= 1u << 11, /* record the answer, active */
	FSM_OP_ANSWER_INACTIVE	= 1u << 12, /* record the receipt, inactive */
	FSM_OP_SUPERSEDE	= 1u << 13, /* mark the superseded answer inactive */
	FSM_OP_SKIP		= 1u << 14, /* mark the Action skipped */
	FSM_OP_REVIEW_NOT_RUN	= 1u << 15, /* skipped Review gets a not_run projection */
	FSM_OP_CLEAR_REVIEW	= 1u << 16, /* review_pending := false */
	FSM_OP_RESUME_BUDGET	= 1u << 17, /* replace / keep / max(initial, 3) */
	FSM_OP_END		= 1u << 18, /* final observation and the host summary */
	FSM_OP_END_SKIPPED	= 1u << 19, /* final observation, fixed skip summary */
	FSM_OP_CREATE		= 1u << 20, /* create the Run (start) */
	FSM_OP_CANDIDATE_INVALID = 1u << 21, /* an invalid source candidate waits */
	FSM_OP_CANDIDATE_VALID	= 1u << 22, /* a valid source candidate waits */
	FSM_OP_CANDIDATE_CLEAR	= 1u << 23  /* the candidate was resolved */
};

/* The number of effect bits (the last one is 1u << (FSM_OP__BITS - 1)). */
#define FSM_OP__BITS 24

enum fsm_verdict {
	FSM_REJECT = 0,		/* error `err`; nothing is written */
	FSM_APPLY,		/* commit the new run and effects */
	FSM_APPLY_ERROR,	/* commit, then answer with error `err` */
	FSM_IDEMPOTENT		/* nothing is written; answer with the current run */
};

/* What an applied rule issues next. */
enum fsm_issue {
	FSM_ISSUE_NONE = 0,	/* no new Action */
	FSM_ISSUE_KIND,		/* the rule's `kind` */
	FSM_ISSUE_SUGGESTED,	/* the Outcome's suggested kind */
	FSM_ISSUE_END		/* the Run ends */
};

/* One routing rule; the first row that matches wins (R4). */
struct fsm_rule {
	unsigned from;			/* set of states, FSM_IN(...) */
	enum fsm_event on;
	unsigned need;			/* facts that must hold */
	unsigned deny;			/* facts that must not */
	enum fsm_verdict verdict;
	enum tbl_err err;
	enum fsm_state to;		/* FSM_ST_INVALID: unchanged */
	enum fsm_issue issue;
	enum fsm_kind kind;
	enum fsm_brief brief;
	unsigned ops;
	const char *why;		/* one line for docs and traces */
};

/* Issuing an Action costs one unit of budget; this table says what happens
 * when there is none left. */
struct fsm_issue_rule {
	unsigned need, deny;
	enum fsm_state to;		/* ACTIVE, or PAUSED_BUDGET */
	int issues;			/* 1: the Action is issued */
	const char *why;
};

/* Where the run stands for `next`. */
struct fsm_next_rule {
	unsigned from;
	unsigned need, deny;
	enum tbl_nextop op;
	enum tbl_variant variants[4];	/* in order; TBL_VARIANT_INVALID ends */
	const char *why;
};

extern const struct fsm_rule tbl_rules[];
extern const size_t tbl_rules_len;
extern const struct fsm_issue_rule tbl_issue_rules[];
extern const size_t tbl_issue_rules_len;
extern const struct fsm_next_rule tbl_next_rules[];
extern const size_t tbl_next_rules_len;

extern const char *const tbl_state_name[FSM_ST__COUNT];
extern const char *const tbl_fact_name[32];
extern const char *const tbl_op_name[FSM_OP__BITS];
extern const char *const tbl_verdict_name[4];
extern const enum fsm_runstate tbl_state_runstate[FSM_ST__COUNT];
extern const enum fsm_pause tbl_state_pause[FSM_ST__COUNT];
extern const char *const tbl_brief_text[FSM_BRIEF__COUNT];

/* ---- the legal-outcome matrix ---- */

/* One cell: what an Outcome of (kind, status) must look like. */
struct fsm_legal {
	int legal;			/* 0: this status is never valid for the kind */
	enum fsm_branch branch;		/* the one non-null branch, or NONE */
	unsigned results;		/* allowed results, 1u << FSM_RESULT_x */
	unsigned pauses;		/* allowed pause values, 1u << FSM_PAUSE_x;
					   1u << FSM_PAUSE_NONE means null */
	unsigned max_suggestions;	/* 0 or 1 */
	unsigned suggestion_kinds;	/* 1u << FSM_KIND_x */
};

extern const struct fsm_legal tbl_legal[FSM_KIND__COUNT][FSM_STATUS__COUNT];

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

enum fsm_violation {
#define VIOLATION(id, text) FSM_VIOLATION_##id,
#include "tables/violations.def"
#undef VIOLATION
	FSM_VIOLATION__COUNT
};

extern const char *const tbl_violation_text[FSM_VIOLATION__COUNT];

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
	unsigned facts;			/* FSM_F_* of the input group */
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
	unsigned ops;
	enum fsm_kind issued;		/* the Action issued, or NONE */
	enum fsm_brief brief;
	size_t rule;			/* tbl_rules row that fired */
	size_t issue_rule;		/* tbl_issue_rules row, or FSM_NO_RULE */
	unsigned facts;			/* all facts the rules saw */
};

/* The minimum budget a resume restores when none is left. */
#define FSM_MIN_RESUME_BUDGET 3u
#define FSM_MAX_BUDGET 1000u
#define FSM_DEFAULT_BUDGET 8u

struct fsm_step fsm_step(const struct fsm_run *run, const struct fsm_input *in);

/* The first tbl_rules row matching (state, event, facts), or FSM_NO_RULE. */
size_t fsm_match(enum fsm_state state, enum fsm_event event, unsigned facts);

/* The facts derived from `run` alone (HAS_ACTION, BUDGET, NEXT_RESUME ...). */
unsigned fsm_run_facts(const struct fsm_run *run);

/* The next rule that applies to `run`; its index through *rule. */
const struct fsm_next_rule *fsm_next(const struct fsm_run *run, size_t *rule);

#endif
