/* What `slipway doctor` reports about the run store: leftovers of killed
 * processes and damage, found without changing anything and without a
 * lock but the ones a staging directory's check takes and lets go without
 * waiting (see io/store/store.h, store_inspect). */

#include "io/store/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/store/store_names.h"

/* 1 when directory `name` of `dfd` holds nothing. */
static bool empty_dir(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	bool empty = true;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (empty && (de = readdir(d)) != NULL)
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty;
}

/* A leftover of our name: a file, or a directory holding something. */
static enum store_finding_kind leftover_kind(int dfd, const char *name, const struct stat *st)
{
	return S_ISDIR(st->st_mode) && !empty_dir(dfd, name) ? STORE_FOUND_PARKED
							       : STORE_FOUND_TEMPORARY;
}

struct found {
	struct store_finding *v;
	size_t n, cap;
};

static int add(struct found *f, enum store_finding_kind kind, long long size,
	       char *path, char *why, struct sw_error *err)
{
	if (path == NULL || (kind >= STORE_FOUND_REPAIRABLE && why == NULL))
		goto nomem;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct store_finding *v = sw_realloc(f->v, cap * sizeof(*v));

		if (v == NULL)
			goto nomem;
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = (struct store_finding){ kind, path, size, why };
	return 0;
nomem:
	sw_free(path);
	sw_free(why);
	return sw_error_set(err, SW_ENOMEM, "out of memory");
}

/* What is wrong with entry `name` of `dfd` as a file the store reads, or
 * NULL when it is a regular file it can open (*fd gets it when fd is not
 * NULL).  A FIFO is never opened for reading (that would wait). */
static const char *unreadable(int dfd, const char *name, const struct stat *st, int *fd)
{
	int f;

	if (S_ISDIR(st->st_mode))
		return "is a directory";
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (S_ISFIFO(st->st_mode))
		return "is a FIFO";
	if (!S_ISREG(st->st_mode))
		return "is not a regular file";
	if ((f = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return errno == EACCES ? "cannot be read (permission denied)" : "cannot be opened";
	if (fd)
		*fd = f;
	else
		close(f);
	return NULL;
}

/* A material's bytes checked against its name: NULL when they hold. */
static const char *material_damage(int mfd, const char *name, const struct stat *st)
{
	char want[SW_DIGEST_LEN], got[SW_DIGEST_LEN];
	const char *why;
	char *buf = NULL;
	size_t n = 0;
	int fd = -1;

	if ((why = unreadable(mfd, name, st, &fd)) != NULL)
		return why;
	if ((buf = sw_malloc(STORE_MATERIAL_MAX + 1)) == NULL) {
		close(fd);
		return NULL;	/* not known to be damaged */
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, STORE_MATERIAL_MAX + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			why = "cannot be read";
			break;
		}
		if (r == 0 || (n += (size_t)r) > STORE_MATERIAL_MAX)
			break;
	}
	close(fd);
	if (why == NULL && (n == 0 || n > STORE_MATERIAL_MAX))
		why = "has an invalid size";
	if (why == NULL) {
		snprintf(want, sizeof(want), "sha256:%.64s", name);
		sw_material_digest(got, buf, n, NULL);
		if (strcmp(got, want) != 0)
			why = "does not match its digest (its bytes changed)";
	}
	sw_free(buf);
	return why;
}

static int inspect_materials(struct found *f, int rfd, const char *id, struct sw_error *err)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int mfd, rc = 0;

	if (fstatat(rfd, STORE_MATERIALS_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return add(f, STORE_FOUND_DAMAGED, -1, sw_asprintf("%s/%s", id, STORE_MATERIALS_NAME),
			   sw_strdup("is not a directory: no material of the Run can be read"), err);
	mfd = openat(rfd, STORE_MATERIALS_NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (mfd < 0 || (d = fdopendir(mfd)) == NULL) {
		if (mfd >= 0)
			close(mfd);
		return add(f, STORE_FOUND_DAMAGED, -1, sw_asprintf("%s/%s", id, STORE_MATERIALS_NAME),
			   sw_asprintf("cannot be listed (%s): no material of the Run can be read",
				       strerror(errno)), err);
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		const char *why;

		if (fstatat(mfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (store__is_material_temporary(de->d_name))
			rc = add(f, leftover_kind(mfd, de->d_name, &st), (long long)st.st_size,
				 sw_asprintf("%s/%s/%s", id, STORE_MATERIALS_NAME, de->d_name), NULL, err);
		else if (store__is_material_name(de->d_name) &&
			 (why = material_damage(mfd, de->d_name, &st)) != NULL)
			rc = add(f, STORE_FOUND_DAMAGED, -1,
				 sw_asprintf("%s/%s/%s", id, STORE_MATERIALS_NAME, de->d_name),
				 sw_strdup(why), err);
	}
	closedir(d);
	return rc;
}

/* One run directory `id` below runs/ (`rfd`). */
static int inspect_run(struct found *f, int rfd, const char *id, struct sw_error *err)
{
	static const char *const rebuilt[] = { STORE_PROJECTION_NAME, STORE_LOCK_NAME };
	struct dirent *de;
	struct stat st;
	const char *why;
	DIR *d;
	int fd, rc = 0;

	if (fstatat(rfd, STORE_JOURNAL_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return add(f, STORE_FOUND_NO_JOURNAL, -1, sw_strdup(id), NULL, err);
	} else if ((why = unreadable(rfd, STORE_JOURNAL_NAME, &st, NULL)) != NULL) {
		return add(f, STORE_FOUND_DAMAGED, -1, sw_asprintf("%s/%s", id, STORE_JOURNAL_NAME),
			   sw_strdup(why), err);
	}
	for (size_t i = 0; i < 2 && rc == 0; i++)
		if (fstatat(rfd, rebuilt[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (why = unreadable(rfd, rebuilt[i], &st, NULL)) != NULL)
			rc = add(f, STORE_FOUND_REPAIRABLE, -1, sw_asprintf("%s/%s", id, rebuilt[i]),
				 sw_strdup(why), err);
	if (rc < 0)
		return rc;
	if ((fd = openat(rfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (rc == 0 && (de = readdir(d)) != NULL)
		if (store__is_run_temporary(de->d_name) &&
		    fstatat(rfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			rc = add(f, leftover_kind(rfd, de->d_name, &st), (long long)st.st_size,
				 sw_asprintf("%s/%s", id, de->d_name), NULL, err);
	closedir(d);
	return rc < 0 ? rc : inspect_materials(f, rfd, id, err);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct store_finding *)a)->path,
		      ((const struct store_finding *)b)->path);
}

int store_inspect(struct store_finding **out, size_t *n, struct store *s, struct sw_error *err)
{
	struct found f = { NULL, 0, 0 };
	int runs_fd = store__runs_fd(s), fd = -1, rc = 0;
	struct dirent *de;
	DIR *d = NULL;

	*out = NULL;
	*n = 0;
	if (runs_fd < 0)
		return 0;
	if ((fd = openat(runs_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(fd)) == NULL) {
		rc = sw_error_sys(err, errno, "cannot list runs");
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat st;
		int rfd;

		if (fstatat(runs_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (strncmp(de->d_name, STORE_STAGED_PREFIX, strlen(STORE_STAGED_PREFIX)) == 0) {
			char buf[128];
			const char *why = store__staged_owner(runs_fd, de->d_name, buf, sizeof(buf));

			rc = add(&f, why == NULL ? STORE_FOUND_STAGED : STORE_FOUND_STAGED_HELD, -1,
				 sw_strdup(de->d_name), why == NULL ? NULL : sw_strdup(why), err);
			continue;
		}
		if (!store_run_id_valid(de->d_name))
			continue;
		rfd = openat(runs_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (rfd < 0)
			continue;	/* the listing reports a run directory it cannot open */
		rc = inspect_run(&f, rfd, de->d_name, err);
		close(rfd);
	}
	closedir(d);
	if (rc < 0) {
		store_findings_free(f.v, f.n);
		return rc;
	}
	if (f.n > 1)
		qsort(f.v, f.n, sizeof(*f.v), by_path);
	*out = f.v;
	*n = f.n;
	return 0;
}

void store_findings_free(struct store_finding *v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++) {
		sw_free(v[i].path);
		sw_free(v[i].why);
	}
	sw_free(v);
}
