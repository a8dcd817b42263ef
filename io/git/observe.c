/* vcs_observe: one observation put together: HEAD, the index and its
 * fingerprint, the status records (the fast scan, else libgit2's status),
 * then every dirty path merged, observed and fingerprinted, and the whole
 * sealed.  The pieces are the other observe_*.c files (observe_internal.h);
 * the state kept between observations is observe_warm.c's. */

#include "io/git/observe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/buf.h"

#define HEAD_UNBORN "unborn"

static int cmp_line(const void *a, const void *b)
{
	const struct sline *x = a, *y = b;

	if (x->group != y->group)
		return (int)x->group - (int)y->group;
	return strcmp(x->path, y->path);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct srec *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* status.renames, else diff.renames; default on (git's default). */
static int renames_enabled(git_config *cfg)
{
	int v;

	if (cfg == NULL)
		return 1;
	if (git_config_get_bool(&v, cfg, "status.renames") == 0)
		return v;
	if (git_config_get_bool(&v, cfg, "diff.renames") == 0)
		return v;
	return 1;
}

/* ---- the observation --------------------------------------------------- */

static int git_fail(struct sw_error *err, const char *what)
{
	const git_error *e = git_error_last();

	return sw_error_set(err, SW_EGIT, "%s: %s", what,
			    e && e->message ? e->message : "libgit2 error");
}

/* The status records from libgit2's own status (the general path). */
static int libgit2_status(struct collect *c, git_repository *repo, git_index *index,
			  int renames, int unborn, struct sw_error *err)
{
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	int rc = 0;

	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
		   GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		   GIT_STATUS_OPT_SORT_CASE_SENSITIVELY |
		   GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
	if (renames)
		so.flags |= GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX;
	if ((c->own_gitlinks = vcs__own_gitlinks(repo, index, unborn)))
		so.flags |= GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&list, repo, &so) < 0)
		return git_fail(err, "cannot compute status");
	for (size_t i = 0, n = git_status_list_entrycount(list); i < n && rc == 0; i++)
		if (vcs__add_entry(c, index, git_status_byindex(list, i)) < 0)
			rc = sw_error_set(err, SW_ENOMEM, "cannot record status");
	git_status_list_free(list);
	if (rc == 0 && c->own_gitlinks && vcs__add_gitlinks(c, repo, index, unborn, renames) < 0)
		rc = sw_error_set(err, SW_ENOMEM, "cannot record submodule status");
	return rc;
}

/* Merges the category (or state) list of a path with one more record's:
 * the two strings as a set, sorted and comma-joined.  The left side may
 * already be a joined list; it is compared as one string (spec
 * "Dirty paths"). */
static char *merge_tokens(const char *left, const char *right)
{
	int c = strcmp(left, right);

	if (c == 0)
		return sw_strdup(left);
	return c < 0 ? sw_asprintf("%s,%s", left, right) : sw_asprintf("%s,%s", right, left);
}

/* libgit2's index of `repo` (a new reference), read again from its file
 * when the handle was kept from an earlier observation (`kept`): the
 * loaded copy may be stale, or changed in memory by vcs__unskip_present_files. */
static int repo_index(git_index **out, git_repository *repo, int kept, struct sw_error *err)
{
	if (git_repository_index(out, repo) < 0 || (kept && git_index_read(*out, 1) < 0))
		return git_fail(err, "cannot read index");
	return 0;
}

/* The tree of commit `head`, as "HEAD^{tree}" peels it. */
static int head_tree(git_oid *out, git_repository *repo, const git_oid *head,
		     struct sw_error *err)
{
	git_object *obj = NULL, *tree = NULL;
	int rc = 0;

	if (git_object_lookup(&obj, repo, head, GIT_OBJECT_ANY) < 0 ||
	    git_object_peel(&tree, obj, GIT_OBJECT_TREE) < 0)
		rc = git_fail(err, "cannot read the HEAD tree");
	else
		git_oid_cpy(out, git_object_id(tree));
	git_object_free(tree);
	git_object_free(obj);
	return rc;
}

/* The index fingerprint of a large index is computed beside the walk: at
 * 50,000 entries it would otherwise hold the walk back by 5 ms (formatting
 * and hashing 3.3 MB).  Only for the index read directly, whose entries
 * are this observation's own memory and never written while it runs
 * (libgit2's index may be read again, its entries freed, by the status it
 * falls back to); below the size at which the walk starts threads of its
 * own, it stays on the caller's thread. */
#define FINGERPRINT_THREAD_MIN 1024

struct fingerprint_job {
	struct vcs_index_fp fp;
	const git_index_entry *const *ents;
	size_t n;
	char out[SW_DIGEST_LEN];
	int started;
	pthread_t tid;
};

static void *fingerprint_run(void *arg)
{
	struct fingerprint_job *j = arg;

	vcs__index_fingerprint_compute(&j->fp, j->ents, j->n, j->out);
	return NULL;
}

/* Starts the fingerprint of ents[0..n): what it needs is allocated here,
 * so that only this call can fail (SW_ENOMEM); the hashing runs on a
 * thread of its own when the entries are the observation's `own` and many,
 * and one starts. */
static int fingerprint_start(struct fingerprint_job *j, const git_index_entry *const *ents,
			     size_t n, int own, struct sw_error *err)
{
	int rc = vcs__index_fingerprint_prepare(&j->fp, err);

	if (rc < 0)
		return rc;
	j->ents = ents;
	j->n = n;
	j->started = own && n >= FINGERPRINT_THREAD_MIN &&
		     sw_os_thread_start(&j->tid, fingerprint_run, j, 0) == 0;
#ifdef SW_TESTING
	if (j->started)
		__atomic_add_fetch(&vcs__test_fp_threads, 1, __ATOMIC_RELAXED);
#endif
	if (!j->started)
		fingerprint_run(j);
	return 0;
}

/* Waits for the fingerprint and copies it into `out`. */
static void fingerprint_join(struct fingerprint_job *j, char out[SW_DIGEST_LEN])
{
	if (j->started)
		pthread_join(j->tid, NULL);
	j->started = 0;
	memcpy(out, j->out, SW_DIGEST_LEN);
}

int vcs_observe(struct vcs_observation *out, const struct vcs_identity *ws,
		const struct vcs_observe_opts *opts, struct sw_error *err)
{
	struct vcs_observe_opts o = { 0 };
	struct collect c = { 0 };
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_config *cfg = NULL;
	struct sw_sha256 *ph = NULL;
	struct rawindex own_ri = { 0 }, *ri = &own_ri;
	struct hdiff kept_diff = { NULL, 0 };
	struct fingerprint_job fp = { .started = 0 };
	int fp_pending = 0;
	int renames, unborn, kept = 0, fresh_index = 0;
	struct budget b = { 0 };
	struct parent_dir pd = PARENT_DIR_INIT;
	unsigned char *buf = NULL;
	int rootfd = -1, rc;
	int64_t detail = 0;
	git_oid head;
	size_t npaths = 0;

	*out = (struct vcs_observation)VCS_OBSERVATION_INIT;
	if (opts != NULL)
		o = *opts;
	if (o.byte_limit <= 0)
		o.byte_limit = VCS_OBSERVE_BYTE_LIMIT;
	if (o.full_hash_max <= 0)
		o.full_hash_max = VCS_OBSERVE_FULL_HASH_MAX;
	if (o.deadline_ns <= 0)
		o.deadline_ns = VCS_OBSERVE_DEADLINE_NS;
	if (o.detail_bytes == 0)
		o.detail_bytes = VCS_OBSERVE_DETAIL_BYTES;
	if (o.clock == NULL)
		o.clock = vcs__mono_ns;

	if ((rc = vcs__libgit2_init(err)) < 0)
		goto out;
	if (vcs__repo_for(&repo, ws, &kept) < 0) {
		rc = git_fail(err, "cannot open repository");
		goto out;
	}
	/* HEAD: the commit id, or "unborn" for a branch with no commit yet. */
	if (git_reference_name_to_id(&head, repo, "HEAD") == 0) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &head);
		out->head = sw_strdup(hex);
	} else if (git_repository_head_unborn(repo) == 1) {
		out->head = sw_strdup(HEAD_UNBORN);
	} else {
		rc = git_fail(err, "cannot resolve HEAD");
		goto out;
	}
	if (out->head == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate head");
		goto out;
	}
	/* The index: parsed directly when possible (or the one kept, while its
	 * file is unchanged), else through libgit2. */
	{
		char *ipath = sw_asprintf("%sindex", git_repository_path(repo));

		if (ipath != NULL && vcs__warm.on && vcs__warm.ri_ok &&
		    vcs__rawindex_current(&vcs__warm.ri, ipath)) {
			ri = &vcs__warm.ri;
			memcpy(out->index_fingerprint, vcs__warm.fp, sizeof(vcs__warm.fp));
			vcs__warm.hits[1]++;
			rc = 0;
		} else {
			if (vcs__warm.on) {
				vcs__warm.ri_ok = 0;
				vcs__warm.ri_gen++;
			}
			rc = ipath ? vcs__rawindex_read(ri, ipath) : SW_ENOMEM;
			fresh_index = rc == 0;
		}
		sw_free(ipath);
		if (rc < 0) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot read index");
			goto out;
		}
	}
	if (rc == 1) {
		if ((rc = repo_index(&index, repo, kept, err)) < 0)
			goto out;
		ri->n = git_index_entrycount(index);
		if (ri->n && (ri->ptrs = sw_calloc(ri->n, sizeof(*ri->ptrs))) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot read index");
			goto out;
		}
		for (size_t i = 0; i < ri->n; i++)
			ri->ptrs[i] = git_index_get_byindex(index, i);
		{
			struct stat ist;

			ri->mtime = stat(git_index_path(index), &ist) == 0 ?
				    (int64_t)sw_os_st_mtim(&ist).tv_sec : INT64_MAX;
		}
	}
	if (ri != &vcs__warm.ri && index == NULL && vcs__rawindex_is(ri, o.index_hint)) {
		/* The very file the hint's fingerprint was taken of. */
		memcpy(out->index_fingerprint, o.index_hint->fingerprint, SW_DIGEST_LEN);
#ifdef SW_TESTING
		__atomic_add_fetch(&vcs__test_fp_hinted, 1, __ATOMIC_RELAXED);
#endif
	} else if (ri != &vcs__warm.ri) {
		if ((rc = fingerprint_start(&fp, ri->ptrs, ri->n, index == NULL, err)) < 0)
			goto out;
		fp_pending = 1;
	}
	if (fresh_index && vcs__warm.on) {
		/* Kept for the next observation, with its fingerprint once
		 * that is known (below).  The entries stay where they are. */
		vcs__rawindex_free(&vcs__warm.ri);
		vcs__warm.ri = own_ri;
		memset(&own_ri, 0, sizeof(own_ri));
		ri = &vcs__warm.ri;
	}

	if ((rootfd = open(ws->worktree_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = sw_error_sys(err, errno, "cannot open worktree '%s'", ws->worktree_root);
		goto out;
	}
	c.rootfd = rootfd;
	if (git_repository_config_snapshot(&cfg, repo) < 0)
		cfg = NULL;
	renames = renames_enabled(cfg);
	unborn = strcmp(out->head, HEAD_UNBORN) == 0;
	rc = 1;
	if (!o.libgit2_status &&
	    vcs__scan_eligible(cfg, ri->ptrs, ri->n, ri->checked ? ri->plain : -1)) {
		static const struct hdiff none = { NULL, 0 };
		struct scan_in in = {
			.repo = repo, .index = index, .ents = ri->ptrs, .count = ri->n,
			.index_mtime = ri->mtime, .rootfd = rootfd, .renames = renames,
			.unborn = unborn, .threads = o.threads, .openat2 = !o.no_openat2,
			.reload_index = kept, .ordered = ri->checked ? ri->ordered : -1,
			.tree_ext = ri->tree_ext, .tree_len = ri->tree_len,
			.cfg = cfg,
		};
		git_oid tree_id;

		if (!unborn && (rc = head_tree(&tree_id, repo, &head, err)) < 0)
			goto out;
		in.tree_id = unborn ? NULL : &tree_id;
		/* A valid cache-tree root equal to HEAD's tree proves that
		 * nothing is staged: the head-to-index diff can be skipped.
		 * With an unborn HEAD, an empty index is all of it. */
		if (unborn ? ri->n == 0 : ri->tree_valid && git_oid_equal(&tree_id, &ri->tree))
			in.known = &none;
		else if (ri == &vcs__warm.ri && vcs__warm.diff_ok && vcs__warm.diff_gen == vcs__warm.ri_gen &&
			 vcs__warm.diff_renames == renames && vcs__warm.diff_unborn == unborn &&
			 (unborn || git_oid_equal(&vcs__warm.diff_tree, &tree_id))) {
			in.known = &vcs__warm.diff;
			vcs__warm.hits[2]++;
		}
		else if (ri == &vcs__warm.ri && index == NULL)
			in.keep = &kept_diff;
		rc = vcs__scan_status(&c, &in, err);
		if (rc < 0)
			goto out;
		if (in.keep != NULL && rc == 0) {
			/* Kept for the next observation of this index and tree. */
			vcs__hdiff_release(&vcs__warm.diff);
			vcs__warm.diff = kept_diff;
			memset(&kept_diff, 0, sizeof(kept_diff));
			vcs__warm.diff_ok = 1;
			vcs__warm.diff_gen = vcs__warm.ri_gen;
			vcs__warm.diff_renames = renames;
			vcs__warm.diff_unborn = unborn;
			if (!unborn)
				git_oid_cpy(&vcs__warm.diff_tree, &tree_id);
		}
	}
	if (rc == 1) {
		if (index == NULL && (rc = repo_index(&index, repo, kept, err)) < 0)
			goto out;
		vcs__unskip_present_files(repo, index, rootfd);
		if ((rc = libgit2_status(&c, repo, index, renames, unborn, err)) < 0)
			goto out;
	}

	/* status_fingerprint: tracked, unmerged, then untracked records, each
	 * group by path, as git prints them. */
	if (c.nlines > 1)
		qsort(c.lines, c.nlines, sizeof(*c.lines), cmp_line);
	{
		struct sw_sha256 *sh = NULL;

		if ((rc = sw_sha256_new(&sh, err)) < 0)
			goto out;
		for (size_t i = 0; i < c.nlines; i++)
			sw_sha256_update(sh, c.lines[i].text, c.lines[i].len + 1);
		sw_sha256_final_prefixed(sh, out->status_fingerprint);
	}

	/* Dirty paths: merge duplicates, observe, fingerprint, retain. */
	if (c.nrecs > 1)
		qsort(c.recs, c.nrecs, sizeof(*c.recs), cmp_rec);
	if ((buf = sw_malloc(VCS_OBSERVE_SAMPLE_BYTES)) == NULL ||
	    (rc = sw_sha256_new(&ph, err)) < 0) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate observation");
		goto out;
	}
	b.remaining = b.limit = o.byte_limit;
	b.clock = o.clock;
	b.clock_ctx = o.clock_ctx;
	b.deadline = o.clock(o.clock_ctx) + o.deadline_ns;
	b.complete = 1;
	/* Pass 1: one entry per distinct path, records merged in order. */
	if (c.nrecs > 0 &&
	    (out->paths = sw_calloc(c.nrecs, sizeof(*out->paths))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate paths");
		goto out;
	}
	for (size_t i = 0; i < c.nrecs;) {
		struct vcs_path_obs *p = &out->paths[npaths++];
		size_t j = i + 1;

		p->path = c.recs[i].path;
		c.recs[i].path = NULL;
		p->category = sw_strdup(c.recs[i].category);
		p->state = sw_strdup(c.recs[i].state);
		for (; j < c.nrecs && strcmp(c.recs[j].path, p->path) == 0; j++) {
			char *cat = p->category ? merge_tokens(p->category, c.recs[j].category) : NULL;
			char *st = p->state ? merge_tokens(p->state, c.recs[j].state) : NULL;

			sw_free(p->category);
			sw_free(p->state);
			p->category = cat;
			p->state = st;
		}
		i = j;
		if (p->category == NULL || p->state == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot allocate path");
			goto out;
		}
	}
	/* Pass 2: observe every path; the fingerprint covers all of them, the
	 * details keep the prefix that fits the cost budget. */
	out->path_count = (int64_t)npaths;
	vcs__section_i64(ph, "path_count", out->path_count);
	for (size_t i = 0; i < npaths; i++) {
		struct vcs_path_obs *p = &out->paths[i];

		vcs__observe_path(p, rootfd, &pd, &b, o.full_hash_max, buf, !o.no_openat2);
		if (vcs__record_path(p) < 0) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot allocate path");
			goto out;
		}
		vcs__hash_path_obs(ph, p);
		/* The details are a prefix sorted and unique as recorded: a
		 * name recorded with U+FFFD that no longer sorts after the one
		 * before it ends them, as the cost budget does. */
		if (!out->details_truncated &&
		    detail + vcs__detail_cost(p) <= (int64_t)o.detail_bytes &&
		    (i == 0 || strcmp(out->paths[i - 1].path, p->path) < 0)) {
			detail += vcs__detail_cost(p);
			out->retained++;
		} else {
			out->details_truncated = 1;
		}
	}
	sw_sha256_final_prefixed(ph, out->path_fingerprint);
	ph = NULL;
	/* Drop the details past the retained prefix. */
	for (size_t i = out->retained; i < npaths; i++) {
		sw_free(out->paths[i].path);
		sw_free(out->paths[i].category);
		sw_free(out->paths[i].state);
	}
	npaths = out->retained;
	out->content_observation_complete = b.complete;
	out->content_bytes_hashed = b.hashed;
	out->content_byte_limit = b.limit;
	out->content_byte_limit_exceeded = b.byte_limit_exceeded;
	out->content_deadline_exceeded = b.deadline_exceeded;
	if (fp_pending) {
		fp_pending = 0;
		fingerprint_join(&fp, out->index_fingerprint);
	}
	if (fresh_index && vcs__warm.on) {
		memcpy(vcs__warm.fp, out->index_fingerprint, sizeof(vcs__warm.fp));
		vcs__warm.ri_ok = 1;
	}
	vcs__rawindex_id(&out->index_id, ri, out->index_fingerprint);
	rc = vcs_observation_seal(out, err);
out:
	/* A failure on the way still waits for the fingerprint's thread: it
	 * reads the entries freed below. */
	if (fp_pending)
		fingerprint_join(&fp, out->index_fingerprint);
	/* On failure, count the partly built entries so release frees them. */
	if (rc < 0 && out->paths != NULL && out->retained < npaths)
		out->retained = npaths;
	sw_sha256_free(ph);
	sw_free(buf);
	vcs__parent_dir_release(&pd);
	if (rootfd >= 0)
		close(rootfd);
	git_index_free(index);
	git_config_free(cfg);
	if (ri != &vcs__warm.ri)
		vcs__rawindex_free(ri);
	vcs__hdiff_release(&kept_diff);
	if (repo != vcs__warm.repo)
		git_repository_free(repo);
	else if (rc < 0 && repo != NULL)
		vcs__warm_drop();	/* a kept handle that failed: start afresh */
	vcs__collect_release(&c);
	if (rc < 0)
		vcs_observation_release(out);
	return rc;
}
