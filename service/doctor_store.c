/* doctor's checks of the run store: what store_inspect finds, the
 * materials a Run refers to that are missing, the run directories whose
 * name is not the run id their journal records, and the Runs whose
 * worktree no longer exists, made into rows the adapter layer prints (it
 * never reads the store). */

#include "service/adapters.h"

#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "io/store/run.h"
#include "io/store/run_record.h"
#include "io/store/store.h"
#include "service/svc.h"

struct rows {
	struct adapter_store_fact *v;
	size_t n;
};

static int add(struct rows *r, const char *code, const char *status, char *detail)
{
	struct adapter_store_fact *grown;

	if (detail == NULL || (grown = sw_realloc(r->v, (r->n + 1) * sizeof(*grown))) == NULL) {
		sw_free(detail);
		return SW_ENOMEM;
	}
	r->v = grown;
	r->v[r->n++] = (struct adapter_store_fact){ code, status, detail };
	return 0;
}

static int finding_row(struct rows *r, const char *common, const struct store_finding *f)
{
	switch (f->kind) {
	case STORE_FOUND_STAGED:
		return add(r, "runstore_incomplete_run", "warning", sw_asprintf(
			"\"%s\" in %s/slipway/runs holds no Run: a slipway run was killed before "
			"publishing it; nothing reads it, and the next slipway run removes it",
			f->path, common));
	case STORE_FOUND_STAGED_HELD:
		return add(r, "runstore_incomplete_run", "warning", sw_asprintf(
			"\"%s\" in %s/slipway/runs holds no Run, and slipway cannot prove that the "
			"process that made it has ended: %s; nothing reads it, and it may be removed "
			"by hand once no slipway process is running", f->path, common, f->why));
	case STORE_FOUND_NO_JOURNAL:
		return add(r, "runstore_incomplete_run", "warning", sw_asprintf(
			"\"%s\" in %s/slipway/runs holds no Run: a slipway run failed before writing "
			"its journal; nothing reads it, and it may be removed by hand",
			f->path, common));
	case STORE_FOUND_TEMPORARY:
		return add(r, "runstore_stale_temporary", "warning", sw_asprintf(
			"\"%s\" (%lld bytes) in %s/slipway/runs was left by a slipway process that was "
			"killed; nothing reads it, and the next change to that Run removes it",
			f->path, f->size, common));
	case STORE_FOUND_PARKED:
		return add(r, "runstore_parked_directory", "warning", sw_asprintf(
			"\"%s\" in %s/slipway/runs is a directory that stood in place of a file of the "
			"Run and was moved aside; slipway never removes it: look at it and remove it by hand",
			f->path, common));
	case STORE_FOUND_REPAIRABLE:
		return add(r, "runstore_file_repairable", "warning", sw_asprintf(
			"\"%s\" in %s/slipway/runs %s; slipway rebuilds it, and the next change to that "
			"Run replaces it", f->path, common, f->why));
	case STORE_FOUND_DAMAGED:
		return add(r, "runstore_file_damaged", "error", sw_asprintf(
			"\"%s\" in %s/slipway/runs %s; it cannot be rebuilt: %s", f->path, common, f->why,
			strstr(f->path, "/materials/") != NULL
			? "what needs this material is refused, and status shows the Run without it"
			: "the Run cannot be read until it is restored"));
	}
	return 0;
}

/* The materials a Run refers to that are not in its materials/ (the
 * contexts status reads back, the sections of its pinned source and of a
 * waiting candidate): status shows the Run without them and nothing can
 * rebuild them.  A material that is there but damaged is store_inspect's
 * finding; a Run that does not load is the listing's. */
struct lost {
	struct svc *d;
	const char *id;
	struct found_list {
		struct store_finding *v;
		size_t n;
	} *found;
	json_t *seen;		/* digests checked */
	int rc;
};

static int add_finding(struct found_list *f, char *path)
{
	struct store_finding *grown;
	char *why = sw_strdup("is missing, and the Run refers to it");

	if (path == NULL || why == NULL ||
	    (grown = sw_realloc(f->v, (f->n + 1) * sizeof(*grown))) == NULL) {
		sw_free(path);
		sw_free(why);
		return SW_ENOMEM;
	}
	f->v = grown;
	f->v[f->n++] = (struct store_finding){ STORE_FOUND_DAMAGED, path, -1, why };
	return 0;
}

static void check_material(struct lost *l, const char *digest)
{
	struct sw_error e = SW_ERROR_INIT;
	void *bytes = NULL;
	size_t len = 0;

	if (l->rc < 0 || digest == NULL || json_object_get(l->seen, digest) != NULL)
		return;
	if (json_object_set_new(l->seen, digest, json_true()) < 0) {
		l->rc = SW_ENOMEM;
		return;
	}
	if (store_read_material(&bytes, &len, l->d->store, l->id, digest, &e) < 0) {
		if (e.code == SW_ENOMEM)
			l->rc = SW_ENOMEM;
		else if (e.code == SW_ENOTFOUND)
			l->rc = add_finding(l->found, sw_asprintf("%s/materials/%s", l->id, digest + 7));
	}
	sw_free(bytes);
}

/* run_context_fn: checks the context, and puts nothing in its place. */
static char *check_context(const char *digest, void *payload)
{
	check_material(payload, digest);
	return sw_strdup("");
}

static void check_sections(struct lost *l, const struct run_pinned_source *src)
{
	for (size_t i = 0; src != NULL && i < src->n_sections; i++)
		check_material(l, src->sections[i].material_sha256);
}

/* Appends to *found a finding for each material a Run refers to that is
 * missing.  SW_ENOMEM. */
static int lost_materials(struct found_list *found, struct store *s)
{
	struct svc d = { .store = s };
	char **ids = NULL;
	size_t n = 0;
	int rc = 0;

	if (store_list(&ids, &n, s, &(struct sw_error)SW_ERROR_INIT) < 0)
		return 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct lost l = { &d, ids[i], found, json_object(), 0 };
		struct run *r = NULL;

		if (l.seen == NULL) {
			rc = SW_ENOMEM;
			break;
		}
		if (svc_load(&d, ids[i], &r, 1, NULL) == 0) {
			const struct run_record *rec = run_record(r);
			json_t *doc = run_status_json(r, 1, check_context, &l);

			if (doc == NULL && l.rc == 0)
				l.rc = SW_ENOMEM;
			json_decref(doc);
			check_sections(&l, rec->pinned_source);
			if (rec->source_candidate != NULL)
				check_sections(&l, rec->source_candidate->snapshot);
		}
		rc = l.rc;
		run_free(r);
		json_decref(l.seen);
	}
	store_list_free(ids, n);
	return rc;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct store_finding *)a)->path,
		      ((const struct store_finding *)b)->path);
}


/* What event 1's data records: the run id and the worktree the Run
 * belongs to. */
struct first {
	char *id;
	char *worktree;
};

static int recorded_first(const struct store_event *ev, void *payload, struct sw_error *err)
{
	json_t *data = json_loadb(ev->data, ev->data_len, 0, NULL);
	const char *id = json_string_value(json_object_get(data, "run_id"));
	const char *root = json_string_value(json_object_get(
		json_object_get(json_object_get(data, "initialize"), "workspace_identity"), "worktree_root"));
	struct first *out = payload;

	(void)err;
	if (id != NULL)
		out->id = sw_strdup(id);
	if (root != NULL)
		out->worktree = sw_strdup(root);
	json_decref(data);
	return 0;
}

/* Run directories that are no Run of their own name, and Runs whose
 * worktree was removed (git worktree remove): nothing reaches those but
 * removing their directory. */
static int misnamed_rows(struct rows *r, const char *common, struct store *s)
{
	char **ids = NULL;
	size_t n = 0;
	int rc = 0;

	if (store_list(&ids, &n, s, &(struct sw_error)SW_ERROR_INIT) < 0)
		return 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct first f = { NULL, NULL };

		if (store_first_event(s, ids[i], recorded_first, &f, &(struct sw_error)SW_ERROR_INIT) == 0 &&
		    f.id != NULL && strcmp(f.id, ids[i]) != 0)
			rc = add(r, "runstore_run_misnamed", "warning", sw_asprintf(
				"\"%s\" in %s/slipway/runs holds the journal of run \"%s\": a copied or "
				"renamed run directory is no Run; status lists it as unavailable and "
				"every change to it is refused; remove it (or rename it back) by hand",
				ids[i], common, f.id));
		else if (f.id != NULL && f.worktree != NULL && access(f.worktree, F_OK) != 0)
			rc = add(r, "runstore_run_orphaned", "warning", sw_asprintf(
				"run \"%s\" in %s/slipway/runs belongs to the worktree %s, which no longer "
				"exists: no worktree can show, resume or stop it, and status lists it as "
				"another worktree's; remove its directory by hand to clear it",
				ids[i], common, f.worktree));
		sw_free(f.id);
		sw_free(f.worktree);
	}
	store_list_free(ids, n);
	return rc;
}

int svc_doctor_store_facts(struct adapter_store_facts *out, const char *common)
{
	struct sw_error e = SW_ERROR_INIT;
	struct found_list f = { NULL, 0 };
	struct rows r = { NULL, 0 };
	struct store *s = NULL;
	int rc = 0;

	out->v = NULL;
	out->n = 0;
	/* A store that cannot be read is left to the other checks. */
	if (common == NULL || store_open(&s, common, false, &e) < 0 ||
	    store_inspect(&f.v, &f.n, s, &e) < 0)
		goto out;
	/* A missing material beside the damaged ones, in path order. */
	if ((rc = lost_materials(&f, s)) == 0 && f.n > 1)
		qsort(f.v, f.n, sizeof(*f.v), by_path);
	for (size_t i = 0; i < f.n && rc == 0; i++)
		rc = finding_row(&r, common, &f.v[i]);
	if (rc == 0)
		rc = misnamed_rows(&r, common, s);
out:
	store_findings_free(f.v, f.n);
	store_free(s);
	if (rc < 0) {
		svc_doctor_store_facts_release(&(struct adapter_store_facts){ r.v, r.n });
		return rc;
	}
	out->v = r.v;
	out->n = r.n;
	return 0;
}

void svc_doctor_store_facts_release(struct adapter_store_facts *f)
{
	for (size_t i = 0; f->v != NULL && i < f->n; i++)
		sw_free((char *)f->v[i].detail);
	sw_free((void *)f->v);
	f->v = NULL;
	f->n = 0;
}
