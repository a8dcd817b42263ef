#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

/* One function per command of cli/commands.def, each in cli/cmd_<name>.c
 * (the protocol operations in cli/cmd_protocol.c).  argv[0] is the
 * command's own name; the return value is the process exit status
 * (cli/exit.h). */

#define CMD(id, group, name, fn, ...) int fn(int argc, char **argv);
#include "cli/commands.def"
#undef CMD

#endif
