/* Materials: one pinned section of an issue-backed Run, for protocol
 * material and status --section. */

#include "service/internal.h"

#include <string.h>

#include "service/emit.h"
#include "io/store/run_record.h"

static int key_valid(const char *k)
{
	size_t n = strlen(k);

	if (n == 0 || n > 64 || !((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= '0' && k[0] <= '9')))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') ||
		      k[i] == '.' || k[i] == '_' || k[i] == '-'))
			return 0;
	return 1;
}

/* A material failure: cliError with the inspect-run recovery. */
static int fail_material(const struct svc *d, const char *run_id_arg, enum tbl_err code,
			 const char *msg)
{
	struct next *n = svc__inspect_next(d, run_id_arg);
	int rc = svc_fail(code, 0, msg, n, NULL, NULL);

	next_free(n);
	return rc;
}

/* framed("slipway-section/v2", key, role, title, payload). */
static int section_revision(char out[SW_DIGEST_LEN], const struct run_section *sec,
			    const void *payload, size_t len)
{
	const char *const fields[] = { sec->key, sec->role, sec->title };
	struct sw_error err = SW_ERROR_INIT;
	struct sw_sha256 *h = NULL;

	if (sw_sha256_new(&h, &err) < 0)
		return -1;
	sw_sha256_field(h, "slipway-section/v2", strlen("slipway-section/v2"));
	for (size_t i = 0; i < 3; i++)
		sw_sha256_field(h, fields[i], strlen(fields[i]));
	sw_sha256_field(h, payload, len);
	sw_sha256_final_prefixed(h, out);
	return 0;
}

/* Reads and checks the material of catalog entry `sec` (a requirements
 * section or a pinned section: both carry key, role, title,
 * section_revision, material_sha256, bytes).  On success *out holds the
 * Markdown (NUL-terminated, caller frees); otherwise the cliError is
 * written and its exit status returned. */
static int read_section(const struct svc *d, const struct run *r, const struct run_section *sec,
			char **out)
{
	struct sw_error err = SW_ERROR_INIT;
	const char *digest = sec->material_sha256;
	char rev[SW_DIGEST_LEN], msg[700];
	void *data = NULL;
	size_t len = 0;
	char *text;

	*out = NULL;
	if (!sw_digest_valid(digest))
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_UNAVAILABLE,
				     "the section has no valid pinned material reference");
	if (store_read_material(&data, &len, d->store, run_id(r), digest, &err) < 0) {
		snprintf(msg, sizeof(msg), "pinned material cannot be read or verified: %s", err.msg);
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_UNAVAILABLE, msg);
	}
	if ((long long)len != sec->bytes) {
		sw_free(data);
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_CORRUPT,
				     "pinned material byte count differs from the catalog");
	}
	if (section_revision(rev, sec, data, len) < 0 ||
	    (text = sw_malloc(len + 1)) == NULL) {
		sw_free(data);
		return svc_fail(TBL_ERR_RUNTIME_ERROR, 0, "out of memory", NULL, NULL, NULL);
	}
	if (strcmp(rev, sec->section_revision) != 0) {
		sw_free(data);
		sw_free(text);
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_CORRUPT,
				     "pinned material does not match the section revision");
	}
	memcpy(text, data, len);
	text[len] = '\0';
	sw_free(data);
	*out = text;
	return 0;
}

static json_t *section_json(const struct run_section *sec, const char *markdown)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "key", sec->key, "role", sec->role,
			 "title", sec->title, "section_revision", sec->section_revision,
			 "markdown", markdown);
}

/* status RUN --section KEY: the pinned chapter, in any Run state; with
 * SVC_MATERIAL_CANDIDATE the chapter of the source candidate that waits
 * (text only). */
static int pinned_material(struct svc *d, const struct run *r, const char *section,
			   unsigned how)
{
	const struct run_record *rec = run_record(r);
	const struct run_pinned_source *pinned = rec->pinned_source;
	const struct run_source_candidate *cand = rec->source_candidate;
	const int from_candidate = (how & SVC_MATERIAL_CANDIDATE) != 0;
	const struct run_section *sec;
	char *markdown = NULL;
	json_t *doc = NULL;
	int rc;

	if (pinned == NULL)
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_UNAVAILABLE,
				     "an ad-hoc Run pins no source");
	if (from_candidate && (cand == NULL || cand->snapshot == NULL))
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_UNAVAILABLE,
				     cand ? "the source candidate that waits is invalid and holds no sections"
					  : "no source candidate waits for a choice in this Run");
	if (from_candidate)
		pinned = cand->snapshot;
	if ((sec = run_section_find(pinned->sections, pinned->n_sections, section)) == NULL) {
		char msg[200];

		snprintf(msg, sizeof(msg), from_candidate ? "the source candidate has no section \"%s\""
						       : "the Run pins no section \"%s\"", section);
		return fail_material(d, run_id(r), TBL_ERR_MATERIAL_SECTION_NOT_FOUND, msg);
	}
	if ((rc = read_section(d, r, sec, &markdown)) != 0)
		return rc;
	if (how & SVC_MATERIAL_HUMAN) {
		/* Say plainly that this is an inspection, not an Action. */
		if (from_candidate)
			fprintf(svc_out(), "Run %s (%s): source candidate %s, section \"%s\", role %s.\n"
			       "Section revision: %s\nRequirements revision: %s\n"
			       "Candidate text for reading only; it is not adopted and authorizes no work.\n\n# %s\n\n%s",
			       run_id(r), tbl_runstate_wire[rec->state], cand->candidate_id, sec->key, sec->role,
			       sec->section_revision, pinned->requirements_revision, sec->title, markdown);
		else
			fprintf(svc_out(), "Run %s (%s): pinned section \"%s\", role %s.\n"
			       "Section revision: %s\nRequirements revision: %s\n"
			       "Pinned text for reading only; it authorizes no work.\n\n# %s\n\n%s",
			       run_id(r), tbl_runstate_wire[rec->state], sec->key, sec->role,
			       sec->section_revision, pinned->requirements_revision, sec->title, markdown);
		rc = svc_flush_out() < 0 ? SVC_EXIT_DEFECT : 0;
	} else {
		doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:o}", "contract_version", 2,
				"message_type", "pinned_material", "run_id", run_id(r),
				"run_state", tbl_runstate_wire[rec->state],
				"source_revision", pinned->source_revision,
				"requirements_revision", pinned->requirements_revision,
				"section", section_json(sec, markdown));
		rc = doc == NULL || svc_print_json(doc) < 0 ? SVC_EXIT_DEFECT : 0;
	}
	json_decref(doc);
	sw_free(markdown);
	return rc;
}

int svc_material(struct svc *d, const char *run_id_arg, const char *action_id,
		    const char *section, unsigned how)
{
	const struct run_action_record *rec;
	const struct run_requirements *reqs;
	const struct run_section *sec;
	const char *out_status;
	enum fsm_runstate state;
	struct run *r = NULL;
	char *markdown = NULL, msg[300];
	json_t *doc = NULL;
	int rc;

	if (!key_valid(section))
		return fail_material(d, run_id_arg, TBL_ERR_MATERIAL_SECTION_INVALID,
				     "section must match ^[a-z0-9][a-z0-9._-]{0,63}$");
	if ((rc = svc_load(d, run_id_arg, &r, 0, NULL)) != 0)
		return rc;
	if (action_id == NULL) {
		rc = pinned_material(d, r, section, how);
		goto out;
	}
	if ((rec = run_record_action(run_record(r), action_id)) == NULL) {
		rc = fail_material(d, run_id_arg, TBL_ERR_MATERIAL_ACTION_NOT_FOUND,
				   "action_id is not an Action of this run");
		goto out;
	}
	state = run_record(r)->state;
	out_status = rec->outcome ? rec->outcome->status : NULL;
	if (state == FSM_RUN_STOPPED || state == FSM_RUN_ENDED ||
	    run_current_action_id(r) == NULL ||
	    strcmp(run_current_action_id(r), action_id) != 0 || rec->voided ||
	    (out_status && strcmp(out_status, "needs_input") != 0)) {
		rc = svc__fail_run(d, TBL_ERR_MATERIAL_ACTION_STALE,
			      "material is readable only for the current Action", r);
		goto out;
	}
	reqs = rec->action.requirements;
	if (reqs == NULL || !rec->action.has_source) {
		rc = fail_material(d, run_id_arg, TBL_ERR_MATERIAL_UNAVAILABLE,
				   "this Run pins no source: an ad-hoc Action has no material");
		goto out;
	}
	if ((sec = run_section_find(reqs->sections, reqs->n_sections, section)) == NULL) {
		snprintf(msg, sizeof(msg), "the Action's catalog has no section \"%s\"", section);
		rc = fail_material(d, run_id_arg, TBL_ERR_MATERIAL_SECTION_NOT_FOUND, msg);
		goto out;
	}
	if ((rc = read_section(d, r, sec, &markdown)) != 0)
		goto out;
	doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:o}", "contract_version", 2,
			"message_type", "action_material", "run_id", run_id(r),
			"action_id", action_id,
			"requirements_revision", reqs->requirements_revision,
			"section", section_json(sec, markdown));
	if (doc == NULL || svc_print_json(doc) < 0)
		rc = fail_material(d, run_id_arg, TBL_ERR_RUNTIME_ERROR,
				   "cannot write the action material to standard output");
out:
	json_decref(doc);
	sw_free(markdown);
	run_free(r);
	return rc;
}
