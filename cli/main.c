/* slipway: the process entry point.  The command table is
 * cli/commands.def (cli_commands, cli/cli.h). */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/version.h"
#include "io/util/err.h"

/* A standard descriptor the caller closed must not be handed out to the
 * first file the run store opens, or the reply would land in a journal.
 * Park /dev/null there, opened the wrong way round, so that writing the
 * reply (or reading stdin) still fails and is reported as such. */
static void reserve_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		got = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY));
		if (got >= 0 && got != fd)
			close(got);
	}
}

int main(int argc, char **argv)
{
	/* The root's own flags that take no value. */
	static const char *const root_bools[] = { "help", "h", "version", "v", NULL };
	const struct cli_command *c;
	char msg[300];
	int rc;

	reserve_std_fds();
	sw_alloc_init();
	signal(SIGPIPE, SIG_IGN);
	/* Past RLIMIT_FSIZE a write fails with EFBIG, which is reported and
	 * rolled back like a full disk, instead of killing the process. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cli_print_root_help();
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-v") == 0) {
		printf("slipway %s\n  commit: %s\n  built:  %s\n", SLIPWAY_VERSION,
		       SLIPWAY_COMMIT, SLIPWAY_DATE);
		return cli_flush();
	}
	/* A flag before the command name is the command's own
	 * (slipway --root R status). */
	if (argv[1][0] == '-')
		(void)cli_hoist_command(argc, argv, root_bools);
	if ((c = cli_find(CLI_CMD_NONE, argv[1])) == NULL) {
		if (argv[1][0] == '-')
			snprintf(msg, sizeof(msg), "unknown flag: %s", argv[1]);
		else
			snprintf(msg, sizeof(msg), "unknown command \"%s\" for \"slipway\"", argv[1]);
		return svc_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, cli_raw_root(argc, argv), NULL);
	}
	rc = c->fn(argc - 1, argv + 1);
	if (fflush(stdout) == EOF && rc == CLI_EXIT_OK)
		rc = CLI_EXIT_DEFECT;
	if (cli_human_end() < 0 && rc == CLI_EXIT_OK)
		rc = CLI_EXIT_DEFECT;
	if (rc == CLI_EXIT_OK && cli_human())
		cli_config_warnings();
	return rc;
}
