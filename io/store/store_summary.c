/* The listing summary, run.summary: written best effort after a commit
 * (every material the Run holds, then the caller's body) and read by
 * store_read_summary only while the journal and every material are still
 * what it was written with.  Never waits for a lock. */

#include "io/store/store_internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define SUMMARY_MAGIC "slipway-summary/2"
#define SUMMARY_MAX (64u << 20)

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
	if ((sm->file = store__read_leaf(&len, &st, r, SUMMARY_NAME, SIZE_MAX, SUMMARY_MAX)) == NULL)
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

	store__identity_text(id, st);
	return snprintf(out, SUMMARY_LINE_LEN + 1, "%.64s %s\n", hex, id);
}

/* Writes run.summary for the committed state (best effort, no fsync,
 * outside the fault seam, like the checkpoint): the material lines of the
 * summary that matched the journal before this mutation (`prev_jhex`,
 * m->jlen bytes; none for a new Run) plus this mutation's materials. */
void store__summary_write(struct run_dir *r, const struct store_mutation *m, bool create,
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
	if (store__rewrite_leaf(r, SUMMARY_NAME, iov, 4))
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
	    flock(r.lock_fd, LOCK_SH | LOCK_NB) != 0)
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
