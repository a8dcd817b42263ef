/* The Run record: effects of each decision, replay of the journal deltas,
 * and the printed documents against the reference schema. */

#include <criterion/criterion.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/report/report.h"
#include "io/store/journal.h"
#include "io/util/json.h"
#include "io/wire/next.h"
#include "io/store/run.h"
#include "io/store/run_codec.h"
#include "tests/support/schema.h"
#include "tests/support/tmp.h"

#define ID0 "00000000-0000-4000-8000-000000000000"
#define DIGEST_A "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST_B "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

struct harness {
	int freeze;		/* keep the records frozen, as the driver does */
	struct run *run;
	json_t *journal;	/* [[type, data], ...] */
	json_t *obs_clean, *obs_dirty, *identity;
	unsigned next_id;
	char action_id[40];
};

static json_t *observation(int dirty)
{
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:b, s:b, s:i, s:i, s:b, s:b, s:[], s:[]}",
			      "version", 1, "head", "0123456789abcdef0123456789abcdef01234567",
			      "index_fingerprint", DIGEST_A, "status_fingerprint", dirty ? DIGEST_B : DIGEST_A,
			      "snapshot_hash", dirty ? DIGEST_B : DIGEST_A, "path_count", dirty,
			      "path_fingerprint", DIGEST_A, "details_truncated", 0,
			      "content_observation_complete", 1, "content_bytes_hashed", 0,
			      "content_byte_limit", 67108864, "content_byte_limit_exceeded", 0,
			      "content_deadline_exceeded", 0, "dirty_files", "path_observations");

	if (dirty) {
		json_array_append_new(json_object_get(o, "dirty_files"), json_string("a.c"));
		json_array_append_new(json_object_get(o, "path_observations"),
				      json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:s, s:s}",
						"path", "a.c", "category", "ordinary", "state", ".M",
						"observation", "regular", "size", 3,
						
						"modified_unix_nano", (json_int_t)1700000000000000000LL,
						"content_sha256", DIGEST_B,
						"content_fingerprint_kind", "full_sha256"));
	}
	return o;
}

static const char *new_id(struct harness *h)
{
	snprintf(h->action_id, sizeof(h->action_id), "00000000-0000-4000-8000-%012u", ++h->next_id);
	return h->action_id;
}

/* The store's side of Action contexts: every context a Run issued, by
 * digest (reachable from here, so not a leak). */
static json_t *blob_store;
static json_t *current_cache;

static void absorb_contexts(struct run *r)
{
	json_t *taken = run_take_contexts(r), *v;
	char digest[SW_DIGEST_LEN];
	size_t i;

	cr_assert_not_null(taken);
	if (blob_store == NULL)
		blob_store = json_object();
	/* Each is [digest, text], the digest the text's own. */
	json_array_foreach(taken, i, v) {
		const char *text = json_string_value(json_array_get(v, 1));

		cr_assert_not_null(text);
		sw_material_digest(digest, text, strlen(text), NULL);
		cr_assert_str_eq(json_string_value(json_array_get(v, 0)), digest);
		json_object_set(blob_store, digest, json_array_get(v, 1));
	}
	json_decref(taken);
}

static char *resolve_context(const char *digest, void *payload)
{
	const char *text = json_string_value(json_object_get(blob_store, digest));

	(void)payload;
	return text ? strdup(text) : NULL;
}

/* The current Action with its context, as hosts see it (borrowed until the
 * next call). */
static const json_t *current(struct run *r)
{
	absorb_contexts(r);
	json_decref(current_cache);
	current_cache = run_current_action_full(r, resolve_context, NULL);
	cr_assert_not_null(current_cache);
	return current_cache;
}

static void record_event(struct harness *h, const struct run *before, enum fsm_event ev,
			 size_t rule)
{
	absorb_contexts(h->run);
	json_t *d = run_delta(before, h->run, rule);

	cr_assert_not_null(d);
	json_array_append_new(h->journal,
			      json_pack("[s, o]", tbl_jevent_wire[tbl_event_journal[ev]], d));
}

static void start(struct harness *h, unsigned budget, int review)
{
	struct fsm_run fresh = { .state = FSM_ST_NEW };
	struct fsm_input in = { .event = FSM_EV_START, .budget = budget, .review = review };
	struct fsm_step st = fsm_step(&fresh, &in);
	struct run_start s = { "run-1", "Add a --verbose flag", "/work/repo", NULL, NULL,
			       "2026-11-29T10:00:00.000000001Z" };
	struct run_effects fx = { .now = s.now, .new_action_id = new_id(h) };
	struct sw_error err = SW_ERROR_INIT;

	h->journal = json_array();
	h->obs_clean = observation(0);
	h->obs_dirty = observation(1);
	h->identity = json_pack("{s:i, s:s, s:s, s:s, s:s}", "version", 1,
				"worktree_root", "/work/repo", "git_dir", "/work/repo/.git",
				"git_common_dir", "/work/repo/.git", "id", DIGEST_A);
	s.identity = h->identity;
	s.initial_git = h->obs_clean;
	cr_assert_eq(st.verdict, FSM_APPLY);
	cr_assert_eq(run_create(&h->run, &s, &st, &fx, &err), 0, "%s", err.msg);
	record_event(h, NULL, FSM_EV_START, st.rule);
}

static json_t *outcome(const char *kind, const char *status, const char *extra)
{
	char buf[4096];
	json_t *o;

	snprintf(buf, sizeof(buf),
		 "{\"contract_version\":2,\"action_id\":\"x\",\"action_kind\":\"%s\",\"status\":\"%s\","
		 "\"summary\":\"did %s\",\"observations\":[\"seen\"],\"known_issues\":[],"
		 "\"suggested_actions\":[],\"pause\":null,\"implementation\":null,\"review\":null}",
		 kind, status, kind);
	o = json_loads(buf, 0, NULL);
	if (extra) {
		json_t *e = json_loads(extra, 0, NULL);

		cr_assert_not_null(e, "bad extra %s", extra);
		json_object_update(o, e);
		json_decref(e);
	}
	return o;
}

static struct fsm_outcome_shape shape_of(const json_t *o)
{
	struct fsm_outcome_shape s = { 0 };
	json_t *p = json_object_get(o, "pause"), *im = json_object_get(o, "implementation");
	json_t *rv = json_object_get(o, "review"), *sg = json_object_get(o, "suggested_actions");

	s.kind = tbl_kind_lookup(json_string_value(json_object_get(o, "action_kind")));
	s.status = tbl_status_lookup(json_string_value(json_object_get(o, "status")));
	if (json_is_object(p)) {
		s.pause = tbl_pause_lookup(json_string_value(json_object_get(p, "reason")));
		s.has_destructive_request = json_is_object(json_object_get(p, "destructive_request"));
	}
	if (json_is_object(im)) {
		s.has_implementation = 1;
		s.implementation = tbl_result_lookup(FSM_BRANCH_IMPLEMENTATION,
						     json_string_value(json_object_get(im, "result")));
	}
	if (json_is_object(rv)) {
		s.has_review = 1;
		s.review = tbl_result_lookup(FSM_BRANCH_REVIEW,
					     json_string_value(json_object_get(rv, "result")));
		s.findings = json_array_size(json_object_get(rv, "findings"));
	}
	s.suggestions = json_array_size(sg);
	if (s.suggestions)
		s.suggestion_kind = tbl_kind_lookup(json_string_value(
			json_object_get(json_array_get(sg, 0), "kind")));
	return s;
}

/* Applies `in` with effects `fx`; returns the step. */
static struct fsm_step step(struct harness *h, struct fsm_input *in, struct run_effects *fx)
{
	struct sw_error err = SW_ERROR_INIT;
	struct fsm_run m;
	struct fsm_step st;
	struct run *before = NULL;

	if (h->freeze)
		cr_assert_eq(run_freeze(h->run, &err), 0, "%s", err.msg);
	m = run_machine(h->run);
	st = fsm_step(&m, in);
	if (st.verdict != FSM_APPLY && st.verdict != FSM_APPLY_ERROR)
		return st;
	cr_assert_eq(run_clone(&before, h->run, &err), 0);
	fx->now = "2026-11-29T10:01:00Z";
	fx->new_action_id = new_id(h);
	fx->summarize = report_summary;
	cr_assert_eq(run_apply(h->run, &st, fx, &err), 0, "%s", err.msg);
	record_event(h, before, in->event, st.rule);
	run_free(before);
	return st;
}

static struct fsm_step submit(struct harness *h, json_t *o, int dirty)
{
	struct fsm_input in = { .event = FSM_EV_SUBMIT };
	struct run_effects fx = { .outcome = o, .outcome_sha256 = DIGEST_A,
				  .observation = dirty ? h->obs_dirty : h->obs_clean,
				  .observation_complete = 1, .changed = dirty,
				  .final_observation = dirty ? h->obs_dirty : h->obs_clean,
				  .final_changed = dirty };
	struct fsm_step st;

	json_object_set_new(o, "action_id", json_string(run_current_action_id(h->run)));
	in.facts = run_submit_facts(h->run, run_current_action_id(h->run), DIGEST_A) |
		   (dirty ? FSM_F(CHANGED) : 0);
	in.outcome = shape_of(o);
	st = step(h, &in, &fx);
	json_decref(o);
	return st;
}

static void assert_schema(const char *def, const json_t *doc)
{
	char why[4096], *s = json_dumps(doc, JSON_COMPACT);

	cr_assert_not_null(s);
	cr_expect(schema_valid(def, s, why, sizeof(why)), "%s invalid: %s\n%s", def, why, s);
	free(s);
}

static void assert_replay_equals(struct harness *h)
{
	struct run *replayed = NULL;
	struct sw_error err = SW_ERROR_INIT;
	json_t *ev;
	size_t i;

	json_array_foreach(h->journal, i, ev)
		cr_assert_eq(run_replay(&replayed, json_string_value(json_array_get(ev, 0)),
					json_array_get(ev, 1), &err), 0,
			     "event %zu: %s: %s", i, err.msg,
			     json_dumps(json_array_get(ev, 1), JSON_COMPACT));
	if (!json_equal((json_t *)run_json(replayed), (json_t *)run_json(h->run))) {
		char a[4096], b[4096];

		test_tmp_name(a, sizeof(a), "replayed.json");
		test_tmp_name(b, sizeof(b), "record.json");
		json_dump_file(run_json(replayed), a, JSON_INDENT(1) | JSON_SORT_KEYS);
		json_dump_file(run_json(h->run), b, JSON_INDENT(1) | JSON_SORT_KEYS);
		cr_assert_fail("replay differs from the record: compare %s with %s", a, b);
	}
	run_free(replayed);
}

static void assert_status_valid(struct harness *h)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	json_t *doc = run_status_json(h->run, 1, resolve_context, NULL);

	cr_assert_eq(next_none_identity(&n, DIGEST_A, &err), 0);
	json_object_set_new(doc, "next", next_to_json(n));
	assert_schema("runStatus", doc);
	json_decref(doc);
	next_free(n);
}

static void finish(struct harness *h)
{
	run_free(h->run);
	json_decref(h->journal);
	json_decref(h->obs_clean);
	json_decref(h->obs_dirty);
	json_decref(h->identity);
}

Test(io_run, happy_path_replays_and_validates)
{
	struct harness h = { 0 };
	struct fsm_step st;

	start(&h, 8, 1);
	assert_schema("action", current(h.run));
	st = submit(&h, outcome("orient", "completed",
				"{\"suggested_actions\":[{\"kind\":\"implement\",\"brief\":\"Add the flag.\"}]}"), 0);
	cr_assert_eq(st.issued, FSM_KIND_IMPLEMENT);
	cr_assert_str_eq(json_string_value(json_object_get(current(h.run), "brief")),
			 "Add the flag.");
	st = submit(&h, outcome("implement", "completed",
				"{\"implementation\":{\"result\":\"applied\",\"files_changed\":[\"a.c\"],"
				"\"activities\":[{\"kind\":\"test\",\"command\":\"make test\",\"exit_code\":0,"
				"\"summary\":\"ok\"}],\"uncertainties\":[],\"attempts\":1}}"), 1);
	cr_assert_eq(st.issued, FSM_KIND_REVIEW);
	cr_assert(strstr(json_string_value(json_object_get(current(h.run), "brief")),
			 "a.c") == NULL, "the attribution lists run-start dirty paths only");
	cr_assert(strstr(json_string_value(json_object_get(current(h.run), "context")),
			 "Recent outcome:\n- implement action") != NULL);
	assert_schema("action", current(h.run));
	st = submit(&h, outcome("review", "completed",
				"{\"review\":{\"result\":\"no_findings_reported\",\"findings\":[],\"uncertainties\":[]}}"), 1);
	cr_assert_eq(st.issued, FSM_KIND_SUMMARIZE);
	st = submit(&h, outcome("summarize", "completed", NULL), 1);
	cr_assert_eq(st.run.state, FSM_ST_ENDED);
	cr_assert_not_null(run_summary(h.run));
	cr_assert(strstr(run_summary(h.run), "test `make test` exited 0") != NULL, "%s", run_summary(h.run));
	assert_replay_equals(&h);
	assert_status_valid(&h);
	finish(&h);
}

/* Journal events name the rule that fired by its stable id (the id
 * column of tbl_rules), and a journal replays whatever the rule says. */
Test(io_run, events_name_the_rule_by_its_stable_id)
{
	struct harness h = { 0 };
	struct fsm_step st;
	json_t *last;

	start(&h, 8, 1);
	st = submit(&h, outcome("orient", "completed", NULL), 0);
	last = json_array_get(json_array_get(h.journal, json_array_size(h.journal) - 1), 1);
	cr_assert_eq(json_integer_value(json_object_get(last, "rule")), tbl_rules[st.rule].id);
	for (size_t row = 0; row < tbl_rules_len; row++) {
		json_t *d = run_delta(NULL, h.run, row);

		cr_assert_not_null(d);
		cr_assert_eq(json_integer_value(json_object_get(d, "rule")), tbl_rules[row].id);
		json_decref(d);
	}
	assert_replay_equals(&h);
	finish(&h);
}

/* The candidate effects change the record themselves: a row that names
 * them is enough, no caller edits the record by event. */
Test(io_run, candidate_effects_set_and_clear_the_waiting_candidate)
{
	struct harness h = { 0 };
	struct sw_error err = SW_ERROR_INIT;
	json_t *cand = json_pack("{s:s, s:b, s:s, s:s}", "candidate_id", "cand-1", "valid", 1,
				 "classification", "valid", "classification_code", "valid_change");
	struct run_effects fx = { .now = "2026-11-29T10:00:01Z", .candidate = cand };
	struct fsm_step st = { .verdict = FSM_APPLY };

	start(&h, 8, 1);
	st.run = run_machine(h.run);
	st.run.state = FSM_ST_PAUSED_DECISION;
	st.ops = FSM_OP(CANDIDATE_VALID);
	cr_assert_eq(run_apply(h.run, &st, &fx, &err), 0, "%s", err.msg);
	cr_assert(json_equal(json_object_get(run_json(h.run), "source_candidate"), cand));
	cr_assert(run_machine(h.run).candidate && run_machine(h.run).candidate_valid);
	st.ops = FSM_OP(CANDIDATE_CLEAR);
	st.run.state = FSM_ST_ACTIVE;
	cr_assert_eq(run_apply(h.run, &st, &fx, &err), 0, "%s", err.msg);
	cr_assert_null(json_object_get(run_json(h.run), "source_candidate"));
	json_decref(cand);
	finish(&h);
}

Test(io_run, decision_answer_and_destructive_grant_replay_and_validate)
{
	struct harness h = { 0 };
	struct run_effects fx = { 0 };
	struct fsm_input in = { 0 };
	struct fsm_step st;
	const char *waiting;
	char req[1024];

	start(&h, 8, 0);
	st = submit(&h, outcome("orient", "needs_input",
				"{\"pause\":{\"reason\":\"decision_required\",\"question\":\"Which flag?\","
				"\"destructive_request\":null}}"), 0);
	cr_assert_eq(st.run.state, FSM_ST_PAUSED_DECISION);
	assert_status_valid(&h);
	waiting = run_current_action_id(h.run);
	in.event = FSM_EV_ANSWER;
	in.facts = run_answer_facts(h.run, waiting, DIGEST_B, NULL);
	fx.answer_text = "Use --verbose.";
	fx.answer_sha256 = DIGEST_B;
	fx.scope_sha256 = "";
	st = step(&h, &in, &fx);
	cr_assert_eq(st.issued, FSM_KIND_ORIENT);
	cr_assert(strstr(json_string_value(json_object_get(current(h.run), "context")),
			 "decision:\n  Use --verbose.") != NULL);
	/* implement, then a destructive request, then its confirmation */
	st = submit(&h, outcome("orient", "completed",
				"{\"suggested_actions\":[{\"kind\":\"implement\",\"brief\":\"Implement it.\"}]}"), 0);
	cr_assert_eq(st.issued, FSM_KIND_IMPLEMENT);
	snprintf(req, sizeof(req),
		 "{\"pause\":{\"reason\":\"destructive_confirmation_required\",\"question\":\"Delete?\","
		 "\"destructive_request\":{\"request_id\":\"6f1c2c2e-1d2b-4c3a-9e4f-0a1b2c3d4e5f\","
		 "\"targets\":[{\"kind\":\"path\",\"value\":\"old/\"}],\"impact\":\"removes old/\","
		 "\"scope_sha256\":\"%s\"}}}", DIGEST_A);
	st = submit(&h, outcome("implement", "needs_input", req), 0);
	cr_assert_eq(st.run.state, FSM_ST_PAUSED_DESTRUCTIVE);
	assert_status_valid(&h);
	in.facts = run_answer_facts(h.run, run_current_action_id(h.run), DIGEST_B, NULL) |
		   FSM_F(CONFIRM) | FSM_F(SCOPE_GIVEN) | FSM_F(SCOPE_WELLFORMED) | FSM_F(SCOPE_MATCH);
	fx.answer_text = "";
	fx.confirm = 1;
	fx.scope_sha256 = DIGEST_A;
	st = step(&h, &in, &fx);
	cr_assert_eq(st.issued, FSM_KIND_IMPLEMENT);
	cr_assert_not_null(json_object_get(current(h.run), "destructive_authorization"));
	assert_schema("action", current(h.run));
	assert_status_valid(&h);
	st = submit(&h, outcome("implement", "completed",
				"{\"implementation\":{\"result\":\"applied\",\"files_changed\":[],"
				"\"activities\":[],\"uncertainties\":[],\"attempts\":1}}"), 0);
	cr_assert_null(json_object_get(run_json(h.run), "destructive_grant"));
	{
		char *dump = json_dumps(run_json(h.run), 0);

		cr_assert(strstr(dump, "report_discrepancy") != NULL);
		free(dump);
	}
	assert_replay_equals(&h);
	assert_status_valid(&h);
	finish(&h);
}

Test(io_run, skip_stop_resume_replay)
{
	struct harness h = { 0 };
	struct run_effects fx = { 0 };
	struct fsm_input in = { 0 };
	struct fsm_step st;

	start(&h, 1, 1);
	st = submit(&h, outcome("orient", "completed",
				"{\"suggested_actions\":[{\"kind\":\"clarify\",\"brief\":\"Ask.\"}]}"), 0);
	cr_assert_eq(st.run.state, FSM_ST_PAUSED_BUDGET);
	in.event = FSM_EV_RESUME;
	st = step(&h, &in, &fx);
	cr_assert_eq(st.issued, FSM_KIND_ORIENT);
	cr_assert_eq(st.run.remaining, 2);
	in.event = FSM_EV_STOP;
	st = step(&h, &in, &fx);
	cr_assert_eq(st.run.state, FSM_ST_STOPPED);
	in.event = FSM_EV_RESUME;
	st = step(&h, &in, &fx);
	in.event = FSM_EV_SKIP;
	in.facts = FSM_F(NAMED_CURRENT);
	fx.observation = h.obs_clean;
	fx.observation_complete = 1;
	st = step(&h, &in, &fx);
	cr_assert_eq(st.issued, FSM_KIND_SUMMARIZE);
	fx.final_observation = h.obs_clean;
	st = step(&h, &in, &fx);
	cr_assert_eq(st.run.state, FSM_ST_ENDED);
	cr_assert(strstr(run_summary(h.run), "skipped") != NULL);
	assert_replay_equals(&h);
	assert_status_valid(&h);
	finish(&h);
}

Test(io_run, replay_rejects_foreign_and_unknown_data)
{
	struct run *r = NULL;
	struct sw_error err = SW_ERROR_INIT;
	json_t *bad = json_pack("{s:i, s:i, s:s}", "event_version", 2, "contract_version", 2,
				"run_id", "x");

	cr_assert_lt(run_replay(&r, "outcome_submitted", bad, &err), 0);
	cr_assert_str_eq(tbl_err_wire[err.proto], "run_journal_invalid");
	json_decref(bad);
}

/* ---- issue-backed Runs ---- */

/* A pinnedSource-shaped object with `n` sections whose titles are
 * `title_len` bytes (run_create does not validate it; the CLI does). */
static json_t *pinned_source(size_t n, size_t title_len)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:[]}",
			      "provider", "github", "host", "github.com", "issue_id", "I_x", "canonical_url", "https://github.com/o/r/issues/1",
			      "source_revision", DIGEST_A, "manifest_revision", DIGEST_B,
			      "requirements_revision", DIGEST_A, "title", "T", "sections");
	char *title = malloc(title_len + 1);

	cr_assert(p && title);
	memset(title, 'T', title_len);
	title[title_len] = '\0';
	for (size_t i = 0; i < n; i++) {
		char key[32];

		snprintf(key, sizeof(key), "k%zu", i);
		json_array_append_new(json_object_get(p, "sections"),
				      json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "key", key,
						"role", "requirements", "title", title,
						"section_revision", DIGEST_A, "material_sha256", DIGEST_B,
						"bytes", 10));
	}
	free(title);
	return p;
}

static int create_issue_backed(struct run **out, const char *goal, const json_t *pinned,
			       struct sw_error *err)
{
	struct fsm_run fresh = { .state = FSM_ST_NEW };
	struct fsm_input in = { .event = FSM_EV_START, .budget = 8, .review = 1, .issue_backed = 1 };
	struct fsm_step st = fsm_step(&fresh, &in);
	json_t *obs = observation(0);
	json_t *identity = json_pack("{s:i, s:s, s:s, s:s, s:s}", "version", 1,
				     "worktree_root", "/work/repo", "git_dir", "/work/repo/.git",
				     "git_common_dir", "/work/repo/.git", "id", DIGEST_A);
	struct run_start s = { "run-1", goal, "/work/repo", identity, obs,
			       "2026-11-29T10:00:00.000000001Z", pinned };
	struct run_effects fx = { .now = s.now, .new_action_id = ID0 };
	int rc = run_create(out, &s, &st, &fx, err);

	json_decref(obs);
	json_decref(identity);
	return rc;
}

static size_t encoded_len(const json_t *v)
{
	char *s = sw_json_dump(v);
	size_t n = strlen(s) + 1;

	sw_free(s);
	return n;
}

Test(io_run, issue_backed_actions_carry_source_and_requirements_in_order)
{
	json_t *pinned = pinned_source(5, 8);
	struct sw_error err = SW_ERROR_INIT;
	struct run *r = NULL;
	const json_t *a, *req, *argv;
	const char *keys[8];
	size_t i = 0;
	const char *k;
	json_t *v;

	cr_assert_eq(create_issue_backed(&r, "goal", pinned, &err), 0, "%s", err.msg);
	a = current(r);
	json_object_foreach((json_t *)a, k, v)
		if (i < 8)
			keys[i++] = k;
	cr_assert_eq(i, 8);
	cr_assert_str_eq(keys[6], "context");
	cr_assert_str_eq(keys[7], "source");
	req = json_object_get(a, "requirements");
	cr_assert_not_null(req);
	cr_assert_eq(json_array_size(json_object_get(req, "required_for_action")), 5);
	argv = json_object_get(json_object_get(req, "reader"), "base_argv");
	cr_assert_eq(json_array_size(argv), 9);
	cr_assert_str_eq(json_string_value(json_array_get(argv, 4)), "/work/repo");
	cr_assert_str_eq(json_string_value(json_array_get(argv, 8)), ID0);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(a, "source"), "kind")),
			 "change_issue");
	assert_schema("action", a);
	run_free(r);
	json_decref(pinned);
}

Test(io_run, the_action_size_limit_counts_the_source_fields)
{
	json_t *pinned = pinned_source(64, 512);
	struct sw_error err = SW_ERROR_INIT;
	struct run *r = NULL;
	size_t base, room;
	char *goal;

	cr_assert_eq(create_issue_backed(&r, "g", pinned, &err), 0, "%s", err.msg);
	base = encoded_len(current(r));
	run_free(r);
	r = NULL;
	/* The catalog alone is tens of KiB: a goal that fits an ad-hoc Action
	 * no longer fits beside it. */
	cr_assert_gt(base, 40000);
	room = RUN_MAX_ACTION_BYTES - base;
	/* Over the limit even with an empty context. */
	goal = malloc(room + 8192);
	cr_assert_not_null(goal);
	memset(goal, 'g', room + 8191);
	goal[room + 8191] = '\0';
	cr_assert_lt(create_issue_backed(&r, goal, pinned, &err), 0);
	cr_assert_str_eq(tbl_err_wire[err.proto], "action_too_large");
	cr_assert_null(r);
	goal[room - 64] = '\0';
	sw_error_clear(&err);
	cr_assert_eq(create_issue_backed(&r, goal, pinned, &err), 0, "%s", err.msg);
	cr_assert_leq(encoded_len(current(r)), RUN_MAX_ACTION_BYTES);
	run_free(r);
	free(goal);
	json_decref(pinned);
}

/* A long Run with outcomes, known issues, a decision and a change, driven
 * the same way with and without frozen records. */
static void long_run(struct harness *h)
{
	struct fsm_input in = { .event = FSM_EV_ANSWER };
	struct run_effects fx = { .answer_text = "Use the CLI flag.", .answer_sha256 = DIGEST_B,
				  .scope_sha256 = "" };

	start(h, 30, 1);
	for (int i = 0; i < 6; i++)
		submit(h, outcome("orient", "completed",
				  "{\"known_issues\":[\"flaky <test> & more\"],"
				  "\"suggested_actions\":[{\"kind\":\"orient\",\"brief\":\"Again.\"}]}"), 0);
	submit(h, outcome("orient", "needs_input",
			  "{\"pause\":{\"reason\":\"decision_required\",\"question\":\"Which?\"}}"), 0);
	in.facts = run_answer_facts(h->run, run_current_action_id(h->run), DIGEST_B, NULL);
	step(h, &in, &fx);
	/* Then on to the end, whatever each Action is. */
	for (int i = 0; i < 12 && run_current_action_id(h->run) != NULL; i++) {
		const char *kind = json_string_value(json_object_get(run_current_action(h->run), "kind"));

		if (strcmp(kind, "implement") == 0)
			submit(h, outcome(kind, "completed",
					  "{\"implementation\":{\"result\":\"applied\",\"files_changed\":[\"a.c\"],"
					  "\"activities\":[],\"uncertainties\":[],\"attempts\":1}}"), 1);
		else if (strcmp(kind, "review") == 0)
			submit(h, outcome(kind, "completed",
					  "{\"review\":{\"result\":\"no_findings_reported\",\"findings\":[],"
					  "\"uncertainties\":[]}}"), 1);
		else if (strcmp(kind, "summarize") == 0)
			submit(h, outcome(kind, "completed", NULL), 1);
		else
			submit(h, outcome(kind, "completed",
					  "{\"suggested_actions\":[{\"kind\":\"implement\",\"brief\":\"Do it.\"}]}"), 0);
	}
	cr_assert_not_null(run_summary(h->run), "the long Run ends");
}

/* The file the pieces make; those without bytes are read from `src`. */
static char *concat(const struct run_projection *p, int src, size_t *len)
{
	char *out;

	*len = 0;
	for (size_t i = 0; i < p->npiece; i++)
		*len += p->piece[i].len;
	out = malloc(*len + 1);
	cr_assert_not_null(out);
	*len = 0;
	for (size_t i = 0; i < p->npiece; i++) {
		const struct sw_piece *pc = &p->piece[i];

		if (pc->bytes)
			memcpy(out + *len, pc->bytes, pc->len);
		else
			cr_assert_eq(pread(src, out + *len, pc->len, (off_t)pc->from),
				     (ssize_t)pc->len);
		*len += pc->len;
	}
	out[*len] = '\0';
	return out;
}

/* A file holding `len` bytes of `text`, open for reading. */
static int file_of(const char *text, size_t len)
{
	char path[4096];
	int fd;

	test_tmp_name(path, sizeof(path), "slipway-test-run-XXXXXX");
	fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	unlink(path);
	return fd;
}

Test(io_run, frozen_records_change_neither_the_journal_nor_run_json_nor_the_contexts)
{
	struct harness plain = { 0 }, frozen = { .freeze = 1 };
	struct sw_error err = SW_ERROR_INIT;
	struct run_projection p = { 0 }, q = { 0 };
	struct run *back = NULL;
	struct run_checkpoint ck = { 0 }, ck2 = { 0 };
	char *want, *got, *again, *extra = NULL, *dump, *log;
	size_t wlen, glen, alen;
	int src, keep;
	const char *first;
	json_t *status;

	long_run(&plain);
	long_run(&frozen);
	cr_assert_eq(run_freeze(frozen.run, &err), 0);
	/* The same events, so the same contexts (by digest), decisions and
	 * final summary. */
	cr_assert(json_equal(plain.journal, frozen.journal), "the journals differ");
	cr_assert_str_eq(run_summary(frozen.run), run_summary(plain.run));
	/* run.json: the frozen records spliced in give the same bytes. */
	status = run_status_json(plain.run, 0, NULL, NULL);
	dump = sw_json_dump(status);
	json_decref(status);
	cr_assert_eq(journal_projection_encode(&want, &wlen, 12, dump, strlen(dump), &err), 0);
	cr_assert_eq(run_projection(&p, frozen.run, 12, &err), 0, "%s", err.msg);
	cr_assert_gt(p.npiece, 3, "the records were frozen");
	got = concat(&p, -1, &glen);
	cr_assert_eq(glen, wlen);
	cr_assert_str_eq(got, want);
	/* Through a checkpoint and back: same projection, same facts, and
	 * thawed, the same record. */
	cr_assert_eq(run_checkpoint(&ck, frozen.run, &p, "{\"x\":1}", &err), 0);
	cr_assert_eq(ck.log_base, 0, "a Run never read back starts a log of its own");
	cr_assert_gt(ck.log_len, 0);
	src = file_of(got, glen);
	keep = dup(src);
	log = sw_strndup(ck.log, ck.log_len);
	cr_assert_eq(run_from_checkpoint(&back, &extra, ck.body, ck.body_len, &log, ck.log_len,
					 &src, glen, &err), 0, "%s", err.msg);
	cr_assert(log == NULL && src == -1, "the Run took the log and the file");
	cr_assert_str_eq(extra, "{\"x\":1}");
	cr_assert_eq(run_projection(&q, back, 12, &err), 0);
	cr_assert_eq(q.npiece, 5, "head, the records read back as one range, the rest");
	cr_assert_null(q.piece[2].bytes);
	again = concat(&q, keep, &alen);
	cr_assert_str_eq(again, want);
	/* Read back, its log is kept: nothing new to add after it. */
	cr_assert_eq(run_checkpoint(&ck2, back, &q, "{\"x\":1}", &err), 0);
	cr_assert_eq(ck2.log_base, ck.log_len);
	cr_assert_eq(ck2.log_len, 0);
	cr_assert_eq(ck2.body_len, ck.body_len);
	cr_assert_eq(memcmp(ck2.body, ck.body, ck.body_len), 0);
	first = json_string_value(json_object_get(json_object_get(json_array_get(
		json_object_get(run_json(plain.run), "actions"), 0), "action"), "action_id"));
	cr_assert_eq(run_submit_facts(back, first, DIGEST_A), run_submit_facts(plain.run, first, DIGEST_A));
	cr_assert_eq(run_submit_facts(back, first, DIGEST_A) & (FSM_F(PRIOR) | FSM_F(PRIOR_SAME)),
		     FSM_F(PRIOR) | FSM_F(PRIOR_SAME));
	cr_assert_eq(run_thaw(back, &err), 0);
	cr_assert(json_equal(run_json(back), run_json(plain.run)), "the thawed record differs");
	/* A checkpoint that does not match the projection is refused. */
	sw_free(extra);
	run_free(back);
	back = NULL;
	close(keep);
	for (int k = 0; k < 6; k++) {
		size_t llen = ck.log_len, flen = glen;
		char *at;

		got[p.text_off[0]] = k == 0 ? 'x' : '{';	/* not where it said */
		if (k == 1)	/* an entry's last byte gone */
			llen = ck.log_len - 1;
		if (k == 2)	/* half an entry */
			llen = (size_t)(strchr(ck.log, '\n') - ck.log);
		if (k == 3)	/* the file ends before the records do */
			flen = p.text_off[0] + 1;
		src = file_of(got, flen);
		log = sw_strndup(ck.log, ck.log_len);	/* parsing writes into it */
		/* A word holding the other separator, its own still in reach:
		 * the outcome digest (7th word) starting with a newline, the
		 * id (8th) with a space. */
		at = log;
		for (int w = 0; k >= 4 && w < (k == 4 ? 6 : 7); w++)
			at = strchr(at, ' ') + 1;
		if (k >= 4)
			*at = k == 4 ? '\n' : ' ';
		cr_assert_eq(run_from_checkpoint(&back, &extra, ck.body, ck.body_len, &log, llen,
						 &src, flen, &err), SW_EPARSE, "case %d", k);
		cr_assert(back == NULL && log != NULL && src >= 0, "a refusal takes nothing");
		close(src);
		sw_free(log);
	}
	run_projection_release(&p);
	run_projection_release(&q);
	free(got);
	free(again);
	sw_free(want);
	run_checkpoint_release(&ck);
	run_checkpoint_release(&ck2);
	sw_free(dump);
	finish(&plain);
	finish(&frozen);
}

/* An Action with the fields every record must have. */
static json_t *bare_action(const char *id, const char *kind)
{
	return json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "contract_version", 2,
			 "run_id", ID0, "action_id", id, "kind", kind, "goal", "g", "brief", "b",
			 "remaining_budget", 1, "context_sha256", DIGEST_A);
}

/* A clone shares its frozen records; when both it and the original then
 * freeze a different next record, each keeps its own history. */
Test(io_run, clones_that_freeze_different_records_keep_their_own_histories)
{
	struct harness h = { 0 };
	struct sw_error err = SW_ERROR_INIT;
	struct run *a = NULL, *b = NULL;
	json_t *all, *tail_a, *tail_b, *got;
	size_t n;

	long_run(&h);
	all = json_object_get(run_json(h.run), "actions");
	n = json_array_size(all);
	cr_assert_gt(n, 3);
	cr_assert_eq(run_clone(&a, h.run, &err), 0);
	cr_assert_eq(run_freeze(a, &err), 0);
	cr_assert_eq(run_clone(&b, a, &err), 0);
	/* Each replaces its last record and adds one after it; freezing moves
	 * its own last record into the shared set (b first, so a must copy
	 * the set rather than write over b's entry). */
	tail_b = json_pack("[{s:o}, {s:o}]", "action", bare_action("b-last", "orient"),
			   "action", bare_action("b-next", "orient"));
	tail_a = json_pack("[{s:o}, {s:o}]", "action", bare_action("a-last", "clarify"),
			   "action", bare_action("a-next", "clarify"));
	cr_assert_eq(run_set_field(b, "actions", tail_b, &err), 0);
	cr_assert_eq(run_freeze(b, &err), 0);
	cr_assert_eq(run_set_field(a, "actions", tail_a, &err), 0);
	cr_assert_eq(run_freeze(a, &err), 0);
	for (int k = 0; k < 2; k++) {
		struct run *r = k ? b : a;
		json_t *st = run_status_json(r, 0, NULL, NULL);

		got = json_object_get(st, "actions");
		cr_assert_eq(json_array_size(got), n + 1);
		for (size_t i = 0; i + 1 < n; i++)
			cr_assert(json_equal(json_array_get(got, i), json_array_get(all, i)),
				  "run %d, record %zu", k, i);
		cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
			json_array_get(got, n - 1), "action"), "action_id")), k ? "b-last" : "a-last");
		cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
			json_array_get(got, n), "action"), "action_id")), k ? "b-next" : "a-next");
		json_decref(st);
	}
	json_decref(tail_a);
	json_decref(tail_b);
	run_free(a);
	run_free(b);
	finish(&h);
}


/* Runs orient -> implement -> review (with a finding) -> summarize, with
 * the Summarize report `report`; the harness holds the ended Run. */
static void ended_with_finding(struct harness *h, const char *report)
{
	struct fsm_step st;
	json_t *o;

	start(h, 8, 1);
	submit(h, outcome("orient", "completed",
			  "{\"suggested_actions\":[{\"kind\":\"implement\",\"brief\":\"Add the flag.\"}]}"), 0);
	submit(h, outcome("implement", "completed",
			  "{\"implementation\":{\"result\":\"applied\",\"files_changed\":[\"src/b.c\",\" src/a.c \",\"src/b.c\"],"
			  "\"activities\":[],\"uncertainties\":[],\"attempts\":1}}"), 1);
	st = submit(h, outcome("review", "completed",
			       "{\"review\":{\"result\":\"findings_reported\",\"findings\":[{\"location\":\"src/a.c:12\","
			       "\"summary\":\"leaks buf\",\"detail\":\"the early return skips free\"}],\"uncertainties\":[]}}"), 1);
	cr_assert_eq(st.issued, FSM_KIND_SUMMARIZE);
	o = outcome("summarize", "completed", NULL);
	json_object_set_new(o, "summary", json_string(report));
	st = submit(h, o, 1);
	cr_assert_eq(st.run.state, FSM_ST_ENDED);
}

Test(io_run, final_summary_keeps_reports_files_findings_and_what_was_not_run)
{
	struct harness h = { 0 };
	const char *s;

	ended_with_finding(&h, "All done.");
	s = run_summary(h.run);
	/* The host's report once, at the top; every Action in the log. */
	cr_assert(strstr(s, "Final report:\n  All done.\n") != NULL, "%s", s);
	cr_assert(strstr(strstr(s, "All done.") + 1, "All done.") == NULL, "once: %s", s);
	cr_assert(strstr(s, "Action log:\n  1. orient ") != NULL, "%s", s);
	cr_assert(strstr(s, ": did implement\n") != NULL && strstr(s, ": did review\n") != NULL, "%s", s);
	cr_assert(strstr(s, "Review:\n  - src/a.c:12: leaks buf\n    the early return skips free\n") != NULL, "%s", s);
	cr_assert(strstr(s, "Checks: none.\n") != NULL, "%s", s);
	cr_assert(strstr(s, "Skipped and voided Actions: none.\n") != NULL, "%s", s);
	cr_assert(strstr(s, "\nWhat changed:") != NULL, "%s", s);
	assert_status_valid(&h);
	finish(&h);
}

/* The final summary of a Run ended with a host report of `len` tildes,
 * with `pad` extra bytes in Orient's report (malloc'd). */
static char *summary_with_report(size_t len, int pad)
{
	struct harness h = { 0 };
	char *report = malloc(len + 1), *s;
	struct fsm_step st;
	json_t *o;

	cr_assert_not_null(report);
	memset(report, '~', len);
	report[len] = '\0';
	start(&h, 8, 0);
	o = outcome("orient", "completed", NULL);
	json_object_set_new(o, "summary", json_string(pad ? "did orient." : "did orient"));
	cr_assert_eq(submit(&h, o, 0).issued, FSM_KIND_SUMMARIZE);
	o = outcome("summarize", "completed", NULL);
	json_object_set_new(o, "summary", json_string(report));
	st = submit(&h, o, 0);
	cr_assert_eq(st.run.state, FSM_ST_ENDED);
	cr_assert_not_null(run_summary(h.run));
	s = strdup(run_summary(h.run));
	cr_assert_not_null(s);
	finish(&h);
	free(report);
	return s;
}

/* `small`, a summary whose report is `small_len` tildes, with the report
 * made `len` tildes wherever it appears (`times` places): the summary a
 * Run with that report has before it is bounded (malloc'd). */
static char *grown(const char *small, size_t small_len, size_t len, size_t times)
{
	char *needle = malloc(small_len + 3), *out;
	size_t n = 0, o = 0;
	const char *p = small, *at;

	cr_assert_not_null(needle);
	needle[0] = ' ';
	memset(needle + 1, '~', small_len);
	needle[small_len + 1] = '\n';
	needle[small_len + 2] = '\0';
	cr_assert_not_null(out = malloc(strlen(small) + times * len + 1));
	while ((at = strstr(p, needle)) != NULL) {
		size_t head = (size_t)(at - p) + 1;

		memcpy(out + o, p, head);
		memset(out + o + head, '~', len);
		o += head + len;
		p = at + 1 + small_len;
		n++;
	}
	memcpy(out + o, p, strlen(p) + 1);
	cr_assert_eq(n, times, "the report appears %zu times, not %zu", n, times);
	free(needle);
	return out;
}

static void sha256_hex(const char *s, size_t n, char out[72])
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	cr_assert_eq(EVP_Digest(s, n, md, &mdlen, EVP_sha256(), NULL), 1);
	cr_assert_eq(mdlen, 32);
	memcpy(out, "sha256:", 7);
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", md[i]);
}

/* A report length and Orient padding whose summary is `total` bytes before
 * it is bounded; *want receives that summary (malloc'd). */
static size_t sized(size_t total, int *pad, char **want)
{
	for (*pad = 0; *pad < 2; (*pad)++) {
		char *s100 = summary_with_report(100, *pad), *s200 = summary_with_report(200, *pad);
		size_t k = (strlen(s200) - strlen(s100)) / 100, base = strlen(s100) - 100 * k, len;

		cr_assert(k >= 1 && strlen(s200) == strlen(s100) + 100 * k,
			  "the summary grows by the report, %zu times", k);
		free(s200);
		if ((total - base) % k != 0) {
			free(s100);
			continue;
		}
		len = (total - base) / k;
		*want = grown(s100, 100, len, k);
		cr_assert_eq(strlen(*want), total);
		free(s100);
		return len;
	}
	cr_assert_fail("no report length gives a summary of %zu bytes", total);
	return 0;
}

/* The bound is 64 KiB inclusive: a summary of exactly RUN_MAX_SUMMARY_BYTES
 * is kept whole, one byte more is cut and marked, and the marker's
 * original_sha256 is the digest of the whole original text. */
Test(io_run, final_summary_of_exactly_64_KiB_is_whole_and_one_byte_more_is_cut)
{
	size_t omitted = 0, kept, len;
	char *want, *got, digest[80] = "", whole[72];
	const char *m;
	int pad;

	len = sized(RUN_MAX_SUMMARY_BYTES, &pad, &want);
	got = summary_with_report(len, pad);
	cr_assert_eq(strlen(got), RUN_MAX_SUMMARY_BYTES, "%zu bytes", strlen(got));
	cr_assert(strcmp(got, want) == 0, "a summary at the bound is kept whole");
	cr_assert_null(strstr(got, "[summary truncated"));
	free(want);
	free(got);

	len = sized(RUN_MAX_SUMMARY_BYTES + 1, &pad, &want);
	got = summary_with_report(len, pad);
	cr_assert_leq(strlen(got), RUN_MAX_SUMMARY_BYTES, "%zu bytes", strlen(got));
	cr_assert_not_null(m = strstr(got, "\n\n...[summary truncated omitted_bytes="), "one byte over is cut");
	cr_assert_eq(sscanf(m, "\n\n...[summary truncated omitted_bytes=%zu original_sha256=%71[^]]",
			    &omitted, digest), 2);
	kept = (size_t)(m - got);
	cr_assert(strncmp(got, want, kept) == 0, "the kept text is the start of the original");
	cr_assert_eq(kept + omitted, RUN_MAX_SUMMARY_BYTES + 1, "kept %zu + omitted %zu", kept, omitted);
	sha256_hex(want, strlen(want), whole);
	cr_assert_str_eq(digest, whole, "original_sha256 is the digest of the whole original text");
	cr_assert_str_eq(m + strlen(m) - 2, "]\n");
	free(want);
	free(got);
}

Test(io_run, final_summary_over_64_KiB_ends_with_the_truncation_marker)
{
	struct harness h = { 0 };
	size_t big = RUN_MAX_SUMMARY_BYTES + 5000, n, omitted = 0, kept;
	char *report = malloc(big + 1), digest[80] = "";
	const char *s, *m;

	cr_assert_not_null(report);
	/* two-byte characters, so that the cut must land on a boundary */
	for (size_t i = 0; i + 1 < big; i += 2)
		memcpy(report + i, "\xc3\xa9", 2);
	report[big - (big % 2)] = '\0';
	ended_with_finding(&h, report);
	s = run_summary(h.run);
	n = strlen(s);
	cr_assert(n <= RUN_MAX_SUMMARY_BYTES, "%zu bytes", n);
	m = strstr(s, "\n\n...[summary truncated omitted_bytes=");
	cr_assert_not_null(m);
	cr_assert_eq(sscanf(m, "\n\n...[summary truncated omitted_bytes=%zu original_sha256=%71[^]]", &omitted, digest), 2);
	cr_assert_eq(strlen(digest), 71);
	cr_assert_eq(strncmp(digest, "sha256:", 7), 0);
	cr_assert_str_eq(m + strlen(m) - 2, "]\n");
	kept = (size_t)(m - s);
	cr_assert(kept + omitted > RUN_MAX_SUMMARY_BYTES + 5000,
		  "kept %zu + omitted %zu is the whole original", kept, omitted);
	cr_assert(n >= RUN_MAX_SUMMARY_BYTES - 1, "the cut fills the bound up to a character boundary");
	cr_assert_neq((unsigned char)s[kept - 1], 0xc3, "a character is split at the cut");
	free(report);
	finish(&h);
}
