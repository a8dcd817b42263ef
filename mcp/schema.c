/* Fragments of our generated JSON Schemas for the MCP tool definitions. */

#include "mcp/schema.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/embedded.h"

#define DEFS_PREFIX "#/$defs/"

/* A tuple in our schemas is draft 2020-12 "prefixItems" closed by
 * "items": false.  A draft-07 validator (the MCP SDK's default) reads that
 * "items": false as "no items at all" and rejects every document.  Where
 * "maxItems" already closes the tuple, "items" says nothing more, so it is
 * left out and both dialects read the same constraint. */
static void portable_tuples(json_t *v)
{
	const char *k;
	json_t *sub, *max, *prefix;
	size_t i;

	if (json_is_object(v)) {
		prefix = json_object_get(v, "prefixItems");
		max = json_object_get(v, "maxItems");
		if (json_is_array(prefix) && json_is_false(json_object_get(v, "items")) &&
		    json_is_integer(max) && json_integer_value(max) >= 0 &&
		    (size_t)json_integer_value(max) <= json_array_size(prefix))
			json_object_del(v, "items");
		json_object_foreach(v, k, sub)
			portable_tuples(sub);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, sub)
			portable_tuples(sub);
	}
}

/* The parsed machine-protocol schema, loaded once per process. */
static json_t *protocol_defs(void)
{
	static json_t *defs;

	if (defs == NULL) {
		for (const struct sw_embedded *e = sw_embedded_schemas; e->name; e++) {
			json_t *doc;

			if (strcmp(e->name, "machine-protocol.schema.json") != 0)
				continue;
			if ((doc = json_loadb(e->bytes, e->len, JSON_ALLOW_NUL, NULL)) == NULL)
				return NULL;
			defs = json_incref(json_object_get(doc, "$defs"));
			json_decref(doc);
			portable_tuples(defs);
		}
	}
	return defs;
}

/* Adds definition `name` and those it refers to, depth first. */
static int reach(json_t *out, json_t *all, const char *name);

static int walk(json_t *out, json_t *all, json_t *v)
{
	const char *k;
	json_t *sub;
	size_t i;

	if (json_is_object(v)) {
		json_t *ref = json_object_get(v, "$ref");

		if (json_is_string(ref) &&
		    strncmp(json_string_value(ref), DEFS_PREFIX, strlen(DEFS_PREFIX)) == 0 &&
		    reach(out, all, json_string_value(ref) + strlen(DEFS_PREFIX)) < 0)
			return -1;
		json_object_foreach(v, k, sub)
			if (walk(out, all, sub) < 0)
				return -1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, sub)
			if (walk(out, all, sub) < 0)
				return -1;
	}
	return 0;
}

static int reach(json_t *out, json_t *all, const char *name)
{
	json_t *def = json_object_get(all, name);

	if (def == NULL)
		return -1;
	if (json_object_get(out, name) != NULL)
		return 0;
	if (json_object_set(out, name, def) < 0)
		return -1;
	return walk(out, all, def);
}

int mcp_schema_add_defs(json_t *defs, const char *const *names)
{
	json_t *all = protocol_defs();

	if (all == NULL || !json_is_object(defs))
		return -1;
	for (; *names; names++)
		if (reach(defs, all, *names) < 0)
			return -1;
	return 0;
}
