/* Loading a Run: its journal replayed into the record, the record checked,
 * and the Run matched to this workspace. */

#include "service/internal.h"

#include <string.h>

#include "service/emit.h"
#include "io/store/run_check.h"
#include "io/store/run_record.h"

/* Parses one event's data and applies it to *r; *data (may be NULL) gets
 * the parsed value for the caller, who then owns it. */
int svc__replay_event(const struct store_event *ev, struct run **r, json_t **data,
			struct sw_error *err)
{
	unsigned long failed = sw_alloc_failures();
	json_error_t jerr;
	json_t *v = json_loadb(ev->data, ev->data_len, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	/* Jansson's lexer drops bytes it cannot store and parses on: such a
	 * record is not the journal's, nor is a failure a malformed one. */
	if (sw_alloc_failures() != failed) {
		json_decref(v);
		return sw_error_set(err, SW_ENOMEM, "out of memory reading journal record %lld",
				    ev->sequence);
	}
	if (v == NULL)
		return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID,
				      "journal record %lld: %s", ev->sequence, jerr.text);
	rc = run_replay(r, tbl_jevent_wire[ev->type], v, err);
	if (rc < 0 || data == NULL)
		json_decref(v);
	else
		*data = v;
	return rc;
}

struct load_ctx {
	struct run *run;
	struct run_history *history;	/* NULL: not gathered */
};

static int replay_visit(const struct store_event *ev, void *payload,
			struct sw_error *err)
{
	struct load_ctx *c = payload;
	json_t *data = NULL;
	int rc;

	if (c->history == NULL)
		return svc__replay_event(ev, &c->run, NULL, err);
	if ((rc = svc__replay_event(ev, &c->run, &data, err)) == 0)
		rc = run_history_gather(c->history, ev->type, data, err);
	json_decref(data);
	return rc;
}

/* Checks the Run belongs to this workspace. */
int svc__check_workspace(const struct svc *d, const struct run *r)
{
	const struct run_workspace_identity *pinned = &run_record(r)->workspace_identity;
	const char *want = pinned->id;
	struct sw_error err = SW_ERROR_INIT;
	struct next_fill fill = { 0 };
	struct next *n = NULL;
	json_t *details;
	int rc;

	if (strcmp(want, d->ws.id) == 0 && strcmp(pinned->worktree_root, d->ws.worktree_root) == 0)
		return 0;
	details = json_pack("{s:s, s:s}", "expected_workspace_identity", want,
			    "observed_workspace_identity", d->ws.id);
	if (next_build_form(&n, NEXT_FORM_MISMATCHED_WORKSPACE, want,
			    pinned->worktree_root, &fill, &err) < 0)
		next_none_identity(&n, want, &err);
	rc = svc_fail(TBL_ERR_WORKSPACE_IDENTITY_MISMATCH, 0,
		      "workspace identity mismatch: the current Git worktree or metadata "
		      "directories differ from the Run's", n, NULL, details);
	json_decref(details);
	next_free(n);
	return rc;
}

/* The run directory could not be read for a reason of the system (no
 * permission, no file descriptor left, no memory, an I/O error), not
 * because of what it holds: no journal is blamed for that. */
static bool system_failure(const struct sw_error *err)
{
	return err->code == SW_EIO || err->code == SW_ENOMEM;
}

/* The unavailableRun code for a Run that cannot be listed. */
const char *svc__unavailable_code(const struct sw_error *err)
{
	if (system_failure(err))
		return "run_unavailable";
	if (err->proto == TBL_ERR_RUN_BUSY)
		return "run_busy";
	return "run_journal_invalid";
}

bool svc__misnamed(const struct run *r, const char *dir, struct sw_error *err)
{
	if (strcmp(run_id(r), dir) == 0)
		return false;
	sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID, "run journal identity mismatch: the "
		       "run directory '%s' holds the journal of run '%s' (a copied or renamed "
		       "run directory is not a Run)", dir, run_id(r));
	return true;
}

static int load(struct svc *d, const char *run_id_arg, struct run **out,
		struct run_history *history, int quiet, enum tbl_err *code)
{
	struct sw_error err = SW_ERROR_INIT;
	unsigned long failed = sw_alloc_failures();
	struct load_ctx lc = { NULL, history };
	struct run *r = NULL;
	int rc;

	*out = NULL;
	rc = store_visit(d->store, run_id_arg, replay_visit, &lc, NULL, &err);
	r = lc.run;
	if (rc < 0 || r == NULL || run_check(r, &err) < 0 || svc__misnamed(r, run_id_arg, &err)) {
		enum tbl_err c = err.proto;

		run_free(r);
		/* A record Jansson could not hold reads as malformed: when an
		 * allocation failed on the way, memory ran out, whatever the
		 * journal holds. */
		if (sw_alloc_failures() != failed && !system_failure(&err)) {
			sw_error_clear(&err);
			sw_error_set(&err, SW_ENOMEM, "out of memory while replaying the run journal");
		}
		if (system_failure(&err))
			c = TBL_ERR_RUNSTORE_UNAVAILABLE;
		else if (c != TBL_ERR_RUN_NOT_FOUND && c != TBL_ERR_RUN_BUSY)
			c = TBL_ERR_RUN_JOURNAL_INVALID;
		if (code)
			*code = c;
		if (quiet)
			return SVC_EXIT_RUNTIME;
		return svc__fail_load(d, c, err.msg, run_id_arg);
	}
	if (!quiet && (rc = svc__check_workspace(d, r)) != 0) {
		run_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int svc_load(struct svc *d, const char *run_id_arg, struct run **out,
	     int quiet, enum tbl_err *code)
{
	return load(d, run_id_arg, out, NULL, quiet, code);
}

int svc_load_history(struct svc *d, const char *run_id_arg, struct run **out,
		     struct run_history **history)
{
	struct sw_error err = SW_ERROR_INIT;
	int rc;

	*history = NULL;
	if (run_history_new(history, &err) < 0)
		return svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "out of memory", NULL, d->ws.worktree_root,
				NULL);
	if ((rc = load(d, run_id_arg, out, *history, 0, NULL)) != 0) {
		run_history_free(*history);
		*history = NULL;
	}
	return rc;
}
