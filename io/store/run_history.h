#ifndef IO_STORE_RUN_HISTORY_H
#define IO_STORE_RUN_HISTORY_H

/* What a Run's journal says beyond its record, for source refreshes and
 * choices: every source choice made (its receipt and result, in journal
 * order) and every comment ever accepted into a pinned source (by node id
 * the section it was pinned as, by database id its node id; the first
 * time wins).  The record keeps only the last choice and the current
 * pinned source; the accepted-comment rules and a replayed choice need all
 * of them.  Also the Run's history for the person's report (struct
 * run_event in io/store/run_record.h): each stop, resume, refresh, source
 * choice and pause for budget, with its place among the Actions.
 *
 * Calling sequence: run_history_new (then run_history_gather for each
 * journal event replayed, and for each event a mutation appends) or
 * run_history_from_text (from a replay checkpoint); the queries;
 * run_history_text to checkpoint it; run_history_free.  io-internal like
 * io/store/run.h: a choice's receipt and result are handed out as Jansson values
 * (borrowed, valid until the history is freed or gathers again), for the
 * effects that answer with them (struct run_effects). */

#include <stddef.h>

#include "io/util/err.h"
#include "tables/tables.h"

struct json_t;
struct run_event;
struct run_history;

/* *out is an empty history.  SW_ENOMEM. */
int run_history_new(struct run_history **out, struct sw_error *err);

/* *out is the history run_history_text wrote as `text`.  SW_EPARSE when
 * the text is no such history, SW_ENOMEM.  *out NULL on failure. */
int run_history_from_text(struct run_history **out, const char *text, struct sw_error *err);

void run_history_free(struct run_history *h);

/* Notes what journal event data `data` of type `type` (as journaled, or a
 * mutation's delta) says: the sections of a source it pins, and the
 * choice a SOURCE_PINNED or SOURCE_AMENDED event records.  SW_ENOMEM. */
int run_history_gather(struct run_history *h, enum tbl_jevent type,
		       const struct json_t *data, struct sw_error *err);

/* The history as text (sw_malloc'd; NULL on ENOMEM), the same for the same
 * history whichever way it was gathered. */
char *run_history_text(const struct run_history *h);

/* The earlier choice of the candidate named `candidate_id`: 1 with *choice
 * ("pinned" or "adopt") and its stored receipt and result, or 0 when none
 * (outputs NULL). */
int run_history_choice(const struct run_history *h, const char *candidate_id,
		       const char **choice, const struct json_t **receipt,
		       const struct json_t **result);

/* The Run's history gathered so far, in journal order (*n entries;
 * borrowed, valid until the history gathers again or is freed; NULL with
 * *n == 0 when empty or out of memory). */
const struct run_event *run_history_events(struct run_history *h, size_t *n);

/* Whether the pinnedSource `sections` (an array) break the accepted-
 * comment rules: a comment once accepted is never rebound to another
 * database id or node, nor changed in place (key, role, title, body,
 * section and material digests, bytes).  1 with the reason in `why`, or 0. */
int run_history_violation(const struct run_history *h, const struct json_t *sections,
			  char *why, size_t whylen);

#endif
