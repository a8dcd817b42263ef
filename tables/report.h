#ifndef TABLES_REPORT_H
#define TABLES_REPORT_H

/* The tables of a Run's report for the person who supervises it
 * (io/report/report.c): its sections in order, the words for how a path
 * changed, and the plain words for slipway's own notes.  Pure data. */

#include <stddef.h>

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

#endif
