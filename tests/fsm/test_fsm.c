/* Model checks of the Run state machine: completeness and shadowing of the
 * rule table over every fact combination, and an exploration of every run
 * state reachable from a fresh Run with the invariants asserted on each
 * transition. */

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>

#include "fsm/fsm.h"
#include "tests/support/fsm_explore.h"

/* The fact bits rows for `ev` read (ANY rows included). */
static uint64_t relevant_bits(enum fsm_event ev)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < tbl_rules_len; i++)
		if (tbl_rules[i].on & (1u << ev))
			bits |= tbl_rules[i].need.all | tbl_rules[i].deny.any;
	return bits;
}

/* Enumerates every subset of `mask`. */
#define FOR_SUBSETS(sub, mask) \
	for (uint64_t sub = 0, _done = 0; !_done; \
	     _done = (sub == (mask)), sub = (sub - (mask)) & (mask))

/* Every row has its own stable id, the journal's name for it. */
Test(fsm_rules, every_row_has_a_unique_id)
{
	for (size_t i = 0; i < tbl_rules_len; i++)
		for (size_t j = 0; j < i; j++)
			cr_expect_neq(tbl_rules[j].id, tbl_rules[i].id, "rows %zu and %zu share id %u",
				      j, i, tbl_rules[i].id);
}

Test(fsm_rules, every_state_and_event_has_a_row_and_no_row_is_shadowed)
{
	size_t *hits = calloc(tbl_rules_len, sizeof(*hits));
	unsigned long combos = 0;

	cr_assert_not_null(hits);
	for (int s = FSM_ST_INVALID + 1; s < FSM_ST__COUNT; s++)
		for (int e = FSM_EV_INVALID + 1; e < FSM_EV__COUNT; e++) {
			uint64_t mask = relevant_bits((enum fsm_event)e);

			FOR_SUBSETS(f, mask) {
				size_t row = fsm_match((enum fsm_state)s,
						       (enum fsm_event)e, f);

				cr_expect_neq(row, FSM_NO_RULE,
					      "no row for state=%s event=%s facts=%#" PRIx64,
					      tbl_state_name[s], tbl_event_name[e], f);
				if (row != FSM_NO_RULE)
					hits[row]++;
				combos++;
			}
		}
	for (size_t i = 0; i < tbl_rules_len; i++)
		cr_expect(hits[i] > 0, "row %zu (%s) is shadowed", i, tbl_rules[i].why);
	printf("fsm_rules: %lu state x event x fact combinations, %zu rows\n",
	       combos, tbl_rules_len);
	free(hits);
}

Test(fsm_rules, every_next_row_is_reachable_from_some_run)
{
	size_t *hits = calloc(tbl_next_rules_len, sizeof(*hits));
	unsigned long runs = 0;

	cr_assert_not_null(hits);
	for (int s = FSM_ST_INVALID + 1; s < FSM_ST__COUNT; s++)
		for (int a = 0; a < FSM_KIND__COUNT; a++)
			for (unsigned flags = 0; flags < 16; flags++) {
				struct fsm_run r = { .state = (enum fsm_state)s,
						     .action = (enum fsm_kind)a,
						     .issue_backed = flags & 1,
						     .candidate = (flags >> 1) & 1,
						     .candidate_valid = (flags >> 2) & 1,
						     .remaining = (flags >> 3) & 1 };
				size_t row;

				cr_expect_not_null(fsm_next(&r, &row), "state=%s", tbl_state_name[s]);
				if (row != FSM_NO_RULE)
					hits[row]++;
				runs++;
			}
	for (size_t i = 0; i < tbl_next_rules_len; i++)
		cr_expect(hits[i] > 0, "next row %zu (%s) is shadowed", i,
			  tbl_next_rules[i].why);
	printf("fsm_next: %lu run shapes, %zu rows\n", runs, tbl_next_rules_len);
	free(hits);
}

/* ---- reachability ---- */

static void check_invariants(const struct fsm_run *before, const struct fsm_input *in,
			     const struct fsm_step *st)
{
	const struct fsm_run *r = &st->run;
	const char *where = tbl_state_name[before->state];

	cr_assert_neq(st->rule, FSM_NO_RULE, "no rule in %s for %s", where,
		      tbl_event_name[in->event]);
	if (st->verdict == FSM_REJECT || st->verdict == FSM_IDEMPOTENT) {
		cr_assert(fsm_explore_run_eq(before, r), "a refused event changed the run in %s", where);
		return;
	}
	/* An active Run has exactly one outstanding Action; runs with no
	 * Action to work on have none. */
	if (r->state == FSM_ST_ACTIVE)
		cr_assert_neq(r->action, FSM_KIND_NONE, "active without an Action after %s in %s",
			      tbl_event_name[in->event], where);
	if (r->state == FSM_ST_ENDED || r->state == FSM_ST_STOPPED ||
	    r->state == FSM_ST_PAUSED_BUDGET)
		cr_assert_eq(r->action, FSM_KIND_NONE, "%s keeps an Action", tbl_state_name[r->state]);
	/* A question keeps its Action; a source candidate is a question about
	 * the Issue and voids the Action instead. */
	if (r->state == FSM_ST_PAUSED_DESTRUCTIVE ||
	    (r->state == FSM_ST_PAUSED_DECISION && !r->candidate))
		cr_assert_neq(r->action, FSM_KIND_NONE, "a question without its Action");
	if (r->candidate)
		cr_assert(r->issue_backed && r->action == FSM_KIND_NONE &&
			  (r->state == FSM_ST_PAUSED_DECISION || r->state == FSM_ST_STOPPED),
			  "a source candidate waits outside a decision pause");
	/* A candidate never costs budget; leaving it always does. */
	if (st->ops & (FSM_OP(CANDIDATE_INVALID) | FSM_OP(CANDIDATE_VALID)))
		cr_assert_eq(r->remaining, before->remaining, "a candidate spent budget");
	/* Ended is terminal. */
	cr_assert_neq(before->state, FSM_ST_ENDED, "an ended Run accepted %s",
		      tbl_event_name[in->event]);
	/* Budget: never negative (no unsigned wrap), never above the cap,
	 * and an issued Action always had a unit to spend. */
	cr_assert_leq(r->remaining, FSM_MAX_BUDGET);
	if (st->issued != FSM_KIND_NONE) {
		unsigned avail = before->remaining;

		if ((st->ops & FSM_OP(RESUME_BUDGET)) && (in->facts & FSM_F(BUDGET_GIVEN)))
			avail = in->budget;
		else if ((st->ops & FSM_OP(RESUME_BUDGET)) && avail == 0)
			avail = before->initial_budget > 3 ? before->initial_budget : 3;
		if (st->ops & FSM_OP(CREATE))
			avail = in->budget;
		cr_assert_geq(avail, 1, "an Action was issued with zero budget");
		cr_assert_eq(r->remaining, avail - 1);
	}
	/* The destructive grant lives only on the Implement re-issued by the
	 * confirmation, and dies on any other applied event. */
	if (r->grant)
		cr_assert(r->action == FSM_KIND_IMPLEMENT && r->state == FSM_ST_ACTIVE &&
			  r->request && in->event == FSM_EV_ANSWER &&
			  (in->facts & FSM_F(CONFIRM)) &&
			  before->state == FSM_ST_PAUSED_DESTRUCTIVE,
			  "a grant outside its Implement");
	/* Resume only where next says resume. */
	if (in->event == FSM_EV_RESUME || in->event == FSM_EV_RESUME_PINNED ||
	    in->event == FSM_EV_RESUME_REFRESH || in->event == FSM_EV_CHOOSE_PINNED ||
	    in->event == FSM_EV_CHOOSE_ADOPT) {
		const struct fsm_next_rule *n = fsm_next(before, NULL);

		cr_assert(n != NULL && n->op == TBL_NEXTOP_RESUME,
			  "resume accepted from %s", where);
	}
	/* A queued suggestion waits only where nothing can dispatch it. */
	if (r->queued)
		cr_assert(r->action == FSM_KIND_NONE &&
			  (r->state == FSM_ST_PAUSED_ENVIRONMENT || r->state == FSM_ST_STOPPED),
			  "a suggestion is queued in %s", tbl_state_name[r->state]);
	/* The budget pause has no Action and nothing authorized. */
	if (r->state == FSM_ST_PAUSED_BUDGET)
		cr_assert(!r->grant && !r->request);
}

struct hits {
	size_t *rows, *issue_rows;
};

static void check_transition(const struct fsm_run *before, const struct fsm_input *in,
			     const struct fsm_step *st, size_t depth, void *payload)
{
	struct hits *h = payload;

	(void)depth;
	check_invariants(before, in, st);
	if (st->rule != FSM_NO_RULE)
		h->rows[st->rule]++;
	if (st->issue_rule != FSM_NO_RULE)
		h->issue_rows[st->issue_rule]++;
}

Test(fsm_model, every_reachable_state_keeps_the_invariants, .timeout = 120)
{
	struct hits h = { calloc(tbl_rules_len, sizeof(size_t)),
			  calloc(tbl_issue_rules_len, sizeof(size_t)) };
	struct fsm_explore_stats x;

	cr_assert(h.rows && h.issue_rows);
	cr_assert_eq(fsm_explore(&x, check_transition, &h), 0,
		     "the closure outgrew its bound at %zu states", x.states);
	for (size_t i = 0; i < tbl_rules_len; i++)
		cr_expect(h.rows[i] > 0, "row %zu (%s) never fires from a fresh Run", i,
			  tbl_rules[i].why);
	for (size_t i = 0; i < tbl_issue_rules_len; i++)
		cr_expect(h.issue_rows[i] > 0, "issue row %zu never fires", i);
	cr_expect_geq(x.max_depth, 8, "exploration reached depth %zu only", x.max_depth);
	printf("fsm_model: %zu reachable run states (the whole closure, deepest first reached at depth %zu), %lu transitions checked\n",
	       x.states, x.max_depth, x.transitions);
	free(h.rows);
	free(h.issue_rows);
}

/* ---- the Git observation the tables ask for ---- */

struct wants_stats {
	unsigned long checked, observed;
};

/* fsm_wants, asked before the Git facts are known, must say "observe"
 * exactly when the step depends on Git: some Git fact changes the row that
 * fires, or the row records the observation. */
static void check_wants(const struct fsm_run *before, const struct fsm_input *in,
			const struct fsm_step *st, size_t depth, void *payload)
{
	static const uint64_t git[] = { 0, FSM_F(CHANGED), FSM_F(GIT_FAILED),
					FSM_F(CHANGED) | FSM_F(GIT_FAILED) };
	struct wants_stats *ws = payload;
	struct fsm_input known = *in;
	uint64_t wants;
	size_t rule = FSM_NO_RULE;
	int depends = 0;

	(void)st;
	(void)depth;
	if (in->facts & tbl_facts_git)
		return;		/* each (run, input) once, without Git facts */
	wants = fsm_wants(before, &known);
	cr_assert_eq(wants & ~tbl_facts_git, 0, "fsm_wants names a fact outside the GIT group");
	for (size_t g = 0; g < sizeof(git) / sizeof(git[0]); g++) {
		struct fsm_step s;

		known.facts = in->facts | git[g];
		s = fsm_step(before, &known);
		if (g == 0)
			rule = s.rule;
		else if (s.rule != rule)
			depends = 1;
		if (s.ops & tbl_ops_git)
			depends = 1;
	}
	cr_assert_eq(wants != 0, depends,
		     "state=%s event=%s facts=%#" PRIx64 ": fsm_wants says %s, the step %s on Git",
		     tbl_state_name[before->state], tbl_event_name[in->event], in->facts,
		     wants ? "observe" : "do not observe", depends ? "depends" : "does not depend");
	/* ... which is where an observation was always taken: an applied
	 * submit or skip of a kind that observes Git (a start observes its
	 * snapshot whatever the rows say). */
	if (in->event == FSM_EV_START) {
		cr_assert_eq(wants != 0, before->state == FSM_ST_NEW,
			     "only a new Run's start reads the run-start observation");
	} else {
		struct fsm_step s0;

		known.facts = in->facts;
		s0 = fsm_step(before, &known);
		cr_assert_eq(wants != 0,
			     (s0.verdict == FSM_APPLY || s0.verdict == FSM_APPLY_ERROR) &&
				     (in->event == FSM_EV_SUBMIT || in->event == FSM_EV_SKIP) &&
				     tbl_kind_observes_git[before->action],
			     "state=%s event=%s kind=%s: Git observed where it was not, or not where it was",
			     tbl_state_name[before->state], tbl_event_name[in->event],
			     tbl_kind_wire[before->action]);
	}
	ws->checked++;
	ws->observed += wants != 0;
}

Test(fsm_model, git_is_observed_exactly_when_the_step_depends_on_it, .timeout = 240)
{
	struct wants_stats ws = { 0, 0 };
	struct fsm_explore_stats x;

	cr_assert_eq(fsm_explore(&x, check_wants, &ws), 0);
	cr_assert_gt(ws.observed, 0);
	cr_assert_lt(ws.observed, ws.checked);
	printf("fsm_wants: %lu (run, input) pairs, Git observed for %lu\n", ws.checked, ws.observed);
}

/* A refused submit never observes Git, whatever the kind. */
Test(fsm_model, a_refused_submit_never_observes_git)
{
	for (int k = FSM_KIND_ORIENT; k < FSM_KIND__COUNT; k++) {
		struct fsm_run r = { .state = FSM_ST_ACTIVE, .action = (enum fsm_kind)k,
				     .remaining = 3 };
		struct fsm_input in = { .event = FSM_EV_SUBMIT,
					.outcome = { .kind = (enum fsm_kind)k,
						     .status = FSM_STATUS_COMPLETED } };

		if (k == FSM_KIND_IMPLEMENT) {
			in.outcome.has_implementation = 1;
			in.outcome.implementation = FSM_RESULT_APPLIED;
		}
		if (k == FSM_KIND_REVIEW) {
			in.outcome.has_review = 1;
			in.outcome.review = FSM_RESULT_NO_FINDINGS;
		}
		cr_assert_eq(fsm_outcome_check(&in.outcome), FSM_VIOLATION_NONE, "%s", tbl_kind_wire[k]);
		/* not the current Action */
		cr_expect_eq(fsm_wants(&r, &in), 0, "%s", tbl_kind_wire[k]);
		in.facts = FSM_F(NAMED_CURRENT) | FSM_F(OUTCOME_INVALID);
		cr_expect_eq(fsm_wants(&r, &in), 0, "%s", tbl_kind_wire[k]);
		in.facts = FSM_F(NAMED_CURRENT);
		cr_expect_eq(fsm_wants(&r, &in) != 0, tbl_kind_observes_git[k] != 0, "%s",
			     tbl_kind_wire[k]);
	}
}

/* ---- notes ---- */

/* Every row that records a note has one for every fact set (a last note
 * rule with no condition), and every note rule belongs to such a row. */
Test(fsm_rules, every_noting_row_has_a_note_for_every_fact_set)
{
	for (size_t i = 0; i < tbl_rules_len; i++) {
		int fallback = 0, any = 0;

		for (size_t n = 0; n < tbl_note_rules_len; n++) {
			if (tbl_note_rules[n].row != tbl_rules[i].id)
				continue;
			any = 1;
			fallback |= tbl_note_rules[n].need.all == 0 && tbl_note_rules[n].deny.any == 0;
		}
		if (tbl_rules[i].ops & FSM_OP(NOTE))
			cr_expect(fallback, "row %u records a note but has no unconditional one",
				  tbl_rules[i].id);
		else
			cr_expect(!any, "row %u has notes but no note effect", tbl_rules[i].id);
	}
}

static void count_notes(const struct fsm_run *before, const struct fsm_input *in,
			const struct fsm_step *st, size_t depth, void *payload)
{
	size_t *hits = payload;

	(void)before;
	(void)in;
	(void)depth;
	if (st->note_rule != FSM_NO_RULE)
		hits[st->note_rule]++;
	cr_assert_eq(st->note != NULL, (st->verdict == FSM_APPLY || st->verdict == FSM_APPLY_ERROR) &&
					       (st->ops & FSM_OP(NOTE)), "a note without its effect");
}

Test(fsm_model, every_note_rule_fires_from_a_fresh_run, .timeout = 120)
{
	size_t *hits = calloc(tbl_note_rules_len, sizeof(*hits));
	struct fsm_explore_stats x;

	cr_assert_not_null(hits);
	cr_assert_eq(fsm_explore(&x, count_notes, hits), 0);
	for (size_t i = 0; i < tbl_note_rules_len; i++)
		cr_expect(hits[i] > 0, "note rule %zu (%s) never fires", i, tbl_note_rules[i].note);
	free(hits);
}

/* A row that becomes a candidate journals as one, whatever its event. */
Test(fsm_rules, a_journal_column_names_the_commit_type)
{
	struct fsm_run r = { .state = FSM_ST_STOPPED, .issue_backed = 1, .remaining = 2 };
	struct fsm_input in = { .event = FSM_EV_RESUME_REFRESH, .facts = FSM_F(BODY_INVALID) };
	struct fsm_step st = fsm_step(&r, &in);

	cr_assert_eq(st.verdict, FSM_APPLY);
	cr_expect_eq(st.journal, TBL_JEVENT_SOURCE_CANDIDATE_CREATED);
	cr_expect_str_eq(tbl_jevent_resume_op[st.journal], "source_candidate_created");
	in.facts = 0;
	st = fsm_step(&r, &in);
	cr_expect_eq(st.journal, TBL_JEVENT_SOURCE_REFRESHED);
	cr_expect_str_eq(st.note, "source_refreshed_unchanged");
}
