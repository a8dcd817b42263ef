/* The effects of an applied step, one handler per effect bit of
 * tables/effects.def (all in this file, so a bit without its handler does
 * not compile), the machine's verdict written after them, and the Runs
 * they make: run_apply, run_apply_replay, run_create.  Never encodes
 * journal deltas or run.json. */

#include <string.h>

#include <jansson.h>

#include "io/store/run_codec.h"
#include "io/store/run_internal.h"

/* ---- what the effects write to the record ---- */

/* Our wording of the observation notes the reference also records. */
#define NOTE_CHANGED "observed_since_start: Git now differs from the snapshot taken when the Run started."
#define NOTE_ATTRIBUTION "attribution_uncertainty: the difference may include edits by people, other Runs or tools, not only this Run's Actions."
#define NOTE_INCOMPLETE "git_content_observation_incomplete: not every dirty regular file could be fingerprinted within the observation limits; Review stays advisory and skippable."

static int record_observation(json_t *rec, const struct run_effects *fx,
			      const json_t *obs, int changed, int complete)
{
	if (json_object_set(rec, "current_git", (json_t *)obs) < 0)
		return -1;
	if (!complete && run__append_unique(rec, "uncertainties", NOTE_INCOMPLETE) < 0)
		return -1;
	if (changed && (run__append_unique(rec, "observations", NOTE_CHANGED) < 0 ||
			run__append_unique(rec, "uncertainties", NOTE_ATTRIBUTION) < 0))
		return -1;
	(void)fx;
	return 0;
}

static int drop_queue(json_t *rec, const char *why)
{
	json_t *pending = json_object_get(rec, "pending_actions"), *p;
	size_t i;

	json_array_foreach(pending, i, p) {
		char *note = sw_asprintf("unresolved_suggestion: a queued %s suggestion was "
					 "never issued because %s: %s",
					 run__str(p, "kind"), why, run__str(p, "brief"));

		if (note == NULL || run__append_unique(rec, "uncertainties", note) < 0) {
			sw_free(note);
			return -1;
		}
		sw_free(note);
	}
	json_object_del(rec, "pending_actions");
	return 0;
}

static const char *drop_reason(const struct fsm_step *st)
{
	if (st->ops & FSM_OP(SKIP))
		return "the current Action was skipped";
	if (st->ops & FSM_OP(ANSWER_INACTIVE))
		return "the destructive confirmation issued the authorized Implement";
	return "an observed change sent the Run to Review first";
}

static int implementation_discrepancy(json_t *rec, const json_t *outcome, int changed)
{
	const char *result = run__str(json_object_get(outcome, "implementation"), "result");
	char *note = NULL;
	int rc = 0;

	if (result == NULL)
		return 0;
	if (!changed && (strcmp(result, "applied") == 0 || strcmp(result, "partial") == 0))
		note = sw_asprintf("report_discrepancy: Implement reported %s, but Git shows "
				   "no difference from the Run start.", result);
	else if (changed && (strcmp(result, "not_needed") == 0 || strcmp(result, "unable") == 0))
		note = sw_asprintf("report_discrepancy: Implement reported %s, but Git differs "
				   "from the Run start.", result);
	else
		return 0;
	rc = note ? run__append_unique(rec, "observations", note) : -1;
	sw_free(note);
	return rc;
}

static int end_run(struct run *r, const struct run_effects *fx, int skipped)
{
	json_t *rec = r->rec;
	char *summary = NULL;
	int rc;

	if (fx->final_observation != NULL) {
		if (json_object_set_new(rec, "final_git_observed", json_true()) < 0 ||
		    record_observation(rec, fx, fx->final_observation, fx->final_changed, 1) < 0)
			return -1;
	} else {
		char *note = sw_asprintf("The final Git observation could not be made: %s",
					 fx->final_error ? fx->final_error : "unknown error");

		rc = note ? run__append_unique(rec, "uncertainties", note) : -1;
		sw_free(note);
		if (rc < 0 || json_object_set_new(rec, "final_git_observed", json_false()) < 0)
			return -1;
	}
	(void)skipped;
	summary = run__final_summary(r, fx);
	if (summary == NULL)
		return -1;
	rc = json_object_set_new(rec, "summary", json_string(summary));
	sw_free(summary);
	return rc;
}

/* ---- effects: one handler per effect bit (tables/effects.def) ----------- */

/* What the handlers of one applied step share. */
struct apply {
	struct run *r;
	json_t *rec;
	json_t *cur;			/* the Action current before the step */
	json_t *record;			/* its record in `actions`, or NULL */
	json_t *grant;			/* GRANT: the grant the issued Action carries */
	json_t *popped;			/* POP: the suggestion issued */
	const char *suggested;		/* POP: its brief */
	const struct fsm_step *st;
	const struct run_effects *fx;
};

/* Every effect has a handler: a bit without one does not compile (the
 * table below names effect_<id> for every line of effects.def, and a static
 * function used but never defined is an error).  A handler returns 0 or -1
 * (out of memory). */
#define EFFECT(id, name, phase, doc) static int effect_##id(struct apply *a);
#include "tables/effects.def"
#undef EFFECT

typedef int effect_fn(struct apply *a);

/* clang-format off */
static effect_fn *const effect_handler[FSM_EFFECT__COUNT] = {
#define EFFECT(id, name, phase, doc) [FSM_EFFECT_##id] = effect_##id,
#include "tables/effects.def"
#undef EFFECT
};

/* BEFORE: applied before the machine's state, budget and Action are
 * written; AFTER: once they are (the final summary reads them). */
enum effect_phase { BEFORE, AFTER };

static const enum effect_phase effect_phase[FSM_EFFECT__COUNT] = {
#define EFFECT(id, name, phase, doc) [FSM_EFFECT_##id] = phase,
#include "tables/effects.def"
#undef EFFECT
};
/* clang-format on */

static int effect_RECORD_OUTCOME(struct apply *a)
{
	const json_t *outcome = a->fx->outcome;
	json_t *impl, *review;

	if (a->record == NULL || outcome == NULL)
		return 0;
	impl = json_object_get(outcome, "implementation");
	review = json_object_get(outcome, "review");
	if (json_object_set(a->record, "outcome", (json_t *)outcome) < 0 ||
	    json_object_set_new(a->record, "outcome_payload_sha256",
				json_string(a->fx->outcome_sha256)) < 0 ||
	    run__extend(a->rec, "observations", json_object_get(outcome, "observations")) < 0 ||
	    run__extend(a->rec, "known_issues", json_object_get(outcome, "known_issues")) < 0 ||
	    run__extend(a->rec, "uncertainties", json_object_get(impl, "uncertainties")) < 0 ||
	    run__extend(a->rec, "activities", json_object_get(impl, "activities")) < 0 ||
	    run__extend(a->rec, "uncertainties", json_object_get(review, "uncertainties")) < 0)
		return -1;
	return 0;
}

static int effect_OBSERVE(struct apply *a)
{
	const struct run_effects *fx = a->fx;

	if (fx->observation == NULL)
		return 0;
	if (record_observation(a->rec, fx, fx->observation, fx->changed,
			       fx->observation_complete) < 0)
		return -1;
	if ((a->st->ops & FSM_OP(RECORD_OUTCOME)) && fx->outcome &&
	    implementation_discrepancy(a->rec, fx->outcome, fx->changed) < 0)
		return -1;
	return 0;
}

static int effect_GIT_FAILED(struct apply *a)
{
	char *note = sw_asprintf("Git observation failed: %s",
				 a->fx->git_error ? a->fx->git_error : "unknown error");
	int rc = note ? run__append_str(a->rec, "known_issues", note) : -1;

	sw_free(note);
	return rc;
}

/* The current Action stays current: the projection keeps it. */
static int effect_KEEP_ACTION(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_VOID(struct apply *a)
{
	return a->record ? json_object_set_new(a->record, "voided", json_true()) : 0;
}

static int effect_QUEUE(struct apply *a)
{
	if (a->fx->outcome == NULL)
		return 0;
	return run__extend(a->rec, "pending_actions",
			   json_object_get(a->fx->outcome, "suggested_actions"));
}

static int effect_POP(struct apply *a)
{
	json_t *pending = json_object_get(a->rec, "pending_actions");

	a->popped = json_incref(json_array_get(pending, 0));
	a->suggested = run__str(a->popped, "brief");
	json_array_remove(pending, 0);
	if (json_array_size(pending) == 0)
		json_object_del(a->rec, "pending_actions");
	return 0;
}

static int effect_DROP_QUEUE(struct apply *a)
{
	return drop_queue(a->rec, drop_reason(a->st));
}

static int effect_CLEAR_QUEUE(struct apply *a)
{
	json_object_del(a->rec, "pending_actions");
	return 0;
}

static int effect_RECORD_REQUEST(struct apply *a)
{
	const json_t *req = json_object_get(json_object_get(a->fx->outcome, "pause"),
					    "destructive_request");

	if (a->fx->outcome == NULL || req == NULL)
		return 0;
	return json_object_set(a->rec, "pending_destructive_request", (json_t *)req);
}

static int effect_GRANT(struct apply *a)
{
	const json_t *req = json_object_get(a->rec, "pending_destructive_request");

	a->grant = json_pack("{s:O, s:s, s:i, s:O, s:O, s:O, s:s}",
			     "request_id", json_object_get(req, "request_id"),
			     "originating_action_id", run__str(a->cur, "action_id"),
			     "scope_version", 1,
			     "scope_sha256", json_object_get(req, "scope_sha256"),
			     "targets", json_object_get(req, "targets"),
			     "impact", json_object_get(req, "impact"),
			     "confirmed_at", a->fx->now);
	return a->grant ? 0 : -1;
}

static int effect_SUPERSEDE(struct apply *a)
{
	const char *old;
	json_t *ans;
	size_t i;

	if (a->record == NULL)
		return 0;
	old = run__str(json_object_get(json_object_get(a->record, "outcome"), "pause"),
		       "supersedes_answer_action_id");
	json_array_foreach(json_object_get(a->rec, "answers"), i, ans)
		if (old && strcmp(run__str(ans, "action_id"), old) == 0 &&
		    (json_object_set_new(ans, "active", json_false()) < 0 ||
		     json_object_set_new(ans, "superseded_by",
					 json_string(run__str(a->cur, "action_id"))) < 0))
			return -1;
	return 0;
}

/* The answer or confirmation receipt; `active` says whether it counts as
 * an answer to later Actions. */
static int record_answer(struct apply *a, int active)
{
	const struct run_effects *fx = a->fx;
	const json_t *pinned = json_object_get(a->rec, "pinned_source");
	json_t *ans = json_pack("{s:s, s:s, s:b}", "action_id", run__str(a->cur, "action_id"),
				"text", fx->answer_text ? fx->answer_text : "",
				"confirm_destructive", fx->confirm);

	if (ans == NULL ||
	    (fx->scope_sha256 && fx->scope_sha256[0] &&
	     json_object_set_new(ans, "scope_sha256", json_string(fx->scope_sha256)) < 0) ||
	    json_object_set_new(ans, "payload_sha256", json_string(fx->answer_sha256)) < 0 ||
	    (pinned &&
	     (json_object_set(ans, "source_revision", json_object_get(pinned, "source_revision")) < 0 ||
	      json_object_set(ans, "requirements_revision",
			      json_object_get(pinned, "requirements_revision")) < 0)) ||
	    json_object_set_new(ans, "active", json_boolean(active)) < 0 ||
	    json_object_set_new(ans, "at", json_string(fx->now)) < 0 ||
	    json_array_append_new(run__arr(a->rec, "answers"), ans) < 0)
		return -1;
	return 0;
}

static int effect_ANSWER_ACTIVE(struct apply *a)
{
	return record_answer(a, 1);
}

static int effect_ANSWER_INACTIVE(struct apply *a)
{
	return record_answer(a, 0);
}

static int effect_SKIP(struct apply *a)
{
	return a->record ? json_object_set_new(a->record, "skipped", json_true()) : 0;
}

static int effect_REVIEW_NOT_RUN(struct apply *a)
{
	if (a->record == NULL)
		return 0;
	return json_object_set_new(a->record, "review_projection",
				   json_pack("{s:s, s:[], s:[]}", "result", "not_run",
					     "findings", "uncertainties"));
}

/* review_pending, the budget and a new Run's fields are the machine's
 * verdict (struct fsm_run), written by the projection for every step. */
static int effect_CLEAR_REVIEW(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_RESUME_BUDGET(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_CREATE(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_END(struct apply *a)
{
	return end_run(a->r, a->fx, 0);
}

static int effect_END_SKIPPED(struct apply *a)
{
	return end_run(a->r, a->fx, 1);
}

/* A refreshed source that differs from the pinned one waits for a choice;
 * the choice resolves it. */
static int effect_CANDIDATE_INVALID(struct apply *a)
{
	json_t *copy;

	if (a->fx->candidate == NULL)
		return 0;
	copy = json_deep_copy(a->fx->candidate);
	return copy ? json_object_set_new(a->rec, "source_candidate", copy) : -1;
}

static int effect_CANDIDATE_VALID(struct apply *a)
{
	return effect_CANDIDATE_INVALID(a);
}

static int effect_CANDIDATE_CLEAR(struct apply *a)
{
	json_object_del(a->rec, "source_candidate");
	return 0;
}

static int run_effects_of(struct apply *a, enum effect_phase phase)
{
	for (int e = 0; e < FSM_EFFECT__COUNT; e++)
		if ((a->st->ops & (UINT32_C(1) << e)) && effect_phase[e] == phase &&
		    effect_handler[e](a) < 0)
			return -1;
	return 0;
}

/* The machine's verdict on state, pause, budget, review and the current
 * Action, written for every applied step. */
static int project_machine(struct apply *a)
{
	const struct fsm_step *st = a->st;
	json_t *rec = a->rec;

	if (!(st->ops & FSM_OP(RECORD_REQUEST)))
		json_object_del(rec, "pending_destructive_request");
	json_object_del(rec, "destructive_grant");
	if (json_object_set_new(rec, "state",
				json_string(tbl_runstate_wire[tbl_state_runstate[st->run.state]])) < 0)
		return -1;
	if (tbl_state_pause[st->run.state] != FSM_PAUSE_NONE) {
		if (json_object_set_new(rec, "pause_reason",
					json_string(tbl_pause_wire[tbl_state_pause[st->run.state]])) < 0)
			return -1;
	} else {
		json_object_del(rec, "pause_reason");
	}
	if (json_object_set_new(rec, "review_pending", json_boolean(st->run.review_pending)) < 0 ||
	    json_object_set_new(rec, "initial_budget", json_integer(st->run.initial_budget)) < 0 ||
	    json_object_set_new(rec, "remaining_budget", json_integer(st->run.remaining)) < 0 ||
	    json_object_set_new(rec, "updated_at", json_string(a->fx->now)) < 0)
		return -1;
	if (!(st->ops & FSM_OP(KEEP_ACTION)) || st->issued != FSM_KIND_NONE)
		json_object_del(rec, "current_action");
	if (st->issued != FSM_KIND_NONE && a->grant &&
	    json_object_set(rec, "destructive_grant", a->grant) < 0)
		return -1;
	return 0;
}

int run_apply(struct run *r, const struct fsm_step *st,
	      const struct run_effects *fx, struct sw_error *err)
{
	struct apply a = { r, r->rec, NULL, NULL, NULL, NULL, NULL, st, fx };
	int rc = 0;

	if (st->verdict != FSM_APPLY && st->verdict != FSM_APPLY_ERROR)
		return sw_error_set(err, SW_EINVAL, "run_apply on a refused step");
	a.cur = json_incref(json_object_get(r->rec, "current_action"));
	a.record = a.cur ? run__record_for(r->rec, run__str(a.cur, "action_id")) : NULL;
	if (run_effects_of(&a, BEFORE) < 0 || project_machine(&a) < 0)
		goto nomem;
	if (st->issued != FSM_KIND_NONE &&
	    (rc = run__issue_action(r, st->issued, st->brief, a.suggested, fx,
				    st->run.grant ? a.grant : NULL, err)) < 0)
		goto out;
	if (run_effects_of(&a, AFTER) < 0)
		goto nomem;
	rc = run__view_refresh(r, err);
	goto out;
nomem:
	rc = run__oom(err);
out:
	json_decref(a.grant);
	json_decref(a.popped);
	json_decref(a.cur);
	return rc;
}

/* ---- the effects of source refreshes and choices ---- */

/* Answers given under requirements `old_rev` that are still active become
 * inactive, superseded by `new_rev`; nothing changes when the revision
 * stays (or the Run has no answers).  0, or -1 on ENOMEM. */
static int supersede_answers(json_t *answers, const char *old_rev, const char *new_rev)
{
	json_t *a;
	char *by;
	size_t i;
	int rc = 0;

	if (answers == NULL || (old_rev == NULL && new_rev == NULL) ||
	    (old_rev && new_rev && strcmp(old_rev, new_rev) == 0))
		return 0;
	if ((by = sw_asprintf("requirements:%s", new_rev)) == NULL)
		return -1;
	json_array_foreach(answers, i, a)
		if (json_is_true(json_object_get(a, "active")) && run__str(a, "requirements_revision") &&
		    old_rev && strcmp(run__str(a, "requirements_revision"), old_rev) == 0 &&
		    (json_object_set_new(a, "active", json_false()) < 0 ||
		     json_object_set_new(a, "superseded_by", json_string(by)) < 0))
			rc = -1;
	sw_free(by);
	return rc;
}

/* A source pinned under other requirements (an adopted amendment)
 * supersedes the answers given under the old ones. */
static int effect_PIN(struct apply *a)
{
	const json_t *cur = json_object_get(a->rec, "pinned_source");
	json_t *p;

	if (a->fx->pinned == NULL ||
	    supersede_answers(json_object_get(a->rec, "answers"), run__str(cur, "requirements_revision"),
			      run__str(a->fx->pinned, "requirements_revision")) < 0)
		return -1;
	if ((p = json_deep_copy(a->fx->pinned)) == NULL)
		return -1;
	return json_object_set_new(a->rec, "pinned_source", p);
}

/* The service stores the payloads with the event (a store write, not a
 * record edit). */
static int effect_SNAPSHOT(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_NOTE(struct apply *a)
{
	return a->st->note ? run__append_str(a->rec, "observations", a->st->note) : 0;
}

/* {operation, budget_applied} of the journal type; a step that creates or
 * resolves a candidate names it. */
static int effect_RESUME_RESULT(struct apply *a)
{
	const uint32_t names = FSM_OP(CANDIDATE_INVALID) | FSM_OP(CANDIDATE_VALID) |
			       FSM_OP(CANDIDATE_CLEAR);
	json_t *res = json_pack("{s:s, s:b}", "operation", tbl_jevent_resume_op[a->st->journal],
				"budget_applied", (a->st->ops & FSM_OP(RESUME_BUDGET)) != 0);

	if (res == NULL ||
	    ((a->st->ops & names) &&
	     json_object_set_new(res, "candidate_id", json_string(a->fx->candidate_id)) < 0)) {
		json_decref(res);
		return -1;
	}
	return json_object_set_new(a->rec, "last_resume_result", res);
}

static int effect_CHOICE_RECEIPT(struct apply *a)
{
	const char *action = run__str(json_object_get(a->rec, "current_action"), "action_id");
	json_t *receipt = json_pack("{s:s, s:s, s:s, s:s}", "candidate_id", a->fx->candidate_id,
				    "choice", a->fx->choice, "resulting_action_id",
				    action ? action : "", "at", a->fx->now);

	return receipt ? json_object_set_new(a->rec, "last_source_choice", receipt) : -1;
}

/* `key` := a copy of `v`, or removed when `v` is NULL. */
static int set_copy(json_t *rec, const char *key, const json_t *v)
{
	json_t *copy;

	if (v == NULL)
		return json_object_del(rec, key), 0;
	copy = json_deep_copy(v);
	return copy ? json_object_set_new(rec, key, copy) : -1;
}

static int effect_REPLAY_CHOICE(struct apply *a)
{
	if (set_copy(a->rec, "last_source_choice", a->fx->prior_receipt) < 0 ||
	    set_copy(a->rec, "last_resume_result", a->fx->prior_result) < 0)
		return -1;
	return 0;
}

int run_apply_replay(struct run *r, const struct fsm_step *st,
		     const struct run_effects *fx, struct sw_error *err)
{
	struct apply a = { r, r->rec, NULL, NULL, NULL, NULL, NULL, st, fx };

	if (st->verdict != FSM_IDEMPOTENT)
		return sw_error_set(err, SW_EINVAL, "run_apply_replay on a step that is no replay");
	if (run_effects_of(&a, BEFORE) < 0 || run_effects_of(&a, AFTER) < 0)
		return run__oom(err);
	/* The receipts replaced are what the typed record points into. */
	return run__view_refresh(r, err);
}

int run_create(struct run **out, const struct run_start *s,
	       const struct fsm_step *first, const struct run_effects *fx,
	       struct sw_error *err)
{
	struct run *r = sw_calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (r == NULL)
		return run__oom(err);
	r->contexts = json_array();
	r->rec = json_pack("{s:i, s:s, s:s, s:s, s:O, s:s, s:b, s:b, s:i, s:i, s:O, s:O, s:b, s:[], s:s, s:s}",
			   "contract_version", 2, "id", s->id, "goal", s->goal,
			   "workspace", s->workspace, "workspace_identity", s->identity,
			   "state", "active", "review_enabled", first->run.review_enabled,
			   "review_pending", 0, "initial_budget", first->run.initial_budget,
			   "remaining_budget", first->run.initial_budget,
			   "initial_git", s->initial_git, "current_git", s->initial_git,
			   "final_git_observed", 0, "actions", "created_at", s->now,
			   "updated_at", s->now);
	if (r->rec == NULL || r->contexts == NULL) {
		run_free(r);
		return run__oom(err);
	}
	if (s->pinned_source &&
	    json_object_set_new(r->rec, "pinned_source", json_deep_copy(s->pinned_source)) < 0) {
		run_free(r);
		return run__oom(err);
	}
	/* The start snapshot's own incompleteness is recorded at start, as every
	 * later observation's is (record_observation). */
	if (json_is_false(json_object_get(s->initial_git, "content_observation_complete")) &&
	    run__append_unique(r->rec, "uncertainties", NOTE_INCOMPLETE) < 0) {
		run_free(r);
		return run__oom(err);
	}
	if ((rc = run_apply(r, first, fx, err)) < 0 || (rc = run_decode(r, err)) < 0) {
		run_free(r);
		return rc;
	}
	*out = r;
	return 0;
}
