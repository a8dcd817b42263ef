/* Run status and materials as read-only MCP resources, read through the
 * same operations as the status and material tools. */

#include "mcp/tools.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/err.h"
#include "mcp/ops.h"
#include "mcp/schema.h"
#include "mcp/tool_result.h"

#define URI_RUNS "slipway://runs"
#define URI_SCHEMAS "slipway://schemas/"

json_t *mcp_resource_templates(void)
{
	return json_pack("{s[{ss ss ss ss ss}{ss ss ss ss ss}{ss ss ss ss ss}]}",
		"resourceTemplates",
		"uriTemplate", URI_RUNS "/{run_id}", "name", "run-status",
		"title", "Run status",
		"description", "The Run's status document with its next (slipway status RUN --json)",
		"mimeType", "application/json",
		"uriTemplate", URI_RUNS "/{run_id}/sections/{section}", "name", "pinned-section",
		"title", "Pinned source chapter",
		"description", "One pinned source chapter of an issue-backed Run (slipway status RUN --section KEY --json)",
		"mimeType", "application/json",
		"uriTemplate", URI_RUNS "/{run_id}/actions/{action_id}/sections/{section}",
		"name", "action-material", "title", "Action material",
		"description", "One source chapter of an Action (slipway protocol material)",
		"mimeType", "application/json");
}

/* A schema resource is described by the schema's own title, so each of
 * the two says what it covers. */
static char *schema_title(const struct sw_embedded *e)
{
	json_t *doc = json_loadb(e->bytes, e->len, JSON_ALLOW_NUL, NULL);
	const char *t = json_string_value(json_object_get(doc, "title"));
	char *out = sw_strdup(t ? t : e->name);

	json_decref(doc);
	return out;
}

json_t *mcp_resources_list(const char *root)
{
	struct mcp_op_request req;
	struct mcp_answer a;
	json_t *list = json_array(), *run;
	size_t i;

	mcp_op_request_init(&req);
	req.op = TBL_MCPTOOL_STATUS;
	req.root = root;
	if (list == NULL || json_array_append_new(list, json_pack("{ss ss ss ss ss}",
			"uri", URI_RUNS, "name", "runs", "title", "Runs of this repository",
			"description", "Every Run (slipway status --json)",
			"mimeType", "application/json")) < 0) {
		json_decref(list);
		return NULL;
	}
	/* Our JSON Schemas: every result document is described there. */
	for (const struct sw_embedded *e = sw_embedded_schemas; e->name; e++) {
		char *uri = sw_asprintf(URI_SCHEMAS "%s", e->name);
		char *title = schema_title(e);

		if (uri && title)
			json_array_append_new(list, json_pack("{ss ss ss ss}", "uri", uri, "name", e->name,
				"description", title, "mimeType", "application/schema+json"));
		sw_free(title);
		sw_free(uri);
	}
	/* A workspace that cannot be listed still serves the templates. */
	if (mcp_answer_of(&a, &req) == 0 && a.exit_status == 0)
		json_array_foreach(json_object_get(a.doc, "runs"), i, run) {
			const char *id = json_string_value(json_object_get(run, "id"));
			const char *goal = json_string_value(json_object_get(run, "goal"));
			char *uri;

			if (id == NULL || (uri = sw_asprintf(URI_RUNS "/%s", id)) == NULL)
				continue;
			json_array_append_new(list, json_pack("{ss ss ss* ss}", "uri", uri,
				"name", id, "description", goal, "mimeType", "application/json"));
			sw_free(uri);
		}
	mcp_answer_release(&a);
	return json_pack("{so}", "resources", list);
}

/* Splits `uri` into the request of the status or material operation.
 * Copies the parts into `buf` (the request borrows them).  0, or -1 when
 * the URI names no resource of ours. */
static int parse_uri(struct mcp_op_request *req, const char *uri, char *buf, size_t buflen)
{
	char *parts[5] = { NULL };
	size_t n = 0;
	char *p;

	if (strcmp(uri, URI_RUNS) == 0 || strcmp(uri, URI_RUNS "/") == 0) {
		req->op = TBL_MCPTOOL_STATUS;
		return 0;
	}
	if (strncmp(uri, URI_RUNS "/", strlen(URI_RUNS "/")) != 0 ||
	    strlen(uri) - strlen(URI_RUNS "/") >= buflen)
		return -1;
	snprintf(buf, buflen, "%s", uri + strlen(URI_RUNS "/"));
	for (p = buf; n < 5; n++) {
		parts[n] = p;
		if ((p = strchr(p, '/')) == NULL) {
			n++;
			break;
		}
		*p++ = '\0';
	}
	if (p != NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (parts[i][0] == '\0')
			return -1;
	req->run_id = parts[0];
	if (n == 1) {
		req->op = TBL_MCPTOOL_STATUS;
	} else if (n == 3 && strcmp(parts[1], "sections") == 0) {
		req->op = TBL_MCPTOOL_STATUS;
		req->section = parts[2];
	} else if (n == 5 && strcmp(parts[1], "actions") == 0 && strcmp(parts[3], "sections") == 0) {
		req->op = TBL_MCPTOOL_MATERIAL;
		req->action_id = parts[2];
		req->section = parts[4];
	} else {
		return -1;
	}
	return 0;
}

int mcp_resources_read(json_t **result, json_t **error_data, const json_t *params,
		       const char *root, char *msg, size_t msglen)
{
	struct mcp_op_request req;
	struct mcp_answer a;
	const char *uri = json_string_value(json_object_get(params, "uri"));
	char buf[1024];
	int rc;

	*result = *error_data = NULL;
	mcp_op_request_init(&req);
	req.root = root;
	if (uri == NULL) {
		snprintf(msg, msglen, "resources/read needs a uri");
		return -32602;
	}
	if (strncmp(uri, URI_SCHEMAS, strlen(URI_SCHEMAS)) == 0) {
		for (const struct sw_embedded *e = sw_embedded_schemas; e->name; e++)
			if (strcmp(uri + strlen(URI_SCHEMAS), e->name) == 0) {
				*result = json_pack("{s[{ss ss ss#}]}", "contents", "uri", uri,
						    "mimeType", "application/schema+json",
						    "text", e->bytes, (int)e->len);
				return *result ? 0 : -32603;
			}
	}
	if (parse_uri(&req, uri, buf, sizeof(buf)) < 0) {
		snprintf(msg, msglen, "no such resource: %s", uri);
		return -32002;
	}
	if (mcp_answer_of(&a, &req) < 0) {
		snprintf(msg, msglen, "%s", a.text ? a.text : "out of memory");
		mcp_answer_release(&a);
		return -32603;
	}
	if (a.exit_status != 0) {
		/* The CLI's refusal, whole, as the error's data. */
		snprintf(msg, msglen, "resource %s cannot be read: %s", uri,
			 json_string_value(json_object_get(a.doc, "message")) ?
			 json_string_value(json_object_get(a.doc, "message")) : a.text);
		*error_data = json_incref(a.doc);
		rc = -32002;
	} else {
		*result = json_pack("{s[{ss ss ss}]}", "contents", "uri", uri,
				    "mimeType", "application/json", "text", a.text);
		rc = *result ? 0 : -32603;
	}
	mcp_answer_release(&a);
	return rc;
}
