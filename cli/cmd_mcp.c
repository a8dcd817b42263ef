/* slipway mcp: serve the protocol to MCP hosts on stdin/stdout. */

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/version.h"
#include "io/util/os.h"
#include "mcp/server.h"

/* What stdin becomes: /dev/null, or, where there is none (a chroot that
 * holds only slipway and a repository), an empty pipe, which reads as the
 * end of input just the same. */
static int empty_input(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), p[2];

	if (fd >= 0 || sw_os_pipe_cloexec(p) < 0)
		return fd;
	close(p[1]);
	return p[0];
}

int cmd_mcp(int argc, char **argv)
{
	struct cli_args a = { 0 };
	int rc, in_fd = -1, out_fd = -1, null_fd = -1;

	if ((rc = cli_parse_command(CLI_CMD_MCP, argc, argv, &a, cli_raw_root(argc, argv))) >= 0)
		goto out;
	/* The channel gets private descriptors; stdin reads nothing and
	 * stdout goes to stderr, so that no stray print reaches the host. */
	fflush(stdout);
	if ((in_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (null_fd = empty_input()) < 0 ||
	    dup2(null_fd, STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		perror("slipway mcp: cannot set up stdin/stdout");
		rc = CLI_EXIT_DEFECT;
		goto out;
	}
	rc = mcp_serve(in_fd, out_fd, cli_root(&a), SLIPWAY_VERSION, cli_adapter_texts()) == 0
		? CLI_EXIT_OK : CLI_EXIT_DEFECT;
out:
	if (null_fd >= 0)
		close(null_fd);
	if (in_fd >= 0)
		close(in_fd);
	if (out_fd >= 0)
		close(out_fd);
	cli_args_release(&a);
	return rc;
}
