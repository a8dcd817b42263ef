/* The journal append is made durable before a mutation commits.  The
 * store's fault seam (store_fault_arm) counts its write and fsync steps;
 * failing each in turn and reading the phase the failure is reported in
 * (store_last_failure) gives their order.  The journal's fsync must be a
 * step of its own, the one right after the journal's write, and the
 * commit point of an update: failed there, nothing is committed and the
 * journal is as it was; failed at any later step, the mutation is
 * reported committed.  Removing the fsync, or moving it, fails these
 * tests; the crash walks (test_store_crash.c) cannot see it, as a process
 * killed in a test loses nothing the kernel holds. */

#include "tests/io/store_helpers.h"

TestSuite(io_store_sync, .init = scratch_init, .fini = scratch_fini);

#define MAX_STEPS 200

struct step {
	char phase[32];
	bool committed;
	enum tbl_err code;
	long long events;	/* in the journal afterwards */
};

static long long events_of(const char *id)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(false);
	long long count = -1;

	cr_assert_eq(store_visit(s, id, NULL, NULL, &count, &err), 0, "%s: %s", id, err.msg);
	store_free(s);
	return count;
}

/* Fails each write and fsync of an update (or, with `create`, of a create)
 * in turn, each time on a Run of its own; fills steps[] and returns how
 * many steps there were. */
static size_t walk(bool create, struct step *steps)
{
	size_t n;

	for (n = 0; n < MAX_STEPS; n++) {
		struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{\"n\":1}", "{\"p\":2}",
				      "material bytes", "", 0 };
		struct sw_error err = SW_ERROR_INIT;
		struct store *s = open_store(true);
		const struct store_failure *f;
		char id[64];
		int rc, fired;

		snprintf(id, sizeof(id), "%s-%zu", create ? "create" : "update", n + 1);
		if (create) {
			a.type = TBL_JEVENT_RUN_STARTED;
		} else {
			make_run(s, id);
		}
		store_fault_arm(STORE_STEP_WRITE | STORE_STEP_FSYNC, n + 1, STORE_FAULT_FAIL);
		rc = create ? store_create(s, id, add_events, &a, &err)
			    : store_update(s, id, NULL, add_events, &a, &err);
		fired = store_fault_fired();
		store_fault_disarm();
		if (!fired) {
			cr_assert_eq(rc, 0, "%s", err.msg);
			store_free(s);
			break;
		}
		cr_assert_lt(rc, 0, "step %zu failed but the call succeeded", n + 1);
		f = store_last_failure(s);
		cr_assert_not_null(f);
		snprintf(steps[n].phase, sizeof(steps[n].phase), "%s", f->phase);
		steps[n].committed = f->committed;
		steps[n].code = err.proto;
		store_free(s);
		steps[n].events = create && err.proto == TBL_ERR_MUTATION_NOT_COMMITTED ? 0 : events_of(id);
	}
	cr_assert_lt(n, MAX_STEPS);
	return n;
}

/* The index of the step reported in `phase`, checked to be the only one;
 * -1 when none is. */
static long find(const struct step *steps, size_t n, const char *phase)
{
	long at = -1;

	for (size_t i = 0; i < n; i++)
		if (strcmp(steps[i].phase, phase) == 0) {
			cr_assert_eq(at, -1, "two steps in phase %s (%ld and %zu)", phase, at + 1, i + 1);
			at = (long)i;
		}
	return at;
}

static void listing(const struct step *steps, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, " %zu:%s(%s,%d,%lld)", i + 1, steps[i].phase, tbl_err_wire[steps[i].code], steps[i].committed, steps[i].events);
}

Test(io_store_sync, an_update_syncs_the_journal_right_after_writing_it_and_commits_there)
{
	struct step steps[MAX_STEPS];
	size_t n = walk(false, steps);
	long w = find(steps, n, "journal_write"), y = find(steps, n, "journal_sync");
	char order[4096];

	listing(steps, n, order, sizeof(order));
	cr_assert_geq(w, 0, "no write of the journal among the steps:%s", order);
	cr_assert_geq(y, 0, "the journal append is never fsynced:%s", order);
	cr_assert_eq(y, w + 1, "the journal's fsync is not the step after its write:%s", order);
	/* Failed at its fsync: the record is there but not known durable. */
	cr_assert_str_eq(tbl_err_wire[steps[y].code], "mutation_outcome_ambiguous", "%s", order);
	cr_assert_not(steps[y].committed, "%s", order);
	/* Before it nothing is written; after it the update is committed. */
	for (size_t i = 0; i < n; i++) {
		if (i < (size_t)y) {
			cr_assert_str_eq(tbl_err_wire[steps[i].code], "mutation_not_committed",
					 "step %zu:%s", i + 1, order);
			cr_assert_eq(steps[i].events, 1, "step %zu:%s", i + 1, order);
		}
		cr_assert_eq(steps[i].committed, i > (size_t)y, "step %zu:%s", i + 1, order);
	}
}

Test(io_store_sync, a_create_syncs_the_new_journal_right_after_writing_it)
{
	struct step steps[MAX_STEPS];
	size_t n = walk(true, steps);
	long w = find(steps, n, "journal_write"), y = find(steps, n, "journal_sync");
	char order[4096];

	listing(steps, n, order, sizeof(order));
	cr_assert_geq(w, 0, "no write of the journal among the steps:%s", order);
	cr_assert_geq(y, 0, "the new journal is never fsynced:%s", order);
	cr_assert_eq(y, w + 1, "the journal's fsync is not the step after its write:%s", order);
	/* A Run whose journal is not durable is not published. */
	cr_assert_str_eq(tbl_err_wire[steps[y].code], "mutation_not_committed", "%s", order);
	cr_assert_eq(steps[y].events, 0, "%s", order);
}
