#ifndef IO_STORE_JOURNAL_H
#define IO_STORE_JOURNAL_H

/* Journal record and projection text formats (no file I/O; io/store/store_*.c do
 * the durable part).
 *
 * A journal record is one compact JSON line
 *   {"sequence":N,"type":T,"at":RFC3339Nano,"data":<JSON>}\n
 * with exactly those four keys.  `data` is kept as the caller's JSON text
 * with insignificant whitespace removed and no HTML escaping; callers encode
 * it with sw_json_dump, as the reference's encoder does (U+2028/U+2029
 * escaped), so its size is the reference's.  Records written raw by earlier
 * versions decode to the same values.  run.json is
 * {"revision": N, "data": ...} indented two spaces, HTML characters escaped
 * as \u003c \u003e \u0026, then "\n". */

#include <stddef.h>
#include <time.h>

#include "io/util/err.h"
#include "tables/tables.h"

/* Largest journal line, newline included. */
#define JOURNAL_MAX_LINE 4194304u
/* Largest `data` text of one event. */
#define JOURNAL_MAX_DATA (4194304u - 65536u)
/* Room for an RFC3339Nano UTC timestamp and its NUL. */
#define JOURNAL_TIME_LEN 40

/* One decoded record.  Produced by journal_record_decode; `data` points
 * into `buf`, both owned by the record (journal_record_release). */
struct journal_record {
	long long sequence;
	enum tbl_jevent type;
	char at[JOURNAL_TIME_LEN];
	const char *data;	/* raw JSON text of the value, NUL-terminated */
	size_t data_len;
	char *buf;
};

/* Formats `ts` (UTC) as Go's RFC3339Nano: fraction with trailing zeros
 * removed, no fraction when it is zero, "Z" zone. */
void journal_format_time(const struct timespec *ts, char out[JOURNAL_TIME_LEN]);

/* 1 if `s` is an RFC3339 date-time (any offset, optional fraction of 1..9
 * digits) that is not Go's zero time, else 0. */
int journal_time_valid(const char *s);

/* Writes to *out (sw_malloc'd, NUL-terminated, caller frees) the JSON text
 * `in` without insignificant whitespace.  `in` must be valid JSON (checked
 * by the caller).  SW_ENOMEM. */
int journal_compact(char **out, size_t *out_len, const char *in, size_t len,
		    struct sw_error *err);

/* Encodes one record line (with "\n") into *out (caller frees).  `data`
 * must already be compact.  The caller checks *out_len against
 * JOURNAL_MAX_LINE.  SW_EINVAL for an unknown type; SW_ENOMEM. */
int journal_record_encode(char **out, size_t *out_len, long long sequence,
			  enum tbl_jevent type, const char *at,
			  const char *data, size_t data_len,
			  struct sw_error *err);

/* Decodes one line (without its "\n") that must carry `expected` as its
 * sequence.  On success fills *rec (release with journal_record_release).
 * SW_EPARSE for anything malformed; SW_ENOMEM. */
int journal_record_decode(struct journal_record *rec, const char *line,
			  size_t len, long long expected, struct sw_error *err);
void journal_record_release(struct journal_record *rec);

#ifdef SW_TESTING
/* Turns the tree-free fast decoder off (0) or on (1), so tests can check
 * that it agrees with the strict one. */
void journal_set_fast_path(int on);
#endif

/* Builds the run.json bytes for `revision` and the projection JSON `data`,
 * in one pass: Go's MarshalIndent layout (two spaces) with HTML escaping.
 * `data` must be one JSON value, as a Jansson dump is; the pass checks its
 * structure (matched brackets, closed strings, nothing after the value:
 * SW_EPARSE) but does not re-parse it.  *out is sw_malloc'd.  SW_ENOMEM. */
int journal_projection_encode(char **out, size_t *out_len, long long revision,
			      const char *data, size_t data_len,
			      struct sw_error *err);

/* One value in the same layout as it appears `depth` levels deep in
 * run.json (the run's top-level fields are at depth 2, the elements of one
 * of its arrays at depth 3): the bytes a projection holds from its first
 * to its last character.  SW_EPARSE, SW_ENOMEM. */
int journal_projection_value(char **out, size_t *out_len, const char *data,
			     size_t data_len, int depth, struct sw_error *err);

#endif
