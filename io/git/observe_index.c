/* The index file read directly: mapped, its entries (versions 2-4, SHA-1)
 * and its cache-tree extension parsed, and later checked still the file
 * read.  A split or sparse index, or anything malformed, is left to
 * libgit2's index.  Never writes the index, never calls libgit2 beyond
 * filling its entry and id types. */

#include "io/git/observe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/buf.h"

/* libgit2 builds a full in-memory index (an allocation and a map insert per
 * entry) even to list it; the observation only needs the entries and the
 * cache-tree root, so it parses the file itself.  Versions 2-4 with SHA-1
 * ids are supported; a split or sparse index, or anything malformed, makes
 * the caller use libgit2's index instead.  As git does by default, the
 * trailing checksum is not verified.
 *
 * The file is mapped, not read: fresh anonymous memory costs a page fault
 * per page, which dominates reading a 50,000-entry index on a virtual
 * machine, while mapped page-cache pages come in one populating call.  Git
 * replaces the index by renaming a new file over it, so the mapped inode
 * never changes under us. */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void vcs__rawindex_free(struct rawindex *ri)
{
	if (ri->buf != NULL)
		munmap((void *)ri->buf, ri->len);
	sw_free(ri->ents);
	sw_free(ri->ptrs);
	sw_free(ri->v4paths);
	memset(ri, 0, sizeof(*ri));
}

/* Parses the TREE extension's root entry. */
static void rawindex_tree(struct rawindex *ri, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len, *nl;
	long count;

	if (len < 1 || p[0] != '\0')
		return;
	p++;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (nl == NULL)
		return;
	count = strtol((const char *)p, NULL, 10);
	if (count < 0 || (size_t)(end - nl - 1) < GIT_OID_RAWSZ)
		return;
	git_oid_fromraw(&ri->tree, nl + 1);
	ri->tree_valid = 1;
}

/* Where the parse of the entries stands: the offset of the next entry,
 * the previous path (version 4 builds on it), the room used for version
 * 4's paths, and whether every entry so far is plain and in order. */
struct parse {
	size_t off, v4len, v4cap, prevlen;
	const char *prev;
	int plain, ordered;
};

/* Parses the ri->n entries from p->off into ri (ents and ptrs allocated).
 * 0, or 1 when malformed. */
static int parse_entries(struct rawindex *ri, uint32_t version, struct parse *p)
{
	const size_t body = ri->len - GIT_OID_RAWSZ;

	for (size_t i = 0; i < ri->n; i++) {
		const unsigned char *q0 = ri->buf + p->off;
		git_index_entry *e = &ri->ents[i];
		size_t hdr = 62, plen;
		uint16_t flags;

		if (p->off + hdr > body)
			return 1;
		e->ctime.seconds = (int32_t)be32(q0);
		e->ctime.nanoseconds = be32(q0 + 4);
		e->mtime.seconds = (int32_t)be32(q0 + 8);
		e->mtime.nanoseconds = be32(q0 + 12);
		e->dev = be32(q0 + 16);
		e->ino = be32(q0 + 20);
		e->mode = be32(q0 + 24);
		e->uid = be32(q0 + 28);
		e->gid = be32(q0 + 32);
		e->file_size = be32(q0 + 36);
		git_oid_fromraw(&e->id, q0 + 40);
		flags = (uint16_t)(q0[60] << 8 | q0[61]);
		e->flags = flags;
		e->flags_extended = 0;
		if (flags & 0x4000) {
			if (version < 3 || p->off + 64 > body)
				return 1;
			e->flags_extended = (uint16_t)(q0[62] << 8 | q0[63]);
			hdr = 64;
		}
		if (version == 4) {
			const unsigned char *q = q0 + hdr, *nul;
			size_t strip, sl;
			unsigned c = *q++;

			strip = c & 127;
			while (c & 128) {
				if (q >= ri->buf + body)
					return 1;
				c = *q++;
				strip = ((strip + 1) << 7) | (c & 127);
			}
			nul = memchr(q, '\0', (size_t)(ri->buf + body - q));
			if (nul == NULL || strip > p->prevlen)
				return 1;
			sl = (size_t)(nul - q);
			plen = p->prevlen - strip + sl;
			if (p->v4len + plen + 1 > p->v4cap)
				return 1;	/* cannot happen with the bound above */
			memcpy(ri->v4paths + p->v4len, p->prev, p->prevlen - strip);
			memcpy(ri->v4paths + p->v4len + p->prevlen - strip, q, sl);
			ri->v4paths[p->v4len + plen] = '\0';
			e->path = ri->v4paths + p->v4len;
			p->v4len += plen + 1;
			p->off = (size_t)(nul + 1 - ri->buf);
		} else {
			const unsigned char *nul = memchr(q0 + hdr, '\0', body - p->off - hdr);

			if (nul == NULL)
				return 1;
			plen = (size_t)(nul - q0 - hdr);
			e->path = (const char *)q0 + hdr;
			p->off += (hdr + plen + 8) & ~(size_t)7;
		}
		if (plen == 0)
			return 1;
		/* What the fast scan would otherwise ask of every entry
		 * again (vcs__scan_eligible, vcs__scan_status), while the
		 * entry and the path before it are at hand. */
		if (p->plain && !vcs__entry_plain(e))
			p->plain = 0;
		if (p->ordered && i > 0 && strcmp(p->prev, e->path) > 0)
			p->ordered = 0;
		p->prev = e->path;
		p->prevlen = plen;
		ri->ptrs[i] = e;
	}
	return 0;
}

/* From this many bytes of entries on, their pages are faulted in on a
 * thread of their own while the caller maps the file: at 50,000 entries
 * (3.6 MB, a 4.4 MB file) the two took 1.3 to 1.7 and 0.4 to 1.0 ms one
 * after the other. */
#define PREFAULT_THREAD_MIN ((size_t)1 << 20)

#ifdef SW_TESTING
unsigned vcs__test_prefault_threads;

size_t vcs_test_prefault_entries(void)
{
	return (PREFAULT_THREAD_MIN + sizeof(git_index_entry) - 1) / sizeof(git_index_entry);
}
#endif

struct prefault {
	void *p;
	size_t n;
};

static void *prefault_run(void *arg)
{
	struct prefault *f = arg;

	sw_os_prefault(f->p, f->n);
	return NULL;
}

/* 0 on success (a missing file is an empty index), 1 when unsupported or
 * malformed, SW_ENOMEM. */
int vcs__rawindex_read(struct rawindex *ri, const char *path)
{
	struct stat st;
	struct parse p = { .off = 12, .prev = "", .plain = 1, .ordered = 1 };
	struct prefault pf = { NULL, 0 };
	unsigned char hdr[12];
	uint32_t version;
	pthread_t tid;
	int fd, rc = 1, helper = 0;

	memset(ri, 0, sizeof(*ri));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : 1;
	/* The header first, for the size of the arrays: their pages are
	 * faulted in while the file is mapped. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 32 ||
	    st.st_size > (1LL << 31) || sw_pread_full(fd, hdr, sizeof(hdr), 0) != sizeof(hdr))
		goto out;
	ri->mtime = (int64_t)sw_os_st_mtim(&st).tv_sec;
	ri->st = st;
	ri->len = (size_t)st.st_size;
	version = be32(hdr + 4);
	ri->n = be32(hdr + 8);
	if (memcmp(hdr, "DIRC", 4) != 0 || version < 2 || version > 4 || ri->n > ri->len / 40)
		goto out;
	/* Not calloc: every field is set below, and a long-lived caller's
	 * heap would otherwise clear 3.6 MiB per 50,000 entries first. */
	if (ri->n && ((ri->ents = sw_malloc(ri->n * sizeof(*ri->ents))) == NULL ||
		      (ri->ptrs = sw_malloc(ri->n * sizeof(*ri->ptrs))) == NULL)) {
		rc = SW_ENOMEM;
		goto out;
	}
	/* One call instead of a fault per page of the fresh arrays. */
	pf.p = ri->ents;
	pf.n = ri->n * sizeof(*ri->ents);
	helper = pf.n >= PREFAULT_THREAD_MIN && sw_os_thread_start(&tid, prefault_run, &pf, 0) == 0;
#ifdef SW_TESTING
	if (helper)
		__atomic_add_fetch(&vcs__test_prefault_threads, 1, __ATOMIC_RELAXED);
#endif
	if (!helper)
		prefault_run(&pf);
	ri->buf = sw_os_map_file(fd, ri->len);
	close(fd);
	fd = -1;
	sw_os_prefault(ri->ptrs, ri->n * sizeof(*ri->ptrs));
	/* The file read is the one whose header was read.  The parse may
	 * overtake the helper: a page either faults in is the same page. */
	if (ri->buf == NULL || memcmp(ri->buf, hdr, sizeof(hdr)) != 0)
		goto out;
	if (version == 4) {
		p.v4cap = ri->len * 2 + 64;
		if ((ri->v4paths = sw_malloc(p.v4cap)) == NULL) {
			rc = SW_ENOMEM;
			goto out;
		}
	}
	if (parse_entries(ri, version, &p) != 0)
		goto out;
	ri->checked = 1;
	ri->plain = p.plain;
	ri->ordered = p.ordered;
	{
		/* Extensions: a split or sparse index is not handled here. */
		size_t off = p.off, body = ri->len - GIT_OID_RAWSZ;

		while (off + 8 <= body) {
			const unsigned char *q = ri->buf + off;
			size_t sz = be32(q + 4);

			if (sz > body - off - 8)
				goto out;
			if (memcmp(q, "link", 4) == 0 || memcmp(q, "sdir", 4) == 0)
				goto out;
			if (memcmp(q, "TREE", 4) == 0) {
				rawindex_tree(ri, q + 8, sz);
				ri->tree_ext = q + 8;
				ri->tree_len = sz;
			}
			off += 8 + sz;
		}
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (helper)
		pthread_join(tid, NULL);
	if (rc != 0)
		vcs__rawindex_free(ri);
	return rc;
}

/* The identity of a file of status `st` whose trailing checksum is `sum`
 * (no fingerprint, not marked valid). */
static void id_fill(struct vcs_index_id *id, const struct stat *st, const unsigned char *sum)
{
	memset(id, 0, sizeof(*id));
	id->dev = (unsigned long long)st->st_dev;
	id->ino = (unsigned long long)st->st_ino;
	id->size = (long long)st->st_size;
	id->mtime_s = (long long)sw_os_st_mtim(st).tv_sec;
	id->mtime_ns = (long long)sw_os_st_mtim(st).tv_nsec;
	id->ctime_s = (long long)sw_os_st_ctim(st).tv_sec;
	id->ctime_ns = (long long)sw_os_st_ctim(st).tv_nsec;
	memcpy(id->sum, sum, sizeof(id->sum));
}

/* Whether two identities name the same file: device, inode, size,
 * modification and change times to the nanosecond; the checksums only
 * with `sums`. */
static int id_same(const struct vcs_index_id *a, const struct vcs_index_id *b, int sums)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
	       a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns &&
	       (!sums || memcmp(a->sum, b->sum, sizeof(a->sum)) == 0);
}

/* 1 when the index file at `path` is still the one `ri` was read from:
 * same device, inode, size, modification and change times, and trailing
 * checksum (read only for a file whose status matches). */
int vcs__rawindex_current(const struct rawindex *ri, const char *path)
{
	struct vcs_index_id was, now;
	unsigned char sum[GIT_OID_RAWSZ];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0 || ri->buf == NULL || ri->len < sizeof(sum)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	id_fill(&was, &ri->st, ri->buf + ri->len - sizeof(sum));
	ok = fstat(fd, &st) == 0 && (id_fill(&now, &st, was.sum), id_same(&now, &was, 0)) &&
	     pread(fd, sum, sizeof(sum), st.st_size - (off_t)sizeof(sum)) == (ssize_t)sizeof(sum) &&
	     memcmp(sum, was.sum, sizeof(sum)) == 0;
	close(fd);
	return ok;
}

/* ---- the identity kept between processes (struct vcs_index_id) ---- */

/* Fills *id from the file `ri` was read from and the fingerprint of its
 * entries; not valid for an index not read here or a checksum of zeros. */
void vcs__rawindex_id(struct vcs_index_id *id, const struct rawindex *ri,
		      const char fingerprint[SW_DIGEST_LEN])
{
	static const unsigned char zero[GIT_OID_RAWSZ];

	memset(id, 0, sizeof(*id));
	if (ri->buf == NULL || ri->len < GIT_OID_RAWSZ ||
	    memcmp(ri->buf + ri->len - GIT_OID_RAWSZ, zero, GIT_OID_RAWSZ) == 0 ||
	    strncmp(fingerprint, "sha256:", 7) != 0)
		return;
	id_fill(id, &ri->st, ri->buf + ri->len - GIT_OID_RAWSZ);
	memcpy(id->fingerprint, fingerprint, SW_DIGEST_LEN);
	id->valid = 1;
}

int vcs__rawindex_is(const struct rawindex *ri, const struct vcs_index_id *id)
{
	struct vcs_index_id now;

	if (id == NULL || !id->valid)
		return 0;
	vcs__rawindex_id(&now, ri, id->fingerprint);
	return now.valid && id_same(&now, id, 1);
}

int vcs_index_id_text(const struct vcs_index_id *id, char buf[VCS_INDEX_ID_TEXT_MAX])
{
	char hex[2 * sizeof(id->sum) + 1];
	int n;

	if (!id->valid)
		return -1;
	*sw_hex_bytes(hex, id->sum, sizeof(id->sum)) = '\0';
	n = snprintf(buf, VCS_INDEX_ID_TEXT_MAX, "%llu %llu %lld %lld %lld %lld %lld %s %s", id->dev,
		     id->ino, id->size, id->mtime_s, id->mtime_ns, id->ctime_s, id->ctime_ns, hex,
		     id->fingerprint);
	return n > 0 && n < VCS_INDEX_ID_TEXT_MAX ? 0 : -1;
}

/* A lowercase hex digit's value, or -1. */
static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int vcs_index_id_parse(struct vcs_index_id *id, const char *text, size_t len)
{
	char tmp[VCS_INDEX_ID_TEXT_MAX], hex[48], fp[SW_DIGEST_LEN + 8], back[VCS_INDEX_ID_TEXT_MAX];
	struct vcs_index_id got = { 0 };
	int used = -1;

	memset(id, 0, sizeof(*id));
	if (len == 0 || len >= sizeof(tmp) || memchr(text, '\0', len) != NULL)
		return -1;
	memcpy(tmp, text, len);
	tmp[len] = '\0';
	if (sscanf(tmp, "%llu %llu %lld %lld %lld %lld %lld %47s %79s%n", &got.dev, &got.ino,
		   &got.size, &got.mtime_s, &got.mtime_ns, &got.ctime_s, &got.ctime_ns, hex, fp,
		   &used) != 9 || used != (int)len || strlen(hex) != 2 * sizeof(got.sum) ||
	    strlen(fp) != SW_DIGEST_LEN - 1 || strncmp(fp, "sha256:", 7) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(got.sum); i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		got.sum[i] = (unsigned char)(hi << 4 | lo);
	}
	for (size_t i = 7; i < SW_DIGEST_LEN - 1; i++)
		if (hexval(fp[i]) < 0)
			return -1;
	memcpy(got.fingerprint, fp, SW_DIGEST_LEN);
	got.valid = 1;
	/* Only the very text vcs_index_id_text writes: no sign, no leading
	 * zero, single spaces. */
	if (vcs_index_id_text(&got, back) < 0 || strlen(back) != len || memcmp(back, text, len) != 0)
		return -1;
	*id = got;
	return 0;
}
