/* bench_start: how long one slipway command takes from spawn to exit, per
 * build of the binary: `bench_start REPO N NAME=BINARY...` runs each
 * binary N times as `--version` and N times as `status --json` in REPO,
 * and prints the median and the 90th percentile of the wall time.  The
 * builds compared by `make bench`: every library shared, the libraries'
 * archives with glibc shared, the default build (static-pie when glibc's
 * archive is there: nothing shared) and `make static` (the release's). */

#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/bench/bench_clock.h"

extern char **environ;

static double once(const char *bin, const char *dir, char *const argv[])
{
	posix_spawn_file_actions_t fa;
	double t;
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	t = bench_now();
	if (posix_spawn(&pid, bin, &fa, NULL, argv, environ) != 0) {
		perror(bin);
		exit(1);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_start: %s %s failed\n", bin, argv[1]);
		exit(1);
	}
	t = bench_now() - t;
	posix_spawn_file_actions_destroy(&fa);
	return t;
}

/* Median and 90th percentile of n runs, in milliseconds. */
static void measure(const char *bin, const char *dir, char *const argv[], int n, double *med, double *p90)
{
	double *v = malloc(sizeof(*v) * (size_t)n);

	if (v == NULL)
		exit(1);
	once(bin, dir, argv);			/* warm the page cache */
	for (int i = 0; i < n; i++)
		v[i] = once(bin, dir, argv) * 1e3;
	*med = bench_median(v, n);		/* sorts v */
	*p90 = v[n * 9 / 10];
	free(v);
}

int main(int argc, char **argv)
{
	int n;

	if (argc < 4 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: bench_start REPO N NAME=BINARY...\n");
		return 2;
	}
	printf("start-up: wall time from spawn to exit, median (90th percentile) of %d runs, ms\n", n);
	printf("%-13s %-12s %-22s %-22s\n", "build", "size", "--version", "status --json");
	for (int i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '='), size[32] = "?", path[PATH_MAX];
		char a0[] = "slipway", a1[] = "--version", a2[] = "status", a3[] = "--json";
		char *version[] = { a0, a1, NULL };
		char *status[] = { a0, a2, a3, NULL };
		double m1, p1, m2, p2;
		FILE *f;

		if (eq == NULL) {
			fprintf(stderr, "bench_start: %s is not NAME=BINARY\n", argv[i]);
			return 2;
		}
		*eq = '\0';
		/* The child changes into REPO before exec: the path must be absolute. */
		if (realpath(eq + 1, path) == NULL) {
			perror(eq + 1);
			return 1;
		}
		if ((f = fopen(path, "rb")) != NULL && fseek(f, 0, SEEK_END) == 0)
			snprintf(size, sizeof(size), "%.1f MB", (double)ftell(f) / 1e6);
		if (f != NULL)
			fclose(f);
		measure(path, argv[1], version, n, &m1, &p1);
		measure(path, argv[1], status, n, &m2, &p2);
		printf("%-13s %-12s %6.2f (%6.2f)        %6.2f (%6.2f)\n", argv[i], size, m1, p1, m2, p2);
	}
	return 0;
}
