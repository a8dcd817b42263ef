/* The index identity an observation reports and takes back as a hint
 * (struct vcs_index_id): an unchanged index file gives the hint's
 * fingerprint without hashing its entries, any change to the file or a
 * checksum of zeros makes it hash them again, and the identity's text
 * reads back only as written. */

#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/digest.h"
#include "io/git/observe.h"
#include "io/git/vcs.h"
#include "tests/support/vcs_fixture.h"

TestSuite(observe_hint);

#define SENTINEL "sha256:00000000000000000000000000000000000000000000000000000000000000ff"

static void observe(struct vcs_observation *o, const char *dir, const struct vcs_index_id *hint)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct vcs_observe_opts opts = { .index_hint = hint };
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(vcs_discover(&id, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(vcs_observe(o, &id, &opts, &err), 0, "%s", err.msg);
	vcs_identity_release(&id);
}

/* The digest of `git ls-files --stage -z`: what index_fingerprint is. */
static void ls_files_digest(const char *dir, char out[SW_DIGEST_LEN])
{
	size_t len;
	char *raw = fx_sh_out(dir, &len, "git ls-files --stage -z");

	sw_sha256_prefixed(raw, len, out);
	sw_free(raw);
}

static char *repo(void)
{
	char *dir = fx_tmpdir();

	fx_sh(dir, "git init -q . && printf 'one\\n' > a.txt && mkdir src && "
		   "printf 'two\\n' > src/b.txt && git add -A && git commit -q -m init");
	return dir;
}

/* The identity of dir's index file now, with a fingerprint no index has:
 * an observation that gives it took it from the hint. */
static struct vcs_index_id sentinel_hint(const char *dir)
{
	struct vcs_observation o;
	struct vcs_index_id id;

	observe(&o, dir, NULL);
	id = o.index_id;
	vcs_observation_release(&o);
	cr_assert(id.valid);
	memcpy(id.fingerprint, SENTINEL, sizeof(SENTINEL));
	return id;
}

/* Observes `dir` with `hint` and says whether the hint was taken, checking
 * that the fingerprint is then the hint's and otherwise git's. */
static int takes(const char *dir, const struct vcs_index_id *hint)
{
	struct vcs_observation o;
	char want[SW_DIGEST_LEN];
	unsigned before = vcs_test_fp_hinted();
	int took;

	observe(&o, dir, hint);
	took = vcs_test_fp_hinted() != before;
	ls_files_digest(dir, want);
	cr_assert_str_eq(o.index_fingerprint, took ? hint->fingerprint : want);
	cr_assert(o.index_id.valid);
	cr_assert_str_eq(o.index_id.fingerprint, o.index_fingerprint);
	vcs_observation_release(&o);
	return took;
}

Test(observe_hint, an_observation_names_the_index_file_it_read)
{
	char *dir = repo();
	char want[SW_DIGEST_LEN], path[PATH_MAX];
	struct vcs_observation o;
	struct stat st;

	observe(&o, dir, NULL);
	snprintf(path, sizeof(path), "%s/.git/index", dir);
	cr_assert_eq(stat(path, &st), 0);
	ls_files_digest(dir, want);
	cr_assert(o.index_id.valid);
	cr_assert_eq(o.index_id.dev, (unsigned long long)st.st_dev);
	cr_assert_eq(o.index_id.ino, (unsigned long long)st.st_ino);
	cr_assert_eq(o.index_id.size, (long long)st.st_size);
	cr_assert_eq(o.index_id.mtime_s, (long long)st.st_mtim.tv_sec);
	cr_assert_eq(o.index_id.mtime_ns, (long long)st.st_mtim.tv_nsec);
	cr_assert_eq(o.index_id.ctime_s, (long long)st.st_ctim.tv_sec);
	cr_assert_eq(o.index_id.ctime_ns, (long long)st.st_ctim.tv_nsec);
	cr_assert_str_eq(o.index_id.fingerprint, want);
	cr_assert_str_eq(o.index_fingerprint, want);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe_hint, an_unchanged_index_file_takes_the_fingerprint_of_the_hint)
{
	char *dir = repo();
	struct vcs_index_id hint;

	hint = sentinel_hint(dir);
	cr_assert(takes(dir, &hint));
	/* The worktree changing leaves the index file as it was. */
	fx_sh(dir, "echo more >> a.txt && echo new > c.txt");
	cr_assert(takes(dir, &hint));
	hint.valid = 0;
	cr_assert_not(takes(dir, &hint));
	cr_assert_not(takes(dir, NULL));
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe_hint, a_hint_that_differs_in_any_part_is_not_taken)
{
	char *dir = repo();
	struct vcs_index_id was, h;

	was = sentinel_hint(dir);
	cr_assert(takes(dir, &was));
#define DIFFERS(field)                                  \
	do {                                            \
		h = was;                                \
		h.field++;                              \
		cr_assert_not(takes(dir, &h), #field);  \
	} while (0)
	DIFFERS(dev);
	DIFFERS(ino);
	DIFFERS(size);
	DIFFERS(mtime_s);
	DIFFERS(mtime_ns);
	DIFFERS(ctime_s);
	DIFFERS(ctime_ns);
	DIFFERS(sum[0]);
	DIFFERS(sum[19]);
#undef DIFFERS
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe_hint, an_index_written_again_is_fingerprinted_again)
{
	char *dir = repo();
	struct vcs_index_id hint;

	hint = sentinel_hint(dir);
	/* Staged: a new file renamed over the index. */
	fx_sh(dir, "echo more >> a.txt && git add a.txt");
	cr_assert_not(takes(dir, &hint));
	/* The same bytes in a new file: fingerprinted all the same. */
	hint = sentinel_hint(dir);
	fx_sh(dir, "cp .git/index .git/index.new && mv .git/index.new .git/index");
	cr_assert_not(takes(dir, &hint));
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe_hint, an_index_with_a_checksum_of_zeros_names_nothing)
{
	static const unsigned char zero[20];
	char *dir = repo(), path[PATH_MAX];
	struct vcs_observation o;
	struct vcs_index_id hint;
	struct stat st;
	unsigned before;
	int fd;

	observe(&o, dir, NULL);
	hint = o.index_id;
	vcs_observation_release(&o);
	/* As index.skipHash writes it. */
	snprintf(path, sizeof(path), "%s/.git/index", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert((fd = open(path, O_WRONLY)) >= 0);
	cr_assert_eq(pwrite(fd, zero, sizeof(zero), st.st_size - 20), 20);
	close(fd);
	/* Even a hint of those very zeros is not taken. */
	memset(hint.sum, 0, sizeof(hint.sum));
	before = vcs_test_fp_hinted();
	observe(&o, dir, &hint);
	cr_assert_eq(vcs_test_fp_hinted(), before);
	cr_assert_not(o.index_id.valid);
	vcs_observation_release(&o);
	fx_rmrf(dir);
	sw_free(dir);
}

Test(observe_hint, the_text_of_an_identity_reads_back_only_as_written)
{
	struct vcs_index_id id = { 1, ULLONG_MAX, ULLONG_MAX, LLONG_MIN, LLONG_MIN, LLONG_MIN,
				   LLONG_MIN, LLONG_MIN, { 0 }, "" }, back;
	char text[VCS_INDEX_ID_TEXT_MAX], bad[VCS_INDEX_ID_TEXT_MAX + 8];
	size_t n;

	for (int i = 0; i < 20; i++)
		id.sum[i] = (unsigned char)(0xa0 + i);
	memcpy(id.fingerprint, SENTINEL, sizeof(SENTINEL));
	/* The longest text: every number at its widest. */
	cr_assert_eq(vcs_index_id_text(&id, text), 0);
	n = strlen(text);
	cr_assert_lt(n, VCS_INDEX_ID_TEXT_MAX);
	cr_assert_eq(vcs_index_id_parse(&back, text, n), 0);
	cr_assert(back.valid);
	cr_assert_eq(memcmp(&back.sum, &id.sum, sizeof(id.sum)), 0);
	cr_assert_eq(back.dev, id.dev);
	cr_assert_eq(back.ctime_ns, id.ctime_ns);
	cr_assert_str_eq(back.fingerprint, id.fingerprint);
	/* Anything else is no identity. */
	cr_assert_eq(vcs_index_id_parse(&back, text, n - 1), -1);
	cr_assert_not(back.valid);
	snprintf(bad, sizeof(bad), "%s ", text);
	cr_assert_eq(vcs_index_id_parse(&back, bad, n + 1), -1);
	id.dev = 7;
	cr_assert_eq(vcs_index_id_text(&id, text), 0);
	n = strlen(text);
	cr_assert_eq(vcs_index_id_parse(&back, text, n), 0);
	snprintf(bad, sizeof(bad), "0%s", text);
	cr_assert_eq(vcs_index_id_parse(&back, bad, n + 1), -1, "a leading zero");
	snprintf(bad, sizeof(bad), "+%s", text);
	cr_assert_eq(vcs_index_id_parse(&back, bad, n + 1), -1, "a sign");
	memcpy(bad, text, n + 1);
	*strstr(bad, " ") = '\t';
	cr_assert_eq(vcs_index_id_parse(&back, bad, n), -1, "a tab");
	memcpy(bad, text, n + 1);
	*strstr(bad, "a0a1") = 'A';
	cr_assert_eq(vcs_index_id_parse(&back, bad, n), -1, "uppercase hex");
	memcpy(bad, text, n + 1);
	bad[n - 1] = 'g';
	cr_assert_eq(vcs_index_id_parse(&back, bad, n), -1, "a fingerprint that is no hex");
	cr_assert_eq(vcs_index_id_parse(&back, "", 0), -1);
	id.valid = 0;
	cr_assert_eq(vcs_index_id_text(&id, text), -1);
}
