#ifndef IO_WIRE_INPUT_H
#define IO_WIRE_INPUT_H

/* Host inputs read before the run store is touched: goal, answer text and
 * outcome files or stdin, run ids and budgets (MAP 1, 3.3, 8).
 *
 * The validators return 0 or SW_EPROTO with err->proto set to the wire code
 * the CLI reports (goal_required, invalid_goal, action_too_large,
 * invalid_answer, answer_too_large, invalid_run_id, invalid_budget,
 * invalid_usage). */

#include <stddef.h>

#include "io/util/digest.h"
#include "io/util/err.h"

/* Raw and JSON-encoded cap of goal and answer text (MaxTextInputBytes). */
#define INPUT_MAX_TEXT_BYTES 262144u
#define INPUT_MAX_RUN_ID 128u
#define INPUT_MIN_BUDGET 1L
#define INPUT_MAX_BUDGET 1000L

/* Size of `s` (`len` bytes, valid UTF-8) as the reference's JSON encoder
 * writes it: quotes included, no HTML escaping, `\b \f \n \r \t \" \\` as two
 * bytes, other C0 controls as \u00XX, U+2028 and U+2029 as \u2028/\u2029. */
size_t input_json_string_size(const char *s, size_t len);

/* Validates a goal (`len` bytes) in the reference's order: whitespace-only
 * (Go unicode.IsSpace, or ECMAScript \s so that the Action stays
 * schema-valid) -> goal_required; not UTF-8 -> invalid_goal; a control other
 * than TAB/LF/CR (C0, DEL, C1) -> invalid_goal; JSON-encoded size over
 * INPUT_MAX_TEXT_BYTES -> action_too_large.  The raw-size cap of file and
 * stdin goals is the reader's SW_ETOOBIG, which the caller reports as
 * action_too_large (input_goal_read_error does the mapping). */
int input_goal_check(const char *goal, size_t len, struct sw_error *err);

/* Maps a reader failure for a goal file / stdin to its wire code:
 * SW_ETOOBIG -> action_too_large, SW_ENOMEM stays SW_ENOMEM, anything else ->
 * goal_unavailable.  Returns the new code; `read_err` is the reader's. */
int input_goal_read_error(const struct sw_error *read_err, struct sw_error *err);

/* Validates answer text: not UTF-8 -> invalid_answer; JSON-encoded size over
 * INPUT_MAX_TEXT_BYTES -> answer_too_large (which covers raw size too, as
 * the encoding is never shorter).  A file / stdin reader's SW_ETOOBIG is
 * answer_too_large as well; the caller maps it.  Empty text is valid here
 * (a confirmation may carry none). */
int input_answer_check(const char *text, size_t len, struct sw_error *err);

/* The answer payload digest (MAP 8):
 * framed("slipway-answer/v1", action_id, "true"|"false", scope or "", text)
 * written as "sha256:<hex>" into `out`.  `scope` may be NULL (= "").
 * SW_ENOMEM only. */
int input_answer_digest(char out[SW_DIGEST_LEN], const char *action_id,
			int confirm, const char *scope, const char *text,
			size_t text_len, struct sw_error *err);

/* Run id grammar [A-Za-z0-9_-]{1,128} -> invalid_run_id. */
int input_run_id_check(const char *run_id, struct sw_error *err);

/* Parses a --budget value as the reference's flag parser does (Go
 * strconv.ParseInt base 0: optional sign, 0x/0o/0b/leading-0 prefixes,
 * underscores between digits), then checks 1..1000.  A value that does not
 * parse -> invalid_usage; out of range -> invalid_budget.  *out is set only
 * on success. */
int input_budget_parse(long *out, const char *s, struct sw_error *err);

/* Range check alone: 1..1000 -> 0, else invalid_budget. */
int input_budget_check(long budget, struct sw_error *err);

#endif
