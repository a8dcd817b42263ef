/* The Run state machine as data.  fsm/fsm.c interprets these tables; the
 * docs, the state diagram and the model checks are generated from them. */

#include "tables/machine.h"

#define F(x) FSM_F(x)
#define O(x) FSM_OP(x)
#define ST(x) FSM_ST_##x
#define NEED(facts) FSM_NEED(facts)
#define DENY(facts) FSM_DENY(facts)
#define E(x) FSM_ERR_X(x)
#define FSM_ERR_X(x) TBL_ERR_##x
#define FSM_ON_ANY_EVENT FSM_ON_ANY	/* a row with this `on` matches every event */
/* Sets of events whose gates are written once. */
#define FSM_ON_RESUMES (FSM_ON_RESUME | FSM_ON_RESUME_PINNED | FSM_ON_RESUME_REFRESH | \
			FSM_ON_CHOOSE_PINNED | FSM_ON_CHOOSE_ADOPT)
#define FSM_ON_SOURCE_MODES (FSM_ON_RESUME_PINNED | FSM_ON_RESUME_REFRESH)
#define FSM_ON_CHOICES (FSM_ON_CHOOSE_PINNED | FSM_ON_CHOOSE_ADOPT)
#define PAUSED FSM_IN_PAUSED
#define LIVE FSM_IN_LIVE
#define EXISTS (FSM_IN_LIVE | FSM_IN(STOPPED) | FSM_IN(ENDED))
#define DONE (FSM_IN(STOPPED) | FSM_IN(ENDED))

#define NO_DETAIL 0, TBL_JEVENT_INVALID
#define REJECT(id, from, on, need, deny, err, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_REJECT, E(err), ST(INVALID), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, 0, why, NO_DETAIL }
/* A refusal whose message and extra fields come from the gatherer of fact
 * `detail` (its `why` when the gatherer has no text). */
#define REJECT_BY(id, from, on, need, deny, err, detail, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_REJECT, E(err), ST(INVALID), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, 0, why, detail, TBL_JEVENT_INVALID }
#define SAME(id, from, on, need, deny, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_IDEMPOTENT, E(NONE), ST(INVALID), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, 0, why, NO_DETAIL }
/* A replay whose effects shape the answer (nothing is written). */
#define REPLAY(id, from, on, need, deny, ops, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_IDEMPOTENT, E(NONE), ST(INVALID), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, ops, why, NO_DETAIL }
#define MOVE(id, from, on, need, deny, to, ops, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_APPLY, E(NONE), ST(to), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, ops, why, NO_DETAIL }
/* A refreshed source that becomes a candidate waiting for a choice: its
 * own journal event type. */
#define CANDIDATE(id, from, on, need, deny, ops, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_APPLY, E(NONE), ST(PAUSED_DECISION), \
	  FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, ops, why, 0, \
	  TBL_JEVENT_SOURCE_CANDIDATE_CREATED }
#define ISSUE(id, from, on, need, deny, kind, brief, ops, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_APPLY, E(NONE), ST(ACTIVE), \
	  FSM_ISSUE_KIND, FSM_KIND_##kind, FSM_BRIEF_##brief, ops, why, NO_DETAIL }
#define SUGGEST(id, from, on, need, deny, ops, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_APPLY, E(NONE), ST(ACTIVE), \
	  FSM_ISSUE_SUGGESTED, FSM_KIND_NONE, FSM_BRIEF_SUGGESTED, ops, why, NO_DETAIL }
#define END(id, from, on, need, deny, ops, why) \
	{ id, from, FSM_ON_##on, need, deny, FSM_APPLY, E(NONE), ST(ENDED), \
	  FSM_ISSUE_END, FSM_KIND_NONE, FSM_BRIEF_NONE, ops, why, NO_DETAIL }

#define ACTIVE_ FSM_IN(ACTIVE)
#define DECISION_ FSM_IN(PAUSED_DECISION)
#define DESTRUCTIVE_ FSM_IN(PAUSED_DESTRUCTIVE)
#define ENV_ FSM_IN(PAUSED_ENVIRONMENT)
#define BUDGET_ FSM_IN(PAUSED_BUDGET)
#define NEW_ FSM_IN(NEW)

/* Columns of a row: its stable id (see struct fsm_rule: never reused, never
 * renumbered when rows move), the states it applies to, the event, the
 * facts it needs and denies, then what it decides and why. */
/* clang-format off */
const struct fsm_rule tbl_rules[] = {
	/* ---- start: the first Orient ---- */
	REJECT (0, NEW_,   START,     NEED(F(GIT_FAILED)), DENY(0), GIT_OBSERVATION_FAILED, "the run-start Git observation failed"),
	ISSUE  (1, NEW_,   START,     NEED(0),             DENY(0), ORIENT, START, O(CREATE), "a new Run issues Orient"),
	REJECT (2, NEW_,   ANY_EVENT, NEED(0),             DENY(0), RUNTIME_ERROR, "no Run exists under that id"),
	REJECT (3, EXISTS, START,     NEED(0),             DENY(0), RUNTIME_ERROR, "a Run with that id exists"),

	/* ---- submit: gates, in the reference's order ---- */
	REJECT (4,  EXISTS,  SUBMIT, NEED(F(PRIOR) | F(NAMED_VOIDED)), DENY(0),                STALE_ACTION, "the Action was voided after its outcome"),
	SAME   (5,  EXISTS,  SUBMIT, NEED(F(PRIOR) | F(PRIOR_SAME)),   DENY(0),                "the same bytes again replay the answer"),
	REJECT (6,  EXISTS,  SUBMIT, NEED(F(PRIOR)),                   DENY(0),                OUTCOME_CONFLICT, "different bytes for an Action with an outcome"),
	REJECT (7,  DONE,    SUBMIT, NEED(0),                          DENY(0),                RUN_NOT_ACTIVE, "a stopped or ended Run takes no outcome"),
	REJECT (8,  EXISTS,  SUBMIT, NEED(F(NAMED_VOIDED)),            DENY(0),                STALE_ACTION, "the Action was voided"),
	REJECT (9,  PAUSED,  SUBMIT, NEED(0),                          DENY(0),                RUN_NOT_ACTIVE, "a paused Run takes no outcome"),
	REJECT (10, ACTIVE_, SUBMIT, NEED(0),                          DENY(F(NAMED_CURRENT)), STALE_ACTION, "the Action is not the current one"),
	REJECT_BY(11, ACTIVE_, SUBMIT, NEED(F(OUTCOME_INVALID)),       DENY(0),                INVALID_OUTCOME, F(OUTCOME_INVALID), "the Outcome breaks the legal-outcome matrix"),
	REJECT (12, ACTIVE_, SUBMIT, NEED(F(SUPERSEDE_INVALID)),       DENY(0),                INVALID_DECISION_SUPERSESSION, "the superseded answer is not active"),

	/* ---- submit: needs_input keeps the Action current and pauses ---- */
	MOVE   (13, ACTIVE_, SUBMIT, NEED(F(NEEDS_INPUT) | F(OBSERVES) | F(GIT_FAILED)), DENY(0), PAUSED_ENVIRONMENT, O(RECORD_OUTCOME) | O(GIT_FAILED) | O(KEEP_ACTION), "Git observation failed: the host's reason is replaced"),
	MOVE   (14, ACTIVE_, SUBMIT, NEED(F(NEEDS_INPUT) | F(ASK_DECISION)),    DENY(0), PAUSED_DECISION, O(RECORD_OUTCOME) | O(OBSERVE) | O(KEEP_ACTION), "the host needs a decision"),
	MOVE   (15, ACTIVE_, SUBMIT, NEED(F(NEEDS_INPUT) | F(ASK_ENVIRONMENT)), DENY(0), PAUSED_ENVIRONMENT, O(RECORD_OUTCOME) | O(OBSERVE) | O(KEEP_ACTION), "the host's environment is unavailable"),
	MOVE   (16, ACTIVE_, SUBMIT, NEED(F(NEEDS_INPUT) | F(ASK_DESTRUCTIVE)), DENY(0), PAUSED_DESTRUCTIVE, O(RECORD_OUTCOME) | O(OBSERVE) | O(KEEP_ACTION) | O(RECORD_REQUEST), "the host asks to confirm a destructive scope"),

	/* ---- submit: routing after a finished Action ---- */
	MOVE   (17, ACTIVE_, SUBMIT, NEED(F(OBSERVES) | F(GIT_FAILED)),                  DENY(0), PAUSED_ENVIRONMENT, O(RECORD_OUTCOME) | O(QUEUE) | O(GIT_FAILED), "Git observation failed after the Action"),
	ISSUE  (18, ACTIVE_, SUBMIT, NEED(F(OBSERVES) | F(REVIEW_ENABLED) | F(CHANGED)), DENY(0), REVIEW, DEFAULT, O(RECORD_OUTCOME) | O(OBSERVE) | O(QUEUE) | O(DROP_QUEUE), "a change was observed: Review comes first; suggestions are recorded, not issued"),
	SUGGEST(19, ACTIVE_, SUBMIT, NEED(F(SUGGESTION)),                                DENY(0), O(RECORD_OUTCOME) | O(OBSERVE) | O(QUEUE) | O(POP), "the host's suggestion is issued"),
	END    (20, ACTIVE_, SUBMIT, NEED(F(KIND_SUMMARIZE)),                            DENY(0), O(RECORD_OUTCOME) | O(END), "Summarize ends the Run"),
	ISSUE  (21, ACTIVE_, SUBMIT, NEED(F(KIND_REVIEW)),                               DENY(0), SUMMARIZE, DEFAULT, O(RECORD_OUTCOME) | O(CLEAR_REVIEW), "Review is followed by Summarize"),
	ISSUE  (22, ACTIVE_, SUBMIT, NEED(0),                                            DENY(0), SUMMARIZE, DEFAULT, O(RECORD_OUTCOME) | O(OBSERVE), "with nothing else to do, Summarize"),

	/* ---- answer: gates ---- */
	REJECT (23, BUDGET_,                  ANSWER, NEED(F(PRIOR) | F(PRIOR_SAME) | F(CONFIRM)), DENY(F(BUDGET)),        BUDGET_EXHAUSTED, "a replayed confirmation still has no budget"),
	SAME   (24, EXISTS,                   ANSWER, NEED(F(PRIOR) | F(PRIOR_SAME)),              DENY(0),                "the same answer again replays"),
	REJECT (25, EXISTS,                   ANSWER, NEED(F(PRIOR)),                              DENY(0),                ANSWER_CONFLICT, "a different answer for an answered Action"),
	REJECT (26, ACTIVE_ | DONE,           ANSWER, NEED(0),                                     DENY(0),                ANSWER_NOT_EXPECTED, "the Run is not paused"),
	REJECT (27, ENV_,                     ANSWER, NEED(0),                                     DENY(0),                ANSWER_NOT_ALLOWED, "an unavailable environment is resumed, not answered"),
	REJECT (28, BUDGET_,                  ANSWER, NEED(0),                                     DENY(0),                ANSWER_NOT_EXPECTED, "an exhausted budget is resumed, not answered"),
	REJECT (29, DECISION_ | DESTRUCTIVE_, ANSWER, NEED(0),                                     DENY(F(NAMED_CURRENT)), STALE_ACTION, "the Action is not the waiting one"),

	/* ---- answer: a decision ---- */
	REJECT (30, DECISION_, ANSWER, NEED(F(CONFIRM)),           DENY(0), DESTRUCTIVE_CONFIRMATION_NOT_EXPECTED, "a decision takes no destructive confirmation"),
	REJECT (31, DECISION_, ANSWER, NEED(F(SCOPE_GIVEN)),       DENY(0), DESTRUCTIVE_CONFIRMATION_NOT_EXPECTED, "a decision takes no scope digest"),
	REJECT (32, DECISION_, ANSWER, NEED(F(TEXT_BLANK)),        DENY(0), ANSWER_REQUIRED, "a decision needs text"),
	REJECT (33, DECISION_, ANSWER, NEED(F(SUPERSEDE_INVALID)), DENY(0), INVALID_DECISION_SUPERSESSION, "the superseded answer is no longer active"),
	ISSUE  (34, DECISION_, ANSWER, NEED(0),                    DENY(0), ORIENT, AFTER_DECISION, O(SUPERSEDE) | O(VOID) | O(ANSWER_ACTIVE) | O(CLEAR_QUEUE), "a decision re-orients"),

	/* ---- answer: a destructive request ---- */
	/* the request re-validated as the reference does: only a damaged
	 * record gets past the replay with one of these */
	REJECT (101, DESTRUCTIVE_, ANSWER, NEED(F(REQUEST_MISSING)), DENY(0),                  DESTRUCTIVE_REQUEST_MISSING, "the pending request, or the waiting Action's own, is missing"),
	REJECT (35, DESTRUCTIVE_, ANSWER, NEED(F(REQUEST_INVALID)), DENY(0),                   INVALID_DESTRUCTIVE_REQUEST, "the pending request no longer validates"),
	REJECT (102, DESTRUCTIVE_, ANSWER, NEED(F(SCOPE_CHANGED)),  DENY(0),                   DESTRUCTIVE_SCOPE_CHANGED, "the pending request is not the one the waiting Action asked to confirm"),
	REJECT (103, DESTRUCTIVE_, ANSWER, NEED(F(GRANT_HELD)),     DENY(0),                   DESTRUCTIVE_GRANT_CONFLICT, "a destructive pause cannot hold an older grant"),
	REJECT (36, DESTRUCTIVE_, ANSWER, NEED(F(SCOPE_GIVEN)),     DENY(F(CONFIRM)),          DESTRUCTIVE_CONFIRMATION_FLAG_REQUIRED, "a digest alone confirms nothing"),
	REJECT (37, DESTRUCTIVE_, ANSWER, NEED(F(TEXT_BLANK)),      DENY(F(CONFIRM)),          ANSWER_REQUIRED, "feedback needs text"),
	ISSUE  (38, DESTRUCTIVE_, ANSWER, NEED(0),                  DENY(F(CONFIRM)),          ORIENT, AFTER_DECLINE, O(VOID) | O(ANSWER_ACTIVE) | O(CLEAR_QUEUE), "text never authorizes: decline or feedback re-orients"),
	REJECT (39, DESTRUCTIVE_, ANSWER, NEED(F(CONFIRM)),         DENY(F(SCOPE_WELLFORMED)), DESTRUCTIVE_SCOPE_REQUIRED, "confirmation needs a sha256 scope digest"),
	REJECT (40, DESTRUCTIVE_, ANSWER, NEED(F(CONFIRM)),         DENY(F(SCOPE_MATCH)),      DESTRUCTIVE_SCOPE_MISMATCH, "the digest is not the request's"),
	{ 41, DESTRUCTIVE_, FSM_ON_ANSWER, NEED(F(CONFIRM)), DENY(F(BUDGET)), FSM_APPLY_ERROR, E(BUDGET_EXHAUSTED), ST(PAUSED_BUDGET), FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE,
	  O(ANSWER_INACTIVE) | O(DROP_QUEUE) | O(VOID), "confirmed with no budget: recorded, paused, and reported", NO_DETAIL },
	ISSUE  (42, DESTRUCTIVE_, ANSWER, NEED(F(CONFIRM)),         DENY(0),                   IMPLEMENT, AUTHORIZED, O(ANSWER_INACTIVE) | O(DROP_QUEUE) | O(GRANT) | O(RECORD_REQUEST), "the exact scope re-issues Implement with a one-shot grant"),

	/* ---- skip ---- */
	REJECT (43, NEW_ | DONE, SKIP, NEED(0),                              DENY(0),                RUN_NOT_SKIPPABLE, "only an active or paused Run has a skippable Action"),
	REJECT (44, LIVE,        SKIP, NEED(0),                              DENY(F(NAMED_CURRENT)), STALE_ACTION, "the Action is not the current one"),
	ISSUE  (45, LIVE,        SKIP, NEED(F(KIND_REVIEW)),                 DENY(0),                SUMMARIZE, AFTER_REVIEW_SKIP, O(SKIP) | O(REVIEW_NOT_RUN) | O(CLEAR_REVIEW) | O(DROP_QUEUE), "skipped Review goes to Summarize"),
	END    (46, LIVE,        SKIP, NEED(F(KIND_SUMMARIZE)),              DENY(0),                O(SKIP) | O(DROP_QUEUE) | O(END_SKIPPED), "skipped Summarize ends the Run"),
	MOVE   (47, LIVE,        SKIP, NEED(F(OBSERVES) | F(GIT_FAILED)),    DENY(0),                PAUSED_ENVIRONMENT, O(SKIP) | O(DROP_QUEUE) | O(GIT_FAILED), "Git observation failed after the skip"),
	ISSUE  (48, LIVE,        SKIP, NEED(F(OBSERVES) | F(REVIEW_ENABLED) | F(CHANGED)), DENY(0),                REVIEW, REVIEW_AFTER_SKIP, O(SKIP) | O(DROP_QUEUE) | O(OBSERVE), "a change was observed: Review"),
	ISSUE  (49, LIVE,        SKIP, NEED(0),                              DENY(0),                SUMMARIZE, SUMMARY_AFTER_SKIP, O(SKIP) | O(DROP_QUEUE) | O(OBSERVE), "otherwise Summarize"),

	/* ---- stop ---- */
	REJECT (50, FSM_IN(ENDED),   STOP, NEED(0), DENY(0), RUN_ALREADY_ENDED, "an ended Run cannot be stopped"),
	MOVE   (51, FSM_IN(STOPPED), STOP, NEED(0), DENY(0), STOPPED, 0, "stopping again is journaled"),
	MOVE   (52, LIVE,            STOP, NEED(0), DENY(0), STOPPED, O(VOID), "stop voids the current Action"),

	/* ---- resume --source-choice: a candidate an earlier choice resolved
	 * answers first, before every other gate, as does a choice naming
	 * another candidate than the waiting one ---- */
	REPLAY (91, EXISTS, CHOICES, NEED(F(CHOICE_RESOLVED) | F(CHOICE_SAME)), DENY(F(CANDIDATE)),       O(REPLAY_CHOICE), "the same choice again answers as it did"),
	REJECT (92, EXISTS, CHOICES, NEED(F(CHOICE_RESOLVED)),                  DENY(F(CANDIDATE)),       SOURCE_CHOICE_CONFLICT, "candidate_id was already resolved with the other choice"),
	REJECT (93, EXISTS, CHOICES, NEED(F(CANDIDATE)),                        DENY(F(CANDIDATE_NAMED)), STALE_SOURCE_CANDIDATE, "candidate_id is not the current source candidate"),

	/* ---- resume, every mode: the gates they share ---- */
	REJECT (53, FSM_IN(ENDED), RESUMES, NEED(0), DENY(0),              RUN_ALREADY_ENDED, "an ended Run cannot be resumed"),
	REJECT (54, EXISTS,        RESUMES, NEED(0), DENY(F(NEXT_RESUME)), RUN_NOT_RESUMABLE, "the Run's next operation is not resume"),

	/* ---- resume of an ad-hoc Run, or of an issue-backed Run without a mode ---- */
	REJECT (55, EXISTS, RESUME, NEED(F(SOURCE_OPTIONS)),              DENY(F(ISSUE_BACKED)),   SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run takes no source option"),
	REJECT (56, EXISTS, RESUME, NEED(F(ISSUE_BACKED) | F(CANDIDATE)), DENY(F(SOURCE_OPTIONS)), SOURCE_CHOICE_REQUIRED, "a waiting source candidate needs a choice"),
	REJECT (57, EXISTS, RESUME, NEED(F(ISSUE_BACKED)),                DENY(F(SOURCE_OPTIONS)), SOURCE_MODE_REQUIRED, "an issue-backed Run resumes through a source mode"),
	REJECT (58, EXISTS, RESUME, NEED(F(ISSUE_BACKED)),                DENY(0),                 STALE_SOURCE_CANDIDATE, "a source choice names no waiting candidate"),
	ISSUE  (59, EXISTS, RESUME, NEED(0),                              DENY(F(ISSUE_BACKED)),   ORIENT, RESUMED, O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET) | O(RESUME_RESULT), "resume issues a fresh Orient"),

	/* ---- resume --use-pinned-source (the Issue is not re-read) and --source-file ---- */
	REJECT (62, EXISTS, RESUME_PINNED,  NEED(0),            DENY(F(ISSUE_BACKED)), SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run pins no source to keep"),
	REJECT (67, EXISTS, RESUME_REFRESH, NEED(0),            DENY(F(ISSUE_BACKED)), SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run has no Issue to refresh"),
	REJECT (63, EXISTS, SOURCE_MODES,   NEED(F(CANDIDATE)), DENY(0),               SOURCE_CANDIDATE_PENDING, "a waiting source candidate is resolved first"),
	ISSUE  (64, EXISTS, RESUME_PINNED,  NEED(0),            DENY(0),               ORIENT, RESUMED_PINNED, O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET) | O(NOTE) | O(RESUME_RESULT), "keeping the pinned source issues a fresh Orient"),

	/* ---- resume --source-file: the refreshed envelope against the pinned
	 * source, in the reference's order ---- */
	REJECT   (94,  EXISTS, RESUME_REFRESH, NEED(F(PROVIDER_DIFFERS)),     DENY(0),               SOURCE_PROVIDER_MISMATCH, "the refreshed source's provider and host differ from the pinned source's"),
	REJECT_BY(95,  EXISTS, RESUME_REFRESH, NEED(F(ISSUE_DIFFERS)),        DENY(0),               SOURCE_ISSUE_MISMATCH, F(ISSUE_DIFFERS), "the refreshed source is another Issue; start a new Run from it"),
	REJECT   (96,  EXISTS, RESUME_REFRESH, NEED(F(ALIASES_FULL)),         DENY(0),               SOURCE_ALIAS_LIMIT, "the Issue moved more often than the URL alias history holds; start a new Run from the refreshed source"),
	REJECT_BY(97,  EXISTS, RESUME_REFRESH, NEED(F(MERGED_INVALID)),       DENY(0),               INVALID_SOURCE_CANDIDATE, F(MERGED_INVALID), "the merged refreshed source is invalid"),
	CANDIDATE(74,  EXISTS, RESUME_REFRESH, NEED(F(BODY_INVALID)),         DENY(0),               O(VOID) | O(CLEAR_QUEUE) | O(CANDIDATE_INVALID) | O(NOTE) | O(RESUME_RESULT), "an invalid refreshed body pauses for a decision"),
	REJECT_BY(98,  EXISTS, RESUME_REFRESH, NEED(F(HISTORY_EDITED)),       DENY(0),               SOURCE_HISTORY_IN_PLACE_EDIT, F(HISTORY_EDITED), "an accepted comment was rebound or changed in place"),
	REJECT   (99,  EXISTS, RESUME_REFRESH, NEED(F(MANIFEST_CHANGED)),     DENY(F(PARENT_MATCH)), SOURCE_HISTORY_FORK, "the amended manifest's parent_requirements_revision is not the pinned requirements revision"),
	CANDIDATE(79,  EXISTS, RESUME_REFRESH, NEED(F(MANIFEST_CHANGED)),     DENY(0),               O(VOID) | O(CLEAR_QUEUE) | O(CANDIDATE_VALID) | O(SNAPSHOT) | O(NOTE) | O(RESUME_RESULT), "an amended Issue pauses for a decision"),
	REJECT   (100, EXISTS, RESUME_REFRESH, NEED(F(REQUIREMENTS_CHANGED)), DENY(0),               SOURCE_INTEGRITY_MISMATCH, "the requirements revision changed without a new manifest revision"),
	ISSUE    (69,  EXISTS, RESUME_REFRESH, NEED(0),                       DENY(0),               ORIENT, RESUMED_REFRESHED, O(PIN) | O(SNAPSHOT) | O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET) | O(NOTE) | O(RESUME_RESULT), "the refreshed source is re-pinned and a fresh Orient issued"),

	/* ---- resume --source-choice pinned|adopt --candidate ID ---- */
	REJECT (82, EXISTS, CHOICES,       NEED(0), DENY(F(ISSUE_BACKED)),    SOURCE_MODE_NOT_ALLOWED, "an ad-hoc Run takes no source choice"),
	REJECT (83, EXISTS, CHOICES,       NEED(0), DENY(F(CANDIDATE)),       STALE_SOURCE_CANDIDATE, "a source choice names no waiting candidate"),
	REJECT (89, EXISTS, CHOOSE_ADOPT,  NEED(0), DENY(F(CANDIDATE_VALID)), INVALID_SOURCE_CANDIDATE_CHOICE, "an invalid candidate cannot be adopted"),
	ISSUE  (84, EXISTS, CHOOSE_PINNED, NEED(0), DENY(0),                  ORIENT, AFTER_SOURCE_CHOICE, O(PIN) | O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET) | O(CANDIDATE_CLEAR) | O(NOTE) | O(RESUME_RESULT) | O(CHOICE_RECEIPT), "keeping the pinned requirements re-orients"),
	ISSUE  (90, EXISTS, CHOOSE_ADOPT,  NEED(0), DENY(0),                  ORIENT, AFTER_ADOPT, O(PIN) | O(VOID) | O(CLEAR_QUEUE) | O(RESUME_BUDGET) | O(CANDIDATE_CLEAR) | O(NOTE) | O(RESUME_RESULT) | O(CHOICE_RECEIPT), "adopting the amended requirements re-orients"),
};
/* clang-format on */

const size_t tbl_rules_len = sizeof(tbl_rules) / sizeof(tbl_rules[0]);

/* clang-format off */
const struct fsm_issue_rule tbl_issue_rules[] = {
	/* need       deny       to                   issues  why */
	{ NEED(F(BUDGET)), DENY(0),         ST(ACTIVE),        1, "one unit of budget is spent on the new Action" },
	{ NEED(0),         DENY(F(BUDGET)), ST(PAUSED_BUDGET), 0, "no budget is left: pause with budget_exhausted" },
};
/* clang-format on */

const size_t tbl_issue_rules_len = sizeof(tbl_issue_rules) / sizeof(tbl_issue_rules[0]);

/* clang-format off */
const struct fsm_note_rule tbl_note_rules[] = {
	/* row  need                        deny     note */
	{ 64, NEED(0),                     DENY(0), "source_refresh_skipped" },
	{ 74, NEED(0),                     DENY(0), "source_candidate_invalid" },
	{ 79, NEED(0),                     DENY(0), "source_amendment_candidate" },
	{ 69, NEED(F(REVISION_CHANGED)),   DENY(0), "source_refreshed_non_material" },
	{ 69, NEED(F(PROJECTION_CHANGED)), DENY(0), "source_projection_drift" },
	{ 69, NEED(0),                     DENY(0), "source_refreshed_unchanged" },
	{ 84, NEED(0),                     DENY(0), "source_pinned" },
	{ 90, NEED(0),                     DENY(0), "source_amended" },
};
/* clang-format on */

const size_t tbl_note_rules_len = sizeof(tbl_note_rules) / sizeof(tbl_note_rules[0]);

#define V(x) TBL_VARIANT_##x
#define NONE_ TBL_VARIANT_INVALID

/* clang-format off */
const struct fsm_next_rule tbl_next_rules[] = {
	/* from          need                           deny  op                 variants */
	{ NEW_ | FSM_IN(ENDED), NEED(0), DENY(0),                          TBL_NEXTOP_NONE,   { NONE_ },                                              "nothing is left to do" },

	{ LIVE | FSM_IN(STOPPED), NEED(F(CANDIDATE) | F(CANDIDATE_VALID)), DENY(0), TBL_NEXTOP_RESUME, { V(KEEP_PINNED), V(ADOPT), NONE_ },           "a valid source candidate waits for a choice" },

	{ LIVE | FSM_IN(STOPPED), NEED(F(CANDIDATE)), DENY(0),             TBL_NEXTOP_RESUME, { V(KEEP_PINNED), NONE_ },                              "an invalid candidate can only be declined" },

	{ ACTIVE_,       NEED(F(HAS_ACTION)), DENY(0),                     TBL_NEXTOP_ACTION, { V(SUBMIT_OUTCOME_FILE), V(SUBMIT_OUTCOME_STDIN), V(SKIP_ACTION), NONE_ }, "the host works on the current Action" },

	{ DECISION_,     NEED(F(HAS_ACTION)), DENY(0),                     TBL_NEXTOP_ANSWER, { V(ANSWER_DECISION), V(SKIP_ACTION), NONE_ },          "a human decides" },

	{ DESTRUCTIVE_,  NEED(0), DENY(0),                                 TBL_NEXTOP_ANSWER, { V(CONFIRM_DESTRUCTIVE), V(DECLINE_OR_FEEDBACK), V(SKIP_ACTION), NONE_ }, "a human confirms or declines the exact scope" },

	{ ENV_,          NEED(F(HAS_ACTION) | F(ISSUE_BACKED)), DENY(0),   TBL_NEXTOP_RESUME, { V(REFRESH_SOURCE), V(USE_PINNED_SOURCE), V(SKIP_ACTION), NONE_ }, "resume once the environment is back" },

	{ ENV_,          NEED(F(HAS_ACTION)), DENY(0),                     TBL_NEXTOP_RESUME, { V(RESUME_AD_HOC), V(SKIP_ACTION), NONE_ },           "resume once the environment is back" },

	{ LIVE | FSM_IN(STOPPED), NEED(F(ISSUE_BACKED)), DENY(0),          TBL_NEXTOP_RESUME, { V(REFRESH_SOURCE), V(USE_PINNED_SOURCE), NONE_ },     "resume from the Issue" },

	{ LIVE | FSM_IN(STOPPED), NEED(0), DENY(0),                        TBL_NEXTOP_RESUME, { V(RESUME_AD_HOC), NONE_ },                             "resume" },
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
const char *const tbl_fact_name[FSM_FACT__COUNT] = {
#define FACT(id, group, name, doc) [FSM_FACT_##id] = name,
#include "tables/facts.def"
#undef FACT
};

/* The INPUT and GIT groups of tables/facts.def, and the GIT group. */
#define FSM_FACT_GROUP_INPUT 1
#define FSM_FACT_GROUP_GIT 2
#define FSM_FACT_GROUP_RUN 0
const uint64_t tbl_facts_input = 0
#define FACT(id, group, name, doc) | (FSM_FACT_GROUP_##group ? FSM_F(id) : 0)
#include "tables/facts.def"
#undef FACT
	;
const uint64_t tbl_facts_git = 0
#define FACT(id, group, name, doc) | (FSM_FACT_GROUP_##group == FSM_FACT_GROUP_GIT ? FSM_F(id) : 0)
#include "tables/facts.def"
#undef FACT
	;

/* The effects whose handlers read the event's Git observation, and the
 * final observation of an ending Run (taken once the step says it ends). */
const uint32_t tbl_ops_git = O(OBSERVE) | O(GIT_FAILED);
const uint32_t tbl_ops_final_git = O(END) | O(END_SKIPPED);

const char *const tbl_op_name[FSM_EFFECT__COUNT] = {
#define EFFECT(id, name, phase, doc) [FSM_EFFECT_##id] = name,
#include "tables/effects.def"
#undef EFFECT
};

const char *const tbl_verdict_name[4] = {
	[FSM_REJECT] = "reject",
	[FSM_APPLY] = "apply",
	[FSM_APPLY_ERROR] = "apply_error",
	[FSM_IDEMPOTENT] = "replay",
};

