/* The listing summary, run.summary: written best effort after a commit
 * (every material the Run holds, then the caller's body) and read by
 * store_read_summary only while the journal and every material are still
 * what it was written with.  Never waits for a lock. */

#include "io/store/store_internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define SUMMARY_MAGIC "slipway-summary/3"
#define SUMMARY_MAGIC_2 "slipway-summary/2"
#define SUMMARY_MAX (64u << 20)

/* run.summary: a header line
 *   slipway-summary/3 <boot id> <journal bytes> <journal chain> <lines> <lines bytes> <lines chain> <body bytes> <body xxh>
 * padded with spaces to SUMMARY_HEAD bytes, newline included; then one line
 * per material of the Run, "<64 hex> <identity>" (IDENTITY_FMT) as put_blob
 * found it with its content right; then the caller's body.  The lines
 * chain is sw_lchain's over the lines, the body digest XXH3-128 of the
 * body.  The list is carried from one summary to the next and grows by
 * each mutation's materials, so it names every blob the Run ever wrote; a
 * mutation that finds no summary matching the journal it replayed writes
 * none.  The header has one length, so the lines never move: a mutation
 * whose materials are all new appends their lines in place over the old
 * body, writes its body after them and the header last, from the old
 * header alone (summary_append), and so costs the same at Action 1,000 as
 * at Action 1.  It does so only in the boot that wrote the header (the
 * kernel's boot id, "-" when unknown): after a power loss, which may keep
 * a new header over old lines, the next mutation reads and checks the
 * whole file as a reader does, and writes it whole.  Version 2 (a header of its own length, one digest over
 * the lines and the body) is read too, and written again as version 3 by
 * the next mutation. */
#define SUMMARY_LINE_LEN (64 + 1 + 159 + 1)
#define SUMMARY_HEAD 234

struct summary {
	char *file;		/* whole file (summary_read), or NULL (a header alone) */
	int version;
	char boot[SW_XXH_HEX_LEN];	/* version 3 */
	long long jlen;
	char jhex[SW_XXH_HEX_LEN];
	char lhex[SW_XXH_HEX_LEN];	/* version 3: the lines chain */
	char dhex[SW_XXH_HEX_LEN];	/* version 3: the body; 2: lines and body */
	size_t head_len;
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

/* Parses the header at the start of `buf` (`avail` bytes) into *sm: its
 * version, fields and length.  False when it is none of ours. */
static bool summary_head(struct summary *sm, const char *buf, size_t avail)
{
	char line[256];
	size_t hlen;
	const char *nl;
	int used = 0;

	if ((nl = memchr(buf, '\n', avail < sizeof(line) ? avail : sizeof(line))) == NULL)
		return false;
	hlen = (size_t)(nl - buf);
	memcpy(line, buf, hlen);
	line[hlen] = '\0';
	sm->head_len = hlen + 1;
	if (strncmp(line, SUMMARY_MAGIC " ", sizeof(SUMMARY_MAGIC)) == 0) {
		sm->version = 3;
		if (sm->head_len != SUMMARY_HEAD ||
		    sscanf(line, SUMMARY_MAGIC " %32s %lld %32s %zu %zu %32s %zu %32s%n", sm->boot,
			   &sm->jlen, sm->jhex, &sm->nlines, &sm->lines_len, sm->lhex, &sm->body_len,
			   sm->dhex, &used) != 8 ||
		    strlen(sm->lhex) != 32)
			return false;
		while (line[used] == ' ')	/* the padding */
			used++;
	} else {
		sm->version = 2;
		if (sscanf(line, SUMMARY_MAGIC_2 " %lld %32s %zu %zu %zu %32s%n", &sm->jlen, sm->jhex,
			   &sm->nlines, &sm->lines_len, &sm->body_len, sm->dhex, &used) != 6)
			return false;
	}
	return (size_t)used == hlen && sm->jlen >= 1 && strlen(sm->jhex) == 32 &&
	       strlen(sm->dhex) == 32 && sm->lines_len <= SUMMARY_MAX && sm->body_len <= SUMMARY_MAX;
}

/* Reads run.summary and checks its header, length, digests and line
 * shapes; false when there is none usable. */
static bool summary_read(struct summary *sm, struct run_dir *r)
{
	char got[SW_XXH_HEX_LEN];
	size_t len = 0;
	const char *p;
	struct stat st;

	memset(sm, 0, sizeof(*sm));
	if ((sm->file = store__read_leaf(&len, &st, r, SUMMARY_NAME, SIZE_MAX, SUMMARY_MAX)) == NULL)
		return false;
	if (!summary_head(sm, sm->file, len) || sm->lines_len + sm->body_len != len - sm->head_len)
		goto bad;
	sm->lines = sm->file + sm->head_len;
	sm->body = sm->lines + sm->lines_len;
	if (sm->version == 3) {
		struct sw_lchain *h = NULL;

		if (sw_lchain_new(&h, &(struct sw_error)SW_ERROR_INIT) < 0)
			goto bad;
		sw_lchain_update(h, sm->lines, sm->lines_len);
		sw_lchain_peek_hex(h, got);
		sw_lchain_free(h);
		if (strcmp(got, sm->lhex) != 0)
			goto bad;
		sw_xxh_hex(sm->body, sm->body_len, got);
	} else {
		sw_xxh_hex(sm->lines, sm->lines_len + sm->body_len, got);
	}
	if (strcmp(got, sm->dhex) != 0)
		goto bad;
	/* Every line is "<64 hex> <identity>\n", nlines of them. */
	p = sm->lines;
	for (size_t i = 0; i < sm->nlines; i++) {
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

	store__identity_text(id, st);
	return snprintf(out, SUMMARY_LINE_LEN + 1, "%.64s %s\n", hex, id);
}

/* Adds to `lines` the line of each material of `m` (once a blob); their
 * count in *n.  False when out of memory. */
static bool mutation_lines(struct sw_buf *lines, size_t *n, const struct store_mutation *m)
{
	char one[SUMMARY_LINE_LEN + 1];

	for (size_t i = 0; i < m->nmat; i++) {
		size_t j = 0;

		while (j < i && strcmp(m->mat[i].digest, m->mat[j].digest) != 0)
			j++;
		if (j < i)
			continue;
		summary_line(one, m->mat[i].digest + 7, &m->mat[i].st);
		sw_buf_str(lines, one);
		(*n)++;
	}
	return !lines->failed;
}

/* The header for these fields, padded to SUMMARY_HEAD bytes.  False when
 * it does not fit. */
static bool summary_header(char out[SUMMARY_HEAD + 1], long long jlen, const char *jhex,
			   size_t nlines, size_t lines_len, const char *lhex, size_t body_len,
			   const char *bhex)
{
	const char *boot = store__boot_id();
	int n = snprintf(out, SUMMARY_HEAD + 1, SUMMARY_MAGIC " %s %lld %s %zu %zu %s %zu %s",
			 boot[0] ? boot : "-", jlen, jhex, nlines, lines_len, lhex, body_len, bhex);

	if (n <= 0 || n >= SUMMARY_HEAD || lhex[0] == '\0' || bhex[0] == '\0')
		return false;
	memset(out + n, ' ', (size_t)(SUMMARY_HEAD - 1 - n));
	out[SUMMARY_HEAD - 1] = '\n';
	out[SUMMARY_HEAD] = '\0';
	return true;
}

/* The summary of a mutation whose materials are all new, from the old
 * header alone: their lines appended in place after the old lines (over
 * the old body), the new body after them, the file cut to its length,
 * and the header written last.  1 when written, 0 when the old summary
 * is not a version 3 one of this boot matching the journal before this mutation
 * (`prev_jhex`, m->jlen bytes) in a regular 0600 file of ours with one
 * link (the caller decides), -1 when a write failed (it is torn).  A
 * process killed meanwhile leaves lengths or digests that no longer
 * match the header, which every reader refuses.  A blob this mutation
 * created cannot be among the old lines (they name blobs that existed),
 * so appending lists each blob once. */
static int summary_append(struct run_dir *r, const struct store_mutation *m,
			  const char *prev_jhex, long long jlen, const char *jhex)
{
	char head[SUMMARY_HEAD], hdr[SUMMARY_HEAD + 1], lhex[SW_XXH_HEX_LEN], bhex[SW_XXH_HEX_LEN];
	struct sw_buf lines = SW_BUF_INIT;
	struct summary old = { 0 };
	struct sw_lchain *h = NULL;
	struct iovec iov[2];
	struct stat st;
	size_t nnew = 0, end;
	int fd, rc = 0;

	for (size_t i = 0; i < m->nmat; i++)
		if (!m->mat[i].created)
			return 0;
	if ((fd = openat(r->fd, SUMMARY_NAME, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !store__leaf_is_ours(&st) ||
	    pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    !summary_head(&old, head, sizeof(head)) || old.version != 3 ||
	    store__boot_id()[0] == '\0' || strcmp(old.boot, store__boot_id()) != 0 ||
	    (off_t)(old.head_len + old.lines_len + old.body_len) != st.st_size ||
	    old.jlen != (long long)m->jlen || strcmp(old.jhex, prev_jhex) != 0 ||
	    !mutation_lines(&lines, &nnew, m) ||
	    sw_lchain_from_hex(&h, old.lhex, &(struct sw_error)SW_ERROR_INIT) < 0)
		goto out;
	sw_lchain_update(h, lines.p ? lines.p : "", lines.len);
	sw_lchain_peek_hex(h, lhex);
	sw_xxh_hex(m->sum_body, m->sum_len, bhex);
	if (!summary_header(hdr, jlen, jhex, old.nlines + nnew, old.lines_len + lines.len, lhex,
			    m->sum_len, bhex))
		goto out;
	iov[0] = (struct iovec){ lines.p ? lines.p : hdr, lines.len };
	iov[1] = (struct iovec){ m->sum_body, m->sum_len };
	end = old.head_len + old.lines_len + lines.len + m->sum_len;
	rc = -1;
#ifdef SW_TESTING
	store__test_kill_here(fd, SUMMARY_NAME, iov, 2, (off_t)(old.head_len + old.lines_len));
#endif
	if (!store__pwrite_iov(fd, iov, 2, (off_t)(old.head_len + old.lines_len)) ||
	    (st.st_size > (off_t)end && ftruncate(fd, (off_t)end) != 0))
		goto out;
	iov[0] = (struct iovec){ hdr, SUMMARY_HEAD };
	if (store__pwrite_iov(fd, iov, 1, 0))
		rc = 1;
out:
	if (close(fd) != 0 && rc == 1)
		rc = -1;
	sw_lchain_free(h);
	sw_buf_release(&lines);
	return rc;
}

#ifdef SW_TESTING
static unsigned long summary_appends;

unsigned long store_test_summary_appends(void)
{
	return summary_appends;
}
#endif

/* Writes run.summary for the committed state (best effort, no fsync,
 * outside the fault seam, like the checkpoint): the material lines of the
 * summary that matched the journal before this mutation (`prev_jhex`,
 * m->jlen bytes; none for a new Run) plus this mutation's materials;
 * appended in place when it can be (summary_append), else written whole. */
void store__summary_write(struct run_dir *r, const struct store_mutation *m, bool create,
			  const char *prev_jhex, long long jlen, const char *jhex)
{
	static char none[1];
	struct sw_buf lines = SW_BUF_INIT;
	struct summary old = { 0 };
	char hdr[SUMMARY_HEAD + 1], lhex[SW_XXH_HEX_LEN], bhex[SW_XXH_HEX_LEN];
	struct iovec iov[4];
	size_t nlines = 0, kept_len = 0;
	struct sw_lchain *h = NULL;
	bool rewritten = false;

	if (m->sum_body == NULL || jhex[0] == '\0')
		goto drop;
	if (!create) {
		int rc;

		if (prev_jhex[0] == '\0' || (rc = summary_append(r, m, prev_jhex, jlen, jhex)) < 0)
			goto drop;
		if (rc == 1) {
#ifdef SW_TESTING
			summary_appends++;
#endif
			goto out;
		}
		if (!summary_read(&old, r) || old.jlen != (long long)m->jlen ||
		    strcmp(old.jhex, prev_jhex) != 0)
			goto drop;
	}
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
	if (!mutation_lines(&lines, &nlines, m) ||
	    sw_lchain_new(&h, &(struct sw_error)SW_ERROR_INIT) < 0)
		goto drop;
	iov[1] = (struct iovec){ (void *)(kept_len ? old.lines : none), kept_len };
	iov[2] = (struct iovec){ lines.p ? lines.p : none, lines.len };
	iov[3] = (struct iovec){ m->sum_body, m->sum_len };
	sw_lchain_update(h, iov[1].iov_base, iov[1].iov_len);
	sw_lchain_update(h, iov[2].iov_base, iov[2].iov_len);
	sw_lchain_peek_hex(h, lhex);
	sw_xxh_hex(m->sum_body, m->sum_len, bhex);
	if (!summary_header(hdr, jlen, jhex, nlines, kept_len + lines.len, lhex, m->sum_len, bhex))
		goto drop;
	iov[0] = (struct iovec){ hdr, SUMMARY_HEAD };
	if (store__rewrite_leaf(r, SUMMARY_NAME, iov, 4))
		goto out;
drop:
	/* A summary that no longer matches the journal is useless. */
	unlinkat(r->fd, SUMMARY_NAME, 0);
out:
	sw_lchain_free(h);
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

	if (store__open_journal(&fd, r->fd, O_RDONLY, &e) < 0 || fstat(fd, &st) < 0 ||
	    st.st_size != (off_t)len || sw_lchain_new(&h, &e) < 0 || !store__hash_prefix(h, fd, (off_t)len))
		goto out;
	sw_lchain_peek_hex(h, got);
	ok = got[0] != '\0' && strcmp(got, hex) == 0 && store__check_leaf(r->fd, JOURNAL_NAME, fd, &e) == 0;
out:
	sw_lchain_free(h);
	store__close_fd(&fd);
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
	if (store__open_dir_at(&mfd, &mst, NULL, r->fd, MATERIALS_NAME, false, false, &e) < 0)
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
	ok = ok && store__check_dir_at(r->fd, MATERIALS_NAME, &mst, &e) == 0;
	store__close_fd(&mfd);
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
	if (store__run_open(&r, s, run_id, false, NULL) < 0)
		goto out;
	/* Shared, like store_visit, but never waiting: a busy Run is left
	 * to the replay, which waits and reports. */
	r.lock_fd = openat(r.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.lock_fd < 0 || fstat(r.lock_fd, &st) < 0 || !store__same_file(&st, &r.st) ||
	    sw_os_lock(r.lock_fd, SW_OS_LOCK_SH | SW_OS_LOCK_NB) != 0)
		goto out;
	if (!summary_read(&sm, &r) || !journal_is(&r, sm.jlen, sm.jhex) || !materials_are(&r, &sm) ||
	    store__run_valid(s, &r, NULL) < 0 || (*body = sw_malloc(sm.body_len + 1)) == NULL)
		goto out;
	memcpy(*body, sm.body, sm.body_len);
	(*body)[sm.body_len] = '\0';
	*len = sm.body_len;
	ok = 1;
out:
	summary_release(&sm);
	store__run_close(&r);
	store__fail_reset(s);
	return ok;
}
