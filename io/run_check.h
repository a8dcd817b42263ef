#ifndef IO_RUN_CHECK_H
#define IO_RUN_CHECK_H

/* The one check of a loaded Run record.  A journal that is valid JSON can
 * still hold a record with a missing field, a value of the wrong type or
 * an unknown spelling (someone edited it, or a disk lost bytes); the code
 * that reads the record assumes none of that.  run_check runs once, after
 * a Run is loaded and before anything reads it, against a table of every
 * field the program reads; a recorded Outcome must pass the Outcome
 * decoder again.
 *
 * Returns 0, SW_ENOMEM, or SW_EPROTO with run_journal_invalid and the
 * field's path in err->msg. */

#include "io/err.h"
#include "io/run.h"

int run_check(const struct run *r, struct sw_error *err);

#endif
