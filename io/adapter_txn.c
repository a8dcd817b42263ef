#include "io/adapter_txn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files larger than this are never ours: treat them as modified. */
#define MANAGED_MAX (1u << 20)

enum op_kind { OP_WRITE, OP_REMOVE, OP_VERIFY };

struct op {
	enum op_kind kind;
	char *path;
	unsigned char *data;
	size_t len;
	unsigned mode;
	enum adapter_txn_guard guard;
	char sha[SW_HEX_LEN];
	char *tmp;		/* staged new bytes (writes) */
	char *bak;		/* the previous target, moved aside */
	int exists;		/* target existed at guard time */
	int staged, aside, placed;
};

struct adapter_txn {
	char *root;
	struct op *ops;
	size_t n;
	char **dirs;		/* directories we created, in creation order */
	size_t ndirs;
};

#ifdef SW_TESTING
static unsigned fail_step_at;
static int fail_undo;

void adapter_txn_fail_step(unsigned n, int break_undo)
{
	fail_step_at = n;
	fail_undo = break_undo;
}

/* The sanitizer binary takes the same seam from the environment, so the
 * end-to-end tests can break a transaction through the CLI. */
static void seam_from_env(void)
{
	const char *n = getenv("SLIPWAY_TEST_TXN_FAIL_STEP");

	if (fail_step_at == 0 && n && *n) {
		fail_step_at = (unsigned)strtoul(n, NULL, 10);
		fail_undo = getenv("SLIPWAY_TEST_TXN_BREAK_UNDO") != NULL;
	}
}
#endif

/* Counts mutating steps so the test seam can break any one of them. */
static int step_fails(unsigned *step)
{
	(*step)++;
#ifdef SW_TESTING
	if (fail_step_at != 0 && *step == fail_step_at) {
		errno = EIO;
		return 1;
	}
#endif
	return 0;
}

static int undo_fails(void)
{
#ifdef SW_TESTING
	return fail_undo;
#else
	return 0;
#endif
}

const char *adapter_txn_outcome_wire(enum adapter_txn_outcome o)
{
	switch (o) {
	case ADAPTER_TXN_COMMITTED: return "committed";
	case ADAPTER_TXN_ROLLED_BACK: return "rolled_back";
	case ADAPTER_TXN_AMBIGUOUS: return "ambiguous";
	case ADAPTER_TXN_NOT_COMMITTED: return "not_committed";
	}
	return "not_committed";
}

int adapter_txn_new(struct adapter_txn **out, const char *root,
		    struct sw_error *err)
{
	if ((*out = sw_calloc(1, sizeof(**out))) == NULL ||
	    ((*out)->root = sw_strdup(root)) == NULL) {
		sw_free(*out);
		*out = NULL;
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	return 0;
}

/* Re-checks, right before the first change, that no directory between the
 * root and `path` was replaced by a symlink or a file since planning. */
static int confined(const struct adapter_txn *t, const char *path,
		    struct sw_error *err)
{
	size_t rootlen = strlen(t->root);
	char *copy;
	int rc = 0;

	if (strncmp(path, t->root, rootlen) != 0 || path[rootlen] != '/')
		return sw_error_set(err, SW_EUNSAFE, "'%s' is outside '%s'", path, t->root);
	if ((copy = sw_strdup(path)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	for (char *p = copy + rootlen + 1; (p = strchr(p, '/')) != NULL; p++) {
		struct stat st;

		*p = '\0';
		if (lstat(copy, &st) < 0) {
			if (errno != ENOENT)
				rc = sw_error_sys(err, errno, "cannot inspect '%s'", copy);
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc = sw_error_set(err, SW_EUNSAFE, "'%s' is a symlink or not a directory", copy);
			break;
		}
		*p = '/';
	}
	sw_free(copy);
	return rc;
}

static int push(struct adapter_txn *t, enum op_kind kind, const char *path,
		const void *data, size_t len, unsigned mode,
		enum adapter_txn_guard guard, const char *sha256,
		struct sw_error *err)
{
	struct op *grown = sw_realloc(t->ops, (t->n + 1) * sizeof(*grown));
	struct op *o;

	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	t->ops = grown;
	o = &t->ops[t->n];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->mode = mode;
	o->guard = guard;
	if (guard == ADAPTER_TXN_EXPECT_SHA256)
		snprintf(o->sha, sizeof(o->sha), "%s", sha256);
	if ((o->path = sw_strdup(path)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (kind == OP_WRITE) {
		if ((o->data = sw_malloc(len ? len : 1)) == NULL) {
			sw_free(o->path);
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		}
		memcpy(o->data, data, len);
		o->len = len;
	}
	t->n++;
	return 0;
}

int adapter_txn_write(struct adapter_txn *t, const char *path,
		      const void *data, size_t len, unsigned mode,
		      enum adapter_txn_guard guard, const char *sha256,
		      struct sw_error *err)
{
	return push(t, OP_WRITE, path, data, len, mode, guard, sha256, err);
}

int adapter_txn_remove(struct adapter_txn *t, const char *path,
		       enum adapter_txn_guard guard, const char *sha256,
		       struct sw_error *err)
{
	return push(t, OP_REMOVE, path, NULL, 0, 0, guard, sha256, err);
}

int adapter_txn_verify(struct adapter_txn *t, const char *path,
		       enum adapter_txn_guard guard, const char *sha256,
		       struct sw_error *err)
{
	return push(t, OP_VERIFY, path, NULL, 0, 0, guard, sha256, err);
}

/* Hashes a regular, non-symlink file of at most MANAGED_MAX bytes. */
static int hash_file(const char *path, char out[SW_HEX_LEN])
{
	struct sw_sha256 *h = NULL;
	struct stat st;
	unsigned char buf[8192];
	ssize_t got;
	size_t total = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > MANAGED_MAX || sw_sha256_new(&h, NULL) < 0) {
		close(fd);
		return -1;
	}
	while ((got = read(fd, buf, sizeof(buf))) > 0) {
		total += (size_t)got;
		if (total > MANAGED_MAX)
			break;
		sw_sha256_update(h, buf, (size_t)got);
	}
	close(fd);
	if (got != 0) {
		sw_sha256_free(h);
		return -1;
	}
	sw_sha256_final_hex(h, out);
	return 0;
}

static int check_guard(struct op *o, struct sw_error *err)
{
	struct stat st;
	char hex[SW_HEX_LEN];

	if (lstat(o->path, &st) < 0) {
		if (errno != ENOENT)
			return sw_error_sys(err, errno, "cannot inspect '%s'", o->path);
		o->exists = 0;
		if (o->guard == ADAPTER_TXN_EXPECT_SHA256)
			return sw_error_set(err, SW_ECONFLICT,
					    "'%s' disappeared before it could be changed", o->path);
		return 0;
	}
	o->exists = 1;
	if (o->kind != OP_VERIFY && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return sw_error_set(err, SW_EUNSAFE, "'%s' is not a file", o->path);
	if (o->guard == ADAPTER_TXN_EXPECT_MISSING)
		return sw_error_set(err, SW_ECONFLICT,
				    "'%s' appeared before it could be written", o->path);
	if (o->guard == ADAPTER_TXN_EXPECT_SHA256 &&
	    (S_ISLNK(st.st_mode) || hash_file(o->path, hex) < 0 ||
	     strcmp(hex, o->sha) != 0))
		return sw_error_set(err, SW_ECONFLICT,
				    "'%s' changed before it could be updated", o->path);
	return 0;
}

static char *sibling(const char *path, const char *tag, size_t idx)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;

	return sw_asprintf("%.*s/.%s.slipway-%s-%ld-%zu", dirlen, path,
			   slash ? slash + 1 : path, tag, (long)getpid(), idx);
}

static int make_parents(struct adapter_txn *t, const char *path,
			unsigned *step, struct sw_error *err)
{
	char *copy = sw_strdup(path);
	int rc = 0;

	if (copy == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	/* Only directories below the root are ours to create. */
	for (char *p = copy + strlen(t->root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		struct stat st;
		char **grown;

		*p = '\0';
		if (lstat(copy, &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				rc = sw_error_set(err, SW_EUNSAFE,
						  "'%s' is not a directory", copy);
				goto out;
			}
			*p = '/';
			continue;
		}
		if (step_fails(step) || mkdir(copy, 0755) < 0) {
			rc = sw_error_sys(err, errno, "cannot create directory '%s'", copy);
			goto out;
		}
		grown = sw_realloc(t->dirs, (t->ndirs + 1) * sizeof(*grown));
		if (grown == NULL || (grown[t->ndirs] = sw_strdup(copy)) == NULL) {
			if (grown)
				t->dirs = grown;
			rmdir(copy);
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto out;
		}
		t->dirs = grown;
		t->ndirs++;
		*p = '/';
	}
out:
	sw_free(copy);
	return rc;
}

static int stage(struct op *o, size_t idx, unsigned *step, struct sw_error *err)
{
	size_t off = 0;
	int fd;

	if ((o->tmp = sibling(o->path, "tmp", idx)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (step_fails(step))
		return sw_error_sys(err, errno, "cannot stage '%s'", o->path);
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  (mode_t)o->mode);
	if (fd < 0)
		return sw_error_sys(err, errno, "cannot stage '%s'", o->path);
	o->staged = 1;
	while (off < o->len) {
		ssize_t w = write(fd, o->data + off, o->len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return sw_error_sys(err, errno, "cannot write '%s'", o->tmp);
		}
		off += (size_t)w;
	}
	/* open() applied the umask; the reference's modes are exact. */
	if (fchmod(fd, (mode_t)o->mode) < 0 || fsync(fd) < 0) {
		close(fd);
		return sw_error_sys(err, errno, "cannot sync '%s'", o->tmp);
	}
	if (close(fd) < 0)
		return sw_error_sys(err, errno, "cannot close '%s'", o->tmp);
	return 0;
}

/* Moves `from` to `to` only if `to` does not exist, so a file created
 * concurrently after the guard check is never replaced. */
static int rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* File systems without RENAME_NOREPLACE: link() refuses to replace. */
	if (link(from, to) < 0)
		return -1;
	(void)unlink(from);
	return 0;
}

static void sync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? sw_strndup(path, (size_t)(slash - path)) : NULL;
	int fd = dir ? open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	sw_free(dir);
}

/* Undoes every completed step in reverse; returns -1 if any undo failed. */
static int undo(struct adapter_txn *t)
{
	int bad = 0;

	for (size_t i = t->n; i-- > 0;) {
		struct op *o = &t->ops[i];

		if (o->placed) {
			if (undo_fails() || unlink(o->path) < 0)
				bad = 1;
			else
				o->placed = 0;
		}
		if (o->aside) {
			if (undo_fails() || rename_noreplace(o->bak, o->path) < 0)
				bad = 1;
			else
				o->aside = 0;
		}
		if (o->staged && o->tmp) {
			if (unlink(o->tmp) < 0 && errno != ENOENT)
				bad = 1;
			o->staged = 0;
		}
	}
	for (size_t i = t->ndirs; i-- > 0;)
		if (rmdir(t->dirs[i]) < 0 && errno != ENOENT)
			bad = 1;
	return bad ? -1 : 0;
}

int adapter_txn_apply(struct adapter_txn *t, enum adapter_txn_outcome *outcome,
		      char **cleanup_warning, struct sw_error *err)
{
	unsigned step = 0;
	int rc = 0;
	size_t i;

	*outcome = ADAPTER_TXN_NOT_COMMITTED;
	*cleanup_warning = NULL;
#ifdef SW_TESTING
	seam_from_env();
#endif
	for (i = 0; i < t->n; i++)
		if ((rc = confined(t, t->ops[i].path, err)) < 0 ||
		    (rc = check_guard(&t->ops[i], err)) < 0)
			return rc;
	for (i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];

		if (o->kind != OP_WRITE)
			continue;
		if ((rc = make_parents(t, o->path, &step, err)) < 0 ||
		    (rc = stage(o, i, &step, err)) < 0)
			goto fail;
	}
	for (i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];

		if (o->kind == OP_VERIFY || !o->exists)
			continue;
		if ((o->bak = sibling(o->path, "bak", i)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto fail;
		}
		if (step_fails(&step) || rename_noreplace(o->path, o->bak) < 0) {
			rc = sw_error_sys(err, errno, "cannot move '%s' aside", o->path);
			goto fail;
		}
		o->aside = 1;
	}
	for (i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];

		if (o->kind != OP_WRITE)
			continue;
		if (step_fails(&step) || rename_noreplace(o->tmp, o->path) < 0) {
			rc = sw_error_sys(err, errno, "cannot install '%s'", o->path);
			goto fail;
		}
		o->staged = 0;
		o->placed = 1;
	}
	*outcome = ADAPTER_TXN_COMMITTED;
	for (i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];

		if (o->aside && unlink(o->bak) < 0 && *cleanup_warning == NULL)
			*cleanup_warning = sw_asprintf(
				"transaction committed but backup '%s' could not be removed", o->bak);
		if (o->kind != OP_VERIFY)
			sync_parent(o->path);
	}
	return 0;
fail:
	*outcome = undo(t) < 0 ? ADAPTER_TXN_AMBIGUOUS : ADAPTER_TXN_ROLLED_BACK;
	return rc;
}

size_t adapter_txn_artifacts(const struct adapter_txn *t, const char **out,
			     size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->ops[i].aside) {
			if (k < max)
				out[k] = t->ops[i].bak;
			k++;
		}
	return k;
}

void adapter_txn_free(struct adapter_txn *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++) {
		sw_free(t->ops[i].path);
		sw_free(t->ops[i].data);
		sw_free(t->ops[i].tmp);
		sw_free(t->ops[i].bak);
	}
	for (size_t i = 0; i < t->ndirs; i++)
		sw_free(t->dirs[i]);
	sw_free(t->dirs);
	sw_free(t->ops);
	sw_free(t->root);
	sw_free(t);
}
