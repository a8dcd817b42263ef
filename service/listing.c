/* The listing of this repository's Runs for status: each Run replayed, or
 * read from its listing summary while that proves current. */

#include "service/internal.h"

#include <string.h>

#include "service/emit.h"
#include "io/store/run_check.h"
#include "io/store/run_record.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

struct header_ctx {
	int read;		/* event 1 is a run_started event */
	struct run *run;	/* the Run it starts, checked; NULL when it
				 * does not replay or check */
};

static int header_visit(const struct store_event *ev, void *payload, struct sw_error *err)
{
	struct header_ctx *h = payload;
	struct sw_error local = SW_ERROR_INIT;
	json_t *data = json_loadb(ev->data, ev->data_len, JSON_REJECT_DUPLICATES, NULL);

	if (data == NULL || ev->type != TBL_JEVENT_RUN_STARTED ||
	    !json_is_object(json_object_get(data, "initialize"))) {
		json_decref(data);
		return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID, "the first record is not run_started");
	}
	h->read = 1;
	if (run_replay(&h->run, tbl_jevent_wire[ev->type], data, &local) < 0 ||
	    run_check(h->run, &local) < 0) {
		run_free(h->run);
		h->run = NULL;
	}
	json_decref(data);
	return 0;
}

/* The nanoseconds of an RFC3339Nano UTC time's fraction ("" -> 0). */
static long fraction_ns(const char *t)
{
	const char *dot = strchr(t, '.');
	long ns = 0;
	int digits = 0;

	if (dot == NULL)
		return 0;
	for (const char *p = dot + 1; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
		ns = ns * 10 + (*p - '0');
	for (; digits < 9; digits++)
		ns *= 10;
	return ns;
}

/* created_at order, then id.  Our times are UTC with trimmed fractions, so
 * compare the seconds as text and the fractions as numbers. */
static int by_creation(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	const char *tx = jstr(x, "created_at") ? jstr(x, "created_at") : "";
	const char *ty = jstr(y, "created_at") ? jstr(y, "created_at") : "";
	int c = strncmp(tx, ty, 19);

	if (c == 0) {
		long fx = fraction_ns(tx), fy = fraction_ns(ty);

		c = (fx > fy) - (fx < fy);
	}
	return c ? c : strcmp(jstr(x, "id"), jstr(y, "id"));
}

static void sort_runs(json_t *runs)
{
	size_t n = json_array_size(runs);
	json_t **v = sw_calloc(n ? n : 1, sizeof(*v));

	if (v == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(runs, i));
	qsort(v, n, sizeof(*v), by_creation);
	json_array_clear(runs);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(runs, v[i]);
	sw_free(v);
}

/* The fields the human listing prints, from a Run's record (new
 * reference, or NULL on ENOMEM). */
static json_t *brief_entry(const struct run_record *rec)
{
	return json_pack("{s:s, s:s, s:I, s:s, s:s}", "id", rec->id,
			 "state", tbl_runstate_wire[rec->state],
			 "remaining_budget", (json_int_t)rec->remaining_budget,
			 "goal", rec->goal, "created_at", rec->created_at);
}

/* The listing entry of a local Run: its runStatus, or with `brief` only
 * the fields the human listing prints.  A context that cannot be read
 * back hides nothing: the runStatus shows a note in its place.  NULL with
 * `err` set on failure. */
static json_t *list_entry(struct svc *d, const struct run *r, int brief, struct sw_error *err)
{
	json_t *e;

	if (!brief)
		return svc_status_json(d, r, NULL, err);
	if ((e = brief_entry(run_record(r))) == NULL)
		sw_error_set(err, SW_ENOMEM, "out of memory");
	return e;
}

/* The listing summary of `r` (store_mutation_set_summary), written with
 * each mutation: the Run's workspace id, a newline, and its brief listing
 * entry.  It stands for the replay and the context reads of list_entry
 * only while the journal and the materials are what they were then. */
int svc__add_list_summary(struct store_mutation *sm, const struct run *r,
			    struct sw_error *err)
{
	const char *wid = run_record(r)->workspace_identity.id;
	json_t *e = brief_entry(run_record(r));
	char *text = e ? json_dumps(e, JSON_COMPACT) : NULL;
	struct sw_buf b = SW_BUF_INIT;
	int rc = 0;

	json_decref(e);
	if (wid != NULL && text != NULL) {
		sw_buf_fmt(&b, "%s\n%s", wid, text);
		rc = b.failed ? sw_error_set(err, SW_ENOMEM, "cannot encode the listing summary")
			      : store_mutation_set_summary(sm, b.p, b.len, err);
	}
	sw_buf_release(&b);
	sw_free(text);
	return rc;
}

/* The brief entry of run `id` from its listing summary, when the summary
 * still holds and names this workspace and this Run; NULL otherwise. */
static json_t *summary_entry(struct svc *d, const char *id)
{
	json_t *e = NULL;
	char *body = NULL, *nl;
	size_t len = 0;

	if (store_read_summary(&body, &len, d->store, id) == 1 &&
	    (nl = memchr(body, '\n', len)) != NULL) {
		*nl = '\0';
		if (strcmp(body, d->ws.id) == 0)
			e = json_loadb(nl + 1, len - (size_t)(nl + 1 - body), JSON_REJECT_DUPLICATES, NULL);
		if (!json_is_object(e) || jstr(e, "id") == NULL || strcmp(jstr(e, "id"), id) != 0) {
			json_decref(e);
			e = NULL;
		}
	}
	sw_free(body);
	return e;
}

/* Another worktree's Run, as its first record shows it: a stub pointing
 * there. */
static json_t *foreign_stub(const struct run *first, const char *id, const char *ws_id)
{
	const struct run_record *rec = run_record(first);
	const struct run_workspace_identity *pid = &rec->workspace_identity;
	struct sw_error err = SW_ERROR_INIT;
	struct next_fill fill = { .run_id = id };
	struct next *nx = NULL;
	json_t *entry;

	if (next_build_form(&nx, NEXT_FORM_FOREIGN_RUN, pid->id, pid->worktree_root, &fill,
			    &err) < 0)
		next_none_identity(&nx, pid->id ? pid->id : ws_id, &err);
	/* The reference encodes the stub from a map: keys sorted. */
	entry = json_pack("{s:i, s:s, s:s, s:s, s:o, s:s, s:s, s:b}", "contract_version", 2,
			  "created_at", rec->created_at, "goal", rec->goal, "id", rec->id,
			  "next", next_to_json(nx), "state", tbl_runstate_wire[rec->state],
			  "workspace", rec->workspace, "workspace_foreign", 1);
	next_free(nx);
	if (entry && run_reply_fields(entry, first, RUN_REPLY_WORKSPACE_IDENTITY, &err) < 0) {
		json_decref(entry);
		entry = NULL;
	}
	return entry;
}

int svc_list(struct svc *d, struct svc_listing *out, int brief)
{
	struct sw_error err = SW_ERROR_INIT;
	char **ids = NULL;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->runs = json_array();
	out->unavailable = json_array();
	out->runs_dir = sw_asprintf("%s/slipway/runs", d->ws.git_common_dir);
	if (out->runs == NULL || out->unavailable == NULL || out->runs_dir == NULL)
		return svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "out of memory", NULL, d->ws.worktree_root, NULL);
	if (store_list(&ids, &n, d->store, &err) < 0)
		return svc__fail_store(d, &err, NULL);
	for (size_t i = 0; i < n; i++) {
		struct header_ctx h = { 0 };
		struct run *r = NULL;
		enum tbl_err code = TBL_ERR_NONE;
		json_t *entry = NULL;

		sw_error_clear(&err);
		if (brief && (entry = summary_entry(d, ids[i])) != NULL)
			goto add;
		/* A local Run that replays is listed from that one replay; a
		 * foreign one, or one that does not replay, is told apart by
		 * its first record below. */
		if (svc_load(d, ids[i], &r, 1, &code) == 0 &&
		    strcmp(run_record(r)->workspace_identity.id, d->ws.id) == 0) {
			entry = list_entry(d, r, brief, &err);
			goto add;
		}
		run_free(r);
		r = NULL;
		if (store_first_event(d->store, ids[i], header_visit, &h, &err) < 0 || !h.read) {
			json_array_append_new(out->unavailable,
					      json_pack("{s:s, s:s, s:s}", "id", ids[i], "code",
							svc__unavailable_code(&err), "detail",
							err.msg[0] ? err.msg : "the run header cannot be read"));
			run_free(h.run);
			continue;
		}
		if (h.run && svc__misnamed(h.run, ids[i], &err)) {
			json_array_append_new(out->unavailable,
					      json_pack("{s:s, s:s, s:s}", "id", ids[i], "code",
							tbl_err_wire[TBL_ERR_RUN_JOURNAL_INVALID],
							"detail", err.msg));
			run_free(h.run);
			continue;
		}
		/* A first record that does not check is this worktree's to
		 * report as unavailable (below). */
		if (h.run && strcmp(run_record(h.run)->workspace_identity.id, d->ws.id) != 0) {
			entry = foreign_stub(h.run, ids[i], d->ws.id);
			if (entry)
				json_array_append_new(out->runs, entry);
			run_free(h.run);
			continue;
		}
		run_free(h.run);
		if (svc_load(d, ids[i], &r, 1, &code) != 0) {
			/* run_unavailable names an unreadable directory in the
			 * list; it is no error code of its own. */
			const int unreadable = code == TBL_ERR_RUNSTORE_UNAVAILABLE;
			const char *wire = unreadable ? "run_unavailable"
					   : tbl_err_wire[code == TBL_ERR_RUN_BUSY
							  ? TBL_ERR_RUN_BUSY
							  : TBL_ERR_RUN_JOURNAL_INVALID];

			json_array_append_new(out->unavailable,
					      json_pack("{s:s, s:s, s:s}", "id", ids[i], "code", wire,
							"detail", unreadable
							? "the run directory cannot be read (see slipway doctor)"
							: code == TBL_ERR_RUN_BUSY
							? "another slipway process holds the Run's lock; "
							  "list again once it has ended"
							: "the run journal cannot be replayed"));
			continue;
		}
		entry = list_entry(d, r, brief, &err);
add:
		if (entry)
			json_array_append_new(out->runs, entry);
		else	/* listed, never dropped: say why it cannot be shown */
			json_array_append_new(out->unavailable,
					      json_pack("{s:s, s:s, s:s}", "id", ids[i], "code",
							"run_unavailable", "detail", err.msg));
		run_free(r);
	}
	store_list_free(ids, n);
	sort_runs(out->runs);
	return 0;
}

void svc_listing_release(struct svc_listing *l)
{
	json_decref(l->runs);
	json_decref(l->unavailable);
	sw_free(l->runs_dir);
	l->runs = l->unavailable = NULL;
	l->runs_dir = NULL;
}
