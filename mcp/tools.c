/* The MCP tools: the rows of tables/mcp_tools.def and tables/mcp_args.def,
 * with the words a host reads to use each one. */

#include "mcp/tools.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/digest.h"
#include "io/util/err.h"
#include "io/wire/next.h"
#include "io/wire/next_call.h"
#include "io/wire/outcome.h"
#include "mcp/ops.h"
#include "mcp/schema.h"
#include "mcp/tool_result.h"
#include "tables/mcp_tools.h"

#define BIT(a) (1ul << (a))

/* What each argument holds, in the words of the CLI flag it stands for, so
 * that a host reading either surface finds the same words. */
static const char *const arg_description[TBL_MCPARG__COUNT] = {
	[TBL_MCPARG_RUN_ID] = "Run ID (--run, or the run id word of base_argv)",
	[TBL_MCPARG_ACTION_ID] = "the current or waiting Action's ID (--action)",
	[TBL_MCPARG_GOAL] = "the Run goal as the user stated it: what --goal-file or --goal-stdin would carry",
	[TBL_MCPARG_BUDGET] = "how many Actions slipway may issue, 1 to 1000 (--budget; run: default 8; resume: replaces the remaining budget)",
	[TBL_MCPARG_NO_REVIEW] = "issue no Review Action (--no-review), when the user asked before the Run",
	[TBL_MCPARG_SOURCE] = "a GitHub Change source envelope as a JSON object, or the path of a file holding one (--source-file)",
	[TBL_MCPARG_OUTCOME] = "the current Action's Outcome as a JSON object: what --outcome-file or --outcome-stdin would carry. "
			       "Deleting files or data, rewriting history, force pushes, dropping tables or removing resources first "
			       "need an implement Outcome with status needs_input and a destructive_confirmation_required pause "
			       "holding the exact destructiveRequest (see its description); do that work only in the later "
			       "Action that carries destructive_authorization",
	[TBL_MCPARG_TEXT] = "the user's answer in their own words, standing alone without the question (after a short reply "
			    "such as \"yes\", first the decision it settles); with a confirmation, an optional note. What "
			    "--text-file or --text-stdin would carry",
	[TBL_MCPARG_CONFIRM_DESTRUCTIVE] = "true only when the user explicitly confirmed this exact destructive request (--confirm-destructive)",
	[TBL_MCPARG_SCOPE_SHA256] = "the digest in the confirm-destructive variant's base_argv (--scope-sha256)",
	[TBL_MCPARG_SECTION] = "source section key (--section)",
	[TBL_MCPARG_USE_PINNED_SOURCE] = "continue with the pinned source snapshot (--use-pinned-source)",
	[TBL_MCPARG_SOURCE_CHOICE] = "resolve the current source candidate (--source-choice)",
	[TBL_MCPARG_CANDIDATE] = "the current source candidate's ID (--candidate)",
	[TBL_MCPARG_ROOT] = "the workspace to read (--root), for inspect-run-in-its-workspace; default this server's",
	[TBL_MCPARG_REFRESH] = "rewrite the files slipway installed (--refresh)",
	[TBL_MCPARG_TOOL] = "hosts, comma-separated, or all (--tool); default the detected ones",
	[TBL_MCPARG_SURFACE] = "kiro's surface (--surface)",
	[TBL_MCPARG_MARKDOWN] = "with run_id alone: the Run's report for a person, as Markdown text (--markdown)",
	[TBL_MCPARG_FROM_CANDIDATE] = "with run_id and section: that section of the waiting source candidate, as text (--candidate)",
};

/* The values of an argument that takes one of a few words, or NULL. */
static const char *const *arg_choices(enum tbl_mcparg a)
{
	static const char *const source_choice[] = { "pinned", "adopt", NULL };
	static const char *const surface[] = { "ide", "cli", NULL };

	return a == TBL_MCPARG_SOURCE_CHOICE ? source_choice : a == TBL_MCPARG_SURFACE ? surface : NULL;
}

static const struct tool_doc {
	const char *title;
	const char *description;
} tool_docs[TBL_MCPTOOL__COUNT] = {
	[TBL_MCPTOOL_RUN] = { "Start a Run", "Start a Run (slipway run --json); returns the protocolState with the first Action and next." },
	[TBL_MCPTOOL_SUBMIT] = { "Submit an Outcome", "Report the current Action's Outcome (slipway protocol submit); returns the protocolState with the next Action. When the Run pauses for the person, _meta[\"slipway/pending\"] holds what to show them: the question, the destructive request with its targets and impact, or for a spent budget how many Actions were issued and whether a Review is pending." },
	[TBL_MCPTOOL_ANSWER] = { "Answer a pause", "Answer a waiting question, or confirm one exact destructive scope (slipway protocol answer); returns the protocolState." },
	[TBL_MCPTOOL_SKIP] = { "Skip the Action", "Skip the current Action (slipway protocol skip); returns the protocolState." },
	[TBL_MCPTOOL_RESUME] = { "Resume a Run", "Resume a stopped Run or a resumable pause (slipway protocol resume); returns the protocolState. A resume always starts with a fresh Orient, which counts against the budget." },
	[TBL_MCPTOOL_STOP] = { "Stop a Run", "Stop a Run (slipway stop --json), without run_id the one open Run; returns the protocolState." },
	[TBL_MCPTOOL_STATUS] = { "Show Runs", "The Runs of this repository (slipway status --json: statusList); with run_id one runStatus with next; with section a pinnedMaterial. With markdown (or from_candidate) the answer is Markdown text in content alone, marked by _meta[\"slipway/content-type\"] text/markdown." },
	[TBL_MCPTOOL_MATERIAL] = { "Read Action material", "One pinned source chapter of an Action (slipway protocol material, what action.requirements.reader runs): actionMaterial." },
	[TBL_MCPTOOL_DOCTOR] = { "Check the set-up", "Diagnose the repository, host adapters, run store and GitHub CLI (slipway doctor --json). The one slipway operation that runs a program: gh --version, gh auth status and one read-only gh api request for the repository's permissions." },
	[TBL_MCPTOOL_LIST] = { "List host adapters", "The capabilities installed per host (slipway list --json)." },
	[TBL_MCPTOOL_INSTALL] = { "Install host adapters", "Install or refresh slipway's capability files for hosts (slipway install --json): a changeReport." },
};

/* ---- the variants each tool follows ---- */

/* Per tool, the ids of the `next` variants it carries out, found by reading
 * every form of tables/next_forms.def as a call (io/wire/next_call.h). */
static unsigned long long followed[TBL_MCPTOOL__COUNT];

static int find_followed(void)
{
	static const struct next_fill fill = {
		.run_id = "RUN", .action_id = "ACTION",
		.scope_digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000",
		.candidate_id = "CANDIDATE", .budget = 8,
	};
	static int done;
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	json_t *doc;

	if (done)
		return 0;
	if (next_new(&n, TBL_NEXTOP_RESUME, fill.scope_digest, "/WORKSPACE", &err) < 0)
		return -1;
	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT; f++)
		if (next_add_form(n, (enum next_form)f, &fill, &err) < 0) {
			next_free(n);
			return -1;
		}
	doc = next_to_json(n);
	for (size_t i = 0; doc && i < n->nvariants; i++) {
		json_t *call = next_call(json_array_get(json_object_get(doc, "variants"), i));
		const char *tool = json_string_value(json_object_get(call, "tool"));

		for (int t = TBL_MCPTOOL_INVALID + 1; tool && t < TBL_MCPTOOL__COUNT; t++)
			if (strcmp(tbl_mcptools[t].name, tool) == 0)
				followed[t] |= 1ull << n->variants[i].id;
		json_decref(call);
	}
	done = doc != NULL;
	json_decref(doc);
	next_free(n);
	return done ? 0 : -1;
}

/* The tool's description, with the variants it follows. */
static char *tool_description(enum tbl_mcptool t)
{
	struct sw_buf b = SW_BUF_INIT;
	const char *sep = " Follows the next variants ";

	sw_buf_str(&b, tool_docs[t].description);
	for (int v = TBL_VARIANT_INVALID + 1; v < TBL_VARIANT__COUNT; v++)
		if (followed[t] & (1ull << v)) {
			sw_buf_fmt(&b, "%s%s", sep, tbl_variant_wire[v]);
			sep = ", ";
		}
	if (*sep == ',')
		sw_buf_ch(&b, '.');
	return sw_buf_detach(&b);
}

/* ---- input schemas ---- */

static const struct tbl_mcptool_row *find_tool(const char *name)
{
	for (int t = TBL_MCPTOOL_INVALID + 1; t < TBL_MCPTOOL__COUNT; t++)
		if (strcmp(tbl_mcptools[t].name, name) == 0)
			return &tbl_mcptools[t];
	return NULL;
}

static json_t *arg_schema(enum tbl_mcparg id, json_t *defs)
{
	static const char *const outcome[] = { "outcome", NULL };
	static const char *const envelope[] = { "rawSourceEnvelope", NULL };
	const char *const *choices = arg_choices(id);
	json_t *s = NULL;

	switch (tbl_mcpargs[id].kind) {
	case TBL_MCPKIND_STRING:
	case TBL_MCPKIND_BYTES:
		s = json_pack("{ss}", "type", "string");
		if (s && choices) {
			json_t *e = json_array();

			for (size_t i = 0; e && choices[i]; i++)
				json_array_append_new(e, json_string(choices[i]));
			json_object_set_new(s, "enum", e);
		}
		break;
	case TBL_MCPKIND_SWITCH:
		s = json_pack("{ss}", "type", "boolean");
		break;
	case TBL_MCPKIND_INTEGER:
		s = json_pack("{ss}", "type", "integer");
		break;
	case TBL_MCPKIND_DOCUMENT:
		if (mcp_schema_add_defs(defs, outcome) == 0)
			s = json_pack("{ss}", "$ref", "#/$defs/outcome");
		break;
	case TBL_MCPKIND_SOURCE:
		if (mcp_schema_add_defs(defs, envelope) == 0)
			s = json_pack("{s[{ss}{ss}]}", "anyOf", "$ref", "#/$defs/rawSourceEnvelope",
				      "type", "string");
		break;
	case TBL_MCPKIND_NONE:
		break;
	}
	if (s && json_object_set_new(s, "description", json_string(arg_description[id])) < 0) {
		json_decref(s);
		s = NULL;
	}
	return s;
}

/* Sets `text` as the description of the schema at `path` (keys separated
 * by '/') under `root`; -1 when the path is missing. */
static int describe(json_t *root, const char *path, json_t *text)
{
	char key[64];
	json_t *at = root;

	while (at && *path) {
		size_t n = strcspn(path, "/");

		if (n >= sizeof(key))
			break;
		memcpy(key, path, n);
		key[n] = '\0';
		at = json_object_get(at, key);
		path += n + (path[n] == '/');
	}
	if (!json_is_object(at) || *path || text == NULL) {
		json_decref(text);
		return -1;
	}
	return json_object_set_new(at, "description", text);
}

/* The destructive request's recipe, where a host building the Outcome
 * looks: the descriptions of its definitions (a copy: the embedded schema
 * stays as it is), with the worked example computed by the code that
 * checks the digest. */
static int describe_destructive(json_t *defs)
{
	struct outcome_target t[2];
	struct outcome_request r;
	struct sw_error err = SW_ERROR_INIT;
	char digest[SW_DIGEST_LEN], *canon = NULL;
	size_t len;
	json_t *req = json_object_get(defs, "destructiveRequest");
	int rc;

	outcome_scope_example(&r, t);
	if (req == NULL || outcome_scope_canonical(&canon, &len, &r, &err) < 0)
		return -1;
	sw_sha256_prefixed(canon, len, digest);
	json_object_set_new(defs, "destructiveRequest", req = json_deep_copy(req));
	rc = describe(req, "", json_sprintf(
		"The exact scope the user confirms before destructive work. scope_sha256 is sha256: and the "
		"64 lowercase hex SHA-256 of the canonical scope, the UTF-8 bytes of "
		"{\"impact\":I,\"request_id\":R,\"scope_version\":1,\"targets\":[{\"kind\":K,\"value\":V},...]}: "
		"keys in this order, targets sorted bytewise by kind then value, no whitespace, no trailing newline; in strings only \" and "
		"\\ (as \\\" and \\\\) and controls below U+0020 (\\b \\t \\n \\f \\r, others \\u00xx) are escaped, "
		"everything else raw (no \\/, no \\u for non-ASCII), as Python's json.dumps(scope, "
		"ensure_ascii=False, separators=(\",\",\":\")) prints it. Worked example: request_id %s, targets "
		"%s %s then %s %s, impact \"%s\" give the canonical scope %s and scope_sha256 %s. After the "
		"submit the Run pauses: show the user every target and the impact; only their explicit "
		"confirmation of this request runs the confirm-destructive variant.",
		r.request_id, t[0].kind, t[0].value, t[1].kind, t[1].value, r.impact, canon, digest));
	sw_free(canon);
	if (rc == 0)
		rc = describe(req, "properties/request_id",
			      json_string("a new random lowercase UUID v4 for each request"));
	if (rc == 0)
		rc = describe(req, "properties/targets",
			      json_string("every concrete thing destroyed, once each, sorted bytewise by "
					  "kind, then by value"));
	if (rc == 0)
		rc = describe(req, "properties/scope_sha256",
			      json_string("the digest of the canonical scope (see destructiveRequest)"));
	return rc;
}

static json_t *input_schema(const struct tbl_mcptool_row *t)
{
	json_t *doc = json_pack("{ss s{} s[] sb}", "type", "object", "properties", "required",
				"additionalProperties", 0);
	json_t *defs = json_object();
	int bad = doc == NULL || defs == NULL;

	for (int id = TBL_MCPARG_INVALID + 1; !bad && id < TBL_MCPARG__COUNT; id++) {
		if (!(t->accepts & BIT(id)))
			continue;
		bad = json_object_set_new(json_object_get(doc, "properties"), tbl_mcpargs[id].name,
					  arg_schema((enum tbl_mcparg)id, defs)) < 0;
		if (!bad && (t->required & BIT(id)))
			bad = json_array_append_new(json_object_get(doc, "required"),
						    json_string(tbl_mcpargs[id].name)) < 0;
	}
	if (!bad && json_object_get(defs, "destructiveRequest"))
		bad = describe_destructive(defs) < 0;
	if (!bad && json_object_size(defs) > 0)
		bad = json_object_set(doc, "$defs", defs) < 0;
	json_decref(defs);
	if (bad) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

json_t *mcp_tools_list(void)
{
	json_t *list = json_array(), *doc;

	if (list == NULL || find_followed() < 0) {
		json_decref(list);
		return NULL;
	}
	for (int i = TBL_MCPTOOL_INVALID + 1; i < TBL_MCPTOOL__COUNT; i++) {
		const struct tbl_mcptool_row *t = &tbl_mcptools[i];
		char *desc = tool_description((enum tbl_mcptool)i);
		json_t *tool = desc ? json_pack("{ss ss ss so* s{sb sb sb sb}}",
						"name", t->name, "title", tool_docs[i].title,
						"description", desc,
						"inputSchema", input_schema(t),
						"annotations", "readOnlyHint", t->read_only,
						"destructiveHint", 0, "idempotentHint", t->read_only,
						"openWorldHint", 0) : NULL;

		sw_free(desc);
		if (tool == NULL || json_object_get(tool, "inputSchema") == NULL ||
		    json_array_append_new(list, tool) < 0) {
			json_decref(list);
			return NULL;
		}
	}
	if ((doc = json_pack("{so}", "tools", list)) == NULL)
		return NULL;
	return doc;
}

/* ---- tools/call ---- */

/* Text owned for the duration of one call (JSON documents re-encoded). */
struct owned {
	char *outcome;
	char *source;
};

static int type_error(char *msg, size_t msglen, const struct tbl_mcptool_row *t,
		      enum tbl_mcparg a, const char *want)
{
	snprintf(msg, msglen, "tool %s: argument %s must be %s", t->name, tbl_mcpargs[a].name, want);
	return -32602;
}

static int decode_arg(struct mcp_op_request *r, struct owned *own, const struct tbl_mcptool_row *t,
		      enum tbl_mcparg id, json_t *v, char *msg, size_t msglen)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);

	switch (tbl_mcpargs[id].kind) {
	case TBL_MCPKIND_STRING:
		if (!json_is_string(v))
			return type_error(msg, msglen, t, id, "a string");
		if (strlen(s) != len)
			return type_error(msg, msglen, t, id, "a string without NUL characters");
		break;
	case TBL_MCPKIND_BYTES:
		if (!json_is_string(v))
			return type_error(msg, msglen, t, id, "a string");
		break;
	case TBL_MCPKIND_SWITCH:
		if (!json_is_boolean(v))
			return type_error(msg, msglen, t, id, "true or false");
		break;
	case TBL_MCPKIND_INTEGER:
		if (!json_is_integer(v))
			return type_error(msg, msglen, t, id, "an integer");
		break;
	case TBL_MCPKIND_DOCUMENT:
		if ((own->outcome = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)) == NULL)
			return -32603;
		break;
	case TBL_MCPKIND_SOURCE:
		if (json_is_object(v)) {
			if ((own->source = json_dumps(v, JSON_COMPACT)) == NULL)
				return -32603;
		} else if (!json_is_string(v) || strlen(s) != len) {
			return type_error(msg, msglen, t, id, "an envelope object or a file path");
		}
		break;
	case TBL_MCPKIND_NONE:
		break;
	}
	switch (id) {
	case TBL_MCPARG_RUN_ID: r->run_id = s; break;
	case TBL_MCPARG_ACTION_ID: r->action_id = s; break;
	case TBL_MCPARG_GOAL: r->goal = s; r->goal_len = len; break;
	case TBL_MCPARG_BUDGET: r->budget_given = 1; r->budget = json_integer_value(v); break;
	case TBL_MCPARG_NO_REVIEW: r->no_review = json_is_true(v); break;
	case TBL_MCPARG_SOURCE:
		if (own->source) {
			r->source_bytes = own->source;
			r->source_len = strlen(own->source);
		} else {
			r->source_path = s;
		}
		break;
	case TBL_MCPARG_OUTCOME: r->outcome = own->outcome; r->outcome_len = strlen(own->outcome); break;
	case TBL_MCPARG_TEXT: r->text = s; r->text_len = len; break;
	case TBL_MCPARG_CONFIRM_DESTRUCTIVE: r->confirm_destructive = json_is_true(v); break;
	case TBL_MCPARG_SCOPE_SHA256: r->scope_sha256 = s; break;
	case TBL_MCPARG_SECTION: r->section = s; break;
	case TBL_MCPARG_USE_PINNED_SOURCE: r->use_pinned_source = json_is_true(v); break;
	case TBL_MCPARG_SOURCE_CHOICE: r->source_choice = s; break;
	case TBL_MCPARG_CANDIDATE: r->candidate = s; break;
	case TBL_MCPARG_ROOT: r->root = s; break;
	case TBL_MCPARG_REFRESH: r->refresh = json_is_true(v); break;
	case TBL_MCPARG_TOOL: r->tool = s; break;
	case TBL_MCPARG_SURFACE: r->surface = s; break;
	case TBL_MCPARG_MARKDOWN: r->markdown = json_is_true(v); break;
	case TBL_MCPARG_FROM_CANDIDATE: r->from_candidate = json_is_true(v); break;
	case TBL_MCPARG_INVALID:
	case TBL_MCPARG_JSON:
	case TBL_MCPARG__COUNT:
		break;
	}
	return 0;
}

int mcp_tools_call(json_t **result, const json_t *params, const char *root,
		   const struct adapter_text *texts, char *msg, size_t msglen)
{
	struct mcp_op_request req;
	struct owned own = { NULL, NULL };
	const struct tbl_mcptool_row *t;
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
	req.op = (enum tbl_mcptool)(t - tbl_mcptools);
	req.root = root;
	req.texts = texts;
	json_object_foreach((json_t *)arguments, key, v) {
		int id;

		for (id = TBL_MCPARG_INVALID + 1; id < TBL_MCPARG__COUNT; id++)
			if ((t->accepts & BIT(id)) && strcmp(tbl_mcpargs[id].name, key) == 0)
				break;
		if (id == TBL_MCPARG__COUNT) {
			snprintf(msg, msglen, "tool %s has no argument %s", t->name, key);
			rc = -32602;
			goto out;
		}
		/* A null argument is one left out, as an absent flag. */
		if (json_is_null(v))
			continue;
		if ((rc = decode_arg(&req, &own, t, (enum tbl_mcparg)id, v, msg, msglen)) != 0)
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
