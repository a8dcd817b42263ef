/* Private to io/git/: what the files of the Git observation share (R2:
 * `vcs__` names, the structures two of them fill or read).  Nothing outside
 * io/git/ includes it; libgit2's types appear here, never in a public
 * header. */

#ifndef IO_GIT_OBSERVE_INTERNAL_H
#define IO_GIT_OBSERVE_INTERNAL_H

/* The files, one concern each; calls go one way, down this list (each file
 * calls only files below it):
 *   observe.c              vcs_observe: the observation put together
 *   observe_warm.c         what is kept between observations (vcs_keep_warm)
 *   observe_scan.c         the fast worktree scan and its threads
 *   observe_submodule.c    gitlinks, as porcelain v2 reports them
 *   observe_cachetree.c    head-to-index deltas from the cache tree
 *   observe_record.c       status records and canonical status lines
 *   observe_index.c        the index file, read directly
 *   observe_path.c         one dirty path: opened, hashed within the budget
 *   observe_json.c         gitObservation to and from JSON
 *   observe_value.c        validation, comparison, copy, release
 *   observe_fingerprint.c  index_fingerprint, path_fingerprint, snapshot_hash
 * observe_json.c calls observe_value.c, which calls observe_fingerprint.c;
 * observe_scan.c calls observe_cachetree.c, observe_record.c and
 * observe_path.c; observe_submodule.c calls observe_record.c;
 * observe_warm.c calls observe_index.c and observe_cachetree.c, and vcs.c
 * (discovery) for the handle it opened. */

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <git2.h>

#include "io/git/observe.h"
#include "io/git/vcs.h"
#include "io/util/digest.h"
#include "io/util/err.h"
#include "io/util/os.h"

/* ---- status records (observe_record.c) ---------------------------------- */

/* One dirty-path record before merging: the path observation keys. */
struct srec {
	char *path;
	const char *category;	/* static */
	char state[16];
	size_t seq;		/* canonical status order, for merging */
};

/* Where git's porcelain v2 prints a record: changed tracked entries, then
 * unmerged ones, then untracked paths, each group by path. */
enum line_group { LINE_TRACKED = 0, LINE_UNMERGED, LINE_UNTRACKED };

/* One canonical status line (spec: "status_fingerprint"). */
struct sline {
	enum line_group group;
	char *path;		/* borrowed from the line's text */
	char *text;		/* whole record, NUL terminated, len bytes + NUL */
	size_t len;
};

struct collect {
	struct srec *recs;
	size_t nrecs, caprecs;
	struct sline *lines;
	size_t nlines, caplines;
	int rootfd;		/* the worktree root, for git's special cases */
	int own_gitlinks;	/* gitlinks come from vcs__add_gitlinks, not libgit2 */
};

/* One tracked status entry in neutral form: produced from a libgit2 status
 * entry or by the fast worktree scan. */
struct tent {
	const char *path;	/* the index path (destination of a rename) */
	const char *orig;	/* rename origin, else NULL */
	char x, y;		/* head-to-index and index-to-worktree letters */
	unsigned similarity;
	unsigned m_head, m_index, m_wt;
	const git_oid *h_head, *h_index;	/* NULL: zero id */
	const char *sub;	/* a gitlink's "S<C><M><U>", else NULL */
};

/* Frees the records and lines of `c` (not `c` itself). */
void vcs__collect_release(struct collect *c);
/* Records untracked `path` ("? path").  0 or SW_ENOMEM. */
int vcs__add_untracked(struct collect *c, const char *path);
/* Records tracked entry `t` (nothing when both letters are '.').  0 or
 * SW_ENOMEM. */
int vcs__add_tracked(struct collect *c, const struct tent *t);
/* In a sparse checkout, clears in memory the skip-worktree bit of every
 * entry present in the worktree, as git does (never written back). */
void vcs__unskip_present_files(git_repository *repo, git_index *index, int rootfd);
/* Records one libgit2 status entry.  0 or SW_ENOMEM. */
int vcs__add_entry(struct collect *c, git_index *index, const git_status_entry *e);

/* ---- submodules (observe_submodule.c) ------------------------------------ */

/* 1 when the gitlinks are recorded by vcs__add_gitlinks rather than by
 * libgit2's status. */
int vcs__own_gitlinks(git_repository *repo, git_index *index, int unborn);
/* Records every gitlink of HEAD or of the index (stage 0).  0 or
 * SW_ENOMEM. */
int vcs__add_gitlinks(struct collect *c, git_repository *repo, git_index *index, int unborn,
		      int renames);

/* ---- budget, clock and one path (observe_path.c) ------------------------- */

struct budget {
	int64_t remaining, limit, hashed, deadline;
	vcs_clock_fn *clock;
	void *clock_ctx;
	int complete, byte_limit_exceeded, deadline_exceeded;
};

/* CLOCK_MONOTONIC in nanoseconds (the default vcs_clock_fn). */
int64_t vcs__mono_ns(void *ctx);
/* The sw_os_open_beneath bits for `try2` (0: walk the components, as on
 * a kernel without openat2). */
#define VCS_BENEATH_HOW(try2) ((try2) ? 0u : (unsigned)SW_OS_BENEATH_WALK)
/* The directory of the last path observed, kept open for the next path
 * in it: the paths come sorted, so a directory's files are adjacent. */
struct parent_dir {
	char *rel;	/* below the root (sw_malloc'd), NULL when none is open */
	int fd;		/* O_PATH, -1 when none is open */
};

#define PARENT_DIR_INIT { NULL, -1 }

/* Closes the directory kept in `pd`, if any. */
void vcs__parent_dir_release(struct parent_dir *pd);
/* Fills the observation fields of `p` (path/category/state already set),
 * hashing within `b`; its directory is opened through `pd`. */
void vcs__observe_path(struct vcs_path_obs *p, int rootfd, struct parent_dir *pd,
		       struct budget *b, int64_t full_max, unsigned char *buf, int try2);
/* Replaces a path that is not UTF-8 by its lossy form.  0 or SW_ENOMEM. */
int vcs__record_path(struct vcs_path_obs *p);

/* ---- fingerprints (observe_fingerprint.c) -------------------------------- */

/* Adds section `name` with the decimal form of `v`. */
void vcs__section_i64(struct sw_sha256 *h, const char *name, int64_t v);
/* Adds the sections of one path observation. */
void vcs__hash_path_obs(struct sw_sha256 *h, const struct vcs_path_obs *p);
/* What one retained detail costs against VCS_OBSERVE_DETAIL_BYTES. */
int64_t vcs__detail_cost(const struct vcs_path_obs *p);
/* path_fingerprint over the retained details of `o`.  SW_ENOMEM. */
int vcs__path_fingerprint_of(const struct vcs_observation *o,
			     char out[SW_DIGEST_LEN], struct sw_error *err);
/* index_fingerprint of entries ents[0..n), in two steps: _prepare
 * allocates all it needs (SW_ENOMEM), _compute only reads the entries and
 * hashes, so it cannot fail and may run on a thread of its own; it
 * releases what _prepare took, and every prepared fingerprint is
 * computed. */
struct vcs_index_fp {
	struct sw_sha256 *h;
	char *buf;
};
int vcs__index_fingerprint_prepare(struct vcs_index_fp *f, struct sw_error *err);
void vcs__index_fingerprint_compute(struct vcs_index_fp *f, const git_index_entry *const *ents,
				    size_t n, char out[SW_DIGEST_LEN]);

/* ---- the index file, read directly (observe_index.c) --------------------- */

/* The index as observe_index.c reads it (why, there). */
struct rawindex {
	const unsigned char *buf;	/* the mapping, or NULL */
	size_t len;
	git_index_entry *ents;
	const git_index_entry **ptrs;
	size_t n;
	char *v4paths;
	int tree_valid;		/* the TREE extension's root is valid */
	git_oid tree;
	const unsigned char *tree_ext;	/* the whole TREE extension, or NULL */
	size_t tree_len;
	int64_t mtime;		/* index file mtime, seconds */
	struct stat st;		/* the file read */
	/* Read by vcs__rawindex_read (else 0): whether every entry is plain
	 * (vcs__entry_plain) and the paths are in bytewise order. */
	int checked, plain, ordered;
};

/* An entry the fast scan handles: stage 0, a file, an executable or a
 * symlink, neither intent-to-add nor skip-worktree. */
static inline int vcs__entry_plain(const git_index_entry *e)
{
	return GIT_INDEX_ENTRY_STAGE(e) == 0 &&
	       (e->flags_extended & GIT_INDEX_ENTRY_EXTENDED_FLAGS) == 0 &&
	       (e->mode == GIT_FILEMODE_BLOB || e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ||
		e->mode == GIT_FILEMODE_LINK);
}

/* Unmaps and frees, and zeroes *ri. */
void vcs__rawindex_free(struct rawindex *ri);
/* 0 on success (a missing file is an empty index), 1 when unsupported or
 * malformed, SW_ENOMEM. */
int vcs__rawindex_read(struct rawindex *ri, const char *path);
/* 1 when the index file at `path` is still the one `ri` was read from. */
int vcs__rawindex_current(const struct rawindex *ri, const char *path);
/* The identity of the file `ri` was read from, with `fingerprint` (not
 * valid for an index not read directly or with a checksum of zeros). */
void vcs__rawindex_id(struct vcs_index_id *id, const struct rawindex *ri,
		      const char fingerprint[SW_DIGEST_LEN]);
/* 1 when `ri` was read from the very file `id` names (id may be NULL). */
int vcs__rawindex_is(const struct rawindex *ri, const struct vcs_index_id *id);

/* ---- the head-to-index side (observe_cachetree.c, observe_scan.c) -------- */

/* The head-to-index side as the scan consumes it: libgit2's deltas copied
 * out of the diff, so that they can outlive it (and be kept warm). */
struct hdelta {
	git_delta_t status;
	unsigned old_mode, similarity;
	git_oid old_id;
	char *old_path, *new_path;
};

struct hdiff {
	struct hdelta *d;
	size_t n;
};

/* One tracked directory of the worktree to visit: the index entries
 * [lo, hi) lie below it. */
struct dtask {
	char *rel;		/* its path, "" for the root (sw_malloc'd) */
	size_t rl, lo, hi;
	int ign_above;		/* a directory above it may hold a .gitignore */
};

struct scan {
	git_repository *repo;
	int rootfd;
	size_t n;
	const git_index_entry **ent;	/* borrowed */
	char *y;		/* per entry: '.', 'M', 'D', 'T', or 'c' (check) */
	unsigned *mwt;		/* per entry: worktree mode when y != '.' */
	int64_t index_mtime;	/* seconds; entries not older are racy */
	char **untracked;
	size_t nunt, capunt;
	int walk_rc;
	pthread_mutex_t mu;	/* guards the tasks, untracked and walk_rc */
	pthread_cond_t cv;	/* a task was pushed, or the last one ended */
	struct dtask *tasks;	/* tracked directories waiting for a visit */
	size_t ntasks, captasks;
	size_t busy;		/* directories being visited */
	int diff_taken;		/* the head-to-index diff has a thread */
	int parallel;		/* more than one worker was planned */
	pthread_mutex_t gitmu;	/* serialises every libgit2 call on `repo` */
	/* While the diff holds `repo`, ignore lookups use a second handle on
	 * the same repository (opened on first use, guarded by ignmu);
	 * ign_shared sends them to `repo` instead. */
	pthread_mutex_t ignmu;
	git_repository *irepo;
	int ign_shared, irepo_failed;
	char *wd, *gd;		/* `repo`'s worktree and Git dir */
	git_index *index;	/* libgit2's, for the diff (NULL: the repository's) */
	int renames, unborn, need_diff, diff_rc;
	int reload_index;	/* the repository's index may be stale: read it */
	int openat2;		/* sw_os_open_beneath may try openat2 */
	const git_oid *tree_id;	/* HEAD's tree, NULL when unborn */
	const unsigned char *tree_ext;	/* the index's TREE extension, or NULL */
	size_t tree_len;
	struct hdiff diff;	/* the head-to-index side, once computed */
	char diff_err[256];
	/* Set (atomically, by any worker) when the walk met something that
	 * may give a tracked path an attribute: a `.gitattributes` listed in
	 * a directory or tracked in the index, or a directory it could
	 * search but not list.  Read after the workers are joined. */
	int attr_seen;
	/* Whether an ignore rule can come from outside the worktree
	 * (info/exclude, core.excludesFile or the XDG ignore file): -1 not
	 * asked yet, 0 none can, 1 one may.  Asked once, under ignmu, from
	 * the paths below, taken before the workers start. */
	int ign_outside;
	char *ign_exclude;	/* $GIT_COMMON_DIR/info/exclude, or NULL */
	char *ign_file;		/* core.excludesFile, or NULL when unset */
	int ign_file_rc;	/* 0 set, 1 unset (XDG's ignore), -1 unknown */
};

/* What the fast scan works from. */
struct scan_in {
	git_repository *repo;
	git_index *index;		/* libgit2's, or NULL: the repository's */
	const git_index_entry **ents;	/* the index entries, in index order */
	size_t count;
	int64_t index_mtime;		/* seconds */
	int rootfd, renames, unborn, threads, openat2;
	int reload_index;		/* a kept repository: its index may be stale */
	int ordered;			/* paths in bytewise order: 1, 0, -1 not known */
	const git_oid *tree_id;		/* HEAD's tree, NULL when unborn */
	const unsigned char *tree_ext;	/* the index's TREE extension, or NULL */
	size_t tree_len;
	/* The head-to-index side: `known` when it is known already (the
	 * index provably equals HEAD: no deltas), else computed with
	 * libgit2 and, when `keep` is not NULL, copied there. */
	const struct hdiff *known;
	struct hdiff *keep;
	git_config *cfg;		/* the snapshot read for this observation */
};

/* Frees the deltas and empties *h. */
void vcs__hdiff_release(struct hdiff *h);
/* The head-to-index deltas of s's index against HEAD's tree from the cache
 * tree, into s->diff: 0, 1 when libgit2's diff must decide, SW_ENOMEM.
 * Called with s->gitmu held. */
int vcs__cache_tree_diff(struct scan *s);
#ifdef SW_TESTING
extern unsigned vcs__test_ct_diffs;	/* head-to-index sides taken from the cache tree */
extern unsigned vcs__test_unfiltered;	/* files the scan hashed with no filter */
extern unsigned vcs__test_fp_threads;	/* index fingerprints hashed on a thread */
extern unsigned vcs__test_fp_hinted;	/* index fingerprints taken from a hint */
extern unsigned vcs__test_unignored;	/* paths found not ignored without libgit2 */
extern unsigned vcs__test_name_searches;	/* listed names searched for, not hashed */
extern unsigned vcs__test_unordered;	/* scans refused for paths out of order */
extern unsigned vcs__test_prefault_threads;	/* index entry arrays faulted in on a thread */
extern uint32_t vcs__test_name_hash_mask;	/* the name hash's bits kept */
#endif

/* 1 when the fast scan computes what git status would for this repository.
 * `plain` says whether every entry is plain (vcs__entry_plain), -1 when
 * not known: the entries are asked. */
int vcs__scan_eligible(git_config *cfg, const git_index_entry *const *ents, size_t count,
		       int plain);
/* Fills `c` from the fast scan.  1 when not eligible (the caller falls back
 * to libgit2's status), 0, or a negative code. */
int vcs__scan_status(struct collect *c, const struct scan_in *in, struct sw_error *err);

/* ---- the handle discovery opened (vcs.c) ---------------------------------- */

/* The handle the last vcs_discover opened, when it was opened for exactly
 * workspace `ws`: the caller owns it, and nothing stays kept.  Else NULL,
 * and what was kept is freed. */
git_repository *vcs__take_discovered(const struct vcs_identity *ws);
/* Frees the handle vcs_discover kept, if any. */
void vcs__drop_discovered(void);

/* ---- kept between observations (observe_warm.c) -------------------------- */

/* What observe_warm.c keeps (see there); observe.c reads and fills it. */
struct warm {
	int on;
	char *wd, *gd, *cd;	/* the workspace `repo` was opened for */
	git_repository *repo;
	int ri_ok;		/* `ri` and `fp` hold a current-when-read index */
	unsigned long ri_gen;	/* bumped whenever `ri` is read again */
	struct rawindex ri;
	char fp[SW_DIGEST_LEN];
	int diff_ok;		/* `diff` is for diff_tree, diff_gen, diff_renames */
	unsigned long diff_gen;
	git_oid diff_tree;
	int diff_renames, diff_unborn;
	struct hdiff diff;
	unsigned hits[3];	/* reuses of the handle, the index, the deltas */
};

extern struct warm vcs__warm;

/* Frees everything kept (keeping stays as it is). */
void vcs__warm_drop(void);
/* The handle for workspace `ws`: the kept one (*kept = 1), else a new one,
 * kept when keeping is on.  The caller frees it only when it is not
 * vcs__warm.repo.  0 or a libgit2 error. */
int vcs__repo_for(git_repository **out, const struct vcs_identity *ws, int *kept);

#endif
