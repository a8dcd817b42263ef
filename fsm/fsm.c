/* The interpreter of tables/rules.c.  Pure: see fsm/fsm.h. */

#include "fsm/fsm.h"

#include <assert.h>

/* Every needed fact holds and no denied one does. */
static int holds(uint64_t facts, struct fsm_need need, struct fsm_deny deny)
{
	return (facts & need.all) == need.all && !(facts & deny.any);
}

size_t fsm_match(enum fsm_state state, enum fsm_event event, uint64_t facts)
{
	for (size_t i = 0; i < tbl_rules_len; i++) {
		const struct fsm_rule *r = &tbl_rules[i];

		if (!(r->from & (1u << state)))
			continue;
		if (!(r->on & (1u << event)))
			continue;
		if (!holds(facts, r->need, r->deny))
			continue;
		return i;
	}
	return FSM_NO_RULE;
}

static size_t next_match(enum fsm_state state, uint64_t facts)
{
	for (size_t i = 0; i < tbl_next_rules_len; i++) {
		const struct fsm_next_rule *r = &tbl_next_rules[i];

		if ((r->from & (1u << state)) && holds(facts, r->need, r->deny))
			return i;
	}
	return FSM_NO_RULE;
}

/* Facts of the run that the next rules read. */
static uint64_t state_facts(const struct fsm_run *run)
{
	uint64_t f = 0;

	if (run->action != FSM_KIND_NONE)
		f |= FSM_F(HAS_ACTION);
	if (run->remaining >= 1)
		f |= FSM_F(BUDGET);
	if (run->review_enabled)
		f |= FSM_F(REVIEW_ENABLED);
	if (tbl_kind_observes_git[run->action])
		f |= FSM_F(OBSERVES);
	if (run->action == FSM_KIND_REVIEW)
		f |= FSM_F(KIND_REVIEW);
	if (run->action == FSM_KIND_SUMMARIZE)
		f |= FSM_F(KIND_SUMMARIZE);
	if (run->issue_backed)
		f |= FSM_F(ISSUE_BACKED);
	if (run->candidate)
		f |= FSM_F(CANDIDATE);
	if (run->candidate && run->candidate_valid)
		f |= FSM_F(CANDIDATE_VALID);
	if (run->queued)
		f |= FSM_F(QUEUED);
	return f;
}

const struct fsm_next_rule *fsm_next(const struct fsm_run *run, size_t *rule)
{
	size_t i = next_match(run->state, state_facts(run));

	if (rule)
		*rule = i;
	return i == FSM_NO_RULE ? NULL : &tbl_next_rules[i];
}

uint64_t fsm_run_facts(const struct fsm_run *run)
{
	uint64_t f = state_facts(run);
	const struct fsm_next_rule *n = fsm_next(run, NULL);

	if (n != NULL && n->op == TBL_NEXTOP_RESUME)
		f |= FSM_F(NEXT_RESUME);
	return f;
}

static uint64_t outcome_facts(const struct fsm_outcome_shape *o)
{
	uint64_t f = 0;

	if (o->status == FSM_STATUS_NEEDS_INPUT)
		f |= FSM_F(NEEDS_INPUT);
	if (o->suggestions > 0)
		f |= FSM_F(SUGGESTION);
	if (o->pause == FSM_PAUSE_DECISION_REQUIRED)
		f |= FSM_F(ASK_DECISION);
	if (o->pause == FSM_PAUSE_ENVIRONMENT)
		f |= FSM_F(ASK_ENVIRONMENT);
	if (o->pause == FSM_PAUSE_DESTRUCTIVE)
		f |= FSM_F(ASK_DESTRUCTIVE);
	return f;
}

/* Issues `kind` from `next` through the issue table. */
static void issue(struct fsm_step *out, enum fsm_kind kind)
{
	struct fsm_run *r = &out->run;
	uint64_t f = r->remaining >= 1 ? FSM_F(BUDGET) : 0;

	for (size_t i = 0; i < tbl_issue_rules_len; i++) {
		const struct fsm_issue_rule *ir = &tbl_issue_rules[i];

		if (!holds(f, ir->need, ir->deny))
			continue;
		out->issue_rule = i;
		r->state = ir->to;
		if (ir->issues) {
			r->remaining--;
			r->action = kind;
			out->issued = kind;
		} else {
			r->action = FSM_KIND_NONE;
			r->grant = 0;
			r->request = 0;
			out->brief = FSM_BRIEF_NONE;
		}
		return;
	}
	assert(0 && "the issue table covers every case");
}

/* Every fact the rules see for `in` on `run`: the input ones, the run's
 * and the Outcome's; *violation says why an Outcome is invalid. */
static uint64_t step_facts(const struct fsm_run *run, const struct fsm_input *in,
			   enum fsm_violation *violation)
{
	uint64_t facts = (in->facts & tbl_facts_input) | fsm_run_facts(run);

	*violation = FSM_VIOLATION_NONE;
	if (!(facts & FSM_F(HAS_ACTION)))
		facts &= ~FSM_F(NAMED_CURRENT);
	if (in->event == FSM_EV_SUBMIT) {
		facts |= outcome_facts(&in->outcome);
		if (run->action != FSM_KIND_NONE && in->outcome.kind != run->action)
			*violation = FSM_VIOLATION_KIND_MISMATCH;
		else
			*violation = fsm_outcome_check(&in->outcome);
		if (*violation != FSM_VIOLATION_NONE)
			facts |= FSM_F(OUTCOME_INVALID);
	}
	if (in->event == FSM_EV_START && in->review)
		facts |= FSM_F(REVIEW_ENABLED);
	return facts;
}

/* The effects row `r` carries out under `facts`: the observation is
 * recorded only for a kind that observes Git. */
static uint32_t row_ops(const struct fsm_rule *r, uint64_t facts)
{
	return (facts & FSM_F(OBSERVES)) ? r->ops : r->ops & ~FSM_OP(OBSERVE);
}

uint64_t fsm_wants(const struct fsm_run *run, const struct fsm_input *in)
{
	enum fsm_violation v;
	uint64_t facts = step_facts(run, in, &v) & ~tbl_facts_git;

	assert(run->state > FSM_ST_INVALID && run->state < FSM_ST__COUNT);
	assert(in->event > FSM_EV_INVALID && in->event < FSM_EV__COUNT);
	for (size_t i = 0; i < tbl_rules_len; i++) {
		const struct fsm_rule *r = &tbl_rules[i];
		uint64_t reads = (r->need.all | r->deny.any) & tbl_facts_git;
		struct fsm_need need = { r->need.all & ~tbl_facts_git };
		struct fsm_deny deny = { r->deny.any & ~tbl_facts_git };

		if (!(r->from & (1u << run->state)) || !(r->on & (1u << in->event)) ||
		    !holds(facts, need, deny))
			continue;
		if (reads)
			return reads;
		/* This row matches whatever Git says. */
		return (row_ops(r, facts) & tbl_ops_git) ? tbl_facts_git : 0;
	}
	return 0;
}

/* The note of the fired row `r` under `facts`. */
static void note(struct fsm_step *out, const struct fsm_rule *r, uint64_t facts)
{
	for (size_t i = 0; i < tbl_note_rules_len; i++) {
		const struct fsm_note_rule *n = &tbl_note_rules[i];

		if (n->row == r->id && holds(facts, n->need, n->deny)) {
			out->note = n->note;
			out->note_rule = i;
			return;
		}
	}
	assert(0 && "a row that records a note has one for every fact set");
}

struct fsm_step fsm_step(const struct fsm_run *run, const struct fsm_input *in)
{
	struct fsm_step out = { FSM_REJECT, TBL_ERR_RUNTIME_ERROR,
				FSM_VIOLATION_NONE, *run, 0, FSM_KIND_NONE,
				FSM_BRIEF_NONE, FSM_NO_RULE, FSM_NO_RULE, 0,
				TBL_JEVENT_INVALID, NULL, FSM_NO_RULE };
	const struct fsm_rule *r;
	struct fsm_run *n = &out.run;
	uint64_t facts;

	assert(run->state > FSM_ST_INVALID && run->state < FSM_ST__COUNT);
	assert(in->event > FSM_EV_INVALID && in->event < FSM_EV__COUNT);

	facts = step_facts(run, in, &out.violation);
	out.facts = facts;
	out.rule = fsm_match(run->state, in->event, facts);
	if (out.rule == FSM_NO_RULE)
		return out;
	r = &tbl_rules[out.rule];
	out.verdict = r->verdict;
	out.err = r->err;
	if (r->verdict == FSM_REJECT)
		return out;
	out.ops = row_ops(r, facts);
	if (r->verdict == FSM_IDEMPOTENT)
		return out;	/* its effects only shape the answer */

	/* Apply.  Every applied event clears the destructive grant: it lives on
	 * exactly one issued Implement, and only a confirmation creates it. */
	out.journal = r->journal != TBL_JEVENT_INVALID ? r->journal : tbl_event_journal[in->event];
	if (out.ops & FSM_OP(NOTE))
		note(&out, r, facts);
	n->grant = 0;
	n->request = (r->ops & FSM_OP(RECORD_REQUEST)) ? 1 : 0;
	if (r->ops & FSM_OP(CREATE)) {
		n->initial_budget = n->remaining = in->budget;
		n->review_enabled = in->review ? 1 : 0;
		n->issue_backed = in->issue_backed ? 1 : 0;
		n->review_pending = 0;
		n->queued = 0;
		n->candidate = n->candidate_valid = 0;
	}
	if (out.ops & FSM_OP(OBSERVE))
		n->review_pending = run->review_enabled && (facts & FSM_F(CHANGED)) ? 1 : 0;
	if (r->ops & FSM_OP(CLEAR_REVIEW))
		n->review_pending = 0;
	if ((r->ops & FSM_OP(QUEUE)) && (facts & FSM_F(SUGGESTION)))
		n->queued = 1;
	if (r->ops & (FSM_OP(POP) | FSM_OP(DROP_QUEUE) | FSM_OP(CLEAR_QUEUE)))
		n->queued = 0;
	if (r->ops & (FSM_OP(CANDIDATE_INVALID) | FSM_OP(CANDIDATE_VALID))) {
		n->candidate = 1;
		n->candidate_valid = (r->ops & FSM_OP(CANDIDATE_VALID)) ? 1 : 0;
	}
	if (r->ops & FSM_OP(CANDIDATE_CLEAR))
		n->candidate = n->candidate_valid = 0;
	if (r->ops & FSM_OP(RESUME_BUDGET)) {
		if (facts & FSM_F(BUDGET_GIVEN))
			n->remaining = in->budget;
		else if (n->remaining == 0)
			n->remaining = n->initial_budget > FSM_MIN_RESUME_BUDGET
					       ? n->initial_budget
					       : FSM_MIN_RESUME_BUDGET;
	}
	out.brief = r->brief;
	switch (r->issue) {
	case FSM_ISSUE_KIND:
		issue(&out, r->kind);
		break;
	case FSM_ISSUE_SUGGESTED:
		issue(&out, in->outcome.suggestion_kind);
		break;
	case FSM_ISSUE_END:
		n->state = FSM_ST_ENDED;
		n->action = FSM_KIND_NONE;
		n->request = 0;
		break;
	case FSM_ISSUE_NONE:
		if (r->to != FSM_ST_INVALID)
			n->state = r->to;
		if (!(r->ops & FSM_OP(KEEP_ACTION)))
			n->action = FSM_KIND_NONE;
		break;
	}
	if (out.issued != FSM_KIND_NONE && (r->ops & FSM_OP(GRANT)))
		n->grant = 1;
	return out;
}
