/* An all-or-nothing batch of file writes and removals under one root,
 * anchored at descriptors, for install and uninstall, announced by its
 * intent record before its first change.  See io/adapters/adapter_txn.h. */

#include "io/adapters/adapter_txn.h"
#include "io/adapters/adapter_intent.h"
#include "io/adapters/adapter_internal.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/buf.h"
#include "io/util/os.h"

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
	char new_sha[SW_HEX_LEN];	/* writes: of `data` */
	enum adapter_intent_prior prior;	/* the target at guard time */
	char prior_sha[SW_HEX_LEN];
	int dfd;		/* the parent directory, opened from the root; -1 */
	const char *name;	/* last component of path (borrowed) */
	char *tmp;		/* staged new bytes (writes), a name in dfd */
	char *bak;		/* the previous target moved aside, a name in dfd */
	char *bak_path;		/* the same as a path, for the report */
	int exists;		/* target existed at guard time */
	int staged, aside, placed;
};

/* A directory the transaction created: `name` in `pfd`. */
struct made_dir {
	int pfd;
	char *name;
};

struct adapter_txn {
	char *root;
	int rootfd;		/* while applying; -1 */
	struct adapter_intent_dir *intents;	/* borrowed, locked */
	struct adapter_intent rec;	/* the intent record, once prepared */
	int recorded;		/* rec is on disk */
	struct op *ops;
	size_t n;
	struct made_dir *dirs;	/* directories we created, in creation order */
	size_t ndirs;
	char **folders;		/* removed once empty after the commit */
	int *folder_gone;
	size_t nfolders;
	int crashed;		/* the test seam stopped apply as a kill would */
};

#ifdef SW_TESTING
static unsigned fail_step_at;
static int fail_undo, fail_crash;
static void (*race_hook)(int, void *);
static void *race_hook_arg;

void adapter_txn_race_hook(void (*fn)(int point, void *arg), void *arg)
{
	race_hook = fn;
	race_hook_arg = arg;
}

static void race_point(int point)
{
	if (race_hook)
		race_hook(point, race_hook_arg);
}
#define RACE_POINT(n) race_point(n)

void adapter_txn_fail_step(unsigned n, int break_undo)
{
	fail_step_at = n;
	fail_undo = break_undo;
	fail_crash = 0;
}

void adapter_txn_crash_step(unsigned n)
{
	fail_step_at = n;
	fail_undo = 0;
	fail_crash = n != 0;
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
#else
#define RACE_POINT(n) ((void)0)
#endif

/* Counts mutating steps so the test seam can break any one of them, or
 * stop apply there as a kill would (t->crashed). */
static int step_fails(struct adapter_txn *t, unsigned *step)
{
	(*step)++;
#ifdef SW_TESTING
	if (fail_step_at != 0 && *step == fail_step_at) {
		t->crashed = fail_crash;
		errno = EIO;
		return 1;
	}
#else
	(void)t;
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
		    struct adapter_intent_dir *intents, struct sw_error *err)
{
	assert(intents != NULL);
	if ((*out = sw_calloc(1, sizeof(**out))) == NULL ||
	    ((*out)->root = sw_strdup(root)) == NULL) {
		sw_free(*out);
		*out = NULL;
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	(*out)->rootfd = -1;
	(*out)->intents = intents;
	return 0;
}

static int add_str(char ***v, size_t *n, const char *s, struct sw_error *err)
{
	char **grown = sw_realloc(*v, (*n + 1) * sizeof(**v));

	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	*v = grown;
	if ((grown[*n] = sw_strdup(s)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	(*n)++;
	return 0;
}

int adapter_txn_describe(struct adapter_txn *t, const char *operation, char *const *hosts,
			 size_t nhosts, struct sw_error *err)
{
	int rc = 0;

	sw_free(t->rec.operation);
	if ((t->rec.operation = sw_strdup(operation)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	for (size_t i = 0; i < nhosts && rc == 0; i++)
		rc = add_str(&t->rec.hosts, &t->rec.nhosts, hosts[i], err);
	return rc;
}

int adapter_txn_remove_folder(struct adapter_txn *t, const char *rel, struct sw_error *err)
{
	int *grown = sw_realloc(t->folder_gone, (t->nfolders + 1) * sizeof(*grown));

	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	t->folder_gone = grown;
	grown[t->nfolders] = 0;
	return add_str(&t->folders, &t->nfolders, rel, err);
}

size_t adapter_txn_removed_folders(const struct adapter_txn *t, const char **out, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < t->nfolders; i++)
		if (t->folder_gone[i]) {
			if (k < max)
				out[k] = t->folders[i];
			k++;
		}
	return k;
}

/* Every operation acts through descriptors: the root is opened once,
 * each op's parent directory is reached from it one component at a time
 * with O_DIRECTORY | O_NOFOLLOW, and every later step is an *at() call
 * relative to that descriptor.  A directory swapped for a symlink after
 * planning is refused when it is opened, and one swapped after that can
 * only redirect nothing: the descriptor still names the directory that
 * was checked. */

int adapter__open_dir(int rootfd, const char *rel, int parent)
{
	char copy[PATH_MAX], *comp, *slash;
	int fd, e;

	if (strlen(rel) >= sizeof(copy)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(copy, rel, strlen(rel) + 1);
	fd = dup(rootfd);
	for (comp = copy; fd >= 0 && comp && *comp; comp = slash ? slash + 1 : NULL) {
		int next;

		if ((slash = strchr(comp, '/')) != NULL)
			*slash = '\0';
		else if (parent)
			break;
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(fd);
		fd = next;
		errno = e;
	}
	return fd;
}

/* Creates directory `name` in `pfd` (`path` names it in messages) and
 * records it for the undo. */
static int make_dir(struct adapter_txn *t, int pfd, const char *name, const char *path,
		    unsigned *step, struct sw_error *err)
{
	struct made_dir *grown;

	if (step_fails(t, step) || mkdirat(pfd, name, 0755) < 0)
		return sw_error_sys(err, errno, "cannot create directory '%s'", path);
	grown = sw_realloc(t->dirs, (t->ndirs + 1) * sizeof(*grown));
	if (grown != NULL)
		t->dirs = grown;
	if (grown == NULL || (grown[t->ndirs].name = sw_strdup(name)) == NULL) {
		unlinkat(pfd, name, AT_REMOVEDIR);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	if ((grown[t->ndirs].pfd = dup(pfd)) < 0) {
		int e = errno;

		sw_free(grown[t->ndirs].name);
		unlinkat(pfd, name, AT_REMOVEDIR);
		return sw_error_sys(err, e, "cannot keep directory '%s' open", path);
	}
	t->ndirs++;
	return 0;
}

/* Opens the parent directory of o->path into o->dfd.  A missing component
 * leaves o->dfd at -1, or with `create` is made (counted as a step and
 * recorded for the undo). */
static int open_parent(struct adapter_txn *t, struct op *o, int create,
		       unsigned *step, struct sw_error *err)
{
	size_t rootlen = strlen(t->root);
	char *copy, *comp, *slash;
	int fd, rc = 0;

	if (strncmp(o->path, t->root, rootlen) != 0 || o->path[rootlen] != '/')
		return sw_error_set(err, SW_EUNSAFE, "'%s' is outside '%s'", o->path, t->root);
	if ((copy = sw_strdup(o->path)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if ((fd = dup(t->rootfd)) < 0) {
		rc = sw_error_sys(err, errno, "cannot open '%s'", t->root);
		goto out;
	}
	for (comp = copy + rootlen + 1; (slash = strchr(comp, '/')) != NULL; comp = slash + 1) {
		int next;

		*slash = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create) {
			if ((rc = make_dir(t, fd, comp, copy, step, err)) < 0)
				goto out;
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			if (errno == ENOENT && !create)
				goto out;	/* the target is missing too */
			rc = errno == ELOOP || errno == ENOTDIR
				? sw_error_set(err, SW_EUNSAFE,
					       "'%s' is a symlink or not a directory", copy)
				: sw_error_sys(err, errno, "cannot open directory '%s'", copy);
			goto out;
		}
		close(fd);
		fd = next;
		*slash = '/';
	}
	if (o->dfd >= 0)
		close(o->dfd);
	o->dfd = fd;
	o->name = o->path + (comp - copy);
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
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
	o->dfd = -1;
	if (guard == ADAPTER_TXN_EXPECT_SHA256)
		snprintf(o->sha, sizeof(o->sha), "%s", sha256);
	if ((o->path = sw_strdup(path)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	o->name = strrchr(o->path, '/') ? strrchr(o->path, '/') + 1 : o->path;
	if (kind == OP_WRITE) {
		if ((o->data = sw_malloc(len ? len : 1)) == NULL) {
			sw_free(o->path);
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		}
		memcpy(o->data, data, len);
		o->len = len;
		sw_sha256_hex(o->data, len, o->new_sha);
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

size_t adapter_txn_size(const struct adapter_txn *t)
{
	return t->n;
}

const char *adapter_txn_written_path(const struct adapter_txn *t, size_t i)
{
	return i < t->n && t->ops[i].kind == OP_WRITE ? t->ops[i].path : NULL;
}

int adapter__hash_at(int dfd, const char *name, char out[SW_HEX_LEN])
{
	struct sw_sha256 *h = NULL;
	struct stat st;
	unsigned char buf[8192];
	ssize_t got;
	size_t total = 0;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

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

/* Checks o's guard against the file as its opened parent holds it. */
static int check_guard(struct adapter_txn *t, struct op *o, struct sw_error *err)
{
	struct stat st;
	char hex[SW_HEX_LEN];
	int rc;

	if ((rc = open_parent(t, o, 0, NULL, err)) < 0)
		return rc;
	if (o->dfd < 0 || fstatat(o->dfd, o->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (o->dfd >= 0 && errno != ENOENT)
			return sw_error_sys(err, errno, "cannot inspect '%s'", o->path);
		o->exists = 0;
		o->prior = ADAPTER_PRIOR_MISSING;
		if (o->guard == ADAPTER_TXN_EXPECT_SHA256)
			return sw_error_set(err, SW_ECONFLICT,
					    "'%s' disappeared before it could be changed", o->path);
		return 0;
	}
	o->exists = 1;
	o->prior = ADAPTER_PRIOR_UNKNOWN;
	if (o->kind != OP_VERIFY && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return sw_error_set(err, SW_EUNSAFE, "'%s' is not a file", o->path);
	if (o->guard == ADAPTER_TXN_EXPECT_MISSING)
		return sw_error_set(err, SW_ECONFLICT,
				    "'%s' appeared before it could be written", o->path);
	if (o->guard == ADAPTER_TXN_EXPECT_SHA256 &&
	    (S_ISLNK(st.st_mode) || adapter__hash_at(o->dfd, o->name, hex) < 0 ||
	     strcmp(hex, o->sha) != 0))
		return sw_error_set(err, SW_ECONFLICT,
				    "'%s' changed before it could be updated", o->path);
	/* The recovery deletes a backup only when it holds these bytes. */
	if (o->kind != OP_VERIFY && S_ISREG(st.st_mode) &&
	    adapter__hash_at(o->dfd, o->name, o->prior_sha) == 0)
		o->prior = ADAPTER_PRIOR_SHA256;
	return 0;
}

/* A hidden sibling name of op `idx`'s target, ".<name>.slipway-<tag>-<pid>-<n>",
 * that is free now: a file a killed process of the same pid left and the
 * recovery kept is stepped over (n = idx, idx + nops, ...). */
static char *sibling(const struct adapter_txn *t, const struct op *o, const char *tag, size_t idx)
{
	for (size_t n = idx;; n += t->n) {
		char *name = sw_asprintf(ADAPTER_SIBLING_FMT, o->name, tag, (long)getpid(), n);
		struct stat st;

		if (name == NULL || o->dfd < 0 || fstatat(o->dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return name;
		sw_free(name);
	}
}

static int stage(struct adapter_txn *t, struct op *o, unsigned *step, struct sw_error *err)
{
	int fd;

	if (step_fails(t, step))
		return sw_error_sys(err, errno, "cannot stage '%s'", o->path);
	fd = openat(o->dfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    (mode_t)o->mode);
	if (fd < 0)
		return sw_error_sys(err, errno, "cannot stage '%s'", o->path);
	o->staged = 1;
	if (sw_write_full(fd, o->data, o->len) != o->len) {
		int e = errno;

		close(fd);
		return sw_error_sys(err, e, "cannot write a staged copy of '%s'", o->path);
	}
	/* open() applied the umask; the reference's modes are exact. */
	if (fchmod(fd, (mode_t)o->mode) < 0 || sw_os_fsync(fd) < 0) {
		close(fd);
		return sw_error_sys(err, errno, "cannot sync a staged copy of '%s'", o->path);
	}
	if (close(fd) < 0)
		return sw_error_sys(err, errno, "cannot close a staged copy of '%s'", o->path);
	return 0;
}

/* The one rename that must not replace (io/adapters/adapter_internal.h),
 * through the OS seam (io/util/os.h). */
int adapter__rename_noreplace(int dfd, const char *from, const char *to)
{
	return sw_os_rename_noreplace(dfd, from, to);
}

/* Undoes every completed step in reverse; returns -1 if any undo failed. */
static int undo(struct adapter_txn *t)
{
	int bad = 0;

	for (size_t i = t->n; i-- > 0;) {
		struct op *o = &t->ops[i];

		if (o->placed) {
			if (undo_fails() || unlinkat(o->dfd, o->name, 0) < 0)
				bad = 1;
			else
				o->placed = 0;
		}
		if (o->aside) {
			if (undo_fails() || adapter__rename_noreplace(o->dfd, o->bak, o->name) < 0)
				bad = 1;
			else
				o->aside = 0;
		}
		if (o->staged && o->tmp) {
			if (unlinkat(o->dfd, o->tmp, 0) < 0 && errno != ENOENT)
				bad = 1;
			o->staged = 0;
		}
	}
	for (size_t i = t->ndirs; i-- > 0;)
		if (unlinkat(t->dirs[i].pfd, t->dirs[i].name, AT_REMOVEDIR) < 0 && errno != ENOENT)
			bad = 1;
	return bad ? -1 : 0;
}

/* The directories below the root that the writes need and that are
 * missing now, shallowest first: the record names them so that a rollback
 * after a kill removes them again (when empty). */
static int plan_dirs(struct adapter_txn *t, struct sw_error *err)
{
	size_t rootlen = strlen(t->root);
	int rc = 0;

	for (size_t i = 0; i < t->n && rc == 0; i++) {
		struct op *o = &t->ops[i];
		char *rel;

		if (o->kind != OP_WRITE)
			continue;
		if ((rel = sw_strdup(o->path + rootlen + 1)) == NULL)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		for (char *slash = strchr(rel, '/'); slash && rc == 0; slash = strchr(slash + 1, '/')) {
			struct stat st;
			size_t k;

			*slash = '\0';
			for (k = 0; k < t->rec.ndirs && strcmp(t->rec.dirs[k], rel) != 0; k++)
				;
			if (k == t->rec.ndirs && fstatat(t->rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
			    errno == ENOENT)
				rc = add_str(&t->rec.dirs, &t->rec.ndirs, rel, err);
			*slash = '/';
		}
		sw_free(rel);
	}
	return rc;
}

/* Names every staged copy and backup and fills the intent record
 * (prepared) from the ops; 0 ops recorded means nothing will change. */
static int prepare(struct adapter_txn *t, struct sw_error *err)
{
	size_t rootlen = strlen(t->root), k = 0;
	int rc;

	if ((t->rec.ops = sw_calloc(t->n + 1, sizeof(*t->rec.ops))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	for (size_t i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];
		struct adapter_intent_op *r = &t->rec.ops[k];

		if (o->kind == OP_VERIFY)
			continue;
		t->rec.nops = ++k;
		if ((o->kind == OP_WRITE && (o->tmp = sibling(t, o, "tmp", i)) == NULL) ||
		    (o->exists && ((o->bak = sibling(t, o, "bak", i)) == NULL ||
				   (o->bak_path = sw_asprintf("%.*s%s", (int)(o->name - o->path),
							      o->path, o->bak)) == NULL)) ||
		    (r->path = sw_strdup(o->path + rootlen + 1)) == NULL ||
		    (o->tmp && (r->tmp = sw_strdup(o->tmp)) == NULL) ||
		    (o->bak && (r->bak = sw_strdup(o->bak)) == NULL))
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		r->kind = o->kind == OP_WRITE ? ADAPTER_INTENT_WRITE : ADAPTER_INTENT_REMOVE;
		r->prior = o->prior;
		memcpy(r->prior_sha, o->prior_sha, SW_HEX_LEN);
		memcpy(r->new_sha, o->new_sha, SW_HEX_LEN);
		r->size = o->len;
	}
	for (size_t i = 0; i < t->nfolders; i++)
		if ((rc = add_str(&t->rec.folders, &t->rec.nfolders, t->folders[i], err)) < 0)
			return rc;
	if (t->rec.operation == NULL && (t->rec.operation = sw_strdup("")) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	t->rec.phase = ADAPTER_INTENT_PREPARED;
	t->rec.pid = (long)getpid();
	return plan_dirs(t, err);
}

/* Makes every rename and new directory durable before the record says
 * committed: each changed directory once, and the parents of new ones. */
static int sync_dirs(struct adapter_txn *t, struct sw_error *err)
{
	for (size_t i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];
		size_t plen = (size_t)(o->name - o->path), k;

		if (o->kind == OP_VERIFY || o->dfd < 0)
			continue;
		for (k = 0; k < i; k++)
			if (t->ops[k].kind != OP_VERIFY && t->ops[k].dfd >= 0 &&
			    (size_t)(t->ops[k].name - t->ops[k].path) == plen &&
			    strncmp(t->ops[k].path, o->path, plen) == 0)
				break;
		if (k == i && fsync(o->dfd) < 0)
			return sw_error_sys(err, errno, "cannot sync the directory of '%s'", o->path);
	}
	for (size_t i = 0; i < t->ndirs; i++)
		if (fsync(t->dirs[i].pfd) < 0)
			return sw_error_sys(err, errno, "cannot sync a directory above '%s'", t->dirs[i].name);
	return 0;
}

static size_t depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		d += *p == '/';
	return d;
}

/* After the commit: deletes the backups, then the queued folders that are
 * empty, deepest first.  1 when everything went, 0 when something stays
 * (*warning says what), -1 when the test seam stopped it as a kill. */
static int finish(struct adapter_txn *t, unsigned *step, char **warning)
{
	int clean = 1;

	for (size_t i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];

		if (!o->aside)
			continue;
		if (step_fails(t, step) || unlinkat(o->dfd, o->bak, 0) < 0) {
			if (t->crashed)
				return -1;
			clean = 0;
			if (*warning == NULL)
				*warning = sw_asprintf("transaction committed but backup '%s' could not be removed",
						       o->bak_path);
			continue;
		}
		o->aside = 0;
	}
	for (size_t d = 64; d-- > 0;)
		for (size_t i = 0; i < t->nfolders; i++) {
			int fd;

			if (depth(t->folders[i]) != d)
				continue;
			if (step_fails(t, step) && t->crashed)
				return -1;
			if ((fd = adapter__open_dir(t->rootfd, t->folders[i], 1)) < 0)
				continue;
			t->folder_gone[i] = unlinkat(fd, strrchr(t->folders[i], '/')
							 ? strrchr(t->folders[i], '/') + 1 : t->folders[i],
						     AT_REMOVEDIR) == 0;
			close(fd);
		}
	return clean;
}

int adapter_txn_apply(struct adapter_txn *t, enum adapter_txn_outcome *outcome,
		      char **cleanup_warning, struct sw_error *err)
{
	unsigned step = 0;
	int rc = 0, clean;
	size_t i;

	*outcome = ADAPTER_TXN_NOT_COMMITTED;
	*cleanup_warning = NULL;
#ifdef SW_TESTING
	seam_from_env();
#endif
	if (t->rootfd < 0 &&
	    (t->rootfd = open(t->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return sw_error_sys(err, errno, "cannot open '%s'", t->root);
	for (i = 0; i < t->n; i++)
		if ((rc = check_guard(t, &t->ops[i], err)) < 0)
			return rc;
	RACE_POINT(1);
	if ((rc = prepare(t, err)) < 0)
		return rc;
	if (t->rec.nops == 0 && t->nfolders == 0) {
		*outcome = ADAPTER_TXN_COMMITTED;	/* nothing to change */
		return 0;
	}
	/* Before the first change: what a kill from here on leaves is undone
	 * or finished from this record (adapter_txn_recover). */
	if ((rc = adapter_intent_write(t->intents, &t->rec, err)) < 0)
		return rc;
	t->recorded = 1;
	for (i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];

		if (o->kind != OP_WRITE)
			continue;
		if ((o->dfd < 0 && (rc = open_parent(t, o, 1, &step, err)) < 0) ||
		    (rc = stage(t, o, &step, err)) < 0)
			goto fail;
	}
	RACE_POINT(2);
	for (i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];

		if (o->kind == OP_VERIFY || !o->exists)
			continue;
		if (step_fails(t, &step) || adapter__rename_noreplace(o->dfd, o->name, o->bak) < 0) {
			rc = sw_error_sys(err, errno, "cannot move '%s' aside", o->path);
			goto fail;
		}
		o->aside = 1;
	}
	for (i = 0; i < t->n; i++) {
		struct op *o = &t->ops[i];

		if (o->kind != OP_WRITE)
			continue;
		if (step_fails(t, &step) || adapter__rename_noreplace(o->dfd, o->tmp, o->name) < 0) {
			rc = sw_error_sys(err, errno, "cannot install '%s'", o->path);
			goto fail;
		}
		o->staged = 0;
		o->placed = 1;
	}
	if ((rc = sync_dirs(t, err)) < 0)
		goto fail;
	t->rec.phase = ADAPTER_INTENT_COMMITTED;
	if (step_fails(t, &step)) {
		rc = sw_error_sys(err, errno, "cannot record the commit");
		goto fail;
	}
	if ((rc = adapter_intent_write(t->intents, &t->rec, err)) < 0)
		goto fail;
	*outcome = ADAPTER_TXN_COMMITTED;
	if ((clean = finish(t, &step, cleanup_warning)) < 0 || step_fails(t, &step)) {
		if (t->crashed)
			return sw_error_set(err, SW_EIO, "stopped by the test seam");
		clean = 0;
	}
	/* Something left stays named by the committed record: the next
	 * install or uninstall removes it, or reports it. */
	if (clean) {
		struct sw_error ignore = SW_ERROR_INIT;

		(void)adapter_intent_remove(t->intents, &ignore);
	}
	return 0;
fail:
	if (t->crashed)
		return rc;
	t->rec.phase = ADAPTER_INTENT_PREPARED;
	*outcome = undo(t) < 0 ? ADAPTER_TXN_AMBIGUOUS : ADAPTER_TXN_ROLLED_BACK;
	/* Undone in full: nothing is left to recover.  Otherwise the record
	 * stays prepared and the next install or uninstall finishes the undo. */
	if (*outcome == ADAPTER_TXN_ROLLED_BACK && t->recorded) {
		struct sw_error ignore = SW_ERROR_INIT;

		(void)adapter_intent_remove(t->intents, &ignore);
	}
	return rc;
}

size_t adapter_txn_artifacts(const struct adapter_txn *t, const char **out,
			     size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->ops[i].aside) {
			if (k < max)
				out[k] = t->ops[i].bak_path;
			k++;
		}
	return k;
}

void adapter_txn_free(struct adapter_txn *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++) {
		if (t->ops[i].dfd >= 0)
			close(t->ops[i].dfd);
		sw_free(t->ops[i].path);
		sw_free(t->ops[i].data);
		sw_free(t->ops[i].tmp);
		sw_free(t->ops[i].bak);
		sw_free(t->ops[i].bak_path);
	}
	for (size_t i = 0; i < t->ndirs; i++) {
		close(t->dirs[i].pfd);
		sw_free(t->dirs[i].name);
	}
	if (t->rootfd >= 0)
		close(t->rootfd);
	for (size_t i = 0; i < t->nfolders; i++)
		sw_free(t->folders[i]);
	sw_free(t->folders);
	sw_free(t->folder_gone);
	adapter_intent_release(&t->rec);
	sw_free(t->dirs);
	sw_free(t->ops);
	sw_free(t->root);
	sw_free(t);
}
