/* slipway status: the Runs of this repository, or one Run. */

#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "service/ops.h"

/* The text svc_op_status made (svc_status_text), then the flush. */
static int print_text(const struct svc_status_found *res)
{
	fputs(res->text, stdout);
	return cli_flush();
}

int cmd_status(int argc, char **argv)
{
	struct svc_status_found res = { 0 };
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_STATUS, argc, argv, &a, cli_raw_root(argc, argv))) >= 0)
		goto out;
	if (!a.json)
		(void)cli_human_output();
	rc = svc_op_status(&(struct svc_status_request){
		.root = cli_root(&a), .run_id = a.npos == 1 ? a.pos[0] : NULL,
		.section = a.section.v, .section_given = a.section.given,
		.candidate = a.from_candidate, .human = !a.json, .markdown = a.markdown },
		&res, NULL);
	if (rc == 0 && res.text)
		rc = print_text(&res);
out:
	svc_status_found_release(&res);
	cli_args_release(&a);
	return rc;
}
