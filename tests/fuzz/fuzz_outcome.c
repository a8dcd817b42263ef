/* libFuzzer harness for outcome_decode (io/wire/outcome.h).
 *
 * Beyond "no crash, no leak, no undefined behaviour" it checks three
 * properties on every input:
 *   - a failure is SW_EPROTO with one of the two Outcome wire codes, or
 *     SW_ENOMEM, and leaves the struct zeroed;
 *   - an accepted Outcome passes outcome_validate_for with its own kind and
 *     action id, and its payload digest is the digest of the input bytes;
 *   - its canonical JSON decodes again to the same canonical JSON.
 *
 * Allocation failures are walked by tests/io/test_outcome.c, not here:
 * injecting them under the fuzzer found that Jansson 2.14 itself aborts
 * (load.c lex_unget_unsave, assert `c == d`) when its token buffer cannot
 * grow at a look-ahead, which no caller can prevent. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/wire/outcome.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sw_alloc_init();
	return 0;
}

static void accepted(const struct outcome *o, const uint8_t *data, size_t size)
{
	struct outcome again;
	struct sw_error err = SW_ERROR_INIT;
	char digest[SW_DIGEST_LEN];
	char *j1 = NULL, *j2 = NULL;

	sw_sha256_prefixed(data, size, digest);
	if (strcmp(digest, o->payload_sha256) != 0)
		abort();
	if (outcome_validate_for(o, o->kind, o->action_id, &err) != 0)
		abort();
	if (outcome_to_json(&j1, o, &err) != 0)
		abort();
	if (outcome_decode(&again, j1, strlen(j1), &err) != 0)
		abort();
	if (outcome_to_json(&j2, &again, &err) != 0)
		abort();
	if (strcmp(j1, j2) != 0)
		abort();
	outcome_release(&again);
	sw_free(j1);
	sw_free(j2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;
	int rc = outcome_decode(&o, (const char *)data, size, &err);

	if (rc == 0) {
		accepted(&o, data, size);
		outcome_release(&o);
		return 0;
	}
	if (o.action_id != NULL || o.pause != NULL || o.n_suggestions != 0)
		abort();
	if (rc == SW_EPROTO &&
	    (err.proto == TBL_ERR_INVALID_OUTCOME ||
	     err.proto == TBL_ERR_CONTRACT_VERSION_MISMATCH))
		return 0;
	if (rc != SW_ENOMEM)
		abort();
	return 0;
}
