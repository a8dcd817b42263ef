/* The replay checkpoint of the run store (store_update_resumable): offered
 * only while the journal prefix, run.json and the body are what they were
 * when it was written, and never a reason to skip a journal record. */

#include <sys/wait.h>

#include "tests/io/store_helpers.h"

TestSuite(io_checkpoint, .init = scratch_init, .fini = scratch_fini);

/* A mutation adding one event, run.json as two pieces and a checkpoint
 * "B<k>" whose log gains "L<k>;": appended to an adopted log, or the whole
 * log "L1;...L<k>;" when none was adopted.  `base` overrides the base. */
struct cp_spec {
	const char *body;
	char proj[128];
	size_t adopted;		/* log bytes adopted, or (size_t)-1 */
	long base;		/* -1: the honest base */
	char log[128];
	int copy;		/* the first piece from the adopted run.json */
};

static int add_with_checkpoint(struct store_mutation *m, void *payload, struct sw_error *err)
{
	struct cp_spec *c = payload;
	struct sw_piece pieces[2];
	int rc;

	if ((rc = store_mutation_add_event(m, TBL_JEVENT_OUTCOME_SUBMITTED, "{\"k\":\"v\"}", 9,
					   err)) < 0)
		return rc;
	snprintf(c->proj, sizeof(c->proj), "{\n  \"revision\": %lld,\n  \"data\": {}\n}\n",
		 store_mutation_base(m) + 1);
	pieces[0].bytes = c->proj;
	pieces[0].len = 10;
	pieces[1].bytes = c->proj + 10;
	pieces[1].len = strlen(c->proj) - 10;
	/* "{\n  \"revis" again, copied from the adopted run.json. */
	if (c->copy) {
		pieces[0].bytes = NULL;
		pieces[0].from = 0;
	}
	if (c->copy == 2) {	/* someone replaces run.json meanwhile */
		FILE *f = fopen(run_path("r", "run.json.new"), "w");

		cr_assert_not_null(f);
		fputs("{\n  \"revision\": 9,\n  \"data\": {}\n}\n", f);
		fclose(f);
		cr_assert_eq(rename(run_path("r", "run.json.new"), run_path("r", "run.json")), 0);
	}
	if ((rc = store_mutation_set_projection_pieces(m, pieces, 2, err)) < 0)
		return rc;
	{
		int k = atoi(c->body + 1);
		size_t n = 0, base = c->adopted == (size_t)-1 ? 0 : c->adopted;

		for (int i = c->adopted == (size_t)-1 ? 1 : k; i <= k; i++)
			n += (size_t)snprintf(c->log + n, sizeof(c->log) - n, "L%d;", i);
		store_mutation_set_checkpoint(m, c->body, strlen(c->body), c->log, n,
					      c->base >= 0 ? (size_t)c->base : base);
	}
	return 0;
}

/* What a resume callback was offered; it adopts unless told to refuse. */
struct offer {
	int calls;
	int refuse;
	long long sequence;
	char body[64];
	char proj[128];
	char log[128];
	size_t log_len;
};

static int take_offer(struct store_checkpoint *cp, void *payload, struct sw_error *err)
{
	struct offer *o = payload;

	(void)err;
	o->calls++;
	o->sequence = cp->sequence;
	snprintf(o->body, sizeof(o->body), "%.*s", (int)cp->body_len, cp->body);
	memset(o->proj, 0, sizeof(o->proj));
	cr_assert_lt(cp->projection_len, sizeof(o->proj));
	cr_assert_eq(pread(cp->projection_fd, o->proj, cp->projection_len, 0),
		     (ssize_t)cp->projection_len);
	snprintf(o->log, sizeof(o->log), "%.*s", (int)cp->log_len, cp->log ? cp->log : "");
	o->log_len = cp->log_len;
	if (o->refuse)
		return 1;
	return 0;
}

struct both {
	struct offer offer;
	struct seen seen;
	struct cp_spec next;
};

static int offer_cb(struct store_checkpoint *cp, void *payload, struct sw_error *err)
{
	return take_offer(cp, &((struct both *)payload)->offer, err);
}

static int seen_cb(const struct store_event *ev, void *payload, struct sw_error *err)
{
	return collect(ev, &((struct both *)payload)->seen, err);
}

static int next_cb(struct store_mutation *m, void *payload, struct sw_error *err)
{
	struct both *b = payload;

	b->next.adopted = b->offer.calls && !b->offer.refuse ? b->offer.log_len : (size_t)-1;
	return add_with_checkpoint(m, &b->next, err);
}

/* Runs one resumable update; returns its code (err in *e). */
static int update(struct store *s, struct both *b, const char *body, struct sw_error *e)
{
	memset(b, 0, sizeof(*b));
	b->next.body = body;
	b->next.base = -1;
	return store_update_resumable(s, "r", offer_cb, seen_cb, next_cb, b, e);
}

/* A run of three events whose last update wrote a checkpoint "B2". */
static struct store *prepared(void)
{
	struct store *s = open_store(true);
	struct sw_error err = SW_ERROR_INIT;
	struct both b;

	make_run(s, "r");
	cr_assert_eq(update(s, &b, "B1", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0, "no checkpoint before the first update");
	cr_assert_eq(b.seen.n, 1);
	seen_free(&b.seen);
	cr_assert_eq(update(s, &b, "B2", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_str_eq(b.offer.body, "B1");
	seen_free(&b.seen);
	return s;
}

static void rewrite(const char *path, long at, char c)
{
	FILE *f = fopen(path, "r+b");

	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, at, SEEK_SET), 0);
	cr_assert_eq(fputc(c, f), c);
	fclose(f);
}

/* Overwrites one journal byte: the one just after the first `needle`. */
static void rewrite_journal_after(const char *needle, char c)
{
	char *j = slurp(run_path("r", "journal.jsonl"), NULL), *at;

	cr_assert_not_null(j);
	at = strstr(j, needle);
	cr_assert_not_null(at, "no %s in the journal", needle);
	rewrite(run_path("r", "journal.jsonl"), at - j + 1, c);
	free(j);
}

Test(io_checkpoint, a_fresh_checkpoint_is_offered_and_only_later_events_replay)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;
	char *proj;

	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_eq(b.offer.sequence, 3);
	cr_assert_str_eq(b.offer.body, "B2");
	cr_assert_str_eq(b.offer.proj, "{\n  \"revision\": 3,\n  \"data\": {}\n}\n");
	cr_assert_str_eq(b.offer.log, "L1;L2;", "the log as the last two updates left it");
	cr_assert_eq(b.seen.n, 0, "the checkpoint covers every event");
	seen_free(&b.seen);
	/* The run.json pieces were written as one file. */
	proj = slurp(run_path("r", "run.json"), NULL);
	cr_assert_str_eq(proj, "{\n  \"revision\": 4,\n  \"data\": {}\n}\n");
	free(proj);
	proj = slurp(run_path("r", "run.checkpoint-log"), NULL);
	cr_assert_str_eq(proj, "L1;L2;L3;", "only the new entry was added");
	free(proj);
	store_free(s);
}

/* Appending to the log in place: an append whose checkpoint never landed
 * leaves bytes past the recorded length, which are ignored and cut off. */
Test(io_checkpoint, log_bytes_past_the_recorded_length_are_ignored_and_cut)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;
	FILE *f = fopen(run_path("r", "run.checkpoint-log"), "ab");
	char *log;

	cr_assert_not_null(f);
	fputs("junk from an append that never got its checkpoint", f);
	fclose(f);
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_str_eq(b.offer.log, "L1;L2;");
	seen_free(&b.seen);
	log = slurp(run_path("r", "run.checkpoint-log"), NULL);
	cr_assert_str_eq(log, "L1;L2;L3;");
	free(log);
	cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_str_eq(b.offer.log, "L1;L2;L3;");
	seen_free(&b.seen);
	store_free(s);
}

Test(io_checkpoint, a_changed_or_replaced_log_is_not_offered)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;
	char *log;

	rewrite(run_path("r", "run.checkpoint-log"), 1, '7');
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0);
	cr_assert_eq(b.seen.n, 3);
	seen_free(&b.seen);
	/* No log was adopted, so that update wrote a whole new one. */
	log = slurp(run_path("r", "run.checkpoint-log"), NULL);
	cr_assert_str_eq(log, "L1;L2;L3;");
	free(log);
	cr_assert_eq(unlink(run_path("r", "run.checkpoint-log")), 0);
	cr_assert_eq(symlink(run_path("r", "journal.jsonl"), run_path("r", "run.checkpoint-log")), 0);
	cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0, "a symlinked log is never read");
	cr_assert_eq(b.seen.n, 4);
	seen_free(&b.seen);
	store_free(s);
}

/* A log that does not follow the adopted one is never written: no
 * checkpoint then, and the next update replays everything. */
Test(io_checkpoint, a_log_on_the_wrong_base_writes_no_checkpoint)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;
	char *log;

	memset(&b, 0, sizeof(b));
	b.next.body = "B3";
	b.next.base = 2;	/* the adopted log is 6 bytes long */
	cr_assert_eq(store_update_resumable(s, "r", offer_cb, seen_cb, next_cb, &b, &err), 0);
	cr_assert_eq(b.offer.calls, 1);
	seen_free(&b.seen);
	cr_assert_eq(access(run_path("r", "run.checkpoint"), F_OK), -1);
	log = slurp(run_path("r", "run.checkpoint-log"), NULL);
	cr_assert_str_eq(log, "L1;L2;", "the log is left as it was");
	free(log);
	cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0);
	cr_assert_eq(b.seen.n, 4);
	seen_free(&b.seen);
	store_free(s);
}

Test(io_checkpoint, a_changed_journal_prefix_means_a_full_replay)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;

	/* Same length, still valid JSON: only the digest can tell. */
	unsigned long reads = store_test_prefix_reads();

	rewrite_journal_after("\"v\"", 'w');
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_eq(store_test_prefix_reads(), reads + 1, "a written journal is read back");
	cr_assert_eq(b.offer.calls, 0);
	cr_assert_eq(b.seen.n, 3);
	cr_assert_str_eq(b.seen.data[1], "{\"k\":\"w\"}");
	seen_free(&b.seen);
	store_free(s);
}

/* A journal left as the checkpoint's own append left it (the very file,
 * its size and times) is not read back: the chained digest resumes from
 * the checkpoint.  Any other journal (here only touched) has its prefix
 * read and checked, and the checkpoint is adopted when it still holds. */
Test(io_checkpoint, an_untouched_journal_is_not_read_back)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	unsigned long reads = store_test_prefix_reads();
	struct both b;

	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_eq(store_test_prefix_reads(), reads, "the journal was not read back");
	seen_free(&b.seen);
	cr_assert_eq(utimensat(AT_FDCWD, run_path("r", "journal.jsonl"), NULL, 0), 0);
	cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
	cr_assert_eq(store_test_prefix_reads(), reads + 1, "a touched journal is read back");
	cr_assert_eq(b.offer.calls, 1, "and its checkpoint still holds");
	cr_assert_str_eq(b.offer.body, "B3");
	cr_assert_eq(b.seen.n, 0);
	seen_free(&b.seen);
	/* The chained digest resumed from the checkpoint is the one a full
	 * read gives: the next update, after a touch, still adopts B4. */
	cr_assert_eq(utimensat(AT_FDCWD, run_path("r", "journal.jsonl"), NULL, 0), 0);
	cr_assert_eq(update(s, &b, "B5", &err), 0, "%s", err.msg);
	cr_assert_eq(store_test_prefix_reads(), reads + 2);
	cr_assert_str_eq(b.offer.body, "B4");
	seen_free(&b.seen);
	store_free(s);
}

/* run.json, the checkpoint and its log are written without fsync: only a
 * power loss or a kernel crash can lose their bytes, and both mean a new
 * boot, so a checkpoint from another boot is never adopted and the
 * projection is rebuilt from the journal. */
Test(io_checkpoint, a_checkpoint_from_another_boot_means_a_full_replay)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;
	char *proj;

	/* A power loss may leave run.json's size and times as they were and
	 * its bytes not, which no process can do to a file: only the boot
	 * id tells. */
	store_test_boot_id("0123456789abcdef0123456789abcdef");
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0, "written in another boot");
	cr_assert_eq(b.seen.n, 3, "a full replay");
	seen_free(&b.seen);
	proj = slurp(run_path("r", "run.json"), NULL);
	cr_assert_str_eq(proj, "{\n  \"revision\": 4,\n  \"data\": {}\n}\n");
	free(proj);
	/* The checkpoint written in this boot is adopted again. */
	cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_str_eq(b.offer.body, "B3");
	cr_assert_eq(b.seen.n, 0);
	seen_free(&b.seen);
	store_test_boot_id(NULL);
	cr_assert_eq(update(s, &b, "B5", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0, "and not in the next boot");
	seen_free(&b.seen);
	store_free(s);
}

Test(io_checkpoint, a_corrupt_earlier_record_is_still_refused)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	char *j, *before;
	struct both b;

	rewrite_journal_after("\n", 'X');	/* the second record's "{" */
	before = tree_fingerprint(run_path("r", NULL));
	cr_assert_lt(update(s, &b, "B3", &err), 0);
	cr_assert_str_eq(tbl_err_wire[err.proto], "mutation_not_committed");
	cr_assert_eq(b.offer.calls, 0);
	seen_free(&b.seen);
	j = tree_fingerprint(run_path("r", NULL));
	cr_assert_str_eq(j, before, "a refused update leaves the run untouched");
	sw_free(j);
	sw_free(before);
	store_free(s);
}

Test(io_checkpoint, a_changed_projection_or_body_is_not_offered)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	size_t len = 0;
	char *cp;
	struct both b;

	rewrite(run_path("r", "run.json"), 5, 'X');
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0);
	cr_assert_eq(b.seen.n, 3);
	seen_free(&b.seen);
	/* That update wrote a new one; now alter its body. */
	cp = slurp(run_path("r", "run.checkpoint"), &len);
	cr_assert_eq(cp[len - 1], '3');
	free(cp);
	rewrite(run_path("r", "run.checkpoint"), (long)len - 1, '9');
	cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0);
	cr_assert_eq(b.seen.n, 4);
	seen_free(&b.seen);
	store_free(s);
}

Test(io_checkpoint, refused_symlinked_or_missing_checkpoints_replay_everything)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;

	memset(&b, 0, sizeof(b));
	b.next.body = "B3";
	b.next.base = -1;
	b.offer.refuse = 1;
	cr_assert_eq(store_update_resumable(s, "r", offer_cb, seen_cb, next_cb, &b, &err), 0);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_eq(b.seen.n, 3, "a refused checkpoint means a full replay");
	seen_free(&b.seen);
	cr_assert_eq(unlink(run_path("r", "run.checkpoint")), 0);
	cr_assert_eq(symlink(run_path("r", "journal.jsonl"), run_path("r", "run.checkpoint")), 0);
	cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0, "a symlink is never read");
	cr_assert_eq(b.seen.n, 4);
	seen_free(&b.seen);
	cr_assert_eq(unlink(run_path("r", "run.checkpoint")), 0);
	cr_assert_eq(update(s, &b, "B5", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0);
	cr_assert_eq(b.seen.n, 5);
	seen_free(&b.seen);
	/* A plain store_update neither reads nor writes one. */
	{
		struct add_spec a = { 1, TBL_JEVENT_OUTCOME_SUBMITTED, "{}", "{}", NULL, "", 0 };
		char *cp = slurp(run_path("r", "run.checkpoint"), NULL), *after;

		cr_assert_eq(store_update(s, "r", NULL, add_events, &a, &err), 0);
		after = slurp(run_path("r", "run.checkpoint"), NULL);
		cr_assert_str_eq(after, cp);
		free(cp);
		free(after);
	}
	store_free(s);
}

/* run.json pieces without bytes are copied from the run.json the update
 * adopted (by the kernel, or through a buffer where it cannot), and only
 * from that one. */
Test(io_checkpoint, pieces_copied_from_the_adopted_run_json)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	char *proj, *journal, *after, *before;
	struct both b;

	for (int buffered = 0; buffered < 2; buffered++) {
		memset(&b, 0, sizeof(b));
		b.next.body = buffered ? "B4" : "B3";
		b.next.base = -1;
		b.next.copy = 1;
		store_test_buffered_copies(buffered);
		cr_assert_eq(store_update_resumable(s, "r", offer_cb, seen_cb, next_cb, &b, &err),
			     0, "%s", err.msg);
		store_test_buffered_copies(false);
		cr_assert_eq(b.offer.calls, 1);
		seen_free(&b.seen);
		proj = slurp(run_path("r", "run.json"), NULL);
		cr_assert_str_eq(proj, buffered ? "{\n  \"revision\": 5,\n  \"data\": {}\n}\n"
						: "{\n  \"revision\": 4,\n  \"data\": {}\n}\n");
		free(proj);
	}
	/* With no checkpoint adopted there is nothing to copy from. */
	memset(&b, 0, sizeof(b));
	b.next.body = "B5";
	b.next.base = -1;
	b.next.copy = 1;
	b.offer.refuse = 1;
	err = (struct sw_error)SW_ERROR_INIT;
	before = tree_fingerprint(run_path("r", NULL));
	cr_assert_lt(store_update_resumable(s, "r", offer_cb, seen_cb, next_cb, &b, &err), 0);
	cr_assert_eq(b.offer.calls, 1);
	seen_free(&b.seen);
	after = tree_fingerprint(run_path("r", NULL));
	cr_assert_str_eq(after, before, "a refused update leaves the run untouched");
	sw_free(after);
	sw_free(before);
	/* Replaced after it was adopted: nothing is copied, nothing commits. */
	err = (struct sw_error)SW_ERROR_INIT;
	journal = slurp(run_path("r", "journal.jsonl"), NULL);
	memset(&b, 0, sizeof(b));
	b.next.body = "B5";
	b.next.base = -1;
	b.next.copy = 2;
	cr_assert_lt(store_update_resumable(s, "r", offer_cb, seen_cb, next_cb, &b, &err), 0);
	cr_assert_str_eq(tbl_err_wire[err.proto], "mutation_not_committed");
	seen_free(&b.seen);
	after = slurp(run_path("r", "journal.jsonl"), NULL);
	cr_assert_str_eq(after, journal);
	free(after);
	free(journal);
	store_free(s);
}

/* A torn projection write stops halfway through the bytes run.json was to
 * get, copied ranges included; the Run is as it was. */
Test(io_checkpoint, a_torn_write_of_copied_pieces_stops_halfway)
{
	static const char want[] = "{\n  \"revision\": 4,\n  \"data\": {}\n}\n";
	struct store *s = prepared();
	char *journal = slurp(run_path("r", "journal.jsonl"), NULL), *after, *tmp = NULL;
	struct dirent *de;
	DIR *dir;
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct sw_error err = SW_ERROR_INIT;
		struct both b;

		memset(&b, 0, sizeof(b));
		b.next.body = "B3";
		b.next.base = -1;
		b.next.copy = 1;
		store_fault_arm(STORE_STEP_WRITE, 1, STORE_FAULT_TORN);
		store_update_resumable(s, "r", offer_cb, seen_cb, next_cb, &b, &err);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == STORE_FAULT_EXIT);
	after = slurp(run_path("r", "journal.jsonl"), NULL);
	cr_assert_str_eq(after, journal);
	free(after);
	dir = opendir(run_path("r", NULL));
	cr_assert_not_null(dir);
	while ((de = readdir(dir)) != NULL)
		if (strncmp(de->d_name, ".tmp-run.json-", 14) == 0)
			tmp = strdup(run_path("r", de->d_name));
	closedir(dir);
	cr_assert_not_null(tmp, "the torn temp is left behind");
	after = slurp(tmp, NULL);
	cr_assert_eq(strlen(after), (sizeof(want) - 1) / 2);
	cr_assert_eq(strncmp(after, want, strlen(after)), 0, "%s", after);
	free(after);
	free(tmp);
	free(journal);
	store_free(s);
}

/* ---- the checkpoint kept in memory (store_keep_warm) ---- */

/* A process that keeps warm adopts the checkpoint it wrote last from
 * memory: with run.checkpoint gone it is still offered, exactly as written
 * (body, log, run.json), and nothing is replayed. */
Test(io_checkpoint, a_kept_checkpoint_is_adopted_from_memory)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;

	store_keep_warm(true);
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_str_eq(b.offer.body, "B2", "the first one is read from the files");
	seen_free(&b.seen);
	cr_assert_eq(unlink(run_path("r", "run.checkpoint")), 0);
	for (int k = 4; k <= 5; k++) {
		char body[16], want[16];

		snprintf(body, sizeof(body), "B%d", k);
		snprintf(want, sizeof(want), "B%d", k - 1);
		cr_assert_eq(update(s, &b, body, &err), 0, "%s", err.msg);
		cr_assert_eq(b.offer.calls, 1, "kept in memory");
		cr_assert_str_eq(b.offer.body, want);
		cr_assert_eq(b.offer.sequence, k);
		cr_assert_str_eq(b.offer.log, k == 4 ? "L1;L2;L3;" : "L1;L2;L3;L4;");
		cr_assert_eq(b.seen.n, 0);
		seen_free(&b.seen);
		if (k == 4)
			cr_assert_eq(unlink(run_path("r", "run.checkpoint")), 0);
	}
	/* Not kept: the same deletion means a full replay. */
	store_keep_warm(false);
	cr_assert_eq(unlink(run_path("r", "run.checkpoint")), 0);
	cr_assert_eq(update(s, &b, "B6", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 0);
	cr_assert_eq(b.seen.n, 6);
	seen_free(&b.seen);
	store_free(s);
}

/* Another process that mutates the Run meanwhile (here a child, as the
 * CLI beside slipway mcp) appends to the journal and writes its own
 * checkpoint: the kept one is stale and dropped, and the next update
 * adopts the other process's, checked on disk. */
Test(io_checkpoint, a_kept_checkpoint_gives_way_to_another_process)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;
	pid_t pid;
	int status;

	store_keep_warm(true);
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	seen_free(&b.seen);
	if ((pid = fork()) == 0) {
		struct store *o = open_store(true);
		struct both c;

		store_keep_warm(false);
		_exit(update(o, &c, "B4", &err) == 0 && c.offer.calls == 1 &&
		      strcmp(c.offer.body, "B3") == 0 ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(WEXITSTATUS(status), 0);
	cr_assert_eq(update(s, &b, "B5", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_str_eq(b.offer.body, "B4", "the other process's checkpoint, not the kept one");
	cr_assert_str_eq(b.offer.log, "L1;L2;L3;L4;");
	cr_assert_eq(b.seen.n, 0);
	seen_free(&b.seen);
	/* And that one is kept in turn. */
	cr_assert_eq(unlink(run_path("r", "run.checkpoint")), 0);
	cr_assert_eq(update(s, &b, "B6", &err), 0, "%s", err.msg);
	cr_assert_str_eq(b.offer.body, "B5");
	seen_free(&b.seen);
	store_keep_warm(false);
	store_free(s);
}

/* A journal, log or run.json that is no longer the very file the kept
 * checkpoint names (here each replaced by a copy of the same bytes) is
 * never taken on trust: the kept checkpoint is dropped and the files are
 * read and checked as usual. */
Test(io_checkpoint, a_kept_checkpoint_is_dropped_when_a_file_is_replaced)
{
	static const char *const leaf[] = { "journal.jsonl", "run.checkpoint-log", "run.json" };
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	struct both b;

	store_keep_warm(true);
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	seen_free(&b.seen);
	for (int i = 0; i < 3; i++) {
		char body[16], *path = run_path("r", leaf[i]), *bytes, tmp[4200];
		size_t len = 0;
		FILE *f;

		/* Kept (no file read): run.checkpoint says "gone". */
		cr_assert_eq(unlink(run_path("r", "run.checkpoint")), 0);
		bytes = slurp(path, &len);
		snprintf(tmp, sizeof(tmp), "%s.copy", path);
		cr_assert_not_null(f = fopen(tmp, "wb"));
		cr_assert_eq(fwrite(bytes, 1, len, f), len);
		fclose(f);
		free(bytes);
		cr_assert_eq(rename(tmp, path), 0);
		snprintf(body, sizeof(body), "B%d", 4 + i);
		cr_assert_eq(update(s, &b, body, &err), 0, "%s", err.msg);
		cr_assert_eq(b.offer.calls, 0, "%s replaced: nothing kept is offered", leaf[i]);
		cr_assert_eq(b.seen.n, 4 + i, "a full replay");
		seen_free(&b.seen);
	}
	store_keep_warm(false);
	store_free(s);
}

/* run.checkpoint is written in place (store_checkpoint.c
 * store__rewrite_leaf).  A process killed in the middle of that write,
 * after half the new bytes or after all of them but before the file was
 * cut to its new length (a stale tail), leaves a file whose digest or
 * length no longer matches its header: the next update refuses it and
 * replays the whole journal, and the one after adopts the checkpoint that
 * update wrote again. */
Test(io_checkpoint, a_checkpoint_killed_while_written_in_place_is_refused_and_rebuilt)
{
	for (int torn = 0; torn < 2; torn++) {
		struct store *s = prepared();
		struct sw_error err = SW_ERROR_INIT;
		char *before, *after;
		struct both b;
		size_t blen, alen;
		pid_t pid;
		int status;

		if (!torn) {
			/* Longer than the checkpoint the kill interrupts. */
			append_bytes(run_path("r", "run.checkpoint"), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		}
		before = slurp(run_path("r", "run.checkpoint"), &blen);
		fflush(NULL);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			store_test_kill_rewrite("run.checkpoint", torn);
			update(s, &b, "B3", &err);
			_exit(0);
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == STORE_FAULT_EXIT,
			  "killed in the write (torn %d)", torn);
		after = slurp(run_path("r", "run.checkpoint"), &alen);
		cr_assert(alen != blen || memcmp(after, before, blen) != 0, "torn %d: unchanged", torn);
		free(after);
		/* The event committed before the checkpoint was written. */
		cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
		cr_assert_eq(b.offer.calls, 0, "torn %d: the torn checkpoint was offered", torn);
		cr_assert_eq(b.seen.n, 4, "torn %d: a full replay", torn);
		seen_free(&b.seen);
		cr_assert_eq(update(s, &b, "B5", &err), 0, "%s", err.msg);
		cr_assert_eq(b.offer.calls, 1, "torn %d: rebuilt", torn);
		cr_assert_str_eq(b.offer.body, "B4");
		cr_assert_eq(b.seen.n, 0);
		seen_free(&b.seen);
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
Test(io_checkpoint, a_checkpoint_with_a_second_link_is_replaced_not_written_through)
{
	struct store *s = prepared();
	struct sw_error err = SW_ERROR_INIT;
	char outside[PATH_MAX + 16], *before, *after;
	struct stat st;
	struct both b;

	snprintf(outside, sizeof(outside), "%s/outside", g_root);
	cr_assert_eq(link(run_path("r", "run.checkpoint"), outside), 0);
	before = slurp(outside, NULL);
	cr_assert_eq(update(s, &b, "B3", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	seen_free(&b.seen);
	after = slurp(outside, NULL);
	cr_assert_str_eq(after, before);
	cr_assert_eq(lstat(run_path("r", "run.checkpoint"), &st), 0);
	cr_assert_eq(st.st_nlink, 1);
	cr_assert_eq(update(s, &b, "B4", &err), 0, "%s", err.msg);
	cr_assert_eq(b.offer.calls, 1);
	cr_assert_str_eq(b.offer.body, "B3");
	seen_free(&b.seen);
	free(before);
	free(after);
	store_free(s);
}
