#include "tables/tables.h"

#include <string.h>

const char *const tbl_kind_wire[FSM_KIND__COUNT] = {
#define KIND(id, wire, observes, suggestible, brief) [FSM_KIND_##id] = wire,
#include "tables/action_kinds.def"
#undef KIND
};
const unsigned char tbl_kind_observes_git[FSM_KIND__COUNT] = {
#define KIND(id, wire, observes, suggestible, brief) [FSM_KIND_##id] = observes,
#include "tables/action_kinds.def"
#undef KIND
};
const unsigned char tbl_kind_suggestible[FSM_KIND__COUNT] = {
#define KIND(id, wire, observes, suggestible, brief) [FSM_KIND_##id] = suggestible,
#include "tables/action_kinds.def"
#undef KIND
};

const char *const tbl_status_wire[FSM_STATUS__COUNT] = {
#define STATUS(id, wire) [FSM_STATUS_##id] = wire,
#include "tables/outcome_statuses.def"
#undef STATUS
};

const char *const tbl_pause_wire[FSM_PAUSE__COUNT] = {
#define PAUSE(id, wire, host, answerable) [FSM_PAUSE_##id] = wire,
#include "tables/pause_reasons.def"
#undef PAUSE
};
const unsigned char tbl_pause_host_may_send[FSM_PAUSE__COUNT] = {
#define PAUSE(id, wire, host, answerable) [FSM_PAUSE_##id] = host,
#include "tables/pause_reasons.def"
#undef PAUSE
};
const unsigned char tbl_pause_answerable[FSM_PAUSE__COUNT] = {
#define PAUSE(id, wire, host, answerable) [FSM_PAUSE_##id] = answerable,
#include "tables/pause_reasons.def"
#undef PAUSE
};

const char *const tbl_runstate_wire[FSM_RUN__COUNT] = {
#define RUNSTATE(id, wire) [FSM_RUN_##id] = wire,
#include "tables/run_states.def"
#undef RUNSTATE
};

const char *const tbl_branch_wire[FSM_BRANCH__COUNT] = {
#define BRANCH(id, wire) [FSM_BRANCH_##id] = wire,
#include "tables/branches.def"
#undef BRANCH
};

const char *const tbl_result_wire[FSM_RESULT__COUNT] = {
#define RESULT(id, branch, wire, host) [FSM_RESULT_##id] = wire,
#include "tables/results.def"
#undef RESULT
};
const enum fsm_branch tbl_result_branch[FSM_RESULT__COUNT] = {
#define RESULT(id, branch, wire, host) [FSM_RESULT_##id] = FSM_BRANCH_##branch,
#include "tables/results.def"
#undef RESULT
};
const unsigned char tbl_result_host_may_send[FSM_RESULT__COUNT] = {
#define RESULT(id, branch, wire, host) [FSM_RESULT_##id] = host,
#include "tables/results.def"
#undef RESULT
};

const char *const tbl_event_name[FSM_EV__COUNT] = {
#define EVENT(id, name, jtype, choice) [FSM_EV_##id] = name,
#include "tables/events.def"
#undef EVENT
};

const char *const tbl_jevent_wire[TBL_JEVENT__COUNT] = {
#define JEVENT(id, wire, resume_op, meaning) [TBL_JEVENT_##id] = wire,
#include "tables/journal_events.def"
#undef JEVENT
};

const enum tbl_jevent tbl_event_journal[FSM_EV__COUNT] = {
#define EVENT(id, name, jtype, choice) [FSM_EV_##id] = TBL_JEVENT_##jtype,
#include "tables/events.def"
#undef EVENT
};

const char *const tbl_event_choice[FSM_EV__COUNT] = {
#define EVENT(id, name, jtype, choice) [FSM_EV_##id] = choice,
#include "tables/events.def"
#undef EVENT
};

const char *const tbl_jevent_resume_op[TBL_JEVENT__COUNT] = {
#define JEVENT(id, wire, resume_op, meaning) [TBL_JEVENT_##id] = resume_op,
#include "tables/journal_events.def"
#undef JEVENT
};

const char *const tbl_jevent_resume_meaning[TBL_JEVENT__COUNT] = {
#define JEVENT(id, wire, resume_op, meaning) [TBL_JEVENT_##id] = meaning,
#include "tables/journal_events.def"
#undef JEVENT
};

const char *const tbl_nextop_wire[TBL_NEXTOP__COUNT] = {
#define NEXTOP(id, wire) [TBL_NEXTOP_##id] = wire,
#include "tables/next_operations.def"
#undef NEXTOP
};

const char *const tbl_variant_wire[TBL_VARIANT__COUNT] = {
#define VARIANT(id, wire, op) [TBL_VARIANT_##id] = wire,
#include "tables/next_variants.def"
#undef VARIANT
};
const enum tbl_nextop tbl_variant_op[TBL_VARIANT__COUNT] = {
#define VARIANT(id, wire, op) [TBL_VARIANT_##id] = TBL_NEXTOP_##op,
#include "tables/next_variants.def"
#undef VARIANT
};

const char *const tbl_input_wire[TBL_INPUT__COUNT] = {
#define INPUT(id, wire) [TBL_INPUT_##id] = wire,
#include "tables/input_types.def"
#undef INPUT
};

const char *const tbl_recovery_doc[TBL_RECOVERY__COUNT] = {
#define RECOVERY(id, doc) [TBL_RECOVERY_##id] = doc,
#include "tables/recoveries.def"
#undef RECOVERY
};

const char *const tbl_details_doc[TBL_DETAILS__COUNT] = {
#define DETAILS(id, doc) [TBL_DETAILS_##id] = doc,
#include "tables/details.def"
#undef DETAILS
};

const char *const tbl_err_wire[TBL_ERR__COUNT] = {
#define ERR(id, wire, exit, recovery, details) [TBL_ERR_##id] = wire,
#include "tables/error_codes.def"
#undef ERR
};
const unsigned char tbl_err_exit[TBL_ERR__COUNT] = {
#define ERR(id, wire, exit, recovery, details) [TBL_ERR_##id] = exit,
#include "tables/error_codes.def"
#undef ERR
};
const struct tbl_exit_status tbl_exit_statuses[] = {
#define EXIT(id, status, meaning) { status, meaning },
#include "tables/exit_statuses.def"
#undef EXIT
};
const size_t tbl_exit_statuses_len = sizeof(tbl_exit_statuses) / sizeof(tbl_exit_statuses[0]);

const enum tbl_recovery tbl_err_recovery[TBL_ERR__COUNT] = {
#define ERR(id, wire, exit, recovery, details) [TBL_ERR_##id] = TBL_RECOVERY_##recovery,
#include "tables/error_codes.def"
#undef ERR
};
const enum tbl_details tbl_err_details[TBL_ERR__COUNT] = {
#define ERR(id, wire, exit, recovery, details) [TBL_ERR_##id] = TBL_DETAILS_##details,
#include "tables/error_codes.def"
#undef ERR
};

static int lookup(const char *const *wire, int count, const char *s)
{
	if (s == NULL || s[0] == '\0')
		return 0;
	for (int i = 1; i < count; i++)
		if (strcmp(wire[i], s) == 0)
			return i;
	return 0;
}

enum fsm_kind tbl_kind_lookup(const char *s)
{
	return (enum fsm_kind)lookup(tbl_kind_wire, FSM_KIND__COUNT, s);
}

enum fsm_status tbl_status_lookup(const char *s)
{
	return (enum fsm_status)lookup(tbl_status_wire, FSM_STATUS__COUNT, s);
}

enum fsm_pause tbl_pause_lookup(const char *s)
{
	return (enum fsm_pause)lookup(tbl_pause_wire, FSM_PAUSE__COUNT, s);
}

enum fsm_runstate tbl_runstate_lookup(const char *s)
{
	return (enum fsm_runstate)lookup(tbl_runstate_wire, FSM_RUN__COUNT, s);
}

enum fsm_result tbl_result_lookup(enum fsm_branch branch, const char *s)
{
	if (s == NULL || s[0] == '\0')
		return FSM_RESULT_NONE;
	for (int i = 1; i < FSM_RESULT__COUNT; i++)
		if (tbl_result_branch[i] == branch &&
		    strcmp(tbl_result_wire[i], s) == 0)
			return (enum fsm_result)i;
	return FSM_RESULT_NONE;
}

enum tbl_jevent tbl_jevent_lookup(const char *s)
{
	return (enum tbl_jevent)lookup(tbl_jevent_wire, TBL_JEVENT__COUNT, s);
}

const char *const tbl_kind_default_brief[FSM_KIND__COUNT] = {
#define KIND(id, wire, observes, suggestible, brief) [FSM_KIND_##id] = brief,
#include "tables/action_kinds.def"
#undef KIND
};
