#ifndef IO_STORE_RUN_CHECK_H
#define IO_STORE_RUN_CHECK_H

/* The one check of a loaded Run record.  A journal that is valid JSON can
 * still hold a record with a missing field, a value of the wrong type or
 * an unknown spelling (someone edited it, or a disk lost bytes); the code
 * that reads the record assumes none of that.  run_check runs once, after
 * a Run is loaded and before anything reads it: it decodes the record into
 * the structs of io/store/run_record.h against a table of every field the
 * program reads (so run_record(r) is valid afterwards), a recorded Outcome
 * must pass the Outcome decoder again, and the state, pause reason and
 * budgets must go together.
 *
 * Returns 0, SW_ENOMEM, or SW_EPROTO with run_journal_invalid and the
 * field's path in err->msg. */

#include "io/util/err.h"
#include "io/store/run.h"

int run_check(struct run *r, struct sw_error *err);

#endif
