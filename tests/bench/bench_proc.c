/* Whole-process benchmark (not a test; `make bench`): what a host pays.
 *
 * Every figure is the median of ROUNDS wall-clock times of child
 * processes, measured side by side in one run and interleaved round by
 * round with the command it is compared with, so that the ratios hold on
 * a noisy, shared machine:
 *
 *   submit       one `slipway protocol submit` (an orient/clarify Outcome
 *                from a file) against one `git status --porcelain=v2 -z
 *                -uall` and against the reference's git floor on the
 *                synthetic repositories of mk/bench-observe.mk (dirty-N:
 *                100 small files per directory, loose objects) and on
 *                repositories shaped like real projects (real-N,
 *                tests/bench/mkrepo_real.sh: 20 files of 1-2 KiB per
 *                directory, packed, a few edits of every kind); the
 *                targets follow the tracked-file count N at the end of
 *                the repository's name;
 *   ref floor    the 39 git children the reference starts for one such
 *                submit: workspace discovery (three `rev-parse` queries)
 *                twelve times, one of them inside its observation, and
 *                the observation's `rev-parse HEAD`, `ls-files --stage`
 *                and `status`;
 *   peak RSS     of the submit on the largest repository (wait4);
 *   --help       alone;
 *   status RUN   on the smallest repository against `git rev-parse HEAD`;
 *   status       the listing with 100 and 1,000 Runs (repositories kept
 *                between runs under the bench directory);
 *   growth       a submit at Action ~1,000 against one at Action 1;
 *   mcp          one submit through `slipway mcp` (a client on its stdio,
 *                one server for the whole series) against the same
 *                submit through the CLI, in the same repository;
 *   syscalls     the system calls of one submit and of one `git status`
 *                (strace -f -c; skipped, saying so, without strace) on a
 *                copy of the first 20-file real-N repository, with the
 *                index matching the worktree and with every tracked file
 *                touched (stat-dirty: slipway never refreshes the index);
 *   issue #37    the figures above that issue #37 holds slipway to, side
 *                by side at the end: submit against git status at 20,
 *                5,000 and 50,000 files, the system calls at 20 files,
 *                and Action ~1,000 against Action 1.
 *
 * Usage: bench_proc SLIPWAY BENCH_DIR REPO...  (the first REPO is the
 * small one; the MCP series runs on every REPO named real-*).  Each line
 * ends in the target it is held to.
 * BENCH_PARTS=submit,mcp,misc,growth,syscalls (default: all) picks the
 * parts; BENCH_MAX_ACTIONS the length of the long Run. */

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "tests/bench/bench_clock.h"

#define ROUNDS 11

extern char **environ;

static const char *slipway;

struct child {
	char *out;	/* stdout when captured, NUL-terminated */
	double secs;
	double cpu;	/* user + system seconds */
	long maxrss_kb;
	int status;
};

/* Runs argv in dir with stdout captured (capture) or discarded, stderr
 * discarded; times it from spawn to reaping. */
static void run(struct child *c, const char *dir, const char *const *argv, int capture)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	size_t len = 0, cap = 0;
	int pfd[2] = { -1, -1 };
	double t0;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	posix_spawn_file_actions_init(&fa);
	if (capture) {
		if (pipe(pfd) != 0)
			exit(2);
		posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
		posix_spawn_file_actions_addclose(&fa, pfd[0]);
		posix_spawn_file_actions_addclose(&fa, pfd[1]);
	} else {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	}
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	t0 = bench_now();
	if (posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ) != 0) {
		perror(argv[0]);
		exit(2);
	}
	if (capture) {
		close(pfd[1]);
		for (;;) {
			ssize_t n;

			if (cap - len < 65536) {
				cap = cap ? cap * 2 : 1 << 17;
				if ((c->out = realloc(c->out, cap)) == NULL)
					exit(2);
			}
			n = read(pfd[0], c->out + len, cap - len - 1);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		close(pfd[0]);
		c->out[len] = '\0';
	}
	if (wait4(pid, &c->status, 0, &ru) != pid)
		exit(2);
	c->secs = bench_now() - t0;
	c->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	c->maxrss_kb = ru.ru_maxrss;
	posix_spawn_file_actions_destroy(&fa);
}

static double timed(const char *dir, const char *const *argv)
{
	struct child c;

	run(&c, dir, argv, 0);
	return c.secs;
}

/* CPU seconds (user + system) of the last git_status. */
static double git_cpu;

static double git_status(const char *repo)
{
	const char *argv[] = { "git", "status", "--porcelain=v2", "-z", "--untracked-files=all", NULL };
	struct child c;

	run(&c, repo, argv, 0);
	git_cpu = c.cpu;
	return c.secs;
}

/* The reference's git children for one submit (see the header). */
static double ref_floor(const char *repo)
{
	static const char *const disc[][5] = {
		{ "git", "rev-parse", "--path-format=absolute", "--show-toplevel", NULL },
		{ "git", "rev-parse", "--path-format=absolute", "--git-dir", NULL },
		{ "git", "rev-parse", "--path-format=absolute", "--git-common-dir", NULL },
	};
	static const char *const obs[][6] = {
		{ "git", "rev-parse", "--verify", "--quiet", "HEAD", NULL },
		{ "git", "ls-files", "--stage", "-z", NULL },
		{ "git", "status", "--porcelain=v2", "-z", "--untracked-files=all", NULL },
	};
	double t = 0;

	for (int d = 0; d < 12; d++)
		for (int i = 0; i < 3; i++)
			t += timed(repo, disc[i]);
	for (int i = 0; i < 3; i++)
		t += timed(repo, obs[i]);
	return t;
}

struct brun {
	const char *repo;
	char run_id[64], action_id[64], kind[16];
	int actions;
};

/* Reads run_id and the current Action from a run/submit document. */
static void remember_doc(struct brun *b, json_t *doc, const char *text)
{
	json_t *a = json_object_get(doc, "action");

	if (!json_is_object(a)) {
		fprintf(stderr, "bench_proc: no action in reply: %.300s\n", text);
		exit(2);
	}
	snprintf(b->run_id, sizeof(b->run_id), "%s",
		 json_string_value(json_object_get(doc, "run_id")));
	snprintf(b->action_id, sizeof(b->action_id), "%s",
		 json_string_value(json_object_get(a, "action_id")));
	snprintf(b->kind, sizeof(b->kind), "%s", json_string_value(json_object_get(a, "kind")));
}

static void remember(struct brun *b, const char *out)
{
	json_t *doc = json_loads(out, 0, NULL);

	remember_doc(b, doc, out);
	json_decref(doc);
}

static void start(struct brun *b, const char *repo)
{
	const char *argv[] = { slipway, "run", "--budget", "1000", "--json", "--",
			 "benchmark goal", NULL };
	struct child c;

	b->repo = repo;
	run(&c, repo, argv, 1);
	remember(b, c.out);
	b->actions = 1;
	free(c.out);
}

/* The Outcome the benchmark submits for the current Action of `b`. */
static void outcome_text(char *out, size_t len, const struct brun *b)
{
	snprintf(out, len, "{\"contract_version\":2,\"action_id\":\"%s\",\"action_kind\":\"%s\","
		 "\"status\":\"completed\",\"summary\":\"benchmark step\",\"observations\":[],"
		 "\"known_issues\":[],\"suggested_actions\":[{\"kind\":\"clarify\","
		 "\"brief\":\"Next step.\"}],\"pause\":null,\"implementation\":null,\"review\":null}",
		 b->action_id, b->kind);
}

/* CPU seconds of the last submit process (user + system). */
static double last_cpu;

/* One submit process; returns its time and peak RSS. */
static double submit(struct brun *b, long *rss_kb)
{
	char path[4096], text[1024];
	const char *argv[] = { slipway, "protocol", "submit", "--run", b->run_id,
				     "--action", b->action_id, "--outcome-file", path, NULL };
	struct child c;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.git/bench-outcome.json", b->repo);
	outcome_text(text, sizeof(text), b);
	if ((f = fopen(path, "w")) == NULL)
		exit(2);
	fputs(text, f);
	fclose(f);
	run(&c, b->repo, argv, 1);
	if (c.status != 0) {
		fprintf(stderr, "bench_proc: submit failed: %.400s\n", c.out);
		exit(2);
	}
	remember(b, c.out);
	b->actions++;
	free(c.out);
	if (rss_kb)
		*rss_kb = c.maxrss_kb;
	last_cpu = c.cpu;
	return c.secs;
}

/* ---- a client of `slipway mcp` over its stdio ---- */

struct mcp {
	pid_t pid;
	clockid_t cpu;		/* the server's CPU-time clock */
	int to, from;		/* the server's stdin, its stdout */
	char *buf;		/* bytes read and not yet consumed */
	size_t len, cap;
	int id;
};

/* The next line the server writes (malloc'd, without its newline). */
static char *mcp_line(struct mcp *m)
{
	for (;;) {
		char *nl = m->len ? memchr(m->buf, '\n', m->len) : NULL;
		ssize_t n;

		if (nl != NULL) {
			size_t l = (size_t)(nl - m->buf);
			char *line = malloc(l + 1);

			if (line == NULL)
				exit(2);
			memcpy(line, m->buf, l);
			line[l] = '\0';
			memmove(m->buf, nl + 1, m->len - l - 1);
			m->len -= l + 1;
			return line;
		}
		if (m->cap - m->len < 65536) {
			m->cap = m->cap ? m->cap * 2 : 1 << 17;
			if ((m->buf = realloc(m->buf, m->cap)) == NULL)
				exit(2);
		}
		n = read(m->from, m->buf + m->len, m->cap - m->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "bench_proc: slipway mcp ended\n");
			exit(2);
		}
		m->len += (size_t)n;
	}
}

static void mcp_send(struct mcp *m, const char *text)
{
	size_t len = strlen(text), off = 0;

	while (off < len) {
		ssize_t n = write(m->to, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			exit(2);
		off += (size_t)n;
	}
}

/* Starts `slipway mcp --root repo` and completes the handshake. */
static void mcp_start(struct mcp *m, const char *repo)
{
	const char *argv[] = { slipway, "mcp", "--root", repo, NULL };
	posix_spawn_file_actions_t fa;
	int in[2], out[2];

	memset(m, 0, sizeof(*m));
	if (pipe(in) != 0 || pipe(out) != 0)
		exit(2);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	posix_spawn_file_actions_addchdir_np(&fa, repo);
	if (posix_spawnp(&m->pid, slipway, &fa, NULL, (char *const *)argv, environ) != 0) {
		perror(slipway);
		exit(2);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (clock_getcpuclockid(m->pid, &m->cpu) != 0)
		m->cpu = (clockid_t)-1;
	close(in[0]);
	close(out[1]);
	m->to = in[1];
	m->from = out[0];
	mcp_send(m, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
		    "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
		    "\"clientInfo\":{\"name\":\"bench_proc\",\"version\":\"1\"}}}\n");
	free(mcp_line(m));
	mcp_send(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
}

static void mcp_stop(struct mcp *m)
{
	int status;

	close(m->to);
	close(m->from);
	waitpid(m->pid, &status, 0);
	free(m->buf);
}

/* Seconds on CPU-time clock `id` (0 when it cannot be read). */
static double cpu_of(clockid_t id)
{
	struct timespec ts;

	if (id == (clockid_t)-1 || clock_gettime(id, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One submit through the server: its time from the request written to
 * the whole answer read. */
static double mcp_submit(struct mcp *m, struct brun *b)
{
	char outcome[1024], req[2048];
	json_t *reply, *result, *doc;
	double t0, t, c0;
	char *line;

	outcome_text(outcome, sizeof(outcome), b);
	snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"submit\",\"arguments\":{\"run_id\":\"%s\","
		 "\"action_id\":\"%s\",\"outcome\":%s}}}\n", ++m->id, b->run_id, b->action_id,
		 outcome);
	c0 = cpu_of(m->cpu);
	t0 = bench_now();
	mcp_send(m, req);
	line = mcp_line(m);
	t = bench_now() - t0;
	last_cpu = cpu_of(m->cpu) - c0;
	reply = json_loads(line, 0, NULL);
	result = json_object_get(reply, "result");
	doc = json_object_get(result, "structuredContent");
	if (!json_is_object(doc) || json_is_true(json_object_get(result, "isError"))) {
		fprintf(stderr, "bench_proc: MCP submit failed: %.400s\n", line);
		exit(2);
	}
	remember_doc(b, doc, line);
	b->actions++;
	json_decref(reply);
	free(line);
	return t;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Whether part `name` runs (BENCH_PARTS, a comma list; unset: all). */
static int part(const char *name)
{
	const char *parts = getenv("BENCH_PARTS");
	size_t n = strlen(name);

	for (const char *p = parts; p != NULL; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return parts == NULL;
}

/* Which target a repository is held to: by the tracked-file count that
 * ends its name (about 20, 5,000 or 50,000). */
static int size_class(const char *repo)
{
	const char *dash = strrchr(base(repo), '-');
	long n = dash ? atol(dash + 1) : 0;

	return n <= 100 ? 0 : n <= 10000 ? 1 : 2;
}

static void verdict(double ratio, double target)
{
	printf("  (target <= %.2f%s)\n", target, ratio <= target ? "" : ", MISSED");
}

/* A repository holding n Runs, made once by this very binary and kept
 * (a ready marker naming the binary): Runs another build wrote may lack
 * what this one keeps for its listing (run.summary). */
static void runs_repo(char *dir, size_t len, const char *bench_dir, int n)
{
	char marker[4200], cmd[8400], want[128], have[128] = "";
	struct stat st;
	FILE *f;

	if (stat(slipway, &st) != 0)
		exit(2);
	snprintf(want, sizeof(want), "%llu %llu %lld %lld.%09ld", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec);
	snprintf(dir, len, "%s/runs-%d", bench_dir, n);
	snprintf(marker, sizeof(marker), "%s/.git/bench-runs-ready", dir);
	if ((f = fopen(marker, "r")) != NULL) {
		if (fgets(have, sizeof(have), f) == NULL)
			have[0] = '\0';
		fclose(f);
		if (strcmp(have, want) == 0)
			return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && sh tests/bench/mkrepo.sh '%s' 20", dir, dir);
	if (system(cmd) != 0)
		exit(2);
	for (int i = 0; i < n; i++) {
		const char *argv[] = { slipway, "run", "--budget", "8", "--json", "--", "a listed Run", NULL };
		struct child c;

		run(&c, dir, argv, 1);
		free(c.out);
	}
	if ((f = fopen(marker, "w")) == NULL)
		exit(2);
	fputs(want, f);
	fclose(f);
}

/* ---- what issue #37 holds slipway to, gathered for the closing lines ---- */

static const double t_status[] = { 2.0, 1.0, 0.7 };	/* submit / git status */
static const char *const class_name[] = { "20 files", "5,000 files", "50,000 files" };

static struct {
	char repo[64];
	int k;
	double ratio, cpu;
} status_ratio[16];
static int nstatus;
static double growth_ratio, growth_cpu;
static int growth_actions;
static long sys_slipway[2] = { -1, -1 }, sys_git[2] = { -1, -1 };
static char sys_repo[64], sys_skipped[160];

static void note_status(const char *repo, int k, double ratio, double cpu)
{
	if (nstatus < 16) {
		snprintf(status_ratio[nstatus].repo, sizeof(status_ratio[nstatus].repo), "%s",
			 base(repo));
		status_ratio[nstatus].k = k;
		status_ratio[nstatus].cpu = cpu;
		status_ratio[nstatus++].ratio = ratio;
	}
}

/* The calls of strace -c's "total" line in `path`, or -1. */
static long strace_total(const char *path)
{
	char line[256];
	long calls = -1;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		double pct, secs;
		long usecs, n;

		if (strstr(line, " total") != NULL &&
		    sscanf(line, "%lf %lf %ld %ld", &pct, &secs, &usecs, &n) == 4)
			calls = n;
	}
	fclose(f);
	return calls;
}

/* Runs argv under `strace -f -c -o out` in dir (stdout captured when
 * `capture`); the total of its system calls, or -1. */
static long straced(struct child *c, const char *dir, const char *const *argv, int capture,
		    const char *out)
{
	const char *av[32] = { "strace", "-f", "-c", "-o", out };
	int n = 5;

	for (int i = 0; argv[i] != NULL && n < 31; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	run(c, dir, av, capture);
	return c->status == 0 ? strace_total(out) : -1;
}

/* One submit of `b` under strace; the total, and b moved on. */
static long straced_submit(struct brun *b, const char *out)
{
	char path[4096], text[1024];
	const char *argv[] = { slipway, "protocol", "submit", "--run", b->run_id,
			       "--action", b->action_id, "--outcome-file", path, NULL };
	struct child c;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.git/bench-outcome.json", b->repo);
	outcome_text(text, sizeof(text), b);
	if ((f = fopen(path, "w")) == NULL)
		exit(2);
	fputs(text, f);
	fclose(f);
	n = straced(&c, b->repo, argv, 1, out);
	if (c.status == 0)
		remember(b, c.out);
	free(c.out);
	return n;
}

/* The system calls of one submit and one git status on a copy of `repo`
 * (index matching, then every tracked file touched). */
static void syscalls(const char *bench_dir, const char *repo)
{
	const char *gs[] = { "git", "status", "--porcelain=v2", "-z", "--untracked-files=all", NULL };
	const char *ver[] = { "strace", "-V", NULL };
	char copy[4096], out[4200], cmd[16384];
	struct brun r;
	struct child c;

	snprintf(sys_repo, sizeof(sys_repo), "%s", base(repo));
	run(&c, bench_dir, ver, 0);
	if (c.status != 0) {
		snprintf(sys_skipped, sizeof(sys_skipped), "strace is not installed (apt-get install strace)");
		return;
	}
	snprintf(copy, sizeof(copy), "%s/strace-%s", bench_dir, base(repo));
	snprintf(out, sizeof(out), "%s/strace.out", bench_dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -a '%s' '%s' && git -C '%s' update-index -q "
		 "--refresh >/dev/null 2>&1; true", copy, repo, copy, copy);
	if (system(cmd) != 0)
		exit(2);
	start(&r, copy);
	for (int dirty = 0; dirty < 2; dirty++) {
		if (dirty) {
			snprintf(cmd, sizeof(cmd), "sleep 1.1 && cd '%s' && git ls-files -z | "
				 "xargs -0 touch", copy);
			if (system(cmd) != 0)
				exit(2);
		}
		/* slipway first: git status refreshes the index it finds dirty. */
		sys_slipway[dirty] = straced_submit(&r, out);
		sys_git[dirty] = straced(&c, copy, gs, 0, out);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", copy, out);
	if (system(cmd) != 0)
		exit(2);
}

static void print_syscalls(void)
{
	if (sys_skipped[0]) {
		printf("%-20s skipped: %s\n", "syscalls, submit", sys_skipped);
		return;
	}
	printf("%-20s index matching: slipway %ld, git status %ld; stat-dirty: slipway %ld, "
	       "git status %ld  (%s, strace -f -c)\n", "syscalls, submit", sys_slipway[0], sys_git[0],
	       sys_slipway[1], sys_git[1], sys_repo);
}

/* Issue #37's figures of this run, side by side. */
static void issue_37(void)
{
	printf("\nIssue #37, side by side (this run; wall-time medians, CPU = user + system\n"
	       "of the same processes, for a busy machine):\n");
	for (int k = 0; k < 3; k++) {
		int any = 0;

		printf("  %-14s submit / git status ", class_name[k]);
		for (int i = 0; i < nstatus; i++) {
			if (status_ratio[i].k != k)
				continue;
			printf("%s%s %.2fx (CPU %.2fx)", any ? ", " : " ", status_ratio[i].repo,
			       status_ratio[i].ratio, status_ratio[i].cpu);
			any = 1;
		}
		if (!any) {
			printf(" not measured\n");
			continue;
		}
		{
			int ok = 1;

			for (int i = 0; i < nstatus; i++)
				ok &= status_ratio[i].k != k || status_ratio[i].ratio <= t_status[k];
			printf("  (target <= %.1f%s)\n", t_status[k], ok ? "" : ", MISSED");
		}
	}
	if (sys_skipped[0])
		printf("  %-14s skipped: %s\n", "syscalls", sys_skipped);
	else if (sys_slipway[0] >= 0)
		printf("  %-14s submit %ld, git status %ld (index matching); %ld, %ld (stat-dirty), %s\n",
		       "syscalls", sys_slipway[0], sys_git[0], sys_slipway[1], sys_git[1], sys_repo);
	else
		printf("  %-14s not measured\n", "syscalls");
	if (growth_actions > 0)
		printf("  %-14s Action %d / Action 1 %.2fx, CPU %.2fx  (target <= 1.30%s)\n", "long Run",
		       growth_actions, growth_ratio, growth_cpu, growth_ratio <= 1.30 ? "" : ", MISSED");
	else
		printf("  %-14s not measured\n", "long Run");
}

int main(int argc, char **argv)
{
	double a[ROUNDS], b[ROUNDS], c[ROUNDS], ac[ROUNDS], bc[ROUNDS];
	const char *small;
	long rss = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: bench_proc SLIPWAY BENCH_DIR REPO...\n");
		return 2;
	}
	slipway = argv[1];
	small = argv[3];
	printf("Whole processes, median of %d, interleaved round by round (%s); CPU is user +\n"
	       "system time of the same processes, for reading the wall times on a busy machine\n",
	       ROUNDS, slipway);
	if (part("submit"))
		printf("%-20s %10s %10s %10s %8s %8s\n", "submit", "slipway", "status", "ref floor",
		       "/status", "/floor");
	for (int i = 3; i < argc && part("submit"); i++) {
		static const double t_floor[] = { 0.10, 0.20, 0.5 };
		struct brun r;
		double s, g, f;
		int k = size_class(argv[i]);

		start(&r, argv[i]);
		for (int j = 0; j < ROUNDS; j++) {
			long kb;

			a[j] = git_status(argv[i]);
			ac[j] = git_cpu;
			b[j] = ref_floor(argv[i]);
			c[j] = submit(&r, &kb);
			bc[j] = last_cpu;
			if (kb > rss)
				rss = kb;
		}
		g = bench_median(a, ROUNDS);
		f = bench_median(b, ROUNDS);
		s = bench_median(c, ROUNDS);
		printf("%-20s %7.2f ms %7.2f ms %7.2f ms %7.2fx %7.3fx", base(argv[i]), s * 1e3,
		       g * 1e3, f * 1e3, s / g, s / f);
		note_status(argv[i], k, s / g, bench_median(bc, ROUNDS) / bench_median(ac, ROUNDS));
		printf("  (targets <= %.1fx, <= %.2fx%s)  CPU %.2fx\n", t_status[k], t_floor[k],
		       s / g <= t_status[k] && s / f <= t_floor[k] ? "" : ", MISSED",
		       bench_median(bc, ROUNDS) / bench_median(ac, ROUNDS));
		fflush(stdout);
	}
	if (part("submit")) {
		printf("%-20s %7.1f MB", "peak RSS, submit", (double)rss / 1024);
		printf("  (the largest of every submit above, target <= 20 MB%s)\n",
		       rss <= 20 * 1024 ? "" : ", MISSED");
	}

	/* The same submit through one long-lived `slipway mcp` and through
	 * the CLI, two Runs of the same repository, round by round. */
	for (int i = 3; i < argc && part("mcp"); i++) {
		struct brun mr, cr;
		struct mcp m;
		double ms, cs;

		if (strncmp(base(argv[i]), "real-", 5) != 0)
			continue;
		start(&mr, argv[i]);
		start(&cr, argv[i]);
		mcp_start(&m, argv[i]);
		mcp_submit(&m, &mr);	/* the server's first call fills its caches */
		submit(&cr, NULL);
		for (int j = 0; j < ROUNDS; j++) {
			a[j] = submit(&cr, NULL);
			ac[j] = last_cpu;
			b[j] = mcp_submit(&m, &mr);
			bc[j] = last_cpu;
		}
		mcp_stop(&m);
		cs = bench_median(a, ROUNDS);
		ms = bench_median(b, ROUNDS);
		printf("%-20s %7.2f ms  CLI %.2f ms  %.2fx", "mcp submit", ms * 1e3, cs * 1e3, ms / cs);
		printf("  (%s, target <= 0.50%s)", base(argv[i]), ms / cs <= 0.5 ? "" : ", MISSED");
		printf("  CPU %.2f / %.2f ms %.2fx\n", bench_median(bc, ROUNDS) * 1e3,
		       bench_median(ac, ROUNDS) * 1e3, bench_median(bc, ROUNDS) / bench_median(ac, ROUNDS));
		fflush(stdout);
	}

	if (part("misc")) {
		const char *help[] = { slipway, "--help", NULL };
		const char *rev[] = { "git", "rev-parse", "HEAD", NULL };
		const char *st[] = { slipway, "status", NULL, NULL };
		struct brun r;
		double h, s, g;

		start(&r, small);
		st[2] = r.run_id;
		for (int j = 0; j < ROUNDS; j++) {
			a[j] = timed(small, help);
			b[j] = timed(small, st);
			c[j] = timed(small, rev);
		}
		h = bench_median(a, ROUNDS);
		s = bench_median(b, ROUNDS);
		g = bench_median(c, ROUNDS);
		printf("%-20s %7.2f ms", "--help", h * 1e3);
		printf("  (target <= 1 ms%s)\n", h <= 1e-3 ? "" : ", MISSED");
		printf("%-20s %7.2f ms  git rev-parse HEAD %.2f ms  %.2fx", "status RUN", s * 1e3,
		       g * 1e3, s / g);
		verdict(s / g, 2.0);
	}

	if (part("misc")) {
		static const int counts[] = { 100, 1000 };
		static const double limits[] = { 20e-3, 150e-3 };
		const char *st[] = { slipway, "status", NULL };

		for (int n = 0; n < 2; n++) {
			char dir[4096];
			double s;

			runs_repo(dir, sizeof(dir), argv[2], counts[n]);
			for (int j = 0; j < ROUNDS; j++)
				a[j] = timed(dir, st);
			s = bench_median(a, ROUNDS);
			printf("status, %4d Runs     %7.2f ms  (target <= %.0f ms%s)\n", counts[n],
			       s * 1e3, limits[n] * 1e3, s <= limits[n] ? "" : ", MISSED");
			fflush(stdout);
		}
	}

	if (part("growth")) {
		const char *len_env = getenv("BENCH_MAX_ACTIONS");
		int longest = (len_env ? atoi(len_env) : 1000) - 2 * ROUNDS;
		struct brun lr, sr;
		double l, s;

		start(&lr, small);
		while (lr.actions < longest)
			submit(&lr, NULL);
		for (int j = 0; j < ROUNDS; j++) {
			/* Action 1 of a fresh Run, then the long Run after an
			 * untimed submit of its own, so that each timed submit finds
			 * its own Run's pending disk work, as in real use. */
			start(&sr, small);
			a[j] = submit(&sr, NULL);
			ac[j] = last_cpu;
			submit(&lr, NULL);
			b[j] = submit(&lr, NULL);
			bc[j] = last_cpu;
		}
		s = bench_median(a, ROUNDS);
		l = bench_median(b, ROUNDS);
		printf("submit at Action %d %6.2f ms  Action 1 %.2f ms  %.2fx", longest + 1, l * 1e3,
		       s * 1e3, l / s);
		growth_actions = longest + 1;
		growth_ratio = l / s;
		growth_cpu = bench_median(bc, ROUNDS) / bench_median(ac, ROUNDS);
		printf("  (target <= 1.30%s)", l / s <= 1.30 ? "" : ", MISSED");
		printf("  CPU %.2f / %.2f ms %.2fx\n", bench_median(bc, ROUNDS) * 1e3,
		       bench_median(ac, ROUNDS) * 1e3, bench_median(bc, ROUNDS) / bench_median(ac, ROUNDS));
	}

	if (part("syscalls")) {
		const char *repo = small;

		for (int i = 3; i < argc; i++)
			if (strncmp(base(argv[i]), "real-", 5) == 0 && size_class(argv[i]) == 0) {
				repo = argv[i];
				break;
			}
		syscalls(argv[2], repo);
		print_syscalls();
	}
	issue_37();
	return 0;
}
