#ifndef IO_WIRE_OUTCOME_H
#define IO_WIRE_OUTCOME_H

/* The Outcome a host submits for an Action: strict decoding, validation and
 * the destructive scope digest.
 *
 * Decoding is split the way the reference splits it, because the split
 * decides which error a host sees first:
 *   outcome_parse()        the pre-store part (size, UTF-8, BOM, blank,
 *                          structure, exact keys, nulls, types, then the
 *                          contract version, then required keys and
 *                          non-null arrays) plus the payload digest;
 *   outcome_check()        every content rule that does not need the Run:
 *                          text rules, enumerations, the destructive request
 *                          and the legal-outcome matrix (fsm_outcome_check);
 *   outcome_validate_for() the submit-time check: the binding to the current
 *                          Action first, then outcome_check().
 * outcome_decode() = outcome_parse() + outcome_check(), for callers that want
 * everything at once (tests, the fuzzer, reading a stored outcome back).
 *
 * Errors: a rule broken by the input is SW_EPROTO with err->proto set to
 * "invalid_outcome" or "contract_version_mismatch" (the wire codes); an
 * allocation failure is SW_ENOMEM.  On failure *out is left zeroed. */

#include <stddef.h>
#include <stdint.h>

#include "fsm/fsm.h"
#include "io/util/digest.h"
#include "io/util/err.h"

#define OUTCOME_MAX_BYTES 1048576u	/* whole submitted payload */
#define OUTCOME_MAX_BRIEF_BYTES 8192u	/* suggested_actions[].brief */
#define OUTCOME_CONTRACT_VERSION 2

/* A list of strings; every item is NUL-terminated (checked outcomes never
 * contain NUL; see text_has_nul). */
struct outcome_strings {
	char **items;
	size_t len;
};

struct outcome_activity {
	char *kind;		/* test | typecheck | build | lint */
	char *command;
	int64_t exit_code;	/* any integer, negatives included */
	char *summary;
};

struct outcome_finding {
	char *location;
	char *summary;
	char *detail;
};

struct outcome_suggestion {
	char *kind;		/* wire spelling as sent */
	enum fsm_kind kind_id;	/* FSM_KIND_NONE when unknown */
	char *brief;
};

enum outcome_target_kind {
	OUTCOME_TARGET_NONE = 0,
	OUTCOME_TARGET_PATH,
	OUTCOME_TARGET_GIT_REF,
	OUTCOME_TARGET_EXTERNAL_RESOURCE,
	OUTCOME_TARGET_DATA_DOMAIN
};

struct outcome_target {
	char *kind;		/* wire spelling as sent */
	char *value;
};

struct outcome_request {
	char *request_id;
	struct outcome_target *targets;
	size_t n_targets;
	char *impact;
	char *scope_sha256;
};

struct outcome_pause {
	char *reason;			/* wire spelling as sent */
	enum fsm_pause reason_id;	/* FSM_PAUSE_NONE when unknown */
	char *question;
	struct outcome_request *request;	/* NULL when null */
	char *supersedes;	/* supersedes_answer_action_id; NULL if absent */
};

struct outcome_implementation {
	char *result;
	enum fsm_result result_id;	/* FSM_RESULT_NONE when unknown */
	struct outcome_strings files_changed;
	struct outcome_activity *activities;
	size_t n_activities;
	struct outcome_strings uncertainties;
	int64_t attempts;
};

struct outcome_review {
	char *result;
	enum fsm_result result_id;	/* FSM_RESULT_NONE when unknown */
	struct outcome_finding *findings;
	size_t n_findings;
	struct outcome_strings uncertainties;
};

struct outcome {
	int64_t contract_version;
	char *action_id;
	char *action_kind;
	enum fsm_kind kind;		/* FSM_KIND_NONE when unknown */
	char *status;
	enum fsm_status status_id;	/* FSM_STATUS_INVALID when unknown */
	char *summary;
	struct outcome_strings observations;
	struct outcome_strings known_issues;
	struct outcome_suggestion *suggestions;
	size_t n_suggestions;
	struct outcome_pause *pause;			/* NULL when null */
	struct outcome_implementation *implementation;	/* NULL when null */
	struct outcome_review *review;			/* NULL when null */
	/* "sha256:" + hex of the exact submitted bytes */
	char payload_sha256[SW_DIGEST_LEN];
	/* Some string held an escaped NUL (\u0000).  The reference decodes it
	 * and rejects it later as a control character, so outcome_parse keeps
	 * going (the strings above stop at the NUL) and outcome_check refuses. */
	int text_has_nul;
};

/* Strictly decodes the `len` bytes at `buf` into `*out` (which the caller
 * provides; it is overwritten).  On success the caller releases it with
 * outcome_release().  On failure nothing needs releasing. */
int outcome_parse(struct outcome *out, const char *buf, size_t len,
		  struct sw_error *err);

/* Checks the content rules of a parsed outcome against its own action_kind.
 * Returns 0 or SW_EPROTO ("invalid_outcome"). */
int outcome_check(const struct outcome *o, struct sw_error *err);

/* outcome_parse() then outcome_check(); releases *out on failure. */
int outcome_decode(struct outcome *out, const char *buf, size_t len,
		   struct sw_error *err);

/* The submit-time check for the current Action: contract version, then
 * action_id equal to `current_action_id`, action_kind equal to
 * `current_kind`, then outcome_check().  SW_EPROTO with "invalid_outcome" or
 * "contract_version_mismatch". */
int outcome_validate_for(const struct outcome *o, enum fsm_kind current_kind,
			 const char *current_action_id, struct sw_error *err);

/* Frees everything `o` owns and zeroes it; NULL and zeroed structs are fine. */
void outcome_release(struct outcome *o);

/* Renders `o` as compact canonical JSON (the reference's field order, all
 * eleven keys, supersedes_answer_action_id only when present, no HTML
 * escaping).  *out is sw_malloc'd; the caller frees it with sw_free.
 * Decoding the text again yields an equal outcome (the payload digest is of
 * the original bytes, so it is not part of the text).  SW_ENOMEM only. */
int outcome_to_json(char **out, const struct outcome *o, struct sw_error *err);

/* The documentation view of the Outcome key schema, for the generated
 * capability texts: `visit` is called for every key in document order with
 * its path ("pause.destructive_request.targets[].kind"), the JSON type the
 * decoder accepts, the text rule it is checked with (may be ""), and whether
 * the key must be present. */
typedef void outcome_doc_visit_fn(const char *path, const char *type,
				  const char *rule, int required, void *payload);
void outcome_doc_walk(outcome_doc_visit_fn *visit, void *payload);

/* Wire spellings of destructive target kinds and implementation activity
 * kinds, NULL-terminated, in the order the decoder lists them. */
extern const char *const outcome_target_kind_names[];
extern const char *const outcome_activity_kind_names[];

/* Target kind from its wire spelling; OUTCOME_TARGET_NONE when unknown. */
enum outcome_target_kind outcome_target_kind_lookup(const char *s);

/* 1 if `s` is a canonical lowercase, non-nil, RFC 4122 variant UUID. */
int outcome_uuid_valid(const char *s);

/* Computes the canonical destructive scope digest (MAP 8) of a request:
 * sha256 of {"impact":J,"request_id":J,"scope_version":1,"targets":[...]}
 * into `out` as "sha256:<hex>".  The request's scope_sha256 is ignored.
 * Every field must be non-NULL.
 * Validates first, as the reference does: request_id canonical, impact
 * non-empty markdown text, targets non-empty, known kinds, non-empty plain
 * values, bytewise sorted by (kind, value) without duplicates.  Returns 0,
 * SW_EINVAL (message names the rule) or SW_ENOMEM. */
int outcome_scope_sha256(const struct outcome_request *r,
			 char out[SW_DIGEST_LEN], struct sw_error *err);

/* The canonical scope itself: the bytes outcome_scope_sha256 hashes, with
 * the same checks first.  *out is NUL-terminated, `*len` bytes, freed with
 * sw_free.  Returns 0, SW_EINVAL or SW_ENOMEM (*out NULL). */
int outcome_scope_canonical(char **out, size_t *len, const struct outcome_request *r,
			    struct sw_error *err);

/* A worked example of a destructive request, the same wherever slipway
 * shows one (the capability texts, the MCP tool schemas): its fields point
 * at static storage, `targets` at two entries sorted as the scope needs. */
void outcome_scope_example(struct outcome_request *r, struct outcome_target targets[2]);

/* Re-validates a destructive request as a whole: scope_sha256 well formed,
 * every rule of outcome_scope_sha256, and scope_sha256 equal to the
 * recomputed digest (a mismatch names the digest expected).  For `protocol
 * answer`, which re-checks the pending request before a confirmation.
 * Returns 0, SW_EINVAL or SW_ENOMEM. */
int outcome_request_verify(const struct outcome_request *r,
			   struct sw_error *err);

/* Text rules shared with other inputs.  `s` is `len` bytes of valid UTF-8.
 * outcome_text_markdown: no control character except TAB, LF, CR.
 * outcome_text_plain: no control character at all (C0, DEL, C1).
 * outcome_text_nonblank: not blank after Go's unicode.IsSpace trimming AND
 * containing a character outside ECMAScript \s (so U+FEFF alone is blank).
 * Each returns 1 when the rule holds. */
int outcome_text_markdown(const char *s, size_t len);
int outcome_text_plain(const char *s, size_t len);
int outcome_text_nonblank(const char *s, size_t len);

#endif
