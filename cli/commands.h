#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

/* One function per subcommand, each in cli/cmd_<name>.c.  argv[0] is the
 * command's own name; the return value is the process exit status. */

int cmd_doctor(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_mcp(int argc, char **argv);
int cmd_protocol(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);

#endif
