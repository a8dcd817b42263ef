/* slipway protocol: the operations generated host adapters call. */

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "service/ops.h"

int cmd_submit(int argc, char **argv)
{
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_SUBMIT, argc, argv, &a, cli_raw_root(argc, argv))) < 0)
		rc = svc_op_submit(&(struct svc_submit_request){
			.root = cli_root(&a), .run_id = a.run.v, .action_id = a.action.v,
			.outcome_file = a.outcome_file.v, .outcome_file_given = a.outcome_file.given,
			.outcome_stdin = a.outcome_stdin }, NULL);
	cli_args_release(&a);
	return rc;
}

int cmd_answer(int argc, char **argv)
{
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_ANSWER, argc, argv, &a, cli_raw_root(argc, argv))) < 0)
		rc = svc_op_answer(&(struct svc_answer_request){
			.root = cli_root(&a), .run_id = a.run.v, .action_id = a.action.v,
			.text = a.text.v, .text_given = a.text.given,
			.text_file = a.text_file.v, .text_file_given = a.text_file.given,
			.text_stdin = a.text_stdin, .confirm_destructive = a.confirm_destructive,
			.scope_sha256 = a.scope_sha256.v }, NULL);
	cli_args_release(&a);
	return rc;
}

int cmd_skip(int argc, char **argv)
{
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_SKIP, argc, argv, &a, cli_raw_root(argc, argv))) < 0)
		rc = svc_op_skip(&(struct svc_skip_request){
			.root = cli_root(&a), .run_id = a.run.v, .action_id = a.action.v }, NULL);
	cli_args_release(&a);
	return rc;
}

int cmd_resume(int argc, char **argv)
{
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_RESUME, argc, argv, &a, cli_raw_root(argc, argv))) < 0)
		rc = svc_op_resume(&(struct svc_resume_request){
			.root = cli_root(&a), .run_id = a.pos[0], .budget = a.budget.v,
			.source_file = a.source_file.v, .source_file_given = a.source_file.given,
			.use_pinned_source = a.use_pinned_source,
			.source_choice = a.source_choice.v, .source_choice_given = a.source_choice.given,
			.candidate = a.candidate.v, .candidate_given = a.candidate.given }, NULL);
	cli_args_release(&a);
	return rc;
}

int cmd_material(int argc, char **argv)
{
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_MATERIAL, argc, argv, &a, cli_raw_root(argc, argv))) < 0)
		rc = svc_op_material(&(struct svc_material_request){
			.root = cli_root(&a), .run_id = a.run.v, .action_id = a.action.v,
			.section = a.section.v }, NULL);
	cli_args_release(&a);
	return rc;
}

static int protocol_help(void)
{
	if (cli_help_is_reference())
		return cli_print_group_reference(CLI_CMD_PROTOCOL, "protocol",
						 cli_commands[CLI_CMD_PROTOCOL].summary);
	printf("%s\n\nUsage:\n  slipway protocol [command]\n\nAvailable Commands:\n",
	       cli_commands[CLI_CMD_PROTOCOL].summary);
	for (int c = CLI_CMD_NONE + 1; c < CLI_CMD__COUNT; c++)
		if (cli_commands[c].group == CLI_CMD_PROTOCOL)
			printf("  %-10s %s\n", cli_commands[c].name, cli_commands[c].summary);
	printf("\nFlags:\n  -h, --help          help for protocol\n"
	       "      --root string   %s\n", cli_flags[CLI_FLAG_ROOT].usage);
	return cli_flush();
}

/* `slipway protocol` with flags but no operation: its persistent --root
 * is accepted (then the operation is missing), anything else is a usage
 * error as the reference's flag parser reports it. */
static int no_operation(int argc, char **argv, const char *raw_root)
{
	char msg[300];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return protocol_help();
		if (strncmp(argv[i], "--root=", 7) == 0)
			continue;
		if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
			i++;
			continue;
		}
		if (strcmp(argv[i], "--root") == 0)
			snprintf(msg, sizeof(msg), "flag needs an argument: --root");
		else if (strcmp(argv[i], "--") == 0 || argv[i][0] != '-')
			snprintf(msg, sizeof(msg), "unknown command \"%s\" for \"slipway protocol\"",
				 argv[i]);
		else
			snprintf(msg, sizeof(msg), "unknown flag: %s", argv[i]);
		return svc_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, raw_root, NULL);
	}
	return svc_fail(TBL_ERR_PROTOCOL_OPERATION_REQUIRED, 0,
			"a protocol operation is required", NULL, raw_root, NULL);
}

int cmd_protocol(int argc, char **argv)
{
	static const char *const bools[] = { "help", "h", NULL };
	const char *raw_root = cli_raw_root(argc, argv);
	const struct cli_command *op;
	char msg[300];

	if (argc < 2)
		return svc_fail(TBL_ERR_PROTOCOL_OPERATION_REQUIRED, 0,
				"a protocol operation is required", NULL, raw_root, NULL);
	/* The persistent --root may come before the operation. */
	if (argv[1][0] == '-' && cli_hoist_command(argc, argv, bools) == 0)
		return no_operation(argc, argv, raw_root);
	if ((op = cli_find(CLI_CMD_PROTOCOL, argv[1])) != NULL)
		return op->fn(argc - 1, argv + 1);
	snprintf(msg, sizeof(msg), "unknown command \"%s\" for \"slipway protocol\"", argv[1]);
	return svc_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, raw_root, NULL);
}
