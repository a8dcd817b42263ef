/* The replay checkpoint: run.checkpoint and its log, found and verified
 * (boot id, digests, the identities of run.json and the journal) or written
 * best effort after a commit, without fsync; with the leaf reader, the
 * temp-and-rename writer, the identity text and the prefix hash that the
 * listing summary borrows.  Never writes the journal or run.json. */

#include "io/store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHECKPOINT_MAGIC "slipway-checkpoint/5"
#define CHECKPOINT_MAX (256u << 20)

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
char *store__read_leaf(size_t *len, struct stat *st, struct run_dir *r, const char *name,
		       size_t want, size_t max)
{
	struct sw_error e = SW_ERROR_INIT;
	char *buf = NULL;
	size_t n;
	int fd = -1;

	if (store__open_leaf(&fd, r->fd, name, O_RDONLY, &e) < 0)
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
	(unsigned long long)(st).st_ino, (long long)sw_os_st_mtim(&(st)).tv_sec, \
	(long)sw_os_st_mtim(&(st)).tv_nsec, (long long)sw_os_st_ctim(&(st)).tv_sec, \
	(long)sw_os_st_ctim(&(st)).tv_nsec

void store__identity_text(char out[160], const struct stat *st)
{
	snprintf(out, 160, IDENTITY_FMT, IDENTITY_ARGS(*st));
}

/* The boot id (sw_os_boot_id) as 32 hex digits, "" when there is none.  A
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

const char *store__boot_id(void)
{
	static char id[SW_XXH_HEX_LEN];
	char raw[64];
	size_t n = 0;

#ifdef SW_TESTING
	if (test_boot_id != NULL)
		return test_boot_id;
#endif
	if (id[0] != '\0')
		return id;
	sw_os_boot_id(raw, sizeof(raw));
	for (size_t i = 0; raw[i] != '\0' && n < 32; i++)
		if ((raw[i] >= '0' && raw[i] <= '9') || (raw[i] >= 'a' && raw[i] <= 'f'))
			id[n++] = raw[i];
	if (n != 32)
		n = 0;
	id[n] = '\0';
	return id;
}

/* Feeds the first `len` bytes of `fd` to `h` through a small buffer;
 * false when they cannot all be read. */
bool store__hash_prefix(struct sw_lchain *h, int fd, off_t len)
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
int store__checkpoint_load(struct store_checkpoint *cp, char **file, struct sw_lchain **jhash,
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
	if ((*file = store__read_leaf(&flen, &cst, r, CHECKPOINT_NAME, SIZE_MAX, CHECKPOINT_MAX)) == NULL)
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
	    strcmp(boot, store__boot_id()) != 0)
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
		if ((cp->log = store__read_leaf(&cp->log_len, lst, r, CHECKPOINT_LOG_NAME, llen,
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

		if (store__open_leaf(&cp->projection_fd, r->fd, PROJECTION_NAME, O_RDONLY, &e) < 0 ||
		    fstat(cp->projection_fd, pst) < 0)
			goto out;
	}
	store__identity_text(have_id, pst);
	if (strcmp(have_id, want_id) != 0)
		goto out;
	cp->projection_len = (size_t)pst->st_size;
	/* The journal: untouched since the mutation that wrote the checkpoint
	 * appended to it (the very file, with the size and times its append
	 * left), or else its first jbytes bytes, read through a small buffer,
	 * still chaining to jhex. */
	{
		struct sw_error e = SW_ERROR_INIT;

		if (store__open_journal(&jfd, r->fd, O_RDONLY, &e) < 0 ||
		    fstat(jfd, &jst) < 0 || jst.st_size < jbytes)
			goto out;
		store__identity_text(have_id, &jst);
		if (jst.st_size == jbytes && strcmp(have_id, want_jid) == 0) {
			if (sw_lchain_from_hex(&h, jhex, &e) < 0)
				goto out;
		} else {
#ifdef SW_TESTING
			prefix_reads++;
#endif
			if (sw_lchain_new(&h, &e) < 0 || !store__hash_prefix(h, jfd, (off_t)jbytes))
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
bool store__replace_leaf(struct run_dir *r, const char *name, const struct iovec *iov, int n)
{
	char rnd[17], tmp[64];
	size_t total = 0;
	bool ok;
	int fd;

	for (int k = 0; k < n; k++)
		total += iov[k].iov_len;
	if (store__random_hex16(rnd, &(struct sw_error)SW_ERROR_INIT) < 0)
		return false;
	snprintf(tmp, sizeof(tmp), ".tmp-%s-%s", name, rnd);
	fd = openat(r->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	ok = writev(fd, iov, n) == (ssize_t)total;
	if (close(fd) != 0 || !ok || (unlinkat(r->fd, name, 0) != 0 && errno != ENOENT) ||
	    sw_os_rename_noreplace(r->fd, tmp, name) != 0) {
		unlinkat(r->fd, tmp, 0);
		return false;
	}
	return true;
}

#ifdef SW_TESTING
static const char *kill_name;
static bool kill_torn;

void store_test_kill_rewrite(const char *name, bool torn)
{
	kill_name = name;
	kill_torn = torn;
}
#endif

/* Writes bytes [done, limit) of iov[0..n), laid end to end from offset
 * `at` of `fd`, piece by piece. */
static bool pwrite_pieces(int fd, const struct iovec *iov, int n, off_t at, size_t done,
			  size_t limit)
{
	size_t off = 0;

	for (int k = 0; k < n && off < limit; k++) {
		size_t len = iov[k].iov_len < limit - off ? iov[k].iov_len : limit - off;
		size_t skip = done > off ? done - off : 0;

		if (skip < len && !pwrite_all(fd, (const char *)iov[k].iov_base + skip, len - skip,
					      at + (off_t)(off + skip)))
			return false;
		off += iov[k].iov_len;
	}
	return true;
}

/* pwritev is not POSIX.1-2008: each piece is written with pwrite. */
bool store__pwrite_iov(int fd, const struct iovec *iov, int n, off_t at)
{
	size_t total = 0;

	for (int k = 0; k < n; k++)
		total += iov[k].iov_len;
	return pwrite_pieces(fd, iov, n, at, 0, total);
}

#ifdef SW_TESTING
bool store__test_kill_here(int fd, const char *name, const struct iovec *iov, int n, off_t at)
{
	size_t total = 0;

	if (kill_name == NULL || strcmp(kill_name, name) != 0)
		return false;
	for (int k = 0; k < n; k++)
		total += iov[k].iov_len;
	if (kill_torn)
		pwrite_pieces(fd, iov, n, at, 0, total / 2);
	else
		store__pwrite_iov(fd, iov, n, at);
	_exit(STORE_FAULT_EXIT);
}
#endif

/* Writes `name` in place (no fsync), for the caches a reader checks whole
 * and only under the Run's lock: run.checkpoint (read under the exclusive
 * lock its writer holds) and run.summary (under a shared one).  The file
 * is opened without following a symlink, written from its start and cut
 * to the new length: no temporary created, no name removed (on ext4 each
 * is an inode and a directory change in its journal).  Nobody reads it
 * meanwhile, and a write cut short (the process killed: the page cache
 * keeps what was written) leaves new bytes before old ones or a stale
 * tail, which each reader refuses: both check the exact length against
 * their header and a digest of everything after it, as they must after a
 * power loss anyway (which may keep any mix of old and new blocks).  So a
 * cache torn here costs what a missing one costs: the checkpoint a full
 * replay, the summary the listing's replay.  A file that is not a regular
 * 0600 file of ours with one link (another link could reach a file outside
 * the run directory) is replaced through a temporary instead. */
bool store__leaf_is_ours(const struct stat *st)
{
	static uid_t uid = (uid_t)-1;

	if (uid == (uid_t)-1)
		uid = geteuid();
	return S_ISREG(st->st_mode) && st->st_nlink == 1 && (st->st_mode & 07777) == 0600 &&
	       st->st_uid == uid;
}

bool store__rewrite_leaf(struct run_dir *r, const char *name, const struct iovec *iov, int n)
{
	size_t total = 0;
	struct stat st;
	bool ok;
	int fd;

	for (int k = 0; k < n; k++)
		total += iov[k].iov_len;
	fd = openat(r->fd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = openat(r->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return store__replace_leaf(r, name, iov, n);
	if (fstat(fd, &st) != 0 || !store__leaf_is_ours(&st)) {
		close(fd);
		return store__replace_leaf(r, name, iov, n);
	}
#ifdef SW_TESTING
	store__test_kill_here(fd, name, iov, n, 0);
#endif
	ok = store__pwrite_iov(fd, iov, n, 0) &&
	     (st.st_size <= (off_t)total || ftruncate(fd, (off_t)total) == 0);
	if (close(fd) != 0 || !ok) {
		unlinkat(r->fd, name, 0);
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
		ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && store__same_file(&st, &m->lst) &&
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

		if (!store__replace_leaf(r, CHECKPOINT_LOG_NAME, &iov, 1) ||
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
bool store__checkpoint_write(struct run_dir *r, struct store_mutation *m,
			     long long sequence, off_t jlen, const char *jhex,
			     struct stat *lst, struct stat *pst)
{
	char hdr[640], bhex[SW_XXH_HEX_LEN], lhex[SW_XXH_HEX_LEN] = "", id[160], jid[160];
	struct iovec iov[2];
	size_t llen = 0;
	int n;

	if (fstatat(r->fd, PROJECTION_NAME, pst, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(pst->st_mode))
		return false;
	if (store__boot_id()[0] == '\0' || !checkpoint_log_write(r, m, lhex, &llen, lst)) {
		unlinkat(r->fd, CHECKPOINT_NAME, 0);
		return false;
	}
	store__identity_text(id, pst);
	store__identity_text(jid, &m->jst);	/* all zero (never matching) when unknown */
	sw_xxh_hex(m->cp_body, m->cp_len, bhex);
	n = snprintf(hdr, sizeof(hdr), CHECKPOINT_MAGIC " %s %lld %lld %s %s %s %zu %s %zu %s\n",
		     store__boot_id(), sequence, (long long)jlen, jhex, jid, id, llen, lhex, m->cp_len, bhex);
	if (n <= 0 || (size_t)n >= sizeof(hdr))
		return false;
	iov[0].iov_base = hdr;
	iov[0].iov_len = (size_t)n;
	iov[1].iov_base = (void *)m->cp_body;
	iov[1].iov_len = m->cp_len;
	return store__rewrite_leaf(r, CHECKPOINT_NAME, iov, 2);
}
