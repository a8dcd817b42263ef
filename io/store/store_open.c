/* The store handle: store_open anchors <common>/slipway/runs/ (making it
 * when writable), store_free, its clock and lock timeout; the failure
 * record (store_last_failure) and how a failed mutation is classified;
 * the list of run ids.  Never opens a run directory. */

#include "io/store/store_internal.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/store/store_names.h"

void store__fail_reset(struct store *s)
{
	memset(&s->fail, 0, sizeof(s->fail));
}

static void set_proto(struct sw_error *err, enum tbl_err code)
{
	if (err == NULL)
		return;
	err->code = SW_EPROTO;
	err->proto = code;
}

/* Turns a failed mutation into its wire classification (upstream
 * asCLIErrorWithContext order): record limit, busy, caller protocol error,
 * then the four mutation_* codes from what the transaction knows. */
int store__finish_mutation(struct store *s, const struct txn *t, int rc,
			   struct sw_error *err)
{
	struct store_failure *f = &s->fail;
	enum tbl_err code;

	if (rc == 0)
		return 0;
	f->has_mutation = true;
	snprintf(f->phase, sizeof(f->phase), "%s", t->phase);
	f->committed = t->committed;
	f->projection_stale = t->committed && t->pending;
	f->namespace_detached = t->detached;
	f->ambiguous = t->wrote && !t->committed;
	if (t->detached || f->ambiguous)
		code = TBL_ERR_MUTATION_OUTCOME_AMBIGUOUS;
	else if (f->committed && f->projection_stale)
		code = TBL_ERR_MUTATION_COMMITTED_PROJECTION_STALE;
	else if (f->committed)
		code = TBL_ERR_MUTATION_COMMITTED_VERIFICATION_FAILED;
	else
		code = TBL_ERR_MUTATION_NOT_COMMITTED;
	if (err != NULL && err->code == SW_EPROTO &&
	    err->proto != TBL_ERR_RUN_JOURNAL_INVALID) {
		/* journal_record_too_large, run_busy, run_not_found or the
		 * caller's own protocol error win over the generic codes. */
		f->code = err->proto;
		return rc;
	}
	set_proto(err, code);
	f->code = code;
	return err ? err->code : rc;
}

int store__fail_proto(struct store *s, struct sw_error *err, enum tbl_err code,
		      const char *fmt, const char *arg)
{
	s->fail.code = code;
	return sw_error_proto(err, code, fmt, arg);
}

static void default_clock(struct timespec *now, void *payload)
{
	(void)payload;
	clock_gettime(CLOCK_REALTIME, now);
}

int store_open(struct store **out, const char *git_common_dir, bool writable,
	       struct sw_error *err)
{
	struct store *s = NULL;
	struct stat before;
	bool created = false;
	int rc = 0;

	*out = NULL;
	/* The two spellings of the run directory's names agree. */
	assert(strcmp(STORE_JOURNAL_NAME, JOURNAL_NAME) == 0 &&
	       strcmp(STORE_PROJECTION_NAME, PROJECTION_NAME) == 0 &&
	       strcmp(STORE_LOCK_NAME, LOCK_NAME) == 0 &&
	       strcmp(STORE_CHECKPOINT_NAME, CHECKPOINT_NAME) == 0 &&
	       strcmp(STORE_CHECKPOINT_LOG_NAME, CHECKPOINT_LOG_NAME) == 0 &&
	       strcmp(STORE_SUMMARY_NAME, SUMMARY_NAME) == 0 &&
	       strcmp(STORE_MATERIALS_NAME, MATERIALS_NAME) == 0);
	if (git_common_dir == NULL || git_common_dir[0] != '/') {
		rc = sw_error_proto(err, TBL_ERR_RUNSTORE_UNAVAILABLE,
				    "git common directory must be an absolute path");
		goto out;
	}
	if ((s = sw_calloc(1, sizeof(*s))) == NULL ||
	    (s->common_path = sw_strdup(git_common_dir)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate run store");
		goto out;
	}
	s->common_fd = s->slipway_fd = s->runs_fd = -1;
	s->writable = writable;
	s->clock = default_clock;
	s->lock_timeout_ms = STORE_LOCK_TIMEOUT_MS;
#ifdef SW_TESTING
	{
		/* The end-to-end tests shorten the wait through the CLI. */
		const char *t = getenv("SLIPWAY_TEST_LOCK_TIMEOUT_MS");

		if (t != NULL && *t != '\0')
			s->lock_timeout_ms = (unsigned)strtoul(t, NULL, 10);
	}
#endif
	if (lstat(git_common_dir, &before) < 0 || !S_ISDIR(before.st_mode)) {
		rc = sw_error_proto(err, TBL_ERR_RUNSTORE_UNAVAILABLE,
				    "'%s' is not a regular directory", git_common_dir);
		goto out;
	}
	s->common_fd = open(git_common_dir,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->common_fd < 0 || fstat(s->common_fd, &s->common_st) < 0 ||
	    !store__same_file(&before, &s->common_st)) {
		rc = sw_error_proto(err, TBL_ERR_RUNSTORE_UNAVAILABLE,
				    "cannot open git common directory '%s'",
				    git_common_dir);
		goto out;
	}
	if (!writable) {
		struct sw_error e = SW_ERROR_INIT;

		if ((rc = store__open_dir_at(&s->slipway_fd, &s->slipway_st, NULL,
					     s->common_fd, SLIPWAY_NAME, false, false, &e)) < 0 ||
		    (rc = store__open_dir_at(&s->runs_fd, &s->runs_st, NULL,
					     s->slipway_fd, RUNS_NAME, false, false, &e)) < 0) {
			if (e.sys_errno == ENOENT) {
				/* A repository without runs reads as empty. */
				s->empty = true;
				rc = 0;
				goto out;
			}
			rc = sw_error_proto(err, TBL_ERR_RUNSTORE_UNAVAILABLE, "%s", e.msg);
			goto out;
		}
	} else {
		struct sw_error e = SW_ERROR_INIT;

		if ((rc = store__open_dir_at(&s->slipway_fd, &s->slipway_st, &created,
					     s->common_fd, SLIPWAY_NAME, true, true, &e)) < 0 ||
		    (created &&
		     ((rc = store__sync_dir(s->slipway_fd, &s->slipway_st, SLIPWAY_NAME, &e)) < 0 ||
		      (rc = store__sync_dir(s->common_fd, &s->common_st, "common", &e)) < 0)) ||
		    (rc = store__open_dir_at(&s->runs_fd, &s->runs_st, &created,
					     s->slipway_fd, RUNS_NAME, true, true, &e)) < 0 ||
		    (created &&
		     ((rc = store__sync_dir(s->runs_fd, &s->runs_st, RUNS_NAME, &e)) < 0 ||
		      (rc = store__sync_dir(s->slipway_fd, &s->slipway_st, SLIPWAY_NAME, &e)) < 0))) {
			rc = sw_error_proto(err, TBL_ERR_RUNSTORE_UNAVAILABLE, "%s", e.msg);
			goto out;
		}
	}
	if ((rc = store__anchors_valid(s, err)) < 0)
		goto out;
out:
	if (rc < 0) {
		store_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int store__runs_fd(struct store *s)
{
	if (s->empty || store__anchors_valid(s, NULL) < 0)
		return -1;
	return s->runs_fd;
}

void store_free(struct store *s)
{
	if (s == NULL)
		return;
	store__close_fd(&s->runs_fd);
	store__close_fd(&s->slipway_fd);
	store__close_fd(&s->common_fd);
	sw_free(s->common_path);
	sw_free(s);
}

void store_set_clock(struct store *s, store_clock_fn *fn, void *payload)
{
	s->clock = fn ? fn : default_clock;
	s->clock_payload = payload;
}

void store_set_lock_timeout(struct store *s, unsigned ms)
{
	s->lock_timeout_ms = ms;
	s->lock_deadline = 0;
}

const struct store_failure *store_last_failure(const struct store *s)
{
	return &s->fail;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void store_list_free(char **ids, size_t n)
{
	if (ids == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		sw_free(ids[i]);
	sw_free(ids);
}

static bool is_run_name(int runs_fd, const char *name)
{
	(void)runs_fd;
	return store_run_id_valid(name);
}

/* The names under runs/ that `keep` accepts, sorted. */
static int scan_runs(char ***out, size_t *n, struct store *s,
		     bool (*keep)(int runs_fd, const char *name), struct sw_error *err)
{
	char **ids = NULL;
	size_t len = 0, cap = 0;
	DIR *dir = NULL;
	struct dirent *de;
	int fd = -1, rc = 0;

	*out = NULL;
	*n = 0;
	store__fail_reset(s);
	if (s->empty)
		goto out;
	if ((rc = store__anchors_valid(s, err)) < 0)
		goto out;
	if ((fd = openat(s->runs_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (dir = fdopendir(fd)) == NULL) {
		rc = sw_error_sys(err, errno, "cannot list runs");
		goto out;
	}
	fd = -1;
	while ((de = readdir(dir)) != NULL) {
		if (!keep(s->runs_fd, de->d_name))
			continue;
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **p = sw_realloc(ids, ncap * sizeof(*p));

			if (p == NULL) {
				rc = sw_error_set(err, SW_ENOMEM, "cannot list runs");
				goto out;
			}
			ids = p;
			cap = ncap;
		}
		if ((ids[len] = sw_strdup(de->d_name)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot list runs");
			goto out;
		}
		len++;
	}
	if ((rc = store__anchors_valid(s, err)) < 0)
		goto out;
	if (len > 1)
		qsort(ids, len, sizeof(*ids), cmp_str);
out:
	if (dir)
		closedir(dir);
	store__close_fd(&fd);
	if (rc < 0) {
		store_list_free(ids, len);
		return rc;
	}
	*out = ids;
	*n = len;
	return 0;
}

int store_list(char ***out, size_t *n, struct store *s, struct sw_error *err)
{
	return scan_runs(out, n, s, is_run_name, err);
}
