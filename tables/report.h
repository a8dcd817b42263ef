#ifndef TABLES_REPORT_H
#define TABLES_REPORT_H

/* The tables of a Run's report for the person who supervises it
 * (io/report/report.c): its sections in order, the words for how a path
 * changed, the plain words for slipway's own notes and for the events of
 * the Run's history.  Pure data. */

#include <stddef.h>

#include "tables/tables.h"

enum tbl_report_section {
#define SECTION(id, title) TBL_SECTION_##id,
#include "tables/report_sections.def"
#undef SECTION
	TBL_SECTION__COUNT
};

enum tbl_change {
#define CHANGE(id, word) TBL_CHANGE_##id,
#include "tables/change_kinds.def"
#undef CHANGE
	TBL_CHANGE__COUNT
};

extern const char *const tbl_section_title[TBL_SECTION__COUNT];
extern const char *const tbl_change_word[TBL_CHANGE__COUNT];

/* One row of tables/report_notes.def.  `plain` NULL: a section says it;
 * "": the text after "code: " is already plain. */
struct tbl_report_note {
	const char *code;
	const char *plain;
};
extern const struct tbl_report_note tbl_report_notes[];
extern const size_t tbl_report_notes_len;

/* One row of tables/report_history.def. */
struct tbl_report_history {
	enum tbl_jevent event;		/* TBL_JEVENT_INVALID: any */
	enum fsm_pause pause;
	const char *said;
	const char *budget;		/* before the budget it set; NULL: none */
	const char *closes;		/* NULL: closes no Action */
};
extern const struct tbl_report_history tbl_report_history[];
extern const size_t tbl_report_history_len;

/* The row of tables/report_history.def for a journal event `event` that
 * entered `pause` (FSM_PAUSE_NONE when none), or NULL: not in the history. */
const struct tbl_report_history *tbl_report_history_of(enum tbl_jevent event, enum fsm_pause pause);

#endif
