/* io/run_history: what a Run's journal says beyond its record, gathered
 * from event data, kept as checkpoint text and queried by the source
 * refresh and choice. */

#include <criterion/criterion.h>
#include <string.h>

#include <jansson.h>

#include "io/util/err.h"
#include "io/util/json.h"
#include "io/store/run_history.h"
#include "io/store/run_record.h"

TestSuite(io_run_history);

#define N1 "IC_node1"
#define N2 "IC_node2"

static json_t *section(const char *node, long long db, const char *title)
{
	return json_pack("{s:s, s:s, s:s, s:{s:s, s:I}}", "key", "scope", "role", "scope", "title",
			 title, "provenance", "comment_node_id", node, "comment_database_id",
			 (json_int_t)db);
}

static json_t *pinned(json_t *sec)
{
	return json_pack("{s:[o]}", "sections", sec);
}

static struct run_history *gathered(void)
{
	struct sw_error err = SW_ERROR_INIT;
	struct run_history *h = NULL;
	json_t *start = json_pack("{s:{s:o}}", "initialize", "pinned_source",
				  pinned(section(N1, 11, "first")));
	json_t *choice = json_pack("{s:{s:{s:s, s:s}, s:{s:s}}}", "set", "last_source_choice",
				   "candidate_id", "cand-1", "choice", "adopt", "last_resume_result",
				   "operation", "resume_adopt");
	json_t *later = json_pack("{s:{s:o}}", "set", "pinned_source",
				  pinned(section(N1, 11, "renamed")));

	cr_assert_eq(run_history_new(&h, &err), 0);
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_RUN_STARTED, start, &err), 0);
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_SOURCE_AMENDED, choice, &err), 0);
	/* The same receipt in another event type is no choice. */
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_RUN_RESUMED, choice, &err), 0);
	/* A later pin of the same comment does not replace the first. */
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_SOURCE_REFRESHED, later, &err), 0);
	json_decref(start);
	json_decref(choice);
	json_decref(later);
	return h;
}

Test(io_run_history, a_choice_is_found_by_its_candidate)
{
	struct run_history *h = gathered();
	const json_t *receipt, *result;
	const char *choice;

	cr_assert_eq(run_history_choice(h, "cand-1", &choice, &receipt, &result), 1);
	cr_assert_str_eq(choice, "adopt");
	cr_assert_str_eq(json_string_value(json_object_get(result, "operation")), "resume_adopt");
	cr_assert_eq(run_history_choice(h, "cand-2", &choice, &receipt, &result), 0);
	cr_assert_null(choice);
	cr_assert_null(receipt);
	cr_assert_null(result);
	run_history_free(h);
}

Test(io_run_history, accepted_comments_are_never_rebound_or_edited_in_place)
{
	struct run_history *h = gathered();
	json_t *same = json_pack("[o]", section(N1, 11, "first"));
	json_t *edited = json_pack("[o]", section(N1, 11, "renamed"));
	json_t *rebound = json_pack("[o]", section(N1, 12, "first"));
	json_t *moved = json_pack("[o]", section(N2, 11, "first"));
	json_t *fresh = json_pack("[o]", section(N2, 13, "new"));
	char why[300];

	cr_assert_eq(run_history_violation(h, same, why, sizeof(why)), 0);
	cr_assert_eq(run_history_violation(h, fresh, why, sizeof(why)), 0);
	cr_assert_eq(run_history_violation(h, edited, why, sizeof(why)), 1);
	cr_assert(strstr(why, "changed in place"), "%s", why);
	cr_assert_eq(run_history_violation(h, rebound, why, sizeof(why)), 1);
	cr_assert(strstr(why, "rebound to another database id"), "%s", why);
	cr_assert_eq(run_history_violation(h, moved, why, sizeof(why)), 1);
	cr_assert(strstr(why, "database id 11 was rebound to another node"), "%s", why);
	json_decref(same);
	json_decref(edited);
	json_decref(rebound);
	json_decref(moved);
	json_decref(fresh);
	run_history_free(h);
}

Test(io_run_history, the_text_reads_back_as_the_same_history)
{
	struct sw_error err = SW_ERROR_INIT;
	struct run_history *h = gathered(), *back = NULL;
	char *text = run_history_text(h), *again;
	const json_t *receipt, *result;
	const char *choice;

	cr_assert_not_null(text);
	cr_assert_eq(run_history_from_text(&back, text, &err), 0, "%s", err.msg);
	again = run_history_text(back);
	cr_assert_str_eq(again, text);
	cr_assert_eq(run_history_choice(back, "cand-1", &choice, &receipt, &result), 1);
	sw_free(again);
	run_history_free(back);
	cr_assert_eq(run_history_from_text(&back, "{\"choices\": []}", &err), SW_EPARSE);
	cr_assert_null(back);
	cr_assert_eq(run_history_from_text(&back, NULL, &err), SW_EPARSE);
	sw_free(text);
	run_history_free(h);
}

/* Every allocation failing in turn: ENOMEM, never a crash or a leak. */
Test(io_run_history, each_failed_allocation_is_enomem)
{
	struct sw_error err = SW_ERROR_INIT;
	struct run_history *h = gathered(), *back = NULL;
	char *text = run_history_text(h);
	unsigned long n;
	int rc;

	for (n = 1;; n++) {
		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = run_history_from_text(&back, text, &err);
		sw_alloc_fail_after(0);
		if (rc == 0)
			break;
		cr_assert(rc == SW_ENOMEM || rc == SW_EPARSE, "allocation %lu: %d", n, rc);
		cr_assert_null(back);
	}
	run_history_free(back);
	sw_free(text);
	run_history_free(h);
}

/* The Run's history: a budget pause, a resume with its budget, a stop and
 * a refresh, each at its place among the Actions issued before it; an
 * outcome that neither stops, resumes nor pauses for budget is no event. */
Test(io_run_history, stops_resumes_and_budget_pauses_are_kept_in_order)
{
	struct sw_error err = SW_ERROR_INIT;
	struct run_history *h = NULL, *back = NULL;
	json_t *start = json_pack("{s:{s:I, s:[{}]}}", "initialize", "remaining_budget", (json_int_t)0,
				  "actions");
	json_t *paused = json_pack("{s:{s:s, s:s}}", "set", "state", "paused", "pause_reason",
				   "budget_exhausted");
	json_t *resumed = json_pack("{s:{s:s, s:I}, s:{s:[{}]}}", "set", "state", "active",
				    "remaining_budget", (json_int_t)4, "append", "actions");
	json_t *stopped = json_pack("{s:{s:s}}", "set", "state", "stopped");
	json_t *candidate = json_pack("{s:{s:s}}", "set", "pause_reason", "decision_required");
	const struct run_event *ev;
	size_t n = 0;
	char *text;

	cr_assert_eq(run_history_new(&h, &err), 0);
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_RUN_STARTED, start, &err), 0);
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_OUTCOME_SUBMITTED, paused, &err), 0);
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_RUN_RESUMED, resumed, &err), 0);
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_OUTCOME_SUBMITTED, stopped, &err), 0);
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_RUN_STOPPED, stopped, &err), 0);
	cr_assert_eq(run_history_gather(h, TBL_JEVENT_SOURCE_CANDIDATE_CREATED, candidate, &err), 0);
	ev = run_history_events(h, &n);
	cr_assert_eq(n, 4);
	cr_expect_eq(ev[0].pause, FSM_PAUSE_BUDGET_EXHAUSTED);
	cr_expect_eq(ev[0].after, 1);
	cr_expect_eq(ev[0].budget, -1);
	cr_expect_eq(ev[1].type, TBL_JEVENT_RUN_RESUMED);
	cr_expect_eq(ev[1].after, 1, "a resume comes before the Action it issues");
	cr_expect_eq(ev[1].budget, 5, "the budget it set, the new Action's unit included");
	cr_expect_eq(ev[2].type, TBL_JEVENT_RUN_STOPPED);
	cr_expect_eq(ev[2].after, 2);
	cr_expect_eq(ev[3].type, TBL_JEVENT_SOURCE_CANDIDATE_CREATED);
	cr_expect_eq(ev[3].pause, FSM_PAUSE_NONE);
	/* The checkpoint text carries it; a text without it is refused, so a
	 * full replay gathers it. */
	text = run_history_text(h);
	cr_assert_eq(run_history_from_text(&back, text, &err), 0, "%s", err.msg);
	ev = run_history_events(back, &n);
	cr_expect_eq(n, 4);
	cr_expect_eq(ev[1].budget, 5);
	run_history_free(back);
	cr_expect_eq(run_history_from_text(&back, "{\"choices\":[],\"accepted\":{},\"accepted_db\":{}}", &err),
		     SW_EPARSE);
	cr_expect_null(back);
	sw_free(text);
	json_decref(start);
	json_decref(paused);
	json_decref(resumed);
	json_decref(stopped);
	json_decref(candidate);
	run_history_free(h);
}
