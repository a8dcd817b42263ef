/* Expands the contract markers of a capability text (cli/capabilities/NAME.md)
 * from the tables and decoders the binary runs, so that the texts a host
 * reads cannot drift from what slipway accepts.  `gendocs capability FILE`
 * copies FILE to stdout and replaces each line of the form
 *
 *	<!-- slipway:NAME [ARG] -->
 *
 * with the generated section NAME.  Every example Outcome is decoded and
 * validated by io/outcome.c before it is printed; an example the validator
 * refuses, or an unknown marker, fails the build. */

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docs/gencap.h"
#include "fsm/fsm.h"
#include "io/next.h"
#include "io/outcome.h"

#define ACTION_PLACEHOLDER "REPLACE-WITH-action.action_id"
#define EXAMPLE_REQUEST_ID "3f0c6a52-9b1e-4d7a-8c2f-5e4b1a9d7c60"

static int failed;

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "gendocs capability: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	failed = 1;
}

static void print_set(unsigned set, const char *const *wire, int count,
		      const char *sep)
{
	int first = 1;

	for (int i = 1; i < count; i++)
		if (set & (1u << i)) {
			printf("%s`%s`", first ? "" : sep, wire[i]);
			first = 0;
		}
	if (first)
		printf("none");
}

static enum fsm_kind kind_arg(const char *arg)
{
	return arg && *arg ? tbl_kind_lookup(arg) : FSM_KIND_NONE;
}

/* ---- Outcome fields ---- */

static void field_row(const char *path, const char *type, const char *rule,
		      int required, void *payload)
{
	(void)payload;
	printf("| `%s` | %s | %s | %s |\n", path, type,
	       required ? "yes" : "no (omit the key)", *rule ? rule : "-");
}

static void outcome_fields(void)
{
	printf("Every key below is part of the Outcome; a key marked \"yes\" must be present even "
	       "when its value is `null` or `[]`. No other key is accepted anywhere.\n\n"
	       "| key | JSON type | present | rule |\n| --- | --- | --- | --- |\n");
	outcome_doc_walk(field_row, NULL);
	printf("\nMarkdown text may hold TAB, LF and CR but no other control character; plain text "
	       "holds no control character at all. \"Non-empty\" means not only whitespace.\n");
}

/* ---- allowed values ---- */

static void allowed_values(void)
{
	unsigned set = 0;

	printf("- `contract_version`: `%d`\n- `action_kind`: ", OUTCOME_CONTRACT_VERSION);
	print_set(~0u, tbl_kind_wire, FSM_KIND__COUNT, ", ");
	printf(" (always the current Action's `kind`)\n- `status`: ");
	print_set(~0u, tbl_status_wire, FSM_STATUS__COUNT, ", ");
	for (int p = 1; p < FSM_PAUSE__COUNT; p++)
		if (tbl_pause_host_may_send[p])
			set |= 1u << p;
	printf("\n- `pause.reason`: ");
	print_set(set, tbl_pause_wire, FSM_PAUSE__COUNT, ", ");
	for (int b = FSM_BRANCH_IMPLEMENTATION; b <= FSM_BRANCH_REVIEW; b++) {
		set = 0;
		for (int r = 1; r < FSM_RESULT__COUNT; r++)
			if (tbl_result_host_may_send[r] && (int)tbl_result_branch[r] == b)
				set |= 1u << r;
		printf("\n- `%s.result`: ", b == FSM_BRANCH_IMPLEMENTATION ? "implementation" : "review");
		print_set(set, tbl_result_wire, FSM_RESULT__COUNT, ", ");
	}
	printf("\n- `implementation.activities[].kind`: ");
	for (size_t i = 0; outcome_activity_kind_names[i]; i++)
		printf("%s`%s`", i ? ", " : "", outcome_activity_kind_names[i]);
	printf("\n- `pause.destructive_request.targets[].kind`: ");
	for (size_t i = 0; outcome_target_kind_names[i]; i++)
		printf("%s`%s`", i ? ", " : "", outcome_target_kind_names[i]);
	set = 0;
	for (int k = 1; k < FSM_KIND__COUNT; k++)
		if (tbl_kind_suggestible[k])
			set |= 1u << k;
	printf("\n- `suggested_actions[].kind`: ");
	print_set(set, tbl_kind_wire, FSM_KIND__COUNT, ", ");
	printf("\n");
}

/* ---- the legal-outcome matrix ---- */

static const enum fsm_status status_order[] = {
	FSM_STATUS_COMPLETED, FSM_STATUS_PARTIAL, FSM_STATUS_ERROR,
	FSM_STATUS_NEEDS_INPUT,
};

static void matrix_row(enum fsm_kind k, enum fsm_status st)
{
	const struct fsm_legal *c = &tbl_legal[k][st];

	printf("| `%s` | `%s` | ", tbl_kind_wire[k], tbl_status_wire[st]);
	if (c->pauses == (1u << FSM_PAUSE_NONE))
		printf("`null`");
	else
		print_set(c->pauses, tbl_pause_wire, FSM_PAUSE__COUNT, " or ");
	printf(" | ");
	if (c->branch == FSM_BRANCH_IMPLEMENTATION) {
		printf("object, `result` ");
		print_set(c->results, tbl_result_wire, FSM_RESULT__COUNT, " or ");
	} else {
		printf("`null`");
	}
	printf(" | ");
	if (c->branch == FSM_BRANCH_REVIEW) {
		printf("object, `result` ");
		if (c->results & (1u << FSM_RESULT_NO_FINDINGS))
			printf("`no_findings_reported` with 0 findings, or `findings_reported` with 1 or more");
		else
			print_set(c->results, tbl_result_wire, FSM_RESULT__COUNT, " or ");
	} else {
		printf("`null`");
	}
	printf(" | ");
	if (c->max_suggestions) {
		printf("`[]` or one of ");
		print_set(c->suggestion_kinds, tbl_kind_wire, FSM_KIND__COUNT, ", ");
	} else {
		printf("`[]`");
	}
	printf(" |\n");
}

static void matrix(const char *arg)
{
	enum fsm_kind only = kind_arg(arg);

	if (arg && *arg && only == FSM_KIND_NONE) {
		fail("unknown kind %s in matrix marker", arg);
		return;
	}
	printf("| `action_kind` | `status` | `pause` | `implementation` | `review` | `suggested_actions` |\n"
	       "| --- | --- | --- | --- | --- | --- |\n");
	for (int k = 1; k < FSM_KIND__COUNT; k++) {
		if (only != FSM_KIND_NONE && k != (int)only)
			continue;
		for (size_t i = 0; i < sizeof(status_order) / sizeof(status_order[0]); i++)
			if (tbl_legal[k][status_order[i]].legal)
				matrix_row((enum fsm_kind)k, status_order[i]);
	}
	printf("\nA combination not in this table is refused with `invalid_outcome`. "
	       "`pause.destructive_request` is an object exactly when `pause.reason` is "
	       "`destructive_confirmation_required` and `null` otherwise; "
	       "`pause.supersedes_answer_action_id` may appear only with `decision_required`.\n");
}

/* ---- suggestions ---- */

static void suggestions(void)
{
	unsigned carriers = 0;

	for (int k = 1; k < FSM_KIND__COUNT; k++)
		for (int st = 1; st < FSM_STATUS__COUNT; st++)
			if (tbl_legal[k][st].legal && tbl_legal[k][st].max_suggestions)
				carriers |= 1u << k;
	printf("Only an Outcome of kind ");
	print_set(carriers, tbl_kind_wire, FSM_KIND__COUNT, " or ");
	printf(" that does not pause may carry a suggestion, and at most one. "
	       "Slipway does not invent the next step: after ");
	print_set(carriers, tbl_kind_wire, FSM_KIND__COUNT, " or ");
	printf(", the Run goes where your suggestion says, and with no suggestion it goes "
	       "to Review (when the worktree changed and review is enabled) or to Summarize. "
	       "An `orient` that should lead to code changes must therefore suggest `implement`.\n\n"
	       "| suggestion `kind` | what it causes |\n| --- | --- |\n");
	for (int k = 1; k < FSM_KIND__COUNT; k++)
		if (tbl_kind_suggestible[k])
			printf("| `%s` | the next Action is a `%s` Action whose brief is your `brief` "
			       "(or, if empty, \"%s\") |\n", tbl_kind_wire[k], tbl_kind_wire[k],
			       tbl_kind_default_brief[k]);
	printf("\nWhen the worktree changed and review is enabled, a pending Review comes "
	       "first and the suggestion is dropped (it is recorded as an uncertainty); the Run "
	       "then goes from Review to Summarize. Every issued Action costs one unit of budget.\n");
}

/* ---- examples ---- */

struct example {
	const char *name;
	const char *what;
	const char *json;
};

/* The destructive example's request; its digest is computed at print time. */
static const char *const example_targets[][2] = {
	{ "git_ref", "refs/heads/old-release" },
	{ "path", "build/cache" },
};
static const char example_impact[] =
	"Deletes the build/cache directory and the local branch old-release; both can be rebuilt from origin.";

static const struct example examples[] = {
	{ "orient-completed", "Orient found the work clear and asks for an Implement Action.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"orient\","
	  "\"status\":\"completed\",\"summary\":\"The parser lives in src/parse.c; the goal needs one new branch there and a test.\","
	  "\"observations\":[\"tests run with make test\"],\"known_issues\":[],"
	  "\"suggested_actions\":[{\"kind\":\"implement\",\"brief\":\"Add the empty-input branch to src/parse.c and a test for it.\"}],"
	  "\"pause\":null,\"implementation\":null,\"review\":null}" },
	{ "orient-decision", "Orient needs a decision only the user can make.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"orient\","
	  "\"status\":\"needs_input\",\"summary\":\"Two output formats fit the goal; the choice changes the public interface.\","
	  "\"observations\":[],\"known_issues\":[],\"suggested_actions\":[],"
	  "\"pause\":{\"reason\":\"decision_required\",\"question\":\"Should the report be JSON (recommended: scripts read it) or plain text?\",\"destructive_request\":null},"
	  "\"implementation\":null,\"review\":null}" },
	{ "orient-clarify", "Orient found an open decision and hands it to a Clarify Action.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"orient\","
	  "\"status\":\"completed\",\"summary\":\"The goal leaves the output format open.\","
	  "\"observations\":[],\"known_issues\":[],"
	  "\"suggested_actions\":[{\"kind\":\"clarify\",\"brief\":\"Settle the output format with the user.\"}],"
	  "\"pause\":null,\"implementation\":null,\"review\":null}" },
	{ "clarify-completed", "Clarify settled the questions and hands over to Implement.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"clarify\","
	  "\"status\":\"completed\",\"summary\":\"The user chose JSON output; nothing else is open.\","
	  "\"observations\":[],\"known_issues\":[],"
	  "\"suggested_actions\":[{\"kind\":\"implement\",\"brief\":\"Emit the report as JSON as decided.\"}],"
	  "\"pause\":null,\"implementation\":null,\"review\":null}" },
	{ "clarify-supersede", "Clarify replaces an earlier answer: the user changed their mind.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"clarify\","
	  "\"status\":\"needs_input\",\"summary\":\"The earlier format decision conflicts with the new requirement.\","
	  "\"observations\":[],\"known_issues\":[],\"suggested_actions\":[],"
	  "\"pause\":{\"reason\":\"decision_required\",\"question\":\"The earlier answer chose JSON; keep it or switch to plain text?\",\"destructive_request\":null,"
	  "\"supersedes_answer_action_id\":\"REPLACE-WITH-the-answered-action-id\"},"
	  "\"implementation\":null,\"review\":null}" },
	{ "implement-completed", "Implement changed files and ran the tests.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"implement\","
	  "\"status\":\"completed\",\"summary\":\"Added the empty-input branch and its test.\","
	  "\"observations\":[],\"known_issues\":[],\"suggested_actions\":[],\"pause\":null,"
	  "\"implementation\":{\"result\":\"applied\",\"files_changed\":[\"src/parse.c\",\"tests/parse_test.c\"],"
	  "\"activities\":[{\"kind\":\"test\",\"command\":\"make test\",\"exit_code\":0,\"summary\":\"42 tests passed\"}],"
	  "\"uncertainties\":[],\"attempts\":1},\"review\":null}" },
	{ "implement-environment", "Implement cannot go on until the environment is fixed.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"implement\","
	  "\"status\":\"needs_input\",\"summary\":\"The test database is not reachable, so no check can run.\","
	  "\"observations\":[],\"known_issues\":[\"connection refused on localhost:5432\"],\"suggested_actions\":[],"
	  "\"pause\":{\"reason\":\"environment_unavailable\",\"question\":\"Please start the test database, then resume the Run.\",\"destructive_request\":null},"
	  "\"implementation\":null,\"review\":null}" },
	{ "implement-error", "Implement could not make the change.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"implement\","
	  "\"status\":\"error\",\"summary\":\"The change needs an API the vendored library does not have.\","
	  "\"observations\":[],\"known_issues\":[\"vendor/lib is pinned to 1.2\"],\"suggested_actions\":[],\"pause\":null,"
	  "\"implementation\":{\"result\":\"unable\",\"files_changed\":[],\"activities\":[],"
	  "\"uncertainties\":[],\"attempts\":2},\"review\":null}" },
	{ "review-findings", "Review found a problem; it reports and edits nothing.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"review\","
	  "\"status\":\"completed\",\"summary\":\"One finding in the new branch.\","
	  "\"observations\":[],\"known_issues\":[],\"suggested_actions\":[],\"pause\":null,\"implementation\":null,"
	  "\"review\":{\"result\":\"findings_reported\",\"findings\":[{\"location\":\"src/parse.c:88\","
	  "\"summary\":\"Empty input returns before freeing the buffer.\",\"detail\":\"The early return skips free(buf), leaking one allocation per call.\"}],"
	  "\"uncertainties\":[]}}" },
	{ "review-clean", "Review found nothing to report.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"review\","
	  "\"status\":\"completed\",\"summary\":\"The diff matches the goal and is covered by a test.\","
	  "\"observations\":[],\"known_issues\":[],\"suggested_actions\":[],\"pause\":null,\"implementation\":null,"
	  "\"review\":{\"result\":\"no_findings_reported\",\"findings\":[],\"uncertainties\":[]}}" },
	{ "summarize-completed", "Summarize writes the host's final report.",
	  "{\"contract_version\":2,\"action_id\":\"" ACTION_PLACEHOLDER "\",\"action_kind\":\"summarize\","
	  "\"status\":\"completed\",\"summary\":\"Added empty-input handling in src/parse.c with a test; make test passed.\","
	  "\"observations\":[],\"known_issues\":[],\"suggested_actions\":[],"
	  "\"pause\":null,\"implementation\":null,\"review\":null}" },
};

/* The destructive example, built around a request whose scope digest is
 * computed by the same code that checks it. */
static char *destructive_example(char digest[SW_DIGEST_LEN])
{
	struct outcome_target t[2];
	struct outcome_request r;
	struct sw_error err = SW_ERROR_INIT;
	json_t *targets = json_array(), *o;
	char *text;

	for (size_t i = 0; i < 2; i++) {
		t[i].kind = (char *)example_targets[i][0];
		t[i].value = (char *)example_targets[i][1];
		json_array_append_new(targets, json_pack("{s:s,s:s}", "kind", t[i].kind,
							 "value", t[i].value));
	}
	r.request_id = (char *)EXAMPLE_REQUEST_ID;
	r.targets = t;
	r.n_targets = 2;
	r.impact = (char *)example_impact;
	r.scope_sha256 = NULL;
	if (outcome_scope_sha256(&r, digest, &err) < 0) {
		fail("destructive example: %s", err.msg);
		json_decref(targets);
		return NULL;
	}
	o = json_pack("{s:i,s:s,s:s,s:s,s:s,s:[],s:[],s:[],s:{s:s,s:s,s:{s:s,s:o,s:s,s:s}},s:n,s:n}",
		      "contract_version", 2, "action_id", ACTION_PLACEHOLDER,
		      "action_kind", "implement", "status", "needs_input",
		      "summary", "Removing the stale cache and the old release branch needs the user's confirmation.",
		      "observations", "known_issues", "suggested_actions",
		      "pause", "reason", "destructive_confirmation_required",
		      "question", "May I delete build/cache and the local branch old-release?",
		      "destructive_request", "request_id", EXAMPLE_REQUEST_ID, "targets", targets,
		      "impact", example_impact, "scope_sha256", digest,
		      "implementation", "review");
	text = o ? json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT) : NULL;
	json_decref(o);
	return text;
}

/* Decodes `json` with the real validator, then prints it indented. */
static void print_example(const char *name, const char *what, const char *json)
{
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;
	json_t *v;
	char *pretty;

	if (outcome_decode(&o, json, strlen(json), &err) < 0) {
		fprintf(stderr, "gendocs capability: example %s is refused: %s\n", name, err.msg);
		failed = 1;
		return;
	}
	outcome_release(&o);
	v = json_loads(json, 0, NULL);
	pretty = v ? json_dumps(v, JSON_PRESERVE_ORDER | JSON_INDENT(2)) : NULL;
	printf("**Example: %s**. %s\n\n```json\n%s\n```\n", name, what, pretty ? pretty : "");
	free(pretty);
	json_decref(v);
}

static void example(const char *arg)
{
	char digest[SW_DIGEST_LEN];

	if (arg && strcmp(arg, "implement-destructive") == 0) {
		char *text = destructive_example(digest);

		if (text)
			print_example(arg, "Implement asks before destructive work; the digest is computed as shown in the destructive flow.", text);
		free(text);
		return;
	}
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
		if (arg && strcmp(arg, examples[i].name) == 0) {
			print_example(examples[i].name, examples[i].what, examples[i].json);
			return;
		}
	fail("unknown example %s", arg ? arg : "(none)");
}

/* ---- the destructive scope digest ---- */

static void json_string_raw(json_t *s)
{
	char *t = json_dumps(s, JSON_ENCODE_ANY | JSON_COMPACT);

	printf("%s", t ? t : "");
	free(t);
}

static void scope_example(void)
{
	char digest[SW_DIGEST_LEN];
	char *text = destructive_example(digest);
	json_t *impact = json_string(example_impact), *rid = json_string(EXAMPLE_REQUEST_ID);

	free(text);
	printf("For the request in the example `implement-destructive` (request_id `%s`, "
	       "targets sorted by kind then value, the impact sentence), the canonical scope is "
	       "this single line, with no spaces between tokens and no trailing newline:\n\n```text\n",
	       EXAMPLE_REQUEST_ID);
	printf("{\"impact\":");
	json_string_raw(impact);
	printf(",\"request_id\":");
	json_string_raw(rid);
	printf(",\"scope_version\":1,\"targets\":[");
	for (size_t i = 0; i < 2; i++) {
		json_t *k = json_string(example_targets[i][0]), *v = json_string(example_targets[i][1]);

		printf("%s{\"kind\":", i ? "," : "");
		json_string_raw(k);
		printf(",\"value\":");
		json_string_raw(v);
		printf("}");
		json_decref(k);
		json_decref(v);
	}
	printf("]}\n```\n\nIts SHA-256, written as `sha256:` and 64 lowercase hex digits, is the "
	       "`scope_sha256`:\n\n```text\n%s\n```\n", digest);
	json_decref(impact);
	json_decref(rid);
}

/* ---- next ---- */

static void next_rules(void)
{
	printf("| situation | `next.operation` | variants, in order |\n| --- | --- | --- |\n");
	for (size_t i = 0; i < tbl_next_rules_len; i++) {
		const struct fsm_next_rule *r = &tbl_next_rules[i];

		printf("| %s | `%s` | ", r->why, tbl_nextop_wire[r->op]);
		if (r->variants[0] == TBL_VARIANT_INVALID)
			printf("none");
		for (int v = 0; v < 4 && r->variants[v] != TBL_VARIANT_INVALID; v++)
			printf("%s`%s`", v ? ", " : "", tbl_variant_wire[r->variants[v]]);
		printf(" |\n");
	}
}

static void next_variants(void)
{
	static const struct next_fill fill = {
		.run_id = "RUN", .action_id = "ACTION", .scope_digest = "DIGEST",
		.candidate_id = "CANDIDATE", .budget = 8,
	};
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;

	printf("Capital words stand for the values Slipway prints; copy `base_argv` from the "
	       "JSON, never from this table.\n\n"
	       "| variant | `next.operation` | `base_argv` | inputs (`name`: type, flag, required) |\n"
	       "| --- | --- | --- | --- |\n");
	if (next_new(&n, TBL_NEXTOP_RESUME, "sha256:0000000000000000000000000000000000000000000000000000000000000000",
		     "WORKSPACE", &err) < 0) {
		fail("next: %s", err.msg);
		return;
	}
	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT; f++) {
		const struct next_variant *v;

		if (next_add_form(n, (enum next_form)f, &fill, &err) < 0) {
			fail("next form: %s", err.msg);
			break;
		}
		v = &n->variants[n->nvariants - 1];
		printf("| `%s` | `%s` | `", tbl_variant_wire[v->id],
		       tbl_nextop_wire[next_form_operation((enum next_form)f)]);
		for (size_t a = 0; a < v->argc; a++)
			printf("%s%s", a ? " " : "", v->argv[a]);
		printf("` | ");
		if (v->ninputs == 0)
			printf("none");
		for (size_t k = 0; k < v->ninputs; k++) {
			const struct next_input *in = &v->inputs[k];

			printf("%s`%s`: %s, `%s`, %s", k ? "; " : "", in->name,
			       tbl_input_wire[in->type], in->flag,
			       in->required ? "required" : "optional");
			if (in->choices) {
				printf(", one of");
				for (size_t c = 0; in->choices[c]; c++)
					printf(" `%s`", in->choices[c]);
			}
		}
		printf(" |\n");
	}
	next_free(n);
}

/* ---- driver ---- */

static int expand_line(const char *line)
{
	char name[64] = "", arg[64] = "";
	const char *p = line + strlen("<!-- slipway:"), *end = strstr(p, " -->");
	const char *sp;

	if (end == NULL || (size_t)(end - p) >= sizeof(name))
		return 0;
	sp = memchr(p, ' ', (size_t)(end - p));
	memcpy(name, p, (size_t)((sp ? sp : end) - p));
	if (sp)
		memcpy(arg, sp + 1, (size_t)(end - sp - 1));
	if (strcmp(name, "outcome-fields") == 0)
		outcome_fields();
	else if (strcmp(name, "allowed-values") == 0)
		allowed_values();
	else if (strcmp(name, "matrix") == 0)
		matrix(arg);
	else if (strcmp(name, "suggestions") == 0)
		suggestions();
	else if (strcmp(name, "example") == 0)
		example(arg);
	else if (strcmp(name, "scope-example") == 0)
		scope_example();
	else if (strcmp(name, "next-rules") == 0)
		next_rules();
	else if (strcmp(name, "next-variants") == 0)
		next_variants();
	else
		fail("unknown marker %s", name);
	return 1;
}

/* Expands a marker indented by `indent` spaces (inside a list item): the
 * section is generated into memory, then each non-empty line is indented. */
static int expand_indented(const char *marker, size_t indent)
{
	FILE *saved = stdout, *mem;
	char *text = NULL;
	size_t len = 0;
	int hit;

	if (indent == 0)
		return expand_line(marker);
	if ((mem = open_memstream(&text, &len)) == NULL) {
		fail("cannot expand %s", marker);
		return 1;
	}
	stdout = mem;
	hit = expand_line(marker);
	stdout = saved;
	fclose(mem);
	for (char *p = text, *nl; hit && p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl != p)
			printf("%*s", (int)indent, "");
		printf("%.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
		if (nl == NULL)
			break;
	}
	free(text);
	return hit;
}

int gencap_expand(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (f == NULL) {
		fail("cannot open %s", path);
		return 1;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		size_t indent = strspn(line, " ");

		if (strncmp(line + indent, "<!-- slipway:", 13) == 0 &&
		    expand_indented(line + indent, indent))
			continue;
		fwrite(line, 1, (size_t)n, stdout);
	}
	free(line);
	fclose(f);
	return failed || fflush(stdout) != 0;
}
