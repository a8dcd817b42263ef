/* Expands a capability text template (io/adapters/capabilities/NAME.md) into the
 * text slipway embeds and installs (build/gen/capabilities/NAME.md), from the
 * tables, decoders and parser limits the binary runs, so that the texts a
 * host reads cannot drift from what slipway accepts.
 *
 *	gendocs capability IN [OUT]
 *
 * A marker `<!-- slipway:NAME -->` or `<!-- slipway:NAME ARG -->` is
 * replaced by what row NAME of `markers` below prints.  A block marker
 * (a contract section, an example) stands alone on its line, indented or
 * not, and replaces it; an inline marker (a spelling or a limit of the
 * source parser, a reference's path, a source rejection's fix) may stand
 * anywhere in a line, and in the fix texts of tables/error_help.def.
 * Templates are Markdown texts and the query files the source envelope
 * procedure passes to gh (NAME.graphql, NAME.jq).  Every example Outcome is decoded and
 * validated by io/wire/outcome.c before it is printed.  An unknown or unclosed
 * marker, a wrong argument, a refused example, or a source rejection code
 * without a fix row prints a message naming the file and line, exits 1 and
 * writes nothing: OUT is replaced whole through a rename or left as it was. */

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mk/gen/gencap.h"
#include "mk/gen/gencap_source.h"
#include "fsm/fsm.h"
#include "io/adapters/adapter.h"
#include "io/wire/next.h"
#include "io/wire/next_call.h"
#include "io/wire/outcome.h"
#include "io/source/source.h"

/* Reports a failure at the marker being expanded; returns -1. */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Copies `text` (one line, from table `src`) to `out` with its inline
 * markers expanded; -1 after a message on a bad one. */
static int inline_text(FILE *out, const char *text, const char *src);

#define ACTION_PLACEHOLDER "REPLACE-WITH-action.action_id"

static void print_set(FILE *out, unsigned set, const char *const *wire, int count,
		      const char *sep)
{
	int first = 1;

	for (int i = 1; i < count; i++)
		if (set & (1u << i)) {
			fprintf(out, "%s`%s`", first ? "" : sep, wire[i]);
			first = 0;
		}
	if (first)
		fprintf(out, "none");
}

static enum fsm_kind kind_arg(const char *arg)
{
	return arg && *arg ? tbl_kind_lookup(arg) : FSM_KIND_NONE;
}

/* ---- Outcome fields ---- */

/* The values a field may take, where a table or the decoder lists them. */
static void field_values(FILE *out, const char *path)
{
	unsigned set = 0;

	if (strcmp(path, "contract_version") == 0) {
		fprintf(out, ", `%d`", OUTCOME_CONTRACT_VERSION);
	} else if (strcmp(path, "action_kind") == 0 || strcmp(path, "status") == 0) {
		int kind = strcmp(path, "action_kind") == 0;

		fprintf(out, ", one of ");
		if (kind)
			print_set(out, ~0u, tbl_kind_wire, FSM_KIND__COUNT, ", ");
		else
			print_set(out, ~0u, tbl_status_wire, FSM_STATUS__COUNT, ", ");
	} else if (strcmp(path, "suggested_actions[].kind") == 0) {
		for (int k = 1; k < FSM_KIND__COUNT; k++)
			if (tbl_kind_suggestible[k])
				set |= 1u << k;
		fprintf(out, ", one of ");
		print_set(out, set, tbl_kind_wire, FSM_KIND__COUNT, ", ");
	} else if (strcmp(path, "pause.reason") == 0) {
		for (int p = 1; p < FSM_PAUSE__COUNT; p++)
			if (tbl_pause_host_may_send[p])
				set |= 1u << p;
		fprintf(out, ", one of ");
		print_set(out, set, tbl_pause_wire, FSM_PAUSE__COUNT, ", ");
	} else if (strcmp(path, "implementation.result") == 0 || strcmp(path, "review.result") == 0) {
		enum fsm_branch b = path[0] == 'i' ? FSM_BRANCH_IMPLEMENTATION : FSM_BRANCH_REVIEW;

		for (int r = 1; r < FSM_RESULT__COUNT; r++)
			if (tbl_result_host_may_send[r] && tbl_result_branch[r] == b)
				set |= 1u << r;
		fprintf(out, ", one of ");
		print_set(out, set, tbl_result_wire, FSM_RESULT__COUNT, ", ");
	} else if (strcmp(path, "implementation.activities[].kind") == 0 ||
		   strcmp(path, "pause.destructive_request.targets[].kind") == 0) {
		const char *const *names = path[0] == 'i' ? outcome_activity_kind_names
							  : outcome_target_kind_names;

		fprintf(out, ", one of ");
		for (size_t i = 0; names[i]; i++)
			fprintf(out, "%s`%s`", i ? ", " : "", names[i]);
	}
}

/* 1 when field_values prints a list of values for `path`. */
static int has_values(const char *path)
{
	static const char *const listed[] = {
		"contract_version", "action_kind", "status", "suggested_actions[].kind", "pause.reason",
		"implementation.result", "review.result", "implementation.activities[].kind",
		"pause.destructive_request.targets[].kind", NULL
	};

	for (size_t i = 0; listed[i]; i++)
		if (strcmp(path, listed[i]) == 0)
			return 1;
	return 0;
}

/* One key, indented under its parent object: a string shows its values or
 * its text rule, anything else its type first. */
static void field_row(const char *path, const char *type, const char *rule,
		      int required, void *payload)
{
	FILE *out = payload;
	const char *key = strrchr(path, '.');
	int depth = 0, string = strcmp(type, "string") == 0;

	for (const char *p = path; *p; p++)
		depth += *p == '.';
	fprintf(out, "%*s- `%s`: ", 2 * depth, "", key ? key + 1 : path);
	if (!string || (!*rule && !has_values(path)))
		fprintf(out, "%s%s", type, *rule ? ", " : "");
	fprintf(out, "%s", rule);
	if (has_values(path)) {
		char vals[512];
		FILE *m = fmemopen(vals, sizeof(vals), "w");

		if (m) {
			field_values(m, path);
			fclose(m);
			/* field_values starts with ", " for a type printed before */
			fprintf(out, "%s", (!string || *rule) ? vals : vals + 2);
		}
	}
	if (!required)
		fprintf(out, " (optional)");
	fprintf(out, "\n");
}

static int outcome_fields(FILE *out, const char *arg)
{
	(void)arg;
	fprintf(out, "Every key below must be present, even when `null` or `[]`, unless optional; no "
		"other key is accepted. Markdown may hold TAB, LF and CR, no other control character; "
		"plain text holds none; non-empty means not only whitespace.\n\n");
	outcome_doc_walk(field_row, out);
	return 0;
}

/* ---- allowed values ---- */

static int allowed_values(FILE *out, const char *arg)
{
	unsigned set = 0;

	(void)arg;
	fprintf(out, "- `contract_version`: `%d`\n- `action_kind`: ", OUTCOME_CONTRACT_VERSION);
	print_set(out, ~0u, tbl_kind_wire, FSM_KIND__COUNT, ", ");
	fprintf(out, " (always the current Action's `kind`)\n- `status`: ");
	print_set(out, ~0u, tbl_status_wire, FSM_STATUS__COUNT, ", ");
	for (int p = 1; p < FSM_PAUSE__COUNT; p++)
		if (tbl_pause_host_may_send[p])
			set |= 1u << p;
	fprintf(out, "\n- `pause.reason`: ");
	print_set(out, set, tbl_pause_wire, FSM_PAUSE__COUNT, ", ");
	for (int b = FSM_BRANCH_IMPLEMENTATION; b <= FSM_BRANCH_REVIEW; b++) {
		set = 0;
		for (int r = 1; r < FSM_RESULT__COUNT; r++)
			if (tbl_result_host_may_send[r] && (int)tbl_result_branch[r] == b)
				set |= 1u << r;
		fprintf(out, "\n- `%s.result`: ", b == FSM_BRANCH_IMPLEMENTATION ? "implementation" : "review");
		print_set(out, set, tbl_result_wire, FSM_RESULT__COUNT, ", ");
	}
	fprintf(out, "\n- `implementation.activities[].kind`: ");
	for (size_t i = 0; outcome_activity_kind_names[i]; i++)
		fprintf(out, "%s`%s`", i ? ", " : "", outcome_activity_kind_names[i]);
	fprintf(out, "\n- `pause.destructive_request.targets[].kind`: ");
	for (size_t i = 0; outcome_target_kind_names[i]; i++)
		fprintf(out, "%s`%s`", i ? ", " : "", outcome_target_kind_names[i]);
	set = 0;
	for (int k = 1; k < FSM_KIND__COUNT; k++)
		if (tbl_kind_suggestible[k])
			set |= 1u << k;
	fprintf(out, "\n- `suggested_actions[].kind`: ");
	print_set(out, set, tbl_kind_wire, FSM_KIND__COUNT, ", ");
	fprintf(out, "\n");
	return 0;
}

/* ---- the legal-outcome matrix ---- */

static const enum fsm_status status_order[] = {
	FSM_STATUS_COMPLETED, FSM_STATUS_PARTIAL, FSM_STATUS_ERROR,
	FSM_STATUS_NEEDS_INPUT,
};

/* The cells of a matrix row after `status`, into `cell`. */
static void matrix_cells(char *cell, size_t size, enum fsm_kind k, enum fsm_status st)
{
	const struct fsm_legal *c = &tbl_legal[k][st];
	FILE *out = fmemopen(cell, size, "w");

	if (out == NULL) {
		cell[0] = '\0';
		return;
	}
	if (c->pauses == (1u << FSM_PAUSE_NONE))
		fprintf(out, "`null`");
	else
		print_set(out, c->pauses, tbl_pause_wire, FSM_PAUSE__COUNT, " or ");
	fprintf(out, " | ");
	if (c->branch == FSM_BRANCH_IMPLEMENTATION || c->branch == FSM_BRANCH_REVIEW) {
		fprintf(out, "`%s`, `result` ", c->branch == FSM_BRANCH_REVIEW ? "review" : "implementation");
		if (c->results & (1u << FSM_RESULT_NO_FINDINGS))
			fprintf(out, "`no_findings_reported` with no findings or `findings_reported` with some");
		else
			print_set(out, c->results, tbl_result_wire, FSM_RESULT__COUNT, " or ");
	} else {
		fprintf(out, "none");
	}
	fprintf(out, " | ");
	if (c->max_suggestions) {
		fprintf(out, "`[]` or one of ");
		print_set(out, c->suggestion_kinds, tbl_kind_wire, FSM_KIND__COUNT, ", ");
	} else {
		fprintf(out, "`[]`");
	}
	fclose(out);
}

/* One row per kind and group of statuses whose cells agree. */
static int matrix(FILE *out, const char *arg)
{
	enum fsm_kind only = kind_arg(arg);
	const size_t nst = sizeof(status_order) / sizeof(status_order[0]);

	if (arg && only == FSM_KIND_NONE)
		return fail("unknown kind %s in matrix marker", arg);
	fprintf(out, "| `action_kind` | `status` | `pause` | object (`implementation` or `review`; "
		"the others are `null`) | `suggested_actions` |\n| --- | --- | --- | --- | --- |\n");
	for (int k = 1; k < FSM_KIND__COUNT; k++) {
		int done[4] = { 0 };

		if (only != FSM_KIND_NONE && k != (int)only)
			continue;
		for (size_t i = 0; i < nst; i++) {
			char cell[512], other[512];
			const char *sep = "";

			if (done[i] || !tbl_legal[k][status_order[i]].legal)
				continue;
			matrix_cells(cell, sizeof(cell), (enum fsm_kind)k, status_order[i]);
			fprintf(out, "| `%s` | ", tbl_kind_wire[k]);
			for (size_t j = i; j < nst; j++) {
				if (done[j] || !tbl_legal[k][status_order[j]].legal)
					continue;
				matrix_cells(other, sizeof(other), (enum fsm_kind)k, status_order[j]);
				if (strcmp(cell, other) != 0)
					continue;
				fprintf(out, "%s`%s`", sep, tbl_status_wire[status_order[j]]);
				sep = ", ";
				done[j] = 1;
			}
			fprintf(out, " | %s |\n", cell);
		}
	}
	fprintf(out, "\nAnything else is refused with `invalid_outcome`. `pause.destructive_request` "
		"is an object exactly when `pause.reason` is `destructive_confirmation_required`, "
		"otherwise `null`.\n");
	return 0;
}

/* ---- suggestions ---- */

static int suggestions(FILE *out, const char *arg)
{
	unsigned carriers = 0, kinds = 0;

	(void)arg;
	for (int k = 1; k < FSM_KIND__COUNT; k++) {
		for (int st = 1; st < FSM_STATUS__COUNT; st++)
			if (tbl_legal[k][st].legal && tbl_legal[k][st].max_suggestions)
				carriers |= 1u << k;
		if (tbl_kind_suggestible[k])
			kinds |= 1u << k;
	}
	fprintf(out, "**What comes next.** Only ");
	print_set(out, carriers, tbl_kind_wire, FSM_KIND__COUNT, " or ");
	fprintf(out, " Outcomes that do not pause may carry a suggestion, at most one: the next "
		"Action is of its `kind` (");
	print_set(out, kinds, tbl_kind_wire, FSM_KIND__COUNT, ", ");
	fprintf(out, ") with its `brief`. Without one the Run goes to Review (worktree changed, "
		"review enabled) or to Summarize, so an `orient` that should lead to code changes "
		"must suggest `implement`. Once the worktree differs from the Run's start (review "
		"enabled), Review comes first whatever is suggested, then Summarize: the suggestion is "
		"dropped (recorded as an uncertainty) and no Implement follows in this Run. Each issued "
		"Action costs one unit of budget.\n");
	return 0;
}

/* ---- examples ---- */

struct example {
	const char *name;
	const char *what;
	const char *json;
};

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

	outcome_scope_example(&r, t);
	for (size_t i = 0; i < r.n_targets; i++)
		json_array_append_new(targets, json_pack("{s:s,s:s}", "kind", t[i].kind,
							 "value", t[i].value));
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
		      "destructive_request", "request_id", r.request_id, "targets", targets,
		      "impact", r.impact, "scope_sha256", digest,
		      "implementation", "review");
	text = o ? json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT) : NULL;
	json_decref(o);
	return text;
}

/* Decodes `json` with the real validator, then prints it indented. */
static int print_example(FILE *out, const char *name, const char *what, const char *json)
{
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;
	json_t *v;
	char *pretty;

	if (outcome_decode(&o, json, strlen(json), &err) < 0)
		return fail("example %s is refused: %s", name, err.msg);
	outcome_release(&o);
	v = json_loads(json, 0, NULL);
	pretty = v ? json_dumps(v, JSON_PRESERVE_ORDER | JSON_INDENT(2)) : NULL;
	fprintf(out, "**Example: %s**. %s\n\n```json\n%s\n```\n", name, what, pretty ? pretty : "");
	free(pretty);
	json_decref(v);
	return 0;
}

/* Where the marker being expanded stands, for messages; line 0 for a text
 * taken from a table. */
struct where {
	const char *src;
	size_t line;
};

static struct where at;

/* The JSON text of example `name` (allocated) and what it shows, or NULL
 * (reported). */
static char *example_json(const char *name, const char **what)
{
	char digest[SW_DIGEST_LEN];

	if (strcmp(name, "implement-destructive") == 0) {
		*what = "Implement asks before destructive work; the digest is computed as shown in the destructive flow.";
		return destructive_example(digest);
	}
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
		if (strcmp(name, examples[i].name) == 0) {
			char *text = strdup(examples[i].json);

			if (text == NULL)
				fail("out of memory");
			*what = examples[i].what;
			return text;
		}
	fail("unknown example %s", name);
	return NULL;
}

static int example(FILE *out, const char *arg)
{
	const char *what;
	char *text = example_json(arg, &what);
	int rc = text ? print_example(out, arg, what, text) : -1;

	free(text);
	return rc;
}

int gencap_example_block(FILE *out, const char *name)
{
	struct where saved = at;
	const char *what;
	char *text, *pretty = NULL;
	struct outcome o;
	struct sw_error err = SW_ERROR_INIT;
	json_t *v = NULL;
	int rc = -1;

	at.src = "example-outcome";
	at.line = 0;
	if ((text = example_json(name, &what)) == NULL)
		goto out;
	if (outcome_decode(&o, text, strlen(text), &err) < 0) {
		fail("example %s is refused: %s", name, err.msg);
		goto out;
	}
	outcome_release(&o);
	v = json_loads(text, 0, NULL);
	pretty = v ? json_dumps(v, JSON_PRESERVE_ORDER | JSON_INDENT(2)) : NULL;
	if (pretty == NULL) {
		fail("out of memory");
		goto out;
	}
	fprintf(out, "<!-- example: outcome %s -->\n```json\n%s\n```\n",
		json_string_value(json_object_get(v, "action_kind")), pretty);
	rc = 0;
out:
	free(pretty);
	json_decref(v);
	free(text);
	at = saved;
	return rc;
}

/* ---- the destructive scope digest ---- */

static int scope_example(FILE *out, const char *arg)
{
	struct outcome_target t[2];
	struct outcome_request r;
	struct sw_error err = SW_ERROR_INIT;
	char digest[SW_DIGEST_LEN], *canon;
	size_t len;

	(void)arg;
	outcome_scope_example(&r, t);
	if (outcome_scope_canonical(&canon, &len, &r, &err) < 0)
		return fail("scope example: %s", err.msg);
	sw_sha256_prefixed(canon, len, digest);
	fprintf(out, "For the request in the example `implement-destructive` (request_id `%s`, "
		"targets sorted by kind then value, the impact sentence), the canonical scope is "
		"this single line, with no spaces between tokens and no trailing newline:\n\n"
		"```text\n%s\n```\n\nIts SHA-256, written as `sha256:` and 64 lowercase hex digits, is the "
		"`scope_sha256`:\n\n```text\n%s\n```\n", r.request_id, canon, digest);
	sw_free(canon);
	return 0;
}

/* ---- next ---- */

static int next_rules(FILE *out, const char *arg)
{
	(void)arg;
	fprintf(out, "| situation | `next.operation` | variants, in order |\n| --- | --- | --- |\n");
	for (size_t i = 0; i < tbl_next_rules_len; i++) {
		const struct fsm_next_rule *r = &tbl_next_rules[i];

		fprintf(out, "| %s | `%s` | ", r->why, tbl_nextop_wire[r->op]);
		if (r->variants[0] == TBL_VARIANT_INVALID)
			fprintf(out, "none");
		for (int v = 0; v < 4 && r->variants[v] != TBL_VARIANT_INVALID; v++)
			fprintf(out, "%s`%s`", v ? ", " : "", tbl_variant_wire[r->variants[v]]);
		fprintf(out, " |\n");
	}
	return 0;
}

static int next_variants(FILE *out, const char *arg)
{
	static const struct next_fill fill = {
		.run_id = "RUN", .action_id = "ACTION", .scope_digest = "DIGEST",
		.candidate_id = "CANDIDATE", .budget = 8,
	};
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	int rc = 0;

	(void)arg;
	fprintf(out, "Capital words stand for the values Slipway prints; copy `base_argv` from the "
		"JSON, never from this table.\n\n"
		"| variant | `next.operation` | `base_argv` | inputs (`name`: type, flag, required) |\n"
		"| --- | --- | --- | --- |\n");
	if (next_new(&n, TBL_NEXTOP_RESUME, "sha256:0000000000000000000000000000000000000000000000000000000000000000",
		     "WORKSPACE", &err) < 0) {
		return fail("next: %s", err.msg);
	}
	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT; f++) {
		const struct next_variant *v;

		if (next_add_form(n, (enum next_form)f, &fill, &err) < 0) {
			rc = fail("next form: %s", err.msg);
			break;
		}
		v = &n->variants[n->nvariants - 1];
		fprintf(out, "| `%s` | `%s` | `", tbl_variant_wire[v->id],
			tbl_nextop_wire[next_form_operation((enum next_form)f)]);
		for (size_t a = 0; a < v->argc; a++)
			fprintf(out, "%s%s", a ? " " : "", v->argv[a]);
		fprintf(out, "` | ");
		if (v->ninputs == 0)
			fprintf(out, "none");
		for (size_t k = 0; k < v->ninputs; k++) {
			const struct next_input *in = &v->inputs[k];

			fprintf(out, "%s`%s`: %s, `%s`, %s", k ? "; " : "", in->name,
				tbl_input_wire[in->type], in->flag,
				in->required ? "required" : "optional");
			if (in->choices) {
				fprintf(out, ", one of");
				for (size_t c = 0; in->choices[c]; c++)
					fprintf(out, " `%s`", in->choices[c]);
			}
		}
		fprintf(out, " |\n");
	}
	next_free(n);
	return rc;
}

/* ---- MCP tool calls ---- */

/* Every variant once, as the tool call `slipway mcp` carries it out with. */
static int mcp_variants(FILE *out, const char *arg)
{
	static const struct next_fill fill = {
		.run_id = "RUN", .action_id = "ACTION", .scope_digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000",
		.candidate_id = "CANDIDATE", .budget = 8,
	};
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	unsigned long long seen = 0;
	int rc = 0;

	(void)arg;
	fprintf(out, "With the slipway MCP tools, a variant is one call: `base_argv` names the tool, "
		"its flags become the arguments of the same name, its run id word is `run_id`, and "
		"each input goes to the argument shown, holding what the file or stdin would hold "
		"(an Outcome as a JSON object, an answer or goal as text, an envelope as an object or "
		"its path). Arguments the variant fixes are copied from `base_argv`, never typed.\n\n"
		"| variant | tool | arguments from `base_argv` | inputs |\n| --- | --- | --- | --- |\n");
	if (next_new(&n, TBL_NEXTOP_RESUME, fill.scope_digest, "/WORKSPACE", &err) < 0)
		return fail("next: %s", err.msg);
	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT && rc == 0; f++) {
		json_t *v, *call, *x;
		const char *key;
		const char *sep = "";

		if (next_add_form(n, (enum next_form)f, &fill, &err) < 0) {
			rc = fail("next form: %s", err.msg);
			break;
		}
		if (seen & (1ull << n->variants[n->nvariants - 1].id))
			continue;
		seen |= 1ull << n->variants[n->nvariants - 1].id;
		v = next_to_json(n);
		call = v ? next_call(json_array_get(json_object_get(v, "variants"), n->nvariants - 1)) : NULL;
		if (call == NULL || !json_is_string(json_object_get(call, "tool")))
			rc = fail("variant %s has no MCP tool",
					  tbl_variant_wire[n->variants[n->nvariants - 1].id]);
		else {
			fprintf(out, "| `%s` | `%s` | ", json_string_value(json_object_get(call, "variant")),
				json_string_value(json_object_get(call, "tool")));
			json_object_foreach(json_object_get(call, "arguments"), key, x) {
				fprintf(out, "%s`%s`", sep, key);
				if (json_is_true(x) || (json_is_string(x) && strcmp(key, "source_choice") == 0))
					fprintf(out, ": `%s`", json_is_true(x) ? "true" : json_string_value(x));
				sep = ", ";
			}
			fprintf(out, "%s | ", *sep ? "" : "none");
			sep = "";
			json_object_foreach(json_object_get(call, "inputs"), key, x) {
				fprintf(out, "%s`%s` → `%s`", sep, key, json_string_value(x));
				sep = ", ";
			}
			if (json_object_get(call, "stdin")) {
				fprintf(out, "%sstdin → `%s`", sep,
					json_string_value(json_object_get(call, "stdin")));
				sep = ", ";
			}
			fprintf(out, "%s |\n", *sep ? "" : "none");
		}
		json_decref(call);
		json_decref(v);
	}
	next_free(n);
	return rc;
}

/* ---- references and spellings ---- */

/* The capabilities the template being expanded is installed for: its own
 * when it is a capability, those naming it when it is a reference, all for
 * the shared rules, none (no check) for another file. */
static unsigned template_caps(const char *src)
{
	const char *base = strrchr(src, '/');
	const struct adapter_reference *r;
	char name[80];

	base = base ? base + 1 : src;
	if (strcmp(base, "_common.md") == 0)
		return (1u << ADAPTER_NCAPS) - 1;
	if ((r = adapter_reference_find(base)) != NULL)
		return r->caps;
	for (size_t i = 0; i < ADAPTER_NCAPS; i++) {
		snprintf(name, sizeof(name), "%s.md", adapter_capabilities[i]);
		if (strcmp(base, name) == 0)
			return 1u << i;
	}
	return 0;
}

static const char *template_src(void);

/* A reference named by a text: it must be a row of the adapter's reference
 * table, installed beside every capability the text is installed for. */
static int ref_check(const char *arg)
{
	const struct adapter_reference *r = adapter_reference_find(arg);
	unsigned caps = template_caps(template_src());

	if (r == NULL)
		return fail("reference %s is not in the table of io/adapters/adapter.c", arg);
	if ((r->caps & caps) != caps)
		return fail("reference %s is not installed beside every capability "
				    "this text is installed for", arg);
	return 0;
}

/* In prose: `references/NAME`, which install writes as the path from the
 * repository root of the copy it installed (io/adapters/adapter_gen.c). */
static int ref(FILE *out, const char *arg)
{
	if (ref_check(arg) < 0)
		return -1;
	fprintf(out, "`references/%s`", arg);
	return 0;
}

/* In a command: ./references/NAME, which install writes the same way, for
 * a file a command reads (the query files of the source envelope). */
static int ref_path(FILE *out, const char *arg)
{
	if (ref_check(arg) < 0)
		return -1;
	fprintf(out, "./references/%s", arg);
	return 0;
}

static int target_kinds(FILE *out, const char *arg)
{
	(void)arg;
	for (size_t i = 0; outcome_target_kind_names[i]; i++)
		fprintf(out, "%s`%s`", i == 0 ? "" : outcome_target_kind_names[i + 1] ? ", " : " or ",
			outcome_target_kind_names[i]);
	return 0;
}

/* ---- the markers ---- */

#define OPEN "<!-- slipway:"
#define CLOSE " -->"
#define STR_(x) #x
#define STR(x) STR_(x)

/* The fix of source rejection code `arg`: its row in tables/error_help.def,
 * the text the documentation's error-code page prints for it (inline
 * markers would be expanded; the rows hold none, as the page prints them
 * as they are). */
static int source_fix(FILE *out, const char *arg)
{
	for (size_t i = 0; i < gencap_source_fix_count(); i++) {
		const char *code;
		int exit_status;
		const char *fix = gencap_source_fix_row(i, &code, &exit_status);

		if (strcmp(code, arg) == 0)
			return inline_text(out, fix, "tables/error_help.def");
	}
	return fail("source rejection code %s has no row in tables/error_help.def", arg);
}

/* Every resume_operation a resume can report, with what it tells a host
 * (tables/journal_events.def). */
static int resume_operations(FILE *out, const char *arg)
{
	(void)arg;
	for (int t = 0; t < TBL_JEVENT__COUNT; t++)
		if (tbl_jevent_resume_op[t])
			fprintf(out, "- `%s`: %s.\n", tbl_jevent_resume_op[t], tbl_jevent_resume_meaning[t]);
	return 0;
}

/* A block marker prints a section of whole lines and must stand alone on
 * its line, which the section replaces (indented like the marker); an inline
 * marker is replaced where it stands by a spelling. */
enum shape { BLOCK, INLINE };
enum takes { ARG_NONE, ARG_OPTIONAL, ARG_REQUIRED };

typedef int emit_fn(FILE *out, const char *arg);

/* Each row prints `emit`'s output, else `text`, else the number `num`. */
struct marker {
	const char *name;
	enum shape shape;
	enum takes arg;
	emit_fn *emit;
	const char *text;
	unsigned long num;
};

/* clang-format off */
static const struct marker markers[] = {
/*	  name                     shape   arg           emit                          text or num */
	/* the Outcome contract (io/wire/outcome.c, tables/) */
	{ "outcome-fields",        BLOCK,  ARG_NONE,     outcome_fields,               NULL, 0 },
	{ "allowed-values",        BLOCK,  ARG_NONE,     allowed_values,               NULL, 0 },
	{ "matrix",                BLOCK,  ARG_OPTIONAL, matrix,                       NULL, 0 },
	{ "suggestions",           BLOCK,  ARG_NONE,     suggestions,                  NULL, 0 },
	{ "example",               BLOCK,  ARG_REQUIRED, example,                      NULL, 0 },
	{ "scope-example",         BLOCK,  ARG_NONE,     scope_example,                NULL, 0 },
	{ "next-rules",            BLOCK,  ARG_NONE,     next_rules,                   NULL, 0 },
	{ "next-variants",         BLOCK,  ARG_NONE,     next_variants,                NULL, 0 },
	{ "mcp-variants",          BLOCK,  ARG_NONE,     mcp_variants,                 NULL, 0 },
	{ "resume-operations",     BLOCK,  ARG_NONE,     resume_operations,            NULL, 0 },
	/* the installed files (io/adapters/adapter.c) */
	{ "ref",                   INLINE, ARG_REQUIRED, ref,                          NULL, 0 },
	{ "ref-path",              INLINE, ARG_REQUIRED, ref_path,                     NULL, 0 },
	{ "target-kinds",          INLINE, ARG_NONE,     target_kinds,                 NULL, 0 },
	/* the Change Issue format and the source envelope (io/source/source.h) */
	{ "source-fix",            INLINE, ARG_REQUIRED, source_fix,                   NULL, 0 },
	{ "roles",                 INLINE, ARG_NONE,     gencap_source_roles,          NULL, 0 },
	{ "section-marker",        INLINE, ARG_REQUIRED, gencap_source_section_marker, NULL, 0 },
	{ "change-marker",         INLINE, ARG_NONE,     NULL, SOURCE_CHANGE_MARKER, 0 },
	{ "level-marker-prefix",   INLINE, ARG_NONE,     NULL, SOURCE_LEVEL_MARKER_PREFIX, 0 },
	{ "manifest-fence",        INLINE, ARG_NONE,     NULL, SOURCE_MANIFEST_FENCE, 0 },
	{ "manifest-close",        INLINE, ARG_NONE,     NULL, SOURCE_MANIFEST_CLOSE, 0 },
	{ "section-marker-prefix", INLINE, ARG_NONE,     NULL, SOURCE_SECTION_MARKER_PREFIX, 0 },
	{ "section-marker-suffix", INLINE, ARG_NONE,     NULL, SOURCE_SECTION_MARKER_SUFFIX, 0 },
	{ "comment-body-domain",   INLINE, ARG_NONE,     NULL, SOURCE_COMMENT_BODY_DOMAIN, 0 },
	{ "profile",               INLINE, ARG_NONE,     NULL, SOURCE_PROFILE, 0 },
	{ "key-pattern",           INLINE, ARG_NONE,     NULL, SOURCE_KEY_PATTERN, 0 },
	{ "source-version",        INLINE, ARG_NONE,     NULL, STR(SOURCE_VERSION), 0 },
	{ "manifest-version",      INLINE, ARG_NONE,     NULL, STR(SOURCE_MANIFEST_VERSION), 0 },
	{ "min-sections",          INLINE, ARG_NONE,     NULL, NULL, SOURCE_MIN_SECTIONS },
	{ "max-sections",          INLINE, ARG_NONE,     NULL, NULL, SOURCE_MAX_SECTIONS },
	{ "max-labels",            INLINE, ARG_NONE,     NULL, NULL, SOURCE_MAX_LABELS },
	{ "max-title-bytes",       INLINE, ARG_NONE,     NULL, NULL, SOURCE_MAX_TITLE_BYTES },
	{ "max-section-bytes",     INLINE, ARG_NONE,     NULL, NULL, SOURCE_MAX_SECTION_BYTES },
	{ "max-bundle-bytes",      INLINE, ARG_NONE,     NULL, NULL, SOURCE_MAX_BUNDLE_BYTES },
	{ "max-manifest-bytes",    INLINE, ARG_NONE,     NULL, NULL, SOURCE_MAX_MANIFEST_BYTES },
	{ "max-file-bytes",        INLINE, ARG_NONE,     NULL, NULL, SOURCE_MAX_FILE_BYTES },
};
/* clang-format on */

#define NMARKERS (sizeof(markers) / sizeof(markers[0]))


static const char *template_src(void)
{
	return at.src;
}

static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gendocs capability: %s:", at.src);
	if (at.line)
		fprintf(stderr, "%zu:", at.line);
	fputc(' ', stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Reads the marker that starts at `p` and ends before `lim` (the end of its
 * line): its row in *out, its argument in `arg` ("" if none) and, in *end,
 * the first byte after it.  -1 (reported) when it is unclosed, unknown or
 * has the wrong arguments. */
static int parse_marker(const struct marker **out, char *arg, size_t argsz,
			const char **end, const char *p, const char *lim)
{
	const char *name = p + strlen(OPEN), *close, *sp;
	size_t nlen, alen;

	*out = NULL;
	arg[0] = '\0';
	close = memmem(name, (size_t)(lim - name), CLOSE, strlen(CLOSE));
	if (close == NULL)
		return fail("unclosed marker: no \"%s\" after \"%s\" on the same line",
				    CLOSE, OPEN);
	*end = close + strlen(CLOSE);
	sp = memchr(name, ' ', (size_t)(close - name));
	nlen = (size_t)((sp ? sp : close) - name);
	for (size_t i = 0; i < NMARKERS && *out == NULL; i++)
		if (strlen(markers[i].name) == nlen && memcmp(markers[i].name, name, nlen) == 0)
			*out = &markers[i];
	if (*out == NULL)
		return fail("unknown marker %.*s%.*s%s", (int)strlen(OPEN), OPEN,
				    (int)(close - name), name, CLOSE);
	if (sp == NULL)
		return (*out)->arg == ARG_REQUIRED ?
			fail("marker %s needs an argument", (*out)->name) : 0;
	alen = (size_t)(close - sp - 1);
	if ((*out)->arg == ARG_NONE)
		return fail("marker %s takes no argument", (*out)->name);
	if (alen == 0 || alen >= argsz || memchr(sp + 1, ' ', alen))
		return fail("marker %s takes one argument without spaces", (*out)->name);
	memcpy(arg, sp + 1, alen);
	arg[alen] = '\0';
	return 0;
}

static int emit(FILE *out, const struct marker *m, const char *arg)
{
	if (m->emit)
		return m->emit(out, *arg ? arg : NULL);
	if (m->text)
		fputs(m->text, out);
	else
		fprintf(out, "%lu", m->num);
	return 0;
}

/* Copies [p, lim) to `out` with every inline marker expanded. */
static int expand_inline(FILE *out, const char *p, const char *lim)
{
	const struct marker *m;
	const char *open, *end;
	char arg[64];

	while ((open = memmem(p, (size_t)(lim - p), OPEN, strlen(OPEN))) != NULL) {
		fwrite(p, 1, (size_t)(open - p), out);
		if (parse_marker(&m, arg, sizeof(arg), &end, open, lim) < 0)
			return -1;
		if (m->shape == BLOCK)
			return fail("marker %s prints a section and must stand alone on its line",
					    m->name);
		if (emit(out, m, arg) < 0)
			return -1;
		p = end;
	}
	fwrite(p, 1, (size_t)(lim - p), out);
	return 0;
}

static int inline_text(FILE *out, const char *text, const char *src)
{
	struct where saved = at;
	int rc;

	at.src = src;
	at.line = 0;
	rc = expand_inline(out, text, text + strlen(text));
	at = saved;
	return rc;
}

/* Prints block marker `m`'s section with each non-empty line indented by
 * `indent` spaces (a marker inside a list item). */
static int expand_block(FILE *out, const struct marker *m, const char *arg, size_t indent)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc;

	if (mem == NULL)
		return fail("cannot expand %s: out of memory", m->name);
	rc = emit(mem, m, arg);
	if (fclose(mem) != 0)
		rc = fail("cannot expand %s: out of memory", m->name);
	for (char *p = text, *nl; rc == 0 && p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl != p)
			fprintf(out, "%*s", (int)indent, "");
		fprintf(out, "%.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
		if (nl == NULL)
			break;
	}
	free(text);
	return rc;
}

/* Expands one template line (`len` bytes, its line break included). */
static int expand_line(FILE *out, const char *line, size_t len)
{
	size_t indent = strspn(line, " ");
	const char *lim = line + len - (len && line[len - 1] == '\n');
	const struct marker *m;
	const char *end;
	char arg[64];

	if (strncmp(line + indent, OPEN, strlen(OPEN)) == 0) {
		if (parse_marker(&m, arg, sizeof(arg), &end, line + indent, lim) < 0)
			return -1;
		if (m->shape == BLOCK && end != lim)
			return fail("marker %s prints a section and must stand alone on its line",
					    m->name);
		if (m->shape == BLOCK)
			return expand_block(out, m, arg, indent);
	}
	if (expand_inline(out, line, lim) < 0)
		return -1;
	fwrite(lim, 1, (size_t)(line + len - lim), out);
	return 0;
}

/* Writes `len` bytes to `path` through a temporary file and a rename, so
 * that `path` is either complete or untouched. */
static int write_file(const char *path, const char *text, size_t len)
{
	size_t n = strlen(path) + sizeof(".tmp");
	char *tmp = malloc(n);
	FILE *f = NULL;
	int rc = -1;

	if (tmp == NULL)
		goto out;
	snprintf(tmp, n, "%s.tmp", path);
	if ((f = fopen(tmp, "wb")) == NULL)
		goto out;
	if (fwrite(text, 1, len, f) == len && fflush(f) == 0)
		rc = 0;
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc < 0)
		remove(tmp);
out:
	if (rc < 0)
		fprintf(stderr, "gendocs capability: cannot write %s\n", path);
	free(tmp);
	return rc;
}

int gencap_expand(const char *in, const char *out)
{
	FILE *f = NULL, *mem = NULL;
	char *line = NULL, *text = NULL;
	size_t cap = 0, len = 0;
	ssize_t n;
	int rc = gencap_source_check_fixes();

	at.src = in;
	at.line = 0;
	if ((f = fopen(in, "r")) == NULL) {
		fprintf(stderr, "gendocs capability: cannot open %s\n", in);
		rc = -1;
		goto out;
	}
	if ((mem = open_memstream(&text, &len)) == NULL) {
		rc = fail("out of memory");
		goto out;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		at.line++;
		if (expand_line(mem, line, (size_t)n) < 0)
			rc = -1;
	}
	if (ferror(f))
		rc = fail("read error");
	if (fclose(mem) != 0)
		rc = fail("out of memory");
	mem = NULL;
	if (rc < 0)
		goto out;
	if (out)
		rc = write_file(out, text, len);
	else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
		rc = -1;
out:
	if (f)
		fclose(f);
	free(line);
	free(text);
	return rc < 0 ? 1 : 0;
}
