/* One operation's answer in MCP terms. */

#include "mcp/tool_result.h"

#include <jansson.h>

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

json_t *mcp_tool_result_of(const struct mcp_op_request *req)
{
	struct mcp_answer a;
	json_t *result, *meta;

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
	mcp_answer_release(&a);
	return result;
}
