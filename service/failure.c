/* Failure documents: the structured errors raised against a Run or its
 * store, with the recovery `next` tables/error_codes.def names, and the
 * Run's own next. */

#include "service/internal.h"

#include "service/emit.h"
#include "io/store/run_record.h"

struct next *svc_run_next(const struct run *r, int resume_only)
{
	const struct run_record *rec = run_record(r);
	const char *id = rec->workspace_identity.id;
	struct fsm_run m = run_machine(r);
	struct sw_error err = SW_ERROR_INIT;
	const struct fsm_next_rule *rule;
	struct next_fill fill = { 0 };
	struct next *n = NULL;
	struct fsm_run as_resume = m;

	if (resume_only && m.state != FSM_ST_ENDED) {
		/* Only the resume choices, whatever else the state offers: a
		 * waiting candidate's choices, or the plain resume variants.  An
		 * ended Run has none (its next stays none). */
		as_resume.state = FSM_ST_STOPPED;
		as_resume.action = FSM_KIND_NONE;
		rule = fsm_next(&as_resume, NULL);
	} else {
		rule = fsm_next(&m, NULL);
	}
	fill.run_id = run_id(r);
	fill.action_id = run_current_action_id(r);
	if (rec->pending_destructive_request)
		fill.scope_digest = rec->pending_destructive_request->scope_sha256;
	if (rec->source_candidate)
		fill.candidate_id = rec->source_candidate->candidate_id;
	if (rule != NULL &&
	    next_from_rule(&n, rule, id, run_workspace(r), &fill, &err) == 0)
		return n;
	sw_error_clear(&err);
	next_none_identity(&n, id, &err);
	return n;
}

static json_t *state_details(const struct run *r)
{
	return json_pack("{s:s, s:s}", "run_id", run_id(r), "state",
			 tbl_runstate_wire[run_record(r)->state]);
}

struct next *svc__inspect_next(const struct svc *d, const char *run_id_arg)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next_fill fill = { .run_id = run_id_arg };
	struct next *n = NULL;

	if (next_build_form(&n, run_id_arg ? NEXT_FORM_INSPECT_RUN : NEXT_FORM_INSPECT_RUNS,
			    d->ws.id, d->ws.worktree_root, &fill, &err) < 0)
		next_none_identity(&n, d->ws.id, &err);
	return n;
}

/* The start-with-source next for the Run's goal settings: a refresh that
 * names another Issue or history is recovered by a new Run. */
static struct next *start_source_next(const struct run *r)
{
	const struct run_record *rec = run_record(r);
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;

	if (next_build_start(&n, rec->workspace_identity.id, run_workspace(r),
			     (unsigned)rec->initial_budget, !rec->review_enabled, 1, &err) < 0)
		next_none_identity(&n, rec->workspace_identity.id, &err);
	return n;
}

/* svc__fail_run with more details: `extra` (borrowed, may be NULL) is merged
 * into the state details. */

/* An error raised against a loaded Run, with the table's recovery. */
int svc__fail_run(const struct svc *d, enum tbl_err code, const char *msg,
		    const struct run *r)
{
	return svc__fail_run_ex(d, code, msg, r, NULL);
}

int svc__fail_run_ex(const struct svc *d, enum tbl_err code, const char *msg,
		       const struct run *r, const json_t *extra)
{
	struct next *n = NULL;
	json_t *details = NULL;
	int rc;

	/* Errors raised against a Run recover through it (tables/error_codes.def
	 * gives these codes CURRENT, RESUME, INSPECT or START_SOURCE). */
	if (tbl_err_recovery[code] == TBL_RECOVERY_RESUME)
		n = svc_run_next(r, 1);
	else if (tbl_err_recovery[code] == TBL_RECOVERY_INSPECT)
		n = svc__inspect_next(d, run_id(r));
	else if (tbl_err_recovery[code] == TBL_RECOVERY_START_SOURCE)
		n = start_source_next(r);
	else
		n = svc_run_next(r, 0);
	if (tbl_err_details[code] == TBL_DETAILS_STATE || tbl_err_details[code] == TBL_DETAILS_ISSUE)
		details = state_details(r);
	if (details && extra)
		json_object_update(details, (json_t *)extra);
	/* Errors the service raises against a Run always exit 3, even codes
	 * whose preflight form is a usage error (invalid_outcome). */
	rc = svc_fail(code, SVC_EXIT_RUNTIME, msg, n, d->ws.worktree_root, details);
	json_decref(details);
	next_free(n);
	return rc;
}

int svc__fail_load(const struct svc *d, enum tbl_err code, const char *msg,
		   const char *run_id_arg)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	int rc;

	if (code == TBL_ERR_RUN_BUSY)
		n = svc__inspect_next(d, run_id_arg);
	else if (code == TBL_ERR_RUNSTORE_UNAVAILABLE)
		next_build_form(&n, NEXT_FORM_RUN_DOCTOR, d->ws.id, d->ws.worktree_root,
				&(struct next_fill){ 0 }, &err);
	else if (next_build_form(&n, NEXT_FORM_LIST_RUNS, d->ws.id, d->ws.worktree_root,
				 &(struct next_fill){ 0 }, &err) < 0)
		next_none_identity(&n, d->ws.id, &err);
	rc = svc_fail(code, 0, msg && msg[0] ? msg : "the run cannot be read", n,
		      d->ws.worktree_root, NULL);
	next_free(n);
	return rc;
}

/* A failure of the store (or under it), classified by its wire code. */
int svc__fail_store(const struct svc *d, const struct sw_error *err,
		      const char *run_id_arg)
{
	const struct store_failure *f = store_last_failure(d->store);
	enum tbl_err code = err->proto;
	struct next *n = NULL;
	json_t *details = NULL;
	int rc;

	if (code == TBL_ERR_NONE)
		code = TBL_ERR_RUNTIME_ERROR;
	if (code == TBL_ERR_RUN_NOT_FOUND)	/* mutations on a missing run */
		code = TBL_ERR_RUNTIME_ERROR;
	/* Details of the code's own shape: a record over the limit also fails
	 * its mutation, but reports the limit (context, size, limit). */
	if (f && f->has_mutation && tbl_err_details[code] != TBL_DETAILS_JOURNAL)
		details = json_pack("{s:s, s:b, s:b, s:b, s:b}", "phase", f->phase,
				    "committed", f->committed, "projection_stale",
				    f->projection_stale, "namespace_detached",
				    f->namespace_detached, "ambiguous", f->ambiguous);
	else if (f && f->has_limit)
		details = json_pack("{s:s, s:I, s:I}", "context", f->limit_context,
				    "size", (json_int_t)f->limit_size, "limit",
				    (json_int_t)f->limit_max);
	if (tbl_err_details[code] == TBL_DETAILS_NONE ||
	    (tbl_err_details[code] == TBL_DETAILS_MUTATION && !(f && f->has_mutation)) ||
	    (tbl_err_details[code] == TBL_DETAILS_JOURNAL && !(f && f->has_limit))) {
		json_decref(details);
		details = NULL;
	}
	if (tbl_err_recovery[code] == TBL_RECOVERY_NONE)
		next_none_identity(&n, d->ws.id, &(struct sw_error)SW_ERROR_INIT);
	else
		n = svc__inspect_next(d, run_id_arg);
	rc = svc_fail(code, 0, err->msg[0] ? err->msg : "run store failure", n,
		      d->ws.worktree_root, details);
	json_decref(details);
	next_free(n);
	return rc;
}

/* Every caller of svc_print_state has committed its mutation: when the
 * reply cannot be derived or written the change is still saved, so the
 * error says so and points at the Run instead of a blind retry. */
int svc__fail_committed_output(const struct svc *d, const char *run_id_arg,
				 const char *why)
{
	struct next *n = svc__inspect_next(d, run_id_arg);
	json_t *details = json_pack("{s:s, s:b, s:b, s:b, s:b}", "phase", "response_output",
				    "committed", 1, "projection_stale", 0,
				    "namespace_detached", 0, "ambiguous", 0);
	char msg[300];
	int rc;

	snprintf(msg, sizeof(msg), "the mutation is committed but its response could not be "
		 "written (%s); inspect the Run before retrying", why);
	rc = svc_fail(TBL_ERR_MUTATION_COMMITTED_OUTPUT_FAILED, 0, msg, n,
		      d->ws.worktree_root, details);
	json_decref(details);
	next_free(n);
	return rc;
}

int svc_fail_status(struct svc *d, const struct sw_error *err)
{
	struct next *n = NULL;
	int rc;

	if (next_build_form(&n, NEXT_FORM_LIST_RUNS, d->ws.id, d->ws.worktree_root,
			    &(struct next_fill){ 0 }, &(struct sw_error)SW_ERROR_INIT) < 0)
		next_none_identity(&n, d->ws.id, &(struct sw_error)SW_ERROR_INIT);
	rc = svc_fail(err->code == SW_ENOMEM ? TBL_ERR_RUNTIME_ERROR : TBL_ERR_MATERIAL_UNAVAILABLE,
		      0, err->msg, n, d->ws.worktree_root, NULL);
	next_free(n);
	return rc;
}
