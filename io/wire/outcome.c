/* Strict Outcome decoding and validation (MAP 2.2, 2.3, 8). */

#include "io/wire/outcome.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "io/util/buf.h"
#include "io/util/json.h"

#define INVALID TBL_ERR_INVALID_OUTCOME
#define MISMATCH TBL_ERR_CONTRACT_VERSION_MISMATCH

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

/* Destructive target kinds, in enum outcome_target_kind order. */
static const char *const target_kind_wire[] = {
	"", "path", "git_ref", "external_resource", "data_domain", NULL,
};

/* Implementation activity kinds. */
const char *const outcome_activity_kind_names[] = { "test", "typecheck", "build", "lint", NULL };
#define activity_kinds outcome_activity_kind_names
#define N_ACTIVITY_KINDS 4

/* The text rule each string key is checked with (see "text rules" below),
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

/* ---- building the C struct ---- */

struct build {
	int nomem;
	int has_nul;	/* some string carried an escaped NUL */
};

static char *take_str(struct build *b, const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);
	char *s;

	if (v == NULL || !json_is_string(v))
		return NULL;
	if (memchr(json_string_value(v), '\0', json_string_length(v)) != NULL)
		b->has_nul = 1;
	if ((s = sw_strndup(json_string_value(v), json_string_length(v))) == NULL)
		b->nomem = 1;
	return s;
}

static void strings_release(struct outcome_strings *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		sw_free(l->items[i]);
	sw_free(l->items);
	l->items = NULL;
	l->len = 0;
}

static void take_strings(struct build *b, struct outcome_strings *l,
			 const json_t *obj, const char *key)
{
	const json_t *arr = json_object_get(obj, key);
	size_t i, n = json_array_size(arr);

	if (n == 0)
		return;
	if ((l->items = sw_calloc(n, sizeof(*l->items))) == NULL) {
		b->nomem = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		const json_t *v = json_array_get(arr, i);

		if (memchr(json_string_value(v), '\0', json_string_length(v)))
			b->has_nul = 1;
		l->items[i] = sw_strndup(json_string_value(v), json_string_length(v));
		if (l->items[i] == NULL) {
			b->nomem = 1;
			return;
		}
		l->len = i + 1;
	}
}

static int64_t take_int(const json_t *obj, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(obj, key));
}

static void request_release(struct outcome_request *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n_targets; i++) {
		sw_free(r->targets[i].kind);
		sw_free(r->targets[i].value);
	}
	sw_free(r->targets);
	sw_free(r->request_id);
	sw_free(r->impact);
	sw_free(r->scope_sha256);
	sw_free(r);
}

static struct outcome_request *take_request(struct build *b, const json_t *v)
{
	struct outcome_request *r;
	const json_t *arr = json_object_get(v, "targets");
	size_t i, n = json_array_size(arr);

	if ((r = sw_calloc(1, sizeof(*r))) == NULL) {
		b->nomem = 1;
		return NULL;
	}
	r->request_id = take_str(b, v, "request_id");
	r->impact = take_str(b, v, "impact");
	r->scope_sha256 = take_str(b, v, "scope_sha256");
	if (n > 0 && (r->targets = sw_calloc(n, sizeof(*r->targets))) == NULL) {
		b->nomem = 1;
		return r;
	}
	for (i = 0; i < n; i++) {
		r->targets[i].kind = take_str(b, json_array_get(arr, i), "kind");
		r->targets[i].value = take_str(b, json_array_get(arr, i), "value");
		r->n_targets = i + 1;
	}
	return r;
}

static void build_pause(struct build *b, struct outcome *o, const json_t *v)
{
	struct outcome_pause *p;
	const json_t *req = json_object_get(v, "destructive_request");

	if ((p = o->pause = sw_calloc(1, sizeof(*p))) == NULL) {
		b->nomem = 1;
		return;
	}
	p->reason = take_str(b, v, "reason");
	p->reason_id = p->reason ? tbl_pause_lookup(p->reason) : FSM_PAUSE_NONE;
	p->question = take_str(b, v, "question");
	p->supersedes = take_str(b, v, "supersedes_answer_action_id");
	if (!json_is_null(req))
		p->request = take_request(b, req);
}

static void build_implementation(struct build *b, struct outcome *o,
				 const json_t *v)
{
	struct outcome_implementation *im;
	const json_t *arr = json_object_get(v, "activities");
	size_t i, n = json_array_size(arr);

	if ((im = o->implementation = sw_calloc(1, sizeof(*im))) == NULL) {
		b->nomem = 1;
		return;
	}
	im->result = take_str(b, v, "result");
	im->result_id = im->result ?
		tbl_result_lookup(FSM_BRANCH_IMPLEMENTATION, im->result) :
		FSM_RESULT_NONE;
	im->attempts = take_int(v, "attempts");
	take_strings(b, &im->files_changed, v, "files_changed");
	take_strings(b, &im->uncertainties, v, "uncertainties");
	if (n > 0 && (im->activities = sw_calloc(n, sizeof(*im->activities))) == NULL) {
		b->nomem = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		const json_t *a = json_array_get(arr, i);
		struct outcome_activity *act = &im->activities[i];

		act->kind = take_str(b, a, "kind");
		act->command = take_str(b, a, "command");
		act->exit_code = take_int(a, "exit_code");
		act->summary = take_str(b, a, "summary");
		im->n_activities = i + 1;
	}
}

static void build_review(struct build *b, struct outcome *o, const json_t *v)
{
	struct outcome_review *rv;
	const json_t *arr = json_object_get(v, "findings");
	size_t i, n = json_array_size(arr);

	if ((rv = o->review = sw_calloc(1, sizeof(*rv))) == NULL) {
		b->nomem = 1;
		return;
	}
	rv->result = take_str(b, v, "result");
	rv->result_id = rv->result ?
		tbl_result_lookup(FSM_BRANCH_REVIEW, rv->result) : FSM_RESULT_NONE;
	take_strings(b, &rv->uncertainties, v, "uncertainties");
	if (n > 0 && (rv->findings = sw_calloc(n, sizeof(*rv->findings))) == NULL) {
		b->nomem = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		const json_t *f = json_array_get(arr, i);

		rv->findings[i].location = take_str(b, f, "location");
		rv->findings[i].summary = take_str(b, f, "summary");
		rv->findings[i].detail = take_str(b, f, "detail");
		rv->n_findings = i + 1;
	}
}

static void build_outcome(struct build *b, struct outcome *o, const json_t *root)
{
	const json_t *v, *arr = json_object_get(root, "suggested_actions");
	size_t i, n = json_array_size(arr);

	o->action_id = take_str(b, root, "action_id");
	o->action_kind = take_str(b, root, "action_kind");
	o->kind = o->action_kind ? tbl_kind_lookup(o->action_kind) : FSM_KIND_NONE;
	o->status = take_str(b, root, "status");
	o->status_id = o->status ? tbl_status_lookup(o->status) : FSM_STATUS_INVALID;
	o->summary = take_str(b, root, "summary");
	take_strings(b, &o->observations, root, "observations");
	take_strings(b, &o->known_issues, root, "known_issues");
	if (n > 0 && (o->suggestions = sw_calloc(n, sizeof(*o->suggestions))) == NULL) {
		b->nomem = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		struct outcome_suggestion *sg = &o->suggestions[i];

		sg->kind = take_str(b, json_array_get(arr, i), "kind");
		sg->kind_id = sg->kind ? tbl_kind_lookup(sg->kind) : FSM_KIND_NONE;
		sg->brief = take_str(b, json_array_get(arr, i), "brief");
		o->n_suggestions = i + 1;
	}
	if (!json_is_null(v = json_object_get(root, "pause")))
		build_pause(b, o, v);
	if (!json_is_null(v = json_object_get(root, "implementation")))
		build_implementation(b, o, v);
	if (!json_is_null(v = json_object_get(root, "review")))
		build_review(b, o, v);
}

void outcome_release(struct outcome *o)
{
	size_t i;

	if (o == NULL)
		return;
	sw_free(o->action_id);
	sw_free(o->action_kind);
	sw_free(o->status);
	sw_free(o->summary);
	strings_release(&o->observations);
	strings_release(&o->known_issues);
	for (i = 0; i < o->n_suggestions; i++) {
		sw_free(o->suggestions[i].kind);
		sw_free(o->suggestions[i].brief);
	}
	sw_free(o->suggestions);
	if (o->pause) {
		sw_free(o->pause->reason);
		sw_free(o->pause->question);
		sw_free(o->pause->supersedes);
		request_release(o->pause->request);
		sw_free(o->pause);
	}
	if (o->implementation) {
		struct outcome_implementation *im = o->implementation;

		for (i = 0; i < im->n_activities; i++) {
			sw_free(im->activities[i].kind);
			sw_free(im->activities[i].command);
			sw_free(im->activities[i].summary);
		}
		sw_free(im->activities);
		sw_free(im->result);
		strings_release(&im->files_changed);
		strings_release(&im->uncertainties);
		sw_free(im);
	}
	if (o->review) {
		struct outcome_review *rv = o->review;

		for (i = 0; i < rv->n_findings; i++) {
			sw_free(rv->findings[i].location);
			sw_free(rv->findings[i].summary);
			sw_free(rv->findings[i].detail);
		}
		sw_free(rv->findings);
		sw_free(rv->result);
		strings_release(&rv->uncertainties);
		sw_free(rv);
	}
	memset(o, 0, sizeof(*o));
}

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
	build_outcome(&b, out, root);
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

/* ---- text rules ---- */

/* Decodes one code point of valid UTF-8 at s[*i]; returns -1 on bad input. */
static long next_rune(const char *str, size_t len, size_t *i)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[*i];
	size_t need, k;
	long r;

	if (c < 0x80) {
		(*i)++;
		return c;
	}
	if (c >= 0xf0) {
		need = 3;
		r = c & 0x07;
	} else if (c >= 0xe0) {
		need = 2;
		r = c & 0x0f;
	} else if (c >= 0xc0) {
		need = 1;
		r = c & 0x1f;
	} else {
		return -1;
	}
	if (*i + need >= len)
		return -1;
	for (k = 1; k <= need; k++) {
		if ((s[*i + k] & 0xc0) != 0x80)
			return -1;
		r = (r << 6) | (s[*i + k] & 0x3f);
	}
	*i += need + 1;
	return r;
}

static int is_control(long c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

/* Go's unicode.IsSpace. */
static int go_space(long c)
{
	return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 ||
	       c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
	       c == 0x3000;
}

/* ECMAScript \s: WhiteSpace plus LineTerminator. */
static int ecma_space(long c)
{
	return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 ||
	       c == 0xfeff || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
	       c == 0x3000;
}

static int controls_ok(const char *s, size_t len, int markdown)
{
	size_t i = 0;
	long c;

	while (i < len) {
		if ((c = next_rune(s, len, &i)) < 0)
			return 0;
		if (!is_control(c))
			continue;
		if (markdown && (c == '\t' || c == '\n' || c == '\r'))
			continue;
		return 0;
	}
	return 1;
}

int outcome_text_markdown(const char *s, size_t len)
{
	return controls_ok(s, len, 1);
}

int outcome_text_plain(const char *s, size_t len)
{
	return controls_ok(s, len, 0);
}

int outcome_text_nonblank(const char *s, size_t len)
{
	int go_ink = 0, ecma_ink = 0;
	size_t i = 0;
	long c;

	while (i < len) {
		if ((c = next_rune(s, len, &i)) < 0)
			return 0;
		go_ink |= !go_space(c);
		ecma_ink |= !ecma_space(c);
	}
	return go_ink && ecma_ink;
}

/* Rule checks on a NUL-terminated field; `what` names it in the message. */
static int need_markdown(const char *s, const char *what, struct sw_error *err)
{
	if (!outcome_text_markdown(s, strlen(s)))
		return sw_error_proto(err, INVALID, "%s contains a disallowed control character", what);
	return 0;
}

static int need_plain(const char *s, const char *what, struct sw_error *err)
{
	if (!outcome_text_plain(s, strlen(s)))
		return sw_error_proto(err, INVALID, "%s contains a disallowed control character", what);
	return 0;
}

static int need_nonblank_markdown(const char *s, const char *what,
				  struct sw_error *err)
{
	if (!outcome_text_nonblank(s, strlen(s)))
		return sw_error_proto(err, INVALID, "%s is required", what);
	return need_markdown(s, what, err);
}

static int need_nonblank_plain(const char *s, const char *what,
			       struct sw_error *err)
{
	if (!outcome_text_nonblank(s, strlen(s)))
		return sw_error_proto(err, INVALID, "%s is required", what);
	return need_plain(s, what, err);
}

static int need_list(const struct outcome_strings *l, const char *what,
		     int markdown, struct sw_error *err)
{
	size_t i;

	for (i = 0; i < l->len; i++) {
		int ok = markdown ? outcome_text_markdown(l->items[i], strlen(l->items[i])) :
				    outcome_text_plain(l->items[i], strlen(l->items[i]));

		if (!ok)
			return sw_error_proto(err, INVALID,
					      "%s[%zu] contains a disallowed control character",
					      what, i);
	}
	return 0;
}

/* ---- destructive requests ---- */

enum outcome_target_kind outcome_target_kind_lookup(const char *s)
{
	size_t i;

	for (i = 1; target_kind_wire[i] != NULL; i++)
		if (strcmp(s, target_kind_wire[i]) == 0)
			return (enum outcome_target_kind)i;
	return OUTCOME_TARGET_NONE;
}

int outcome_uuid_valid(const char *s)
{
	size_t i;
	int nonzero = 0;

	if (strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
			continue;
		}
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
		nonzero |= s[i] != '0';
	}
	/* RFC 4122 variant: the top bits of the clock_seq byte are 10. */
	if (!strchr("89ab", s[19]))
		return 0;
	return nonzero;
}

/* Appends `s` as a canonical JSON string (MAP 8): only `"`, `\` and C0
 * controls are escaped; every other byte, UTF-8 included, goes in raw. */
static void canonical_string(struct sw_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0, i;
	char esc[7];

	sw_buf_ch(b, '"');
	for (i = 0;; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		size_t replen = 2;

		if (c != '\0' && c >= 0x20 && c != '"' && c != '\\')
			continue;
		sw_buf_add(b, s + run, i - run);
		if (c == '\0')
			break;
		switch (c) {
		case '"': rep = "\\\""; break;
		case '\\': rep = "\\\\"; break;
		case '\b': rep = "\\b"; break;
		case '\t': rep = "\\t"; break;
		case '\n': rep = "\\n"; break;
		case '\f': rep = "\\f"; break;
		case '\r': rep = "\\r"; break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0x0f];
			rep = esc;
			replen = 6;
			break;
		}
		sw_buf_add(b, rep, replen);
		run = i + 1;
	}
	sw_buf_ch(b, '"');
}

static int check_targets(const struct outcome_request *r, struct sw_error *err)
{
	size_t i;

	if (r->n_targets == 0)
		return sw_error_set(err, SW_EINVAL, "targets must contain at least one target");
	for (i = 0; i < r->n_targets; i++) {
		const struct outcome_target *t = &r->targets[i], *p;
		int ck, cv;

		if (outcome_target_kind_lookup(t->kind) == OUTCOME_TARGET_NONE)
			return sw_error_set(err, SW_EINVAL,
					    "targets[%zu] has an unsupported kind \"%.64s\"; allowed: path, "
					    "git_ref, external_resource, data_domain", i, t->kind);
		if (!outcome_text_nonblank(t->value, strlen(t->value)) ||
		    !outcome_text_plain(t->value, strlen(t->value)))
			return sw_error_set(err, SW_EINVAL,
					    "targets[%zu].value must be non-empty plain text", i);
		if (i == 0)
			continue;
		p = &r->targets[i - 1];
		ck = strcmp(p->kind, t->kind);
		cv = strcmp(p->value, t->value);
		if (ck == 0 && cv == 0)
			return sw_error_set(err, SW_EINVAL, "targets[%zu] duplicates targets[%zu]", i, i - 1);
		if (ck > 0 || (ck == 0 && cv > 0))
			return sw_error_set(err, SW_EINVAL, "targets must be bytewise sorted by kind and value");
	}
	return 0;
}

int outcome_scope_canonical(char **out, size_t *len, const struct outcome_request *r,
			    struct sw_error *err)
{
	struct sw_buf b = SW_BUF_INIT;
	int rc;

	*out = NULL;
	*len = 0;
	if (!outcome_uuid_valid(r->request_id))
		return sw_error_set(err, SW_EINVAL,
				    "request_id must be a canonical lowercase non-nil RFC UUID");
	if (!outcome_text_nonblank(r->impact, strlen(r->impact)) ||
	    !outcome_text_markdown(r->impact, strlen(r->impact)))
		return sw_error_set(err, SW_EINVAL, "impact must be non-empty markdown text");
	if ((rc = check_targets(r, err)) < 0)
		return rc;
	sw_buf_str(&b, "{\"impact\":");
	canonical_string(&b, r->impact);
	sw_buf_str(&b, ",\"request_id\":");
	canonical_string(&b, r->request_id);
	sw_buf_str(&b, ",\"scope_version\":1,\"targets\":[");
	for (size_t i = 0; i < r->n_targets; i++) {
		sw_buf_str(&b, i ? ",{\"kind\":" : "{\"kind\":");
		canonical_string(&b, r->targets[i].kind);
		sw_buf_str(&b, ",\"value\":");
		canonical_string(&b, r->targets[i].value);
		sw_buf_ch(&b, '}');
	}
	sw_buf_str(&b, "]}");
	*len = b.len;
	if ((*out = sw_buf_detach(&b)) == NULL) {
		*len = 0;
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	return 0;
}

int outcome_scope_sha256(const struct outcome_request *r,
			 char out[SW_DIGEST_LEN], struct sw_error *err)
{
	char *canon;
	size_t len;
	int rc;

	if ((rc = outcome_scope_canonical(&canon, &len, r, err)) < 0)
		return rc;
	sw_sha256_prefixed(canon, len, out);
	sw_free(canon);
	return 0;
}

void outcome_scope_example(struct outcome_request *r, struct outcome_target targets[2])
{
	static char request_id[] = "3f0c6a52-9b1e-4d7a-8c2f-5e4b1a9d7c60";
	static char impact[] = "Deletes the build/cache directory and the local branch old-release; "
			       "both can be rebuilt from origin.";
	static char k0[] = "git_ref", v0[] = "refs/heads/old-release";
	static char k1[] = "path", v1[] = "build/cache";

	targets[0] = (struct outcome_target){ k0, v0 };
	targets[1] = (struct outcome_target){ k1, v1 };
	*r = (struct outcome_request){ request_id, targets, 2, impact, NULL };
}

int outcome_request_verify(const struct outcome_request *r,
			   struct sw_error *err)
{
	char digest[SW_DIGEST_LEN];
	int rc;

	if (!sw_digest_valid(r->scope_sha256))
		return sw_error_set(err, SW_EINVAL,
				    "destructive_request.scope_sha256 must use lowercase sha256:<64 hex> format");
	if ((rc = outcome_scope_sha256(r, digest, err)) < 0)
		return rc;
	if (strcmp(digest, r->scope_sha256) != 0)
		return sw_error_set(err, SW_EINVAL,
				    "destructive_request.scope_sha256 does not match its canonical scope: "
				    "for the request as sent it is %s, the SHA-256 of the UTF-8 bytes "
				    "{\"impact\":I,\"request_id\":R,\"scope_version\":1,\"targets\":"
				    "[{\"kind\":K,\"value\":V},...]} (keys in this order, targets as sent, "
				    "no whitespace, no trailing newline; strings escape only \\\", \\\\ "
				    "and controls below U+0020)", digest);
	return 0;
}

static int check_request(const struct outcome_request *r, struct sw_error *err)
{
	struct sw_error local = SW_ERROR_INIT;
	int rc;

	if ((rc = outcome_request_verify(r, &local)) == 0)
		return 0;
	if (rc == SW_ENOMEM)
		return sw_error_set(err, SW_ENOMEM, "%s", local.msg);
	return sw_error_proto(err, INVALID, "invalid destructive_request: %s", local.msg);
}

/* ---- allowed values, named in rejection messages ---- */

struct allowed {
	char text[200];
	size_t used;
};

static void allowed_add(struct allowed *a, const char *wire)
{
	int m;

	if (a->used >= sizeof(a->text))
		return;
	m = snprintf(a->text + a->used, sizeof(a->text) - a->used, "%s%s",
		     a->used ? ", " : "", wire);
	a->used += m > 0 ? (size_t)m : 0;
}

/* The wire spellings of the members of `set` ("none" when empty). */
static const char *allowed_set(struct allowed *a, unsigned set,
			       const char *const *wire, int count)
{
	a->used = 0;
	a->text[0] = '\0';
	for (int i = 1; i < count; i++)
		if (set & (1u << i))
			allowed_add(a, wire[i]);
	return a->used ? a->text : "none";
}

static const char *allowed_list(struct allowed *a, const char *const *names)
{
	a->used = 0;
	a->text[0] = '\0';
	for (size_t i = 0; names[i] != NULL; i++)
		allowed_add(a, names[i]);
	return a->text;
}

static unsigned host_pauses(void)
{
	unsigned set = 0;

	for (int p = 1; p < FSM_PAUSE__COUNT; p++)
		if (tbl_pause_host_may_send[p])
			set |= 1u << p;
	return set;
}

static unsigned host_results(enum fsm_branch branch)
{
	unsigned set = 0;

	for (int r = 1; r < FSM_RESULT__COUNT; r++)
		if (tbl_result_host_may_send[r] && tbl_result_branch[r] == branch)
			set |= 1u << r;
	return set;
}

/* ---- content checks ---- */

static int check_pause(const struct outcome_pause *p, struct sw_error *err)
{
	struct allowed a;
	int rc;

	if ((rc = need_nonblank_markdown(p->question, "pause.question", err)) < 0)
		return rc;
	if (p->reason_id == FSM_PAUSE_NONE || !tbl_pause_host_may_send[p->reason_id])
		return sw_error_proto(err, INVALID,
				      "needs_input requires a supported host pause reason: "
				      "pause.reason \"%.64s\" is not one of %s", p->reason,
				      allowed_set(&a, host_pauses(), tbl_pause_wire, FSM_PAUSE__COUNT));
	if (p->supersedes &&
	    (rc = need_nonblank_plain(p->supersedes,
				      "pause.supersedes_answer_action_id", err)) < 0)
		return rc;
	if (p->request && (rc = check_request(p->request, err)) < 0)
		return rc;
	return 0;
}

static int check_implementation(const struct outcome_implementation *im,
				struct sw_error *err)
{
	struct allowed a;
	size_t i, k;
	int rc;

	if (im->result_id == FSM_RESULT_NONE || !tbl_result_host_may_send[im->result_id])
		return sw_error_proto(err, INVALID,
				      "implementation has an unsupported result \"%.64s\"; allowed: %s",
				      im->result, allowed_set(&a, host_results(FSM_BRANCH_IMPLEMENTATION),
							      tbl_result_wire, FSM_RESULT__COUNT));
	if (im->attempts <= 0)
		return sw_error_proto(err, INVALID, "implementation.attempts must be positive");
	if ((rc = need_list(&im->files_changed, "implementation.files_changed", 0, err)) < 0 ||
	    (rc = need_list(&im->uncertainties, "implementation.uncertainties", 1, err)) < 0)
		return rc;
	for (i = 0; i < im->n_activities; i++) {
		const struct outcome_activity *act = &im->activities[i];

		for (k = 0; k < N_ACTIVITY_KINDS; k++)
			if (strcmp(act->kind, activity_kinds[k]) == 0)
				break;
		if (k == N_ACTIVITY_KINDS)
			return sw_error_proto(err, INVALID,
					      "implementation.activities[%zu] has an unsupported kind \"%.64s\"; allowed: %s",
					      i, act->kind, allowed_list(&a, activity_kinds));
		if ((rc = need_nonblank_markdown(act->command, "implementation.activities[].command", err)) < 0 ||
		    (rc = need_nonblank_markdown(act->summary, "implementation.activities[].summary", err)) < 0)
			return rc;
	}
	return 0;
}

static int check_review(const struct outcome_review *rv, struct sw_error *err)
{
	struct allowed a;
	size_t i;
	int rc;

	if (rv->result_id == FSM_RESULT_NONE || !tbl_result_host_may_send[rv->result_id])
		return sw_error_proto(err, INVALID,
				      "review has an unsupported result \"%.64s\"; allowed: %s",
				      rv->result, allowed_set(&a, host_results(FSM_BRANCH_REVIEW),
							      tbl_result_wire, FSM_RESULT__COUNT));
	if ((rc = need_list(&rv->uncertainties, "review.uncertainties", 1, err)) < 0)
		return rc;
	for (i = 0; i < rv->n_findings; i++) {
		const struct outcome_finding *f = &rv->findings[i];

		if ((rc = need_nonblank_plain(f->location, "review.findings[].location", err)) < 0 ||
		    (rc = need_nonblank_markdown(f->summary, "review.findings[].summary", err)) < 0 ||
		    (rc = need_nonblank_markdown(f->detail, "review.findings[].detail", err)) < 0)
			return rc;
	}
	return 0;
}

static unsigned legal_statuses(enum fsm_kind kind)
{
	unsigned set = 0;

	for (int st = 1; st < FSM_STATUS__COUNT; st++)
		if (tbl_legal[kind][st].legal)
			set |= 1u << st;
	return set;
}

static unsigned suggestible(void)
{
	unsigned set = 0;

	for (int k = 1; k < FSM_KIND__COUNT; k++)
		if (tbl_kind_suggestible[k])
			set |= 1u << k;
	return set;
}

/* A matrix violation, with the values the matrix allows for the Outcome's
 * kind and status appended where one set of values is at fault. */
static int violation(const struct outcome *o, enum fsm_violation v,
		     struct sw_error *err)
{
	const struct fsm_legal *cell = &tbl_legal[o->kind][o->status_id];
	const char *text = tbl_violation_text[v];
	struct allowed a;

	switch (v) {
	case FSM_VIOLATION_STATUS:
		return sw_error_proto(err, INVALID, "%s; allowed for %s: %s", text,
				      o->action_kind, allowed_set(&a, legal_statuses(o->kind),
								  tbl_status_wire, FSM_STATUS__COUNT));
	case FSM_VIOLATION_PAUSE_REASON:
		return sw_error_proto(err, INVALID, "%s; allowed for %s %s: %s", text,
				      o->action_kind, o->status,
				      allowed_set(&a, cell->pauses, tbl_pause_wire, FSM_PAUSE__COUNT));
	case FSM_VIOLATION_RESULT:
		return sw_error_proto(err, INVALID, "%s; allowed for %s %s: %s", text,
				      o->action_kind, o->status,
				      allowed_set(&a, cell->results, tbl_result_wire, FSM_RESULT__COUNT));
	case FSM_VIOLATION_SUGGESTIONS:
		return sw_error_proto(err, INVALID, "%s; at most %u for %s %s", text,
				      cell->max_suggestions, o->action_kind, o->status);
	case FSM_VIOLATION_SUGGESTION_KIND:
		return sw_error_proto(err, INVALID, "%s; allowed for %s %s: %s", text,
				      o->action_kind, o->status,
				      allowed_set(&a, cell->suggestion_kinds, tbl_kind_wire, FSM_KIND__COUNT));
	case FSM_VIOLATION_NONE:
	case FSM_VIOLATION_KIND_MISMATCH:
	case FSM_VIOLATION_PAUSE_REQUIRED:
	case FSM_VIOLATION_PAUSE_FORBIDDEN:
	case FSM_VIOLATION_SUPERSEDES:
	case FSM_VIOLATION_REQUEST_REQUIRED:
	case FSM_VIOLATION_REQUEST_FORBIDDEN:
	case FSM_VIOLATION_IMPLEMENTATION_REQUIRED:
	case FSM_VIOLATION_IMPLEMENTATION_FORBIDDEN:
	case FSM_VIOLATION_REVIEW_REQUIRED:
	case FSM_VIOLATION_REVIEW_FORBIDDEN:
	case FSM_VIOLATION_FINDINGS:
	case FSM_VIOLATION__COUNT:
		break;
	}
	return sw_error_proto(err, INVALID, "%s", text);
}

int outcome_check(const struct outcome *o, struct sw_error *err)
{
	struct allowed a;
	struct fsm_outcome_shape shape;
	enum fsm_violation v;
	size_t i;
	int rc;

	if (o->contract_version != OUTCOME_CONTRACT_VERSION)
		return sw_error_proto(err, MISMATCH,
				      "contract_version %lld is unsupported; supported version is %d",
				      (long long)o->contract_version, OUTCOME_CONTRACT_VERSION);
	if (o->text_has_nul)
		return sw_error_proto(err, INVALID,
				      "outcome text contains disallowed control u+0000");
	if ((rc = need_nonblank_plain(o->action_id, "action_id", err)) < 0)
		return rc;
	if (o->kind == FSM_KIND_NONE)
		return sw_error_proto(err, INVALID,
				      "invalid outcome action_kind \"%.64s\"; allowed: %s", o->action_kind,
				      allowed_set(&a, ~0u, tbl_kind_wire, FSM_KIND__COUNT));
	if (o->status_id == FSM_STATUS_INVALID)
		return sw_error_proto(err, INVALID,
				      "invalid outcome status \"%.64s\"; allowed for %s: %s", o->status,
				      o->action_kind, allowed_set(&a, legal_statuses(o->kind),
								  tbl_status_wire, FSM_STATUS__COUNT));
	if ((rc = need_nonblank_markdown(o->summary, "summary", err)) < 0 ||
	    (rc = need_list(&o->observations, "observations", 1, err)) < 0 ||
	    (rc = need_list(&o->known_issues, "known_issues", 1, err)) < 0)
		return rc;
	if (o->n_suggestions > 1)
		return sw_error_proto(err, INVALID, "suggested_actions may contain at most one item");
	for (i = 0; i < o->n_suggestions; i++) {
		const struct outcome_suggestion *sg = &o->suggestions[i];

		if (sg->kind_id == FSM_KIND_NONE || !tbl_kind_suggestible[sg->kind_id])
			return sw_error_proto(err, INVALID,
					      "suggested_actions[%zu] has an invalid kind \"%.64s\"; allowed: %s",
					      i, sg->kind, allowed_set(&a, suggestible(), tbl_kind_wire,
								       FSM_KIND__COUNT));
		if ((rc = need_nonblank_markdown(sg->brief, "suggested_actions[].brief", err)) < 0)
			return rc;
		if (strlen(sg->brief) > OUTCOME_MAX_BRIEF_BYTES)
			return sw_error_proto(err, INVALID,
					      "suggested_actions[%zu].brief exceeds %u bytes",
					      i, OUTCOME_MAX_BRIEF_BYTES);
	}
	if (o->pause && (rc = check_pause(o->pause, err)) < 0)
		return rc;
	if (o->implementation && (rc = check_implementation(o->implementation, err)) < 0)
		return rc;
	if (o->review && (rc = check_review(o->review, err)) < 0)
		return rc;

	memset(&shape, 0, sizeof(shape));
	shape.kind = o->kind;
	shape.status = o->status_id;
	shape.pause = o->pause ? o->pause->reason_id : FSM_PAUSE_NONE;
	shape.has_supersedes = o->pause && o->pause->supersedes;
	shape.has_destructive_request = o->pause && o->pause->request;
	shape.has_implementation = o->implementation != NULL;
	shape.implementation = o->implementation ? o->implementation->result_id : FSM_RESULT_NONE;
	shape.has_review = o->review != NULL;
	shape.review = o->review ? o->review->result_id : FSM_RESULT_NONE;
	shape.findings = o->review ? o->review->n_findings : 0;
	shape.suggestions = o->n_suggestions;
	shape.suggestion_kind = o->n_suggestions ? o->suggestions[0].kind_id : FSM_KIND_NONE;
	if ((v = fsm_outcome_check(&shape)) != FSM_VIOLATION_NONE)
		return violation(o, v, err);
	return 0;
}

int outcome_decode(struct outcome *out, const char *buf, size_t len,
		   struct sw_error *err)
{
	int rc;

	if ((rc = outcome_parse(out, buf, len, err)) < 0)
		return rc;
	if ((rc = outcome_check(out, err)) < 0)
		outcome_release(out);
	return rc;
}

int outcome_validate_for(const struct outcome *o, enum fsm_kind current_kind,
			 const char *current_action_id, struct sw_error *err)
{
	if (o->contract_version != OUTCOME_CONTRACT_VERSION)
		return outcome_check(o, err);
	if (current_action_id == NULL ||
	    !outcome_text_nonblank(current_action_id, strlen(current_action_id)) ||
	    !outcome_text_plain(current_action_id, strlen(current_action_id)))
		return sw_error_proto(err, INVALID, "current action_id is required");
	if (o->action_id == NULL || strcmp(o->action_id, current_action_id) != 0)
		return sw_error_proto(err, INVALID,
				      "outcome action_id does not match the current action");
	if (current_kind <= FSM_KIND_NONE || current_kind >= FSM_KIND__COUNT)
		return sw_error_proto(err, INVALID, "invalid action kind");
	if (o->kind == FSM_KIND_NONE)
		return sw_error_proto(err, INVALID, "invalid outcome action_kind");
	if (o->kind != current_kind)
		return sw_error_proto(err, INVALID, "%s",
				      tbl_violation_text[FSM_VIOLATION_KIND_MISMATCH]);
	return outcome_check(o, err);
}

/* ---- canonical JSON ---- */

static int set(json_t *obj, const char *key, json_t *v, int *bad)
{
	if (v == NULL || json_object_set_new(obj, key, v) < 0)
		*bad = 1;
	return *bad;
}

static json_t *strings_json(const struct outcome_strings *l)
{
	json_t *arr = json_array();
	size_t i;

	if (arr == NULL)
		return NULL;
	for (i = 0; i < l->len; i++)
		if (json_array_append_new(arr, json_string(l->items[i])) < 0) {
			json_decref(arr);
			return NULL;
		}
	return arr;
}

static json_t *request_json(const struct outcome_request *r)
{
	json_t *obj = json_object(), *arr = NULL;
	size_t i;
	int bad = obj == NULL;

	if (bad)
		return NULL;
	set(obj, "request_id", json_string(r->request_id), &bad);
	if (!bad && (arr = json_array()) != NULL)
		for (i = 0; i < r->n_targets && !bad; i++) {
			json_t *t = json_object();

			if (t == NULL) {
				bad = 1;
				break;
			}
			set(t, "kind", json_string(r->targets[i].kind), &bad);
			set(t, "value", json_string(r->targets[i].value), &bad);
			if (json_array_append_new(arr, t) < 0)
				bad = 1;
		}
	set(obj, "targets", arr, &bad);
	set(obj, "impact", json_string(r->impact), &bad);
	set(obj, "scope_sha256", json_string(r->scope_sha256), &bad);
	if (bad) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

static json_t *pause_json(const struct outcome_pause *p)
{
	json_t *obj = json_object();
	int bad = obj == NULL;

	if (bad)
		return NULL;
	set(obj, "reason", json_string(p->reason), &bad);
	set(obj, "question", json_string(p->question), &bad);
	set(obj, "destructive_request",
	    p->request ? request_json(p->request) : json_null(), &bad);
	if (p->supersedes)
		set(obj, "supersedes_answer_action_id", json_string(p->supersedes), &bad);
	if (bad) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

static json_t *implementation_json(const struct outcome_implementation *im)
{
	json_t *obj = json_object(), *arr = NULL;
	size_t i;
	int bad = obj == NULL;

	if (bad)
		return NULL;
	set(obj, "result", json_string(im->result), &bad);
	set(obj, "files_changed", strings_json(&im->files_changed), &bad);
	if (!bad && (arr = json_array()) != NULL)
		for (i = 0; i < im->n_activities && !bad; i++) {
			const struct outcome_activity *a = &im->activities[i];
			json_t *t = json_object();

			if (t == NULL) {
				bad = 1;
				break;
			}
			set(t, "kind", json_string(a->kind), &bad);
			set(t, "command", json_string(a->command), &bad);
			set(t, "exit_code", json_integer((json_int_t)a->exit_code), &bad);
			set(t, "summary", json_string(a->summary), &bad);
			if (json_array_append_new(arr, t) < 0)
				bad = 1;
		}
	set(obj, "activities", arr, &bad);
	set(obj, "uncertainties", strings_json(&im->uncertainties), &bad);
	set(obj, "attempts", json_integer((json_int_t)im->attempts), &bad);
	if (bad) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

static json_t *review_json(const struct outcome_review *rv)
{
	json_t *obj = json_object(), *arr = NULL;
	size_t i;
	int bad = obj == NULL;

	if (bad)
		return NULL;
	set(obj, "result", json_string(rv->result), &bad);
	if (!bad && (arr = json_array()) != NULL)
		for (i = 0; i < rv->n_findings && !bad; i++) {
			const struct outcome_finding *f = &rv->findings[i];
			json_t *t = json_object();

			if (t == NULL) {
				bad = 1;
				break;
			}
			set(t, "location", json_string(f->location), &bad);
			set(t, "summary", json_string(f->summary), &bad);
			set(t, "detail", json_string(f->detail), &bad);
			if (json_array_append_new(arr, t) < 0)
				bad = 1;
		}
	set(obj, "findings", arr, &bad);
	set(obj, "uncertainties", strings_json(&rv->uncertainties), &bad);
	if (bad) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

int outcome_to_json(char **out, const struct outcome *o, struct sw_error *err)
{
	json_t *obj = NULL, *arr = NULL;
	size_t i;
	int bad = 0;
	int rc = 0;

	*out = NULL;
	if ((obj = json_object()) == NULL) {
		bad = 1;
		goto out;
	}
	set(obj, "contract_version", json_integer((json_int_t)o->contract_version), &bad);
	set(obj, "action_id", json_string(o->action_id), &bad);
	set(obj, "action_kind", json_string(o->action_kind), &bad);
	set(obj, "status", json_string(o->status), &bad);
	set(obj, "summary", json_string(o->summary), &bad);
	set(obj, "observations", strings_json(&o->observations), &bad);
	set(obj, "known_issues", strings_json(&o->known_issues), &bad);
	if (!bad && (arr = json_array()) != NULL)
		for (i = 0; i < o->n_suggestions && !bad; i++) {
			json_t *t = json_object();

			if (t == NULL) {
				bad = 1;
				break;
			}
			set(t, "kind", json_string(o->suggestions[i].kind), &bad);
			set(t, "brief", json_string(o->suggestions[i].brief), &bad);
			if (json_array_append_new(arr, t) < 0)
				bad = 1;
		}
	set(obj, "suggested_actions", arr, &bad);
	set(obj, "pause", o->pause ? pause_json(o->pause) : json_null(), &bad);
	set(obj, "implementation",
	    o->implementation ? implementation_json(o->implementation) : json_null(), &bad);
	set(obj, "review", o->review ? review_json(o->review) : json_null(), &bad);
	if (!bad && (*out = sw_json_dump(obj)) == NULL)
		bad = 1;
out:
	if (bad)
		rc = sw_error_set(err, SW_ENOMEM, "cannot encode outcome");
	json_decref(obj);
	return rc;
}
