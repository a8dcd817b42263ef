/* Benchmark: in-process vcs_discover + vcs_observe against the six git
 * commands the reference runs for the same facts.  Prints, per repository,
 * the median of each and their ratio (ours / git). */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/git/observe.h"
#include "io/git/vcs.h"

extern char **environ;

#define RUNS 15

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs git with output discarded, as the reference does (no shell). */
static int run_git(const char *root, const char *const *args)
{
	const char *argv[16];
	posix_spawn_file_actions_t fa;
	int n = 0, status = 0;
	pid_t pid;

	argv[n++] = "git";
	argv[n++] = "-c";
	argv[n++] = "core.fsmonitor=false";
	argv[n++] = "-C";
	argv[n++] = root;
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "git", &fa, NULL, (char **)argv, environ) != 0)
		return -1;
	posix_spawn_file_actions_destroy(&fa);
	waitpid(pid, &status, 0);
	return status;
}

static double git_once(const char *root)
{
	static const char *const q1[] = { "rev-parse", "--path-format=absolute", "--show-toplevel", NULL };
	static const char *const q2[] = { "rev-parse", "--path-format=absolute", "--git-dir", NULL };
	static const char *const q3[] = { "rev-parse", "--path-format=absolute", "--git-common-dir", NULL };
	static const char *const q4[] = { "rev-parse", "--verify", "--quiet", "HEAD", NULL };
	static const char *const q5[] = { "ls-files", "--stage", "-z", NULL };
	static const char *const q6[] = { "status", "--porcelain=v2", "-z", "--untracked-files=all", NULL };
	double t0 = now_ms();

	run_git(root, q1);
	run_git(root, q2);
	run_git(root, q3);
	run_git(root, q4);
	run_git(root, q5);
	run_git(root, q6);
	return now_ms() - t0;
}

static double ours_once(const char *root, long *paths)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct vcs_observation o = VCS_OBSERVATION_INIT;
	struct sw_error err = SW_ERROR_INIT;
	double t0 = now_ms(), t;

	if (vcs_discover(&id, root, &err) < 0 || vcs_observe(&o, &id, NULL, &err) < 0) {
		fprintf(stderr, "bench_observe: %s\n", err.msg);
		exit(1);
	}
	t = now_ms() - t0;
	*paths = (long)o.path_count;
	vcs_observation_release(&o);
	vcs_identity_release(&id);
	return t;
}

int main(int argc, char **argv)
{
	setenv("GIT_OPTIONAL_LOCKS", "0", 1);
	printf("%-40s %8s %12s %12s %8s\n", "repository", "dirty", "ours ms", "git ms", "ratio");
	for (int i = 1; i < argc; i++) {
		double ours[RUNS], git[RUNS], mo, mg;
		long paths = 0;

		ours_once(argv[i], &paths);	/* warm caches for both */
		git_once(argv[i]);
		for (int r = 0; r < RUNS; r++) {
			ours[r] = ours_once(argv[i], &paths);
			git[r] = git_once(argv[i]);
		}
		mo = median(ours, RUNS);
		mg = median(git, RUNS);
		printf("%-40s %8ld %12.2f %12.2f %8.2f\n", argv[i], paths, mo, mg, mo / mg);
	}
	return 0;
}
