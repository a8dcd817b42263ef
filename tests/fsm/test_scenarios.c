/* Replays every spec/scenarios/<name>.json through the interpreter: the spec is the
 * corpus. */

#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsm/fsm.h"


static uint64_t parse_facts(json_t *arr, const char *file)
{
	uint64_t facts = 0;
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) {
		int found = 0;

		/* Only the facts a driver passes in; the rest are derived. */
		for (int b = 0; b < FSM_FACT__COUNT; b++)
			if (((UINT64_C(1) << b) & tbl_facts_input) &&
			    strcmp(tbl_fact_name[b], json_string_value(v)) == 0) {
				facts |= UINT64_C(1) << b;
				found = 1;
			}
		cr_assert(found, "%s: unknown fact '%s'", file, json_string_value(v));
	}
	return facts;
}

static enum fsm_event parse_event(const char *s, const char *file)
{
	for (int e = 1; e < FSM_EV__COUNT; e++)
		if (strcmp(tbl_event_name[e], s) == 0)
			return (enum fsm_event)e;
	cr_assert_fail("%s: unknown event '%s'", file, s);
	return FSM_EV_INVALID;
}

static void parse_outcome(struct fsm_outcome_shape *o, json_t *j, enum fsm_kind kind)
{
	const char *s;

	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->status = tbl_status_lookup(json_string_value(json_object_get(j, "status")));
	if ((s = json_string_value(json_object_get(j, "pause"))) != NULL) {
		o->pause = tbl_pause_lookup(s);
		o->has_destructive_request = o->pause == FSM_PAUSE_DESTRUCTIVE;
	}
	if ((s = json_string_value(json_object_get(j, "implementation"))) != NULL) {
		o->has_implementation = 1;
		o->implementation = tbl_result_lookup(FSM_BRANCH_IMPLEMENTATION, s);
	}
	if ((s = json_string_value(json_object_get(j, "review"))) != NULL) {
		o->has_review = 1;
		o->review = tbl_result_lookup(FSM_BRANCH_REVIEW, s);
		o->findings = (size_t)json_integer_value(json_object_get(j, "findings"));
	}
	if ((s = json_string_value(json_object_get(j, "suggest"))) != NULL) {
		o->suggestions = 1;
		o->suggestion_kind = tbl_kind_lookup(s);
	}
}

static void check_step(const char *file, size_t n, json_t *expect,
		       const struct fsm_step *st)
{
	json_t *v;
	const char *s;

	s = json_string_value(json_object_get(expect, "verdict"));
	cr_assert_not_null(s, "%s step %zu: expect.verdict is required", file, n);
	cr_expect_str_eq(tbl_verdict_name[st->verdict], s, "%s step %zu: verdict", file, n);
	if ((s = json_string_value(json_object_get(expect, "error"))) != NULL)
		cr_expect_str_eq(tbl_err_wire[st->err], s, "%s step %zu: error", file, n);
	if ((s = json_string_value(json_object_get(expect, "state"))) != NULL)
		cr_expect_str_eq(tbl_state_name[st->run.state], s, "%s step %zu: state", file, n);
	if ((s = json_string_value(json_object_get(expect, "action"))) != NULL)
		cr_expect_str_eq(tbl_kind_wire[st->run.action], s, "%s step %zu: action", file, n);
	if ((v = json_object_get(expect, "remaining")) != NULL)
		cr_expect_eq(st->run.remaining, (unsigned)json_integer_value(v),
			     "%s step %zu: remaining", file, n);
	if ((v = json_object_get(expect, "review_pending")) != NULL)
		cr_expect_eq(st->run.review_pending, json_is_true(v), "%s step %zu: review_pending", file, n);
	if ((v = json_object_get(expect, "grant")) != NULL)
		cr_expect_eq(st->run.grant, json_is_true(v), "%s step %zu: grant", file, n);
	if ((v = json_object_get(expect, "request")) != NULL)
		cr_expect_eq(st->run.request, json_is_true(v), "%s step %zu: request", file, n);
	if ((v = json_object_get(expect, "queued")) != NULL)
		cr_expect_eq(st->run.queued, json_is_true(v), "%s step %zu: queued", file, n);
	if ((s = json_string_value(json_object_get(expect, "rule"))) != NULL) {
		cr_assert_neq(st->rule, FSM_NO_RULE, "%s step %zu: no rule fired", file, n);
		cr_expect_str_eq(tbl_rules[st->rule].why, s, "%s step %zu: rule", file, n);
	}
	if ((s = json_string_value(json_object_get(expect, "journal"))) != NULL)
		cr_expect_str_eq(tbl_jevent_wire[st->journal], s, "%s step %zu: journal", file, n);
	if ((v = json_object_get(expect, "note")) != NULL)
		cr_expect_str_eq(st->note ? st->note : "", json_string_value(v) ? json_string_value(v) : "",
				 "%s step %zu: note", file, n);
	if ((v = json_object_get(expect, "issue_rule")) != NULL)
		cr_expect_eq(st->issue_rule, (size_t)json_integer_value(v),
			     "%s step %zu: issue rule", file, n);
	if ((v = json_object_get(expect, "ops")) != NULL) {
		size_t i;
		json_t *op;

		json_array_foreach(v, i, op) {
			size_t b;

			for (b = 0; b < FSM_EFFECT__COUNT; b++)
				if (strcmp(tbl_op_name[b], json_string_value(op)) == 0)
					break;
			cr_assert_lt(b, FSM_EFFECT__COUNT,
				     "%s: unknown op %s", file, json_string_value(op));
			cr_expect(st->ops & (1u << b), "%s step %zu: op %s missing",
				  file, n, tbl_op_name[b]);
		}
	}
}

static size_t replay(const char *path)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	struct fsm_run run = { .state = FSM_ST_NEW };
	struct fsm_input in = { .event = FSM_EV_START };
	struct fsm_step st;
	json_t *start, *steps, *step;
	size_t i;

	cr_assert_not_null(doc, "%s: %s", path, jerr.text);
	start = json_object_get(doc, "start");
	in.budget = (unsigned)json_integer_value(json_object_get(start, "budget"));
	in.review = json_is_true(json_object_get(start, "review"));
	in.issue_backed = json_is_true(json_object_get(start, "issue_backed"));
	st = fsm_step(&run, &in);
	cr_assert_eq(st.verdict, FSM_APPLY, "%s: start", path);
	cr_assert_eq(st.issued, FSM_KIND_ORIENT);
	run = st.run;
	steps = json_object_get(doc, "steps");
	cr_assert(json_array_size(steps) > 0, "%s: no steps", path);
	json_array_foreach(steps, i, step) {
		memset(&in, 0, sizeof(in));
		in.event = parse_event(json_string_value(json_object_get(step, "event")), path);
		in.facts = parse_facts(json_object_get(step, "facts"), path);
		in.budget = (unsigned)json_integer_value(json_object_get(step, "budget"));
		if (json_object_get(step, "outcome"))
			parse_outcome(&in.outcome, json_object_get(step, "outcome"), run.action);
		/* The service observes Git only when the tables ask for it: a
		 * step that passes a Git fact must be one that asks, and
		 * "observes" says whether it does. */
		{
			struct fsm_input known = in;
			json_t *obs = json_object_get(json_object_get(step, "expect"), "observes");
			uint64_t wants;

			known.facts &= ~tbl_facts_git;
			wants = fsm_wants(&run, &known);
			if (in.facts & tbl_facts_git)
				cr_expect_neq(wants, 0, "%s step %zu: a Git fact the service would not gather",
					      path, i + 1);
			if (obs)
				cr_expect_eq(wants != 0, json_is_true(obs), "%s step %zu: observes",
					     path, i + 1);
		}
		st = fsm_step(&run, &in);
		check_step(path, i + 1, json_object_get(step, "expect"), &st);
		run = st.run;
	}
	json_decref(doc);
	return i;
}

Test(fsm_scenarios, every_spec_scenario_replays)
{
	const char *root = getenv("SLIPWAY_TEST_ROOT");
	char dir[4096], path[8192];
	size_t files = 0, steps = 0;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/spec/scenarios", root ? root : ".");
	d = opendir(dir);
	cr_assert_not_null(d, "cannot open %s", dir);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		steps += replay(path);
		files++;
	}
	closedir(d);
	cr_assert_geq(files, 5, "only %zu scenarios", files);
	printf("fsm_scenarios: %zu scenarios, %zu steps replayed\n", files, steps);
}
