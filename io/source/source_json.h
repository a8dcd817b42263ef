#ifndef IO_SOURCE_SOURCE_JSON_H
#define IO_SOURCE_SOURCE_JSON_H

/* JSON forms of the source results, matching machine-protocol.schema.json
 * $defs/pinnedSource and $defs/sourceCandidate, keys in the reference's
 * order.  io-internal like io/util/json.h: it hands out Jansson values, so only
 * io/ and cli/ sources include it. */

#include "io/util/err.h"
#include "io/source/source.h"

struct json_t;

/* *out is a new object (caller json_decref's it).  Payloads are never
 * encoded.  Codes: SW_ENOMEM. */
int source_pinned_to_json(struct json_t **out, const struct source_pinned *p,
			  struct sw_error *err);

/* The sourceCandidate object: `candidate_id` and `created_at` (RFC 3339,
 * as the caller records it) are the run-local fields the candidate itself
 * does not carry.  Codes: SW_ENOMEM. */
int source_candidate_to_json(struct json_t **out,
			     const struct source_candidate *c,
			     const char *candidate_id, const char *created_at,
			     struct sw_error *err);

/* The URL aliases a source keeps when its canonical URL becomes
 * `canonical_url`: the aliases of `cur` and then its own canonical URL,
 * each once and in that order, never `canonical_url` itself (so the old URL
 * is kept only when it moved; MAP 9.4).  New array of strings, or NULL on
 * ENOMEM. */
struct json_t *source_aliases_merged(const struct source_pinned *cur,
				     const char *canonical_url);

/* Decodes a journaled pinnedSource strictly (exact keys, types) and checks
 * it with source_pinned_validate.  Sections carry no payload.  Codes:
 * SW_EPARSE (shape), SW_EINVAL (rules), SW_ENOMEM.  *out NULL on failure. */
int source_pinned_from_json(struct source_pinned **out, const struct json_t *v,
			    struct sw_error *err);

/* Decodes a journaled sourceCandidate strictly and checks it with
 * source_candidate_validate (a snapshot goes through
 * source_pinned_from_json).  *candidate_id and *created_at receive new
 * sw_malloc'd strings.  Codes: SW_EPARSE, SW_EINVAL, SW_ENOMEM.  All outputs
 * NULL on failure. */
int source_candidate_from_json(struct source_candidate **out,
			       char **candidate_id, char **created_at,
			       const struct json_t *v, struct sw_error *err);

#endif
