/* Shared fixtures for the run store tests: a scratch "git common dir",
 * simple mutators and a whole-tree fingerprint. */
#ifndef TESTS_IO_STORE_HELPERS_H
#define TESTS_IO_STORE_HELPERS_H

#pragma GCC diagnostic ignored "-Wunused-function"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "io/util/digest.h"
#include "io/util/err.h"
#include "io/store/store.h"
#include "tests/support/tmp.h"

static char g_root[PATH_MAX];
static char g_common[PATH_MAX + 16];

static void scratch_init(void)
{
	test_tmp_name(g_root, sizeof(g_root), "sw-store-XXXXXX");
	cr_assert_not_null(mkdtemp(g_root));
	snprintf(g_common, sizeof(g_common), "%s/common", g_root);
	cr_assert_eq(mkdir(g_common, 0700), 0);
	sw_alloc_init();
}

static void scratch_fini(void)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", g_root);
}

/* Returns one of 16 rotating static buffers: do not free. */
static char *run_path(const char *id, const char *leaf)
{
	static char ring[16][PATH_MAX + 64];
	static int next;
	char *p = ring[next++ % 16];

	snprintf(p, PATH_MAX + 64, "%s/slipway/runs/%s%s%s", g_common, id,
		 leaf ? "/" : "", leaf ? leaf : "");
	return p;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = (n + 65536 + 1) * 2;
			buf = realloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, 65536, f);

		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void append_bytes(const char *path, const char *bytes)
{
	FILE *f = fopen(path, "ab");

	cr_assert_not_null(f);
	fputs(bytes, f);
	fclose(f);
}

/* "relative-path mode sha256" per entry, sorted by the walk order of a
 * sorted scandir, so two identical trees give identical strings. */
static void tree_walk(const char *dir, const char *rel, char **acc)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);

	cr_assert(n >= 0, "scandir %s", dir);
	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		char *full, *r, *line, *old, hex[SW_HEX_LEN] = "-";
		struct stat st;

		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0) {
			free(names[i]);
			continue;
		}
		full = sw_asprintf("%s/%s", dir, nm);
		r = sw_asprintf("%s/%s", rel, nm);
		cr_assert_eq(lstat(full, &st), 0);
		if (S_ISREG(st.st_mode)) {
			size_t len;
			char *b = slurp(full, &len);

			sw_sha256_hex(b, len, hex);
			free(b);
		}
		line = sw_asprintf("%s %o %s\n", r, (unsigned)st.st_mode, hex);
		old = *acc;
		*acc = sw_asprintf("%s%s", old, line);
		sw_free(old);
		sw_free(line);
		if (S_ISDIR(st.st_mode))
			tree_walk(full, r, acc);
		sw_free(full);
		sw_free(r);
		free(names[i]);
	}
	free(names);
}

static char *tree_fingerprint(const char *dir)
{
	char *acc = sw_strdup("");

	tree_walk(dir, "", &acc);
	return acc;
}

/* A mutator adding `n` events whose data is `data`, a projection and an
 * optional material. */
struct add_spec {
	int n;
	enum tbl_jevent type;
	const char *data;
	const char *projection;
	const char *material;
	char digest[SW_DIGEST_LEN];
	long long base;
};

static int add_events(struct store_mutation *m, void *payload,
		      struct sw_error *err)
{
	struct add_spec *a = payload;
	int rc;

	a->base = store_mutation_base(m);
	for (int i = 0; i < a->n; i++)
		if ((rc = store_mutation_add_event(m, a->type, a->data,
						   strlen(a->data), err)) < 0)
			return rc;
	if (a->projection &&
	    (rc = store_mutation_set_projection(m, a->projection,
						strlen(a->projection), err)) < 0)
		return rc;
	if (a->material &&
	    (rc = store_mutation_add_material(m, a->material,
					      strlen(a->material), a->digest,
					      err)) < 0)
		return rc;
	return 0;
}

/* Collects visited events. */
struct seen {
	int n;
	long long seq[64];
	enum tbl_jevent type[64];
	char at[64][48];
	char *data[64];
};

static int collect(const struct store_event *ev, void *payload,
		   struct sw_error *err)
{
	struct seen *s = payload;

	(void)err;
	if (s->n < 64) {
		s->seq[s->n] = ev->sequence;
		s->type[s->n] = ev->type;
		snprintf(s->at[s->n], sizeof(s->at[s->n]), "%s", ev->at);
		s->data[s->n] = sw_strndup(ev->data, ev->data_len);
	}
	s->n++;
	return 0;
}

static void seen_free(struct seen *s)
{
	for (int i = 0; i < s->n && i < 64; i++)
		sw_free(s->data[i]);
	memset(s, 0, sizeof(*s));
}

static void fixed_clock(struct timespec *now, void *payload)
{
	(void)payload;
	now->tv_sec = 1767323045;	/* 2026-01-02T03:04:05Z */
	now->tv_nsec = 123450000;
}

static struct store *open_store(bool writable)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = NULL;

	cr_assert_eq(store_open(&s, g_common, writable, &err), 0, "%s", err.msg);
	store_set_clock(s, fixed_clock, NULL);
	return s;
}

static void make_run(struct store *s, const char *id)
{
	struct sw_error err = SW_ERROR_INIT;
	struct add_spec a = { 1, TBL_JEVENT_RUN_STARTED, "{\"goal\": \"g\"}",
			      "{\"state\":\"active\"}", NULL, "", 0 };

	cr_assert_eq(store_create(s, id, add_events, &a, &err), 0, "%s %s",
		     tbl_err_wire[err.proto], err.msg);
}

#endif
