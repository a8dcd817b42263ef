#include <sys/file.h>

#include <openssl/sha.h>

#include "tests/io/store_helpers.h"

#include "io/store/journal.h"

TestSuite(io_store, .init = scratch_init, .fini = scratch_fini);

Test(io_store, replay_returns_exactly_what_was_appended)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 2, TBL_JEVENT_OUTCOME_SUBMITTED,
			      "{ \"k\" : [1, 2.50, \"a b\"], \"u\": \"\xc3\xa9<\" }",
			      "{\"x\": \"<a&b>\", \"e\": {}, \"l\": []}", NULL, "", 0 };
	struct seen seen = { 0 };
	long long count = 0;
	char *proj;

	make_run(s, "run-1");
	cr_assert_eq(store_update(s, "run-1", NULL, add_events, &a, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(a.base, 1);
	cr_assert_eq(store_visit(s, "run-1", collect, &seen, &count, &err), 0);
	cr_assert_eq(count, 3);
	cr_assert_eq(seen.n, 3);
	cr_expect_eq(seen.type[0], TBL_JEVENT_RUN_STARTED);
	cr_expect_str_eq(seen.data[0], "{\"goal\":\"g\"}");
	for (int i = 0; i < 3; i++) {
		cr_expect_eq(seen.seq[i], i + 1);
		cr_expect_str_eq(seen.at[i], "2026-01-02T03:04:05.12345Z");
	}
	for (int i = 1; i < 3; i++) {
		cr_expect_eq(seen.type[i], TBL_JEVENT_OUTCOME_SUBMITTED);
		cr_expect_str_eq(seen.data[i],
				 "{\"k\":[1,2.50,\"a b\"],\"u\":\"\xc3\xa9<\"}");
	}
	proj = slurp(run_path("run-1", "run.json"), NULL);
	cr_assert_not_null(proj);
	cr_expect_str_eq(proj, "{\n  \"revision\": 3,\n  \"data\": {\n"
			 "    \"x\": \"\\u003ca\\u0026b\\u003e\",\n"
			 "    \"e\": {},\n    \"l\": []\n  }\n}\n");
	free(proj);
	seen_free(&seen);
	store_free(s);
}

/* run.json is written in one pass, without re-parsing the projection. */
Test(io_store, projection_layout_is_go_marshal_indent_with_html_escapes)
{
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;
	size_t len = 0;
	const char *in = " {\"a\" : [1, {\"b\":[ ]} , \"x\\\"<\\\\\"],\"c\":{ },"
			 "\"d\":\"\xe2\x80\xa8&\xe2\x82\xac>\"} ";

	cr_assert_eq(journal_projection_encode(&out, &len, 7, in, strlen(in), &err), 0);
	cr_expect_str_eq(out, "{\n  \"revision\": 7,\n  \"data\": {\n"
			 "    \"a\": [\n      1,\n      {\n        \"b\": []\n      },\n"
			 "      \"x\\\"\\u003c\\\\\"\n    ],\n"
			 "    \"c\": {},\n"
			 "    \"d\": \"\\u2028\\u0026\xe2\x82\xac\\u003e\"\n  }\n}\n");
	cr_expect_eq(len, strlen(out));
	sw_free(out);
	cr_assert_eq(journal_projection_encode(&out, &len, 1, "null", 4, &err), 0);
	cr_expect_str_eq(out, "{\n  \"revision\": 1,\n  \"data\": null\n}\n");
	sw_free(out);
}

Test(io_store, projection_that_is_not_one_json_value_is_refused)
{
	static const char *const bad[] = {
		"", "  ", "{", "{\"a\":1", "[1,2", "{\"a\":1}}", "[1]]", "{\"a\":[1}",
		"[1}", "\"open", "{\"a\":\"b}", "1 2", "null null", "{} {}", "[] 1",
		"\"a\" \"b\"", "nu ll", ",", ":", "}", "{\"a\":\"x\\",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		char *out = (char *)"unchanged";

		cr_expect_eq(journal_projection_encode(&out, NULL, 1, bad[i], strlen(bad[i]), &err),
			     SW_EPARSE, "case %zu: %s", i, bad[i]);
		cr_expect_null(out, "case %zu", i);
	}
}

Test(io_store, journal_line_layout_and_private_modes)
{
	struct store *s = open_store(true);
	struct stat st;
	char *j;

	make_run(s, "r");
	j = slurp(run_path("r", "journal.jsonl"), NULL);
	cr_expect_str_eq(j, "{\"sequence\":1,\"type\":\"run_started\","
			 "\"at\":\"2026-01-02T03:04:05.12345Z\",\"data\":{\"goal\":\"g\"}}\n");
	free(j);
	cr_assert_eq(stat(run_path("r", NULL), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700);
	cr_assert_eq(stat(run_path("r", "journal.jsonl"), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(stat(run_path("r", "run.json"), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(stat(run_path("r", "run.lock"), &st), 0);
	cr_expect_eq(st.st_size, 0);
	store_free(s);
}

/* The reference makes run.lock 0600 on every exclusive acquisition, even when
 * the mutation then writes nothing; read-only opens never chmod it. */
Test(io_store, run_lock_is_made_private_on_every_exclusive_lock)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true), *ro;
	struct add_spec a = { 0, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	struct seen seen = { 0 };
	struct stat st;

	make_run(s, "lk");
	cr_assert_eq(chmod(run_path("lk", "run.lock"), 0644), 0);
	ro = open_store(false);
	cr_assert_eq(store_visit(ro, "lk", collect, &seen, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(stat(run_path("lk", "run.lock"), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0644, "a read-only visit must not chmod");
	cr_assert_eq(store_update(s, "lk", NULL, add_events, &a, &err), 0, "%s", err.msg);
	cr_assert_eq(stat(run_path("lk", "run.lock"), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	seen_free(&seen);
	store_free(ro);
	store_free(s);
}

Test(io_store, time_format_trims_fraction_like_go)
{
	char out[JOURNAL_TIME_LEN];
	struct timespec a = { 0, 0 }, b = { 1, 100000000 };

	journal_format_time(&a, out);
	cr_expect_str_eq(out, "1970-01-01T00:00:00Z");
	journal_format_time(&b, out);
	cr_expect_str_eq(out, "1970-01-01T00:00:01.1Z");
	cr_expect(journal_time_valid("2026-01-02T03:04:05.123456789+02:00"));
	cr_expect(!journal_time_valid("0001-01-01T00:00:00Z"));
	cr_expect(!journal_time_valid("2026-02-30T00:00:00Z"));
	cr_expect(!journal_time_valid("2026-01-02 03:04:05Z"));
}

Test(io_store, read_only_open_creates_nothing)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(false);
	struct stat st;
	char **ids = NULL;
	size_t n = 9;

	cr_assert_eq(store_list(&ids, &n, s, &err), 0);
	cr_expect_eq(n, 0);
	store_list_free(ids, n);
	cr_expect_eq(store_visit(s, "abc", NULL, NULL, NULL, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "run_not_found");
	sw_error_clear(&err);
	cr_expect_neq(store_create(s, "abc", add_events, NULL, &err), 0);
	cr_expect_neq(lstat(run_path("", NULL), &st), 0);
	{
		char *ns = sw_asprintf("%s/slipway", g_common);

		cr_expect_neq(lstat(ns, &st), 0, "read-only open created slipway/");
		sw_free(ns);
	}
	store_free(s);
}

Test(io_store, read_only_visit_leaves_a_run_without_lock_file)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true), *r;
	struct seen seen = { 0 };
	struct stat st;

	make_run(w, "q");
	cr_assert_eq(unlink(run_path("q", "run.lock")), 0);
	cr_assert_eq(chmod(run_path("q", NULL), 0750), 0);
	r = open_store(false);
	cr_assert_eq(store_visit(r, "q", collect, &seen, NULL, &err), 0, "%s", err.msg);
	cr_expect_eq(seen.n, 1);
	cr_expect_neq(lstat(run_path("q", "run.lock"), &st), 0);
	cr_assert_eq(stat(run_path("q", NULL), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0750, "read-only mode must not chmod");
	seen_free(&seen);
	store_free(r);
	store_free(w);
}

Test(io_store, run_id_grammar_and_uuid)
{
	struct sw_error err = SW_ERROR_INIT;
	char id[37], long_id[130];

	cr_expect(store_run_id_valid("aZ09_-"));
	cr_expect(!store_run_id_valid(""));
	cr_expect(!store_run_id_valid("a.b"));
	cr_expect(!store_run_id_valid("a/b"));
	memset(long_id, 'a', 128);
	long_id[128] = '\0';
	cr_expect(store_run_id_valid(long_id));
	long_id[128] = 'a';
	long_id[129] = '\0';
	cr_expect(!store_run_id_valid(long_id));
	for (int k = 0; k < 50; k++) {
		cr_assert_eq(store_new_run_id(id, &err), 0);
		cr_assert_eq(strlen(id), 36);
		for (int i = 0; i < 36; i++) {
			if (i == 8 || i == 13 || i == 18 || i == 23)
				cr_assert_eq(id[i], '-');
			else
				cr_assert(strchr("0123456789abcdef", id[i]), "%s", id);
		}
		cr_expect_eq(id[14], '4');
		cr_expect(strchr("89ab", id[19]) != NULL, "%s", id);
		cr_expect(store_run_id_valid(id));
	}
}

Test(io_store, listing_ignores_names_outside_the_grammar)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	char **ids = NULL;
	const char *bad = run_path("bad.name", NULL);
	size_t n = 0;

	make_run(s, "b-run");
	make_run(s, "a_run");
	cr_assert_eq(mkdir(bad, 0700), 0);
	cr_assert_eq(store_list(&ids, &n, s, &err), 0);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(ids[0], "a_run");
	cr_expect_str_eq(ids[1], "b-run");
	store_list_free(ids, n);
	store_free(s);
}

Test(io_store, create_refuses_an_existing_run)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STARTED, "{}", "{}", NULL, "", 0 };

	make_run(s, "dup");
	cr_expect_eq(store_create(s, "dup", add_events, &a, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "mutation_not_committed");
	cr_expect_str_eq(store_last_failure(s)->phase, "directory_create");
	store_free(s);
}

static int reject(struct store_mutation *m, void *payload, struct sw_error *err)
{
	(void)payload;
	store_mutation_add_event(m, TBL_JEVENT_RUN_STOPPED, "{}", 2, err);
	store_mutation_add_material(m, "blob", 4, NULL, err);
	return sw_error_proto(err, TBL_ERR_STALE_ACTION, "the action is stale");
}

static int reject_plain(struct store_mutation *m, void *payload,
			struct sw_error *err)
{
	(void)m;
	(void)payload;
	return sw_error_set(err, SW_EINVAL, "business rule");
}

Test(io_store, rejected_mutation_leaves_run_byte_identical)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{\"a\":1}", "{}", "m1", "", 0 };
	char *dir, *before, *after;
	const struct store_failure *f;

	make_run(s, "rj");
	cr_assert_eq(store_update(s, "rj", NULL, add_events, &a, &err), 0);
	dir = run_path("rj", NULL);
	before = tree_fingerprint(dir);
	cr_expect_eq(store_update(s, "rj", NULL, reject, NULL, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "stale_action");
	f = store_last_failure(s);
	cr_expect(f->has_mutation);
	cr_expect_str_eq(f->phase, "callback");
	cr_expect(!f->committed && !f->ambiguous);
	after = tree_fingerprint(dir);
	cr_expect_str_eq(after, before);
	sw_free(after);
	sw_error_clear(&err);
	cr_expect_eq(store_update(s, "rj", NULL, reject_plain, NULL, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "mutation_not_committed");
	cr_expect_str_eq(err.msg, "business rule");
	after = tree_fingerprint(dir);
	cr_expect_str_eq(after, before);
	sw_free(after);
	sw_free(before);
	store_free(s);
}

Test(io_store, update_without_events_writes_nothing)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 0, TBL_JEVENT_RUN_STOPPED, "{}", "{\"z\":1}", NULL, "", 0 };
	char *dir, *before, *after;

	make_run(s, "nop");
	dir = run_path("nop", NULL);
	before = tree_fingerprint(dir);
	cr_assert_eq(store_update(s, "nop", NULL, add_events, &a, &err), 0);
	after = tree_fingerprint(dir);
	cr_expect_str_eq(after, before);
	sw_free(after);
	sw_free(before);
	store_free(s);
}

Test(io_store, symlinked_run_dir_is_refused)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	char *real = run_path("real", NULL), *link = run_path("link", NULL);

	make_run(s, "real");
	cr_assert_eq(symlink(real, link), 0);
	cr_expect_lt(store_visit(s, "link", NULL, NULL, NULL, &err), 0);
	cr_expect_neq(err.code, SW_OK);
	sw_error_clear(&err);
	cr_expect_lt(store_update(s, "link", NULL, add_events, &a, &err), 0);
	cr_expect_str_eq(tbl_err_wire[err.proto], "mutation_not_committed");
	sw_error_clear(&err);
	cr_expect_lt(store_first_event(s, "link", NULL, NULL, &err), 0);
	store_free(s);
}

Test(io_store, symlinked_journal_is_refused)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	char *j = run_path("sj", "journal.jsonl"), *elsewhere;
	size_t before_len, after_len;
	char *before, *after;

	make_run(s, "sj");
	elsewhere = sw_asprintf("%s/outside.jsonl", g_root);
	cr_assert_eq(rename(j, elsewhere), 0);
	cr_assert_eq(symlink(elsewhere, j), 0);
	before = slurp(elsewhere, &before_len);
	cr_expect_lt(store_visit(s, "sj", NULL, NULL, NULL, &err), 0);
	sw_error_clear(&err);
	cr_expect_lt(store_update(s, "sj", NULL, add_events, &a, &err), 0);
	sw_error_clear(&err);
	cr_expect_lt(store_first_event(s, "sj", NULL, NULL, &err), 0);
	after = slurp(elsewhere, &after_len);
	cr_expect_eq(after_len, before_len);
	cr_expect_str_eq(after, before);
	free(before);
	free(after);
	sw_free(elsewhere);
	store_free(s);
}

Test(io_store, symlinked_materials_dir_is_refused)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", "payload", "", 0 };
	char *m = run_path("sm", "materials"), *outside;
	struct seen seen = { 0 };
	DIR *d;
	int entries = 0;

	make_run(s, "sm");
	outside = sw_asprintf("%s/outside-materials", g_root);
	cr_assert_eq(mkdir(outside, 0700), 0);
	cr_assert_eq(symlink(outside, m), 0);
	cr_expect_lt(store_update(s, "sm", NULL, add_events, &a, &err), 0);
	cr_expect_str_eq(tbl_err_wire[err.proto], "mutation_not_committed");
	d = opendir(outside);
	while (readdir(d) != NULL)
		entries++;
	closedir(d);
	cr_expect_eq(entries, 2, "nothing may be written through the link");
	sw_error_clear(&err);
	cr_assert_eq(store_visit(s, "sm", collect, &seen, NULL, &err), 0);
	cr_expect_eq(seen.n, 1);
	seen_free(&seen);
	sw_free(outside);
	store_free(s);
}

Test(io_store, materials_round_trip_and_are_verified)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", "hello material", "", 0 };
	char want[SW_DIGEST_LEN], *path;
	void *data = NULL;
	size_t len = 0;
	FILE *f;

	make_run(s, "mat");
	cr_assert_eq(store_update(s, "mat", NULL, add_events, &a, &err), 0, "%s", err.msg);
	sw_material_digest(want, "hello material", 14, NULL);
	cr_expect_str_eq(a.digest, want);
	cr_assert_eq(store_read_material(&data, &len, s, "mat", want, &err), 0, "%s", err.msg);
	cr_expect_eq(len, 14);
	cr_expect_eq(memcmp(data, "hello material", 14), 0);
	sw_free(data);
	/* The same blob again is accepted; a conflicting blob is not. */
	cr_assert_eq(store_update(s, "mat", NULL, add_events, &a, &err), 0, "%s", err.msg);
	path = run_path("mat", "materials/");
	{
		char *blob = sw_asprintf("%s%s", path, want + 7);

		cr_assert_eq(chmod(blob, 0600), 0);
		f = fopen(blob, "wb");
		fputs("tampered", f);
		fclose(f);
		cr_expect_eq(store_read_material(&data, &len, s, "mat", want, &err), SW_EPARSE);
		cr_expect_null(data);
		sw_error_clear(&err);
		cr_expect_lt(store_update(s, "mat", NULL, add_events, &a, &err), 0);
		cr_expect_str_eq(tbl_err_wire[err.proto], "mutation_not_committed");
		sw_free(blob);
	}
	sw_error_clear(&err);
	cr_expect_eq(store_read_material(&data, &len, s, "mat",
					 "sha256:0000000000000000000000000000000000000000000000000000000000000000",
					 &err), SW_ENOTFOUND);
	store_free(s);
}

/* Puts an identical copy (a new file) in place of material `arg`. */
static void replace_blob(void *arg)
{
	const char *blob = arg;
	char *tmp = sw_asprintf("%s.new", blob);
	FILE *f = fopen(tmp, "wb");

	cr_assert_not_null(f);
	fputs("hello material", f);
	fclose(f);
	cr_assert_eq(rename(tmp, blob), 0);
	sw_free(tmp);
}

/* A material is checked byte for byte once written, and then must stay
 * that very file until the journal commits: one replaced meanwhile, even
 * by the same bytes, makes the mutation fail uncommitted. */
Test(io_store, a_material_replaced_after_its_check_is_refused)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", "hello material", "", 0 };
	char want[SW_DIGEST_LEN], *blob, *journal, *after;

	make_run(s, "mat");
	sw_material_digest(want, "hello material", 14, NULL);
	blob = sw_asprintf("%s%s", run_path("mat", "materials/"), want + 7);
	journal = slurp(run_path("mat", "journal.jsonl"), NULL);
	store_test_after_materials(replace_blob, blob);
	cr_expect_lt(store_update(s, "mat", NULL, add_events, &a, &err), 0);
	store_test_after_materials(NULL, NULL);
	cr_expect_str_eq(tbl_err_wire[err.proto], "mutation_not_committed");
	cr_expect_str_eq(store_last_failure(s)->phase, "namespace_verify");
	after = slurp(run_path("mat", "journal.jsonl"), NULL);
	cr_expect_str_eq(after, journal, "nothing was appended");
	free(after);
	free(journal);
	/* Left alone, the same blob commits. */
	sw_error_clear(&err);
	cr_expect_eq(store_update(s, "mat", NULL, add_events, &a, &err), 0, "%s", err.msg);
	sw_free(blob);
	store_free(s);
}

/* A material added with the digest its caller computed. */
static int add_named(struct store_mutation *m, void *payload, struct sw_error *err)
{
	const char *digest = payload;
	int rc = store_mutation_add_event(m, TBL_JEVENT_RUN_STOPPED, "{}", 2, err);

	if (rc == 0)
		rc = store_mutation_set_projection(m, "{}", 2, err);
	if (rc == 0)
		rc = store_mutation_add_material_named(m, "hello material", 14, digest, err);
	return rc;
}

/* A named material is stored under the caller's digest without hashing
 * it again; test builds hash it anyway and refuse a digest of other
 * bytes, so a caller that named it wrong fails here, not in the field. */
Test(io_store, a_named_material_is_checked_in_test_builds)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	char want[SW_DIGEST_LEN], other[SW_DIGEST_LEN], bad[] = "sha256:XYZ", *journal, *after;
	void *data = NULL;
	size_t len = 0;

	make_run(s, "named");
	sw_material_digest(want, "hello material", 14, NULL);
	sw_material_digest(other, "hello materiaL", 14, NULL);
	journal = slurp(run_path("named", "journal.jsonl"), NULL);
	cr_expect_lt(store_update(s, "named", NULL, add_named, other, &err), 0);
	cr_expect(strstr(err.msg, "does not match its bytes") != NULL, "%s", err.msg);
	after = slurp(run_path("named", "journal.jsonl"), NULL);
	cr_expect_str_eq(after, journal, "nothing was appended");
	free(after);
	free(journal);
	sw_error_clear(&err);
	cr_expect_lt(store_update(s, "named", NULL, add_named, bad, &err), 0);
	cr_expect(strstr(err.msg, "sha256:<64 hex>") != NULL, "%s", err.msg);
	sw_error_clear(&err);
	cr_assert_eq(store_update(s, "named", NULL, add_named, want, &err), 0, "%s", err.msg);
	cr_assert_eq(store_read_material(&data, &len, s, "named", want, &err), 0, "%s", err.msg);
	cr_expect_eq(len, 14);
	cr_expect_eq(memcmp(data, "hello material", 14), 0);
	sw_free(data);
	store_free(s);
}

Test(io_store, material_size_limits)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store_mutation *m = NULL;
	(void)m;
	/* Checked through a mutator, since the builder only exists there. */
	struct store *s = open_store(true);
	char *big = malloc(STORE_MATERIAL_MAX + 2);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", big, "", 0 };

	memset(big, 'x', STORE_MATERIAL_MAX + 1);
	big[STORE_MATERIAL_MAX + 1] = '\0';
	make_run(s, "ml");
	cr_expect_lt(store_update(s, "ml", NULL, add_events, &a, &err), 0);
	sw_error_clear(&err);
	big[STORE_MATERIAL_MAX] = '\0';
	cr_expect_eq(store_update(s, "ml", NULL, add_events, &a, &err), 0, "%s", err.msg);
	free(big);
	store_free(s);
}

static const char *torn_garbage = "{\"sequence\":2,\"type\":\"run_st";

Test(io_store, torn_tail_is_cut_in_writable_mode_and_skipped_read_only)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true), *r;
	char *j = run_path("t", "journal.jsonl"), *clean, *torn, *now;
	long long count = 0;

	make_run(w, "t");
	clean = slurp(j, NULL);
	append_bytes(j, torn_garbage);
	torn = slurp(j, NULL);
	r = open_store(false);
	cr_assert_eq(store_visit(r, "t", NULL, NULL, &count, &err), 0, "%s", err.msg);
	cr_expect_eq(count, 1);
	now = slurp(j, NULL);
	cr_expect_str_eq(now, torn, "read-only replay must not repair");
	free(now);
	cr_assert_eq(store_visit(w, "t", NULL, NULL, &count, &err), 0, "%s", err.msg);
	cr_expect_eq(count, 1);
	now = slurp(j, NULL);
	cr_expect_str_eq(now, clean);
	free(now);
	free(clean);
	free(torn);
	store_free(r);
	store_free(w);
}

Test(io_store, decodable_unterminated_tail_is_kept_and_terminated)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true), *r;
	char *j = run_path("t2", "journal.jsonl"), *before, *now, *want;
	long long count = 0;
	const char *rec = "{\"sequence\":2,\"type\":\"run_stopped\","
			  "\"at\":\"2026-01-02T03:04:05Z\",\"data\":{}}";

	make_run(w, "t2");
	append_bytes(j, rec);
	before = slurp(j, NULL);
	r = open_store(false);
	cr_assert_eq(store_visit(r, "t2", NULL, NULL, &count, &err), 0, "%s", err.msg);
	cr_expect_eq(count, 2);
	now = slurp(j, NULL);
	cr_expect_str_eq(now, before);
	free(now);
	cr_assert_eq(store_visit(w, "t2", NULL, NULL, &count, &err), 0, "%s", err.msg);
	cr_expect_eq(count, 2);
	now = slurp(j, NULL);
	want = sw_asprintf("%s\n", before);
	cr_expect_str_eq(now, want);
	sw_free(want);
	free(now);
	free(before);
	store_free(r);
	store_free(w);
}

Test(io_store, blank_lines_are_skipped)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	char *j = run_path("bl", "journal.jsonl");
	long long count = 0;

	make_run(w, "bl");
	append_bytes(j, "\n   \n");
	cr_assert_eq(store_update(w, "bl", NULL, add_events, &a, &err), 0, "%s", err.msg);
	cr_assert_eq(store_visit(w, "bl", NULL, NULL, &count, &err), 0, "%s", err.msg);
	cr_expect_eq(count, 2);
	store_free(w);
}

Test(io_store, complete_bad_record_is_journal_invalid)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	char *j = run_path("bad", "journal.jsonl"), *before, *now;
	const char *cases[] = {
		"{\"sequence\":3,\"type\":\"run_stopped\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":{}}\n",
		"{\"sequence\":2,\"type\":\"nope\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":{}}\n",
		"{\"sequence\":2,\"type\":\"run_stopped\",\"at\":\"yesterday\",\"data\":{}}\n",
		"{\"sequence\":2,\"type\":\"run_stopped\",\"at\":\"2026-01-02T03:04:05Z\"}\n",
		"{\"sequence\":2,\"type\":\"run_stopped\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":{},\"x\":1}\n",
		"{\"sequence\":2,\"sequence\":2,\"type\":\"run_stopped\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":{}}\n",
		"{\"sequence\":2.0,\"type\":\"run_stopped\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":{}}\n",
		"not json\n",
	};

	make_run(w, "bad");
	before = slurp(j, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fopen(j, "wb");

		fputs(before, f);
		fputs(cases[i], f);
		fclose(f);
		sw_error_clear(&err);
		cr_expect_eq(store_visit(w, "bad", NULL, NULL, NULL, &err), SW_EPROTO, "case %zu", i);
		cr_expect_str_eq(tbl_err_wire[err.proto], "run_journal_invalid", "case %zu", i);
		sw_error_clear(&err);
		cr_expect_eq(store_update(w, "bad", NULL, add_events, &a, &err), SW_EPROTO);
		cr_expect_str_eq(tbl_err_wire[err.proto], "mutation_not_committed", "case %zu", i);
		cr_expect_str_eq(store_last_failure(w)->phase, "replay");
		now = slurp(j, NULL);
		cr_expect_eq(strlen(now), strlen(before) + strlen(cases[i]), "case %zu", i);
		free(now);
	}
	free(before);
	store_free(w);
}

Test(io_store, oversize_event_data_is_journal_record_too_large)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true);
	size_t n = JOURNAL_MAX_DATA;	/* a string of n + 1 bytes */
	char *data = malloc(n + 3), *dir, *before, *after;
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, data, "{}", NULL, "", 0 };
	const struct store_failure *f;

	data[0] = '"';
	memset(data + 1, 'x', n - 1);
	data[n] = '"';
	data[n + 1] = '\0';
	make_run(w, "big");
	dir = run_path("big", NULL);
	before = tree_fingerprint(dir);
	cr_expect_eq(store_update(w, "big", NULL, add_events, &a, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "journal_record_too_large");
	f = store_last_failure(w);
	cr_expect(f->has_limit);
	cr_expect_str_eq(f->limit_context, "event payload");
	cr_expect_eq(f->limit_size, JOURNAL_MAX_DATA + 1);
	cr_expect_eq(f->limit_max, JOURNAL_MAX_DATA);
	after = tree_fingerprint(dir);
	cr_expect_str_eq(after, before);
	/* Exactly at the limit is accepted. */
	data[n - 1] = '"';
	data[n] = '\0';
	sw_error_clear(&err);
	cr_expect_eq(store_update(w, "big", NULL, add_events, &a, &err), 0, "%s", err.msg);
	sw_free(before);
	sw_free(after);
	free(data);
	store_free(w);
}

Test(io_store, oversize_complete_line_is_invalid_and_torn_one_is_cut)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true);
	char *j = run_path("ol", "journal.jsonl"), *clean, *now;
	char *huge = malloc(JOURNAL_MAX_LINE + 2);
	long long count = 0;

	make_run(w, "ol");
	clean = slurp(j, NULL);
	memset(huge, ' ', JOURNAL_MAX_LINE + 1);
	huge[JOURNAL_MAX_LINE + 1] = '\0';
	append_bytes(j, huge);
	cr_assert_eq(store_visit(w, "ol", NULL, NULL, &count, &err), 0, "%s", err.msg);
	now = slurp(j, NULL);
	cr_expect_str_eq(now, clean);
	free(now);
	huge[JOURNAL_MAX_LINE] = '\n';
	append_bytes(j, huge);
	cr_expect_eq(store_visit(w, "ol", NULL, NULL, NULL, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "run_journal_invalid");
	free(huge);
	free(clean);
	store_free(w);
}

Test(io_store, busy_lock_times_out_and_first_event_needs_no_lock)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	struct seen seen = { 0 };
	const struct store_failure *f;
	char *dir;
	int fd;

	make_run(w, "busy");
	dir = run_path("busy", NULL);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	store_set_lock_timeout(w, 100);
	cr_expect_eq(store_update(w, "busy", NULL, add_events, &a, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "run_busy");
	f = store_last_failure(w);
	cr_expect(f->has_mutation);
	cr_expect_str_eq(f->phase, "lock_open");
	cr_expect(!f->committed);
	sw_error_clear(&err);
	cr_expect_eq(store_visit(w, "busy", NULL, NULL, NULL, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "run_busy");
	sw_error_clear(&err);
	cr_assert_eq(store_first_event(w, "busy", collect, &seen, &err), 0, "%s", err.msg);
	cr_expect_eq(seen.n, 1);
	cr_expect_str_eq(seen.data[0], "{\"goal\":\"g\"}");
	close(fd);
	seen_free(&seen);
	store_free(w);
}

/* Three busy Runs cost one wait, not three: the lock wait is one for the
 * whole store handle (one command), counted on a clock that only the
 * waits advance, so nothing sleeps. */
Test(io_store, busy_runs_share_one_lock_wait_per_handle)
{
	static const char *const ids[] = { "busy-1", "busy-2", "busy-3" };
	struct store *w = open_store(true), *r;
	int fds[3];

	for (int i = 0; i < 3; i++) {
		make_run(w, ids[i]);
		fds[i] = open(run_path(ids[i], NULL), O_RDONLY | O_DIRECTORY);
		cr_assert_eq(flock(fds[i], LOCK_EX | LOCK_NB), 0);
	}
	make_run(w, "free");
	r = open_store(false);
	store_set_lock_timeout(r, 1000);
	store_test_lock_clock(true);
	for (int i = 0; i < 3; i++) {
		struct sw_error err = SW_ERROR_INIT;

		cr_expect_eq(store_visit(r, ids[i], NULL, NULL, NULL, &err), SW_EPROTO, "%s", ids[i]);
		cr_expect_str_eq(tbl_err_wire[err.proto], "run_busy");
		cr_expect_eq(store_test_lock_clock_ms(), 1000, "%s: waited %lld ms in all", ids[i],
			     store_test_lock_clock_ms());
	}
	/* A Run that is free is still read after the wait ran out. */
	cr_expect_eq(store_visit(r, "free", NULL, NULL, NULL, NULL), 0);
	/* The next command (handle) waits again, once. */
	store_free(r);
	r = open_store(false);
	store_set_lock_timeout(r, 1000);
	cr_expect_eq(store_visit(r, ids[0], NULL, NULL, NULL, NULL), SW_EPROTO);
	cr_expect_eq(store_visit(r, ids[1], NULL, NULL, NULL, NULL), SW_EPROTO);
	cr_expect_eq(store_test_lock_clock_ms(), 2000);
	store_test_lock_clock(false);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	store_free(r);
	store_free(w);
}

Test(io_store, allocation_failures_never_corrupt_the_run)
{
	struct store *w = open_store(true);
	unsigned long n;

	for (n = 1; n < 400; n++) {
		struct sw_error err = SW_ERROR_INIT;
		struct add_spec a = { 2, TBL_JEVENT_RUN_STOPPED, "{\"v\":[1,2,3]}",
				      "{\"p\":1}", "mat", "", 0 };
		long long count = 0;
		char id[32], code[64];
		int rc;

		/* A fresh run each time, so the failure walks every allocation
		 * of one update, including those after the commit. */
		snprintf(id, sizeof(id), "oom-%lu", n);
		make_run(w, id);
		sw_alloc_fail_after(n);
		rc = store_update(w, id, NULL, add_events, &a, &err);
		sw_alloc_fail_after(0);
		snprintf(code, sizeof(code), "%s", tbl_err_wire[err.proto]);
		sw_error_clear(&err);
		cr_assert_eq(store_visit(w, id, NULL, NULL, &count, &err), 0,
			     "n=%lu: %s", n, err.msg);
		if (rc == 0 || strncmp(code, "mutation_committed", 18) == 0)
			cr_assert_eq(count, 3, "n=%lu rc=%d %s", n, rc, code);
		else if (strcmp(code, "mutation_not_committed") == 0)
			cr_assert_eq(count, 1, "n=%lu", n);
		else
			cr_assert_str_eq(code, "mutation_outcome_ambiguous", "n=%lu", n);
		if (rc == 0)
			break;
	}
	cr_assert_lt(n, 400);
	store_free(w);
}

Test(io_store, fast_and_strict_decoders_agree)
{
	static const char *datas[] = {
		"{}", "[]", "null", "true", "false", "0", "-0", "12.5e-3", "1E+2",
		"\"plain\"", "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00\"",
		"\"lone \\ud800\"", "\"nul \\u0000\"", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
		"\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\x01\"",
		"{\"a\":1,\"a\":2}", "{\"a\":{\"b\":[1,{\"b\":1,\"b\":2}]}}",
		"{\"\\u0061\":1,\"a\":2}", "{\"a\":1,\"b\":[1,2,{\"c\":null}]}",
		"123456789012345678901234567890", "1e400", "01", "1.", ".5", "-",
		"1764555555123456789", "-1764555555123456789", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"12345678901234567890", "[1764555555123456789,1.5]",
		"[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "tru", "nul",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	};
	static const char *envelopes[] = {
		"{\"sequence\":1,\"type\":\"run_started\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":%s}",
		"  {\"data\":%s,\"at\":\"2026-01-02T03:04:05.5+01:00\",\"type\":\"run_started\",\"sequence\":1}  ",
		"{\"sequence\":01,\"type\":\"run_started\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":%s}",
		"{\"sequence\":1,\"type\":\"run_started\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":%s,\"data\":1}",
		"{\"sequence\":1,\"type\":\"run_\\u0073tarted\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":%s}",
		"{\"sequence\":1,\"type\":\"run_started\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":%s} x",
		"\xef\xbb\xbf{\"sequence\":1,\"type\":\"run_started\",\"at\":\"2026-01-02T03:04:05Z\",\"data\":%s}",
	};

	for (size_t e = 0; e < sizeof(envelopes) / sizeof(envelopes[0]); e++)
		for (size_t d = 0; d < sizeof(datas) / sizeof(datas[0]); d++) {
			struct sw_error e1 = SW_ERROR_INIT, e2 = SW_ERROR_INIT;
			struct journal_record r1, r2;
			char line[1024];
			int rc1, rc2;

			snprintf(line, sizeof(line), envelopes[e], datas[d]);
			journal_set_fast_path(1);
			rc1 = journal_record_decode(&r1, line, strlen(line), 1, &e1);
			journal_set_fast_path(0);
			rc2 = journal_record_decode(&r2, line, strlen(line), 1, &e2);
			journal_set_fast_path(1);
			cr_expect_eq(rc1, rc2, "envelope %zu data %zu: %s / %s", e, d,
				     e1.msg, e2.msg);
			if (rc1 == 0 && rc2 == 0) {
				cr_expect_str_eq(r1.data, r2.data);
				cr_expect_str_eq(r1.at, r2.at);
				cr_expect_eq(r1.type, r2.type);
			}
			journal_record_release(&r1);
			journal_record_release(&r2);
		}
}

Test(io_store, symlinked_namespace_is_refused)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = NULL;
	char *target = sw_asprintf("%s/elsewhere", g_root);
	char *ns = sw_asprintf("%s/slipway", g_common);
	struct stat st;

	cr_assert_eq(mkdir(target, 0700), 0);
	cr_assert_eq(symlink(target, ns), 0);
	cr_expect_eq(store_open(&s, g_common, true, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "runstore_unavailable");
	cr_expect_null(s);
	sw_error_clear(&err);
	cr_expect_eq(store_open(&s, g_common, false, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "runstore_unavailable");
	{
		char *runs = sw_asprintf("%s/runs", target);

		cr_expect_neq(lstat(runs, &st), 0, "nothing created through the link");
		sw_free(runs);
	}
	sw_error_clear(&err);
	cr_expect_eq(store_open(&s, "relative/path", true, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "runstore_unavailable");
	sw_free(target);
	sw_free(ns);
}

Test(io_store, update_of_a_missing_run_is_run_not_found_and_creates_nothing)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *s = open_store(true);
	struct add_spec a = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	struct stat st;

	cr_expect_eq(store_update(s, "ghost", NULL, add_events, &a, &err), SW_EPROTO);
	cr_expect_str_eq(tbl_err_wire[err.proto], "run_not_found");
	cr_expect(store_last_failure(s)->has_mutation);
	cr_expect(!store_last_failure(s)->committed);
	cr_expect_neq(lstat(run_path("ghost", NULL), &st), 0);
	store_free(s);
}

Test(io_store, material_digest_is_the_framed_sha256)
{
	const char *domain = "slipway-material/v1", *body = "abc";
	unsigned char buf[64], md[32];
	char want[SW_DIGEST_LEN], got[SW_DIGEST_LEN];
	size_t n = 0;

	/* 8-byte big-endian length, then bytes, for each field. */
	memset(buf, 0, 8);
	buf[7] = (unsigned char)strlen(domain);
	n = 8;
	memcpy(buf + n, domain, strlen(domain));
	n += strlen(domain);
	memset(buf + n, 0, 8);
	buf[n + 7] = 3;
	n += 8;
	memcpy(buf + n, body, 3);
	n += 3;
	SHA256(buf, n, md);
	snprintf(want, sizeof(want), "sha256:");
	for (int i = 0; i < 32; i++)
		snprintf(want + 7 + 2 * i, 3, "%02x", md[i]);
	sw_material_digest(got, body, 3, NULL);
	cr_expect_str_eq(got, want);
}

Test(io_store, create_allocation_failures_leave_no_partial_run)
{
	struct store *w = open_store(true);
	unsigned long n;

	for (n = 1; n < 400; n++) {
		struct sw_error err = SW_ERROR_INIT;
		struct add_spec a = { 1, TBL_JEVENT_RUN_STARTED, "{\"g\":[1,2]}", "{\"p\":1}", "mat", "", 0 };
		struct seen seen = { 0 };
		long long count = -1;
		char id[32];
		int rc;

		snprintf(id, sizeof(id), "oom-%lu", n);
		sw_alloc_fail_after(n);
		char code[64];

		rc = store_create(w, id, add_events, &a, &err);
		sw_alloc_fail_after(0);
		snprintf(code, sizeof(code), "%s", tbl_err_wire[err.proto]);
		sw_error_clear(&err);
		if (store_visit(w, id, collect, &seen, &count, &err) < 0) {
			cr_assert_neq(rc, 0);
			cr_assert_str_eq(tbl_err_wire[err.proto], "run_not_found");
			cr_assert_str_eq(code, "mutation_not_committed");
		} else if (rc == 0 || strncmp(code, "mutation_committed", 18) == 0) {
			cr_assert_eq(count, 1, "n=%lu %s", n, code);
		} else if (strcmp(code, "mutation_not_committed") == 0) {
			cr_assert_eq(count, 0, "n=%lu", n);
		} else {
			cr_assert_str_eq(code, "mutation_outcome_ambiguous", "n=%lu", n);
		}
		seen_free(&seen);
		if (rc == 0)
			break;
	}
	cr_assert_lt(n, 400);
	store_free(w);
}

/* ---- leftovers of killed mutations and damaged rebuildable files ---- */

static void put_file(const char *path, const char *bytes)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	fputs(bytes, f);
	cr_assert_eq(fclose(f), 0);
}

static int refuse(struct store_mutation *m, void *payload, struct sw_error *err)
{
	(void)m;
	(void)payload;
	return sw_error_set(err, SW_ECONFLICT, "refused");
}

static const char *MAT_TMP =
	"materials/.tmp-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef-0123456789abcdef";

/* Names of exactly our temporaries' shapes go; anything else stays. */
static const char *const OURS[] = {
	".tmp-run.json-0123456789abcdef", ".quarantine-run.json-fedcba9876543210",
	".tmp-run.summary-0000000000000000", ".tmp-run.checkpoint-log-00000000deadbeef",
	".tmp-run.lock-1111111111111111",
};
static const char *const NOT_OURS[] = {
	".tmp-run.json-0123", ".tmp-run.json-0123456789ABCDEF", ".tmp-other-0123456789abcdef",
	"notes.txt", ".tmp-run.json-0123456789abcdef0", "materials/.tmp-zz",
	"materials/.tmp-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef-01",
};

static size_t count_kind(struct store *s, enum store_finding_kind kind, const char *id)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store_finding *f = NULL;
	size_t n = 0, k = 0;

	cr_assert_eq(store_inspect(&f, &n, s, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		if (f[i].kind == kind && strncmp(f[i].path, id, strlen(id)) == 0 &&
		    f[i].path[strlen(id)] == '/')
			k++;
	store_findings_free(f, n);
	return k;
}

Test(io_store, leftovers_of_killed_mutations_go_with_the_next_commit_only)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true), *r;
	struct add_spec mat = { 1, TBL_JEVENT_OUTCOME_SUBMITTED, "{}", "{}", "mat", "", 0 };
	struct add_spec none = { 0, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	struct add_spec one = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	struct store_finding *f = NULL;
	struct stat st;
	char *before, *after;
	size_t n = 0;

	make_run(w, "lo");
	cr_assert_eq(store_update(w, "lo", NULL, add_events, &mat, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < sizeof(OURS) / sizeof(OURS[0]); i++)
		put_file(run_path("lo", OURS[i]), "left over");
	put_file(run_path("lo", MAT_TMP), "half a material");
	for (size_t i = 0; i < sizeof(NOT_OURS) / sizeof(NOT_OURS[0]); i++)
		put_file(run_path("lo", NOT_OURS[i]), "keep");
	/* A directory of our name goes only when empty. */
	cr_assert_eq(mkdir(run_path("lo", ".tmp-run.json-2222222222222222"), 0700), 0);
	put_file(run_path("lo", ".tmp-run.json-2222222222222222/inside"), "keep");
	cr_assert_eq(mkdir(run_path("lo", ".quarantine-run.lock-3333333333333333"), 0700), 0);

	/* doctor's view: each with its size; the directory is no temporary. */
	r = open_store(false);
	cr_assert_eq(store_inspect(&f, &n, r, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 8, "%zu findings", n);
	cr_expect_str_eq(f[0].path, "lo/.quarantine-run.json-fedcba9876543210");
	cr_expect_eq(f[0].kind, STORE_FOUND_TEMPORARY);
	cr_expect_eq(f[0].size, 9);
	cr_expect_str_eq(f[7].path, "lo/materials/.tmp-0123456789abcdef0123456789abcdef"
			 "0123456789abcdef0123456789abcdef-0123456789abcdef");
	cr_expect_eq(f[7].size, 15);
	cr_expect_eq(count_kind(r, STORE_FOUND_PARKED, "lo"), 1);
	store_findings_free(f, n);

	/* A refused mutation, and one that adds nothing, change nothing. */
	before = tree_fingerprint(run_path("lo", NULL));
	cr_expect_neq(store_update(w, "lo", NULL, refuse, NULL, &err), 0);
	sw_error_clear(&err);
	cr_assert_eq(store_update(w, "lo", NULL, add_events, &none, &err), 0, "%s", err.msg);
	after = tree_fingerprint(run_path("lo", NULL));
	cr_expect_str_eq(after, before);
	sw_free(after);

	/* The next commit removes ours and keeps everything else. */
	cr_assert_eq(store_update(w, "lo", NULL, add_events, &one, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < sizeof(OURS) / sizeof(OURS[0]); i++)
		cr_expect_neq(lstat(run_path("lo", OURS[i]), &st), 0, "%s stayed", OURS[i]);
	cr_expect_neq(lstat(run_path("lo", MAT_TMP), &st), 0);
	for (size_t i = 0; i < sizeof(NOT_OURS) / sizeof(NOT_OURS[0]); i++)
		cr_expect_eq(lstat(run_path("lo", NOT_OURS[i]), &st), 0, "%s removed", NOT_OURS[i]);
	cr_expect_eq(lstat(run_path("lo", ".tmp-run.json-2222222222222222/inside"), &st), 0);
	cr_expect_neq(lstat(run_path("lo", ".quarantine-run.lock-3333333333333333"), &st), 0);
	cr_expect_eq(count_kind(r, STORE_FOUND_TEMPORARY, "lo"), 0);
	cr_expect_eq(count_kind(r, STORE_FOUND_PARKED, "lo"), 1);
	sw_free(before);
	store_free(r);
	store_free(w);
}

/* The one finding about runs/<name> (not below it), or fails. */
static enum store_finding_kind staged_kind(struct store *s, const char *name, char *why, size_t size)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store_finding *f = NULL;
	enum store_finding_kind kind = 0;
	size_t n = 0, k = 0;

	cr_assert_eq(store_inspect(&f, &n, s, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].path, name) == 0) {
			kind = f[i].kind;
			snprintf(why, size, "%s", f[i].why ? f[i].why : "");
			k++;
		}
	store_findings_free(f, n);
	cr_assert_eq(k, 1, "%s: %zu findings", name, k);
	return kind;
}

/* A staging directory goes with the next creation once the process that
 * made it has provably ended: nobody holds its lock, and no creation is
 * between making a staging directory and locking it (the shared lock on
 * runs/).  Until then it stays, and doctor's view says why; a name of
 * another shape is never removed. */
Test(io_store, staging_directories_go_with_the_next_creation_once_their_owner_has_ended)
{
	static const char *const HELD = ".tmp-held-0123456789abcdef";
	static const char *const GONE = ".tmp-gone-fedcba9876543210";
	static const char *const OTHER = ".tmp-x";
	struct store *w = open_store(true), *r = open_store(false);
	char why[256], runs[PATH_MAX + 32];
	struct stat st;
	int hfd, rfd;

	snprintf(runs, sizeof(runs), "%s/slipway/runs", g_common);
	cr_assert_eq(mkdir(run_path(HELD, NULL), 0700), 0);
	put_file(run_path(HELD, "run.lock"), "");
	cr_assert_eq(mkdir(run_path(GONE, NULL), 0700), 0);
	cr_assert_eq(mkdir(run_path(GONE, "materials"), 0700), 0);
	put_file(run_path(GONE, "journal.jsonl"), "{}\n");
	put_file(run_path(GONE, "materials/0123"), "blob");
	cr_assert_eq(mkdir(run_path(OTHER, NULL), 0700), 0);
	cr_assert_geq(hfd = open(run_path(HELD, NULL), O_RDONLY | O_DIRECTORY), 0);
	cr_assert_eq(flock(hfd, LOCK_EX), 0);

	cr_expect_eq(staged_kind(r, GONE, why, sizeof(why)), STORE_FOUND_STAGED);
	cr_expect_eq(staged_kind(r, HELD, why, sizeof(why)), STORE_FOUND_STAGED_HELD);
	cr_expect(strstr(why, "holds its lock") != NULL, "%s", why);
	cr_expect_eq(staged_kind(r, OTHER, why, sizeof(why)), STORE_FOUND_STAGED_HELD);
	cr_expect(strstr(why, "not one slipway gives") != NULL, "%s", why);

	/* A creation between making its staging directory and locking it
	 * (this test holding runs/ shared): nothing can be proven. */
	cr_assert_geq(rfd = open(runs, O_RDONLY | O_DIRECTORY), 0);
	cr_assert_eq(flock(rfd, LOCK_SH), 0);
	cr_expect_eq(staged_kind(r, GONE, why, sizeof(why)), STORE_FOUND_STAGED_HELD);
	make_run(w, "first");
	cr_expect_eq(lstat(run_path(GONE, "materials/0123"), &st), 0, "removed in the window");
	close(rfd);

	make_run(w, "second");
	cr_expect_neq(lstat(run_path(GONE, NULL), &st), 0, "an abandoned one stayed");
	cr_expect_eq(lstat(run_path(HELD, "run.lock"), &st), 0, "a held one was removed");
	cr_expect_eq(lstat(run_path(OTHER, NULL), &st), 0);
	close(hfd);
	cr_expect_eq(staged_kind(r, HELD, why, sizeof(why)), STORE_FOUND_STAGED);
	make_run(w, "third");
	cr_expect_neq(lstat(run_path(HELD, NULL), &st), 0);
	cr_expect_eq(lstat(run_path(OTHER, NULL), &st), 0);
	store_free(r);
	store_free(w);
}

/* run.json and run.lock are rebuilt by the store (the projection from the
 * journal, the lock marker empty): one that is no regular file it can
 * read is replaced by the next commit, never fails it forever; a refused
 * mutation leaves it as it is.  A directory holding anything is moved
 * aside, never deleted. */
Test(io_store, a_damaged_run_json_or_run_lock_is_replaced_by_the_next_commit)
{
	static const char *const leaves[] = { "run.json", "run.lock" };
	static const char *const damage[] = { "fifo", "empty-dir", "full-dir", "symlink" };
	struct store *w = open_store(true), *r = open_store(false);

	for (size_t l = 0; l < 2; l++)
		for (size_t d = 0; d < 4; d++) {
			struct sw_error err = SW_ERROR_INIT;
			struct add_spec one = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{\"p\":2}", NULL, "", 0 };
			char id[64], *before, *after, *bytes;
			const char *p;
			struct stat st;
			size_t len = 0;

			snprintf(id, sizeof(id), "dmg-%zu-%zu", l, d);
			make_run(w, id);
			p = run_path(id, leaves[l]);
			cr_assert_eq(unlink(p), 0);
			if (d == 0)
				cr_assert_eq(mkfifo(p, 0600), 0);
			else if (d == 3)
				cr_assert_eq(symlink(run_path(id, "journal.jsonl"), p), 0);
			else
				cr_assert_eq(mkdir(p, 0700), 0);
			if (d == 2) {
				char *kept = sw_asprintf("%s/kept", leaves[l]);

				put_file(run_path(id, kept), "someone's");
				sw_free(kept);
			}
			cr_expect_eq(count_kind(r, STORE_FOUND_REPAIRABLE, id), 1, "%s %s", leaves[l], damage[d]);
			before = tree_fingerprint(run_path(id, NULL));
			cr_expect_neq(store_update(w, id, NULL, refuse, NULL, &err), 0);
			after = tree_fingerprint(run_path(id, NULL));
			cr_expect_str_eq(after, before, "%s %s: refused but changed", leaves[l], damage[d]);
			sw_error_clear(&err);
			cr_assert_eq(store_update(w, id, NULL, add_events, &one, &err), 0, "%s %s: %s %s",
				     leaves[l], damage[d], tbl_err_wire[err.proto], err.msg);
			cr_assert_eq(lstat(p, &st), 0);
			cr_expect(S_ISREG(st.st_mode), "%s %s", leaves[l], damage[d]);
			cr_expect_eq(st.st_mode & 0777, 0600);
			if (l == 0) {
				cr_assert_eq(store_test_projection(w, id, &bytes, &len), 0);
				cr_expect_str_eq(bytes, "{\n  \"revision\": 2,\n  \"data\": {\n    \"p\": 2\n  }\n}\n");
				sw_free(bytes);
			} else {
				cr_expect_eq(st.st_size, 0);
			}
			/* The symlink's target is untouched. */
			cr_expect_eq(lstat(run_path(id, "journal.jsonl"), &st), 0);
			cr_expect(S_ISREG(st.st_mode));
			cr_expect_eq(count_kind(r, STORE_FOUND_REPAIRABLE, id), 0);
			cr_expect_eq(count_kind(r, STORE_FOUND_PARKED, id), d == 2 ? 1 : 0,
				     "%s %s", leaves[l], damage[d]);
			cr_expect_eq(count_kind(r, STORE_FOUND_TEMPORARY, id), 0);
			sw_free(before);
			sw_free(after);
		}
	store_free(r);
	store_free(w);
}

/* Moves the Run's directory to root/moved from inside the mutation
 * callback (and puts an empty directory under its name when `replace`),
 * then adds what add_events adds. */
struct move_spec {
	struct add_spec add;
	const char *id;
	bool replace;
};

static int move_then_add(struct store_mutation *m, void *payload, struct sw_error *err)
{
	struct move_spec *mv = payload;
	char to[PATH_MAX + 16];

	snprintf(to, sizeof(to), "%s/moved", g_root);
	cr_assert_eq(rename(run_path(mv->id, NULL), to), 0);
	if (mv->replace)
		cr_assert_eq(mkdir(run_path(mv->id, NULL), 0700), 0);
	return add_events(m, &mv->add, err);
}

/* The Run's directory is re-proved at the lock and around the journal
 * append only (store_commit.c): one moved while the mutation works is
 * refused there, before anything is committed, and what the mutation
 * wrote in the moved directory meanwhile (a new blob, the run.json
 * temporary) is taken back, so that directory is as it was. */
Test(io_store, a_run_moved_during_its_mutation_commits_nothing)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true);
	struct add_spec mat = { 1, TBL_JEVENT_OUTCOME_SUBMITTED, "{}", "{}", "old", "", 0 };
	char moved[PATH_MAX + 16], cmd[2 * PATH_MAX + 64];

	snprintf(moved, sizeof(moved), "%s/moved", g_root);
	for (int replace = 0; replace < 2; replace++) {
		struct move_spec mv = { { 1, TBL_JEVENT_OUTCOME_SUBMITTED, "{}", "{}", "new blob",
					  "", 0 }, "mv", replace };
		const struct store_failure *f;
		char *before, *after;

		make_run(w, "mv");
		cr_assert_eq(store_update(w, "mv", NULL, add_events, &mat, &err), 0, "%s", err.msg);
		before = tree_fingerprint(run_path("mv", NULL));
		cr_expect_lt(store_update(w, "mv", NULL, move_then_add, &mv, &err), 0);
		f = store_last_failure(w);
		cr_expect_str_eq(f->phase, "journal_open", "replace %d", replace);
		cr_expect_not(f->committed);
		cr_expect_not(f->ambiguous);
		after = tree_fingerprint(moved);
		cr_expect_str_eq(after, before, "replace %d", replace);
		sw_free(after);
		sw_free(before);
		sw_error_clear(&err);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", moved, run_path("mv", NULL));
		cr_assert_eq(system(cmd), 0);
	}
	store_free(w);
}

/* materials/ is swept only when the run directory holds a leftover: a
 * killed mutation that left a material temporary left its run.json
 * temporary too (store_commit.c sweep_temporaries).  Each of the run
 * directory's shapes sends the sweep into materials/; a material
 * temporary alone stays, and doctor still reports it. */
Test(io_store, materials_are_swept_when_the_run_directory_holds_a_leftover)
{
	struct sw_error err = SW_ERROR_INIT;
	struct store *w = open_store(true);
	struct add_spec mat = { 1, TBL_JEVENT_OUTCOME_SUBMITTED, "{}", "{}", "mat", "", 0 };
	struct add_spec one = { 1, TBL_JEVENT_RUN_STOPPED, "{}", "{}", NULL, "", 0 };
	struct stat st;

	make_run(w, "sw");
	cr_assert_eq(store_update(w, "sw", NULL, add_events, &mat, &err), 0, "%s", err.msg);
	put_file(run_path("sw", MAT_TMP), "half a material");
	cr_assert_eq(store_update(w, "sw", NULL, add_events, &one, &err), 0, "%s", err.msg);
	cr_expect_eq(lstat(run_path("sw", MAT_TMP), &st), 0, "swept with no run leftover");
	cr_expect_eq(count_kind(w, STORE_FOUND_TEMPORARY, "sw"), 1);
	for (size_t i = 0; i < sizeof(OURS) / sizeof(OURS[0]); i++) {
		put_file(run_path("sw", MAT_TMP), "half a material");
		put_file(run_path("sw", OURS[i]), "left over");
		cr_assert_eq(store_update(w, "sw", NULL, add_events, &one, &err), 0, "%s", err.msg);
		cr_expect_neq(lstat(run_path("sw", MAT_TMP), &st), 0, "kept beside %s", OURS[i]);
		cr_expect_neq(lstat(run_path("sw", OURS[i]), &st), 0, "%s stayed", OURS[i]);
	}
	store_free(w);
}
