#ifndef SERVICE_EMIT_H
#define SERVICE_EMIT_H

/* Output of the operations: the document on stdout, and the one structured
 * error path (cliError on stderr, exit 2 or 3, exit 1 only when the error
 * itself cannot be written). */

#include "service/exit.h"
#include "io/wire/next.h"
#include "tables/tables.h"

#include <stddef.h>
#include <stdio.h>

struct json_t;

/* What an operation answered, for a front end that does not print it
 * straight away: the exit status, the document it wrote for stdout and
 * the cliError it wrote for stderr (each sw_malloc'd, NUL-terminated,
 * without the final newline, "" when nothing was written). */
struct svc_result {
	int status;
	char *document;
	size_t document_len;
	char *error;
	size_t error_len;
};

/* Routes what the operations write into memory until svc_result_end, when
 * `res` is not NULL (with NULL both are no-ops and the operation writes to
 * stdout and stderr).  One capture at a time per process: begin returns -1
 * when one is in progress or memory runs out (res->status is then 1). */
int svc_result_begin(struct svc_result *res);
/* Ends the capture begun for `res`, fills it and returns `status` (1 when
 * the output could not be kept).  With NULL returns `status`. */
int svc_result_end(struct svc_result *res, int status);
/* Frees what `res` holds; NULL is fine. */
void svc_result_release(struct svc_result *res);

/* The stream an operation's document goes to: stdout, or the capture. */
FILE *svc_out(void);
/* Flushes svc_out() to where it goes, through the human-output filter
 * when one holds stdout (sw_os_filter_stdout_flush): 0, or -1 when a
 * write failed.  Where an operation must learn that its output was lost,
 * it calls this, not fflush. */
int svc_flush_out(void);


/* Writes `doc` compactly plus "\n" to stdout and flushes.  Returns 0, or -1
 * when the write failed. */
int svc_print_json(const struct json_t *doc);
/* Writes already-encoded JSON `text` (sw_malloc'd, taken over; NULL counts
 * as a failed write) plus "\n" to stdout and flushes.  0 or -1. */
int svc_print_json_text(char *text);

/* Writes a cliError for `code` to stderr and returns the exit status to use
 * (`exit_override` when non-zero, else the table's).  `next` is borrowed;
 * when NULL, operation none for `root` (or the current directory) is used.
 * `details` (borrowed) may be NULL. */
int svc_fail(enum tbl_err code, int exit_override, const char *message,
	     const struct next *next, const char *root,
	     const struct json_t *details);

/* A preflight error (before the store is opened) whose next inspects the
 * Run `run` (inspect-run), or every Run when `run` is NULL (inspect-runs),
 * in `root` (the current directory when NULL or empty). */
int svc_fail_inspect(enum tbl_err code, const char *message, const char *root,
		     const char *run);

/* The i-th Git configuration file left out because it could not be read
 * (a HOME the user may not enter), as a sentence, or NULL past the last:
 * for the front ends to show a person (human output, the MCP log), never
 * in a document. */
const char *svc_config_warning(size_t i);

#endif
