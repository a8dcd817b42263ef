/* The record field by field: the order status prints the fields in, the
 * machine's view (run_machine) and the facts the rules read about a named
 * Action, the getters, the source the Run pins or waits on, and the setters
 * a driver calls outside a step.  Never carries out a step's effects. */

#include <string.h>

#include <jansson.h>

#include "io/git/observe.h"
#include "io/source/source_json.h"
#include "io/store/run_codec.h"
#include "io/store/run_internal.h"
#include "io/util/digest.h"

/* The record's fields in the order status prints them. */
const char *const run__field_order[] = {
	"contract_version", "id", "goal", "workspace", "workspace_identity",
	"state", "pause_reason", "review_enabled", "review_pending",
	"initial_budget", "remaining_budget", "initial_git", "current_git",
	"final_git_observed", "pinned_source", "source_candidate",
	"last_source_choice", "last_resume_result", "current_action", "actions",
	"pending_actions", "answers", "observations", "known_issues",
	"uncertainties", "activities", "summary", "pending_destructive_request",
	"destructive_grant", "created_at", "updated_at",
};
const size_t run__nfields = sizeof(run__field_order) / sizeof(run__field_order[0]);

json_t *run__ordered_copy(const json_t *rec)
{
	json_t *out = json_object();

	for (size_t i = 0; out && i < run__nfields; i++) {
		json_t *v = json_object_get(rec, run__field_order[i]);

		if (v && json_object_set(out, run__field_order[i], v) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

int run__known_field(const char *k)
{
	for (size_t i = 0; i < run__nfields; i++)
		if (strcmp(run__field_order[i], k) == 0)
			return 1;
	return 0;
}

static enum fsm_state state_of(const json_t *rec)
{
	enum fsm_runstate rs = tbl_runstate_lookup(run__str(rec, "state"));
	enum fsm_pause p = tbl_pause_lookup(run__str(rec, "pause_reason"));

	for (int s = FSM_ST_NEW + 1; s < FSM_ST__COUNT; s++)
		if (tbl_state_runstate[s] == rs && tbl_state_pause[s] == p)
			return (enum fsm_state)s;
	return FSM_ST_INVALID;
}

struct fsm_run run_machine(const struct run *r)
{
	const json_t *rec = r->rec;
	json_t *cur = json_object_get(rec, "current_action");
	json_t *cand = json_object_get(rec, "source_candidate");
	struct fsm_run m = { 0 };

	m.state = state_of(rec);
	m.action = cur ? tbl_kind_lookup(run__str(cur, "kind")) : FSM_KIND_NONE;
	m.review_enabled = json_is_true(json_object_get(rec, "review_enabled"));
	m.review_pending = json_is_true(json_object_get(rec, "review_pending"));
	m.grant = json_object_get(rec, "destructive_grant") != NULL;
	m.request = json_object_get(rec, "pending_destructive_request") != NULL;
	m.queued = json_array_size(json_object_get(rec, "pending_actions")) > 0;
	m.issue_backed = json_object_get(rec, "pinned_source") != NULL;
	m.candidate = cand != NULL;
	m.candidate_valid = cand && json_is_true(json_object_get(cand, "valid"));
	m.initial_budget = (unsigned)json_integer_value(json_object_get(rec, "initial_budget"));
	m.remaining = (unsigned)json_integer_value(json_object_get(rec, "remaining_budget"));
	return m;
}

int run_git_observation(struct vcs_observation *out, const struct run *r,
			enum run_git which, struct sw_error *err)
{
	const json_t *v = json_object_get(r->rec, which == RUN_GIT_CURRENT ? "current_git"
									   : "initial_git");

	if (v == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "the Run records no current Git observation");
	return vcs_observation_from_json(out, v, err);
}

int run_reply_fields(json_t *doc, const struct run *r, unsigned which, struct sw_error *err)
{
	static const char *const keys[] = { "pinned_source", "source_candidate",
					    "workspace_identity" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = which & (1u << i) ? json_object_get(r->rec, keys[i]) : NULL;

		if (v && json_object_set(doc, keys[i], v) < 0)
			return run__oom(err);
	}
	return 0;
}

int run_pinned_source(struct source_pinned **out, const struct run *r, struct sw_error *err)
{
	const json_t *v = json_object_get(r->rec, "pinned_source");

	*out = NULL;
	if (v == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "the Run pins no source");
	return source_pinned_from_json(out, v, err);
}

int run_source_candidate(struct source_candidate **out, char **candidate_id,
			 const struct run *r, struct sw_error *err)
{
	const json_t *v = json_object_get(r->rec, "source_candidate");
	char *created_at = NULL;
	int rc;

	*out = NULL;
	*candidate_id = NULL;
	if (v == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "the Run has no source candidate");
	rc = source_candidate_from_json(out, candidate_id, &created_at, v, err);
	sw_free(created_at);
	return rc;
}

/* keep-pinned: `cur` under the projection of candidate `cand`. */
static int project_pinned(json_t **out, const json_t *cur, const json_t *cand,
			  struct sw_error *err)
{
	static const char *const fields[] = { "repository_id", "issue_number", "canonical_url" };
	struct source_pinned *typed = NULL, *check = NULL;
	char rev[SW_DIGEST_LEN];
	json_t *p = json_deep_copy(cur), *aliases = NULL;
	int rc;

	if (p == NULL) {
		rc = run__oom(err);
		goto out;
	}
	if ((rc = source_pinned_from_json(&typed, cur, err)) < 0)
		goto out;
	if ((aliases = source_aliases_merged(typed, run__str(cand, "canonical_url"))) == NULL) {
		rc = run__oom(err);
		goto out;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (json_object_set(p, fields[i], json_object_get(cand, fields[i])) < 0) {
			rc = run__oom(err);
			goto out;
		}
	if (json_object_get(cand, "parent") == NULL)
		json_object_del(p, "parent");
	if (json_object_set(p, "url_aliases", aliases) < 0 ||
	    (json_object_get(cand, "parent") &&
	     json_object_set(p, "parent", json_object_get(cand, "parent")) < 0)) {
		rc = run__oom(err);
		goto out;
	}
	if ((rc = source_revision_compute(rev, run__str(p, "host"), run__str(p, "repository_id"),
					  run__str(p, "issue_id"), run__str(p, "title"),
					  run__str(p, "manifest_revision"), err)) < 0)
		goto out;
	if (json_object_set_new(p, "source_revision", json_string(rev)) < 0) {
		rc = run__oom(err);
		goto out;
	}
	if ((rc = source_pinned_from_json(&check, p, err)) < 0)
		goto out;
	*out = p;
	p = NULL;
out:
	source_pinned_free(check);
	source_pinned_free(typed);
	json_decref(aliases);
	json_decref(p);
	return rc;
}

int run_choice_source(json_t **out, const struct run *r, int adopt, struct sw_error *err)
{
	const json_t *cand = json_object_get(r->rec, "source_candidate");
	const json_t *cur = json_object_get(r->rec, "pinned_source");
	const json_t *snap = json_object_get(cand, "snapshot");

	*out = NULL;
	if (cand == NULL || cur == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "the Run has no source candidate to choose");
	if (!adopt)
		return project_pinned(out, cur, cand, err);
	if (snap && (*out = json_deep_copy(snap)) == NULL)
		return run__oom(err);
	return 0;
}

int run_equal(const struct run *a, const struct run *b)
{
	return json_equal(a->rec, b->rec);
}

const json_t *run_json(const struct run *r)
{
	return r->rec;
}

const char *run_id(const struct run *r)
{
	return run__str(r->rec, "id");
}

const char *run_workspace(const struct run *r)
{
	return run__str(r->rec, "workspace");
}

const json_t *run_current_action(const struct run *r)
{
	return json_object_get(r->rec, "current_action");
}

const char *run_current_action_id(const struct run *r)
{
	return run__str(json_object_get(r->rec, "current_action"), "action_id");
}

const char *run_summary(const struct run *r)
{
	return run__str(r->rec, "summary");
}

/* The record flags (FZ_*) of the Action named `action_id` and its
 * outcome digest ("" when none); 0 when there is no such record. */
static unsigned named_record(const struct run *r, const char *action_id, const char **sha)
{
	json_t *rec = run__record_for(r->rec, action_id);
	const struct fz_entry *e;

	*sha = "";
	if (rec != NULL) {
		if (run__str(rec, "outcome_payload_sha256"))
			*sha = run__str(rec, "outcome_payload_sha256");
		return run__record_flags(rec);
	}
	if ((e = run__fz_find(r, action_id)) != NULL) {
		*sha = e->sha;
		return e->flags;
	}
	return 0;
}

static uint64_t named_facts(const struct run *r, const char *action_id)
{
	const char *cur = run_current_action_id(r), *sha;
	uint64_t f = 0;

	if (cur && action_id && strcmp(cur, action_id) == 0)
		f |= FSM_F(NAMED_CURRENT);
	if (named_record(r, action_id, &sha) & FZ_VOIDED)
		f |= FSM_F(NAMED_VOIDED);
	return f;
}

uint64_t run_submit_facts(const struct run *r, const char *action_id,
			  const char *outcome_sha256)
{
	const char *sha;
	uint64_t f = named_facts(r, action_id);

	if (named_record(r, action_id, &sha) & FZ_OUTCOME) {
		f |= FSM_F(PRIOR);
		if (outcome_sha256 && strcmp(sha, outcome_sha256) == 0)
			f |= FSM_F(PRIOR_SAME);
	}
	return f;
}

uint64_t run_answer_facts(const struct run *r, const char *action_id,
			  const char *answer_sha256, int *prior_confirm)
{
	uint64_t f = named_facts(r, action_id);
	json_t *a;
	size_t i;

	if (prior_confirm)
		*prior_confirm = 0;
	json_array_foreach(json_object_get(r->rec, "answers"), i, a) {
		if (strcmp(run__str(a, "action_id"), action_id) != 0)
			continue;
		f |= FSM_F(PRIOR);
		if (answer_sha256 && strcmp(run__str(a, "payload_sha256"), answer_sha256) == 0)
			f |= FSM_F(PRIOR_SAME);
		if (prior_confirm)
			*prior_confirm = json_is_true(json_object_get(a, "confirm_destructive"));
		break;
	}
	return f;
}

int run_supersedes_invalid(const struct run *r, const char *old)
{
	json_t *a;
	size_t i;

	if (old == NULL)
		return 0;
	json_array_foreach(json_object_get(r->rec, "answers"), i, a)
		if (strcmp(run__str(a, "action_id"), old) == 0)
			return !json_is_true(json_object_get(a, "active")) ||
			       json_is_true(json_object_get(a, "confirm_destructive")) ||
			       (run__str(a, "requirements_revision") != NULL) !=
				       (json_object_get(r->rec, "pinned_source") != NULL);
	return 1;
}

int run_set_pinned_source(struct run *r, const json_t *pinned, struct sw_error *err)
{
	json_t *copy = json_deep_copy(pinned);

	if (copy == NULL || json_object_set_new(r->rec, "pinned_source", copy) < 0)
		return run__oom(err);
	return run__view_refresh(r, err);
}

int run_set_field(struct run *r, const char *key, const json_t *value, struct sw_error *err)
{
	json_t *copy;

	if (!run__known_field(key))
		return sw_error_set(err, SW_EINVAL, "unknown Run field %s", key);
	if (value == NULL)
		json_object_del(r->rec, key);
	else if ((copy = json_deep_copy(value)) == NULL ||
		 json_object_set_new(r->rec, key, copy) < 0)
		return run__oom(err);
	return run__view_refresh(r, err);
}

int run_add_observation(struct run *r, const char *text, struct sw_error *err)
{
	return run__append_str(r->rec, "observations", text) < 0 ? run__oom(err) : 0;
}

int run_set_resume_result(struct run *r, const char *operation,
			  int budget_applied, struct sw_error *err)
{
	json_t *res = json_pack("{s:s, s:b}", "operation", operation,
				"budget_applied", budget_applied);

	if (res == NULL || json_object_set_new(r->rec, "last_resume_result", res) < 0)
		return run__oom(err);
	return run__view_refresh(r, err);
}
