/* Canonical JSON of an Outcome (outcome_to_json): the reference's field
 * order, compact, as Go writes it.  Never validates: it renders what it is
 * given. */

#include "io/wire/outcome.h"

#include <jansson.h>

#include "io/util/json.h"

static int set(json_t *obj, const char *key, json_t *v, int *bad)
{
	if (v == NULL || json_object_set_new(obj, key, v) < 0)
		*bad = 1;
	return *bad;
}

static json_t *strings_json(const struct outcome_strings *l)
{
	return sw_json_strings(l->items, l->len);
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
