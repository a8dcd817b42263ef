#ifndef TABLES_TABLES_H
#define TABLES_TABLES_H

/* Every enumeration of the protocol, written once in tables/<name>.def (R3).
 * Each enum is generated from its .def list, value 0 is the sentinel
 * (_NONE or _INVALID), and tbl_<name>_wire[] holds the wire spellings, which
 * are what reaches the journal and JSON; integers never leave the process.
 * The lookup functions return the sentinel for an unknown spelling. */

#include <stddef.h>

enum fsm_kind {
#define KIND(id, wire, observes, suggestible, brief) FSM_KIND_##id,
#include "tables/action_kinds.def"
#undef KIND
	FSM_KIND__COUNT
};

enum fsm_status {
#define STATUS(id, wire) FSM_STATUS_##id,
#include "tables/outcome_statuses.def"
#undef STATUS
	FSM_STATUS__COUNT
};

enum fsm_pause {
#define PAUSE(id, wire, host, answerable) FSM_PAUSE_##id,
#include "tables/pause_reasons.def"
#undef PAUSE
	FSM_PAUSE__COUNT
};

enum fsm_runstate {
#define RUNSTATE(id, wire) FSM_RUN_##id,
#include "tables/run_states.def"
#undef RUNSTATE
	FSM_RUN__COUNT
};

enum fsm_branch {
#define BRANCH(id, wire) FSM_BRANCH_##id,
#include "tables/branches.def"
#undef BRANCH
	FSM_BRANCH__COUNT
};

enum fsm_result {
#define RESULT(id, branch, wire, host) FSM_RESULT_##id,
#include "tables/results.def"
#undef RESULT
	FSM_RESULT__COUNT
};

enum fsm_event {
#define EVENT(id, name, jtype, choice) FSM_EV_##id,
#include "tables/events.def"
#undef EVENT
	FSM_EV__COUNT
};

enum tbl_jevent {
#define JEVENT(id, wire, resume_op, meaning) TBL_JEVENT_##id,
#include "tables/journal_events.def"
#undef JEVENT
	TBL_JEVENT__COUNT
};

enum tbl_nextop {
#define NEXTOP(id, wire) TBL_NEXTOP_##id,
#include "tables/next_operations.def"
#undef NEXTOP
	TBL_NEXTOP__COUNT
};

enum tbl_variant {
#define VARIANT(id, wire, op) TBL_VARIANT_##id,
#include "tables/next_variants.def"
#undef VARIANT
	TBL_VARIANT__COUNT
};

enum tbl_input {
#define INPUT(id, wire) TBL_INPUT_##id,
#include "tables/input_types.def"
#undef INPUT
	TBL_INPUT__COUNT
};

enum tbl_recovery {
#define RECOVERY(id, doc) TBL_RECOVERY_##id,
#include "tables/recoveries.def"
#undef RECOVERY
	TBL_RECOVERY__COUNT
};

enum tbl_details {
#define DETAILS(id, doc) TBL_DETAILS_##id,
#include "tables/details.def"
#undef DETAILS
	TBL_DETAILS__COUNT
};

enum tbl_err {
#define ERR(id, wire, exit, recovery, details) TBL_ERR_##id,
#include "tables/error_codes.def"
#undef ERR
	TBL_ERR__COUNT
};

/* Wire spellings, indexed by the enums above. */
extern const char *const tbl_kind_wire[FSM_KIND__COUNT];
extern const char *const tbl_status_wire[FSM_STATUS__COUNT];
extern const char *const tbl_pause_wire[FSM_PAUSE__COUNT];
extern const char *const tbl_runstate_wire[FSM_RUN__COUNT];
extern const char *const tbl_branch_wire[FSM_BRANCH__COUNT];
extern const char *const tbl_result_wire[FSM_RESULT__COUNT];
extern const char *const tbl_event_name[FSM_EV__COUNT];
extern const char *const tbl_jevent_wire[TBL_JEVENT__COUNT];
extern const char *const tbl_nextop_wire[TBL_NEXTOP__COUNT];
extern const char *const tbl_variant_wire[TBL_VARIANT__COUNT];
extern const char *const tbl_input_wire[TBL_INPUT__COUNT];
extern const char *const tbl_recovery_doc[TBL_RECOVERY__COUNT];
extern const char *const tbl_details_doc[TBL_DETAILS__COUNT];
extern const char *const tbl_err_wire[TBL_ERR__COUNT];

/* Per-row attributes. */
extern const unsigned char tbl_kind_observes_git[FSM_KIND__COUNT];
extern const unsigned char tbl_kind_suggestible[FSM_KIND__COUNT];
extern const char *const tbl_kind_default_brief[FSM_KIND__COUNT];
extern const unsigned char tbl_pause_host_may_send[FSM_PAUSE__COUNT];
extern const unsigned char tbl_pause_answerable[FSM_PAUSE__COUNT];
extern const enum fsm_branch tbl_result_branch[FSM_RESULT__COUNT];
extern const unsigned char tbl_result_host_may_send[FSM_RESULT__COUNT];
extern const enum tbl_jevent tbl_event_journal[FSM_EV__COUNT];
/* The source choice a choice event records, or NULL. */
extern const char *const tbl_event_choice[FSM_EV__COUNT];
/* The operation a resume of journal type t reports, or NULL. */
extern const char *const tbl_jevent_resume_op[TBL_JEVENT__COUNT];
/* What each resume_operation tells a host (NULL: not a resume). */
extern const char *const tbl_jevent_resume_meaning[TBL_JEVENT__COUNT];
extern const enum tbl_nextop tbl_variant_op[TBL_VARIANT__COUNT];
extern const unsigned char tbl_err_exit[TBL_ERR__COUNT];

/* The process exit statuses (tables/exit_statuses.def), in row order. */
struct tbl_exit_status {
	int status;
	const char *meaning;
};
extern const struct tbl_exit_status tbl_exit_statuses[];
extern const size_t tbl_exit_statuses_len;
extern const enum tbl_recovery tbl_err_recovery[TBL_ERR__COUNT];
extern const enum tbl_details tbl_err_details[TBL_ERR__COUNT];

/* Wire spelling -> enum; the sentinel (0) when `s` is not a known value.
 * The empty string also maps to the sentinel. */
enum fsm_kind tbl_kind_lookup(const char *s);
enum fsm_status tbl_status_lookup(const char *s);
enum fsm_pause tbl_pause_lookup(const char *s);
enum fsm_runstate tbl_runstate_lookup(const char *s);
enum fsm_result tbl_result_lookup(enum fsm_branch branch, const char *s);
enum tbl_jevent tbl_jevent_lookup(const char *s);

#endif
