/* `slipway doctor`'s ordered checks: the repository, each host's adapter,
 * retired residue, the run store's durability and the GitHub CLI.
 * Read-only.  See io/adapters/adapter_doctor.h. */

#include "io/adapters/adapter_doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>

#include "io/util/os.h"

#define GH_TIMEOUT_MS 5000
#define GH_OUTPUT_MAX (64u << 10)

/* ---- running gh ---- */

/* The first regular executable file named gh in an absolute PATH entry. */
static char *find_gh(void)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		struct stat st;

		/* Relative entries (and "") would run a file from the cwd. */
		if (n > 0 && path[0] == '/') {
			char *cand = sw_asprintf("%.*s/gh", (int)n, path);

			if (cand && stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(cand, X_OK) == 0)
				return cand;
			sw_free(cand);
		}
		if (colon == NULL)
			break;
		path = colon + 1;
	}
	return NULL;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs `exe` with `args` (NULL-terminated, args[0] the program name); keeps
 * at most GH_OUTPUT_MAX bytes of stdout in *out (sw_malloc'd, NUL-ended).
 * Returns 0 only for exit status 0 within the time limit. */
static int run_bounded(const char *exe, char *const *args, char **out, size_t *len)
{
	char *buf = sw_malloc(GH_OUTPUT_MAX + 1);
	int fds[2] = { -1, -1 }, status = 0, timed_out = 0, ok = -1;
	long deadline;
	size_t n = 0;
	pid_t pid;

	*out = NULL;
	*len = 0;
	if (buf == NULL || sw_os_pipe_cloexec(fds) < 0) {
		sw_free(buf);
		return -1;
	}
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		sw_free(buf);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(devnull, 2) < 0)
			_exit(127);
		execv(exe, args);
		_exit(127);
	}
	close(fds[1]);
	deadline = now_ms() + GH_TIMEOUT_MS;
	for (;;) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		long left = deadline - now_ms();
		char sink[4096];
		ssize_t got;
		int r;

		if (left <= 0) {
			timed_out = 1;
			break;
		}
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		if (n < GH_OUTPUT_MAX)
			got = read(fds[0], buf + n, GH_OUTPUT_MAX - n);
		else
			got = read(fds[0], sink, sizeof(sink));	/* beyond the cap: drain */
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (n < GH_OUTPUT_MAX)
			n += (size_t)got;
	}
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		ok = 0;
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return ok;
}

/* ---- parsing ---- */

int adapter_gh_version_parse(const char *out, size_t len, int v[3])
{
	size_t i = 0;

	while (i < len) {
		size_t s, e;

		while (i < len && strchr(" \t\r\n\v\f", out[i]))
			i++;
		s = i;
		while (i < len && !strchr(" \t\r\n\v\f", out[i]))
			i++;
		e = i;
		if (s < e && out[s] == 'v')
			s++;
		while (e > s && strchr(",;)", out[e - 1]))
			e--;
		{
			int part = 0, digits = 0, ok = s < e;
			long val[3] = { 0, 0, 0 };

			for (size_t k = s; ok && k < e; k++) {
				char c = out[k];

				if (c == '.') {
					if (!digits || ++part > 2)
						ok = 0;
					digits = 0;
				} else if (c >= '0' && c <= '9') {
					val[part] = val[part] * 10 + (c - '0');
					if (val[part] > 1000000000L)
						ok = 0;
					digits = 1;
				} else {
					ok = 0;
				}
			}
			if (ok && part == 2 && digits) {
				v[0] = (int)val[0];
				v[1] = (int)val[1];
				v[2] = (int)val[2];
				return 1;
			}
		}
	}
	return 0;
}

static int valid_slug_part(const char *s, size_t n)
{
	if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
			return 0;
	}
	return 1;
}

static int slug_from_path(const char *p, size_t n, char *slug, size_t cap)
{
	const char *slash;

	if (n >= 4 && memcmp(p + n - 4, ".git", 4) == 0)
		n -= 4;
	slash = memchr(p, '/', n);
	if (slash == NULL || memchr(slash + 1, '/', n - (size_t)(slash + 1 - p)) ||
	    !valid_slug_part(p, (size_t)(slash - p)) ||
	    !valid_slug_part(slash + 1, n - (size_t)(slash + 1 - p)) || n + 1 > cap)
		return 0;
	memcpy(slug, p, n);
	slug[n] = '\0';
	return 1;
}

int adapter_github_slug(const char *url, char *slug, size_t cap)
{
	const char *s = url, *e = url + strlen(url), *rest, *auth_end, *at, *host, *host_end;
	int https = 0;

	while (s < e && strchr(" \t\r\n\v\f", *s))
		s++;
	while (e > s && strchr(" \t\r\n\v\f", e[-1]))
		e--;
	if (s == e || memchr(s, '\r', (size_t)(e - s)) || memchr(s, '\n', (size_t)(e - s)) ||
	    memchr(s, '%', (size_t)(e - s)) || memchr(s, '?', (size_t)(e - s)) ||
	    memchr(s, '#', (size_t)(e - s)))
		return 0;
	if ((size_t)(e - s) > 15 && strncmp(s, "git@github.com:", 15) == 0)
		return slug_from_path(s + 15, (size_t)(e - s - 15), slug, cap);
	if ((size_t)(e - s) > 8 && strncasecmp(s, "https://", 8) == 0) {
		rest = s + 8;
		https = 1;
	}
	else if ((size_t)(e - s) > 6 && strncasecmp(s, "ssh://", 6) == 0)
		rest = s + 6;
	else
		return 0;
	auth_end = memchr(rest, '/', (size_t)(e - rest));
	if (auth_end == NULL)
		auth_end = e;
	at = NULL;
	for (const char *q = rest; q < auth_end; q++)
		if (*q == '@')
			at = q;
	host = rest;
	if (at) {
		/* https carries no credentials at all; ssh only the user git. */
		if (https)
			return 0;
		if ((size_t)(at - rest) != 3 || strncmp(rest, "git", 3) != 0)
			return 0;
		host = at + 1;
	}
	host_end = memchr(host, ':', (size_t)(auth_end - host));
	if (host_end == NULL)
		host_end = auth_end;
	if ((size_t)(host_end - host) != 10 || strncasecmp(host, "github.com", 10) != 0)
		return 0;
	if (auth_end == e)
		return 0;
	return slug_from_path(auth_end + 1, (size_t)(e - auth_end - 1), slug, cap);
}

/* remote.origin.url from the repository's configuration, via libgit2. */
static char *origin_url(const char *root)
{
	git_repository *repo = NULL;
	git_config *cfg = NULL;
	const char *v = NULL;
	char *out = NULL;

	git_libgit2_init();
	if (git_repository_open(&repo, root) == 0 &&
	    git_repository_config_snapshot(&cfg, repo) == 0 &&
	    git_config_get_string(&v, cfg, "remote.origin.url") == 0)
		out = sw_strdup(v);
	git_config_free(cfg);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return out;
}

/* ---- checks ---- */

static int gh_checks(struct adapter_checks *c, const char *root, struct sw_error *err)
{
	char *gh = find_gh(), *out = NULL, *url = NULL, *detail = NULL;
	char slug[256], spec[300];
	json_t *perms = NULL;
	size_t len = 0;
	int v[3], rc = 0;

	if (gh == NULL)
		return adapter_checks_add(c, "github_cli_unavailable", "warning", "-", "github_cli",
					  "the GitHub CLI (gh) is not on PATH; issue-backed work needs it to read Issues: install it from https://cli.github.com/, or run ad hoc from a goal file", err);
	{
		char *args[] = { (char *)"gh", (char *)"--version", NULL };
		int ran = run_bounded(gh, args, &out, &len);

		if (ran < 0 || !adapter_gh_version_parse(out, len, v))
			rc = adapter_checks_add(c, "github_cli_version_unknown", "warning", "-", "github_cli",
						"the GitHub CLI version could not be determined, so support for issue relationships is unknown; check that `gh --version` runs", err);
		else if (v[0] < 2 || (v[0] == 2 && v[1] < 94))
			rc = (detail = sw_asprintf("GitHub CLI %d.%d.%d predates 2.94.0; parent, sub-issue and dependency operations need the official REST fallback",
						   v[0], v[1], v[2])) == NULL
			     ? sw_error_set(err, SW_ENOMEM, "out of memory")
			     : adapter_checks_add(c, "github_cli_rest_fallback_required", "warning", "-", "github_cli", detail, err);
		else
			rc = (detail = sw_asprintf("GitHub CLI %d.%d.%d supports the issue relationship operations", v[0], v[1], v[2])) == NULL
			     ? sw_error_set(err, SW_ENOMEM, "out of memory")
			     : adapter_checks_add(c, "github_cli_compatible", "ok", "-", "github_cli", detail, err);
		sw_free(out);
		out = NULL;
		sw_free(detail);
		detail = NULL;
		if (rc < 0)
			goto out;
	}
	{
		char *args[] = { (char *)"gh", (char *)"auth", (char *)"status", (char *)"--hostname",
				 (char *)"github.com", NULL };
		int ran = run_bounded(gh, args, &out, &len);

		/* The auth output may name the account or token: it is dropped unread. */
		if (out)
			memset(out, 0, len);
		sw_free(out);
		out = NULL;
		if (ran < 0) {
			rc = adapter_checks_add(c, "github_auth_unavailable", "warning", "-", "github_auth",
						"gh is not authenticated for github.com; run `gh auth login --hostname github.com` before issue-backed work", err);
			goto out;
		}
		if ((rc = adapter_checks_add(c, "github_auth_available", "ok", "-", "github_auth",
					     "gh is authenticated for github.com", err)) < 0)
			goto out;
	}
	if ((url = origin_url(root)) == NULL || !adapter_github_slug(url, slug, sizeof(slug)))
		goto out;
	snprintf(spec, sizeof(spec), "repos/%s", slug);
	{
		char *args[] = { (char *)"gh", (char *)"api", (char *)"--hostname", (char *)"github.com",
				 spec, (char *)"--jq", (char *)".permissions", NULL };
		int ran = run_bounded(gh, args, &out, &len), valid = 0;
		const char *k;
		json_t *val;

		if (ran == 0 && (perms = json_loadb(out, len, JSON_DECODE_ANY, NULL)) != NULL &&
		    json_is_object(perms)) {
			valid = 1;
			json_object_foreach(perms, k, val)
				if (!json_is_boolean(val))
					valid = 0;
		}
		if (!valid) {
			rc = adapter_checks_add(c, "github_issue_permissions_unknown", "warning", "-", "github_permissions",
						"the repository permissions could not be read from GitHub; retry when the network and API are reachable, and check that the origin remote names a repository this account can see", err);
			goto out;
		}
		{
			int read = json_is_true(json_object_get(perms, "pull"));
			int write = json_is_true(json_object_get(perms, "push")) ||
				    json_is_true(json_object_get(perms, "maintain")) ||
				    json_is_true(json_object_get(perms, "admin"));
			int triage = json_is_true(json_object_get(perms, "triage")) || write;

			/* What the issue path can do with these permissions, and the fix. */
			const char *means = !read
				? "; Issues cannot be read, so no source envelope can be built: ask for read access or fix the origin remote"
				: !triage ? "; Issues can be read and Change Issues published; adding labels needs triage access"
				: !write ? "; Issues can be read, published and labelled; sub-issue and dependency links need write access"
				: "";

			if ((detail = sw_asprintf("issue permissions on %s: read=%s triage=%s write=%s%s", slug,
						  read ? "true" : "false", triage ? "true" : "false",
						  write ? "true" : "false", means)) == NULL) {
				rc = sw_error_set(err, SW_ENOMEM, "out of memory");
				goto out;
			}
			rc = read && triage && write
			     ? adapter_checks_add(c, "github_issue_permissions_ok", "ok", "-", "github_permissions", detail, err)
			     : adapter_checks_add(c, "github_issue_permissions_limited", "warning", "-", "github_permissions", detail, err);
		}
	}
out:
	json_decref(perms);
	sw_free(detail);
	sw_free(out);
	sw_free(url);
	sw_free(gh);
	return rc;
}

int adapter_doctor(struct adapter_checks *c, const char *root, const char *git_dir,
		   const char *git_common_dir, const struct adapter_store_facts *store,
		   const struct adapter_text *texts, struct sw_error *err)
{
	struct adapter_check *k;
	int rc;

	if ((rc = adapter_doctor_local(c, root, git_dir, git_common_dir, store, texts, err)) < 0)
		return rc;
	/* POSIX: run-store writes fsync the file and then its directory. */
	if ((rc = adapter_checks_add(c, "runstore_durability_full", "ok", "-", "runstore durability",
				     "file_and_directory_fsync (file sync: true, directory sync: true)", err)) < 0)
		return rc;
	k = &c->v[c->n - 1];
	k->has_durability = 1;
	k->level = "file_and_directory_fsync";
	k->file_sync = 1;
	k->dir_sync = 1;
	return gh_checks(c, root, err);
}
