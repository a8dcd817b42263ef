/* slipway mcp: one line of input as a JSON-RPC message (mcp/message.h). */

#include "mcp/message.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/err.h"

static int json_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void fail(struct mcp_message *m, int code, const char *why)
{
	m->kind = MCP_MESSAGE_ERROR;
	m->code = code;
	snprintf(m->why, sizeof(m->why), "%s", why);
}

static const char *str_member(const json_t *o, const char *key, size_t *len)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return NULL;
	*len = json_string_length(v);
	return json_string_value(v);
}

/* The JSON-RPC envelope of `doc` (stolen into m->doc): a request, a
 * notification or response (nothing to answer), or the error it gets. */
static void envelope(struct mcp_message *m, json_t *doc)
{
	json_t *id = json_object_get(doc, "id");
	const char *rpc, *method;
	size_t rlen = 0, mlen = 0;

	m->doc = doc;
	if (!json_is_object(doc)) {
		fail(m, RPC_INVALID_REQUEST,
		     json_is_array(doc) ? "batches are not supported" : "a message is an object");
		return;
	}
	if (id != NULL && !json_is_string(id) && !json_is_integer(id)) {
		fail(m, RPC_INVALID_REQUEST, "id must be a string or an integer");
		return;
	}
	m->id = json_incref(id);
	rpc = str_member(doc, "jsonrpc", &rlen);
	method = str_member(doc, "method", &mlen);
	if (rpc == NULL || rlen != 3 || memcmp(rpc, "2.0", 3) != 0) {
		fail(m, RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
	} else if (method == NULL && id != NULL &&
		   (json_object_get(doc, "result") || json_object_get(doc, "error"))) {
		m->kind = MCP_MESSAGE_NONE;	/* a response; we send no requests */
	} else if (method == NULL) {
		fail(m, RPC_INVALID_REQUEST, "method must be a string");
	} else if (id == NULL) {
		m->kind = MCP_MESSAGE_NONE;	/* a notification: never answered */
	} else {
		m->kind = MCP_MESSAGE_REQUEST;
		m->method = method;
		m->params = json_object_get(doc, "params");
		if (memchr(method, '\0', mlen) != NULL)
			fail(m, RPC_INVALID_REQUEST, "method must not contain NUL (\\u0000)");
	}
}

/* 1 when a string or key below `v` holds a NUL. */
static int holds_nul(const json_t *v)
{
	if (json_is_string(v))
		return memchr(json_string_value(v), '\0', json_string_length(v)) != NULL;
	if (json_is_array(v)) {
		for (size_t i = 0, n = json_array_size(v); i < n; i++)
			if (holds_nul(json_array_get(v, i)))
				return 1;
	} else if (json_is_object(v)) {
		for (void *it = json_object_iter((json_t *)v); it;
		     it = json_object_iter_next((json_t *)v, it))
			if (holds_nul(json_object_iter_value(it)))
				return 1;
	}
	return 0;
}

/* ---- valid JSON that Jansson cannot hold ---- */

/* Index just past the string literal starting at p[i] (a quote). */
static size_t skip_string(const char *p, size_t n, size_t i)
{
	for (i++; i < n && p[i] != '"'; i++)
		if (p[i] == '\\')
			i++;
	return i + 1;
}

/* Index just past the value starting at p[i]. */
static size_t skip_value(const char *p, size_t n, size_t i)
{
	int depth = 0;

	if (p[i] == '"')
		return skip_string(p, n, i);
	if (p[i] != '{' && p[i] != '[') {
		while (i < n && !json_ws(p[i]) && p[i] != ',' && p[i] != '}' && p[i] != ']')
			i++;
		return i;
	}
	for (; i < n; i++) {
		if (p[i] == '"') {
			i = skip_string(p, n, i) - 1;
		} else if (p[i] == '{' || p[i] == '[') {
			depth++;
		} else if ((p[i] == '}' || p[i] == ']') && --depth == 0) {
			return i + 1;
		}
	}
	return n;
}

/* The text of the member `key` of the object `p` (valid JSON, trimmed),
 * or NULL. */
static const char *member_text(const char *p, size_t n, const char *key, size_t *len)
{
	const char *found = NULL;
	size_t i = 1;

	if (n == 0 || p[0] != '{')
		return NULL;
	for (;;) {
		size_t ks, ke, vs;
		json_t *k;

		while (i < n && json_ws(p[i]))
			i++;
		if (i >= n || p[i] != '"')
			return found;
		ks = i;
		ke = i = skip_string(p, n, i);
		while (i < n && (json_ws(p[i]) || p[i] == ':'))
			i++;
		vs = i;
		i = skip_value(p, n, i);
		k = json_loadb(p + ks, ke - ks, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
		if (k != NULL && json_string_length(k) == strlen(key) &&
		    memcmp(json_string_value(k), key, strlen(key)) == 0) {
			found = p + vs;
			*len = i - vs;
		}
		json_decref(k);
		while (i < n && (json_ws(p[i]) || p[i] == ','))
			i++;
	}
}

/* `p` (trimmed, not parsed) may be valid JSON holding an integer past 64
 * bits or a NUL in a key.  Parsed again with such integers as reals and
 * each \u0000 as \u0001, it shows its envelope; its id is read from its
 * own text.  Returns 0, or -1 when memory ran out. */
static int salvage(struct mcp_message *m, const char *p, size_t n)
{
	char *copy = sw_strndup(p, n);
	const char *idt, *pt;
	size_t idlen = 0, plen = 0;
	json_t *doc, *id = NULL, *params;
	int in_string = 0;

	if (copy == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (copy[i] == '"') {
			in_string = !in_string;
		} else if (in_string && copy[i] == '\\') {
			if (i + 5 < n && memcmp(copy + i + 1, "u0000", 5) == 0)
				copy[i + 5] = '1';
			i++;
		}
	}
	doc = json_loadb(copy, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY |
			 JSON_DECODE_INT_AS_REAL, NULL);
	sw_free(copy);
	if (doc == NULL) {
		fail(m, RPC_PARSE_ERROR, "parse error");
		return 0;
	}
	/* The id as its text says, where the copy may hold a real. */
	if (json_is_object(doc) && (idt = member_text(p, n, "id", &idlen)) != NULL &&
	    ((id = json_loadb(idt, idlen, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL)) == NULL ||
	     json_object_set_new(doc, "id", id) < 0)) {
		json_decref(doc);
		fail(m, RPC_INVALID_REQUEST, "id must be a string or an integer of 64 bits");
		return 0;
	}
	envelope(m, doc);
	if (m->kind != MCP_MESSAGE_REQUEST)
		return 0;
	pt = member_text(p, n, "params", &plen);
	params = pt ? json_loadb(pt, plen, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY |
				 JSON_ALLOW_NUL, NULL) : NULL;
	fail(m, pt && params == NULL ? RPC_INVALID_PARAMS : RPC_INVALID_REQUEST,
	     "the request holds an integer beyond 64 bits or a NUL (\\u0000) in a key");
	json_decref(params);
	return 0;
}

int mcp_message_read(struct mcp_message *m, const char *line, size_t len)
{
	unsigned long failures = sw_alloc_failures();
	json_error_t jerr;
	json_t *doc;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	while (len > 0 && json_ws(line[0])) {
		line++;
		len--;
	}
	while (len > 0 && json_ws(line[len - 1]))
		len--;
	if (len == 0)
		return 0;
	doc = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL,
			 &jerr);
	if (doc != NULL) {
		envelope(m, doc);
		if (m->kind == MCP_MESSAGE_REQUEST && m->params && holds_nul(m->params))
			fail(m, RPC_INVALID_PARAMS, "params must not hold a NUL (\\u0000)");
	} else if (sw_alloc_failures() == failures) {
		rc = salvage(m, line, len);
	}
	if (rc < 0 || sw_alloc_failures() != failures) {
		fail(m, RPC_INTERNAL_ERROR, "out of memory");
		rc = -1;
	}
	return rc;
}

void mcp_message_release(struct mcp_message *m)
{
	json_decref(m->id);
	json_decref(m->doc);
	memset(m, 0, sizeof(*m));
}
