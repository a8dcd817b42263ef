#ifndef CLI_EXIT_H
#define CLI_EXIT_H

/* The exit status of the slipway process (docs/en/reference/error-codes.md,
 * "Exit statuses", and every man page's EXIT STATUS section):
 *
 *   0  success
 *   1  a defect: not even the structured error could be written; no JSON
 *   2  usage: the request is malformed; a cliError is on stderr
 *   3  runtime: the request was refused or failed; a cliError is on stderr
 *
 * The values are rows of tables/exit_statuses.def, the one list both this
 * enum and the operations' enum svc_exit (service/exit.h) are built from,
 * so a command returns what an operation answered unchanged while the
 * service stays free of cli/. */
enum cli_exit {
#define EXIT(id, status, meaning) CLI_EXIT_##id = status,
#include "tables/exit_statuses.def"
#undef EXIT
};

#endif
