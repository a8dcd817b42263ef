#ifndef CLI_EXIT_H
#define CLI_EXIT_H

/* Process exit statuses (docs/protocol-tables.md lists them).  A structured
 * error is always written to stderr with USAGE or RUNTIME; DEFECT means not
 * even that could be written, so there is no JSON body. */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_DEFECT = 1,
	CLI_EXIT_USAGE = 2,
	CLI_EXIT_RUNTIME = 3
};

#endif
