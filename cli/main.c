/* slipway: the command table and the process entry point. */

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "io/err.h"

/* build/gen/version.h: git describe and the build date (mk/version.sh). */
#if defined(__has_include)
#if __has_include("build/gen/version.h")
#include "build/gen/version.h"
#endif
#endif
#ifndef SLIPWAY_VERSION
#define SLIPWAY_VERSION "0.1.0"
#endif
#ifndef SLIPWAY_COMMIT
#define SLIPWAY_COMMIT "unknown"
#endif
#ifndef SLIPWAY_DATE
#define SLIPWAY_DATE "unknown"
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	int hidden;
};

/* Sorted by name, as the help lists them. */
static const struct command commands[] = {
	{ "_help", cmd_help, "Help about any command", 1 },
	{ "doctor", cmd_doctor, "Diagnose host installation and runtime availability", 0 },
	{ "install", cmd_install, "Install Slipway capabilities for detected AI coding hosts", 0 },
	{ "list", cmd_list, "List host adapters and their installation state", 0 },
	{ "protocol", cmd_protocol, "Machine protocol operations that generated adapters call to drive a Run", 0 },
	{ "run", cmd_run, "Start a Run: slipway issues its first Action", 0 },
	{ "status", cmd_status, "Show the Runs of this repository", 0 },
	{ "stop", cmd_stop, "Stop a Run; resume it later with slipway protocol resume", 0 },
	{ "uninstall", cmd_uninstall, "Remove pristine Slipway-managed host capabilities", 0 },
};

static int print_root_help(void)
{
	printf("slipway drives an AI coding host through bounded Actions of one Run,\n"
	       "journals every Outcome and observes Git on its own.\n\n"
	       "Usage:\n  slipway [command]\n\nAvailable Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!commands[i].hidden)
			printf("  %-10s %s\n", commands[i].name, commands[i].summary);
	printf("\nFlags:\n  -h, --help      help for slipway\n"
	       "  -v, --version   version for slipway\n\n"
	       "Use \"slipway [command] --help\" for more information about a command.\n");
	return fflush(stdout) == EOF ? CLI_EXIT_DEFECT : CLI_EXIT_OK;
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int cmd_help(int argc, char **argv)
{
	const struct command *c;
	char *sub[] = { NULL, (char *)"--help", NULL };
	char msg[300];

	if (argc < 2)
		return print_root_help();
	if ((c = find(argv[1])) == NULL || c->hidden) {
		snprintf(msg, sizeof(msg), "unknown help topic \"%s\"", argv[1]);
		return cli_fail(TBL_ERR_UNKNOWN_HELP_TOPIC, 0, msg, NULL, NULL, NULL);
	}
	sub[0] = (char *)c->name;
	return c->fn(2, sub);
}

int main(int argc, char **argv)
{
	const struct command *c;
	char msg[300];
	int rc;

	sw_alloc_init();
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return print_root_help();
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-v") == 0) {
		printf("slipway %s\n  commit: %s\n  built:  %s\n", SLIPWAY_VERSION,
		       SLIPWAY_COMMIT, SLIPWAY_DATE);
		return fflush(stdout) == EOF ? CLI_EXIT_DEFECT : CLI_EXIT_OK;
	}
	if ((c = find(argv[1])) == NULL) {
		if (argv[1][0] == '-')
			snprintf(msg, sizeof(msg), "unknown flag: %s", argv[1]);
		else
			snprintf(msg, sizeof(msg),
				 "unknown command \"%s\" for \"slipway\"", argv[1]);
		return cli_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL,
				cli_raw_root(argc, argv), NULL);
	}
	rc = c->fn(argc - 1, argv + 1);
	if (fflush(stdout) == EOF && rc == CLI_EXIT_OK)
		rc = CLI_EXIT_DEFECT;
	return rc;
}
