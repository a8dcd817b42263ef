/* slipway stop: stop a Run (the one active or paused Run when no id). */

#include "cli/cli.h"
#include "cli/commands.h"
#include "io/err.h"
#include "service/ops.h"

int cmd_stop(int argc, char **argv)
{
	const char *root = NULL;
	int json = 0, rc;
	struct cli_opt opts[] = {
		{ "root", CLI_OPT_STRING, &root, 0, "workspace root (default: current Git worktree)", "string" },
		{ "json", CLI_OPT_BOOL, &json, 0, "emit machine-protocol JSON", NULL },
		{ NULL, 0, NULL, 0, NULL, NULL },
	};
	static const struct cli_command cmd = {
		"stop [run-id] [flags]", "Stop a Run; resume it later with slipway protocol resume",
		"  slipway stop\n  slipway stop RUN --json", NULL
	};
	struct svc_stop_request req = { 0 };
	char **pos = NULL;
	size_t npos = 0;

	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "stop", &pos, &npos,
				    cli_raw_root(argc, argv))) >= 0)
		return rc;
	if (!json)
		(void)cli_human_output();
	req.root = root && *root ? root : NULL;
	req.human = !json;
	if ((rc = cli_max_args(npos, 1, req.root)) == 0) {
		req.run_id = npos == 1 ? pos[0] : NULL;
		rc = svc_op_stop(&req, NULL);
	}
	sw_free(pos);
	return rc;
}
