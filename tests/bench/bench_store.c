/* Run store benchmark (not a test): how replay and a one-event append
 * scale with the length of a run.  Events carry ~3 KiB of realistic JSON.
 * The plain append replays the journal first (store_update); the
 * checkpointed one adopts the replay checkpoint its predecessor wrote
 * (store_update_resumable), as every command that changes a Run does.
 * Prints milliseconds per operation (median of several repetitions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/util/err.h"
#include "io/store/store.h"

#define REPS 9

static char *event_data(int i)
{
	char *buf = malloc(4096);
	size_t n = 0;

	n += (size_t)snprintf(buf + n, 4096 - n,
			      "{\"event_version\":2,\"contract_version\":2,\"run_id\":\"bench\","
			      "\"state\":\"active\",\"remaining_budget\":%d,\"observations_append\":[", i);
	for (int k = 0; k < 24 && n < 3000; k++)
		n += (size_t)snprintf(buf + n, 4096 - n,
				      "%s{\"path\":\"src/module_%02d/file_%04d.c\",\"note\":\"touched "
				      "while implementing step %d of the plan\"}",
				      k ? "," : "", k, i, k);
	snprintf(buf + n, 4096 - n, "],\"updated_at\":\"2026-01-02T03:04:05Z\"}");
	return buf;
}

struct batch {
	int n;
	int first;
};

static int add_batch(struct store_mutation *m, void *payload, struct sw_error *err)
{
	struct batch *b = payload;
	int rc = 0;

	for (int i = 0; i < b->n && rc == 0; i++) {
		char *d = event_data(b->first + i);

		rc = store_mutation_add_event(m, b->first + i == 0 ?
					      TBL_JEVENT_RUN_STARTED :
					      TBL_JEVENT_OUTCOME_SUBMITTED,
					      d, strlen(d), err);
		if (rc == 0 && i == b->n - 1)
			rc = store_mutation_set_projection(m, d, strlen(d), err);
		free(d);
	}
	return rc;
}

static int count_events(const struct store_event *ev, void *payload,
			struct sw_error *err)
{
	(void)err;
	*(long long *)payload += (long long)ev->data_len;
	return 0;
}

/* The checkpoint is adopted as it is (the benchmark keeps no Run). */
static int adopt(struct store_checkpoint *cp, void *payload, struct sw_error *err)
{
	(void)cp;
	(void)payload;
	(void)err;
	return 0;
}

static int add_checkpointed(struct store_mutation *m, void *payload, struct sw_error *err)
{
	int rc = add_batch(m, payload, err);

	if (rc == 0)
		store_mutation_set_checkpoint(m, "bench", 5, "", 0, 0);
	return rc;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, REPS, sizeof(*v), cmp_d);
	return v[REPS / 2];
}

int main(void)
{
	static const int sizes[] = { 1, 100, 1000 };
	char root[] = "/tmp/sw-bench-store-XXXXXX", common[256], cmd[300];
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = NULL;
	double base_load = 0, base_append = 0, base_cp = 0;

	sw_alloc_init();
	if (mkdtemp(root) == NULL)
		return 1;
	snprintf(common, sizeof(common), "%s/common", root);
	mkdir(common, 0700);
	if (store_open(&s, common, true, &err) < 0) {
		fprintf(stderr, "bench_store: %s\n", err.msg);
		return 1;
	}
	printf("%-8s %12s %10s %10s %14s %9s %9s %9s\n", "events", "journal KiB", "replay ms",
	       "append ms", "ckpt append ms", "replay x", "append x", "ckpt x");
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		char id[32];
		struct batch first = { 1, 0 }, rest = { sizes[k] - 1, 1 };
		double load[REPS], app[REPS], cpa[REPS];
		long long bytes = 0, count = 0;

		snprintf(id, sizeof(id), "bench-%d", sizes[k]);
		if (store_create(s, id, add_batch, &first, &err) < 0 ||
		    (rest.n > 0 &&
		     store_update(s, id, NULL, add_batch, &rest, &err) < 0)) {
			fprintf(stderr, "bench_store: %s\n", err.msg);
			return 1;
		}
		for (int r = 0; r < REPS; r++) {
			double t0 = now_ms();

			bytes = 0;
			if (store_visit(s, id, count_events, &bytes, &count, &err) < 0)
				return 1;
			load[r] = now_ms() - t0;
		}
		for (int r = 0; r < REPS; r++) {
			/* Re-append the same-sized event each time; the run grows
			 * by REPS events, a rounding error at n = 100 and 1000. */
			struct batch one = { 1, sizes[k] + r };
			long long dummy = 0;
			double t0 = now_ms();

			(void)dummy;
			if (store_update(s, id, NULL, add_batch, &one, &err) < 0) {
				fprintf(stderr, "bench_store: %s\n", err.msg);
				return 1;
			}
			app[r] = now_ms() - t0;
		}
		for (int r = 0; r <= REPS; r++) {
			/* The first writes the checkpoint the others adopt. */
			struct batch one = { 1, sizes[k] + REPS + r };
			double t0 = now_ms();

			if (store_update_resumable(s, id, adopt, NULL, add_checkpointed, &one,
						   &err) < 0) {
				fprintf(stderr, "bench_store: %s\n", err.msg);
				return 1;
			}
			if (r > 0)
				cpa[r - 1] = now_ms() - t0;
		}
		double ml = median(load), ma = median(app), mc = median(cpa);

		if (k == 0) {
			base_load = ml;
			base_append = ma;
			base_cp = mc;
		}
		printf("%-8d %12.1f %10.3f %10.3f %14.3f %9.2f %9.2f %9.2f\n", sizes[k],
		       (double)bytes / 1024.0, ml, ma, mc, ml / base_load, ma / base_append,
		       mc / base_cp);
	}
	store_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		return 1;
	return 0;
}
