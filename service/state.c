/* The reply of a Run: the protocolState after a mutation, and the
 * runStatus document, with the contexts this operation stored. */

#include "service/internal.h"

#include <string.h>

#include "service/emit.h"
#include "io/wire/render.h"
#include "io/store/run_record.h"

int svc_print_state(struct svc *d, const struct run *r, int human,
		       const char *headline, int with_facts, const char *resume_operation)
{
	struct context_reader cr = { d, run_id(r), SW_ERROR_INIT, NULL };
	const struct run_record *rec = run_record(r);
	struct next *n = svc_run_next(r, 0);
	json_t *doc = NULL;
	const char *why = "out of memory";
	int rc = SVC_EXIT_OK;

	if (n == NULL)
		return svc__fail_committed_output(d, run_id(r), "cannot derive the next operation");
	if (!human) {
		doc = json_pack("{s:i, s:s, s:s}", "contract_version", 2, "run_id", run_id(r),
				"state", tbl_runstate_wire[rec->state]);
		if (doc == NULL)
			goto fail;
		if (rec->pause_reason != FSM_PAUSE_NONE)
			json_object_set_new(doc, "pause_reason",
					    json_string(tbl_pause_wire[rec->pause_reason]));
		if (rec->summary)
			json_object_set_new(doc, "summary", json_string(rec->summary));
		if (rec->current_action) {
			json_t *full = run_current_action_full(r, svc__read_context, &cr);

			if (full == NULL) {
				json_decref(doc);
				why = "cannot read the current Action's context";
				goto fail;
			}
			json_object_set_new(doc, "action", full);
		}
		json_object_set_new(doc, "next", next_to_json(n));
		if (run_reply_fields(doc, r, RUN_REPLY_PINNED_SOURCE | RUN_REPLY_SOURCE_CANDIDATE,
				     &cr.err) < 0) {
			json_decref(doc);
			goto fail;
		}
		if (resume_operation) {
			/* The Run's own resume result says what happened (a
			 * candidate costs no budget; a replayed choice answers as
			 * it did). */
			const struct run_resume_result *res = rec->last_resume_result;

			json_object_set_new(doc, "resume_operation",
					    json_string(res ? res->operation : resume_operation));
			json_object_set_new(doc, "budget_applied",
					    json_boolean(res ? res->budget_applied : 1));
		}
		if (svc_print_json(doc) < 0)
			rc = svc__fail_committed_output(d, run_id(r), "cannot write to standard output");
	} else {
		char *choices = NULL;
		struct sw_error err = SW_ERROR_INIT;
		const struct run_action *cur = rec->current_action;

		fprintf(svc_out(), "%s\n", headline);
		if (with_facts) {
			fprintf(svc_out(), "State: %s\nGoal: %s\nBudget remaining: %lld\n",
			       tbl_runstate_wire[rec->state], rec->goal, rec->remaining_budget);
			if (cur)
				fprintf(svc_out(), "Current action: %s (%s)\n", tbl_kind_wire[cur->kind],
				       cur->action_id);
			else
				fprintf(svc_out(), "Current action: none\n");
		}
		if (render_next_choices(&choices, n, RENDER_SHELL_NATIVE, getenv("SystemRoot"), &err) == 0 &&
		    choices && choices[0])
			fputs(choices, svc_out());
		sw_free(choices);
		if (svc_flush_out() < 0)
			rc = svc__fail_committed_output(d, run_id(r), "cannot write to standard output");
	}
	json_decref(doc);
	next_free(n);
	return rc;
fail:
	next_free(n);
	return svc__fail_committed_output(d, run_id(r), why);
}

/* A context this operation stored, or read back from the run's materials. */
char *svc__read_context(const char *digest, void *payload)
{
	struct context_reader *cr = payload;
	json_t *kept = json_object_get(cr->d->contexts, digest);
	void *bytes = NULL;
	size_t len = 0;
	char *text;

	if (kept != NULL)
		return sw_strndup(json_string_value(kept), json_string_length(kept));
	if (store_read_material(&bytes, &len, cr->d->store, cr->run_id, digest, &cr->err) < 0)
		return NULL;
	text = sw_strndup(bytes, len);
	sw_free(bytes);
	return text;
}

/* svc__read_context for status: a context that cannot be read back
 * (missing, altered, unreadable) is replaced by a note naming its
 * material, and recorded in cr->damaged; only running out of memory
 * fails. */
static char *status_context(const char *digest, void *payload)
{
	struct context_reader *cr = payload;
	char *text = svc__read_context(digest, cr), *note;
	const char *why = cr->err.msg[0] ? cr->err.msg : "it cannot be read";
	size_t i;
	json_t *v;

	if (text != NULL || cr->err.code == SW_ENOMEM)
		return text;
	note = sw_asprintf("%s: %s", digest, why);
	if (note == NULL)
		return NULL;
	json_array_foreach(cr->damaged, i, v)
		if (strcmp(json_string_value(v), note) == 0)
			break;
	if (i == json_array_size(cr->damaged) && json_array_append_new(cr->damaged, json_string(note)) < 0) {
		sw_free(note);
		return NULL;
	}
	sw_free(note);
	note = sw_asprintf("[context unavailable: its material %s cannot be read back (%s); "
			   "slipway shows the rest of the Run without it]", digest, why);
	sw_error_clear(&cr->err);
	return note;
}

json_t *svc_status_json(struct svc *d, const struct run *r, struct json_t **damaged,
			struct sw_error *err)
{
	struct context_reader cr = { d, run_id(r), SW_ERROR_INIT, json_array() };
	json_t *doc = cr.damaged ? run_status_json(r, 1, status_context, &cr) : NULL;
	struct next *n = svc_run_next(r, 0);

	if (doc == NULL || n == NULL ||
	    json_object_set_new(doc, "next", next_to_json(n)) < 0) {
		json_decref(doc);
		doc = NULL;
		sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	if (doc != NULL && damaged != NULL)
		*damaged = json_incref(cr.damaged);
	json_decref(cr.damaged);
	next_free(n);
	return doc;
}
