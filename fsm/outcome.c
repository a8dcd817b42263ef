/* Checking an Outcome's shape against the legal-outcome matrix. */

#include "fsm/fsm.h"

static enum fsm_violation check_branch(int present, enum fsm_branch want,
				       enum fsm_branch self,
				       enum fsm_violation required,
				       enum fsm_violation forbidden)
{
	if (want == self && !present)
		return required;
	if (want != self && present)
		return forbidden;
	return FSM_VIOLATION_NONE;
}

enum fsm_violation fsm_outcome_check(const struct fsm_outcome_shape *s)
{
	const struct fsm_legal *cell;
	enum fsm_violation v;

	if (s->kind <= FSM_KIND_NONE || s->kind >= FSM_KIND__COUNT ||
	    s->status <= FSM_STATUS_INVALID || s->status >= FSM_STATUS__COUNT)
		return FSM_VIOLATION_STATUS;
	cell = &tbl_legal[s->kind][s->status];
	if (!cell->legal)
		return FSM_VIOLATION_STATUS;
	if (s->pause == FSM_PAUSE_NONE && !(cell->pauses & (1u << FSM_PAUSE_NONE)))
		return FSM_VIOLATION_PAUSE_REQUIRED;
	if (s->pause != FSM_PAUSE_NONE && (cell->pauses & (1u << FSM_PAUSE_NONE)))
		return FSM_VIOLATION_PAUSE_FORBIDDEN;
	if (!(cell->pauses & (1u << s->pause)))
		return FSM_VIOLATION_PAUSE_REASON;
	if (s->has_supersedes && s->pause != FSM_PAUSE_DECISION_REQUIRED)
		return FSM_VIOLATION_SUPERSEDES;
	if (s->pause == FSM_PAUSE_DESTRUCTIVE && !s->has_destructive_request)
		return FSM_VIOLATION_REQUEST_REQUIRED;
	if (s->pause != FSM_PAUSE_DESTRUCTIVE && s->has_destructive_request)
		return FSM_VIOLATION_REQUEST_FORBIDDEN;
	v = check_branch(s->has_implementation, cell->branch,
			 FSM_BRANCH_IMPLEMENTATION,
			 FSM_VIOLATION_IMPLEMENTATION_REQUIRED,
			 FSM_VIOLATION_IMPLEMENTATION_FORBIDDEN);
	if (v != FSM_VIOLATION_NONE)
		return v;
	v = check_branch(s->has_review, cell->branch, FSM_BRANCH_REVIEW,
			 FSM_VIOLATION_REVIEW_REQUIRED,
			 FSM_VIOLATION_REVIEW_FORBIDDEN);
	if (v != FSM_VIOLATION_NONE)
		return v;
	if (cell->branch == FSM_BRANCH_IMPLEMENTATION &&
	    !(cell->results & (1u << s->implementation)))
		return FSM_VIOLATION_RESULT;
	if (cell->branch == FSM_BRANCH_REVIEW) {
		if (!(cell->results & (1u << s->review)))
			return FSM_VIOLATION_RESULT;
		if ((s->review == FSM_RESULT_NO_FINDINGS && s->findings != 0) ||
		    (s->review == FSM_RESULT_FINDINGS && s->findings == 0))
			return FSM_VIOLATION_FINDINGS;
	}
	if (s->suggestions > cell->max_suggestions)
		return FSM_VIOLATION_SUGGESTIONS;
	if (s->suggestions > 0 && !(cell->suggestion_kinds & (1u << s->suggestion_kind)))
		return FSM_VIOLATION_SUGGESTION_KIND;
	return FSM_VIOLATION_NONE;
}
