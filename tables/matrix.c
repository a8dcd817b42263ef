/* The legal-outcome matrix: for each Action kind and Outcome status, what the
 * Outcome must carry.  A cell left out is illegal (legal = 0). */

#include "tables/machine.h"

#define R(x) (1u << FSM_RESULT_##x)
#define P(x) (1u << FSM_PAUSE_##x)
#define K(x) (1u << FSM_KIND_##x)

#define NULL_PAUSE P(NONE)
#define HOST_PAUSES (P(DECISION_REQUIRED) | P(ENVIRONMENT) | P(DESTRUCTIVE))
#define SUGGESTIBLE (K(CLARIFY) | K(IMPLEMENT) | K(SUMMARIZE))

/* clang-format off */
/*                                                 legal branch                    results                            pauses                                   max  kinds */
const struct fsm_legal tbl_legal[FSM_KIND__COUNT][FSM_STATUS__COUNT] = {
	[FSM_KIND_ORIENT] = {
		[FSM_STATUS_COMPLETED]   = { 1, FSM_BRANCH_NONE,           0,                                  NULL_PAUSE,                              1, SUGGESTIBLE },
		[FSM_STATUS_PARTIAL]     = { 1, FSM_BRANCH_NONE,           0,                                  NULL_PAUSE,                              1, SUGGESTIBLE },
		[FSM_STATUS_ERROR]       = { 1, FSM_BRANCH_NONE,           0,                                  NULL_PAUSE,                              1, SUGGESTIBLE },
		[FSM_STATUS_NEEDS_INPUT] = { 1, FSM_BRANCH_NONE,           0,                                  P(DECISION_REQUIRED) | P(ENVIRONMENT),   0, 0 },
	},
	[FSM_KIND_CLARIFY] = {
		[FSM_STATUS_COMPLETED]   = { 1, FSM_BRANCH_NONE,           0,                                  NULL_PAUSE,                              1, SUGGESTIBLE },
		[FSM_STATUS_ERROR]       = { 1, FSM_BRANCH_NONE,           0,                                  NULL_PAUSE,                              1, SUGGESTIBLE },
		[FSM_STATUS_NEEDS_INPUT] = { 1, FSM_BRANCH_NONE,           0,                                  P(DECISION_REQUIRED) | P(ENVIRONMENT),   0, 0 },
	},
	[FSM_KIND_IMPLEMENT] = {
		[FSM_STATUS_COMPLETED]   = { 1, FSM_BRANCH_IMPLEMENTATION, R(APPLIED) | R(NOT_NEEDED),         NULL_PAUSE,                              0, 0 },
		[FSM_STATUS_PARTIAL]     = { 1, FSM_BRANCH_IMPLEMENTATION, R(PARTIAL),                         NULL_PAUSE,                              0, 0 },
		[FSM_STATUS_ERROR]       = { 1, FSM_BRANCH_IMPLEMENTATION, R(UNABLE),                          NULL_PAUSE,                              0, 0 },
		[FSM_STATUS_NEEDS_INPUT] = { 1, FSM_BRANCH_NONE,           0,                                  HOST_PAUSES,                             0, 0 },
	},
	[FSM_KIND_REVIEW] = {
		[FSM_STATUS_COMPLETED]   = { 1, FSM_BRANCH_REVIEW,         R(NO_FINDINGS) | R(FINDINGS),       NULL_PAUSE,                              0, 0 },
		[FSM_STATUS_PARTIAL]     = { 1, FSM_BRANCH_REVIEW,         R(INCONCLUSIVE),                    NULL_PAUSE,                              0, 0 },
		[FSM_STATUS_ERROR]       = { 1, FSM_BRANCH_REVIEW,         R(REVIEW_ERROR),                    NULL_PAUSE,                              0, 0 },
	},
	[FSM_KIND_SUMMARIZE] = {
		[FSM_STATUS_COMPLETED]   = { 1, FSM_BRANCH_NONE,           0,                                  NULL_PAUSE,                              0, 0 },
		[FSM_STATUS_ERROR]       = { 1, FSM_BRANCH_NONE,           0,                                  NULL_PAUSE,                              0, 0 },
	},
};
/* clang-format on */

_Static_assert(sizeof(tbl_legal) / sizeof(tbl_legal[0]) == FSM_KIND__COUNT,
	       "one matrix row per Action kind");
_Static_assert(sizeof(tbl_legal[0]) / sizeof(tbl_legal[0][0]) == FSM_STATUS__COUNT,
	       "one matrix column per Outcome status");
_Static_assert(FSM_RESULT__COUNT <= 32 && FSM_PAUSE__COUNT <= 32 &&
	       FSM_KIND__COUNT <= 32, "sets are 32-bit masks");
