/* A `next` variant read as an MCP tool call (io/next_call.h): every form of
 * tables/next_forms.def has its tool, each flag becomes its argument, file
 * and stdin inputs name the argument holding their content, and anything
 * the tables do not know leaves the variant without a tool. */
#include <criterion/criterion.h>

#include <string.h>

#include <jansson.h>

#include "io/wire/next.h"
#include "io/wire/next_call.h"
#include "tables/mcp_tools.h"

#define ID "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

TestSuite(io_next_call);

/* The call of variant `json` (a variant object's text). */
static json_t *call_of(const char *json)
{
	json_t *v = json_loads(json, 0, NULL), *call;

	cr_assert_not_null(v, "%s", json);
	call = next_call(v);
	json_decref(v);
	cr_assert_not_null(call);
	return call;
}

static void expect_call(const char *variant, const char *want)
{
	json_t *call = call_of(variant), *w = json_loads(want, 0, NULL);
	char *got = json_dumps(call, JSON_SORT_KEYS | JSON_COMPACT);

	cr_assert_not_null(w, "%s", want);
	cr_assert(json_equal(call, w), "%s\n got %s\nwant %s", variant, got, want);
	free(got);
	json_decref(w);
	json_decref(call);
}

Test(io_next_call, every_form_has_a_tool_that_accepts_what_it_fills)
{
	static const struct next_fill fill = {
		.run_id = "R", .action_id = "A", .scope_digest = DIGEST, .candidate_id = "C",
		.budget = 7, .no_review = 1,
	};
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	json_t *doc;

	cr_assert_eq(next_new(&n, TBL_NEXTOP_RESUME, ID, "/w", &err), 0);
	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT; f++)
		cr_assert_eq(next_add_form(n, (enum next_form)f, &fill, &err), 0, "%s", err.msg);
	doc = next_to_json(n);
	for (size_t i = 0; i < n->nvariants; i++) {
		json_t *v = json_array_get(json_object_get(doc, "variants"), i);
		json_t *call = next_call(v);
		const char *tool = json_string_value(json_object_get(call, "tool"));
		const char *key;
		json_t *x;
		int t;

		cr_assert_not_null(tool, "variant %s has no tool", json_string_value(json_object_get(v, "id")));
		for (t = TBL_MCPTOOL_INVALID + 1; strcmp(tbl_mcptools[t].name, tool) != 0; t++)
			cr_assert_lt(t, TBL_MCPTOOL__COUNT - 1);
		json_object_foreach(json_object_get(call, "arguments"), key, x) {
			int a;

			for (a = TBL_MCPARG_INVALID + 1; a < TBL_MCPARG__COUNT; a++)
				if (strcmp(tbl_mcpargs[a].name, key) == 0)
					break;
			cr_assert_lt(a, TBL_MCPARG__COUNT, "%s: no argument %s", tool, key);
			cr_assert(tbl_mcptools[t].accepts & (1ul << a), "%s does not accept %s", tool, key);
		}
		json_decref(call);
	}
	json_decref(doc);
	next_free(n);
}

Test(io_next_call, flags_become_arguments_and_inputs_name_theirs)
{
	expect_call("{\"id\":\"submit-outcome-file\",\"base_argv\":[\"slipway\",\"protocol\",\"submit\",\"--run\",\"R\","
		    "\"--action\",\"A\",\"--root\",\"/w\"],\"inputs\":[{\"name\":\"outcome_file\",\"type\":\"path\","
		    "\"flag\":\"--outcome-file\",\"required\":true}]}",
		    "{\"variant\":\"submit-outcome-file\",\"tool\":\"submit\",\"arguments\":{\"run_id\":\"R\","
		    "\"action_id\":\"A\"},\"inputs\":{\"outcome_file\":\"outcome\"}}");
	expect_call("{\"id\":\"submit-outcome-stdin\",\"base_argv\":[\"slipway\",\"protocol\",\"submit\",\"--run\",\"R\","
		    "\"--action\",\"A\",\"--root\",\"/w\",\"--outcome-stdin\"],\"inputs\":[]}",
		    "{\"variant\":\"submit-outcome-stdin\",\"tool\":\"submit\",\"arguments\":{\"run_id\":\"R\","
		    "\"action_id\":\"A\"},\"inputs\":{},\"stdin\":\"outcome\"}");
	expect_call("{\"id\":\"confirm-destructive\",\"base_argv\":[\"slipway\",\"protocol\",\"answer\",\"--run\",\"R\","
		    "\"--action\",\"A\",\"--root\",\"/w\",\"--confirm-destructive\",\"--scope-sha256\",\"" DIGEST "\"],"
		    "\"inputs\":[{\"name\":\"text_file\",\"type\":\"path\",\"flag\":\"--text-file\",\"required\":false}]}",
		    "{\"variant\":\"confirm-destructive\",\"tool\":\"answer\",\"arguments\":{\"run_id\":\"R\","
		    "\"action_id\":\"A\",\"confirm_destructive\":true,\"scope_sha256\":\"" DIGEST "\"},"
		    "\"inputs\":{\"text_file\":\"text\"}}");
	/* the run id word, a budget as an integer, a choice */
	expect_call("{\"id\":\"adopt\",\"base_argv\":[\"slipway\",\"protocol\",\"resume\",\"R\",\"--root\",\"/w\","
		    "\"--source-choice\",\"adopt\",\"--candidate\",\"C\",\"--budget\",\"1000\"],\"inputs\":[]}",
		    "{\"variant\":\"adopt\",\"tool\":\"resume\",\"arguments\":{\"run_id\":\"R\","
		    "\"source_choice\":\"adopt\",\"candidate\":\"C\",\"budget\":1000},\"inputs\":{}}");
	/* --json is implied; --no-review a switch; a goal and an envelope file */
	expect_call("{\"id\":\"start-with-source\",\"base_argv\":[\"slipway\",\"run\",\"--budget\",\"8\",\"--json\","
		    "\"--root\",\"/w\",\"--no-review\"],\"inputs\":[{\"name\":\"goal_file\",\"type\":\"path\","
		    "\"flag\":\"--goal-file\",\"required\":true},{\"name\":\"source_file\",\"type\":\"path\","
		    "\"flag\":\"--source-file\",\"required\":true}]}",
		    "{\"variant\":\"start-with-source\",\"tool\":\"run\",\"arguments\":{\"budget\":8,"
		    "\"no_review\":true},\"inputs\":{\"goal_file\":\"goal\",\"source_file\":\"source\"}}");
	/* status reads another workspace: --root is its argument there */
	expect_call("{\"id\":\"inspect-run-in-its-workspace\",\"base_argv\":[\"slipway\",\"status\",\"R\","
		    "\"--root\",\"/other\"],\"inputs\":[]}",
		    "{\"variant\":\"inspect-run-in-its-workspace\",\"tool\":\"status\",\"arguments\":"
		    "{\"run_id\":\"R\",\"root\":\"/other\"},\"inputs\":{}}");
	expect_call("{\"id\":\"install-kiro\",\"base_argv\":[\"slipway\",\"install\",\"--root\",\"/w\",\"--tool\",\"kiro\"],"
		    "\"inputs\":[{\"name\":\"surface\",\"type\":\"enum\",\"flag\":\"--surface\",\"required\":true,"
		    "\"choices\":[\"ide\",\"cli\"]}]}",
		    "{\"variant\":\"install-kiro\",\"tool\":\"install\",\"arguments\":{\"tool\":\"kiro\"},"
		    "\"inputs\":{\"surface\":\"surface\"}}");
}

Test(io_next_call, what_no_tool_carries_out_has_no_tool)
{
	static const char *const bad[] = {
		/* not slipway, an unknown command, an unknown flag */
		"{\"id\":\"x\",\"base_argv\":[\"git\",\"status\"],\"inputs\":[]}",
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"protocol\",\"explode\",\"--run\",\"R\"],\"inputs\":[]}",
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"protocol\",\"skip\",\"--run\",\"R\",\"--force\"],\"inputs\":[]}",
		/* a flag of another tool, a second run id word, a flag without its value */
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"protocol\",\"skip\",\"--run\",\"R\",\"--budget\",\"3\"],\"inputs\":[]}",
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"stop\",\"R\",\"S\"],\"inputs\":[]}",
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"protocol\",\"skip\",\"--run\"],\"inputs\":[]}",
		/* a budget that is no number, a word after "--" */
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"run\",\"--budget\",\"8x\"],\"inputs\":[]}",
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"run\",\"--\",\"goal\"],\"inputs\":[]}",
		/* an input whose flag the tool lacks */
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"protocol\",\"skip\",\"--run\",\"R\"],\"inputs\":"
		"[{\"name\":\"budget\",\"type\":\"string\",\"flag\":\"--budget\",\"required\":false}]}",
		/* an outcome file named in base_argv cannot be passed by name */
		"{\"id\":\"x\",\"base_argv\":[\"slipway\",\"protocol\",\"submit\",\"--run\",\"R\",\"--action\",\"A\","
		"\"--outcome-file\",\"/tmp/o\"],\"inputs\":[]}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *call = call_of(bad[i]);

		cr_assert(json_is_null(json_object_get(call, "tool")), "%s", bad[i]);
		cr_assert_null(json_object_get(call, "arguments"), "%s", bad[i]);
		json_decref(call);
	}
	/* not a variant at all */
	cr_assert_null(next_call(json_null()));
}
