/* io/source: the JSON forms of pinned sources and candidates, the decoders
 * and clones, allocation failures, and how each envelope member is read.
 * Envelopes are built with tests/io/source_helpers.h. */

#include "tests/io/source_helpers.h"

/* ---- JSON forms ------------------------------------------------------------ */

static void write_out(const char *name, const json_t *v)
{
	const char *root = getenv("SLIPWAY_TEST_ROOT");
	char *dir, *path;
	char *text = sw_json_dump(v);
	FILE *f;

	if (asprintf(&dir, "%s/build/test-out/source", root ? root : ".") < 0 ||
	    asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
		cr_assert_eq(system(cmd), 0);
	}
	{
		/* write then rename: the e2e check may read concurrently */
		char *tmp;

		if (asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) < 0)
			abort();
		f = fopen(tmp, "w");
		cr_assert_not_null(f);
		fputs(text, f);
		cr_assert_eq(fclose(f), 0);
		cr_assert_eq(rename(tmp, path), 0);
		free(tmp);
	}
	sw_free(text);
	free(path);
	free(dir);
}

Test(io_source, json_forms_follow_the_schema_shapes_and_hold_no_raw_input)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL, *bad = NULL;
	json_t *e, *j = NULL, *jb = NULL, *jp = NULL, *snap;
	char *text;

	builder_init(&b);
	b.parent_rev = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	e = envelope(&b);
	json_object_set_new(e, "parent", json_pack("{s:s,s:s,s:s}", "repository_id",
		"R_p", "issue_id", "I_p", "canonical_url", "https://github.com/acme/plans/issues/1"));
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(c->valid, 1);
	cr_assert_eq(source_candidate_to_json(&j, c, "cand-1", "2026-07-12T10:00:00Z", &err), 0);
	text = sw_json_dump(j);
	cr_expect(strncmp(text, "{\"candidate_id\":\"cand-1\",\"valid\":true,", 38) == 0, "%s", text);
	cr_expect(strstr(text, "slipway-level") == NULL);
	cr_expect(strstr(text, "level:change") == NULL);
	cr_expect(strstr(text, "fetched_at") == NULL);
	cr_expect(strstr(text, "Ship it") == NULL);
	cr_expect(strstr(text, "observation_sha256") == NULL);
	cr_expect(strstr(text, "\"created_at\":\"2026-07-12T10:00:00Z\"}") != NULL);
	snap = json_object_get(j, "snapshot");
	cr_expect_str_eq(json_string_value(json_object_get(snap, "parent_requirements_revision")),
			 b.parent_rev);
	write_out("candidate-valid.json", j);
	sw_free(text);

	/* the embedded snapshot decodes back */
	{
		struct source_pinned *p = NULL;

		cr_assert_eq(source_pinned_from_json(&p, snap, &err), 0, "%s", err.msg);
		cr_expect_str_eq(p->parent->canonical_url, "https://github.com/acme/plans/issues/1");
		source_pinned_free(p);
	}
	cr_assert_eq(source_pinned_to_json(&jp, c->snapshot, &err), 0);
	write_out("pinned.json", jp);
	{
		struct source_pinned *p = NULL;
		json_t *again = NULL;
		char *t1, *t2;

		cr_assert_eq(source_pinned_from_json(&p, jp, &err), 0, "%s", err.msg);
		cr_expect_null(p->sections[0].payload);
		cr_assert_eq(source_pinned_to_json(&again, p, &err), 0);
		t1 = sw_json_dump(jp);
		t2 = sw_json_dump(again);
		cr_expect_str_eq(t1, t2);
		sw_free(t1);
		sw_free(t2);
		json_decref(again);
		source_pinned_free(p);
	}
	json_decref(j);

	/* an invalid candidate */
	json_decref(e);
	builder_release(&b);
	builder_init(&b);
	b.s[0].declared = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
	e = envelope(&b);
	cr_assert_eq(parse_json(&bad, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_candidate_to_json(&jb, bad, "cand-2", "2026-07-12T10:00:00Z", &err), 0);
	cr_expect_null(json_object_get(jb, "snapshot"));
	cr_expect_null(json_object_get(jb, "title"));
	cr_expect_str_eq(json_string_value(json_object_get(jb, "classification_code")),
			 "source_section_hash_mismatch");
	write_out("candidate-invalid.json", jb);
	json_decref(jb);
	json_decref(jp);
	json_decref(e);
	builder_release(&b);
	source_candidate_free(bad);
	source_candidate_free(c);
}

static void tamper_and_expect(const json_t *good, const char *key, json_t *value,
			      enum sw_code want)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_pinned *p = NULL;
	json_t *copy = json_deep_copy(good);

	if (value)
		json_object_set_new(copy, key, value);
	else
		json_object_del(copy, key);
	cr_expect_eq(source_pinned_from_json(&p, copy, &err), want, "%s: %s", key, err.msg);
	cr_expect_null(p);
	json_decref(copy);
}

Test(io_source, pinned_decoder_rejects_tampering_and_unknown_keys)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e, *jp = NULL;
	const char *zero = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

	builder_init(&b);
	e = envelope(&b);
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_pinned_to_json(&jp, c->snapshot, &err), 0);
	tamper_and_expect(jp, "requirements_revision", json_string(zero), SW_EINVAL);
	tamper_and_expect(jp, "manifest_revision", json_string(zero), SW_EINVAL);
	tamper_and_expect(jp, "source_revision", json_string(zero), SW_EINVAL);
	tamper_and_expect(jp, "title", json_string("Another title"), SW_EINVAL);
	tamper_and_expect(jp, "extra", json_true(), SW_EPARSE);
	tamper_and_expect(jp, "sections", NULL, SW_EPARSE);
	tamper_and_expect(jp, "issue_number", json_string("77"), SW_EPARSE);
	tamper_and_expect(jp, "url_aliases",
			  json_pack("[s]", ISSUE_URL), SW_EINVAL);
	{
		json_t *ok = json_deep_copy(jp);
		struct source_pinned *p = NULL;

		/* aliases are projection only: not part of any revision */
		json_object_set_new(ok, "url_aliases",
				    json_pack("[s]", "https://github.com/old/place/issues/9"));
		cr_expect_eq(source_pinned_from_json(&p, ok, &err), 0, "%s", err.msg);
		source_pinned_free(p);
		json_decref(ok);
	}
	json_decref(jp);
	json_decref(e);
	source_candidate_free(c);
	builder_release(&b);
}

Test(io_source, clone_is_deep_and_validates)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	struct source_pinned *p = NULL;
	json_t *e;

	builder_init(&b);
	e = envelope(&b);
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_pinned_clone(&p, c->snapshot, &err), 0);
	cr_expect_neq(p->sections[0].payload, c->snapshot->sections[0].payload);
	cr_expect_eq(memcmp(p->sections[0].payload, c->snapshot->sections[0].payload,
			    p->sections[0].bytes), 0);
	source_candidate_free(c);
	cr_expect_eq(source_pinned_validate(p, &err), 0, "%s", err.msg);
	source_pinned_free(p);
	json_decref(e);
	builder_release(&b);
}

/* ---- allocation failures ------------------------------------------------- */

Test(io_source, every_allocation_failure_is_reported_and_leaks_nothing)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e, *j = NULL;
	char *text;
	int rc = -1, valid = 0;

	builder_init(&b);
	e = envelope(&b);
	text = json_dumps(e, JSON_COMPACT);
	/* Jansson 2.14 itself crashes when an allocation fails inside
	 * json_loadb, so during this loop only our own sw_malloc calls fail:
	 * Jansson gets the plain allocator. */
	json_set_alloc_funcs(malloc, free);
	for (unsigned long n = 1; n < 100000; n++) {
		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = source_parse_candidate(&c, text, strlen(text), &err);
		valid = rc == 0 && c->valid;
		if (rc == 0)
			rc = source_candidate_to_json(&j, c, "id", "2026-07-12T10:00:00Z", &err);
		sw_alloc_fail_after(0);
		json_decref(j);
		j = NULL;
		source_candidate_free(c);
		c = NULL;
		if (rc == 0 && valid)
			break;
		/* Jansson reports its own allocation failures as parse errors,
		 * and one inside the manifest becomes a classification. */
		cr_assert(rc == SW_ENOMEM || rc == SW_EPARSE || rc == 0,
			  "allocation %lu: rc %d %s", n, rc, err.msg);
	}
	cr_expect_eq(rc, 0);
	json_decref(e);
	sw_free(text);
	sw_alloc_init();
	builder_release(&b);
}

static void candidate_roundtrip(const struct source_candidate *c)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *back = NULL;
	char *id = NULL, *at = NULL, *t1, *t2;
	json_t *j = NULL, *again = NULL;

	cr_assert_eq(source_candidate_to_json(&j, c, "cand-9", "2026-07-12T10:00:00Z", &err), 0);
	cr_assert_eq(source_candidate_from_json(&back, &id, &at, j, &err), 0, "%s", err.msg);
	cr_expect_str_eq(id, "cand-9");
	cr_expect_str_eq(at, "2026-07-12T10:00:00Z");
	cr_assert_eq(source_candidate_to_json(&again, back, id, at, &err), 0);
	t1 = sw_json_dump(j);
	t2 = sw_json_dump(again);
	cr_expect_str_eq(t1, t2);
	sw_free(t1);
	sw_free(t2);
	sw_free(id);
	sw_free(at);
	json_decref(j);
	json_decref(again);
	source_candidate_free(back);
}

static void candidate_reject(const struct source_candidate *c, const char *key,
			     json_t *value, enum sw_code want)
{
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *back = NULL;
	char *id = NULL, *at = NULL;
	json_t *j = NULL;

	cr_assert_eq(source_candidate_to_json(&j, c, "cand-9", "2026-07-12T10:00:00Z", &err), 0);
	json_object_set_new(j, key, value);
	cr_expect_eq(source_candidate_from_json(&back, &id, &at, j, &err), want,
		     "%s: %s", key, err.msg);
	cr_expect_null(back);
	cr_expect_null(id);
	json_decref(j);
}

Test(io_source, candidates_round_trip_and_inconsistent_ones_are_rejected)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *good = NULL, *bad = NULL;
	json_t *e;
	const char *zero = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

	builder_init(&b);
	e = envelope(&b);
	cr_assert_eq(parse_json(&good, e, &err), 0, "%s", err.msg);
	json_decref(e);
	b.s[2].minimized = 1;
	e = envelope(&b);
	cr_assert_eq(parse_json(&bad, e, &err), 0, "%s", err.msg);
	cr_assert_eq(bad->valid, 0);
	json_decref(e);
	builder_release(&b);

	candidate_roundtrip(good);
	candidate_roundtrip(bad);
	cr_expect_eq(source_candidate_validate(good, &err), 0);
	cr_expect_eq(source_candidate_validate(bad, &err), 0);
	candidate_reject(good, "title", json_string("Other"), SW_EINVAL);
	candidate_reject(good, "observation_sha256", json_string(zero), SW_EINVAL);
	candidate_reject(good, "requirements_revision", json_string(zero), SW_EINVAL);
	candidate_reject(good, "classification_code", json_string("source_section_missing"), SW_EINVAL);
	candidate_reject(bad, "title", json_string("T"), SW_EINVAL);
	candidate_reject(bad, "classification_error", json_string(" "), SW_EINVAL);
	candidate_reject(bad, "classification_code", json_string("valid_change"), SW_EINVAL);
	candidate_reject(bad, "classification", json_string("valid"), SW_EPARSE);
	candidate_reject(bad, "surprise", json_true(), SW_EPARSE);
	source_candidate_free(good);
	source_candidate_free(bad);
}

Test(io_source, pinned_json_keys_follow_the_reference_field_order)
{
	static const char *const want[] = {
		"source_version", "parser_version", "manifest_version", "profile",
		"provider", "host", "repository_id", "issue_id", "issue_number",
		"canonical_url", "url_aliases", "source_revision", "manifest_revision",
		"requirements_revision", "parent_requirements_revision", "title",
		"parent", "sections",
	};
	static const char *const want_section[] = {
		"key", "role", "title", "body_sha256", "section_revision",
		"material_sha256", "bytes", "provenance",
	};
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL;
	json_t *e, *j = NULL;
	const char *k;
	json_t *v;
	size_t i = 0;

	builder_init(&b);
	b.parent_rev = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	e = envelope(&b);
	json_object_set_new(e, "parent", json_pack("{s:s,s:s,s:s}", "repository_id",
		"R_p", "issue_id", "I_p", "canonical_url", "https://github.com/acme/plans/issues/1"));
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_pinned_to_json(&j, c->snapshot, &err), 0);
	json_object_foreach(j, k, v) {
		cr_assert(i < sizeof(want) / sizeof(*want));
		cr_expect_str_eq(k, want[i]);
		i++;
	}
	cr_expect_eq(i, sizeof(want) / sizeof(*want));
	i = 0;
	json_object_foreach(json_array_get(json_object_get(j, "sections"), 0), k, v) {
		cr_assert(i < sizeof(want_section) / sizeof(*want_section));
		cr_expect_str_eq(k, want_section[i]);
		i++;
	}
	cr_expect_eq(i, sizeof(want_section) / sizeof(*want_section));
	json_decref(j);
	json_decref(e);
	source_candidate_free(c);
	builder_release(&b);
}

Test(io_source, decoders_and_clone_survive_every_allocation_failure)
{
	struct builder b;
	struct sw_error err = SW_ERROR_INIT;
	struct source_candidate *c = NULL, *back = NULL;
	struct source_pinned *p = NULL;
	json_t *e, *jc = NULL, *jp = NULL;
	char *id = NULL, *at = NULL;
	int rc = -1;

	builder_init(&b);
	e = envelope(&b);
	cr_assert_eq(parse_json(&c, e, &err), 0, "%s", err.msg);
	cr_assert_eq(source_candidate_to_json(&jc, c, "i", "2026-07-12T10:00:00Z", &err), 0);
	cr_assert_eq(source_pinned_to_json(&jp, c->snapshot, &err), 0);
	for (unsigned long n = 1; n < 100000; n++) {
		sw_error_clear(&err);
		sw_alloc_fail_after(n);
		rc = source_pinned_from_json(&p, jp, &err);
		if (rc == 0) {
			source_pinned_free(p);
			p = NULL;
			rc = source_candidate_from_json(&back, &id, &at, jc, &err);
		}
		if (rc == 0)
			rc = source_pinned_clone(&p, back->snapshot, &err);
		sw_alloc_fail_after(0);
		source_pinned_free(p);
		source_candidate_free(back);
		sw_free(id);
		sw_free(at);
		p = NULL;
		back = NULL;
		id = at = NULL;
		if (rc == 0)
			break;
		cr_assert_eq(rc, SW_ENOMEM, "allocation %lu: rc %d %s", n, rc, err.msg);
	}
	cr_expect_eq(rc, 0);
	json_decref(jc);
	json_decref(jp);
	json_decref(e);
	source_candidate_free(c);
	builder_release(&b);
}

/* The reference decodes the envelope into Go structs: an absent member keeps
 * its zero value and the validation after it decides, while null stays a type
 * error for a string, number or boolean (an absent or null array is refused
 * by the validation as uninitialised). */
struct member_case {
	int in_comment;			/* the member of comments[0], else top level */
	const char *key;
	json_t *value;			/* stolen; NULL deletes the member */
};

/* Parses the built envelope with one member changed; *c gets the candidate. */
static int parse_changed(const struct member_case *mc, struct source_candidate **c,
			 struct sw_error *err)
{
	struct builder b;
	json_t *e, *holder;
	int rc;

	builder_init(&b);
	e = envelope(&b);
	holder = mc->in_comment ? first_comment(e) : e;
	if (mc->value)
		json_object_set_new(holder, mc->key, mc->value);
	else
		json_object_del(holder, mc->key);
	rc = parse_json(c, e, err);
	json_decref(e);
	builder_release(&b);
	return rc;
}

/* Copies the member names of the built envelope (with a parent) or of its
 * first comment into out; returns how many. */
static size_t member_names(char out[][32], size_t max, int in_comment)
{
	struct builder b;
	json_t *e, *v;
	const char *k;
	size_t n = 0;

	builder_init(&b);
	e = envelope(&b);
	json_object_set_new(e, "parent", json_null());
	json_object_foreach(in_comment ? first_comment(e) : e, k, v)
		if (n < max)
			snprintf(out[n++], 32, "%s", k);
	json_decref(e);
	builder_release(&b);
	return n;
}

Test(io_source, an_absent_envelope_member_keeps_its_zero_value)
{
	for (int in_comment = 0; in_comment <= 1; in_comment++) {
		char names[16][32];
		size_t n = member_names(names, 16, in_comment);

		cr_assert_eq(n, in_comment ? 7u : 14u);
		for (size_t i = 0; i < n; i++) {
			struct member_case mc = { in_comment, names[i], NULL };
			struct sw_error err = SW_ERROR_INIT;
			struct source_candidate *c = NULL;
			int rc = parse_changed(&mc, &c, &err);
			const char *k = names[i];

			if (!in_comment && strcmp(k, "parent") == 0) {
				cr_expect(rc == 0 && c && c->valid, "an absent parent is no parent");
			} else if (!in_comment && strcmp(k, "body") == 0) {
				cr_expect(rc == 0 && c && !c->valid &&
					  c->code == SOURCE_CLASS_CHANGE_MARKER_REQUIRED,
					  "an absent body is an empty body: %s", err.msg);
			} else if (in_comment && strcmp(k, "is_minimized") == 0) {
				cr_expect(rc == 0 && c && c->valid, "an absent is_minimized is false");
			} else if (in_comment && strcmp(k, "body") == 0) {
				cr_expect(rc == 0 && c && !c->valid &&
					  c->code == SOURCE_CLASS_SECTION_HASH_MISMATCH,
					  "an absent comment body is an empty body: %s", err.msg);
			} else {
				cr_expect_eq(rc, SW_EINVAL, "%s%s: rc %d (%s)",
					     in_comment ? "comments[0]." : "", k, rc, err.msg);
				cr_expect(strncmp(err.msg, "validate source: ", 17) == 0, "%s", err.msg);
			}
			source_candidate_free(c);
		}
	}
}

Test(io_source, null_members_are_type_errors_and_null_arrays_uninitialised)
{
	static const struct { int in_comment; const char *key; enum sw_code rc; } rows[] = {
		{ 0, "source_version", SW_EPARSE }, { 0, "provider", SW_EPARSE },
		{ 0, "issue_number", SW_EPARSE }, { 0, "body", SW_EPARSE },
		{ 0, "labels", SW_EINVAL }, { 0, "comments", SW_EINVAL },
		{ 1, "is_minimized", SW_EPARSE }, { 1, "database_id", SW_EPARSE },
		{ 1, "body", SW_EPARSE },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct member_case mc = { rows[i].in_comment, rows[i].key, json_null() };
		struct sw_error err = SW_ERROR_INIT;
		struct source_candidate *c = NULL;

		cr_expect_eq(parse_changed(&mc, &c, &err), rows[i].rc, "%s: %s",
			     rows[i].key, err.msg);
		cr_expect_null(c);
	}
}

Test(io_source, unknown_members_stay_refused_whatever_their_case)
{
	static const struct member_case rows[] = {
		{ 0, "Body", NULL }, { 1, "Is_minimized", NULL }, { 0, "extra", NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct member_case mc = rows[i];
		struct sw_error err = SW_ERROR_INIT;
		struct source_candidate *c = NULL;

		mc.value = json_false();
		cr_expect_eq(parse_changed(&mc, &c, &err), SW_EPARSE, "%s", mc.key);
		cr_expect_null(c);
	}
}

/* Moving an Issue keeps its old canonical URL as an alias once, in order
 * after the aliases it had; the new canonical URL is never an alias. */
Test(io_source, merged_aliases_keep_the_old_url_once_and_never_the_new_one)
{
	char a0[] = "https://github.com/o/old/issues/1", a1[] = "https://github.com/o/mid/issues/1";
	char now[] = "https://github.com/o/r/issues/1", moved[] = "https://github.com/o/new/issues/1";
	char *aliases[] = { a0, a1, a0 };
	struct source_pinned p = { .canonical_url = now, .url_aliases = aliases, .n_url_aliases = 3 };
	json_t *got;
	char *text;

	got = source_aliases_merged(&p, now);
	text = sw_json_dump(got);
	cr_assert_str_eq(text, "[\"https://github.com/o/old/issues/1\",\"https://github.com/o/mid/issues/1\"]");
	sw_free(text);
	json_decref(got);
	got = source_aliases_merged(&p, moved);
	text = sw_json_dump(got);
	cr_assert_str_eq(text, "[\"https://github.com/o/old/issues/1\",\"https://github.com/o/mid/issues/1\","
			       "\"https://github.com/o/r/issues/1\"]");
	sw_free(text);
	json_decref(got);
	/* Back to an old URL: it stops being an alias, the one left becomes one. */
	got = source_aliases_merged(&p, a1);
	text = sw_json_dump(got);
	cr_assert_str_eq(text, "[\"https://github.com/o/old/issues/1\",\"https://github.com/o/r/issues/1\"]");
	sw_free(text);
	json_decref(got);
	p.n_url_aliases = 0;
	got = source_aliases_merged(&p, now);
	cr_assert_eq(json_array_size(got), 0);
	json_decref(got);
}
