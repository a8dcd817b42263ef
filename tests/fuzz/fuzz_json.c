/* libFuzzer harness for the one-pass JSON encoder (io/util/json.h): on every
 * input, sw_json_dump and sw_json_dump_html write exactly the bytes of
 * their oracle, sw_json_dump_jansson, or fail where it fails.  Each input
 * is tried three ways:
 *   - parsed as JSON (any value, \u0000 allowed), then encoded;
 *   - its raw bytes as a string value, valid UTF-8 or not;
 *   - its raw bytes as an object key.
 * A difference aborts with both outputs. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "io/util/err.h"
#include "io/util/json.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sw_alloc_init();
	return 0;
}

static void same(const json_t *v)
{
	for (int html = 0; html < 2; html++) {
		char *fast = html ? sw_json_dump_html(v) : sw_json_dump(v);
		char *ref = sw_json_dump_jansson(v, html);

		if ((fast == NULL) != (ref == NULL) || (fast && strcmp(fast, ref) != 0)) {
			fprintf(stderr, "fuzz_json: html=%d encoder %s\noracle  %s\n", html,
				fast ? fast : "(null)", ref ? ref : "(null)");
			abort();
		}
		sw_free(fast);
		sw_free(ref);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	json_t *v = json_loadb(s, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);

	if (v != NULL) {
		same(v);
		json_decref(v);
	}
	if ((v = json_array()) != NULL) {
		if (json_array_append_new(v, json_stringn_nocheck(s, size)) == 0)
			same(v);
		json_decref(v);
	}
	if ((v = json_object()) != NULL) {
		if (json_object_setn_new_nocheck(v, s, size, json_integer((json_int_t)size)) == 0)
			same(v);
		json_decref(v);
	}
	return 0;
}
