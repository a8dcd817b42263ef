#ifndef TESTS_SUPPORT_FSM_EXPLORE_H
#define TESTS_SUPPORT_FSM_EXPLORE_H

/* The model checker's walk: every run state reachable from a fresh Run,
 * breadth first, under every input the explorer tries (each event with
 * the fact combinations that matter).  Shared by tests/fsm/test_fsm.c,
 * which asserts the invariants on each transition, and mk/gen/gendocs_dot.c,
 * which draws docs/diagrams/run-states.dot from the transitions that apply. */

#include <stddef.h>

#include "fsm/fsm.h"

/* Called for every input tried in every reachable state; `depth` is the
 * number of steps from the fresh Run to `before`. */
typedef void fsm_explore_visit_fn(const struct fsm_run *before,
				  const struct fsm_input *in,
				  const struct fsm_step *st, size_t depth,
				  void *payload);

struct fsm_explore_stats {
	size_t states;			/* reachable run states */
	size_t max_depth;		/* deepest first reach */
	unsigned long transitions;	/* inputs tried */
};

/* Walks the closure.  Returns 0, or -1 when memory ran out or the closure
 * outgrew its bound (a broken table); `out` is filled either way. */
int fsm_explore(struct fsm_explore_stats *out, fsm_explore_visit_fn *visit,
		void *payload);

/* True when two runs are the same state for the explorer. */
int fsm_explore_run_eq(const struct fsm_run *a, const struct fsm_run *b);

#endif
