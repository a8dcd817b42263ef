/* slipway protocol: the operations generated host adapters call. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "io/input.h"
#include "io/outcome.h"
#include "io/source.h"
#include "io/store.h"

/* The inspect-run recovery for preflight errors: addressed at the raw
 * --root (or the current directory) and the named run. */
static int preflight_fail(const char *root, const char *run, enum tbl_err code,
			  const char *msg)
{
	return cli_fail_inspect(code, msg, root, run);
}

/* run_id_required / invalid_run_id, shared by every operation. */
static int check_run_id(const char *root, const char *run)
{
	struct sw_error err = SW_ERROR_INIT;

	if (run == NULL || run[0] == '\0')
		return cli_fail(TBL_ERR_RUN_ID_REQUIRED, 0, "run cannot be empty", NULL, root, NULL);
	if (input_run_id_check(run, &err) < 0)
		return preflight_fail(root, NULL, TBL_ERR_INVALID_RUN_ID, err.msg);
	return 0;
}

/* run_id_required, invalid_run_id, then action_id_required. */
static int check_run_action(const char *root, const char *run, const char *action)
{
	int rc = check_run_id(root, run);

	if (rc != 0)
		return rc;
	if (action == NULL || action[0] == '\0')
		return preflight_fail(root, run, TBL_ERR_ACTION_ID_REQUIRED, "action cannot be empty");
	return 0;
}

static const struct cli_opt root_opt = {
	"root", CLI_OPT_STRING, NULL, 0, "workspace root (default: current Git worktree)", "string"
};

#define OPTS_END { NULL, 0, NULL, 0, NULL, NULL }

static int finish(struct driver *d, struct driver_mutation *m, const char *resume_op)
{
	int rc = driver_mutate(d, m);

	if (rc == 0)
		rc = driver_print_state(d, m->run, 0, NULL, 0, resume_op);
	driver_mutation_release(m);
	driver_close(d);
	return rc;
}

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
	struct sw_error err = SW_ERROR_INIT;
	struct driver_mutation m = { .event = FSM_EV_SUBMIT };
	struct outcome o;
	struct driver d = { 0 };
	char **pos = NULL, *buf = NULL, *canon = NULL;
	size_t npos = 0, len = 0;
	json_t *canon_json = NULL;
	struct next *retry = NULL;
	int file_set;

	opts[4].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "submit", &pos, &npos, raw_root)) >= 0)
		return rc;
	d.root_arg = root && *root ? root : NULL;
	if ((rc = cli_no_args(npos, pos, "protocol submit", d.root_arg)) != 0)
		goto out;
	file_set = opts[2].seen;
	if ((rc = check_run_action(d.root_arg, run, action)) != 0)
		goto out;
	if (file_set == (use_stdin != 0)) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_OUTCOME_MODE_REQUIRED,
				    "exactly one of outcome-file or outcome-stdin is required");
		goto out;
	}
	if (file_set && file[strspn(file, " \t\r\n")] == '\0') {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_OUTCOME_FILE_REQUIRED,
				    "outcome-file cannot be empty");
		goto out;
	}
	if ((rc = driver_discover(&d)) != 0)
		goto out;
	{
		struct next_fill fill = { .run_id = run, .action_id = action };

		if (next_build_form(&retry, use_stdin ? NEXT_FORM_SUBMIT_STDIN : NEXT_FORM_SUBMIT_FILE,
				    d.ws.id, d.ws.worktree_root, &fill, &err) < 0)
			retry = NULL;
	}
	if ((file_set ? input_read_regular_file(&buf, &len, file, OUTCOME_MAX_BYTES + 1, &err)
		      : input_read_stdin(&buf, &len, OUTCOME_MAX_BYTES + 1, &err)) < 0) {
		rc = err.code == SW_ETOOBIG
			? cli_fail(TBL_ERR_INVALID_OUTCOME, 0, "outcome exceeds 1048576 bytes", retry, NULL, NULL)
			: cli_fail(TBL_ERR_OUTCOME_UNAVAILABLE, 0, err.msg, retry, NULL, NULL);
		driver_close(&d);
		goto out;
	}
	sw_error_clear(&err);
	if (outcome_parse(&o, buf, len, &err) < 0) {
		if (err.proto == TBL_ERR_CONTRACT_VERSION_MISMATCH) {
			struct next *n = NULL;

			next_build_form(&n, NEXT_FORM_REFRESH_ADAPTERS, d.ws.id, d.ws.worktree_root,
					&(struct next_fill){ 0 }, &(struct sw_error)SW_ERROR_INIT);
			rc = cli_fail(TBL_ERR_CONTRACT_VERSION_MISMATCH, 0, err.msg, n, NULL, NULL);
			next_free(n);
		} else {
			rc = cli_fail(TBL_ERR_INVALID_OUTCOME, 0, err.msg, retry, NULL, NULL);
		}
		driver_close(&d);
		goto out;
	}
	if (outcome_to_json(&canon, &o, &err) < 0 ||
	    (canon_json = json_loads(canon, 0, NULL)) == NULL) {
		rc = cli_fail(TBL_ERR_RUNTIME_ERROR, 0, "cannot encode the Outcome", NULL,
			      d.ws.worktree_root, NULL);
		outcome_release(&o);
		driver_close(&d);
		goto out;
	}
	if ((rc = driver_open_store(&d, true)) != 0) {
		outcome_release(&o);
		goto out;
	}
	m.run_id = run;
	m.action_id = action;
	m.outcome = &o;
	m.outcome_json = canon_json;
	rc = finish(&d, &m, NULL);
	outcome_release(&o);
out:
	json_decref(canon_json);
	sw_free(canon);
	sw_free(buf);
	next_free(retry);
	sw_free(pos);
	return rc;
}

static int op_answer(int argc, char **argv, const char *raw_root)
{
	const char *run = NULL, *action = NULL, *text = NULL, *file = NULL, *scope = NULL,
		   *root = NULL;
	int use_stdin = 0, confirm = 0, rc, modes;
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
	struct sw_error err = SW_ERROR_INIT;
	struct driver_mutation m = { .event = FSM_EV_ANSWER };
	struct driver d = { 0 };
	char **pos = NULL, *buf = NULL;
	size_t npos = 0, len = 0;

	opts[7].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "answer", &pos, &npos, raw_root)) >= 0)
		return rc;
	d.root_arg = root && *root ? root : NULL;
	if ((rc = cli_no_args(npos, pos, "protocol answer", d.root_arg)) != 0)
		goto out;
	if ((rc = check_run_action(d.root_arg, run, action)) != 0)
		goto out;
	modes = opts[2].seen + opts[3].seen + (use_stdin != 0);
	if (modes > 1) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_ANSWER_MODE_CONFLICT,
				    "text, text-file, and text-stdin are mutually exclusive");
		goto out;
	}
	if (opts[3].seen && file[strspn(file, " \t\r\n")] == '\0') {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_ANSWER_FILE_REQUIRED,
				    "text-file cannot be empty");
		goto out;
	}
	if (opts[3].seen || use_stdin) {
		if ((opts[3].seen ? input_read_regular_file(&buf, &len, file, INPUT_MAX_TEXT_BYTES, &err)
				  : input_read_stdin(&buf, &len, INPUT_MAX_TEXT_BYTES, &err)) < 0) {
			rc = preflight_fail(d.root_arg, run,
					    err.code == SW_ETOOBIG ? TBL_ERR_ANSWER_TOO_LARGE
								   : TBL_ERR_ANSWER_UNAVAILABLE,
					    err.msg);
			goto out;
		}
		text = buf;
	} else {
		len = text ? strlen(text) : 0;
		if (text == NULL)
			text = "";
	}
	if (input_answer_check(text, len, &err) < 0 || strlen(text) != len) {
		rc = preflight_fail(d.root_arg, run,
				    err.proto ? err.proto
							      : TBL_ERR_INVALID_ANSWER,
				    err.msg[0] ? err.msg : "answer contains a NUL byte");
		goto out;
	}
	if ((confirm != 0) != (scope != NULL && scope[strspn(scope, " \t\r\n")] != '\0')) {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_DESTRUCTIVE_CONFIRMATION_PAIR_REQUIRED,
				    "confirm-destructive and scope-sha256 must be provided together");
		goto out;
	}
	if ((rc = driver_open(&d, true)) != 0)
		goto out;
	m.run_id = run;
	m.action_id = action;
	m.text = text;
	m.text_len = len;
	m.confirm = confirm;
	m.scope = scope ? scope : "";
	rc = finish(&d, &m, NULL);
out:
	sw_free(buf);
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
	struct driver_mutation m = { .event = FSM_EV_SKIP };
	struct driver d = { 0 };
	char **pos = NULL;
	size_t npos = 0;
	int rc;

	opts[2].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "skip", &pos, &npos, raw_root)) >= 0)
		return rc;
	d.root_arg = root && *root ? root : NULL;
	if ((rc = cli_no_args(npos, pos, "protocol skip", d.root_arg)) != 0 ||
	    (rc = check_run_action(d.root_arg, run, action)) != 0)
		goto out;
	if ((rc = driver_open(&d, true)) != 0)
		goto out;
	m.run_id = run;
	m.action_id = action;
	rc = finish(&d, &m, NULL);
out:
	sw_free(pos);
	return rc;
}

/* resume --source-file: reads and classifies the refreshed envelope.  A
 * hard failure is invalid_source_candidate whose next is the Run's resume
 * choices when the Run can be read, else a refresh-source command. */
static int import_candidate(struct driver *d, struct source_candidate **out, const char *path,
			    const char *run_id_arg, int budget_given, unsigned budget)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next_fill fill = { .run_id = run_id_arg, .budget = budget };
	struct next *n = NULL;
	struct run *r = NULL;
	char *buf = NULL, msg[600];
	size_t len = 0;
	int rc;

	if (cli_read_source(&buf, &len, path, &err) < 0)
		snprintf(msg, sizeof(msg), "source file could not be read safely");
	else if (source_parse_candidate(out, buf, len, &err) < 0)
		snprintf(msg, sizeof(msg), "source file could not be imported: %s", err.msg);
	sw_free(buf);
	if (*out != NULL)
		return 0;
	sw_error_clear(&err);
	if (driver_open_store(d, false) == 0) {
		if (driver_load(d, run_id_arg, &r, 1, NULL) == 0)
			n = driver_run_next(r, 1);
		run_free(r);
		store_free(d->store);
		d->store = NULL;
	} else {
		/* driver_open_store released the workspace on failure. */
		return CLI_EXIT_RUNTIME;
	}
	if (n == NULL &&
	    next_build_form(&n, budget_given ? NEXT_FORM_REFRESH_SOURCE_BUDGET : NEXT_FORM_REFRESH_SOURCE,
			    d->ws.id, d->ws.worktree_root, &fill, &err) < 0)
		next_none_identity(&n, d->ws.id, &err);
	rc = cli_fail(TBL_ERR_INVALID_SOURCE_CANDIDATE, 0, msg, n, d->ws.worktree_root, NULL);
	next_free(n);
	return rc;
}

static int op_resume(int argc, char **argv, const char *raw_root)
{
	const char *budget_s = NULL, *source = NULL, *choice = NULL, *candidate = NULL,
		   *root = NULL;
	int pinned = 0, rc, modes;
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
	struct sw_error err = SW_ERROR_INIT;
	struct driver_mutation m = { .event = FSM_EV_RESUME };
	struct source_candidate *refresh = NULL;
	struct driver d = { 0 };
	char **pos = NULL, msg[200];
	size_t npos = 0;
	long budget = 0;

	opts[5].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "resume", &pos, &npos, raw_root)) >= 0)
		return rc;
	d.root_arg = root && *root ? root : NULL;
	if (npos != 1) {
		snprintf(msg, sizeof(msg), "accepts 1 arg(s), received %zu", npos);
		rc = cli_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, d.root_arg, NULL);
		goto out;
	}
	if ((rc = check_run_id(d.root_arg, pos[0])) != 0)
		goto out;
	if (budget_s && input_budget_parse(&budget, budget_s, &err) < 0) {
		rc = err.proto == TBL_ERR_INVALID_BUDGET
			? preflight_fail(d.root_arg, pos[0], TBL_ERR_INVALID_BUDGET, err.msg)
			: cli_fail(TBL_ERR_INVALID_USAGE, 0, err.msg, NULL, d.root_arg, NULL);
		goto out;
	}
	if (opts[1].seen && source[0] == '\0') {
		rc = preflight_fail(d.root_arg, pos[0], TBL_ERR_SOURCE_FILE_REQUIRED,
				    "source-file cannot be empty");
		goto out;
	}
	if (opts[3].seen != opts[4].seen || (opts[4].seen && candidate[0] == '\0')) {
		rc = preflight_fail(d.root_arg, pos[0], TBL_ERR_SOURCE_CHOICE_REQUIRES_CANDIDATE,
				    "source-choice and candidate must be provided together");
		goto out;
	}
	if (opts[3].seen && strcmp(choice, "pinned") != 0 && strcmp(choice, "adopt") != 0) {
		rc = preflight_fail(d.root_arg, pos[0], TBL_ERR_INVALID_SOURCE_CHOICE,
				    "source-choice must be pinned or adopt");
		goto out;
	}
	modes = opts[1].seen + (pinned != 0) + opts[3].seen;
	if (modes > 1) {
		rc = preflight_fail(d.root_arg, pos[0], TBL_ERR_SOURCE_MODE_CONFLICT,
				    "source-file, use-pinned-source, and source-choice are mutually exclusive");
		goto out;
	}
	if ((rc = driver_discover(&d)) != 0)
		goto out;
	if (opts[1].seen &&
	    (rc = import_candidate(&d, &refresh, source, pos[0], budget_s != NULL, (unsigned)budget)) != 0) {
		driver_close(&d);
		goto out;
	}
	if ((rc = driver_open_store(&d, true)) != 0)
		goto out;
	m.run_id = pos[0];
	m.refresh = refresh;
	m.budget_given = budget_s != NULL;
	m.budget = (unsigned)budget;
	/* --use-pinned-source and --source-file are their own events; a source
	 * choice reaches the plain resume rows as a "source option". */
	if (pinned)
		m.event = FSM_EV_RESUME_PINNED;
	else if (refresh)
		m.event = FSM_EV_RESUME_REFRESH;
	else if (opts[3].seen)
		m.event = strcmp(choice, "adopt") == 0 ? FSM_EV_CHOOSE_ADOPT : FSM_EV_CHOOSE_PINNED;
	m.candidate_id = candidate;
	m.source_options = 0;
	rc = finish(&d, &m, driver_resume_operation(m.event));
out:
	source_candidate_free(refresh);
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
	struct driver d = { 0 };
	struct run *r = NULL;
	char **pos = NULL;
	size_t npos = 0;
	int rc;

	opts[3].dest = &root;
	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "material", &pos, &npos, raw_root)) >= 0)
		return rc;
	d.root_arg = root && *root ? root : NULL;
	if ((rc = cli_no_args(npos, pos, "protocol material", d.root_arg)) != 0 ||
	    (rc = check_run_action(d.root_arg, run, action)) != 0)
		goto out;
	if (section == NULL || section[0] == '\0') {
		rc = preflight_fail(d.root_arg, run, TBL_ERR_MATERIAL_SECTION_REQUIRED,
				    "section cannot be empty");
		goto out;
	}
	if ((rc = driver_open(&d, false)) != 0)
		goto out;
	if ((rc = driver_material(&d, run, action, section, 0)) != 0)
		goto close;
close:
	run_free(r);
	driver_close(&d);
out:
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
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]) && rc == CLI_EXIT_OK; i++) {
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
	return fflush(stdout) == EOF ? CLI_EXIT_DEFECT : CLI_EXIT_OK;
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
		return cli_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, raw_root, NULL);
	}
	return cli_fail(TBL_ERR_PROTOCOL_OPERATION_REQUIRED, 0,
			"a protocol operation is required", NULL, raw_root, NULL);
}

int cmd_protocol(int argc, char **argv)
{
	static const char *const bools[] = { "help", "h", NULL };
	const char *raw_root = cli_raw_root(argc, argv);
	char msg[300];

	if (argc < 2)
		return cli_fail(TBL_ERR_PROTOCOL_OPERATION_REQUIRED, 0,
				"a protocol operation is required", NULL, raw_root, NULL);
	/* The persistent --root may come before the operation. */
	if (argv[1][0] == '-' && cli_hoist_command(argc, argv, bools) == 0)
		return no_operation(argc, argv, raw_root);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(argv[1], ops[i].name) == 0)
			return ops[i].fn(argc - 1, argv + 1, raw_root);
	snprintf(msg, sizeof(msg), "unknown command \"%s\" for \"slipway protocol\"", argv[1]);
	return cli_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, raw_root, NULL);
}
