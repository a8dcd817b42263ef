/* Writes a JSON Schema from a shape file and tables/: `genschema IN` prints
 * the schema for the shape file IN (schemas/src/NAME.in.json) on stdout.
 *
 * The shape file is plain JSON Schema except for one placeholder: an
 * object {"x-slipway-enum": TABLE, ...} becomes {"enum": [...]} holding the
 * wire spellings of that table's rows, so a new row in tables/ reaches the
 * schema without an edit here.  Optional members narrow the list:
 *   "except": [wire, ...]   rows left out
 *   "host": true            only rows a host may send (pauses, results)
 *   "branch": "review"      results of one Outcome branch
 * and {"x-slipway-outcome-matrix": true} becomes the list of legal Outcome
 * shapes, one per Action kind and group of statuses, from tbl_legal.
 * Built and run by `make schemas`; `make docs-check` compares the output
 * with the committed schemas/ files. */

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "fsm/fsm.h"

/* The tables of io/source/source.h, expanded here from tables/ directly so the
 * generator links only the pure core. */
static const char *const role_wire[] = {
#define SOURCE_ROLE(id, wire) wire,
#include "tables/source_roles.def"
#undef SOURCE_ROLE
};
static const char *const class_wire[] = {
#define SOURCE_CLASS(id, wire) wire,
#include "tables/source_classes.def"
#undef SOURCE_CLASS
};

struct table {
	const char *name;
	const char *const *wire;
	int count;
	const unsigned char *host;	/* a host may send the row; NULL: all */
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct table tables[] = {
	{ "action_kinds", tbl_kind_wire, FSM_KIND__COUNT, NULL },
	{ "outcome_statuses", tbl_status_wire, FSM_STATUS__COUNT, NULL },
	{ "pause_reasons", tbl_pause_wire, FSM_PAUSE__COUNT, tbl_pause_host_may_send },
	{ "run_states", tbl_runstate_wire, FSM_RUN__COUNT, NULL },
	{ "results", tbl_result_wire, FSM_RESULT__COUNT, tbl_result_host_may_send },
	{ "input_types", tbl_input_wire, TBL_INPUT__COUNT, NULL },
	{ "next_operations", tbl_nextop_wire, TBL_NEXTOP__COUNT, NULL },
	{ "next_variants", tbl_variant_wire, TBL_VARIANT__COUNT, NULL },
	{ "error_codes", tbl_err_wire, TBL_ERR__COUNT, NULL },
	{ "source_roles", role_wire, N(role_wire), NULL },
	{ "source_classes", class_wire, N(class_wire), NULL },
};

static int listed(json_t *list, const char *wire)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), wire) == 0)
			return 1;
	return 0;
}

/* The enum array for one placeholder, or NULL with a message. */
static json_t *expand(json_t *ph)
{
	const char *name = json_string_value(json_object_get(ph, "x-slipway-enum"));
	json_t *except = json_object_get(ph, "except");
	const char *branch = json_string_value(json_object_get(ph, "branch"));
	int host = json_is_true(json_object_get(ph, "host"));
	const struct table *t = NULL;
	json_t *out;

	for (int i = 0; i < N(tables); i++)
		if (name && strcmp(tables[i].name, name) == 0)
			t = &tables[i];
	if (t == NULL) {
		fprintf(stderr, "genschema: unknown table '%s'\n", name ? name : "?");
		return NULL;
	}
	if ((out = json_array()) == NULL)
		return NULL;
	for (int i = 1; i < t->count; i++) {
		if (t->wire[i][0] == '\0' || listed(except, t->wire[i]))
			continue;
		if (host && t->host && !t->host[i])
			continue;
		if (branch && t->wire == tbl_result_wire &&
		    strcmp(tbl_branch_wire[tbl_result_branch[i]], branch) != 0)
			continue;
		json_array_append_new(out, json_string(t->wire[i]));
	}
	if (json_array_size(out) == 0) {
		fprintf(stderr, "genschema: '%s' selects no row\n", name);
		json_decref(out);
		return NULL;
	}
	return out;
}

/* ---- the legal-outcome matrix (tables/matrix.c) as the Outcome's oneOf ---- */

static const enum fsm_status status_order[] = {
	FSM_STATUS_COMPLETED, FSM_STATUS_PARTIAL, FSM_STATUS_ERROR,
	FSM_STATUS_NEEDS_INPUT,
};

static int same_cell(const struct fsm_legal *a, const struct fsm_legal *b)
{
	return a->legal == b->legal && a->branch == b->branch &&
	       a->results == b->results && a->pauses == b->pauses &&
	       a->max_suggestions == b->max_suggestions;
}

/* {"const": w} for one member of `set`, else {"enum": [...]}. */
static json_t *one_or_enum(unsigned set, const char *const *wire, int count)
{
	json_t *list = json_array();
	int n = 0, last = 0;

	for (int i = 1; i < count; i++)
		if (set & (1u << i)) {
			json_array_append_new(list, json_string(wire[i]));
			n++;
			last = i;
		}
	if (n == 1) {
		json_decref(list);
		return json_pack("{s:s}", "const", wire[last]);
	}
	return json_pack("{s:o}", "enum", list);
}

static json_t *ref(const char *def)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "#/$defs/%s", def);
	return json_pack("{s:s}", "$ref", buf);
}

static json_t *null_type(void)
{
	return json_pack("{s:s}", "type", "null");
}

static json_t *pause_shape(unsigned pauses)
{
	const unsigned destructive = 1u << FSM_PAUSE_DESTRUCTIVE;

	if (pauses == (1u << FSM_PAUSE_NONE))
		return null_type();
	if (pauses & destructive)
		return json_pack("{s:[o,o]}", "oneOf", ref("nonDestructivePause"),
				 ref("destructivePause"));
	return ref("nonDestructivePause");
}

/* The branch object narrowed to the cell's results; review's "findings
 * reported" and "no findings" also bound the findings list. */
static json_t *branch_shape(const struct fsm_legal *c, enum fsm_branch which,
			    const char *def)
{
	const unsigned both = (1u << FSM_RESULT_NO_FINDINGS) | (1u << FSM_RESULT_FINDINGS);

	if (c->branch != which)
		return null_type();
	if (which == FSM_BRANCH_REVIEW && (c->results & both) == both)
		return json_pack("{s:[o,{s:[{s:{s:{s:s},s:{s:i}}},{s:{s:{s:s},s:{s:i}}}]}]}",
			"allOf", ref(def), "oneOf",
			"properties", "result", "const", tbl_result_wire[FSM_RESULT_NO_FINDINGS],
			"findings", "maxItems", 0,
			"properties", "result", "const", tbl_result_wire[FSM_RESULT_FINDINGS],
			"findings", "minItems", 1);
	return json_pack("{s:[o,{s:{s:o}}]}", "allOf", ref(def), "properties", "result",
			 one_or_enum(c->results, tbl_result_wire, FSM_RESULT__COUNT));
}

/* One oneOf branch per Action kind and group of statuses sharing a cell. */
static json_t *outcome_matrix(void)
{
	json_t *out = json_array();
	const int n = (int)(sizeof(status_order) / sizeof(status_order[0]));

	for (int k = 1; k < FSM_KIND__COUNT && out; k++) {
		int done[sizeof(status_order) / sizeof(status_order[0])] = { 0 };

		for (int i = 0; i < n; i++) {
			const struct fsm_legal *c = &tbl_legal[k][status_order[i]];
			unsigned statuses = 0;

			if (done[i] || !c->legal)
				continue;
			for (int j = i; j < n; j++)
				if (!done[j] && same_cell(c, &tbl_legal[k][status_order[j]])) {
					statuses |= 1u << status_order[j];
					done[j] = 1;
				}
			json_array_append_new(out, json_pack("{s:{s:{s:s},s:o,s:o,s:o,s:o,s:{s:i}}}",
				"properties",
				"action_kind", "const", tbl_kind_wire[k],
				"status", one_or_enum(statuses, tbl_status_wire, FSM_STATUS__COUNT),
				"pause", pause_shape(c->pauses),
				"implementation", branch_shape(c, FSM_BRANCH_IMPLEMENTATION, "implementation"),
				"review", branch_shape(c, FSM_BRANCH_REVIEW, "review"),
				"suggested_actions", "maxItems", (int)c->max_suggestions));
		}
	}
	return out;
}

/* Replaces every placeholder under `node` in place. */
static int walk(json_t *node)
{
	const char *key;
	json_t *v, *tmp;
	size_t i;

	if (json_is_array(node)) {
		json_array_foreach(node, i, v)
			if (walk(v) < 0)
				return -1;
		return 0;
	}
	if (!json_is_object(node))
		return 0;
	if (json_object_get(node, "x-slipway-enum")) {
		json_t *list = expand(node);

		if (list == NULL)
			return -1;
		json_object_del(node, "x-slipway-enum");
		json_object_del(node, "except");
		json_object_del(node, "host");
		json_object_del(node, "branch");
		return json_object_set_new(node, "enum", list);
	}
	json_object_foreach_safe(node, tmp, key, v) {
		if (json_is_true(json_object_get(v, "x-slipway-outcome-matrix"))) {
			json_t *m = outcome_matrix();

			if (m == NULL || json_object_set_new(node, key, m) < 0)
				return -1;
			continue;
		}
		if (walk(v) < 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	json_error_t jerr;
	json_t *doc;
	char banner[256];

	if (argc != 2) {
		fprintf(stderr, "usage: genschema SHAPE.in.json\n");
		return 2;
	}
	if ((doc = json_load_file(argv[1], JSON_PRESERVE_ORDER | JSON_ALLOW_NUL, &jerr)) == NULL) {
		fprintf(stderr, "genschema: %s:%d: %s\n", argv[1], jerr.line, jerr.text);
		return 1;
	}
	snprintf(banner, sizeof(banner),
		 "generated from %s and tables/ by `make schemas`; do not edit", argv[1]);
	if (json_object_set_new(doc, "$comment", json_string(banner)) < 0 ||
	    walk(doc) < 0 ||
	    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
	    putchar('\n') == EOF || fflush(stdout) == EOF) {
		json_decref(doc);
		return 1;
	}
	json_decref(doc);
	return 0;
}
