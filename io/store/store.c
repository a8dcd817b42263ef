#include "io/store/store.h"

#include <dirent.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <jansson.h>

#include "io/store/journal.h"
#include "io/store/store_names.h"
#include "io/util/json.h"

/* clang-format off */
const struct store_entry_row store_entries[STORE_ENTRY__COUNT] = {
#define STORE_ENTRY(id, parent, name, kind, doc) \
	[STORE_ENTRY_##id] = { STORE_ENTRY_##parent, name, STORE_KIND_##kind, doc },
#include "io/store/store_layout.def"
#undef STORE_ENTRY
};
/* clang-format on */

#define SLIPWAY_NAME store_entries[STORE_ENTRY_SLIPWAY].name
#define RUNS_NAME store_entries[STORE_ENTRY_RUNS].name
#define JOURNAL_NAME store_entries[STORE_ENTRY_JOURNAL].name
#define PROJECTION_NAME store_entries[STORE_ENTRY_PROJECTION].name
#define LOCK_NAME store_entries[STORE_ENTRY_LOCK].name
#define CHECKPOINT_NAME store_entries[STORE_ENTRY_CHECKPOINT].name
#define CHECKPOINT_MAGIC "slipway-checkpoint/5"
#define CHECKPOINT_LOG_NAME store_entries[STORE_ENTRY_CHECKPOINT_LOG].name
#define CHECKPOINT_MAX (256u << 20)
#define SUMMARY_NAME store_entries[STORE_ENTRY_SUMMARY].name
#define SUMMARY_MAGIC "slipway-summary/2"
#define SUMMARY_MAX (64u << 20)
#define MATERIALS_NAME store_entries[STORE_ENTRY_MATERIALS].name
#define RENAME_ATTEMPTS 10

struct store {
	char *common_path;
	bool writable;
	bool empty;		/* read-only and slipway/ or runs/ absent */
	int common_fd, slipway_fd, runs_fd;
	struct stat common_st, slipway_st, runs_st;
	store_clock_fn *clock;
	void *clock_payload;
	unsigned lock_timeout_ms;
	/* One deadline for every lock wait of this handle (one command):
	 * set when a lock first has to wait, 0 before. */
	long long lock_deadline;
	struct store_failure fail;
};

/* A Run under construction: ".tmp-<run id>-<16 hex>", outside the run id
 * grammar so that no listing takes it for a Run. */
#define STAGED_PREFIX STORE_STAGED_PREFIX
#define STAGED_NAME_MAX 160

/* An opened run directory and, while locked, its lock descriptor (the Run
 * record itself is io/store/run.h's struct run). */
struct run_dir {
	const char *id;
	int fd;
	struct stat st;
	int lock_fd;
	off_t cut_at;	/* a torn only record to cut when the journal is next appended */
	bool lock_damaged;	/* run.lock is no regular file we can open: a commit replaces it */
};

#define RUN_DIR_INIT { NULL, -1, { 0 }, -1, -1, false }

/* What is known about an in-flight mutation (upstream mutationTracker). */
struct txn {
	const char *phase;
	bool wrote;		/* journal bytes reached the file */
	bool committed;		/* journal fsynced (and dir for a new journal) */
	bool pending;		/* committed but run.json not yet installed */
	bool detached;		/* a write hit an inode whose path moved */
};

struct mut_event {
	enum tbl_jevent type;
	char *data;
	size_t len;
};

struct mut_material {
	char digest[SW_DIGEST_LEN];
	void *bytes;
	size_t len;
	struct stat st;		/* the blob as put_blob found its content right */
	bool created;		/* put_blob made the blob (it was not there) */
};

struct store_mutation {
	struct store *s;
	long long base;
	struct mut_event *ev;
	size_t nev;
	char *proj;
	size_t proj_len;
	struct sw_piece *piece;	/* run.json given whole (borrowed bytes) */
	size_t npiece;
	struct mut_material *mat;
	size_t nmat;
	const char *cp_body;	/* checkpoint body (borrowed), or NULL */
	size_t cp_len;
	const char *cp_log;	/* log bytes to add after cp_log_base */
	size_t cp_log_len, cp_log_base;
	char *sum_body;		/* listing summary body (owned), or NULL */
	size_t sum_len;
	/* Set by store_update_resumable: the hash of the whole journal as
	 * replayed (NULL when a repair or a read made it unusable), and of
	 * the checkpoint log adopted with its length and file (lhash NULL
	 * when none was). */
	struct sw_lchain *jhash;
	off_t jlen;
	struct sw_xxh *lhash;
	size_t llen;
	struct stat lst;
	/* The run.json adopted with the checkpoint (st_ino 0 when none):
	 * pieces without bytes are copied from it. */
	struct stat src_st;
	/* While the store keeps warm: the adopted log's bytes (its first
	 * llen), and the journal as the append left it. */
	char *old_log;
	struct stat jst;
};

/* ---- fault seam ------------------------------------------------------ */

#ifdef SW_TESTING
static unsigned fault_kinds;
static unsigned long fault_nth, fault_seen;
static enum store_fault_mode fault_mode;
static int fault_fired;

void store_fault_arm(unsigned kinds, unsigned long nth, enum store_fault_mode mode)
{
	fault_kinds = kinds;
	fault_nth = nth;
	fault_mode = mode;
	fault_seen = 0;
	fault_fired = 0;
}

void store_fault_disarm(void)
{
	fault_kinds = 0;
	fault_nth = 0;
}

unsigned long store_fault_steps(void)
{
	return fault_seen;
}

int store_fault_fired(void)
{
	return fault_fired;
}

static bool no_kernel_copy;

void store_test_buffered_copies(bool on)
{
	no_kernel_copy = on;
}

static void (*after_materials)(void *);
static void *after_materials_arg;

void store_test_after_materials(void (*fn)(void *), void *arg)
{
	after_materials = fn;
	after_materials_arg = arg;
}

/* 0: go on; 1: fail this step; 2: tear this write. */
static int fault_at(unsigned kind)
{
	if (!(fault_kinds & kind) || fault_nth == 0)
		return 0;
	if (++fault_seen != fault_nth)
		return 0;
	fault_fired = 1;
	if (fault_mode == STORE_FAULT_TORN && kind == STORE_STEP_WRITE)
		return 2;
	if (fault_mode != STORE_FAULT_FAIL)
		_exit(STORE_FAULT_EXIT);
	return 1;
}
#else
static int fault_at(unsigned kind)
{
	(void)kind;
	return 0;
}
#endif

#ifdef SW_TESTING
#define KERNEL_COPY (!no_kernel_copy)
#else
#define KERNEL_COPY true
#endif

/* write(2) until all of buf is written; *done (may be NULL) gets the
 * bytes that reached the file. */
static int write_all(int fd, const char *p, size_t n, size_t *done)
{
	size_t off = sw_write_full(fd, p, n);

	if (done)
		*done = off;
	return off == n ? 0 : -1;
}

/* Writes all of buf, as one write step of the fault seam; *done gets the
 * bytes that reached the file. */
static int f_write(int fd, const void *buf, size_t n, size_t *done)
{
	int f = fault_at(STORE_STEP_WRITE);

	if (done)
		*done = 0;
	if (f == 1) {
		errno = EIO;
		return -1;
	}
	if (f == 2) {
		ssize_t w = write(fd, buf, n / 2);

		(void)w;
		_exit(STORE_FAULT_EXIT);
	}
	return write_all(fd, buf, n, done);
}

/* writev(2) until every iovec is written (modifies iov). */
static int writev_all(int fd, struct iovec *iov, size_t n)
{
	for (;;) {
		ssize_t w;

		while (n > 0 && iov->iov_len == 0) {
			iov++;
			n--;
		}
		if (n == 0)
			return 0;
		w = writev(fd, iov, (int)n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
}

/* Copies `len` bytes at `from` of src to fd's position: in the kernel
 * where it can, else through a small buffer. */
static int copy_range(int fd, int src, unsigned long long from, size_t len)
{
	char buf[65536];
	loff_t at = (loff_t)from;
	bool kernel = KERNEL_COPY;

	while (len > 0) {
		ssize_t n;

		if (kernel) {
			n = copy_file_range(src, &at, fd, NULL, len, 0);
			if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
				      errno == EOPNOTSUPP || errno == EBADF)) {
				kernel = false;
				continue;
			}
		} else {
			n = pread(src, buf, len < sizeof(buf) ? len : sizeof(buf), (off_t)at);
			if (n > 0 && write_all(fd, buf, (size_t)n, NULL) < 0)
				return -1;
			if (n > 0)
				at += n;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;	/* the source is shorter than said */
			return -1;
		}
		len -= (size_t)n;
	}
	return 0;
}

/* Writes up to `limit` bytes of the pieces in order (ranges of `src` for
 * pieces without bytes), batching the ones in memory. */
static int write_pieces(int fd, const struct sw_piece *pc, size_t n, int src, size_t limit)
{
	for (size_t i = 0; i < n && limit > 0;) {
		if (pc[i].bytes == NULL) {
			size_t take = pc[i].len < limit ? pc[i].len : limit;

			if (copy_range(fd, src, pc[i].from, take) < 0)
				return -1;
			limit -= take;
			i++;
			continue;
		}
		{
			struct iovec batch[64];
			size_t nb = 0, total = 0, k = i;

			for (; k < n && nb < 64 && pc[k].bytes != NULL && total < limit; k++) {
				size_t take = pc[k].len < limit - total ? pc[k].len : limit - total;

				batch[nb].iov_base = (void *)pc[k].bytes;
				batch[nb++].iov_len = take;
				total += take;
			}
			if (writev_all(fd, batch, nb) < 0)
				return -1;
			limit -= total;
			i = k;
		}
	}
	return 0;
}

/* Writes the pieces in order, as one write step of the fault seam (a
 * torn write stops halfway through the total). */
static int f_write_pieces(int fd, const struct sw_piece *pc, size_t n, int src)
{
	size_t total = 0;
	int f = fault_at(STORE_STEP_WRITE);

	for (size_t k = 0; k < n; k++)
		total += pc[k].len;
	if (f == 1) {
		errno = EIO;
		return -1;
	}
	if (f == 2) {
		(void)write_pieces(fd, pc, n, src, total / 2);
		_exit(STORE_FAULT_EXIT);
	}
	return write_pieces(fd, pc, n, src, SIZE_MAX);
}

static int f_fsync(int fd)
{
	if (fault_at(STORE_STEP_FSYNC)) {
		errno = EIO;
		return -1;
	}
	return fsync(fd);
}

static int f_rename(int dfd, const char *from, const char *to)
{
	if (fault_at(STORE_STEP_RENAME)) {
		errno = EIO;
		return -1;
	}
	return renameat2(dfd, from, dfd, to, RENAME_NOREPLACE);
}

static int f_mkdir(int dfd, const char *name)
{
	if (fault_at(STORE_STEP_MKDIR)) {
		errno = EIO;
		return -1;
	}
	return mkdirat(dfd, name, 0700);
}

static int f_unlink(int dfd, const char *name, int flags)
{
	if (fault_at(STORE_STEP_UNLINK)) {
		errno = EIO;
		return -1;
	}
	return unlinkat(dfd, name, flags);
}

static int f_create(int dfd, const char *name, int flags)
{
	if (fault_at(STORE_STEP_CREATE)) {
		errno = EIO;
		return -1;
	}
	return openat(dfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600);
}

/* ---- small helpers --------------------------------------------------- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The kernel's random bytes (getrandom(2), blocking only until the pool
 * is first seeded): no user-space generator to set up per process. */
static int random_bytes(unsigned char *b, size_t n, struct sw_error *err)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(b + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return sw_error_sys(err, errno, "cannot draw random bytes");
		got += (size_t)r;
	}
	return 0;
}

static int random_hex16(char out[17], struct sw_error *err)
{
	unsigned char b[8];
	int rc;

	if ((rc = random_bytes(b, sizeof(b), err)) < 0)
		return rc;
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

int store_run_id_valid(const char *id)
{
	size_t n = 0;

	if (id == NULL)
		return 0;
	for (; id[n] != '\0'; n++) {
		char c = id[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return 0;
		if (n >= STORE_RUN_ID_MAX)
			return 0;
	}
	return n >= 1;
}

/* 1 when p holds exactly n lowercase hex digits followed by `end`. */
static bool hex_then(const char *p, size_t n, char end)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return p[n] == end;
}

bool store__is_run_temporary(const char *name)
{
	/* Literal spellings (io/store/store_names.h), which store_open checks
	 * against the rows of io/store/store_layout.def. */
	static const char *const prefixes[] = {
		".tmp-" STORE_PROJECTION_NAME "-", ".tmp-" STORE_CHECKPOINT_NAME "-",
		".tmp-" STORE_CHECKPOINT_LOG_NAME "-", ".tmp-" STORE_SUMMARY_NAME "-",
		".tmp-" STORE_LOCK_NAME "-",
		".quarantine-" STORE_PROJECTION_NAME "-", ".quarantine-" STORE_LOCK_NAME "-",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (strncmp(name, prefixes[i], n) == 0 && hex_then(name + n, 16, '\0'))
			return true;
	}
	return false;
}

bool store__is_material_temporary(const char *name)
{
	return strncmp(name, ".tmp-", 5) == 0 && hex_then(name + 5, 64, '-') &&
	       hex_then(name + 70, 16, '\0');
}

bool store__is_material_name(const char *name)
{
	return hex_then(name, 64, '\0');
}

int store_new_run_id(char out[37], struct sw_error *err)
{
	unsigned char b[16];
	size_t o = 0;
	int rc;

	if ((rc = random_bytes(b, sizeof(b), err)) < 0)
		return rc;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		snprintf(out + o, 3, "%02x", b[i]);
		o += 2;
	}
	out[36] = '\0';
	return 0;
}

/* ---- anchored opening ------------------------------------------------ */

/* Opens directory `name` below `pfd` without following a symlink; with
 * `create` makes it (0700) when missing and reports *created; with
 * `secure` re-applies 0700. */
static int open_dir_at(int *fd, struct stat *st, bool *created, int pfd,
		       const char *name, bool create, bool secure,
		       struct sw_error *err)
{
	*fd = -1;
	if (created)
		*created = false;
	for (int attempt = 0; attempt < 3; attempt++) {
		struct stat before, opened;
		int d;

		if (fstatat(pfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT || !create)
				return sw_error_sys(err, errno, "cannot inspect '%s'", name);
			if (f_mkdir(pfd, name) < 0) {
				if (errno == EEXIST)
					continue;
				return sw_error_sys(err, errno, "cannot create '%s'", name);
			}
			if (created)
				*created = true;
			if (fstatat(pfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0)
				return sw_error_sys(err, errno, "cannot inspect '%s'", name);
		}
		if (!S_ISDIR(before.st_mode))
			return sw_error_set(err, SW_EUNSAFE,
					    "'%s' is not a regular directory", name);
		d = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d < 0) {
			if (errno == ENOENT)
				continue;
			return sw_error_sys(err, errno, "cannot open '%s'", name);
		}
		if (fstat(d, &opened) < 0 || !same_file(&before, &opened)) {
			close(d);
			continue;
		}
		if (secure && fchmod(d, 0700) < 0) {
			int e = errno;

			close(d);
			return sw_error_sys(err, e, "cannot secure '%s'", name);
		}
		*fd = d;
		*st = opened;
		return 0;
	}
	return sw_error_set(err, SW_EUNSAFE, "'%s' changed while opening", name);
}

/* 0 when `name` below `pfd` is still the directory `st`. */
static int check_dir_at(int pfd, const char *name, const struct stat *st,
			struct sw_error *err)
{
	struct stat cur;

	if (fstatat(pfd, name, &cur, AT_SYMLINK_NOFOLLOW) < 0)
		return sw_error_sys(err, errno, "cannot inspect '%s'", name);
	if (!S_ISDIR(cur.st_mode) || !same_file(&cur, st))
		return sw_error_set(err, SW_EUNSAFE,
				    "'%s' is not the opened directory", name);
	return 0;
}

/* 0 when the open file `fd` is still the regular file `name`. */
static int check_leaf(int dfd, const char *name, int fd, struct sw_error *err)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0)
		return sw_error_sys(err, errno, "cannot stat '%s'", name);
	if (fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return sw_error_sys(err, errno, "cannot inspect '%s'", name);
	if (!S_ISREG(a.st_mode) || !S_ISREG(b.st_mode) || !same_file(&a, &b))
		return sw_error_set(err, SW_EUNSAFE,
				    "'%s' changed or is not a regular file", name);
	return 0;
}

/* Opens existing regular file `name`; SW_ENOTFOUND when absent. */
static int open_leaf(int *fd, int dfd, const char *name, int flags,
		     struct sw_error *err)
{
	*fd = -1;
	for (int attempt = 0; attempt < 3; attempt++) {
		struct stat before, opened;
		int f;

		if (fstatat(dfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				return sw_error_set(err, SW_ENOTFOUND,
						    "'%s' does not exist", name);
			return sw_error_sys(err, errno, "cannot inspect '%s'", name);
		}
		if (!S_ISREG(before.st_mode))
			return sw_error_set(err, SW_EUNSAFE,
					    "'%s' is not a regular file", name);
		f = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
		if (f < 0) {
			if (errno == ENOENT)
				continue;
			return sw_error_sys(err, errno, "cannot open '%s'", name);
		}
		if (fstat(f, &opened) < 0 || !same_file(&before, &opened)) {
			close(f);
			continue;
		}
		*fd = f;
		return 0;
	}
	return sw_error_set(err, SW_EUNSAFE, "'%s' changed while opening", name);
}

/* open_leaf for the journal, which is appended in place: a second hard
 * link would let those appends reach a file outside the run directory,
 * so a journal with more than one link is refused. */
static int open_journal(int *fd, int dfd, int flags, struct sw_error *err)
{
	struct stat st;
	int rc = open_leaf(fd, dfd, JOURNAL_NAME, flags, err);

	if (rc < 0)
		return rc;
	if (fstat(*fd, &st) < 0)
		rc = sw_error_sys(err, errno, "cannot stat '%s'", JOURNAL_NAME);
	else if (st.st_nlink != 1)
		rc = sw_error_set(err, SW_EUNSAFE, "'%s' has %ju hard links; a journal must "
				  "have exactly one", JOURNAL_NAME, (uintmax_t)st.st_nlink);
	if (rc < 0) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

/* fsync of a directory after re-proving its identity. */
static int sync_dir(int fd, const struct stat *st, const char *what,
		    struct sw_error *err)
{
	struct stat cur;

	if (fstat(fd, &cur) < 0 || !same_file(&cur, st))
		return sw_error_set(err, SW_EUNSAFE,
				    "directory '%s' changed before sync", what);
	if (f_fsync(fd) < 0)
		return sw_error_sys(err, errno, "cannot sync directory '%s'", what);
	return 0;
}

static int anchors_valid(struct store *s, struct sw_error *err)
{
	struct stat cur;

	if (lstat(s->common_path, &cur) < 0)
		return sw_error_sys(err, errno, "cannot inspect '%s'", s->common_path);
	if (!S_ISDIR(cur.st_mode) || !same_file(&cur, &s->common_st))
		return sw_error_set(err, SW_EUNSAFE,
				    "git common directory changed after opening");
	if (s->slipway_fd >= 0 &&
	    check_dir_at(s->common_fd, SLIPWAY_NAME, &s->slipway_st, err) < 0)
		return err ? err->code : SW_EUNSAFE;
	if (s->runs_fd >= 0 &&
	    check_dir_at(s->slipway_fd, RUNS_NAME, &s->runs_st, err) < 0)
		return err ? err->code : SW_EUNSAFE;
	return 0;
}

static int run_valid(struct store *s, struct run_dir *r, struct sw_error *err)
{
	struct stat cur;
	int rc;

	if ((rc = anchors_valid(s, err)) < 0)
		return rc;
	if ((rc = check_dir_at(s->runs_fd, r->id, &r->st, err)) < 0)
		return rc;
	if (fstat(r->fd, &cur) < 0 || !same_file(&cur, &r->st))
		return sw_error_set(err, SW_EUNSAFE, "opened run directory changed");
	return 0;
}

/* Hands a locally collected error to the caller's, first error winning. */
static int pass_up(struct sw_error *err, const struct sw_error *e)
{
	if (err != NULL && err->code == SW_OK)
		*err = *e;
	return e->code;
}

/* ---- failure classification ------------------------------------------ */

static void fail_reset(struct store *s)
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
static int finish_mutation(struct store *s, const struct txn *t, int rc,
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

static int fail_proto(struct store *s, struct sw_error *err, enum tbl_err code,
		      const char *fmt, const char *arg)
{
	s->fail.code = code;
	return sw_error_proto(err, code, fmt, arg);
}

/* ---- open / free / list ---------------------------------------------- */

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
	    !same_file(&before, &s->common_st)) {
		rc = sw_error_proto(err, TBL_ERR_RUNSTORE_UNAVAILABLE,
				    "cannot open git common directory '%s'",
				    git_common_dir);
		goto out;
	}
	if (!writable) {
		struct sw_error e = SW_ERROR_INIT;

		if ((rc = open_dir_at(&s->slipway_fd, &s->slipway_st, NULL,
				      s->common_fd, SLIPWAY_NAME, false, false, &e)) < 0 ||
		    (rc = open_dir_at(&s->runs_fd, &s->runs_st, NULL,
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

		if ((rc = open_dir_at(&s->slipway_fd, &s->slipway_st, &created,
				      s->common_fd, SLIPWAY_NAME, true, true, &e)) < 0 ||
		    (created &&
		     ((rc = sync_dir(s->slipway_fd, &s->slipway_st, SLIPWAY_NAME, &e)) < 0 ||
		      (rc = sync_dir(s->common_fd, &s->common_st, "common", &e)) < 0)) ||
		    (rc = open_dir_at(&s->runs_fd, &s->runs_st, &created,
				      s->slipway_fd, RUNS_NAME, true, true, &e)) < 0 ||
		    (created &&
		     ((rc = sync_dir(s->runs_fd, &s->runs_st, RUNS_NAME, &e)) < 0 ||
		      (rc = sync_dir(s->slipway_fd, &s->slipway_st, SLIPWAY_NAME, &e)) < 0))) {
			rc = sw_error_proto(err, TBL_ERR_RUNSTORE_UNAVAILABLE, "%s", e.msg);
			goto out;
		}
	}
	if ((rc = anchors_valid(s, err)) < 0)
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
	if (s->empty || anchors_valid(s, NULL) < 0)
		return -1;
	return s->runs_fd;
}

void store_free(struct store *s)
{
	if (s == NULL)
		return;
	close_fd(&s->runs_fd);
	close_fd(&s->slipway_fd);
	close_fd(&s->common_fd);
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
	fail_reset(s);
	if (s->empty)
		goto out;
	if ((rc = anchors_valid(s, err)) < 0)
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
	if ((rc = anchors_valid(s, err)) < 0)
		goto out;
	if (len > 1)
		qsort(ids, len, sizeof(*ids), cmp_str);
out:
	if (dir)
		closedir(dir);
	close_fd(&fd);
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


/* ---- run handle and lock --------------------------------------------- */

static void run_close(struct run_dir *r)
{
	if (r->lock_fd >= 0)
		flock(r->lock_fd, LOCK_UN);
	close_fd(&r->lock_fd);
	close_fd(&r->fd);
}

/* Opens run `id`; `secure` (writable paths) re-applies 0700.
 * run_not_found when absent. */
static int run_open(struct run_dir *r, struct store *s, const char *id, bool secure,
		    struct sw_error *err)
{
	struct sw_error e = SW_ERROR_INIT;
	int rc;

	r->id = id;
	if (!store_run_id_valid(id))
		return sw_error_set(err, SW_EINVAL, "invalid run id");
	if ((rc = anchors_valid(s, err)) < 0)
		return rc;
	if (s->empty)
		return fail_proto(s, err, TBL_ERR_RUN_NOT_FOUND, "run '%s' not found", id);
	if (open_dir_at(&r->fd, &r->st, NULL, s->runs_fd, id, false, secure, &e) < 0) {
		if (e.sys_errno == ENOENT)
			return fail_proto(s, err, TBL_ERR_RUN_NOT_FOUND,
					  "run '%s' not found", id);
		return sw_error_set(err, e.code, "inspect run: %s", e.msg);
	}
	return run_valid(s, r, err);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#ifdef SW_TESTING
static bool fake_lock_clock;
static long long fake_lock_now;

void store_test_lock_clock(bool fake)
{
	fake_lock_clock = fake;
	fake_lock_now = 0;
}

long long store_test_lock_clock_ms(void)
{
	return fake_lock_now;
}

static long long lock_now(void)
{
	return fake_lock_clock ? fake_lock_now : now_ms();
}

static void lock_sleep(unsigned ms)
{
	if (fake_lock_clock)
		fake_lock_now += ms;
	else
		sleep_ms(ms);
}
#else
#define lock_now now_ms
#define lock_sleep sleep_ms
#endif

/* flock on a descriptor of the run directory, polled every 25 ms until
 * the handle's one deadline (lock_timeout_ms after the first lock of the
 * handle that had to wait); then run_busy.  A command that meets several
 * busy Runs thus waits once in all, and each later lock is tried once
 * after the deadline has passed. */
static int run_lock(struct run_dir *r, struct store *s, bool exclusive,
		    struct sw_error *err)
{
	struct stat st;

	r->lock_fd = openat(r->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->lock_fd < 0)
		return sw_error_sys(err, errno, "cannot open run lock");
	if (fstat(r->lock_fd, &st) < 0 || !same_file(&st, &r->st)) {
		close_fd(&r->lock_fd);
		return sw_error_set(err, SW_EUNSAFE,
				    "opened run directory changed before locking");
	}
	for (;;) {
		long long now, left;

		if (flock(r->lock_fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			int e = errno;

			close_fd(&r->lock_fd);
			return sw_error_sys(err, e, "cannot acquire run lock");
		}
		now = lock_now();
		if (s->lock_deadline == 0)
			s->lock_deadline = now + s->lock_timeout_ms;
		if ((left = s->lock_deadline - now) <= 0) {
			close_fd(&r->lock_fd);
			s->fail.code = TBL_ERR_RUN_BUSY;
			return sw_error_proto(err, TBL_ERR_RUN_BUSY,
					      "run lock acquisition timed out after %u ms "
					      "(one wait for every run this command locks)",
					      s->lock_timeout_ms);
		}
		lock_sleep(left < STORE_LOCK_POLL_MS ? (unsigned)left : STORE_LOCK_POLL_MS);
	}
	return run_valid(s, r, err);
}

/* Creates the empty run.lock marker on first exclusive lock; every
 * exclusive lock makes it owner-only again (0600), like the reference. */
static int ensure_lock_file(struct run_dir *r, struct txn *t, struct sw_error *err)
{
	struct stat st;
	int fd = -1, rc = 0;

	t->phase = "lock_open";
	if (fstatat(r->fd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* The lock is the flock on the run directory; the marker only
		 * names it.  One that is no regular file we can open and secure
		 * (a directory, a FIFO, a symlink, mode 000) takes nothing from
		 * the lock: the mutation goes on and, once it commits, replaces
		 * the marker (repair_lock_file). */
		if (!S_ISREG(st.st_mode) ||
		    open_leaf(&fd, r->fd, LOCK_NAME, O_RDONLY | O_NONBLOCK,
			      &(struct sw_error)SW_ERROR_INIT) < 0 ||
		    fchmod(fd, 0600) < 0)
			r->lock_damaged = true;
		close_fd(&fd);
		return 0;
	}
	if (errno != ENOENT)
		return sw_error_sys(err, errno, "cannot inspect run lock");
	if ((fd = f_create(r->fd, LOCK_NAME, O_RDWR)) < 0) {
		rc = sw_error_sys(err, errno, "cannot create run lock");
		goto out;
	}
	t->phase = "lock_sync";
	if (fchmod(fd, 0600) < 0 || f_fsync(fd) < 0) {
		rc = sw_error_sys(err, errno, "cannot sync new run lock");
		goto out;
	}
	if ((rc = check_leaf(r->fd, LOCK_NAME, fd, err)) < 0)
		goto out;
	t->phase = "directory_sync";
	rc = sync_dir(r->fd, &r->st, "run", err);
out:
	close_fd(&fd);
	return rc;
}

/* ---- journal replay -------------------------------------------------- */

struct reader {
	int fd;
	struct sw_lchain *hash;	/* every byte read goes in, or NULL */
	char chunk[65536];
	size_t clen, cpos;
	bool eof;
	char *line;
	size_t len, cap;
};

/* Reads one record.  *consumed counts every byte taken; *complete says a
 * "\n" ended it; *too_large that it passed JOURNAL_MAX_LINE (the bytes are
 * then dropped).  The line (without "\n") is in rd->line / rd->len. */
static int read_record(struct reader *rd, size_t *consumed, bool *complete,
		       bool *too_large, struct sw_error *err)
{
	*consumed = 0;
	*complete = false;
	*too_large = false;
	rd->len = 0;
	for (;;) {
		char *nl;
		size_t take, total;

		if (rd->cpos == rd->clen) {
			ssize_t n;

			if (rd->eof)
				return 0;
			n = read(rd->fd, rd->chunk, sizeof(rd->chunk));
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return sw_error_sys(err, errno, "cannot read journal");
			}
			if (n == 0) {
				rd->eof = true;
				return 0;
			}
			if (rd->hash)
				sw_lchain_update(rd->hash, rd->chunk, (size_t)n);
			rd->clen = (size_t)n;
			rd->cpos = 0;
		}
		nl = memchr(rd->chunk + rd->cpos, '\n', rd->clen - rd->cpos);
		take = nl ? (size_t)(nl - (rd->chunk + rd->cpos)) + 1 : rd->clen - rd->cpos;
		total = *consumed + take;
		*consumed = total;
		if (total > JOURNAL_MAX_LINE)
			*too_large = true;
		if (!*too_large) {
			size_t add = nl ? take - 1 : take;

			if (rd->len + add + 1 > rd->cap) {
				size_t ncap = rd->cap ? rd->cap : 8192;
				char *p;

				while (ncap < rd->len + add + 1)
					ncap *= 2;
				if ((p = sw_realloc(rd->line, ncap)) == NULL)
					return sw_error_set(err, SW_ENOMEM,
							    "cannot buffer journal record");
				rd->line = p;
				rd->cap = ncap;
			}
			memcpy(rd->line + rd->len, rd->chunk + rd->cpos, add);
			rd->len += add;
			rd->line[rd->len] = '\0';
		}
		rd->cpos += take;
		if (nl) {
			*complete = true;
			return 0;
		}
	}
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\n\v\f", s[i]) || s[i] == '\0')
			return false;
	return true;
}

static int invalid_journal(struct store *s, struct sw_error *err,
			   const char *why)
{
	return fail_proto(s, err, TBL_ERR_RUN_JOURNAL_INVALID, "%s", why);
}

/* Where a replay starts and what it hashes (store_update_resumable). */
struct replay_from {
	off_t skip;		/* bytes a checkpoint covers */
	long long base;		/* events they hold */
	struct sw_lchain *hash;	/* gets every byte read after `skip` */
	bool repaired;		/* out: the tail was cut or terminated */
	off_t end;		/* out: the journal's length afterwards */
};

/* Streams journal.jsonl through `visit`.  With `repair`, a torn final
 * record is cut off (or terminated when it decodes) and fsynced; without
 * it the torn record is skipped and the bytes left alone.  `from` (may be
 * NULL) starts after a checkpoint and hashes what it reads. */
static int replay(struct store *s, struct run_dir *r, bool repair,
		  store_visit_fn *visit, void *payload, long long *count,
		  struct replay_from *from, struct sw_error *err)
{
	struct reader *rd = NULL;
	struct journal_record rec = { 0 };
	off_t offset = from ? from->skip : 0, truncate_at = -1;
	bool append_nl = false;
	long long n = from ? from->base : 0;
	int fd = -1, rc = 0;

	*count = 0;
	{
		struct sw_error e = SW_ERROR_INIT;

		rc = open_journal(&fd, r->fd, repair ? O_RDWR : O_RDONLY, &e);
		/* A run whose create died before the journal: no events. */
		if (rc == SW_ENOTFOUND)
			return 0;
		if (rc < 0) {
			rc = pass_up(err, &e);
			goto out;
		}
	}
	if ((rd = sw_calloc(1, sizeof(*rd))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate journal reader");
		goto out;
	}
	rd->fd = fd;
	if (from) {
		rd->hash = from->hash;
		if (lseek(fd, from->skip, SEEK_SET) != from->skip) {
			rc = sw_error_sys(err, errno, "cannot seek journal");
			goto out;
		}
	}
	for (;;) {
		off_t rec_off = offset;
		size_t consumed;
		bool complete, too_large;

		if ((rc = read_record(rd, &consumed, &complete, &too_large, err)) < 0)
			goto out;
		if (consumed == 0)
			break;
		offset += (off_t)consumed;
		if (too_large) {
			if (!complete) {
				truncate_at = rec_off;
				break;
			}
			char why[96];

			snprintf(why, sizeof(why),
				 "decode journal event %lld: record exceeds %u bytes",
				 n + 1, JOURNAL_MAX_LINE);
			rc = invalid_journal(s, err, why);
			goto out;
		}
		if (!blank(rd->line, rd->len)) {
			struct sw_error e = SW_ERROR_INIT;

			if (journal_record_decode(&rec, rd->line, rd->len, n + 1, &e) < 0) {
				if (e.code == SW_ENOMEM) {
					rc = sw_error_set(err, SW_ENOMEM, "%s", e.msg);
					goto out;
				}
				if (!complete) {
					truncate_at = rec_off;
					break;
				}
				rc = invalid_journal(s, err, e.msg);
				goto out;
			}
			struct store_event ev = { rec.sequence, rec.type, rec.at,
						  rec.data, rec.data_len };

			if (visit && (rc = visit(&ev, payload, err)) < 0) {
				if (err && err->code == SW_OK)
					rc = sw_error_set(err, rc, "journal visitor failed");
				goto out;
			}
			journal_record_release(&rec);
			n++;
		}
		if (!complete) {
			append_nl = true;
			break;
		}
	}
	/* A torn record with no complete one before it is all the Run has:
	 * cutting it now would leave an empty journal behind a mutation that
	 * is then refused, so the cut waits for the append that commits. */
	if (repair && truncate_at >= 0 && n == 0) {
		r->cut_at = truncate_at;
		repair = false;
		if (from)
			from->repaired = true;
	}
	if (repair && (truncate_at >= 0 || append_nl)) {
		if ((rc = check_leaf(r->fd, JOURNAL_NAME, fd, err)) < 0)
			goto out;
		if (truncate_at >= 0) {
			if (ftruncate(fd, truncate_at) < 0) {
				rc = sw_error_sys(err, errno, "cannot truncate torn journal record");
				goto out;
			}
		} else if (lseek(fd, 0, SEEK_END) < 0 ||
			   f_write(fd, "\n", 1, NULL) < 0) {
			rc = sw_error_sys(err, errno, "cannot terminate journal record");
			goto out;
		}
		if (f_fsync(fd) < 0) {
			rc = sw_error_sys(err, errno, "cannot sync repaired journal");
			goto out;
		}
		if (from)
			from->repaired = true;
	}
	if (from)
		from->end = truncate_at >= 0 ? truncate_at : offset + (append_nl ? 1 : 0);
	if ((rc = check_leaf(r->fd, JOURNAL_NAME, fd, err)) < 0)
		goto out;
	*count = n;
out:
	journal_record_release(&rec);
	if (rd)
		sw_free(rd->line);
	sw_free(rd);
	close_fd(&fd);
	return rc;
}

int store_visit(struct store *s, const char *run_id, store_visit_fn *visit,
		void *payload, long long *count, struct sw_error *err)
{
	struct run_dir r = RUN_DIR_INIT;
	long long n = 0;
	int rc;

	fail_reset(s);
	if ((rc = run_open(&r, s, run_id, s->writable, err)) < 0)
		goto out;
	if ((rc = run_lock(&r, s, s->writable, err)) < 0)
		goto out;
	if ((rc = replay(s, &r, s->writable, visit, payload, &n, NULL, err)) < 0)
		goto out;
	rc = run_valid(s, &r, err);
out:
	run_close(&r);
	if (count)
		*count = rc < 0 ? 0 : n;
	return rc;
}

int store_first_event(struct store *s, const char *run_id,
		      store_visit_fn *visit, void *payload,
		      struct sw_error *err)
{
	struct run_dir r = RUN_DIR_INIT;
	struct reader *rd = NULL;
	struct journal_record rec = { 0 };
	size_t consumed;
	bool complete, too_large;
	int fd = -1, rc;

	fail_reset(s);
	if ((rc = run_open(&r, s, run_id, false, err)) < 0)
		goto out;
	{
		struct sw_error e = SW_ERROR_INIT;

		rc = open_journal(&fd, r.fd, O_RDONLY, &e);
		if (rc == SW_ENOTFOUND) {
			rc = sw_error_set(err, SW_EPARSE, "incomplete run directory: its creation "
					  "was interrupted before the journal was written, so it "
					  "holds no Run and may be removed");
			goto out;
		}
		if (rc < 0) {
			rc = pass_up(err, &e);
			goto out;
		}
	}
	if ((rd = sw_calloc(1, sizeof(*rd))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate journal reader");
		goto out;
	}
	rd->fd = fd;
	if ((rc = read_record(rd, &consumed, &complete, &too_large, err)) < 0)
		goto out;
	if (too_large) {
		rc = sw_error_set(err, SW_EPARSE,
				  "decode journal event 1: record exceeds %u bytes",
				  JOURNAL_MAX_LINE);
		goto out;
	}
	if (consumed == 0) {
		rc = sw_error_set(err, SW_EPARSE, "run journal is empty");
		goto out;
	}
	if ((rc = journal_record_decode(&rec, rd->line, rd->len, 1, err)) < 0)
		goto out;
	if ((rc = check_leaf(r.fd, JOURNAL_NAME, fd, err)) < 0)
		goto out;
	{
		struct store_event ev = { rec.sequence, rec.type, rec.at,
					  rec.data, rec.data_len };

		rc = visit ? visit(&ev, payload, err) : 0;
	}
out:
	journal_record_release(&rec);
	if (rd)
		sw_free(rd->line);
	sw_free(rd);
	close_fd(&fd);
	run_close(&r);
	return rc;
}

/* ---- mutation builder ------------------------------------------------ */

static void mutation_release(struct store_mutation *m)
{
	for (size_t i = 0; i < m->nev; i++)
		sw_free(m->ev[i].data);
	sw_free(m->ev);
	for (size_t i = 0; i < m->nmat; i++)
		sw_free(m->mat[i].bytes);
	sw_free(m->mat);
	sw_free(m->proj);
	sw_free(m->piece);
	sw_free(m->sum_body);
	sw_lchain_free(m->jhash);
	sw_xxh_free(m->lhash);
	sw_free(m->old_log);
	memset(m, 0, sizeof(*m));
}

int store_mutation_set_projection_pieces(struct store_mutation *m,
					 const struct sw_piece *pieces, size_t n,
					 struct sw_error *err)
{
	struct sw_piece *copy;

	for (size_t k = 0; k < n; k++)
		if (pieces[k].bytes == NULL && m->src_st.st_ino == 0)
			return sw_error_set(err, SW_EINVAL,
					    "a projection piece names a run.json this update did not adopt");
	if ((copy = sw_calloc(n ? n : 1, sizeof(*copy))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy projection");
	if (n)
		memcpy(copy, pieces, n * sizeof(*copy));
	sw_free(m->piece);
	m->piece = copy;
	m->npiece = n;
	return 0;
}

void store_mutation_set_checkpoint(struct store_mutation *m, const char *body,
				   size_t len, const char *log, size_t log_len,
				   size_t log_base)
{
	m->cp_body = body;
	m->cp_len = len;
	m->cp_log = log;
	m->cp_log_len = log_len;
	m->cp_log_base = log_base;
}

int store_mutation_set_summary(struct store_mutation *m, const char *body, size_t len,
			       struct sw_error *err)
{
	char *copy = sw_malloc(len + 1);

	if (copy == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy the listing summary");
	memcpy(copy, body, len);
	copy[len] = '\0';
	sw_free(m->sum_body);
	m->sum_body = copy;
	m->sum_len = len;
	return 0;
}

long long store_mutation_base(const struct store_mutation *m)
{
	return m->base;
}

int store_mutation_add_event(struct store_mutation *m, enum tbl_jevent type,
			     const char *data, size_t len,
			     struct sw_error *err)
{
	struct mut_event *p;
	struct json_t *v = NULL;
	char *compact = NULL;
	size_t clen = 0;
	int rc;

	if (type <= TBL_JEVENT_INVALID || type >= TBL_JEVENT__COUNT)
		return sw_error_set(err, SW_EINVAL, "unknown journal event type");
	if ((rc = sw_json_load_strict(&v, data, len, SIZE_MAX, err)) < 0)
		return rc;
	json_decref(v);
	if ((rc = journal_compact(&compact, &clen, data, len, err)) < 0)
		return rc;
	if (clen > JOURNAL_MAX_DATA) {
		struct store_failure *f = &m->s->fail;

		sw_free(compact);
		f->code = TBL_ERR_JOURNAL_RECORD_TOO_LARGE;
		f->has_limit = true;
		snprintf(f->limit_context, sizeof(f->limit_context), "event payload");
		f->limit_size = clen;
		f->limit_max = JOURNAL_MAX_DATA;
		return sw_error_proto(err, TBL_ERR_JOURNAL_RECORD_TOO_LARGE,
				      "event payload exceeds journal record limit: %zu bytes exceeds %u",
				      clen, JOURNAL_MAX_DATA);
	}
	if ((p = sw_realloc(m->ev, (m->nev + 1) * sizeof(*p))) == NULL) {
		sw_free(compact);
		return sw_error_set(err, SW_ENOMEM, "cannot add event");
	}
	m->ev = p;
	m->ev[m->nev].type = type;
	m->ev[m->nev].data = compact;
	m->ev[m->nev].len = clen;
	m->nev++;
	return 0;
}

int store_mutation_set_projection(struct store_mutation *m, const char *json,
				  size_t len, struct sw_error *err)
{
	char *copy = sw_strndup(json, len);

	if (copy == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy projection");
	sw_free(m->proj);
	m->proj = copy;
	m->proj_len = len;
	return 0;
}

/* Adds a copy of the material; `known` is its digest, or NULL to compute
 * it. */
static int add_material(struct store_mutation *m, const void *bytes, size_t len,
			const char *known, char digest[SW_DIGEST_LEN], struct sw_error *err)
{
	struct mut_material *p;
	void *copy;

	if (len == 0 || len > STORE_MATERIAL_MAX)
		return sw_error_set(err, SW_EINVAL,
				    "material must contain 1..%u bytes", STORE_MATERIAL_MAX);
	if ((copy = sw_malloc(len)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy material");
	memcpy(copy, bytes, len);
	if ((p = sw_realloc(m->mat, (m->nmat + 1) * sizeof(*p))) == NULL) {
		sw_free(copy);
		return sw_error_set(err, SW_ENOMEM, "cannot add material");
	}
	m->mat = p;
	if (known != NULL)
		memcpy(m->mat[m->nmat].digest, known, SW_DIGEST_LEN);
	else
		sw_material_digest(m->mat[m->nmat].digest, bytes, len, NULL);
	m->mat[m->nmat].bytes = copy;
	m->mat[m->nmat].len = len;
	m->mat[m->nmat].created = false;
	if (digest)
		memcpy(digest, m->mat[m->nmat].digest, SW_DIGEST_LEN);
	m->nmat++;
	return 0;
}

int store_mutation_add_material(struct store_mutation *m, const void *bytes,
				size_t len, char digest[SW_DIGEST_LEN],
				struct sw_error *err)
{
	return add_material(m, bytes, len, NULL, digest, err);
}

int store_mutation_add_material_named(struct store_mutation *m, const void *bytes,
				      size_t len, const char *digest,
				      struct sw_error *err)
{
	if (!sw_digest_valid(digest))
		return sw_error_set(err, SW_EINVAL, "material digest must use sha256:<64 hex> format");
#ifdef SW_TESTING
	{
		char got[SW_DIGEST_LEN];

		sw_material_digest(got, bytes, len, NULL);
		if (strcmp(got, digest) != 0)
			return sw_error_set(err, SW_EINVAL, "material digest %s does not match its bytes",
					    digest);
	}
#endif
	return add_material(m, bytes, len, digest, NULL, err);
}

/* Journal lines and run.json bytes for the collected mutation. */
static int encode_mutation(char **journal, size_t *jlen, char **proj,
			   size_t *plen, struct store *s,
			   const struct store_mutation *m, struct txn *t,
			   struct sw_error *err)
{
	char *all = NULL, *line = NULL;
	size_t alen = 0, llen = 0;
	int rc = 0;

	*journal = *proj = NULL;
	t->phase = "journal_write";
	for (size_t i = 0; i < m->nev; i++) {
		struct timespec now = { 0 };
		char at[JOURNAL_TIME_LEN];
		char *p;

		s->clock(&now, s->clock_payload);
		journal_format_time(&now, at);
		if ((rc = journal_record_encode(&line, &llen, m->base + 1 + (long long)i,
						m->ev[i].type, at, m->ev[i].data,
						m->ev[i].len, err)) < 0)
			goto out;
		if (llen > JOURNAL_MAX_LINE) {
			struct store_failure *f = &s->fail;

			f->has_limit = true;
			snprintf(f->limit_context, sizeof(f->limit_context),
				 "encoded journal event");
			f->limit_size = llen;
			f->limit_max = JOURNAL_MAX_LINE;
			rc = sw_error_proto(err, TBL_ERR_JOURNAL_RECORD_TOO_LARGE,
					    "encoded journal event exceeds journal record limit: %zu bytes exceeds %u",
					    llen, JOURNAL_MAX_LINE);
			goto out;
		}
		if ((p = sw_realloc(all, alen + llen + 1)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot encode journal");
			goto out;
		}
		all = p;
		memcpy(all + alen, line, llen + 1);
		alen += llen;
		sw_free(line);
		line = NULL;
	}
	t->phase = "projection_encode";
	if (m->piece == NULL &&
	    (rc = journal_projection_encode(proj, plen, m->base + (long long)m->nev,
					    m->proj ? m->proj : "null",
					    m->proj ? m->proj_len : 4, err)) < 0)
		goto out;
	*journal = all;
	*jlen = alen;
	all = NULL;
out:
	sw_free(line);
	sw_free(all);
	return rc;
}

/* ---- materials ------------------------------------------------------- */

/* Reads blob `hex` below `mfd` and checks its size and, with `check`, its
 * digest (a caller that compares the bytes with ones of that digest need
 * not); *st (may be NULL) gets the status of the file read. */
static int read_blob(void **out, size_t *len, struct stat *st, int mfd, const char *hex,
		     const char *digest, bool check, struct sw_error *err)
{
	char *buf = NULL;
	char got[SW_DIGEST_LEN];
	size_t n = 0;
	int fd = -1, rc;

	*out = NULL;
	*len = 0;
	if ((rc = open_leaf(&fd, mfd, hex, O_RDONLY, err)) < 0)
		goto out;
	if ((buf = sw_malloc(STORE_MATERIAL_MAX + 1)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot read material");
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, STORE_MATERIAL_MAX + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = sw_error_sys(err, errno, "cannot read material %s", digest);
			goto out;
		}
		if (r == 0 || (n += (size_t)r) > STORE_MATERIAL_MAX)
			break;
	}
	if (n == 0 || n > STORE_MATERIAL_MAX) {
		rc = sw_error_set(err, SW_EPARSE, "material %s has invalid size", digest);
		goto out;
	}
	if ((rc = check_leaf(mfd, hex, fd, err)) < 0)
		goto out;
	if (st != NULL && fstat(fd, st) < 0) {
		rc = sw_error_sys(err, errno, "cannot inspect material %s", digest);
		goto out;
	}
	if (check && (sw_material_digest(got, buf, n, NULL), strcmp(got, digest) != 0)) {
		rc = sw_error_set(err, SW_EPARSE, "material %s is corrupt", digest);
		goto out;
	}
	*out = buf;
	*len = n;
	buf = NULL;
out:
	sw_free(buf);
	close_fd(&fd);
	return rc;
}

static int put_blob(int mfd, struct mut_material *mm, struct sw_error *err)
{
	const char *hex = mm->digest + 7;
	char rnd[17], tmp[128] = "";
	void *have = NULL;
	size_t have_len = 0;
	struct stat st;
	bool renamed = false;
	int fd = -1, rc = 0;

	if (fstatat(mfd, hex, &st, AT_SYMLINK_NOFOLLOW) == 0)
		goto compare;
	if (errno != ENOENT)
		return sw_error_sys(err, errno, "cannot inspect material %s", mm->digest);
	if ((rc = random_hex16(rnd, err)) < 0)
		return rc;
	snprintf(tmp, sizeof(tmp), ".tmp-%s-%s", hex, rnd);
	if ((fd = f_create(mfd, tmp, O_WRONLY)) < 0)
		return sw_error_sys(err, errno, "cannot create material temp");
	if (fchmod(fd, 0600) < 0 || f_write(fd, mm->bytes, mm->len, NULL) < 0) {
		rc = sw_error_sys(err, errno, "cannot write material temp");
		goto out;
	}
	if ((rc = check_leaf(mfd, tmp, fd, err)) < 0)
		goto out;
	if (f_fsync(fd) < 0) {
		rc = sw_error_sys(err, errno, "cannot sync material temp");
		goto out;
	}
	close_fd(&fd);
	if (f_rename(mfd, tmp, hex) < 0) {
		if (errno != EEXIST) {
			rc = sw_error_sys(err, errno, "cannot commit material %s",
					  mm->digest);
			goto out;
		}
		goto compare;
	}
	renamed = true;
	mm->created = true;
compare:
	/* An existing or concurrent blob must match byte for byte. */
	if ((rc = read_blob(&have, &have_len, &mm->st, mfd, hex, mm->digest, false, err)) < 0)
		goto out;
	if (have_len != mm->len || memcmp(have, mm->bytes, mm->len) != 0)
		rc = sw_error_set(err, SW_ECONFLICT,
				  "material %s content conflicts with existing blob",
				  mm->digest);
out:
	close_fd(&fd);
	if (!renamed && tmp[0] == '.')
		unlinkat(mfd, tmp, 0);
	sw_free(have);
	return rc;
}

static int put_materials(struct run_dir *r, struct store_mutation *m,
			 struct txn *t, struct sw_error *err)
{
	struct stat mst;
	bool created = false;
	int mfd = -1, rc = 0;

	if (m->nmat == 0)
		return 0;
	t->phase = "directory_sync";
	if ((rc = open_dir_at(&mfd, &mst, &created, r->fd, MATERIALS_NAME,
			      true, true, err)) < 0)
		goto out;
	if (created && ((rc = sync_dir(mfd, &mst, MATERIALS_NAME, err)) < 0 ||
			(rc = sync_dir(r->fd, &r->st, "run", err)) < 0))
		goto out;
	for (size_t i = 0; i < m->nmat; i++) {
		size_t j = 0;

		while (j < i && strcmp(m->mat[i].digest, m->mat[j].digest) != 0)
			j++;
		if (j < i)
			m->mat[i].st = m->mat[j].st;	/* the same blob */
		else if ((rc = put_blob(mfd, &m->mat[i], err)) < 0)
			goto out;
	}
	if ((rc = sync_dir(mfd, &mst, MATERIALS_NAME, err)) < 0)
		goto out;
	rc = check_dir_at(r->fd, MATERIALS_NAME, &mst, err);
out:
	close_fd(&mfd);
	return rc;
}

/* Whether a and b are one file, unchanged: device, inode, size and
 * modification and change times. */
static bool same_identity(const struct stat *a, const struct stat *b)
{
	return same_file(a, b) && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Checks, through an anchored materials/, that every material of `m` is
 * still the file put_materials read back and compared byte for byte (same
 * inode, size, and modification and change times: any write or
 * replacement changes the change time): before the journal append (an
 * event must never reference a missing or altered blob) and after the
 * commit. */
static int verify_materials(struct run_dir *r, const struct store_mutation *m,
			    struct sw_error *err)
{
	struct stat mst;
	int mfd = -1, rc = 0;

	if (m->nmat == 0)
		return 0;
	if ((rc = open_dir_at(&mfd, &mst, NULL, r->fd, MATERIALS_NAME, false,
			      false, err)) < 0)
		return rc;
	for (size_t i = 0; i < m->nmat && rc == 0; i++) {
		struct stat st;

		if (fstatat(mfd, m->mat[i].digest + 7, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || !same_identity(&st, &m->mat[i].st))
			rc = sw_error_set(err, SW_EUNSAFE, "material %s changed after it was written",
					  m->mat[i].digest);
	}
	if (rc == 0)
		rc = check_dir_at(r->fd, MATERIALS_NAME, &mst, err);
	close_fd(&mfd);
	return rc;
}

int store_read_material(void **out, size_t *len, struct store *s,
			const char *run_id, const char *digest,
			struct sw_error *err)
{
	struct run_dir r = RUN_DIR_INIT;
	struct stat mst;
	int mfd = -1, rc;

	*out = NULL;
	*len = 0;
	fail_reset(s);
	if (!sw_digest_valid(digest))
		return sw_error_set(err, SW_EINVAL,
				    "material digest must use lowercase sha256:<64 hex> format");
	if ((rc = run_open(&r, s, run_id, false, err)) < 0)
		goto out;
	{
		struct sw_error e = SW_ERROR_INIT;

		if ((rc = open_dir_at(&mfd, &mst, NULL, r.fd, MATERIALS_NAME,
				      false, false, &e)) < 0) {
			rc = e.sys_errno == ENOENT ?
				sw_error_set(err, SW_ENOTFOUND, "material %s not found", digest) :
				pass_up(err, &e);
			goto out;
		}
	}
	if ((rc = read_blob(out, len, NULL, mfd, digest + 7, digest, true, err)) < 0)
		goto out;
	if ((rc = check_dir_at(r.fd, MATERIALS_NAME, &mst, err)) < 0 ||
	    (rc = run_valid(s, &r, err)) < 0) {
		sw_free(*out);
		*out = NULL;
		*len = 0;
	}
out:
	close_fd(&mfd);
	run_close(&r);
	return rc;
}

/* ---- projection ------------------------------------------------------ */

/* Puts `name` (the damaged entry `st`) aside under a quarantine name and
 * removes it there: a directory only when empty (one that holds anything
 * stays, under that name, for doctor to report).  *parked gets the name. */
static int park_entry(struct run_dir *r, const char *name, const struct stat *st,
		      char parked[96], struct sw_error *err)
{
	struct stat cur;
	int attempt, rc;

	for (attempt = 0; attempt < RENAME_ATTEMPTS; attempt++) {
		char rnd[17];

		if ((rc = random_hex16(rnd, err)) < 0)
			return rc;
		snprintf(parked, 96, ".quarantine-%s-%s", name, rnd);
		if (fstatat(r->fd, name, &cur, AT_SYMLINK_NOFOLLOW) < 0 || !same_file(&cur, st) ||
		    (cur.st_mode & S_IFMT) != (st->st_mode & S_IFMT))
			return sw_error_set(err, SW_EUNSAFE, "'%s' changed before it was replaced", name);
		if (f_rename(r->fd, name, parked) == 0)
			break;
		if (errno != EEXIST)
			return sw_error_sys(err, errno, "cannot move damaged '%s' aside", name);
	}
	if (attempt == RENAME_ATTEMPTS)
		return sw_error_set(err, SW_EIO, "could not allocate a quarantine name");
	return 0;
}

static int drop_parked(struct run_dir *r, const char *parked, const struct stat *st,
		       struct sw_error *err)
{
	struct stat cur;
	bool dir;

	if (fstatat(r->fd, parked, &cur, AT_SYMLINK_NOFOLLOW) < 0 || !same_file(&cur, st))
		return sw_error_set(err, SW_EUNSAFE, "the damaged entry parked at '%s' changed", parked);
	dir = S_ISDIR(cur.st_mode);
	if (f_unlink(r->fd, parked, dir ? AT_REMOVEDIR : 0) < 0 &&
	    !(dir && (errno == ENOTEMPTY || errno == EEXIST)))
		return sw_error_sys(err, errno, "cannot remove the damaged entry parked at '%s'", parked);
	return 0;
}

struct prepared {
	int prev_fd;		/* pinned old run.json, or -1 */
	struct stat prev_st;	/* its status, or the damaged entry's */
	bool damaged;		/* run.json is there but no regular file we can read */
	char tmp[64];
	struct stat tmp_st;
	bool renamed;
};

static void prepared_discard(struct prepared *p, struct run_dir *r)
{
	struct stat st;

	close_fd(&p->prev_fd);
	if (p->tmp[0] && !p->renamed &&
	    fstatat(r->fd, p->tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    same_file(&st, &p->tmp_st))
		unlinkat(r->fd, p->tmp, 0);
}

/* Writes and syncs the run.json temp from the pieces; those without bytes
 * come from the current run.json, which must still be `src` (the one the
 * update adopted). */
static int prepare_projection(struct prepared *p, struct run_dir *r,
			      const struct sw_piece *pc, size_t n, const struct stat *src,
			      struct txn *t, struct sw_error *err)
{
	char rnd[17];
	int fd = -1, rc;
	bool copies = false;

	t->phase = "projection_prepare";
	{
		struct sw_error e = SW_ERROR_INIT;

		rc = open_leaf(&p->prev_fd, r->fd, PROJECTION_NAME, O_RDONLY | O_NONBLOCK, &e);
		/* run.json is a projection of the journal: one that is no
		 * regular file we can read (a directory, a FIFO, a symlink,
		 * mode 000) is replaced like a stale one, once committed. */
		if (rc < 0 && rc != SW_ENOTFOUND) {
			if (fstatat(r->fd, PROJECTION_NAME, &p->prev_st, AT_SYMLINK_NOFOLLOW) < 0)
				return pass_up(err, &e);
			p->damaged = true;
		}
	}
	if (p->prev_fd >= 0 && fstat(p->prev_fd, &p->prev_st) < 0)
		return sw_error_sys(err, errno, "cannot stat run projection");
	for (size_t k = 0; k < n; k++)
		copies |= pc[k].bytes == NULL;
	if (copies && (p->prev_fd < 0 || !same_identity(&p->prev_st, src)))
		return sw_error_set(err, SW_EUNSAFE, "run projection changed since it was read");
	t->phase = "projection_temp";
	if ((rc = random_hex16(rnd, err)) < 0)
		return rc;
	snprintf(p->tmp, sizeof(p->tmp), ".tmp-%s-%s", PROJECTION_NAME, rnd);
	if ((fd = f_create(r->fd, p->tmp, O_WRONLY)) < 0) {
		p->tmp[0] = '\0';
		return sw_error_sys(err, errno, "cannot create run projection temp");
	}
	if (fstat(fd, &p->tmp_st) < 0) {
		rc = sw_error_sys(err, errno, "cannot stat run projection temp");
		goto out;
	}
	t->phase = "projection_write";
	if (f_write_pieces(fd, pc, n, p->prev_fd) < 0 || fchmod(fd, 0600) < 0) {
		rc = sw_error_sys(err, errno, "cannot write run projection temp");
		goto out;
	}

	/* Not synced: run.json is a projection of the journal, and the only
	 * reader of its bytes, the checkpoint, is refused after a reboot
	 * (boot_id), the one event that loses unsynced data. */
	rc = check_leaf(r->fd, p->tmp, fd, err);
out:
	close_fd(&fd);
	return rc;
}

static int leaf_is(int dfd, const char *name, const struct stat *want)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && same_file(&st, want);
}

/* Installs the prepared run.json: the old one is parked under a quarantine
 * name (no replace), the temp renamed into place (no replace) and the
 * quarantine removed.  The directory is not synced: the journal is
 * already committed, the temp's bytes are synced, and run.json is a
 * projection of the journal.  A power loss may undo these renames,
 * leaving the previous run.json (or none, and a quarantine file); that is
 * the projection a crash just after the commit leaves too, and the next
 * mutation replaces it (a checkpoint naming the lost file is not adopted:
 * its identity differs). */
static int install_projection(struct prepared *p, struct store *s,
			      struct run_dir *r, struct txn *t,
			      struct sw_error *err)
{
	char quarantine[96] = "";
	int rc;

	t->phase = "projection_rename";
	if (p->prev_fd >= 0 && !leaf_is(r->fd, PROJECTION_NAME, &p->prev_st))
		return sw_error_set(err, SW_EUNSAFE, "run projection changed before rename");
	if (p->prev_fd < 0 && !p->damaged &&
	    faccessat(r->fd, PROJECTION_NAME, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return sw_error_set(err, SW_EUNSAFE, "run projection appeared before rename");
	if (!leaf_is(r->fd, p->tmp, &p->tmp_st))
		return sw_error_set(err, SW_EUNSAFE, "run projection temp changed before rename");
	if ((rc = run_valid(s, r, err)) < 0)
		return rc;
	if (p->damaged) {
		if ((rc = park_entry(r, PROJECTION_NAME, &p->prev_st, quarantine, err)) < 0)
			return rc;
	} else if (p->prev_fd >= 0) {
		int attempt;

		for (attempt = 0; attempt < RENAME_ATTEMPTS; attempt++) {
			char rnd[17];

			if ((rc = random_hex16(rnd, err)) < 0)
				return rc;
			snprintf(quarantine, sizeof(quarantine),
				 ".quarantine-%s-%s", PROJECTION_NAME, rnd);
			if (f_rename(r->fd, PROJECTION_NAME, quarantine) == 0)
				break;
			if (errno != EEXIST)
				return sw_error_sys(err, errno,
						    "cannot relocate old run projection");
		}
		if (attempt == RENAME_ATTEMPTS)
			return sw_error_set(err, SW_EIO,
					    "could not allocate projection quarantine name");
		if (!leaf_is(r->fd, quarantine, &p->prev_st)) {
			renameat2(r->fd, quarantine, r->fd, PROJECTION_NAME,
				  RENAME_NOREPLACE);
			return sw_error_set(err, SW_EUNSAFE,
					    "run projection changed during relocation");
		}
	}
	if (f_rename(r->fd, p->tmp, PROJECTION_NAME) < 0) {
		int e = errno;

		if (quarantine[0])
			renameat2(r->fd, quarantine, r->fd, PROJECTION_NAME,
				  RENAME_NOREPLACE);
		return sw_error_sys(err, e, "cannot install run projection");
	}
	p->renamed = true;
	if (!leaf_is(r->fd, PROJECTION_NAME, &p->tmp_st)) {
		t->detached = true;
		return sw_error_set(err, SW_EUNSAFE, "run projection changed after rename");
	}
	if ((rc = run_valid(s, r, err)) < 0)
		return rc;
	t->pending = false;
	if (p->damaged) {
		if ((rc = drop_parked(r, quarantine, &p->prev_st, err)) < 0)
			return rc;
	} else if (quarantine[0]) {
		if (!leaf_is(r->fd, quarantine, &p->prev_st))
			return sw_error_set(err, SW_EUNSAFE,
					    "old projection was preserved at '%s' after its identity changed",
					    quarantine);
		if (unlinkat(r->fd, quarantine, 0) < 0)
			return sw_error_sys(err, errno, "cannot remove old projection");
	}
	return run_valid(s, r, err);
}

/* ---- journal append -------------------------------------------------- */

/* Appends `bytes` with O_APPEND and fsyncs.  *existed says whether the
 * journal was already there: only then is the fsync the commit point (a
 * new journal also needs its directory entry synced). */
static int append_journal(bool *existed, struct stat *after, struct store *s,
			  struct run_dir *r, const char *bytes, size_t len, struct txn *t,
			  struct sw_error *err)
{
	struct stat st;
	size_t done = 0;
	int fd = -1, rc = 0;

	t->phase = "journal_open";
	*existed = false;
	if ((rc = run_valid(s, r, err)) < 0)
		return rc;
	if (fstatat(r->fd, JOURNAL_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		*existed = true;
		if ((rc = open_journal(&fd, r->fd, O_WRONLY | O_APPEND, err)) < 0)
			return rc;
	} else if (errno != ENOENT) {
		return sw_error_sys(err, errno, "cannot inspect journal");
	} else if ((fd = f_create(r->fd, JOURNAL_NAME, O_WRONLY | O_APPEND)) < 0) {
		return sw_error_sys(err, errno, "cannot create journal");
	}
	if (fchmod(fd, 0600) < 0) {
		rc = sw_error_sys(err, errno, "cannot secure journal");
		goto out;
	}
	t->phase = "journal_verify";
	if ((rc = check_leaf(r->fd, JOURNAL_NAME, fd, err)) < 0)
		goto out;
	if (*existed && r->cut_at >= 0 && ftruncate(fd, r->cut_at) < 0) {
		rc = sw_error_sys(err, errno, "cannot truncate torn journal record");
		goto out;
	}
	t->phase = "journal_write";
	if (fstat(fd, &st) < 0) {
		rc = sw_error_sys(err, errno, "cannot inspect journal");
		goto out;
	}
	if (f_write(fd, bytes, len, &done) < 0) {
		int e = errno;

		/* A write cut short (a full disk, the file-size limit) left
		 * the start of a record and no newline: take it back, so
		 * that the journal holds exactly what it held.  Only if that
		 * fails is the outcome ambiguous. */
		if (done > 0 && ftruncate(fd, st.st_size) < 0)
			t->wrote = true;
		rc = sw_error_sys(err, e, "cannot append journal");
		goto out;
	}
	t->wrote = true;
	t->phase = "journal_verify";
	if (check_leaf(r->fd, JOURNAL_NAME, fd, err) < 0 ||
	    run_valid(s, r, err) < 0) {
		t->detached = true;
		rc = err ? err->code : SW_EUNSAFE;
		goto out;
	}
	t->phase = "journal_sync";
	if (f_fsync(fd) < 0) {
		rc = sw_error_sys(err, errno, "cannot sync journal");
		goto out;
	}
	if (after != NULL && fstat(fd, after) < 0)
		memset(after, 0, sizeof(*after));
	if (*existed) {
		t->committed = true;
		t->pending = true;
	}
	t->phase = "journal_verify";
	if (check_leaf(r->fd, JOURNAL_NAME, fd, err) < 0 ||
	    run_valid(s, r, err) < 0) {
		t->detached = true;
		rc = err ? err->code : SW_EUNSAFE;
	}
out:
	close_fd(&fd);
	return rc;
}

/* ---- create and update ----------------------------------------------- */

static int require_writable(struct store *s, struct txn *t, struct sw_error *err)
{
	t->phase = "validation";
	if (!s->writable)
		return sw_error_set(err, SW_EINVAL, "run store is read-only");
	return 0;
}

/* ---- replay checkpoint ------------------------------------------------ */

void store_checkpoint_release(struct store_checkpoint *cp)
{
	sw_free(cp->log);
	if (cp->projection_fd >= 0)
		close(cp->projection_fd);
	cp->log = NULL;
	cp->projection_fd = -1;
}

/* Reads the first `want` bytes of regular file `name` (all of it when
 * want is SIZE_MAX) into a new buffer; *st gets its status.  NULL when it
 * is absent, shorter, empty, larger than `max` or unsafe. */
static char *read_leaf(size_t *len, struct stat *st, struct run_dir *r, const char *name,
		       size_t want, size_t max)
{
	struct sw_error e = SW_ERROR_INIT;
	char *buf = NULL;
	size_t n;
	int fd = -1;

	if (open_leaf(&fd, r->fd, name, O_RDONLY, &e) < 0)
		return NULL;
	if (fstat(fd, st) < 0 || st->st_size <= 0 || (uint64_t)st->st_size > max ||
	    (want != SIZE_MAX && (uint64_t)st->st_size < want))
		goto out;
	n = want == SIZE_MAX ? (size_t)st->st_size : want;
	if ((buf = sw_malloc(n + 1)) == NULL)
		goto out;
	if (sw_pread_full(fd, buf, n, 0) != n) {
		sw_free(buf);
		buf = NULL;
		goto out;
	}
	buf[n] = '\0';
	*len = n;
out:
	close(fd);
	return buf;
}

/* run.json's identity as the checkpoint records it: size, inode, device,
 * and modification and change times to the nanosecond.  Any write or
 * replacement through the file system changes the change time, which no
 * unprivileged caller can set back. */
#define IDENTITY_FMT "%lld %llu %llu %lld %ld %lld %ld"
#define IDENTITY_ARGS(st) (long long)(st).st_size, (unsigned long long)(st).st_dev, \
	(unsigned long long)(st).st_ino, (long long)(st).st_mtim.tv_sec, (st).st_mtim.tv_nsec, \
	(long long)(st).st_ctim.tv_sec, (st).st_ctim.tv_nsec

static void identity_text(char out[160], const struct stat *st)
{
	snprintf(out, 160, IDENTITY_FMT, IDENTITY_ARGS(*st));
}

/* The kernel's boot id as 32 hex digits, "" when it cannot be read.  A
 * checkpoint names the boot it was written in: files written without
 * fsync (run.json, the checkpoint and its log) can lose bytes only in a
 * power loss or a kernel crash, and either means a new boot. */
#ifdef SW_TESTING
static const char *test_boot_id;

void store_test_boot_id(const char *id)
{
	test_boot_id = id;
}
#endif

static const char *boot_id(void)
{
	static char id[SW_XXH_HEX_LEN];
	char raw[64];
	size_t n = 0;
	ssize_t got;
	int fd;

#ifdef SW_TESTING
	if (test_boot_id != NULL)
		return test_boot_id;
#endif
	if (id[0] != '\0')
		return id;
	if ((fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)) < 0)
		return "";
	got = read(fd, raw, sizeof(raw) - 1);
	close(fd);
	for (ssize_t i = 0; i < got && n < 32; i++)
		if ((raw[i] >= '0' && raw[i] <= '9') || (raw[i] >= 'a' && raw[i] <= 'f'))
			id[n++] = raw[i];
	if (n != 32)
		n = 0;
	id[n] = '\0';
	return id;
}

/* Feeds the first `len` bytes of `fd` to `h` through a small buffer;
 * false when they cannot all be read. */
static bool hash_prefix(struct sw_lchain *h, int fd, off_t len)
{
	unsigned char *buf = sw_malloc(65536);
	bool ok = buf != NULL;

	for (off_t off = 0; ok && off < len;) {
		size_t want = (size_t)(len - off) < 65536 ? (size_t)(len - off) : 65536;

		ok = sw_pread_full(fd, buf, want, (unsigned long long)off) == want;
		if (ok) {
			sw_lchain_update(h, buf, want);
			off += (off_t)want;
		}
	}
	sw_free(buf);
	return ok;
}

#ifdef SW_TESTING
static unsigned long prefix_reads;

unsigned long store_test_prefix_reads(void)
{
	return prefix_reads;
}
#endif

/* Finds and verifies run.checkpoint: header, body digest, the log's
 * digest (left open in *lhash, with the log's status in *lst), journal
 * prefix digest (left open in *jhash for the rest of the journal) and
 * run.json's identity (its status in *pst).  1 with *cp filled (and
 * *file, which holds the body, to free), 0 when there is none usable. */
static int checkpoint_load(struct store_checkpoint *cp, char **file, struct sw_lchain **jhash,
			   off_t *skip, struct sw_xxh **lhash, struct stat *lst,
			   struct stat *pst, struct run_dir *r)
{
	char line[640], jhex[SW_XXH_HEX_LEN], bhex[SW_XXH_HEX_LEN], lhex[SW_XXH_HEX_LEN];
	char got[SW_XXH_HEX_LEN], boot[SW_XXH_HEX_LEN];
	char want_id[160], have_id[160], want_jid[160];
	long long seq = 0, jbytes = 0, psize = 0, mts = 0, cts = 0;
	long long jsize = 0, jmts = 0, jcts = 0;
	unsigned long long dev = 0, ino = 0, jdev = 0, jino = 0;
	long mtn = 0, ctn = 0, jmtn = 0, jctn = 0;
	size_t blen = 0, llen = 0, hlen, flen = 0;
	const char *nl;
	int jfd = -1, used = 0, ok = 0;
	struct sw_lchain *h = NULL;
	struct sw_xxh *lh = NULL;
	struct stat jst, cst;

	memset(cp, 0, sizeof(*cp));
	cp->projection_fd = -1;
	memset(lst, 0, sizeof(*lst));
	*jhash = NULL;
	*lhash = NULL;
	if ((*file = read_leaf(&flen, &cst, r, CHECKPOINT_NAME, SIZE_MAX, CHECKPOINT_MAX)) == NULL)
		return 0;
	nl = memchr(*file, '\n', flen < sizeof(line) ? flen : sizeof(line));
	if (nl == NULL)
		goto out;
	hlen = (size_t)(nl - *file);
	memcpy(line, *file, hlen);
	line[hlen] = '\0';
	if (sscanf(line, CHECKPOINT_MAGIC " %32s %lld %lld %32s " IDENTITY_FMT " " IDENTITY_FMT
		   " %zu %32s %zu %32s%n", boot, &seq, &jbytes, jhex, &jsize, &jdev, &jino, &jmts,
		   &jmtn, &jcts, &jctn, &psize, &dev, &ino, &mts, &mtn, &cts, &ctn, &llen, lhex,
		   &blen, bhex, &used) != 22 || (size_t)used != hlen ||
	    seq < 1 || jbytes < 1 || blen != flen - hlen - 1 || strlen(boot) != 32 ||
	    strcmp(boot, boot_id()) != 0)
		goto out;
	snprintf(want_id, sizeof(want_id), IDENTITY_FMT, psize, dev, ino, mts, mtn, cts, ctn);
	snprintf(want_jid, sizeof(want_jid), IDENTITY_FMT, jsize, jdev, jino, jmts, jmtn, jcts, jctn);
	cp->sequence = seq;
	cp->body = nl + 1;
	cp->body_len = blen;
	sw_xxh_hex(cp->body, blen, got);
	if (strcmp(got, bhex) != 0)
		goto out;
	/* The log's first llen bytes (a longer file is an append that never
	 * got its checkpoint). */
	if (sw_xxh_new(&lh, &(struct sw_error)SW_ERROR_INIT) < 0)
		goto out;
	if (llen > 0) {
		if ((cp->log = read_leaf(&cp->log_len, lst, r, CHECKPOINT_LOG_NAME, llen,
					 CHECKPOINT_MAX)) == NULL)
			goto out;
		sw_xxh_update(lh, cp->log, llen);
	}
	sw_xxh_peek_hex(lh, got);
	if (strcmp(got, lhex) != 0)
		goto out;
	/* run.json is still the file written with it. */
	{
		struct sw_error e = SW_ERROR_INIT;

		if (open_leaf(&cp->projection_fd, r->fd, PROJECTION_NAME, O_RDONLY, &e) < 0 ||
		    fstat(cp->projection_fd, pst) < 0)
			goto out;
	}
	identity_text(have_id, pst);
	if (strcmp(have_id, want_id) != 0)
		goto out;
	cp->projection_len = (size_t)pst->st_size;
	/* The journal: untouched since the mutation that wrote the checkpoint
	 * appended to it (the very file, with the size and times its append
	 * left), or else its first jbytes bytes, read through a small buffer,
	 * still chaining to jhex. */
	{
		struct sw_error e = SW_ERROR_INIT;

		if (open_journal(&jfd, r->fd, O_RDONLY, &e) < 0 ||
		    fstat(jfd, &jst) < 0 || jst.st_size < jbytes)
			goto out;
		identity_text(have_id, &jst);
		if (jst.st_size == jbytes && strcmp(have_id, want_jid) == 0) {
			if (sw_lchain_from_hex(&h, jhex, &e) < 0)
				goto out;
		} else {
#ifdef SW_TESTING
			prefix_reads++;
#endif
			if (sw_lchain_new(&h, &e) < 0 || !hash_prefix(h, jfd, (off_t)jbytes))
				goto out;
			sw_lchain_peek_hex(h, got);
			if (got[0] == '\0' || strcmp(got, jhex) != 0)
				goto out;
		}
	}
	*jhash = h;
	*lhash = lh;
	*skip = (off_t)jbytes;
	h = NULL;
	lh = NULL;
	ok = 1;
out:
	if (!ok) {
		store_checkpoint_release(cp);
		memset(cp, 0, sizeof(*cp));
		cp->projection_fd = -1;
		memset(lst, 0, sizeof(*lst));
		sw_free(*file);
		*file = NULL;
	}
	sw_lchain_free(h);
	sw_xxh_free(lh);
	if (jfd >= 0)
		close(jfd);
	return ok;
}

/* Writes `len` bytes at `off` (all of them, or false). */
static bool pwrite_all(int fd, const char *p, size_t len, off_t off)
{
	while (len > 0) {
		ssize_t w = pwrite(fd, p, len, off);

		if (w <= 0)
			return false;
		p += w;
		len -= (size_t)w;
		off += w;
	}
	return true;
}

/* Writes `name` whole through a temp and a rename (no fsync), for the
 * files a reader checks and can do without (checkpoint, its log, the
 * listing summary).  The old file is removed first and the temp renamed
 * to a free name: a rename over an existing file makes ext4 (auto_da_alloc)
 * start writeback of the temp's data, ~0.2 ms that buys nothing for a
 * file that is never synced.  Meanwhile a reader finds no file and does
 * without; a crash there leaves none, as a crash before the rename leaves
 * the old one. */
static bool replace_leaf(struct run_dir *r, const char *name, const struct iovec *iov, int n)
{
	char rnd[17], tmp[64];
	size_t total = 0;
	bool ok;
	int fd;

	for (int k = 0; k < n; k++)
		total += iov[k].iov_len;
	if (random_hex16(rnd, &(struct sw_error)SW_ERROR_INIT) < 0)
		return false;
	snprintf(tmp, sizeof(tmp), ".tmp-%s-%s", name, rnd);
	fd = openat(r->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	ok = writev(fd, iov, n) == (ssize_t)total;
	if (close(fd) != 0 || !ok || (unlinkat(r->fd, name, 0) != 0 && errno != ENOENT) ||
	    renameat2(r->fd, tmp, r->fd, name, RENAME_NOREPLACE) != 0) {
		unlinkat(r->fd, tmp, 0);
		return false;
	}
	return true;
}

/* Brings the checkpoint log to what m's checkpoint needs: the adopted log
 * with m->cp_log appended in place, or a new log of m->cp_log alone.
 * Leaves its digest in lhex, its length in *llen, its hash state in
 * m->lhash and its status in *lst (st_ino 0 when there is no file); false
 * to skip the checkpoint. */
static bool checkpoint_log_write(struct run_dir *r, struct store_mutation *m,
				 char lhex[SW_XXH_HEX_LEN], size_t *llen, struct stat *lst)
{
	struct sw_xxh *h = NULL;
	struct stat st;
	bool ok = false;
	int fd;

	memset(lst, 0, sizeof(*lst));
	if (m->cp_log_base > 0) {
		/* Append to the very file adopted, cut back to what its
		 * checkpoint covered. */
		if (m->lhash == NULL || m->cp_log_base != m->llen)
			return false;
		fd = openat(r->fd, CHECKPOINT_LOG_NAME, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return false;
		ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && same_file(&st, &m->lst) &&
		     (st.st_size == (off_t)m->llen || ftruncate(fd, (off_t)m->llen) == 0) &&
		     pwrite_all(fd, m->cp_log, m->cp_log_len, (off_t)m->llen) &&
		     fstat(fd, lst) == 0;
		if (close(fd) != 0 || !ok)
			return false;
		sw_xxh_update(m->lhash, m->cp_log, m->cp_log_len);
		sw_xxh_peek_hex(m->lhash, lhex);
		*llen = m->llen + m->cp_log_len;
		return lhex[0] != '\0';
	}
	if (m->cp_log_len > 0) {
		struct iovec iov = { (void *)m->cp_log, m->cp_log_len };

		if (!replace_leaf(r, CHECKPOINT_LOG_NAME, &iov, 1) ||
		    fstatat(r->fd, CHECKPOINT_LOG_NAME, lst, AT_SYMLINK_NOFOLLOW) != 0)
			return false;
	}
	if (sw_xxh_new(&h, &(struct sw_error)SW_ERROR_INIT) < 0)
		return false;
	sw_xxh_update(h, m->cp_log, m->cp_log_len);
	sw_xxh_peek_hex(h, lhex);
	sw_xxh_free(m->lhash);
	m->lhash = h;
	*llen = m->cp_log_len;
	return lhex[0] != '\0';
}

/* Writes run.checkpoint for the committed state (best effort): the log
 * first, then the header and body that name it.  True when written, with
 * the status of the log and of run.json it names in *lst and *pst. */
static bool checkpoint_write(struct run_dir *r, struct store_mutation *m,
			     long long sequence, off_t jlen, const char *jhex,
			     struct stat *lst, struct stat *pst)
{
	char hdr[640], bhex[SW_XXH_HEX_LEN], lhex[SW_XXH_HEX_LEN] = "", id[160], jid[160];
	struct iovec iov[2];
	size_t llen = 0;
	int n;

	if (fstatat(r->fd, PROJECTION_NAME, pst, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(pst->st_mode))
		return false;
	if (boot_id()[0] == '\0' || !checkpoint_log_write(r, m, lhex, &llen, lst)) {
		unlinkat(r->fd, CHECKPOINT_NAME, 0);
		return false;
	}
	identity_text(id, pst);
	identity_text(jid, &m->jst);	/* all zero (never matching) when unknown */
	sw_xxh_hex(m->cp_body, m->cp_len, bhex);
	n = snprintf(hdr, sizeof(hdr), CHECKPOINT_MAGIC " %s %lld %lld %s %s %s %zu %s %zu %s\n",
		     boot_id(), sequence, (long long)jlen, jhex, jid, id, llen, lhex, m->cp_len, bhex);
	if (n <= 0 || (size_t)n >= sizeof(hdr))
		return false;
	iov[0].iov_base = hdr;
	iov[0].iov_len = (size_t)n;
	iov[1].iov_base = (void *)m->cp_body;
	iov[1].iov_len = m->cp_len;
	return replace_leaf(r, CHECKPOINT_NAME, iov, 2);
}

/* ---- the checkpoint kept in memory (store_keep_warm) ------------------ */

/* A long-lived process keeps the last checkpoint it wrote, with the status
 * of the journal, the log and run.json as it left them and the digest
 * states of the journal and the log.  The next update of that Run adopts
 * it instead of reading, hashing and checking run.checkpoint, its log and
 * the journal's prefix, but only while it is provably current: the same
 * run directory, and the journal, the log and run.json each still the
 * very file with the size and the modification and change times the
 * mutation left (any write or replacement through the file system changes
 * the change time, which no unprivileged caller can set back).  Another
 * process that mutates the Run appends to its journal, so the next update
 * finds the kept checkpoint stale, drops it and reads the files. */
static struct {
	bool on, valid;
	char run_id[STORE_RUN_ID_MAX + 1];
	struct stat dir_st;
	long long sequence;
	char *body, *log;
	size_t body_len, log_len;
	struct sw_lchain *jhash;
	struct sw_xxh *lhash;
	off_t jlen;
	struct stat jst, lst, pst;
} warm;

static void warm_clear(void)
{
	sw_free(warm.body);
	sw_free(warm.log);
	sw_lchain_free(warm.jhash);
	sw_xxh_free(warm.lhash);
	warm.body = warm.log = NULL;
	warm.jhash = NULL;
	warm.lhash = NULL;
	warm.valid = false;
}

void store_keep_warm(bool on)
{
	warm_clear();
	warm.on = on;
}

/* Keeps the checkpoint just written for Run r (its journal `jlen` bytes,
 * `sequence` events): m's body and log and the digest states it holds. */
static void warm_keep(struct run_dir *r, struct store_mutation *m, long long sequence,
		      off_t jlen, const struct stat *lst, const struct stat *pst)
{
	size_t old = m->cp_log_base > 0 ? m->llen : 0;

	warm_clear();
	if (!warm.on || m->jhash == NULL || m->lhash == NULL || m->jst.st_ino == 0 ||
	    m->jst.st_size != jlen || (old > 0 && m->old_log == NULL) ||
	    strlen(r->id) > STORE_RUN_ID_MAX)
		return;
	if ((warm.body = sw_malloc(m->cp_len + 1)) == NULL ||
	    (warm.log = sw_malloc(old + m->cp_log_len + 1)) == NULL) {
		warm_clear();
		return;
	}
	memcpy(warm.body, m->cp_body, m->cp_len);
	if (old > 0)
		memcpy(warm.log, m->old_log, old);
	memcpy(warm.log + old, m->cp_log, m->cp_log_len);
	warm.body_len = m->cp_len;
	warm.log_len = old + m->cp_log_len;
	warm.jhash = m->jhash;
	warm.lhash = m->lhash;
	m->jhash = NULL;
	m->lhash = NULL;
	snprintf(warm.run_id, sizeof(warm.run_id), "%s", r->id);
	warm.dir_st = r->st;
	warm.sequence = sequence;
	warm.jlen = jlen;
	warm.jst = m->jst;
	warm.lst = *lst;
	warm.pst = *pst;
	warm.valid = true;
}

/* Adopts the kept checkpoint for Run r when it is provably current (see
 * above): fills *cp (the body borrowed, the log a copy), the journal's
 * digest state and length in `from`, the log's state in *lhash and its
 * status in m, run.json's status in *pst.  False, dropping it, when it
 * is stale. */
static bool warm_adopt(struct store_checkpoint *cp, struct replay_from *from,
		       struct sw_xxh **lhash, struct store_mutation *m, struct stat *pst,
		       struct run_dir *r)
{
	struct sw_error e = SW_ERROR_INIT;
	struct stat st;

	memset(cp, 0, sizeof(*cp));
	cp->projection_fd = -1;
	if (!warm.on || !warm.valid)
		return false;
	if (strcmp(warm.run_id, r->id) != 0 || !same_file(&warm.dir_st, &r->st) ||
	    fstatat(r->fd, JOURNAL_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !same_identity(&st, &warm.jst) || st.st_size != warm.jlen ||
	    (warm.lst.st_ino != 0 &&
	     (fstatat(r->fd, CHECKPOINT_LOG_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	      !same_identity(&st, &warm.lst))) ||
	    open_leaf(&cp->projection_fd, r->fd, PROJECTION_NAME, O_RDONLY, &e) < 0 ||
	    fstat(cp->projection_fd, pst) < 0 || !same_identity(pst, &warm.pst))
		goto stale;
	if (warm.log_len > 0) {
		if ((cp->log = sw_malloc(warm.log_len + 1)) == NULL)
			goto stale;
		memcpy(cp->log, warm.log, warm.log_len);
	}
	if (sw_lchain_copy(&from->hash, warm.jhash, &e) < 0 ||
	    sw_xxh_copy(lhash, warm.lhash, &e) < 0)
		goto stale;
	cp->sequence = warm.sequence;
	cp->body = warm.body;
	cp->body_len = warm.body_len;
	cp->log_len = warm.log_len;
	cp->projection_len = (size_t)pst->st_size;
	from->skip = warm.jlen;
	m->lst = warm.lst;
	return true;
stale:
	sw_lchain_free(from->hash);
	sw_xxh_free(*lhash);
	from->hash = NULL;
	*lhash = NULL;
	store_checkpoint_release(cp);
	memset(cp, 0, sizeof(*cp));
	cp->projection_fd = -1;
	warm_clear();
	return false;
}

/* ---- listing summary -------------------------------------------------- */

/* run.summary: a header line
 *   slipway-summary/2 <journal bytes> <journal chain> <lines> <lines bytes> <body bytes> <xxh>
 * where the last digest covers everything after the header; then one line
 * per material of the Run, "<64 hex> <identity>" (IDENTITY_FMT) as put_blob
 * found it with its content right; then the caller's body.  The list is
 * carried from one summary to the next and grows by each mutation's
 * materials, so it names every blob the Run ever wrote; a mutation that
 * finds no summary matching the journal it replayed writes none. */
#define SUMMARY_LINE_LEN (64 + 1 + 159 + 1)

struct summary {
	char *file;
	long long jlen;
	char jhex[SW_XXH_HEX_LEN];
	const char *lines;	/* in file */
	size_t nlines, lines_len;
	const char *body;	/* in file */
	size_t body_len;
};

static void summary_release(struct summary *sm)
{
	sw_free(sm->file);
	memset(sm, 0, sizeof(*sm));
}

/* Whether this mutation writes the material whose 64 hex digits start at
 * `hex` (a summary line). */
static bool mutation_writes(const struct store_mutation *m, const char *hex)
{
	for (size_t i = 0; i < m->nmat; i++)
		if (memcmp(m->mat[i].digest + 7, hex, 64) == 0)
			return true;
	return false;
}

/* Reads run.summary and checks its header, digest and line shapes; false
 * when there is none usable. */
static bool summary_read(struct summary *sm, struct run_dir *r)
{
	char line[256], dhex[SW_XXH_HEX_LEN], got[SW_XXH_HEX_LEN];
	size_t len = 0, hlen, nlines = 0, lines_len = 0, body_len = 0;
	long long jlen = 0;
	const char *nl, *p;
	struct stat st;
	int used = 0;

	memset(sm, 0, sizeof(*sm));
	if ((sm->file = read_leaf(&len, &st, r, SUMMARY_NAME, SIZE_MAX, SUMMARY_MAX)) == NULL)
		return false;
	if ((nl = memchr(sm->file, '\n', len < sizeof(line) ? len : sizeof(line))) == NULL)
		goto bad;
	hlen = (size_t)(nl - sm->file);
	memcpy(line, sm->file, hlen);
	line[hlen] = '\0';
	if (sscanf(line, SUMMARY_MAGIC " %lld %32s %zu %zu %zu %32s%n", &jlen, sm->jhex, &nlines,
		   &lines_len, &body_len, dhex, &used) != 6 || (size_t)used != hlen ||
	    jlen < 1 || strlen(sm->jhex) != 32 || lines_len > len || body_len > len ||
	    lines_len + body_len != len - hlen - 1)
		goto bad;
	sw_xxh_hex(nl + 1, lines_len + body_len, got);
	if (strcmp(got, dhex) != 0)
		goto bad;
	sm->jlen = jlen;
	sm->lines = nl + 1;
	sm->lines_len = lines_len;
	sm->nlines = nlines;
	sm->body = nl + 1 + lines_len;
	sm->body_len = body_len;
	/* Every line is "<64 hex> <identity>\n", nlines of them. */
	p = sm->lines;
	for (size_t i = 0; i < nlines; i++) {
		const char *end = memchr(p, '\n', (size_t)(sm->body - p));

		if (end == NULL || end - p < 66 || end - p >= SUMMARY_LINE_LEN || p[64] != ' ')
			goto bad;
		p = end + 1;
	}
	if (p != sm->body)
		goto bad;
	return true;
bad:
	summary_release(sm);
	return false;
}

/* The material line of `hex` as `st` identifies it, into out. */
static int summary_line(char out[SUMMARY_LINE_LEN + 1], const char *hex, const struct stat *st)
{
	char id[160];

	identity_text(id, st);
	return snprintf(out, SUMMARY_LINE_LEN + 1, "%.64s %s\n", hex, id);
}

/* Writes run.summary for the committed state (best effort, no fsync,
 * outside the fault seam, like the checkpoint): the material lines of the
 * summary that matched the journal before this mutation (`prev_jhex`,
 * m->jlen bytes; none for a new Run) plus this mutation's materials. */
static void summary_write(struct run_dir *r, const struct store_mutation *m, bool create,
			  const char *prev_jhex, long long jlen, const char *jhex)
{
	static char none[1];
	struct sw_buf lines = SW_BUF_INIT;
	struct summary old = { 0 };
	char hdr[256], dhex[SW_XXH_HEX_LEN], one[SUMMARY_LINE_LEN + 1];
	struct iovec iov[4];
	size_t nlines = 0, kept_len = 0;
	struct sw_xxh *h = NULL;
	bool rewritten = false;
	int n;

	if (m->sum_body == NULL || jhex[0] == '\0')
		goto drop;
	if (!create && (prev_jhex[0] == '\0' || !summary_read(&old, r) || old.jlen != (long long)m->jlen ||
			strcmp(old.jhex, prev_jhex) != 0))
		goto drop;
	/* The old lines are kept as they are, unless one of this mutation's
	 * materials was among them (an existing blob written again). */
	for (const char *p = old.lines; p != NULL && p < old.body && !rewritten;) {
		rewritten = mutation_writes(m, p);
		p = (const char *)memchr(p, '\n', (size_t)(old.body - p)) + 1;
	}
	for (const char *p = old.lines; rewritten && p < old.body;) {
		const char *end = memchr(p, '\n', (size_t)(old.body - p)) + 1;

		if (!mutation_writes(m, p)) {
			sw_buf_add(&lines, p, (size_t)(end - p));
			nlines++;
		}
		p = end;
	}
	if (!rewritten) {
		nlines = old.nlines;
		kept_len = old.lines_len;
	}
	for (size_t i = 0; i < m->nmat; i++) {
		size_t j = 0;

		while (j < i && strcmp(m->mat[i].digest, m->mat[j].digest) != 0)
			j++;
		if (j < i)
			continue;
		summary_line(one, m->mat[i].digest + 7, &m->mat[i].st);
		sw_buf_str(&lines, one);
		nlines++;
	}
	if (lines.failed || sw_xxh_new(&h, &(struct sw_error)SW_ERROR_INIT) < 0)
		goto drop;
	iov[0] = (struct iovec){ hdr, 0 };
	iov[1] = (struct iovec){ (void *)(kept_len ? old.lines : none), kept_len };
	iov[2] = (struct iovec){ lines.p ? lines.p : none, lines.len };
	iov[3] = (struct iovec){ m->sum_body, m->sum_len };
	for (int k = 1; k < 4; k++)
		sw_xxh_update(h, iov[k].iov_base, iov[k].iov_len);
	sw_xxh_peek_hex(h, dhex);
	n = snprintf(hdr, sizeof(hdr), SUMMARY_MAGIC " %lld %s %zu %zu %zu %s\n", jlen, jhex,
		     nlines, kept_len + lines.len, m->sum_len, dhex);
	if (n <= 0 || (size_t)n >= sizeof(hdr) || dhex[0] == '\0')
		goto drop;
	iov[0].iov_len = (size_t)n;
	if (replace_leaf(r, SUMMARY_NAME, iov, 4))
		goto out;
drop:
	/* A summary that no longer matches the journal is useless. */
	unlinkat(r->fd, SUMMARY_NAME, 0);
out:
	sw_xxh_free(h);
	sw_buf_release(&lines);
	summary_release(&old);
}

/* Whether the journal is exactly `len` bytes chaining to `hex`. */
static bool journal_is(struct run_dir *r, long long len, const char *hex)
{
	struct sw_error e = SW_ERROR_INIT;
	struct sw_lchain *h = NULL;
	char got[SW_XXH_HEX_LEN];
	struct stat st;
	bool ok = false;
	int fd = -1;

	if (open_journal(&fd, r->fd, O_RDONLY, &e) < 0 || fstat(fd, &st) < 0 ||
	    st.st_size != (off_t)len || sw_lchain_new(&h, &e) < 0 || !hash_prefix(h, fd, (off_t)len))
		goto out;
	sw_lchain_peek_hex(h, got);
	ok = got[0] != '\0' && strcmp(got, hex) == 0 && check_leaf(r->fd, JOURNAL_NAME, fd, &e) == 0;
out:
	sw_lchain_free(h);
	close_fd(&fd);
	return ok;
}

/* Whether every material line still names the file it identified. */
static bool materials_are(struct run_dir *r, const struct summary *sm)
{
	char one[SUMMARY_LINE_LEN + 1], digest[SW_DIGEST_LEN] = "sha256:";
	const char *hex = digest + 7;
	struct sw_error e = SW_ERROR_INIT;
	struct stat mst;
	bool ok = true;
	int mfd = -1;

	if (sm->nlines == 0)
		return true;
	if (open_dir_at(&mfd, &mst, NULL, r->fd, MATERIALS_NAME, false, false, &e) < 0)
		return false;
	for (const char *p = sm->lines; ok && p < sm->body;) {
		const char *end = memchr(p, '\n', (size_t)(sm->body - p)) + 1;
		struct stat st;

		memcpy(digest + 7, p, 64);
		digest[71] = '\0';
		ok = sw_digest_valid(digest) && fstatat(mfd, hex, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		     summary_line(one, hex, &st) == end - p && memcmp(one, p, (size_t)(end - p)) == 0;
		p = end;
	}
	ok = ok && check_dir_at(r->fd, MATERIALS_NAME, &mst, &e) == 0;
	close_fd(&mfd);
	return ok;
}

int store_read_summary(char **body, size_t *len, struct store *s, const char *run_id)
{
	struct run_dir r = RUN_DIR_INIT;
	struct summary sm = { 0 };
	struct stat st;
	int ok = 0;

	*body = NULL;
	*len = 0;
	if (run_open(&r, s, run_id, false, NULL) < 0)
		goto out;
	/* Shared, like store_visit, but never waiting: a busy Run is left
	 * to the replay, which waits and reports. */
	r.lock_fd = openat(r.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.lock_fd < 0 || fstat(r.lock_fd, &st) < 0 || !same_file(&st, &r.st) ||
	    flock(r.lock_fd, LOCK_SH | LOCK_NB) != 0)
		goto out;
	if (!summary_read(&sm, &r) || !journal_is(&r, sm.jlen, sm.jhex) || !materials_are(&r, &sm) ||
	    run_valid(s, &r, NULL) < 0 || (*body = sw_malloc(sm.body_len + 1)) == NULL)
		goto out;
	memcpy(*body, sm.body, sm.body_len);
	(*body)[sm.body_len] = '\0';
	*len = sm.body_len;
	ok = 1;
out:
	summary_release(&sm);
	run_close(&r);
	fail_reset(s);
	return ok;
}

/* A mutation that did not commit takes back the blobs it made, which no
 * journal line names, so that the Run's directory holds what it held (a
 * failed creation removes its staged directory whole).  Best effort, under
 * the lock: a blob left behind is only unreferenced. */
static void drop_new_materials(struct run_dir *r, struct store_mutation *m)
{
	bool any = false;
	int mfd;

	for (size_t i = 0; i < m->nmat; i++)
		any = any || m->mat[i].created;
	if (!any || (mfd = openat(r->fd, MATERIALS_NAME,
				  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	for (size_t i = 0; i < m->nmat; i++) {
		struct stat st;

		/* Only the very file put_blob made and checked. */
		if (m->mat[i].created &&
		    fstatat(mfd, m->mat[i].digest + 7, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    same_identity(&st, &m->mat[i].st))
			unlinkat(mfd, m->mat[i].digest + 7, 0);
		m->mat[i].created = false;
	}
	close(mfd);
}

/* Removes from directory `dfd` the entries `is_ours` names: temporaries
 * of mutations killed before they finished.  A directory of such a name
 * (a damaged entry parked by a mutation killed before it removed it) goes
 * only when empty.  Only under the Run's exclusive lock, where no live
 * mutation owns one. */
static int sweep_dir(int dfd, bool (*is_ours)(const char *name), struct sw_error *err)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		rc = sw_error_sys(err, errno, "cannot list leftovers");
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat st;

		bool dir;

		if (!is_ours(de->d_name) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		dir = S_ISDIR(st.st_mode);
		if (f_unlink(dfd, de->d_name, dir ? AT_REMOVEDIR : 0) < 0 && errno != ENOENT &&
		    !(dir && (errno == ENOTEMPTY || errno == EEXIST)))
			rc = sw_error_sys(err, errno, "cannot remove leftover '%s'", de->d_name);
	}
	closedir(d);
	return rc;
}

static int sweep_temporaries(struct run_dir *r, struct txn *t, struct sw_error *err)
{
	struct sw_error e = SW_ERROR_INIT;
	struct stat mst;
	int mfd = -1, rc;

	t->phase = "leftover_cleanup";
	if ((rc = sweep_dir(r->fd, store__is_run_temporary, err)) < 0)
		return rc;
	/* No materials/ (or one that is no directory) holds no leftover. */
	if (open_dir_at(&mfd, &mst, NULL, r->fd, MATERIALS_NAME, false, false, &e) < 0)
		return 0;
	rc = sweep_dir(mfd, store__is_material_temporary, err);
	if (rc == 0)
		rc = check_dir_at(r->fd, MATERIALS_NAME, &mst, err);
	close_fd(&mfd);
	return rc;
}

/* Replaces a damaged run.lock marker with an empty regular one: the new
 * marker is made under a temporary name, the damaged entry parked and the
 * marker renamed into place. */
static int repair_lock_file(struct run_dir *r, struct txn *t, struct sw_error *err)
{
	char rnd[17], tmp[64], parked[96] = "";
	struct stat st;
	int fd = -1, rc;

	t->phase = "lock_repair";
	if (fstatat(r->fd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return sw_error_sys(err, errno, "cannot inspect run lock");
	if ((rc = random_hex16(rnd, err)) < 0)
		return rc;
	snprintf(tmp, sizeof(tmp), ".tmp-%s-%s", LOCK_NAME, rnd);
	if ((fd = f_create(r->fd, tmp, O_WRONLY)) < 0)
		return sw_error_sys(err, errno, "cannot create run lock");
	if (fchmod(fd, 0600) < 0 || (rc = check_leaf(r->fd, tmp, fd, err)) < 0) {
		rc = rc < 0 ? rc : sw_error_sys(err, errno, "cannot secure run lock");
		goto out;
	}
	if ((rc = park_entry(r, LOCK_NAME, &st, parked, err)) < 0)
		goto out;
	if (f_rename(r->fd, tmp, LOCK_NAME) < 0) {
		rc = sw_error_sys(err, errno, "cannot install run lock");
		renameat2(r->fd, parked, r->fd, LOCK_NAME, RENAME_NOREPLACE);
		goto out;
	}
	tmp[0] = '\0';
	r->lock_damaged = false;
	rc = drop_parked(r, parked, &st, err);
out:
	close_fd(&fd);
	if (tmp[0])
		unlinkat(r->fd, tmp, 0);
	return rc;
}

/* Everything after the callback: projection temp, materials, journal,
 * commit, projection install.  `create` follows the create ordering. */
static int commit_mutation(struct store *s, struct run_dir *r,
			   struct store_mutation *m, bool create,
			   struct txn *t, struct sw_error *err)
{
	struct prepared p = { .prev_fd = -1 };
	char jhex[SW_XXH_HEX_LEN] = "", prev_jhex[SW_XXH_HEX_LEN] = "";
	char *journal = NULL, *proj = NULL;
	size_t jlen = 0, plen = 0;
	bool existed = false;
	struct sw_piece whole = { NULL, 0, 0 };
	int rc;

	if ((rc = encode_mutation(&journal, &jlen, &proj, &plen, s, m, t, err)) < 0)
		goto out;
	/* A mutation that commits first clears what killed ones left and
	 * mends a damaged lock marker; a refused one changes nothing. */
	if (!create && ((rc = sweep_temporaries(r, t, err)) < 0 ||
			(r->lock_damaged && (rc = repair_lock_file(r, t, err)) < 0)))
		goto out;
	if (create && (rc = put_materials(r, m, t, err)) < 0)
		goto out;
	whole.bytes = proj;
	whole.len = plen;
	if ((rc = prepare_projection(&p, r, m->piece ? m->piece : &whole,
				     m->piece ? m->npiece : 1, &m->src_st, t, err)) < 0)
		goto out;
	if (!create && (rc = put_materials(r, m, t, err)) < 0)
		goto out;
#ifdef SW_TESTING
	if (after_materials != NULL)
		after_materials(after_materials_arg);
#endif
	t->phase = "namespace_verify";
	if ((rc = verify_materials(r, m, err)) < 0)
		goto out;
	if ((rc = append_journal(&existed, &m->jst, s, r, journal, jlen, t, err)) < 0)
		goto out;
	if (!existed) {
		/* A new journal is committed once its directory entry is; a
		 * new Run only once its staged directory is published. */
		t->phase = "directory_sync";
		if ((rc = sync_dir(r->fd, &r->st, "run", err)) < 0)
			goto out;
		t->committed = !create;
		t->pending = !create;
	}
	t->phase = "journal_verify";
	if ((rc = verify_materials(r, m, err)) < 0)
		goto out;
	if ((rc = install_projection(&p, s, r, t, err)) < 0)
		goto out;
	if (create) {
		struct sw_lchain *h = NULL;

		if (sw_lchain_new(&h, &(struct sw_error)SW_ERROR_INIT) == 0) {
			sw_lchain_update(h, journal, jlen);
			sw_lchain_peek_hex(h, jhex);
		}
		sw_lchain_free(h);
	} else if (m->jhash != NULL) {
		sw_lchain_peek_hex(m->jhash, prev_jhex);
		sw_lchain_update(m->jhash, journal, jlen);
		sw_lchain_peek_hex(m->jhash, jhex);
	}
	if (!create && m->cp_body != NULL && jhex[0]) {
		struct stat lst, pst;
		long long seq = m->base + (long long)m->nev;
		off_t end = m->jlen + (off_t)jlen;

		if (checkpoint_write(r, m, seq, end, jhex, &lst, &pst))
			warm_keep(r, m, seq, end, &lst, &pst);
		else
			warm_clear();
	} else if (!create) {
		warm_clear();
	}
	summary_write(r, m, create, prev_jhex, (long long)(m->jlen + (off_t)jlen), jhex);
out:
	if (rc < 0 && !create && !t->committed && !t->wrote)
		drop_new_materials(r, m);
	prepared_discard(&p, r);
	sw_free(proj);
	sw_free(journal);
	return rc;
}

/* Removes what a failed creation left in its staged directory `dfd`
 * (files, and one level of subdirectories for materials/), then the
 * directory `name` itself.  Best effort: a leftover keeps its staging
 * name, which no listing takes for a Run. */
static void remove_tree(int dfd, int depth)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		int sub;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    unlinkat(dfd, de->d_name, 0) == 0 || errno != EISDIR || depth == 0)
			continue;
		sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			remove_tree(sub, depth - 1);
			close(sub);
		}
		unlinkat(dfd, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* A Run is built under a staging name and renamed into place (no
 * replace) once its journal, projection, lock and materials are durable:
 * a creation that fails or is interrupted never leaves a directory under
 * the run id.  The rename is the commit point. */
int store_create(struct store *s, const char *run_id, store_mutate_fn *mutate,
		 void *payload, struct sw_error *err)
{
	struct store_mutation m = { 0 };
	struct txn t = { "validation", false, false, false, false };
	struct run_dir r = RUN_DIR_INIT;
	char staged[STAGED_NAME_MAX] = "", rnd[17];
	int rc;

	fail_reset(s);
	m.s = s;
	if ((rc = require_writable(s, &t, err)) < 0)
		goto out;
	if (!store_run_id_valid(run_id)) {
		rc = sw_error_set(err, SW_EINVAL, "invalid run id");
		goto out;
	}
	t.phase = "callback";
	if ((rc = mutate(&m, payload, err)) < 0) {
		if (err && err->code == SW_OK)
			rc = sw_error_set(err, rc, "mutation callback failed");
		goto out;
	}
	t.phase = "validation";
	if (m.nev != 1) {
		rc = sw_error_set(err, SW_EINVAL, "a new run needs exactly one event");
		goto out;
	}
	t.phase = "namespace_verify";
	if ((rc = anchors_valid(s, err)) < 0)
		goto out;
	t.phase = "directory_create";
	if (faccessat(s->runs_fd, run_id, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		rc = sw_error_set(err, SW_ECONFLICT, "run '%s' already exists", run_id);
		goto out;
	}
	if ((rc = random_hex16(rnd, err)) < 0)
		goto out;
	snprintf(staged, sizeof(staged), "%s%s-%s", STAGED_PREFIX, run_id, rnd);
	if (f_mkdir(s->runs_fd, staged) < 0) {
		staged[0] = '\0';
		rc = sw_error_sys(err, errno, "cannot create run directory");
		goto out;
	}
	r.id = staged;
	if ((rc = open_dir_at(&r.fd, &r.st, NULL, s->runs_fd, staged, false,
			      true, err)) < 0)
		goto out;
	t.phase = "lock_open";
	if ((rc = run_lock(&r, s, true, err)) < 0)
		goto out;
	if ((rc = ensure_lock_file(&r, &t, err)) < 0)
		goto out;
	if ((rc = commit_mutation(s, &r, &m, true, &t, err)) < 0)
		goto out;
	t.phase = "directory_create";
	if ((rc = run_valid(s, &r, err)) < 0)
		goto out;
	if (f_rename(s->runs_fd, staged, run_id) < 0) {
		rc = errno == EEXIST ?
			sw_error_set(err, SW_ECONFLICT, "run '%s' already exists", run_id) :
			sw_error_sys(err, errno, "cannot publish run directory");
		goto out;
	}
	staged[0] = '\0';
	r.id = run_id;
	t.committed = true;
	t.phase = "directory_sync";
	if ((rc = sync_dir(s->runs_fd, &s->runs_st, RUNS_NAME, err)) < 0)
		goto out;
	t.phase = "namespace_verify";
	rc = run_valid(s, &r, err);
out:
	if (staged[0] && r.fd >= 0) {
		/* Nothing of the staged Run is visible: its bytes do not count
		 * as written. */
		remove_tree(r.fd, 1);
		unlinkat(s->runs_fd, staged, AT_REMOVEDIR);
		t.wrote = false;
	} else if (staged[0]) {
		unlinkat(s->runs_fd, staged, AT_REMOVEDIR);
	}
	run_close(&r);
	mutation_release(&m);
	return finish_mutation(s, &t, rc, err);
}

/* Replays under the lock, from a checkpoint `resume` adopts when there
 * is one (resume may be NULL); m->jhash gets the journal's digest state
 * when it is usable for the next checkpoint. */
static int replay_for_update(struct store *s, struct run_dir *r, store_resume_fn *resume,
			     store_visit_fn *visit, void *payload, long long *count,
			     struct store_mutation *m, struct sw_error *err)
{
	struct replay_from from = { 0 };
	struct store_checkpoint cp;
	struct sw_xxh *lhash = NULL;
	struct stat pst;
	char *file = NULL;
	int rc;

	if (resume == NULL)
		return replay(s, r, true, visit, payload, count, NULL, err);
	if (warm_adopt(&cp, &from, &lhash, m, &pst, r) ||
	    checkpoint_load(&cp, &file, &from.hash, &from.skip, &lhash, &m->lst, &pst, r)) {
		size_t llen = cp.log_len;

		/* A later checkpoint appends to this log: keep its bytes. */
		if (warm.on && llen > 0 && (m->old_log = sw_malloc(llen)) != NULL)
			memcpy(m->old_log, cp.log, llen);
		rc = resume(&cp, payload, err);
		store_checkpoint_release(&cp);
		sw_free(file);
		if (rc != 0) {
			sw_lchain_free(from.hash);
			sw_xxh_free(lhash);
			if (rc < 0)
				return rc;
			from.hash = NULL;
			from.skip = 0;
		} else {
			from.base = cp.sequence;
			m->lhash = lhash;
			m->llen = llen;
			m->src_st = pst;
		}
	}
	if (from.hash == NULL && sw_lchain_new(&from.hash, &(struct sw_error)SW_ERROR_INIT) < 0)
		from.hash = NULL;	/* no checkpoint this time */
	rc = replay(s, r, true, visit, payload, count, &from, err);
	if (rc < 0 || from.repaired || from.hash == NULL) {
		sw_lchain_free(from.hash);
		return rc;
	}
	m->jhash = from.hash;
	m->jlen = from.end;
	return 0;
}

int store_update_resumable(struct store *s, const char *run_id,
			   store_resume_fn *resume, store_visit_fn *visit,
			   store_mutate_fn *mutate, void *payload,
			   struct sw_error *err)
{
	struct store_mutation m = { 0 };
	struct txn t = { "validation", false, false, false, false };
	struct run_dir r = RUN_DIR_INIT;
	long long count = 0;
	int rc;

	fail_reset(s);
	m.s = s;
	if ((rc = require_writable(s, &t, err)) < 0)
		goto out;
	t.phase = "namespace_verify";
	if ((rc = run_open(&r, s, run_id, true, err)) < 0)
		goto out;
	t.phase = "lock_open";
	if ((rc = run_lock(&r, s, true, err)) < 0)
		goto out;
	if ((rc = ensure_lock_file(&r, &t, err)) < 0)
		goto out;
	t.phase = "replay";
	if ((rc = replay_for_update(s, &r, resume, visit, payload, &count, &m, err)) < 0)
		goto out;
	t.phase = "lock_verify";
	if ((rc = run_valid(s, &r, err)) < 0)
		goto out;
	m.base = count;
	t.phase = "callback";
	if ((rc = mutate(&m, payload, err)) < 0) {
		if (err && err->code == SW_OK)
			rc = sw_error_set(err, rc, "mutation callback failed");
		goto out;
	}
	t.phase = "lock_verify";
	if ((rc = run_valid(s, &r, err)) < 0)
		goto out;
	if (m.nev == 0)
		goto out;
	rc = commit_mutation(s, &r, &m, false, &t, err);
out:
	run_close(&r);
	mutation_release(&m);
	return finish_mutation(s, &t, rc, err);
}

#ifdef SW_TESTING
int store_test_projection(struct store *s, const char *run_id, char **out, size_t *len)
{
	struct run_dir r = RUN_DIR_INIT;
	struct stat st;
	int rc;

	*out = NULL;
	if ((rc = run_open(&r, s, run_id, false, NULL)) == 0 &&
	    (*out = read_leaf(len, &st, &r, PROJECTION_NAME, SIZE_MAX, SIZE_MAX)) == NULL)
		rc = SW_EIO;
	run_close(&r);
	return rc;
}

int store_replay_unlocked(struct store *s, const char *run_id, store_visit_fn *visit,
			  void *payload, struct sw_error *err)
{
	struct run_dir r = RUN_DIR_INIT;
	long long count = 0;
	int rc;

	if ((rc = run_open(&r, s, run_id, false, err)) == 0)
		rc = replay(s, &r, false, visit, payload, &count, NULL, err);
	run_close(&r);
	return rc;
}
#endif

int store_update(struct store *s, const char *run_id, store_visit_fn *visit,
		 store_mutate_fn *mutate, void *payload, struct sw_error *err)
{
	return store_update_resumable(s, run_id, NULL, visit, mutate, payload, err);
}
