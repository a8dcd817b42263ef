#include "service/svc.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "service/emit.h"
#include "io/store/journal.h"
#include "io/util/json.h"
#include "io/git/observe.h"
#include "io/wire/outcome.h"
#include "io/wire/input.h"
#include "io/wire/render.h"
#include "io/store/run_check.h"
#include "io/store/run_history.h"
#include "io/store/run_record.h"
#include "io/source/source.h"
#include "io/source/source_json.h"
#include "io/store/store.h"

void svc_now(char *buf, size_t len)
{
	char out[JOURNAL_TIME_LEN];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	journal_format_time(&ts, out);
	snprintf(buf, len, "%s", out);
}

int svc_read_source(char **out, size_t *out_len, const char *path, const char *bytes,
		    size_t len, struct sw_error *err)
{
	*out = NULL;
	*out_len = 0;
	if (bytes == NULL)
		return source_read_file(out, out_len, path, err);
	if (len > SOURCE_MAX_FILE_BYTES)
		return sw_error_set(err, SW_ETOOBIG, "source envelope exceeds %u bytes",
				    SOURCE_MAX_FILE_BYTES);
	if ((*out = sw_malloc(len + 1)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy the source envelope");
	memcpy(*out, bytes, len);
	(*out)[len] = '\0';
	*out_len = len;
	return 0;
}

int svc_usage(const struct svc *d, enum tbl_err code, const char *msg)
{
	return svc_fail(code, 0, msg, NULL, d->root_arg, NULL);
}

int svc_discover(struct svc *d)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	int rc;

	d->store = NULL;
	if (vcs_discover(&d->ws, d->root_arg, &err) == 0)
		return 0;
	if (err.code == SW_ENOTFOUND || err.code == SW_EIO)
		return svc_fail(TBL_ERR_GIT_REPOSITORY_REQUIRED, 0, err.msg, NULL, d->root_arg, NULL);
	next_build_form(&n, NEXT_FORM_RETRY_DOCTOR, NULL, d->root_arg ? d->root_arg : ".",
			&(struct next_fill){ 0 }, &(struct sw_error)SW_ERROR_INIT);
	rc = svc_fail(TBL_ERR_GIT_REPOSITORY_UNAVAILABLE, 0, err.msg, n, d->root_arg, NULL);
	next_free(n);
	return rc;
}

int svc_open_store(struct svc *d, bool writable)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	int rc;

	if (store_open(&d->store, d->ws.git_common_dir, writable, &err) == 0)
		return 0;
	next_build_form(&n, NEXT_FORM_RUN_DOCTOR, d->ws.id, d->ws.worktree_root,
			&(struct next_fill){ 0 }, &(struct sw_error)SW_ERROR_INIT);
	rc = svc_fail(TBL_ERR_RUNSTORE_UNAVAILABLE, 0, err.msg, n, NULL, NULL);
	next_free(n);
	vcs_identity_release(&d->ws);
	return rc;
}

int svc_open(struct svc *d, bool writable)
{
	int rc = svc_discover(d);

	return rc ? rc : svc_open_store(d, writable);
}

void svc_close(struct svc *d)
{
	store_free(d->store);
	d->store = NULL;
	json_decref(d->contexts);
	d->contexts = NULL;
	vcs_identity_release(&d->ws);
}

/* ---- next ---- */

static int add_list_summary(struct store_mutation *sm, const struct run *r,
			    struct sw_error *err);

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

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

/* ---- errors ---- */

static json_t *state_details(const struct run *r)
{
	return json_pack("{s:s, s:s}", "run_id", run_id(r), "state",
			 tbl_runstate_wire[run_record(r)->state]);
}

static struct next *inspect_next(const struct svc *d, const char *run_id_arg)
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

/* fail_run with more details: `extra` (borrowed, may be NULL) is merged
 * into the state details. */
static int fail_run_ex(const struct svc *d, enum tbl_err code, const char *msg,
		       const struct run *r, const json_t *extra);

/* An error raised against a loaded Run, with the table's recovery. */
static int fail_run(const struct svc *d, enum tbl_err code, const char *msg,
		    const struct run *r)
{
	return fail_run_ex(d, code, msg, r, NULL);
}

static int fail_run_ex(const struct svc *d, enum tbl_err code, const char *msg,
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
		n = inspect_next(d, run_id(r));
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

/* A failure of the store (or under it), classified by its wire code. */
static int fail_store(const struct svc *d, const struct sw_error *err,
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
		n = inspect_next(d, run_id_arg);
	rc = svc_fail(code, 0, err->msg[0] ? err->msg : "run store failure", n,
		      d->ws.worktree_root, details);
	json_decref(details);
	next_free(n);
	return rc;
}

/* ---- loading ---- */

/* Parses one event's data and applies it to *r; *data (may be NULL) gets
 * the parsed value for the caller, who then owns it. */
static int replay_event(const struct store_event *ev, struct run **r, json_t **data,
			struct sw_error *err)
{
	json_error_t jerr;
	json_t *v = json_loadb(ev->data, ev->data_len, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	if (v == NULL)
		return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID,
				      "journal record %lld: %s", ev->sequence, jerr.text);
	rc = run_replay(r, tbl_jevent_wire[ev->type], v, err);
	if (rc < 0 || data == NULL)
		json_decref(v);
	else
		*data = v;
	return rc;
}

static int replay_visit(const struct store_event *ev, void *payload,
			struct sw_error *err)
{
	return replay_event(ev, payload, NULL, err);
}

/* Checks the Run belongs to this workspace. */
static int check_workspace(const struct svc *d, const struct run *r)
{
	const struct run_workspace_identity *pinned = &run_record(r)->workspace_identity;
	const char *want = pinned->id;
	struct sw_error err = SW_ERROR_INIT;
	struct next_fill fill = { 0 };
	struct next *n = NULL;
	json_t *details;
	int rc;

	if (strcmp(want, d->ws.id) == 0 && strcmp(pinned->worktree_root, d->ws.worktree_root) == 0)
		return 0;
	details = json_pack("{s:s, s:s}", "expected_workspace_identity", want,
			    "observed_workspace_identity", d->ws.id);
	if (next_build_form(&n, NEXT_FORM_MISMATCHED_WORKSPACE, want,
			    pinned->worktree_root, &fill, &err) < 0)
		next_none_identity(&n, want, &err);
	rc = svc_fail(TBL_ERR_WORKSPACE_IDENTITY_MISMATCH, 0,
		      "workspace identity mismatch: the current Git worktree or metadata "
		      "directories differ from the Run's", n, NULL, details);
	json_decref(details);
	next_free(n);
	return rc;
}

/* The run directory could not be read for a reason of the system (no
 * permission, no file descriptor left, no memory, an I/O error), not
 * because of what it holds: no journal is blamed for that. */
static bool system_failure(const struct sw_error *err)
{
	return err->code == SW_EIO || err->code == SW_ENOMEM;
}

/* The unavailableRun code for a Run that cannot be listed. */
static const char *unavailable_code(const struct sw_error *err)
{
	if (system_failure(err))
		return "run_unavailable";
	if (err->proto == TBL_ERR_RUN_BUSY)
		return "run_busy";
	return "run_journal_invalid";
}

int svc_load(struct svc *d, const char *run_id_arg, struct run **out,
		int quiet, enum tbl_err *code)
{
	struct sw_error err = SW_ERROR_INIT;
	struct run *r = NULL;
	int rc;

	*out = NULL;
	if (store_visit(d->store, run_id_arg, replay_visit, &r, NULL, &err) < 0 || r == NULL ||
	    run_check(r, &err) < 0) {
		enum tbl_err c = err.proto;

		run_free(r);
		if (system_failure(&err))
			c = TBL_ERR_RUNSTORE_UNAVAILABLE;
		else if (c != TBL_ERR_RUN_NOT_FOUND && c != TBL_ERR_RUN_BUSY)
			c = TBL_ERR_RUN_JOURNAL_INVALID;
		if (code)
			*code = c;
		if (quiet)
			return SVC_EXIT_RUNTIME;
		{
			struct next *n = NULL;

			if (c == TBL_ERR_RUN_BUSY)
				n = inspect_next(d, run_id_arg);
			else if (c == TBL_ERR_RUNSTORE_UNAVAILABLE)
				next_build_form(&n, NEXT_FORM_RUN_DOCTOR, d->ws.id, d->ws.worktree_root,
						&(struct next_fill){ 0 }, &err);
			else if (next_build_form(&n, NEXT_FORM_LIST_RUNS, d->ws.id,
						 d->ws.worktree_root, &(struct next_fill){ 0 }, &err) < 0)
				next_none_identity(&n, d->ws.id, &err);
			rc = svc_fail(c, 0, err.msg[0] ? err.msg : "the run cannot be read", n,
				      d->ws.worktree_root, NULL);
			next_free(n);
		}
		return rc;
	}
	if (!quiet && (rc = check_workspace(d, r)) != 0) {
		run_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* ---- Git ---- */

struct git_now {
	struct vcs_observation obs;
	json_t *json;
	int ok;
	int changed;
	char error[512];
};

static void observe_now(const struct svc *d, const struct run *r, struct git_now *g)
{
	struct vcs_observation start = VCS_OBSERVATION_INIT;
	struct sw_error err = SW_ERROR_INIT;

	memset(g, 0, sizeof(*g));
	g->obs = (struct vcs_observation)VCS_OBSERVATION_INIT;
	if (vcs_observe(&g->obs, &d->ws, NULL, &err) < 0 ||
	    (g->json = vcs_observation_to_json(&g->obs)) == NULL) {
		snprintf(g->error, sizeof(g->error), "%s", err.msg[0] ? err.msg : "out of memory");
		return;
	}
	g->ok = 1;
	if (run_git_observation(&start, r, RUN_GIT_INITIAL, &err) == 0)
		g->changed = vcs_observation_changed_from(&g->obs, &start);
	else
		g->changed = 1;	/* an unreadable start cannot prove "unchanged" */
	vcs_observation_release(&start);
}

static void git_now_release(struct git_now *g)
{
	vcs_observation_release(&g->obs);
	json_decref(g->json);
	g->json = NULL;
}

/* Whether the Run's recorded current Git differs from its start. */
static int recorded_changed(const struct run *r)
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

/* ---- mutation ---- */

const char *svc_resume_operation(enum fsm_event ev)
{
	return tbl_jevent_resume_op[tbl_event_journal[ev]];
}

struct mctx {
	struct svc *d;
	struct svc_mutation *m;
	struct run *run;		/* replayed */
	int exit;			/* set when the callback wrote an error */
	int apply_error;		/* APPLY_ERROR: print after commit */
	/* Gathered while replaying, for source refreshes and choices. */
	struct run_history *history;
	/* What the store writes after the callback (kept until it returns). */
	struct run_projection proj;
	struct run_checkpoint checkpoint;
	int resumed;			/* c->run came from a checkpoint */
	unsigned steps;			/* fsm_step calls: exactly one per mutation */
};

/* What the gatherers found besides the fact bits: the message and extra
 * fields a refusal reports (struct fsm_rule's `detail` names the fact) and
 * the data the effects consume. */
struct gathered {
	uint64_t facts;
	struct detail {
		uint64_t fact;
		char text[600];		/* "": the row's why */
		json_t *extra;		/* more error details, or NULL */
	} detail[3];
	size_t ndetail;
	json_t *pinned;			/* PIN: the source to pin */
	json_t *candidate;		/* CANDIDATE_*: the refreshed source */
	const char *candidate_id;	/* the waiting candidate, or the new id */
	const json_t *receipt;		/* REPLAY_CHOICE: the earlier choice */
	const json_t *result;
};

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
static const struct detail *detail_of(const struct gathered *g, uint64_t fact)
{
	for (size_t i = 0; fact && i < g->ndetail; i++)
		if (g->detail[i].fact == fact)
			return &g->detail[i];
	return NULL;
}

static void gathered_release(struct gathered *g)
{
	for (size_t i = 0; i < g->ndetail; i++)
		json_decref(g->detail[i].extra);
	json_decref(g->pinned);
	json_decref(g->candidate);
	memset(g, 0, sizeof(*g));
}

static struct fsm_outcome_shape shape_of(const struct outcome *o)
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
static int input_facts(struct mctx *c, struct gathered *g, const char *now,
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
		if (run_machine(r).state == FSM_ST_PAUSED_DESTRUCTIVE && !run_request_verifies(req))
			f |= FSM_F(REQUEST_INVALID);
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

/* The projection data; the store wraps it as {"revision": N, "data": ...}. */
static char *projection_text(const struct run *r)
{
	json_t *data = run_status_json(r, 0, NULL, NULL);
	char *s = data ? sw_json_dump(data) : NULL;

	json_decref(data);
	return s;
}

/* Stores the contexts of the Actions `after` issued as materials, so the
 * event (which names them by digest) never precedes them; with `keep`,
 * also in *keep (digest -> text) for the reply. */
static int add_contexts(struct store_mutation *sm, struct run *after, json_t **keep,
			struct sw_error *err)
{
	json_t *contexts = run_take_contexts(after), *v;
	size_t i;
	int rc = 0;

	if (contexts == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot collect Action contexts");
	json_array_foreach(contexts, i, v) {
		const char *digest = json_string_value(json_array_get(v, 0));
		json_t *text = json_array_get(v, 1);

		if ((rc = store_mutation_add_material_named(sm, json_string_value(text),
							    json_string_length(text), digest, err)) < 0)
			break;
		if (keep != NULL && *keep == NULL && (*keep = json_object()) == NULL)
			continue;	/* the reply reads it back instead */
		if (keep != NULL)
			json_object_set(*keep, digest, text);
	}
	json_decref(contexts);
	return rc;
}

/* Adds the event (and the contexts it names) for `before` -> `after`;
 * *delta_out gets the event's data (new reference).  The caller sets the
 * projection. */
static int append_event(struct store_mutation *sm, const struct run *before,
			struct run *after, enum tbl_jevent type, size_t rule,
			json_t **keep, json_t **delta_out, struct sw_error *err)
{
	json_t *delta = run_delta(before, after, rule);
	char *data = delta ? sw_json_dump(delta) : NULL;
	int rc;

	*delta_out = NULL;
	if (data == NULL)
		rc = sw_error_set(err, SW_ENOMEM, "cannot encode the journal event");
	else if ((rc = add_contexts(sm, after, keep, err)) == 0 &&
		 (rc = store_mutation_add_event(sm, type, data,
						strlen(data), err)) == 0)
		*delta_out = json_incref(delta);
	sw_free(data);
	json_decref(delta);
	return rc;
}

/* ---- source refresh ---- */

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
	c->exit = fail_run(c->d, TBL_ERR_RUNTIME_ERROR, "out of memory", c->run);
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

/* Stores the refreshed snapshot's section payloads with the event. */
static int add_snapshot_materials(struct store_mutation *sm, const struct source_pinned *p,
				  struct sw_error *err)
{
	char digest[SW_DIGEST_LEN];
	int rc;

	for (size_t i = 0; p && i < p->n_sections; i++) {
		const struct source_section *sec = &p->sections[i];

		if ((rc = store_mutation_add_material(sm, sec->payload, sec->bytes, digest, err)) < 0)
			return rc;
		if (strcmp(digest, sec->material_sha256) != 0)
			return sw_error_set(err, SW_EINVAL, "material digest of section %s differs",
					    sec->key);
	}
	return 0;
}

static int mutate_visit(const struct store_event *ev, void *payload, struct sw_error *err)
{
	struct mctx *c = payload;
	json_t *data = NULL;
	int rc = replay_event(ev, &c->run, &data, err);

	if (rc < 0)
		return rc;
	rc = run_history_gather(c->history, ev->type, data, err);
	json_decref(data);
	return rc;
}

/* Adopts a verified checkpoint (store_update_resumable): the Run with its
 * frozen records and the gathered history.  1 refuses it. */
static int mutate_resume(struct store_checkpoint *cp, void *payload, struct sw_error *err)
{
	struct mctx *c = payload;
	struct sw_error e = SW_ERROR_INIT;
	struct run_history *h = NULL;
	struct run *r = NULL;
	char *extra = NULL;

	(void)err;
	if (run_from_checkpoint(&r, &extra, cp->body, cp->body_len, &cp->log, cp->log_len,
				&cp->projection_fd, cp->projection_len, &e) < 0)
		return 1;
	if (run_history_from_text(&h, extra, &e) < 0) {
		sw_free(extra);
		run_free(r);
		return 1;
	}
	sw_free(extra);
	run_history_free(c->history);
	c->history = h;
	c->run = r;
	c->resumed = 1;
	return 0;
}

/* run.json for `after` with its frozen records spliced in, and the replay
 * checkpoint of that state (its history gathered with `delta`). */
static int add_projection(struct mctx *c, struct store_mutation *sm, struct run *after,
			  enum tbl_jevent type, const json_t *delta, struct sw_error *err)
{
	char *extra = NULL;
	int rc;

	if ((rc = run_history_gather(c->history, type, delta, err)) < 0 ||
	    (rc = run_freeze(after, err)) < 0 ||
	    (rc = run_projection(&c->proj, after, store_mutation_base(sm) + 1, err)) < 0 ||
	    (rc = store_mutation_set_projection_pieces(sm, c->proj.piece, c->proj.npiece, err)) < 0 ||
	    (rc = add_list_summary(sm, after, err)) < 0)
		return rc;
	if ((extra = run_history_text(c->history)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot encode the checkpoint");
	rc = run_checkpoint(&c->checkpoint, after, &c->proj, extra, err);
	sw_free(extra);
	if (rc == 0)
		store_mutation_set_checkpoint(sm, c->checkpoint.body, c->checkpoint.body_len,
					      c->checkpoint.log, c->checkpoint.log_len,
					      c->checkpoint.log_base);
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

#ifdef SW_TESTING
/* Test builds check that the run.json a mutation wrote, with records
 * spliced in and copied from the old file, is the very bytes encoding its
 * Run whole gives (records parsed back), or abort as a defect. */
static void check_projection(struct svc *d, const struct svc_mutation *m)
{
	struct run_projection p = { 0 };
	struct sw_error e = SW_ERROR_INIT;
	struct run *whole = NULL;
	char *disk = NULL;
	size_t len = 0, off = 0;
	long long rev = -1;
	int same = 1;

	if (store_test_projection(d->store, m->run_id, &disk, &len) < 0 ||
	    sscanf(disk, "{\n  \"revision\": %lld,", &rev) != 1 ||
	    run_clone(&whole, m->run, &e) < 0 || run_thaw(whole, &e) < 0 ||
	    run_projection(&p, whole, rev, &e) < 0) {
		fprintf(stderr, "projection check: cannot read run.json back: %s\n", e.msg);
		abort();
	}
	for (size_t i = 0; same && i < p.npiece; i++) {
		same = p.piece[i].bytes && off + p.piece[i].len <= len &&
		       memcmp(disk + off, p.piece[i].bytes, p.piece[i].len) == 0;
		off += p.piece[i].len;
	}
	if (!same || off != len) {
		fprintf(stderr, "projection check: run.json is not the Run's encoding\n");
		abort();
	}
	run_projection_release(&p);
	run_free(whole);
	sw_free(disk);
}

/* Test builds check every adopted checkpoint against a full replay of the
 * journal: the record (frozen records parsed back) and the gathered
 * history must be equal, or the process aborts as a defect. */
static void check_resumed(struct mctx *c)
{
	struct mctx full = { .d = c->d, .m = c->m };
	struct sw_error e = SW_ERROR_INIT;
	struct run *a = NULL;
	char *x = NULL, *y = NULL;
	int same;

	if (run_history_new(&full.history, &e) < 0 ||
	    store_replay_unlocked(c->d->store, c->m->run_id, mutate_visit, &full, &e) < 0 ||
	    full.run == NULL || run_clone(&a, c->run, &e) < 0 || run_thaw(a, &e) < 0) {
		fprintf(stderr, "checkpoint check: cannot replay: %s\n", e.msg);
		abort();
	}
	x = run_history_text(c->history);
	y = run_history_text(full.history);
	same = run_equal(a, full.run) && x && y && strcmp(x, y) == 0;
	if (!same) {
		fprintf(stderr, "checkpoint check: the checkpoint differs from the journal\n");
		abort();
	}
	sw_free(x);
	sw_free(y);
	run_free(a);
	run_free(full.run);
	run_history_free(full.history);
}
#endif

/* A refusal: the row's code, with the message and extra fields of the
 * fact the row names (its `why` when none). */
static int reject(struct mctx *c, const struct gathered *g, struct sw_error *err)
{
	const struct fsm_rule *row = &tbl_rules[c->m->step.rule];
	const struct detail *dt = detail_of(g, row->detail);
	const char *msg = dt && dt->text[0] ? dt->text : row->why;

	c->exit = fail_run_ex(c->d, c->m->step.err, msg, c->run, dt ? dt->extra : NULL);
	return sw_error_set(err, SW_ECONFLICT, "%s", msg);
}

/* The one decision of a mutation: gather the facts, observe Git when the
 * tables ask for it, step once, then carry out what the row says. */
static int mutate_cb(struct store_mutation *sm, void *payload, struct sw_error *err)
{
	struct mctx *c = payload;
	struct svc_mutation *m = c->m;
	struct fsm_input in = { .event = m->event };
	struct run_effects fx = { 0 };
	struct git_now g = { 0 }, fin = { 0 };
	struct gathered gf = { 0 };
	struct run *after = NULL;
	const struct run_source_candidate *waiting;
	json_t *delta = NULL;
	char now[40], action_id[37], candidate_id[37];
	char answer_digest[SW_DIGEST_LEN] = "";
	struct fsm_run machine;
	int rc = 0;

	if (c->run == NULL)
		return sw_error_proto(err, TBL_ERR_RUNTIME_ERROR, "the run journal is empty");
	if ((rc = run_check(c->run, err)) < 0)
		return rc;
#ifdef SW_TESTING
	if (c->resumed)
		check_resumed(c);
#endif
	if ((rc = run_freeze(c->run, err)) < 0)
		return rc;
	if ((c->exit = check_workspace(c->d, c->run)) != 0)
		return sw_error_set(err, SW_ECONFLICT, "workspace mismatch");
	svc_now(now, sizeof(now));
	if (store_new_run_id(action_id, err) < 0 || store_new_run_id(candidate_id, err) < 0)
		return err->code;
	waiting = run_record(c->run)->source_candidate;
	gf.candidate_id = waiting ? waiting->candidate_id : candidate_id;
	if ((rc = input_facts(c, &gf, now, answer_digest, err)) < 0)
		goto out;
	machine = run_machine(c->run);
	in.facts = gf.facts;
	in.budget = m->budget;
	if (m->event == FSM_EV_SUBMIT)
		in.outcome = shape_of(m->outcome);
	/* Observing Git is costly: only when a row that can still match reads
	 * it, or the row that will match records it. */
	if (fsm_wants(&machine, &in) & tbl_facts_git) {
		observe_now(c->d, c->run, &g);
		in.facts |= g.ok ? (g.changed ? FSM_F(CHANGED) : 0) : FSM_F(GIT_FAILED);
	}
	m->step = fsm_step(&machine, &in);
	c->steps++;
	if (m->step.verdict == FSM_REJECT) {
		rc = reject(c, &gf, err);
		goto out;
	}
	if (m->step.ops & tbl_ops_final_git)
		observe_now(c->d, c->run, &fin);
	fx.now = now;
	fx.new_action_id = action_id;
	if (m->event == FSM_EV_SUBMIT) {
		fx.outcome = m->outcome_json;
		fx.outcome_sha256 = m->outcome->payload_sha256;
	}
	fx.answer_text = m->text;
	fx.confirm = m->confirm;
	fx.scope_sha256 = m->scope ? m->scope : "";
	fx.answer_sha256 = answer_digest;
	fx.observation = g.ok ? g.json : NULL;
	fx.observation_complete = g.ok && g.obs.content_observation_complete;
	fx.changed = g.ok ? g.changed : recorded_changed(c->run);
	fx.git_error = g.error;
	fx.final_observation = fin.ok ? fin.json : NULL;
	fx.final_changed = fin.changed;
	fx.final_error = fin.error;
	fx.candidate = gf.candidate;
	fx.pinned = gf.pinned;
	fx.candidate_id = gf.candidate_id;
	fx.choice = tbl_event_choice[m->event];
	fx.prior_receipt = gf.receipt;
	fx.prior_result = gf.result;
	if (m->step.verdict == FSM_IDEMPOTENT) {
		/* A replay answers with the Run as it is, shaped by the row's
		 * effects; nothing is written. */
		if ((rc = run_apply_replay(c->run, &m->step, &fx, err)) < 0)
			goto out;
		m->run = c->run;
		c->run = NULL;
		goto out;
	}
	if ((rc = run_clone(&after, c->run, err)) < 0 ||
	    (rc = run_apply(after, &m->step, &fx, err)) < 0)
		goto out;
	if ((m->step.ops & FSM_OP(SNAPSHOT)) &&
	    (rc = add_snapshot_materials(sm, m->refresh->snapshot, err)) < 0)
		goto out;
	if ((rc = append_event(sm, c->run, after, m->step.journal, m->step.rule, &c->d->contexts,
				 &delta, err)) < 0 ||
	    (rc = add_projection(c, sm, after, m->step.journal, delta, err)) < 0)
		goto out;
	c->apply_error = m->step.verdict == FSM_APPLY_ERROR;
	m->run = after;
	after = NULL;
out:
#ifdef SW_TESTING
	/* Every mutation that reached the table decided in one step. */
	if (c->steps > 1 || (rc == 0 && c->steps != 1)) {
		fprintf(stderr, "mutation: %u state machine steps, not one\n", c->steps);
		abort();
	}
#endif
	gathered_release(&gf);
	json_decref(delta);
	run_free(after);
	git_now_release(&g);
	git_now_release(&fin);
	return rc;
}

int svc_mutate(struct svc *d, struct svc_mutation *m)
{
	struct mctx c = { .d = d, .m = m };
	struct sw_error err = SW_ERROR_INIT;
	int rc;

	if (run_history_new(&c.history, &err) < 0) {
		rc = svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "out of memory", NULL, d->ws.worktree_root, NULL);
		goto done;
	}
	rc = store_update_resumable(d->store, m->run_id, mutate_resume, mutate_visit, mutate_cb,
				    &c, &err);
#ifdef SW_TESTING
	if (rc == 0 && c.proj.npiece > 0 && m->run != NULL)
		check_projection(d, m);
#endif
	if (c.exit != 0)
		rc = c.exit;
	else if (rc < 0)
		rc = fail_store(d, &err, m->run_id);
	else if (c.apply_error)
		rc = fail_run(d, m->step.err, tbl_rules[m->step.rule].why, m->run);
	else
		rc = 0;
done:
	run_free(c.run);
	run_history_free(c.history);
	run_projection_release(&c.proj);
	run_checkpoint_release(&c.checkpoint);
	return rc;
}

void svc_mutation_release(struct svc_mutation *m)
{
	run_free(m->run);
	m->run = NULL;
}

/* ---- start ---- */

struct sctx {
	struct run *run;
	const struct fsm_step *step;
	const struct source_pinned *source;
};

/* The section payloads go into the same mutation as the first event, so a
 * Run never exists without the material its Actions point at. */
static int create_cb(struct store_mutation *sm, void *payload, struct sw_error *err)
{
	struct sctx *c = payload;
	json_t *delta = NULL;
	char *proj = NULL;
	int rc = add_snapshot_materials(sm, c->source, err);

	if (rc < 0 ||
	    (rc = append_event(sm, NULL, c->run, c->step->journal, c->step->rule, NULL, &delta, err)) < 0)
		return rc;
	json_decref(delta);
	if ((proj = projection_text(c->run)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot encode the projection");
	rc = store_mutation_set_projection(sm, proj, strlen(proj), err);
	sw_free(proj);
	return rc < 0 ? rc : add_list_summary(sm, c->run, err);
}

int svc_start(struct svc *d, const char *goal, unsigned budget, int review,
		 const struct source_pinned *source, struct run **out)
{
	struct fsm_run fresh = { .state = FSM_ST_NEW };
	struct fsm_input in = { .event = FSM_EV_START, .budget = budget, .review = review,
				.issue_backed = source != NULL };
	struct sw_error err = SW_ERROR_INIT;
	struct vcs_observation obs = VCS_OBSERVATION_INIT;
	json_t *obs_json = NULL, *identity = NULL, *pinned = NULL;
	char id[37], action_id[37], now[40];
	struct run_start s = { 0 };
	struct run_effects fx = { 0 };
	struct fsm_step st;
	struct sctx c = { 0 };
	struct next *n = NULL;
	int rc = 0;

	*out = NULL;
	if (vcs_observe(&obs, &d->ws, NULL, &err) < 0 ||
	    (obs_json = vcs_observation_to_json(&obs)) == NULL) {
		in.facts |= FSM_F(GIT_FAILED);
	}
	st = fsm_step(&fresh, &in);
	if (st.verdict != FSM_APPLY) {
		next_build_start(&n, d->ws.id, d->ws.worktree_root, budget, !review, source != NULL,
				 &(struct sw_error)SW_ERROR_INIT);
		rc = svc_fail(st.err, 0, err.msg[0] ? err.msg : tbl_rules[st.rule].why, n,
			      d->ws.worktree_root, NULL);
		goto out;
	}
	if (store_new_run_id(id, &err) < 0 || store_new_run_id(action_id, &err) < 0 ||
	    (identity = vcs_identity_to_json(&d->ws)) == NULL ||
	    (source && source_pinned_to_json(&pinned, source, &err) < 0)) {
		rc = svc_fail(TBL_ERR_RUNTIME_ERROR, 0, err.msg[0] ? err.msg : "out of memory",
			      NULL, d->ws.worktree_root, NULL);
		goto out;
	}
	svc_now(now, sizeof(now));
	s.id = id;
	s.goal = goal;
	s.workspace = d->ws.worktree_root;
	s.identity = identity;
	s.initial_git = obs_json;
	s.now = now;
	s.pinned_source = pinned;
	fx.now = now;
	fx.new_action_id = action_id;
	if (run_create(&c.run, &s, &st, &fx, &err) < 0) {
		enum tbl_err code = err.proto;

		if (code == TBL_ERR_ACTION_TOO_LARGE)
			next_build_start(&n, d->ws.id, d->ws.worktree_root, budget, !review,
					 source != NULL, &(struct sw_error)SW_ERROR_INIT);
		rc = svc_fail(code ? code : TBL_ERR_RUNTIME_ERROR, code ? SVC_EXIT_RUNTIME : 0,
			      err.msg, n, d->ws.worktree_root, NULL);
		goto out;
	}
	c.step = &st;
	c.source = source;
	if (store_create(d->store, id, create_cb, &c, &err) < 0) {
		rc = fail_store(d, &err, NULL);
		goto out;
	}
	*out = c.run;
	c.run = NULL;
out:
	run_free(c.run);
	next_free(n);
	json_decref(identity);
	json_decref(pinned);
	json_decref(obs_json);
	vcs_observation_release(&obs);
	return rc;
}

/* ---- output ---- */

static char *read_context(const char *digest, void *payload);

struct context_reader {
	struct svc *d;
	const char *run_id;
	struct sw_error err;	/* why a context could not be read */
};

/* Every caller of svc_print_state has committed its mutation: when the
 * reply cannot be derived or written the change is still saved, so the
 * error says so and points at the Run instead of a blind retry. */
static int fail_committed_output(const struct svc *d, const char *run_id_arg,
				 const char *why)
{
	struct next *n = inspect_next(d, run_id_arg);
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

int svc_print_state(struct svc *d, const struct run *r, int human,
		       const char *headline, int with_facts, const char *resume_operation)
{
	struct context_reader cr = { d, run_id(r), SW_ERROR_INIT };
	const struct run_record *rec = run_record(r);
	struct next *n = svc_run_next(r, 0);
	json_t *doc = NULL;
	const char *why = "out of memory";
	int rc = SVC_EXIT_OK;

	if (n == NULL)
		return fail_committed_output(d, run_id(r), "cannot derive the next operation");
	if (!human) {
		doc = json_pack("{s:i, s:s, s:s}", "contract_version", 2, "run_id", run_id(r),
				"state", tbl_runstate_wire[rec->state]);
		if (doc == NULL)
			goto fail;
		if (rec->pause_reason != FSM_PAUSE_NONE)
			json_object_set_new(doc, "pause_reason",
					    json_string(tbl_pause_wire[rec->pause_reason]));
		if (rec->summary)
			json_object_set_new(doc, "summary", json_string(rec->summary));
		if (rec->current_action) {
			json_t *full = run_current_action_full(r, read_context, &cr);

			if (full == NULL) {
				json_decref(doc);
				why = "cannot read the current Action's context";
				goto fail;
			}
			json_object_set_new(doc, "action", full);
		}
		json_object_set_new(doc, "next", next_to_json(n));
		if (run_reply_fields(doc, r, RUN_REPLY_PINNED_SOURCE | RUN_REPLY_SOURCE_CANDIDATE,
				     &cr.err) < 0) {
			json_decref(doc);
			goto fail;
		}
		if (resume_operation) {
			/* The Run's own resume result says what happened (a
			 * candidate costs no budget; a replayed choice answers as
			 * it did). */
			const struct run_resume_result *res = rec->last_resume_result;

			json_object_set_new(doc, "resume_operation",
					    json_string(res ? res->operation : resume_operation));
			json_object_set_new(doc, "budget_applied",
					    json_boolean(res ? res->budget_applied : 1));
		}
		if (svc_print_json(doc) < 0)
			rc = fail_committed_output(d, run_id(r), "cannot write to standard output");
	} else {
		char *choices = NULL;
		struct sw_error err = SW_ERROR_INIT;
		const struct run_action *cur = rec->current_action;

		fprintf(svc_out(), "%s\n", headline);
		if (with_facts) {
			fprintf(svc_out(), "State: %s\nGoal: %s\nBudget remaining: %lld\n",
			       tbl_runstate_wire[rec->state], rec->goal, rec->remaining_budget);
			if (cur)
				fprintf(svc_out(), "Current action: %s (%s)\n", tbl_kind_wire[cur->kind],
				       cur->action_id);
			else
				fprintf(svc_out(), "Current action: none\n");
		}
		if (render_next_choices(&choices, n, RENDER_SHELL_NATIVE, getenv("SystemRoot"), &err) == 0 &&
		    choices && choices[0])
			fputs(choices, svc_out());
		sw_free(choices);
		if (fflush(svc_out()) == EOF)
			rc = fail_committed_output(d, run_id(r), "cannot write to standard output");
	}
	json_decref(doc);
	next_free(n);
	return rc;
fail:
	next_free(n);
	return fail_committed_output(d, run_id(r), why);
}

/* ---- listing ---- */

struct header_ctx {
	int read;		/* event 1 is a run_started event */
	struct run *run;	/* the Run it starts, checked; NULL when it
				 * does not replay or check */
};

static int header_visit(const struct store_event *ev, void *payload, struct sw_error *err)
{
	struct header_ctx *h = payload;
	struct sw_error local = SW_ERROR_INIT;
	json_t *data = json_loadb(ev->data, ev->data_len, JSON_REJECT_DUPLICATES, NULL);

	if (data == NULL || ev->type != TBL_JEVENT_RUN_STARTED ||
	    !json_is_object(json_object_get(data, "initialize"))) {
		json_decref(data);
		return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID, "the first record is not run_started");
	}
	h->read = 1;
	if (run_replay(&h->run, tbl_jevent_wire[ev->type], data, &local) < 0 ||
	    run_check(h->run, &local) < 0) {
		run_free(h->run);
		h->run = NULL;
	}
	json_decref(data);
	return 0;
}

/* The nanoseconds of an RFC3339Nano UTC time's fraction ("" -> 0). */
static long fraction_ns(const char *t)
{
	const char *dot = strchr(t, '.');
	long ns = 0;
	int digits = 0;

	if (dot == NULL)
		return 0;
	for (const char *p = dot + 1; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
		ns = ns * 10 + (*p - '0');
	for (; digits < 9; digits++)
		ns *= 10;
	return ns;
}

/* created_at order, then id.  Our times are UTC with trimmed fractions, so
 * compare the seconds as text and the fractions as numbers. */
static int by_creation(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	const char *tx = jstr(x, "created_at") ? jstr(x, "created_at") : "";
	const char *ty = jstr(y, "created_at") ? jstr(y, "created_at") : "";
	int c = strncmp(tx, ty, 19);

	if (c == 0) {
		long fx = fraction_ns(tx), fy = fraction_ns(ty);

		c = (fx > fy) - (fx < fy);
	}
	return c ? c : strcmp(jstr(x, "id"), jstr(y, "id"));
}

static void sort_runs(json_t *runs)
{
	size_t n = json_array_size(runs);
	json_t **v = sw_calloc(n ? n : 1, sizeof(*v));

	if (v == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(runs, i));
	qsort(v, n, sizeof(*v), by_creation);
	json_array_clear(runs);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(runs, v[i]);
	sw_free(v);
}

/* Reads back the context of `action` (or NULL), as the runStatus would to
 * inline it; the bytes are dropped. */
static int context_readable(struct context_reader *cr, const struct run_action *action)
{
	const char *digest = action ? action->context_sha256 : NULL;
	char *text;

	if (digest == NULL)
		return 0;
	if ((text = read_context(digest, cr)) == NULL)
		return -1;
	sw_free(text);
	return 0;
}

/* The fields the human listing prints, from a Run's record (new
 * reference, or NULL on ENOMEM). */
static json_t *brief_entry(const struct run_record *rec)
{
	return json_pack("{s:s, s:s, s:I, s:s, s:s}", "id", rec->id,
			 "state", tbl_runstate_wire[rec->state],
			 "remaining_budget", (json_int_t)rec->remaining_budget,
			 "goal", rec->goal, "created_at", rec->created_at);
}

/* The listing entry of a local Run: its runStatus, or with `brief` only
 * the fields the human listing prints, after reading back every context
 * the runStatus would inline, so that a Run is unavailable in both
 * listings alike.  NULL with `err` set on failure. */
static json_t *list_entry(struct svc *d, const struct run *r, int brief, struct sw_error *err)
{
	struct context_reader cr = { d, run_id(r), SW_ERROR_INIT };
	const struct run_record *rec = run_record(r);
	json_t *e;
	int rc;

	if (!brief)
		return svc_status_json(d, r, err);
	rc = context_readable(&cr, rec->current_action);
	for (size_t i = 0; i < rec->n_actions && rc == 0; i++)
		rc = context_readable(&cr, &rec->actions[i].action);
	if (rc < 0) {
		sw_error_set(err, cr.err.code ? cr.err.code : SW_ENOMEM,
			     "the current Action's context cannot be read from the run's materials: %s",
			     cr.err.msg);
		return NULL;
	}
	if ((e = brief_entry(rec)) == NULL)
		sw_error_set(err, SW_ENOMEM, "out of memory");
	return e;
}

/* The listing summary of `r` (store_mutation_set_summary), written with
 * each mutation: the Run's workspace id, a newline, and its brief listing
 * entry.  It stands for the replay and the context reads of list_entry
 * only while the journal and the materials are what they were then. */
static int add_list_summary(struct store_mutation *sm, const struct run *r,
			    struct sw_error *err)
{
	const char *wid = run_record(r)->workspace_identity.id;
	json_t *e = brief_entry(run_record(r));
	char *text = e ? json_dumps(e, JSON_COMPACT) : NULL;
	struct sw_buf b = SW_BUF_INIT;
	int rc = 0;

	json_decref(e);
	if (wid != NULL && text != NULL) {
		sw_buf_fmt(&b, "%s\n%s", wid, text);
		rc = b.failed ? sw_error_set(err, SW_ENOMEM, "cannot encode the listing summary")
			      : store_mutation_set_summary(sm, b.p, b.len, err);
	}
	sw_buf_release(&b);
	sw_free(text);
	return rc;
}

/* The brief entry of run `id` from its listing summary, when the summary
 * still holds and names this workspace and this Run; NULL otherwise. */
static json_t *summary_entry(struct svc *d, const char *id)
{
	json_t *e = NULL;
	char *body = NULL, *nl;
	size_t len = 0;

	if (store_read_summary(&body, &len, d->store, id) == 1 &&
	    (nl = memchr(body, '\n', len)) != NULL) {
		*nl = '\0';
		if (strcmp(body, d->ws.id) == 0)
			e = json_loadb(nl + 1, len - (size_t)(nl + 1 - body), JSON_REJECT_DUPLICATES, NULL);
		if (!json_is_object(e) || jstr(e, "id") == NULL || strcmp(jstr(e, "id"), id) != 0) {
			json_decref(e);
			e = NULL;
		}
	}
	sw_free(body);
	return e;
}

/* Another worktree's Run, as its first record shows it: a stub pointing
 * there. */
static json_t *foreign_stub(const struct run *first, const char *id, const char *ws_id)
{
	const struct run_record *rec = run_record(first);
	const struct run_workspace_identity *pid = &rec->workspace_identity;
	struct sw_error err = SW_ERROR_INIT;
	struct next_fill fill = { .run_id = id };
	struct next *nx = NULL;
	json_t *entry;

	if (next_build_form(&nx, NEXT_FORM_FOREIGN_RUN, pid->id, pid->worktree_root, &fill,
			    &err) < 0)
		next_none_identity(&nx, pid->id ? pid->id : ws_id, &err);
	/* The reference encodes the stub from a map: keys sorted. */
	entry = json_pack("{s:i, s:s, s:s, s:s, s:o, s:s, s:s, s:b}", "contract_version", 2,
			  "created_at", rec->created_at, "goal", rec->goal, "id", rec->id,
			  "next", next_to_json(nx), "state", tbl_runstate_wire[rec->state],
			  "workspace", rec->workspace, "workspace_foreign", 1);
	next_free(nx);
	if (entry && run_reply_fields(entry, first, RUN_REPLY_WORKSPACE_IDENTITY, &err) < 0) {
		json_decref(entry);
		entry = NULL;
	}
	return entry;
}

int svc_list(struct svc *d, struct svc_listing *out, int brief)
{
	struct sw_error err = SW_ERROR_INIT;
	char **ids = NULL;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->runs = json_array();
	out->unavailable = json_array();
	if (out->runs == NULL || out->unavailable == NULL)
		return svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "out of memory", NULL, d->ws.worktree_root, NULL);
	if (store_list(&ids, &n, d->store, &err) < 0)
		return fail_store(d, &err, NULL);
	for (size_t i = 0; i < n; i++) {
		struct header_ctx h = { 0 };
		struct run *r = NULL;
		enum tbl_err code = TBL_ERR_NONE;
		json_t *entry = NULL;

		sw_error_clear(&err);
		if (brief && (entry = summary_entry(d, ids[i])) != NULL)
			goto add;
		/* A local Run that replays is listed from that one replay; a
		 * foreign one, or one that does not replay, is told apart by
		 * its first record below. */
		if (svc_load(d, ids[i], &r, 1, &code) == 0 &&
		    strcmp(run_record(r)->workspace_identity.id, d->ws.id) == 0) {
			entry = list_entry(d, r, brief, &err);
			goto add;
		}
		run_free(r);
		r = NULL;
		if (store_first_event(d->store, ids[i], header_visit, &h, &err) < 0 || !h.read) {
			json_array_append_new(out->unavailable,
					      json_pack("{s:s, s:s, s:s}", "id", ids[i], "code",
							unavailable_code(&err), "detail",
							err.msg[0] ? err.msg : "the run header cannot be read"));
			run_free(h.run);
			continue;
		}
		/* A first record that does not check is this worktree's to
		 * report as unavailable (below). */
		if (h.run && strcmp(run_record(h.run)->workspace_identity.id, d->ws.id) != 0) {
			entry = foreign_stub(h.run, ids[i], d->ws.id);
			if (entry)
				json_array_append_new(out->runs, entry);
			run_free(h.run);
			continue;
		}
		run_free(h.run);
		if (svc_load(d, ids[i], &r, 1, &code) != 0) {
			/* run_unavailable names an unreadable directory in the
			 * list; it is no error code of its own. */
			const int unreadable = code == TBL_ERR_RUNSTORE_UNAVAILABLE;
			const char *wire = unreadable ? "run_unavailable"
					   : tbl_err_wire[code == TBL_ERR_RUN_BUSY
							  ? TBL_ERR_RUN_BUSY
							  : TBL_ERR_RUN_JOURNAL_INVALID];

			json_array_append_new(out->unavailable,
					      json_pack("{s:s, s:s, s:s}", "id", ids[i], "code", wire,
							"detail", unreadable
							? "the run directory cannot be read (see slipway doctor)"
							: "the run journal cannot be replayed"));
			continue;
		}
		entry = list_entry(d, r, brief, &err);
add:
		if (entry)
			json_array_append_new(out->runs, entry);
		else	/* listed, never dropped: say why it cannot be shown */
			json_array_append_new(out->unavailable,
					      json_pack("{s:s, s:s, s:s}", "id", ids[i], "code",
							"run_unavailable", "detail", err.msg));
		run_free(r);
	}
	store_list_free(ids, n);
	sort_runs(out->runs);
	return 0;
}

void svc_listing_release(struct svc_listing *l)
{
	json_decref(l->runs);
	json_decref(l->unavailable);
	l->runs = l->unavailable = NULL;
}

/* A context this operation stored, or read back from the run's materials. */
static char *read_context(const char *digest, void *payload)
{
	struct context_reader *cr = payload;
	json_t *kept = json_object_get(cr->d->contexts, digest);
	void *bytes = NULL;
	size_t len = 0;
	char *text;

	if (kept != NULL)
		return sw_strndup(json_string_value(kept), json_string_length(kept));
	if (store_read_material(&bytes, &len, cr->d->store, cr->run_id, digest, &cr->err) < 0)
		return NULL;
	text = sw_strndup(bytes, len);
	sw_free(bytes);
	return text;
}

json_t *svc_status_json(struct svc *d, const struct run *r, struct sw_error *err)
{
	struct context_reader cr = { d, run_id(r), SW_ERROR_INIT };
	json_t *doc = run_status_json(r, 1, read_context, &cr);
	struct next *n = svc_run_next(r, 0);

	if (doc == NULL || n == NULL ||
	    json_object_set_new(doc, "next", next_to_json(n)) < 0) {
		json_decref(doc);
		doc = NULL;
		if (cr.err.code != SW_OK)
			sw_error_set(err, cr.err.code, "the current Action's context cannot be "
				     "read from the run's materials: %s", cr.err.msg);
		else
			sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	next_free(n);
	return doc;
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

/* ---- material ---- */

static int key_valid(const char *k)
{
	size_t n = strlen(k);

	if (n == 0 || n > 64 || !((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= '0' && k[0] <= '9')))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') ||
		      k[i] == '.' || k[i] == '_' || k[i] == '-'))
			return 0;
	return 1;
}

/* A material failure: cliError with the inspect-run recovery. */
static int fail_material(const struct svc *d, const char *run_id_arg, enum tbl_err code,
			 const char *msg)
{
	struct next *n = inspect_next(d, run_id_arg);
	int rc = svc_fail(code, 0, msg, n, NULL, NULL);

	next_free(n);
	return rc;
}

/* framed("slipway-section/v2", key, role, title, payload). */
static int section_revision(char out[SW_DIGEST_LEN], const struct run_section *sec,
			    const void *payload, size_t len)
{
	const char *const fields[] = { sec->key, sec->role, sec->title };
	struct sw_error err = SW_ERROR_INIT;
	struct sw_sha256 *h = NULL;

	if (sw_sha256_new(&h, &err) < 0)
		return -1;
	sw_sha256_field(h, "slipway-section/v2", strlen("slipway-section/v2"));
	for (size_t i = 0; i < 3; i++)
		sw_sha256_field(h, fields[i], strlen(fields[i]));
	sw_sha256_field(h, payload, len);
	sw_sha256_final_prefixed(h, out);
	return 0;
}

/* Reads and checks the material of catalog entry `sec` (a requirements
 * section or a pinned section: both carry key, role, title,
 * section_revision, material_sha256, bytes).  On success *out holds the
 * Markdown (NUL-terminated, caller frees); otherwise the cliError is
 * written and its exit status returned. */
static int read_section(const struct svc *d, const struct run *r, const struct run_section *sec,
			char **out)
{
	struct sw_error err = SW_ERROR_INIT;
	const char *digest = sec->material_sha256;
	char rev[SW_DIGEST_LEN], msg[700];
	void *data = NULL;
	size_t len = 0;
	char *text;

	*out = NULL;
	if (!sw_digest_valid(digest))
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_UNAVAILABLE,
				     "the section has no valid pinned material reference");
	if (store_read_material(&data, &len, d->store, run_id(r), digest, &err) < 0) {
		snprintf(msg, sizeof(msg), "pinned material cannot be read or verified: %s", err.msg);
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_UNAVAILABLE, msg);
	}
	if ((long long)len != sec->bytes) {
		sw_free(data);
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_CORRUPT,
				     "pinned material byte count differs from the catalog");
	}
	if (section_revision(rev, sec, data, len) < 0 ||
	    (text = sw_malloc(len + 1)) == NULL) {
		sw_free(data);
		return svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "out of memory", NULL, NULL, NULL);
	}
	if (strcmp(rev, sec->section_revision) != 0) {
		sw_free(data);
		sw_free(text);
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_CORRUPT,
				     "pinned material does not match the section revision");
	}
	memcpy(text, data, len);
	text[len] = '\0';
	sw_free(data);
	*out = text;
	return 0;
}

static json_t *section_json(const struct run_section *sec, const char *markdown)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "key", sec->key, "role", sec->role,
			 "title", sec->title, "section_revision", sec->section_revision,
			 "markdown", markdown);
}

/* status RUN --section KEY: the pinned chapter, in any Run state. */
static int pinned_material(struct svc *d, const struct run *r, const char *section,
			   int human)
{
	const struct run_record *rec = run_record(r);
	const struct run_pinned_source *pinned = rec->pinned_source;
	const struct run_section *sec;
	char *markdown = NULL;
	json_t *doc = NULL;
	int rc;

	if (pinned == NULL)
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_UNAVAILABLE,
				     "an ad-hoc Run pins no source");
	if ((sec = run_section_find(pinned->sections, pinned->n_sections, section)) == NULL) {
		char msg[200];

		snprintf(msg, sizeof(msg), "the Run pins no section \"%s\"", section);
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_SECTION_NOT_FOUND, msg);
	}
	if ((rc = read_section(d, r, sec, &markdown)) != 0)
		return rc;
	if (human) {
		/* Say plainly that this is an inspection, not an Action. */
		fprintf(svc_out(), "Run %s (%s): pinned section \"%s\", role %s.\n"
		       "Section revision: %s\nRequirements revision: %s\n"
		       "Pinned text for reading only; it authorizes no work.\n\n# %s\n\n%s",
		       run_id(r), tbl_runstate_wire[rec->state], sec->key, sec->role,
		       sec->section_revision, pinned->requirements_revision, sec->title, markdown);
		rc = fflush(svc_out()) == EOF ? SVC_EXIT_DEFECT : 0;
	} else {
		doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:o}", "contract_version", 2,
				"message_type", "pinned_material", "run_id", run_id(r),
				"run_state", tbl_runstate_wire[rec->state],
				"source_revision", pinned->source_revision,
				"requirements_revision", pinned->requirements_revision,
				"section", section_json(sec, markdown));
		rc = doc == NULL || svc_print_json(doc) < 0 ? SVC_EXIT_DEFECT : 0;
	}
	json_decref(doc);
	sw_free(markdown);
	return rc;
}

int svc_material(struct svc *d, const char *run_id_arg, const char *action_id,
		    const char *section, int human)
{
	const struct run_action_record *rec;
	const struct run_requirements *reqs;
	const struct run_section *sec;
	const char *out_status;
	enum fsm_runstate state;
	struct run *r = NULL;
	char *markdown = NULL, msg[300];
	json_t *doc = NULL;
	int rc;

	if (!key_valid(section))
		return fail_material(d, run_id_arg, TBL_ERR_MATERIAL_SECTION_INVALID,
				     "section must match ^[a-z0-9][a-z0-9._-]{0,63}$");
	if ((rc = svc_load(d, run_id_arg, &r, 0, NULL)) != 0)
		return rc;
	if (action_id == NULL) {
		rc = pinned_material(d, r, section, human);
		goto out;
	}
	if ((rec = run_record_action(run_record(r), action_id)) == NULL) {
		rc = fail_material(d, run_id_arg, TBL_ERR_MATERIAL_ACTION_NOT_FOUND,
				   "action_id is not an Action of this run");
		goto out;
	}
	state = run_record(r)->state;
	out_status = rec->outcome ? rec->outcome->status : NULL;
	if (state == FSM_RUN_STOPPED || state == FSM_RUN_ENDED ||
	    run_current_action_id(r) == NULL ||
	    strcmp(run_current_action_id(r), action_id) != 0 || rec->voided ||
	    (out_status && strcmp(out_status, "needs_input") != 0)) {
		rc = fail_run(d, TBL_ERR_MATERIAL_ACTION_STALE,
			      "material is readable only for the current Action", r);
		goto out;
	}
	reqs = rec->action.requirements;
	if (reqs == NULL || !rec->action.has_source) {
		rc = fail_material(d, run_id_arg, TBL_ERR_MATERIAL_UNAVAILABLE,
				   "this Run pins no source: an ad-hoc Action has no material");
		goto out;
	}
	if ((sec = run_section_find(reqs->sections, reqs->n_sections, section)) == NULL) {
		snprintf(msg, sizeof(msg), "the Action's catalog has no section \"%s\"", section);
		rc = fail_material(d, run_id_arg, TBL_ERR_MATERIAL_SECTION_NOT_FOUND, msg);
		goto out;
	}
	if ((rc = read_section(d, r, sec, &markdown)) != 0)
		goto out;
	doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:o}", "contract_version", 2,
			"message_type", "action_material", "run_id", run_id(r),
			"action_id", action_id,
			"requirements_revision", reqs->requirements_revision,
			"section", section_json(sec, markdown));
	if (doc == NULL || svc_print_json(doc) < 0)
		rc = fail_material(d, run_id_arg, TBL_ERR_RUNTIME_ERROR,
				   "cannot write the action material to standard output");
out:
	json_decref(doc);
	sw_free(markdown);
	run_free(r);
	return rc;
}
