#ifndef SERVICE_REPORT_H
#define SERVICE_REPORT_H

/* The person's report of a Run (io/report/report.h), with what the service
 * knows beside the record: the two Git observations the record keeps and
 * the files slipway's own install wrote (their ownership manifests, read
 * from the worktree).  Nothing here prints. */

#include "fsm/fsm.h"
#include "io/report/report.h"
#include "io/util/owned.h"

struct next;
struct run;
struct run_history;
struct svc;
struct sw_error;

/* The files slipway's install wrote (adapter_installed), read when step `st` issues a Review
 * or a Summarize or ends the Run (their briefs and the final summary count
 * them per host); *out stays empty otherwise.  *out is zeroed here and
 * released with sw_owned_release.  SW_ENOMEM. */
int svc_report_installed(struct sw_owned *out, const struct svc *d,
			 const struct fsm_step *st, struct sw_error *err);

/* The report of `r` as `form` (with `n`, its next choices, for the text
 * form; may be NULL) into *out, sw_malloc'd.  `r` must hold every Action
 * record and `h` its whole history (a Run loaded by svc_load_history; a
 * NULL `h`: no history).  SW_ENOMEM, or render_report's codes. */
int svc_report(char **out, const struct svc *d, const struct run *r, struct run_history *h,
	       const struct next *n, enum report_form form, struct sw_error *err);

#endif
