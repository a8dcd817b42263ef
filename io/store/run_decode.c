/* The Run record's decoder: its shape, checked and decoded into the structs
 * of io/store/run_record.h in one pass (run_view_decode, io/store/run_codec.h),
 * and the lookups in the decoded record.  Below the record's code (the
 * files io/store/run_internal.h lists), which calls it after every change;
 * io/store/run_check.c, above both, checks a loaded Run as a whole.  The
 * tables below list every field the program reads, with its JSON type,
 * whether it must be present and where it goes in the structs; a field they
 * do not list is kept but read only by the record's code, which writes the
 * record. */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "io/util/json.h"
#include "io/wire/outcome.h"
#include "io/store/run_codec.h"
#include "io/store/run_record.h"

enum jtype {
	J_STR = 1u << 0,
	J_INT = 1u << 1,
	J_BOOL = 1u << 2,
	J_OBJ = 1u << 3,
	J_ARR = 1u << 4,
	J_NULL = 1u << 5,
	J_ANY = (1u << 6) - 1
};

enum presence { OPTIONAL = 0, REQUIRED = 1 };

/* A value's spelling must be one of a table's wire values. */
enum spelling { ANY_TEXT = 0, RUNSTATE, PAUSE, KIND };

/* Where a checked value goes in the C struct being filled (io/store/run_record.h):
 * S_CHECK only checks; S_STR a const char * (NULL for JSON null), S_INT a
 * long long, S_BOOL a bool, S_ENUM the table enum of its spelling, S_HAS a
 * bool saying the field is present; S_EMBED decodes an object into the
 * struct at `off`, S_OBJ into a new struct (`size` bytes) whose pointer
 * goes at `off` (NULL for JSON null), S_ARR into a new array of `size`-byte
 * structs whose pointer goes at `off` and length at `count`, S_STRS an
 * array of strings into a new array of const char * the same way. */
enum slot { S_CHECK = 0, S_STR, S_INT, S_BOOL, S_ENUM, S_HAS, S_EMBED, S_OBJ, S_ARR, S_STRS };

struct shape {
	const char *key;		/* NULL ends a list */
	unsigned types;			/* J_* the value may have */
	enum presence presence;
	const struct shape *fields;	/* J_OBJ: its fields; J_ARR: each
					 * element's (elements are objects) */
	unsigned elems;			/* J_ARR without `fields`: element types */
	enum spelling spelling;
	enum slot slot;
	size_t off;
	size_t size;
	size_t count;
};

#define STR(T, f) .slot = S_STR, .off = offsetof(T, f)
#define INT(T, f) .slot = S_INT, .off = offsetof(T, f)
#define BOOL(T, f) .slot = S_BOOL, .off = offsetof(T, f)
#define ENUM(T, f) .slot = S_ENUM, .off = offsetof(T, f)
#define HAS(T, f) .slot = S_HAS, .off = offsetof(T, f)
#define EMBED(T, f) .slot = S_EMBED, .off = offsetof(T, f)
#define OBJ(T, f, E) .slot = S_OBJ, .off = offsetof(T, f), .size = sizeof(E)
#define ARR(T, f, E) .slot = S_ARR, .off = offsetof(T, f), .size = sizeof(E), \
		     .count = offsetof(T, n_##f)
#define STRS(T, f) .slot = S_STRS, .off = offsetof(T, f), .size = sizeof(const char *), \
		   .count = offsetof(T, n_##f)

/* clang-format off */
#define T struct run_workspace_identity
static const struct shape identity[] = {
	{ "version",         J_INT, REQUIRED, INT(T, version) },
	{ "worktree_root",   J_STR, REQUIRED, STR(T, worktree_root) },
	{ "git_dir",         J_STR, REQUIRED, STR(T, git_dir) },
	{ "git_common_dir",  J_STR, REQUIRED, STR(T, git_common_dir) },
	{ "id",              J_STR, REQUIRED, STR(T, id) },
	{ NULL }
};
#undef T

static const struct shape path_observation[] = {
	{ "path",                     J_STR, REQUIRED },
	{ "category",                 J_STR, OPTIONAL },
	{ "state",                    J_STR, OPTIONAL },
	{ "observation",              J_STR, OPTIONAL },
	{ "size",                     J_INT, OPTIONAL },
	{ "modified_unix_nano",       J_INT, OPTIONAL },
	{ "content_sha256",           J_STR, OPTIONAL },
	{ "content_fingerprint_kind", J_STR, OPTIONAL },
	{ NULL }
};

/* Read through vcs_observation_from_json (run_git_observation). */
static const struct shape git[] = {
	{ "version",                      J_INT,          REQUIRED },
	{ "head",                         J_STR | J_NULL, OPTIONAL },
	{ "index_fingerprint",            J_STR,          OPTIONAL },
	{ "status_fingerprint",           J_STR,          OPTIONAL },
	{ "snapshot_hash",                J_STR,          OPTIONAL },
	{ "path_count",                   J_INT,          OPTIONAL },
	{ "path_fingerprint",             J_STR,          OPTIONAL },
	{ "details_truncated",            J_BOOL,         OPTIONAL },
	{ "content_observation_complete", J_BOOL,         OPTIONAL },
	{ "content_bytes_hashed",         J_INT,          OPTIONAL },
	{ "content_byte_limit",           J_INT,          OPTIONAL },
	{ "content_byte_limit_exceeded",  J_BOOL,         OPTIONAL },
	{ "content_deadline_exceeded",    J_BOOL,         OPTIONAL },
	{ "dirty_files",                  J_ARR,          OPTIONAL, NULL, J_STR },
	{ "path_observations",            J_ARR,          OPTIONAL, path_observation },
	{ NULL }
};

#define T struct run_section
static const struct shape section[] = {
	{ "key",              J_STR, REQUIRED, STR(T, key) },
	{ "role",             J_STR, REQUIRED, STR(T, role) },
	{ "title",            J_STR, REQUIRED, STR(T, title) },
	{ "section_revision", J_STR, REQUIRED, STR(T, section_revision) },
	{ "material_sha256",  J_STR, REQUIRED, STR(T, material_sha256) },
	{ "bytes",            J_INT, REQUIRED, INT(T, bytes) },
	{ NULL }
};
#undef T

#define T struct run_requirements
static const struct shape requirements[] = {
	{ "requirements_revision", J_STR, REQUIRED, STR(T, requirements_revision) },
	{ "sections",              J_ARR, REQUIRED, section, ARR(T, sections, struct run_section) },
	{ NULL }
};
#undef T

#define T struct run_target
static const struct shape target[] = {
	{ "kind",  J_STR, REQUIRED, STR(T, kind) },
	{ "value", J_STR, REQUIRED, STR(T, value) },
	{ NULL }
};
#undef T

#define T struct run_request
static const struct shape request[] = {
	{ "request_id",   J_STR, REQUIRED, STR(T, request_id) },
	{ "impact",       J_STR, REQUIRED, STR(T, impact) },
	{ "scope_sha256", J_STR, REQUIRED, STR(T, scope_sha256) },
	{ "targets",      J_ARR, REQUIRED, target, ARR(T, targets, struct run_target) },
	{ NULL }
};
#undef T

#define T struct run_authorization
static const struct shape authorization[] = {
	{ "request_id",            J_STR, REQUIRED, STR(T, request_id) },
	{ "originating_action_id", J_STR, OPTIONAL, STR(T, originating_action_id) },
	{ "scope_version",         J_INT, OPTIONAL },
	{ "scope_sha256",          J_STR, OPTIONAL, STR(T, scope_sha256) },
	{ "targets",               J_ARR, OPTIONAL, target, ARR(T, targets, struct run_target) },
	{ "impact",                J_STR, OPTIONAL, STR(T, impact) },
	{ "confirmed_at",          J_STR, OPTIONAL, STR(T, confirmed_at) },
	{ NULL }
};
#undef T

#define T struct run_action
static const struct shape action[] = {
	{ "contract_version",  J_INT, REQUIRED },
	{ "run_id",            J_STR, REQUIRED },
	{ "action_id",         J_STR, REQUIRED, STR(T, action_id) },
	{ "kind",              J_STR, REQUIRED, NULL, 0, KIND, ENUM(T, kind) },
	{ "goal",              J_STR, REQUIRED, STR(T, goal) },
	{ "brief",             J_STR, REQUIRED, STR(T, brief) },
	{ "remaining_budget",  J_INT, REQUIRED, INT(T, remaining_budget) },
	{ "context_sha256",    J_STR, REQUIRED, STR(T, context_sha256) },
	{ "destructive_grant", J_OBJ, OPTIONAL },
	{ "source",            J_OBJ, OPTIONAL, HAS(T, has_source) },
	{ "requirements",      J_OBJ, OPTIONAL, requirements, OBJ(T, requirements, struct run_requirements) },
	{ "destructive_authorization", J_OBJ, OPTIONAL, authorization,
	  OBJ(T, destructive_authorization, struct run_authorization) },
	{ NULL }
};
#undef T

/* The Outcome itself is checked whole by the Outcome decoder
 * (check_outcomes); these are the parts read outside it. */
#define T struct run_outcome_pause
static const struct shape outcome_pause[] = {
	{ "reason",                      J_STR,          OPTIONAL, STR(T, reason) },
	{ "question",                    J_STR | J_NULL, OPTIONAL, STR(T, question) },
	{ "supersedes_answer_action_id", J_STR | J_NULL, OPTIONAL, STR(T, supersedes_answer_action_id) },
	{ "destructive_request",         J_OBJ | J_NULL, OPTIONAL, request,
	  OBJ(T, destructive_request, struct run_request) },
	{ NULL }
};
#undef T

#define T struct run_activity
static const struct shape activity[] = {
	{ "kind",      J_STR, REQUIRED, STR(T, kind) },
	{ "command",   J_STR, OPTIONAL, STR(T, command) },
	{ "exit_code", J_INT, OPTIONAL, INT(T, exit_code) },
	{ "summary",   J_STR, OPTIONAL, STR(T, summary) },
	{ NULL }
};
#undef T

#define T struct run_implementation
static const struct shape implementation[] = {
	{ "result",        J_STR, OPTIONAL, STR(T, result) },
	{ "files_changed", J_ARR, OPTIONAL, NULL, J_STR, STRS(T, files_changed) },
	{ "activities",    J_ARR, OPTIONAL, activity, ARR(T, activities, struct run_activity) },
	{ NULL }
};
#undef T

#define T struct run_finding
static const struct shape finding[] = {
	{ "location", J_STR, OPTIONAL, STR(T, location) },
	{ "summary",  J_STR, OPTIONAL, STR(T, summary) },
	{ "detail",   J_STR, OPTIONAL, STR(T, detail) },
	{ NULL }
};
#undef T

#define T struct run_review
static const struct shape review[] = {
	{ "result",   J_STR, OPTIONAL, STR(T, result) },
	{ "findings", J_ARR, OPTIONAL, finding, ARR(T, findings, struct run_finding) },
	{ NULL }
};
#undef T

#define T struct run_outcome
static const struct shape outcome[] = {
	{ "status",         J_STR,          OPTIONAL, STR(T, status) },
	{ "summary",        J_STR,          OPTIONAL, STR(T, summary) },
	{ "known_issues",   J_ARR,          OPTIONAL, NULL, J_STR, STRS(T, known_issues) },
	{ "pause",          J_OBJ | J_NULL, OPTIONAL, outcome_pause, OBJ(T, pause, struct run_outcome_pause) },
	{ "implementation", J_OBJ | J_NULL, OPTIONAL, implementation,
	  OBJ(T, implementation, struct run_implementation) },
	{ "review",         J_OBJ | J_NULL, OPTIONAL, review, OBJ(T, review, struct run_review) },
	{ NULL }
};
#undef T

#define T struct run_action_record
static const struct shape action_record[] = {
	{ "action",                 J_OBJ,  REQUIRED, action, EMBED(T, action) },
	{ "outcome",                J_OBJ,  OPTIONAL, outcome, OBJ(T, outcome, struct run_outcome) },
	{ "outcome_payload_sha256", J_STR,  OPTIONAL, STR(T, outcome_payload_sha256) },
	{ "voided",                 J_BOOL, OPTIONAL, BOOL(T, voided) },
	{ "skipped",                J_BOOL, OPTIONAL, BOOL(T, skipped) },
	{ NULL }
};
#undef T

#define T struct run_answer
static const struct shape answer[] = {
	{ "action_id",             J_STR,  REQUIRED, STR(T, action_id) },
	{ "text",                  J_STR,  REQUIRED, STR(T, text) },
	{ "confirm_destructive",   J_BOOL, REQUIRED, BOOL(T, confirm_destructive) },
	{ "payload_sha256",        J_STR,  REQUIRED, STR(T, payload_sha256) },
	{ "active",                J_BOOL, REQUIRED, BOOL(T, active) },
	{ "at",                    J_STR,  REQUIRED, STR(T, at) },
	{ "scope_sha256",          J_STR,  OPTIONAL, STR(T, scope_sha256) },
	{ "superseded_by",         J_STR,  OPTIONAL, STR(T, superseded_by) },
	{ "requirements_revision", J_STR,  OPTIONAL, STR(T, requirements_revision) },
	{ NULL }
};
#undef T

static const struct shape suggestion[] = {
	{ "kind",  J_STR, REQUIRED, NULL, 0, KIND },
	{ "brief", J_STR, OPTIONAL },
	{ NULL }
};


#define T struct run_pinned_source
static const struct shape pinned[] = {
	{ "provider",              J_STR, REQUIRED, STR(T, provider) },
	{ "host",                  J_STR, REQUIRED, STR(T, host) },
	{ "issue_id",              J_STR, REQUIRED, STR(T, issue_id) },
	{ "canonical_url",         J_STR, REQUIRED, STR(T, canonical_url) },
	{ "source_revision",       J_STR, REQUIRED, STR(T, source_revision) },
	{ "manifest_revision",     J_STR, REQUIRED, STR(T, manifest_revision) },
	{ "requirements_revision", J_STR, REQUIRED, STR(T, requirements_revision) },
	{ "sections",              J_ARR, REQUIRED, section, ARR(T, sections, struct run_section) },
	{ NULL }
};
#undef T

#define T struct run_source_candidate
static const struct shape candidate[] = {
	{ "candidate_id",         J_STR,  REQUIRED, STR(T, candidate_id) },
	{ "valid",                J_BOOL, REQUIRED, BOOL(T, valid) },
	{ "classification",       J_STR,  REQUIRED, STR(T, classification) },
	{ "classification_code",  J_STR,  REQUIRED, STR(T, classification_code) },
	{ "classification_error", J_STR,  OPTIONAL, STR(T, classification_error) },
	{ "snapshot",             J_OBJ,  OPTIONAL, pinned, OBJ(T, snapshot, struct run_pinned_source) },
	{ NULL }
};
#undef T

#define T struct run_source_choice
static const struct shape choice[] = {
	{ "candidate_id",        J_STR, REQUIRED, STR(T, candidate_id) },
	{ "choice",              J_STR, REQUIRED, STR(T, choice) },
	{ "resulting_action_id", J_STR, REQUIRED, STR(T, resulting_action_id) },
	{ "at",                  J_STR, REQUIRED, STR(T, at) },
	{ NULL }
};
#undef T

#define T struct run_resume_result
static const struct shape resume_result[] = {
	{ "operation",      J_STR,  REQUIRED, STR(T, operation) },
	{ "budget_applied", J_BOOL, REQUIRED, BOOL(T, budget_applied) },
	{ "candidate_id",   J_STR,  OPTIONAL, STR(T, candidate_id) },
	{ NULL }
};
#undef T

#define T struct run_record
static const struct shape record[] = {
	{ "contract_version",            J_INT,  REQUIRED },
	{ "id",                          J_STR,  REQUIRED, STR(T, id) },
	{ "goal",                        J_STR,  REQUIRED, STR(T, goal) },
	{ "workspace",                   J_STR,  REQUIRED, STR(T, workspace) },
	{ "workspace_identity",          J_OBJ,  REQUIRED, identity, EMBED(T, workspace_identity) },
	{ "state",                       J_STR,  REQUIRED, NULL, 0, RUNSTATE, ENUM(T, state) },
	{ "pause_reason",                J_STR,  OPTIONAL, NULL, 0, PAUSE, ENUM(T, pause_reason) },
	{ "review_enabled",              J_BOOL, REQUIRED, BOOL(T, review_enabled) },
	{ "review_pending",              J_BOOL, REQUIRED, BOOL(T, review_pending) },
	{ "initial_budget",              J_INT,  REQUIRED, INT(T, initial_budget) },
	{ "remaining_budget",            J_INT,  REQUIRED, INT(T, remaining_budget) },
	{ "initial_git",                 J_OBJ,  REQUIRED, git },
	{ "current_git",                 J_OBJ,  OPTIONAL, git },
	{ "final_git_observed",          J_BOOL, OPTIONAL, BOOL(T, final_git_observed) },
	{ "pinned_source",               J_OBJ,  OPTIONAL, pinned, OBJ(T, pinned_source, struct run_pinned_source) },
	{ "source_candidate",            J_OBJ,  OPTIONAL, candidate, OBJ(T, source_candidate, struct run_source_candidate) },
	{ "last_source_choice",          J_OBJ,  OPTIONAL, choice, OBJ(T, last_source_choice, struct run_source_choice) },
	{ "last_resume_result",          J_OBJ,  OPTIONAL, resume_result, OBJ(T, last_resume_result, struct run_resume_result) },
	{ "current_action",              J_OBJ,  OPTIONAL, action, OBJ(T, current_action, struct run_action) },
	{ "actions",                     J_ARR,  OPTIONAL, action_record, ARR(T, actions, struct run_action_record) },
	{ "pending_actions",             J_ARR,  OPTIONAL, suggestion },
	{ "answers",                     J_ARR,  OPTIONAL, answer, ARR(T, answers, struct run_answer) },
	{ "observations",                J_ARR,  OPTIONAL, NULL, J_STR, STRS(T, observations) },
	{ "known_issues",                J_ARR,  OPTIONAL, NULL, J_STR, STRS(T, known_issues) },
	{ "uncertainties",               J_ARR,  OPTIONAL, NULL, J_STR, STRS(T, uncertainties) },
	{ "activities",                  J_ARR,  OPTIONAL, activity, ARR(T, activities, struct run_activity) },
	{ "summary",                     J_STR,  OPTIONAL, STR(T, summary) },
	{ "pending_destructive_request", J_OBJ,  OPTIONAL, request, OBJ(T, pending_destructive_request, struct run_request) },
	{ "destructive_grant",           J_OBJ,  OPTIONAL, HAS(T, has_destructive_grant) },
	{ "created_at",                  J_STR,  REQUIRED, STR(T, created_at) },
	{ "updated_at",                  J_STR,  REQUIRED, STR(T, updated_at) },
	{ NULL }
};
#undef T
/* clang-format on */

static unsigned type_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return J_STR;
	case JSON_INTEGER:
		return J_INT;
	case JSON_TRUE:
	case JSON_FALSE:
		return J_BOOL;
	case JSON_OBJECT:
		return J_OBJ;
	case JSON_ARRAY:
		return J_ARR;
	case JSON_NULL:
		return J_NULL;
	case JSON_REAL:
		return 0;
	}
	return 0;
}

static int spelled(enum spelling sp, const char *s)
{
	switch (sp) {
	case ANY_TEXT:
		return 1;
	case RUNSTATE:
		return tbl_runstate_lookup(s) != FSM_RUN_INVALID;
	case PAUSE:
		return tbl_pause_lookup(s) != FSM_PAUSE_NONE;
	case KIND:
		return tbl_kind_lookup(s) != FSM_KIND_NONE;
	}
	return 0;
}

static int invalid(struct sw_error *err, const char *path, const char *what)
{
	return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID,
			      "the Run record is invalid: %s %s", path, what);
}

/* Where the decoder is in the record: a field of `up` (key) or an element
 * of it (index).  The text is made only for an error, since a valid record
 * (every load and every change) never needs it. */
struct path {
	const struct path *up;		/* NULL: the record */
	const char *key;		/* NULL: element `index` */
	size_t index;
};

static void path_text(char *out, size_t n, const struct path *p)
{
	char up[160];

	if (p == NULL) {
		out[0] = '\0';
		return;
	}
	path_text(up, sizeof(up), p->up);
	if (p->key)
		snprintf(out, n, "%.120s%s%.32s", up, *up ? "." : "", p->key);
	else
		snprintf(out, n, "%.120s[%zu]", up, p->index);
}

static int invalid_at(struct sw_error *err, const struct path *p, const char *what)
{
	char text[160];

	path_text(text, sizeof(text), p);
	return invalid(err, text, what);
}

/* The decoded record and the blocks its lists and objects live in. */
struct view_block {
	struct view_block *next;
	max_align_t data[];
};

struct run_view {
	struct run_record rec;
	struct view_block *blocks;
};

/* `count` zeroed structs of `size` bytes, freed with the view. */
static void *view_alloc(struct run_view *v, size_t count, size_t size)
{
	struct view_block *b;

	if (count > (SIZE_MAX - sizeof(*b)) / size)
		return NULL;
	if ((b = sw_calloc(1, sizeof(*b) + count * size)) == NULL)
		return NULL;
	b->next = v->blocks;
	v->blocks = b;
	return b->data;
}

void run_view_free(struct run_view *v)
{
	if (v == NULL)
		return;
	while (v->blocks) {
		struct view_block *next = v->blocks->next;

		sw_free(v->blocks);
		v->blocks = next;
	}
	sw_free(v);
}

const struct run_record *run_view_record(const struct run_view *v)
{
	return &v->rec;
}

static int decode_object(const json_t *obj, const struct shape *fields, char *base,
			 const struct path *path, struct run_view *view, struct sw_error *err);

static void put_enum(char *at, enum spelling sp, const char *s)
{
	switch (sp) {
	case RUNSTATE:
		*(enum fsm_runstate *)at = tbl_runstate_lookup(s);
		break;
	case PAUSE:
		*(enum fsm_pause *)at = tbl_pause_lookup(s);
		break;
	case KIND:
		*(enum fsm_kind *)at = tbl_kind_lookup(s);
		break;
	case ANY_TEXT:
		assert(!"an enum slot without a table");
		break;
	}
}

/* Checks `v` against `f` and stores it at `base` + f->off as f->slot says. */
static int decode_value(const json_t *v, const struct shape *f, char *base,
			const struct path *path, struct run_view *view, struct sw_error *err)
{
	char *at = base ? base + f->off : NULL, *items = NULL;
	const json_t *el;
	size_t i;
	int rc;

	if (!(type_of(v) & f->types))
		return invalid_at(err, path, "has the wrong type");
	if (json_is_string(v) && !spelled(f->spelling, json_string_value(v)))
		return invalid_at(err, path, "is not a known value");
	if (at && f->slot == S_STR)
		*(const char **)at = json_string_value(v);
	else if (at && f->slot == S_INT)
		*(long long *)at = json_integer_value(v);
	else if (at && f->slot == S_BOOL)
		*(bool *)at = json_is_true(v);
	else if (at && f->slot == S_HAS)
		*(bool *)at = true;
	else if (at && f->slot == S_ENUM)
		put_enum(at, f->spelling, json_string_value(v));
	if (json_is_object(v) && f->fields) {
		char *into = NULL;

		if (at && f->slot == S_EMBED)
			into = at;
		else if (at && f->slot == S_OBJ) {
			if ((into = view_alloc(view, 1, f->size)) == NULL)
				return sw_error_set(err, SW_ENOMEM, "cannot decode the Run record");
			*(void **)at = into;
		}
		return decode_object(v, f->fields, into, path, view, err);
	}
	if (!json_is_array(v))
		return 0;
	if (at && (f->slot == S_ARR || f->slot == S_STRS)) {
		if ((items = view_alloc(view, json_array_size(v), f->size)) == NULL)
			return sw_error_set(err, SW_ENOMEM, "cannot decode the Run record");
		*(void **)at = items;
		*(size_t *)(base + f->count) = json_array_size(v);
	}
	json_array_foreach(v, i, el) {
		struct path sub = { path, NULL, i };

		if (f->fields) {
			if (!json_is_object(el))
				return invalid_at(err, &sub, "is not an object");
			if ((rc = decode_object(el, f->fields, items ? items + i * f->size : NULL,
						&sub, view, err)) < 0)
				return rc;
		} else if (!(type_of(el) & f->elems)) {
			return invalid_at(err, &sub, "has the wrong type");
		} else if (items && f->slot == S_STRS) {
			((const char **)(void *)items)[i] = json_string_value(el);
		}
	}
	return 0;
}

static int decode_object(const json_t *obj, const struct shape *fields, char *base,
			 const struct path *path, struct run_view *view, struct sw_error *err)
{
	int rc;

	for (const struct shape *f = fields; f->key; f++) {
		const json_t *v = json_object_get(obj, f->key);
		struct path sub = { path, f->key, 0 };

		if (v == NULL) {
			if (f->presence == REQUIRED)
				return invalid_at(err, &sub, "is missing");
			continue;
		}
		if ((rc = decode_value(v, f, base, &sub, view, err)) < 0)
			return rc;
	}
	return 0;
}

int run_view_decode(struct run_view **out, const json_t *rec, struct sw_error *err)
{
	struct run_view *v = sw_calloc(1, sizeof(*v));
	int rc;

	*out = NULL;
	if (v == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot decode the Run record");
	if (!json_is_object(rec))
		rc = invalid(err, "record", "is not an object");
	else
		rc = decode_object(rec, record, (char *)&v->rec, NULL, v, err);
	if (rc < 0) {
		run_view_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

/* ---- lookups in the decoded record ---- */

const struct run_action_record *run_record_action(const struct run_record *rec,
						   const char *action_id)
{
	if (action_id == NULL)
		return NULL;
	for (size_t i = rec->n_actions; i-- > 0;)
		if (strcmp(rec->actions[i].action.action_id, action_id) == 0)
			return &rec->actions[i];
	return NULL;
}

const struct run_action_record *run_record_current(const struct run_record *rec)
{
	return rec->current_action ? run_record_action(rec, rec->current_action->action_id) : NULL;
}

const struct run_answer *run_record_answer(const struct run_record *rec, const char *action_id)
{
	for (size_t i = 0; action_id && i < rec->n_answers; i++)
		if (strcmp(rec->answers[i].action_id, action_id) == 0)
			return &rec->answers[i];
	return NULL;
}

int run_request_verifies(const struct run_request *req)
{
	struct outcome_request r = { 0 };
	struct sw_error err = SW_ERROR_INIT;
	int ok;

	if (req == NULL)
		return 0;
	r.request_id = (char *)req->request_id;
	r.impact = (char *)req->impact;
	r.scope_sha256 = (char *)req->scope_sha256;
	r.n_targets = req->n_targets;
	if (r.n_targets > 0 && (r.targets = sw_calloc(r.n_targets, sizeof(*r.targets))) == NULL)
		return 0;
	for (size_t i = 0; i < r.n_targets; i++) {
		r.targets[i].kind = (char *)req->targets[i].kind;
		r.targets[i].value = (char *)req->targets[i].value;
	}
	ok = outcome_request_verify(&r, &err) == 0;
	sw_free(r.targets);
	return ok;
}

static bool same_request(const struct run_request *a, const struct run_request *b)
{
	if (strcmp(a->request_id, b->request_id) != 0 || strcmp(a->impact, b->impact) != 0 ||
	    strcmp(a->scope_sha256, b->scope_sha256) != 0 || a->n_targets != b->n_targets)
		return false;
	for (size_t i = 0; i < a->n_targets; i++)
		if (strcmp(a->targets[i].kind, b->targets[i].kind) != 0 ||
		    strcmp(a->targets[i].value, b->targets[i].value) != 0)
			return false;
	return true;
}

enum run_request_fault run_request_fault(const struct run_record *rec)
{
	const struct run_request *pending = rec->pending_destructive_request, *asked = NULL;
	const struct run_action_record *cur = run_record_current(rec);

	if (pending == NULL)
		return RUN_REQUEST_MISSING;
	if (!run_request_verifies(pending))
		return RUN_REQUEST_INVALID;
	if (cur && cur->outcome && cur->outcome->pause)
		asked = cur->outcome->pause->destructive_request;
	if (asked == NULL)
		return RUN_REQUEST_MISSING;
	if (!run_request_verifies(asked))
		return RUN_REQUEST_INVALID;
	if (!same_request(pending, asked))
		return RUN_REQUEST_CHANGED;
	if (rec->has_destructive_grant)
		return RUN_REQUEST_GRANT_HELD;
	return RUN_REQUEST_SOUND;
}

const struct run_section *run_section_find(const struct run_section *sections, size_t n,
					   const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(sections[i].key, key) == 0)
			return &sections[i];
	return NULL;
}
