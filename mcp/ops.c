/* The operations behind slipway mcp, carried out today by the same command
 * entry points the CLI runs (cli/cmd_*.c), in this process: the request
 * becomes the argv those commands parse, inputs the CLI would read from a
 * file or stdin are handed over on an in-memory descriptor standing in for
 * stdin, and what the command prints is captured from in-memory descriptors
 * standing in for stdout and stderr.  Nothing touches the disk and nothing
 * is spawned: the lock, journal, idempotency checks and error documents are
 * the CLI's own because the code is. */

#include "mcp/ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "io/err.h"

#define MAX_ARGS 24

struct argv_buf {
	char *v[MAX_ARGS + 1];
	int n;
	int failed;
};

static void push(struct argv_buf *a, const char *s)
{
	if (a->failed || a->n >= MAX_ARGS || (a->v[a->n] = sw_strdup(s)) == NULL) {
		a->failed = 1;
		return;
	}
	a->v[++a->n] = NULL;
}

/* --name=value, so that a value starting with "-" stays a value. */
static void push_flag(struct argv_buf *a, const char *name, const char *value)
{
	char *s;

	if (value == NULL)
		return;
	if ((s = sw_asprintf("--%s=%s", name, value)) == NULL) {
		a->failed = 1;
		return;
	}
	push(a, s);
	sw_free(s);
}

static void push_bool(struct argv_buf *a, const char *name, int on)
{
	if (on)
		push_flag(a, name, "true");
}

/* A positional argument after "--", so that it is never read as a flag. */
static void push_positional(struct argv_buf *a, const char *value)
{
	if (value == NULL)
		return;
	push(a, "--");
	push(a, value);
}

static void push_budget(struct argv_buf *a, const struct mcp_op_request *r)
{
	char num[32];

	if (!r->budget_given)
		return;
	snprintf(num, sizeof(num), "%lld", r->budget);
	push_flag(a, "budget", num);
}

static void push_source(struct argv_buf *a, const struct mcp_op_request *r)
{
	if (r->source_bytes != NULL)
		push_flag(a, "source-file", "(source envelope given inline)");
	else
		push_flag(a, "source-file", r->source_path);
}

typedef int command_fn(int argc, char **argv);

/* The argv of the CLI command for `r`, and which bytes it reads from stdin
 * (*in, *in_len; NULL when none). */
static command_fn *build_argv(struct argv_buf *a, const struct mcp_op_request *r,
			      const char **in, size_t *in_len)
{
	command_fn *fn = cmd_protocol;

	*in = NULL;
	*in_len = 0;
	switch (r->op) {
	case MCP_OP_RUN:
		fn = cmd_run;
		push(a, "run");
		push_bool(a, "json", 1);
		if (r->goal != NULL) {
			push_bool(a, "goal-stdin", 1);
			*in = r->goal;
			*in_len = r->goal_len;
		}
		push_budget(a, r);
		push_bool(a, "no-review", r->no_review);
		push_source(a, r);
		break;
	case MCP_OP_SUBMIT:
		push(a, "protocol");
		push(a, "submit");
		push_flag(a, "run", r->run_id);
		push_flag(a, "action", r->action_id);
		if (r->outcome != NULL) {
			push_bool(a, "outcome-stdin", 1);
			*in = r->outcome;
			*in_len = r->outcome_len;
		}
		break;
	case MCP_OP_ANSWER:
		push(a, "protocol");
		push(a, "answer");
		push_flag(a, "run", r->run_id);
		push_flag(a, "action", r->action_id);
		if (r->text != NULL) {
			push_bool(a, "text-stdin", 1);
			*in = r->text;
			*in_len = r->text_len;
		}
		push_bool(a, "confirm-destructive", r->confirm_destructive);
		push_flag(a, "scope-sha256", r->scope_sha256);
		break;
	case MCP_OP_SKIP:
		push(a, "protocol");
		push(a, "skip");
		push_flag(a, "run", r->run_id);
		push_flag(a, "action", r->action_id);
		break;
	case MCP_OP_RESUME:
		push(a, "protocol");
		push(a, "resume");
		push_budget(a, r);
		push_source(a, r);
		push_bool(a, "use-pinned-source", r->use_pinned_source);
		push_flag(a, "source-choice", r->source_choice);
		push_flag(a, "candidate", r->candidate);
		break;
	case MCP_OP_STOP:
		fn = cmd_stop;
		push(a, "stop");
		push_bool(a, "json", 1);
		break;
	case MCP_OP_STATUS:
		fn = cmd_status;
		push(a, "status");
		push_bool(a, "json", 1);
		push_flag(a, "section", r->section);
		break;
	case MCP_OP_MATERIAL:
		push(a, "protocol");
		push(a, "material");
		push_flag(a, "run", r->run_id);
		push_flag(a, "action", r->action_id);
		push_flag(a, "section", r->section);
		break;
	case MCP_OP_INVALID:
	default:
		return NULL;
	}
	push_flag(a, "root", r->root);
	if (r->op == MCP_OP_RESUME || r->op == MCP_OP_STOP || r->op == MCP_OP_STATUS)
		push_positional(a, r->run_id);
	return a->failed ? NULL : fn;
}

/* Reads the whole of memfd `fd` from its start into a new string. */
static char *slurp(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	char *buf;
	size_t got = 0;

	*len = 0;
	if (end < 0 || lseek(fd, 0, SEEK_SET) < 0 || (buf = sw_malloc((size_t)end + 1)) == NULL)
		return NULL;
	while (got < (size_t)end) {
		ssize_t n = read(fd, buf + got, (size_t)end - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	while (got > 0 && buf[got - 1] == '\n')
		got--;
	buf[got] = '\0';
	*len = got;
	return buf;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void mcp_op_request_init(struct mcp_op_request *req)
{
	memset(req, 0, sizeof(*req));
}

void mcp_op_result_release(struct mcp_op_result *res)
{
	if (res == NULL)
		return;
	sw_free(res->document);
	sw_free(res->diagnostics);
	res->document = res->diagnostics = NULL;
	res->document_len = 0;
}

int mcp_op_call(const struct mcp_op_request *req, struct mcp_op_result *res)
{
	struct argv_buf a = { { NULL }, 0, 0 };
	int saved[3] = { -1, -1, -1 }, mem[3] = { -1, -1, -1 };
	const char *in = NULL;
	char *out_text = NULL, *err_text = NULL;
	size_t in_len = 0, out_len = 0, err_len = 0;
	command_fn *fn;
	int rc = -1, status = 1, redirected = 0;

	memset(res, 0, sizeof(*res));
	res->exit_status = 1;
	if ((fn = build_argv(&a, req, &in, &in_len)) == NULL)
		goto out;
	for (int i = 0; i < 3; i++)
		if ((mem[i] = memfd_create("slipway-mcp", MFD_CLOEXEC)) < 0)
			goto out;
	if (in != NULL && (cli_write_all(mem[0], in, in_len) < 0 || lseek(mem[0], 0, SEEK_SET) < 0))
		goto out;
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 3; i++)
		if ((saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 3)) < 0)
			goto restore;
	for (int i = 0; i < 3; i++)
		if (dup2(mem[i], i) < 0)
			goto restore;
	redirected = 1;
	cli_set_inline_source(req->source_bytes, req->source_len);
	status = fn(a.n, a.v);
	cli_set_inline_source(NULL, 0);
	if (fflush(stdout) == EOF && status == 0)
		status = 1;
restore:
	clearerr(stdout);
	clearerr(stdin);
	for (int i = 0; i < 3; i++)
		if (saved[i] >= 0 && dup2(saved[i], i) < 0)
			redirected = 0;
	if (!redirected)
		goto out;
	out_text = slurp(mem[1], &out_len);
	err_text = slurp(mem[2], &err_len);
	if (out_text == NULL || err_text == NULL)
		goto out;
	res->exit_status = status;
	/* A success prints its document on stdout; a failure its cliError on
	 * stderr. */
	if (status == 0) {
		res->document = out_text;
		res->document_len = out_len;
		res->diagnostics = err_text;
	} else {
		res->document = err_text;
		res->document_len = err_len;
		res->diagnostics = out_text;
	}
	out_text = err_text = NULL;
	rc = 0;
out:
	if (res->document == NULL)
		res->document = sw_strdup("");
	sw_free(out_text);
	sw_free(err_text);
	for (int i = 0; i < 3; i++) {
		close_fd(&saved[i]);
		close_fd(&mem[i]);
	}
	for (int i = 0; i < a.n; i++)
		sw_free(a.v[i]);
	return rc;
}
