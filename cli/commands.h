#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

/* One function per subcommand, each in cli/cmd_<name>.c.  argv[0] is the
 * command's own name; the return value is the process exit status. */

int cmd_doctor(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);

struct cli_command;

/* The adapter commands' shared front: parses argv against cmd->opts,
 * prints --help, refuses positional arguments.  Returns -1 to go on, else
 * the exit status (the error, if any, already written). */
int cli_adapter_parse(int argc, char **argv, const struct cli_command *cmd);

#endif
