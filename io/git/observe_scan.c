/* The fast worktree scan: for a plain repository, the index-to-worktree
 * side and the untracked files as git status computes them, on worker
 * threads (lstat through directory descriptors, the seam's directory
 * reader), one of which takes the head-to-index side.  Never writes; what it cannot prove is left
 * to libgit2's status (observe.c). */

#include "io/git/observe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/buf.h"

/* libgit2's status lstats every path by its absolute name on one thread.
 * For a plain repository (no conflicts, gitlinks, intent-to-add or
 * skip-worktree entries; case-sensitive, trusted file modes and symlinks)
 * we compute the same index-to-worktree side ourselves: index entries are
 * lstat'ed relative to a cached parent directory by several threads while
 * one thread walks the tree for untracked files, then entries whose stat
 * data does not prove them clean are hashed with libgit2 (filters
 * applied, unless no_filter_applies proves none can).  Anything else falls
 * back to git_status_list_new. */

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* A head-to-index delta and the index entry of its new path. */
struct dent {
	size_t i;	/* the entry */
	size_t k;	/* the delta's place among the deltas */
	const struct hdelta *d;
};

static int dent_cmp(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;

	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* Copies the deltas of `diff` into *h.  SW_ENOMEM. */
static int hdiff_from(struct hdiff *h, git_diff *diff)
{
	size_t n = git_diff_num_deltas(diff);

	h->n = 0;
	if (n == 0) {
		h->d = NULL;
		return 0;
	}
	if ((h->d = sw_calloc(n, sizeof(*h->d))) == NULL)
		return SW_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct hdelta *o = &h->d[h->n++];

		o->status = d->status;
		o->old_mode = d->old_file.mode;
		o->similarity = d->similarity;
		git_oid_cpy(&o->old_id, &d->old_file.id);
		if ((o->old_path = sw_strdup(d->old_file.path ? d->old_file.path : "")) == NULL ||
		    (o->new_path = sw_strdup(d->new_file.path ? d->new_file.path : "")) == NULL) {
			vcs__hdiff_release(h);
			return SW_ENOMEM;
		}
	}
	return 0;
}

static unsigned stat_mode(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return GIT_FILEMODE_LINK;
	return (st->st_mode & 0100) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
}

/* Classifies entry i from its lstat: git's ie_match_stat decisions,
 * erring towards 'c' (hash it) whenever stat data cannot prove the entry
 * clean. */
static void scan_classify(struct scan *s, size_t i, const struct stat *st)
{
	const git_index_entry *e = s->ent[i];
	int is_link = (e->mode & 0170000) == 0120000;

	s->mwt[i] = 0;
	if (S_ISDIR(st->st_mode)) {
		s->y[i] = 'D';
		return;
	}
	if (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode)) {
		s->y[i] = 'M';	/* git keeps the index mode for these */
		s->mwt[i] = e->mode;
		return;
	}
	s->mwt[i] = stat_mode(st);
	if (S_ISLNK(st->st_mode) != is_link) {
		s->y[i] = 'T';
		return;
	}
	if (!is_link && s->mwt[i] != e->mode) {
		s->y[i] = 'M';
		return;
	}
	if ((uint32_t)st->st_size != e->file_size && e->file_size != 0) {
		s->y[i] = 'M';
		return;
	}
	/* A git built without nanosecond support writes 0 there; then only
	 * the seconds can be compared, as git does. */
	if ((uint32_t)sw_os_st_mtim(st).tv_sec != (uint32_t)e->mtime.seconds ||
	    (e->mtime.nanoseconds != 0 &&
	     (uint32_t)sw_os_st_mtim(st).tv_nsec != e->mtime.nanoseconds) ||
	    (uint32_t)sw_os_st_ctim(st).tv_sec != (uint32_t)e->ctime.seconds ||
	    (e->ctime.nanoseconds != 0 &&
	     (uint32_t)sw_os_st_ctim(st).tv_nsec != e->ctime.nanoseconds) ||
	    (uint32_t)st->st_ino != e->ino || (uint32_t)st->st_dev != e->dev ||
	    st->st_uid != e->uid || st->st_gid != e->gid ||
	    (uint32_t)st->st_size != e->file_size ||
	    (int64_t)e->mtime.seconds >= s->index_mtime)
		s->y[i] = 'c';
	else
		s->y[i] = '.';
}

/* Called with s->mu held. */
static int scan_push_untracked_locked(struct scan *s, const char *path)
{
	if (s->nunt == s->capunt) {
		size_t cap = s->capunt ? s->capunt * 2 : 32;
		char **n = sw_realloc(s->untracked, cap * sizeof(*n));

		if (n == NULL)
			return SW_ENOMEM;
		s->untracked = n;
		s->capunt = cap;
	}
	if ((s->untracked[s->nunt] = sw_strdup(path)) == NULL)
		return SW_ENOMEM;
	s->nunt++;
	return 0;
}

static int scan_push_untracked(struct scan *s, const char *path)
{
	int rc;

	pthread_mutex_lock(&s->mu);
	rc = scan_push_untracked_locked(s, path);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

/* Queues a visit of tracked directory `rel` (rl bytes, taken over);
 * `ign_above`: a directory above it may hold a .gitignore. */
static int scan_push_dir(struct scan *s, char *rel, size_t rl, size_t lo, size_t hi,
			 int ign_above)
{
	int rc = 0;

	pthread_mutex_lock(&s->mu);
	if (s->ntasks == s->captasks) {
		size_t cap = s->captasks ? s->captasks * 2 : 64;
		struct dtask *n = sw_realloc(s->tasks, cap * sizeof(*n));

		if (n == NULL) {
			rc = SW_ENOMEM;
			goto out;
		}
		s->tasks = n;
		s->captasks = cap;
	}
	s->tasks[s->ntasks++] = (struct dtask){ rel, rl, lo, hi, ign_above };
	rel = NULL;
	pthread_cond_signal(&s->cv);
out:
	pthread_mutex_unlock(&s->mu);
	sw_free(rel);
	return rc;
}

/* A second handle on the repository `s->repo` was opened on, or NULL
 * when it cannot be opened or is not the same worktree and Git dir. */
static git_repository *ignore_handle(const struct scan *s)
{
	git_repository *r = NULL;

	if (s->wd == NULL || s->gd == NULL ||
	    git_repository_open_ext(&r, s->wd, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return NULL;
	if (git_repository_workdir(r) == NULL || strcmp(git_repository_workdir(r), s->wd) != 0 ||
	    strcmp(git_repository_path(r), s->gd) != 0) {
		git_repository_free(r);
		r = NULL;
	}
	return r;
}

/* Ignore lookups run only for paths that are not tracked.  Beside the
 * diff they take their own handle: a lookup is short and the diff long,
 * and with 2,000 untracked files in tracked directories of a staged
 * 50,000-file worktree, waiting for it cost 10 to 25% of the scan. */
static int is_ignored(struct scan *s, const char *path)
{
	git_repository *repo = NULL;
	pthread_mutex_t *mu = &s->gitmu;
	int ign = 0;

	if (!s->ign_shared) {	/* set before the workers start */
		pthread_mutex_lock(&s->ignmu);
		if (s->irepo == NULL && !s->irepo_failed && (s->irepo = ignore_handle(s)) == NULL)
			s->irepo_failed = 1;
		if (s->irepo != NULL) {
			repo = s->irepo;
			mu = &s->ignmu;
		} else {
			pthread_mutex_unlock(&s->ignmu);
		}
	}
	if (repo == NULL) {
		pthread_mutex_lock(&s->gitmu);
		repo = s->repo;
	}
	if (git_ignore_path_is_ignored(&ign, repo, path) < 0)
		ign = 0;
	pthread_mutex_unlock(mu);
	return ign;
}

#ifdef SW_TESTING
unsigned vcs__test_unignored;
#endif

static int in_search_path(int level, const char *name);

/* 1 unless the file at `path` is absent or holds no rule: every line
 * empty, a comment or a lone CR, the lines libgit2's parser skips
 * (attr_file.c git_attr_fnmatch__parse).  Anything else, and a file that
 * is not regular or cannot be read, may hold one. */
static int file_has_rules(const char *path)
{
	char buf[4096];
	struct stat st;
	int fd, state = 0, rules = 0;	/* state: 0 line start, 1 comment, 2 CR */
	off_t left = 0;
	ssize_t n;

	if ((fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return errno != ENOENT && errno != ENOTDIR;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		rules = 1;
	else
		left = st.st_size;	/* what libgit2 reads too: no read for the end */
	while (!rules && left > 0 &&
	       (n = read(fd, buf, left < (off_t)sizeof(buf) ? (size_t)left : sizeof(buf))) != 0) {
		if (n < 0) {
			rules = errno != EINTR;
			continue;
		}
		left -= n;
		for (ssize_t i = 0; i < n && !rules; i++) {
			char ch = buf[i];

			if (state == 1)
				state = ch == '\n' ? 0 : 1;
			else if (ch == '\n')
				state = 0;
			else if (state == 0 && (ch == '#' || ch == '\r'))
				state = ch == '#' ? 1 : 2;
			else
				rules = 1;
		}
	}
	close(fd);
	return rules || state == 2;
}

/* 1 when an ignore rule may come from outside the worktree: libgit2's
 * ign_global, info/exclude of the common directory and core.excludesFile
 * or, unset, `ignore` on the XDG search path (ignore.c
 * git_ignore__for_path, attrcache.c attr_cache__lookup_path).  Its
 * internal rules (".", "..", ".git") never match a path the walk asks
 * about: it skips ".git", and the seam's reader never returns the other
 * two.  A kept handle remembers core.excludesFile from its first lookup;
 * this reads the observation's configuration, as git does. */
static int ignore_outside(struct scan *s)
{
	int v = __atomic_load_n(&s->ign_outside, __ATOMIC_ACQUIRE);

	if (v >= 0)
		return v;
	pthread_mutex_lock(&s->ignmu);
	if ((v = s->ign_outside) < 0) {
		v = s->ign_exclude == NULL || s->ign_file_rc < 0 || file_has_rules(s->ign_exclude) ||
		    (s->ign_file_rc == 0 ? file_has_rules(s->ign_file)
					 : in_search_path(GIT_CONFIG_LEVEL_XDG, "ignore"));
		__atomic_store_n(&s->ign_outside, v, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&s->ignmu);
	return v;
}

/* Whether directory `fd` may hold a .gitignore: 1 when one is there (of
 * any type) or the question cannot be answered, 0 when there is none. */
static int gitignore_in(int fd)
{
	return faccessat(fd, ".gitignore", F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
	       (errno != ENOENT && errno != ENOTDIR);
}

/* Whether untracked `path`, an entry of the directory `fd` is open on, is
 * ignored.  libgit2 reads the .gitignore of every directory from the root
 * down to the path's own and the files outside the worktree, every time
 * (five stats for a file two levels down).  When none of them can hold a
 * rule, nothing can ignore it: `above` says whether a directory above `fd`
 * may hold a .gitignore, *here whether `fd` does (-1: not asked yet). */
static int ignored(struct scan *s, int fd, const char *path, int above, int *here)
{
	if (!above && !ignore_outside(s)) {
		if (*here < 0)
			*here = gitignore_in(fd);
		if (*here == 0) {
#ifdef SW_TESTING
			__atomic_add_fetch(&vcs__test_unignored, 1, __ATOMIC_RELAXED);
#endif
			return 0;
		}
	}
	return is_ignored(s, path);
}

/* The index entries are sorted bytewise by path (vcs__scan_status checks it), so
 * the entries below a directory form one contiguous range and membership
 * is a binary search: no set is built and no memory is touched for it.
 * Every entry of [lo, hi) starts with the same `pl` bytes, so the search
 * compares what follows them with `key` (0: the whole path). */
static size_t ent_lower_bound(const struct scan *s, size_t lo, size_t hi, size_t pl,
			      const char *key)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->ent[mid]->path + pl, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Narrows [*lo, *hi) to the entries below directory `rel` (rl bytes; the
 * buffer has room for two more).  The range is [rel "/", rel "0"): '0'
 * follows '/' in byte order. */
static void ent_dir_range(const struct scan *s, char *rel, size_t rl, size_t *lo, size_t *hi)
{
	rel[rl] = '/';
	rel[rl + 1] = '\0';
	*lo = ent_lower_bound(s, *lo, *hi, 0, rel);
	rel[rl] = '0';
	*hi = ent_lower_bound(s, *lo, *hi, 0, rel);
	rel[rl] = '\0';
}

/* The names tracked directly in the directory a worker lists, hashed:
 * the listing's "is this name tracked" is one probe and, on a hit, one
 * compare, where a binary search over the directory's entries took ~7
 * (each following two pointers into an entry array of megabytes).  Built
 * from the directory's index range, stepping over its subdirectories;
 * kept by the worker and reused directory after directory. */
struct names {
	size_t *found;		/* the direct entries of the directory */
	uint32_t *fhash;	/* and their names' hashes */
	size_t nfound, capfound;
	size_t *slot;		/* the table: entry + 1, 0 empty */
	uint32_t *shash;	/* the slot's name hash */
	size_t cap, mask;
};

static void names_free(struct names *t)
{
	sw_free(t->found);
	sw_free(t->fhash);
	sw_free(t->slot);
	sw_free(t->shash);
	memset(t, 0, sizeof(*t));
}

#ifdef SW_TESTING
unsigned vcs__test_unordered;
unsigned vcs__test_name_searches;
uint32_t vcs__test_name_hash_mask = UINT32_MAX;
#endif

/* str_hash of the name at p, up to its NUL or a slash; *end gets where
 * it stopped. */
static uint32_t name_hash(const char *p, const char **end)
{
	uint32_t h;

	*end = p + strcspn(p, "/");
	h = (uint32_t)str_hash(p, (size_t)(*end - p));
#ifdef SW_TESTING
	h &= vcs__test_name_hash_mask;
#endif
	return h;
}

/* The end of the entries of [i, hi) below subdirectory `name` (cl bytes,
 * after the range's common `pl` bytes), entry i being the first: they
 * share the prefix "name/", so they lie together. */
static size_t ent_subdir_end(const struct scan *s, size_t i, size_t hi, size_t pl,
			     const char *name, size_t cl)
{
	size_t lo = i + 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *p = s->ent[mid]->path + pl;

		if (strncmp(p, name, cl) == 0 && p[cl] == '/')
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Gives an array of entries and its array of hashes room for n each;
 * false, leaving each as it was or grown, when one cannot be had. */
static bool names_grow(size_t **idx, uint32_t **hash, size_t n)
{
	size_t *ni = sw_realloc(*idx, n * sizeof(*ni));
	uint32_t *nh;

	if (ni == NULL)
		return false;
	*idx = ni;
	if ((nh = sw_realloc(*hash, n * sizeof(*nh))) == NULL)
		return false;
	*hash = nh;
	return true;
}

/* Fills `t` with the entries of [lo, hi) that lie directly in the
 * directory (each entry's path starts with the directory's `pl` bytes);
 * false on allocation failure, when the caller searches instead. */
static bool names_build(struct names *t, const struct scan *s, size_t lo, size_t hi, size_t pl)
{
	size_t cap = 16;

	t->nfound = 0;
	for (size_t i = lo; i < hi;) {
		const char *name = s->ent[i]->path + pl, *end;
		uint32_t h = name_hash(name, &end);
		size_t cl = (size_t)(end - name);

		if (*end == '/') {	/* a subdirectory: stepped over */
			i = ent_subdir_end(s, i, hi, pl, name, cl);
			continue;
		}
		if (t->nfound == t->capfound) {
			size_t nc = t->capfound ? 2 * t->capfound : 64;

			if (!names_grow(&t->found, &t->fhash, nc))
				return false;
			t->capfound = nc;
		}
		t->found[t->nfound] = i;
		t->fhash[t->nfound++] = h;
		i++;
	}
	while (cap < 2 * t->nfound)
		cap <<= 1;
	if (cap > t->cap) {
		if (!names_grow(&t->slot, &t->shash, cap))
			return false;
		t->cap = cap;
	}
	t->mask = cap - 1;
	memset(t->slot, 0, cap * sizeof(*t->slot));
	for (size_t k = 0; k < t->nfound; k++) {
		size_t j = t->fhash[k] & t->mask;

		while (t->slot[j] != 0)
			j = (j + 1) & t->mask;
		t->slot[j] = t->found[k] + 1;
		t->shash[j] = t->fhash[k];
	}
	return true;
}

/* Whether `name` is tracked directly in the directory `t` was built for
 * (whose entries' paths start with `pl` bytes). */
static int names_has(const struct names *t, const struct scan *s, size_t pl, const char *name)
{
	const char *end;
	uint32_t h = name_hash(name, &end);

	for (size_t j = h & t->mask; t->slot[j] != 0; j = (j + 1) & t->mask)
		if (t->shash[j] == h && strcmp(s->ent[t->slot[j] - 1]->path + pl, name) == 0)
			return 1;
	return 0;
}

/* Whether `name` is tracked directly in the directory whose entries are
 * [lo, hi), each starting with its `pl`-byte path and a slash: the search
 * compares only what follows them.  For a directory names_build could
 * not hash. */
static int ent_tracked(const struct scan *s, size_t lo, size_t hi, size_t pl, const char *name)
{
	size_t i = ent_lower_bound(s, lo, hi, pl, name);

#ifdef SW_TESTING
	__atomic_add_fetch(&vcs__test_name_searches, 1, __ATOMIC_RELAXED);
#endif
	return i < hi && strcmp(s->ent[i]->path + pl, name) == 0;
}

/* Lists directory `fd` (path `rel`, rl bytes, in a PATH_MAX buffer;
 * entries below it in [lo, hi)) for untracked files, as git status
 * --untracked-files=all lists them.  Tracked subdirectories are left to
 * their own visit; an untracked one is listed here, recursively.  Reads
 * the directory with the seam's reader (getdents64 on Linux: a DIR stream
 * costs an fstat and two fcntl per directory).  `above` says whether a
 * directory above it may hold a .gitignore; *has is set to whether this
 * one may.  `t` is the worker's table, built here for the names tracked
 * in this directory when it lists a file. */
static int scan_list(struct scan *s, struct names *t, int fd, char *rel, size_t rl, size_t lo,
		     size_t hi, int above, int *here)
{
	struct sw_os_dir *dir;
	struct sw_os_dirent de;
	int rc = 0, hashed = 0;	/* t built for this directory: 1, failed: -1 */

	if (sw_os_dir_open(&dir, fd) < 0)
		return SW_ENOMEM;
	while (rc == 0 && sw_os_dir_next(dir, &de) > 0) {
		{	/* one entry (a block of its own: the body kept as it was) */
			const char *name = de.name;
			size_t nl = strlen(name), fl = rl ? rl + 1 + nl : nl;
			enum sw_os_ftype type = de.type;

			/* Most names start with no dot: one byte decides. */
			if (name[0] == '.') {
				if (strcmp(name, ".gitattributes") == 0)
					__atomic_store_n(&s->attr_seen, 1, __ATOMIC_RELAXED);
				else if (strcmp(name, ".gitignore") == 0)
					*here = 1;
				else if (strcmp(name, ".git") == 0)
					continue;
			}
			if (fl + 2 >= PATH_MAX)
				continue;
			if (rl) {
				rel[rl] = '/';
				memcpy(rel + rl + 1, name, nl + 1);
			} else {
				memcpy(rel, name, nl + 1);
			}
			if (type == SW_OS_FT_UNKNOWN) {
				struct stat st;

				if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
					continue;
				type = S_ISDIR(st.st_mode) ? SW_OS_FT_DIR : S_ISREG(st.st_mode) ? SW_OS_FT_REG :
				       S_ISLNK(st.st_mode) ? SW_OS_FT_LNK : SW_OS_FT_OTHER;
			}
			if (type == SW_OS_FT_DIR) {
				size_t clo = lo, chi = hi;
				int sub, sub_here = -1;

				ent_dir_range(s, rel, fl, &clo, &chi);
				if (clo < chi || ignored(s, fd, rel, above, here))
					continue;	/* tracked: visited on its own */
				sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub < 0)
					continue;
				if (faccessat(sub, ".git", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
					/* a nested repository: listed as a directory */
					close(sub);
					rel[fl] = '/';
					rel[fl + 1] = '\0';
					rc = scan_push_untracked(s, rel);
					continue;
				}
				/* here is known unless above or outside
				 * rules already send every lookup to libgit2 */
				rc = scan_list(s, t, sub, rel, fl, clo, chi, above || *here != 0, &sub_here);
				close(sub);
			} else if (type == SW_OS_FT_REG || type == SW_OS_FT_LNK) {
				size_t pl = rl ? rl + 1 : 0;
				int tracked = 0;

				/* An untracked directory (listed recursively)
				 * has no entries and needs no table. */
				if (lo < hi && hashed == 0)
					hashed = names_build(t, s, lo, hi, pl) ? 1 : -1;
				if (lo < hi)
					tracked = hashed > 0 ? names_has(t, s, pl, name) :
						  ent_tracked(s, lo, hi, pl, name);
				if (!tracked && !ignored(s, fd, rel, above, here))
					rc = scan_push_untracked(s, rel);
			}
		}
	}
	sw_os_dir_free(dir);
	rel[rl] = '\0';
	return rc;
}

/* Queues the tracked subdirectories among t's entries, then lstats the
 * entries directly in t through `fd`.  `here` is whether t holds a
 * .gitignore (1, 0, or -1: asked here when a subdirectory needs it, as
 * the listing asks it). */
static int scan_entries(struct scan *s, const struct dtask *t, int fd, int *here)
{
	size_t pl = t->rl ? t->rl + 1 : 0;
	int rc = 0;

	for (size_t i = t->lo; rc == 0 && i < t->hi;) {
		const char *name = s->ent[i]->path + pl, *slash = strchr(name, '/');
		size_t cl, sl, j;
		char *sub;

		if (slash == NULL) {
			struct stat st;

			/* libgit2 reads attributes from the index too. */
			if (name[0] == '.' && strcmp(name, ".gitattributes") == 0)
				__atomic_store_n(&s->attr_seen, 1, __ATOMIC_RELAXED);
			if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				scan_classify(s, i, &st);
			i++;
			continue;
		}
		/* A subdirectory: entries [i, j) are below it. */
		if (*here < 0)
			*here = gitignore_in(fd);
		cl = (size_t)(slash - name);
		sl = pl + cl;
		if ((sub = sw_malloc(sl + 1)) == NULL)
			return SW_ENOMEM;
		memcpy(sub, s->ent[i]->path, sl);
		sub[sl] = '\0';
		j = ent_subdir_end(s, i, t->hi, pl, name, cl);
		if ((cl == 1 && name[0] == '.') || (cl == 2 && name[0] == '.' && name[1] == '.') ||
		    cl == 0)
			sw_free(sub);	/* not a path git writes: left 'D' */
		else
			rc = scan_push_dir(s, sub, sl, i, j, t->ign_above || *here != 0);
		i = j;
	}
	return rc;
}

/* Visits tracked directory `t`: lists it for untracked files, lstats the
 * index entries directly in it through its descriptor and queues its
 * tracked subdirectories.  When no other visit was queued and other
 * workers may be idle (`alone`: at the root, say), the subdirectories are
 * queued first, so that those workers take them while this one lists: a
 * root of 500 subdirectories took 2 ms to list at 50,000 files, the other
 * workers waiting.  Every directory is opened once, by its path below the
 * root without following symlinks; an entry left unvisited (its directory
 * gone, replaced or a symlink) stays 'D'.  `rel` is the worker's PATH_MAX
 * buffer, `names` its table of tracked names. */
static int scan_dir(struct scan *s, struct names *names, const struct dtask *t, char *rel,
		    int alone)
{
	int fd, rc = 0, first = 0;	/* the entries were visited first */
	int here = -1;	/* a .gitignore here: 1, none: 0, not asked yet: -1 */

	if (t->rl + 2 >= PATH_MAX)
		return 0;
	if ((fd = sw_os_open_beneath(s->rootfd, t->rel, SW_OS_BENEATH_LIST |
				     VCS_BENEATH_HOW(s->openat2))) < 0) {
		if (errno != EACCES ||
		    (fd = sw_os_open_beneath(s->rootfd, t->rel, SW_OS_BENEATH_ANCHOR |
					     VCS_BENEATH_HOW(s->openat2))) < 0)
			return 0;	/* the lstats need only search permission */
		/* Not listed: it may hold a .gitattributes nobody saw, and
		 * a .gitignore. */
		__atomic_store_n(&s->attr_seen, 1, __ATOMIC_RELAXED);
		here = 1;
	} else {
		if ((first = alone))
			rc = scan_entries(s, t, fd, &here);
		memcpy(rel, t->rel, t->rl + 1);
		if (rc == 0)
			rc = scan_list(s, names, fd, rel, t->rl, t->lo, t->hi, t->ign_above, &here);
		/* The whole listing was read: a .gitignore it did not show
		 * is none. */
		if (rc == 0 && here < 0)
			here = 0;
	}
	if (rc == 0 && !first)
		rc = scan_entries(s, t, fd, &here);
	close(fd);
	return rc;
}

/* The head-to-index side, as status computes it (task 0).  libgit2's
 * error text is per thread, so it is copied for the caller. */
static void scan_diff(struct scan *s)
{
	git_diff_options dopt = GIT_DIFF_OPTIONS_INIT;
	git_index *own = NULL, *index = s->index;
	git_tree *tree = NULL;
	git_diff *diff = NULL;
	const char *what = NULL;

	if (!s->need_diff)	/* the cache tree proved the index equals HEAD */
		return;
	pthread_mutex_lock(&s->gitmu);
	if ((s->diff_rc = vcs__cache_tree_diff(s)) <= 0) {
		if (s->diff_rc < 0)
			snprintf(s->diff_err, sizeof(s->diff_err), "cannot record the head-to-index diff");
		pthread_mutex_unlock(&s->gitmu);
		return;
	}
	s->diff_rc = 0;
	dopt.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
	/* libgit2's own index is loaded here, beside the scan, only when
	 * the diff is needed; a repository handle kept from an earlier
	 * observation reads it again. */
	if (index == NULL) {
		if (git_repository_index(&own, s->repo) < 0 ||
		    (s->reload_index && git_index_read(own, 1) < 0))
			what = "cannot read index";
		index = own;
	}
	if (what != NULL)
		goto out;
	if (s->tree_id != NULL && git_tree_lookup(&tree, s->repo, s->tree_id) < 0)
		what = "cannot read the HEAD tree";
	else if (git_diff_tree_to_index(&diff, s->repo, tree, index, &dopt) < 0)
		what = "cannot diff HEAD to index";
	if (what == NULL && s->renames) {
		git_diff_find_options fo = GIT_DIFF_FIND_OPTIONS_INIT;

		fo.flags = GIT_DIFF_FIND_FOR_UNTRACKED | GIT_DIFF_FIND_RENAMES;
		if (git_diff_find_similar(diff, &fo) < 0)
			what = "cannot detect renames";
	}
	if (what == NULL && hdiff_from(&s->diff, diff) < 0) {
		snprintf(s->diff_err, sizeof(s->diff_err), "cannot copy the head-to-index diff");
		s->diff_rc = SW_ENOMEM;
	}
out:
	if (what != NULL) {
		const git_error *e = git_error_last();

		snprintf(s->diff_err, sizeof(s->diff_err), "%s: %s", what,
			 e && e->message ? e->message : "libgit2 error");
		s->diff_rc = SW_EGIT;
	}
	git_diff_free(diff);
	git_tree_free(tree);
	git_index_free(own);
	pthread_mutex_unlock(&s->gitmu);
}

/* A worker: the head-to-index diff first when nobody has taken it, then
 * directory visits until none is queued and none is under way (a visit
 * queues the tracked subdirectories it finds). */
static void *scan_worker(void *arg)
{
	struct scan *s = arg;
	struct names names = { 0 };
	char *rel = sw_malloc(PATH_MAX);

	pthread_mutex_lock(&s->mu);
	if (rel == NULL)
		s->walk_rc = SW_ENOMEM;
	for (;;) {
		struct dtask t;
		int rc, alone;

		if (!s->diff_taken) {
			s->diff_taken = 1;
			pthread_mutex_unlock(&s->mu);
			scan_diff(s);
			pthread_mutex_lock(&s->mu);
			continue;
		}
		if (s->ntasks == 0 || rel == NULL) {
			if (s->busy == 0 || rel == NULL)
				break;
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		t = s->tasks[--s->ntasks];
		alone = s->parallel && s->ntasks == 0;
		s->busy++;
		pthread_mutex_unlock(&s->mu);
		rc = scan_dir(s, &names, &t, rel, alone);
		sw_free(t.rel);
		pthread_mutex_lock(&s->mu);
		if (rc < 0)
			s->walk_rc = rc;
		if (--s->busy == 0 && s->ntasks == 0)
			pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	names_free(&names);
	sw_free(rel);
	return NULL;
}

/* Whether the paths are in bytewise order, as git writes them. */
static int paths_ordered(const git_index_entry *const *ents, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(ents[i - 1]->path, ents[i]->path) > 0)
			return 0;
	return 1;
}

/* 1 when the fast scan computes what git status would for this repository. */
int vcs__scan_eligible(git_config *cfg, const git_index_entry *const *ents, size_t count,
		       int plain)
{
	int v, ok = cfg != NULL && plain != 0;

	if (ok && ((git_config_get_bool(&v, cfg, "core.ignorecase") == 0 && v) ||
		   (git_config_get_bool(&v, cfg, "core.filemode") == 0 && !v) ||
		   (git_config_get_bool(&v, cfg, "core.symlinks") == 0 && !v)))
		ok = 0;
	for (size_t i = 0; ok && plain < 0 && i < count; i++)
		ok = vcs__entry_plain(ents[i]);
	return ok;
}

static char delta_letter(git_delta_t st)
{
	switch (st) {
	case GIT_DELTA_ADDED: return 'A';
	case GIT_DELTA_DELETED: return 'D';
	case GIT_DELTA_MODIFIED: return 'M';
	case GIT_DELTA_RENAMED: return 'R';
	case GIT_DELTA_TYPECHANGE: return 'T';
	case GIT_DELTA_COPIED: return 'C';
	case GIT_DELTA_UNMODIFIED:
	case GIT_DELTA_IGNORED:
	case GIT_DELTA_UNTRACKED:
	case GIT_DELTA_UNREADABLE:
	case GIT_DELTA_CONFLICTED:
		break;
	}
	return '.';
}

#ifdef SW_TESTING
unsigned vcs__test_unfiltered;
#endif

/* 1 when `path` exists or may (it cannot be looked up). */
static int may_exist(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

/* 1 when a file `name` may exist in a directory of libgit2's search path
 * for configuration level `level`.  A path libgit2 would read otherwise
 * than split at each ':' (an escaped separator) or that cannot be read
 * counts as holding one. */
static int in_search_path(int level, const char *name)
{
	git_buf path = { 0 };
	char *save = NULL, *file;
	int found = 0;

	if (git_libgit2_opts(GIT_OPT_GET_SEARCH_PATH, level, &path) < 0 || path.ptr == NULL ||
	    strchr(path.ptr, '\\') != NULL) {
		git_buf_dispose(&path);
		git_error_clear();
		return 1;
	}
	for (char *dir = strtok_r(path.ptr, ":", &save); dir != NULL && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		if ((file = sw_asprintf("%s/%s", dir, name)) == NULL)
			found = 1;
		else
			found = may_exist(file);
		sw_free(file);
	}
	git_buf_dispose(&path);
	return found;
}

/* 1 when hashing a tracked file without filters gives the id libgit2's
 * filtered hashing gives, for every path of a worktree in which the walk
 * met no .gitattributes (s->attr_seen, set by any worker).
 *
 * libgit2 registers two filters, crlf and ident, and we register none.
 * ident acts only on paths with the `ident` attribute; crlf, for a path
 * with no `text`, `eol` or `crlf` attribute, only when core.autocrlf is
 * true or input (crlf.c convert_attrs: otherwise "binary", passed through).
 * A path's attributes come from the worktree's and the index's
 * .gitattributes (seen by the walk) and from the files attr.c attr_setup
 * reads for every path: `gitattributes` on the system search path,
 * core.attributesfile or, unset, `attributes` on the XDG search path, and
 * $GIT_COMMON_DIR/info/attributes.  So: autocrlf false or unset, and none
 * of those files there.  A setting or file that cannot be read counts as
 * a filter, and the file is hashed as before.  (A kept handle remembers
 * core.attributesfile from its first lookup; this reads the setting
 * afresh, as git does.)  Costs a few stats once per
 * observation, against ~40 system calls per file for libgit2's attribute
 * lookups (one per filter, each reading every candidate file again). */
static int no_filter_applies(git_repository *repo, git_config *cfg)
{
	git_buf path = { 0 };
	char *info = NULL;
	int v, rc, plain = 0;

	if (cfg == NULL)
		return 0;
	rc = git_config_get_bool(&v, cfg, "core.autocrlf");
	if (!(rc == GIT_ENOTFOUND || (rc == 0 && !v)))
		goto out;	/* true, input, or unreadable */
	if ((rc = git_config_get_path(&path, cfg, "core.attributesfile")) == 0) {
		if (may_exist(path.ptr))
			goto out;
	} else if (rc != GIT_ENOTFOUND || in_search_path(GIT_CONFIG_LEVEL_XDG, "attributes")) {
		goto out;
	}
	git_buf_dispose(&path);
	if (git_repository_item_path(&path, repo, GIT_REPOSITORY_ITEM_INFO) < 0 ||
	    (info = sw_asprintf("%sattributes", path.ptr)) == NULL || may_exist(info))
		goto out;
	plain = !in_search_path(GIT_CONFIG_LEVEL_SYSTEM, "gitattributes");
out:
	sw_free(info);
	git_buf_dispose(&path);
	git_error_clear();
	return plain;
}

/* Content check of entry i: hashes the worktree file as git would, with
 * no filter when `plain` (no_filter_applies; "" is libgit2's "no filters"). */
static char scan_check(struct scan *s, size_t i, int plain)
{
	const git_index_entry *e = s->ent[i];
	git_oid oid;

	if ((e->mode & 0170000) == 0120000) {
		char target[PATH_MAX + 1];
		ssize_t n = readlinkat(s->rootfd, e->path, target, PATH_MAX);

		if (n < 0 || git_odb_hash(&oid, target, (size_t)n, GIT_OBJECT_BLOB) < 0)
			return 'D';
	} else if (git_repository_hashfile(&oid, s->repo, e->path, GIT_OBJECT_BLOB,
					   plain ? "" : NULL) < 0) {
		return 'D';
	}
#ifdef SW_TESTING
	else if (plain)
		__atomic_add_fetch(&vcs__test_unfiltered, 1, __ATOMIC_RELAXED);
#endif
	return git_oid_equal(&oid, &e->id) ? '.' : 'M';
}

/* Takes the paths ignore_outside reads, before the workers start (they
 * read the configuration and `repo`): 0 or SW_ENOMEM.  What cannot be
 * read leaves ign_file_rc at -1 (a rule may apply). */
static int ignore_paths(struct scan *s, git_config *cfg)
{
	git_buf path = { 0 };
	int rc = 0, got;

	s->ign_outside = -1;
	s->ign_file_rc = -1;
	if (cfg == NULL)
		return 0;
	got = git_config_get_path(&path, cfg, "core.excludesfile");
	if (got == 0 && path.ptr != NULL && path.ptr[0] != '\0') {
		if ((s->ign_file = sw_strdup(path.ptr)) == NULL)
			rc = SW_ENOMEM;
		s->ign_file_rc = 0;
	} else if (got == GIT_ENOTFOUND) {
		s->ign_file_rc = 1;
	}
	git_buf_dispose(&path);
	if (rc == 0 && git_repository_item_path(&path, s->repo, GIT_REPOSITORY_ITEM_INFO) == 0 &&
	    (s->ign_exclude = sw_asprintf("%sexclude", path.ptr)) == NULL)
		rc = SW_ENOMEM;
	git_buf_dispose(&path);
	git_error_clear();
	return rc;
}

/* Fills `c` from the fast scan.  Returns 1 when not eligible (caller falls
 * back to libgit2's status), 0 on success, or a negative code. */
int vcs__scan_status(struct collect *c, const struct scan_in *in, struct sw_error *err)
{
	struct scan s = { 0 };
	const struct hdiff *hd = in->known;
	struct dent *de = NULL;
	size_t nde = 0;
	const git_index_entry **ents = in->ents;
	int threads = in->threads, need_diff = in->known == NULL;
	pthread_t tid[8];
	int nt = 0, rc = 0, plain = -1;

	s.repo = in->repo;
	s.rootfd = in->rootfd;
	s.index = in->index;
	s.need_diff = need_diff;
	s.renames = in->renames;
	s.unborn = in->unborn;
	s.n = in->count;
	s.ent = ents;
	s.index_mtime = in->index_mtime;
	s.openat2 = in->openat2;
	s.reload_index = in->reload_index;
	s.tree_id = in->tree_id;
	s.tree_ext = in->tree_ext;
	s.tree_len = in->tree_len;
	/* The walk's binary searches need bytewise path order, which git
	 * writes; anything else is left to libgit2.  An index we parsed
	 * ourselves was checked as it was read. */
	if (in->ordered == 0 || (in->ordered < 0 && !paths_ordered(ents, s.n))) {
#ifdef SW_TESTING
		__atomic_add_fetch(&vcs__test_unordered, 1, __ATOMIC_RELAXED);
#endif
		rc = 1;
		goto out;
	}
	/* An entry no visit reaches (its directory is gone, replaced or a
	 * symlink) is deleted. */
	if (s.n && ((s.y = sw_malloc(s.n)) == NULL ||
		    (s.mwt = sw_calloc(s.n, sizeof(*s.mwt))) == NULL)) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate scan");
		goto out;
	}
	if (s.n)
		memset(s.y, 'D', s.n);
	/* Threads: one takes the HEAD-to-index diff, the others (and it,
	 * once done) visit the directories.  Without a diff, two per CPU: a
	 * stat waits as often as it computes (on a cold inode, or a
	 * hypervisor), as git's own preload of the index assumes too;
	 * measured at 50,000 files on 2 CPUs: 96 ms with 2 threads, 91 with
	 * 4.  A diff is one long computation that more threads would only
	 * slow down (115 ms with 2, 110 to 155 with 4, staged at 50,000). */
	/* Below 1,024 tracked files the whole scan takes less than starting
	 * and joining a thread (stack mapping, wake-ups; a process on a busy
	 * machine waits for a CPU at each), so it stays on the caller's
	 * thread. */
	if (threads <= 0 && s.n < 1024) {
		threads = 1;
	} else if (threads <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		int per = need_diff ? 1 : 2;

		threads = cpus < 1 ? 1 : cpus > 8 / per ? 8 : per * (int)cpus;
	}
	if (threads > 8)
		threads = 8;
	s.diff_taken = !need_diff;
	s.parallel = threads > 1;
	/* The first task: the root. */
	if ((s.tasks = sw_malloc(64 * sizeof(*s.tasks))) == NULL ||
	    (s.tasks[0].rel = sw_strdup("")) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot scan worktree");
		goto out;
	}
	s.tasks[0].rl = s.tasks[0].lo = 0;
	s.tasks[0].hi = s.n;
	s.tasks[0].ign_above = 0;
	s.ntasks = 1;
	s.captasks = 64;
	if ((rc = ignore_paths(&s, in->cfg)) < 0) {
		rc = sw_error_set(err, rc, "cannot scan worktree");
		goto out;
	}
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	pthread_mutex_init(&s.gitmu, NULL);
	pthread_mutex_init(&s.ignmu, NULL);
	s.ign_shared = !(s.need_diff && threads > 1);
	if (!s.ign_shared) {
		s.wd = git_repository_workdir(s.repo) ? sw_strdup(git_repository_workdir(s.repo)) : NULL;
		s.gd = sw_strdup(git_repository_path(s.repo));
	}
	for (nt = 0; nt < threads - 1; nt++)
		if (sw_os_thread_start(&tid[nt], scan_worker, &s, (unsigned)nt) != 0)
			break;
	scan_worker(&s);
	for (int i = 0; i < nt; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&s.mu);
	pthread_cond_destroy(&s.cv);
	pthread_mutex_destroy(&s.gitmu);
	pthread_mutex_destroy(&s.ignmu);
	git_repository_free(s.irepo);
	sw_free(s.wd);
	sw_free(s.gd);
	sw_free(s.ign_exclude);
	sw_free(s.ign_file);
	s.ign_exclude = s.ign_file = NULL;
	if (s.diff_rc < 0) {
		rc = sw_error_set(err, s.diff_rc, "%s", s.diff_err);
		goto out;
	}
	if (need_diff)
		hd = &s.diff;
	if ((rc = s.walk_rc) < 0) {
		rc = sw_error_set(err, rc, "cannot scan worktree");
		goto out;
	}
	/* Whether filters can apply is asked once, and only when an entry
	 * needs its content hashed (-1: not asked yet). */
	for (size_t i = 0; i < s.n; i++) {
		if (s.y[i] != 'c')
			continue;
		if (plain < 0)
			plain = !s.attr_seen && no_filter_applies(s.repo, in->cfg);
		s.y[i] = scan_check(&s, i, plain);
	}

	{
		size_t nd = hd ? hd->n : 0;

		if (nd && (de = sw_malloc(nd * sizeof(*de))) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot allocate deltas");
			goto out;
		}
		for (size_t i = 0; i < nd; i++) {
			const struct hdelta *d = &hd->d[i];
			struct tent t = { 0 };

			if (d->status == GIT_DELTA_DELETED) {
				t.path = d->old_path;
				t.x = 'D';
				t.y = '.';
				t.m_head = d->old_mode;
				t.h_head = &d->old_id;
				if ((rc = vcs__add_tracked(c, &t)) < 0)
					goto out;
				continue;
			}
			/* The entry of its new path, found in the sorted
			 * index: the walk below meets the deltas in entry
			 * order instead of looking each of the n entries up. */
			{
				size_t j = ent_lower_bound(&s, 0, s.n, 0, d->new_path);

				if (j < s.n && strcmp(s.ent[j]->path, d->new_path) == 0)
					de[nde++] = (struct dent){ j, i, d };
			}
		}
		if (nde > 1)
			qsort(de, nde, sizeof(*de), dent_cmp);
		for (size_t i = 0, at = 0; i < s.n; i++) {
			const git_index_entry *e = s.ent[i];
			const struct hdelta *d = NULL;
			struct tent t = { 0 };

			/* The first delta of this path, as it came. */
			while (at < nde && de[at].i < i)
				at++;
			if (at < nde && de[at].i == i)
				d = de[at].d;
			if (d == NULL && s.y[i] == '.')
				continue;
			t.path = e->path;
			t.x = d ? delta_letter(d->status) : '.';
			t.y = s.y[i];
			t.m_index = e->mode;
			t.h_index = &e->id;
			t.m_head = d ? d->old_mode : e->mode;
			t.h_head = d ? (git_oid_is_zero(&d->old_id) ? NULL : &d->old_id) : &e->id;
			t.m_wt = t.y == '.' ? e->mode : t.y == 'D' ? 0 : s.mwt[i];
			if (d && d->status == GIT_DELTA_RENAMED) {
				t.orig = d->old_path;
				t.similarity = d->similarity;
			}
			if ((rc = vcs__add_tracked(c, &t)) < 0)
				goto out;
		}
	}
	for (size_t i = 0; i < s.nunt; i++)
		if ((rc = vcs__add_untracked(c, s.untracked[i])) < 0)
			goto out;
	if (need_diff && in->keep != NULL) {
		*in->keep = s.diff;
		memset(&s.diff, 0, sizeof(s.diff));
	}
	rc = 0;
out:
	sw_free(s.ign_exclude);	/* left by a failure before the walk */
	sw_free(s.ign_file);
	if (rc == SW_ENOMEM)	/* add_* report allocation failure bare */
		sw_error_set(err, SW_ENOMEM, "cannot record status");
	for (size_t i = 0; i < s.nunt; i++)
		sw_free(s.untracked[i]);
	sw_free(s.untracked);
	for (size_t i = 0; i < s.ntasks; i++)	/* left by a failure */
		sw_free(s.tasks[i].rel);
	sw_free(s.tasks);
	sw_free(de);
	vcs__hdiff_release(&s.diff);
	sw_free(s.y);
	sw_free(s.mwt);
	return rc;
}
