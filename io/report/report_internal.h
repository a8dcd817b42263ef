/* What the files of the report share, private to io/report/: the state
 * the writing helpers and the section handlers pass along (struct rr), the
 * helpers that write plain text or Markdown (report_write.c), the facts read
 * once from the record and Git's change list (report_facts.c) and the table
 * of section handlers (report_sections.c).  Never included outside io/report/. */

#ifndef IO_REPORT_REPORT_INTERNAL_H
#define IO_REPORT_REPORT_INTERNAL_H

#include <stddef.h>

#include "io/git/vcs_changes.h"
#include "io/report/report.h"
#include "io/util/buf.h"
#include "tables/report.h"

struct run_action_record;
struct run_outcome;
struct run_record;
struct vcs_path_obs;

/* What the section handlers share. */
struct rr {
	struct sw_buf b;
	enum report_form form;
	int md;				/* Markdown */
	const struct report_in *in;
	const struct run_record *rec;
	int ended;
	struct vcs_changes ch;
	int compared;			/* both observations readable */
	char **reported;		/* paths Implement reported, trimmed, sorted */
	size_t nreported;
	int failed;			/* out of memory outside the buffer */
	size_t count;			/* what the last section's heading counted */
	/* Bounding (report.c): 0, or how many items a long list keeps (the
	 * newest Actions, observations and checks, the first paths); a list
	 * cut so says how many it left out, and host text in a list is one
	 * line. */
	size_t keep;
	size_t left_out;		/* items the lists left out */
};

/* ---- writing (report_write.c) ---- */

/* slipway's own words (a format's %s only for slipway's own words). */
void report__put(struct rr *r, const char *s);
#define report__putf(r, ...) sw_buf_fmt(&(r)->b, __VA_ARGS__)
int report__space(char c);
void report__trimmed(const char *s, size_t *at, size_t *n);
/* Text from outside slipway: one line, several lines, words on one line,
 * code (see report_write.c for what each makes harmless). */
void report__text(struct rr *r, const char *s);
void report__block(struct rr *r, const char *s, const char *indent);
void report__one_line(struct rr *r, const char *s, size_t max);
void report__code(struct rr *r, const char *s, int cell);
void report__short_id(struct rr *r, const char *id);
void report__heading(struct rr *r, enum tbl_report_section sec, size_t count);
void report__item(struct rr *r);
const char *report__cont(const struct rr *r);
void report__times(struct rr *r, size_t n);

/* ---- facts (report_facts.c) ---- */

int report__gather_reported(struct rr *r);
int report__was_reported(const struct rr *r, const char *path);
int report__changed(const struct rr *r, const char *path);
const char *report__installed_by(const struct rr *r, const struct vcs_path_obs *p);
void report__installed_lines(struct rr *r, const size_t *count);
size_t report__host_index(const struct rr *r, const char *id);
size_t report__count_actions(const struct run_record *rec, size_t *done, size_t *skipped,
			     size_t *voided);
const struct run_action_record *report__summarize(const struct run_record *rec);
size_t report__changes_shown(const struct rr *r);
size_t report__changes_total(const struct rr *r, int *exact);
const struct vcs_path_obs *report__dirty_at_start(const struct rr *r, const char *path);
void report__own_unhashed(const struct rr *r, size_t *missing, size_t *unreadable,
			  size_t *unobserved);
const struct run_action_record *report__last_review(const struct run_record *rec,
						    size_t *earlier);
size_t report__failed_checks(const struct run_record *rec);
int report__failed_last(const struct run_record *rec, size_t i);
const struct run_action_record *report__unimplemented_move(const struct run_record *rec,
							   const struct run_action_record **base);
void report__new_requirements(struct rr *r, const struct run_action_record *base,
			      const struct run_action_record *moved);
char *report__issue_key(const char *s);
size_t report__known_issues(const struct run_record *rec, const struct run_outcome **last,
			    char ***keys, size_t *earlier);
long long report__budget_set(const struct rr *r);
const struct tbl_report_history *report__closed_by(const struct rr *r, size_t i);

/* ---- the sections (report_sections.c) ---- */

/* One handler per row of tables/report_sections.def. */
typedef void report__section_fn(struct rr *r);
extern report__section_fn *const report__section_handler[TBL_SECTION__COUNT];

#endif
