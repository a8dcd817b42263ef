/* The canonical digests of spec/git-observation.md: index_fingerprint (the
 * ls-files --stage -z form of the index), path_fingerprint and
 * snapshot_hash (S-framed sections of the structured fields).  Hashes what
 * it is handed: never opens a file, never reads a repository. */

#include "io/git/observe_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "io/util/buf.h"

void vcs__section_i64(struct sw_sha256 *h, const char *name, int64_t v)
{
	char dec[32];

	snprintf(dec, sizeof(dec), "%" PRId64, v);
	sw_sha256_section_str(h, name, dec);
}

static void section_bool(struct sw_sha256 *h, const char *name, int v)
{
	sw_sha256_section_str(h, name, v ? "true" : "false");
}

void vcs__hash_path_obs(struct sw_sha256 *h, const struct vcs_path_obs *p)
{
	sw_sha256_section_str(h, "path", p->path);
	sw_sha256_section_str(h, "category", p->category);
	sw_sha256_section_str(h, "state", p->state);
	sw_sha256_section_str(h, "observation", p->observation);
	if (p->has_size)
		vcs__section_i64(h, "size", p->size);
	else
		sw_sha256_section_str(h, "size", "unknown");
	if (p->has_mtime)
		vcs__section_i64(h, "modified_unix_nano", p->modified_unix_nano);
	else
		sw_sha256_section_str(h, "modified_unix_nano", "unknown");
	sw_sha256_section_str(h, "content_sha256", p->content_sha256);
	sw_sha256_section_str(h, "content_fingerprint_kind", p->content_kind);
}

int64_t vcs__detail_cost(const struct vcs_path_obs *p)
{
	return 12 * (int64_t)strlen(p->path) +
	       6 * (int64_t)(strlen(p->category) + strlen(p->state) + strlen(p->observation)) +
	       (int64_t)strlen(p->content_sha256) + (int64_t)strlen(p->content_kind) + 320;
}

int vcs_observation_seal(struct vcs_observation *o, struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	int rc;

	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	vcs__section_i64(h, "version", o->version);
	sw_sha256_section_str(h, "head", o->head ? o->head : "");
	sw_sha256_section_str(h, "index_fingerprint", o->index_fingerprint);
	sw_sha256_section_str(h, "status_fingerprint", o->status_fingerprint);
	vcs__section_i64(h, "path_count", o->path_count);
	sw_sha256_section_str(h, "path_fingerprint", o->path_fingerprint);
	section_bool(h, "details_truncated", o->details_truncated);
	section_bool(h, "content_observation_complete", o->content_observation_complete);
	vcs__section_i64(h, "content_bytes_hashed", o->content_bytes_hashed);
	vcs__section_i64(h, "content_byte_limit", o->content_byte_limit);
	section_bool(h, "content_byte_limit_exceeded", o->content_byte_limit_exceeded);
	section_bool(h, "content_deadline_exceeded", o->content_deadline_exceeded);
	vcs__section_i64(h, "retained_path_count", (int64_t)o->retained);
	for (size_t i = 0; i < o->retained; i++)
		vcs__hash_path_obs(h, &o->paths[i]);
	sw_sha256_final_prefixed(h, o->snapshot_hash);
	return 0;
}

int vcs__path_fingerprint_of(const struct vcs_observation *o,
			       char out[SW_DIGEST_LEN], struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	int rc;

	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	vcs__section_i64(h, "path_count", (int64_t)o->retained);
	for (size_t i = 0; i < o->retained; i++)
		vcs__hash_path_obs(h, &o->paths[i]);
	sw_sha256_final_prefixed(h, out);
	return 0;
}

/* ---- index fingerprint ------------------------------------------------- */

#ifdef SW_TESTING
unsigned vcs__test_fp_threads;	/* counted by observe.c, which starts the threads */
unsigned vcs__test_fp_hinted;	/* counted by observe.c, which takes the hint */
#endif

/* The buffer the listing is formed in before it is hashed. */
#define FP_BUF (1 << 16)

int vcs__index_fingerprint_prepare(struct vcs_index_fp *f, struct sw_error *err)
{
	int rc;

	f->h = NULL;
	if ((f->buf = sw_malloc(FP_BUF)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate index buffer");
	if ((rc = sw_sha256_new(&f->h, err)) < 0) {
		sw_free(f->buf);
		f->buf = NULL;
	}
	return rc;
}

/* sha256 over the ls-files --stage -z form of every index entry. */
void vcs__index_fingerprint_compute(struct vcs_index_fp *f, const git_index_entry *const *ents,
				    size_t n, char out[SW_DIGEST_LEN])
{
	char *buf = f->buf;
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		const git_index_entry *e = ents[i];
		size_t pl = strlen(e->path);
		char *o;

		/* 64 bytes hold the mode, the id, the stage and the tab. */
		if (used + pl + 1 + 64 > FP_BUF) {
			sw_sha256_update(f->h, buf, used);
			used = 0;
		}
		o = buf + used;
		if (e->mode <= 0777777) {
			/* "%06o %s %d\t" by hand: this runs once per entry. */
			for (int k = 5; k >= 0; k--)
				*o++ = (char)('0' + ((e->mode >> (3 * k)) & 7));
		} else {
			o += snprintf(o, 24, "%o", e->mode);
		}
		*o++ = ' ';
		/* Not git_oid_fmt: a call, a length check and 40 stores. */
		o = sw_hex_bytes(o, e->id.id, GIT_OID_RAWSZ);
		*o++ = ' ';
		*o++ = (char)('0' + GIT_INDEX_ENTRY_STAGE(e));
		*o++ = '\t';
		used = (size_t)(o - buf);
		if (pl + 1 + 64 > FP_BUF) {
			/* A path longer than the buffer is hashed where it is. */
			sw_sha256_update(f->h, buf, used);
			sw_sha256_update(f->h, e->path, pl + 1);
			used = 0;
			continue;
		}
		memcpy(buf + used, e->path, pl + 1);	/* with the NUL */
		used += pl + 1;
	}
	sw_sha256_update(f->h, buf, used);
	sw_sha256_final_prefixed(f->h, out);	/* frees the hash */
	f->h = NULL;
	sw_free(f->buf);
	f->buf = NULL;
}
