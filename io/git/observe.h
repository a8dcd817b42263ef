#ifndef IO_GIT_OBSERVE_H
#define IO_GIT_OBSERVE_H

/* Git observation of a workspace, in process with libgit2 (no git
 * subprocess).  spec/git-observation.md is the contract: what each field
 * means, the canonical forms behind index_fingerprint and
 * status_fingerprint, and the S-framed path_fingerprint and snapshot_hash
 * (S as in io/util/digest.h).
 *
 * An observation records HEAD, fingerprints of the index and of the status,
 * and one path observation per dirty or untracked path (sorted bytewise,
 * duplicates merged).  Regular content is hashed within a byte budget and a
 * deadline; symlinks are never followed. */

#include <stddef.h>
#include <stdint.h>

#include "io/util/digest.h"
#include "io/util/err.h"
#include "io/git/vcs.h"

struct json_t;

#define VCS_OBSERVE_BYTE_LIMIT     (64LL << 20)	/* content bytes per observation */
#define VCS_OBSERVE_FULL_HASH_MAX  (16LL << 20)	/* larger files are sampled */
#define VCS_OBSERVE_DEADLINE_NS    (5LL * 1000000000LL)
#define VCS_OBSERVE_DETAIL_BYTES   (512 << 10)	/* retained-details cost budget */
#define VCS_OBSERVE_SAMPLE_BYTES   (64 << 10)	/* one oversize sample */

/* One dirty or untracked path.  Strings are owned by the observation.
 * `observation` is one of regular, symlink, oversize_sampled,
 * content_unobserved, missing, non_regular, unreadable; `content_sha256` and
 * `content_kind` are "" when absent; has_size/has_mtime say whether size and
 * modified_unix_nano are present. */
struct vcs_path_obs {
	char *path;
	char *category;		/* e.g. "ordinary", "rename_origin,untracked" */
	char *state;		/* e.g. ".M", "R. R100", "??" */
	char observation[24];
	int has_size;
	int64_t size;
	int has_mtime;
	int64_t modified_unix_nano;
	char content_sha256[SW_DIGEST_LEN];
	char content_kind[24];	/* full_sha256, symlink_target_sha256, oversize_samples_v1 */
};

/* An index file's identity with the fingerprint of its entries.  `valid`
 * only for a file read directly whose trailing checksum is not zero
 * (index.skipHash writes zeros): then the device, inode, size, times and
 * checksum together name its content, as the warm cache of a long-lived
 * process proves its kept index current (io/git/observe_warm.c).  A
 * caller that keeps one between processes hands it back as
 * vcs_observe_opts.index_hint; an observation whose index file is still
 * that one takes its fingerprint instead of hashing every entry again. */
struct vcs_index_id {
	int valid;
	unsigned long long dev, ino;
	long long size, mtime_s, mtime_ns, ctime_s, ctime_ns;
	unsigned char sum[20];
	char fingerprint[SW_DIGEST_LEN];
};

/* The text of an index identity: "<dev> <ino> <size> <mtime s> <mtime ns>
 * <ctime s> <ctime ns> <checksum, 40 hex> <fingerprint>", at most
 * VCS_INDEX_ID_TEXT_MAX bytes with its NUL. */
#define VCS_INDEX_ID_TEXT_MAX 320
/* Writes the text of a valid `id` into buf; 0, or -1 when id is not valid. */
int vcs_index_id_text(const struct vcs_index_id *id, char buf[VCS_INDEX_ID_TEXT_MAX]);
/* Reads the `len` bytes at `text` back: 0 with *id valid, or -1 with *id
 * zeroed when they are not exactly such a text. */
int vcs_index_id_parse(struct vcs_index_id *id, const char *text, size_t len);

/* The observation.  paths[0..retained) are the retained details (their
 * `path` members are the dirty_files list); path_count counts every dirty
 * path, so details_truncated == (path_count > retained). */
struct vcs_observation {
	int version;		/* always 1 */
	char *head;		/* 40-hex commit id, or "unborn" */
	char index_fingerprint[SW_DIGEST_LEN];
	char status_fingerprint[SW_DIGEST_LEN];
	char snapshot_hash[SW_DIGEST_LEN];
	char path_fingerprint[SW_DIGEST_LEN];
	int64_t path_count;
	int details_truncated;
	int content_observation_complete;
	int64_t content_bytes_hashed;
	int64_t content_byte_limit;
	int content_byte_limit_exceeded;
	int content_deadline_exceeded;
	size_t retained;
	struct vcs_path_obs *paths;
	/* The index file read, with index_fingerprint: for the caller to
	 * hand back as vcs_observe_opts.index_hint (not part of the
	 * observation's JSON). */
	struct vcs_index_id index_id;
};

#define VCS_OBSERVATION_INIT { 1, NULL, "", "", "", "", 0, 0, 0, 0, 0, 0, 0, 0, NULL, { 0 } }

/* Monotonic clock in nanoseconds; `ctx` is vcs_observe_opts.clock_ctx. */
typedef int64_t vcs_clock_fn(void *ctx);

/* Limits, injectable for tests.  A zero field takes the default above. */
struct vcs_observe_opts {
	int64_t byte_limit;
	int64_t full_hash_max;
	int64_t deadline_ns;
	size_t detail_bytes;
	vcs_clock_fn *clock;	/* NULL: CLOCK_MONOTONIC */
	void *clock_ctx;
	int threads;		/* scan threads; 0: online CPUs, at most 8 */
	int libgit2_status;	/* 1: use libgit2's status, never the fast scan */
	int no_openat2;		/* 1: open directories component by component,
				 * as on a kernel without openat2 */
	const struct vcs_index_id *index_hint;	/* or NULL: see vcs_index_id */
};

/* Observes the workspace `ws` (from vcs_discover) into *out, which the
 * caller releases with vcs_observation_release; `opts` may be NULL.  Budget
 * and deadline exhaustion are recorded in the observation, not errors.
 * May start up to opts->threads - 1 short-lived threads (joined before it
 * returns); not to be called concurrently on one workspace's objects.
 * Returns SW_EGIT when libgit2 cannot read the repository, SW_EIO when the
 * worktree root cannot be opened, SW_ENOMEM; on failure *out holds no
 * allocation. */
int vcs_observe(struct vcs_observation *out, const struct vcs_identity *ws,
		const struct vcs_observe_opts *opts, struct sw_error *err);

/* With `on`, later observations keep the repository handle, the parsed
 * index with its fingerprint and the head-to-index deltas, and reuse each
 * only while they can prove it current (io/git/observe_warm.c); for a
 * long-lived process such as slipway mcp.  Off
 * releases what is kept.  Not thread-safe: one observation at a time. */
void vcs_keep_warm(int on);
#ifdef SW_TESTING
/* How often the kept handle, index and head-to-index deltas were reused
 * (out[0..2]), and how often the head-to-index side came from the cache
 * tree (out[3]). */
void vcs_test_counts(unsigned out[4]);
/* How many worktree files the fast scan hashed without loading filters,
 * having proved that none applies. */
unsigned vcs_test_unfiltered(void);
/* How many untracked paths the fast scan found not ignored without asking
 * libgit2, having proved that no ignore rule can apply to them. */
unsigned vcs_test_unignored(void);
/* Index fingerprints hashed on a thread of their own so far. */
unsigned vcs_test_fp_threads(void);
/* Index fingerprints taken from vcs_observe_opts.index_hint so far. */
unsigned vcs_test_fp_hinted(void);
/* How many listed names the fast scan looked up by binary search, having
 * no table of its directory's tracked names. */
unsigned vcs_test_name_searches(void);
/* Keeps only the low `bits` bits of the fast scan's name hash (0: every
 * name collides); 32 is the whole hash. */
void vcs_test_name_hash_bits(unsigned bits);
/* How many fast scans were refused for index paths out of bytewise order. */
unsigned vcs_test_unordered(void);
/* How many index reads faulted their entries' pages in on a thread of
 * their own while the file was mapped. */
unsigned vcs_test_prefault_threads(void);
/* The fewest index entries whose read does that. */
size_t vcs_test_prefault_entries(void);
/* How many observations took the handle vcs_discover had opened. */
unsigned vcs_test_discovered_taken(void);
#endif

/* Recomputes path_fingerprint (only when details are complete) and
 * snapshot_hash from the structured fields and checks every rule of
 * spec/git-observation.md "Validation".  Returns SW_EINVAL naming the first
 * broken rule, SW_ENOMEM. */
int vcs_observation_validate(const struct vcs_observation *o,
			     struct sw_error *err);

/* Writes snapshot_hash from the other fields (used by vcs_observe and by
 * tests that build an observation by hand). */
int vcs_observation_seal(struct vcs_observation *o, struct sw_error *err);

/* 1 when `now` shows a change since `start` by comparable evidence: equal
 * snapshot hashes never change; two complete observations with different
 * hashes always do; otherwise head, index or status fingerprints, or a path
 * retained in both with a comparable difference (see the spec). */
int vcs_observation_changed_from(const struct vcs_observation *now,
				 const struct vcs_observation *start);

/* Encodes `o` as the schema's gitObservation (keys in the reference's
 * order; optional path fields omitted when absent).  Returns a new Jansson
 * reference or NULL on ENOMEM. */
struct json_t *vcs_observation_to_json(const struct vcs_observation *o);

/* Decodes and validates (vcs_observation_validate) a gitObservation object
 * into *out (released with vcs_observation_release).  Unknown or missing
 * keys and wrong types are SW_EPARSE; broken rules SW_EINVAL. */
int vcs_observation_from_json(struct vcs_observation *out,
			      const struct json_t *v, struct sw_error *err);

/* Deep copy into *dst (fully overwritten).  SW_ENOMEM. */
int vcs_observation_copy(struct vcs_observation *dst,
			 const struct vcs_observation *src,
			 struct sw_error *err);

/* Frees the members and resets *o to VCS_OBSERVATION_INIT; NULL is a no-op. */
void vcs_observation_release(struct vcs_observation *o);

#endif
