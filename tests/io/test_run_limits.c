/* The cut of an Action's brief (8 KiB) and of a context item: at the limit
 * the text is whole; one byte past it is cut and ends with
 * "...[truncated original_bytes=N sha256=H]", N and H naming the whole
 * original text (the digest computed here with OpenSSL, not with the
 * code under test). */

#include <criterion/criterion.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/store/run.h"
#include "io/util/json.h"

#define DIGEST_A "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST_B "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

TestSuite(io_run_limits, .init = sw_alloc_init);

/* A Run driven through run_apply, its contexts kept by digest as the
 * store keeps them. */
struct harness {
	struct run *run;
	json_t *obs, *identity, *contexts, *current;
	unsigned next_id;
	char action_id[40];
};

static json_t *observation(void)
{
	return json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:b, s:b, s:i, s:i, s:b, s:b, s:[], s:[]}",
			 "version", 1, "head", "0123456789abcdef0123456789abcdef01234567",
			 "index_fingerprint", DIGEST_A, "status_fingerprint", DIGEST_B,
			 "snapshot_hash", DIGEST_B, "path_count", 0, "path_fingerprint", DIGEST_A,
			 "details_truncated", 0, "content_observation_complete", 1,
			 "content_bytes_hashed", 0, "content_byte_limit", 67108864,
			 "content_byte_limit_exceeded", 0, "content_deadline_exceeded", 0,
			 "dirty_files", "path_observations");
}

static const char *new_id(struct harness *h)
{
	snprintf(h->action_id, sizeof(h->action_id), "00000000-0000-4000-8000-%012u", ++h->next_id);
	return h->action_id;
}

static void absorb_contexts(struct harness *h)
{
	json_t *taken = run_take_contexts(h->run), *v;
	size_t i;

	cr_assert_not_null(taken);
	json_array_foreach(taken, i, v)
		json_object_set(h->contexts, json_string_value(json_array_get(v, 0)),
				json_array_get(v, 1));
	json_decref(taken);
}

static char *resolve(const char *digest, void *payload)
{
	const char *text = json_string_value(json_object_get(payload, digest));

	return text ? sw_strdup(text) : NULL;
}

/* The current Action as a host sees it (borrowed until the next call). */
static const json_t *current(struct harness *h)
{
	absorb_contexts(h);
	json_decref(h->current);
	h->current = run_current_action_full(h->run, resolve, h->contexts);
	cr_assert_not_null(h->current);
	return h->current;
}

static const char *field(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* A new Run with Review off (`review` 0), its Orient issued. */
static void start(struct harness *h, int review)
{
	struct fsm_run fresh = { .state = FSM_ST_NEW };
	struct fsm_input in = { .event = FSM_EV_START, .budget = 8, .review = review };
	struct fsm_step st = fsm_step(&fresh, &in);
	struct run_start s = { "run-1", "Add a --verbose flag", "/work/repo", NULL, NULL,
			       "2026-11-29T10:00:00.000000001Z" };
	struct run_effects fx = { .now = s.now, .new_action_id = new_id(h) };
	struct sw_error err = SW_ERROR_INIT;

	h->obs = observation();
	h->contexts = json_object();
	h->identity = json_pack("{s:i, s:s, s:s, s:s, s:s}", "version", 1, "worktree_root",
				"/work/repo", "git_dir", "/work/repo/.git", "git_common_dir",
				"/work/repo/.git", "id", DIGEST_A);
	s.identity = h->identity;
	s.initial_git = h->obs;
	cr_assert_eq(st.verdict, FSM_APPLY);
	cr_assert_eq(run_create(&h->run, &s, &st, &fx, &err), 0, "%s", err.msg);
}

/* Submits a completed Outcome of the current Action with `summary`,
 * suggesting `kind` with `brief`; `changed`: Git differs from the start. */
static void submit(struct harness *h, const char *summary, const char *kind, const char *brief,
		   int changed)
{
	const char *id = run_current_action_id(h->run);
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:[s], s:[], s:[{s:s, s:s}], s:n, s:n, s:n}",
			      "contract_version", 2, "action_id", id, "action_kind", "orient",
			      "status", "completed", "summary", summary, "observations", "seen",
			      "known_issues", "suggested_actions", "kind", kind, "brief", brief,
			      "pause", "implementation", "review");
	struct fsm_input in = { .event = FSM_EV_SUBMIT };
	struct run_effects fx = { .outcome = o, .outcome_sha256 = DIGEST_A, .observation = h->obs,
				  .observation_complete = 1, .changed = changed };
	struct sw_error err = SW_ERROR_INIT;
	struct fsm_run m = run_machine(h->run);
	struct fsm_step st;

	cr_assert_not_null(o);
	in.facts = run_submit_facts(h->run, id, DIGEST_A) | (changed ? FSM_F(CHANGED) : 0);
	in.outcome = (struct fsm_outcome_shape){ .kind = FSM_KIND_ORIENT,
						 .status = tbl_status_lookup("completed"),
						 .suggestions = 1,
						 .suggestion_kind = tbl_kind_lookup(kind) };
	st = fsm_step(&m, &in);
	cr_assert_eq(st.verdict, FSM_APPLY, "rule %zu", st.rule);
	cr_assert_eq(st.issued, tbl_kind_lookup(kind));
	fx.now = "2026-11-29T10:01:00Z";
	fx.new_action_id = new_id(h);
	cr_assert_eq(run_apply(h->run, &st, &fx, &err), 0, "%s", err.msg);
	json_decref(o);
}

static void finish(struct harness *h)
{
	run_free(h->run);
	json_decref(h->obs);
	json_decref(h->identity);
	json_decref(h->contexts);
	json_decref(h->current);
	memset(h, 0, sizeof(*h));
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	cr_assert_not_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void sha256_hex(const char *s, size_t n, char out[65])
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	cr_assert_eq(EVP_Digest(s, n, md, &mdlen, EVP_sha256(), NULL), 1);
	cr_assert_eq(mdlen, 32);
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* `got` is `original` cut and marked: it ends with the marker (then
 * `tail`), the marker names the whole original, and what is kept is the
 * original's start. */
static void assert_cut(const char *got, const char *original, const char *tail)
{
	const char *m = strstr(got, "...[truncated original_bytes=");
	char hex[65] = "", want[65];
	size_t bytes = 0;
	int end = 0;

	cr_assert_not_null(m, "one byte past the limit is cut: %.200s...", got);
	cr_assert_eq(sscanf(m, "...[truncated original_bytes=%zu sha256=%64[0-9a-f]]%n", &bytes, hex, &end),
		     2, "%s", m);
	cr_assert_gt(end, 0, "%s", m);
	cr_assert_str_eq(m + end, tail, "the marker ends the cut text");
	cr_assert_eq(bytes, strlen(original), "original_bytes counts the whole original");
	sha256_hex(original, strlen(original), want);
	cr_assert_str_eq(hex, want, "sha256 is the digest of the whole original");
	cr_assert_gt((size_t)(m - got), 0);
	cr_assert(strncmp(got, original, (size_t)(m - got)) == 0, "what is kept is the original's start");
}

/* ---- the brief ---- */

/* What a Summarize brief adds after the suggested text when Git changed
 * since the Run started (the paths already dirty then): learned from a
 * short brief, which is not cut. */
static char *git_tail(void)
{
	struct harness h = { 0 };
	const char *brief;
	char *tail;

	start(&h, 0);
	submit(&h, "Oriented.", "summarize", "x", 1);
	brief = field(current(&h), "brief");
	cr_assert_eq(brief[0], 'x', "%s", brief);
	cr_assert_not_null(strstr(brief, "Git changed since the Run started"), "%s", brief);
	tail = strdup(brief + 1);
	finish(&h);
	return tail;
}

/* The brief issued for a suggested Summarize brief `text` after a change. */
static char *brief_for(const char *text)
{
	struct harness h = { 0 };
	char *brief;

	start(&h, 0);
	submit(&h, "Oriented.", "summarize", text, 1);
	brief = strdup(field(current(&h), "brief"));
	finish(&h);
	return brief;
}

Test(io_run_limits, a_brief_of_exactly_8_KiB_is_whole)
{
	char *tail = git_tail(), *text, *original, *brief;

	cr_assert_lt(strlen(tail), RUN_MAX_BRIEF_BYTES);
	text = repeat('b', RUN_MAX_BRIEF_BYTES - strlen(tail));
	cr_assert_not_null(original = sw_asprintf("%s%s", text, tail));
	cr_assert_eq(strlen(original), RUN_MAX_BRIEF_BYTES);
	brief = brief_for(text);
	cr_assert_str_eq(brief, original, "a brief at the limit is kept whole");
	free(brief);
	sw_free(original);
	free(text);
	free(tail);
}

Test(io_run_limits, a_brief_one_byte_past_8_KiB_is_cut_and_names_the_whole_original)
{
	char *tail = git_tail(), *text, *original, *brief;

	text = repeat('b', RUN_MAX_BRIEF_BYTES + 1 - strlen(tail));
	cr_assert_not_null(original = sw_asprintf("%s%s", text, tail));
	cr_assert_eq(strlen(original), RUN_MAX_BRIEF_BYTES + 1);
	brief = brief_for(text);
	cr_assert_eq(strlen(brief), RUN_MAX_BRIEF_BYTES, "the cut brief fills the limit (ASCII)");
	assert_cut(brief, original, "");
	free(brief);
	sw_free(original);
	free(text);
	free(tail);
}

/* ---- a context item ---- */

static const char *const HEADS = "Decisions:\n(none)\nRecent outcome:\n";
static const char *const END = "Earlier outcomes:\n(none)\n";

/* The context of the Action issued after an Orient whose summary is `len`
 * bytes; *item gets the Orient's context item as a whole (malloc'd) and
 * *room the raw context's bound: half the room the Action leaves within
 * 256 KiB without its context (the context may double when escaped). */
static char *context_after(size_t len, char **item, size_t *room)
{
	struct harness h = { 0 };
	char *summary = repeat('s', len), *context, *enc;
	json_t *bare;

	start(&h, 1);
	cr_assert_not_null(*item = sw_asprintf("- orient action %s: %s\n",
					       run_current_action_id(h.run), summary));
	submit(&h, summary, "implement", "Add the flag.", 0);
	context = strdup(field(current(&h), "context"));
	bare = json_copy((json_t *)current(&h));
	json_object_set_new(bare, "context", json_string(""));
	cr_assert_not_null(enc = sw_json_dump(bare));
	*room = (RUN_MAX_ACTION_BYTES - (strlen(enc) + 1)) / 2;
	cr_assert_lt(*room, RUN_MAX_CONTEXT_BYTES);
	sw_free(enc);
	json_decref(bare);
	finish(&h);
	free(summary);
	return context;
}

/* 1 when the context after an Orient summary of `len` bytes is cut. */
static int cut_at(size_t len)
{
	char *item = NULL, *context;
	size_t room;
	int cut;

	context = context_after(len, &item, &room);
	cut = strstr(context, "...[truncated") != NULL;
	free(context);
	sw_free(item);
	return cut;
}

/* The longest Orient summary whose context item is kept whole, found by
 * bisection (it is cut from there on). */
static size_t longest_whole(void)
{
	size_t lo = 1, hi = RUN_MAX_CONTEXT_BYTES;

	cr_assert(!cut_at(lo) && cut_at(hi));
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (cut_at(mid))
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* The three section heads, and the room the section lines may take
 * besides (three "[omitted ...]" lines of at most 48 bytes). */
#define SECTIONS (strlen("Decisions:\nRecent outcome:\nEarlier outcomes:\n") + 3 * 48)

Test(io_run_limits, a_context_item_at_the_limit_is_whole_and_one_byte_more_is_cut)
{
	size_t len = longest_whole(), room;
	char *item = NULL, *context, *want;

	/* At the limit: the item fits with the sections beside it. */
	context = context_after(len, &item, &room);
	cr_assert_eq(SECTIONS + strlen(item), room, "the longest whole item is the one that exactly fits");
	cr_assert_not_null(want = sw_asprintf("%s%s%s", HEADS, item, END));
	cr_assert_str_eq(context, want, "an item at the limit is kept whole");
	cr_assert_leq(strlen(context), room);
	sw_free(want);
	sw_free(item);
	free(context);

	/* One byte past: cut, the marker naming the whole item. */
	context = context_after(len + 1, &item, &room);
	cr_assert_eq(strncmp(context, HEADS, strlen(HEADS)), 0, "%.100s", context);
	cr_assert_leq(strlen(context), room);
	cr_assert_eq(strlen(context) - strlen(HEADS) - strlen(END), room - SECTIONS,
		     "the cut item fills the room it had");
	cr_assert_str_eq(context + strlen(context) - strlen(END), END);
	{
		char *line = strndup(context + strlen(HEADS), strlen(context) - strlen(HEADS) - strlen(END));

		cr_assert_not_null(line);
		assert_cut(line, item, "\n");
		free(line);
	}
	sw_free(item);
	free(context);
}
