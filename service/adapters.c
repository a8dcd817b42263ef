/* install, uninstall, list and doctor: the host adapter operations. */

#include "service/adapters.h"

#include <stdio.h>

#include <jansson.h>

#include "io/adapters/adapter_doctor.h"
#include "io/git/vcs.h"
#include "io/util/json.h"
#include "service/svc.h"

/* The worktree containing `raw` (or the cwd when NULL/""): *root, *gitdir
 * (its own Git directory) and *common (the Git common dir) are sw_malloc'd
 * on success.  On failure the cliError has been written and the exit
 * status is returned (> 0). */
static int worktree(char **root, char **gitdir, char **common, const char *raw)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct sw_error err = SW_ERROR_INIT;

	*root = *gitdir = *common = NULL;
	if (vcs_discover(&id, raw, &err) < 0) {
		vcs_identity_release(&id);
		return svc_discover_failed(&err, raw);
	}
	*root = sw_strdup(id.worktree_root);
	*gitdir = sw_strdup(id.git_dir);
	*common = sw_strdup(id.git_common_dir);
	vcs_identity_release(&id);
	if (*root == NULL || *gitdir == NULL || *common == NULL) {
		sw_free(*root);
		sw_free(*gitdir);
		sw_free(*common);
		*root = *gitdir = *common = NULL;
		return svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "out of memory", NULL, raw, NULL);
	}
	return 0;
}

/* The cliError `code` whose next is `form` for the worktree `root`. */
static int fail_with(enum tbl_err code, enum next_form form, const char *root,
		     const char *message, const json_t *details)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	int rc;

	if (next_build_form(&n, form, NULL, root, &(struct next_fill){ 0 }, &err) < 0)
		return SVC_EXIT_DEFECT;
	rc = svc_fail(code, 0, message, n, root, details);
	next_free(n);
	return rc;
}

static json_t *strs_json(const struct adapter_strs *s)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < s->n; i++)
		if (json_array_append_new(a, json_string(s->v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The changeReport document. */
static json_t *report_json(const struct adapter_report *r)
{
	json_t *o = json_object();

	if (o == NULL ||
	    json_object_set_new(o, "contract_version", json_integer(2)) < 0 ||
	    json_object_set_new(o, "hosts", strs_json(&r->hosts)) < 0 ||
	    json_object_set_new(o, "transaction_outcome",
				json_string(adapter_txn_outcome_wire(r->outcome))) < 0 ||
	    json_object_set_new(o, "written", strs_json(&r->written)) < 0 ||
	    json_object_set_new(o, "removed", strs_json(&r->removed)) < 0 ||
	    json_object_set_new(o, "preserved", strs_json(&r->preserved)) < 0 ||
	    json_object_set_new(o, "recovery_artifacts", strs_json(&r->recovery)) < 0 ||
	    json_object_set_new(o, "warnings", strs_json(&r->warnings)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The cliError of a failed install or uninstall: the selection and surface
 * codes when `err` carries them, else `fallback` with the report as
 * details. */
static int change_failed(enum tbl_err fallback, const char *root, const struct sw_error *err,
			 const struct adapter_report *rep)
{
	const char *msg = err->msg[0] ? err->msg : "adapter operation failed";
	json_t *details = NULL;
	int rc;

	if (err->code == SW_EPROTO && (err->proto == TBL_ERR_UNKNOWN_HOST_ADAPTER ||
				       err->proto == TBL_ERR_HOST_ADAPTER_REQUIRED))
		return fail_with(err->proto, NEXT_FORM_LIST_HOST_ADAPTERS, root, msg, NULL);
	if (err->code == SW_EPROTO && err->proto == TBL_ERR_INVALID_ADAPTER_SURFACE)
		return fail_with(err->proto, NEXT_FORM_INSTALL_KIRO, root, msg, NULL);
	details = json_object();
	if (details == NULL ||
	    json_object_set_new(details, "transaction_outcome",
				json_string(adapter_txn_outcome_wire(rep->outcome))) < 0 ||
	    json_object_set_new(details, "report", report_json(rep)) < 0) {
		json_decref(details);
		return SVC_EXIT_DEFECT;
	}
	rc = fail_with(fallback, NEXT_FORM_INSPECT_HOST_ADAPTERS, root, msg, details);
	json_decref(details);
	return rc;
}

static int print_doc(json_t *doc)
{
	int rc = doc && svc_print_json(doc) == 0 ? SVC_EXIT_OK : SVC_EXIT_DEFECT;

	json_decref(doc);
	return rc;
}

typedef int adapter_change_fn(struct adapter_report *rep, const struct adapter_request *req,
			      struct sw_error *err);

static int change(const struct svc_adapter_request *req, struct adapter_report *rep,
		  adapter_change_fn *fn, enum tbl_err fallback)
{
	struct sw_error err = SW_ERROR_INIT;
	char *root = NULL, *gitdir = NULL, *common = NULL;
	int rc;

	if ((rc = worktree(&root, &gitdir, &common, req->root)) != 0)
		return rc;
	if (fn(rep, &(struct adapter_request){ root, req->tools, req->ntools, req->tools_given,
					       req->surface, req->refresh, req->texts, req->mcp, gitdir },
	       &err) < 0)
		rc = change_failed(fallback, root, &err, rep);
	else if (!req->human)
		rc = print_doc(report_json(rep));
	sw_free(root);
	sw_free(gitdir);
	sw_free(common);
	return rc;
}

static json_t *list_json(const struct adapter_host_status *st)
{
	json_t *hosts = json_array();

	for (size_t i = 0; hosts && i < ADAPTER_NHOSTS; i++) {
		json_t *caps = json_array(), *h;

		for (size_t c = 0; caps && c < st[i].ncaps; c++)
			if (json_array_append_new(caps, json_string(st[i].caps[c])) < 0) {
				json_decref(caps);
				caps = NULL;
			}
		h = caps ? json_pack("{s:s, s:b, s:b, s:b, s:o}", "id", st[i].id,
				     "detected", st[i].detected, "installed", st[i].installed,
				     "needs_refresh", st[i].needs_refresh, "capabilities", caps) : NULL;
		if (h == NULL || (st[i].warning && json_object_set_new(h, "warning",
								       json_string(st[i].warning)) < 0) ||
		    json_array_append_new(hosts, h) < 0) {
			json_decref(hosts);
			hosts = NULL;
		}
	}
	return hosts ? json_pack("{s:i, s:o}", "contract_version", 2, "hosts", hosts) : NULL;
}

static json_t *doctor_json(const struct adapter_checks *c)
{
	json_t *checks = json_array();

	for (size_t i = 0; checks && i < c->n; i++) {
		const struct adapter_check *k = &c->v[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "code", k->code, "status", k->status,
				      "host_id", k->host, "name", k->name, "detail", k->detail);
		json_t *d = NULL;

		if (o && k->has_durability &&
		    ((d = json_pack("{s:s, s:b, s:b}", "level", k->level, "file_sync", k->file_sync,
				    "directory_sync", k->dir_sync)) == NULL ||
		     json_object_set_new(o, "durability", d) < 0 ||
		     (k->limitation && json_object_set_new(d, "limitation",
							   json_string(k->limitation)) < 0))) {
			json_decref(o);
			o = NULL;
		}
		if (o == NULL || json_array_append_new(checks, o) < 0) {
			json_decref(checks);
			checks = NULL;
		}
	}
	return checks ? json_pack("{s:i, s:o}", "contract_version", 2, "checks", checks) : NULL;
}

/* list, or with `doctor` doctor: what *found receives, and unless
 * `human` its document. */
static int inspect(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		   int doctor)
{
	struct sw_error err = SW_ERROR_INIT;
	char *root = NULL, *gitdir = NULL, *common = NULL;
	json_t *doc = NULL;
	char *text = NULL;
	struct adapter_store_facts store = { NULL, 0 };
	unsigned long failed;
	int rc;

	if ((rc = worktree(&root, &gitdir, &common, req->root)) != 0)
		return rc;
	/* The checks read what they can and report the rest, so a failed
	 * allocation can pass for a file that is not there (a host not
	 * detected): an allocation that fails from here until the document
	 * is encoded fails the report instead (sw_alloc_failures). */
	failed = sw_alloc_failures();
	if ((doctor && svc_doctor_store_facts(&store, common) < 0) ||
	    (doctor ? adapter_doctor(&found->checks, root, gitdir, common, &store, req->texts, &err)
		    : adapter_list(found->hosts, root, req->texts, &err)) < 0 ||
	    (!req->human && ((doc = doctor ? doctor_json(&found->checks)
					   : list_json(found->hosts)) == NULL ||
			     (text = sw_json_dump(doc)) == NULL)) ||
	    sw_alloc_failures() != failed) {
		sw_free(text);
		rc = fail_with(doctor ? TBL_ERR_DOCTOR_FAILED : TBL_ERR_LIST_FAILED,
			       doctor ? NEXT_FORM_RETRY_DOCTOR : NEXT_FORM_RETRY_LIST, root,
			       err.msg[0] ? err.msg : "out of memory", NULL);
	} else if (!req->human) {
		rc = svc_print_json_text(text) < 0 ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
	}
	json_decref(doc);
	svc_doctor_store_facts_release(&store);
	sw_free(root);
	sw_free(gitdir);
	sw_free(common);
	return rc;
}

int svc_op_install(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		   struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT
		: svc_result_end(res, change(req, &found->report, adapter_install,
					     TBL_ERR_INSTALL_FAILED));
}

int svc_op_uninstall(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		     struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT
		: svc_result_end(res, change(req, &found->report, adapter_uninstall,
					     TBL_ERR_UNINSTALL_FAILED));
}

int svc_op_list(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT
		: svc_result_end(res, inspect(req, found, 0));
}

int svc_op_doctor(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		  struct svc_result *res)
{
	return svc_result_begin(res) < 0 ? SVC_EXIT_DEFECT
		: svc_result_end(res, inspect(req, found, 1));
}

void svc_adapters_found_release(struct svc_adapters_found *found)
{
	adapter_report_release(&found->report);
	adapter_list_release(found->hosts);
	adapter_checks_release(&found->checks);
}
