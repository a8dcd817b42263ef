/* The typed `next`: the exact argv and inputs the real rules give each Run
 * situation (tbl_next_rules through fsm_next, MAP §4.2) and every form, the
 * Validate rules one broken rule at a time, Resolve, and a JSON dump the
 * e2e schema check reads (tests/e2e/test_next_schema.py). */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "io/util/json.h"
#include "io/wire/next.h"
#include "io/git/vcs.h"
#include "tests/support/tmp.h"

#define ID "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define W "/tmp/ws root/界"
#define R "run-1"
#define A "act-1"
#define C "cand-1"

TestSuite(io_next);

struct want_input {
	const char *name, *type, *flag;
	int required;
	const char *choices;	/* "a|b" or NULL */
};

struct want_variant {
	const char *id;
	size_t argc;
	const char *argv[13];
	struct want_input in[2];
};

static const struct want_input BUDGET = { "budget", "string", "--budget", 0, NULL };
static const struct want_input TEXT = { "text_file", "path", "--text-file", 1, NULL };
static const struct want_input SOURCE = { "source_file", "path", "--source-file", 1, NULL };
static const struct want_input GOAL = { "goal_file", "path", "--goal-file", 1, NULL };

#define SKIP { "skip-action", 9, { "slipway", "protocol", "skip", "--run", R, "--action", A, "--root", W }, { { 0 } } }

static void expect_variant(const struct next_variant *v,
			   const struct want_variant *w)
{
	size_t nin = 0;

	cr_assert_str_eq(tbl_variant_wire[v->id], w->id);
	cr_assert_eq(v->argc, w->argc, "%s: argc %zu, want %zu", w->id,
		     v->argc, w->argc);
	for (size_t i = 0; i < w->argc; i++)
		cr_assert_str_eq(v->argv[i], w->argv[i], "%s argv[%zu]", w->id, i);
	cr_assert_null(v->argv[v->argc]);
	while (nin < 2 && w->in[nin].name)
		nin++;
	cr_assert_eq(v->ninputs, nin, "%s: %zu inputs", w->id, v->ninputs);
	for (size_t i = 0; i < nin; i++) {
		const struct next_input *in = &v->inputs[i];
		char joined[64] = "";

		cr_assert_str_eq(in->name, w->in[i].name);
		cr_assert_str_eq(tbl_input_wire[in->type], w->in[i].type);
		cr_assert_str_eq(in->flag, w->in[i].flag);
		cr_assert_eq(!!in->required, w->in[i].required, "%s.%s", w->id, in->name);
		if (w->in[i].choices == NULL) {
			cr_assert_null(in->choices);
			continue;
		}
		for (size_t c = 0; in->choices && in->choices[c]; c++) {
			if (c)
				strncat(joined, "|", sizeof(joined) - strlen(joined) - 1);
			strncat(joined, in->choices[c], sizeof(joined) - strlen(joined) - 1);
		}
		cr_assert_str_eq(joined, w->in[i].choices);
	}
}

static void expect_next(const struct next *n, const char *op,
			const struct want_variant *w, size_t count)
{
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_not_null(n);
	cr_assert_str_eq(tbl_nextop_wire[n->operation], op);
	cr_assert_eq(n->nvariants, count);
	for (size_t i = 0; i < count; i++)
		expect_variant(&n->variants[i], &w[i]);
	cr_assert_eq(next_validate(n, &err), 0, "%s", err.msg);
}

/* A Run in state `st` with the given fields (struct fsm_run designators). */
#define RUN(st, ...) ((struct fsm_run){ .state = FSM_ST_##st, __VA_ARGS__ })
#define IMPL .action = FSM_KIND_IMPLEMENT

static const struct next_fill FILL = { .run_id = R, .action_id = A, .scope_digest = DIGEST,
				       .candidate_id = C };

/* The next the rules give a Run in situation `m`, filled from `fill`. */
static int by_rules_fill(struct next **n, struct fsm_run m, const struct next_fill *fill,
			 struct sw_error *err)
{
	const struct fsm_next_rule *rule = fsm_next(&m, NULL);

	cr_assert_not_null(rule, "no next rule for state %s", tbl_state_name[m.state]);
	return next_from_rule(n, rule, ID, W, fill, err);
}

static int by_rules(struct next **n, struct fsm_run m, struct sw_error *err)
{
	return by_rules_fill(n, m, &FILL, err);
}

Test(io_next, action_offers_file_then_stdin_then_skip)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	const struct want_variant w[] = {
		{ "submit-outcome-file", 9, { "slipway", "protocol", "submit", "--run", R, "--action", A, "--root", W },
		  { { "outcome_file", "path", "--outcome-file", 1, NULL } } },
		{ "submit-outcome-stdin", 10, { "slipway", "protocol", "submit", "--run", R, "--action", A, "--root", W, "--outcome-stdin" }, { { 0 } } },
		SKIP,
	};

	cr_assert_eq(by_rules(&n, RUN(ACTIVE, IMPL), &err), 0, "%s", err.msg);
	cr_assert_str_eq(n->identity, ID);
	cr_assert_str_eq(n->root, W);
	expect_next(n, "action", w, 3);
	next_free(n);
}

Test(io_next, decision_offers_answer_then_skip)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	const struct want_variant w[] = {
		{ "answer-decision", 9, { "slipway", "protocol", "answer", "--run", R, "--action", A, "--root", W }, { TEXT } },
		SKIP,
	};

	cr_assert_eq(by_rules(&n, RUN(PAUSED_DECISION, IMPL), &err), 0, "%s", err.msg);
	expect_next(n, "answer", w, 2);
	next_free(n);
}

Test(io_next, destructive_offers_confirm_decline_skip)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	const struct want_variant w[] = {
		{ "confirm-destructive", 12, { "slipway", "protocol", "answer", "--run", R, "--action", A, "--root", W,
					       "--confirm-destructive", "--scope-sha256", DIGEST },
		  { { "text_file", "path", "--text-file", 0, NULL } } },
		{ "decline-or-feedback", 9, { "slipway", "protocol", "answer", "--run", R, "--action", A, "--root", W }, { TEXT } },
		SKIP,
	};

	cr_assert_eq(by_rules(&n, RUN(PAUSED_DESTRUCTIVE, IMPL), &err), 0, "%s", err.msg);
	expect_next(n, "answer", w, 3);
	next_free(n);
}

Test(io_next, destructive_rejects_a_malformed_scope_digest)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = (struct next *)1;
	struct next_fill fill = FILL;

	fill.scope_digest = "sha256:ABC";
	cr_assert_eq(by_rules_fill(&n, RUN(PAUSED_DESTRUCTIVE, IMPL), &fill, &err), SW_EINVAL);
	cr_assert_null(n);
	cr_assert(strstr(err.msg, "placeholder") || strstr(err.msg, "lowercase sha256"), "%s", err.msg);
}

Test(io_next, resume_ad_hoc_and_issue_backed)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	const struct want_variant adhoc[] = {
		{ "resume-ad-hoc", 6, { "slipway", "protocol", "resume", R, "--root", W }, { BUDGET } },
	};
	const struct want_variant issue[] = {
		{ "refresh-source", 6, { "slipway", "protocol", "resume", R, "--root", W }, { SOURCE, BUDGET } },
		{ "use-pinned-source", 7, { "slipway", "protocol", "resume", R, "--root", W, "--use-pinned-source" }, { BUDGET } },
	};

	cr_assert_eq(by_rules(&n, RUN(STOPPED), &err), 0, "%s", err.msg);
	expect_next(n, "resume", adhoc, 1);
	next_free(n);
	/* A budget pause offers the same choices. */
	cr_assert_eq(by_rules(&n, RUN(PAUSED_BUDGET), &err), 0, "%s", err.msg);
	expect_next(n, "resume", adhoc, 1);
	next_free(n);
	cr_assert_eq(by_rules(&n, RUN(STOPPED, .issue_backed = 1), &err), 0, "%s", err.msg);
	expect_next(n, "resume", issue, 2);
	next_free(n);
}

Test(io_next, environment_pause_appends_skip_to_resume_variants)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	const struct want_variant adhoc[] = {
		{ "resume-ad-hoc", 6, { "slipway", "protocol", "resume", R, "--root", W }, { BUDGET } },
		SKIP,
	};
	const struct want_variant issue[] = {
		{ "refresh-source", 6, { "slipway", "protocol", "resume", R, "--root", W }, { SOURCE, BUDGET } },
		{ "use-pinned-source", 7, { "slipway", "protocol", "resume", R, "--root", W, "--use-pinned-source" }, { BUDGET } },
		SKIP,
	};

	cr_assert_eq(by_rules(&n, RUN(PAUSED_ENVIRONMENT, IMPL), &err), 0, "%s", err.msg);
	expect_next(n, "resume", adhoc, 2);
	next_free(n);
	cr_assert_eq(by_rules(&n, RUN(PAUSED_ENVIRONMENT, IMPL, .issue_backed = 1), &err), 0, "%s", err.msg);
	expect_next(n, "resume", issue, 3);
	next_free(n);
}

Test(io_next, source_candidate_offers_adopt_only_when_valid)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	const struct want_variant w[] = {
		{ "keep-pinned", 10, { "slipway", "protocol", "resume", R, "--root", W, "--source-choice", "pinned", "--candidate", C }, { BUDGET } },
		{ "adopt", 10, { "slipway", "protocol", "resume", R, "--root", W, "--source-choice", "adopt", "--candidate", C }, { BUDGET } },
	};

	cr_assert_eq(by_rules(&n, RUN(STOPPED, .issue_backed = 1, .candidate = 1), &err), 0, "%s", err.msg);
	expect_next(n, "resume", w, 1);
	next_free(n);
	/* A waiting candidate comes first even in a decision pause. */
	cr_assert_eq(by_rules(&n, RUN(PAUSED_DECISION, .issue_backed = 1, .candidate = 1,
				      .candidate_valid = 1), &err), 0, "%s", err.msg);
	expect_next(n, "resume", w, 2);
	next_free(n);
}

Test(io_next, refresh_source_fixes_budget_in_argv_or_offers_it)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	const struct want_variant fixed[] = {
		{ "refresh-source", 8, { "slipway", "protocol", "resume", R, "--root", W, "--budget", "17" }, { SOURCE } },
	};
	const struct want_variant open[] = {
		{ "refresh-source", 6, { "slipway", "protocol", "resume", R, "--root", W }, { SOURCE, BUDGET } },
	};

	struct next_fill fill = { .run_id = R, .budget = 17 };

	cr_assert_eq(next_build_form(&n, NEXT_FORM_REFRESH_SOURCE_BUDGET, ID, W, &fill, &err), 0, "%s", err.msg);
	expect_next(n, "resume", fixed, 1);
	next_free(n);
	cr_assert_eq(next_build_form(&n, NEXT_FORM_REFRESH_SOURCE, ID, W, &fill, &err), 0, "%s", err.msg);
	expect_next(n, "resume", open, 1);
	next_free(n);
	fill.budget = 1001;
	cr_assert_eq(next_build_form(&n, NEXT_FORM_REFRESH_SOURCE_BUDGET, ID, W, &fill, &err), SW_EINVAL);
	cr_assert_null(n);
}

Test(io_next, start_puts_no_review_last_and_never_embeds_the_goal)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	const struct want_variant retry[] = {
		{ "retry-run", 7, { "slipway", "run", "--budget", "4", "--json", "--root", W }, { GOAL } },
	};
	const struct want_variant source[] = {
		{ "start-with-source", 8, { "slipway", "run", "--budget", "1000", "--json", "--root", W, "--no-review" }, { GOAL, SOURCE } },
	};

	cr_assert_eq(next_build_start(&n, ID, W, 4, 0, 0, &err), 0, "%s", err.msg);
	expect_next(n, "start", retry, 1);
	next_free(n);
	cr_assert_eq(next_build_start(&n, ID, W, 1000, 1, 1, &err), 0, "%s", err.msg);
	expect_next(n, "start", source, 1);
	next_free(n);
	cr_assert_eq(next_build_start(&n, ID, W, 0, 0, 0, &err), SW_EINVAL);
	cr_assert_null(n);
}

Test(io_next, every_command_form_has_its_exact_argv)
{
	static const struct {
		enum next_form form;
		struct want_variant w;
	} rows[] = {
		{ NEXT_FORM_INSPECT_RUN, { "inspect-run", 5, { "slipway", "status", R, "--root", W }, { { 0 } } } },
		{ NEXT_FORM_INSPECT_RUNS, { "inspect-runs", 4, { "slipway", "status", "--root", W }, { { 0 } } } },
		{ NEXT_FORM_LIST_RUNS, { "list-runs", 4, { "slipway", "status", "--root", W }, { { 0 } } } },
		{ NEXT_FORM_FOREIGN_RUN, { "inspect-run-in-its-workspace", 5, { "slipway", "status", R, "--root", W }, { { 0 } } } },
		{ NEXT_FORM_MISMATCHED_WORKSPACE, { "inspect-run-in-its-workspace", 4, { "slipway", "status", "--root", W }, { { 0 } } } },
		{ NEXT_FORM_REFRESH_ADAPTERS, { "refresh-adapters", 5, { "slipway", "install", "--refresh", "--root", W }, { { 0 } } } },
		{ NEXT_FORM_RUN_DOCTOR, { "run-doctor", 4, { "slipway", "doctor", "--root", W }, { { 0 } } } },
		{ NEXT_FORM_RETRY_DOCTOR, { "retry-doctor", 5, { "slipway", "doctor", "--root", W, "--json" }, { { 0 } } } },
		{ NEXT_FORM_RETRY_LIST, { "retry-list", 4, { "slipway", "list", "--root", W }, { { 0 } } } },
		{ NEXT_FORM_LIST_HOST_ADAPTERS, { "list-host-adapters", 4, { "slipway", "list", "--root", W }, { { 0 } } } },
		{ NEXT_FORM_INSPECT_HOST_ADAPTERS, { "inspect-host-adapters", 4, { "slipway", "list", "--root", W }, { { 0 } } } },
		{ NEXT_FORM_INSTALL_KIRO, { "install-kiro", 6, { "slipway", "install", "--root", W, "--tool", "kiro" },
					    { { "surface", "enum", "--surface", 1, "ide|cli" } } } },
	};
	struct next_fill fill = { .run_id = R };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		struct next *n = NULL;

		cr_assert_eq(next_build_form(&n, rows[i].form, ID, W, &fill, &err), 0,
			     "%s: %s", rows[i].w.id, err.msg);
		expect_next(n, "command", &rows[i].w, 1);
		next_free(n);
	}
}

Test(io_next, single_variant_forms_take_the_operation_of_their_family)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	struct next_fill fill = { .run_id = R, .action_id = A };

	cr_assert_eq(next_build_form(&n, NEXT_FORM_SUBMIT_STDIN, ID, W, &fill, &err), 0, "%s", err.msg);
	cr_assert_str_eq(tbl_nextop_wire[n->operation], "action");
	next_free(n);
	cr_assert_eq(next_form_operation(NEXT_FORM_RETRY_RUN), TBL_NEXTOP_START);
	cr_assert_eq(next_form_variant(NEXT_FORM_FOREIGN_RUN), TBL_VARIANT_INSPECT_RUN_IN_WORKSPACE);
	cr_assert_eq(next_form_variant(NEXT_FORM__COUNT), TBL_VARIANT_INVALID);
	/* skip-action alone is never a command next, and no form lacks a slot. */
	cr_assert_eq(next_build_form(&n, NEXT_FORM_INSPECT_RUN, ID, W, NULL, &err), SW_EINVAL);
	cr_assert_null(n);
}

Test(io_next, rule_nexts_reject_values_that_break_the_grammar)
{
	const struct fsm_next_rule *action = fsm_next(&RUN(ACTIVE, IMPL), NULL);
	const struct fsm_next_rule *resume = fsm_next(&RUN(STOPPED), NULL);
	const struct fsm_next_rule *env = fsm_next(&RUN(PAUSED_ENVIRONMENT, IMPL), NULL);
	struct next_fill fill = FILL;
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;

	cr_assert_eq(next_from_rule(&n, action, ID, "relative/root", &fill, &err), SW_EINVAL);
	sw_error_clear(&err);
	fill.run_id = "--run";
	cr_assert_eq(next_from_rule(&n, action, ID, W, &fill, &err), SW_EINVAL);
	sw_error_clear(&err);
	fill = FILL;
	fill.action_id = "<action>";
	cr_assert_eq(next_from_rule(&n, action, ID, W, &fill, &err), SW_EINVAL);
	cr_assert(strstr(err.msg, "placeholder"), "%s", err.msg);
	sw_error_clear(&err);
	cr_assert_eq(next_from_rule(&n, resume, "sha256:short", W, &FILL, &err), SW_EINVAL);
	sw_error_clear(&err);
	fill = FILL;
	fill.run_id = "";
	cr_assert_eq(next_from_rule(&n, resume, ID, W, &fill, &err), SW_EINVAL);
	sw_error_clear(&err);
	fill = FILL;
	fill.action_id = NULL;	/* skip-action needs the Action */
	cr_assert_eq(next_from_rule(&n, env, ID, W, &fill, &err), SW_EINVAL);
	cr_assert_null(n);
}

Test(io_next, discovered_identity_of_an_unusable_root_is_the_unavailable_one)
{
	char dir[4096];
	char want[SW_DIGEST_LEN];
	char *clean = NULL, *messy = NULL;
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;

	test_tmp_name(dir, sizeof(dir), "next-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(vcs_unavailable_identity(want, &clean, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(next_build_form(&n, NEXT_FORM_RETRY_DOCTOR, NULL, dir, NULL, &err), 0, "%s", err.msg);
	cr_assert_str_eq(n->identity, want);
	cr_assert_str_eq(n->root, clean);
	next_free(n);
	/* A root spelled differently from its clean form does not validate. */
	messy = sw_asprintf("%s/.", dir);
	cr_assert_eq(next_build_form(&n, NEXT_FORM_RETRY_DOCTOR, NULL, messy, NULL, &err), SW_EINVAL);
	cr_assert(strstr(err.msg, "preserve"), "%s", err.msg);
	sw_free(messy);
	sw_free(clean);
	rmdir(dir);
}

/* ---- Validate: one broken rule at a time --------------------------------- */

static struct next *valid_resume(void)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;

	cr_assert_eq(by_rules(&n, RUN(STOPPED), &err), 0, "%s", err.msg);
	return n;
}

static void set_arg(struct next_variant *v, size_t i, const char *s)
{
	sw_free(v->argv[i]);
	v->argv[i] = sw_strdup(s);
}

static void set_argv(struct next_variant *v, const char *const *argv)
{
	for (size_t i = 0; i < v->argc; i++)
		sw_free(v->argv[i]);
	sw_free(v->argv);
	v->argc = 0;
	while (argv[v->argc])
		v->argc++;
	v->argv = sw_calloc(v->argc + 1, sizeof(char *));
	for (size_t i = 0; i < v->argc; i++)
		v->argv[i] = sw_strdup(argv[i]);
}

static void push_arg(struct next_variant *v, const char *s)
{
	v->argv = sw_realloc(v->argv, (v->argc + 2) * sizeof(char *));
	v->argv[v->argc++] = sw_strdup(s);
	v->argv[v->argc] = NULL;
}

static void drop_inputs(struct next_variant *v)
{
	for (size_t i = 0; i < v->ninputs; i++) {
		sw_free(v->inputs[i].name);
		sw_free(v->inputs[i].flag);
		for (size_t c = 0; v->inputs[i].choices && v->inputs[i].choices[c]; c++)
			sw_free(v->inputs[i].choices[c]);
		sw_free(v->inputs[i].choices);
	}
	v->ninputs = 0;
}

static void add_input(struct next_variant *v, const char *name,
		      enum tbl_input type, const char *flag, int required,
		      const char *const *choices)
{
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(next_variant_add_input(v, name, type, flag, required, choices, &err), 0);
}

static void expect_rejected(struct next *n, const char *want, const char *what)
{
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(next_validate(n, &err), SW_EINVAL, "%s: accepted", what);
	cr_assert(strstr(err.msg, want) != NULL, "%s: \"%s\" lacks \"%s\"",
		  what, err.msg, want);
	next_free(n);
}

Test(io_next, validate_rejects_broken_shape_rules)
{
	struct next *n;
	struct sw_error err = SW_ERROR_INIT;
	static const char *const none_choices[] = { NULL };
	static const char *const dup_choices[] = { "a", "a", NULL };
	static const char *const ab[] = { "a", "b", NULL };

	n = valid_resume();
	cr_assert_eq(next_validate(n, &err), 0, "%s", err.msg);
	next_free(n);

	n = valid_resume(); memcpy(n->identity, "sha256:A", 9);
	expect_rejected(n, "lowercase sha256", "identity");
	n = valid_resume(); n->operation = TBL_NEXTOP_INVALID;
	expect_rejected(n, "unsupported", "operation");
	n = valid_resume(); n->operation = TBL_NEXTOP_NONE;
	expect_rejected(n, "none cannot contain", "none with variants");
	n = valid_resume(); n->nvariants = 0;
	cr_assert_eq(next_validate(n, &err), SW_EINVAL);
	cr_assert(strstr(err.msg, "at least one"), "%s", err.msg);
	sw_error_clear(&err);
	n->nvariants = 1;
	next_free(n);
	n = valid_resume(); sw_free(n->root); n->root = sw_strdup("rel");
	expect_rejected(n, "absolute", "relative next root");
	n = valid_resume(); n->variants[0].id = TBL_VARIANT_INVALID;
	expect_rejected(n, "kebab-case", "empty id");
	{
		struct sw_error e2 = SW_ERROR_INIT;

		n = valid_resume();
		next_add_variant(n, TBL_VARIANT_RESUME_AD_HOC,
				 (const char *const *)n->variants[0].argv, NULL, &e2);
		add_input(&n->variants[1], "budget", TBL_INPUT_STRING, "--budget", 0, NULL);
		expect_rejected(n, "duplicated", "duplicate id");
	}
	n = valid_resume(); set_argv(&n->variants[0], (const char *const[]){ "slipway", "status", NULL });
	expect_rejected(n, "exactly one --root", "no root");
	n = valid_resume(); push_arg(&n->variants[0], "--root"); push_arg(&n->variants[0], W);
	expect_rejected(n, "exactly one --root", "two roots");
	n = valid_resume(); set_arg(&n->variants[0], 5, "/elsewhere");
	expect_rejected(n, "preserve", "wrong root");
	n = valid_resume(); sw_free(n->root); n->root = NULL; set_arg(&n->variants[0], 5, "rel/x");
	expect_rejected(n, "absolute", "relative argv root");
	n = valid_resume(); set_arg(&n->variants[0], 0, "git");
	expect_rejected(n, "begin with slipway", "argv[0]");
	n = valid_resume(); set_arg(&n->variants[0], 3, "");
	expect_rejected(n, "non-empty", "empty element");
	n = valid_resume(); set_arg(&n->variants[0], 3, "run\xff");
	expect_rejected(n, "UTF-8", "invalid UTF-8");
	n = valid_resume(); push_arg(&n->variants[0], "<file>");
	expect_rejected(n, "placeholder", "placeholder");
	n = valid_resume(); push_arg(&n->variants[0], " \"FILE\" ");
	expect_rejected(n, "placeholder", "quoted FILE");
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "Bad", TBL_INPUT_STRING, "--bad", 0, NULL);
	expect_rejected(n, "snake-case", "input name");
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "v", TBL_INPUT_STRING, "-v", 0, NULL);
	expect_rejected(n, "invalid flag", "input flag");
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "v", TBL_INPUT_STRING, "--v", 0, NULL);
	add_input(&n->variants[0], "v", TBL_INPUT_PATH, "--w", 0, NULL);
	expect_rejected(n, "duplicated", "input name twice");
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "v", TBL_INPUT_STRING, "--v", 0, NULL);
	add_input(&n->variants[0], "w", TBL_INPUT_PATH, "--v", 0, NULL);
	expect_rejected(n, "duplicated", "input flag twice");
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "root", TBL_INPUT_PATH, "--root", 0, NULL);
	expect_rejected(n, "already present", "input flag in argv");
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "v", TBL_INPUT_STRING, "--v", 0, none_choices);
	expect_rejected(n, "only permits choices", "choices on string");
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "v", TBL_INPUT_ENUM, "--v", 0, none_choices);
	expect_rejected(n, "nonempty choices", "empty enum");
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "v", TBL_INPUT_ENUM, "--v", 0, dup_choices);
	expect_rejected(n, "duplicate choice", "repeated choice");
	/* A well-formed but foreign input still breaks the resume form. */
	n = valid_resume(); drop_inputs(&n->variants[0]);
	add_input(&n->variants[0], "v", TBL_INPUT_ENUM, "--v", 0, ab);
	expect_rejected(n, "is not resume-ad-hoc's optional string input --budget", "foreign input");
}

static struct next *single(enum tbl_nextop op, enum tbl_variant id,
			   const char *const *argv)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;

	cr_assert_eq(next_new(&n, op, ID, W, &err), 0);
	cr_assert_eq(next_add_variant(n, id, argv, NULL, &err), 0);
	return n;
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define SUBMIT "slipway", "protocol", "submit", "--run", R, "--action", A, "--root", W
#define ANSWER "slipway", "protocol", "answer", "--run", R, "--action", A, "--root", W
#define RESUME "slipway", "protocol", "resume", R, "--root", W

Test(io_next, validate_rejects_broken_operation_grammar)
{
	struct next *n;

	/* skip-action */
	n = single(TBL_NEXTOP_COMMAND, TBL_VARIANT_SKIP_ACTION, ARGV("slipway", "protocol", "skip", "--run", R, "--action", A, "--root", W));
	expect_rejected(n, "skip-action is not valid under operation command", "skip in command");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SKIP_ACTION, ARGV("slipway", "protocol", "skip", "--run", R, "--action", A, "--root", W, "--extra"));
	expect_rejected(n, "base_argv[9] \"--extra\" is not in the skip-action form", "skip with extra argv");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SKIP_ACTION, ARGV("slipway", "protocol", "skip", "--run", R, "--action", A, "--root", W));
	add_input(&n->variants[0], "text_file", TBL_INPUT_PATH, "--text-file", 0, NULL);
	expect_rejected(n, "skip-action takes 0 input(s), not 1", "skip with input");

	/* action */
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SUBMIT_OUTCOME_STDIN, ARGV(SUBMIT));
	expect_rejected(n, "base_argv[9] is missing (submit-outcome-stdin expects --outcome-stdin)", "no outcome mode");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SUBMIT_OUTCOME_STDIN, ARGV(SUBMIT, "--outcome-stdin", "--bogus"));
	expect_rejected(n, "base_argv[10] \"--bogus\" is not in the submit-outcome-stdin form", "unknown flag");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SUBMIT_OUTCOME_STDIN, ARGV(SUBMIT, "--outcome-stdin", "--outcome-stdin"));
	expect_rejected(n, "base_argv[10] \"--outcome-stdin\" is not in the submit-outcome-stdin form", "repeated flag");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SUBMIT_OUTCOME_FILE, ARGV(SUBMIT));
	add_input(&n->variants[0], "outcome_file", TBL_INPUT_STRING, "--outcome-file", 1, NULL);
	expect_rejected(n, "inputs[0] is not submit-outcome-file's required path input --outcome-file", "outcome file as string");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SUBMIT_OUTCOME_FILE, ARGV(SUBMIT));
	add_input(&n->variants[0], "outcome_stdin", TBL_INPUT_STRING, "--outcome-stdin", 1, NULL);
	expect_rejected(n, "inputs[0] is not submit-outcome-file's required path input --outcome-file", "boolean as input");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SUBMIT_OUTCOME_FILE, ARGV(SUBMIT, "--outcome-file", "/x"));
	expect_rejected(n, "base_argv[9] \"--outcome-file\" is not in the submit-outcome-file form", "file fixed in argv");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_ANSWER_DECISION, ARGV(SUBMIT, "--outcome-stdin"));
	expect_rejected(n, "answer-decision is not valid under operation action", "foreign id");
	n = single(TBL_NEXTOP_ACTION, TBL_VARIANT_SUBMIT_OUTCOME_STDIN, ARGV("slipway", "protocol", "submit", "--run", "--x", "--action", A, "--root", W, "--outcome-stdin"));
	expect_rejected(n, "base_argv[4] must be an id, not a flag (submit-outcome-stdin expects run)", "flag-like run id");

	/* answer */
	n = single(TBL_NEXTOP_ANSWER, TBL_VARIANT_ANSWER_DECISION, ARGV("slipway", "protocol", "answer", "--bogus", "x", "--root", W));
	expect_rejected(n, "base_argv[3] differs from the form (answer-decision expects --run)", "prefix-only argv");
	n = single(TBL_NEXTOP_ANSWER, TBL_VARIANT_CONFIRM_DESTRUCTIVE, ARGV(ANSWER, "--confirm-destructive"));
	expect_rejected(n, "base_argv[10] is missing (confirm-destructive expects --scope-sha256)", "confirm without scope");
	n = single(TBL_NEXTOP_ANSWER, TBL_VARIANT_CONFIRM_DESTRUCTIVE, ARGV(ANSWER, "--scope-sha256", DIGEST));
	expect_rejected(n, "base_argv[9] differs from the form (confirm-destructive expects --confirm-destructive)", "scope without confirm");
	n = single(TBL_NEXTOP_ANSWER, TBL_VARIANT_CONFIRM_DESTRUCTIVE, ARGV(ANSWER, "--confirm-destructive", "--scope-sha256", "sha256:BAD"));
	expect_rejected(n, "base_argv[11] must be a lowercase sha256 digest (confirm-destructive expects digest)", "bad scope");
	n = single(TBL_NEXTOP_ANSWER, TBL_VARIANT_CONFIRM_DESTRUCTIVE, ARGV(ANSWER, "--confirm-destructive"));
	add_input(&n->variants[0], "scope", TBL_INPUT_STRING, "--scope-sha256", 1, NULL);
	expect_rejected(n, "base_argv[10] is missing (confirm-destructive expects --scope-sha256)", "scope input as string");
	n = single(TBL_NEXTOP_ANSWER, TBL_VARIANT_ANSWER_DECISION, ARGV(ANSWER));
	add_input(&n->variants[0], "text_file", TBL_INPUT_STRING, "--text-file", 1, NULL);
	expect_rejected(n, "inputs[0] is not answer-decision's required path input --text-file", "text file as string");
	n = single(TBL_NEXTOP_ANSWER, TBL_VARIANT_ANSWER_DECISION, ARGV(ANSWER));
	add_input(&n->variants[0], "text_file", TBL_INPUT_PATH, "--text-file", 0, NULL);
	expect_rejected(n, "inputs[0] is not answer-decision's required path input --text-file", "optional decision text");
	n = single(TBL_NEXTOP_ANSWER, TBL_VARIANT_CONFIRM_DESTRUCTIVE, ARGV(ANSWER, "--confirm-destructive", "--scope-sha256", DIGEST));
	add_input(&n->variants[0], "text_file", TBL_INPUT_PATH, "--text-file", 1, NULL);
	expect_rejected(n, "inputs[0] is not confirm-destructive's optional path input --text-file", "required confirm text");

	/* resume */
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_RESUME_AD_HOC, ARGV(RESUME, "--bogus", "x"));
	expect_rejected(n, "base_argv[6] \"--bogus\" is not in the resume-ad-hoc form", "resume unknown flag");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_RESUME_AD_HOC, ARGV(RESUME, "--source-file"));
	expect_rejected(n, "base_argv[6] \"--source-file\" is not in the resume-ad-hoc form", "flag without value");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_RESUME_AD_HOC, ARGV(RESUME, "--budget", "0"));
	expect_rejected(n, "base_argv[6] \"--budget\" is not in the resume-ad-hoc form", "zero budget");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_RESUME_AD_HOC, ARGV(RESUME, "--budget", "01"));
	expect_rejected(n, "base_argv[6] \"--budget\" is not in the resume-ad-hoc form", "padded budget");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_RESUME_AD_HOC, ARGV(RESUME, "--budget", "1001"));
	expect_rejected(n, "base_argv[6] \"--budget\" is not in the resume-ad-hoc form", "big budget");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_RESUME_AD_HOC, ARGV(RESUME));
	add_input(&n->variants[0], "budget", TBL_INPUT_STRING, "--budget", 1, NULL);
	expect_rejected(n, "inputs[0] is not resume-ad-hoc's optional string input --budget", "required budget");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_KEEP_PINNED, ARGV(RESUME, "--source-choice", "pinned"));
	expect_rejected(n, "base_argv[8] is missing (keep-pinned expects --candidate)", "choice without candidate");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_KEEP_PINNED, ARGV(RESUME, "--source-choice", "other", "--candidate", C));
	expect_rejected(n, "base_argv[7] differs from the form (keep-pinned expects pinned)", "bad choice");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_KEEP_PINNED, ARGV(RESUME, "--candidate", C));
	add_input(&n->variants[0], "choice", TBL_INPUT_ENUM, "--source-choice", 1, ARGV("pinned", "other"));
	expect_rejected(n, "base_argv[6] differs from the form (keep-pinned expects --source-choice)", "unbounded choice input");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_KEEP_PINNED, ARGV(RESUME, "--source-choice", "pinned"));
	add_input(&n->variants[0], "candidate", TBL_INPUT_PATH, "--candidate", 1, NULL);
	expect_rejected(n, "base_argv[8] is missing (keep-pinned expects --candidate)", "candidate as path");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_USE_PINNED_SOURCE, ARGV(RESUME, "--use-pinned-source", "--source-choice", "pinned", "--candidate", C));
	expect_rejected(n, "base_argv[7] \"--source-choice\" is not in the use-pinned-source form", "two modes");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_REFRESH_SOURCE, ARGV(RESUME));
	add_input(&n->variants[0], "source_file", TBL_INPUT_PATH, "--source-file", 0, NULL);
	expect_rejected(n, "refresh-source takes 2 input(s), not 1", "optional source");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_REFRESH_SOURCE, ARGV(RESUME, "--budget", "5"));
	add_input(&n->variants[0], "source_file", TBL_INPUT_PATH, "--source-file", 1, NULL);
	add_input(&n->variants[0], "budget2", TBL_INPUT_STRING, "--candidate", 1, NULL);
	expect_rejected(n, "base_argv[6] \"--budget\" is not in the refresh-source form", "refresh with stray candidate");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_REFRESH_SOURCE, ARGV(RESUME));
	add_input(&n->variants[0], "source_file", TBL_INPUT_PATH, "--source-file", 1, NULL);
	expect_rejected(n, "refresh-source takes 2 input(s), not 1", "refresh without budget input");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_ADOPT, ARGV(RESUME, "--source-choice", "pinned", "--candidate", C));
	add_input(&n->variants[0], "budget", TBL_INPUT_STRING, "--budget", 0, NULL);
	expect_rejected(n, "base_argv[7] differs from the form (adopt expects adopt)", "adopt with pinned choice");
	n = single(TBL_NEXTOP_RESUME, TBL_VARIANT_RETRY_RUN, ARGV(RESUME));
	expect_rejected(n, "retry-run is not valid under operation resume", "start id in resume");

	/* start */
	n = single(TBL_NEXTOP_START, TBL_VARIANT_RETRY_RUN, ARGV("slipway", "run", "--budget", "4", "--json", "--root", W, "--review"));
	expect_rejected(n, "base_argv[7] \"--review\" is not in the retry-run form", "bad trailing flag");
	n = single(TBL_NEXTOP_START, TBL_VARIANT_RETRY_RUN, ARGV("slipway", "run", "--budget", "many", "--json", "--root", W));
	expect_rejected(n, "base_argv[3] must be a canonical positive base-10 integer no greater than 1000 (retry-run expects budget)", "word budget");
	n = single(TBL_NEXTOP_START, TBL_VARIANT_START_WITH_SOURCE, ARGV("slipway", "run", "--budget", "4", "--json", "--root", W));
	add_input(&n->variants[0], "goal_file", TBL_INPUT_PATH, "--goal-file", 1, NULL);
	add_input(&n->variants[0], "source_file", TBL_INPUT_STRING, "--source-file", 1, NULL);
	expect_rejected(n, "inputs[1] is not start-with-source's required path input --source-file", "source as string");
	n = single(TBL_NEXTOP_START, TBL_VARIANT_RETRY_RUN, ARGV("slipway", "run", "--budget", "4", "--json", "--root", W));
	add_input(&n->variants[0], "goal", TBL_INPUT_PATH, "--goal", 1, NULL);
	expect_rejected(n, "inputs[0] is not retry-run's required path input --goal-file", "goal text flag");
	n = single(TBL_NEXTOP_START, TBL_VARIANT_START_WITH_SOURCE, ARGV("slipway", "run", "--budget", "4", "--json", "--root", W));
	add_input(&n->variants[0], "goal_file", TBL_INPUT_PATH, "--goal-file", 1, NULL);
	expect_rejected(n, "start-with-source takes 2 input(s), not 1", "source missing");

	/* command */
	n = single(TBL_NEXTOP_COMMAND, TBL_VARIANT_INSPECT_RUNS, ARGV("slipway", "run", "--root", W, "--", "goal"));
	expect_rejected(n, "operation command must not carry run or protocol grammar", "run in command");
	n = single(TBL_NEXTOP_COMMAND, TBL_VARIANT_INSPECT_RUNS, ARGV("slipway", "protocol", "--root", W));
	expect_rejected(n, "operation command must not carry run or protocol grammar", "protocol in command");
}

Test(io_next, placeholders_are_allowed_only_after_the_separator)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n;

	cr_assert(next_is_placeholder("FILE"));
	cr_assert(next_is_placeholder("'FILE'"));
	cr_assert(next_is_placeholder("\xc2\xa0<answer>\t"));
	cr_assert(next_is_placeholder("\"<x y>\""));
	cr_assert(next_is_placeholder("<>"));
	cr_assert_not(next_is_placeholder("file"));
	cr_assert_not(next_is_placeholder("<"));
	cr_assert_not(next_is_placeholder("FILES"));
	cr_assert_not(next_is_placeholder("\" FILE\""));
	n = single(TBL_NEXTOP_COMMAND, TBL_VARIANT_INSPECT_RUNS, ARGV("slipway", "status", "--root", W, "--", "FILE", "<goal>"));
	cr_assert_eq(next_validate(n, &err), 0, "%s", err.msg);
	next_free(n);
}

Test(io_next, budget_and_digest_forms)
{
	cr_assert(next_budget_valid("1"));
	cr_assert(next_budget_valid("999"));
	cr_assert(next_budget_valid("1000"));
	cr_assert_not(next_budget_valid("1001"));
	cr_assert_not(next_budget_valid("0"));
	cr_assert_not(next_budget_valid("01"));
	cr_assert_not(next_budget_valid("+1"));
	cr_assert_not(next_budget_valid("10000"));
	cr_assert_not(next_budget_valid(""));
	cr_assert(next_digest_valid(DIGEST));
	cr_assert_not(next_digest_valid("sha256:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"));
	cr_assert_not(next_digest_valid("sha256:bbbb"));
	cr_assert_not(next_digest_valid(DIGEST "b"));
}

/* ---- Resolve -------------------------------------------------------------- */

static void expect_argv(char **argv, size_t argc, const char *const *want)
{
	size_t n = 0;

	while (want[n])
		n++;
	cr_assert_eq(argc, n, "argc %zu, want %zu", argc, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(argv[i], want[i], "argv[%zu]", i);
	cr_assert_null(argv[n]);
}

Test(io_next, resolve_appends_inputs_in_input_order)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	char **argv = NULL;
	size_t argc = 0;
	const struct next_value vals[] = {
		{ "budget", TBL_INPUT_STRING, "9" },
		{ "source_file", TBL_INPUT_PATH, "/tmp/src ' \"界\r\n.json" },
	};

	cr_assert_eq(by_rules(&n, RUN(STOPPED, .issue_backed = 1), &err), 0);
	cr_assert_eq(next_resolve(&argv, &argc, n, TBL_VARIANT_REFRESH_SOURCE, vals, 2, &err), 0, "%s", err.msg);
	expect_argv(argv, argc, ARGV(RESUME, "--source-file", "/tmp/src ' \"界\r\n.json", "--budget", "9"));
	next_argv_free(argv);
	cr_assert_eq(next_resolve(&argv, &argc, n, TBL_VARIANT_USE_PINNED_SOURCE, NULL, 0, &err), 0);
	expect_argv(argv, argc, ARGV(RESUME, "--use-pinned-source"));
	next_argv_free(argv);
	next_free(n);
}

Test(io_next, resolve_inserts_before_the_separator)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n;
	char **argv = NULL;
	size_t argc = 0;
	const struct next_value vals[] = { { "text", TBL_INPUT_STRING, "x y" } };

	n = single(TBL_NEXTOP_COMMAND, TBL_VARIANT_INSPECT_RUNS, ARGV("slipway", "status", "--root", W, "--", "--text"));
	add_input(&n->variants[0], "text", TBL_INPUT_STRING, "--text", 0, NULL);
	/* the flag appears after `--` only, but is still "present in argv" */
	cr_assert_eq(next_resolve(&argv, &argc, n, TBL_VARIANT_INSPECT_RUNS, vals, 1, &err), SW_EINVAL);
	next_free(n);

	sw_error_clear(&err);
	n = single(TBL_NEXTOP_COMMAND, TBL_VARIANT_INSPECT_RUNS, ARGV("slipway", "status", "--root", W, "--", "positional"));
	add_input(&n->variants[0], "text", TBL_INPUT_STRING, "--text", 0, NULL);
	cr_assert_eq(next_resolve(&argv, &argc, n, TBL_VARIANT_INSPECT_RUNS, vals, 1, &err), 0, "%s", err.msg);
	expect_argv(argv, argc, ARGV("slipway", "status", "--root", W, "--text", "x y", "--", "positional"));
	next_argv_free(argv);
	next_free(n);
}

Test(io_next, resolve_rejects_malformed_values)
{
	static const struct {
		const char *what, *want;
		struct next_value v[3];
		size_t n;
		int code;
	} rows[] = {
		{ "missing required", "required input", { { 0 } }, 0, SW_EINVAL },
		{ "unknown input", "unknown input", { { "extra", TBL_INPUT_STRING, "x" } }, 1, SW_EINVAL },
		{ "repeated input", "twice", { { "surface", TBL_INPUT_ENUM, "ide" }, { "surface", TBL_INPUT_ENUM, "cli" } }, 2, SW_EINVAL },
		{ "wrong type", "requires type enum", { { "surface", TBL_INPUT_STRING, "ide" } }, 1, SW_EINVAL },
		{ "empty", "nonempty", { { "surface", TBL_INPUT_ENUM, "" } }, 1, SW_EINVAL },
		{ "bad utf-8", "UTF-8", { { "surface", TBL_INPUT_ENUM, "\xc3" } }, 1, SW_EINVAL },
		{ "outside choices", "one of", { { "surface", TBL_INPUT_ENUM, "tui" } }, 1, SW_EINVAL },
	};
	struct next_fill fill = { 0 };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		struct next *n = NULL;
		char **argv = (char **)1;

		cr_assert_eq(next_build_form(&n, NEXT_FORM_INSTALL_KIRO, ID, W, &fill, &err), 0);
		cr_assert_eq(next_resolve(&argv, NULL, n, TBL_VARIANT_INSTALL_KIRO, rows[i].v, rows[i].n, &err),
			     rows[i].code, "%s", rows[i].what);
		cr_assert_null(argv);
		cr_assert(strstr(err.msg, rows[i].want), "%s: %s", rows[i].what, err.msg);
		next_free(n);
	}
}

Test(io_next, resolve_checks_budget_and_digest_values)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	char **argv = NULL;
	size_t argc;
	const struct next_value zero[] = { { "budget", TBL_INPUT_STRING, "0" } };
	const struct next_value good[] = { { "scope", TBL_INPUT_DIGEST, DIGEST } };
	const struct next_value bad[] = { { "scope", TBL_INPUT_DIGEST, "sha256:ABC" } };

	cr_assert_eq(by_rules(&n, RUN(STOPPED), &err), 0);
	cr_assert_eq(next_resolve(&argv, &argc, n, TBL_VARIANT_RESUME_AD_HOC, zero, 1, &err), SW_EINVAL);
	cr_assert(strstr(err.msg, "positive base-10"), "%s", err.msg);
	sw_error_clear(&err);
	cr_assert_eq(next_resolve(&argv, &argc, n, TBL_VARIANT_ADOPT, NULL, 0, &err), SW_ENOTFOUND);
	next_free(n);

	sw_error_clear(&err);
	n = single(TBL_NEXTOP_COMMAND, TBL_VARIANT_INSPECT_RUNS, ARGV("slipway", "status", "--root", W));
	add_input(&n->variants[0], "scope", TBL_INPUT_DIGEST, "--scope-sha256", 1, NULL);
	cr_assert_eq(next_resolve(&argv, &argc, n, TBL_VARIANT_INSPECT_RUNS, bad, 1, &err), SW_EINVAL);
	cr_assert(strstr(err.msg, "lowercase"), "%s", err.msg);
	sw_error_clear(&err);
	cr_assert_eq(next_resolve(&argv, &argc, n, TBL_VARIANT_INSPECT_RUNS, good, 1, &err), 0, "%s", err.msg);
	expect_argv(argv, argc, ARGV("slipway", "status", "--root", W, "--scope-sha256", DIGEST));
	next_argv_free(argv);
	next_free(n);
}

Test(io_next, resolve_validates_the_next_first)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = valid_resume();
	char **argv = NULL;

	memcpy(n->identity, "sha256:x", 9);
	cr_assert_eq(next_resolve(&argv, NULL, n, TBL_VARIANT_RESUME_AD_HOC, NULL, 0, &err), SW_EINVAL);
	next_free(n);
}

/* ---- Allocation failures -------------------------------------------------- */

Test(io_next, rule_nexts_survive_every_allocation_failure)
{
	for (unsigned long k = 1;; k++) {
		struct sw_error err = SW_ERROR_INIT;
		struct next *n = NULL;
		int rc;

		sw_alloc_fail_after(k);
		rc = by_rules(&n, RUN(PAUSED_ENVIRONMENT, IMPL, .issue_backed = 1), &err);
		sw_alloc_fail_after(0);
		if (rc == 0) {
			cr_assert_gt(k, 1);
			cr_assert_eq(n->nvariants, 3);
			next_free(n);
			break;
		}
		cr_assert_eq(rc, SW_ENOMEM, "k=%lu: %s", k, err.msg);
		cr_assert_null(n);
		cr_assert_lt(k, 10000);
	}
}

/* ---- JSON of every builder ------------------------------------------------ */

/* Writes each builder's JSON to $SLIPWAY_NEXT_JSON_DIR (a fresh temporary
 * directory when unset) for tests/e2e/test_next_schema.py to validate
 * against the schema's `next` definition. */
Test(io_next, every_builder_json_is_written_for_the_schema_check)
{
	const char *dir = getenv("SLIPWAY_NEXT_JSON_DIR");
	char tmp[4096];
	struct next_fill fill = { .run_id = R, .action_id = A };
	struct next *all[96] = { 0 };
	const char *names[96];
	size_t count = 0;
	struct sw_error err = SW_ERROR_INIT;

	if (dir == NULL || *dir == '\0') {
		test_tmp_name(tmp, sizeof(tmp), "next-json-XXXXXX");
		cr_assert_not_null(mkdtemp(tmp));
		dir = tmp;
	}
#define KEEP(name, call) do { names[count] = name; \
	cr_assert_eq(call, 0, "%s: %s", name, err.msg); count++; } while (0)
	KEEP("action", by_rules(&all[count], RUN(ACTIVE, IMPL), &err));
	KEEP("decision", by_rules(&all[count], RUN(PAUSED_DECISION, IMPL), &err));
	KEEP("destructive", by_rules(&all[count], RUN(PAUSED_DESTRUCTIVE, IMPL), &err));
	KEEP("resume-ad-hoc", by_rules(&all[count], RUN(STOPPED), &err));
	KEEP("resume-issue", by_rules(&all[count], RUN(STOPPED, .issue_backed = 1), &err));
	KEEP("environment-ad-hoc", by_rules(&all[count], RUN(PAUSED_ENVIRONMENT, IMPL), &err));
	KEEP("environment-issue", by_rules(&all[count], RUN(PAUSED_ENVIRONMENT, IMPL, .issue_backed = 1), &err));
	KEEP("candidate-invalid", by_rules(&all[count], RUN(STOPPED, .issue_backed = 1, .candidate = 1), &err));
	KEEP("candidate-valid", by_rules(&all[count], RUN(STOPPED, .issue_backed = 1, .candidate = 1,
							   .candidate_valid = 1), &err));
	fill.budget = 12;
	KEEP("refresh-fixed", next_build_form(&all[count], NEXT_FORM_REFRESH_SOURCE_BUDGET, ID, W, &fill, &err));
	KEEP("refresh-open", next_build_form(&all[count], NEXT_FORM_REFRESH_SOURCE, ID, W, &fill, &err));
	KEEP("start-retry", next_build_start(&all[count], ID, W, 8, 0, 0, &err));
	KEEP("start-retry-no-review", next_build_start(&all[count], ID, W, 8, 1, 0, &err));
	KEEP("start-source", next_build_start(&all[count], ID, W, 1000, 0, 1, &err));
	KEEP("start-source-no-review", next_build_start(&all[count], ID, W, 1, 1, 1, &err));
	KEEP("none", next_none_identity(&all[count], ID, &err));
	for (size_t i = 0; i < tbl_next_rules_len; i++) {
		static char label[32][24];

		cr_assert_lt(i, 32);
		snprintf(label[i], sizeof(label[i]), "rule-%02zu", i);
		KEEP(label[i], next_from_rule(&all[count], &tbl_next_rules[i], ID, W, &FILL, &err));
	}
	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT; f++) {
		static char label[NEXT_FORM__COUNT][48];

		snprintf(label[f], sizeof(label[f]), "form-%02d-%s", f,
			 tbl_variant_wire[next_form_variant(f)]);
		fill.scope_digest = DIGEST;
		fill.candidate_id = C;
		fill.budget = 3;
		if (next_form_variant(f) == TBL_VARIANT_SKIP_ACTION)
			continue;	/* never a variant of its own */
		KEEP(label[f], next_build_form(&all[count], f, ID, W, &fill, &err));
	}
#undef KEEP
	for (size_t i = 0; i < count; i++) {
		json_t *j = next_to_json(all[i]);
		char *text = j ? sw_json_dump(j) : NULL;
		char *path = sw_asprintf("%s/%s.json", dir, names[i]);
		FILE *f = fopen(path, "w");

		cr_assert_not_null(text);
		cr_assert_not_null(f, "%s: %s", path, strerror(errno));
		cr_assert_eq(fputs(text, f) >= 0 && fclose(f) == 0, 1);
		sw_free(path);
		sw_free(text);
		json_decref(j);
		next_free(all[i]);
	}
	cr_assert_eq(count, 16 + tbl_next_rules_len + NEXT_FORM__COUNT - 2);
}

/* ---- The grammar is the forms ------------------------------------------ */

/* A fresh one-variant next of `form`, filled with FILL, budget 7 and
 * `no_review`. */
static struct next *built(enum next_form form, int no_review)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next_fill fill = FILL;
	struct next *n = NULL;

	fill.budget = 7;
	fill.no_review = no_review;
	cr_assert_eq(next_build_form(&n, form, ID, W, &fill, &err), 0, "form %d: %s",
		     (int)form, err.msg);
	return n;
}

static int refused(struct next *n)
{
	struct sw_error err = SW_ERROR_INIT;
	int rc = next_validate(n, &err);

	next_free(n);
	return rc == SW_EINVAL;
}

static void drop_arg(struct next_variant *v, size_t i)
{
	sw_free(v->argv[i]);
	memmove(v->argv + i, v->argv + i + 1, (v->argc - i) * sizeof(char *));
	v->argc--;
}

static void insert_arg(struct next_variant *v, size_t i, const char *s)
{
	v->argv = sw_realloc(v->argv, (v->argc + 2) * sizeof(char *));
	memmove(v->argv + i + 1, v->argv + i, (v->argc - i + 1) * sizeof(char *));
	v->argv[i] = sw_strdup(s);
	v->argc++;
}

/* The value of the kind the slot holding `arg` does not accept, or NULL
 * when `arg` fills no slot. */
static const char *wrong_kind(const char *arg)
{
	if (strcmp(arg, R) == 0 || strcmp(arg, A) == 0 || strcmp(arg, C) == 0)
		return "--run";
	if (strcmp(arg, DIGEST) == 0)
		return "sha256:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
	if (strcmp(arg, "7") == 0)
		return "07";
	if (strcmp(arg, W) == 0)
		return "relative/root";
	return NULL;
}

Test(io_next, every_form_validates_and_every_corruption_of_it_is_refused)
{
	size_t checked = 0;

	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT; f++)
		for (int no_review = 0; no_review <= 1; no_review++) {
			struct next *n = built(f, no_review);
			const struct next_variant *v = &n->variants[0];
			size_t argc = v->argc, ninputs = v->ninputs;
			struct sw_error err = SW_ERROR_INIT;

			cr_assert_eq(next_validate(n, &err), 0, "form %d: %s", f, err.msg);
			/* Command nexts are open (any slipway command but run and
			 * protocol); every other operation's variants are the forms. */
			if (n->operation == TBL_NEXTOP_COMMAND) {
				next_free(n);
				continue;
			}
			for (int op = TBL_NEXTOP_INVALID + 1; op < TBL_NEXTOP__COUNT; op++) {
				struct next *m = built(f, no_review);
				int fine = op == (int)m->operation ||
					   (v->id == TBL_VARIANT_SKIP_ACTION &&
					    (op == TBL_NEXTOP_ANSWER || op == TBL_NEXTOP_RESUME));

				m->operation = op;
				cr_expect_eq(refused(m), !fine, "form %d under %s", f, tbl_nextop_wire[op]);
			}
			for (size_t i = 0; i < argc; i++) {
				struct next *m = built(f, no_review);
				const char *wrong = wrong_kind(m->variants[0].argv[i]);
				int optional = strcmp(m->variants[0].argv[i], "--no-review") == 0;

				drop_arg(&m->variants[0], i);
				cr_expect_eq(refused(m), !optional, "form %d without argv[%zu]", f, i);
				m = built(f, no_review);
				insert_arg(&m->variants[0], i + 1, "extra");
				cr_expect(refused(m), "form %d with a word after argv[%zu]", f, i);
				if (wrong) {
					m = built(f, no_review);
					set_arg(&m->variants[0], i, wrong);
					cr_expect(refused(m), "form %d with %s as argv[%zu]", f, wrong, i);
				}
				checked += 3;
			}
			for (size_t i = 0; i < ninputs; i++) {
				struct next *m = built(f, no_review);
				struct next_input *in = &m->variants[0].inputs[i];

				in->required = !in->required;
				cr_expect(refused(m), "form %d with inputs[%zu] required flipped", f, i);
				m = built(f, no_review);
				in = &m->variants[0].inputs[i];
				in->type = in->type == TBL_INPUT_PATH ? TBL_INPUT_STRING : TBL_INPUT_PATH;
				cr_expect(refused(m), "form %d with inputs[%zu] of another type", f, i);
				m = built(f, no_review);
				drop_inputs(&m->variants[0]);
				cr_expect(refused(m), "form %d without its inputs", f);
				checked += 3;
			}
			next_free(n);
		}
	cr_assert_gt(checked, 300);
}
