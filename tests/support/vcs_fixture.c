#include "tests/support/vcs_fixture.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/git/observe.h"
#include "io/git/vcs.h"
#include "io/util/err.h"
#include "tests/support/tmp.h"

#define GIT_ENV \
	"export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null " \
	"GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid " \
	"GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid " \
	"GIT_OPTIONAL_LOCKS=0;"

char *fx_tmpdir(void)
{
	char tmpl[4096];
	char *real;

	test_tmp_name(tmpl, sizeof(tmpl), "sw-vcs-test-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpl));
	real = realpath(tmpl, NULL);
	cr_assert_not_null(real);
	{
		char *out = sw_strdup(real);

		free(real);
		return out;
	}
}

static char *command(const char *dir, const char *fmt, va_list ap)
{
	char body[8192], *cmd;

	vsnprintf(body, sizeof(body), fmt, ap);
	cmd = sw_asprintf("cd '%s' && " GIT_ENV "%s", dir, body);
	cr_assert_not_null(cmd);
	return cmd;
}

void fx_sh(const char *dir, const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	cmd = command(dir, fmt, ap);
	va_end(ap);
	rc = system(cmd);
	cr_assert_eq(rc, 0, "command failed (%d): %s", rc, cmd);
	sw_free(cmd);
}

char *fx_sh_out(const char *dir, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *cmd, *buf = NULL;
	size_t cap = 0, n = 0, got;
	FILE *p;

	va_start(ap, fmt);
	cmd = command(dir, fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	do {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = sw_realloc(buf, cap);
			cr_assert_not_null(buf);
		}
		got = fread(buf + n, 1, cap - n - 1, p);
		n += got;
	} while (got > 0);
	cr_assert_eq(pclose(p), 0, "command failed: %s", cmd);
	buf[n] = '\0';
	*len = n;
	sw_free(cmd);
	return buf;
}

void fx_rmrf(const char *dir)
{
	char *cmd = sw_asprintf("rm -rf '%s'", dir);

	if (system(cmd) != 0)
		cr_log_warn("cannot remove %s", dir);
	sw_free(cmd);
}

static void add(struct fx_dirty **v, size_t *n, const char *path,
		const char *cat, const char *state)
{
	for (size_t i = 0; i < *n; i++) {
		struct fx_dirty *d = &(*v)[i];

		if (strcmp(d->path, path) == 0) {
			/* the reference's pairwise merge of whole strings */
			const char *l[2] = { d->category, cat }, *s[2] = { d->state, state };

			for (int k = 0; k < 2; k++) {
				const char **pair = k ? s : l;
				char **dst = k ? &d->state : &d->category;
				int c = strcmp(pair[0], pair[1]);
				char *m = c == 0 ? sw_strdup(pair[0]) :
					  c < 0 ? sw_asprintf("%s,%s", pair[0], pair[1]) :
					  sw_asprintf("%s,%s", pair[1], pair[0]);

				sw_free(*dst);
				*dst = m;
			}
			return;
		}
	}
	*v = sw_realloc(*v, (*n + 1) * sizeof(**v));
	cr_assert_not_null(*v);
	(*v)[*n].path = sw_strdup(path);
	(*v)[*n].category = sw_strdup(cat);
	(*v)[*n].state = sw_strdup(state);
	(*n)++;
}

/* The k-th space-separated field start of `rec`. */
static const char *field(const char *rec, int k)
{
	while (k-- > 0) {
		rec = strchr(rec, ' ');
		cr_assert_not_null(rec);
		rec++;
	}
	return rec;
}

static int cmp_dirty(const void *a, const void *b)
{
	return strcmp(((const struct fx_dirty *)a)->path, ((const struct fx_dirty *)b)->path);
}

size_t fx_git_dirty(const char *dir, struct fx_dirty **out)
{
	size_t len = 0, n = 0;
	char *raw = fx_sh_out(dir, &len,
			      "git -c core.fsmonitor=false status --porcelain=v2 -z --untracked-files=all");
	struct fx_dirty *v = NULL;

	for (size_t i = 0; i < len;) {
		const char *rec = raw + i;
		size_t rl = strlen(rec);
		char xy[3] = { rec[2], rec[3], '\0' };

		i += rl + 1;
		if (rec[0] == '1') {
			add(&v, &n, field(rec, 8), "ordinary", xy);
		} else if (rec[0] == '2') {
			const char *score = field(rec, 8), *path = field(rec, 9);
			char state[16];
			const char *orig = raw + i;

			snprintf(state, sizeof(state), "%s %.*s", xy, (int)(path - score - 1), score);
			i += strlen(orig) + 1;
			add(&v, &n, path, score[0] == 'C' ? "copy" : "rename", state);
			add(&v, &n, orig, score[0] == 'C' ? "copy_origin" : "rename_origin", state);
		} else if (rec[0] == 'u') {
			add(&v, &n, field(rec, 10), "unmerged", xy);
		} else if (rec[0] == '?') {
			add(&v, &n, rec + 2, "untracked", "??");
		}
	}
	sw_free(raw);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_dirty);
	*out = v;
	return n;
}

void fx_dirty_free(struct fx_dirty *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sw_free(d[i].path);
		sw_free(d[i].category);
		sw_free(d[i].state);
	}
	sw_free(d);
}

void fx_observe(struct vcs_observation *o, const char *dir, int libgit2_status)
{
	struct vcs_observe_opts opts = { .libgit2_status = libgit2_status };
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(vcs_discover(&id, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_observe(o, &id, &opts, &err), 0, "%s", err.msg);
	vcs_identity_release(&id);
}
