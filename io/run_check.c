/* The shape of a Run record, checked once when a Run is loaded: see
 * io/run_check.h.  The tables below list every field the program reads,
 * with its JSON type and whether it must be present; a field they do not
 * list is kept but never read. */

#include "io/run_check.h"

#include <string.h>

#include <jansson.h>

#include "io/json.h"
#include "io/outcome.h"

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

struct shape {
	const char *key;		/* NULL ends a list */
	unsigned types;			/* J_* the value may have */
	enum presence presence;
	const struct shape *fields;	/* J_OBJ: its fields; J_ARR: each
					 * element's (elements are objects) */
	unsigned elems;			/* J_ARR without `fields`: element types */
	enum spelling spelling;
};

/* clang-format off */
static const struct shape identity[] = {
	{ "version",         J_INT, REQUIRED },
	{ "worktree_root",   J_STR, REQUIRED },
	{ "git_dir",         J_STR, REQUIRED },
	{ "git_common_dir",  J_STR, REQUIRED },
	{ "id",              J_STR, REQUIRED },
	{ NULL }
};

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

static const struct shape action[] = {
	{ "contract_version", J_INT, REQUIRED },
	{ "run_id",           J_STR, REQUIRED },
	{ "action_id",        J_STR, REQUIRED },
	{ "kind",             J_STR, REQUIRED, NULL, 0, KIND },
	{ "goal",             J_STR, REQUIRED },
	{ "brief",            J_STR, REQUIRED },
	{ "remaining_budget", J_INT, REQUIRED },
	{ "context_sha256",   J_STR, REQUIRED },
	{ "destructive_grant", J_OBJ, OPTIONAL },
	{ NULL }
};

/* The Outcome itself is checked by the Outcome decoder (check_outcome). */
static const struct shape action_record[] = {
	{ "action",                 J_OBJ, REQUIRED, action },
	{ "outcome",                J_OBJ, OPTIONAL },
	{ "outcome_payload_sha256", J_STR, OPTIONAL },
	{ NULL }
};

static const struct shape answer[] = {
	{ "action_id",           J_STR,  REQUIRED },
	{ "text",                J_STR,  REQUIRED },
	{ "confirm_destructive", J_BOOL, REQUIRED },
	{ "payload_sha256",      J_STR,  REQUIRED },
	{ "active",              J_BOOL, REQUIRED },
	{ "at",                  J_STR,  REQUIRED },
	{ "scope_sha256",        J_STR,  OPTIONAL },
	{ "superseded_by",       J_STR,  OPTIONAL },
	{ NULL }
};

static const struct shape suggestion[] = {
	{ "kind",  J_STR, REQUIRED, NULL, 0, KIND },
	{ "brief", J_STR, OPTIONAL },
	{ NULL }
};

static const struct shape activity[] = {
	{ "kind",      J_STR, REQUIRED },
	{ "command",   J_STR, OPTIONAL },
	{ "exit_code", J_INT, OPTIONAL },
	{ "summary",   J_STR, OPTIONAL },
	{ NULL }
};

static const struct shape request[] = {
	{ "request_id",   J_STR, REQUIRED },
	{ "scope_sha256", J_STR, REQUIRED },
	{ "targets",      J_ARR, REQUIRED, NULL, J_ANY },
	{ NULL }
};

static const struct shape section[] = {
	{ "key",              J_STR, REQUIRED },
	{ "role",             J_STR, OPTIONAL },
	{ "title",            J_STR, OPTIONAL },
	{ "material_sha256",  J_STR, OPTIONAL },
	{ "bytes",            J_INT, OPTIONAL },
	{ NULL }
};

static const struct shape pinned[] = {
	{ "sections", J_ARR, OPTIONAL, section },
	{ NULL }
};

static const struct shape candidate[] = {
	{ "candidate_id", J_STR,  REQUIRED },
	{ "valid",        J_BOOL, OPTIONAL },
	{ NULL }
};

static const struct shape record[] = {
	{ "contract_version",            J_INT,  REQUIRED },
	{ "id",                          J_STR,  REQUIRED },
	{ "goal",                        J_STR,  REQUIRED },
	{ "workspace",                   J_STR,  REQUIRED },
	{ "workspace_identity",          J_OBJ,  REQUIRED, identity },
	{ "state",                       J_STR,  REQUIRED, NULL, 0, RUNSTATE },
	{ "pause_reason",                J_STR,  OPTIONAL, NULL, 0, PAUSE },
	{ "review_enabled",              J_BOOL, REQUIRED },
	{ "review_pending",              J_BOOL, REQUIRED },
	{ "initial_budget",              J_INT,  REQUIRED },
	{ "remaining_budget",            J_INT,  REQUIRED },
	{ "initial_git",                 J_OBJ,  REQUIRED, git },
	{ "current_git",                 J_OBJ,  OPTIONAL, git },
	{ "final_git_observed",          J_BOOL, OPTIONAL },
	{ "pinned_source",               J_OBJ,  OPTIONAL, pinned },
	{ "source_candidate",            J_OBJ,  OPTIONAL, candidate },
	{ "current_action",              J_OBJ,  OPTIONAL, action },
	{ "actions",                     J_ARR,  OPTIONAL, action_record },
	{ "pending_actions",             J_ARR,  OPTIONAL, suggestion },
	{ "answers",                     J_ARR,  OPTIONAL, answer },
	{ "observations",                J_ARR,  OPTIONAL, NULL, J_STR },
	{ "known_issues",                J_ARR,  OPTIONAL, NULL, J_STR },
	{ "uncertainties",               J_ARR,  OPTIONAL, NULL, J_STR },
	{ "activities",                  J_ARR,  OPTIONAL, activity },
	{ "summary",                     J_STR,  OPTIONAL },
	{ "pending_destructive_request", J_OBJ,  OPTIONAL, request },
	{ "destructive_grant",           J_OBJ,  OPTIONAL },
	{ "created_at",                  J_STR,  REQUIRED },
	{ "updated_at",                  J_STR,  REQUIRED },
	{ NULL }
};
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

static int check_object(const json_t *obj, const struct shape *fields,
			const char *path, struct sw_error *err);

static int check_value(const json_t *v, const struct shape *f, const char *path,
		       struct sw_error *err)
{
	char sub[160];
	const json_t *el;
	size_t i;
	int rc;

	if (!(type_of(v) & f->types))
		return invalid(err, path, "has the wrong type");
	if (json_is_string(v) && !spelled(f->spelling, json_string_value(v)))
		return invalid(err, path, "is not a known value");
	if (json_is_object(v) && f->fields)
		return check_object(v, f->fields, path, err);
	if (!json_is_array(v))
		return 0;
	json_array_foreach(v, i, el) {
		snprintf(sub, sizeof(sub), "%.120s[%zu]", path, i);
		if (f->fields) {
			if (!json_is_object(el))
				return invalid(err, sub, "is not an object");
			if ((rc = check_object(el, f->fields, sub, err)) < 0)
				return rc;
		} else if (!(type_of(el) & f->elems)) {
			return invalid(err, sub, "has the wrong type");
		}
	}
	return 0;
}

static int check_object(const json_t *obj, const struct shape *fields,
			const char *path, struct sw_error *err)
{
	char sub[160];
	int rc;

	for (const struct shape *f = fields; f->key; f++) {
		const json_t *v = json_object_get(obj, f->key);

		snprintf(sub, sizeof(sub), "%.120s%s%.32s", path, *path ? "." : "", f->key);
		if (v == NULL) {
			if (f->presence == REQUIRED)
				return invalid(err, sub, "is missing");
			continue;
		}
		if ((rc = check_value(v, f, sub, err)) < 0)
			return rc;
	}
	return 0;
}

/* A recorded Outcome passes the decoder it passed when it was submitted. */
static int check_outcomes(const json_t *rec, struct sw_error *err)
{
	const json_t *rec_i, *o;
	size_t i;

	json_array_foreach(json_object_get(rec, "actions"), i, rec_i) {
		struct sw_error local = SW_ERROR_INIT;
		struct outcome parsed;
		char *text;
		int rc;

		if ((o = json_object_get(rec_i, "outcome")) == NULL)
			continue;
		if ((text = sw_json_dump(o)) == NULL)
			return sw_error_set(err, SW_ENOMEM, "cannot check the Run record");
		rc = outcome_parse(&parsed, text, strlen(text), &local);
		if (rc == 0)
			outcome_release(&parsed);
		sw_free(text);
		if (rc == SW_ENOMEM)
			return sw_error_set(err, SW_ENOMEM, "cannot check the Run record");
		if (rc < 0)
			return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID,
					      "the Run record is invalid: actions[%zu].outcome: %s",
					      i, local.msg);
	}
	return 0;
}

int run_check(const struct run *r, struct sw_error *err)
{
	const json_t *rec = run_json(r);
	struct fsm_run m;
	int rc;

	if (!json_is_object(rec))
		return invalid(err, "record", "is not an object");
	if ((rc = check_object(rec, record, "", err)) < 0 ||
	    (rc = check_outcomes(rec, err)) < 0)
		return rc;
	m = run_machine(r);
	if (m.state == FSM_ST_INVALID || m.state == FSM_ST_NEW)
		return invalid(err, "state", "does not go with its pause_reason");
	if (json_integer_value(json_object_get(rec, "remaining_budget")) < 0 ||
	    json_integer_value(json_object_get(rec, "initial_budget")) < 1)
		return invalid(err, "budget", "is out of range");
	return 0;
}
