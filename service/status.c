/* status: the Runs of this repository, one Run, or one pinned chapter. */

#include "service/ops.h"

#include <string.h>

#include <jansson.h>

#include "io/git/vcs.h"
#include "io/store/run_history.h"
#include "io/util/buf.h"
#include "io/wire/input.h"
#include "io/util/json.h"
#include "service/emit.h"
#include "service/report.h"

void svc_status_found_release(struct svc_status_found *res)
{
	run_free(res->run);
	run_history_free(res->history);
	json_decref(res->doc);
	json_decref(res->damaged);
	sw_free(res->report);
	sw_free(res->text);
	next_free(res->next);
	svc_listing_release(&res->list);
	memset(res, 0, sizeof(*res));
}

/* The statusList document as the reference prints it: the envelope and
 * unavailable_runs as its writer encodes them, each entry of runs with
 * HTML escaping (its status entries go through json.Marshal).  sw_malloc'd,
 * or NULL on ENOMEM. */
static char *list_text(const struct svc_listing *l)
{
	struct sw_buf b = SW_BUF_INIT;
	json_t *entry;
	char *s;
	size_t i;

	sw_buf_str(&b, "{\"contract_version\":2,\"runs\":[");
	json_array_foreach(l->runs, i, entry) {
		if ((s = sw_json_dump_html(entry)) == NULL)
			b.failed = 1;
		else if (i > 0)
			sw_buf_ch(&b, ',');
		sw_buf_str(&b, s ? s : "");
		sw_free(s);
	}
	sw_buf_str(&b, "],\"unavailable_runs\":");
	if ((s = sw_json_dump(l->unavailable)) == NULL)
		b.failed = 1;
	sw_buf_str(&b, s ? s : "");
	sw_free(s);
	sw_buf_ch(&b, '}');
	return sw_buf_detach(&b);
}

/* A preflight refusal of status, whose inspect-run(s) recovery is
 * addressed, as the reference's, at the worktree containing the raw root
 * (or the current directory), else at that root made absolute. */
static int inspection_fail(enum tbl_err code, const char *msg, const char *raw_root,
			   const char *run)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;
	const char *start = raw_root && raw_root[0] ? raw_root : ".";
	char *root = NULL;
	int rc;

	if (vcs_discover(&id, start, &err) == 0)
		root = sw_strdup(id.worktree_root);
	else
		root = vcs_path_abs_clean(start, &err);
	vcs_identity_release(&id);
	rc = svc_fail_inspect(code, msg, root ? root : raw_root, run);
	sw_free(root);
	return rc;
}

/* Finds what status answers; *res holds the Run or the listing when
 * nothing has been printed yet, and *text what to print: the document
 * (JSON forms) or, with `human`, the text (sw_malloc'd).  The text is made
 * here, while the workspace is known, so that running out of memory is
 * answered as a cliError (svc_fail_status) before anything is printed. */
static int find(const struct svc_status_request *req, struct svc_status_found *res, char **text)
{
	struct sw_error err = SW_ERROR_INIT;
	struct svc d = { .root_arg = req->root };
	struct run *r = NULL;
	unsigned long failed;
	int rc;

	memset(res, 0, sizeof(*res));
	*text = NULL;
	if (req->run_id && input_run_id_check(req->run_id, &err) < 0)
		return svc_usage(&d, TBL_ERR_INVALID_RUN_ID, err.msg);
	if (req->section_given && req->run_id == NULL)
		return inspection_fail(TBL_ERR_RUN_ID_REQUIRED,
				       "reading a pinned section requires one run id", d.root_arg, NULL);
	if (req->candidate && !req->section_given)
		return svc_usage(&d, TBL_ERR_INVALID_USAGE,
				 "--candidate reads one section of the source candidate: add --section KEY");
	if (req->candidate && !req->human)
		return svc_usage(&d, TBL_ERR_INVALID_USAGE, "--candidate prints text: leave out --json");
	if (req->markdown && (!req->human || req->section_given))
		return svc_usage(&d, TBL_ERR_INVALID_USAGE,
				 "--markdown prints the report of one Run: leave out --json and --section");
	if (req->markdown && req->run_id == NULL)
		return svc_usage(&d, TBL_ERR_RUN_ID_REQUIRED, "the Markdown report needs one run id");
	if (req->section_given && req->section[0] == '\0')
		return inspection_fail(TBL_ERR_MATERIAL_SECTION_REQUIRED, "section cannot be empty",
				       d.root_arg, req->run_id);
	if ((rc = svc_open(&d, false)) != 0)
		return rc;
	if (req->section_given) {
		rc = svc_material(&d, req->run_id, NULL, req->section,
				  (req->human ? SVC_MATERIAL_HUMAN : 0u) |
				  (req->candidate ? SVC_MATERIAL_CANDIDATE : 0u));
		goto close;
	}
	/* What the answer is built from reads what it can and shows the rest
	 * as unavailable (a context, a Run of the listing), so an allocation
	 * that fails on the way can pass for damage: any that failed from
	 * here until the text is made fails the answer instead. */
	failed = sw_alloc_failures();
	if (req->run_id) {
		json_t *doc;

		if ((rc = req->human ? svc_load_history(&d, req->run_id, &r, &res->history)
				     : svc_load(&d, req->run_id, &r, 0, NULL)) != 0)
			goto close;
		if ((doc = svc_status_json(&d, r, &res->damaged, &err)) == NULL) {
			rc = svc_fail_status(&d, &err);
			goto close;
		}
		res->run = r;
		res->doc = doc;
		r = NULL;
		if (req->human && !req->markdown)
			res->next = svc_run_next(res->run, 0);
		if (req->human &&
		    svc_report(&res->report, &d, res->run, res->history, res->next,
			       req->markdown ? REPORT_MARKDOWN : REPORT_TEXT, &err) < 0) {
			rc = svc_fail_status(&d, &err);
			goto close;
		}
	} else {
		if ((rc = svc_list(&d, &res->list, req->human)) != 0)
			goto close;
		res->listed = 1;
	}
	*text = req->human ? svc_status_text(res)
		: res->run ? sw_json_dump_html(res->doc) : list_text(&res->list);
	if (*text == NULL || sw_alloc_failures() != failed) {
		sw_free(*text);
		*text = NULL;
		rc = svc_fail_status(&d, &(struct sw_error){ SW_ENOMEM, 0, TBL_ERR_NONE, "out of memory" });
	}
close:
	run_free(r);
	svc_close(&d);
	return rc;
}

/* The JSON forms: the runStatus with HTML escaping, as the reference's
 * status output (json.Marshal), or the statusList.  The text forms are
 * the front end's to print (found->text). */
static int status(const struct svc_status_request *req, struct svc_status_found *found)
{
	char *text = NULL;
	int rc = find(req, found, &text);

	if (rc != 0 || text == NULL)
		return rc;
	if (req->human) {
		found->text = text;
		return 0;
	}
	return svc_print_json_text(text) < 0 ? SVC_EXIT_DEFECT : 0;
}

int svc_op_status(const struct svc_status_request *req, struct svc_status_found *found,
		  struct svc_result *res)
{
	struct svc_status_found local = { 0 };
	int rc;

	if (found == NULL)
		found = &local;
	if (svc_result_begin(res) < 0)
		rc = SVC_EXIT_DEFECT;
	else
		rc = svc_result_end(res, status(req, found));
	svc_status_found_release(&local);
	return rc;
}
