#ifndef SERVICE_EXIT_H
#define SERVICE_EXIT_H

/* Exit statuses of the operations, the process's exit status in the CLI
 * (docs/protocol-tables.md lists them).  A structured error is always
 * written with USAGE or RUNTIME; DEFECT means not even that could be
 * written, so there is no JSON body. */
enum svc_exit {
	SVC_EXIT_OK = 0,
	SVC_EXIT_DEFECT = 1,
	SVC_EXIT_USAGE = 2,
	SVC_EXIT_RUNTIME = 3
};

#endif
