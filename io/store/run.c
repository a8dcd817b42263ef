/* The Run record and its journal deltas.  See io/store/run.h. */

#include "io/store/run.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/digest.h"
#include "io/store/journal.h"
#include "io/util/json.h"
#include "io/util/owned.h"
#include "io/git/observe.h"
#include "io/store/run_codec.h"
#include "io/source/source_json.h"

/* Frozen Action records.  Every record but the last is final (only the
 * current Action's record changes, and the current Action is the last
 * one), so on the mutation path the Run keeps those records as the text
 * run.json already holds for them plus what the rules need to know (id,
 * kind, outcome digest, voided/skipped, context item), not as JSON values:
 * loading, copying, diffing and projecting a Run then costs the same at
 * 1,000 Actions as at one.  A frozen set is shared by a Run and its clones
 * and only grows; each Run owns the first `nfz` entries. */
enum { FZ_OUTCOME = 1, FZ_VOIDED = 2, FZ_SKIPPED = 4 };

/* Limits of a frozen record's strings (a longer one stays a JSON value). */
#define FZ_ID_MAX 63
#define FZ_KIND_MAX 15

struct fz_entry {
	/* NUL-terminated, in `own` or in the checkpoint log read back */
	const char *id;
	const char *kind;
	const char *sha;		/* outcome_payload_sha256, "" when none */
	const char *text_sha;		/* checked before the text is parsed */
	unsigned flags;
	const char *item;		/* context item, NULL when none */
	size_t item_len;
	const char *text;		/* run.json form (depth 3), or NULL: */
	size_t text_len;
	unsigned long long text_at;	/* where it is in the source run.json */
	char *own;			/* strings, item and text when not borrowed */
};

struct frozen {
	unsigned refs;
	size_t n, cap;
	struct fz_entry *e;
	char *log;			/* the checkpoint log read back */
	int src_fd;			/* the run.json read back with them */
	/* The first `logged` entries are the checkpoint log read back, which
	 * is `log_bytes` long: a checkpoint only appends the rest. */
	size_t logged, log_bytes;
};

struct run {
	json_t *rec;		/* the record: runStatus fields without `next`;
				 * `actions` holds only the records after the
				 * frozen ones */
	json_t *contexts;	/* contexts issued since run_take_contexts */
	struct frozen *fz;	/* may be NULL */
	size_t nfz;		/* frozen records that precede rec.actions */
	/* The record decoded (io/store/run_record.h), NULL until run_check; once
	 * set, every change made here decodes it again (view_refresh). */
	struct run_view *view;
};

/* The record's fields in the order status prints them. */
static const char *const field_order[] = {
	"contract_version", "id", "goal", "workspace", "workspace_identity",
	"state", "pause_reason", "review_enabled", "review_pending",
	"initial_budget", "remaining_budget", "initial_git", "current_git",
	"final_git_observed", "pinned_source", "source_candidate",
	"last_source_choice", "last_resume_result", "current_action", "actions",
	"pending_actions", "answers", "observations", "known_issues",
	"uncertainties", "activities", "summary", "pending_destructive_request",
	"destructive_grant", "created_at", "updated_at",
};
#define NFIELDS (sizeof(field_order) / sizeof(field_order[0]))

/* Our wording of the observation notes the reference also records. */
#define NOTE_CHANGED "observed_since_start: Git now differs from the snapshot taken when the Run started."
#define NOTE_ATTRIBUTION "attribution_uncertainty: the difference may include edits by people, other Runs or tools, not only this Run's Actions."
#define NOTE_INCOMPLETE "git_content_observation_incomplete: not every dirty regular file could be fingerprinted within the observation limits; Review stays advisory and skippable."

/* ---- small helpers ---- */

static int oom(struct sw_error *err)
{
	return sw_error_set(err, SW_ENOMEM, "out of memory building the Run record");
}

int run_decode(struct run *r, struct sw_error *err)
{
	struct run_view *v = NULL;
	int rc = run_view_decode(&v, r->rec, err);

	if (rc < 0)
		return rc;
	run_view_free(r->view);
	r->view = v;
	return 0;
}

/* Keeps a decoded record in step after a change. */
static int view_refresh(struct run *r, struct sw_error *err)
{
	return r->view ? run_decode(r, err) : 0;
}

const struct run_record *run_record(const struct run *r)
{
	assert(r->view != NULL && "run_record before run_check");
	return run_view_record(r->view);
}

static json_t *arr(json_t *rec, const char *key)
{
	json_t *a = json_object_get(rec, key);

	if (a == NULL) {
		a = json_array();
		if (a == NULL || json_object_set_new(rec, key, a) < 0)
			return NULL;
	}
	return a;
}

static int append_str(json_t *rec, const char *key, const char *s)
{
	json_t *a = arr(rec, key);

	return a ? json_array_append_new(a, json_string(s)) : -1;
}

static int has_string(const json_t *a, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

static int append_unique(json_t *rec, const char *key, const char *s)
{
	json_t *a = arr(rec, key);

	if (a == NULL)
		return -1;
	return has_string(a, s) ? 0 : json_array_append_new(a, json_string(s));
}

static int extend(json_t *rec, const char *key, const json_t *items)
{
	json_t *a, *v;
	size_t i;

	if (!json_is_array(items) || json_array_size(items) == 0)
		return 0;
	if ((a = arr(rec, key)) == NULL)
		return -1;
	json_array_foreach(items, i, v)
		if (json_array_append(a, v) < 0)
			return -1;
	return 0;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static json_t *record_for(const json_t *rec, const char *action_id)
{
	json_t *actions = json_object_get(rec, "actions"), *r;
	size_t i;

	if (action_id == NULL)
		return NULL;
	json_array_foreach(actions, i, r) {
		const char *id = str(json_object_get(r, "action"), "action_id");

		if (id && strcmp(id, action_id) == 0)
			return r;
	}
	return NULL;
}

/* Trims Unicode-ish white space at both ends (ASCII and the common
 * multi-byte spaces suffice for briefs, which are already validated). */
static void trim_span(const char *s, size_t *start, size_t *len)
{
	size_t b = 0, e = strlen(s);

	while (b < e && strchr(" \t\r\n\v\f", s[b]))
		b++;
	while (e > b && strchr(" \t\r\n\v\f", s[e - 1]))
		e--;
	*start = b;
	*len = e - b;
}

/* Cuts `s` to `limit` bytes at a UTF-8 boundary, ending with a marker that
 * names the original size and digest.  Returns a sw_malloc'd string. */
static char *truncate_marked(const char *s, size_t limit)
{
	size_t n = strlen(s), keep;
	char hex[SW_HEX_LEN], marker[160];
	int m;

	if (n <= limit)
		return sw_strdup(s);
	sw_sha256_hex(s, n, hex);
	m = snprintf(marker, sizeof(marker),
		     "...[truncated original_bytes=%zu sha256=%s]", n, hex);
	if ((size_t)m >= limit)
		return sw_strndup(marker, limit);
	keep = limit - (size_t)m;
	while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	char *out = sw_malloc(keep + (size_t)m + 1);

	if (out == NULL)
		return NULL;
	memcpy(out, s, keep);
	memcpy(out + keep, marker, (size_t)m + 1);
	return out;
}

/* Appends `s` with CR/CRLF turned into LF and every new line indented. */
static void buf_indented(struct sw_buf *b, const char *s, const char *indent,
			 int indent_first)
{
	if (indent_first)
		sw_buf_str(b, indent);
	for (const char *p = s; *p; p++) {
		if (*p == '\r' && p[1] == '\n')
			continue;
		if (*p == '\r' || *p == '\n') {
			sw_buf_str(b, "\n");
			sw_buf_str(b, indent);
			continue;
		}
		sw_buf_add(b, p, 1);
	}
}

/* Appends one pre-existing dirty path as "<path> [<category> <state>;
 * <observation>[; size=N][; content_sha256=D]]". */
static void buf_dirty_path(struct sw_buf *b, const json_t *p)
{
	sw_buf_fmt(b, "%s [%s %s; %s", str(p, "path"), str(p, "category"),
		   str(p, "state"), str(p, "observation"));
	if (json_object_get(p, "size"))
		sw_buf_fmt(b, "; size=%lld", (long long)json_integer_value(json_object_get(p, "size")));
	if (str(p, "content_sha256") && str(p, "content_sha256")[0])
		sw_buf_fmt(b, "; content_sha256=%s", str(p, "content_sha256"));
	sw_buf_str(b, "]");
}

/* ---- context ---- */

struct ctx_item {
	const char *text;	/* owned (`own`) or a frozen record's */
	size_t len;
	char *own;
	int section;		/* 0 decisions, 1 recent, 2 earlier */
	const char *selected;	/* NULL: omitted */
	size_t selected_len;
};

static size_t render_context(struct sw_buf *out, struct ctx_item *items, size_t n)
{
	static const char *const heads[] = { "Decisions:\n", "Recent outcome:\n",
					     "Earlier outcomes:\n" };
	static const char *const omitted[] = { "decisions", "recent outcomes",
					       "earlier outcomes" };

	out->len = 0;
	if (out->p)
		out->p[0] = '\0';
	for (int s = 0; s < 3; s++) {
		size_t total = 0, shown = 0;

		sw_buf_str(out, heads[s]);
		for (size_t i = 0; i < n; i++) {
			if (items[i].section != s)
				continue;
			total++;
			if (items[i].selected) {
				sw_buf_add(out, items[i].selected, items[i].selected_len);
				shown++;
			}
		}
		if (total == 0)
			sw_buf_str(out, "(none)\n");
		else if (shown < total)
			sw_buf_fmt(out, "[omitted %s: %zu]\n", omitted[s], total - shown);
	}
	return out->len;
}

/* The context item of one Action record ("- kind action id: summary" and
 * its known issues), or *item NULL when the record has none (no outcome,
 * or voided).  -1 when out of memory. */
static int action_item(char **item, const json_t *v)
{
	json_t *o = json_object_get(v, "outcome"), *issue;
	struct sw_buf b = { 0 };
	size_t k;

	*item = NULL;
	if (o == NULL || json_is_true(json_object_get(v, "voided")))
		return 0;
	sw_buf_fmt(&b, "- %s action %s: ", str(json_object_get(v, "action"), "kind"),
		   str(json_object_get(v, "action"), "action_id"));
	buf_indented(&b, str(o, "summary"), "  ", 0);
	sw_buf_str(&b, "\n");
	if (json_array_size(json_object_get(o, "known_issues")) > 0) {
		sw_buf_str(&b, "  Known issues:\n");
		json_array_foreach(json_object_get(o, "known_issues"), k, issue) {
			sw_buf_str(&b, "  - ");
			buf_indented(&b, json_string_value(issue), "    ", 0);
			sw_buf_str(&b, "\n");
		}
	}
	if (b.failed) {
		sw_free(b.p);
		return -1;
	}
	*item = b.p;
	return 0;
}

/* Builds the context text: active decisions, then the latest outcome, then
 * earlier ones, filled newest first within `limit` bytes. */
static char *build_context(const struct run *r, size_t limit)
{
	const json_t *rec = r->rec;
	struct ctx_item *items = NULL;
	struct sw_buf out = { 0 };
	json_t *answers = json_object_get(rec, "answers");
	json_t *actions = json_object_get(rec, "actions"), *v;
	size_t n = 0, cap, i, last_outcome = (size_t)-1;
	size_t *order = NULL, norder = 0;
	char *result = NULL;

	cap = json_array_size(answers) + r->nfz + json_array_size(actions) + 1;
	items = sw_calloc(cap, sizeof(*items));
	order = sw_calloc(cap, sizeof(*order));
	if (items == NULL || order == NULL)
		goto out;
	json_array_foreach(answers, i, v) {
		struct sw_buf b = { 0 };

		const char *pinned_rev = str(json_object_get(rec, "pinned_source"),
					     "requirements_revision");
		const char *answer_rev = str(v, "requirements_revision");

		if (!json_is_true(json_object_get(v, "active")) ||
		    json_is_true(json_object_get(v, "confirm_destructive")) ||
		    str(v, "text") == NULL || str(v, "text")[0] == '\0')
			continue;
		/* A decision speaks only for the requirements it was given under. */
		if ((pinned_rev == NULL) != (answer_rev == NULL) ||
		    (pinned_rev && strcmp(pinned_rev, answer_rev) != 0))
			continue;
		sw_buf_fmt(&b, "- action %s decision:\n", str(v, "action_id"));
		buf_indented(&b, str(v, "text"), "  ", 1);
		sw_buf_str(&b, "\n");
		if (b.failed)
			goto out;
		items[n].text = items[n].own = b.p;
		items[n].len = b.len;
		items[n++].section = 0;
	}
	for (i = 0; i < r->nfz; i++) {
		const struct fz_entry *e = &r->fz->e[i];

		if (e->item == NULL)
			continue;
		items[n].text = e->item;
		items[n].len = e->item_len;
		items[n].section = 2;
		last_outcome = n++;
	}
	json_array_foreach(actions, i, v) {
		char *item;

		if (action_item(&item, v) < 0)
			goto out;
		if (item == NULL)
			continue;
		items[n].text = items[n].own = item;
		items[n].len = strlen(item);
		items[n].section = 2;
		last_outcome = n++;
	}
	if (last_outcome != (size_t)-1)
		items[last_outcome].section = 1;
	/* Fill priority: decisions newest first, the recent outcome, then
	 * earlier outcomes newest first.  Sizes are added up rather than
	 * rendered per candidate, keeping this linear; `reserve` covers the
	 * "(none)" and "[omitted ...]" lines the final rendering may add. */
	for (size_t k = n; k-- > 0;)
		if (items[k].section == 0)
			order[norder++] = k;
	if (last_outcome != (size_t)-1)
		order[norder++] = last_outcome;
	for (size_t k = n; k-- > 0;)
		if (items[k].section == 2)
			order[norder++] = k;
	{
		static const size_t reserve = 3 * 48;
		size_t used = strlen("Decisions:\nRecent outcome:\nEarlier outcomes:\n");

		for (size_t k = 0; k < norder; k++) {
			struct ctx_item *it = &items[order[k]];
			char *cut, *whole, *line;

			if (used + it->len + reserve <= limit) {
				it->selected = it->text;
				it->selected_len = it->len;
				used += it->len;
				continue;
			}
			/* The first item that does not fit is cut with a marker;
			 * the rest are omitted. */
			if (used + reserve + 2 >= limit)
				break;
			whole = sw_strndup(it->text, it->len);
			cut = whole ? truncate_marked(whole, limit - used - reserve - 1) : NULL;
			if (cut != NULL && (line = sw_asprintf("%s\n", cut)) != NULL) {
				sw_free(it->own);
				it->own = line;
				it->text = it->selected = line;
				it->len = it->selected_len = strlen(line);
			}
			sw_free(cut);
			sw_free(whole);
			break;
		}
	}
	render_context(&out, items, n);
	if (!out.failed)
		result = out.p, out.p = NULL;
out:
	for (size_t k = 0; items && k < n; k++)
		sw_free(items[k].own);
	sw_free(items);
	sw_free(order);
	sw_free(out.p);
	return result;
}

/* ---- briefs and summaries ---- */

static char *compose_brief(const json_t *rec, enum fsm_kind kind,
			   enum fsm_brief which, const char *suggested,
			   int changed, const struct sw_owned *installed)
{
	const char *base = NULL;
	struct sw_buf b = { 0 };
	size_t start, len;
	char *out;

	if (which == FSM_BRIEF_SUGGESTED && suggested != NULL)
		base = suggested;
	else if (which != FSM_BRIEF_DEFAULT && which != FSM_BRIEF_SUGGESTED &&
		 which != FSM_BRIEF_NONE)
		base = tbl_brief_text[which];
	if (base == NULL)
		base = "";
	trim_span(base, &start, &len);
	if (len == 0) {
		base = tbl_kind_default_brief[kind];
		trim_span(base, &start, &len);
	}
	sw_buf_add(&b, base + start, len);
	if ((kind == FSM_KIND_REVIEW || kind == FSM_KIND_SUMMARIZE) && changed) {
		const json_t *g = json_object_get(rec, "initial_git"), *p;
		json_t *paths = json_object_get(g, "path_observations");
		size_t i;

		sw_buf_str(&b, " Git changed since the Run started, and not all of the change "
			    "need be this Run's: people, other Runs or tools may have edited the "
			    "worktree too.");
		sw_buf_fmt(&b, " Paths already dirty when the Run started (count=%lld; "
			    "listed=%zu; path_fingerprint=%s; snapshot=%s):",
			(long long)json_integer_value(json_object_get(g, "path_count")),
			json_array_size(paths), str(g, "path_fingerprint") ? str(g, "path_fingerprint") : "",
			str(g, "snapshot_hash") ? str(g, "snapshot_hash") : "");
		if (json_integer_value(json_object_get(g, "path_count")) == 0)
			sw_buf_str(&b, " none.");
		json_array_foreach(paths, i, p) {
			if (sw_owned_by(installed, str(p, "path"), str(p, "content_sha256")))
				continue;
			sw_buf_str(&b, " ");
			buf_dirty_path(&b, p);
			sw_buf_str(&b, ";");
		}
		/* slipway's own files: one count per host (they stay in the
		 * fingerprints above). */
		for (size_t h = 0; installed && h < installed->n; h++) {
			size_t n = 0;

			json_array_foreach(paths, i, p)
				n += sw_owned_by(installed, str(p, "path"), str(p, "content_sha256")) ==
				     installed->groups[h].owner;
			if (n > 0)
				sw_buf_fmt(&b, " %zu file%s installed by slipway for %s;", n, n == 1 ? "" : "s",
					   installed->groups[h].owner);
		}
		if (json_is_true(json_object_get(g, "details_truncated")))
			sw_buf_str(&b, " further paths are left out of this bounded list;");
	}
	if (b.failed) {
		sw_free(b.p);
		return NULL;
	}
	out = truncate_marked(b.p, RUN_MAX_BRIEF_BYTES);
	sw_free(b.p);
	return out;
}

/* Reads `len` bytes at `at` of fd into a new buffer (NULL on failure). */
static char *read_at(int fd, unsigned long long at, size_t len)
{
	char *buf = sw_malloc(len + 1);

	if (buf != NULL && sw_pread_full(fd, buf, len, at) != len) {
		sw_free(buf);
		return NULL;
	}
	return buf;
}

/* One frozen record parsed back (new reference), or NULL when its text
 * cannot be read, no longer has the digest it was frozen with or does not
 * parse. */
static json_t *fz_parse(const struct frozen *fz, const struct fz_entry *e)
{
	char hex[SW_HEX_LEN], *own = NULL;
	const char *text = e->text ? e->text : (own = read_at(fz->src_fd, e->text_at, e->text_len));
	json_t *v = NULL;

	if (text != NULL) {
		sw_sha256_hex(text, e->text_len, hex);
		if (strcmp(hex, e->text_sha) == 0)
			v = json_loadb(text, e->text_len, JSON_REJECT_DUPLICATES, NULL);
	}
	sw_free(own);
	return v;
}

static unsigned record_flags(const json_t *v)
{
	return (json_object_get(v, "outcome") ? FZ_OUTCOME : 0) |
	       (json_is_true(json_object_get(v, "voided")) ? FZ_VOIDED : 0) |
	       (json_is_true(json_object_get(v, "skipped")) ? FZ_SKIPPED : 0);
}

/* Every Action record in Run order, frozen ones parsed back (a new array;
 * a frozen record that cannot be read back is left out). */
static json_t *all_records(const struct run *r)
{
	json_t *all = json_array(), *v;
	size_t i;

	for (i = 0; all && i < r->nfz; i++)
		if ((v = fz_parse(r->fz, &r->fz->e[i])) != NULL)
			json_array_append_new(all, v);
	json_array_foreach(json_object_get(r->rec, "actions"), i, v)
		if (all)
			json_array_append(all, v);
	return all;
}

/* The final summary, written by the driver's summary writer (fx->summarize,
 * the person's report): the typed record with every Action record, frozen
 * ones parsed back, and the two Git observations.  NULL on ENOMEM. */
static char *final_summary(const struct run *r, const struct run_effects *fx)
{
	struct vcs_observation start = VCS_OBSERVATION_INIT, now = VCS_OBSERVATION_INIT;
	struct sw_error err = SW_ERROR_INIT;
	json_t *whole = json_copy(r->rec), *records = all_records(r);
	struct run_view *view = NULL;
	char *out = NULL;
	int have_start, have_now;

	assert(fx->summarize != NULL && "an ended Run needs its summary writer");
	if (whole == NULL || records == NULL || json_object_set(whole, "actions", records) < 0 ||
	    run_view_decode(&view, whole, &err) < 0)
		goto out;
	have_start = run_git_observation(&start, r, RUN_GIT_INITIAL, &err) == 0;
	have_now = run_git_observation(&now, r, RUN_GIT_CURRENT, &err) == 0;
	out = fx->summarize(run_view_record(view), have_start ? &start : NULL,
			    have_now ? &now : NULL, fx->installed);
out:
	vcs_observation_release(&start);
	vcs_observation_release(&now);
	run_view_free(view);
	json_decref(records);
	json_decref(whole);
	return out;
}

/* ---- the record ---- */

static json_t *ordered_copy(const json_t *rec)
{
	json_t *out = json_object();

	for (size_t i = 0; out && i < NFIELDS; i++) {
		json_t *v = json_object_get(rec, field_order[i]);

		if (v && json_object_set(out, field_order[i], v) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static enum fsm_state state_of(const json_t *rec)
{
	enum fsm_runstate rs = tbl_runstate_lookup(str(rec, "state"));
	enum fsm_pause p = tbl_pause_lookup(str(rec, "pause_reason"));

	for (int s = FSM_ST_NEW + 1; s < FSM_ST__COUNT; s++)
		if (tbl_state_runstate[s] == rs && tbl_state_pause[s] == p)
			return (enum fsm_state)s;
	return FSM_ST_INVALID;
}

struct fsm_run run_machine(const struct run *r)
{
	const json_t *rec = r->rec;
	json_t *cur = json_object_get(rec, "current_action");
	json_t *cand = json_object_get(rec, "source_candidate");
	struct fsm_run m = { 0 };

	m.state = state_of(rec);
	m.action = cur ? tbl_kind_lookup(str(cur, "kind")) : FSM_KIND_NONE;
	m.review_enabled = json_is_true(json_object_get(rec, "review_enabled"));
	m.review_pending = json_is_true(json_object_get(rec, "review_pending"));
	m.grant = json_object_get(rec, "destructive_grant") != NULL;
	m.request = json_object_get(rec, "pending_destructive_request") != NULL;
	m.queued = json_array_size(json_object_get(rec, "pending_actions")) > 0;
	m.issue_backed = json_object_get(rec, "pinned_source") != NULL;
	m.candidate = cand != NULL;
	m.candidate_valid = cand && json_is_true(json_object_get(cand, "valid"));
	m.initial_budget = (unsigned)json_integer_value(json_object_get(rec, "initial_budget"));
	m.remaining = (unsigned)json_integer_value(json_object_get(rec, "remaining_budget"));
	return m;
}

/* The `source` and `requirements` objects of an Action issued by an
 * issue-backed Run (MAP 2.1): the catalog in manifest order, every key
 * required, and the material reader's argv bound to this Action. */
static int add_source_fields(json_t *action, const json_t *rec, const char *action_id)
{
	const json_t *pinned = json_object_get(rec, "pinned_source"), *sec;
	json_t *source = NULL, *sections = json_array(), *keys = json_array();
	json_t *choices = NULL, *requirements = NULL;
	size_t i;
	int rc = -1;

	if (sections == NULL || keys == NULL)
		goto out;
	json_array_foreach(json_object_get(pinned, "sections"), i, sec) {
		if (json_array_append_new(sections,
			json_pack("{s:O, s:O, s:O, s:O, s:O, s:O}", "key", json_object_get(sec, "key"),
				  "role", json_object_get(sec, "role"), "title", json_object_get(sec, "title"),
				  "section_revision", json_object_get(sec, "section_revision"),
				  "material_sha256", json_object_get(sec, "material_sha256"),
				  "bytes", json_object_get(sec, "bytes"))) < 0 ||
		    json_array_append(keys, json_object_get(sec, "key")) < 0)
			goto out;
	}
	source = json_pack("{s:s, s:O, s:O, s:O, s:O, s:O}", "kind", "change_issue",
			   "canonical_url", json_object_get(pinned, "canonical_url"),
			   "issue_id", json_object_get(pinned, "issue_id"),
			   "source_revision", json_object_get(pinned, "source_revision"),
			   "manifest_revision", json_object_get(pinned, "manifest_revision"),
			   "requirements_revision", json_object_get(pinned, "requirements_revision"));
	if ((choices = json_deep_copy(keys)) == NULL)
		goto out;
	requirements = json_pack("{s:O, s:O, s:O, s:{s:s, s:[s, s, s, s, s, s, s, s, s], s:{s:s, s:s, s:s, s:b, s:O}}}",
		"requirements_revision", json_object_get(pinned, "requirements_revision"),
		"sections", sections, "required_for_action", keys,
		"reader", "operation", "read_material",
		"base_argv", "slipway", "protocol", "material", "--root", str(rec, "workspace"),
		"--run", str(rec, "id"), "--action", action_id,
		"input", "name", "section", "type", "enum", "flag", "--section",
		"required", 1, "choices", choices);
	if (source == NULL || requirements == NULL ||
	    json_object_set(action, "source", source) < 0 ||
	    json_object_set(action, "requirements", requirements) < 0)
		goto out;
	rc = 0;
out:
	json_decref(source);
	json_decref(sections);
	json_decref(keys);
	json_decref(choices);
	json_decref(requirements);
	return rc;
}

/* The Action to issue: its JSON, with context built within the limits. */
static int issue_action(struct run *r, enum fsm_kind kind,
			enum fsm_brief which, const char *suggested,
			const struct run_effects *fx, json_t *authorization,
			struct sw_error *err)
{
	json_t *rec = r->rec, *contexts = r->contexts;
	json_t *action = NULL, *record = NULL, *stored = NULL;
	char digest[SW_DIGEST_LEN];
	char *brief = NULL, *context = NULL, *enc = NULL;
	size_t without, limit;
	int rc = 0;

	if (fx->new_action_id == NULL)
		return sw_error_set(err, SW_EINVAL, "no id for the new Action");
	if ((brief = compose_brief(rec, kind, which, suggested, fx->changed, fx->installed)) == NULL)
		return oom(err);
	action = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s}", "contract_version", 2,
			   "run_id", str(rec, "id"), "action_id", fx->new_action_id,
			   "kind", tbl_kind_wire[kind], "goal", str(rec, "goal"),
			   "brief", brief, "context", "");
	if (action == NULL) {
		rc = oom(err);
		goto out;
	}
	/* The source fields go in before the size is measured: the context
	 * gets only the room they leave. */
	if (json_object_get(rec, "pinned_source") &&
	    add_source_fields(action, rec, fx->new_action_id) < 0) {
		rc = oom(err);
		goto out;
	}
	if (authorization && json_object_set(action, "destructive_authorization", authorization) < 0) {
		rc = oom(err);
		goto out;
	}
	if (json_object_set_new(action, "remaining_budget",
				json_integer(json_integer_value(json_object_get(rec, "remaining_budget")))) < 0 ||
	    (enc = sw_json_dump(action)) == NULL) {
		rc = oom(err);
		goto out;
	}
	/* The encoded Action, newline included, stays within 256 KiB. */
	without = strlen(enc) + 1;
	if (without >= RUN_MAX_ACTION_BYTES) {
		rc = sw_error_proto(err, TBL_ERR_ACTION_TOO_LARGE, "the next Action exceeds %u bytes",
				    RUN_MAX_ACTION_BYTES);
		goto out;
	}
	limit = RUN_MAX_ACTION_BYTES - without;
	/* JSON escaping can double a byte at most for common text; keep the
	 * raw context within half the room when the room is the bound. */
	if (limit / 2 < RUN_MAX_CONTEXT_BYTES)
		limit = limit / 2;
	else
		limit = RUN_MAX_CONTEXT_BYTES;
	if ((context = build_context(r, limit)) == NULL) {
		rc = oom(err);
		goto out;
	}
	/* The record keeps the context by digest; its text is stored once as
	 * a material (run_take_contexts), so neither the journal nor the
	 * record grows with the contexts of a long Run.  Output puts the
	 * text back (run_status_json, run_current_action_full).  The text is
	 * valid UTF-8 by construction (JSON strings, ASCII, cuts made at
	 * character boundaries), so it is not scanned again. */
	sw_material_digest(digest, context, strlen(context), NULL);
	if ((stored = json_copy(action)) == NULL ||
	    json_object_del(stored, "context") < 0 ||
	    json_object_set_new(stored, "context_sha256", json_string(digest)) < 0 ||
	    json_array_append_new(contexts, json_pack("[s,o]", digest,
						      json_stringn_nocheck(context, strlen(context)))) < 0) {
		rc = oom(err);
		goto out;
	}
	record = json_pack("{s:O}", "action", stored);
	if (record == NULL || json_array_append_new(arr(rec, "actions"), record) < 0 ||
	    json_object_set(rec, "current_action", stored) < 0) {
		rc = oom(err);
		goto out;
	}
out:
	json_decref(stored);
	sw_free(enc);
	sw_free(brief);
	sw_free(context);
	json_decref(action);
	return rc;
}

static int record_observation(json_t *rec, const struct run_effects *fx,
			      const json_t *obs, int changed, int complete)
{
	if (json_object_set(rec, "current_git", (json_t *)obs) < 0)
		return -1;
	if (!complete && append_unique(rec, "uncertainties", NOTE_INCOMPLETE) < 0)
		return -1;
	if (changed && (append_unique(rec, "observations", NOTE_CHANGED) < 0 ||
			append_unique(rec, "uncertainties", NOTE_ATTRIBUTION) < 0))
		return -1;
	(void)fx;
	return 0;
}

static int drop_queue(json_t *rec, const char *why)
{
	json_t *pending = json_object_get(rec, "pending_actions"), *p;
	size_t i;

	json_array_foreach(pending, i, p) {
		char *note = sw_asprintf("unresolved_suggestion: a queued %s suggestion was "
					 "never issued because %s: %s",
					 str(p, "kind"), why, str(p, "brief"));

		if (note == NULL || append_unique(rec, "uncertainties", note) < 0) {
			sw_free(note);
			return -1;
		}
		sw_free(note);
	}
	json_object_del(rec, "pending_actions");
	return 0;
}

static const char *drop_reason(const struct fsm_step *st)
{
	if (st->ops & FSM_OP(SKIP))
		return "the current Action was skipped";
	if (st->ops & FSM_OP(ANSWER_INACTIVE))
		return "the destructive confirmation issued the authorized Implement";
	return "an observed change sent the Run to Review first";
}

static int implementation_discrepancy(json_t *rec, const json_t *outcome, int changed)
{
	const char *result = str(json_object_get(outcome, "implementation"), "result");
	char *note = NULL;
	int rc = 0;

	if (result == NULL)
		return 0;
	if (!changed && (strcmp(result, "applied") == 0 || strcmp(result, "partial") == 0))
		note = sw_asprintf("report_discrepancy: Implement reported %s, but Git shows "
				   "no difference from the Run start.", result);
	else if (changed && (strcmp(result, "not_needed") == 0 || strcmp(result, "unable") == 0))
		note = sw_asprintf("report_discrepancy: Implement reported %s, but Git differs "
				   "from the Run start.", result);
	else
		return 0;
	rc = note ? append_unique(rec, "observations", note) : -1;
	sw_free(note);
	return rc;
}

static int end_run(struct run *r, const struct run_effects *fx, int skipped)
{
	json_t *rec = r->rec;
	char *summary = NULL;
	int rc;

	if (fx->final_observation != NULL) {
		if (json_object_set_new(rec, "final_git_observed", json_true()) < 0 ||
		    record_observation(rec, fx, fx->final_observation, fx->final_changed, 1) < 0)
			return -1;
	} else {
		char *note = sw_asprintf("The final Git observation could not be made: %s",
					 fx->final_error ? fx->final_error : "unknown error");

		rc = note ? append_unique(rec, "uncertainties", note) : -1;
		sw_free(note);
		if (rc < 0 || json_object_set_new(rec, "final_git_observed", json_false()) < 0)
			return -1;
	}
	(void)skipped;
	summary = final_summary(r, fx);
	if (summary == NULL)
		return -1;
	rc = json_object_set_new(rec, "summary", json_string(summary));
	sw_free(summary);
	return rc;
}

/* ---- effects: one handler per effect bit (tables/effects.def) ----------- */

/* What the handlers of one applied step share. */
struct apply {
	struct run *r;
	json_t *rec;
	json_t *cur;			/* the Action current before the step */
	json_t *record;			/* its record in `actions`, or NULL */
	json_t *grant;			/* GRANT: the grant the issued Action carries */
	json_t *popped;			/* POP: the suggestion issued */
	const char *suggested;		/* POP: its brief */
	const struct fsm_step *st;
	const struct run_effects *fx;
};

/* Every effect has a handler: a bit without one does not compile (the
 * table below names effect_<id> for every line of effects.def, and a static
 * function used but never defined is an error).  A handler returns 0 or -1
 * (out of memory). */
#define EFFECT(id, name, phase, doc) static int effect_##id(struct apply *a);
#include "tables/effects.def"
#undef EFFECT

typedef int effect_fn(struct apply *a);

/* clang-format off */
static effect_fn *const effect_handler[FSM_EFFECT__COUNT] = {
#define EFFECT(id, name, phase, doc) [FSM_EFFECT_##id] = effect_##id,
#include "tables/effects.def"
#undef EFFECT
};

/* BEFORE: applied before the machine's state, budget and Action are
 * written; AFTER: once they are (the final summary reads them). */
enum effect_phase { BEFORE, AFTER };

static const enum effect_phase effect_phase[FSM_EFFECT__COUNT] = {
#define EFFECT(id, name, phase, doc) [FSM_EFFECT_##id] = phase,
#include "tables/effects.def"
#undef EFFECT
};
/* clang-format on */

static int effect_RECORD_OUTCOME(struct apply *a)
{
	const json_t *outcome = a->fx->outcome;
	json_t *impl, *review;

	if (a->record == NULL || outcome == NULL)
		return 0;
	impl = json_object_get(outcome, "implementation");
	review = json_object_get(outcome, "review");
	if (json_object_set(a->record, "outcome", (json_t *)outcome) < 0 ||
	    json_object_set_new(a->record, "outcome_payload_sha256",
				json_string(a->fx->outcome_sha256)) < 0 ||
	    extend(a->rec, "observations", json_object_get(outcome, "observations")) < 0 ||
	    extend(a->rec, "known_issues", json_object_get(outcome, "known_issues")) < 0 ||
	    extend(a->rec, "uncertainties", json_object_get(impl, "uncertainties")) < 0 ||
	    extend(a->rec, "activities", json_object_get(impl, "activities")) < 0 ||
	    extend(a->rec, "uncertainties", json_object_get(review, "uncertainties")) < 0)
		return -1;
	return 0;
}

static int effect_OBSERVE(struct apply *a)
{
	const struct run_effects *fx = a->fx;

	if (fx->observation == NULL)
		return 0;
	if (record_observation(a->rec, fx, fx->observation, fx->changed,
			       fx->observation_complete) < 0)
		return -1;
	if ((a->st->ops & FSM_OP(RECORD_OUTCOME)) && fx->outcome &&
	    implementation_discrepancy(a->rec, fx->outcome, fx->changed) < 0)
		return -1;
	return 0;
}

static int effect_GIT_FAILED(struct apply *a)
{
	char *note = sw_asprintf("Git observation failed: %s",
				 a->fx->git_error ? a->fx->git_error : "unknown error");
	int rc = note ? append_str(a->rec, "known_issues", note) : -1;

	sw_free(note);
	return rc;
}

/* The current Action stays current: the projection keeps it. */
static int effect_KEEP_ACTION(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_VOID(struct apply *a)
{
	return a->record ? json_object_set_new(a->record, "voided", json_true()) : 0;
}

static int effect_QUEUE(struct apply *a)
{
	if (a->fx->outcome == NULL)
		return 0;
	return extend(a->rec, "pending_actions",
		      json_object_get(a->fx->outcome, "suggested_actions"));
}

static int effect_POP(struct apply *a)
{
	json_t *pending = json_object_get(a->rec, "pending_actions");

	a->popped = json_incref(json_array_get(pending, 0));
	a->suggested = str(a->popped, "brief");
	json_array_remove(pending, 0);
	if (json_array_size(pending) == 0)
		json_object_del(a->rec, "pending_actions");
	return 0;
}

static int effect_DROP_QUEUE(struct apply *a)
{
	return drop_queue(a->rec, drop_reason(a->st));
}

static int effect_CLEAR_QUEUE(struct apply *a)
{
	json_object_del(a->rec, "pending_actions");
	return 0;
}

static int effect_RECORD_REQUEST(struct apply *a)
{
	const json_t *req = json_object_get(json_object_get(a->fx->outcome, "pause"),
					    "destructive_request");

	if (a->fx->outcome == NULL || req == NULL)
		return 0;
	return json_object_set(a->rec, "pending_destructive_request", (json_t *)req);
}

static int effect_GRANT(struct apply *a)
{
	const json_t *req = json_object_get(a->rec, "pending_destructive_request");

	a->grant = json_pack("{s:O, s:s, s:i, s:O, s:O, s:O, s:s}",
			     "request_id", json_object_get(req, "request_id"),
			     "originating_action_id", str(a->cur, "action_id"),
			     "scope_version", 1,
			     "scope_sha256", json_object_get(req, "scope_sha256"),
			     "targets", json_object_get(req, "targets"),
			     "impact", json_object_get(req, "impact"),
			     "confirmed_at", a->fx->now);
	return a->grant ? 0 : -1;
}

static int effect_SUPERSEDE(struct apply *a)
{
	const char *old;
	json_t *ans;
	size_t i;

	if (a->record == NULL)
		return 0;
	old = str(json_object_get(json_object_get(a->record, "outcome"), "pause"),
		  "supersedes_answer_action_id");
	json_array_foreach(json_object_get(a->rec, "answers"), i, ans)
		if (old && strcmp(str(ans, "action_id"), old) == 0 &&
		    (json_object_set_new(ans, "active", json_false()) < 0 ||
		     json_object_set_new(ans, "superseded_by",
					 json_string(str(a->cur, "action_id"))) < 0))
			return -1;
	return 0;
}

/* The answer or confirmation receipt; `active` says whether it counts as
 * an answer to later Actions. */
static int record_answer(struct apply *a, int active)
{
	const struct run_effects *fx = a->fx;
	const json_t *pinned = json_object_get(a->rec, "pinned_source");
	json_t *ans = json_pack("{s:s, s:s, s:b}", "action_id", str(a->cur, "action_id"),
				"text", fx->answer_text ? fx->answer_text : "",
				"confirm_destructive", fx->confirm);

	if (ans == NULL ||
	    (fx->scope_sha256 && fx->scope_sha256[0] &&
	     json_object_set_new(ans, "scope_sha256", json_string(fx->scope_sha256)) < 0) ||
	    json_object_set_new(ans, "payload_sha256", json_string(fx->answer_sha256)) < 0 ||
	    (pinned &&
	     (json_object_set(ans, "source_revision", json_object_get(pinned, "source_revision")) < 0 ||
	      json_object_set(ans, "requirements_revision",
			      json_object_get(pinned, "requirements_revision")) < 0)) ||
	    json_object_set_new(ans, "active", json_boolean(active)) < 0 ||
	    json_object_set_new(ans, "at", json_string(fx->now)) < 0 ||
	    json_array_append_new(arr(a->rec, "answers"), ans) < 0)
		return -1;
	return 0;
}

static int effect_ANSWER_ACTIVE(struct apply *a)
{
	return record_answer(a, 1);
}

static int effect_ANSWER_INACTIVE(struct apply *a)
{
	return record_answer(a, 0);
}

static int effect_SKIP(struct apply *a)
{
	return a->record ? json_object_set_new(a->record, "skipped", json_true()) : 0;
}

static int effect_REVIEW_NOT_RUN(struct apply *a)
{
	if (a->record == NULL)
		return 0;
	return json_object_set_new(a->record, "review_projection",
				   json_pack("{s:s, s:[], s:[]}", "result", "not_run",
					     "findings", "uncertainties"));
}

/* review_pending, the budget and a new Run's fields are the machine's
 * verdict (struct fsm_run), written by the projection for every step. */
static int effect_CLEAR_REVIEW(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_RESUME_BUDGET(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_CREATE(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_END(struct apply *a)
{
	return end_run(a->r, a->fx, 0);
}

static int effect_END_SKIPPED(struct apply *a)
{
	return end_run(a->r, a->fx, 1);
}

/* A refreshed source that differs from the pinned one waits for a choice;
 * the choice resolves it. */
static int effect_CANDIDATE_INVALID(struct apply *a)
{
	json_t *copy;

	if (a->fx->candidate == NULL)
		return 0;
	copy = json_deep_copy(a->fx->candidate);
	return copy ? json_object_set_new(a->rec, "source_candidate", copy) : -1;
}

static int effect_CANDIDATE_VALID(struct apply *a)
{
	return effect_CANDIDATE_INVALID(a);
}

static int effect_CANDIDATE_CLEAR(struct apply *a)
{
	json_object_del(a->rec, "source_candidate");
	return 0;
}

static int run_effects_of(struct apply *a, enum effect_phase phase)
{
	for (int e = 0; e < FSM_EFFECT__COUNT; e++)
		if ((a->st->ops & (UINT32_C(1) << e)) && effect_phase[e] == phase &&
		    effect_handler[e](a) < 0)
			return -1;
	return 0;
}

/* The machine's verdict on state, pause, budget, review and the current
 * Action, written for every applied step. */
static int project_machine(struct apply *a)
{
	const struct fsm_step *st = a->st;
	json_t *rec = a->rec;

	if (!(st->ops & FSM_OP(RECORD_REQUEST)))
		json_object_del(rec, "pending_destructive_request");
	json_object_del(rec, "destructive_grant");
	if (json_object_set_new(rec, "state",
				json_string(tbl_runstate_wire[tbl_state_runstate[st->run.state]])) < 0)
		return -1;
	if (tbl_state_pause[st->run.state] != FSM_PAUSE_NONE) {
		if (json_object_set_new(rec, "pause_reason",
					json_string(tbl_pause_wire[tbl_state_pause[st->run.state]])) < 0)
			return -1;
	} else {
		json_object_del(rec, "pause_reason");
	}
	if (json_object_set_new(rec, "review_pending", json_boolean(st->run.review_pending)) < 0 ||
	    json_object_set_new(rec, "initial_budget", json_integer(st->run.initial_budget)) < 0 ||
	    json_object_set_new(rec, "remaining_budget", json_integer(st->run.remaining)) < 0 ||
	    json_object_set_new(rec, "updated_at", json_string(a->fx->now)) < 0)
		return -1;
	if (!(st->ops & FSM_OP(KEEP_ACTION)) || st->issued != FSM_KIND_NONE)
		json_object_del(rec, "current_action");
	if (st->issued != FSM_KIND_NONE && a->grant &&
	    json_object_set(rec, "destructive_grant", a->grant) < 0)
		return -1;
	return 0;
}

int run_apply(struct run *r, const struct fsm_step *st,
	      const struct run_effects *fx, struct sw_error *err)
{
	struct apply a = { r, r->rec, NULL, NULL, NULL, NULL, NULL, st, fx };
	int rc = 0;

	if (st->verdict != FSM_APPLY && st->verdict != FSM_APPLY_ERROR)
		return sw_error_set(err, SW_EINVAL, "run_apply on a refused step");
	a.cur = json_incref(json_object_get(r->rec, "current_action"));
	a.record = a.cur ? record_for(r->rec, str(a.cur, "action_id")) : NULL;
	if (run_effects_of(&a, BEFORE) < 0 || project_machine(&a) < 0)
		goto nomem;
	if (st->issued != FSM_KIND_NONE &&
	    (rc = issue_action(r, st->issued, st->brief, a.suggested, fx,
			       st->run.grant ? a.grant : NULL, err)) < 0)
		goto out;
	if (run_effects_of(&a, AFTER) < 0)
		goto nomem;
	rc = view_refresh(r, err);
	goto out;
nomem:
	rc = oom(err);
out:
	json_decref(a.grant);
	json_decref(a.popped);
	json_decref(a.cur);
	return rc;
}

/* ---- the effects of source refreshes and choices ---- */

/* Answers given under requirements `old_rev` that are still active become
 * inactive, superseded by `new_rev`; nothing changes when the revision
 * stays (or the Run has no answers).  0, or -1 on ENOMEM. */
static int supersede_answers(json_t *answers, const char *old_rev, const char *new_rev)
{
	json_t *a;
	char *by;
	size_t i;
	int rc = 0;

	if (answers == NULL || (old_rev == NULL && new_rev == NULL) ||
	    (old_rev && new_rev && strcmp(old_rev, new_rev) == 0))
		return 0;
	if ((by = sw_asprintf("requirements:%s", new_rev)) == NULL)
		return -1;
	json_array_foreach(answers, i, a)
		if (json_is_true(json_object_get(a, "active")) && str(a, "requirements_revision") &&
		    old_rev && strcmp(str(a, "requirements_revision"), old_rev) == 0 &&
		    (json_object_set_new(a, "active", json_false()) < 0 ||
		     json_object_set_new(a, "superseded_by", json_string(by)) < 0))
			rc = -1;
	sw_free(by);
	return rc;
}

/* A source pinned under other requirements (an adopted amendment)
 * supersedes the answers given under the old ones. */
static int effect_PIN(struct apply *a)
{
	const json_t *cur = json_object_get(a->rec, "pinned_source");
	json_t *p;

	if (a->fx->pinned == NULL ||
	    supersede_answers(json_object_get(a->rec, "answers"), str(cur, "requirements_revision"),
			      str(a->fx->pinned, "requirements_revision")) < 0)
		return -1;
	if ((p = json_deep_copy(a->fx->pinned)) == NULL)
		return -1;
	return json_object_set_new(a->rec, "pinned_source", p);
}

/* The service stores the payloads with the event (a store write, not a
 * record edit). */
static int effect_SNAPSHOT(struct apply *a)
{
	(void)a;
	return 0;
}

static int effect_NOTE(struct apply *a)
{
	return a->st->note ? append_str(a->rec, "observations", a->st->note) : 0;
}

/* {operation, budget_applied} of the journal type; a step that creates or
 * resolves a candidate names it. */
static int effect_RESUME_RESULT(struct apply *a)
{
	const uint32_t names = FSM_OP(CANDIDATE_INVALID) | FSM_OP(CANDIDATE_VALID) |
			       FSM_OP(CANDIDATE_CLEAR);
	json_t *res = json_pack("{s:s, s:b}", "operation", tbl_jevent_resume_op[a->st->journal],
				"budget_applied", (a->st->ops & FSM_OP(RESUME_BUDGET)) != 0);

	if (res == NULL ||
	    ((a->st->ops & names) &&
	     json_object_set_new(res, "candidate_id", json_string(a->fx->candidate_id)) < 0)) {
		json_decref(res);
		return -1;
	}
	return json_object_set_new(a->rec, "last_resume_result", res);
}

static int effect_CHOICE_RECEIPT(struct apply *a)
{
	const char *action = str(json_object_get(a->rec, "current_action"), "action_id");
	json_t *receipt = json_pack("{s:s, s:s, s:s, s:s}", "candidate_id", a->fx->candidate_id,
				    "choice", a->fx->choice, "resulting_action_id",
				    action ? action : "", "at", a->fx->now);

	return receipt ? json_object_set_new(a->rec, "last_source_choice", receipt) : -1;
}

/* `key` := a copy of `v`, or removed when `v` is NULL. */
static int set_copy(json_t *rec, const char *key, const json_t *v)
{
	json_t *copy;

	if (v == NULL)
		return json_object_del(rec, key), 0;
	copy = json_deep_copy(v);
	return copy ? json_object_set_new(rec, key, copy) : -1;
}

static int effect_REPLAY_CHOICE(struct apply *a)
{
	if (set_copy(a->rec, "last_source_choice", a->fx->prior_receipt) < 0 ||
	    set_copy(a->rec, "last_resume_result", a->fx->prior_result) < 0)
		return -1;
	return 0;
}

int run_apply_replay(struct run *r, const struct fsm_step *st,
		     const struct run_effects *fx, struct sw_error *err)
{
	struct apply a = { r, r->rec, NULL, NULL, NULL, NULL, NULL, st, fx };

	if (st->verdict != FSM_IDEMPOTENT)
		return sw_error_set(err, SW_EINVAL, "run_apply_replay on a step that is no replay");
	if (run_effects_of(&a, BEFORE) < 0 || run_effects_of(&a, AFTER) < 0)
		return oom(err);
	/* The receipts replaced are what the typed record points into. */
	return view_refresh(r, err);
}

int run_create(struct run **out, const struct run_start *s,
	       const struct fsm_step *first, const struct run_effects *fx,
	       struct sw_error *err)
{
	struct run *r = sw_calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (r == NULL)
		return oom(err);
	r->contexts = json_array();
	r->rec = json_pack("{s:i, s:s, s:s, s:s, s:O, s:s, s:b, s:b, s:i, s:i, s:O, s:O, s:b, s:[], s:s, s:s}",
			   "contract_version", 2, "id", s->id, "goal", s->goal,
			   "workspace", s->workspace, "workspace_identity", s->identity,
			   "state", "active", "review_enabled", first->run.review_enabled,
			   "review_pending", 0, "initial_budget", first->run.initial_budget,
			   "remaining_budget", first->run.initial_budget,
			   "initial_git", s->initial_git, "current_git", s->initial_git,
			   "final_git_observed", 0, "actions", "created_at", s->now,
			   "updated_at", s->now);
	if (r->rec == NULL || r->contexts == NULL) {
		run_free(r);
		return oom(err);
	}
	if (s->pinned_source &&
	    json_object_set_new(r->rec, "pinned_source", json_deep_copy(s->pinned_source)) < 0) {
		run_free(r);
		return oom(err);
	}
	/* The start snapshot's own incompleteness is recorded at start, as every
	 * later observation's is (record_observation). */
	if (json_is_false(json_object_get(s->initial_git, "content_observation_complete")) &&
	    append_unique(r->rec, "uncertainties", NOTE_INCOMPLETE) < 0) {
		run_free(r);
		return oom(err);
	}
	if ((rc = run_apply(r, first, fx, err)) < 0 || (rc = run_decode(r, err)) < 0) {
		run_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int run_clone(struct run **out, const struct run *r, struct sw_error *err)
{
	struct run *c = sw_calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (c == NULL || (c->rec = json_deep_copy(r->rec)) == NULL ||
	    (c->contexts = json_array()) == NULL) {
		run_free(c);
		return oom(err);
	}
	if ((c->fz = r->fz) != NULL)
		c->fz->refs++;
	c->nfz = r->nfz;
	if (r->view && (rc = run_decode(c, err)) < 0) {
		run_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static void fz_release(struct frozen *fz)
{
	if (fz == NULL || --fz->refs > 0)
		return;
	for (size_t i = 0; i < fz->n; i++)
		sw_free(fz->e[i].own);
	sw_free(fz->e);
	sw_free(fz->log);
	if (fz->src_fd >= 0)
		close(fz->src_fd);
	sw_free(fz);
}

void run_free(struct run *r)
{
	if (r == NULL)
		return;
	json_decref(r->rec);
	json_decref(r->contexts);
	fz_release(r->fz);
	run_view_free(r->view);
	sw_free(r);
}

/* ---- frozen records ---- */

/* Makes `d` (a copy of e's facts) own its strings, item and `text`. */
static int fz_own(struct fz_entry *d, const struct fz_entry *e, const char *text)
{
	const char *part[4] = { e->id, e->kind, e->sha, e->text_sha };
	size_t len[4], total = e->item_len + e->text_len + 1;
	char *p;

	for (int k = 0; k < 4; k++)
		total += (len[k] = strlen(part[k])) + 1;
	*d = *e;
	if ((d->own = p = sw_malloc(total)) == NULL)
		return -1;
	for (int k = 0; k < 4; k++) {
		memcpy(p, part[k], len[k] + 1);
		part[k] = p;
		p += len[k] + 1;
	}
	d->id = part[0];
	d->kind = part[1];
	d->sha = part[2];
	d->text_sha = part[3];
	if (e->item) {
		memcpy(p, e->item, e->item_len);
		d->item = p;
		p += e->item_len;
	}
	memcpy(p, text, e->text_len);
	d->text = p;
	return 0;
}

/* Room for one more entry after this Run's prefix.  A set another Run has
 * already extended past our prefix is copied first (owned texts too). */
static int fz_reserve(struct run *r)
{
	struct frozen *fz = r->fz;

	if (fz == NULL) {
		if ((fz = sw_calloc(1, sizeof(*fz))) == NULL)
			return -1;
		fz->refs = 1;
		fz->src_fd = -1;
		r->fz = fz;
	} else if (fz->n != r->nfz) {
		struct frozen *c = sw_calloc(1, sizeof(*c));

		if (c == NULL || (c->e = sw_calloc(r->nfz + 1, sizeof(*c->e))) == NULL) {
			sw_free(c);
			return -1;
		}
		c->refs = 1;
		c->src_fd = -1;
		c->cap = r->nfz + 1;
		for (size_t i = 0; i < r->nfz; i++) {
			const struct fz_entry *e = &fz->e[i];
			char *text = e->text ? NULL : read_at(fz->src_fd, e->text_at, e->text_len);

			if ((e->text == NULL && text == NULL) ||
			    fz_own(&c->e[i], e, e->text ? e->text : text) < 0) {
				sw_free(text);
				c->n = i;
				fz_release(c);
				return -1;
			}
			sw_free(text);
			c->n = i + 1;
		}
		fz_release(fz);
		r->fz = fz = c;
	}
	if (fz->n == fz->cap) {
		size_t cap = fz->cap ? fz->cap * 2 : 16;
		struct fz_entry *e = sw_realloc(fz->e, cap * sizeof(*e));

		if (e == NULL)
			return -1;
		fz->e = e;
		fz->cap = cap;
	}
	return 0;
}

/* Freezes Action record `v` as entry r->nfz.  1 when `v` cannot be kept
 * frozen (an id or kind too long for the entry), 0, or -1 (memory). */
static int fz_add(struct run *r, const json_t *v)
{
	const json_t *action = json_object_get(v, "action");
	const char *id = str(action, "action_id"), *kind = str(action, "kind");
	const char *sha = str(v, "outcome_payload_sha256");
	char *item = NULL, *dump = NULL, *text = NULL, text_sha[SW_HEX_LEN];
	size_t text_len = 0;
	struct fz_entry e = { 0 };
	int rc = -1;

	if (id == NULL || kind == NULL || strlen(id) > FZ_ID_MAX || strlen(kind) > FZ_KIND_MAX ||
	    (sha && strlen(sha) >= SW_DIGEST_LEN))
		return 1;
	if (action_item(&item, v) < 0 || (dump = sw_json_dump(v)) == NULL ||
	    journal_projection_value(&text, &text_len, dump, strlen(dump), 3,
				     &(struct sw_error)SW_ERROR_INIT) < 0 ||
	    fz_reserve(r) < 0)
		goto out;
	sw_sha256_hex(text, text_len, text_sha);
	e.id = id;
	e.kind = kind;
	e.sha = sha ? sha : "";
	e.text_sha = text_sha;
	e.flags = record_flags(v);
	e.item = item;
	e.item_len = item ? strlen(item) : 0;
	e.text_len = text_len;
	if (fz_own(&r->fz->e[r->fz->n], &e, text) < 0)
		goto out;
	r->fz->n++;
	r->nfz++;
	rc = 0;
out:
	sw_free(item);
	sw_free(dump);
	sw_free(text);
	return rc;
}

int run_freeze(struct run *r, struct sw_error *err)
{
	json_t *actions = json_object_get(r->rec, "actions"), *rest;
	size_t n = json_array_size(actions), k = 0;

	/* Every record before the last is final. */
	while (k + 1 < n) {
		int rc = fz_add(r, json_array_get(actions, k));

		if (rc < 0)
			return oom(err);
		if (rc > 0)
			break;
		k++;
	}
	if (k == 0)
		return 0;
	if ((rest = json_array()) == NULL)
		return oom(err);
	for (size_t i = k; i < n; i++)
		if (json_array_append(rest, json_array_get(actions, i)) < 0) {
			json_decref(rest);
			return oom(err);
		}
	if (json_object_set_new(r->rec, "actions", rest) < 0)
		return oom(err);
	return view_refresh(r, err);
}

/* The frozen records parsed back, in order (new reference, or NULL). */
static json_t *fz_records(const struct run *r)
{
	json_t *all = json_array();

	for (size_t i = 0; all && i < r->nfz; i++) {
		json_t *v = fz_parse(r->fz, &r->fz->e[i]);

		if (v == NULL || json_array_append_new(all, v) < 0) {
			json_decref(all);
			return NULL;
		}
	}
	return all;
}

int run_thaw(struct run *r, struct sw_error *err)
{
	json_t *all, *v;
	size_t i;

	if (r->nfz == 0)
		return 0;
	if ((all = fz_records(r)) == NULL)
		return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID, "a frozen Action record does not parse");
	json_array_foreach(json_object_get(r->rec, "actions"), i, v)
		if (json_array_append(all, v) < 0) {
			json_decref(all);
			return oom(err);
		}
	if (json_object_set_new(r->rec, "actions", all) < 0)
		return oom(err);
	fz_release(r->fz);
	r->fz = NULL;
	r->nfz = 0;
	return view_refresh(r, err);
}

/* The frozen entry of `action_id`, or NULL. */
static const struct fz_entry *fz_find(const struct run *r, const char *action_id)
{
	for (size_t i = r->nfz; action_id && i-- > 0;)
		if (strcmp(r->fz->e[i].id, action_id) == 0)
			return &r->fz->e[i];
	return NULL;
}

/* ---- journal deltas ---- */

static int is_prefix(const json_t *a, const json_t *b)
{
	if (json_array_size(a) > json_array_size(b))
		return 0;
	for (size_t i = 0; i < json_array_size(a); i++)
		if (!json_equal(json_array_get(a, i), json_array_get(b, i)))
			return 0;
	return 1;
}

/* The change of one array element: for two objects only the keys that
 * changed ({index, set, clear}); otherwise the whole new value. */
static json_t *element_change(size_t index, const json_t *b, const json_t *a)
{
	json_t *ch = json_pack("{s:I}", "index", (json_int_t)index);
	json_t *set, *clear;
	const char *k;
	json_t *v;

	if (ch == NULL)
		return NULL;
	if (!json_is_object(a) || !json_is_object(b)) {
		json_object_set_new(ch, "value", json_deep_copy(a));
		return ch;
	}
	set = json_object();
	clear = json_array();
	json_object_foreach((json_t *)a, k, v)
		if (!json_equal(v, json_object_get(b, k)))
			json_object_set_new(set, k, json_deep_copy(v));
	json_object_foreach((json_t *)b, k, v)
		if (json_object_get(a, k) == NULL)
			json_array_append_new(clear, json_string(k));
	json_object_set_new(ch, "set", set);
	json_object_set_new(ch, "clear", clear);
	return ch;
}

json_t *run_delta(const struct run *before, const struct run *after, size_t rule)
{
	json_t *d = json_pack("{s:i, s:i, s:s, s:I}", "event_version", 2,
			      "contract_version", 2, "run_id", str(after->rec, "id"),
			      "rule", (json_int_t)tbl_rules[rule].id);
	json_t *set = json_object(), *clear = json_array(), *app = json_object();
	json_t *upd = json_object();

	if (!d || !set || !clear || !app || !upd)
		goto fail;
	/* Both sides must split the Action history at the same record. */
	if ((before == NULL && after->nfz > 0) || (before && before->nfz != after->nfz))
		goto fail;
	if (before == NULL) {
		json_t *init = ordered_copy(after->rec);

		if (init == NULL ||
		    json_object_set_new(d, "initialize", json_deep_copy(init)) < 0) {
			json_decref(init);
			goto fail;
		}
		json_decref(init);
		goto done;
	}
	for (size_t i = 0; i < NFIELDS; i++) {
		const char *k = field_order[i];
		json_t *b = json_object_get(before->rec, k);
		json_t *a = json_object_get(after->rec, k);

		if ((a == NULL && b == NULL) || json_equal(a, b))
			continue;
		if (a == NULL) {
			if (json_array_append_new(clear, json_string(k)) < 0)
				goto fail;
		} else if (json_is_array(a) && (b == NULL || json_is_array(b))) {
			json_t *tail = json_array(), *changes = json_array();
			size_t nb = json_array_size(b);
			/* Indexes count the frozen records before rec.actions. */
			size_t base = strcmp(k, "actions") == 0 ? after->nfz : 0;

			if (!tail || !changes) {
				json_decref(tail);
				json_decref(changes);
				goto fail;
			}
			if (!is_prefix(b, a) && nb > json_array_size(a)) {
				/* shrunk: replace whole (never the Action history,
				 * which only grows) */
				json_decref(tail);
				json_decref(changes);
				if (base > 0 || json_object_set_new(set, k, json_deep_copy(a)) < 0)
					goto fail;
				continue;
			}
			for (size_t j = 0; j < json_array_size(a); j++) {
				json_t *av = json_array_get(a, j), *bv = json_array_get(b, j);

				if (j >= nb)
					json_array_append_new(tail, json_deep_copy(av));
				else if (!json_equal(av, bv))
					json_array_append_new(changes, element_change(base + j, bv, av));
			}
			if (json_array_size(tail))
				json_object_set(app, k, tail);
			if (json_array_size(changes))
				json_object_set(upd, k, changes);
			json_decref(tail);
			json_decref(changes);
		} else if (json_object_set_new(set, k, json_deep_copy(a)) < 0) {
			goto fail;
		}
	}
	if ((json_object_size(set) && json_object_set(d, "set", set) < 0) ||
	    (json_array_size(clear) && json_object_set(d, "clear", clear) < 0) ||
	    (json_object_size(app) && json_object_set(d, "append", app) < 0) ||
	    (json_object_size(upd) && json_object_set(d, "update", upd) < 0))
		goto fail;
done:
	json_decref(set);
	json_decref(clear);
	json_decref(app);
	json_decref(upd);
	return d;
fail:
	json_decref(d);
	d = NULL;
	goto done;
}

static int known_field(const char *k)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (strcmp(field_order[i], k) == 0)
			return 1;
	return 0;
}

static int bad(struct sw_error *err, const char *what)
{
	return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID, "journal event data: %s", what);
}

int run_replay(struct run **rp, const char *type, const json_t *data,
	       struct sw_error *err)
{
	const char *key;
	json_t *v, *rec;
	size_t i;

	if (!json_is_object(data) ||
	    json_integer_value(json_object_get(data, "event_version")) != 2 ||
	    json_integer_value(json_object_get(data, "contract_version")) != 2 ||
	    !json_is_string(json_object_get(data, "run_id")))
		return bad(err, "missing or unsupported version fields");
	if (strcmp(type, "run_started") == 0) {
		json_t *init = json_object_get(data, "initialize");
		struct run *r;

		if (*rp != NULL)
			return bad(err, "run_started after the first event");
		if (!json_is_object(init) || !json_equal(json_object_get(init, "id"),
							json_object_get(data, "run_id")))
			return bad(err, "run_started without a matching initialize object");
		json_object_foreach(init, key, v)
			if (!known_field(key))
				return bad(err, "unknown field in initialize");
		if ((r = sw_calloc(1, sizeof(*r))) == NULL ||
		    (r->rec = json_deep_copy(init)) == NULL ||
		    (r->contexts = json_array()) == NULL) {
			run_free(r);
			return oom(err);
		}
		*rp = r;
		return 0;
	}
	if (*rp == NULL)
		return bad(err, "the first event is not run_started");
	/* Replay leaves the record to be checked (run_check) once whole. */
	run_view_free((*rp)->view);
	(*rp)->view = NULL;
	if (tbl_jevent_lookup(type) == TBL_JEVENT_INVALID)
		return bad(err, "unknown event type");
	rec = (*rp)->rec;
	if (!json_equal(json_object_get(rec, "id"), json_object_get(data, "run_id")))
		return bad(err, "event for another run");
	/* A change to a frozen record (never made by this program: only the
	 * last record changes) needs the records back as JSON first. */
	if ((*rp)->nfz > 0) {
		int thaw = json_object_get(json_object_get(data, "set"), "actions") != NULL;

		json_array_foreach(json_object_get(data, "clear"), i, v)
			thaw |= json_is_string(v) && strcmp(json_string_value(v), "actions") == 0;
		json_array_foreach(json_object_get(json_object_get(data, "update"), "actions"), i, v)
			thaw |= json_integer_value(json_object_get(v, "index")) < (json_int_t)(*rp)->nfz;
		if (thaw) {
			int rc = run_thaw(*rp, err);

			if (rc < 0)
				return rc;
		}
		rec = (*rp)->rec;
	}
	json_object_foreach(json_object_get(data, "set"), key, v)
		if (!known_field(key) || json_object_set(rec, key, v) < 0)
			return bad(err, "bad set");
	json_array_foreach(json_object_get(data, "clear"), i, v)
		if (!json_is_string(v) || !known_field(json_string_value(v)) ||
		    json_object_del(rec, json_string_value(v)) < 0)
			return bad(err, "bad clear");
	json_object_foreach(json_object_get(data, "update"), key, v) {
		json_t *target = json_object_get(rec, key), *ch;
		json_int_t base = strcmp(key, "actions") == 0 ? (json_int_t)(*rp)->nfz : 0;

		json_array_foreach(v, i, ch) {
			json_int_t idx = json_integer_value(json_object_get(ch, "index")) - base;
			json_t *el, *cv, *value = json_object_get(ch, "value");
			const char *ck;
			size_t ci;

			if (!json_is_array(target) || idx < 0 ||
			    (size_t)idx >= json_array_size(target))
				return bad(err, "bad update");
			if (value != NULL) {
				if (json_array_set(target, (size_t)idx, value) < 0)
					return bad(err, "bad update");
				continue;
			}
			el = json_array_get(target, (size_t)idx);
			if (!json_is_object(el))
				return bad(err, "bad update");
			json_object_foreach(json_object_get(ch, "set"), ck, cv)
				if (json_object_set(el, ck, cv) < 0)
					return bad(err, "bad update");
			json_array_foreach(json_object_get(ch, "clear"), ci, cv)
				if (!json_is_string(cv) || json_object_del(el, json_string_value(cv)) < 0)
					return bad(err, "bad update");
		}
	}
	json_object_foreach(json_object_get(data, "append"), key, v)
		if (!known_field(key) || !json_is_array(v) || extend(rec, key, v) < 0)
			return bad(err, "bad append");
	return 0;
}

/* ---- views ---- */

json_t *run_take_contexts(struct run *r)
{
	json_t *taken = r->contexts;

	r->contexts = json_array();
	if (r->contexts == NULL) {
		r->contexts = taken;
		return NULL;
	}
	return taken;
}

/* A copy of `action` with its context text back in place of the digest
 * (the reference's key order: context after brief), or a new reference to
 * `action` itself when it has no digest.  NULL when the text is missing. */
static json_t *with_context(json_t *action, run_context_fn *resolve, void *payload)
{
	const char *digest = str(action, "context_sha256");
	json_t *out, *v;
	const char *k;
	char *text;

	if (digest == NULL)
		return json_incref(action);
	if ((text = resolve(digest, payload)) == NULL)
		return NULL;
	if ((out = json_object()) == NULL) {
		sw_free(text);
		return NULL;
	}
	json_object_foreach(action, k, v) {
		if (strcmp(k, "context_sha256") == 0)
			continue;
		json_object_set(out, k, v);
		/* Valid UTF-8 by construction (issue_action), and a
		 * stored material was checked against its digest: no scan. */
		if (strcmp(k, "brief") == 0)
			json_object_set_new(out, "context", json_stringn_nocheck(text, strlen(text)));
	}
	sw_free(text);
	return out;
}

/* Puts the context texts back into the current Action and every record. */
static int inline_contexts(json_t *out, run_context_fn *resolve, void *payload)
{
	json_t *actions = json_object_get(out, "actions"), *copy, *rec, *cur;
	size_t i;

	if ((cur = json_object_get(out, "current_action")) != NULL) {
		json_t *full = with_context(cur, resolve, payload);

		if (full == NULL || json_object_set_new(out, "current_action", full) < 0)
			return -1;
	}
	if ((copy = json_array()) == NULL)
		return -1;
	json_array_foreach(actions, i, rec) {
		json_t *full = with_context(json_object_get(rec, "action"), resolve, payload);
		json_t *nrec = full ? json_copy(rec) : NULL;

		if (nrec == NULL || json_object_set_new(nrec, "action", full) < 0 ||
		    json_array_append_new(copy, nrec) < 0) {
			json_decref(nrec);
			json_decref(copy);
			return -1;
		}
	}
	return json_object_set_new(out, "actions", copy);
}

json_t *run_current_action_full(const struct run *r, run_context_fn *resolve,
				void *payload)
{
	json_t *cur = json_object_get(r->rec, "current_action");

	return cur ? with_context(cur, resolve, payload) : NULL;
}

/* run_status_json, with `frozen` the frozen records parsed back into
 * `actions` (without it they are left out, for run_projection). */
static json_t *status_object(const struct run *r, int for_status, run_context_fn *resolve,
			     void *payload, int frozen)
{
	json_t *out = ordered_copy(r->rec), *obs;
	const char *state = str(r->rec, "state");

	if (out == NULL)
		return NULL;
	if (frozen && r->nfz > 0) {
		/* Output that shows the history parses the frozen records. */
		json_t *all = fz_records(r), *v;
		size_t i;

		json_array_foreach(json_object_get(r->rec, "actions"), i, v)
			if (all && json_array_append(all, v) < 0) {
				json_decref(all);
				all = NULL;
			}
		if (all == NULL || json_object_set_new(out, "actions", all) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	if (resolve != NULL && inline_contexts(out, resolve, payload) < 0) {
		json_decref(out);
		return NULL;
	}
	if (for_status && state &&
	    (strcmp(state, "stopped") == 0 || strcmp(state, "ended") == 0))
		json_object_del(out, "current_action");
	obs = json_object_get(out, "observations");
	if (json_array_size(obs) > RUN_PROJECTION_OBSERVATIONS) {
		size_t drop = json_array_size(obs) - RUN_PROJECTION_OBSERVATIONS;
		json_t *window = json_array();
		char *marker = sw_asprintf("...[%zu earlier observations in journal]", drop);

		if (window == NULL || marker == NULL) {
			json_decref(window);
			sw_free(marker);
			json_decref(out);
			return NULL;
		}
		json_array_append_new(window, json_string(marker));
		for (size_t i = drop; i < json_array_size(obs); i++)
			json_array_append(window, json_array_get(obs, i));
		json_object_set_new(out, "observations", window);
		sw_free(marker);
	}
	return out;
}

json_t *run_status_json(const struct run *r, int for_status,
			run_context_fn *resolve, void *payload)
{
	return status_object(r, for_status, resolve, payload, 1);
}

/* ---- projection and checkpoint ---- */

#define ITEM_SEP ",\n      "
#define ACTIONS_KEY "\n    \"actions\": ["

void run_projection_release(struct run_projection *p)
{
	sw_free(p->head);
	sw_free(p->piece);
	sw_free(p->text_off);
	memset(p, 0, sizeof(*p));
}

int run_projection(struct run_projection *p, const struct run *r, long long revision,
		   struct sw_error *err)
{
	json_t *data = status_object(r, 0, NULL, NULL, 0);
	char *dump = data ? sw_json_dump(data) : NULL;
	const char *at, *rest;
	size_t n = 0, off;
	int rc;

	memset(p, 0, sizeof(*p));
	json_decref(data);
	if (dump == NULL)
		return oom(err);
	rc = journal_projection_encode(&p->head, &p->head_len, revision, dump, strlen(dump), err);
	sw_free(dump);
	if (rc < 0)
		return rc;
	p->piece = sw_calloc(2 * r->nfz + 3, sizeof(*p->piece));
	p->text_off = sw_calloc(r->nfz + 1, sizeof(*p->text_off));
	if (p->piece == NULL || p->text_off == NULL) {
		run_projection_release(p);
		return oom(err);
	}
	if (r->nfz == 0) {
		p->piece[0].bytes = p->head;
		p->piece[0].len = p->head_len;
		p->npiece = 1;
		return 0;
	}
	/* The frozen records go first in the actions array; the live ones
	 * follow ("\n      {" after the bracket), or close it ("]"). */
	at = strstr(p->head, ACTIONS_KEY);
	if (at == NULL) {
		run_projection_release(p);
		return sw_error_set(err, SW_EINVAL, "projection without its Action history");
	}
	rest = at + strlen(ACTIONS_KEY);
	p->piece[n].bytes = p->head;
	p->piece[n].len = (size_t)(rest - p->head);
	off = p->piece[n++].len;
	if (rest[0] == ']') {
		rest++;	/* "[]": open it */
	} else if (strncmp(rest, &ITEM_SEP[1], strlen(ITEM_SEP) - 1) == 0) {
		rest += strlen(ITEM_SEP) - 1;
	} else {
		run_projection_release(p);
		return sw_error_set(err, SW_EINVAL, "unexpected projection layout");
	}
	for (size_t i = 0; i < r->nfz; i++) {
		const struct fz_entry *e = &r->fz->e[i];
		struct sw_piece *last = &p->piece[n - 1];

		/* Records read back from run.json sit there in this very
		 * layout, side by side: one piece copies a whole run of them
		 * from the old file. */
		if (i > 0 && e->text == NULL && last->bytes == NULL &&
		    last->from + last->len + strlen(ITEM_SEP) == e->text_at) {
			off += strlen(ITEM_SEP);
			p->text_off[i] = off;
			last->len += strlen(ITEM_SEP) + e->text_len;
			off += e->text_len;
			continue;
		}
		p->piece[n].bytes = i == 0 ? &ITEM_SEP[1] : ITEM_SEP;
		p->piece[n].len = strlen(ITEM_SEP) - (i == 0);
		off += p->piece[n++].len;
		p->text_off[i] = off;
		p->piece[n].bytes = e->text;
		p->piece[n].from = e->text_at;
		p->piece[n].len = e->text_len;
		off += p->piece[n++].len;
	}
	if (rest[-1] == ']') {
		p->piece[n].bytes = "\n    ]";
		p->piece[n++].len = 6;
	} else {
		p->piece[n].bytes = ITEM_SEP;
		p->piece[n++].len = strlen(ITEM_SEP);
	}
	p->piece[n].bytes = rest;
	p->piece[n++].len = p->head_len - (size_t)(rest - p->head);
	p->npiece = n;
	return 0;
}

int run_git_observation(struct vcs_observation *out, const struct run *r,
			enum run_git which, struct sw_error *err)
{
	const json_t *v = json_object_get(r->rec, which == RUN_GIT_CURRENT ? "current_git"
									   : "initial_git");

	if (v == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "the Run records no current Git observation");
	return vcs_observation_from_json(out, v, err);
}

int run_reply_fields(json_t *doc, const struct run *r, unsigned which, struct sw_error *err)
{
	static const char *const keys[] = { "pinned_source", "source_candidate",
					    "workspace_identity" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = which & (1u << i) ? json_object_get(r->rec, keys[i]) : NULL;

		if (v && json_object_set(doc, keys[i], v) < 0)
			return oom(err);
	}
	return 0;
}

int run_pinned_source(struct source_pinned **out, const struct run *r, struct sw_error *err)
{
	const json_t *v = json_object_get(r->rec, "pinned_source");

	*out = NULL;
	if (v == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "the Run pins no source");
	return source_pinned_from_json(out, v, err);
}

int run_source_candidate(struct source_candidate **out, char **candidate_id,
			 const struct run *r, struct sw_error *err)
{
	const json_t *v = json_object_get(r->rec, "source_candidate");
	char *created_at = NULL;
	int rc;

	*out = NULL;
	*candidate_id = NULL;
	if (v == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "the Run has no source candidate");
	rc = source_candidate_from_json(out, candidate_id, &created_at, v, err);
	sw_free(created_at);
	return rc;
}

/* keep-pinned: `cur` under the projection of candidate `cand`. */
static int project_pinned(json_t **out, const json_t *cur, const json_t *cand,
			  struct sw_error *err)
{
	static const char *const fields[] = { "repository_id", "issue_number", "canonical_url" };
	struct source_pinned *typed = NULL, *check = NULL;
	char rev[SW_DIGEST_LEN];
	json_t *p = json_deep_copy(cur), *aliases = NULL;
	int rc;

	if (p == NULL) {
		rc = oom(err);
		goto out;
	}
	if ((rc = source_pinned_from_json(&typed, cur, err)) < 0)
		goto out;
	if ((aliases = source_aliases_merged(typed, str(cand, "canonical_url"))) == NULL) {
		rc = oom(err);
		goto out;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (json_object_set(p, fields[i], json_object_get(cand, fields[i])) < 0) {
			rc = oom(err);
			goto out;
		}
	if (json_object_get(cand, "parent") == NULL)
		json_object_del(p, "parent");
	if (json_object_set(p, "url_aliases", aliases) < 0 ||
	    (json_object_get(cand, "parent") &&
	     json_object_set(p, "parent", json_object_get(cand, "parent")) < 0)) {
		rc = oom(err);
		goto out;
	}
	if ((rc = source_revision_compute(rev, str(p, "host"), str(p, "repository_id"),
					  str(p, "issue_id"), str(p, "title"),
					  str(p, "manifest_revision"), err)) < 0)
		goto out;
	if (json_object_set_new(p, "source_revision", json_string(rev)) < 0) {
		rc = oom(err);
		goto out;
	}
	if ((rc = source_pinned_from_json(&check, p, err)) < 0)
		goto out;
	*out = p;
	p = NULL;
out:
	source_pinned_free(check);
	source_pinned_free(typed);
	json_decref(aliases);
	json_decref(p);
	return rc;
}

int run_choice_source(json_t **out, const struct run *r, int adopt, struct sw_error *err)
{
	const json_t *cand = json_object_get(r->rec, "source_candidate");
	const json_t *cur = json_object_get(r->rec, "pinned_source");
	const json_t *snap = json_object_get(cand, "snapshot");

	*out = NULL;
	if (cand == NULL || cur == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "the Run has no source candidate to choose");
	if (!adopt)
		return project_pinned(out, cur, cand, err);
	if (snap && (*out = json_deep_copy(snap)) == NULL)
		return oom(err);
	return 0;
}

int run_equal(const struct run *a, const struct run *b)
{
	return json_equal(a->rec, b->rec);
}

const json_t *run_json(const struct run *r)
{
	return r->rec;
}

const char *run_id(const struct run *r)
{
	return str(r->rec, "id");
}

const char *run_workspace(const struct run *r)
{
	return str(r->rec, "workspace");
}

const json_t *run_current_action(const struct run *r)
{
	return json_object_get(r->rec, "current_action");
}

const char *run_current_action_id(const struct run *r)
{
	return str(json_object_get(r->rec, "current_action"), "action_id");
}

const char *run_summary(const struct run *r)
{
	return str(r->rec, "summary");
}

/* The record flags (FZ_*) of the Action named `action_id` and its
 * outcome digest ("" when none); 0 when there is no such record. */
static unsigned named_record(const struct run *r, const char *action_id, const char **sha)
{
	json_t *rec = record_for(r->rec, action_id);
	const struct fz_entry *e;

	*sha = "";
	if (rec != NULL) {
		if (str(rec, "outcome_payload_sha256"))
			*sha = str(rec, "outcome_payload_sha256");
		return record_flags(rec);
	}
	if ((e = fz_find(r, action_id)) != NULL) {
		*sha = e->sha;
		return e->flags;
	}
	return 0;
}

static uint64_t named_facts(const struct run *r, const char *action_id)
{
	const char *cur = run_current_action_id(r), *sha;
	uint64_t f = 0;

	if (cur && action_id && strcmp(cur, action_id) == 0)
		f |= FSM_F(NAMED_CURRENT);
	if (named_record(r, action_id, &sha) & FZ_VOIDED)
		f |= FSM_F(NAMED_VOIDED);
	return f;
}

uint64_t run_submit_facts(const struct run *r, const char *action_id,
			  const char *outcome_sha256)
{
	const char *sha;
	uint64_t f = named_facts(r, action_id);

	if (named_record(r, action_id, &sha) & FZ_OUTCOME) {
		f |= FSM_F(PRIOR);
		if (outcome_sha256 && strcmp(sha, outcome_sha256) == 0)
			f |= FSM_F(PRIOR_SAME);
	}
	return f;
}

uint64_t run_answer_facts(const struct run *r, const char *action_id,
			  const char *answer_sha256, int *prior_confirm)
{
	uint64_t f = named_facts(r, action_id);
	json_t *a;
	size_t i;

	if (prior_confirm)
		*prior_confirm = 0;
	json_array_foreach(json_object_get(r->rec, "answers"), i, a) {
		if (strcmp(str(a, "action_id"), action_id) != 0)
			continue;
		f |= FSM_F(PRIOR);
		if (answer_sha256 && strcmp(str(a, "payload_sha256"), answer_sha256) == 0)
			f |= FSM_F(PRIOR_SAME);
		if (prior_confirm)
			*prior_confirm = json_is_true(json_object_get(a, "confirm_destructive"));
		break;
	}
	return f;
}

int run_supersedes_invalid(const struct run *r, const char *old)
{
	json_t *a;
	size_t i;

	if (old == NULL)
		return 0;
	json_array_foreach(json_object_get(r->rec, "answers"), i, a)
		if (strcmp(str(a, "action_id"), old) == 0)
			return !json_is_true(json_object_get(a, "active")) ||
			       json_is_true(json_object_get(a, "confirm_destructive")) ||
			       (str(a, "requirements_revision") != NULL) !=
				       (json_object_get(r->rec, "pinned_source") != NULL);
	return 1;
}

int run_set_pinned_source(struct run *r, const json_t *pinned, struct sw_error *err)
{
	json_t *copy = json_deep_copy(pinned);

	if (copy == NULL || json_object_set_new(r->rec, "pinned_source", copy) < 0)
		return oom(err);
	return view_refresh(r, err);
}

int run_set_field(struct run *r, const char *key, const json_t *value, struct sw_error *err)
{
	json_t *copy;

	if (!known_field(key))
		return sw_error_set(err, SW_EINVAL, "unknown Run field %s", key);
	if (value == NULL)
		json_object_del(r->rec, key);
	else if ((copy = json_deep_copy(value)) == NULL ||
		 json_object_set_new(r->rec, key, copy) < 0)
		return oom(err);
	return view_refresh(r, err);
}

int run_add_observation(struct run *r, const char *text, struct sw_error *err)
{
	return append_str(r->rec, "observations", text) < 0 ? oom(err) : 0;
}

int run_set_resume_result(struct run *r, const char *operation,
			  int budget_applied, struct sw_error *err)
{
	json_t *res = json_pack("{s:s, s:b}", "operation", operation,
				"budget_applied", budget_applied);

	if (res == NULL || json_object_set_new(r->rec, "last_resume_result", res) < 0)
		return oom(err);
	return view_refresh(r, err);
}

#define CHECKPOINT_BODY_MAGIC "slipway-run-checkpoint/2\n"

void run_checkpoint_release(struct run_checkpoint *c)
{
	sw_free(c->body);
	sw_free(c->log);
	memset(c, 0, sizeof(*c));
}

/* Decimal digits of v at d; returns the end. */
static char *put_num(char *d, size_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		*d++ = tmp[--n];
	return d;
}

static char *put_str(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
	return d + n;
}

/* One log entry: "<off> <len> <text_sha> <flags> <item_len> <kind> <sha|->
 * <id>\n<item>\n", `off` counted from the first frozen record in run.json
 * (so an entry never changes once written). */
static char *put_entry(char *d, const struct fz_entry *e, size_t off)
{
	d = put_num(d, off);
	*d++ = ' ';
	d = put_num(d, e->text_len);
	*d++ = ' ';
	d = put_str(d, e->text_sha, strlen(e->text_sha));
	*d++ = ' ';
	d = put_num(d, e->flags);
	*d++ = ' ';
	d = put_num(d, e->item ? e->item_len : 0);
	*d++ = ' ';
	d = put_str(d, e->kind, strlen(e->kind));
	*d++ = ' ';
	d = e->sha[0] ? put_str(d, e->sha, strlen(e->sha)) : put_str(d, "-", 1);
	*d++ = ' ';
	d = put_str(d, e->id, strlen(e->id));
	*d++ = '\n';
	if (e->item)
		d = put_str(d, e->item, e->item_len);
	*d++ = '\n';
	return d;
}

int run_checkpoint(struct run_checkpoint *out, const struct run *r,
		   const struct run_projection *p, const char *extra,
		   struct sw_error *err)
{
	char *head = sw_json_dump(r->rec), *d;
	size_t from = 0, need = 0, start = r->nfz ? p->text_off[0] : 0;
	struct sw_buf b = { 0 };

	memset(out, 0, sizeof(*out));
	if (head == NULL)
		return oom(err);
	sw_buf_fmt(&b, "%s%zu %zu\n%zu\n%s\n%zu\n%s\n", CHECKPOINT_BODY_MAGIC, start, r->nfz,
		   strlen(head), head, strlen(extra), extra);
	sw_free(head);
	if (b.failed) {
		sw_free(b.p);
		return oom(err);
	}
	out->body = b.p;
	out->body_len = b.len;
	/* Only the entries the log does not hold yet. */
	if (r->fz != NULL && r->fz->logged <= r->nfz) {
		from = r->fz->logged;
		out->log_base = r->fz->log_bytes;
	}
	for (size_t i = from; i < r->nfz; i++)
		need += 8 * 24 + SW_HEX_LEN + SW_DIGEST_LEN + FZ_ID_MAX + FZ_KIND_MAX +
			r->fz->e[i].item_len;
	if ((out->log = sw_malloc(need + 1)) == NULL) {
		run_checkpoint_release(out);
		return oom(err);
	}
	d = out->log;
	for (size_t i = from; i < r->nfz; i++)
		d = put_entry(d, &r->fz->e[i], p->text_off[i] - start);
	out->log_len = (size_t)(d - out->log);
	return 0;
}

/* Checkpoint parsing: a cursor over bytes that are not NUL-terminated. */
struct cursor {
	const char *p, *end;
};

static int cur_num(struct cursor *c, size_t *v, char stop)
{
	size_t n = 0;
	int digits = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && digits < 15) {
		n = n * 10 + (size_t)(*c->p++ - '0');
		digits++;
	}
	if (digits == 0 || c->p >= c->end || *c->p != stop)
		return -1;
	c->p++;
	*v = n;
	return 0;
}

/* A word of at most `max` bytes ending at `stop`, made a string where it
 * is (the stop byte becomes its NUL): the cursor's bytes are the caller's
 * own buffer. */
static int cur_field(struct cursor *c, const char **at, size_t max, char stop)
{
	size_t room = (size_t)(c->end - c->p) < max + 1 ? (size_t)(c->end - c->p) : max + 1;
	const char *p = memchr(c->p, stop, room);

	/* The stop byte must be the first separator: memchr scans many bytes
	 * at a time, where a byte loop costs a dozen instructions for
	 * each of the ~190 bytes of an entry. */
	if (p == NULL || p == c->p ||
	    (stop != ' ' && memchr(c->p, ' ', (size_t)(p - c->p)) != NULL) ||
	    (stop != '\n' && memchr(c->p, '\n', (size_t)(p - c->p)) != NULL))
		return -1;
	*at = c->p;
	*(char *)p = '\0';
	c->p = p + 1;
	return 0;
}

static int cur_bytes(struct cursor *c, const char **at, size_t n)
{
	if ((size_t)(c->end - c->p) < n + 1 || c->p[n] != '\n')
		return -1;
	*at = c->p;
	c->p += n + 1;
	return 0;
}

/* Whether byte `at` of fd is `want`. */
static int byte_is(int fd, unsigned long long at, char want)
{
	char got;

	return pread(fd, &got, 1, (off_t)at) == 1 && got == want;
}

int run_from_checkpoint(struct run **out, char **extra, const char *body, size_t body_len,
			char **log, size_t log_len, int *proj_fd, size_t proj_len,
			struct sw_error *err)
{
	struct cursor c = { body, body + body_len };
	const char *head, *x;
	size_t hlen, xlen, n, start, next = 0;
	struct run *r = NULL;
	int rc = SW_EPARSE;

	*out = NULL;
	*extra = NULL;
	if (body_len < strlen(CHECKPOINT_BODY_MAGIC) ||
	    memcmp(body, CHECKPOINT_BODY_MAGIC, strlen(CHECKPOINT_BODY_MAGIC)) != 0)
		goto bad;
	c.p += strlen(CHECKPOINT_BODY_MAGIC);
	if (cur_num(&c, &start, ' ') < 0 || cur_num(&c, &n, '\n') < 0 ||
	    cur_num(&c, &hlen, '\n') < 0 || cur_bytes(&c, &head, hlen) < 0 ||
	    cur_num(&c, &xlen, '\n') < 0 || cur_bytes(&c, &x, xlen) < 0 || c.p != c.end ||
	    n > log_len || start > proj_len || *proj_fd < 0)
		goto bad;
	/* Room for a few more without moving the entries. */
	if ((r = sw_calloc(1, sizeof(*r))) == NULL || (r->contexts = json_array()) == NULL ||
	    (*extra = sw_strndup(x, xlen)) == NULL ||
	    (r->fz = sw_calloc(1, sizeof(*r->fz))) == NULL) {
		rc = oom(err);
		goto fail;
	}
	r->fz->src_fd = -1;
	if ((r->fz->e = sw_malloc((n + 8) * sizeof(*r->fz->e))) == NULL) {
		rc = oom(err);
		goto fail;
	}
	if ((r->rec = json_loadb(head, hlen, JSON_REJECT_DUPLICATES, NULL)) == NULL ||
	    !json_is_object(r->rec) || !json_is_array(json_object_get(r->rec, "actions")))
		goto bad;
	r->fz->refs = 1;
	r->fz->cap = n + 8;
	c.p = *log;
	c.end = *log + log_len;
	/* The records lie side by side from `start`, so their places follow
	 * from their lengths; run.json is only read at the two ends. */
	for (size_t i = 0; i < n; i++) {
		struct fz_entry *e = &r->fz->e[i];
		size_t off, len, flags, ilen;

		e->own = NULL;
		if (cur_num(&c, &off, ' ') < 0 || cur_num(&c, &len, ' ') < 0 ||
		    cur_field(&c, &e->text_sha, SW_HEX_LEN - 1, ' ') < 0 ||
		    strlen(e->text_sha) != SW_HEX_LEN - 1 ||
		    cur_num(&c, &flags, ' ') < 0 || cur_num(&c, &ilen, ' ') < 0 ||
		    cur_field(&c, &e->kind, FZ_KIND_MAX, ' ') < 0 ||
		    cur_field(&c, &e->sha, SW_DIGEST_LEN - 1, ' ') < 0 ||
		    cur_field(&c, &e->id, FZ_ID_MAX, '\n') < 0 ||
		    cur_bytes(&c, &e->item, ilen) < 0 || flags > 7 ||
		    len < 2 || off != next || len > proj_len - start - off)
			goto bad;
		next = off + len + strlen(ITEM_SEP);
		if (strcmp(e->sha, "-") == 0)
			e->sha = "";
		e->flags = (unsigned)flags;
		e->item_len = ilen;
		if (ilen == 0)
			e->item = NULL;
		e->text = NULL;
		e->text_at = start + off;
		e->text_len = len;
		r->fz->n = r->nfz = i + 1;
	}
	if (c.p != c.end ||
	    (n > 0 && (!byte_is(*proj_fd, start, '{') ||
		       !byte_is(*proj_fd, start + next - strlen(ITEM_SEP) - 1, '}'))))
		goto bad;
	r->fz->logged = n;
	r->fz->log_bytes = log_len;
	/* The items live in the log; the texts stay in the file. */
	r->fz->log = *log;
	*log = NULL;
	r->fz->src_fd = *proj_fd;
	*proj_fd = -1;
	*out = r;
	return 0;
bad:
	rc = sw_error_set(err, SW_EPARSE, "the replay checkpoint does not parse");
fail:
	run_free(r);
	sw_free(*extra);
	*extra = NULL;
	return rc;
}


