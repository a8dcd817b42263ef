#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

#include "io/util/digest.h"
#include "io/util/json.h"
#include "io/git/observe.h"
#include "io/git/vcs.h"
#include "tests/support/vcs_fixture.h"

TestSuite(observe);

static void observe(struct vcs_observation *o, const char *dir,
		    const struct vcs_observe_opts *opts)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(vcs_discover(&id, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_observe(o, &id, opts, &err), 0, "%s", err.msg);
	sw_error_clear(&err);
	cr_assert_eq(vcs_observation_validate(o, &err), 0, "%s", err.msg);
	vcs_identity_release(&id);
}

static const struct vcs_path_obs *find(const struct vcs_observation *o, const char *path)
{
	for (size_t i = 0; i < o->retained; i++)
		if (strcmp(o->paths[i].path, path) == 0)
			return &o->paths[i];
	cr_assert_fail("path %s not observed", path);
	return NULL;
}

/* The observation's dirty set equals git status's, path by path. */
static void assert_matches_git(const struct vcs_observation *o, const char *dir)
{
	struct fx_dirty *d = NULL;
	size_t n = fx_git_dirty(dir, &d);

	cr_assert_eq((size_t)o->path_count, n, "ours %" PRId64 " git %zu", o->path_count, n);
	cr_assert_eq(o->retained, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(o->paths[i].path, d[i].path);
		cr_assert_str_eq(o->paths[i].category, d[i].category, "%s", d[i].path);
		cr_assert_str_eq(o->paths[i].state, d[i].state, "%s", d[i].path);
	}
	fx_dirty_free(d, n);
}

static char *repo_with_commit(void)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, "git init -q . && printf 'one\\n' > a.txt && printf 'two\\n' > b.txt && "
		   "mkdir -p src && printf 'three\\n' > src/c.txt && printf 'gone\\n' > d.txt && "
		   "printf 'moved\\n' > old.txt && git add -A && git commit -q -m init");
	return dir;
}

Test(observe, clean_repository_has_no_dirty_paths_and_a_commit_head)
{
	char *dir = repo_with_commit(), *head;
	struct vcs_observation o;
	size_t len;

	observe(&o, dir, NULL);
	head = fx_sh_out(dir, &len, "git rev-parse --verify --quiet HEAD");
	cr_assert_eq(strncmp(o.head, head, 40), 0);
	cr_assert_eq(strlen(o.head), 40);
	cr_assert_eq(o.path_count, 0);
	cr_assert_eq(o.retained, 0);
	cr_assert(o.content_observation_complete);
	cr_assert_not(o.details_truncated);
	cr_assert_eq(o.content_byte_limit, 67108864);
	vcs_observation_release(&o);
	sw_free(head);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, index_fingerprint_is_the_digest_of_ls_files_stage)
{
	char *dir = repo_with_commit(), *raw;
	char want[SW_DIGEST_LEN];
	struct vcs_observation o;
	size_t len;

	fx_sh(dir, "echo more >> a.txt && git add a.txt");
	observe(&o, dir, NULL);
	raw = fx_sh_out(dir, &len, "git ls-files --stage -z");
	sw_sha256_prefixed(raw, len, want);
	cr_assert_str_eq(o.index_fingerprint, want);
	vcs_observation_release(&o);
	sw_free(raw);
	fx_rmrf(dir);
	sw_free(dir);
}

/* From 1,024 index entries the fingerprint is hashed on a thread of its
 * own, beside the walk (1,023: on the caller's), and it must be the same
 * digest of git ls-files --stage -z either way: with a staged change, an
 * executable, a symlink and a path longer than the 64 KiB the listing is
 * formed in (written to the index only: no filesystem takes it). */
Test(observe, a_large_index_is_fingerprinted_beside_the_walk_to_the_same_digest)
{
	static const unsigned sizes[] = { 1023, 1024 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
		char *dir = fx_tmpdir(), *raw;
		char want[SW_DIGEST_LEN];
		struct vcs_observation o;
		unsigned before = vcs_test_fp_threads();
		size_t len;

		/* sizes[k] entries: 1019 or 1020 files, run.sh, sl, staged.txt
		 * and the long path. */
		fx_sh(dir, "git init -q . && mkdir d && i=0; while [ $i -lt %u ]; do "
			   "echo $i > d/f$i.txt; i=$((i + 1)); done && echo r > run.sh && chmod +x run.sh && "
			   "ln -s run.sh sl && git add -A && git commit -q -m init && "
			   "echo s > staged.txt && git add staged.txt && "
			   "p=$(i=0; while [ $i -lt 6600 ]; do printf 'abcdefghij/'; i=$((i + 1)); done)f && "
			   "git update-index --add --cacheinfo 100644,$(git rev-parse HEAD:run.sh),\"$p\"",
		      sizes[k] - 4);
		raw = fx_sh_out(dir, &len, "git ls-files --stage -z");
		cr_assert_gt(len, 70000, "the long path is in the index");
		sw_sha256_prefixed(raw, len, want);
		observe(&o, dir, NULL);
		cr_assert_str_eq(o.index_fingerprint, want, "%u entries", sizes[k]);
		cr_assert_eq(vcs_test_fp_threads() - before, sizes[k] >= 1024 ? 1u : 0u,
			     "%u entries", sizes[k]);
		vcs_observation_release(&o);
		sw_free(raw);
		fx_rmrf(dir);
		sw_free(dir);
	}
}

Test(observe, categories_and_states_match_git_status)
{
	char *dir = repo_with_commit();
	struct vcs_observation o;
	const struct vcs_path_obs *p;
	char want[SW_DIGEST_LEN];

	fx_sh(dir, "echo x >> a.txt && echo y >> b.txt && git add b.txt && echo z >> b.txt && "
		   "rm d.txt && git mv old.txt new.txt && mkdir -p u/v && echo n > u/v/w.txt && "
		   "ln -s src/c.txt link && echo staged > s.txt && git add s.txt");
	observe(&o, dir, NULL);
	assert_matches_git(&o, dir);

	p = find(&o, "a.txt");
	cr_assert_str_eq(p->category, "ordinary");
	cr_assert_str_eq(p->state, ".M");
	cr_assert_str_eq(p->observation, "regular");
	cr_assert_str_eq(p->content_kind, "full_sha256");
	cr_assert(p->has_mtime && p->has_size && p->size == 6);
	sw_sha256_prefixed("one\nx\n", 6, want);
	cr_assert_str_eq(p->content_sha256, want);

	cr_assert_str_eq(find(&o, "b.txt")->state, "MM");
	cr_assert_str_eq(find(&o, "s.txt")->state, "A.");
	p = find(&o, "d.txt");
	cr_assert_str_eq(p->state, ".D");
	cr_assert_str_eq(p->observation, "missing");
	cr_assert_not(p->has_size);
	cr_assert_eq(p->content_sha256[0], '\0');

	p = find(&o, "new.txt");
	cr_assert_str_eq(p->category, "rename");
	cr_assert_str_eq(p->state, "R. R100");
	p = find(&o, "old.txt");
	cr_assert_str_eq(p->category, "rename_origin");
	cr_assert_str_eq(p->observation, "missing");

	p = find(&o, "u/v/w.txt");
	cr_assert_str_eq(p->category, "untracked");
	cr_assert_str_eq(p->state, "??");
	p = find(&o, "link");
	cr_assert_str_eq(p->observation, "symlink");
	cr_assert_str_eq(p->content_kind, "symlink_target_sha256");
	cr_assert_eq(p->size, 9);
	sw_sha256_prefixed("src/c.txt", 9, want);
	cr_assert_str_eq(p->content_sha256, want);
	cr_assert_not(p->has_mtime);

	/* missing paths make the content observation incomplete */
	cr_assert_not(o.content_observation_complete);
	cr_assert_not(o.content_byte_limit_exceeded);
	cr_assert_not(o.content_deadline_exceeded);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, deleted_in_index_and_present_untracked_merges_both_records)
{
	char *dir = repo_with_commit();
	struct vcs_observation o;
	const struct vcs_path_obs *p;

	fx_sh(dir, "git rm -q --cached a.txt");
	observe(&o, dir, NULL);
	assert_matches_git(&o, dir);
	p = find(&o, "a.txt");
	cr_assert_str_eq(p->category, "ordinary,untracked");
	cr_assert_str_eq(p->state, "??,D.");
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, merge_conflict_is_unmerged)
{
	char *dir = repo_with_commit();
	struct vcs_observation o;

	fx_sh(dir, "git checkout -q -b side && echo side > a.txt && git commit -qam side && "
		   "git checkout -q - && echo main > a.txt && git commit -qam main && "
		   "(git merge -q side >/dev/null 2>&1 || true)");
	observe(&o, dir, NULL);
	assert_matches_git(&o, dir);
	cr_assert_str_eq(find(&o, "a.txt")->category, "unmerged");
	cr_assert_str_eq(find(&o, "a.txt")->state, "UU");
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, unborn_head_is_recorded_as_unborn)
{
	char *dir = fx_tmpdir();
	struct vcs_observation o;

	fx_sh(dir, "git init -q . && echo a > staged.txt && git add staged.txt && echo b > loose.txt");
	observe(&o, dir, NULL);
	cr_assert_str_eq(o.head, "unborn");
	assert_matches_git(&o, dir);
	cr_assert_str_eq(find(&o, "staged.txt")->state, "A.");
	cr_assert_str_eq(find(&o, "loose.txt")->state, "??");
	cr_assert(o.content_observation_complete);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, oversize_file_is_sampled_with_the_framed_digest)
{
	char *dir = fx_tmpdir();
	struct vcs_observe_opts opts = { .full_hash_max = 100000 };
	struct vcs_observation o;
	const struct vcs_path_obs *p;
	struct sw_sha256 *h = NULL;
	struct sw_error err = SW_ERROR_INIT;
	char want[SW_DIGEST_LEN], path[512];
	static unsigned char data[300000];
	const int64_t offs[3] = { 0, 150000 - 32768, 300000 - 65536 };
	FILE *f;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + i / 251);
	fx_sh(dir, "git init -q .");
	snprintf(path, sizeof(path), "%s/big.bin", dir);
	f = fopen(path, "wb");
	cr_assert_eq(fwrite(data, 1, sizeof(data), f), sizeof(data));
	fclose(f);

	observe(&o, dir, &opts);
	p = find(&o, "big.bin");
	cr_assert_str_eq(p->observation, "oversize_sampled");
	cr_assert_str_eq(p->content_kind, "oversize_samples_v1");
	cr_assert_eq(p->size, 300000);
	cr_assert(p->has_mtime);
	cr_assert_eq(o.content_bytes_hashed, 3 * 65536);
	cr_assert_eq(sw_sha256_new(&h, &err), 0);
	sw_sha256_section_str(h, "mode", "oversize_samples_v1");
	sw_sha256_section_str(h, "size", "300000");
	for (int i = 0; i < 3; i++) {
		char dec[32];

		snprintf(dec, sizeof(dec), "%" PRId64, offs[i]);
		sw_sha256_section_str(h, "offset", dec);
		sw_sha256_section(h, "sample", data + offs[i], 65536);
	}
	sw_sha256_final_prefixed(h, want);
	cr_assert_str_eq(p->content_sha256, want);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, sparse_17_mib_file_is_sampled_at_the_default_threshold)
{
	char *dir = fx_tmpdir();
	struct vcs_observation o;
	const struct vcs_path_obs *p;

	fx_sh(dir, "git init -q . && truncate -s 17M sparse.bin && "
		   "printf 'edge' | dd of=sparse.bin bs=1 seek=0 conv=notrunc 2>/dev/null");
	observe(&o, dir, NULL);
	p = find(&o, "sparse.bin");
	cr_assert_str_eq(p->observation, "oversize_sampled");
	cr_assert_eq(p->size, 17 << 20);
	cr_assert_eq(o.content_bytes_hashed, 3 * 65536);
	cr_assert(o.content_observation_complete);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, byte_limit_leaves_content_unobserved_and_flags_it)
{
	char *dir = fx_tmpdir();
	struct vcs_observe_opts opts = { .byte_limit = 10 };
	struct vcs_observation o;
	const struct vcs_path_obs *p;

	fx_sh(dir, "git init -q . && echo tiny > a.txt && "
		   "head -c 100 /dev/zero > b.txt");
	observe(&o, dir, &opts);
	p = find(&o, "a.txt");
	cr_assert_str_eq(p->observation, "regular");
	p = find(&o, "b.txt");
	cr_assert_str_eq(p->observation, "content_unobserved");
	cr_assert(p->has_size && p->size == 100 && p->has_mtime);
	cr_assert_eq(p->content_sha256[0], '\0');
	cr_assert_eq(o.content_bytes_hashed, 5);
	cr_assert_eq(o.content_byte_limit, 10);
	cr_assert(o.content_byte_limit_exceeded);
	cr_assert_not(o.content_deadline_exceeded);
	cr_assert_not(o.content_observation_complete);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

/* A clock that advances one second per reading. */
static int64_t stepping_clock(void *ctx)
{
	int64_t *t = ctx;

	return (*t)++ * 1000000000LL;
}

Test(observe, deadline_leaves_content_unobserved_and_flags_it)
{
	char *dir = fx_tmpdir();
	int64_t ticks = 0;
	struct vcs_observe_opts opts = {
		.deadline_ns = 1500000000LL, .clock = stepping_clock, .clock_ctx = &ticks,
	};
	struct vcs_observation o;

	/* start = 0 s, deadline 1.5 s: the first file is checked at 1 s
	 * (reserve) and read at 2 s, the rest are refused at reserve. */
	fx_sh(dir, "git init -q . && echo a > a.txt && echo b > b.txt");
	observe(&o, dir, &opts);
	cr_assert_str_eq(find(&o, "a.txt")->observation, "unreadable");
	cr_assert_str_eq(find(&o, "b.txt")->observation, "content_unobserved");
	cr_assert(o.content_deadline_exceeded);
	cr_assert_not(o.content_byte_limit_exceeded);
	cr_assert_not(o.content_observation_complete);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, truncated_details_keep_a_prefix_and_the_full_path_fingerprint)
{
	char *dir = fx_tmpdir();
	struct vcs_observe_opts opts = { .detail_bytes = 1000 };
	struct vcs_observation full, cut;

	fx_sh(dir, "git init -q . && for i in 1 2 3 4 5 6; do echo $i > f$i.txt; done");
	observe(&full, dir, NULL);
	observe(&cut, dir, &opts);
	cr_assert_eq(full.path_count, 6);
	cr_assert_eq(cut.path_count, 6);
	cr_assert_not(full.details_truncated);
	cr_assert(cut.details_truncated);
	/* each untracked f<i>.txt costs 12*6 + 6*(9+2+7) + 71 + 11 + 320 = 582 */
	cr_assert_eq(cut.retained, 1);
	cr_assert_str_eq(cut.paths[0].path, "f1.txt");
	cr_assert_str_eq(cut.path_fingerprint, full.path_fingerprint);
	cr_assert_str_neq(cut.snapshot_hash, full.snapshot_hash);
	vcs_observation_release(&full);
	vcs_observation_release(&cut);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, same_tree_gives_the_same_snapshot_hash)
{
	char *dir = repo_with_commit();
	struct vcs_observation a, b;

	fx_sh(dir, "echo x >> a.txt && echo n > new.txt");
	observe(&a, dir, NULL);
	observe(&b, dir, NULL);
	cr_assert_str_eq(a.snapshot_hash, b.snapshot_hash);
	cr_assert_str_eq(a.status_fingerprint, b.status_fingerprint);
	cr_assert_not(vcs_observation_changed_from(&b, &a));
	vcs_observation_release(&a);
	vcs_observation_release(&b);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, changed_from_follows_comparable_evidence)
{
	char *dir = repo_with_commit();
	struct vcs_observation a, b, c;
	struct sw_error err = SW_ERROR_INIT;

	fx_sh(dir, "echo x >> a.txt");
	observe(&a, dir, NULL);
	fx_sh(dir, "echo y >> a.txt");
	observe(&b, dir, NULL);
	/* both complete and different */
	cr_assert(vcs_observation_changed_from(&b, &a));

	/* incomplete, only the byte counter differs: not a change */
	cr_assert_eq(vcs_observation_copy(&c, &a, &err), 0);
	c.content_observation_complete = 0;
	c.content_byte_limit_exceeded = 1;
	c.content_bytes_hashed = 0;
	cr_assert_eq(vcs_observation_seal(&c, &err), 0);
	cr_assert_not(vcs_observation_changed_from(&c, &a));
	cr_assert_not(vcs_observation_changed_from(&a, &c));

	/* incomplete and a shared path's digest differs: a change */
	memcpy(c.paths[0].content_sha256, b.paths[0].content_sha256, SW_DIGEST_LEN);
	cr_assert_eq(vcs_observation_seal(&c, &err), 0);
	cr_assert(vcs_observation_changed_from(&c, &a));

	/* incomplete and unobserved content on one side: size decides */
	c.paths[0].content_sha256[0] = '\0';
	c.paths[0].content_kind[0] = '\0';
	snprintf(c.paths[0].observation, sizeof(c.paths[0].observation), "content_unobserved");
	c.paths[0].size = a.paths[0].size;
	cr_assert_eq(vcs_observation_seal(&c, &err), 0);
	cr_assert_not(vcs_observation_changed_from(&c, &a));
	c.paths[0].size = a.paths[0].size + 1;
	cr_assert_eq(vcs_observation_seal(&c, &err), 0);
	cr_assert(vcs_observation_changed_from(&c, &a));

	/* incomplete and the status fingerprint differs: a change */
	c.paths[0].size = a.paths[0].size;
	c.status_fingerprint[10] = c.status_fingerprint[10] == 'a' ? 'b' : 'a';
	cr_assert_eq(vcs_observation_seal(&c, &err), 0);
	cr_assert(vcs_observation_changed_from(&c, &a));
	vcs_observation_release(&a);
	vcs_observation_release(&b);
	vcs_observation_release(&c);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, json_round_trip_preserves_every_field_and_rejects_tampering)
{
	char *dir = repo_with_commit(), *t1, *t2;
	struct vcs_observation o, back;
	struct sw_error err = SW_ERROR_INIT;
	json_t *j, *k;

	fx_sh(dir, "echo x >> a.txt && rm d.txt && ln -s a.txt l && rm b.txt && mkfifo b.txt");
	observe(&o, dir, NULL);
	assert_matches_git(&o, dir);
	cr_assert_str_eq(find(&o, "b.txt")->observation, "non_regular");
	j = vcs_observation_to_json(&o);
	cr_assert_not_null(j);
	t1 = sw_json_dump(j);
	cr_assert(strncmp(t1, "{\"version\":1,\"head\":", 20) == 0, "%s", t1);
	cr_assert_not_null(strstr(t1, "\"path\":\"d.txt\",\"category\":\"ordinary\","
				      "\"state\":\".D\",\"observation\":\"missing\"}"));
	cr_assert_eq(sw_json_load_strict(&k, t1, strlen(t1), 1 << 20, &err), 0);
	cr_assert_eq(vcs_observation_from_json(&back, k, &err), 0, "%s", err.msg);
	cr_assert_str_eq(back.snapshot_hash, o.snapshot_hash);
	json_decref(k);
	k = vcs_observation_to_json(&back);
	t2 = sw_json_dump(k);
	cr_assert_str_eq(t1, t2);
	json_decref(k);
	vcs_observation_release(&back);

	json_object_set_new(j, "content_bytes_hashed", json_integer(o.content_bytes_hashed + 1));
	sw_error_clear(&err);
	cr_assert_eq(vcs_observation_from_json(&back, j, &err), SW_EINVAL);
	json_object_del(j, "content_bytes_hashed");
	sw_error_clear(&err);
	cr_assert_eq(vcs_observation_from_json(&back, j, &err), SW_EPARSE);
	cr_assert_null(back.head);
	json_decref(j);
	sw_free(t1);
	sw_free(t2);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

/* The status fingerprint is the digest of git's own porcelain v2 bytes. */
static void assert_status_bytes_match_git(const struct vcs_observation *o, const char *dir)
{
	size_t len = 0;
	char *raw = fx_sh_out(dir, &len, "GIT_OPTIONAL_LOCKS=0 git -c core.fsmonitor=false "
				  "status --porcelain=v2 -z --untracked-files=all");
	char hex[SW_HEX_LEN], want[8 + SW_HEX_LEN];

	sw_sha256_hex(raw, len, hex);
	snprintf(want, sizeof(want), "sha256:%s", hex);
	for (size_t i = 0; i < len; i++)
		if (raw[i] == '\0')
			raw[i] = '\n';
	cr_assert_str_eq(o->status_fingerprint, want, "git printed:\n%.*s", (int)len, raw);
	sw_free(raw);
}

/* From 1 MiB of parsed entries (14,564 of 72 bytes) their pages are
 * faulted in on a thread while the index file is mapped, and the parse
 * may overtake it: at the limit and one below, every entry must still be
 * read as git wrote it (the fingerprint is the digest of git ls-files
 * --stage -z) and the status be git's, byte for byte.  The entries are written to the
 * index only, so each is a deleted file. */
Test(observe, an_index_read_beside_the_fault_in_of_its_entries_is_read_whole)
{
	const size_t at = vcs_test_prefault_entries();
	const size_t sizes[] = { at - 1, at };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
		char *dir = fx_tmpdir(), *raw;
		char want[SW_DIGEST_LEN];
		struct vcs_observation o;
		unsigned before = vcs_test_prefault_threads();
		size_t len;

		/* sizes[k] entries: f.txt, committed, and the rest only in
		 * the index, one executable in every seven. */
		fx_sh(dir, "git init -q . && echo f > f.txt && git add f.txt && "
			   "git commit -q -m init && b=$(git rev-parse HEAD:f.txt) && "
			   "awk -v b=$b 'BEGIN { for (i = 1; i < %zu; i++) "
			   "printf \"%%s %%s\\td%%03d/g%%05d.c\\n\", "
			   "i %% 7 ? \"100644\" : \"100755\", b, i %% 97, i }' | "
			   "git update-index --index-info",
		      sizes[k]);
		raw = fx_sh_out(dir, &len, "git ls-files --stage -z");
		{
			size_t nul = 0;

			for (size_t i = 0; i < len; i++)
				nul += raw[i] == '\0';
			cr_assert_eq(nul, sizes[k], "%zu entries", sizes[k]);
		}
		sw_sha256_prefixed(raw, len, want);
		observe(&o, dir, NULL);
		cr_assert_str_eq(o.index_fingerprint, want, "%zu entries", sizes[k]);
		assert_status_bytes_match_git(&o, dir);
		cr_assert_eq(o.path_count, (int64_t)sizes[k] - 1, "%zu entries", sizes[k]);
		cr_assert_eq(vcs_test_prefault_threads() - before, sizes[k] >= at ? 1u : 0u,
			     "%zu entries", sizes[k]);
		vcs_observation_release(&o);
		sw_free(raw);
		fx_rmrf(dir);
		sw_free(dir);
	}
}

/* The fast scan and libgit2's status must both equal git, record for
 * record and byte for byte, on the cases where they could diverge. */
static void assert_engines_agree(const char *dir)
{
	struct vcs_observe_opts slow = { .libgit2_status = 1 }, one = { .threads = 1 };
	struct vcs_observation a, b, c;

	observe(&a, dir, NULL);
	observe(&b, dir, &slow);
	observe(&c, dir, &one);
	assert_matches_git(&a, dir);
	assert_matches_git(&b, dir);
	assert_status_bytes_match_git(&a, dir);
	assert_status_bytes_match_git(&b, dir);
	cr_assert_str_eq(a.status_fingerprint, b.status_fingerprint);
	cr_assert_str_eq(a.snapshot_hash, b.snapshot_hash);
	cr_assert_str_eq(a.snapshot_hash, c.snapshot_hash);
	vcs_observation_release(&a);
	vcs_observation_release(&b);
	vcs_observation_release(&c);
}

Test(observe, fast_scan_matches_git_on_ignores_modes_types_and_racy_entries)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, "git init -q . && printf 'build/\\n*.log\\n!keep.log\\n' > .gitignore && "
		   "mkdir -p build src/deep && echo t > build/tracked.o && echo s > src/deep/s.c && "
		   "echo run > run.sh && echo l > target && ln -s target sl && echo f > f2l && "
		   "echo d > becomes_dir && echo same > racy.txt && "
		   "git add -A && git add -f build/tracked.o && git commit -q -m init && "
		   "echo junk > build/untracked.o && echo x > a.log && echo k > keep.log && "
		   "chmod +x run.sh && rm sl && echo notlink > sl && rm f2l && ln -s target f2l && "
		   "rm becomes_dir && mkdir becomes_dir && echo in > becomes_dir/inner.txt && "
		   "printf 'sAme\\n' > racy.txt && "
		   "mkdir -p emptydir newtree/a/b && echo n > newtree/a/b/n.txt && "
		   "mkdir ignored_only && echo i > ignored_only/x.log && "
		   "printf 'node_modules/\\n' > src/.gitignore && mkdir -p src/node_modules/p && "
		   "echo m > src/node_modules/p/m.js && echo u > src/deep/u.c && "
		   "ln -s src lnkdir && mkfifo src/pipe");
	assert_engines_agree(dir);
	fx_rmrf(dir);
	sw_free(dir);
}

/* Above 1,024 tracked files the scan runs on threads, and with a staged
 * change the HEAD-to-index diff runs beside it: ignore lookups then take
 * a second repository handle.  Every kind of rule must still apply. */
Test(observe, threaded_scan_beside_a_diff_matches_git_on_ignores)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, "git init -q . && printf '*.log\\n!keep.log\\nbuild/\\n' > .gitignore && "
		   "for d in 0 1 2 3 4 5 6 7 8 9 10; do mkdir d$d; "
		   "for f in $(seq 0 99); do echo $d $f > d$d/f$f.txt; done; done && "
		   "printf 'local-*\\n' > d3/.gitignore && git add -A && git commit -q -m init && "
		   "echo staged >> d0/f0.txt && git add d0/f0.txt && echo '*.tmp' >> .git/info/exclude && "
		   "for d in 0 2 3 5 7 9 10; do echo x > d$d/new.txt && echo l > d$d/a.log && "
		   "echo k > d$d/keep.log && echo t > d$d/t.tmp && mkdir -p d$d/build d$d/fresh && "
		   "echo b > d$d/build/o && echo n > d$d/fresh/n.txt; done && "
		   "echo i > d3/local-x && echo j > d3/other-x");
	assert_engines_agree(dir);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, fast_scan_matches_git_on_staged_renames_and_unborn_heads)
{
	char *dir = repo_with_commit(), *fresh = fx_tmpdir();

	fx_sh(dir, "git mv old.txt renamed.txt && echo more >> renamed.txt && "
		   "git rm -q --cached b.txt && git rm -q d.txt && echo z > src/c.txt && git add src/c.txt && "
		   "echo w >> src/c.txt");
	assert_engines_agree(dir);
	fx_sh(fresh, "git init -q . && echo a > a && git add a && echo b > b && mkdir s && echo c > s/c");
	assert_engines_agree(fresh);
	fx_rmrf(dir);
	fx_rmrf(fresh);
	sw_free(fresh);
	sw_free(dir);
}

/* The walk finds tracked files by binary search over the sorted index, so
 * names that sort just before and after "dir/" ('-', '.', '0') must not be
 * mistaken for entries of the directory, or the other way round. */
Test(observe, fast_scan_matches_git_on_names_sorting_around_the_slash)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, "git init -q . && mkdir -p a/b a-b a.d a0 && echo 1 > a/b/c && echo 2 > a/b.c && "
		   "echo 3 > a-b/x && echo 4 > a.c && echo 5 > a.d/y && echo 6 > a0/z && "
		   "echo 7 > a0x && echo 8 > a/b- && git add -A && git commit -q -m init && "
		   "echo u > a/b/new && echo u > a/b0 && echo u > a-b/new && echo u > a.c.new && "
		   "echo u > a0/new && mkdir a_ a/b.d && echo u > a_/u && echo u > a/b.d/u && "
		   "rm a.d/y && echo changed > a/b.c");
	assert_engines_agree(dir);
	fx_rmrf(dir);
	sw_free(dir);
}

/* A listing looks each file it finds up in a table of the names tracked
 * in its directory, hashed: names one byte apart, prefixes of tracked
 * names and names of tracked subdirectories must read as git reads them
 * whatever the hash gives, every name colliding included.  (Without a
 * table, when it cannot be allocated, names are searched for: the test
 * of every allocation failure below.) */
Test(observe, listed_names_are_found_among_tracked_ones_whatever_their_hash)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, "git init -q . && mkdir -p many/sub many/sub-x && for f in $(seq 0 299); do "
		   "echo $f > many/f$f; done && echo s > many/sub/s && echo s > many/sub-x/s && "
		   "echo z > many/sub0 && echo t > top && git add -A && git commit -q -m init && "
		   "echo u > many/f300 && echo u > many/f1x && echo u > many/F1 && "
		   "echo u > 'many/f1 ' && echo u > many/f && echo u > many/sub1 && rm many/f7 && "
		   "echo u > many/sub.c && echo u > top0 && echo m >> many/f42");
	for (unsigned bits = 0; bits <= 32; bits += bits < 2 ? 1 : 30) {
		unsigned before = vcs_test_name_searches();

		vcs_test_name_hash_bits(bits);
		assert_engines_agree(dir);
		cr_assert_eq(vcs_test_name_searches(), before, "hash bits %u", bits);
	}
	fx_rmrf(dir);
	sw_free(dir);
}

/* Each tracked directory is visited once, opened by its path without
 * following symlinks, and the entries no visit reaches are deleted: a
 * directory removed, turned into a file or into a symlink to a sibling
 * holding the very same names must all read as git reads them, on one
 * thread and on several (over 1,024 files, nested as real projects are). */
Test(observe, fast_scan_matches_git_when_tracked_directories_go_away)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, "git init -q . && for g in 0 1 2 3 4 5; do for d in 0 1 2 3 4 5 6 7 8; do "
		   "mkdir -p src/g$g/d$d; for f in $(seq 0 19); do echo $g $d $f > src/g$g/d$d/f$f.c; "
		   "done; done; done && echo top > README && git add -A && git commit -q -m init && "
		   "rm -r src/g0/d1 && rm -r src/g1/d2 && echo file > src/g1/d2 && "
		   "rm -r src/g2/d3 && ln -s d4 src/g2/d3 && rm -r src/g3 && ln -s g4 src/g3 && "
		   "mkdir -p src/g5/d0/new/deeper && echo n > src/g5/d0/new/deeper/n.c && "
		   "echo m >> src/g4/d8/f19.c && echo u > src/g4/u.c");
	assert_engines_agree(dir);
	/* The same without openat2, on one thread and on several. */
	for (int threads = 1; threads <= 4; threads += 3) {
		struct vcs_observe_opts walk = { .no_openat2 = 1, .threads = threads };
		struct vcs_observation a, b;

		observe(&a, dir, NULL);
		observe(&b, dir, &walk);
		assert_status_bytes_match_git(&b, dir);
		cr_assert_str_eq(a.snapshot_hash, b.snapshot_hash);
		vcs_observation_release(&a);
		vcs_observation_release(&b);
	}
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, fast_scan_lists_a_nested_repository_as_a_directory)
{
	char *dir = repo_with_commit();
	struct vcs_observation o;

	fx_sh(dir, "mkdir nested && cd nested && git init -q . && echo x > x");
	observe(&o, dir, NULL);
	assert_matches_git(&o, dir);
	cr_assert_str_eq(find(&o, "nested/")->observation, "non_regular");
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

/* The fingerprints are the digests of what git itself prints (the
 * reference hashes its ls-files and porcelain v2 output). */
static void assert_fingerprints_match_git(const struct vcs_observation *o, const char *dir)
{
	char want[SW_DIGEST_LEN], *raw;
	size_t len;

	raw = fx_sh_out(dir, &len, "git -c core.fsmonitor=false status --porcelain=v2 -z "
				   "--untracked-files=all");
	sw_sha256_prefixed(raw, len, want);
	cr_expect_str_eq(o->status_fingerprint, want, "status: %.*s", (int)len, raw);
	sw_free(raw);
	raw = fx_sh_out(dir, &len, "git -c core.fsmonitor=false ls-files --stage -z");
	sw_sha256_prefixed(raw, len, want);
	cr_expect_str_eq(o->index_fingerprint, want);
	sw_free(raw);
}

static void assert_observed_as_git(const char *dir)
{
	struct vcs_observation o;

	observe(&o, dir, NULL);
	assert_matches_git(&o, dir);
	assert_fingerprints_match_git(&o, dir);
	vcs_observation_release(&o);
}

/* Names that are not UTF-8 (Latin-1, overlong, surrogate, truncated,
 * past U+10FFFF) are observed by their bytes as git prints them: the
 * status and index fingerprints are git's bytes, the content is read, and
 * each recorded path is git's with every byte that starts no valid
 * sequence turned into U+FFFD.  The record survives its JSON and, read
 * back, shows no change. */
Test(observe, names_that_are_not_utf8_are_observed_as_git_prints_them)
{
	char *dir = fx_tmpdir();
	struct vcs_observe_opts slow = { .libgit2_status = 1 };
	struct vcs_observation a, b, back;
	struct sw_error err = SW_ERROR_INIT;
	struct fx_dirty *d = NULL;
	char x[SW_DIGEST_LEN];
	size_t n;
	json_t *j, *k;
	char *t;

	fx_sh(dir, "git init -q . && printf 1 > \"$(printf 'tr\\351s')\" && "
		   "printf 2 > \"$(printf 'old\\350')\" && git add -A && git commit -q -m i && "
		   "printf 11 > \"$(printf 'tr\\351s')\" && "
		   "git mv \"$(printf 'old\\350')\" \"$(printf 'n\\300\\257w')\" && "
		   "printf x > \"$(printf 'caf\\351')\" && printf z > \"$(printf 's\\355\\240\\200')\" && "
		   "printf w > \"$(printf 't\\342\\202x')\" && printf u > \"$(printf 'p\\364\\220\\200\\200')\"");
	observe(&a, dir, NULL);
	observe(&b, dir, &slow);
	assert_fingerprints_match_git(&a, dir);
	assert_fingerprints_match_git(&b, dir);
	cr_assert_str_eq(a.snapshot_hash, b.snapshot_hash);
	n = fx_git_dirty(dir, &d);
	cr_assert_eq(n, 7);
	cr_assert_eq((size_t)a.path_count, n);
	cr_assert_eq(a.retained, n);
	cr_assert_not(a.details_truncated);
	for (size_t i = 0; i < n; i++) {
		char *want = sw_utf8_lossy(d[i].path, strlen(d[i].path), NULL);

		cr_assert_str_eq(a.paths[i].path, want, "%zu", i);
		cr_expect_str_eq(a.paths[i].category, d[i].category, "%s", want);
		cr_expect(strcmp(a.paths[i].observation, "regular") == 0 ||
			  strcmp(a.paths[i].category, "rename_origin") == 0, "%s: %s", want,
			  a.paths[i].observation);
		sw_free(want);
	}
	fx_dirty_free(d, n);
	/* "caf\351" was read by its bytes: the digest of "x". */
	sw_sha256_prefixed("x", 1, x);
	cr_assert_str_eq(find(&a, "caf\xef\xbf\xbd")->content_sha256, x);
	cr_assert_str_eq(find(&a, "t\xef\xbf\xbd\xef\xbf\xbdx")->observation, "regular");
	j = vcs_observation_to_json(&a);
	cr_assert_not_null(j);
	t = sw_json_dump(j);
	cr_assert_not_null(t);
	cr_assert_eq(sw_json_load_strict(&k, t, strlen(t), 1 << 20, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_observation_from_json(&back, k, &err), 0, "%s", err.msg);
	cr_assert_str_eq(back.snapshot_hash, a.snapshot_hash);
	cr_assert_not(vcs_observation_changed_from(&back, &a));
	json_decref(k);
	json_decref(j);
	sw_free(t);
	vcs_observation_release(&back);
	vcs_observation_release(&a);
	vcs_observation_release(&b);
	fx_rmrf(dir);
	sw_free(dir);
}

/* Two names that read the same once replaced ("caf\350", "caf\351", and a
 * real "caf\uFFFD"), or a replaced byte that sorts after a real
 * character, end the details where the recorded order would break; the
 * fingerprint still counts every path and the record validates. */
Test(observe, names_that_read_the_same_end_the_details)
{
	char *dir = fx_tmpdir();
	struct vcs_observation a;
	struct sw_error err = SW_ERROR_INIT;
	json_t *j, *k;
	char *t;

	fx_sh(dir, "git init -q . && printf 1 > a && printf 2 > \"$(printf 'caf\\350')\" && "
		   "printf 3 > \"$(printf 'caf\\351')\" && printf 4 > \"$(printf 'caf\\357\\277\\275')\" && "
		   "printf 5 > z");
	observe(&a, dir, NULL);
	assert_fingerprints_match_git(&a, dir);
	cr_assert_eq(a.path_count, 5);
	cr_assert_eq(a.retained, 2);
	cr_assert(a.details_truncated);
	cr_assert_str_eq(a.paths[0].path, "a");
	cr_assert_str_eq(a.paths[1].path, "caf\xef\xbf\xbd");
	j = vcs_observation_to_json(&a);
	t = sw_json_dump(j);
	cr_assert_eq(sw_json_load_strict(&k, t, strlen(t), 1 << 20, &err), 0, "%s", err.msg);
	vcs_observation_release(&a);
	cr_assert_eq(vcs_observation_from_json(&a, k, &err), 0, "%s", err.msg);
	json_decref(k);
	json_decref(j);
	sw_free(t);
	vcs_observation_release(&a);
	fx_sh(dir, "rm a \"$(printf 'caf\\350')\" \"$(printf 'caf\\351')\" && "
		   "printf 6 > \"$(printf 'q\\364')\" && printf 7 > \"$(printf 'q\\357\\277\\276')\"");
	observe(&a, dir, NULL);
	cr_assert_eq(a.path_count, 4);
	cr_assert_eq(a.retained, 2, "q\\364 sorts after q\\357\\277\\276 by its bytes, before it as recorded");
	cr_assert_str_eq(a.paths[1].path, "q\xef\xbf\xbe");
	vcs_observation_release(&a);
	fx_rmrf(dir);
	sw_free(dir);
}

/* b/ leaves the checkout; then b/y comes back modified, b/w unchanged and
 * b/new untracked: git compares a present file like any other (it clears
 * its skip-worktree bit in memory) and ignores the missing ones. */
#define SPARSE_REPO "git init -q . && mkdir -p a b/c && echo 1 > a/x && echo 2 > b/y && " \
	"echo 3 > b/w && echo 4 > b/c/z && echo 5 > top && git add -A && git commit -q -m s && "
#define SPARSE_RETURN "mkdir -p b && echo changed > b/y && echo 3 > b/w && echo u > b/new && " \
	"echo n > a/new"

Test(observe, cone_sparse_checkout_is_observed_as_git_does)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, SPARSE_REPO "git sparse-checkout set --cone a");
	assert_observed_as_git(dir);
	fx_sh(dir, SPARSE_RETURN);
	assert_observed_as_git(dir);
	fx_sh(dir, "git config sparse.expectFilesOutsideOfPatterns true");
	assert_observed_as_git(dir);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, non_cone_sparse_checkout_is_observed_as_git_does)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, SPARSE_REPO "git sparse-checkout set --no-cone '/a/' '/top'");
	assert_observed_as_git(dir);
	fx_sh(dir, SPARSE_RETURN " && echo gone > top && git rm -q --cached a/x");
	assert_observed_as_git(dir);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, skip_worktree_entries_are_observed_as_git_does)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, SPARSE_REPO "git update-index --skip-worktree b/y b/c/z top && "
		   "echo changed > b/y && rm b/c/z && echo staged > top && "
		   "git update-index --cacheinfo 100644,$(git hash-object -w top),top && "
		   "git update-index --skip-worktree top && rm top");
	assert_observed_as_git(dir);
	fx_rmrf(dir);
	sw_free(dir);
}

/* Porcelain v2 gives a submodule's state as S<C><M><U> (new commits,
 * modified content, untracked content); the fingerprint is git's bytes. */
Test(observe, submodules_are_observed_as_git_prints_them)
{
	char *dir = repo_with_commit(), *up = repo_with_commit();

	fx_sh(dir, "git -c protocol.file.allow=always submodule add -q '%s' sub && "
		   "git commit -q -m sub", up);
	assert_observed_as_git(dir);
	fx_sh(dir, "echo x >> sub/a.txt");			/* modified content */
	assert_observed_as_git(dir);
	fx_sh(dir, "cd sub && git checkout -q a.txt && echo u > untracked");
	assert_observed_as_git(dir);				/* untracked content */
	fx_sh(dir, "cd sub && rm untracked && echo n > n && git add n && git commit -q -m n");
	assert_observed_as_git(dir);				/* new commits */
	fx_sh(dir, "echo x >> sub/a.txt && echo u > sub/untracked");
	assert_observed_as_git(dir);				/* all three */
	fx_sh(dir, "git add sub && mkdir nested && cd nested && git init -q . && echo x > x");
	assert_observed_as_git(dir);				/* staged, and a nested repository */
	fx_sh(dir, "git commit -q -m bump && cd sub && git reset -q --hard && git clean -qfd && "
		   "git -c protocol.file.allow=always submodule add -q '%s' inner && "
		   "git commit -q -m inner && echo u > inner/u", up);
	assert_observed_as_git(dir);				/* a nested submodule's content */
	fx_sh(dir, "git mv sub moved");
	assert_observed_as_git(dir);				/* renamed */
	fx_sh(dir, "git rm -qf --cached moved && rm -rf nested");
	assert_observed_as_git(dir);				/* gone from the index */
	fx_rmrf(up);
	fx_rmrf(dir);
	sw_free(up);
	sw_free(dir);
}

Test(observe, a_removed_or_unpopulated_submodule_is_observed_as_git_does)
{
	char *dir = repo_with_commit(), *up = repo_with_commit();

	fx_sh(dir, "git -c protocol.file.allow=always submodule add -q '%s' sub && "
		   "git -c protocol.file.allow=always submodule add -q '%s' two && "
		   "git commit -q -m subs && rm -rf sub && rm -rf two && mkdir two", up, up);
	assert_observed_as_git(dir);
	fx_rmrf(up);
	fx_rmrf(dir);
	sw_free(up);
	sw_free(dir);
}

Test(observe, decode_and_copy_survive_every_allocation_failure)
{
	char *dir = repo_with_commit();
	struct vcs_observation o, back;
	struct sw_error err = SW_ERROR_INIT;
	json_t *j;
	int rc = SW_ENOMEM;

	fx_sh(dir, "echo x >> a.txt && echo n > new.txt && ln -s a.txt l");
	observe(&o, dir, NULL);
	j = vcs_observation_to_json(&o);
	cr_assert_not_null(j);
	for (unsigned long n = 1; rc == SW_ENOMEM && n < 1000; n++) {
		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = vcs_observation_from_json(&back, j, &err);
		sw_alloc_fail_after(0);
		cr_assert(rc == 0 || rc == SW_ENOMEM, "rc %d at %lu: %s", rc, n, err.msg);
		if (rc == SW_ENOMEM)
			cr_assert_null(back.head);
	}
	cr_assert_eq(rc, 0);
	cr_assert_str_eq(back.snapshot_hash, o.snapshot_hash);
	vcs_observation_release(&back);
	rc = SW_ENOMEM;
	for (unsigned long n = 1; rc == SW_ENOMEM && n < 1000; n++) {
		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = vcs_observation_copy(&back, &o, &err);
		sw_alloc_fail_after(0);
		cr_assert(rc == 0 || rc == SW_ENOMEM);
	}
	cr_assert_eq(rc, 0);
	cr_assert_str_eq(back.paths[0].path, o.paths[0].path);
	vcs_observation_release(&back);
	json_decref(j);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, observe_survives_every_allocation_failure_without_leaks)
{
	char *dir = repo_with_commit();
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct vcs_observation o, whole;
	struct sw_error err = SW_ERROR_INIT;
	unsigned searches = 0;	/* observations that searched for names */
	int rc, clean = 0;

	fx_sh(dir, "git mv old.txt moved.txt && echo x >> a.txt && echo n > new.txt && rm d.txt");
	cr_assert_eq(vcs_discover(&id, dir, &err), 0);
	cr_assert_eq(vcs_observe(&whole, &id, NULL, &err), 0);
	/* Until an observation meets no failure at all (a path that cannot
	 * be observed is recorded unreadable, the observation incomplete).
	 * A listing that cannot allocate its table of tracked names searches
	 * for them instead, and must see the same. */
	for (unsigned long n = 1; !clean && n < 5000; n++) {
		unsigned long failures = sw_alloc_failures();
		unsigned searched = vcs_test_name_searches();

		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = vcs_observe(&o, &id, NULL, &err);
		sw_alloc_fail_after(0);
		cr_assert(rc == 0 || rc == SW_ENOMEM, "rc %d at %lu: %s", rc, n, err.msg);
		if (rc < 0) {
			cr_assert_null(o.head);
			continue;
		}
		clean = sw_alloc_failures() == failures;
		if (vcs_test_name_searches() != searched) {
			searches++;
			cr_assert_str_eq(o.snapshot_hash, whole.snapshot_hash, "at %lu", n);
			cr_assert_str_eq(o.status_fingerprint, whole.status_fingerprint, "at %lu", n);
		}
		vcs_observation_release(&o);
	}
	cr_assert(clean);
	cr_assert_geq(searches, 1);
	vcs_observation_release(&whole);
	vcs_identity_release(&id);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe, index_versions_2_3_and_4_parse_to_the_ls_files_fingerprint)
{
	static const char *const versions[] = { "2", "3", "4" };

	for (int v = 0; v < 3; v++) {
		char *dir = repo_with_commit(), *raw;
		char want[SW_DIGEST_LEN];
		struct vcs_observation o;
		size_t len;

		fx_sh(dir, "mkdir -p deep/er/path && echo q > deep/er/path/q.txt && "
			   "echo r > deep/er/r.txt && git add -A && git commit -q -m two && "
			   "echo x >> deep/er/r.txt && echo s > src/new.txt && git add src/new.txt && "
			   "git update-index --index-version %s", versions[v]);
		observe(&o, dir, NULL);
		raw = fx_sh_out(dir, &len, "git ls-files --stage -z");
		sw_sha256_prefixed(raw, len, want);
		cr_assert_str_eq(o.index_fingerprint, want, "index version %s", versions[v]);
		assert_engines_agree(dir);
		vcs_observation_release(&o);
		sw_free(raw);
		fx_rmrf(dir);
		sw_free(dir);
	}
}

/* Swaps the last bytes of the names of entries k and k + 1 of the
 * version 2 index of `dir` (names of `len` bytes), and signs the file
 * again as git does. */
static void swap_index_names(const char *dir, size_t k, size_t len)
{
	char path[4096];
	unsigned char *buf, *a = NULL, *b = NULL, t;
	size_t n, flen, off = 12;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.git/index", dir);
	cr_assert_not_null(f = fopen(path, "rb"));
	fseek(f, 0, SEEK_END);
	flen = (size_t)ftell(f);
	rewind(f);
	buf = sw_malloc(flen);
	cr_assert_eq(fread(buf, 1, flen, f), flen);
	fclose(f);
	cr_assert_eq(buf[7], 2, "a version 2 index");
	n = (size_t)buf[8] << 24 | (size_t)buf[9] << 16 | (size_t)buf[10] << 8 | buf[11];
	cr_assert_lt(k + 1, n);
	for (size_t i = 0; i <= k + 1; i++) {
		cr_assert_eq(((size_t)(buf[off + 60] & 0x0f) << 8 | buf[off + 61]), len);
		if (i == k)
			a = buf + off + 62 + len - 1;
		if (i == k + 1)
			b = buf + off + 62 + len - 1;
		off += (62 + len + 8) & ~(size_t)7;
	}
	t = *a;
	*a = *b;
	*b = t;
	SHA1(buf, flen - 20, buf + flen - 20);
	cr_assert_not_null(f = fopen(path, "wb"));
	cr_assert_eq(fwrite(buf, 1, flen, f), flen);
	fclose(f);
	sw_free(buf);
}

/* The entries of an index we parse are checked as they are parsed:
 * paths out of bytewise order (at either end) leave the status to
 * libgit2, as does an intent-to-add entry (the fast scan takes only
 * plain ones), whatever its place. */
Test(observe, the_parse_of_the_index_refuses_the_fast_scan_what_it_cannot_take)
{
	static const size_t pairs[] = { 0, 10 };

	for (int k = 0; k < 2; k++) {
		char *dir = fx_tmpdir();
		struct vcs_observation o;
		unsigned before;

		fx_sh(dir, "git init -q . && mkdir d && for f in 00 01 02 03 04 05 06 07 08 09 10 11; "
			   "do echo $f > d/f$f; done && git add -A && git commit -q -m init && "
			   "echo m >> d/f05 && echo u > d/u");
		assert_engines_agree(dir);
		swap_index_names(dir, pairs[k], 5);
		before = vcs_test_unordered();
		observe(&o, dir, NULL);
		cr_assert_eq(vcs_test_unordered() - before, 1u, "entries %zu and %zu", pairs[k],
			     pairs[k] + 1);
		vcs_observation_release(&o);
		fx_sh(dir, "git read-tree HEAD && echo n > d/%s && git add -N d/%s",
		      k ? "zz" : "a", k ? "zz" : "a");
		assert_engines_agree(dir);
		fx_rmrf(dir);
		sw_free(dir);
	}
}

Test(observe, moved_head_with_an_unchanged_index_shows_staged_changes)
{
	char *dir = repo_with_commit();

	/* the cache tree still names the old tree: it must not hide the diff */
	fx_sh(dir, "echo two >> a.txt && git commit -qam two && git reset -q --soft HEAD~1");
	assert_engines_agree(dir);
	fx_rmrf(dir);
	sw_free(dir);
}

/* git add -N: git prints ".A" with no HEAD or index mode and zero ids (or,
 * once the file is gone, ".D" with the empty blob); libgit2 calls it added
 * and modified.  Byte for byte like git, in both engines. */
Test(observe, intent_to_add_paths_are_recorded_as_git_prints_them)
{
	char *dir = repo_with_commit();
	struct vcs_observation o;

	fx_sh(dir, "echo new > new.txt && echo x > run.sh && chmod +x run.sh && "
		   "ln -s a.txt link && echo gone > gone.txt && "
		   "git add -N new.txt run.sh link gone.txt && rm gone.txt");
	assert_engines_agree(dir);
	observe(&o, dir, NULL);
	cr_assert_str_eq(find(&o, "new.txt")->state, ".A");
	cr_assert_str_eq(find(&o, "run.sh")->state, ".A");
	cr_assert_str_eq(find(&o, "link")->state, ".A");
	cr_assert_str_eq(find(&o, "gone.txt")->state, ".D");
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

/* The cases the fast scan leaves to libgit2 (conflicts of every shape, a
 * rename next to intent-to-add paths, type changes), compared with git's
 * bytes. */
Test(observe, fallback_cases_match_git_byte_for_byte)
{
	char *dir = repo_with_commit();

	fx_sh(dir, "git checkout -q -b side && echo side > a.txt && git rm -q b.txt && "
		   "echo s > both.txt && echo ds > src/c.txt && git add -A && git commit -qm side && "
		   "git checkout -q - && echo main > a.txt && echo m > b.txt && echo m > both.txt && "
		   "git rm -q src/c.txt && git add -A && git commit -qm main && "
		   "(git merge -q side >/dev/null 2>&1 || true) && "
		   "git mv old.txt renamed.txt && echo n > n.txt && git add -N n.txt && "
		   "rm d.txt && ln -s a.txt d.txt");
	assert_engines_agree(dir);
	fx_rmrf(dir);
	sw_free(dir);
}

/* Observed with what the previous observation kept (vcs_keep_warm), then
 * checked against git: the dirty paths and both fingerprints.  `hit` says
 * which of the kept handle, index and deltas this observation reused (1),
 * or must not have (0), or either (-1). */
static void warm_step(const char *dir, int h0, int h1, int h2, const char *what)
{
	unsigned before[4], after[4];
	int want[3] = { h0, h1, h2 };

	vcs_test_counts(before);
	assert_observed_as_git(dir);
	vcs_test_counts(after);
	for (int k = 0; k < 3; k++)
		if (want[k] >= 0)
			cr_assert_eq(after[k] - before[k], (unsigned)want[k], "%s: reuse %d", what, k);
}

/* What is kept between observations is reused only while it is current:
 * the index while its file is unchanged, the head-to-index deltas while
 * HEAD's tree, that index and the rename setting are; each step is checked
 * against git. */
Test(observe, kept_handle_index_and_diff_follow_every_change)
{
	char *dir = repo_with_commit();

	vcs_keep_warm(1);
	fx_sh(dir, "echo x >> a.txt && git add a.txt");
	warm_step(dir, 0, 0, 0, "first");
	warm_step(dir, 1, 1, 1, "nothing changed");
	fx_sh(dir, "echo y >> b.txt");
	warm_step(dir, 1, 1, 1, "a worktree edit");
	fx_sh(dir, "git add b.txt");
	warm_step(dir, 1, 0, 0, "the index rewritten");
	fx_sh(dir, "git commit -q -m two && echo z >> src/c.txt && git add src/c.txt");
	warm_step(dir, 1, 0, 0, "a commit and a staged edit");
	warm_step(dir, 1, 1, 1, "again");
	fx_sh(dir, "git reset -q --soft HEAD~1");
	warm_step(dir, 1, 1, 0, "HEAD moved, the index file kept");
	warm_step(dir, 1, 1, 1, "again");
	fx_sh(dir, "git mv old.txt renamed.txt");
	warm_step(dir, 1, 0, 0, "a staged rename");
	fx_sh(dir, "git config status.renames false");
	warm_step(dir, 1, 1, 0, "renames turned off");
	/* Another repository at the same path: the kept handle still reads
	 * what is there now. */
	fx_sh(dir, "rm -rf .git && git init -q . && git add a.txt && git commit -q -m other && "
		   "echo n > new.txt && git add new.txt");
	warm_step(dir, 1, 0, 0, "a new repository");
	warm_step(dir, 1, 1, 1, "again");
	vcs_keep_warm(0);
	warm_step(dir, 0, 0, 0, "kept no more");
	fx_rmrf(dir);
	sw_free(dir);
}

/* libgit2's engine changes the skip-worktree bits of the index it loaded
 * (unskip_present_files): a kept handle reads its index again every time,
 * so each observation starts from the file, not from the last one's edits. */
Test(observe, a_kept_handle_reads_its_index_again_in_a_sparse_checkout)
{
	char *dir = fx_tmpdir();

	vcs_keep_warm(1);
	fx_sh(dir, SPARSE_REPO "git sparse-checkout set --cone a");
	warm_step(dir, 0, -1, -1, "sparse");
	fx_sh(dir, SPARSE_RETURN);
	warm_step(dir, 1, -1, -1, "files back");
	fx_sh(dir, "rm -r b && git config sparse.expectFilesOutsideOfPatterns true");
	warm_step(dir, 1, -1, -1, "gone again");
	fx_sh(dir, SPARSE_RETURN);
	warm_step(dir, 1, -1, -1, "and back");
	vcs_keep_warm(0);
	fx_rmrf(dir);
	sw_free(dir);
}

/* Observed on one thread and on several, checked against git's bytes;
 * `from_tree` says whether the head-to-index side must have come from the
 * cache tree (1) or from libgit2's diff (0). */
static void assert_staged_as_git(const char *dir, int from_tree, const char *what)
{
	unsigned before[4], after[4];

	vcs_test_counts(before);
	assert_engines_agree(dir);
	vcs_test_counts(after);
	if (from_tree)
		cr_assert_geq(after[3] - before[3], 1, "%s: from the cache tree", what);
	else
		cr_assert_eq(after[3], before[3], "%s: from libgit2's diff", what);
}

/* The head-to-index side from the cache tree: only the directories whose
 * cache-tree entry is invalid or differs from HEAD are compared, in git's
 * order of names; with both an addition and a deletion (renames on) it is
 * libgit2's diff, which pairs renames. */
Test(observe, staged_changes_from_the_cache_tree_match_git)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, "git init -q . && for g in 0 1 2; do for d in 0 1 2 3; do mkdir -p src/g$g/d$d; "
		   "for f in 0 1 2 3 4; do echo $g $d $f > src/g$g/d$d/f$f.c; done; done; done && "
		   "mkdir -p a/b && echo 1 > a/b.c && echo 2 > a/b/c && echo 3 > a.c && echo 4 > a-b && "
		   "echo top > README && git add -A && git commit -q -m init && "
		   "echo staged >> src/g1/d2/f3.c && git add src/g1/d2/f3.c");
	assert_staged_as_git(dir, 1, "one staged edit");
	fx_sh(dir, "chmod +x src/g2/d0/f0.c && ln -sf f1.c src/g0/d3/f4.c && echo w >> a/b/c && "
		   "git add src/g2/d0/f0.c src/g0/d3/f4.c a/b/c && echo unstaged >> README");
	assert_staged_as_git(dir, 1, "an exec bit, a type change, a nested edit");
	fx_sh(dir, "mkdir -p src/g3/d0 && echo n > src/g3/d0/n.c && echo m > a/b0 && git add src a");
	assert_staged_as_git(dir, 1, "additions only");
	fx_sh(dir, "git commit -q -m two && git rm -q src/g0/d1/f2.c && git rm -q -r src/g2/d3 a/b");
	assert_staged_as_git(dir, 1, "deletions only");
	fx_sh(dir, "echo file > a/b && git add a/b");
	assert_staged_as_git(dir, 0, "a deletion and an addition: libgit2 pairs renames");
	fx_sh(dir, "git config status.renames false");
	assert_staged_as_git(dir, 1, "the same without renames");
	fx_sh(dir, "git rm -q --cached src/g1/d1/f1.c && mkdir -p x && git mv src/g1/d1/f0.c x/");
	assert_staged_as_git(dir, 1, "a removal from the index and a move, no renames");
	/* Names on both sides of "x/" in git's order ('-' '.' '/' '0'),
	 * added and removed next to the directory. */
	fx_sh(dir, "git commit -q -m three && mkdir -p y/z && echo 1 > y.c && echo 2 > y/z/w && "
		   "echo 3 > y-1 && echo 4 > y0 && git add -A && git commit -q -m four && "
		   "echo 5 > y/z0 && echo 6 > y.b && echo 7 > y-0 && echo 8 > y/z.c && git add -A");
	assert_staged_as_git(dir, 1, "additions beside a directory");
	fx_sh(dir, "git commit -q -m five && git rm -q y.c y-1 y/z/w y0");
	assert_staged_as_git(dir, 1, "deletions beside a directory");
	fx_rmrf(dir);
	sw_free(dir);
}

/* vcs_discover keeps the handle it opened for the observation of that
 * very workspace (vcs.c keep_discovered).  Another workspace, even a
 * linked worktree of the same repository, must never be observed through
 * it, and what changed in between must be seen. */
Test(observe, the_handle_discovery_opened_serves_only_its_own_workspace)
{
	char *a = repo_with_commit(), *b = repo_with_commit(), *linked = NULL;
	struct vcs_identity ia = VCS_IDENTITY_INIT, ib = VCS_IDENTITY_INIT,
			    il = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;
	struct vcs_observation o;
	unsigned before;
	size_t len = 0;
	char *head;

	linked = sw_asprintf("%s-linked", a);
	cr_assert_not_null(linked);
	fx_sh(a, "echo changed > a.txt && echo new > new.txt && git worktree add -q '%s' 2>/dev/null",
	      linked);
	fx_sh(b, "rm b.txt");
	cr_assert_eq(vcs_discover(&ia, a, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_discover(&ib, b, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_discover(&il, linked, &err), 0, "%s", err.msg);

	/* Kept for b, observed a: not taken, and a is observed. */
	vcs_identity_release(&ib);
	cr_assert_eq(vcs_discover(&ib, b, &err), 0, "%s", err.msg);
	before = vcs_test_discovered_taken();
	cr_assert_eq(vcs_observe(&o, &ia, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_test_discovered_taken(), before);
	assert_matches_git(&o, a);
	vcs_observation_release(&o);

	/* Kept for the linked worktree (same common directory), observed a. */
	vcs_identity_release(&il);
	cr_assert_eq(vcs_discover(&il, linked, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_observe(&o, &ia, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_test_discovered_taken(), before);
	assert_matches_git(&o, a);
	vcs_observation_release(&o);

	/* Kept for a, then a commit and an edit: taken, and both seen. */
	vcs_identity_release(&ia);
	cr_assert_eq(vcs_discover(&ia, a, &err), 0, "%s", err.msg);
	fx_sh(a, "git add a.txt && git commit -q -m two && echo again > b.txt");
	cr_assert_eq(vcs_observe(&o, &ia, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_test_discovered_taken(), before + 1);
	head = fx_sh_out(a, &len, "git rev-parse HEAD | tr -d '\\n'");
	cr_assert_str_eq(o.head, head);
	assert_matches_git(&o, a);
	vcs_observation_release(&o);

	/* Taken once only: the next observation opens its own. */
	cr_assert_eq(vcs_observe(&o, &ia, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_test_discovered_taken(), before + 1);
	assert_matches_git(&o, a);
	vcs_observation_release(&o);

	vcs_identity_release(&ia);
	vcs_identity_release(&ib);
	vcs_identity_release(&il);
	sw_free(head);
	fx_rmrf(linked);
	fx_rmrf(a);
	fx_rmrf(b);
	sw_free(linked);
	sw_free(a);
	sw_free(b);
}

/* Each dirty path is hashed in its own directory, whether the directory
 * of the path before it is kept open (the same one) or not: neighbours,
 * names that share a prefix, nesting, the root, a symlinked directory
 * and a nested repository.  Every file holds its own path. */
Test(observe, every_dirty_path_is_hashed_from_its_own_directory)
{
	static const char *const files[] = {
		"a/b/x", "a/x", "a/y", "a/z", "a.b/x", "ab/c/d/x", "ab/x", "x", "y", "z/x",
	};
	char *dir = repo_with_commit();
	struct vcs_observation o;
	size_t hashed = 0;

	fx_sh(dir, "mkdir -p a/b a.b ab/c/d z real && for f in a/x a/b/x a.b/x ab/c/d/x x z/x; do "
		   "echo old > $f; done && git add -A && git commit -q -m files && "
		   "for f in a/x a/b/x a.b/x ab/c/d/x x z/x a/y a/z ab/x y; do printf '%%s' $f > $f; done && "
		   "echo r > real/r && ln -s real lnk && git init -q nested && echo n > nested/n");
	observe(&o, dir, NULL);
	assert_matches_git(&o, dir);
	for (size_t i = 0; i < o.retained; i++) {
		const struct vcs_path_obs *p = &o.paths[i];
		char want[SW_DIGEST_LEN];

		for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
			if (strcmp(p->path, files[k]) != 0)
				continue;
			sw_sha256_prefixed(p->path, strlen(p->path), want);
			cr_assert_str_eq(p->observation, "regular", "%s", p->path);
			cr_assert_str_eq(p->content_sha256, want, "%s", p->path);
			cr_assert_eq(p->size, (int64_t)strlen(p->path), "%s", p->path);
			cr_assert(p->has_mtime, "%s", p->path);
			hashed++;
		}
	}
	cr_assert_eq(hashed, sizeof(files) / sizeof(files[0]));
	cr_assert_str_eq(find(&o, "lnk")->observation, "symlink");
	cr_assert_str_eq(find(&o, "nested/")->observation, "non_regular");
	cr_assert_str_eq(find(&o, "real/r")->observation, "regular");
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}
