/* Strict Outcome decoding and validation (MAP 2.2, 2.3, 8): the entry of
 * the decoder (outcome_parse) and the key schema it walks, what the
 * reference's typed decoder accepts, with its documentation view.  Never
 * judges content: the text rules, enumerations, destructive requests and
 * the legal-outcome matrix are outcome_check's (outcome_check.c). */

#include "io/wire/outcome.h"
#include "io/wire/outcome_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "io/util/json.h"

/* ---- the key schema: what the reference's typed decoder accepts ---- */

/* How a slot decodes.  NULLABLE slots are the reference's pointer and slice
 * fields: the decoder lets null through and the later shape check decides. */
enum slot {
	SLOT_STR,		/* string; null is a decode error */
	SLOT_INT,		/* integer literal that fits int64 */
	SLOT_STRS,		/* array of strings, or null */
	SLOT_OBJS,		/* array of objects, or null */
	SLOT_OBJ,		/* object, or null */
	SLOT_OPT_STR		/* string, or null; never null after the shape check */
};

struct shape;

struct field {
	const char *name;
	enum slot slot;
	const struct shape *child;	/* SLOT_OBJS, SLOT_OBJ */
	int required;			/* the key must be present */
};

struct shape {
	const struct field *fields;
	size_t n;
};

#define SHAPE(arr) { arr, sizeof(arr) / sizeof(arr[0]) }

/* clang-format off */
/*	  name            slot      child  required */
static const struct field target_fields[] = {
	{ "kind",         SLOT_STR, NULL,  1 },
	{ "value",        SLOT_STR, NULL,  1 },
};
static const struct shape target_shape = SHAPE(target_fields);

static const struct field request_fields[] = {
	{ "request_id",   SLOT_STR,  NULL,          1 },
	{ "targets",      SLOT_OBJS, &target_shape, 1 },
	{ "impact",       SLOT_STR,  NULL,          1 },
	{ "scope_sha256", SLOT_STR,  NULL,          1 },
};
static const struct shape request_shape = SHAPE(request_fields);

static const struct field pause_fields[] = {
	{ "reason",                      SLOT_STR,     NULL,           1 },
	{ "question",                    SLOT_STR,     NULL,           1 },
	{ "destructive_request",         SLOT_OBJ,     &request_shape, 1 },
	{ "supersedes_answer_action_id", SLOT_OPT_STR, NULL,           0 },
};
static const struct shape pause_shape = SHAPE(pause_fields);

static const struct field suggestion_fields[] = {
	{ "kind",  SLOT_STR, NULL, 1 },
	{ "brief", SLOT_STR, NULL, 1 },
};
static const struct shape suggestion_shape = SHAPE(suggestion_fields);

static const struct field activity_fields[] = {
	{ "kind",      SLOT_STR, NULL, 1 },
	{ "command",   SLOT_STR, NULL, 1 },
	{ "exit_code", SLOT_INT, NULL, 1 },
	{ "summary",   SLOT_STR, NULL, 1 },
};
static const struct shape activity_shape = SHAPE(activity_fields);

static const struct field implementation_fields[] = {
	{ "result",        SLOT_STR,  NULL,            1 },
	{ "files_changed", SLOT_STRS, NULL,            1 },
	{ "activities",    SLOT_OBJS, &activity_shape, 1 },
	{ "uncertainties", SLOT_STRS, NULL,            1 },
	{ "attempts",      SLOT_INT,  NULL,            1 },
};
static const struct shape implementation_shape = SHAPE(implementation_fields);

static const struct field finding_fields[] = {
	{ "location", SLOT_STR, NULL, 1 },
	{ "summary",  SLOT_STR, NULL, 1 },
	{ "detail",   SLOT_STR, NULL, 1 },
};
static const struct shape finding_shape = SHAPE(finding_fields);

static const struct field review_fields[] = {
	{ "result",        SLOT_STR,  NULL,           1 },
	{ "findings",      SLOT_OBJS, &finding_shape, 1 },
	{ "uncertainties", SLOT_STRS, NULL,           1 },
};
static const struct shape review_shape = SHAPE(review_fields);

static const struct field outcome_fields[] = {
	{ "contract_version",  SLOT_INT,  NULL,                  1 },
	{ "action_id",         SLOT_STR,  NULL,                  1 },
	{ "action_kind",       SLOT_STR,  NULL,                  1 },
	{ "status",            SLOT_STR,  NULL,                  1 },
	{ "summary",           SLOT_STR,  NULL,                  1 },
	{ "observations",      SLOT_STRS, NULL,                  1 },
	{ "known_issues",      SLOT_STRS, NULL,                  1 },
	{ "suggested_actions", SLOT_OBJS, &suggestion_shape,     1 },
	{ "pause",             SLOT_OBJ,  &pause_shape,          1 },
	{ "implementation",    SLOT_OBJ,  &implementation_shape, 1 },
	{ "review",            SLOT_OBJ,  &review_shape,         1 },
};
static const struct shape outcome_shape = SHAPE(outcome_fields);

/* Implementation activity kinds (outcome_check.c checks them). */
const char *const outcome_activity_kind_names[] = { "test", "typecheck", "build", "lint", NULL };

/* The text rule each string key is checked with (see outcome_text.c),
 * for the documentation view. */
static const struct {
	const char *path, *rule;
} field_rules[] = {
	{ "action_id",                                   "non-empty plain text; the current Action's id" },
	{ "action_kind",                                 "the current Action's kind" },
	{ "summary",                                     "non-empty markdown" },
	{ "observations[]",                              "markdown, may be empty" },
	{ "known_issues[]",                              "markdown, may be empty" },
	{ "suggested_actions[].brief",                   "non-empty markdown, at most 8192 bytes" },
	{ "pause.question",                              "non-empty markdown" },
	{ "pause.destructive_request.request_id",        "canonical lowercase UUID, RFC 4122 variant, not all zeros" },
	{ "pause.destructive_request.targets",           "at least one; sorted bytewise by (kind, value); no duplicates" },
	{ "pause.destructive_request.targets[].value",   "non-empty plain text" },
	{ "pause.destructive_request.impact",            "non-empty markdown" },
	{ "pause.destructive_request.scope_sha256",      "sha256:<64 lowercase hex> of the canonical scope" },
	{ "pause.supersedes_answer_action_id",           "non-empty plain text; only with decision_required; omit the key otherwise" },
	{ "implementation.files_changed[]",              "plain text, may be empty" },
	{ "implementation.activities[].exit_code",       "the real exit code, any integer" },
	{ "implementation.activities[].command",         "non-empty markdown" },
	{ "implementation.activities[].summary",         "non-empty markdown" },
	{ "implementation.uncertainties[]",              "markdown, may be empty" },
	{ "implementation.attempts",                     "1 or more" },
	{ "review.findings[].location",                  "non-empty plain text" },
	{ "review.findings[].summary",                   "non-empty markdown" },
	{ "review.findings[].detail",                    "non-empty markdown" },
	{ "review.uncertainties[]",                      "markdown, may be empty" },
};
/* clang-format on */

const char *const outcome_target_kind_names[] = {
	"path", "git_ref", "external_resource", "data_domain", NULL,
};

static const char *slot_type(enum slot slot)
{
	switch (slot) {
	case SLOT_STR: return "string";
	case SLOT_INT: return "integer";
	case SLOT_STRS: return "array of strings";
	case SLOT_OBJS: return "array of objects";
	case SLOT_OBJ: return "object or null";
	case SLOT_OPT_STR: return "string";
	}
	return "?";
}

static void doc_walk(const struct shape *s, const char *path,
		     outcome_doc_visit_fn *visit, void *payload)
{
	char sub[256];

	for (size_t i = 0; i < s->n; i++) {
		const struct field *f = &s->fields[i];
		const char *rule = "";

		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", f->name);
		for (size_t k = 0; k < sizeof(field_rules) / sizeof(field_rules[0]); k++)
			if (strcmp(field_rules[k].path, sub) == 0)
				rule = field_rules[k].rule;
		if (f->slot == SLOT_STRS) {
			char item[260];

			snprintf(item, sizeof(item), "%s[]", sub);
			for (size_t k = 0; k < sizeof(field_rules) / sizeof(field_rules[0]); k++)
				if (strcmp(field_rules[k].path, item) == 0)
					rule = field_rules[k].rule;
		}
		visit(sub, slot_type(f->slot), rule, f->required, payload);
		if (f->slot == SLOT_OBJ)
			doc_walk(f->child, sub, visit, payload);
		if (f->slot == SLOT_OBJS) {
			char item[260];

			snprintf(item, sizeof(item), "%s[]", sub);
			doc_walk(f->child, item, visit, payload);
		}
	}
}

void outcome_doc_walk(outcome_doc_visit_fn *visit, void *payload)
{
	doc_walk(&outcome_shape, "", visit, payload);
}

static const struct field *find_field(const struct shape *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->fields[i].name, key) == 0)
			return &s->fields[i];
	return NULL;
}

static int invalid(struct sw_error *err, const char *what, const char *path)
{
	return sw_error_proto(err, INVALID, "decode outcome: %s at %s", what, path);
}

static void child_path(char *buf, size_t n, const char *parent, const char *key)
{
	int w = snprintf(buf, n, "%s.%s", parent, key);

	if (w < 0 || (size_t)w >= n)	/* a path only names the place in a message */
		buf[n - 1] = '\0';
}

static void index_path(char *buf, size_t n, const char *parent, size_t i)
{
	int w = snprintf(buf, n, "%s[%zu]", parent, i);

	if (w < 0 || (size_t)w >= n)
		buf[n - 1] = '\0';
}

static int walk_types(const json_t *obj, const struct shape *s,
		      const char *path, struct sw_error *err);

/* Phase 1 for one slot: exact keys below it, null only where the reference's
 * decoder allows it, and JSON types (an integer slot takes only an integer
 * literal: 2.0 and 2e0 are reals here). */
static int walk_slot(const json_t *v, const struct field *f, const char *path,
		     struct sw_error *err)
{
	char sub[256];
	size_t i;
	int rc;

	if (json_is_null(v)) {
		if (f->slot == SLOT_STR || f->slot == SLOT_INT)
			return invalid(err, "null is not allowed", path);
		return 0;
	}
	switch (f->slot) {
	case SLOT_STR:
	case SLOT_OPT_STR:
		return json_is_string(v) ? 0 : invalid(err, "expected a string", path);
	case SLOT_INT:
		return json_is_integer(v) ? 0 : invalid(err, "expected an integer", path);
	case SLOT_STRS:
		if (!json_is_array(v))
			return invalid(err, "expected an array", path);
		for (i = 0; i < json_array_size(v); i++) {
			const json_t *item = json_array_get(v, i);

			index_path(sub, sizeof(sub), path, i);
			if (json_is_null(item))
				return invalid(err, "null is not allowed", sub);
			if (!json_is_string(item))
				return invalid(err, "expected a string", sub);
		}
		return 0;
	case SLOT_OBJS:
		if (!json_is_array(v))
			return invalid(err, "expected an array", path);
		for (i = 0; i < json_array_size(v); i++) {
			index_path(sub, sizeof(sub), path, i);
			if ((rc = walk_types(json_array_get(v, i), f->child, sub,
					     err)) < 0)
				return rc;
		}
		return 0;
	case SLOT_OBJ:
		return walk_types(v, f->child, path, err);
	}
	return invalid(err, "unexpected value", path);
}

static int walk_types(const json_t *obj, const struct shape *s,
		      const char *path, struct sw_error *err)
{
	const char *key;
	json_t *v;
	char sub[256];
	int rc;

	if (json_is_null(obj))
		return invalid(err, "null is not allowed", path);
	if (!json_is_object(obj))
		return invalid(err, "expected an object", path);
	json_object_foreach((json_t *)obj, key, v) {
		const struct field *f = find_field(s, key);

		if (f == NULL)
			return sw_error_proto(err, INVALID,
					      "decode outcome: unknown field \"%.64s\" at %s",
					      key, path);
		child_path(sub, sizeof(sub), path, key);
		if ((rc = walk_slot(v, f, sub, err)) < 0)
			return rc;
	}
	return 0;
}

/* Names every required key of `s` absent from `obj` in one message. */
static int missing_fields(const json_t *obj, const struct shape *s,
			  const char *path, struct sw_error *err)
{
	char names[200] = "";
	size_t i, n = 0, used = 0;

	for (i = 0; i < s->n; i++) {
		if (!s->fields[i].required ||
		    json_object_get(obj, s->fields[i].name) != NULL)
			continue;
		if (used < sizeof(names)) {
			int m = snprintf(names + used, sizeof(names) - used, "%s\"%s\"",
					 n ? ", " : "", s->fields[i].name);

			used += m > 0 ? (size_t)m : 0;
		}
		n++;
	}
	if (n == 0)
		return 0;
	if (used >= sizeof(names))
		memcpy(names + sizeof(names) - 4, "...", 4);
	return sw_error_proto(err, INVALID,
			      "decode outcome: required field%s %s %s missing at %s",
			      n > 1 ? "s" : "", names, n > 1 ? "are" : "is", path);
}

/* Phase 3: every required key present, arrays and the optional supersedes
 * string not null.  Runs after the version check, as the reference's. */
static int walk_shape(const json_t *obj, const struct shape *s,
		      const char *path, struct sw_error *err)
{
	char sub[256];
	size_t i, j;
	int rc;

	if ((rc = missing_fields(obj, s, path, err)) < 0)
		return rc;
	for (i = 0; i < s->n; i++) {
		const struct field *f = &s->fields[i];
		const json_t *v = json_object_get(obj, f->name);

		if (v == NULL)
			continue;
		child_path(sub, sizeof(sub), path, f->name);
		if (json_is_null(v)) {
			if (f->slot == SLOT_STRS || f->slot == SLOT_OBJS)
				return invalid(err, "array must not be null", sub);
			if (f->slot == SLOT_OPT_STR)
				return invalid(err, "string must not be null when present", sub);
			continue;
		}
		if (f->slot == SLOT_OBJ && (rc = walk_shape(v, f->child, sub, err)) < 0)
			return rc;
		if (f->slot == SLOT_OBJS) {
			for (j = 0; j < json_array_size(v); j++) {
				char item[256];

				index_path(item, sizeof(item), sub, j);
				if ((rc = walk_shape(json_array_get(v, j), f->child,
						     item, err)) < 0)
					return rc;
			}
		}
	}
	return 0;
}

/* ---- the entry: decoding ---- */

int outcome_parse(struct outcome *out, const char *buf, size_t len,
		  struct sw_error *err)
{
	struct sw_error jerr = SW_ERROR_INIT;
	struct build b = { 0, 0 };
	json_t *root = NULL;
	const json_t *ver;
	int64_t version = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = sw_json_load_strict_nul(&root, buf, len, OUTCOME_MAX_BYTES,
					  &jerr)) < 0) {
		if (rc == SW_ENOMEM)
			rc = sw_error_set(err, SW_ENOMEM, "%s", jerr.msg);
		else
			rc = sw_error_proto(err, INVALID, "decode outcome: %s",
					    jerr.msg);
		goto out;
	}
	if ((rc = walk_types(root, &outcome_shape, "$", err)) < 0)
		goto out;
	/* An absent contract_version decodes as 0, so it is a mismatch too. */
	if ((ver = json_object_get(root, "contract_version")) != NULL)
		version = (int64_t)json_integer_value(ver);
	if (ver == NULL) {
		rc = sw_error_proto(err, MISMATCH,
				    "required field \"contract_version\" is missing at $; "
				    "supported version is %d", OUTCOME_CONTRACT_VERSION);
		goto out;
	}
	if (version != OUTCOME_CONTRACT_VERSION) {
		rc = sw_error_proto(err, MISMATCH,
				    "contract_version %lld is unsupported; supported version is %d",
				    (long long)version, OUTCOME_CONTRACT_VERSION);
		goto out;
	}
	if ((rc = walk_shape(root, &outcome_shape, "$", err)) < 0)
		goto out;
	out->contract_version = version;
	outcome__build_outcome(&b, out, root);
	if (b.nomem) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot decode outcome");
		goto out;
	}
	out->text_has_nul = b.has_nul;
	sw_sha256_prefixed(buf, len, out->payload_sha256);
out:
	json_decref(root);
	if (rc < 0)
		outcome_release(out);
	return rc;
}
