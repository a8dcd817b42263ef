/* The protocol operations: submit, answer, skip, resume (with its source
 * modes) and material. */

#include "service/ops.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/file.h"
#include "io/wire/input.h"
#include "io/wire/outcome.h"
#include "io/source/source.h"
#include "io/store/store.h"
#include "service/emit.h"

/* The inspect-run recovery for preflight errors: addressed at the raw
 * --root (or the current directory) and the named run. */
static int preflight_fail(const char *root, const char *run, enum tbl_err code,
			  const char *msg)
{
	return svc_fail_inspect(code, msg, root, run);
}

/* run_id_required / invalid_run_id, shared by every operation. */
static int check_run_id(const char *root, const char *run)
{
	struct sw_error err = SW_ERROR_INIT;

	if (run == NULL || run[0] == '\0')
		return svc_fail(TBL_ERR_RUN_ID_REQUIRED, 0, "run cannot be empty", NULL, root, NULL);
	if (input_run_id_check(run, &err) < 0)
		return preflight_fail(root, NULL, TBL_ERR_INVALID_RUN_ID, err.msg);
	return 0;
}

/* run_id_required, invalid_run_id, then action_id_required. */
static int check_run_action(const char *root, const char *run, const char *action)
{
	int rc = check_run_id(root, run);

	if (rc != 0)
		return rc;
	if (action == NULL || action[0] == '\0')
		return preflight_fail(root, run, TBL_ERR_ACTION_ID_REQUIRED, "action cannot be empty");
	return 0;
}

static int finish(struct svc *d, struct svc_mutation *m, const char *resume_op)
{
	int rc = svc_mutate(d, m);

	if (rc == 0)
		rc = svc_print_state(d, m->run, 0, NULL, 0, resume_op);
	svc_mutation_release(m);
	svc_close(d);
	return rc;
}

static int submit(const struct svc_submit_request *req)
{
	const char *run = req->run_id, *action = req->action_id, *file = req->outcome_file;
	int use_stdin = req->outcome_stdin, file_set = req->outcome_file_given, rc;
	struct sw_error err = SW_ERROR_INIT;
	struct svc_mutation m = { .event = FSM_EV_SUBMIT };
	struct outcome o;
	struct svc d = { .root_arg = req->root };
	char *buf = NULL, *canon = NULL;
	size_t len = 0;
	json_t *canon_json = NULL;
	struct next *retry = NULL;

	if ((rc = check_run_action(d.root_arg, run, action)) != 0)
		goto out;
	if (file_set == (use_stdin != 0)) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_OUTCOME_MODE_REQUIRED,
				    "exactly one of outcome-file or outcome-stdin is required");
		goto out;
	}
	if (file_set && file[strspn(file, " \t\r\n")] == '\0') {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_OUTCOME_FILE_REQUIRED,
				    "outcome-file cannot be empty");
		goto out;
	}
	if ((rc = svc_discover(&d)) != 0)
		goto out;
	{
		struct next_fill fill = { .run_id = run, .action_id = action };

		if (next_build_form(&retry, use_stdin ? NEXT_FORM_SUBMIT_STDIN : NEXT_FORM_SUBMIT_FILE,
				    d.ws.id, d.ws.worktree_root, &fill, &err) < 0)
			retry = NULL;
	}
	if ((file_set ? sw_read_regular_file(&buf, &len, file, OUTCOME_MAX_BYTES + 1, &err)
		      : sw_read_stdin(&buf, &len, OUTCOME_MAX_BYTES + 1, &err)) < 0) {
		rc = err.code == SW_ETOOBIG
			? svc_fail(TBL_ERR_INVALID_OUTCOME, 0, "outcome exceeds 1048576 bytes", retry, NULL, NULL)
			: svc_fail(TBL_ERR_OUTCOME_UNAVAILABLE, 0, err.msg, retry, NULL, NULL);
		svc_close(&d);
		goto out;
	}
	sw_error_clear(&err);
	if (outcome_parse(&o, buf, len, &err) < 0) {
		if (err.proto == TBL_ERR_CONTRACT_VERSION_MISMATCH) {
			struct next *n = NULL;

			next_build_form(&n, NEXT_FORM_REFRESH_ADAPTERS, d.ws.id, d.ws.worktree_root,
					&(struct next_fill){ 0 }, &(struct sw_error)SW_ERROR_INIT);
			rc = svc_fail(TBL_ERR_CONTRACT_VERSION_MISMATCH, 0, err.msg, n, NULL, NULL);
			next_free(n);
		} else {
			rc = svc_fail(TBL_ERR_INVALID_OUTCOME, 0, err.msg, retry, NULL, NULL);
		}
		svc_close(&d);
		goto out;
	}
	if (outcome_to_json(&canon, &o, &err) < 0 ||
	    (canon_json = json_loads(canon, 0, NULL)) == NULL) {
		rc = svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "cannot encode the Outcome", NULL,
			      d.ws.worktree_root, NULL);
		outcome_release(&o);
		svc_close(&d);
		goto out;
	}
	if ((rc = svc_open_store(&d, true)) != 0) {
		outcome_release(&o);
		goto out;
	}
	m.run_id = run;
	m.action_id = action;
	m.outcome = &o;
	m.outcome_json = canon_json;
	rc = finish(&d, &m, NULL);
	outcome_release(&o);
out:
	json_decref(canon_json);
	sw_free(canon);
	sw_free(buf);
	next_free(retry);
	return rc;
}

static int answer(const struct svc_answer_request *req)
{
	const char *run = req->run_id, *action = req->action_id, *text = req->text,
		   *file = req->text_file, *scope = req->scope_sha256;
	int use_stdin = req->text_stdin, confirm = req->confirm_destructive, rc, modes;
	struct sw_error err = SW_ERROR_INIT;
	struct svc_mutation m = { .event = FSM_EV_ANSWER };
	struct svc d = { .root_arg = req->root };
	char *buf = NULL;
	size_t len = 0;

	if ((rc = check_run_action(d.root_arg, run, action)) != 0)
		goto out;
	modes = (req->text_given != 0) + (req->text_file_given != 0) + (use_stdin != 0);
	if (modes > 1) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_ANSWER_MODE_CONFLICT,
				    "text, text-file, and text-stdin are mutually exclusive");
		goto out;
	}
	if (req->text_file_given && file[strspn(file, " \t\r\n")] == '\0') {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_ANSWER_FILE_REQUIRED,
				    "text-file cannot be empty");
		goto out;
	}
	if (req->text_file_given || use_stdin) {
		if ((req->text_file_given ? sw_read_regular_file(&buf, &len, file, INPUT_MAX_TEXT_BYTES, &err)
					  : sw_read_stdin(&buf, &len, INPUT_MAX_TEXT_BYTES, &err)) < 0) {
			rc = preflight_fail(d.root_arg, run,
					    err.code == SW_ETOOBIG ? TBL_ERR_ANSWER_TOO_LARGE
								   : TBL_ERR_ANSWER_UNAVAILABLE,
					    err.msg);
			goto out;
		}
		text = buf;
	} else {
		len = text ? strlen(text) : 0;
		if (text == NULL)
			text = "";
	}
	if (input_answer_check(text, len, &err) < 0 || strlen(text) != len) {
		rc = preflight_fail(d.root_arg, run,
				    err.proto ? err.proto
							      : TBL_ERR_INVALID_ANSWER,
				    err.msg[0] ? err.msg : "answer contains a NUL byte");
		goto out;
	}
	if ((confirm != 0) != (scope != NULL && scope[strspn(scope, " \t\r\n")] != '\0')) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_DESTRUCTIVE_CONFIRMATION_PAIR_REQUIRED,
				    "confirm-destructive and scope-sha256 must be provided together");
		goto out;
	}
	if ((rc = svc_open(&d, true)) != 0)
		goto out;
	m.run_id = run;
	m.action_id = action;
	m.text = text;
	m.text_len = len;
	m.confirm = confirm;
	m.scope = scope ? scope : "";
	rc = finish(&d, &m, NULL);
out:
	sw_free(buf);
	return rc;
}

static int skip(const struct svc_skip_request *req)
{
	struct svc_mutation m = { .event = FSM_EV_SKIP };
	struct svc d = { .root_arg = req->root };
	int rc;

	if ((rc = check_run_action(d.root_arg, req->run_id, req->action_id)) != 0)
		return rc;
	if ((rc = svc_open(&d, true)) != 0)
		return rc;
	m.run_id = req->run_id;
	m.action_id = req->action_id;
	return finish(&d, &m, NULL);
}

/* resume --source-file: reads and classifies the refreshed envelope.  A
 * hard failure is invalid_source_candidate whose next is the Run's resume
 * choices when the Run can be read, else a refresh-source command. */
static int import_candidate(struct svc *d, struct source_candidate **out,
			    const struct svc_resume_request *req, unsigned budget)
{
	struct sw_error err = SW_ERROR_INIT;
	const char *run_id_arg = req->run_id;
	int budget_given = req->budget != NULL;
	struct next_fill fill = { .run_id = run_id_arg, .budget = budget };
	struct next *n = NULL;
	struct run *r = NULL;
	char *buf = NULL, msg[600];
	size_t len = 0;
	int rc;

	if (svc_read_source(&buf, &len, req->source_file, req->source_bytes, req->source_len, &err) < 0)
		snprintf(msg, sizeof(msg), "source file could not be read safely");
	else if (source_parse_candidate(out, buf, len, &err) < 0)
		snprintf(msg, sizeof(msg), "source file could not be imported: %s", err.msg);
	sw_free(buf);
	if (*out != NULL)
		return 0;
	sw_error_clear(&err);
	if (svc_open_store(d, false) == 0) {
		if (svc_load(d, run_id_arg, &r, 1, NULL) == 0)
			n = svc_run_next(r, 1);
		run_free(r);
		store_free(d->store);
		d->store = NULL;
	} else {
		/* svc_open_store released the workspace on failure. */
		return SVC_EXIT_RUNTIME;
	}
	if (n == NULL &&
	    next_build_form(&n, budget_given ? NEXT_FORM_REFRESH_SOURCE_BUDGET : NEXT_FORM_REFRESH_SOURCE,
			    d->ws.id, d->ws.worktree_root, &fill, &err) < 0)
		next_none_identity(&n, d->ws.id, &err);
	rc = svc_fail(TBL_ERR_INVALID_SOURCE_CANDIDATE, 0, msg, n, d->ws.worktree_root, NULL);
	next_free(n);
	return rc;
}

static int resume(const struct svc_resume_request *req)
{
	const char *budget_s = req->budget, *source = req->source_file, *choice = req->source_choice,
		   *candidate = req->candidate, *run = req->run_id;
	int pinned = req->use_pinned_source, rc, modes;
	struct sw_error err = SW_ERROR_INIT;
	struct svc_mutation m = { .event = FSM_EV_RESUME };
	struct source_candidate *refresh = NULL;
	struct svc d = { .root_arg = req->root };
	long budget = 0;

	if ((rc = check_run_id(d.root_arg, run)) != 0)
		goto out;
	if (budget_s && input_budget_parse(&budget, budget_s, &err) < 0) {
		rc = err.proto == TBL_ERR_INVALID_BUDGET
			? preflight_fail(d.root_arg, run, TBL_ERR_INVALID_BUDGET, err.msg)
			: svc_fail(TBL_ERR_INVALID_USAGE, 0, err.msg, NULL, d.root_arg, NULL);
		goto out;
	}
	if (req->source_file_given && source[0] == '\0') {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_SOURCE_FILE_REQUIRED,
				    "source-file cannot be empty");
		goto out;
	}
	if ((req->source_choice_given != 0) != (req->candidate_given != 0) ||
	    (req->candidate_given && candidate[0] == '\0')) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_SOURCE_CHOICE_REQUIRES_CANDIDATE,
				    "source-choice and candidate must be provided together");
		goto out;
	}
	if (req->source_choice_given && strcmp(choice, "pinned") != 0 && strcmp(choice, "adopt") != 0) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_INVALID_SOURCE_CHOICE,
				    "source-choice must be pinned or adopt");
		goto out;
	}
	modes = (req->source_file_given != 0) + (pinned != 0) + (req->source_choice_given != 0);
	if (modes > 1) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_SOURCE_MODE_CONFLICT,
				    "source-file, use-pinned-source, and source-choice are mutually exclusive");
		goto out;
	}
	if ((rc = svc_discover(&d)) != 0)
		goto out;
	if (req->source_file_given &&
	    (rc = import_candidate(&d, &refresh, req, (unsigned)budget)) != 0) {
		svc_close(&d);
		goto out;
	}
	if ((rc = svc_open_store(&d, true)) != 0)
		goto out;
	m.run_id = run;
	m.refresh = refresh;
	m.budget_given = budget_s != NULL;
	m.budget = (unsigned)budget;
	/* --use-pinned-source and --source-file are their own events; a source
	 * choice reaches the plain resume rows as a "source option". */
	if (pinned)
		m.event = FSM_EV_RESUME_PINNED;
	else if (refresh)
		m.event = FSM_EV_RESUME_REFRESH;
	else if (req->source_choice_given)
		m.event = strcmp(choice, "adopt") == 0 ? FSM_EV_CHOOSE_ADOPT : FSM_EV_CHOOSE_PINNED;
	m.candidate_id = candidate;
	m.source_options = 0;
	rc = finish(&d, &m, svc_resume_operation(m.event));
out:
	source_candidate_free(refresh);
	return rc;
}

static int material(const struct svc_material_request *req)
{
	struct svc d = { .root_arg = req->root };
	int rc;

	if ((rc = check_run_action(d.root_arg, req->run_id, req->action_id)) != 0)
		return rc;
	if (req->section == NULL || req->section[0] == '\0')
		return preflight_fail(d.root_arg, req->run_id, TBL_ERR_MATERIAL_SECTION_REQUIRED,
				      "section cannot be empty");
	if ((rc = svc_open(&d, false)) != 0)
		return rc;
	rc = svc_material(&d, req->run_id, req->action_id, req->section, 0);
	svc_close(&d);
	return rc;
}

int svc_op_submit(const struct svc_submit_request *req, struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT : svc_result_end(res, submit(req));
}

int svc_op_answer(const struct svc_answer_request *req, struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT : svc_result_end(res, answer(req));
}

int svc_op_skip(const struct svc_skip_request *req, struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT : svc_result_end(res, skip(req));
}

int svc_op_resume(const struct svc_resume_request *req, struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT : svc_result_end(res, resume(req));
}

int svc_op_material(const struct svc_material_request *req, struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT : svc_result_end(res, material(req));
}
