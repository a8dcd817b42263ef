/* The mutation driver: one fsm_step per operation under the store's lock,
 * its effects applied and its event journaled; and the start of a Run. */

#include "service/internal.h"

#include <string.h>

#include "service/emit.h"
#include "service/report.h"
#include "io/report/report.h"
#include "io/util/json.h"
#include "io/wire/outcome.h"
#include "io/store/run_check.h"
#include "io/store/run_record.h"
#include "io/source/source_json.h"

const char *svc_resume_operation(enum fsm_event ev)
{
	return tbl_jevent_resume_op[tbl_event_journal[ev]];
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
	int rc = svc__replay_event(ev, &c->run, &data, err);

	if (rc < 0)
		return rc;
	rc = run_history_gather(c->history, ev->type, data, err);
	json_decref(data);
	return rc;
}

/* A checkpoint's service text: the line INDEX_SEEN_TAG and the text of
 * mctx.index_seen, when one is kept, then the gathered history. */
#define INDEX_SEEN_TAG "observed-index/1 "

static char *checkpoint_extra(const struct mctx *c)
{
	char id[VCS_INDEX_ID_TEXT_MAX], *hist = run_history_text(c->history), *text;

	if (hist == NULL || vcs_index_id_text(&c->index_seen, id) < 0)
		return hist;
	text = sw_asprintf("%s%s\n%s", INDEX_SEEN_TAG, id, hist);
	sw_free(hist);
	return text;
}

/* Adopts a verified checkpoint (store_update_resumable): the Run with its
 * frozen records, the gathered history and the index last observed.  1
 * refuses it. */
static int mutate_resume(struct store_checkpoint *cp, void *payload, struct sw_error *err)
{
	struct mctx *c = payload;
	struct sw_error e = SW_ERROR_INIT;
	struct vcs_index_id seen = { 0 };
	struct run_history *h = NULL;
	struct run *r = NULL;
	char *extra = NULL;
	const char *hist;

	(void)err;
	if (run_from_checkpoint(&r, &extra, cp->body, cp->body_len, &cp->log, cp->log_len,
				&cp->projection_fd, cp->projection_len, &e) < 0)
		return 1;
	hist = extra;
	if (strncmp(hist, INDEX_SEEN_TAG, strlen(INDEX_SEEN_TAG)) == 0) {
		const char *id = hist + strlen(INDEX_SEEN_TAG), *nl = strchr(id, '\n');

		if (nl == NULL || vcs_index_id_parse(&seen, id, (size_t)(nl - id)) < 0)
			hist = NULL;
		else
			hist = nl + 1;
	}
	if (hist == NULL || run_history_from_text(&h, hist, &e) < 0) {
		sw_free(extra);
		run_free(r);
		return 1;
	}
	sw_free(extra);
	run_history_free(c->history);
	c->history = h;
	c->run = r;
	c->resumed = 1;
	c->index_seen = seen;
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
	    (rc = svc__add_list_summary(sm, after, err)) < 0)
		return rc;
	if ((extra = checkpoint_extra(c)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot encode the checkpoint");
	rc = run_checkpoint(&c->checkpoint, after, &c->proj, extra, err);
	sw_free(extra);
	if (rc == 0)
		store_mutation_set_checkpoint(sm, c->checkpoint.body, c->checkpoint.body_len,
					      c->checkpoint.log, c->checkpoint.log_len,
					      c->checkpoint.log_base);
	return rc;
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
	const struct detail *dt = svc__detail_of(g, row->detail);
	const char *msg = dt && dt->text[0] ? dt->text : row->why;

	c->exit = svc__fail_run_ex(c->d, c->m->step.err, msg, c->run, dt ? dt->extra : NULL);
	return sw_error_set(err, SW_ECONFLICT, "%s", msg);
}

/* The reply to a mutation shows the current Action of the Run it leaves
 * (svc_print_state), context included: when that context was stored
 * earlier and can no longer be read back from materials/, the mutation is
 * refused before anything is written (material_unavailable), rather than
 * committed with a reply it cannot give.  Nothing else needs the
 * materials of earlier Actions. */
static int reply_readable(struct mctx *c, const struct run *r, struct sw_error *err)
{
	const struct run_action *cur = run_record(r)->current_action;
	struct context_reader cr = { c->d, run_id(r), SW_ERROR_INIT, NULL };
	char *text, *msg;

	if (cur == NULL || cur->context_sha256 == NULL)
		return 0;
	if ((text = svc__read_context(cur->context_sha256, &cr)) != NULL) {
		sw_free(text);
		return 0;
	}
	if (cr.err.code == SW_ENOMEM ||
	    (msg = sw_asprintf("the reply would show the current Action %s, whose context (material "
			       "%s) cannot be read back: %s; nothing was changed", cur->action_id,
			       cur->context_sha256, cr.err.msg)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	c->exit = svc__fail_run(c->d, TBL_ERR_MATERIAL_UNAVAILABLE, msg, c->run);
	sw_error_set(err, SW_ECONFLICT, "%s", msg);
	sw_free(msg);
	return err->code;
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
	struct sw_owned installed = { 0 };
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
	if (svc__misnamed(c->run, m->run_id, err)) {
		/* Before any change, and with the code status and material
		 * give the same directory (svc_load): the journal names
		 * another Run.  (The reference's mutations say runtime_error,
		 * its catch-all; one code for one fact is the honest answer.) */
		c->exit = svc__fail_load(c->d, TBL_ERR_RUN_JOURNAL_INVALID, err->msg, m->run_id);
		return err->code;
	}
#ifdef SW_TESTING
	if (c->resumed)
		check_resumed(c);
#endif
	if ((rc = run_freeze(c->run, err)) < 0)
		return rc;
	if ((c->exit = svc__check_workspace(c->d, c->run)) != 0)
		return sw_error_set(err, SW_ECONFLICT, "workspace mismatch");
	svc_now(now, sizeof(now));
	if (store_new_run_id(action_id, err) < 0 || store_new_run_id(candidate_id, err) < 0)
		return err->code;
	waiting = run_record(c->run)->source_candidate;
	gf.candidate_id = waiting ? waiting->candidate_id : candidate_id;
	if ((rc = svc__input_facts(c, &gf, now, answer_digest, err)) < 0)
		goto out;
	machine = run_machine(c->run);
	in.facts = gf.facts;
	in.budget = m->budget;
	if (m->event == FSM_EV_SUBMIT)
		in.outcome = svc__shape_of(m->outcome);
	/* Observing Git is costly: only when a row that can still match reads
	 * it, or the row that will match records it. */
	if (fsm_wants(&machine, &in) & tbl_facts_git) {
		svc__observe_now(c->d, c->run, &g, &c->index_seen);
		in.facts |= g.ok ? (g.changed ? FSM_F(CHANGED) : 0) : FSM_F(GIT_FAILED);
	}
	m->step = fsm_step(&machine, &in);
	c->steps++;
	if (m->step.verdict == FSM_REJECT) {
		rc = reject(c, &gf, err);
		goto out;
	}
	if (m->step.ops & tbl_ops_final_git)
		svc__observe_now(c->d, c->run, &fin, &c->index_seen);
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
	fx.changed = g.ok ? g.changed : svc__recorded_changed(c->run);
	fx.git_error = g.error;
	fx.final_observation = fin.ok ? fin.json : NULL;
	fx.final_changed = fin.changed;
	fx.final_error = fin.error;
	fx.summarize = report_summary;
	/* The summary of a Run that ends tells its history. */
	if (m->step.ops & (FSM_OP(END) | FSM_OP(END_SKIPPED)))
		fx.events = run_history_events(c->history, &fx.n_events);
	fx.candidate = gf.candidate;
	fx.pinned = gf.pinned;
	fx.candidate_id = gf.candidate_id;
	fx.choice = tbl_event_choice[m->event];
	fx.prior_receipt = gf.receipt;
	fx.prior_result = gf.result;
	if ((rc = svc_report_installed(&installed, c->d, &m->step, err)) < 0)
		goto out;
	fx.installed = &installed;
	if (m->step.verdict == FSM_IDEMPOTENT) {
		/* A replay answers with the Run as it is, shaped by the row's
		 * effects; nothing is written. */
		if ((rc = run_apply_replay(c->run, &m->step, &fx, err)) < 0 ||
		    (rc = reply_readable(c, c->run, err)) < 0)
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
	    (rc = add_projection(c, sm, after, m->step.journal, delta, err)) < 0 ||
	    (rc = reply_readable(c, after, err)) < 0)
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
	svc__gathered_release(&gf);
	sw_owned_release(&installed);
	json_decref(delta);
	run_free(after);
	svc__git_now_release(&g);
	svc__git_now_release(&fin);
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
		rc = svc__fail_store(d, &err, m->run_id);
	else if (c.apply_error)
		rc = svc__fail_run(d, m->step.err, tbl_rules[m->step.rule].why, m->run);
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
	return rc < 0 ? rc : svc__add_list_summary(sm, c->run, err);
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
	fx.summarize = report_summary;
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
		rc = svc__fail_store(d, &err, NULL);
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
