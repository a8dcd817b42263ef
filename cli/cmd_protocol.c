/* slipway protocol: the operations generated host adapters call. */

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "io/err.h"
#include "service/ops.h"

static const struct cli_opt root_opt = {
	"root", CLI_OPT_STRING, NULL, 0, "workspace root (default: current Git worktree)", "string"
};

#define OPTS_END { NULL, 0, NULL, 0, NULL, NULL }

static int op_submit(int argc, char **argv, const char *raw_root)
{
	const char *run = NULL, *action = NULL, *file = NULL, *root = NULL;
	int use_stdin = 0, rc;
	struct cli_opt opts[] = {
		{ "run", CLI_OPT_STRING, &run, 0, "run id", "string" },
		{ "action", CLI_OPT_STRING, &action, 0, "current action id", "string" },
		{ "outcome-file", CLI_OPT_STRING, &file, 0, "Outcome JSON file", "string" },
		{ "outcome-stdin", CLI_OPT_BOOL, &use_stdin, 0, "read one Outcome JSON value from stdin", NULL },
		root_opt, OPTS_END,
	};
	static const struct cli_command cmd = {
		"protocol submit [flags]", "Report one Action Outcome and receive the next Action", NULL, NULL
	};
	struct svc_submit_request req = { 0 };
	char **pos = NULL;
	size_t npos = 0;

	opts[4].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "submit", &pos, &npos, raw_root)) >= 0)
		return rc;
	req.root = root && *root ? root : NULL;
	if ((rc = cli_no_args(npos, pos, "protocol submit", req.root)) == 0) {
		req.run_id = run;
		req.action_id = action;
		req.outcome_file = file;
		req.outcome_file_given = opts[2].seen;
		req.outcome_stdin = use_stdin;
		rc = svc_op_submit(&req, NULL);
	}
	sw_free(pos);
	return rc;
}

static int op_answer(int argc, char **argv, const char *raw_root)
{
	const char *run = NULL, *action = NULL, *text = NULL, *file = NULL, *scope = NULL,
		   *root = NULL;
	int use_stdin = 0, confirm = 0, rc;
	struct cli_opt opts[] = {
		{ "run", CLI_OPT_STRING, &run, 0, "run id", "string" },
		{ "action", CLI_OPT_STRING, &action, 0, "waiting action id", "string" },
		{ "text", CLI_OPT_STRING, &text, 0, "user answer, decline, or optional confirmation note", "string" },
		{ "text-file", CLI_OPT_STRING, &file, 0, "read the exact answer or optional confirmation note from a regular non-symlink file", "string" },
		{ "text-stdin", CLI_OPT_BOOL, &use_stdin, 0, "read the exact answer or optional confirmation note from stdin", NULL },
		{ "confirm-destructive", CLI_OPT_BOOL, &confirm, 0, "attest current user confirmation of the exact destructive scope", NULL },
		{ "scope-sha256", CLI_OPT_STRING, &scope, 0, "exact current destructive scope digest", "string" },
		root_opt, OPTS_END,
	};
	static const struct cli_command cmd = {
		"protocol answer [flags]",
		"Answer a waiting question, or confirm one exact destructive scope", NULL, NULL
	};
	struct svc_answer_request req = { 0 };
	char **pos = NULL;
	size_t npos = 0;

	opts[7].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "answer", &pos, &npos, raw_root)) >= 0)
		return rc;
	req.root = root && *root ? root : NULL;
	if ((rc = cli_no_args(npos, pos, "protocol answer", req.root)) == 0) {
		req.run_id = run;
		req.action_id = action;
		req.text = text;
		req.text_given = opts[2].seen;
		req.text_file = file;
		req.text_file_given = opts[3].seen;
		req.text_stdin = use_stdin;
		req.confirm_destructive = confirm;
		req.scope_sha256 = scope;
		rc = svc_op_answer(&req, NULL);
	}
	sw_free(pos);
	return rc;
}

static int op_skip(int argc, char **argv, const char *raw_root)
{
	const char *run = NULL, *action = NULL, *root = NULL;
	struct cli_opt opts[] = {
		{ "run", CLI_OPT_STRING, &run, 0, "run id", "string" },
		{ "action", CLI_OPT_STRING, &action, 0, "current action id", "string" },
		root_opt, OPTS_END,
	};
	static const struct cli_command cmd = {
		"protocol skip [flags]", "Skip the current Action and receive the next one", NULL, NULL
	};
	struct svc_skip_request req = { 0 };
	char **pos = NULL;
	size_t npos = 0;
	int rc;

	opts[2].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "skip", &pos, &npos, raw_root)) >= 0)
		return rc;
	req.root = root && *root ? root : NULL;
	if ((rc = cli_no_args(npos, pos, "protocol skip", req.root)) == 0) {
		req.run_id = run;
		req.action_id = action;
		rc = svc_op_skip(&req, NULL);
	}
	sw_free(pos);
	return rc;
}

static int op_resume(int argc, char **argv, const char *raw_root)
{
	const char *budget_s = NULL, *source = NULL, *choice = NULL, *candidate = NULL,
		   *root = NULL;
	int pinned = 0, rc;
	struct cli_opt opts[] = {
		{ "budget", CLI_OPT_STRING, &budget_s, 0, "replace remaining Action budget (default: preserve or replenish)", "int" },
		{ "source-file", CLI_OPT_STRING, &source, 0, "refreshed raw GitHub Change source envelope", "string" },
		{ "use-pinned-source", CLI_OPT_BOOL, &pinned, 0, "continue explicitly with the pinned source snapshot", NULL },
		{ "source-choice", CLI_OPT_STRING, &choice, 0, "resolve current source candidate: pinned or adopt", "string", "pinned adopt" },
		{ "candidate", CLI_OPT_STRING, &candidate, 0, "current source candidate ID", "string" },
		root_opt, OPTS_END,
	};
	static const struct cli_command cmd = {
		"protocol resume <run-id> [flags]", "Resume a stopped Run or a resumable pause",
		"  slipway protocol resume RUN [--budget N]\n"
		"  slipway protocol resume RUN --source-file FILE [--budget N]\n"
		"  slipway protocol resume RUN --use-pinned-source [--budget N]\n"
		"  slipway protocol resume RUN --source-choice pinned|adopt --candidate CANDIDATE [--budget N]",
		NULL
	};
	struct svc_resume_request req = { 0 };
	char **pos = NULL, msg[200];
	size_t npos = 0;

	opts[5].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "resume", &pos, &npos, raw_root)) >= 0)
		return rc;
	req.root = root && *root ? root : NULL;
	if (npos != 1) {
		snprintf(msg, sizeof(msg), "accepts 1 arg(s), received %zu", npos);
		rc = svc_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, req.root, NULL);
	} else {
		req.run_id = pos[0];
		req.budget = budget_s;
		req.source_file = source;
		req.source_file_given = opts[1].seen;
		req.use_pinned_source = pinned;
		req.source_choice = choice;
		req.source_choice_given = opts[3].seen;
		req.candidate = candidate;
		req.candidate_given = opts[4].seen;
		rc = svc_op_resume(&req, NULL);
	}
	sw_free(pos);
	return rc;
}

static int op_material(int argc, char **argv, const char *raw_root)
{
	const char *run = NULL, *action = NULL, *section = NULL, *root = NULL;
	struct cli_opt opts[] = {
		{ "run", CLI_OPT_STRING, &run, 0, "Run ID", "string" },
		{ "action", CLI_OPT_STRING, &action, 0, "Action ID", "string" },
		{ "section", CLI_OPT_STRING, &section, 0, "source section key", "string" },
		root_opt, OPTS_END,
	};
	static const struct cli_command cmd = {
		"protocol material [flags]", "Read one locally pinned Action source chapter", NULL, NULL
	};
	struct svc_material_request req = { 0 };
	char **pos = NULL;
	size_t npos = 0;
	int rc;

	opts[3].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "material", &pos, &npos, raw_root)) >= 0)
		return rc;
	req.root = root && *root ? root : NULL;
	if ((rc = cli_no_args(npos, pos, "protocol material", req.root)) == 0) {
		req.run_id = run;
		req.action_id = action;
		req.section = section;
		rc = svc_op_material(&req, NULL);
	}
	sw_free(pos);
	return rc;
}

static const struct {
	const char *name;
	int (*fn)(int, char **, const char *);
	const char *summary;
} ops[] = {
	{ "answer", op_answer, "Answer a waiting question, or confirm one exact destructive scope" },
	{ "material", op_material, "Read one locally pinned Action source chapter" },
	{ "resume", op_resume, "Resume a stopped Run or a resumable pause" },
	{ "skip", op_skip, "Skip the current Action and receive the next one" },
	{ "submit", op_submit, "Report one Action Outcome and receive the next Action" },
};

/* Reference mode (slipway _reference): the group, then each operation. */
static int protocol_reference(void)
{
	const char *names[sizeof(ops) / sizeof(ops[0]) + 1] = { NULL };
	const char *summaries[sizeof(ops) / sizeof(ops[0]) + 1] = { NULL };
	int rc;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		names[i] = ops[i].name;
		summaries[i] = ops[i].summary;
	}
	rc = cli_print_group_reference("protocol",
		"Machine protocol operations that generated adapters call to drive a Run",
		names, summaries);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]) && rc == SVC_EXIT_OK; i++) {
		char *argv[] = { (char *)ops[i].name, (char *)"--help", NULL };

		rc = ops[i].fn(2, argv, NULL);
	}
	return rc;
}

static int protocol_help(void)
{
	if (cli_help_is_reference())
		return protocol_reference();
	printf("Machine protocol operations that generated adapters call to drive a Run\n\n"
	       "Usage:\n  slipway protocol [command]\n\nAvailable Commands:\n");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		printf("  %-10s %s\n", ops[i].name, ops[i].summary);
	printf("\nFlags:\n  -h, --help          help for protocol\n"
	       "      --root string   workspace root (default: current Git worktree)\n");
	return fflush(stdout) == EOF ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
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
	char msg[300];

	if (argc < 2)
		return svc_fail(TBL_ERR_PROTOCOL_OPERATION_REQUIRED, 0,
				"a protocol operation is required", NULL, raw_root, NULL);
	/* The persistent --root may come before the operation. */
	if (argv[1][0] == '-' && cli_hoist_command(argc, argv, bools) == 0)
		return no_operation(argc, argv, raw_root);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(argv[1], ops[i].name) == 0)
			return ops[i].fn(argc - 1, argv + 1, raw_root);
	snprintf(msg, sizeof(msg), "unknown command \"%s\" for \"slipway protocol\"", argv[1]);
	return svc_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, raw_root, NULL);
}
