/* Eight processes race to append to one run, each conditioned on the
 * sequence it observed (compare-and-append inside the locked callback).
 * Per round exactly one wins; the others get a structured error; the
 * journal stays contiguous. */
#include <sys/wait.h>

#include "tests/io/store_helpers.h"

TestSuite(io_store_concurrency, .init = scratch_init, .fini = scratch_fini);

#define WORKERS 8
#define ROUNDS 4

enum { EXIT_WON = 10, EXIT_CONFLICT = 11, EXIT_BUSY = 12, EXIT_OTHER = 13 };

struct cas {
	long long seen;		/* count replayed under the lock */
	long long expected;	/* count observed before the race */
	int worker;
};

static int count_visit(const struct store_event *ev, void *payload,
		       struct sw_error *err)
{
	struct cas *c = payload;

	(void)err;
	c->seen = ev->sequence;
	return 0;
}

static int compare_and_append(struct store_mutation *m, void *payload,
			      struct sw_error *err)
{
	struct cas *c = payload;
	char data[128];
	int n;

	if (c->seen != c->expected)
		return sw_error_proto(err, TBL_ERR_STALE_ACTION,
				      "expected %lld events, found %lld",
				      c->expected, c->seen);
	n = snprintf(data, sizeof(data), "{\"worker\":%d,\"after\":%lld}",
		     c->worker, c->expected);
	if (store_mutation_add_event(m, TBL_JEVENT_OUTCOME_SUBMITTED, data,
				     (size_t)n, err) < 0)
		return -1;
	return store_mutation_set_projection(m, data, (size_t)n, err);
}

static void worker(int id, int ready_fd, int go_fd)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = NULL;
	struct cas c = { 0, 0, id };
	char b = 'r';

	if (store_open(&s, g_common, true, &err) < 0 ||
	    store_visit(s, "race", NULL, NULL, &c.expected, &err) < 0)
		_exit(EXIT_OTHER);
	if (write(ready_fd, &b, 1) != 1 || read(go_fd, &b, 1) != 1)
		_exit(EXIT_OTHER);
	if (store_update(s, "race", count_visit, compare_and_append, &c, &err) == 0)
		_exit(EXIT_WON);
	if (err.proto == TBL_ERR_STALE_ACTION &&
	    store_last_failure(s)->has_mutation &&
	    !store_last_failure(s)->committed)
		_exit(EXIT_CONFLICT);
	if (err.proto == TBL_ERR_RUN_BUSY)
		_exit(EXIT_BUSY);
	_exit(EXIT_OTHER);
}

Test(io_store_concurrency, eight_racing_writers_commit_exactly_one_per_round)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct seen seen = { 0 };
	long long count = 0;

	make_run(s, "race");
	for (int round = 0; round < ROUNDS; round++) {
		int ready[2], go[2], won = 0, lost = 0;
		pid_t pids[WORKERS];
		char b;

		cr_assert_eq(pipe(ready), 0);
		cr_assert_eq(pipe(go), 0);
		fflush(NULL);
		for (int w = 0; w < WORKERS; w++) {
			pids[w] = fork();
			cr_assert_geq(pids[w], 0);
			if (pids[w] == 0) {
				close(ready[0]);
				close(go[1]);
				worker(w, ready[1], go[0]);
			}
		}
		close(ready[1]);
		close(go[0]);
		/* Everyone has observed the same count before anyone writes. */
		for (int w = 0; w < WORKERS; w++)
			cr_assert_eq(read(ready[0], &b, 1), 1);
		for (int w = 0; w < WORKERS; w++)
			cr_assert_eq(write(go[1], "g", 1), 1);
		for (int w = 0; w < WORKERS; w++) {
			int status;

			cr_assert_eq(waitpid(pids[w], &status, 0), pids[w]);
			cr_assert(WIFEXITED(status));
			switch (WEXITSTATUS(status)) {
			case EXIT_WON:
				won++;
				break;
			case EXIT_CONFLICT:
			case EXIT_BUSY:
				lost++;
				break;
			default:
				cr_assert_fail("worker %d exited %d", w, WEXITSTATUS(status));
			}
		}
		close(ready[0]);
		close(go[1]);
		cr_assert_eq(won, 1, "round %d: %d winners", round, won);
		cr_assert_eq(lost, WORKERS - 1);
	}
	cr_assert_eq(store_visit(s, "race", collect, &seen, &count, &err), 0, "%s", err.msg);
	cr_assert_eq(count, 1 + ROUNDS);
	for (int i = 0; i < seen.n; i++)
		cr_assert_eq(seen.seq[i], i + 1);
	for (int i = 1; i < seen.n; i++) {
		char want[32];

		snprintf(want, sizeof(want), "\"after\":%d}", i);
		cr_assert(strstr(seen.data[i], want) != NULL, "%s", seen.data[i]);
	}
	seen_free(&seen);
	store_free(s);
}

Test(io_store_concurrency, racing_creates_of_one_id_make_one_run)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	pid_t pids[WORKERS];
	int won = 0;
	long long count = 0;

	fflush(NULL);
	for (int w = 0; w < WORKERS; w++) {
		pids[w] = fork();
		cr_assert_geq(pids[w], 0);
		if (pids[w] == 0) {
			struct sw_error e = SW_ERROR_INIT;
			struct store *c = NULL;
			struct add_spec a = { 1, TBL_JEVENT_RUN_STARTED, "{}", "{}", NULL, "", 0 };

			if (store_open(&c, g_common, true, &e) < 0)
				_exit(EXIT_OTHER);
			if (store_create(c, "same", add_events, &a, &e) == 0)
				_exit(EXIT_WON);
			_exit(e.proto == TBL_ERR_MUTATION_NOT_COMMITTED ?
			      EXIT_CONFLICT : EXIT_OTHER);
		}
	}
	for (int w = 0; w < WORKERS; w++) {
		int status;

		cr_assert_eq(waitpid(pids[w], &status, 0), pids[w]);
		cr_assert(WIFEXITED(status));
		cr_assert(WEXITSTATUS(status) == EXIT_WON ||
			  WEXITSTATUS(status) == EXIT_CONFLICT);
		won += WEXITSTATUS(status) == EXIT_WON;
	}
	cr_assert_eq(won, 1);
	cr_assert_eq(store_visit(s, "same", NULL, NULL, &count, &err), 0, "%s", err.msg);
	cr_assert_eq(count, 1);
	store_free(s);
}
