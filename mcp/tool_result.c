/* One operation's answer in MCP terms. */

#include "mcp/tool_result.h"

#include <jansson.h>
#include <string.h>

#include "io/util/err.h"
#include "io/wire/next_call.h"
#include "mcp/ops.h"

int mcp_answer_of(struct mcp_answer *a, const struct mcp_op_request *req)
{
	struct mcp_op_result res;
	int rc = mcp_op_call(req, &res);

	a->exit_status = res.exit_status;
	a->doc = NULL;
	/* The text forms of status (Markdown report, a candidate's section)
	 * answer with text alone; every other success is a JSON document. */
	int text_form = mcp_op_text_form(req) && a->exit_status == 0 && rc == 0 &&
			res.document_len > 0;

	if (rc == 0 && res.document_len > 0 && !text_form)
		a->doc = json_loadb(res.document, res.document_len, JSON_REJECT_DUPLICATES, NULL);
	if (a->doc == NULL && a->exit_status == 0 && !text_form)
		a->exit_status = 1;
	if (rc < 0)
		a->text = sw_strdup("slipway could not carry out the operation");
	else if (a->doc == NULL && !text_form)
		a->text = sw_asprintf("slipway failed with exit status %d and no JSON document%s%s",
				      res.exit_status, res.diagnostics && *res.diagnostics ? ": " : "",
				      res.diagnostics ? res.diagnostics : "");
	else {
		a->text = res.document;
		res.document = NULL;
	}
	mcp_op_result_release(&res);
	if (a->text == NULL) {
		json_decref(a->doc);
		a->doc = NULL;
		return -1;
	}
	return rc;
}

void mcp_answer_release(struct mcp_answer *a)
{
	sw_free(a->text);
	json_decref(a->doc);
	a->text = NULL;
	a->doc = NULL;
}

/* The tool call for each variant of the document's `next`, outside the
 * document: {"slipway/next": [{variant, tool, arguments, inputs[, stdin]}]},
 * or NULL when the document has no variant. */
static json_t *next_calls(const json_t *doc)
{
	const json_t *variants = json_object_get(json_object_get(doc, "next"), "variants");
	json_t *calls, *v;
	size_t i;

	if (json_array_size(variants) == 0 || (calls = json_array()) == NULL)
		return NULL;
	json_array_foreach(variants, i, v)
		if (json_array_append_new(calls, next_call(v)) < 0) {
			json_decref(calls);
			return NULL;
		}
	return json_pack("{so}", "slipway/next", calls);
}

/* What a paused Run waits on, read back from the Run (the protocol state
 * has no field for it): the pause its current Action's Outcome asked for,
 * as {action_id, reason, question[, destructive_request: {request_id,
 * targets, impact, scope_sha256}]}; for a spent budget {reason,
 * actions_issued, review_pending}; NULL when the Run is not paused, or
 * paused otherwise (a source candidate), or cannot be read. */
static json_t *pending_pause(const struct mcp_op_request *req, const json_t *doc)
{
	const char *state = json_string_value(json_object_get(doc, "state"));
	const char *run_id = json_string_value(json_object_get(doc, "run_id"));
	struct mcp_op_request st;
	struct mcp_answer a;
	const json_t *act, *pause = NULL, *dr;
	const char *cur;
	json_t *out = NULL;
	size_t i;

	if (state == NULL || strcmp(state, "paused") != 0)
		return NULL;
	if (run_id == NULL)
		run_id = json_string_value(json_object_get(doc, "id"));	/* a runStatus */
	if (run_id == NULL)
		return NULL;
	mcp_op_request_init(&st);
	st.op = TBL_MCPTOOL_STATUS;
	st.root = req->root;
	st.run_id = run_id;
	st.texts = req->texts;
	if (mcp_answer_of(&a, &st) < 0 || a.exit_status != 0 || a.doc == NULL)
		goto out;
	cur = json_string_value(json_object_get(json_object_get(a.doc, "current_action"), "action_id"));
	json_array_foreach(json_object_get(a.doc, "actions"), i, act) {
		const char *id = json_string_value(json_object_get(json_object_get(act, "action"), "action_id"));

		if (cur && id && strcmp(cur, id) == 0)
			pause = json_object_get(json_object_get(act, "outcome"), "pause");
	}
	if (!json_is_object(pause)) {
		/* A spent budget: what ran, and whether a Review still waits. */
		const json_t *why = json_object_get(doc, "pause_reason");

		if (json_is_string(why) && strcmp(json_string_value(why), "budget_exhausted") == 0)
			out = json_pack("{ss sI sO*}", "reason", "budget_exhausted", "actions_issued",
					(json_int_t)json_array_size(json_object_get(a.doc, "actions")),
					"review_pending", json_object_get(a.doc, "review_pending"));
		goto out;
	}
	out = json_pack("{ss sO* sO*}", "action_id", cur, "reason", json_object_get(pause, "reason"),
			"question", json_object_get(pause, "question"));
	dr = json_object_get(pause, "destructive_request");
	if (out && json_is_object(dr) &&
	    json_object_set_new(out, "destructive_request",
				json_pack("{sO* sO* sO* sO*}", "request_id", json_object_get(dr, "request_id"),
					  "targets", json_object_get(dr, "targets"),
					  "impact", json_object_get(dr, "impact"),
					  "scope_sha256", json_object_get(dr, "scope_sha256"))) < 0) {
		json_decref(out);
		out = NULL;
	}
out:
	mcp_answer_release(&a);
	return out;
}

/* Adds `value` (stolen) under `key` to the result's _meta. */
static int add_meta(json_t *result, const char *key, json_t *value)
{
	json_t *meta = json_object_get(result, "_meta");

	if (value == NULL)
		return -1;
	if (meta == NULL && (json_object_set_new(result, "_meta", json_object()) < 0 ||
			     (meta = json_object_get(result, "_meta")) == NULL)) {
		json_decref(value);
		return -1;
	}
	return json_object_set_new(meta, key, value);
}

json_t *mcp_tool_result_of(const struct mcp_op_request *req)
{
	struct mcp_answer a;
	json_t *result, *meta, *pending;

	if (mcp_answer_of(&a, req) < 0 && a.text == NULL)
		return NULL;
	result = json_pack("{s[{ssss}] sb}", "content", "type", "text", "text", a.text,
			   "isError", a.exit_status != 0);
	if (result && a.doc && json_object_set(result, "structuredContent", a.doc) < 0) {
		json_decref(result);
		result = NULL;
	}
	if (result && a.doc && (meta = next_calls(a.doc)) != NULL &&
	    json_object_set_new(result, "_meta", meta) < 0) {
		json_decref(result);
		result = NULL;
	}
	/* A pause for the person: what it waits on, beside slipway/next. */
	if (result && a.doc && a.exit_status == 0 && (pending = pending_pause(req, a.doc)) != NULL &&
	    add_meta(result, "slipway/pending", pending) < 0) {
		json_decref(result);
		result = NULL;
	}
	/* The text forms of status are Markdown, which a text block cannot say. */
	if (result && mcp_op_text_form(req) && a.exit_status == 0 && a.doc == NULL &&
	    add_meta(result, "slipway/content-type", json_string("text/markdown")) < 0) {
		json_decref(result);
		result = NULL;
	}
	mcp_answer_release(&a);
	return result;
}
