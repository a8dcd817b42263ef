/* The operations behind slipway mcp, carried out by the service layer's
 * entries (service/ops.h), the same ones the CLI calls, in this process:
 * the request becomes the service's typed request, and the answer comes
 * back as a typed result (document or cliError, and the exit status), so
 * nothing is printed and nothing is spawned.  The texts the CLI reads from
 * stdin (goal, Outcome, answer) are handed over on an anonymous descriptor
 * (sw_os_memfd: in memory on Linux, an unlinked temporary file elsewhere)
 * standing in for stdin, so that their checks (size, NUL bytes) are the
 * CLI's own; an envelope given inline travels in the request. */

#include "mcp/ops.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "service/emit.h"
#include "io/util/buf.h"
#include "io/util/err.h"
#include "io/util/os.h"
#include "service/adapters.h"
#include "service/ops.h"

/* What the --source-file flag names when the envelope is given inline. */
#define INLINE_SOURCE "(source envelope given inline)"

void mcp_op_request_init(struct mcp_op_request *req)
{
	memset(req, 0, sizeof(*req));
}

int mcp_op_text_form(const struct mcp_op_request *req)
{
	return req->op == TBL_MCPTOOL_STATUS && (req->markdown || req->from_candidate);
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

/* The text the operation reads from stdin, or NULL. */
static const char *stdin_text(const struct mcp_op_request *r, size_t *len)
{
	switch (r->op) {
	case TBL_MCPTOOL_RUN:
		*len = r->goal_len;
		return r->goal;
	case TBL_MCPTOOL_SUBMIT:
		*len = r->outcome_len;
		return r->outcome;
	case TBL_MCPTOOL_ANSWER:
		*len = r->text_len;
		return r->text;
	case TBL_MCPTOOL_INVALID:
	case TBL_MCPTOOL_SKIP:
	case TBL_MCPTOOL_RESUME:
	case TBL_MCPTOOL_STOP:
	case TBL_MCPTOOL_STATUS:
	case TBL_MCPTOOL_MATERIAL:
	case TBL_MCPTOOL_DOCTOR:
	case TBL_MCPTOOL_LIST:
	case TBL_MCPTOOL_INSTALL:
	case TBL_MCPTOOL__COUNT:
		break;
	}
	*len = 0;
	return NULL;
}

/* install, list and doctor, as the CLI's --json forms. */
static int adapters(const struct mcp_op_request *r, const char *root, struct svc_result *out)
{
	char *tools[1] = { (char *)r->tool };
	struct svc_adapters_found found = { 0 };
	struct svc_adapter_request q = {
		.root = root, .tools = r->tool ? tools : NULL, .ntools = r->tool != NULL,
		.tools_given = r->tool != NULL, .surface = r->surface, .refresh = r->refresh,
		.texts = r->texts,
	};
	int rc;

	if (r->texts == NULL)
		return -1;
	rc = r->op == TBL_MCPTOOL_DOCTOR ? svc_op_doctor(&q, &found, out)
	   : r->op == TBL_MCPTOOL_LIST ? svc_op_list(&q, &found, out)
	   : svc_op_install(&q, &found, out);
	svc_adapters_found_release(&found);
	return rc;
}

/* Runs the service entry for `r` into *out; -1 for an unknown operation. */
static int dispatch(const struct mcp_op_request *r, struct svc_result *out)
{
	const char *root = r->root && *r->root ? r->root : NULL;
	const char *source = r->source_bytes ? INLINE_SOURCE : r->source_path;
	char budget[32];

	snprintf(budget, sizeof(budget), "%lld", r->budget);
	switch (r->op) {
	case TBL_MCPTOOL_RUN: {
		struct svc_start_request q = {
			.root = root, .goal_stdin = r->goal != NULL,
			.budget = r->budget_given ? budget : NULL,
			.source_file = source, .source_file_given = source != NULL,
			.source_bytes = r->source_bytes, .source_len = r->source_len,
			.no_review = r->no_review,
		};
		return svc_op_start(&q, out);
	}
	case TBL_MCPTOOL_SUBMIT: {
		struct svc_submit_request q = {
			.root = root, .run_id = r->run_id, .action_id = r->action_id,
			.outcome_stdin = r->outcome != NULL,
		};
		return svc_op_submit(&q, out);
	}
	case TBL_MCPTOOL_ANSWER: {
		struct svc_answer_request q = {
			.root = root, .run_id = r->run_id, .action_id = r->action_id,
			.text_stdin = r->text != NULL,
			.confirm_destructive = r->confirm_destructive,
			.scope_sha256 = r->scope_sha256,
		};
		return svc_op_answer(&q, out);
	}
	case TBL_MCPTOOL_SKIP: {
		struct svc_skip_request q = {
			.root = root, .run_id = r->run_id, .action_id = r->action_id,
		};
		return svc_op_skip(&q, out);
	}
	case TBL_MCPTOOL_RESUME: {
		struct svc_resume_request q = {
			.root = root, .run_id = r->run_id,
			.budget = r->budget_given ? budget : NULL,
			.source_file = source, .source_file_given = source != NULL,
			.source_bytes = r->source_bytes, .source_len = r->source_len,
			.use_pinned_source = r->use_pinned_source,
			.source_choice = r->source_choice, .source_choice_given = r->source_choice != NULL,
			.candidate = r->candidate, .candidate_given = r->candidate != NULL,
		};
		return svc_op_resume(&q, out);
	}
	case TBL_MCPTOOL_STOP: {
		struct svc_stop_request q = { .root = root, .run_id = r->run_id };

		return svc_op_stop(&q, out);
	}
	case TBL_MCPTOOL_STATUS: {
		/* The text forms answer with the text the CLI prints. */
		struct svc_status_request q = {
			.root = root, .run_id = r->run_id,
			.section = r->section, .section_given = r->section != NULL,
			.candidate = r->from_candidate, .markdown = r->markdown,
			.human = mcp_op_text_form(r),
		};
		struct svc_status_found found = { 0 };
		int rc = svc_op_status(&q, &found, out);

		if (rc == 0 && found.report && out->document_len == 0) {
			sw_free(out->document);
			out->document = found.report;
			out->document_len = strlen(found.report);
			found.report = NULL;
		}
		svc_status_found_release(&found);
		return rc;
	}
	case TBL_MCPTOOL_MATERIAL: {
		struct svc_material_request q = {
			.root = root, .run_id = r->run_id, .action_id = r->action_id,
			.section = r->section,
		};
		return svc_op_material(&q, out);
	}
	case TBL_MCPTOOL_DOCTOR:
	case TBL_MCPTOOL_LIST:
	case TBL_MCPTOOL_INSTALL:
		return adapters(r, root, out);
	case TBL_MCPTOOL_INVALID:
	case TBL_MCPTOOL__COUNT:
		break;
	}
	return -1;
}

int mcp_op_call(const struct mcp_op_request *req, struct mcp_op_result *res)
{
	struct svc_result out = { 0 };
	const char *in;
	size_t in_len;
	int saved = -1, mem = -1, rc = -1;

	memset(res, 0, sizeof(*res));
	res->exit_status = 1;
	if (req->op <= TBL_MCPTOOL_INVALID || req->op >= TBL_MCPTOOL__COUNT)
		goto out;
	if ((in = stdin_text(req, &in_len)) != NULL) {
		if ((mem = sw_os_memfd("slipway-mcp")) < 0 ||
		    sw_write_full(mem, in, in_len) != in_len || lseek(mem, 0, SEEK_SET) < 0 ||
		    (saved = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
		    dup2(mem, STDIN_FILENO) < 0)
			goto out;
	}
	(void)dispatch(req, &out);
	if (saved >= 0) {
		clearerr(stdin);
		if (dup2(saved, STDIN_FILENO) < 0)
			goto out;
	}
	if (out.document == NULL || out.error == NULL)
		goto out;
	res->exit_status = out.status;
	/* A success answers with its document; a failure with its cliError. */
	if (out.status == 0) {
		res->document = out.document;
		res->document_len = out.document_len;
		res->diagnostics = out.error;
	} else {
		res->document = out.error;
		res->document_len = out.error_len;
		res->diagnostics = out.document;
	}
	out.document = out.error = NULL;
	rc = 0;
out:
	if (res->document == NULL)
		res->document = sw_strdup("");
	svc_result_release(&out);
	if (saved >= 0)
		close(saved);
	if (mem >= 0)
		close(mem);
	return rc;
}
