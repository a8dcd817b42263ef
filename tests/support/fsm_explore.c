/* The model checker's walk (see fsm_explore.h). */

#include "tests/support/fsm_explore.h"

#include <assert.h>
#include <stdlib.h>

#define MAX_STATES 200000
#define MAX_INPUTS (40000 / 6)

int fsm_explore_run_eq(const struct fsm_run *a, const struct fsm_run *b)
{
	return a->state == b->state && a->action == b->action &&
	       a->review_enabled == b->review_enabled &&
	       a->review_pending == b->review_pending && a->grant == b->grant &&
	       a->request == b->request && a->queued == b->queued &&
	       a->issue_backed == b->issue_backed && a->candidate == b->candidate &&
	       a->candidate_valid == b->candidate_valid &&
	       a->initial_budget == b->initial_budget && a->remaining == b->remaining;
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
					assert(n < cap);
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
			assert(n < cap);
			out[n++] = (struct fsm_input){ .event = FSM_EV_ANSWER, .facts = sf };
		}
	}
	/* answer to a damaged destructive pause: the other faults the request's
	 * re-validation finds (each alone, as the gatherer reports the first) */
	static const uint64_t faults[] = { FSM_F(REQUEST_MISSING), FSM_F(SCOPE_CHANGED), FSM_F(GRANT_HELD) };

	for (size_t k = 0; k < sizeof(faults) / sizeof(*faults); k++)
		for (unsigned f = 0; f < 4; f++)
			for (int scope = 0; scope < 4; scope++) {
				uint64_t sf = faults[k] | ((f & 1) ? FSM_F(NAMED_CURRENT) : 0) |
					      ((f & 2) ? FSM_F(CONFIRM) : 0);

				if (scope >= 1)
					sf |= FSM_F(SCOPE_GIVEN);
				if (scope >= 2)
					sf |= FSM_F(SCOPE_WELLFORMED);
				if (scope >= 3)
					sf |= FSM_F(SCOPE_MATCH);
				assert(n < cap);
				out[n++] = (struct fsm_input){ .event = FSM_EV_ANSWER, .facts = sf };
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
	/* --source-file: what comparing the envelope with the pinned source
	 * can find (each difference alone, and an amendment both ways) */
	static const uint64_t refresh[] = {
		0,
		FSM_F(REVISION_CHANGED),
		FSM_F(PROJECTION_CHANGED),
		FSM_F(PROVIDER_DIFFERS),
		FSM_F(ISSUE_DIFFERS),
		FSM_F(ALIASES_FULL),
		FSM_F(MERGED_INVALID),
		FSM_F(BODY_INVALID),
		FSM_F(HISTORY_EDITED),
		FSM_F(MANIFEST_CHANGED) | FSM_F(REQUIREMENTS_CHANGED),
		FSM_F(MANIFEST_CHANGED) | FSM_F(PARENT_MATCH) | FSM_F(REQUIREMENTS_CHANGED),
		FSM_F(REQUIREMENTS_CHANGED),
	};
	/* --source-choice: the waiting candidate, another one, or one an
	 * earlier choice resolved (the same choice or the other) */
	static const uint64_t choice[] = {
		FSM_F(CANDIDATE_NAMED),
		0,
		FSM_F(CHOICE_RESOLVED),
		FSM_F(CHOICE_RESOLVED) | FSM_F(CHOICE_SAME),
	};
	for (unsigned b = 0; b < 3; b++) {	/* --use-pinned-source / --source-file [--budget N] */
		uint64_t bf = b ? FSM_F(BUDGET_GIVEN) : 0;

		out[n++] = (struct fsm_input){
			.event = FSM_EV_RESUME_PINNED, .facts = bf, .budget = b == 2 ? 8 : b };
		for (size_t k = 0; k < sizeof(refresh) / sizeof(*refresh); k++)
			out[n++] = (struct fsm_input){
				.event = FSM_EV_RESUME_REFRESH, .facts = bf | refresh[k],
				.budget = b == 2 ? 8 : b };
		for (size_t k = 0; k < sizeof(choice) / sizeof(*choice); k++) {
			out[n++] = (struct fsm_input){
				.event = FSM_EV_CHOOSE_PINNED, .facts = bf | choice[k],
				.budget = b == 2 ? 8 : b };
			out[n++] = (struct fsm_input){
				.event = FSM_EV_CHOOSE_ADOPT, .facts = bf | choice[k],
				.budget = b == 2 ? 8 : b };
		}
	}
	assert(n < cap);
	return n;
}

int fsm_explore(struct fsm_explore_stats *out, fsm_explore_visit_fn *visit,
		void *payload)
{
	static struct fsm_input per_kind[FSM_KIND__COUNT][MAX_INPUTS];
	size_t kinds_inputs[FSM_KIND__COUNT];
	struct fsm_run fresh = { .state = FSM_ST_NEW };
	struct fsm_run *seen = calloc(MAX_STATES, sizeof(*seen));
	size_t *depth = calloc(MAX_STATES, sizeof(*depth));
	size_t nseen = 0;
	int rc = 0;

	*out = (struct fsm_explore_stats){ 0 };
	if (seen == NULL || depth == NULL) {
		rc = -1;
		goto done;
	}
	for (int k = 0; k < FSM_KIND__COUNT; k++)
		kinds_inputs[k] = build_inputs(per_kind[k], MAX_INPUTS, (enum fsm_kind)k);
	seen[nseen++] = fresh;
	/* Breadth first: seen[] grows while it is walked. */
	for (size_t i = 0; i < nseen && rc == 0; i++) {
		struct fsm_run cur = seen[i];

		if (depth[i] > out->max_depth)
			out->max_depth = depth[i];
		for (size_t k = 0; k < kinds_inputs[cur.action]; k++) {
			const struct fsm_input *in = &per_kind[cur.action][k];
			struct fsm_step st = fsm_step(&cur, in);
			size_t j;

			out->transitions++;
			visit(&cur, in, &st, depth[i], payload);
			if (st.verdict != FSM_APPLY && st.verdict != FSM_APPLY_ERROR)
				continue;
			for (j = 0; j < nseen && !fsm_explore_run_eq(&seen[j], &st.run); j++)
				;
			if (j < nseen)
				continue;
			if (nseen == MAX_STATES) {
				rc = -1;
				break;
			}
			seen[nseen] = st.run;
			depth[nseen++] = depth[i] + 1;
		}
	}
done:
	out->states = nseen;
	free(seen);
	free(depth);
	return rc;
}
