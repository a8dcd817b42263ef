/* slipway doctor: leftovers and damage in the run store. */

#include "io/adapter_runstore.h"

#include <string.h>

#include <jansson.h>

#include "io/store.h"

static int add_own(struct adapter_checks *c, const char *code, const char *status,
		   char *detail, struct sw_error *err)
{
	int rc;

	if (detail == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	rc = adapter_checks_add(c, code, status, "-", "runstore", detail, err);
	sw_free(detail);
	return rc;
}

static int finding_check(struct adapter_checks *c, const char *common,
			 const struct store_finding *f, struct sw_error *err)
{
	switch (f->kind) {
	case STORE_FOUND_STAGED:
	case STORE_FOUND_NO_JOURNAL:
		return add_own(c, "runstore_incomplete_run", "warning", sw_asprintf(
			"\"%s\" in %s/slipway/runs holds no Run: %s; nothing reads it, and it may be removed by hand",
			f->path, common, f->kind == STORE_FOUND_STAGED
			? "a slipway run was killed before publishing it"
			: "a slipway run failed before writing its journal"), err);
	case STORE_FOUND_TEMPORARY:
		return add_own(c, "runstore_stale_temporary", "warning", sw_asprintf(
			"\"%s\" (%lld bytes) in %s/slipway/runs was left by a slipway process that was "
			"killed; nothing reads it, and the next change to that Run removes it",
			f->path, f->size, common), err);
	case STORE_FOUND_PARKED:
		return add_own(c, "runstore_parked_directory", "warning", sw_asprintf(
			"\"%s\" in %s/slipway/runs is a directory that stood in place of a file of the "
			"Run and was moved aside; slipway never removes it: look at it and remove it by hand",
			f->path, common), err);
	case STORE_FOUND_REPAIRABLE:
		return add_own(c, "runstore_file_repairable", "warning", sw_asprintf(
			"\"%s\" in %s/slipway/runs %s; it is rebuilt from the journal, and the next "
			"change to that Run replaces it", f->path, common, f->why), err);
	case STORE_FOUND_DAMAGED:
		return add_own(c, "runstore_file_damaged", "error", sw_asprintf(
			"\"%s\" in %s/slipway/runs %s; it cannot be rebuilt: %s", f->path, common, f->why,
			strstr(f->path, "/materials/") != NULL
			? "what needs this material is refused, and status shows the Run without it"
			: "the Run cannot be read until it is restored"), err);
	}
	return 0;
}

/* The run id event 1's data records, copied into *(char **)payload. */
static int recorded_id(const struct store_event *ev, void *payload, struct sw_error *err)
{
	json_t *data = json_loadb(ev->data, ev->data_len, 0, NULL);
	const char *id = json_string_value(json_object_get(data, "run_id"));
	char **out = payload;

	(void)err;
	if (id != NULL)
		*out = sw_strdup(id);
	json_decref(data);
	return 0;
}

static int misnamed_checks(struct adapter_checks *c, const char *common, struct store *s,
			   struct sw_error *err)
{
	char **ids = NULL;
	size_t n = 0;
	int rc = 0;

	if (store_list(&ids, &n, s, &(struct sw_error)SW_ERROR_INIT) < 0)
		return 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *id = NULL;

		if (store_first_event(s, ids[i], recorded_id, &id, &(struct sw_error)SW_ERROR_INIT) == 0 &&
		    id != NULL && strcmp(id, ids[i]) != 0)
			rc = add_own(c, "runstore_run_misnamed", "warning", sw_asprintf(
				"\"%s\" in %s/slipway/runs holds the journal of run \"%s\": a copied or "
				"renamed run directory is no Run; status lists it as unavailable and "
				"every change to it is refused; remove it (or rename it back) by hand",
				ids[i], common, id), err);
		sw_free(id);
	}
	store_list_free(ids, n);
	return rc;
}

int adapter_runstore_checks(struct adapter_checks *c, const char *git_common_dir,
			    struct sw_error *err)
{
	struct sw_error e = SW_ERROR_INIT;
	struct store_finding *f = NULL;
	struct store *s = NULL;
	size_t n = 0;
	int rc = 0;

	if (store_open(&s, git_common_dir, false, &e) < 0 || store_inspect(&f, &n, s, &e) < 0)
		goto out;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = finding_check(c, git_common_dir, &f[i], err);
	if (rc == 0)
		rc = misnamed_checks(c, git_common_dir, s, err);
out:
	store_findings_free(f, n);
	store_free(s);
	return rc;
}
