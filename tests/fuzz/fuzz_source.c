/* libFuzzer harness for io/source: any byte string goes through the
 * envelope intake.  Beyond "no crash, no leak, no UB" it checks two
 * properties that must hold for every input:
 *   - a valid candidate's snapshot encodes to JSON and decodes back through
 *     the strict journal decoder (which recomputes every revision), and
 *     re-encodes to the same text;
 *   - an invalid candidate carries a known code, an observation digest and
 *     a classification_error of 1..1024 bytes;
 *   - every candidate passes source_candidate_validate and decodes back from
 *     its sourceCandidate JSON.
 * The Markdown fence scanner also runs on the raw bytes. */

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/util/err.h"
#include "io/util/json.h"
#include "io/source/source.h"
#include "io/source/source_body.h"
#include "io/source/source_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static void roundtrip(const struct source_pinned *p)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_pinned *back = NULL;
	json_t *j = NULL, *again = NULL;
	char *t1, *t2;

	check(source_pinned_validate(p, &err) == 0);
	check(source_pinned_to_json(&j, p, &err) == 0);
	check(source_pinned_from_json(&back, j, &err) == 0);
	check(source_pinned_to_json(&again, back, &err) == 0);
	t1 = sw_json_dump(j);
	t2 = sw_json_dump(again);
	check(t1 && t2 && strcmp(t1, t2) == 0);
	sw_free(t1);
	sw_free(t2);
	json_decref(again);
	json_decref(j);
	source_pinned_free(back);
}

/* The candidate passes its own persisted-candidate rules and survives the
 * journal form. */
static void candidate_roundtrip(const struct source_candidate *c)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *back = NULL;
	char *id = NULL, *at = NULL;
	json_t *j = NULL;

	check(source_candidate_validate(c, &err) == 0);
	check(source_candidate_to_json(&j, c, "fuzz", "2026-01-01T00:00:00Z", &err) == 0);
	check(source_candidate_from_json(&back, &id, &at, j, &err) == 0);
	sw_free(id);
	sw_free(at);
	json_decref(j);
	source_candidate_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	char why[512];

	if (!ready) {
		sw_alloc_init();
		ready = 1;
	}
	if (source_parse_candidate(&c, (const char *)data, size, &err) == 0) {
		if (c->valid) {
			check(c->code == SOURCE_CLASS_VALID_CHANGE && c->snapshot);
			roundtrip(c->snapshot);
		} else {
			size_t n = strlen(c->classification_error);

			check(c->code > SOURCE_CLASS_VALID_CHANGE &&
			      c->code < SOURCE_CLASS__COUNT);
			check(n > 0 && n <= SOURCE_MAX_CLASS_ERROR_BYTES);
			check(sw_digest_valid(c->observation_sha256));
			check(c->snapshot == NULL && c->title == NULL);
		}
		candidate_roundtrip(c);
		source_candidate_free(c);
	} else {
		check(err.code != SW_OK && c == NULL);
	}
	sw_error_clear(&err);
	(void)source__scan_after_manifest((const char *)data, size, why,
					  sizeof(why), &err);
	return 0;
}
