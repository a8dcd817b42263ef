/* What a Run's journal says beyond its record: every source choice,
 * every comment ever accepted, and the Run's history of stops, resumes,
 * refreshes, choices and budget pauses.  In memory only.  See
 * io/store/run_history.h. */

#include "io/store/run_history.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/store/run_record.h"
#include "io/util/json.h"

struct run_history {
	json_t *choices;	/* [{receipt, result}] */
	json_t *accepted;	/* node id -> pinned section */
	json_t *accepted_db;	/* database id (decimal) -> node id */
	/* {"actions": issued so far, "remaining": budget left so far,
	 *  "events": [{"type", "pause", "budget", "after"}]} */
	json_t *timeline;
	struct run_event *typed;	/* run_history_events, decoded on demand */
	size_t ntyped;
};

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int oom(struct sw_error *err)
{
	return sw_error_set(err, SW_ENOMEM, "out of memory gathering the Run's history");
}

/* A history taking over the three values (NULL ones mean ENOMEM). */
static int adopt(struct run_history **out, json_t *choices, json_t *accepted,
		 json_t *accepted_db, json_t *timeline, struct sw_error *err)
{
	struct run_history *h = NULL;

	*out = NULL;
	if (choices == NULL || accepted == NULL || accepted_db == NULL || timeline == NULL ||
	    (h = sw_calloc(1, sizeof(*h))) == NULL) {
		json_decref(choices);
		json_decref(accepted);
		json_decref(accepted_db);
		json_decref(timeline);
		return oom(err);
	}
	h->choices = choices;
	h->accepted = accepted;
	h->accepted_db = accepted_db;
	h->timeline = timeline;
	*out = h;
	return 0;
}

int run_history_new(struct run_history **out, struct sw_error *err)
{
	return adopt(out, json_array(), json_object(), json_object(),
		     json_pack("{s:i, s:i, s:[]}", "actions", 0, "remaining", 0, "events"), err);
}

int run_history_from_text(struct run_history **out, const char *text, struct sw_error *err)
{
	json_t *x = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;
	json_t *choices = json_object_get(x, "choices");
	json_t *accepted = json_object_get(x, "accepted");
	json_t *accepted_db = json_object_get(x, "accepted_db");
	json_t *timeline = json_object_get(x, "timeline");
	int rc;

	*out = NULL;
	/* A checkpoint written before the timeline was kept has none: it is
	 * refused, and a full replay gathers it. */
	if (!json_is_array(choices) || !json_is_object(accepted) || !json_is_object(accepted_db) ||
	    !json_is_integer(json_object_get(timeline, "actions")) ||
	    !json_is_integer(json_object_get(timeline, "remaining")) ||
	    !json_is_array(json_object_get(timeline, "events"))) {
		json_decref(x);
		return sw_error_set(err, SW_EPARSE, "the checkpoint holds no Run history");
	}
	rc = adopt(out, json_incref(choices), json_incref(accepted), json_incref(accepted_db),
		   json_deep_copy(timeline), err);
	json_decref(x);
	return rc;
}

void run_history_free(struct run_history *h)
{
	if (h == NULL)
		return;
	json_decref(h->choices);
	json_decref(h->accepted);
	json_decref(h->accepted_db);
	json_decref(h->timeline);
	sw_free(h->typed);
	sw_free(h);
}

/* Records the sections of a newly pinned source as accepted (first wins). */
static int accept_sections(struct run_history *h, const json_t *pinned)
{
	const json_t *sec;
	size_t i;

	json_array_foreach(json_object_get(pinned, "sections"), i, sec) {
		const json_t *prov = json_object_get(sec, "provenance");
		const char *node = str(prov, "comment_node_id");
		char dbkey[32];

		if (node == NULL)
			continue;
		snprintf(dbkey, sizeof(dbkey), "%lld",
			 (long long)json_integer_value(json_object_get(prov, "comment_database_id")));
		if (json_object_get(h->accepted, node) == NULL &&
		    json_object_set(h->accepted, node, (json_t *)sec) < 0)
			return -1;
		if (json_object_get(h->accepted_db, dbkey) == NULL &&
		    json_object_set_new(h->accepted_db, dbkey, json_string(node)) < 0)
			return -1;
	}
	return 0;
}

/* Notes a stop, resume, refresh, source choice or budget pause in the
 * timeline, at its place among the Actions issued so far. */
static int note_event(struct run_history *h, enum tbl_jevent type, const json_t *data)
{
	const json_t *init = json_object_get(data, "initialize");
	const json_t *set = init ? init : json_object_get(data, "set");
	const json_t *left = json_object_get(set, "remaining_budget");
	json_t *tl = h->timeline;
	json_int_t before = json_integer_value(json_object_get(tl, "actions"));
	json_int_t issued = (json_int_t)json_array_size(json_object_get(init ? init : json_object_get(data, "append"),
									    "actions"));
	json_int_t remaining = json_is_integer(left) ? json_integer_value(left)
						     : json_integer_value(json_object_get(tl, "remaining"));
	const char *pause = json_string_value(json_object_get(set, "pause_reason"));
	int budget_pause = pause && tbl_pause_lookup(pause) == FSM_PAUSE_BUDGET_EXHAUSTED;
	json_t *ev;

	if (json_object_set_new(tl, "actions", json_integer(before + issued)) < 0 ||
	    json_object_set_new(tl, "remaining", json_integer(remaining)) < 0)
		return -1;
	if (!budget_pause && tbl_jevent_resume_op[type] == NULL && type != TBL_JEVENT_RUN_STOPPED)
		return 0;
	ev = json_pack("{s:s, s:s, s:I, s:I}", "type", tbl_jevent_wire[type],
		       "pause", budget_pause ? pause : "", "budget",
		       issued > 0 ? remaining + issued : (json_int_t)-1, "after", before);
	return json_array_append_new(json_object_get(tl, "events"), ev);
}

int run_history_gather(struct run_history *h, enum tbl_jevent type, const json_t *data,
		       struct sw_error *err)
{
	const json_t *set = json_object_get(data, "set");
	const json_t *pinned = json_object_get(json_object_get(data, "initialize"), "pinned_source");
	const json_t *receipt = json_object_get(set, "last_source_choice");
	const json_t *result = json_object_get(set, "last_resume_result");

	if (pinned == NULL)
		pinned = json_object_get(set, "pinned_source");
	if (pinned && accept_sections(h, pinned) < 0)
		return oom(err);
	if (note_event(h, type, data) < 0)
		return oom(err);
	/* A choice's event sets its receipt and its result together. */
	if ((type == TBL_JEVENT_SOURCE_PINNED || type == TBL_JEVENT_SOURCE_AMENDED) && receipt &&
	    result &&
	    json_array_append_new(h->choices, json_pack("{s:O, s:O}", "receipt", receipt,
							"result", result)) < 0)
		return oom(err);
	return 0;
}

char *run_history_text(const struct run_history *h)
{
	json_t *x = json_pack("{s:O, s:O, s:O, s:O}", "choices", h->choices, "accepted", h->accepted,
			      "accepted_db", h->accepted_db, "timeline", h->timeline);
	char *text = x ? sw_json_dump(x) : NULL;

	json_decref(x);
	return text;
}

int run_history_choice(const struct run_history *h, const char *candidate_id,
		       const char **choice, const json_t **receipt, const json_t **result)
{
	const json_t *c;
	size_t i;

	*choice = NULL;
	*receipt = *result = NULL;
	json_array_foreach(h->choices, i, c) {
		const json_t *r = json_object_get(c, "receipt");

		if (strcmp(str(r, "candidate_id"), candidate_id) != 0)
			continue;
		*choice = str(r, "choice");
		*receipt = r;
		*result = json_object_get(c, "result");
		return 1;
	}
	return 0;
}

const struct run_event *run_history_events(struct run_history *h, size_t *n)
{
	const json_t *events = json_object_get(h->timeline, "events"), *e;
	struct run_event *v;
	size_t i;

	*n = 0;
	if (json_array_size(events) == 0)
		return NULL;
	if ((v = sw_calloc(json_array_size(events), sizeof(*v))) == NULL)
		return NULL;
	json_array_foreach(events, i, e) {
		v[i].type = tbl_jevent_lookup(json_string_value(json_object_get(e, "type")));
		v[i].pause = tbl_pause_lookup(json_string_value(json_object_get(e, "pause")));
		v[i].budget = (long long)json_integer_value(json_object_get(e, "budget"));
		v[i].after = (size_t)json_integer_value(json_object_get(e, "after"));
	}
	sw_free(h->typed);
	h->typed = v;
	h->ntyped = *n = json_array_size(events);
	return v;
}

/* Whether field `key` is equal in both objects (absent in both counts as
 * equal, which json_equal alone does not say). */
static int same_field(const json_t *a, const json_t *b, const char *key)
{
	const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);

	return (x == NULL && y == NULL) || json_equal(x, y);
}

int run_history_violation(const struct run_history *h, const json_t *sections, char *why,
			  size_t whylen)
{
	static const char *const same[] = { "key", "role", "title", "body_sha256",
					    "section_revision", "material_sha256", "bytes" };
	const json_t *sec;
	size_t i;

	json_array_foreach(sections, i, sec) {
		const json_t *prov = json_object_get(sec, "provenance");
		const char *node = str(prov, "comment_node_id");
		json_int_t db = json_integer_value(json_object_get(prov, "comment_database_id"));
		const json_t *prior = json_object_get(h->accepted, node);
		char dbkey[32];
		const char *prior_node;

		snprintf(dbkey, sizeof(dbkey), "%lld", (long long)db);
		if (prior) {
			if (json_integer_value(json_object_get(json_object_get(prior, "provenance"),
								"comment_database_id")) != db) {
				snprintf(why, whylen, "accepted comment node %s was rebound to another database id", node);
				return 1;
			}
			for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++)
				if (!same_field(prior, sec, same[k])) {
					snprintf(why, whylen,
						 "accepted comment node %s was changed in place; publish a replacement comment",
						 node);
					return 1;
				}
		}
		prior_node = str(h->accepted_db, dbkey);
		if (prior_node && strcmp(prior_node, node) != 0) {
			snprintf(why, whylen, "comment database id %s was rebound to another node", dbkey);
			return 1;
		}
	}
	return 0;
}
