/* The report of one Run for the person who supervises it: the one place
 * that turns a Run into text for a person (`status RUN`, `status RUN
 * --markdown`) and into the `summary` string the host relays when the Run
 * ends.  It reads the Run through the typed record (io/store/run_record.h)
 * and the two Git observations; it never reads the record's encoding and
 * never touches the run directory.
 *
 * The report leads with the goal and the outcome in one line, what is
 * still open (and the Summarize text, once), then the sections of
 * tables/report_sections.def in order: what Git saw change since the Run
 * started (with the kind of each change, whether the host reported it and
 * whether it was dirty before the Run; files slipway's install wrote are
 * one line per host), destructive work, decisions, the last Review,
 * checks, requirements of an Issue-backed Run, known issues still open,
 * uncertainties in plain words, observations once each, skipped and
 * voided Actions, the per-Action log with the Run's history and the paths
 * already dirty before the Run.  Every form is bounded to
 * RUN_MAX_SUMMARY_BYTES (the long lists first, then a cut), and text from
 * outside slipway is shown harmless (io/report/report_write.c). */

#ifndef IO_REPORT_REPORT_H
#define IO_REPORT_REPORT_H

#include <stddef.h>

#include "io/util/err.h"

struct sw_owned;
struct next;
struct run_event;
struct run_record;
struct vcs_observation;

enum report_form {
	REPORT_TEXT = 1,		/* status RUN: headline, the Run now, sections, choices */
	REPORT_MARKDOWN,		/* status RUN --markdown: GitHub-flavoured, no choices */
	REPORT_SUMMARY			/* the ended Run's `summary`: headline and sections,
					 * bounded to RUN_MAX_SUMMARY_BYTES */
};

struct report_in {
	const struct run_record *rec;		/* with every Action record */
	const struct run_event *events;		/* its history (stops, resumes, ...) */
	size_t n_events;
	const struct vcs_observation *start;	/* the Run start; NULL when unreadable */
	const struct vcs_observation *now;	/* the last observation; NULL when none */
	const struct sw_owned *installed; /* NULL: none known */
	const struct next *next;		/* TEXT: the next choices; may be NULL */
};

/* Renders the report of in->rec as `form` into *out (sw_malloc'd, the
 * caller frees it).  Codes: SW_ENOMEM, and render_next_choices's codes for
 * an invalid `next`. */
int report_run(char **out, const struct report_in *in, enum report_form form,
	       struct sw_error *err);

/* The ended Run's `summary` (REPORT_SUMMARY) of `rec`, with every Action
 * record, its history and its two Git observations (NULL: unreadable),
 * counting the files of `installed` per host: a new string, or NULL when
 * it cannot be rendered.  The driver hands it to the store as the Run's
 * summary writer (run_summary_fn in io/store/run.h), so the store never
 * calls the report. */
char *report_summary(const struct run_record *rec, const struct run_event *events,
		     size_t n_events, const struct vcs_observation *start,
		     const struct vcs_observation *now, const struct sw_owned *installed);

/* `s` bounded as the reference bounds a final summary: over `limit` bytes
 * it is cut at a UTF-8 boundary and ends with "\n\n...[summary truncated
 * omitted_bytes=N original_sha256=sha256:HEX]\n", the whole result at most
 * `limit` bytes.  A new string, or NULL on ENOMEM. */
char *report_bound_summary(const char *s, size_t limit);

#endif
