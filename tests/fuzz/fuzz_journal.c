/* Structure-aware libFuzzer harness for the journal replay and the Run
 * record check (io/store/run.h, io/store/run_check.h).
 *
 * The input is not a journal: it is a list of edits applied to a real one
 * (tests/fuzz/journal_seed.jsonl, a Run with a decision, an answer, a
 * suggestion, an Implement report and a stop).  Each edit picks a record
 * and a path inside it, then deletes that field, gives it another type,
 * moves it to the end of its object, swaps two array elements, or drops,
 * repeats or swaps whole records.  The edited records are replayed and
 * checked, then every reader the commands use runs on the result.
 *
 * Properties, on every input:
 *   - replay or check fails only with run_journal_invalid (or SW_ENOMEM);
 *   - a Run that passes the check is read without a crash, a leak or
 *     undefined behaviour by run_machine, fsm_next, run_status_json and
 *     run_current_action_full. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "io/store/run.h"
#include "io/store/run_check.h"
#include "io/store/run_record.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECORDS 64
#define MAX_PATHS 4096

static json_t *seed[MAX_RECORDS];
static size_t nseed;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("SLIPWAY_JOURNAL_SEED");
	char line[1 << 16];
	FILE *f;

	(void)argc;
	(void)argv;
	sw_alloc_init();
	f = fopen(path ? path : "tests/fuzz/journal_seed.jsonl", "r");
	if (f == NULL)
		abort();
	while (nseed < MAX_RECORDS && fgets(line, sizeof(line), f)) {
		json_t *rec = json_loads(line, JSON_REJECT_DUPLICATES, NULL);

		if (!json_is_object(rec))
			abort();
		seed[nseed++] = rec;
	}
	fclose(f);
	if (nseed == 0)
		abort();
	return 0;
}

/* The input as a stream of small numbers. */
struct bytes {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct bytes *b, unsigned bound)
{
	unsigned v = 0;

	if (bound == 0)
		return 0;
	if (b->n > 0) {
		v = b->p[0];
		b->p++;
		b->n--;
	}
	if (bound > 256 && b->n > 0) {
		v = v << 8 | b->p[0];
		b->p++;
		b->n--;
	}
	return v % bound;
}

/* Every value under `v` with its parent and its key (object) or index. */
struct place {
	json_t *parent;
	const char *key;		/* NULL: an array element */
	size_t index;
};

static void collect(json_t *v, struct place *out, size_t *n)
{
	const char *k;
	json_t *c;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, c) {
			if (*n < MAX_PATHS)
				out[(*n)++] = (struct place){ v, k, 0 };
			collect(c, out, n);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, c) {
			if (*n < MAX_PATHS)
				out[(*n)++] = (struct place){ v, NULL, i };
			collect(c, out, n);
		}
	}
}

static json_t *retyped(unsigned t)
{
	switch (t) {
	case 0:
		return json_null();
	case 1:
		return json_integer(-1);
	case 2:
		return json_string("bogus");
	case 3:
		return json_true();
	case 4:
		return json_object();
	default:
		return json_array();
	}
}

static void edit_field(json_t *rec, struct bytes *b)
{
	static struct place places[MAX_PATHS];
	size_t n = 0;
	struct place *p;
	unsigned op;

	collect(rec, places, &n);
	if (n == 0)
		return;
	p = &places[take(b, (unsigned)n)];
	op = take(b, 4);
	if (p->key) {
		char key[256];
		json_t *v = json_incref(json_object_get(p->parent, p->key));

		snprintf(key, sizeof(key), "%s", p->key);
		json_object_del(p->parent, key);
		if (op == 1)
			json_object_set_new(p->parent, key, retyped(take(b, 6)));
		else if (op >= 2)	/* reorder: the same value, now last */
			json_object_set(p->parent, key, v);
		json_decref(v);
		return;
	}
	if (op == 0) {
		json_array_remove(p->parent, p->index);
	} else if (op == 1) {
		json_array_set_new(p->parent, p->index, retyped(take(b, 6)));
	} else {
		size_t other = take(b, (unsigned)json_array_size(p->parent));
		json_t *a = json_incref(json_array_get(p->parent, p->index));

		json_array_set(p->parent, p->index, json_array_get(p->parent, other));
		json_array_set_new(p->parent, other, a);
	}
}

static char *no_context(const char *digest, void *payload)
{
	(void)digest;
	(void)payload;
	return sw_strdup("");
}

/* Touches every string of the decoded record, so the sanitizers see a
 * pointer the decoder left dangling or unset. */
static size_t walk_str(const char *s)
{
	return s ? strlen(s) : 0;
}

static size_t walk_sections(const struct run_section *s, size_t n)
{
	size_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += walk_str(s[i].key) + walk_str(s[i].role) + walk_str(s[i].title) +
		     walk_str(s[i].section_revision) + walk_str(s[i].material_sha256);
	return t;
}

static size_t walk_action(const struct run_action *a)
{
	size_t t;

	if (a == NULL)
		return 0;
	t = walk_str(a->action_id) + walk_str(a->goal) + walk_str(a->brief) +
	    walk_str(a->context_sha256) + walk_str(tbl_kind_wire[a->kind]);
	if (a->requirements)
		t += walk_str(a->requirements->requirements_revision) +
		     walk_sections(a->requirements->sections, a->requirements->n_sections);
	return t;
}

static size_t walk_pinned(const struct run_pinned_source *p)
{
	if (p == NULL)
		return 0;
	return walk_str(p->provider) + walk_str(p->host) + walk_str(p->issue_id) +
	       walk_str(p->canonical_url) + walk_str(p->source_revision) +
	       walk_str(p->manifest_revision) + walk_str(p->requirements_revision) +
	       walk_sections(p->sections, p->n_sections);
}

static size_t walk_record(const struct run_record *rec)
{
	size_t t = walk_str(rec->id) + walk_str(rec->goal) + walk_str(rec->workspace) +
		   walk_str(rec->workspace_identity.id) + walk_str(rec->workspace_identity.worktree_root) +
		   walk_str(tbl_runstate_wire[rec->state]) + walk_str(tbl_pause_wire[rec->pause_reason]) +
		   walk_str(rec->summary) + walk_str(rec->created_at) + walk_str(rec->updated_at) +
		   walk_action(rec->current_action) + walk_pinned(rec->pinned_source);

	for (size_t i = 0; i < rec->n_actions; i++) {
		const struct run_action_record *a = &rec->actions[i];

		t += walk_action(&a->action) + walk_str(a->outcome_payload_sha256);
		if (a->outcome)
			t += walk_str(a->outcome->status) +
			     (a->outcome->pause ? walk_str(a->outcome->pause->question) +
			      walk_str(a->outcome->pause->supersedes_answer_action_id) : 0);
	}
	for (size_t i = 0; i < rec->n_answers; i++)
		t += walk_str(rec->answers[i].action_id) + walk_str(rec->answers[i].text) +
		     walk_str(rec->answers[i].scope_sha256) + walk_str(rec->answers[i].superseded_by);
	if (rec->pending_destructive_request) {
		const struct run_request *q = rec->pending_destructive_request;

		t += walk_str(q->request_id) + walk_str(q->impact) + walk_str(q->scope_sha256);
		for (size_t i = 0; i < q->n_targets; i++)
			t += walk_str(q->targets[i].kind) + walk_str(q->targets[i].value);
	}
	if (rec->source_candidate)
		t += walk_str(rec->source_candidate->candidate_id) +
		     walk_str(rec->source_candidate->classification) +
		     walk_str(rec->source_candidate->classification_code) +
		     walk_str(rec->source_candidate->classification_error) +
		     walk_pinned(rec->source_candidate->snapshot);
	if (rec->last_source_choice)
		t += walk_str(rec->last_source_choice->candidate_id) +
		     walk_str(rec->last_source_choice->choice) +
		     walk_str(rec->last_source_choice->resulting_action_id);
	if (rec->last_resume_result)
		t += walk_str(rec->last_resume_result->operation) +
		     walk_str(rec->last_resume_result->candidate_id);
	return t;
}

static volatile size_t walked;

static void read_everything(const struct run *r)
{
	struct fsm_run m = run_machine(r);
	json_t *v;

	walked += walk_record(run_record(r));
	(void)fsm_next(&m, NULL);
	(void)run_summary(r);
	(void)run_current_action_id(r);
	v = run_status_json(r, 1, no_context, NULL);
	json_decref(v);
	v = run_current_action_full(r, no_context, NULL);
	json_decref(v);
}

static void fail_unless_invalid(const struct sw_error *err)
{
	if (err->code == SW_ENOMEM)
		return;
	if (err->code != SW_EPROTO || err->proto != TBL_ERR_RUN_JOURNAL_INVALID)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = { data, size };
	json_t *recs[MAX_RECORDS];
	size_t n = nseed, i;
	struct sw_error err = SW_ERROR_INIT;
	struct run *r = NULL;
	unsigned edits = take(&b, 8) + 1;

	for (i = 0; i < n; i++)
		recs[i] = json_deep_copy(seed[i]);
	while (edits-- > 0 && b.n > 0) {
		unsigned what = take(&b, 8), k = take(&b, (unsigned)n);

		if (what == 0 && n > 1) {		/* drop a record */
			json_decref(recs[k]);
			memmove(&recs[k], &recs[k + 1], (n - k - 1) * sizeof(recs[0]));
			n--;
		} else if (what == 1 && n < MAX_RECORDS) {	/* repeat one */
			recs[n++] = json_deep_copy(recs[k]);
		} else if (what == 2) {			/* swap two */
			unsigned o = take(&b, (unsigned)n);
			json_t *t = recs[k];

			recs[k] = recs[o];
			recs[o] = t;
		} else {
			edit_field(recs[k], &b);
		}
	}
	for (i = 0; i < n; i++) {
		const char *type = json_string_value(json_object_get(recs[i], "type"));

		if (type == NULL)
			break;	/* the store refuses such a line before replay */
		if (run_replay(&r, type, json_object_get(recs[i], "data"), &err) < 0) {
			fail_unless_invalid(&err);
			goto out;
		}
	}
	if (r != NULL && i == n) {
		if (run_check(r, &err) < 0)
			fail_unless_invalid(&err);
		else
			read_everything(r);
	}
out:
	run_free(r);
	for (i = 0; i < n; i++)
		json_decref(recs[i]);
	return 0;
}
