/* Journal deltas: the data of the change from one Run to the next
 * (run_delta) and that data applied back (run_replay), so that replaying a
 * journal reproduces the record exactly.  Never reads or writes the
 * journal file (io/store/journal.c does). */

#include <string.h>

#include <jansson.h>

#include "io/store/run_codec.h"
#include "io/store/run_internal.h"

static int is_prefix(const json_t *a, const json_t *b)
{
	if (json_array_size(a) > json_array_size(b))
		return 0;
	for (size_t i = 0; i < json_array_size(a); i++)
		if (!json_equal(json_array_get(a, i), json_array_get(b, i)))
			return 0;
	return 1;
}

/* The change of one array element: for two objects only the keys that
 * changed ({index, set, clear}); otherwise the whole new value. */
static json_t *element_change(size_t index, const json_t *b, const json_t *a)
{
	json_t *ch = json_pack("{s:I}", "index", (json_int_t)index);
	json_t *set, *clear;
	const char *k;
	json_t *v;

	if (ch == NULL)
		return NULL;
	if (!json_is_object(a) || !json_is_object(b)) {
		json_object_set_new(ch, "value", json_deep_copy(a));
		return ch;
	}
	set = json_object();
	clear = json_array();
	json_object_foreach((json_t *)a, k, v)
		if (!json_equal(v, json_object_get(b, k)))
			json_object_set_new(set, k, json_deep_copy(v));
	json_object_foreach((json_t *)b, k, v)
		if (json_object_get(a, k) == NULL)
			json_array_append_new(clear, json_string(k));
	json_object_set_new(ch, "set", set);
	json_object_set_new(ch, "clear", clear);
	return ch;
}

json_t *run_delta(const struct run *before, const struct run *after, size_t rule)
{
	json_t *d = json_pack("{s:i, s:i, s:s, s:I}", "event_version", 2,
			      "contract_version", 2, "run_id", run__str(after->rec, "id"),
			      "rule", (json_int_t)tbl_rules[rule].id);
	json_t *set = json_object(), *clear = json_array(), *app = json_object();
	json_t *upd = json_object();

	if (!d || !set || !clear || !app || !upd)
		goto fail;
	/* Both sides must split the Action history at the same record. */
	if ((before == NULL && after->nfz > 0) || (before && before->nfz != after->nfz))
		goto fail;
	if (before == NULL) {
		json_t *init = run__ordered_copy(after->rec);

		if (init == NULL ||
		    json_object_set_new(d, "initialize", json_deep_copy(init)) < 0) {
			json_decref(init);
			goto fail;
		}
		json_decref(init);
		goto done;
	}
	for (size_t i = 0; i < run__nfields; i++) {
		const char *k = run__field_order[i];
		json_t *b = json_object_get(before->rec, k);
		json_t *a = json_object_get(after->rec, k);

		if ((a == NULL && b == NULL) || json_equal(a, b))
			continue;
		if (a == NULL) {
			if (json_array_append_new(clear, json_string(k)) < 0)
				goto fail;
		} else if (json_is_array(a) && (b == NULL || json_is_array(b))) {
			json_t *tail = json_array(), *changes = json_array();
			size_t nb = json_array_size(b);
			/* Indexes count the frozen records before rec.actions. */
			size_t base = strcmp(k, "actions") == 0 ? after->nfz : 0;

			if (!tail || !changes) {
				json_decref(tail);
				json_decref(changes);
				goto fail;
			}
			if (!is_prefix(b, a) && nb > json_array_size(a)) {
				/* shrunk: replace whole (never the Action history,
				 * which only grows) */
				json_decref(tail);
				json_decref(changes);
				if (base > 0 || json_object_set_new(set, k, json_deep_copy(a)) < 0)
					goto fail;
				continue;
			}
			for (size_t j = 0; j < json_array_size(a); j++) {
				json_t *av = json_array_get(a, j), *bv = json_array_get(b, j);

				if (j >= nb)
					json_array_append_new(tail, json_deep_copy(av));
				else if (!json_equal(av, bv))
					json_array_append_new(changes, element_change(base + j, bv, av));
			}
			if (json_array_size(tail))
				json_object_set(app, k, tail);
			if (json_array_size(changes))
				json_object_set(upd, k, changes);
			json_decref(tail);
			json_decref(changes);
		} else if (json_object_set_new(set, k, json_deep_copy(a)) < 0) {
			goto fail;
		}
	}
	if ((json_object_size(set) && json_object_set(d, "set", set) < 0) ||
	    (json_array_size(clear) && json_object_set(d, "clear", clear) < 0) ||
	    (json_object_size(app) && json_object_set(d, "append", app) < 0) ||
	    (json_object_size(upd) && json_object_set(d, "update", upd) < 0))
		goto fail;
done:
	json_decref(set);
	json_decref(clear);
	json_decref(app);
	json_decref(upd);
	return d;
fail:
	json_decref(d);
	d = NULL;
	goto done;
}

static int bad(struct sw_error *err, const char *what)
{
	return sw_error_proto(err, TBL_ERR_RUN_JOURNAL_INVALID, "journal event data: %s", what);
}

int run_replay(struct run **rp, const char *type, const json_t *data,
	       struct sw_error *err)
{
	const char *key;
	json_t *v, *rec;
	size_t i;

	if (!json_is_object(data) ||
	    json_integer_value(json_object_get(data, "event_version")) != 2 ||
	    json_integer_value(json_object_get(data, "contract_version")) != 2 ||
	    !json_is_string(json_object_get(data, "run_id")))
		return bad(err, "missing or unsupported version fields");
	if (strcmp(type, "run_started") == 0) {
		json_t *init = json_object_get(data, "initialize");
		struct run *r;

		if (*rp != NULL)
			return bad(err, "run_started after the first event");
		if (!json_is_object(init) || !json_equal(json_object_get(init, "id"),
							json_object_get(data, "run_id")))
			return bad(err, "run_started without a matching initialize object");
		json_object_foreach(init, key, v)
			if (!run__known_field(key))
				return bad(err, "unknown field in initialize");
		if ((r = sw_calloc(1, sizeof(*r))) == NULL ||
		    (r->rec = json_deep_copy(init)) == NULL ||
		    (r->contexts = json_array()) == NULL) {
			run_free(r);
			return run__oom(err);
		}
		*rp = r;
		return 0;
	}
	if (*rp == NULL)
		return bad(err, "the first event is not run_started");
	/* Replay leaves the record to be checked (run_check) once whole. */
	run_view_free((*rp)->view);
	(*rp)->view = NULL;
	if (tbl_jevent_lookup(type) == TBL_JEVENT_INVALID)
		return bad(err, "unknown event type");
	rec = (*rp)->rec;
	if (!json_equal(json_object_get(rec, "id"), json_object_get(data, "run_id")))
		return bad(err, "event for another run");
	/* A change to a frozen record (never made by this program: only the
	 * last record changes) needs the records back as JSON first. */
	if ((*rp)->nfz > 0) {
		int thaw = json_object_get(json_object_get(data, "set"), "actions") != NULL;

		json_array_foreach(json_object_get(data, "clear"), i, v)
			thaw |= json_is_string(v) && strcmp(json_string_value(v), "actions") == 0;
		json_array_foreach(json_object_get(json_object_get(data, "update"), "actions"), i, v)
			thaw |= json_integer_value(json_object_get(v, "index")) < (json_int_t)(*rp)->nfz;
		if (thaw) {
			int rc = run_thaw(*rp, err);

			if (rc < 0)
				return rc;
		}
		rec = (*rp)->rec;
	}
	json_object_foreach(json_object_get(data, "set"), key, v)
		if (!run__known_field(key) || json_object_set(rec, key, v) < 0)
			return bad(err, "bad set");
	json_array_foreach(json_object_get(data, "clear"), i, v)
		if (!json_is_string(v) || !run__known_field(json_string_value(v)) ||
		    json_object_del(rec, json_string_value(v)) < 0)
			return bad(err, "bad clear");
	json_object_foreach(json_object_get(data, "update"), key, v) {
		json_t *target = json_object_get(rec, key), *ch;
		json_int_t base = strcmp(key, "actions") == 0 ? (json_int_t)(*rp)->nfz : 0;

		json_array_foreach(v, i, ch) {
			json_int_t idx = json_integer_value(json_object_get(ch, "index")) - base;
			json_t *el, *cv, *value = json_object_get(ch, "value");
			const char *ck;
			size_t ci;

			if (!json_is_array(target) || idx < 0 ||
			    (size_t)idx >= json_array_size(target))
				return bad(err, "bad update");
			if (value != NULL) {
				if (json_array_set(target, (size_t)idx, value) < 0)
					return bad(err, "bad update");
				continue;
			}
			el = json_array_get(target, (size_t)idx);
			if (!json_is_object(el))
				return bad(err, "bad update");
			json_object_foreach(json_object_get(ch, "set"), ck, cv)
				if (json_object_set(el, ck, cv) < 0)
					return bad(err, "bad update");
			json_array_foreach(json_object_get(ch, "clear"), ci, cv)
				if (!json_is_string(cv) || json_object_del(el, json_string_value(cv)) < 0)
					return bad(err, "bad update");
		}
	}
	json_object_foreach(json_object_get(data, "append"), key, v)
		if (!run__known_field(key) || !json_is_array(v) || run__extend(rec, key, v) < 0)
			return bad(err, "bad append");
	return 0;
}
