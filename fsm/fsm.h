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

/* Facts, one line each in tables/facts.def.  A fact set is 64 bits wide:
 * FSM_F(id) is the bit of fact `id`. */
enum fsm_fact {
#define FACT(id, group, name, doc) FSM_FACT_##id,
#include "tables/facts.def"
#undef FACT
	FSM_FACT__COUNT
};

_Static_assert(FSM_FACT__COUNT <= 64, "a fact set holds 64 facts");

#define FSM_F(id) (UINT64_C(1) << FSM_FACT_##id)

/* The facts the service passes in with an event (groups INPUT and GIT);
 * the others are derived by the interpreter.  GIT facts are gathered only
 * when fsm_wants() asks for them. */
extern const uint64_t tbl_facts_input;
extern const uint64_t tbl_facts_git;
/* The effects that consume the Git observation of the event, and those
 * that consume the final observation of an ending Run. */
extern const uint32_t tbl_ops_git;
extern const uint32_t tbl_ops_final_git;

/* What a rule row needs and denies, as two types so that swapped columns
 * do not compile: NEED(F(a) | F(b)) holds when every fact holds, DENY(...)
 * when none does. */
struct fsm_need {
	uint64_t all;
};

struct fsm_deny {
	uint64_t any;
};

#define FSM_NEED(facts) { .all = (facts) }
#define FSM_DENY(facts) { .any = (facts) }

/* Effects, one line each in tables/effects.def; FSM_OP(id) is the bit of
 * effect `id` in a rule's `ops`. */
enum fsm_effect {
#define EFFECT(id, name, phase, doc) FSM_EFFECT_##id,
#include "tables/effects.def"
#undef EFFECT
	FSM_EFFECT__COUNT
};

_Static_assert(FSM_EFFECT__COUNT <= 32, "an effect set holds 32 effects");

#define FSM_OP(id) (UINT32_C(1) << FSM_EFFECT_##id)

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

/* A set of events, for rule rows (gates) that apply to several:
 * FSM_ON_<event> is the one-event set. */
enum fsm_on {
#define EVENT(id, name, jtype, choice) FSM_ON_##id = 1 << FSM_EV_##id,
#include "tables/events.def"
#undef EVENT
};

_Static_assert(FSM_EV__COUNT <= 31, "an event set holds every event");

#define FSM_ON_ANY ((1u << FSM_EV__COUNT) - 2u)	/* every event but INVALID */

/* One routing rule; the first row that matches wins (R4).  `id` is the
 * row's stable number: the journal records it, never the row's position, so
 * inserting a row re-points no old trace.  The rows that existed when ids
 * were introduced took their position as id (so journals from before read
 * the same); a new row takes the next unused number, and no id is reused. */
struct fsm_rule {
	unsigned id;
	unsigned from;			/* set of states, FSM_IN(...) */
	unsigned on;			/* set of events, FSM_ON_... */
	struct fsm_need need;		/* facts that must hold */
	struct fsm_deny deny;		/* facts that must not */
	enum fsm_verdict verdict;
	enum tbl_err err;
	enum fsm_state to;		/* FSM_ST_INVALID: unchanged */
	enum fsm_issue issue;
	enum fsm_kind kind;
	enum fsm_brief brief;
	uint32_t ops;			/* FSM_OP(...) bits */
	const char *why;		/* one line for docs and traces; the message
					   of a refusal unless `detail` gives one */
	/* REJECT: the fact whose gatherer supplies the message and the
	 * error's extra fields (FSM_F(...)), or 0: the message is `why`. */
	uint64_t detail;
	/* The journal event type of a commit; TBL_JEVENT_INVALID: the
	 * event's own (tables/events.def). */
	enum tbl_jevent journal;
};

/* The note an applied row records (effect NOTE): the first row of
 * tbl_note_rules for the fired row's id whose facts hold. */
struct fsm_note_rule {
	unsigned row;			/* tbl_rules id */
	struct fsm_need need;
	struct fsm_deny deny;
	const char *note;		/* the observation recorded */
};

/* Issuing an Action costs one unit of budget; this table says what happens
 * when there is none left. */
struct fsm_issue_rule {
	struct fsm_need need;
	struct fsm_deny deny;
	enum fsm_state to;		/* ACTIVE, or PAUSED_BUDGET */
	int issues;			/* 1: the Action is issued */
	const char *why;
};

/* Where the run stands for `next`. */
struct fsm_next_rule {
	unsigned from;
	struct fsm_need need;
	struct fsm_deny deny;
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
extern const struct fsm_note_rule tbl_note_rules[];
extern const size_t tbl_note_rules_len;

extern const char *const tbl_state_name[FSM_ST__COUNT];
extern const char *const tbl_fact_name[FSM_FACT__COUNT];
extern const char *const tbl_op_name[FSM_EFFECT__COUNT];
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
