/* The listing summary of the run store (store_read_summary): offered only
 * while the journal and every material are what they were when it was
 * written, never written outside the run directory, and never a reason to
 * skip what a replay would find. */

#include <errno.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "tests/io/store_helpers.h"

TestSuite(io_summary, .init = scratch_init, .fini = scratch_fini);

/* A mutation of one event, a projection, an optional material and an
 * optional summary body. */
struct sum_spec {
	enum tbl_jevent type;
	const char *material;
	const char *body;
};

static int add_with_summary(struct store_mutation *m, void *payload, struct sw_error *err)
{
	struct sum_spec *c = payload;
	char digest[SW_DIGEST_LEN];
	int rc;

	if ((rc = store_mutation_add_event(m, c->type, "{\"k\":\"v\"}", 9, err)) < 0 ||
	    (rc = store_mutation_set_projection(m, "{}", 2, err)) < 0)
		return rc;
	if (c->material &&
	    (rc = store_mutation_add_material(m, c->material, strlen(c->material), digest, err)) < 0)
		return rc;
	if (c->body && (rc = store_mutation_set_summary(m, c->body, strlen(c->body), err)) < 0)
		return rc;
	return 0;
}

static int no_resume(struct store_checkpoint *cp, void *payload, struct sw_error *err)
{
	(void)cp;
	(void)payload;
	(void)err;
	return 1;
}

static void create_with(struct store *s, const char *id, const char *material, const char *body)
{
	struct sw_error err = SW_ERROR_INIT;
	struct sum_spec c = { TBL_JEVENT_RUN_STARTED, material, body };

	cr_assert_eq(store_create(s, id, add_with_summary, &c, &err), 0, "%s", err.msg);
}

static void update_with(struct store *s, const char *id, const char *material, const char *body)
{
	struct sw_error err = SW_ERROR_INIT;
	struct sum_spec c = { TBL_JEVENT_OUTCOME_SUBMITTED, material, body };

	cr_assert_eq(store_update_resumable(s, id, no_resume, NULL, add_with_summary, &c, &err), 0,
		     "%s", err.msg);
}

/* The summary body offered for `id`, or NULL (freed by the next call). */
static const char *offered(struct store *s, const char *id)
{
	static char *last;
	size_t len = 0;

	sw_free(last);
	last = NULL;
	if (store_read_summary(&last, &len, s, id) != 1) {
		cr_assert_null(last);
		return NULL;
	}
	cr_assert_eq(strlen(last), len);
	return last;
}

static char *material_path(const char *id, const char *material)
{
	char digest[SW_DIGEST_LEN];
	static char p[PATH_MAX + 160];

	sw_material_digest(digest, material, strlen(material), NULL);
	snprintf(p, sizeof(p), "%s/%s", run_path(id, "materials"), digest + 7);
	return p;
}

static void write_file(const char *path, const char *bytes)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	fputs(bytes, f);
	fclose(f);
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *b = slurp(from, &len);
	FILE *f = fopen(to, "wb");

	cr_assert_not_null(b);
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(b, 1, len, f), len);
	fclose(f);
	free(b);
}

/* A Run "r" created with material M1 and updated with M2: its summary is
 * "S2" and lists both. */
static struct store *prepared(void)
{
	struct store *s = open_store(true);

	create_with(s, "r", "material one", "S1");
	cr_assert_str_eq(offered(s, "r"), "S1");
	update_with(s, "r", "material two", "S2");
	cr_assert_str_eq(offered(s, "r"), "S2");
	return s;
}

Test(io_summary, written_by_create_and_update_with_every_material)
{
	struct store *s = prepared();
	struct stat st;
	char *file = slurp(run_path("r", "run.summary"), NULL), *nl;

	cr_assert_eq(lstat(run_path("r", "run.summary"), &st), 0);
	cr_assert(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
	cr_assert(strncmp(file, "slipway-summary/3 ", 18) == 0, "%s", file);
	nl = strchr(file, '\n');
	cr_assert_not_null(nl);
	/* Both materials are listed, the one created with the Run first. */
	cr_assert(strstr(nl, strrchr(material_path("r", "material one"), '/') + 1) != NULL);
	cr_assert(strstr(nl, strrchr(material_path("r", "material two"), '/') + 1) != NULL);
	cr_assert(strstr(file, " 2 ") != NULL, "two material lines: %s", file);
	free(file);
	/* An update without a material carries the list over. */
	update_with(s, "r", NULL, "S3");
	cr_assert_str_eq(offered(s, "r"), "S3");
	file = slurp(run_path("r", "run.summary"), NULL);
	cr_assert(strstr(file, strrchr(material_path("r", "material one"), '/') + 1) != NULL);
	free(file);
	/* A blob written again is listed once. */
	update_with(s, "r", "material one", "S4");
	cr_assert_str_eq(offered(s, "r"), "S4");
	file = slurp(run_path("r", "run.summary"), NULL);
	nl = strstr(file, strrchr(material_path("r", "material one"), '/') + 1);
	cr_assert(nl != NULL && strstr(nl + 1, strrchr(material_path("r", "material one"), '/') + 1) == NULL);
	cr_assert(strstr(file, " 2 ") != NULL, "still two material lines: %s", file);
	free(file);
	store_free(s);
}

Test(io_summary, a_changed_journal_means_no_summary)
{
	struct store *s = prepared();
	char *j = slurp(run_path("r", "journal.jsonl"), NULL), *k;
	size_t len = strlen(j);

	/* One byte rewritten in place, same length: the digest tells. */
	k = strdup(j);
	k[len / 2] = k[len / 2] == 'a' ? 'b' : 'a';
	write_file(run_path("r", "journal.jsonl"), k);
	cr_assert_null(offered(s, "r"));
	write_file(run_path("r", "journal.jsonl"), j);
	cr_assert_str_eq(offered(s, "r"), "S2", "the same bytes again");
	/* A torn tail or a record appended by hand. */
	append_bytes(run_path("r", "journal.jsonl"), "{\"sequ");
	cr_assert_null(offered(s, "r"));
	free(k);
	free(j);
	store_free(s);
}

Test(io_summary, a_changed_missing_or_swapped_material_means_no_summary)
{
	struct store *s = prepared();
	const char *m1 = material_path("r", "material one");
	char keep[PATH_MAX + 200];

	/* The same bytes written again still change the file's identity. */
	write_file(m1, "material one");
	cr_assert_null(offered(s, "r"));
	store_free(s);
	scratch_fini();
	scratch_init();
	s = prepared();
	m1 = material_path("r", "material one");
	snprintf(keep, sizeof(keep), "%s.keep", m1);
	cr_assert_eq(rename(m1, keep), 0);
	cr_assert_null(offered(s, "r"), "missing");
	cr_assert_eq(symlink(keep, m1), 0);
	cr_assert_null(offered(s, "r"), "a symlink to the very file");
	cr_assert_eq(unlink(m1), 0);
	cr_assert_eq(rename(keep, m1), 0);
	cr_assert_null(offered(s, "r"), "renamed back: its change time moved");
	store_free(s);
	scratch_fini();
	scratch_init();
	s = prepared();
	/* materials/ itself swapped for a symlink to it. */
	snprintf(keep, sizeof(keep), "%s.keep", run_path("r", "materials"));
	cr_assert_eq(rename(run_path("r", "materials"), keep), 0);
	cr_assert_eq(symlink(keep, run_path("r", "materials")), 0);
	cr_assert_null(offered(s, "r"));
	store_free(s);
}

Test(io_summary, damaged_or_hostile_summaries_are_not_offered)
{
	struct store *s = open_store(true);
	const char *sum = run_path("r", "run.summary");
	char *good;
	size_t len;

	create_with(s, "r", "material one", "S1");
	create_with(s, "other", "material one", "S1");
	good = slurp(sum, &len);
	cr_assert_not_null(good);
	/* Truncated, a body byte changed, garbage, empty. */
	good[len - 1] = '\0';
	write_file(sum, good);
	cr_assert_null(offered(s, "r"), "truncated");
	good[len - 1] = '2';
	write_file(sum, good);
	cr_assert_null(offered(s, "r"), "body changed without its digest");
	write_file(sum, "slipway-summary/2 garbage\n");
	cr_assert_null(offered(s, "r"), "garbage");
	write_file(sum, "");
	cr_assert_null(offered(s, "r"), "empty");
	/* Another Run's intact summary, copied or linked. */
	copy_file(run_path("other", "run.summary"), sum);
	cr_assert_null(offered(s, "r"), "another Run's summary");
	cr_assert_eq(unlink(sum), 0);
	cr_assert_eq(symlink(run_path("other", "run.summary"), sum), 0);
	cr_assert_null(offered(s, "r"), "a symlink");
	cr_assert_eq(unlink(sum), 0);
	/* A FIFO is refused without blocking; a directory too. */
	cr_assert_eq(mkfifo(sum, 0600), 0);
	cr_assert_null(offered(s, "r"), "a FIFO");
	cr_assert_eq(unlink(sum), 0);
	cr_assert_eq(mkdir(sum, 0700), 0);
	cr_assert_null(offered(s, "r"), "a directory");
	cr_assert_eq(rmdir(sum), 0);
	cr_assert_null(offered(s, "r"), "missing");
	free(good);
	store_free(s);
}

Test(io_summary, a_stale_summary_put_back_is_not_offered)
{
	struct store *s = open_store(true);
	char old[PATH_MAX + 80];

	create_with(s, "r", "material one", "S1");
	snprintf(old, sizeof(old), "%s/old-summary", g_root);
	copy_file(run_path("r", "run.summary"), old);
	update_with(s, "r", NULL, "S2");
	copy_file(old, run_path("r", "run.summary"));
	cr_assert_null(offered(s, "r"));
	store_free(s);
}

/* A mutation that finds no summary matching the journal it replayed
 * cannot know every material, so it writes none (and removes a stale
 * one); nor does a mutation without a body. */
Test(io_summary, a_broken_chain_or_no_body_writes_no_summary)
{
	struct store *s = prepared();
	struct stat st;

	cr_assert_eq(unlink(run_path("r", "run.summary")), 0);
	update_with(s, "r", "material three", "S3");
	cr_assert_eq(lstat(run_path("r", "run.summary"), &st), -1);
	cr_assert_null(offered(s, "r"));
	store_free(s);
	scratch_fini();
	scratch_init();
	s = prepared();
	append_bytes(run_path("r", "run.summary"), "x");
	update_with(s, "r", NULL, "S3");
	cr_assert_eq(lstat(run_path("r", "run.summary"), &st), -1, "the damaged one is removed");
	store_free(s);
	scratch_fini();
	scratch_init();
	s = prepared();
	update_with(s, "r", NULL, NULL);
	cr_assert_eq(lstat(run_path("r", "run.summary"), &st), -1, "no body, no summary");
	store_free(s);
}

Test(io_summary, never_written_through_a_symlink_or_outside_the_run)
{
	struct store *s = prepared();
	char outside[PATH_MAX + 80], *after;
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(outside, sizeof(outside), "%s/outside", g_root);
	write_file(outside, "keep me\n");
	cr_assert_eq(unlink(run_path("r", "run.summary")), 0);
	cr_assert_eq(symlink(outside, run_path("r", "run.summary")), 0);
	update_with(s, "r", NULL, "S3");
	after = slurp(outside, NULL);
	cr_assert_str_eq(after, "keep me\n");
	free(after);
	/* The chain was broken, so the link is removed, not followed. */
	cr_assert_eq(lstat(run_path("r", "run.summary"), &st), -1);
	/* No temp is left behind. */
	cr_assert_not_null(d = opendir(run_path("r", NULL)));
	while ((de = readdir(d)) != NULL)
		cr_assert(strncmp(de->d_name, ".tmp-", 5) != 0, "%s left", de->d_name);
	closedir(d);
	store_free(s);
}

Test(io_summary, a_busy_run_is_left_to_the_replay_and_reading_writes_nothing)
{
	struct store *s = prepared(), *ro;
	char *before, *after;
	int fd;

	store_free(s);
	ro = open_store(false);
	before = tree_fingerprint(g_common);
	cr_assert_str_eq(offered(ro, "r"), "S2", "read-only stores read it too");
	after = tree_fingerprint(g_common);
	cr_assert_str_eq(before, after);
	fd = open(run_path("r", NULL), O_RDONLY | O_DIRECTORY);
	cr_assert(fd >= 0);
	cr_assert_eq(flock(fd, LOCK_EX), 0);
	cr_assert_null(offered(ro, "r"), "no waiting on a writer");
	close(fd);
	cr_assert_str_eq(offered(ro, "r"), "S2");
	cr_assert_null(offered(ro, "nope"));
	sw_free(before);
	sw_free(after);
	store_free(ro);
}

/* run.summary is written in place (store_checkpoint.c
 * store__rewrite_leaf).  A process killed in the middle of that write,
 * after half the new bytes or after all of them but before the file was
 * cut to its new length (a stale tail), leaves a summary the listing
 * refuses by its length and digest, so it replays the Run instead; and
 * the next mutation, finding no summary that matched the journal, writes
 * none (as after any summary lost), so nothing torn is ever offered. */
Test(io_summary, a_summary_killed_while_written_in_place_is_never_offered)
{
	static const char *const body = "a long summary body, longer than the one the kill "
					"interrupts, so that the new file is shorter than the old";

	for (int torn = 0; torn < 2; torn++) {
		struct store *s = open_store(true);
		char *before, *after;
		size_t blen, alen;
		pid_t pid;
		int status;

		create_with(s, "r", "material one", body);
		cr_assert_str_eq(offered(s, "r"), body);
		before = slurp(run_path("r", "run.summary"), &blen);
		fflush(NULL);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			store_test_kill_rewrite("run.summary", torn);
			update_with(s, "r", NULL, "S2");
			_exit(0);
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == STORE_FAULT_EXIT,
			  "killed in the write (torn %d)", torn);
		after = slurp(run_path("r", "run.summary"), &alen);
		cr_assert(alen != blen || memcmp(after, before, blen) != 0, "torn %d: unchanged", torn);
		cr_assert_null(offered(s, "r"), "torn %d: offered", torn);
		update_with(s, "r", "material two", "S3");
		cr_assert_null(offered(s, "r"), "torn %d: offered after the next commit", torn);
		free(after);
		free(before);
		store_free(s);
		scratch_fini();
		scratch_init();
	}
}

/* Written in place only when it is a regular 0600 file of ours with one
 * link: one with a second link (which could be outside the run
 * directory) is replaced by a new file, and the other name keeps its
 * bytes. */
Test(io_summary, a_summary_with_a_second_link_is_replaced_not_written_through)
{
	struct store *s = prepared();
	char outside[PATH_MAX + 80], *before, *after;
	struct stat st;

	snprintf(outside, sizeof(outside), "%s/outside", g_root);
	cr_assert_eq(link(run_path("r", "run.summary"), outside), 0);
	before = slurp(outside, NULL);
	update_with(s, "r", NULL, "S3");
	after = slurp(outside, NULL);
	cr_assert_str_eq(after, before);
	cr_assert_eq(lstat(run_path("r", "run.summary"), &st), 0);
	cr_assert_eq(st.st_nlink, 1);
	cr_assert_str_eq(offered(s, "r"), "S3");
	free(before);
	free(after);
	store_free(s);
}

/* A mutation whose materials are all new appends their lines to the last
 * summary in place, from its header alone: the file keeps its inode and
 * every byte of the old lines, and is offered as a whole one is.  One that
 * writes an existing blob again writes the summary whole (its line
 * replaced, listed once). */
Test(io_summary, new_materials_are_appended_in_place_from_the_header_alone)
{
	struct store *s = prepared();
	struct stat before, after;
	unsigned long appends = store_test_summary_appends();
	char *old = slurp(run_path("r", "run.summary"), NULL), *now;
	const char *lines = strchr(old, '\n') + 1;
	size_t keep = strlen(lines) - strlen("S2");	/* the lines, before the body */

	cr_assert_eq(lstat(run_path("r", "run.summary"), &before), 0);
	update_with(s, "r", "material three", "S3");
	cr_assert_eq(store_test_summary_appends(), appends + 1);
	cr_assert_str_eq(offered(s, "r"), "S3");
	cr_assert_eq(lstat(run_path("r", "run.summary"), &after), 0);
	cr_assert_eq(after.st_ino, before.st_ino);
	now = slurp(run_path("r", "run.summary"), NULL);
	cr_assert_eq(strncmp(strchr(now, '\n') + 1, lines, keep), 0, "the old lines moved");
	cr_assert(strstr(now, strrchr(material_path("r", "material three"), '/') + 1) != NULL);
	free(now);
	/* No material: appended too. */
	update_with(s, "r", NULL, "S4");
	cr_assert_eq(store_test_summary_appends(), appends + 2);
	cr_assert_str_eq(offered(s, "r"), "S4");
	/* An existing blob again: written whole. */
	update_with(s, "r", "material one", "S5");
	cr_assert_eq(store_test_summary_appends(), appends + 2);
	cr_assert_str_eq(offered(s, "r"), "S5");
	free(old);
	store_free(s);
}

/* Appending trusts the old header's lines chain, so a line changed under
 * it (a block lost to a power loss, an edit) is never offered, by this
 * listing or after the appends that follow; after a reboot the next
 * mutation reads the whole file, finds it damaged and removes it. */
Test(io_summary, lines_changed_under_their_chain_are_never_offered)
{
	struct store *s = prepared();
	char *file = slurp(run_path("r", "run.summary"), NULL);
	struct stat st;
	long at = (long)(strchr(file, '\n') + 1 - file) + 70;	/* in the first line's identity */

	{
		FILE *f = fopen(run_path("r", "run.summary"), "r+b");

		cr_assert_not_null(f);
		cr_assert_eq(fseek(f, at, SEEK_SET), 0);
		cr_assert_eq(fputc(file[at] == '1' ? '2' : '1', f), file[at] == '1' ? '2' : '1');
		fclose(f);
	}
	cr_assert_null(offered(s, "r"));
	update_with(s, "r", "material three", "S3");
	cr_assert_null(offered(s, "r"), "carried on by an append");
	store_test_boot_id("0123456789abcdef0123456789abcdef");
	update_with(s, "r", "material four", "S4");
	cr_assert_eq(lstat(run_path("r", "run.summary"), &st), -1, "read whole after a reboot");
	store_test_boot_id(NULL);
	free(file);
	store_free(s);
}

/* A version 2 summary (an earlier slipway) is offered while it matches,
 * and the next mutation writes it again as version 3 with every line. */
Test(io_summary, a_version_2_summary_is_read_and_written_again_as_version_3)
{
	struct store *s = prepared();
	char *file = slurp(run_path("r", "run.summary"), NULL), *v2, boot[40], jhex[40];
	char lhex[40], bhex[40], dhex[SW_XXH_HEX_LEN];
	long long jlen;
	size_t nlines, lines_len, body_len, hlen = (size_t)(strchr(file, '\n') + 1 - file);

	cr_assert_eq(sscanf(file, "slipway-summary/3 %39s %lld %39s %zu %zu %39s %zu %39s", boot, &jlen,
			    jhex, &nlines, &lines_len, lhex, &body_len, bhex), 8);
	sw_xxh_hex(file + hlen, lines_len + body_len, dhex);
	v2 = sw_asprintf("slipway-summary/2 %lld %s %zu %zu %zu %s\n%s", jlen, jhex, nlines,
			 lines_len, body_len, dhex, file + hlen);
	write_file(run_path("r", "run.summary"), v2);
	cr_assert_str_eq(offered(s, "r"), "S2");
	update_with(s, "r", "material three", "S3");
	cr_assert_str_eq(offered(s, "r"), "S3");
	free(file);
	file = slurp(run_path("r", "run.summary"), NULL);
	cr_assert(strncmp(file, "slipway-summary/3 ", 18) == 0);
	cr_assert(strstr(file, strrchr(material_path("r", "material one"), '/') + 1) != NULL);
	cr_assert(strstr(file, " 3 ") != NULL, "three material lines: %s", file);
	sw_free(v2);
	free(file);
	store_free(s);
}
