/* stop: stop a Run (the one active or paused Run when no id is given). */

#include "service/ops.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/wire/input.h"
#include "service/emit.h"

/* The one local active or paused Run, when exactly one exists. */
static int implicit_run(struct svc *d, char *out, size_t len)
{
	struct svc_listing l;
	struct next *n = NULL;
	const char *found = NULL;
	size_t candidates = 0, i;
	json_t *entry;
	int rc;

	if ((rc = svc_list(d, &l, 0)) != 0)
		return rc;
	json_array_foreach(l.runs, i, entry) {
		const char *state = json_string_value(json_object_get(entry, "state"));

		if (json_is_true(json_object_get(entry, "workspace_foreign")))
			continue;
		if (strcmp(state, "active") == 0 || strcmp(state, "paused") == 0) {
			candidates++;
			found = json_string_value(json_object_get(entry, "id"));
		}
	}
	if (json_array_size(l.unavailable) == 0 && candidates == 1) {
		snprintf(out, len, "%s", found);
		svc_listing_release(&l);
		return 0;
	}
	next_build_form(&n, NEXT_FORM_LIST_RUNS, d->ws.id, d->ws.worktree_root,
			&(struct next_fill){ 0 }, &(struct sw_error)SW_ERROR_INIT);
	rc = svc_fail(TBL_ERR_RUN_ID_REQUIRED, 0,
		      json_array_size(l.unavailable)
			      ? "some run journals cannot be read; name the run to stop"
		      : candidates == 0 ? "no active or paused run to stop"
					: "more than one active or paused run; name the run to stop",
		      n, NULL, NULL);
	next_free(n);
	svc_listing_release(&l);
	return rc;
}

static int stop(const struct svc_stop_request *req)
{
	struct sw_error err = SW_ERROR_INIT;
	struct svc_mutation m = { .event = FSM_EV_STOP };
	struct svc d = { .root_arg = req->root };
	char id[160], headline[200];
	int rc;

	if (req->run_id && input_run_id_check(req->run_id, &err) < 0)
		return svc_usage(&d, TBL_ERR_INVALID_RUN_ID, err.msg);
	if ((rc = svc_open(&d, true)) != 0)
		return rc;
	if (req->run_id)
		snprintf(id, sizeof(id), "%s", req->run_id);
	else if ((rc = implicit_run(&d, id, sizeof(id))) != 0)
		goto close;
	m.run_id = id;
	if ((rc = svc_mutate(&d, &m)) == 0) {
		snprintf(headline, sizeof(headline), "Stopped run %s.", id);
		rc = svc_print_state(&d, m.run, req->human, headline, 0, NULL);
	}
	svc_mutation_release(&m);
close:
	svc_close(&d);
	return rc;
}

int svc_op_stop(const struct svc_stop_request *req, struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT : svc_result_end(res, stop(req));
}
