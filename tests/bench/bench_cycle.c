/* Full mutation cycle benchmark (not a test; `make bench`).
 *
 * For each repository given, in one run and interleaved round by round:
 *   git floor  the six git commands the reference runs per mutation
 *              (rev-parse --show-toplevel / --git-dir / --git-common-dir,
 *              rev-parse --verify --quiet HEAD, ls-files --stage -z,
 *              status --porcelain=v2 -z --untracked-files=all), each a
 *              child process as the reference runs them;
 *   cycle      one whole submit in process: workspace discovery, store
 *              open, lock, journal replay, Outcome decode and binding,
 *              Git observation, routing, effects, journal append with
 *              fsync and projection replacement (service/mutate.c);
 * and the ratio of the medians.  Then, on the first repository, Runs of
 * 1, 100 and 982 Actions (grown untimed) take turns, round by round, so
 * that the cycle time at each length is measured side by side and shows
 * whether load + append stay flat.  In each turn a Run takes an untimed
 * submit before the timed one, so that what the timed one finds (page
 * cache, pending device work) is its own Run's doing, as in real use. */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "tests/bench/bench_clock.h"

#include "service/svc.h"
#include "io/wire/outcome.h"
#include "io/store/run_record.h"

#define ROUNDS 9

static double git_floor(const char *repo)
{
	static const char *const cmds[][8] = {
		{ "git", "rev-parse", "--path-format=absolute", "--show-toplevel", NULL },
		{ "git", "rev-parse", "--path-format=absolute", "--git-dir", NULL },
		{ "git", "rev-parse", "--path-format=absolute", "--git-common-dir", NULL },
		{ "git", "rev-parse", "--verify", "--quiet", "HEAD", NULL },
		{ "git", "ls-files", "--stage", "-z", NULL },
		{ "git", "status", "--porcelain=v2", "-z", "--untracked-files=all", NULL },
	};
	double t0 = bench_now();

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		pid_t pid = fork();

		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			if (chdir(repo) != 0)
				_exit(127);
			setenv("GIT_OPTIONAL_LOCKS", "0", 1);
			execvp("git", (char *const *)cmds[i]);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
	}
	return bench_now() - t0;
}

struct bench_run {
	const char *repo;
	char run_id[64];
	char action_id[64];
	char kind[16];
	int actions;
};

static void remember(struct bench_run *b, const struct run *r)
{
	const struct run_action *a = run_record(r)->current_action;

	snprintf(b->action_id, sizeof(b->action_id), "%s", a->action_id);
	snprintf(b->kind, sizeof(b->kind), "%s", tbl_kind_wire[a->kind]);
}

static void start(struct bench_run *b, const char *repo)
{
	struct svc d = { .root_arg = repo };
	struct run *r = NULL;

	b->repo = repo;
	if (svc_open(&d, true) != 0 || svc_start(&d, "benchmark", 1000, 0, NULL, &r) != 0)
		exit(1);
	snprintf(b->run_id, sizeof(b->run_id), "%s", run_id(r));
	remember(b, r);
	b->actions = 1;
	run_free(r);
	svc_close(&d);
}

/* One submit, timed from discovery to the committed projection. */
static double cycle(struct bench_run *b)
{
	char payload[1024];
	struct svc d = { .root_arg = b->repo };
	struct svc_mutation m = { .event = FSM_EV_SUBMIT };
	struct sw_error err = SW_ERROR_INIT;
	struct outcome o;
	char *canon = NULL;
	json_t *cj;
	double t0, took;
	int n;

	n = snprintf(payload, sizeof(payload),
		     "{\"contract_version\":2,\"action_id\":\"%s\",\"action_kind\":\"%s\","
		     "\"status\":\"completed\",\"summary\":\"benchmark step\",\"observations\":[],"
		     "\"known_issues\":[],\"suggested_actions\":[{\"kind\":\"clarify\","
		     "\"brief\":\"Next step.\"}],\"pause\":null,\"implementation\":null,\"review\":null}",
		     b->action_id, b->kind);
	t0 = bench_now();
	if (svc_open(&d, true) != 0 || outcome_parse(&o, payload, (size_t)n, &err) < 0 ||
	    outcome_to_json(&canon, &o, &err) < 0 || (cj = json_loads(canon, 0, NULL)) == NULL)
		exit(1);
	m.run_id = b->run_id;
	m.action_id = b->action_id;
	m.outcome = &o;
	m.outcome_json = cj;
	if (svc_mutate(&d, &m) != 0)
		exit(1);
	took = bench_now() - t0;
	remember(b, m.run);
	b->actions++;
	svc_mutation_release(&m);
	svc_close(&d);
	outcome_release(&o);
	json_decref(cj);
	sw_free(canon);
	return took;
}

int main(int argc, char **argv)
{
#define NMARKS 3
	struct bench_run b, runs[NMARKS];
	double floors[ROUNDS], cycles[ROUNDS], by_len[NMARKS][ROUNDS], base = 0;
	/* BENCH_MAX_ACTIONS shortens the longest Run (default 1,000). */
	const char *max_env = getenv("BENCH_MAX_ACTIONS");
	int max_actions = max_env ? atoi(max_env) : 1000;
	int marks[NMARKS] = { 1, 100, max_actions - 2 * ROUNDS }, nm = NMARKS;

	sw_alloc_init();
	printf("Full mutation cycle in process vs the git floor (median of %d, interleaved)\n", ROUNDS);
	printf("%-28s %12s %12s %8s\n", "repository", "git floor", "cycle", "ratio");
	for (int i = 1; i < argc; i++) {
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		double f, c;

		start(&b, argv[i]);
		for (int k = 0; k < ROUNDS; k++) {
			floors[k] = git_floor(argv[i]);
			cycles[k] = cycle(&b);
		}
		f = bench_median(floors, ROUNDS);
		c = bench_median(cycles, ROUNDS);
		printf("%-28s %9.2f ms %9.2f ms %7.2fx\n", name, f * 1e3, c * 1e3, c / f);
		fflush(stdout);
	}
	if (argc < 2)
		return 0;
	if (marks[2] <= marks[1]) {	/* a short BENCH_MAX_ACTIONS */
		marks[1] = marks[2] > 1 ? marks[2] : 2;
		nm = 2;
	}
	printf("\nLoad + append by Run length, interleaved (%s)\n", argv[1]);
	for (int m = 0; m < nm; m++) {
		start(&runs[m], argv[1]);
		while (runs[m].actions < marks[m])
			cycle(&runs[m]);
	}
	for (int k = 0; k < ROUNDS; k++)
		for (int m = 0; m < nm; m++) {
			cycle(&runs[m]);
			by_len[m][k] = cycle(&runs[m]);
		}
	for (int m = 0; m < nm; m++) {
		double c = bench_median(by_len[m], ROUNDS);

		if (m == 0)
			base = c;
		printf("%6d Actions %9.2f ms %7.2fx\n", marks[m], c * 1e3, c / base);
	}
	return 0;
}
