/* Structure-aware libFuzzer harness for the journal replay and the Run
 * record check (io/run.h, io/run_check.h).
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

#include "io/run.h"
#include "io/run_check.h"

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

static void read_everything(const struct run *r)
{
	struct fsm_run m = run_machine(r);
	json_t *v;

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
