/* status: the Runs of this repository, one Run, or one pinned chapter. */

#include "service/ops.h"

#include <string.h>

#include <jansson.h>

#include "io/input.h"
#include "service/emit.h"

void svc_status_result_release(struct svc_status_result *res)
{
	run_free(res->run);
	json_decref(res->doc);
	next_free(res->next);
	svc_listing_release(&res->list);
	memset(res, 0, sizeof(*res));
}

int svc_op_status(const struct svc_status_request *req, struct svc_status_result *res)
{
	struct sw_error err = SW_ERROR_INIT;
	struct svc d = { .root_arg = req->root };
	struct run *r = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	if (req->run_id && input_run_id_check(req->run_id, &err) < 0)
		return svc_usage(&d, TBL_ERR_INVALID_RUN_ID, err.msg);
	if (req->section_given && req->run_id == NULL)
		return svc_usage(&d, TBL_ERR_RUN_ID_REQUIRED, "reading a pinned section requires one run id");
	if (req->section_given && req->section[0] == '\0')
		return svc_fail_inspect(TBL_ERR_MATERIAL_SECTION_REQUIRED, "section cannot be empty",
					d.root_arg, req->run_id);
	if ((rc = svc_open(&d, false)) != 0)
		return rc;
	if (req->section_given) {
		rc = svc_material(&d, req->run_id, NULL, req->section, req->human);
		goto close;
	}
	if (req->run_id) {
		json_t *doc;

		if ((rc = svc_load(&d, req->run_id, &r, 0, NULL)) != 0)
			goto close;
		if ((doc = svc_status_json(&d, r, &err)) == NULL) {
			rc = svc_fail_status(&d, &err);
			goto close;
		}
		res->run = r;
		res->doc = doc;
		r = NULL;
		if (req->human)
			res->next = svc_run_next(res->run, 0);
	} else {
		if ((rc = svc_list(&d, &res->list, req->human)) != 0)
			goto close;
		res->listed = 1;
	}
close:
	run_free(r);
	svc_close(&d);
	return rc;
}
