#ifndef TABLES_MACHINE_H
#define TABLES_MACHINE_H

/* The types the Run state machine is written in, and the tables written in
 * them: states, briefs, facts, effects, the routing, issue, next and note
 * rules and the legal-outcome matrix (tables/rules.c, tables/matrix.c).
 * fsm/ interprets these tables and includes this header; nothing here
 * includes fsm/, so the pure core's dependencies run one way: fsm/ ->
 * tables/.  Data and declarations only: no function is declared here. */

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

enum fsm_violation {
#define VIOLATION(id, text) FSM_VIOLATION_##id,
#include "tables/violations.def"
#undef VIOLATION
	FSM_VIOLATION__COUNT
};

extern const char *const tbl_violation_text[FSM_VIOLATION__COUNT];

#endif
