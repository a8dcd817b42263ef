/* The report of a Run with the service's facts.  See service/report.h. */

#include "service/report.h"

#include <string.h>

#include "io/observe.h"
#include "io/run.h"
#include "io/run_record.h"
#include "service/svc.h"

int svc_report_installed(struct adapter_installed *out, const struct svc *d,
			 const struct fsm_step *st, struct sw_error *err)
{
	memset(out, 0, sizeof(*out));
	if (st->issued != FSM_KIND_REVIEW && st->issued != FSM_KIND_SUMMARIZE &&
	    !(st->ops & (FSM_OP(END) | FSM_OP(END_SKIPPED))))
		return 0;
	return adapter_installed(out, d->ws.worktree_root, err);
}

int svc_report(char **out, const struct svc *d, const struct run *r, const struct next *n,
	       enum render_report_form form, struct sw_error *err)
{
	struct vcs_observation start = VCS_OBSERVATION_INIT, now = VCS_OBSERVATION_INIT;
	struct adapter_installed installed;
	struct sw_error ignored = SW_ERROR_INIT;
	int have_start, have_now, rc;

	*out = NULL;
	if ((rc = adapter_installed(&installed, d->ws.worktree_root, err)) < 0)
		return rc;
	/* An observation the record cannot give back is reported as such. */
	have_start = run_git_observation(&start, r, RUN_GIT_INITIAL, &ignored) == 0;
	have_now = run_git_observation(&now, r, RUN_GIT_CURRENT, &ignored) == 0;
	rc = render_report(out, &(struct render_report_in){
		.rec = run_record(r), .start = have_start ? &start : NULL,
		.now = have_now ? &now : NULL, .installed = &installed, .next = n }, form, err);
	vcs_observation_release(&start);
	vcs_observation_release(&now);
	adapter_installed_release(&installed);
	return rc;
}
