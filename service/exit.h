#ifndef SERVICE_EXIT_H
#define SERVICE_EXIT_H

/* Exit statuses of the operations (tables/exit_statuses.def, one row
 * each): every entry of service/ops.h returns one.  A structured error is
 * always written with USAGE or RUNTIME; DEFECT means not even that could be
 * written, so there is no JSON body.  The CLI returns them unchanged as the
 * process's status (cli/exit.h reads the same rows). */
enum svc_exit {
#define EXIT(id, status, meaning) SVC_EXIT_##id = status,
#include "tables/exit_statuses.def"
#undef EXIT
};

#endif
