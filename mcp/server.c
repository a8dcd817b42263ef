/* slipway mcp: the JSON-RPC loop and the MCP methods. */

#include "mcp/server.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "service/emit.h"
#include "io/util/buf.h"
#include "io/util/err.h"
#include "mcp/tools.h"

#define RPC_PARSE_ERROR -32700
#define RPC_INVALID_REQUEST -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS -32602
#define RPC_INTERNAL_ERROR -32603

const char *const mcp_protocol_versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", NULL };

static const char instructions[] =
	"slipway drives one Run of bounded Actions.  Start with the run tool (or find an open Run "
	"with status), do the Action it returns, then follow the result's `next`: submit the "
	"Outcome, answer a pause with the user's exact words, resume, skip or stop.  Each tool "
	"returns exactly the JSON document `slipway` prints for the same operation; a refusal is "
	"isError with slipway's error document, whose `next` says what to do.";

struct server {
	int out_fd;
	const char *root;
	const char *version;
};

/* Writes one message (`msg` is stolen). */
static int send_message(struct server *s, json_t *msg)
{
	char *text;
	size_t len;
	int rc;

	if (msg == NULL)
		return -1;
	text = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (text == NULL)
		return -1;
	len = strlen(text);
	rc = sw_write_full(s->out_fd, text, len) == len &&
	     sw_write_full(s->out_fd, "\n", 1) == 1 ? 0 : -1;
	sw_free(text);
	return rc;
}

/* `id` borrowed (NULL means null); `data` stolen, may be NULL. */
static int send_error(struct server *s, json_t *id, int code, const char *message, json_t *data)
{
	json_t *err = json_pack("{si ss}", "code", code, "message", message);

	if (err && data)
		json_object_set(err, "data", data);
	json_decref(data);
	return send_message(s, json_pack("{ss sO so*}", "jsonrpc", "2.0",
					 "id", id ? id : json_null(), "error", err));
}

/* `result` stolen; NULL is an internal error. */
static int send_result(struct server *s, json_t *id, json_t *result)
{
	if (result == NULL)
		return send_error(s, id, RPC_INTERNAL_ERROR, "out of memory", NULL);
	return send_message(s, json_pack("{ss sO so}", "jsonrpc", "2.0", "id", id,
					  "result", result));
}

static json_t *initialize(struct server *s, json_t *params, char *msg, size_t msglen)
{
	const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
	const char *version = mcp_protocol_versions[0];

	if (asked == NULL) {
		snprintf(msg, msglen, "initialize needs protocolVersion");
		return NULL;
	}
	/* The client's version when we speak it, else our newest: the client
	 * then decides whether it can go on. */
	for (const char *const *v = mcp_protocol_versions; *v; v++)
		if (strcmp(*v, asked) == 0)
			version = *v;
	fprintf(stderr, "slipway mcp: client %s asked for protocol %s; serving %s\n",
		json_string_value(json_object_get(json_object_get(params, "clientInfo"), "name"))
			? json_string_value(json_object_get(json_object_get(params, "clientInfo"), "name"))
			: "(unnamed)",
		asked, version);
	return json_pack("{ss s{s{sb} s{sb sb}} s{ss ss ss} ss}",
			 "protocolVersion", version,
			 "capabilities", "tools", "listChanged", 0,
			 "resources", "listChanged", 0, "subscribe", 0,
			 "serverInfo", "name", "slipway", "title", "slipway", "version", s->version,
			 "instructions", instructions);
}

static int dispatch(struct server *s, json_t *id, const char *method, json_t *params)
{
	char msg[600] = "";
	json_t *result = NULL, *data = NULL;
	int code = 0;

	if (params != NULL && !json_is_object(params))
		return send_error(s, id, RPC_INVALID_PARAMS, "params must be an object", NULL);
	if (strcmp(method, "initialize") == 0) {
		if ((result = initialize(s, params, msg, sizeof(msg))) == NULL && msg[0])
			code = RPC_INVALID_PARAMS;
	} else if (strcmp(method, "ping") == 0) {
		result = json_object();
	} else if (strcmp(method, "tools/list") == 0) {
		result = mcp_tools_list();
	} else if (strcmp(method, "tools/call") == 0) {
		code = mcp_tools_call(&result, params, s->root, msg, sizeof(msg));
	} else if (strcmp(method, "resources/list") == 0) {
		result = mcp_resources_list(s->root);
	} else if (strcmp(method, "resources/templates/list") == 0) {
		result = mcp_resource_templates();
	} else if (strcmp(method, "resources/read") == 0) {
		code = mcp_resources_read(&result, &data, params, s->root, msg, sizeof(msg));
	} else {
		snprintf(msg, sizeof(msg), "method not found: %.200s", method);
		code = RPC_METHOD_NOT_FOUND;
	}
	if (code != 0)
		return send_error(s, id, code, msg[0] ? msg : "internal error", data);
	return send_result(s, id, result);
}

/* One complete line. */
static int handle(struct server *s, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *msg, *id, *method, *params;
	int rc;

	if ((msg = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr)) == NULL)
		return send_error(s, NULL, RPC_PARSE_ERROR, "parse error", NULL);
	id = json_object_get(msg, "id");
	method = json_object_get(msg, "method");
	params = json_object_get(msg, "params");
	if (!json_is_object(msg)) {
		rc = send_error(s, NULL, RPC_INVALID_REQUEST,
				json_is_array(msg) ? "batches are not supported" : "a message is an object", NULL);
	} else if (id != NULL && !json_is_string(id) && !json_is_integer(id)) {
		rc = send_error(s, NULL, RPC_INVALID_REQUEST, "id must be a string or an integer", NULL);
	} else if (!json_is_string(json_object_get(msg, "jsonrpc")) ||
		   strcmp(json_string_value(json_object_get(msg, "jsonrpc")), "2.0") != 0) {
		rc = send_error(s, id, RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"", NULL);
	} else if (method == NULL && id != NULL &&
		   (json_object_get(msg, "result") || json_object_get(msg, "error"))) {
		rc = 0;		/* a response; we send no requests */
	} else if (!json_is_string(method)) {
		rc = send_error(s, id, RPC_INVALID_REQUEST, "method must be a string", NULL);
	} else if (id == NULL) {
		rc = 0;		/* a notification: never answered */
	} else {
		rc = dispatch(s, id, json_string_value(method), params);
	}
	json_decref(msg);
	return rc;
}

int mcp_serve(int in_fd, int out_fd, const char *root, const char *version)
{
	struct server s = { out_fd, root, version };
	char chunk[65536];
	char *line = NULL;
	size_t len = 0, cap = 0;
	int skipping = 0, rc = 0;

	for (;;) {
		ssize_t n = read(in_fd, chunk, sizeof(chunk));
		size_t i = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "slipway mcp: cannot read stdin: %s\n", strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0)
			break;
		while (i < (size_t)n && rc == 0) {
			char *nl = memchr(chunk + i, '\n', (size_t)n - i);
			size_t take = nl ? (size_t)(nl - (chunk + i)) : (size_t)n - i;

			if (!skipping && len + take > MCP_MAX_MESSAGE) {
				skipping = 1;
				len = 0;
			}
			if (!skipping) {
				if (len + take + 1 > cap) {
					size_t want = cap ? cap : 65536;
					char *grown;

					while (want < len + take + 1)
						want *= 2;
					if (want > MCP_MAX_MESSAGE + 1)
						want = MCP_MAX_MESSAGE + 1;
					if ((grown = sw_realloc(line, want)) == NULL) {
						rc = -1;
						break;
					}
					line = grown;
					cap = want;
				}
				memcpy(line + len, chunk + i, take);
				len += take;
			}
			i += take + (nl != NULL);
			if (nl == NULL)
				break;
			if (skipping) {
				char why[120];

				snprintf(why, sizeof(why), "message exceeds %u bytes", MCP_MAX_MESSAGE);
				rc = send_error(&s, NULL, RPC_INVALID_REQUEST, why, NULL);
				skipping = 0;
			} else if (len > 0) {
				if (line[len - 1] == '\r')
					len--;
				line[len] = '\0';
				if (line[strspn(line, " \t")] != '\0')
					rc = handle(&s, line, len);
			}
			len = 0;
			/* Give back the memory of a large message. */
			if (cap > 1048576) {
				sw_free(line);
				line = NULL;
				cap = 0;
			}
		}
		if (rc != 0)
			break;
	}
	/* A last message without its newline is still a message. */
	if (rc == 0 && !skipping && len > 0) {
		line[len] = '\0';
		if (line[strspn(line, " \t\r")] != '\0')
			rc = handle(&s, line, len);
	}
	sw_free(line);
	return rc;
}
