/* The human text of status: one Run's report (io/report/report.c, with
 * what the service knows beside the record: the Git observations the
 * record keeps and the files slipway's install wrote) or the listing, one
 * line per Run.  cli/cmd_status.c only prints it.  Also the installed files
 * a mutation hands to the Run's briefs and final summary. */

#include "service/report.h"

#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "io/adapters/adapter.h"
#include "io/git/observe.h"
#include "io/store/run.h"
#include "io/store/run_history.h"
#include "io/store/run_record.h"
#include "io/util/buf.h"
#include "service/ops.h"
#include "service/svc.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

int svc_report_installed(struct sw_owned *out, const struct svc *d,
			 const struct fsm_step *st, struct sw_error *err)
{
	memset(out, 0, sizeof(*out));
	if (st->issued != FSM_KIND_REVIEW && st->issued != FSM_KIND_SUMMARIZE &&
	    !(st->ops & (FSM_OP(END) | FSM_OP(END_SKIPPED))))
		return 0;
	return adapter_installed(out, d->ws.worktree_root, err);
}

int svc_report(char **out, const struct svc *d, const struct run *r, struct run_history *h,
	       const struct next *n, enum report_form form, struct sw_error *err)
{
	const struct run_event *events = NULL;
	size_t n_events = 0;
	struct vcs_observation start = VCS_OBSERVATION_INIT, now = VCS_OBSERVATION_INIT;
	struct sw_owned installed;
	struct sw_error ignored = SW_ERROR_INIT;
	int have_start, have_now, rc;

	*out = NULL;
	if ((rc = adapter_installed(&installed, d->ws.worktree_root, err)) < 0)
		return rc;
	/* An observation the record cannot give back is reported as such. */
	have_start = run_git_observation(&start, r, RUN_GIT_INITIAL, &ignored) == 0;
	have_now = run_git_observation(&now, r, RUN_GIT_CURRENT, &ignored) == 0;
	if (h)
		events = run_history_events(h, &n_events);
	rc = report_run(out, &(struct report_in){
		.rec = run_record(r), .events = events, .n_events = n_events,
		.start = have_start ? &start : NULL,
		.now = have_now ? &now : NULL, .installed = &installed, .next = n }, form, err);
	vcs_observation_release(&start);
	vcs_observation_release(&now);
	sw_owned_release(&installed);
	return rc;
}

/* `s` quoted for a POSIX shell. */
static void shell_quoted(struct sw_buf *b, const char *s)
{
	sw_buf_ch(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			sw_buf_str(b, "'\\''");
		else
			sw_buf_ch(b, *s);
	sw_buf_ch(b, '\'');
}

/* Another worktree's Run: its state can be read only there (the listing
 * knows its first record alone), and once that worktree is gone nothing
 * reaches it but removing its directory. */
static void foreign_line(struct sw_buf *out, const struct svc_listing *l, const json_t *entry)
{
	const char *ws = jstr(entry, "workspace") ? jstr(entry, "workspace") : "";
	char *dir = NULL;

	sw_buf_fmt(out, "%s  unknown  another worktree's Run (%s): ", jstr(entry, "id"), ws);
	if (access(ws, F_OK) == 0) {
		sw_buf_str(out, "its state is read there");
	} else if ((dir = sw_asprintf("%s/%s", l->runs_dir ? l->runs_dir : "", jstr(entry, "id"))) != NULL) {
		sw_buf_str(out, "that worktree no longer exists; clear the Run with: rm -r ");
		shell_quoted(out, dir);
	} else {
		out->failed = 1;
	}
	sw_buf_fmt(out, "  %s\n", jstr(entry, "goal"));
	sw_free(dir);
}

/* The listing as text: one line per Run, then one per unavailable Run. */
static char *list_text(const struct svc_listing *l)
{
	struct sw_buf out = SW_BUF_INIT;
	json_t *entry;
	size_t i;

	if (json_array_size(l->runs) == 0 && json_array_size(l->unavailable) == 0)
		sw_buf_str(&out, "No run journals were found.\n");
	json_array_foreach(l->runs, i, entry) {
		if (json_is_true(json_object_get(entry, "workspace_foreign")))
			foreign_line(&out, l, entry);
		else
			sw_buf_fmt(&out, "%s  %-7s  remaining=%lld  %s\n", jstr(entry, "id"),
				   jstr(entry, "state"),
				   (long long)json_integer_value(json_object_get(entry, "remaining_budget")),
				   jstr(entry, "goal"));
	}
	json_array_foreach(l->unavailable, i, entry)
		sw_buf_fmt(&out, "%s  unavailable  code=%s  %s\n", jstr(entry, "id"),
			   jstr(entry, "code"), jstr(entry, "detail"));
	return sw_buf_detach(&out);
}

char *svc_status_text(const struct svc_status_found *found)
{
	if (found->run) {
		struct sw_buf out = SW_BUF_INIT;
		json_t *v;
		size_t i;

		/* A damaged material never hides the Run: it is named first. */
		json_array_foreach(found->damaged, i, v)
			sw_buf_fmt(&out, "Unreadable material: %s\n", json_string_value(v));
		sw_buf_str(&out, found->report ? found->report : "");
		return sw_buf_detach(&out);
	}
	if (found->listed)
		return list_text(&found->list);
	return NULL;
}
