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

/* The fact bits rows for `ev` read (ANY rows included). */
static uint64_t relevant_bits(enum fsm_event ev)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < tbl_rules_len; i++)
		if (tbl_rules[i].on == ev || tbl_rules[i].on == FSM_EV_INVALID)
			bits |= tbl_rules[i].need.all | tbl_rules[i].deny.any;
	return bits;
}

/* Enumerates every subset of `mask`. */
#define FOR_SUBSETS(sub, mask) \
	for (uint64_t sub = 0, _done = 0; !_done; \
	     _done = (sub == (mask)), sub = (sub - (mask)) & (mask))

/* Every row has its own stable id, the journal's name for it. */
Test(fsm_rules, every_row_has_a_unique_well_formed_id)
{
	for (size_t i = 0; i < tbl_rules_len; i++) {
		const char *id = tbl_rules[i].id;

		cr_assert_not_null(id, "row %zu has no id", i);
		cr_expect(id[0] != '\0' && strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789_.-") == strlen(id),
			  "row %zu: id '%s'", i, id);
		cr_expect(strchr(id, '.') != NULL, "row %zu: id '%s' names no event", i, id);
		for (size_t j = 0; j < i; j++)
			cr_expect(strcmp(tbl_rules[j].id, id) != 0, "rows %zu and %zu share id %s", j, i, id);
	}
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

#define MAX_STATES 200000

struct explorer {
	struct fsm_run *seen;
	size_t nseen;
	size_t *depth;
	size_t *hits;
	size_t *issue_hits;
	unsigned long transitions;
};

static int run_eq(const struct fsm_run *a, const struct fsm_run *b)
{
	return a->state == b->state && a->action == b->action &&
	       a->review_enabled == b->review_enabled &&
	       a->review_pending == b->review_pending && a->grant == b->grant &&
	       a->request == b->request && a->queued == b->queued &&
	       a->issue_backed == b->issue_backed && a->candidate == b->candidate &&
	       a->candidate_valid == b->candidate_valid &&
	       a->initial_budget == b->initial_budget && a->remaining == b->remaining;
}

static int add_state(struct explorer *x, const struct fsm_run *r, size_t depth)
{
	for (size_t i = 0; i < x->nseen; i++)
		if (run_eq(&x->seen[i], r))
			return 0;
	cr_assert_lt(x->nseen, MAX_STATES);
	x->seen[x->nseen] = *r;
	x->depth[x->nseen] = depth;
	x->nseen++;
	return 1;
}

/* Every input the explorer tries in a state whose current Action is
 * `current`. */
static size_t build_inputs(struct fsm_input *out, size_t cap, enum fsm_kind current)
{
	static const uint64_t named_submit[] = {
		FSM_F(NAMED_CURRENT),
		FSM_F(NAMED_CURRENT) | FSM_F(PRIOR) | FSM_F(PRIOR_SAME),
		FSM_F(NAMED_CURRENT) | FSM_F(PRIOR),
		0,
		FSM_F(NAMED_VOIDED),
		FSM_F(NAMED_VOIDED) | FSM_F(PRIOR) | FSM_F(PRIOR_SAME),
	};
	static const uint64_t git[] = { 0, FSM_F(CHANGED), FSM_F(GIT_FAILED) };
	size_t n = 0;

	/* start */
	static const unsigned start_budgets[] = { 1, 2, 3, 8 };

	for (size_t bi = 0; bi < 4; bi++)
		for (int rev = 0; rev < 2; rev++)
			for (int ib = 0; ib < 2; ib++)
				for (unsigned gf = 0; gf < 2; gf++)
					out[n++] = (struct fsm_input){
						.event = FSM_EV_START,
						.facts = gf ? FSM_F(GIT_FAILED) : 0,
						.budget = start_budgets[bi], .review = rev,
						.issue_backed = ib };
	/* submit: every legal shape for the current kind, plus an illegal one */
	for (int s = 1; s < FSM_STATUS__COUNT; s++)
	for (int p = 0; p < FSM_PAUSE__COUNT; p++)
	for (int res = 0; res < FSM_RESULT__COUNT; res++)
	for (int sk = 0; sk < FSM_KIND__COUNT; sk++) {
		struct fsm_outcome_shape o = { .kind = current ? current : FSM_KIND_ORIENT,
					       .status = (enum fsm_status)s,
					       .pause = (enum fsm_pause)p };

		o.has_destructive_request = p == FSM_PAUSE_DESTRUCTIVE;
		if (res && tbl_result_branch[res] == FSM_BRANCH_IMPLEMENTATION) {
			o.has_implementation = 1;
			o.implementation = (enum fsm_result)res;
		} else if (res) {
			o.has_review = 1;
			o.review = (enum fsm_result)res;
			o.findings = res == FSM_RESULT_FINDINGS;
		}
		if (sk) {
			o.suggestions = 1;
			o.suggestion_kind = (enum fsm_kind)sk;
		}
		if (fsm_outcome_check(&o) != FSM_VIOLATION_NONE &&
		    !(s == FSM_STATUS_COMPLETED && p == 0 && res == 0 && sk == FSM_KIND_ORIENT))
			continue;	/* one illegal shape stands for all */
		for (size_t k = 0; k < sizeof(named_submit) / sizeof(*named_submit); k++)
			for (size_t g = 0; g < 3; g++)
				for (unsigned sup = 0; sup < 2; sup++) {
					cr_assert_lt(n, cap);
					out[n++] = (struct fsm_input){
						.event = FSM_EV_SUBMIT,
						.facts = named_submit[k] | git[g] |
							 (sup ? FSM_F(SUPERSEDE_INVALID) : 0),
						.outcome = o };
				}
	}
	/* answer */
	for (unsigned f = 0; f < 256; f++) {
		uint64_t facts = 0;

		facts |= (f & 1) ? FSM_F(NAMED_CURRENT) : 0;
		facts |= (f & 2) ? FSM_F(PRIOR) : 0;
		facts |= (f & 4) ? FSM_F(PRIOR_SAME) | FSM_F(PRIOR) : 0;
		facts |= (f & 8) ? FSM_F(TEXT_BLANK) : 0;
		facts |= (f & 16) ? FSM_F(CONFIRM) : 0;
		facts |= (f & 32) ? FSM_F(REQUEST_INVALID) : 0;
		facts |= (f & 64) ? FSM_F(SUPERSEDE_INVALID) : 0;
		for (int scope = 0; scope < 4; scope++) {
			uint64_t sf = facts;

			if (scope >= 1)
				sf |= FSM_F(SCOPE_GIVEN);
			if (scope >= 2)
				sf |= FSM_F(SCOPE_WELLFORMED);
			if (scope >= 3)
				sf |= FSM_F(SCOPE_MATCH);
			if (f & 128)
				continue;
			cr_assert_lt(n, cap);
			out[n++] = (struct fsm_input){ .event = FSM_EV_ANSWER, .facts = sf };
		}
	}
	/* skip, stop, resume */
	for (int cur = 0; cur < 2; cur++)
		for (size_t g = 0; g < 3; g++)
			out[n++] = (struct fsm_input){
				.event = FSM_EV_SKIP,
				.facts = (cur ? FSM_F(NAMED_CURRENT) : 0) | git[g] };
	out[n++] = (struct fsm_input){ .event = FSM_EV_STOP };
	for (unsigned b = 0; b < 3; b++)	/* none, --budget 1, --budget 8 */
		for (int so = 0; so < 2; so++)
			out[n++] = (struct fsm_input){
				.event = FSM_EV_RESUME,
				.facts = (b ? FSM_F(BUDGET_GIVEN) : 0) |
					 (so ? FSM_F(SOURCE_OPTIONS) : 0),
				.budget = b == 2 ? 8 : b };
	for (unsigned b = 0; b < 3; b++) {	/* --use-pinned-source / --source-file [--budget N] */
		out[n++] = (struct fsm_input){
			.event = FSM_EV_RESUME_PINNED,
			.facts = b ? FSM_F(BUDGET_GIVEN) : 0,
			.budget = b == 2 ? 8 : b };
		out[n++] = (struct fsm_input){
			.event = FSM_EV_RESUME_REFRESH,
			.facts = b ? FSM_F(BUDGET_GIVEN) : 0,
			.budget = b == 2 ? 8 : b };
		out[n++] = (struct fsm_input){
			.event = FSM_EV_CHOOSE_PINNED,
			.facts = b ? FSM_F(BUDGET_GIVEN) : 0,
			.budget = b == 2 ? 8 : b };
		out[n++] = (struct fsm_input){
			.event = FSM_EV_CHOOSE_ADOPT,
			.facts = b ? FSM_F(BUDGET_GIVEN) : 0,
			.budget = b == 2 ? 8 : b };
	}
	/* a refreshed envelope that becomes a candidate (budget untouched) */
	out[n++] = (struct fsm_input){ .event = FSM_EV_CANDIDATE_INVALID };
	out[n++] = (struct fsm_input){ .event = FSM_EV_CANDIDATE_VALID };
	return n;
}

static void check_invariants(const struct fsm_run *before, const struct fsm_input *in,
			     const struct fsm_step *st)
{
	const struct fsm_run *r = &st->run;
	const char *where = tbl_state_name[before->state];

	cr_assert_neq(st->rule, FSM_NO_RULE, "no rule in %s for %s", where,
		      tbl_event_name[in->event]);
	if (st->verdict == FSM_REJECT || st->verdict == FSM_IDEMPOTENT) {
		cr_assert(run_eq(before, r), "a refused event changed the run in %s", where);
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
	if (in->event == FSM_EV_CANDIDATE_INVALID || in->event == FSM_EV_CANDIDATE_VALID)
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
	    in->event == FSM_EV_RESUME_REFRESH || in->event == FSM_EV_CANDIDATE_INVALID ||
	    in->event == FSM_EV_CANDIDATE_VALID || in->event == FSM_EV_CHOOSE_PINNED ||
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

Test(fsm_model, every_reachable_state_keeps_the_invariants, .timeout = 120)
{
	struct explorer x = { 0 };
	size_t kinds_inputs[FSM_KIND__COUNT];
	static struct fsm_input per_kind[FSM_KIND__COUNT][40000 / 6];
	size_t max_depth = 0;
	struct fsm_run fresh = { .state = FSM_ST_NEW };

	x.seen = calloc(MAX_STATES, sizeof(*x.seen));
	x.depth = calloc(MAX_STATES, sizeof(*x.depth));
	x.hits = calloc(tbl_rules_len, sizeof(*x.hits));
	x.issue_hits = calloc(tbl_issue_rules_len, sizeof(*x.issue_hits));
	cr_assert(x.seen && x.depth && x.hits && x.issue_hits);
	for (int k = 0; k < FSM_KIND__COUNT; k++)
		kinds_inputs[k] = build_inputs(per_kind[k], 40000 / 6, (enum fsm_kind)k);
	add_state(&x, &fresh, 0);
	/* Breadth first: x.seen grows while it is walked. */
	for (size_t i = 0; i < x.nseen; i++) {
		struct fsm_run cur = x.seen[i];
		size_t d = x.depth[i];

		if (d > max_depth)
			max_depth = d;
		for (size_t k = 0; k < kinds_inputs[cur.action]; k++) {
			const struct fsm_input *in = &per_kind[cur.action][k];
			struct fsm_step st = fsm_step(&cur, in);

			x.transitions++;
			check_invariants(&cur, in, &st);
			if (st.rule != FSM_NO_RULE)
				x.hits[st.rule]++;
			if (st.issue_rule != FSM_NO_RULE)
				x.issue_hits[st.issue_rule]++;
			if (st.verdict == FSM_APPLY || st.verdict == FSM_APPLY_ERROR)
				add_state(&x, &st.run, d + 1);
		}
	}
	for (size_t i = 0; i < tbl_rules_len; i++)
		cr_expect(x.hits[i] > 0, "row %zu (%s) never fires from a fresh Run", i,
			  tbl_rules[i].why);
	for (size_t i = 0; i < tbl_issue_rules_len; i++)
		cr_expect(x.issue_hits[i] > 0, "issue row %zu never fires", i);
	cr_expect_geq(max_depth, 8, "exploration reached depth %zu only", max_depth);
	printf("fsm_model: %zu reachable run states (the whole closure, deepest first reached at depth %zu), %lu transitions checked\n",
	       x.nseen, max_depth, x.transitions);
	free(x.seen);
	free(x.depth);
	free(x.hits);
	free(x.issue_hits);
}
