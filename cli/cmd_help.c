/* slipway _help and _reference: help about a command, and every command's
 * help as JSON lines for the man pages and completions of mk/gencli.py. */

#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cmd_reference(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_help_reference();
	return cli_print_group_reference(CLI_CMD_NONE, "",
		"drive an AI coding host through bounded Actions of one Run");
}

int cmd_help(int argc, char **argv)
{
	const struct cli_command *c;
	char *sub[] = { NULL, (char *)"--help", NULL };
	char msg[300];

	if (argc < 2)
		return cli_print_root_help();
	if ((c = cli_find(CLI_CMD_NONE, argv[1])) == NULL || c->name[0] == '_') {
		snprintf(msg, sizeof(msg), "unknown help topic \"%s\"", argv[1]);
		return svc_fail(TBL_ERR_UNKNOWN_HELP_TOPIC, 0, msg, NULL, NULL, NULL);
	}
	sub[0] = (char *)c->name;
	return c->fn(2, sub);
}
