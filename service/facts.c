/* Fact gathering for a mutation: the bits fsm_step reads, from the request,
 * the Run, a refreshed source and Git, with the data their effects use. */

#include "service/internal.h"

#include <assert.h>
#include <string.h>

#include "io/wire/outcome.h"
#include "io/wire/input.h"
#include "io/store/run_record.h"
#include "io/source/source_json.h"

void svc__observe_now(const struct svc *d, const struct run *r, struct git_now *g,
		      struct vcs_index_id *seen)
{
	struct vcs_observation start = VCS_OBSERVATION_INIT;
	struct vcs_observe_opts o = { .index_hint = seen };
	struct sw_error err = SW_ERROR_INIT;

	memset(g, 0, sizeof(*g));
	g->obs = (struct vcs_observation)VCS_OBSERVATION_INIT;
	if (vcs_observe(&g->obs, &d->ws, &o, &err) < 0 ||
	    (g->json = vcs_observation_to_json(&g->obs)) == NULL) {
		snprintf(g->error, sizeof(g->error), "%s", err.msg[0] ? err.msg : "out of memory");
		return;
	}
	g->ok = 1;
	if (seen != NULL)
		*seen = g->obs.index_id;
	if (run_git_observation(&start, r, RUN_GIT_INITIAL, &err) == 0)
		g->changed = vcs_observation_changed_from(&g->obs, &start);
	else
		g->changed = 1;	/* an unreadable start cannot prove "unchanged" */
	vcs_observation_release(&start);
}

void svc__git_now_release(struct git_now *g)
{
	vcs_observation_release(&g->obs);
	json_decref(g->json);
	g->json = NULL;
}

/* Whether the Run's recorded current Git differs from its start. */
int svc__recorded_changed(const struct run *r)
{
	struct vcs_observation a = VCS_OBSERVATION_INIT, b = VCS_OBSERVATION_INIT;
	struct sw_error err = SW_ERROR_INIT;
	int changed = 0;

	if (run_git_observation(&a, r, RUN_GIT_CURRENT, &err) == 0 &&
	    run_git_observation(&b, r, RUN_GIT_INITIAL, &err) == 0)
		changed = vcs_observation_changed_from(&a, &b);
	vcs_observation_release(&a);
	vcs_observation_release(&b);
	return changed;
}

static void add_detail(struct gathered *g, uint64_t fact, json_t *extra, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_detail(struct gathered *g, uint64_t fact, json_t *extra, const char *fmt, ...)
{
	struct detail *d;
	va_list ap;

	assert(g->ndetail < sizeof(g->detail) / sizeof(g->detail[0]));
	d = &g->detail[g->ndetail++];
	d->fact = fact;
	d->extra = extra;
	va_start(ap, fmt);
	vsnprintf(d->text, sizeof(d->text), fmt, ap);
	va_end(ap);
}

/* The detail gathered for `fact`, or NULL. */
const struct detail *svc__detail_of(const struct gathered *g, uint64_t fact)
{
	for (size_t i = 0; fact && i < g->ndetail; i++)
		if (g->detail[i].fact == fact)
			return &g->detail[i];
	return NULL;
}

void svc__gathered_release(struct gathered *g)
{
	for (size_t i = 0; i < g->ndetail; i++)
		json_decref(g->detail[i].extra);
	json_decref(g->pinned);
	json_decref(g->candidate);
	memset(g, 0, sizeof(*g));
}

struct fsm_outcome_shape svc__shape_of(const struct outcome *o)
{
	struct fsm_outcome_shape s = { 0 };

	s.kind = o->kind;
	s.status = o->status_id;
	if (o->pause) {
		s.pause = o->pause->reason_id;
		s.has_destructive_request = o->pause->request != NULL;
		s.has_supersedes = o->pause->supersedes != NULL;
	}
	if (o->implementation) {
		s.has_implementation = 1;
		s.implementation = o->implementation->result_id;
	}
	if (o->review) {
		s.has_review = 1;
		s.review = o->review->result_id;
		s.findings = o->review->n_findings;
	}
	s.suggestions = o->n_suggestions;
	if (o->n_suggestions)
		s.suggestion_kind = o->suggestions[0].kind_id;
	return s;
}

static int refresh_facts(struct mctx *c, struct gathered *g, const char *now,
			 struct sw_error *err);
static int choice_facts(struct mctx *c, struct gathered *g, struct sw_error *err);

/* The facts every resume mode shares. */
static uint64_t resume_facts(const struct svc_mutation *m)
{
	return (m->budget_given ? FSM_F(BUDGET_GIVEN) : 0) |
	       (m->source_options ? FSM_F(SOURCE_OPTIONS) : 0);
}

/* The facts of the event and the data their effects need, gathered from
 * the request and the Run before the one fsm_step; the GIT group is
 * gathered after, when fsm_wants asks for it.  Returns 0, or a negative
 * sw_code (c->exit set when an error was already reported). */
int svc__input_facts(struct mctx *c, struct gathered *g, const char *now,
		       char answer_digest[SW_DIGEST_LEN], struct sw_error *errp)
{
	struct svc_mutation *m = c->m;
	const struct run *r = c->run;
	const struct run_record *rec = run_record(r);
	struct sw_error err = SW_ERROR_INIT;
	uint64_t f = 0;
	int rc = 0;

	switch (m->event) {
	case FSM_EV_SUBMIT:
		f = run_submit_facts(r, m->action_id, m->outcome->payload_sha256);
		if (rec->current_action &&
		    outcome_validate_for(m->outcome, run_machine(r).action,
					 run_current_action_id(r), &err) < 0) {
			f |= FSM_F(OUTCOME_INVALID);
			add_detail(g, FSM_F(OUTCOME_INVALID), NULL, "%s", err.msg);
		}
		if (m->outcome->pause &&
		    run_supersedes_invalid(r, m->outcome->pause->supersedes))
			f |= FSM_F(SUPERSEDE_INVALID);
		break;
	case FSM_EV_ANSWER: {
		const struct run_request *req = rec->pending_destructive_request;
		const struct run_action_record *cur = run_record_current(rec);

		input_answer_digest(answer_digest, m->action_id, m->confirm, m->scope,
				    m->text, m->text_len, &err);
		f = run_answer_facts(r, m->action_id, answer_digest, NULL);
		if (!outcome_text_nonblank(m->text, m->text_len))
			f |= FSM_F(TEXT_BLANK);
		if (m->confirm)
			f |= FSM_F(CONFIRM);
		if (m->scope && m->scope[0]) {
			f |= FSM_F(SCOPE_GIVEN);
			if (sw_digest_valid(m->scope))
				f |= FSM_F(SCOPE_WELLFORMED);
			if (req && strcmp(req->scope_sha256, m->scope) == 0)
				f |= FSM_F(SCOPE_MATCH);
		}
		if (run_machine(r).state == FSM_ST_PAUSED_DESTRUCTIVE) {
			static const uint64_t fault_fact[] = {
				[RUN_REQUEST_SOUND] = 0,
				[RUN_REQUEST_MISSING] = FSM_F(REQUEST_MISSING),
				[RUN_REQUEST_INVALID] = FSM_F(REQUEST_INVALID),
				[RUN_REQUEST_CHANGED] = FSM_F(SCOPE_CHANGED),
				[RUN_REQUEST_GRANT_HELD] = FSM_F(GRANT_HELD),
			};

			f |= fault_fact[run_request_fault(rec)];
		}
		if (cur && cur->outcome && cur->outcome->pause &&
		    run_supersedes_invalid(r, cur->outcome->pause->supersedes_answer_action_id))
			f |= FSM_F(SUPERSEDE_INVALID);
		break;
	}
	case FSM_EV_SKIP:
		f = run_submit_facts(r, m->action_id, NULL) &
		    (FSM_F(NAMED_CURRENT) | FSM_F(NAMED_VOIDED));
		break;
	case FSM_EV_RESUME_REFRESH:
		f = resume_facts(m);
		rc = refresh_facts(c, g, now, errp);
		break;
	case FSM_EV_CHOOSE_PINNED:
	case FSM_EV_CHOOSE_ADOPT:
		f = resume_facts(m);
		rc = choice_facts(c, g, errp);
		break;
	case FSM_EV_RESUME:
	case FSM_EV_RESUME_PINNED:
		f = resume_facts(m);
		break;
	case FSM_EV_STOP:
	case FSM_EV_START:
	case FSM_EV_INVALID:
	case FSM_EV__COUNT:
		break;
	}
	g->facts |= f;
	return rc;
}

/* Compares the refreshed envelope with the Run's pinned source, both as
 * io/source structs: each difference the reference checks is a fact (the rows of RESUME_REFRESH
 * decide, in the reference's order, which one speaks); the candidate to
 * keep and the snapshot to re-pin are the effects' data.  An ad-hoc Run has
 * no pinned source: nothing to compare, the rows refuse it.  Returns 0, or
 * a negative sw_code with the error reported (c->exit). */
static int refresh_facts(struct mctx *c, struct gathered *g, const char *now,
			 struct sw_error *err)
{
	const struct source_candidate *env = c->m->refresh;
	const struct source_pinned *snap = env ? env->snapshot : NULL;
	const struct source_parent *p0, *p1;
	struct sw_error e = SW_ERROR_INIT;
	struct source_pinned *cur = NULL;
	struct source_candidate *ccheck = NULL;
	char *cid = NULL, *cat = NULL, why[600];
	json_t *cand = NULL, *aliases = NULL;
	int rc = 0;

	if (env == NULL || run_record(c->run)->pinned_source == NULL)
		return 0;
	if (run_pinned_source(&cur, c->run, &e) < 0)
		goto nomem;
	if (strcmp(env->provider, cur->provider) != 0 || strcmp(env->host, cur->host) != 0)
		g->facts |= FSM_F(PROVIDER_DIFFERS);
	if (strcmp(env->issue_id, cur->issue_id) != 0) {
		g->facts |= FSM_F(ISSUE_DIFFERS);
		add_detail(g, FSM_F(ISSUE_DIFFERS),
			   json_pack("{s:s, s:s}", "pinned_issue_id", cur->issue_id,
				     "refreshed_issue_id", env->issue_id), "%s", "");
	}
	if (source_candidate_to_json(&cand, env, g->candidate_id, now, &e) < 0 ||
	    (aliases = source_aliases_merged(cur, env->canonical_url)) == NULL)
		goto nomem;
	p0 = cur->parent;
	p1 = env->parent;
	if (strcmp(cur->repository_id, env->repository_id) != 0 ||
	    cur->issue_number != env->issue_number ||
	    strcmp(cur->canonical_url, env->canonical_url) != 0 || (p0 == NULL) != (p1 == NULL) ||
	    (p0 && (strcmp(p0->repository_id, p1->repository_id) != 0 ||
		    strcmp(p0->issue_id, p1->issue_id) != 0 ||
		    strcmp(p0->canonical_url, p1->canonical_url) != 0)))
		g->facts |= FSM_F(PROJECTION_CHANGED);
	if (json_array_size(aliases) > SOURCE_MAX_URL_ALIASES)
		g->facts |= FSM_F(ALIASES_FULL);
	/* The merged candidate (aliases carried over) must still validate. */
	if (json_object_set(cand, "url_aliases", aliases) < 0 ||
	    (json_object_get(cand, "snapshot") &&
	     json_object_set(json_object_get(cand, "snapshot"), "url_aliases", aliases) < 0))
		goto nomem;
	if (source_candidate_from_json(&ccheck, &cid, &cat, cand, &e) < 0) {
		g->facts |= FSM_F(MERGED_INVALID);
		add_detail(g, FSM_F(MERGED_INVALID), NULL, "merged refreshed source is invalid: %s", e.msg);
	}
	if (!env->valid)
		g->facts |= FSM_F(BODY_INVALID);
	if (run_history_violation(c->history,
				  json_object_get(json_object_get(cand, "snapshot"), "sections"),
				  why, sizeof(why))) {
		g->facts |= FSM_F(HISTORY_EDITED);
		add_detail(g, FSM_F(HISTORY_EDITED), NULL, "%s", why);
	}
	/* An invalid body has no snapshot: every revision counts as changed. */
	if (snap == NULL || strcmp(cur->manifest_revision, snap->manifest_revision) != 0)
		g->facts |= FSM_F(MANIFEST_CHANGED);
	if (snap && snap->parent_requirements_revision[0] &&
	    strcmp(snap->parent_requirements_revision, cur->requirements_revision) == 0)
		g->facts |= FSM_F(PARENT_MATCH);
	if (snap == NULL || strcmp(cur->requirements_revision, snap->requirements_revision) != 0)
		g->facts |= FSM_F(REQUIREMENTS_CHANGED);
	if (snap == NULL || strcmp(cur->source_revision, snap->source_revision) != 0)
		g->facts |= FSM_F(REVISION_CHANGED);
	g->pinned = json_incref(json_object_get(cand, "snapshot"));
	g->candidate = cand;
	cand = NULL;
	goto out;
nomem:
	c->exit = svc__fail_run(c->d, TBL_ERR_RUNTIME_ERROR, "out of memory", c->run);
	rc = sw_error_set(err, SW_ECONFLICT, "out of memory");
out:
	source_pinned_free(cur);
	source_candidate_free(ccheck);
	sw_free(cid);
	sw_free(cat);
	json_decref(cand);
	json_decref(aliases);
	return rc;
}

/* A source choice: whether it names the waiting candidate, and whether an
 * earlier choice resolved the candidate it names (with this same choice:
 * its receipt and result answer again).  The source the choice pins is
 * the effects' data (run_choice_source): the pinned requirements under
 * the candidate's projection (pinned), or the candidate's snapshot (adopt;
 * PIN then supersedes the answers given under the old requirements).
 * Returns 0 or a negative sw_code. */
static int choice_facts(struct mctx *c, struct gathered *g, struct sw_error *err)
{
	struct svc_mutation *m = c->m;
	const struct run_source_candidate *cand = run_record(c->run)->source_candidate;
	const char *choice = tbl_event_choice[m->event];
	struct sw_error e = SW_ERROR_INIT;
	const char *earlier;

	if (run_history_choice(c->history, m->candidate_id, &earlier, &g->receipt, &g->result)) {
		g->facts |= FSM_F(CHOICE_RESOLVED);
		if (strcmp(earlier, choice) == 0)
			g->facts |= FSM_F(CHOICE_SAME);
	}
	if (cand == NULL || strcmp(cand->candidate_id, m->candidate_id) != 0)
		return 0;
	g->facts |= FSM_F(CANDIDATE_NAMED);
	/* Adopting an invalid candidate pins nothing; its rows refuse it. */
	if (m->event == FSM_EV_CHOOSE_ADOPT)
		return run_choice_source(&g->pinned, c->run, 1, &e) < 0 ?
			       sw_error_set(err, SW_ENOMEM, "out of memory") : 0;
	if (run_choice_source(&g->pinned, c->run, 0, &e) < 0)
		return sw_error_set(err, SW_EINVAL, "the source choice yields no valid pinned source");
	return 0;
}
