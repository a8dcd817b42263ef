/* Views of the record for output: the runStatus object (with the frozen
 * records parsed back and the context texts put back in place of their
 * digests), the current Action in full, the contexts issued since the last
 * call.  Never changes the record. */

#include <string.h>

#include <jansson.h>

#include "io/store/run_internal.h"

json_t *run_take_contexts(struct run *r)
{
	json_t *taken = r->contexts;

	r->contexts = json_array();
	if (r->contexts == NULL) {
		r->contexts = taken;
		return NULL;
	}
	return taken;
}

/* A copy of `action` with its context text back in place of the digest
 * (the reference's key order: context after brief), or a new reference to
 * `action` itself when it has no digest.  NULL when the text is missing. */
static json_t *with_context(json_t *action, run_context_fn *resolve, void *payload)
{
	const char *digest = run__str(action, "context_sha256");
	json_t *out, *v;
	const char *k;
	char *text;

	if (digest == NULL)
		return json_incref(action);
	if ((text = resolve(digest, payload)) == NULL)
		return NULL;
	if ((out = json_object()) == NULL) {
		sw_free(text);
		return NULL;
	}
	json_object_foreach(action, k, v) {
		if (strcmp(k, "context_sha256") == 0)
			continue;
		json_object_set(out, k, v);
		/* Valid UTF-8 by construction (run__issue_action), and a
		 * stored material was checked against its digest: no scan. */
		if (strcmp(k, "brief") == 0)
			json_object_set_new(out, "context", json_stringn_nocheck(text, strlen(text)));
	}
	sw_free(text);
	return out;
}

/* Puts the context texts back into the current Action and every record. */
static int inline_contexts(json_t *out, run_context_fn *resolve, void *payload)
{
	json_t *actions = json_object_get(out, "actions"), *copy, *rec, *cur;
	size_t i;

	if ((cur = json_object_get(out, "current_action")) != NULL) {
		json_t *full = with_context(cur, resolve, payload);

		if (full == NULL || json_object_set_new(out, "current_action", full) < 0)
			return -1;
	}
	if ((copy = json_array()) == NULL)
		return -1;
	json_array_foreach(actions, i, rec) {
		json_t *full = with_context(json_object_get(rec, "action"), resolve, payload);
		json_t *nrec = full ? json_copy(rec) : NULL;

		if (nrec == NULL || json_object_set_new(nrec, "action", full) < 0 ||
		    json_array_append_new(copy, nrec) < 0) {
			json_decref(nrec);
			json_decref(copy);
			return -1;
		}
	}
	return json_object_set_new(out, "actions", copy);
}

json_t *run_current_action_full(const struct run *r, run_context_fn *resolve,
				void *payload)
{
	json_t *cur = json_object_get(r->rec, "current_action");

	return cur ? with_context(cur, resolve, payload) : NULL;
}

/* run_status_json, with `frozen` the frozen records parsed back into
 * `actions` (without it they are left out, for run_projection). */
json_t *run__status_object(const struct run *r, int for_status, run_context_fn *resolve,
			   void *payload, int frozen)
{
	json_t *out = run__ordered_copy(r->rec), *obs;
	const char *state = run__str(r->rec, "state");

	if (out == NULL)
		return NULL;
	if (frozen && r->nfz > 0) {
		/* Output that shows the history parses the frozen records. */
		json_t *all = run__fz_records(r), *v;
		size_t i;

		json_array_foreach(json_object_get(r->rec, "actions"), i, v)
			if (all && json_array_append(all, v) < 0) {
				json_decref(all);
				all = NULL;
			}
		if (all == NULL || json_object_set_new(out, "actions", all) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	if (resolve != NULL && inline_contexts(out, resolve, payload) < 0) {
		json_decref(out);
		return NULL;
	}
	if (for_status && state &&
	    (strcmp(state, "stopped") == 0 || strcmp(state, "ended") == 0))
		json_object_del(out, "current_action");
	obs = json_object_get(out, "observations");
	if (json_array_size(obs) > RUN_PROJECTION_OBSERVATIONS) {
		size_t drop = json_array_size(obs) - RUN_PROJECTION_OBSERVATIONS;
		json_t *window = json_array();
		char *marker = sw_asprintf("...[%zu earlier observations in journal]", drop);

		if (window == NULL || marker == NULL) {
			json_decref(window);
			sw_free(marker);
			json_decref(out);
			return NULL;
		}
		json_array_append_new(window, json_string(marker));
		for (size_t i = drop; i < json_array_size(obs); i++)
			json_array_append(window, json_array_get(obs, i));
		json_object_set_new(out, "observations", window);
		sw_free(marker);
	}
	return out;
}

json_t *run_status_json(const struct run *r, int for_status,
			run_context_fn *resolve, void *payload)
{
	return run__status_object(r, for_status, resolve, payload, 1);
}
