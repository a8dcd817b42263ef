/* One dirty path observed: opened below the worktree root without
 * following a symlink (sw_os_open_beneath: openat2 with RESOLVE_NO_SYMLINKS
 * on Linux, else component by component), then hashed whole or sampled within the
 * byte budget and the deadline (struct budget and its clock, also here).
 * Never writes, never calls libgit2. */

#include "io/git/observe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/util/buf.h"
#include "io/util/json.h"
#include "io/util/os.h"

/* ---- budget and clock -------------------------------------------------- */

int64_t vcs__mono_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int deadline_reached(struct budget *b)
{
	if (b->clock(b->clock_ctx) >= b->deadline) {
		b->complete = 0;
		b->deadline_exceeded = 1;
		return 1;
	}
	return 0;
}

static int reserve(struct budget *b, int64_t bytes)
{
	if (deadline_reached(b))
		return 0;
	if (bytes > b->remaining) {
		b->complete = 0;
		b->byte_limit_exceeded = 1;
		return 0;
	}
	b->remaining -= bytes;
	return 1;
}

/* ---- one path ---------------------------------------------------------- */

static void set_obs(struct vcs_path_obs *p, const char *obs)
{
	snprintf(p->observation, sizeof(p->observation), "%s", obs);
}

void vcs__parent_dir_release(struct parent_dir *pd)
{
	if (pd->fd >= 0)
		close(pd->fd);
	sw_free(pd->rel);
	pd->rel = NULL;
	pd->fd = -1;
}

/* The directory holding `rel` below `rootfd`, opened without following any
 * symlink; *base points into `work` (a writable copy of rel).  The root is
 * `rootfd` itself; any other directory is the one kept in `pd` when it is
 * the same, else it is opened and kept there instead.  Either way the
 * directory was reached from the root by a walk made during this
 * observation, as when each path opened its own: neither checks after the
 * read that the directory still has its name.  Returns the fd (owned by
 * the caller's `rootfd` or `pd`) or -1 with errno set. */
static int open_parent(struct parent_dir *pd, int rootfd, char *work, const char **base,
		       int try2)
{
	char *slash = strrchr(work, '/');
	int fd;

	if (slash == NULL) {
		*base = work;
		return rootfd;
	}
	*slash = '\0';
	*base = slash + 1;
	if (pd->fd >= 0 && strcmp(pd->rel, work) == 0)
		return pd->fd;
	vcs__parent_dir_release(pd);
	if ((fd = sw_os_open_beneath(rootfd, work, SW_OS_BENEATH_ANCHOR | VCS_BENEATH_HOW(try2))) < 0)
		return -1;
	if ((pd->rel = sw_strdup(work)) == NULL) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	pd->fd = fd;
	return fd;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int same_meta(const struct stat *a, const struct stat *b)
{
	return S_ISREG(a->st_mode) && S_ISREG(b->st_mode) && same_file(a, b) &&
	       a->st_size == b->st_size &&
	       sw_os_st_mtim(a).tv_sec == sw_os_st_mtim(b).tv_sec &&
	       sw_os_st_mtim(a).tv_nsec == sw_os_st_mtim(b).tv_nsec;
}

/* Sample offsets of an oversize file (adjacent duplicates dropped). */
static size_t sample_offsets(int64_t size, int64_t off[3])
{
	int64_t half = VCS_OBSERVE_SAMPLE_BYTES / 2, c[3];
	size_t n = 0;

	c[0] = 0;
	c[1] = size / 2 - half > 0 ? size / 2 - half : 0;
	c[2] = size - VCS_OBSERVE_SAMPLE_BYTES > 0 ? size - VCS_OBSERVE_SAMPLE_BYTES : 0;
	for (size_t i = 0; i < 3; i++)
		if (n == 0 || off[n - 1] != c[i])
			off[n++] = c[i];
	return n;
}

static int64_t sample_len(int64_t size, int64_t off)
{
	return size - off < VCS_OBSERVE_SAMPLE_BYTES ? size - off : VCS_OBSERVE_SAMPLE_BYTES;
}

/* Hashes `size` bytes from fd; 0, or -1 on a read error, short file or
 * deadline. */
static int hash_full(int fd, int64_t size, struct budget *b, unsigned char *buf,
		     char out[SW_DIGEST_LEN])
{
	struct sw_sha256 *h = NULL;
	int rc = -1;
	struct sw_error e = SW_ERROR_INIT;
	int64_t total = 0;

	if (sw_sha256_new(&h, &e) < 0)
		return -1;
	while (total < size) {
		size_t want = VCS_OBSERVE_SAMPLE_BYTES;
		ssize_t got;

		if (deadline_reached(b))
			goto out;
		if ((int64_t)want > size - total)
			want = (size_t)(size - total);
		got = read(fd, buf, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			goto out;
		b->hashed += got;
		sw_sha256_update(h, buf, (size_t)got);
		total += got;
	}
	sw_sha256_final_prefixed(h, out);
	h = NULL;
	rc = 0;
out:
	sw_sha256_free(h);
	return rc;
}

static int hash_samples(int fd, int64_t size, struct budget *b,
			unsigned char *buf, char out[SW_DIGEST_LEN])
{
	struct sw_sha256 *h = NULL;
	int rc = -1;
	struct sw_error e = SW_ERROR_INIT;
	int64_t off[3];
	size_t n = sample_offsets(size, off);
	char dec[32];

	if (sw_sha256_new(&h, &e) < 0)
		return -1;
	sw_sha256_section_str(h, "mode", "oversize_samples_v1");
	snprintf(dec, sizeof(dec), "%" PRId64, size);
	sw_sha256_section_str(h, "size", dec);
	for (size_t i = 0; i < n; i++) {
		int64_t len = sample_len(size, off[i]), got;

		if (deadline_reached(b))
			goto out;
		got = (int64_t)sw_pread_full(fd, buf, (size_t)len, (unsigned long long)off[i]);
		b->hashed += got;
		if (got != len)
			goto out;
		snprintf(dec, sizeof(dec), "%" PRId64, off[i]);
		sw_sha256_section_str(h, "offset", dec);
		sw_sha256_section(h, "sample", buf, (size_t)len);
	}
	sw_sha256_final_prefixed(h, out);
	h = NULL;
	rc = 0;
out:
	sw_sha256_free(h);
	return rc;
}

/* Fills the observation fields of `p` (path/category/state already set). */
void vcs__observe_path(struct vcs_path_obs *p, int rootfd, struct parent_dir *pd,
		       struct budget *b, int64_t full_max, unsigned char *buf, int try2)
{
	struct stat st, opened, current;
	char *work = sw_strdup(p->path);
	const char *base = NULL;
	int dirfd = -1, fd = -1, ok;
	size_t wl;

	if (work == NULL) {
		b->complete = 0;
		set_obs(p, "unreadable");
		return;
	}
	wl = strlen(work);
	while (wl > 1 && work[wl - 1] == '/')	/* "dir/" of a nested repository */
		work[--wl] = '\0';
	if ((dirfd = open_parent(pd, rootfd, work, &base, try2)) < 0 ||
	    fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		b->complete = 0;
		set_obs(p, errno == ENOENT ? "missing" : "unreadable");
		goto out;
	}
	p->has_size = 1;
	p->size = st.st_size;
	if (S_ISLNK(st.st_mode)) {
		char *target = sw_malloc((size_t)st.st_size + 2);
		ssize_t n = target ? readlinkat(dirfd, base, target, (size_t)st.st_size + 1) : -1;

		if (n < 0 || n > st.st_size) {
			sw_free(target);
			b->complete = 0;
			set_obs(p, "unreadable");
			goto out;
		}
		set_obs(p, "symlink");
		p->size = n;
		sw_sha256_prefixed(target, (size_t)n, p->content_sha256);
		snprintf(p->content_kind, sizeof(p->content_kind), "symlink_target_sha256");
		sw_free(target);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		set_obs(p, "non_regular");
		goto out;
	}
	fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode) ||
	    !same_file(&st, &opened)) {
		b->complete = 0;
		set_obs(p, "unreadable");
		goto out;
	}
	{
		int over = opened.st_size > full_max;
		int64_t planned = opened.st_size;

		if (over) {
			int64_t off[3];
			size_t n = sample_offsets(opened.st_size, off);

			planned = 0;
			for (size_t i = 0; i < n; i++)
				planned += sample_len(opened.st_size, off[i]);
		}
		if (!reserve(b, planned)) {
			set_obs(p, "content_unobserved");
			ok = 0;
		} else if (over) {
			set_obs(p, "oversize_sampled");
			ok = hash_samples(fd, opened.st_size, b, buf, p->content_sha256);
			snprintf(p->content_kind, sizeof(p->content_kind), "oversize_samples_v1");
		} else {
			set_obs(p, "regular");
			ok = hash_full(fd, opened.st_size, b, buf, p->content_sha256);
			snprintf(p->content_kind, sizeof(p->content_kind), "full_sha256");
		}
	}
	/* The name's status after the read: while `fd` is open its inode
	 * cannot be freed, so the same device and inode (same_meta) mean the
	 * very file read, and this is that file's status after the read, as
	 * an fstat of `fd` would give it.  Unchanged from `opened` in type,
	 * size and mtime: the bytes hashed are the file's. */
	if (ok != 0 || fstatat(dirfd, base, &current, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !same_meta(&opened, &current)) {
		b->complete = 0;
		set_obs(p, "unreadable");
		p->content_sha256[0] = '\0';
		p->content_kind[0] = '\0';
		goto out;
	}
	p->size = current.st_size;
	p->has_mtime = 1;
	p->modified_unix_nano = (int64_t)sw_os_st_mtim(&current).tv_sec * 1000000000LL +
				sw_os_st_mtim(&current).tv_nsec;
out:
	if (fd >= 0)
		close(fd);
	sw_free(work);
}

/* The path as the observation records it, once its file has been
 * observed by its bytes: a name that is not UTF-8 keeps its bytes in the
 * status records (status_fingerprint), and is recorded with each byte that
 * starts no valid sequence replaced by U+FFFD, which is what a decoder reads
 * back from the JSON (spec: "Names that are not UTF-8").  0 or SW_ENOMEM. */
int vcs__record_path(struct vcs_path_obs *p)
{
	size_t n = strlen(p->path);
	char *lossy;

	if (sw_utf8_valid(p->path, n))
		return 0;
	if ((lossy = sw_utf8_lossy(p->path, n, NULL)) == NULL)
		return SW_ENOMEM;
	sw_free(p->path);
	p->path = lossy;
	return 0;
}
