/* The MCP tools: one row per protocol operation, one row per argument. */

#include "mcp/tools.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/err.h"
#include "mcp/ops.h"
#include "mcp/schema.h"
#include "mcp/tool_result.h"

/* How an argument is read from JSON and where it goes in the request. */
enum arg_kind {
	KIND_STRING,	/* a JSON string, passed as the flag's value */
	KIND_BYTES,	/* a JSON string, passed as the exact bytes the CLI
			 * would read from a file or stdin */
	KIND_BOOL,	/* true or false */
	KIND_INTEGER,	/* a JSON integer */
	KIND_DOCUMENT,	/* any JSON value, handed over as its JSON text (the
			 * CLI decides whether it is an acceptable document) */
	KIND_SOURCE	/* an envelope object, or a string naming its file */
};

enum arg_id {
	ARG_RUN_ID,
	ARG_ACTION_ID,
	ARG_GOAL,
	ARG_BUDGET,
	ARG_NO_REVIEW,
	ARG_SOURCE,
	ARG_OUTCOME,
	ARG_TEXT,
	ARG_CONFIRM_DESTRUCTIVE,
	ARG_SCOPE_SHA256,
	ARG_SECTION,
	ARG_USE_PINNED_SOURCE,
	ARG_SOURCE_CHOICE,
	ARG_CANDIDATE,
	ARG__COUNT
};

#define BIT(a) (1u << (a))

/* The CLI flag each argument stands for is named in its description, so a
 * host reading either surface finds the same words. */
static const struct arg {
	const char *name;
	enum arg_kind kind;
	const char *description;
} args[ARG__COUNT] = {
/*	  name                   kind            description */
	[ARG_RUN_ID] =           { "run_id",              KIND_STRING,   "Run ID (the CLI's --run, or the positional run id)" },
	[ARG_ACTION_ID] =        { "action_id",           KIND_STRING,   "the current or waiting Action's ID (--action)" },
	[ARG_GOAL] =             { "goal",                KIND_BYTES,    "the exact Run goal, as the user stated it (--goal-stdin)" },
	[ARG_BUDGET] =           { "budget",              KIND_INTEGER,  "maximum number of Actions before the Run pauses (--budget; run: default 8; resume: replaces the remaining budget)" },
	[ARG_NO_REVIEW] =        { "no_review",           KIND_BOOL,     "omit the default advisory review (--no-review)" },
	[ARG_SOURCE] =           { "source",              KIND_SOURCE,   "a raw GitHub Change source envelope as a JSON object, or the path of a file holding one (--source-file)" },
	[ARG_OUTCOME] =          { "outcome",             KIND_DOCUMENT, "the Outcome of the current Action as a JSON object (--outcome-stdin)" },
	[ARG_TEXT] =             { "text",                KIND_BYTES,    "the user's exact answer or decline, or an optional confirmation note (--text-stdin)" },
	[ARG_CONFIRM_DESTRUCTIVE] = { "confirm_destructive", KIND_BOOL,  "attest the user's current confirmation of the exact destructive scope (--confirm-destructive)" },
	[ARG_SCOPE_SHA256] =     { "scope_sha256",        KIND_STRING,   "the exact current destructive scope digest (--scope-sha256)" },
	[ARG_SECTION] =          { "section",             KIND_STRING,   "source section key (--section)" },
	[ARG_USE_PINNED_SOURCE] = { "use_pinned_source",  KIND_BOOL,     "continue explicitly with the pinned source snapshot (--use-pinned-source)" },
	[ARG_SOURCE_CHOICE] =    { "source_choice",       KIND_STRING,   "resolve the current source candidate: pinned or adopt (--source-choice)" },
	[ARG_CANDIDATE] =        { "candidate",           KIND_STRING,   "the current source candidate's ID (--candidate)" },
};

struct tool {
	const char *name;
	enum mcp_op op;
	unsigned accepts;		/* BIT(arg) */
	unsigned required;
	int read_only;
	const char *outputs[5];		/* $defs of the success documents */
	const char *title;
	const char *description;
};

#define RUN_ACTION (BIT(ARG_RUN_ID) | BIT(ARG_ACTION_ID))

/* clang-format off */
static const struct tool tools[] = {
/*	  name        op              accepts                                                                                          required                     ro  outputs */
	{ "run",      MCP_OP_RUN,      BIT(ARG_GOAL) | BIT(ARG_BUDGET) | BIT(ARG_NO_REVIEW) | BIT(ARG_SOURCE),                           BIT(ARG_GOAL),               0, { "protocolState" },
	  "Start a Run", "Start a Run (slipway run --json): slipway issues its first Action and returns the protocolState with `next`." },
	{ "submit",   MCP_OP_SUBMIT,   RUN_ACTION | BIT(ARG_OUTCOME),                                                                    RUN_ACTION | BIT(ARG_OUTCOME), 0, { "protocolState" },
	  "Submit an Outcome", "Report the current Action's Outcome and receive the next Action (slipway protocol submit)." },
	{ "answer",   MCP_OP_ANSWER,   RUN_ACTION | BIT(ARG_TEXT) | BIT(ARG_CONFIRM_DESTRUCTIVE) | BIT(ARG_SCOPE_SHA256),               RUN_ACTION,                  0, { "protocolState" },
	  "Answer a pause", "Answer a waiting question with the user's exact words, or confirm one exact destructive scope (slipway protocol answer)." },
	{ "skip",     MCP_OP_SKIP,     RUN_ACTION,                                                                                       RUN_ACTION,                  0, { "protocolState" },
	  "Skip the Action", "Skip the current Action and receive the next one (slipway protocol skip)." },
	{ "resume",   MCP_OP_RESUME,   BIT(ARG_RUN_ID) | BIT(ARG_BUDGET) | BIT(ARG_SOURCE) | BIT(ARG_USE_PINNED_SOURCE) | BIT(ARG_SOURCE_CHOICE) | BIT(ARG_CANDIDATE),
	                                                                                                                                  BIT(ARG_RUN_ID),             0, { "protocolState" },
	  "Resume a Run", "Resume a stopped Run or a resumable pause (slipway protocol resume)." },
	{ "stop",     MCP_OP_STOP,     BIT(ARG_RUN_ID),                                                                                  0,                           0, { "protocolState" },
	  "Stop a Run", "Stop a Run (slipway stop --json); without run_id, the one open Run.  Resume it later with the resume tool." },
	{ "status",   MCP_OP_STATUS,   BIT(ARG_RUN_ID) | BIT(ARG_SECTION),                                                               0,                           1, { "statusList", "runStatus", "pinnedMaterial" },
	  "Show Runs", "The Runs of this repository (slipway status --json); with run_id that Run's status and `next`; with run_id and section one pinned source chapter." },
	{ "material", MCP_OP_MATERIAL, RUN_ACTION | BIT(ARG_SECTION),                                                                    RUN_ACTION | BIT(ARG_SECTION), 1, { "actionMaterial" },
	  "Read Action material", "Read one locally pinned source chapter of an Action (slipway protocol material)." },
};
/* clang-format on */

static const struct tool *find_tool(const char *name)
{
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

static json_t *arg_schema(enum arg_id id, json_t *defs)
{
	const struct arg *a = &args[id];
	static const char *const outcome[] = { "outcome", NULL };
	static const char *const envelope[] = { "rawSourceEnvelope", NULL };
	json_t *s = NULL;

	switch (a->kind) {
	case KIND_STRING:
	case KIND_BYTES:
		s = json_pack("{ss}", "type", "string");
		if (s && id == ARG_SOURCE_CHOICE)
			json_object_set_new(s, "enum", json_pack("[ss]", "pinned", "adopt"));
		break;
	case KIND_BOOL:
		s = json_pack("{ss}", "type", "boolean");
		break;
	case KIND_INTEGER:
		s = json_pack("{ss}", "type", "integer");
		break;
	case KIND_DOCUMENT:
		if (mcp_schema_add_defs(defs, outcome) == 0)
			s = json_pack("{ss}", "$ref", "#/$defs/outcome");
		break;
	case KIND_SOURCE:
		if (mcp_schema_add_defs(defs, envelope) == 0)
			s = json_pack("{s[{ss}{ss}]}", "anyOf", "$ref", "#/$defs/rawSourceEnvelope",
				      "type", "string");
		break;
	}
	if (s && json_object_set_new(s, "description", json_string(a->description)) < 0) {
		json_decref(s);
		s = NULL;
	}
	return s;
}

static json_t *input_schema(const struct tool *t)
{
	json_t *doc = json_pack("{ss s{} s[] sb}", "type", "object", "properties", "required",
				"additionalProperties", 0);
	json_t *defs = json_object();
	int bad = doc == NULL || defs == NULL;

	for (int id = 0; !bad && id < ARG__COUNT; id++) {
		if (!(t->accepts & BIT(id)))
			continue;
		bad = json_object_set_new(json_object_get(doc, "properties"), args[id].name,
					  arg_schema((enum arg_id)id, defs)) < 0;
		if (!bad && (t->required & BIT(id)))
			bad = json_array_append_new(json_object_get(doc, "required"),
						    json_string(args[id].name)) < 0;
	}
	if (!bad && json_object_size(defs) > 0)
		bad = json_object_set(doc, "$defs", defs) < 0;
	json_decref(defs);
	if (bad) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* The success documents and the cliError a failure returns. */
static json_t *output_schema(const struct tool *t)
{
	const char *names[7] = { NULL };
	size_t n = 0;

	for (; n < 5 && t->outputs[n]; n++)
		names[n] = t->outputs[n];
	names[n] = "cliError";
	return mcp_schema_any_of(names);
}

json_t *mcp_tools_list(void)
{
	json_t *list = json_array(), *doc;

	if (list == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		const struct tool *t = &tools[i];
		json_t *tool = json_pack("{ss ss ss so* so* s{sb sb sb sb}}",
					 "name", t->name, "title", t->title,
					 "description", t->description,
					 "inputSchema", input_schema(t),
					 "outputSchema", output_schema(t),
					 "annotations", "readOnlyHint", t->read_only,
					 "destructiveHint", 0, "idempotentHint", t->read_only,
					 "openWorldHint", 0);

		if (tool == NULL || json_object_get(tool, "inputSchema") == NULL ||
		    json_object_get(tool, "outputSchema") == NULL ||
		    json_array_append_new(list, tool) < 0) {
			json_decref(list);
			return NULL;
		}
	}
	if ((doc = json_pack("{so}", "tools", list)) == NULL)
		return NULL;
	return doc;
}

/* Text owned for the duration of one call (JSON documents re-encoded). */
struct owned {
	char *outcome;
	char *source;
};

static int type_error(char *msg, size_t msglen, const struct tool *t, const struct arg *a,
		      const char *want)
{
	snprintf(msg, msglen, "tool %s: argument %s must be %s", t->name, a->name, want);
	return -32602;
}

static int decode_arg(struct mcp_op_request *r, struct owned *own, const struct tool *t,
		      enum arg_id id, json_t *v, char *msg, size_t msglen)
{
	const struct arg *a = &args[id];
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);

	switch (a->kind) {
	case KIND_STRING:
		if (!json_is_string(v))
			return type_error(msg, msglen, t, a, "a string");
		if (strlen(s) != len)
			return type_error(msg, msglen, t, a, "a string without NUL characters");
		break;
	case KIND_BYTES:
		if (!json_is_string(v))
			return type_error(msg, msglen, t, a, "a string");
		break;
	case KIND_BOOL:
		if (!json_is_boolean(v))
			return type_error(msg, msglen, t, a, "true or false");
		break;
	case KIND_INTEGER:
		if (!json_is_integer(v))
			return type_error(msg, msglen, t, a, "an integer");
		break;
	case KIND_DOCUMENT:
		if ((own->outcome = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)) == NULL)
			return -32603;
		break;
	case KIND_SOURCE:
		if (json_is_object(v)) {
			if ((own->source = json_dumps(v, JSON_COMPACT)) == NULL)
				return -32603;
		} else if (!json_is_string(v) || strlen(s) != len) {
			return type_error(msg, msglen, t, a, "an envelope object or a file path");
		}
		break;
	}
	switch (id) {
	case ARG_RUN_ID: r->run_id = s; break;
	case ARG_ACTION_ID: r->action_id = s; break;
	case ARG_GOAL: r->goal = s; r->goal_len = len; break;
	case ARG_BUDGET: r->budget_given = 1; r->budget = json_integer_value(v); break;
	case ARG_NO_REVIEW: r->no_review = json_is_true(v); break;
	case ARG_SOURCE:
		if (own->source) {
			r->source_bytes = own->source;
			r->source_len = strlen(own->source);
		} else {
			r->source_path = s;
		}
		break;
	case ARG_OUTCOME: r->outcome = own->outcome; r->outcome_len = strlen(own->outcome); break;
	case ARG_TEXT: r->text = s; r->text_len = len; break;
	case ARG_CONFIRM_DESTRUCTIVE: r->confirm_destructive = json_is_true(v); break;
	case ARG_SCOPE_SHA256: r->scope_sha256 = s; break;
	case ARG_SECTION: r->section = s; break;
	case ARG_USE_PINNED_SOURCE: r->use_pinned_source = json_is_true(v); break;
	case ARG_SOURCE_CHOICE: r->source_choice = s; break;
	case ARG_CANDIDATE: r->candidate = s; break;
	case ARG__COUNT: break;
	}
	return 0;
}

int mcp_tools_call(json_t **result, const json_t *params, const char *root, char *msg,
		   size_t msglen)
{
	struct mcp_op_request req;
	struct owned own = { NULL, NULL };
	const struct tool *t;
	json_t *name = json_object_get(params, "name");
	json_t *arguments = json_object_get(params, "arguments"), *v;
	const char *key;
	int rc = 0;

	*result = NULL;
	if (!json_is_string(name)) {
		snprintf(msg, msglen, "tools/call needs the tool's name");
		return -32602;
	}
	if ((t = find_tool(json_string_value(name))) == NULL) {
		snprintf(msg, msglen, "unknown tool: %s", json_string_value(name));
		return -32602;
	}
	if (arguments != NULL && !json_is_object(arguments)) {
		snprintf(msg, msglen, "tool %s: arguments must be an object", t->name);
		return -32602;
	}
	mcp_op_request_init(&req);
	req.op = t->op;
	req.root = root;
	json_object_foreach((json_t *)arguments, key, v) {
		int id;

		for (id = 0; id < ARG__COUNT; id++)
			if ((t->accepts & BIT(id)) && strcmp(args[id].name, key) == 0)
				break;
		if (id == ARG__COUNT) {
			snprintf(msg, msglen, "tool %s has no argument %s", t->name, key);
			rc = -32602;
			goto out;
		}
		/* A null argument is one left out, as an absent flag. */
		if (json_is_null(v))
			continue;
		if ((rc = decode_arg(&req, &own, t, (enum arg_id)id, v, msg, msglen)) != 0)
			goto out;
	}
	if ((*result = mcp_tool_result_of(&req)) == NULL) {
		snprintf(msg, msglen, "tool %s could not be carried out", t->name);
		rc = -32603;
	}
out:
	sw_free(own.outcome);
	sw_free(own.source);
	return rc;
}
