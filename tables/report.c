/* The report's tables (tables/report.h). */

#include "tables/report.h"

const char *const tbl_section_title[TBL_SECTION__COUNT] = {
#define SECTION(id, title) [TBL_SECTION_##id] = title,
#include "tables/report_sections.def"
#undef SECTION
};

const char *const tbl_change_word[TBL_CHANGE__COUNT] = {
#define CHANGE(id, word) [TBL_CHANGE_##id] = word,
#include "tables/change_kinds.def"
#undef CHANGE
};

const struct tbl_report_note tbl_report_notes[] = {
#define NOTE(code, plain) { code, plain },
#include "tables/report_notes.def"
#undef NOTE
};
const size_t tbl_report_notes_len = sizeof(tbl_report_notes) / sizeof(tbl_report_notes[0]);

const struct tbl_report_history tbl_report_history[] = {
#define HISTORY(event, pause, said, budget, closes) \
	{ TBL_JEVENT_##event, FSM_PAUSE_##pause, said, budget, closes },
#include "tables/report_history.def"
#undef HISTORY
};
const size_t tbl_report_history_len = sizeof(tbl_report_history) / sizeof(tbl_report_history[0]);

const struct tbl_report_history *tbl_report_history_of(enum tbl_jevent event, enum fsm_pause pause)
{
	for (size_t i = 0; i < tbl_report_history_len; i++) {
		const struct tbl_report_history *h = &tbl_report_history[i];

		if ((h->event == TBL_JEVENT_INVALID || h->event == event) && h->pause == pause)
			return h;
	}
	return NULL;
}
