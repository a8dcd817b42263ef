/* The Run state machine as data.  fsm/fsm.c interprets these tables; the
 * docs, the state diagram and the model checks are generated from them. */

#include "fsm/fsm.h"

#define F(x) FSM_F_##x
#define O(x) FSM_OP_##x
#define ST(x) FSM_ST_##x
#define E(x) FSM_ERR_X(x)
#define FSM_ERR_X(x) TBL_ERR_##x
#define FSM_EV_ANY_EVENT FSM_EV_INVALID	/* a row with this `on` matches every event */
#define PAUSED FSM_IN_PAUSED
#define LIVE FSM_IN_LIVE
#define EXISTS (FSM_IN_LIVE | FSM_IN(STOPPED) | FSM_IN(ENDED))
#define DONE (FSM_IN(STOPPED) | FSM_IN(ENDED))

#define REJECT(from, on, need, deny, err, why) \
	{ from, FSM_EV_##on, need, deny, FSM_REJECT, E(err), ST(INVALID), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, 0, why }
#define SAME(from, on, need, deny, why) \
	{ from, FSM_EV_##on, need, deny, FSM_IDEMPOTENT, E(NONE), ST(INVALID), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, 0, why }
#define MOVE(from, on, need, deny, to, ops, why) \
	{ from, FSM_EV_##on, need, deny, FSM_APPLY, E(NONE), ST(to), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, ops, why }
#define ISSUE(from, on, need, deny, kind, brief, ops, why) \
	{ from, FSM_EV_##on, need, deny, FSM_APPLY, E(NONE), ST(ACTIVE), \
	  FSM_ISSUE_KIND, FSM_KIND_##kind, FSM_BRIEF_##brief, ops, why }
#define SUGGEST(from, on, need, deny, ops, why) \
	{ from, FSM_EV_##on, need, deny, FSM_APPLY, E(NONE), ST(ACTIVE), \
	  FSM_ISSUE_SUGGESTED, FSM_KIND_NONE, FSM_BRIEF_SUGGESTED, ops, why }
#define END(from, on, need, deny, ops, why) \
	{ from, FSM_EV_##on, need, deny, FSM_APPLY, E(NONE), ST(ENDED), \
	  FSM_ISSUE_END, FSM_KIND_NONE, FSM_BRIEF_NONE, ops, why }

#define ACTIVE_ FSM_IN(ACTIVE)
#define DECISION_ FSM_IN(PAUSED_DECISION)
#define DESTRUCTIVE_ FSM_IN(PAUSED_DESTRUCTIVE)
#define ENV_ FSM_IN(PAUSED_ENVIRONMENT)
#define BUDGET_ FSM_IN(PAUSED_BUDGET)
#define NEW_ FSM_IN(NEW)

/* clang-format off */
const struct fsm_rule tbl_rules[] = {
	/* ---- start: the first Orient ---- */
	REJECT(NEW_,    START,  F(GIT_FAILED), 0,                     GIT_OBSERVATION_FAILED, "the run-start Git observation failed"),
	ISSUE (NEW_,    START,  0, 0,                ORIENT, START,   O(CREATE),              "a new Run issues Orient"),
	REJECT(NEW_,    ANY_EVENT, 0, 0,                              RUNTIME_ERROR,          "no Run exists under that id"),
	REJECT(EXISTS,  START,  0, 0,                                 RUNTIME_ERROR,          "a Run with that id exists"),

	/* ---- submit: gates, in the reference's order ---- */
	REJECT(EXISTS,  SUBMIT, F(PRIOR) | F(NAMED_VOIDED), 0,        STALE_ACTION,           "the Action was voided after its outcome"),
	SAME  (EXISTS,  SUBMIT, F(PRIOR) | F(PRIOR_SAME), 0,                                  "the same bytes again replay the answer"),
	REJECT(EXISTS,  SUBMIT, F(PRIOR), 0,                          OUTCOME_CONFLICT,       "different bytes for an Action with an outcome"),
	REJECT(DONE,    SUBMIT, 0, 0,                                 RUN_NOT_ACTIVE,         "a stopped or ended Run takes no outcome"),
	REJECT(EXISTS,  SUBMIT, F(NAMED_VOIDED), 0,                   STALE_ACTION,           "the Action was voided"),
	REJECT(PAUSED,  SUBMIT, 0, 0,                                 RUN_NOT_ACTIVE,         "a paused Run takes no outcome"),
	REJECT(ACTIVE_, SUBMIT, 0, F(NAMED_CURRENT),                  STALE_ACTION,           "the Action is not the current one"),
	REJECT(ACTIVE_, SUBMIT, F(OUTCOME_INVALID), 0,                INVALID_OUTCOME,        "the Outcome breaks the legal-outcome matrix"),
	REJECT(ACTIVE_, SUBMIT, F(SUPERSEDE_INVALID), 0,              INVALID_DECISION_SUPERSESSION, "the superseded answer is not active"),

	/* ---- submit: needs_input keeps the Action current and pauses ---- */
	MOVE  (ACTIVE_, SUBMIT, F(NEEDS_INPUT) | F(GIT_FAILED), 0,    PAUSED_ENVIRONMENT, O(RECORD_OUTCOME) | O(GIT_FAILED) | O(KEEP_ACTION), "Git observation failed: the host's reason is replaced"),
	MOVE  (ACTIVE_, SUBMIT, F(NEEDS_INPUT) | F(ASK_DECISION), 0,  PAUSED_DECISION,    O(RECORD_OUTCOME) | O(OBSERVE) | O(KEEP_ACTION), "the host needs a decision"),
	MOVE  (ACTIVE_, SUBMIT, F(NEEDS_INPUT) | F(ASK_ENVIRONMENT), 0, PAUSED_ENVIRONMENT, O(RECORD_OUTCOME) | O(OBSERVE) | O(KEEP_ACTION), "the host's environment is unavailable"),
	MOVE  (ACTIVE_, SUBMIT, F(NEEDS_INPUT) | F(ASK_DESTRUCTIVE), 0, PAUSED_DESTRUCTIVE, O(RECORD_OUTCOME) | O(OBSERVE) | O(KEEP_ACTION) | O(RECORD_REQUEST), "the host asks to confirm a destructive scope"),

	/* ---- submit: routing after a finished Action ---- */
	MOVE  (ACTIVE_, SUBMIT, F(OBSERVES) | F(GIT_FAILED), 0,       PAUSED_ENVIRONMENT, O(RECORD_OUTCOME) | O(QUEUE) | O(GIT_FAILED), "Git observation failed after the Action"),
	ISSUE (ACTIVE_, SUBMIT, F(OBSERVES) | F(REVIEW_ENABLED) | F(CHANGED), 0, REVIEW, DEFAULT, O(RECORD_OUTCOME) | O(OBSERVE) | O(QUEUE) | O(DROP_QUEUE), "a change was observed: Review comes first and the queue is dropped"),
	SUGGEST(ACTIVE_, SUBMIT, F(SUGGESTION), 0,                    O(RECORD_OUTCOME) | O(OBSERVE) | O(QUEUE) | O(POP), "the host's suggestion is issued"),
	END   (ACTIVE_, SUBMIT, F(KIND_SUMMARIZE), 0,                 O(RECORD_OUTCOME) | O(END), "Summarize ends the Run"),
	ISSUE (ACTIVE_, SUBMIT, F(KIND_REVIEW), 0,   SUMMARIZE, DEFAULT, O(RECORD_OUTCOME) | O(CLEAR_REVIEW), "Review is followed by Summarize"),
	ISSUE (ACTIVE_, SUBMIT, 0, 0,                SUMMARIZE, DEFAULT, O(RECORD_OUTCOME) | O(OBSERVE), "with nothing else to do, Summarize"),

	/* ---- answer: gates ---- */
	REJECT(BUDGET_, ANSWER, F(PRIOR) | F(PRIOR_SAME) | F(CONFIRM), F(BUDGET), BUDGET_EXHAUSTED, "a replayed confirmation still has no budget"),
	SAME  (EXISTS,  ANSWER, F(PRIOR) | F(PRIOR_SAME), 0,                                  "the same answer again replays"),
	REJECT(EXISTS,  ANSWER, F(PRIOR), 0,                          ANSWER_CONFLICT,        "a different answer for an answered Action"),
	REJECT(ACTIVE_ | DONE, ANSWER, 0, 0,                          ANSWER_NOT_EXPECTED,    "the Run is not paused"),
	REJECT(ENV_,    ANSWER, 0, 0,                                 ANSWER_NOT_ALLOWED,     "an unavailable environment is resumed, not answered"),
	REJECT(BUDGET_, ANSWER, 0, 0,                                 ANSWER_NOT_EXPECTED,    "an exhausted budget is resumed, not answered"),
	REJECT(DECISION_ | DESTRUCTIVE_, ANSWER, 0, F(NAMED_CURRENT), STALE_ACTION,           "the Action is not the waiting one"),

	/* ---- answer: a decision ---- */
	REJECT(DECISION_, ANSWER, F(CONFIRM), 0,                      DESTRUCTIVE_CONFIRMATION_NOT_EXPECTED, "a decision takes no destructive confirmation"),
	REJECT(DECISION_, ANSWER, F(SCOPE_GIVEN), 0,                  DESTRUCTIVE_CONFIRMATION_NOT_EXPECTED, "a decision takes no scope digest"),
	REJECT(DECISION_, ANSWER, F(TEXT_BLANK), 0,                   ANSWER_REQUIRED,        "a decision needs text"),
	REJECT(DECISION_, ANSWER, F(SUPERSEDE_INVALID), 0,            INVALID_DECISION_SUPERSESSION, "the superseded answer is no longer active"),
	ISSUE (DECISION_, ANSWER, 0, 0,              ORIENT, AFTER_DECISION, O(SUPERSEDE) | O(VOID) | O(ANSWER_ACTIVE) | O(CLEAR_QUEUE), "a decision re-orients"),

	/* ---- answer: a destructive request ---- */
	REJECT(DESTRUCTIVE_, ANSWER, F(REQUEST_INVALID), 0,           INVALID_DESTRUCTIVE_REQUEST, "the pending request no longer validates"),
	REJECT(DESTRUCTIVE_, ANSWER, F(SCOPE_GIVEN), F(CONFIRM),      DESTRUCTIVE_CONFIRMATION_FLAG_REQUIRED, "a digest alone confirms nothing"),
	REJECT(DESTRUCTIVE_, ANSWER, F(TEXT_BLANK), F(CONFIRM),       ANSWER_REQUIRED,        "feedback needs text"),
	ISSUE (DESTRUCTIVE_, ANSWER, 0, F(CONFIRM),  ORIENT, AFTER_DECLINE, O(VOID) | O(ANSWER_ACTIVE) | O(CLEAR_QUEUE), "text never authorizes: decline or feedback re-orients"),
	REJECT(DESTRUCTIVE_, ANSWER, F(CONFIRM), F(SCOPE_WELLFORMED), DESTRUCTIVE_SCOPE_REQUIRED, "confirmation needs a sha256 scope digest"),
	REJECT(DESTRUCTIVE_, ANSWER, F(CONFIRM), F(SCOPE_MATCH),      DESTRUCTIVE_SCOPE_MISMATCH, "the digest is not the request's"),
	{ DESTRUCTIVE_, FSM_EV_ANSWER, F(CONFIRM), F(BUDGET), FSM_APPLY_ERROR, E(BUDGET_EXHAUSTED), ST(PAUSED_BUDGET), FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE,
	  O(ANSWER_INACTIVE) | O(DROP_QUEUE) | O(VOID), "confirmed with no budget: recorded, paused, and reported" },
	ISSUE (DESTRUCTIVE_, ANSWER, F(CONFIRM), 0,  IMPLEMENT, AUTHORIZED, O(ANSWER_INACTIVE) | O(DROP_QUEUE) | O(GRANT) | O(RECORD_REQUEST), "the exact scope re-issues Implement with a one-shot grant"),

	/* ---- skip ---- */
	REJECT(NEW_ | DONE, SKIP, 0, 0,                               RUN_NOT_SKIPPABLE,      "only an active or paused Run has a skippable Action"),
	REJECT(LIVE,    SKIP,   0, F(NAMED_CURRENT),                  STALE_ACTION,           "the Action is not the current one"),
	ISSUE (LIVE,    SKIP,   F(KIND_REVIEW), 0,   SUMMARIZE, AFTER_REVIEW_SKIP, O(SKIP) | O(REVIEW_NOT_RUN) | O(CLEAR_REVIEW) | O(DROP_QUEUE), "skipped Review goes to Summarize"),
	END   (LIVE,    SKIP,   F(KIND_SUMMARIZE), 0,                 O(SKIP) | O(DROP_QUEUE) | O(END_SKIPPED), "skipped Summarize ends the Run"),
	MOVE  (LIVE,    SKIP,   F(GIT_FAILED), 0,                     PAUSED_ENVIRONMENT, O(SKIP) | O(DROP_QUEUE) | O(GIT_FAILED), "Git observation failed after the skip"),
	ISSUE (LIVE,    SKIP,   F(REVIEW_ENABLED) | F(CHANGED), 0, REVIEW, REVIEW_AFTER_SKIP, O(SKIP) | O(DROP_QUEUE) | O(OBSERVE), "a change was observed: Review"),
	ISSUE (LIVE,    SKIP,   0, 0,                SUMMARIZE, SUMMARY_AFTER_SKIP, O(SKIP) | O(DROP_QUEUE) | O(OBSERVE), "otherwise Summarize"),

	/* ---- stop ---- */
	REJECT(FSM_IN(ENDED), STOP, 0, 0,                             RUN_ALREADY_ENDED,      "an ended Run cannot be stopped"),
	MOVE  (FSM_IN(STOPPED), STOP, 0, 0,                           STOPPED, 0,             "stopping again is journaled"),
	MOVE  (LIVE,    STOP,   0, 0,                                 STOPPED, O(VOID),       "stop voids the current Action"),

	/* ---- resume ---- */
	REJECT(FSM_IN(ENDED), RESUME, 0, 0,                           RUN_ALREADY_ENDED,      "an ended Run cannot be resumed"),
	REJECT(EXISTS,  RESUME, 0, F(NEXT_RESUME),                    RUN_NOT_RESUMABLE,      "the Run's next operation is not resume"),
	REJECT(EXISTS,  RESUME, F(SOURCE_OPTIONS), F(ISSUE_BACKED),   SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run takes no source option"),
	REJECT(EXISTS,  RESUME, F(ISSUE_BACKED) | F(CANDIDATE), F(SOURCE_OPTIONS), SOURCE_CHOICE_REQUIRED, "a waiting source candidate needs a choice"),
	REJECT(EXISTS,  RESUME, F(ISSUE_BACKED), F(SOURCE_OPTIONS),   SOURCE_MODE_REQUIRED,   "an issue-backed Run resumes through a source mode"),
	REJECT(EXISTS,  RESUME, F(ISSUE_BACKED), 0,                   STALE_SOURCE_CANDIDATE, "a source choice names no waiting candidate"),
	ISSUE (EXISTS,  RESUME, 0, F(ISSUE_BACKED),  ORIENT, RESUMED, O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET), "resume issues a fresh Orient"),

	/* ---- resume --use-pinned-source: the Issue is not re-read ---- */
	REJECT(FSM_IN(ENDED), RESUME_PINNED, 0, 0,                    RUN_ALREADY_ENDED,      "an ended Run cannot be resumed"),
	REJECT(EXISTS,  RESUME_PINNED, 0, F(NEXT_RESUME),             RUN_NOT_RESUMABLE,      "the Run's next operation is not resume"),
	REJECT(EXISTS,  RESUME_PINNED, 0, F(ISSUE_BACKED),            SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run pins no source to keep"),
	REJECT(EXISTS,  RESUME_PINNED, F(CANDIDATE), 0,               SOURCE_CANDIDATE_PENDING, "a waiting source candidate is resolved first"),
	ISSUE (EXISTS,  RESUME_PINNED, 0, 0,         ORIENT, RESUMED_PINNED, O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET), "keeping the pinned source issues a fresh Orient"),

	/* ---- resume --source-file: the same manifest is re-pinned ---- */
	REJECT(FSM_IN(ENDED), RESUME_REFRESH, 0, 0,                   RUN_ALREADY_ENDED,      "an ended Run cannot be resumed"),
	REJECT(EXISTS,  RESUME_REFRESH, 0, F(NEXT_RESUME),            RUN_NOT_RESUMABLE,      "the Run's next operation is not resume"),
	REJECT(EXISTS,  RESUME_REFRESH, 0, F(ISSUE_BACKED),           SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run has no Issue to refresh"),
	REJECT(EXISTS,  RESUME_REFRESH, F(CANDIDATE), 0,              SOURCE_CANDIDATE_PENDING, "a waiting source candidate is resolved first"),
	ISSUE (EXISTS,  RESUME_REFRESH, 0, 0,        ORIENT, RESUMED_REFRESHED, O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET), "the refreshed source is re-pinned and a fresh Orient issued"),

	/* ---- resume --source-file: a candidate waits for a human (no budget) ---- */
	REJECT(FSM_IN(ENDED), CANDIDATE_INVALID, 0, 0,                RUN_ALREADY_ENDED,      "an ended Run cannot be resumed"),
	REJECT(EXISTS,  CANDIDATE_INVALID, 0, F(NEXT_RESUME),         RUN_NOT_RESUMABLE,      "the Run's next operation is not resume"),
	REJECT(EXISTS,  CANDIDATE_INVALID, 0, F(ISSUE_BACKED),        SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run has no Issue to refresh"),
	REJECT(EXISTS,  CANDIDATE_INVALID, F(CANDIDATE), 0,           SOURCE_CANDIDATE_PENDING, "a waiting source candidate is resolved first"),
	MOVE  (EXISTS,  CANDIDATE_INVALID, 0, 0,                      PAUSED_DECISION, O(VOID) | O(CLEAR_QUEUE) | O(CANDIDATE_INVALID), "an invalid refreshed body pauses for a decision"),
	REJECT(FSM_IN(ENDED), CANDIDATE_VALID, 0, 0,                  RUN_ALREADY_ENDED,      "an ended Run cannot be resumed"),
	REJECT(EXISTS,  CANDIDATE_VALID, 0, F(NEXT_RESUME),           RUN_NOT_RESUMABLE,      "the Run's next operation is not resume"),
	REJECT(EXISTS,  CANDIDATE_VALID, 0, F(ISSUE_BACKED),          SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run has no Issue to refresh"),
	REJECT(EXISTS,  CANDIDATE_VALID, F(CANDIDATE), 0,             SOURCE_CANDIDATE_PENDING, "a waiting source candidate is resolved first"),
	MOVE  (EXISTS,  CANDIDATE_VALID, 0, 0,                        PAUSED_DECISION, O(VOID) | O(CLEAR_QUEUE) | O(CANDIDATE_VALID), "an amended Issue pauses for a decision"),

	/* ---- resume --source-choice pinned|adopt --candidate ID ---- */
	REJECT(FSM_IN(ENDED), CHOOSE_PINNED, 0, 0,                    RUN_ALREADY_ENDED,      "an ended Run cannot be resumed"),
	REJECT(EXISTS,  CHOOSE_PINNED, 0, F(NEXT_RESUME),             RUN_NOT_RESUMABLE,      "the Run's next operation is not resume"),
	REJECT(EXISTS,  CHOOSE_PINNED, 0, F(ISSUE_BACKED),            SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run takes no source choice"),
	REJECT(EXISTS,  CHOOSE_PINNED, 0, F(CANDIDATE),               STALE_SOURCE_CANDIDATE, "a source choice names no waiting candidate"),
	ISSUE (EXISTS,  CHOOSE_PINNED, 0, 0,         ORIENT, AFTER_SOURCE_CHOICE, O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET) | O(CANDIDATE_CLEAR), "keeping the pinned requirements re-orients"),
	REJECT(FSM_IN(ENDED), CHOOSE_ADOPT, 0, 0,                     RUN_ALREADY_ENDED,      "an ended Run cannot be resumed"),
	REJECT(EXISTS,  CHOOSE_ADOPT, 0, F(NEXT_RESUME),              RUN_NOT_RESUMABLE,      "the Run's next operation is not resume"),
	REJECT(EXISTS,  CHOOSE_ADOPT, 0, F(ISSUE_BACKED),             SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run takes no source choice"),
	REJECT(EXISTS,  CHOOSE_ADOPT, 0, F(CANDIDATE),                STALE_SOURCE_CANDIDATE, "a source choice names no waiting candidate"),
	REJECT(EXISTS,  CHOOSE_ADOPT, 0, F(CANDIDATE_VALID),          INVALID_SOURCE_CANDIDATE_CHOICE, "an invalid candidate cannot be adopted"),
	ISSUE (EXISTS,  CHOOSE_ADOPT, 0, 0,          ORIENT, AFTER_SOURCE_CHOICE, O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET) | O(CANDIDATE_CLEAR), "adopting the amended requirements re-orients"),
};
/* clang-format on */

const size_t tbl_rules_len = sizeof(tbl_rules) / sizeof(tbl_rules[0]);

/* clang-format off */
const struct fsm_issue_rule tbl_issue_rules[] = {
	/* need       deny       to                   issues  why */
	{ F(BUDGET),  0,         ST(ACTIVE),          1,      "one unit of budget is spent on the new Action" },
	{ 0,          F(BUDGET), ST(PAUSED_BUDGET),   0,      "no budget is left: pause with budget_exhausted" },
};
/* clang-format on */

const size_t tbl_issue_rules_len = sizeof(tbl_issue_rules) / sizeof(tbl_issue_rules[0]);

#define V(x) TBL_VARIANT_##x
#define NONE_ TBL_VARIANT_INVALID

/* clang-format off */
const struct fsm_next_rule tbl_next_rules[] = {
	/* from          need                           deny  op                 variants */
	{ NEW_ | FSM_IN(ENDED), 0, 0,                          TBL_NEXTOP_NONE,   { NONE_ },                                              "nothing is left to do" },
	{ LIVE | FSM_IN(STOPPED), F(CANDIDATE) | F(CANDIDATE_VALID), 0, TBL_NEXTOP_RESUME, { V(KEEP_PINNED), V(ADOPT), NONE_ },           "a valid source candidate waits for a choice" },
	{ LIVE | FSM_IN(STOPPED), F(CANDIDATE), 0,             TBL_NEXTOP_RESUME, { V(KEEP_PINNED), NONE_ },                              "an invalid candidate can only be declined" },
	{ ACTIVE_,       F(HAS_ACTION), 0,                     TBL_NEXTOP_ACTION, { V(SUBMIT_OUTCOME_FILE), V(SUBMIT_OUTCOME_STDIN), V(SKIP_ACTION), NONE_ }, "the host works on the current Action" },
	{ DECISION_,     F(HAS_ACTION), 0,                     TBL_NEXTOP_ANSWER, { V(ANSWER_DECISION), V(SKIP_ACTION), NONE_ },          "a human decides" },
	{ DESTRUCTIVE_,  0, 0,                                 TBL_NEXTOP_ANSWER, { V(CONFIRM_DESTRUCTIVE), V(DECLINE_OR_FEEDBACK), V(SKIP_ACTION), NONE_ }, "a human confirms or declines the exact scope" },
	{ ENV_,          F(HAS_ACTION) | F(ISSUE_BACKED), 0,   TBL_NEXTOP_RESUME, { V(REFRESH_SOURCE), V(USE_PINNED_SOURCE), V(SKIP_ACTION), NONE_ }, "resume once the environment is back" },
	{ ENV_,          F(HAS_ACTION), 0,                     TBL_NEXTOP_RESUME, { V(RESUME_AD_HOC), V(SKIP_ACTION), NONE_ },           "resume once the environment is back" },
	{ LIVE | FSM_IN(STOPPED), F(ISSUE_BACKED), 0,          TBL_NEXTOP_RESUME, { V(REFRESH_SOURCE), V(USE_PINNED_SOURCE), NONE_ },     "resume from the Issue" },
	{ LIVE | FSM_IN(STOPPED), 0, 0,                        TBL_NEXTOP_RESUME, { V(RESUME_AD_HOC), NONE_ },                             "resume" },
};
/* clang-format on */

const size_t tbl_next_rules_len = sizeof(tbl_next_rules) / sizeof(tbl_next_rules[0]);

const char *const tbl_state_name[FSM_ST__COUNT] = {
#define FSMSTATE(id, name, runstate, pause) [FSM_ST_##id] = name,
#include "tables/fsm_states.def"
#undef FSMSTATE
};

const enum fsm_runstate tbl_state_runstate[FSM_ST__COUNT] = {
#define FSMSTATE(id, name, runstate, pause) [FSM_ST_##id] = FSM_RUN_##runstate,
#include "tables/fsm_states.def"
#undef FSMSTATE
};

const enum fsm_pause tbl_state_pause[FSM_ST__COUNT] = {
#define FSMSTATE(id, name, runstate, pause) [FSM_ST_##id] = FSM_PAUSE_##pause,
#include "tables/fsm_states.def"
#undef FSMSTATE
};

const char *const tbl_brief_text[FSM_BRIEF__COUNT] = {
#define BRIEF(id, text) [FSM_BRIEF_##id] = text,
#include "tables/briefs.def"
#undef BRIEF
};

const char *const tbl_violation_text[FSM_VIOLATION__COUNT] = {
#define VIOLATION(id, text) [FSM_VIOLATION_##id] = text,
#include "tables/violations.def"
#undef VIOLATION
};

/* Names of the fact and effect bits, by bit number, for the generated docs
 * and the scenario files. */
const char *const tbl_fact_name[32] = {
	"named_current", "named_voided", "prior", "prior_same", "git_failed",
	"changed", "text_blank", "confirm", "scope_given", "scope_wellformed",
	"scope_match", "request_invalid", "supersede_invalid", "budget_given",
	"source_options", "outcome_invalid", "has_action", "budget",
	"review_enabled", "observes", "kind_review", "kind_summarize",
	"needs_input", "suggestion", "ask_decision", "ask_environment",
	"ask_destructive", "next_resume", "issue_backed", "candidate",
	"candidate_valid", "queued",
};

const char *const tbl_op_name[FSM_OP__BITS] = {
	"record_outcome", "observe", "git_failed", "keep_action", "void",
	"queue", "pop", "drop_queue", "clear_queue", "record_request", "grant",
	"answer_active", "answer_inactive", "supersede", "skip",
	"review_not_run", "clear_review", "resume_budget", "end",
	"end_skipped", "create", "candidate_invalid", "candidate_valid",
	"candidate_clear",
};

const char *const tbl_verdict_name[4] = {
	[FSM_REJECT] = "reject",
	[FSM_APPLY] = "apply",
	[FSM_APPLY_ERROR] = "apply_error",
	[FSM_IDEMPOTENT] = "replay",
};

_Static_assert(FSM_F_QUEUED == 1u << 31, "one name per fact bit");
_Static_assert(FSM_OP_CANDIDATE_CLEAR == 1u << (FSM_OP__BITS - 1), "one name per effect bit");
