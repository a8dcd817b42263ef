/* The one check of a loaded Run (see io/store/run_check.h): the record
 * decoded (io/store/run_decode.c), every recorded Outcome accepted by the
 * Outcome decoder again, and the state, pause reason and budgets that
 * must go together.  Above the record's code (the files
 * io/store/run_internal.h lists), which never calls it. */

#include "io/store/run_check.h"

#include <string.h>

#include <jansson.h>

#include "io/util/json.h"
#include "io/wire/outcome.h"
#include "io/store/run_codec.h"
#include "io/store/run_record.h"

static int invalid(struct sw_error *err, const char *path, const char *what)
{
	return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID,
			      "the Run record is invalid: %s %s", path, what);
}

/* A recorded Outcome passes the decoder it passed when it was submitted. */
static int check_outcomes(const json_t *rec, struct sw_error *err)
{
	const json_t *rec_i, *o;
	size_t i;

	json_array_foreach(json_object_get(rec, "actions"), i, rec_i) {
		struct sw_error local = SW_ERROR_INIT;
		struct outcome parsed;
		char *text;
		int rc;

		if ((o = json_object_get(rec_i, "outcome")) == NULL)
			continue;
		if ((text = sw_json_dump(o)) == NULL)
			return sw_error_set(err, SW_ENOMEM, "cannot check the Run record");
		rc = outcome_parse(&parsed, text, strlen(text), &local);
		if (rc == 0)
			outcome_release(&parsed);
		sw_free(text);
		if (rc == SW_ENOMEM)
			return sw_error_set(err, SW_ENOMEM, "cannot check the Run record");
		if (rc < 0)
			return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID,
					      "the Run record is invalid: actions[%zu].outcome: %s",
					      i, local.msg);
	}
	return 0;
}

int run_check(struct run *r, struct sw_error *err)
{
	const struct run_record *rec;
	struct fsm_run m;
	int rc;

	if ((rc = run_decode(r, err)) < 0 || (rc = check_outcomes(run_json(r), err)) < 0)
		return rc;
	m = run_machine(r);
	if (m.state == FSM_ST_INVALID || m.state == FSM_ST_NEW)
		return invalid(err, "state", "does not go with its pause_reason");
	rec = run_record(r);
	if (rec->remaining_budget < 0 || rec->initial_budget < 1)
		return invalid(err, "budget", "is out of range");
	return 0;
}
