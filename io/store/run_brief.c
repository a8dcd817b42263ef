/* Briefs and summaries: the brief of an issued Action (with the paths
 * already dirty at the start for Review and Summarize), and the ended
 * Run's summary, written by the driver's summary writer (fx->summarize:
 * the person's report).  Never includes or calls io/report/. */

#include <assert.h>
#include <string.h>

#include <jansson.h>

#include "io/git/observe.h"
#include "io/store/run_codec.h"
#include "io/store/run_internal.h"
#include "io/util/buf.h"
#include "io/util/owned.h"
#include "io/util/shown.h"

/* Trims Unicode-ish white space at both ends (ASCII and the common
 * multi-byte spaces suffice for briefs, which are already validated). */
static void trim_span(const char *s, size_t *start, size_t *len)
{
	size_t b = 0, e = strlen(s);

	while (b < e && strchr(" \t\r\n\v\f", s[b]))
		b++;
	while (e > b && strchr(" \t\r\n\v\f", s[e - 1]))
		e--;
	*start = b;
	*len = e - b;
}

/* Appends one pre-existing dirty path as "<path> [<category> <state>]":
 * what a host needs to tell it from the Run's own work (its digests stay
 * in the Run's initial_git).  A control character in the path is shown
 * as "<U+XXXX>": a brief holds none. */
static void buf_dirty_path(struct sw_buf *b, const json_t *p)
{
	sw_buf_shown(b, run__str(p, "path"));
	sw_buf_fmt(b, " [%s %s]", run__str(p, "category"), run__str(p, "state"));
}

char *run__compose_brief(const json_t *rec, enum fsm_kind kind,
			 enum fsm_brief which, const char *suggested,
			 int changed, const struct sw_owned *installed)
{
	const char *base = NULL;
	struct sw_buf b = { 0 };
	size_t start, len;
	char *out;

	if (which == FSM_BRIEF_SUGGESTED && suggested != NULL)
		base = suggested;
	else if (which != FSM_BRIEF_DEFAULT && which != FSM_BRIEF_SUGGESTED &&
		 which != FSM_BRIEF_NONE)
		base = tbl_brief_text[which];
	if (base == NULL)
		base = "";
	trim_span(base, &start, &len);
	if (len == 0) {
		base = tbl_kind_default_brief[kind];
		trim_span(base, &start, &len);
	}
	sw_buf_add(&b, base + start, len);
	if ((kind == FSM_KIND_REVIEW || kind == FSM_KIND_SUMMARIZE) && changed) {
		const json_t *g = json_object_get(rec, "initial_git"), *p;
		json_t *paths = json_object_get(g, "path_observations");
		size_t i;

		sw_buf_str(&b, " Git changed since the Run started, and not all of the change "
			    "need be this Run's: people, other Runs or tools may have edited the "
			    "worktree too.");
		const char *sep = " ";

		sw_buf_fmt(&b, " Paths already dirty when the Run started (%lld):",
			   (long long)json_integer_value(json_object_get(g, "path_count")));
		if (json_integer_value(json_object_get(g, "path_count")) == 0)
			sw_buf_str(&b, " none");
		json_array_foreach(paths, i, p) {
			if (sw_owned_by(installed, run__str(p, "path"), run__str(p, "content_sha256")))
				continue;
			sw_buf_str(&b, sep);
			buf_dirty_path(&b, p);
			sep = "; ";
		}
		/* slipway's own files: one count per host (the Run's
		 * initial_git keeps each of them). */
		for (size_t h = 0; installed && h < installed->n; h++) {
			size_t n = 0;

			json_array_foreach(paths, i, p)
				n += sw_owned_by(installed, run__str(p, "path"), run__str(p, "content_sha256")) ==
				     installed->groups[h].owner;
			if (n > 0) {
				sw_buf_str(&b, sep);
				sw_owned_count_line(&b, n, installed->groups[h].owner);
				sep = "; ";
			}
		}
		if (json_is_true(json_object_get(g, "details_truncated")))
			sw_buf_fmt(&b, "%sfurther paths are left out of this bounded list", sep);
		sw_buf_str(&b, ".");
	}
	if (b.failed) {
		sw_free(b.p);
		return NULL;
	}
	out = run__truncate_marked(b.p, RUN_MAX_BRIEF_BYTES);
	sw_free(b.p);
	return out;
}

/* Every Action record in Run order, frozen ones parsed back (a new array;
 * a frozen record that cannot be read back is left out). */
static json_t *all_records(const struct run *r)
{
	json_t *all = json_array(), *v;
	size_t i;

	for (i = 0; all && i < r->nfz; i++)
		if ((v = run__fz_parse(r->fz, &r->fz->e[i])) != NULL)
			json_array_append_new(all, v);
	json_array_foreach(json_object_get(r->rec, "actions"), i, v)
		if (all)
			json_array_append(all, v);
	return all;
}

/* The final summary, written by the driver's summary writer (fx->summarize,
 * the person's report): the typed record with every Action record, frozen
 * ones parsed back, and the two Git observations.  NULL on ENOMEM. */
char *run__final_summary(const struct run *r, const struct run_effects *fx)
{
	struct vcs_observation start = VCS_OBSERVATION_INIT, now = VCS_OBSERVATION_INIT;
	struct sw_error err = SW_ERROR_INIT;
	json_t *whole = json_copy(r->rec), *records = all_records(r);
	struct run_view *view = NULL;
	char *out = NULL;
	int have_start, have_now;

	assert(fx->summarize != NULL && "an ended Run needs its summary writer");
	if (whole == NULL || records == NULL || json_object_set(whole, "actions", records) < 0 ||
	    run_view_decode(&view, whole, &err) < 0)
		goto out;
	have_start = run_git_observation(&start, r, RUN_GIT_INITIAL, &err) == 0;
	have_now = run_git_observation(&now, r, RUN_GIT_CURRENT, &err) == 0;
	out = fx->summarize(run_view_record(view), fx->events, fx->n_events,
			    have_start ? &start : NULL, have_now ? &now : NULL, fx->installed);
out:
	vcs_observation_release(&start);
	vcs_observation_release(&now);
	run_view_free(view);
	json_decref(records);
	json_decref(whole);
	return out;
}
