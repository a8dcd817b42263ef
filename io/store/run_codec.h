#ifndef IO_STORE_RUN_CODEC_H
#define IO_STORE_RUN_CODEC_H

/* The Run record's encoding, private to the codec (io/store/run_*.c write it,
 * io/store/run_decode.c decodes it).  Everything outside io/ reads a Run through
 * the structs of io/store/run_record.h (run_record in io/store/run.h); `make
 * check-record` fails when code in service/, cli/ or mcp/ includes this
 * header or calls what it declares. */

#include "io/util/err.h"
#include "io/store/run.h"
#include "io/store/run_record.h"

struct json_t;

/* The decoded record and the memory it owns.  run_view_decode checks the
 * record `rec` (a JSON object) and decodes it in one pass; its strings are
 * borrowed from `rec`.  SW_EPROTO run_journal_invalid naming the field, or
 * SW_ENOMEM; *out NULL on failure. */
struct run_view;
int run_view_decode(struct run_view **out, const struct json_t *rec, struct sw_error *err);
const struct run_record *run_view_record(const struct run_view *v);
void run_view_free(struct run_view *v);

/* Decodes r's record into r's view (replacing the one before). */
int run_decode(struct run *r, struct sw_error *err);

/* Borrowed views of the encoding (valid until *r changes).  On a frozen
 * Run (run_freeze) the record's `actions` holds only the records after
 * the frozen ones. */
const struct json_t *run_json(const struct run *r);
const struct json_t *run_current_action(const struct run *r);	/* or NULL */

#endif
