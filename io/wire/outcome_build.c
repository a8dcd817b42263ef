/* Building the C struct of a decoded Outcome from its checked JSON tree,
 * and releasing it.  Never rejects anything: the tree has passed the key
 * schema (outcome.c) before it gets here, and the content checks
 * (outcome_check.c) run on the struct afterwards. */

#include "io/wire/outcome_internal.h"

#include <jansson.h>
#include <string.h>

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

void outcome__build_outcome(struct build *b, struct outcome *o, const json_t *root)
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
