/* The Action issued: its JSON with the brief, the source and requirements
 * of an issue-backed Run, and the context built within the Action's byte
 * limit; the context text is kept by digest (run_take_contexts).  Never
 * decides which Action is issued (the step does). */

#include <string.h>

#include <jansson.h>

#include "io/store/run_internal.h"
#include "io/util/digest.h"
#include "io/util/json.h"

/* The `source` and `requirements` objects of an Action issued by an
 * issue-backed Run (MAP 2.1): the catalog in manifest order, every key
 * required, and the material reader's argv bound to this Action. */
static int add_source_fields(json_t *action, const json_t *rec, const char *action_id)
{
	const json_t *pinned = json_object_get(rec, "pinned_source"), *sec;
	json_t *source = NULL, *sections = json_array(), *keys = json_array();
	json_t *choices = NULL, *requirements = NULL;
	size_t i;
	int rc = -1;

	if (sections == NULL || keys == NULL)
		goto out;
	json_array_foreach(json_object_get(pinned, "sections"), i, sec) {
		if (json_array_append_new(sections,
			json_pack("{s:O, s:O, s:O, s:O, s:O, s:O}", "key", json_object_get(sec, "key"),
				  "role", json_object_get(sec, "role"), "title", json_object_get(sec, "title"),
				  "section_revision", json_object_get(sec, "section_revision"),
				  "material_sha256", json_object_get(sec, "material_sha256"),
				  "bytes", json_object_get(sec, "bytes"))) < 0 ||
		    json_array_append(keys, json_object_get(sec, "key")) < 0)
			goto out;
	}
	source = json_pack("{s:s, s:O, s:O, s:O, s:O, s:O}", "kind", "change_issue",
			   "canonical_url", json_object_get(pinned, "canonical_url"),
			   "issue_id", json_object_get(pinned, "issue_id"),
			   "source_revision", json_object_get(pinned, "source_revision"),
			   "manifest_revision", json_object_get(pinned, "manifest_revision"),
			   "requirements_revision", json_object_get(pinned, "requirements_revision"));
	if ((choices = json_deep_copy(keys)) == NULL)
		goto out;
	requirements = json_pack("{s:O, s:O, s:O, s:{s:s, s:[s, s, s, s, s, s, s, s, s], s:{s:s, s:s, s:s, s:b, s:O}}}",
		"requirements_revision", json_object_get(pinned, "requirements_revision"),
		"sections", sections, "required_for_action", keys,
		"reader", "operation", "read_material",
		"base_argv", "slipway", "protocol", "material", "--root", run__str(rec, "workspace"),
		"--run", run__str(rec, "id"), "--action", action_id,
		"input", "name", "section", "type", "enum", "flag", "--section",
		"required", 1, "choices", choices);
	if (source == NULL || requirements == NULL ||
	    json_object_set(action, "source", source) < 0 ||
	    json_object_set(action, "requirements", requirements) < 0)
		goto out;
	rc = 0;
out:
	json_decref(source);
	json_decref(sections);
	json_decref(keys);
	json_decref(choices);
	json_decref(requirements);
	return rc;
}

/* The Action to issue: its JSON, with context built within the limits. */
int run__issue_action(struct run *r, enum fsm_kind kind,
		      enum fsm_brief which, const char *suggested,
		      const struct run_effects *fx, json_t *authorization,
		      struct sw_error *err)
{
	json_t *rec = r->rec, *contexts = r->contexts;
	json_t *action = NULL, *record = NULL, *stored = NULL;
	char digest[SW_DIGEST_LEN];
	char *brief = NULL, *context = NULL, *enc = NULL;
	size_t without, limit;
	int rc = 0;

	if (fx->new_action_id == NULL)
		return sw_error_set(err, SW_EINVAL, "no id for the new Action");
	if ((brief = run__compose_brief(rec, kind, which, suggested, fx->changed, fx->installed)) == NULL)
		return run__oom(err);
	action = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s}", "contract_version", 2,
			   "run_id", run__str(rec, "id"), "action_id", fx->new_action_id,
			   "kind", tbl_kind_wire[kind], "goal", run__str(rec, "goal"),
			   "brief", brief, "context", "");
	if (action == NULL) {
		rc = run__oom(err);
		goto out;
	}
	/* The source fields go in before the size is measured: the context
	 * gets only the room they leave. */
	if (json_object_get(rec, "pinned_source") &&
	    add_source_fields(action, rec, fx->new_action_id) < 0) {
		rc = run__oom(err);
		goto out;
	}
	if (authorization && json_object_set(action, "destructive_authorization", authorization) < 0) {
		rc = run__oom(err);
		goto out;
	}
	if (json_object_set_new(action, "remaining_budget",
				json_integer(json_integer_value(json_object_get(rec, "remaining_budget")))) < 0 ||
	    (enc = sw_json_dump(action)) == NULL) {
		rc = run__oom(err);
		goto out;
	}
	/* The encoded Action, newline included, stays within 256 KiB. */
	without = strlen(enc) + 1;
	if (without >= RUN_MAX_ACTION_BYTES) {
		rc = sw_error_proto(err, TBL_ERR_ACTION_TOO_LARGE, "the next Action exceeds %u bytes",
				    RUN_MAX_ACTION_BYTES);
		goto out;
	}
	limit = RUN_MAX_ACTION_BYTES - without;
	/* JSON escaping can double a byte at most for common text; keep the
	 * raw context within half the room when the room is the bound. */
	if (limit / 2 < RUN_MAX_CONTEXT_BYTES)
		limit = limit / 2;
	else
		limit = RUN_MAX_CONTEXT_BYTES;
	if ((context = run__build_context(r, limit)) == NULL) {
		rc = run__oom(err);
		goto out;
	}
	/* The record keeps the context by digest; its text is stored once as
	 * a material (run_take_contexts), so neither the journal nor the
	 * record grows with the contexts of a long Run.  Output puts the
	 * text back (run_status_json, run_current_action_full).  The text is
	 * valid UTF-8 by construction (JSON strings, ASCII, cuts made at
	 * character boundaries), so it is not scanned again. */
	sw_material_digest(digest, context, strlen(context), NULL);
	if ((stored = json_copy(action)) == NULL ||
	    json_object_del(stored, "context") < 0 ||
	    json_object_set_new(stored, "context_sha256", json_string(digest)) < 0 ||
	    json_array_append_new(contexts, json_pack("[s,o]", digest,
						      json_stringn_nocheck(context, strlen(context)))) < 0) {
		rc = run__oom(err);
		goto out;
	}
	record = json_pack("{s:O}", "action", stored);
	if (record == NULL || json_array_append_new(run__arr(rec, "actions"), record) < 0 ||
	    json_object_set(rec, "current_action", stored) < 0) {
		rc = run__oom(err);
		goto out;
	}
out:
	json_decref(stored);
	sw_free(enc);
	sw_free(brief);
	sw_free(context);
	json_decref(action);
	return rc;
}
