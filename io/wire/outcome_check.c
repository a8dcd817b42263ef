/* The content checks of a parsed Outcome (outcome_check, outcome_decode,
 * outcome_validate_for): text rules per field, enumerations with the
 * allowed values named in the rejection, the destructive request and the
 * legal-outcome matrix.  Never decodes JSON: it reads the C struct. */

#include "io/wire/outcome_internal.h"

#include <stdio.h>
#include <string.h>

#define activity_kinds outcome_activity_kind_names
#define N_ACTIVITY_KINDS 4

/* ---- allowed values, named in rejection messages ---- */

struct allowed {
	char text[200];
	size_t used;
};

static void allowed_add(struct allowed *a, const char *wire)
{
	int m;

	if (a->used >= sizeof(a->text))
		return;
	m = snprintf(a->text + a->used, sizeof(a->text) - a->used, "%s%s",
		     a->used ? ", " : "", wire);
	a->used += m > 0 ? (size_t)m : 0;
}

/* The wire spellings of the members of `set` ("none" when empty). */
static const char *allowed_set(struct allowed *a, unsigned set,
			       const char *const *wire, int count)
{
	a->used = 0;
	a->text[0] = '\0';
	for (int i = 1; i < count; i++)
		if (set & (1u << i))
			allowed_add(a, wire[i]);
	return a->used ? a->text : "none";
}

static const char *allowed_list(struct allowed *a, const char *const *names)
{
	a->used = 0;
	a->text[0] = '\0';
	for (size_t i = 0; names[i] != NULL; i++)
		allowed_add(a, names[i]);
	return a->text;
}

static unsigned host_pauses(void)
{
	unsigned set = 0;

	for (int p = 1; p < FSM_PAUSE__COUNT; p++)
		if (tbl_pause_host_may_send[p])
			set |= 1u << p;
	return set;
}

static unsigned host_results(enum fsm_branch branch)
{
	unsigned set = 0;

	for (int r = 1; r < FSM_RESULT__COUNT; r++)
		if (tbl_result_host_may_send[r] && tbl_result_branch[r] == branch)
			set |= 1u << r;
	return set;
}

/* ---- content checks ---- */

static int check_pause(const struct outcome_pause *p, struct sw_error *err)
{
	struct allowed a;
	int rc;

	if ((rc = outcome__need_nonblank_markdown(p->question, "pause.question", err)) < 0)
		return rc;
	if (p->reason_id == FSM_PAUSE_NONE || !tbl_pause_host_may_send[p->reason_id])
		return sw_error_proto(err, INVALID,
				      "needs_input requires a supported host pause reason: "
				      "pause.reason \"%.64s\" is not one of %s", p->reason,
				      allowed_set(&a, host_pauses(), tbl_pause_wire, FSM_PAUSE__COUNT));
	if (p->supersedes &&
	    (rc = outcome__need_nonblank_plain(p->supersedes,
				      "pause.supersedes_answer_action_id", err)) < 0)
		return rc;
	if (p->request && (rc = outcome__check_request(p->request, err)) < 0)
		return rc;
	return 0;
}

static int check_implementation(const struct outcome_implementation *im,
				struct sw_error *err)
{
	struct allowed a;
	size_t i, k;
	int rc;

	if (im->result_id == FSM_RESULT_NONE || !tbl_result_host_may_send[im->result_id])
		return sw_error_proto(err, INVALID,
				      "implementation has an unsupported result \"%.64s\"; allowed: %s",
				      im->result, allowed_set(&a, host_results(FSM_BRANCH_IMPLEMENTATION),
							      tbl_result_wire, FSM_RESULT__COUNT));
	if (im->attempts <= 0)
		return sw_error_proto(err, INVALID, "implementation.attempts must be positive");
	if ((rc = outcome__need_list(&im->files_changed, "implementation.files_changed", 0, err)) < 0 ||
	    (rc = outcome__need_list(&im->uncertainties, "implementation.uncertainties", 1, err)) < 0)
		return rc;
	for (i = 0; i < im->n_activities; i++) {
		const struct outcome_activity *act = &im->activities[i];

		for (k = 0; k < N_ACTIVITY_KINDS; k++)
			if (strcmp(act->kind, activity_kinds[k]) == 0)
				break;
		if (k == N_ACTIVITY_KINDS)
			return sw_error_proto(err, INVALID,
					      "implementation.activities[%zu] has an unsupported kind \"%.64s\"; allowed: %s",
					      i, act->kind, allowed_list(&a, activity_kinds));
		if ((rc = outcome__need_nonblank_markdown(act->command, "implementation.activities[].command", err)) < 0 ||
		    (rc = outcome__need_nonblank_markdown(act->summary, "implementation.activities[].summary", err)) < 0)
			return rc;
	}
	return 0;
}

static int check_review(const struct outcome_review *rv, struct sw_error *err)
{
	struct allowed a;
	size_t i;
	int rc;

	if (rv->result_id == FSM_RESULT_NONE || !tbl_result_host_may_send[rv->result_id])
		return sw_error_proto(err, INVALID,
				      "review has an unsupported result \"%.64s\"; allowed: %s",
				      rv->result, allowed_set(&a, host_results(FSM_BRANCH_REVIEW),
							      tbl_result_wire, FSM_RESULT__COUNT));
	if ((rc = outcome__need_list(&rv->uncertainties, "review.uncertainties", 1, err)) < 0)
		return rc;
	for (i = 0; i < rv->n_findings; i++) {
		const struct outcome_finding *f = &rv->findings[i];

		if ((rc = outcome__need_nonblank_plain(f->location, "review.findings[].location", err)) < 0 ||
		    (rc = outcome__need_nonblank_markdown(f->summary, "review.findings[].summary", err)) < 0 ||
		    (rc = outcome__need_nonblank_markdown(f->detail, "review.findings[].detail", err)) < 0)
			return rc;
	}
	return 0;
}

static unsigned legal_statuses(enum fsm_kind kind)
{
	unsigned set = 0;

	for (int st = 1; st < FSM_STATUS__COUNT; st++)
		if (tbl_legal[kind][st].legal)
			set |= 1u << st;
	return set;
}

static unsigned suggestible(void)
{
	unsigned set = 0;

	for (int k = 1; k < FSM_KIND__COUNT; k++)
		if (tbl_kind_suggestible[k])
			set |= 1u << k;
	return set;
}

/* A matrix violation, with the values the matrix allows for the Outcome's
 * kind and status appended where one set of values is at fault. */
static int violation(const struct outcome *o, enum fsm_violation v,
		     struct sw_error *err)
{
	const struct fsm_legal *cell = &tbl_legal[o->kind][o->status_id];
	const char *text = tbl_violation_text[v];
	struct allowed a;

	switch (v) {
	case FSM_VIOLATION_STATUS:
		return sw_error_proto(err, INVALID, "%s; allowed for %s: %s", text,
				      o->action_kind, allowed_set(&a, legal_statuses(o->kind),
								  tbl_status_wire, FSM_STATUS__COUNT));
	case FSM_VIOLATION_PAUSE_REASON:
		return sw_error_proto(err, INVALID, "%s; allowed for %s %s: %s", text,
				      o->action_kind, o->status,
				      allowed_set(&a, cell->pauses, tbl_pause_wire, FSM_PAUSE__COUNT));
	case FSM_VIOLATION_RESULT:
		return sw_error_proto(err, INVALID, "%s; allowed for %s %s: %s", text,
				      o->action_kind, o->status,
				      allowed_set(&a, cell->results, tbl_result_wire, FSM_RESULT__COUNT));
	case FSM_VIOLATION_SUGGESTIONS:
		return sw_error_proto(err, INVALID, "%s; at most %u for %s %s", text,
				      cell->max_suggestions, o->action_kind, o->status);
	case FSM_VIOLATION_SUGGESTION_KIND:
		return sw_error_proto(err, INVALID, "%s; allowed for %s %s: %s", text,
				      o->action_kind, o->status,
				      allowed_set(&a, cell->suggestion_kinds, tbl_kind_wire, FSM_KIND__COUNT));
	case FSM_VIOLATION_NONE:
	case FSM_VIOLATION_KIND_MISMATCH:
	case FSM_VIOLATION_PAUSE_REQUIRED:
	case FSM_VIOLATION_PAUSE_FORBIDDEN:
	case FSM_VIOLATION_SUPERSEDES:
	case FSM_VIOLATION_REQUEST_REQUIRED:
	case FSM_VIOLATION_REQUEST_FORBIDDEN:
	case FSM_VIOLATION_IMPLEMENTATION_REQUIRED:
	case FSM_VIOLATION_IMPLEMENTATION_FORBIDDEN:
	case FSM_VIOLATION_REVIEW_REQUIRED:
	case FSM_VIOLATION_REVIEW_FORBIDDEN:
	case FSM_VIOLATION_FINDINGS:
	case FSM_VIOLATION__COUNT:
		break;
	}
	return sw_error_proto(err, INVALID, "%s", text);
}

int outcome_check(const struct outcome *o, struct sw_error *err)
{
	struct allowed a;
	struct fsm_outcome_shape shape;
	enum fsm_violation v;
	size_t i;
	int rc;

	if (o->contract_version != OUTCOME_CONTRACT_VERSION)
		return sw_error_proto(err, MISMATCH,
				      "contract_version %lld is unsupported; supported version is %d",
				      (long long)o->contract_version, OUTCOME_CONTRACT_VERSION);
	if (o->text_has_nul)
		return sw_error_proto(err, INVALID,
				      "outcome text contains disallowed control u+0000");
	if ((rc = outcome__need_nonblank_plain(o->action_id, "action_id", err)) < 0)
		return rc;
	if (o->kind == FSM_KIND_NONE)
		return sw_error_proto(err, INVALID,
				      "invalid outcome action_kind \"%.64s\"; allowed: %s", o->action_kind,
				      allowed_set(&a, ~0u, tbl_kind_wire, FSM_KIND__COUNT));
	if (o->status_id == FSM_STATUS_INVALID)
		return sw_error_proto(err, INVALID,
				      "invalid outcome status \"%.64s\"; allowed for %s: %s", o->status,
				      o->action_kind, allowed_set(&a, legal_statuses(o->kind),
								  tbl_status_wire, FSM_STATUS__COUNT));
	if ((rc = outcome__need_nonblank_markdown(o->summary, "summary", err)) < 0 ||
	    (rc = outcome__need_list(&o->observations, "observations", 1, err)) < 0 ||
	    (rc = outcome__need_list(&o->known_issues, "known_issues", 1, err)) < 0)
		return rc;
	if (o->n_suggestions > 1)
		return sw_error_proto(err, INVALID, "suggested_actions may contain at most one item");
	for (i = 0; i < o->n_suggestions; i++) {
		const struct outcome_suggestion *sg = &o->suggestions[i];

		if (sg->kind_id == FSM_KIND_NONE || !tbl_kind_suggestible[sg->kind_id])
			return sw_error_proto(err, INVALID,
					      "suggested_actions[%zu] has an invalid kind \"%.64s\"; allowed: %s",
					      i, sg->kind, allowed_set(&a, suggestible(), tbl_kind_wire,
								       FSM_KIND__COUNT));
		if ((rc = outcome__need_nonblank_markdown(sg->brief, "suggested_actions[].brief", err)) < 0)
			return rc;
		if (strlen(sg->brief) > OUTCOME_MAX_BRIEF_BYTES)
			return sw_error_proto(err, INVALID,
					      "suggested_actions[%zu].brief exceeds %u bytes",
					      i, OUTCOME_MAX_BRIEF_BYTES);
	}
	if (o->pause && (rc = check_pause(o->pause, err)) < 0)
		return rc;
	if (o->implementation && (rc = check_implementation(o->implementation, err)) < 0)
		return rc;
	if (o->review && (rc = check_review(o->review, err)) < 0)
		return rc;

	memset(&shape, 0, sizeof(shape));
	shape.kind = o->kind;
	shape.status = o->status_id;
	shape.pause = o->pause ? o->pause->reason_id : FSM_PAUSE_NONE;
	shape.has_supersedes = o->pause && o->pause->supersedes;
	shape.has_destructive_request = o->pause && o->pause->request;
	shape.has_implementation = o->implementation != NULL;
	shape.implementation = o->implementation ? o->implementation->result_id : FSM_RESULT_NONE;
	shape.has_review = o->review != NULL;
	shape.review = o->review ? o->review->result_id : FSM_RESULT_NONE;
	shape.findings = o->review ? o->review->n_findings : 0;
	shape.suggestions = o->n_suggestions;
	shape.suggestion_kind = o->n_suggestions ? o->suggestions[0].kind_id : FSM_KIND_NONE;
	if ((v = fsm_outcome_check(&shape)) != FSM_VIOLATION_NONE)
		return violation(o, v, err);
	return 0;
}

int outcome_decode(struct outcome *out, const char *buf, size_t len,
		   struct sw_error *err)
{
	int rc;

	if ((rc = outcome_parse(out, buf, len, err)) < 0)
		return rc;
	if ((rc = outcome_check(out, err)) < 0)
		outcome_release(out);
	return rc;
}

int outcome_validate_for(const struct outcome *o, enum fsm_kind current_kind,
			 const char *current_action_id, struct sw_error *err)
{
	if (o->contract_version != OUTCOME_CONTRACT_VERSION)
		return outcome_check(o, err);
	if (current_action_id == NULL ||
	    !outcome_text_nonblank(current_action_id, strlen(current_action_id)) ||
	    !outcome_text_plain(current_action_id, strlen(current_action_id)))
		return sw_error_proto(err, INVALID, "current action_id is required");
	if (o->action_id == NULL || strcmp(o->action_id, current_action_id) != 0)
		return sw_error_proto(err, INVALID,
				      "outcome action_id does not match the current action");
	if (current_kind <= FSM_KIND_NONE || current_kind >= FSM_KIND__COUNT)
		return sw_error_proto(err, INVALID, "invalid action kind");
	if (o->kind == FSM_KIND_NONE)
		return sw_error_proto(err, INVALID, "invalid outcome action_kind");
	if (o->kind != current_kind)
		return sw_error_proto(err, INVALID, "%s",
				      tbl_violation_text[FSM_VIOLATION_KIND_MISMATCH]);
	return outcome_check(o, err);
}
