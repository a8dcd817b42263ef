/* The token-preserving JSON member editor (io/util/json_edit.h): every byte but
 * the edited member stays, and a document that would not read back exactly
 * is refused. */

#include <criterion/criterion.h>
#include <string.h>

#include <jansson.h>

#include "io/util/err.h"
#include "io/util/json_edit.h"

static void setup(void)
{
	sw_alloc_init();
}

TestSuite(io_json_edit, .init = setup);

static json_t *entry(void)
{
	return json_pack("{ss s[ss]}", "command", "slipway", "args", "mcp", "--root");
}

/* Adds "slipway" under `key` (depth 1; depth 0 when `key` is NULL adds
 * {"mcpServers": {"slipway": ...}} at the root), checks the result, then
 * removes it again and checks the original comes back when `back`. */
static void round_trip(const char *in, const char *key, const char *want, int back)
{
	const char *path[1] = { key };
	struct sw_error err = SW_ERROR_INIT;
	json_t *v = entry(), *wrapped = json_pack("{sO}", "slipway", v);
	char *out = NULL, *again = NULL;
	size_t len = 0, len2 = 0;

	if (key)
		cr_assert_eq(sw_json_edit_add(&out, &len, in, strlen(in), SW_JSON_STRICT, path, 1, "slipway", v, &err),
			     0, "%s: %s", in, err.msg);
	else
		cr_assert_eq(sw_json_edit_add(&out, &len, in, strlen(in), SW_JSON_STRICT, path, 0, "mcpServers",
					      wrapped, &err), 0, "%s: %s", in, err.msg);
	cr_expect_eq(len, strlen(out));
	cr_expect_str_eq(out, want);
	if (key && back) {
		cr_assert_eq(sw_json_edit_remove(&again, &len2, out, len, SW_JSON_STRICT, path, 1, "slipway", &err), 0,
			     "%s", err.msg);
		cr_expect_str_eq(again, in);
	}
	sw_free(out);
	sw_free(again);
	json_decref(v);
	json_decref(wrapped);
}

Test(io_json_edit, numbers_escapes_and_order_are_kept_byte_for_byte)
{
	round_trip("{\n  \"mcpServers\": {\n    \"mine\": {\"t\": 0.3, \"n\": 1E5, \"u\": \"\\u00e9\"}\n  },\n"
		   "  \"z\": [1.50, -0.0, 10000000000]\n}\n", "mcpServers",
		   "{\n  \"mcpServers\": {\n    \"mine\": {\"t\": 0.3, \"n\": 1E5, \"u\": \"\\u00e9\"},\n"
		   "    \"slipway\": {\n      \"command\": \"slipway\",\n      \"args\": [\n"
		   "        \"mcp\",\n        \"--root\"\n      ]\n    }\n  },\n"
		   "  \"z\": [1.50, -0.0, 10000000000]\n}\n", 1);
}

Test(io_json_edit, the_layout_of_the_members_is_followed)
{
	/* Four spaces, after two members: their separator. */
	round_trip("{\n    \"s\": {\n        \"a\": 1,\n        \"b\": 2\n    }\n}", "s",
		   "{\n    \"s\": {\n        \"a\": 1,\n        \"b\": 2,\n        \"slipway\": {\n"
		   "            \"command\": \"slipway\",\n            \"args\": [\n"
		   "                \"mcp\",\n                \"--root\"\n            ]\n        }\n"
		   "    }\n}", 1);
	/* Tabs and CRLF. */
	round_trip("{\r\n\t\"s\": {\r\n\t\t\"a\": 1\r\n\t}\r\n}\r\n", "s",
		   "{\r\n\t\"s\": {\r\n\t\t\"a\": 1,\r\n\t\t\"slipway\": {\r\n\t\t\t\"command\": \"slipway\","
		   "\r\n\t\t\t\"args\": [\r\n\t\t\t\t\"mcp\",\r\n\t\t\t\t\"--root\"\r\n\t\t\t]\r\n\t\t}\r\n"
		   "\t}\r\n}\r\n", 1);
	/* One line, compact. */
	round_trip("{\"s\":{\"a\":1},\"x\":2.50}", "s",
		   "{\"s\":{\"a\":1,\"slipway\":{\"command\":\"slipway\",\"args\":[\"mcp\",\"--root\"]}},"
		   "\"x\":2.50}", 1);
	/* One line with spaces. */
	round_trip("{ \"s\": { \"a\": 1 } }", "s",
		   "{ \"s\": { \"a\": 1, \"slipway\": {\"command\": \"slipway\", \"args\": [\"mcp\", "
		   "\"--root\"]} } }", 1);
	/* The slipway member first of two, then removed: the other keeps its place. */
	{
		const char *path[1] = { "s" };
		const char *in = "{\n  \"s\": {\n    \"slipway\": 1,\n    \"a\": 2\n  }\n}\n";
		struct sw_error err = SW_ERROR_INIT;
		char *out = NULL;
		size_t len = 0;

		cr_assert_eq(sw_json_edit_remove(&out, &len, in, strlen(in), SW_JSON_STRICT, path, 1, "slipway", &err), 0);
		cr_expect_str_eq(out, "{\n  \"s\": {\n    \"a\": 2\n  }\n}\n");
		sw_free(out);
	}
}

Test(io_json_edit, an_empty_or_missing_servers_object_gets_its_own_lines)
{
	round_trip("{\n  \"servers\": {},\n  \"x\": 0.1\n}\n", "servers",
		   "{\n  \"servers\": {\n    \"slipway\": {\n      \"command\": \"slipway\",\n"
		   "      \"args\": [\n        \"mcp\",\n        \"--root\"\n      ]\n    }\n  },\n"
		   "  \"x\": 0.1\n}\n", 0);
	round_trip("{\n  \"x\": 1E5\n}\n", NULL,
		   "{\n  \"x\": 1E5,\n  \"mcpServers\": {\n    \"slipway\": {\n      \"command\": \"slipway\",\n"
		   "      \"args\": [\n        \"mcp\",\n        \"--root\"\n      ]\n    }\n  }\n}\n", 0);
	round_trip("{}", NULL,
		   "{\n  \"mcpServers\": {\n    \"slipway\": {\n      \"command\": \"slipway\",\n"
		   "      \"args\": [\n        \"mcp\",\n        \"--root\"\n      ]\n    }\n  }\n}", 0);
}

/* What Jansson cannot carry exactly is never edited. */
Test(io_json_edit, documents_that_cannot_be_read_back_exactly_are_refused)
{
	static const struct { const char *in; int code; } rows[] = {
		{ "{\"s\": {}, \"big\": 18446744073709551616}", SW_EPARSE },	/* past 64 bits */
		{ "{\"s\": {}, \"s\": {}}", SW_EPARSE },			/* duplicate key */
		{ "{\"s\": {}, \"n\": \"a\\u0000b\"}", SW_EPARSE },		/* NUL */
		{ "{\"s\": {} // comment\n}", SW_EPARSE },
		{ "[1]", SW_EPARSE },
		{ "{\"s\": []}", SW_EINVAL },
		{ "{\"t\": {}}", SW_EINVAL },
		{ "{\"s\": {\"slipway\": 1}}", SW_EINVAL },
	};
	const char *path[1] = { "s" };
	json_t *v = entry();

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		char *out = (char *)"unset";
		size_t len = 7;

		cr_expect_eq(sw_json_edit_add(&out, &len, rows[i].in, strlen(rows[i].in), SW_JSON_STRICT, path, 1,
					      "slipway", v, &err), rows[i].code, "%s: %s", rows[i].in, err.msg);
		cr_expect_null(out);
		cr_expect_eq(len, 0);
	}
	{
		struct sw_error err = SW_ERROR_INIT;
		char *out = NULL;
		size_t len = 0;

		cr_expect_eq(sw_json_edit_remove(&out, &len, "{\"s\": {\"a\": 1}}", 15, SW_JSON_STRICT, path, 1,
						 "slipway", &err), SW_EINVAL);
	}
	json_decref(v);
}

/* A key written with escapes is the same key. */
Test(io_json_edit, keys_are_compared_as_decoded)
{
	const char *path[1] = { "mcpServers" };
	const char *in = "{\"mcp\\u0053ervers\": {\"sl\\u0069pway\": {}, \"a\": 1}}";
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;
	size_t len = 0;

	cr_assert_eq(sw_json_edit_remove(&out, &len, in, strlen(in), SW_JSON_STRICT, path, 1, "slipway", &err), 0,
		     "%s", err.msg);
	cr_expect_str_eq(out, "{\"mcp\\u0053ervers\": {\"a\": 1}}");
	sw_free(out);
}

/* JSONC: comments and trailing commas stay where they are, and the
 * document reads as JSON with them blanked. */
static void jsonc_round_trip(const char *in, const char *key, const char *want)
{
	const char *path[1] = { key };
	struct sw_error err = SW_ERROR_INIT;
	json_t *v = json_pack("{ss s[s]}", "command", "slipway", "args", "mcp");
	char *out = NULL, *again = NULL;
	size_t len = 0, len2 = 0;

	cr_assert_eq(sw_json_edit_add(&out, &len, in, strlen(in), SW_JSON_WITH_COMMENTS, path, 1,
				      "slipway", v, &err), 0, "%s: %s", in, err.msg);
	cr_expect_str_eq(out, want);
	cr_assert_eq(sw_json_edit_remove(&again, &len2, out, len, SW_JSON_WITH_COMMENTS, path, 1,
					 "slipway", &err), 0, "%s: %s", out, err.msg);
	cr_expect_str_eq(again, in);
	sw_free(out);
	sw_free(again);
	json_decref(v);
}

Test(io_json_edit, comments_and_trailing_commas_are_kept_in_jsonc)
{
	/* A line comment after the last member, a trailing comma, a block
	 * comment holding quotes and braces. */
	jsonc_round_trip("{\n  /* \"mcp\": { */\n  \"mcp\": {\n    \"a\": {\"type\": \"local\"}, // mine\n  },\n}\n",
			 "mcp",
			 "{\n  /* \"mcp\": { */\n  \"mcp\": {\n    \"a\": {\"type\": \"local\"},\n"
			 "    \"slipway\": {\n      \"command\": \"slipway\",\n      \"args\": [\n        \"mcp\"\n"
			 "      ]\n    }, // mine\n  },\n}\n");
	/* A comment between two members is not copied into the separator. */
	jsonc_round_trip("{\"mcp\": {\n  \"a\": 1, // one\n  \"b\": 2\n}}",
			 "mcp",
			 "{\"mcp\": {\n  \"a\": 1, // one\n  \"b\": 2,\n  \"slipway\": {\n    \"command\": \"slipway\",\n"
			 "    \"args\": [\n      \"mcp\"\n    ]\n  }\n}}");
	/* A comment alone in the empty object stays before the member. */
	{
		const char *path[1] = { "mcp" };
		const char *in = "{\n  \"mcp\": { // none yet\n  }\n}\n";
		struct sw_error err = SW_ERROR_INIT;
		json_t *v = json_pack("{ss}", "command", "slipway");
		char *out = NULL;
		size_t len = 0;

		cr_assert_eq(sw_json_edit_add(&out, &len, in, strlen(in), SW_JSON_WITH_COMMENTS, path, 1,
					      "slipway", v, &err), 0, "%s", err.msg);
		cr_expect_str_eq(out, "{\n  \"mcp\": { // none yet\n    \"slipway\": {\n      \"command\": \"slipway\"\n"
				 "    }\n  }\n}\n");
		sw_free(out);
		json_decref(v);
	}
}

Test(io_json_edit, a_comment_beside_a_removed_member_stays)
{
	const char *path[1] = { "mcp" };
	const char *in = "{\"mcp\": {\n  \"a\": 1,\n  // the server\n  \"slipway\": 2\n}}";
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;
	size_t len = 0;

	cr_assert_eq(sw_json_edit_remove(&out, &len, in, strlen(in), SW_JSON_WITH_COMMENTS, path, 1,
					 "slipway", &err), 0, "%s", err.msg);
	cr_expect_str_eq(out, "{\"mcp\": {\n  \"a\": 1\n  // the server\n  \n}}");
	sw_free(out);
}

Test(io_json_edit, jsonc_that_does_not_end_or_is_strict_json_with_comments_is_refused)
{
	static const struct { const char *in; enum sw_json_syntax syntax; } rows[] = {
		{ "{\"mcp\": {}} /* open", SW_JSON_WITH_COMMENTS },
		{ "{\"mcp\": {\"a\": \"open}}", SW_JSON_WITH_COMMENTS },
		{ "{\"mcp\": {}, // a comment\n}", SW_JSON_STRICT },
		{ "{\"mcp\": {},}", SW_JSON_STRICT },
		{ "{\"mcp\": {}, , }", SW_JSON_WITH_COMMENTS },
	};
	const char *path[1] = { "mcp" };
	json_t *v = json_pack("{ss}", "command", "slipway");

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		char *out = NULL;
		size_t len = 0;

		cr_expect_eq(sw_json_edit_add(&out, &len, rows[i].in, strlen(rows[i].in), rows[i].syntax, path,
					      1, "slipway", v, &err), SW_EPARSE, "%s: %s", rows[i].in, err.msg);
		cr_expect_null(out);
	}
	json_decref(v);
}

Test(io_json_edit, uncomment_keeps_offsets_line_ends_and_strings)
{
	const char *in = "{\"a//b\": \"/*x*/\", // c\r\n/* d\n e */ \"z\": [1,],}";
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;

	cr_assert_eq(sw_json_uncomment(&out, in, strlen(in), &err), 0, "%s", err.msg);
	cr_expect_eq(strlen(out), strlen(in));
	cr_expect_str_eq(out, "{\"a//b\": \"/*x*/\",     \r\n    \n      \"z\": [1 ] }");
	sw_free(out);
}
