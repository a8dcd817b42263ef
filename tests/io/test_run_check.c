/* The Run record codec (io/store/run_check.c): one pass checks the record's shape
 * and decodes it into the structs of io/store/run_record.h.  Every field the
 * structs hold, deleted when required or given another type, is
 * run_journal_invalid naming its path; the decoded values are the
 * record's; and changes made through io/store/run.h keep the structs in step. */

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/err.h"
#include "io/wire/outcome.h"
#include "io/store/run.h"
#include "io/store/run_check.h"
#include "io/store/run_codec.h"
#include "io/store/run_record.h"
#include "io/source/source.h"
#include "io/source/source_json.h"

static void setup(void)
{
	sw_alloc_init();
}

TestSuite(io_run_check, .init = setup);

#define D1 "sha256:1111111111111111111111111111111111111111111111111111111111111111"
#define D2 "sha256:2222222222222222222222222222222222222222222222222222222222222222"

/* A record in which every value is one the structs hold (so every leaf is
 * checked), with every optional part present. */
static const char fixture[] =
	"{\"contract_version\": 2, \"id\": \"run-1\", \"goal\": \"the goal\","
	" \"workspace\": \"/w\","
	" \"workspace_identity\": {\"version\": 1, \"worktree_root\": \"/w\", \"git_dir\": \"/w/.git\","
	"   \"git_common_dir\": \"/w/.git\", \"id\": \"ws-1\"},"
	" \"state\": \"paused\", \"pause_reason\": \"destructive_confirmation_required\","
	" \"review_enabled\": true, \"review_pending\": false,"
	" \"initial_budget\": 9, \"remaining_budget\": 7,"
	" \"initial_git\": {\"version\": 1}, \"current_git\": {\"version\": 1},"
	" \"final_git_observed\": false,"
	" \"pinned_source\": {\"provider\": \"github\", \"host\": \"github.com\", \"issue_id\": \"I_1\","
	"   \"canonical_url\": \"https://github.com/o/r/issues/1\", \"source_revision\": \"" D1 "\","
	"   \"manifest_revision\": \"" D2 "\", \"requirements_revision\": \"" D1 "\","
	"   \"sections\": [{\"key\": \"goal\", \"role\": \"requirements\", \"title\": \"Goal\","
	"     \"section_revision\": \"" D1 "\", \"material_sha256\": \"" D2 "\", \"bytes\": 12}]},"
	" \"source_candidate\": {\"candidate_id\": \"cand-1\", \"valid\": true,"
	"   \"classification\": \"valid\", \"classification_code\": \"valid_change\","
	"   \"classification_error\": \"none\","
	"   \"snapshot\": {\"provider\": \"github\", \"host\": \"github.com\", \"issue_id\": \"I_1\","
	"     \"canonical_url\": \"https://github.com/o/r/issues/1\", \"source_revision\": \"" D2 "\","
	"     \"manifest_revision\": \"" D1 "\", \"requirements_revision\": \"" D2 "\","
	"     \"sections\": []}},"
	" \"last_source_choice\": {\"candidate_id\": \"cand-0\", \"choice\": \"adopt\","
	"   \"resulting_action_id\": \"act-2\", \"at\": \"2026-11-30T10:00:00Z\"},"
	" \"last_resume_result\": {\"operation\": \"resume\", \"budget_applied\": true,"
	"   \"candidate_id\": \"cand-0\"},"
	" \"current_action\": {\"contract_version\": 2, \"run_id\": \"run-1\", \"action_id\": \"act-2\","
	"   \"kind\": \"implement\", \"goal\": \"the goal\", \"brief\": \"do it\", \"remaining_budget\": 7,"
	"   \"context_sha256\": \"" D2 "\", \"source\": {},"
	"   \"requirements\": {\"requirements_revision\": \"" D1 "\","
	"     \"sections\": [{\"key\": \"goal\", \"role\": \"requirements\", \"title\": \"Goal\","
	"       \"section_revision\": \"" D1 "\", \"material_sha256\": \"" D2 "\", \"bytes\": 12}]}},"
	" \"actions\": [{\"action\": {\"contract_version\": 2, \"run_id\": \"run-1\", \"action_id\": \"act-2\","
	"   \"kind\": \"implement\", \"goal\": \"the goal\", \"brief\": \"do it\", \"remaining_budget\": 7,"
	"   \"context_sha256\": \"" D2 "\"},"
	"   \"outcome\": {\"status\": \"needs_input\", \"pause\": {\"question\": \"may I?\","
	"     \"supersedes_answer_action_id\": \"act-1\"}},"
	"   \"outcome_payload_sha256\": \"" D1 "\", \"voided\": false}],"
	" \"answers\": [{\"action_id\": \"act-1\", \"text\": \"yes\", \"confirm_destructive\": false,"
	"   \"payload_sha256\": \"" D2 "\", \"active\": true, \"at\": \"2026-11-30T09:00:00Z\","
	"   \"scope_sha256\": \"" D1 "\", \"superseded_by\": \"requirements:x\","
	"   \"requirements_revision\": \"" D1 "\"}],"
	" \"summary\": \"so far\","
	" \"pending_destructive_request\": {\"request_id\": \"req-1\", \"impact\": \"drops a table\","
	"   \"scope_sha256\": \"" D1 "\", \"targets\": [{\"kind\": \"path\", \"value\": \"db\"}]},"
	" \"created_at\": \"2026-11-30T08:00:00Z\", \"updated_at\": \"2026-11-30T10:00:00Z\"}";

/* The paths (dot-joined, [i] for elements) whose deletion the record
 * allows. */
static const char *const optional_paths[] = {
	"pause_reason", "current_git", "final_git_observed", "pinned_source",
	"source_candidate", "source_candidate.classification_error", "source_candidate.snapshot",
	"last_source_choice", "last_resume_result", "last_resume_result.candidate_id",
	"current_action", "current_action.source", "current_action.requirements", "actions",
	"actions[0].outcome", "actions[0].outcome.status", "actions[0].outcome.pause",
	"actions[0].outcome.pause.question", "actions[0].outcome.pause.supersedes_answer_action_id",
	"actions[0].outcome_payload_sha256", "actions[0].voided", "answers",
	"answers[0].scope_sha256", "answers[0].superseded_by", "answers[0].requirements_revision",
	"summary", "pending_destructive_request",
};

static json_t *load_fixture(void)
{
	json_error_t jerr;
	json_t *v = json_loads(fixture, JSON_REJECT_DUPLICATES, &jerr);

	cr_assert_not_null(v, "fixture: %s", jerr.text);
	return v;
}

static int optional_path(const char *path)
{
	for (size_t i = 0; i < sizeof(optional_paths) / sizeof(optional_paths[0]); i++)
		if (strcmp(optional_paths[i], path) == 0)
			return 1;
	return 0;
}

/* A value of another JSON type than `v`'s (and not null). */
static json_t *other_type(const json_t *v)
{
	if (json_is_string(v))
		return json_integer(7);
	if (json_is_integer(v) || json_is_boolean(v))
		return json_string("x");
	if (json_is_array(v))
		return json_object();
	return json_array();
}

struct tally {
	size_t deleted, retyped, optional;
};

static void expect_refused(const json_t *rec, const char *path, const char *what)
{
	struct sw_error err = SW_ERROR_INIT;
	struct run_view *v = NULL;
	int rc = run_view_decode(&v, rec, &err);

	cr_assert_eq(rc, SW_EPROTO, "%s %s: decoded (rc %d)", what, path, rc);
	cr_assert_eq(err.proto, TBL_ERR_RUN_JOURNAL_INVALID, "%s %s", what, path);
	cr_assert_not_null(strstr(err.msg, path), "%s %s: %s", what, path, err.msg);
	cr_assert_null(v);
}

static void expect_decoded(const json_t *rec, const char *path)
{
	struct sw_error err = SW_ERROR_INIT;
	struct run_view *v = NULL;

	cr_assert_eq(run_view_decode(&v, rec, &err), 0, "deleting %s: %s", path, err.msg);
	run_view_free(v);
}

/* Mutates every member of `node` (inside `root`) in turn. */
static void mutate_all(json_t *root, json_t *node, const char *prefix, struct tally *t)
{
	char path[256];

	if (json_is_object(node)) {
		/* The keys first: deleting and setting a key again moves it. */
		const char *k;
		char keys[64][64];
		size_t n = 0;
		json_t *val, *saved;

		json_object_foreach(node, k, val) {
			cr_assert_lt(n, 64);
			snprintf(keys[n++], sizeof(keys[0]), "%s", k);
		}
		for (size_t i = 0; i < n; i++) {
			const char *key = keys[i];

			snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", key);
			saved = json_incref(json_object_get(node, key));
			json_object_del(node, key);
			if (optional_path(path)) {
				expect_decoded(root, path);
				t->optional++;
			} else
				expect_refused(root, path, "deleting");
			t->deleted++;
			json_object_set_new(node, key, other_type(saved));
			expect_refused(root, path, "retyping");
			t->retyped++;
			json_object_set_new(node, key, saved);
			mutate_all(root, saved, path, t);
		}
	} else if (json_is_array(node)) {
		json_t *el;
		size_t i;

		json_array_foreach(node, i, el) {
			snprintf(path, sizeof(path), "%s[%zu]", prefix, i);
			json_incref(el);
			json_array_set_new(node, i, other_type(el));
			expect_refused(root, path, "retyping");
			t->retyped++;
			json_array_set_new(node, i, el);
			mutate_all(root, el, path, t);
		}
	}
}

Test(io_run_check, every_field_missing_or_of_another_type_is_run_journal_invalid)
{
	json_t *rec = load_fixture();
	struct tally t = { 0 };

	expect_decoded(rec, "nothing");
	mutate_all(rec, rec, "", &t);
	/* Every optional path is in the fixture, and every element of its
	 * lists (six, one of them empty) was retyped. */
	cr_assert_eq(t.optional, sizeof(optional_paths) / sizeof(optional_paths[0]));
	cr_assert_gt(t.deleted, 100);
	cr_assert_eq(t.retyped, t.deleted + 5, "array elements retyped: %zu", t.retyped - t.deleted);
	json_decref(rec);
}

Test(io_run_check, unknown_spellings_are_refused)
{
	static const char *const fields[][2] = {
		{ "state", "state" }, { "pause_reason", "pause_reason" },
	};
	json_t *rec = load_fixture();

	for (size_t i = 0; i < 2; i++) {
		json_t *copy = json_deep_copy(rec);

		json_object_set_new(copy, fields[i][0], json_string("sleeping"));
		expect_refused(copy, fields[i][1], "misspelling");
		json_decref(copy);
	}
	json_object_set_new(json_object_get(rec, "current_action"), "kind", json_string("nap"));
	expect_refused(rec, "current_action.kind", "misspelling");
	json_decref(rec);
}

Test(io_run_check, the_structs_hold_the_records_values)
{
	json_t *rec = load_fixture();
	struct sw_error err = SW_ERROR_INIT;
	struct run_view *v = NULL;
	const struct run_record *r;
	const struct run_action_record *cur;

	cr_assert_eq(run_view_decode(&v, rec, &err), 0, "%s", err.msg);
	r = run_view_record(v);
	cr_assert_str_eq(r->id, "run-1");
	cr_assert_str_eq(r->workspace_identity.git_dir, "/w/.git");
	cr_assert_eq(r->state, FSM_RUN_PAUSED);
	cr_assert_eq(r->pause_reason, FSM_PAUSE_DESTRUCTIVE);
	cr_assert(r->review_enabled && !r->review_pending);
	cr_assert_eq(r->initial_budget, 9);
	cr_assert_eq(r->remaining_budget, 7);
	cr_assert_eq(r->pinned_source->n_sections, 1);
	cr_assert_eq(r->pinned_source->sections[0].bytes, 12);
	cr_assert_str_eq(r->pinned_source->sections[0].title, "Goal");
	cr_assert_str_eq(r->source_candidate->snapshot->source_revision, D2);
	cr_assert_eq(r->source_candidate->snapshot->n_sections, 0);
	cr_assert_str_eq(r->last_source_choice->resulting_action_id, "act-2");
	cr_assert(r->last_resume_result->budget_applied);
	cr_assert_eq(r->current_action->kind, FSM_KIND_IMPLEMENT);
	cr_assert(r->current_action->has_source);
	cr_assert_str_eq(r->current_action->requirements->sections[0].material_sha256, D2);
	cur = run_record_current(r);
	cr_assert_not_null(cur);
	cr_assert_str_eq(cur->outcome->pause->question, "may I?");
	cr_assert_str_eq(cur->outcome->status, "needs_input");
	cr_assert_null(cur->action.requirements);
	cr_assert(!cur->action.has_source && !cur->voided);
	cr_assert_eq(r->n_answers, 1);
	cr_assert_eq(run_record_answer(r, "act-1"), &r->answers[0]);
	cr_assert_null(run_record_answer(r, "act-2"));
	cr_assert_str_eq(r->answers[0].requirements_revision, D1);
	cr_assert_str_eq(r->pending_destructive_request->targets[0].value, "db");
	cr_assert_eq(r->pending_destructive_request->n_targets, 1);
	cr_assert_str_eq(r->summary, "so far");
	cr_assert_eq(run_section_find(r->pinned_source->sections, 1, "goal"),
		     &r->pinned_source->sections[0]);
	cr_assert_null(run_section_find(r->pinned_source->sections, 1, "scope"));
	run_view_free(v);
	json_decref(rec);
}

Test(io_run_check, absent_parts_decode_as_null_and_empty)
{
	json_t *rec = load_fixture();
	struct sw_error err = SW_ERROR_INIT;
	struct run_view *v = NULL;
	const struct run_record *r;

	for (size_t i = 0; i < sizeof(optional_paths) / sizeof(optional_paths[0]); i++)
		if (strchr(optional_paths[i], '.') == NULL && strchr(optional_paths[i], '[') == NULL)
			json_object_del(rec, optional_paths[i]);
	cr_assert_eq(run_view_decode(&v, rec, &err), 0, "%s", err.msg);
	r = run_view_record(v);
	cr_assert_eq(r->pause_reason, FSM_PAUSE_NONE);
	cr_assert_null(r->pinned_source);
	cr_assert_null(r->source_candidate);
	cr_assert_null(r->last_source_choice);
	cr_assert_null(r->last_resume_result);
	cr_assert_null(r->current_action);
	cr_assert_null(run_record_current(r));
	cr_assert_eq(r->n_actions, 0);
	cr_assert_eq(r->n_answers, 0);
	cr_assert_null(r->summary);
	cr_assert_null(r->pending_destructive_request);
	run_view_free(v);
	json_decref(rec);
}

/* A Run made from `rec` (its first journal event), checked. */
static struct run *run_of(const json_t *rec)
{
	json_t *event = json_pack("{s:i, s:i, s:s, s:O}", "event_version", 2, "contract_version", 2,
				  "run_id", "run-1", "initialize", rec);
	struct sw_error err = SW_ERROR_INIT;
	struct run *r = NULL;

	cr_assert_eq(run_replay(&r, "run_started", event, &err), 0, "%s", err.msg);
	cr_assert_eq(run_check(r, &err), 0, "%s", err.msg);
	json_decref(event);
	return r;
}

/* A Run made from the record (its first journal event), checked, then
 * changed through io/store/run.h: the structs follow every change. */
Test(io_run_check, changes_through_the_run_api_keep_the_structs_in_step)
{
	json_t *rec = load_fixture(), *summary = json_string("later");
	struct sw_error err = SW_ERROR_INIT;
	struct run *r, *c = NULL;

	json_object_del(rec, "actions");	/* no Outcome to re-check */
	r = run_of(rec);
	cr_assert_str_eq(run_record(r)->summary, "so far");
	cr_assert_eq(run_set_field(r, "summary", summary, &err), 0);
	cr_assert_str_eq(run_record(r)->summary, "later");
	cr_assert_eq(run_set_field(r, "pending_destructive_request", NULL, &err), 0);
	cr_assert_null(run_record(r)->pending_destructive_request);
	cr_assert_eq(run_set_resume_result(r, "resume_with_budget", 0, &err), 0);
	cr_assert_str_eq(run_record(r)->last_resume_result->operation, "resume_with_budget");
	cr_assert(!run_record(r)->last_resume_result->budget_applied);
	cr_assert_eq(run_set_pinned_source(r, json_object_get(json_object_get(rec, "source_candidate"),
							      "snapshot"), &err), 0);
	cr_assert_str_eq(run_record(r)->pinned_source->source_revision, D2);
	cr_assert_eq(run_clone(&c, r, &err), 0);
	run_free(r);		/* the clone's structs are its own */
	cr_assert_str_eq(run_record(c)->summary, "later");
	cr_assert_str_eq(run_record(c)->pinned_source->source_revision, D2);
	/* A change the codec refuses leaves the error, not a broken view. */
	cr_assert_eq(run_set_field(c, "summary", json_object_get(rec, "initial_budget"), &err),
		     SW_EPROTO);
	cr_assert_eq(err.proto, TBL_ERR_RUN_JOURNAL_INVALID);
	run_free(c);
	json_decref(summary);
	json_decref(rec);
}

/* A replayed source choice answers with the earlier receipt and result,
 * in memory only: the structs read after run_apply_replay show them. */
Test(io_run_check, a_replayed_choice_keeps_the_structs_in_step)
{
	json_t *rec = load_fixture();
	json_t *receipt = json_pack("{s:s, s:s, s:s, s:s}", "candidate_id", "cand-7", "choice",
				    "pinned", "resulting_action_id", "act-2", "at",
				    "2026-11-30T11:00:00Z");
	json_t *result = json_pack("{s:s, s:b, s:s}", "operation", "resume_keep_pinned",
				   "budget_applied", 0, "candidate_id", "cand-7");
	struct fsm_step st = { .verdict = FSM_IDEMPOTENT, .ops = FSM_OP(REPLAY_CHOICE) };
	struct run_effects fx = { .prior_receipt = receipt, .prior_result = result };
	struct sw_error err = SW_ERROR_INIT;
	struct run *r;

	json_object_del(rec, "actions");
	r = run_of(rec);
	cr_assert_str_eq(run_record(r)->last_source_choice->candidate_id, "cand-0");
	cr_assert_eq(run_apply_replay(r, &st, &fx, &err), 0, "%s", err.msg);
	cr_assert_str_eq(run_record(r)->last_source_choice->candidate_id, "cand-7");
	cr_assert_str_eq(run_record(r)->last_source_choice->choice, "pinned");
	cr_assert_str_eq(run_record(r)->last_resume_result->operation, "resume_keep_pinned");
	cr_assert(!run_record(r)->last_resume_result->budget_applied);
	/* No earlier result: the field goes, from the structs too. */
	fx.prior_result = NULL;
	cr_assert_eq(run_apply_replay(r, &st, &fx, &err), 0, "%s", err.msg);
	cr_assert_null(run_record(r)->last_resume_result);
	run_free(r);
	json_decref(receipt);
	json_decref(result);
	json_decref(rec);
}

/* The request the record keeps verifies against its own scope digest, and
 * stops verifying when any part of it changes. */
Test(io_run_check, a_recorded_request_verifies_by_its_scope_digest)
{
	json_t *rec = load_fixture();
	json_t *req = json_object_get(rec, "pending_destructive_request");
	char kind[] = "path", value[] = "db", id[] = "3f2b8c1e-9d4a-4b7e-8f6a-1c2d3e4f5a6b", impact[] = "drops a table";
	struct outcome_target t = { kind, value };
	struct outcome_request o = { id, &t, 1, impact, NULL };
	struct sw_error err = SW_ERROR_INIT;
	struct run_view *v = NULL;
	char scope[SW_DIGEST_LEN];

	cr_assert_eq(outcome_scope_sha256(&o, scope, &err), 0, "%s", err.msg);
	json_object_set_new(req, "request_id", json_string(id));
	json_object_set_new(req, "scope_sha256", json_string(scope));
	cr_assert_eq(run_view_decode(&v, rec, &err), 0, "%s", err.msg);
	cr_assert(run_request_verifies(run_view_record(v)->pending_destructive_request));
	cr_assert(!run_request_verifies(NULL));
	run_view_free(v);
	json_object_set_new(req, "impact", json_string("drops two tables"));
	cr_assert_eq(run_view_decode(&v, rec, &err), 0, "%s", err.msg);
	cr_assert(!run_request_verifies(run_view_record(v)->pending_destructive_request));
	run_view_free(v);
	json_decref(rec);
}

/* The pinned source and the waiting candidate come back as the typed
 * source structs, from a real envelope (tests/data/source-envelope.json). */
Test(io_run_check, the_pinned_source_and_candidate_decode_into_the_source_structs)
{
	json_t *rec = load_fixture(), *pj = NULL, *cj = NULL;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL, *back_c = NULL;
	struct source_pinned *back_p = NULL;
	char *buf = NULL, *cid = NULL;
	size_t len = 0;
	struct run *r;

	cr_assert_eq(source_read_file(&buf, &len, "tests/data/source-envelope.json", &err), 0,
		     "%s", err.msg);
	cr_assert_eq(source_parse_candidate(&c, buf, len, &err), 0, "%s", err.msg);
	cr_assert(c->valid);
	cr_assert_eq(source_pinned_to_json(&pj, c->snapshot, &err), 0, "%s", err.msg);
	cr_assert_eq(source_candidate_to_json(&cj, c, "cand-9", "2026-11-30T10:00:00Z", &err), 0);
	json_object_set_new(rec, "pinned_source", pj);
	json_object_set_new(rec, "source_candidate", cj);
	json_object_del(rec, "actions");
	r = run_of(rec);
	cr_assert_eq(run_pinned_source(&back_p, r, &err), 0, "%s", err.msg);
	cr_assert_str_eq(back_p->issue_id, c->snapshot->issue_id);
	cr_assert_str_eq(back_p->requirements_revision, c->snapshot->requirements_revision);
	cr_assert_eq(back_p->n_sections, c->snapshot->n_sections);
	cr_assert_eq(run_record(r)->pinned_source->n_sections, c->snapshot->n_sections);
	cr_assert_str_eq(run_record(r)->pinned_source->sections[0].key, c->snapshot->sections[0].key);
	cr_assert_eq(run_source_candidate(&back_c, &cid, r, &err), 0, "%s", err.msg);
	cr_assert_str_eq(cid, "cand-9");
	cr_assert(back_c->valid);
	cr_assert_str_eq(back_c->snapshot->manifest_revision, c->snapshot->manifest_revision);
	cr_assert_str_eq(run_record(r)->source_candidate->snapshot->manifest_revision,
			 c->snapshot->manifest_revision);
	source_pinned_free(back_p);
	source_candidate_free(back_c);
	sw_free(cid);
	run_free(r);
	/* An ad-hoc Run has neither. */
	json_object_del(rec, "pinned_source");
	json_object_del(rec, "source_candidate");
	r = run_of(rec);
	cr_assert_eq(run_pinned_source(&back_p, r, &err), SW_ENOTFOUND);
	cr_assert_null(back_p);
	cr_assert_eq(run_source_candidate(&back_c, &cid, r, &err), SW_ENOTFOUND);
	cr_assert_null(back_c);
	cr_assert_null(cid);
	run_free(r);
	source_candidate_free(c);
	sw_free(buf);
	json_decref(rec);
}

/* Every allocation of a decode failing in turn gives SW_ENOMEM, no view
 * and no leak; the first decode that gets all its memory succeeds. */
Test(io_run_check, each_failed_allocation_of_a_decode_is_enomem_and_leaks_nothing)
{
	json_t *rec = load_fixture();
	struct sw_error err = SW_ERROR_INIT;
	struct run_view *v = NULL;
	unsigned long n;
	int rc;

	for (n = 1;; n++) {
		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = run_view_decode(&v, rec, &err);
		sw_alloc_fail_after(0);
		if (rc == 0)
			break;
		cr_assert_eq(rc, SW_ENOMEM, "allocation %lu: %d %s", n, rc, err.msg);
		cr_assert_null(v);
	}
	cr_assert_gt(n, 8, "the fixture decodes into more than 8 blocks");
	cr_assert_str_eq(run_view_record(v)->pending_destructive_request->targets[0].kind, "path");
	run_view_free(v);
	json_decref(rec);
}

/* Superseding an answer by its Action id: only an active, non-destructive
 * answer given under the Run's kind of source may be superseded. */
Test(io_run_check, an_answer_may_be_superseded_only_while_active_and_not_destructive)
{
	json_t *rec = load_fixture();
	struct sw_error err = SW_ERROR_INIT;
	struct run *r;

	json_object_del(rec, "actions");
	r = run_of(rec);
	cr_assert_eq(run_supersedes_invalid(r, NULL), 0);
	cr_assert_eq(run_supersedes_invalid(r, "act-1"), 0);
	cr_assert_eq(run_supersedes_invalid(r, "act-9"), 1);
	/* Given under requirements, it cannot be superseded in an ad-hoc Run. */
	cr_assert_eq(run_set_field(r, "pinned_source", NULL, &err), 0);
	cr_assert_eq(run_supersedes_invalid(r, "act-1"), 1);
	run_free(r);
	json_object_set_new(json_array_get(json_object_get(rec, "answers"), 0), "active", json_false());
	r = run_of(rec);
	cr_assert_eq(run_supersedes_invalid(r, "act-1"), 1);
	run_free(r);
	json_decref(rec);
}
