/* The two output channels of the operations: documents on stdout, the
 * structured error (cliError) on stderr, or both into memory while a
 * front end captures a typed result. */

#include "service/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "io/git/vcs.h"
#include "io/util/err.h"
#include "io/util/json.h"
#include "io/util/os.h"

/* The capture in progress (svc_result_begin), or none: one operation at a
 * time per process. */
static struct capture {
	struct svc_result *res;
	FILE *out, *err;
	char *obuf, *ebuf;
	size_t olen, elen;
} cap;

FILE *svc_out(void)
{
	return cap.out ? cap.out : stdout;
}

static FILE *err_stream(void)
{
	return cap.err ? cap.err : stderr;
}

/* fflush, and for stdout through the human-output filter, which may hold
 * the bytes until asked (sw_os_filter_stdout_flush): 0 or -1. */
static int flush(FILE *f)
{
	if (f == stdout)
		return sw_os_filter_stdout_flush();
	return fflush(f) == EOF ? -1 : 0;
}

int svc_flush_out(void)
{
	return flush(svc_out());
}

int svc_result_begin(struct svc_result *res)
{
	if (res == NULL)
		return 0;
	memset(res, 0, sizeof(*res));
	res->status = SVC_EXIT_DEFECT;
	if (cap.res != NULL)
		return -1;
	cap.out = open_memstream(&cap.obuf, &cap.olen);
	cap.err = open_memstream(&cap.ebuf, &cap.elen);
	if (cap.out == NULL || cap.err == NULL) {
		if (cap.out)
			fclose(cap.out);
		if (cap.err)
			fclose(cap.err);
		free(cap.obuf);
		free(cap.ebuf);
		memset(&cap, 0, sizeof(cap));
		return -1;
	}
	cap.res = res;
	return 0;
}

/* A memstream's buffer (malloc'd by libc) as an sw_malloc'd string
 * without its final newline. */
static char *take(char *buf, size_t len, size_t *out_len)
{
	char *s;

	while (len > 0 && buf[len - 1] == '\n')
		len--;
	if ((s = sw_malloc(len + 1)) != NULL) {
		memcpy(s, buf, len);
		s[len] = '\0';
		*out_len = len;
	}
	free(buf);
	return s;
}

int svc_result_end(struct svc_result *res, int status)
{
	int closed;

	if (res == NULL)
		return status;
	if (cap.res != res)
		return res->status;
	closed = fclose(cap.out) == 0;
	closed = (fclose(cap.err) == 0) && closed;
	res->document = take(cap.obuf, cap.olen, &res->document_len);
	res->error = take(cap.ebuf, cap.elen, &res->error_len);
	memset(&cap, 0, sizeof(cap));
	if (!closed || res->document == NULL || res->error == NULL) {
		svc_result_release(res);
		res->status = SVC_EXIT_DEFECT;
		return SVC_EXIT_DEFECT;
	}
	res->status = status;
	return status;
}

void svc_result_release(struct svc_result *res)
{
	if (res == NULL)
		return;
	sw_free(res->document);
	sw_free(res->error);
	res->document = res->error = NULL;
	res->document_len = res->error_len = 0;
}

/* Writes `s` (sw_malloc'd, freed here; NULL is a failure) plus "\n". */
static int write_text(FILE *f, char *s)
{
	int rc = 0;

	if (s == NULL)
		return -1;
	if (fputs(s, f) == EOF || fputc('\n', f) == EOF || flush(f) < 0)
		rc = -1;
	sw_free(s);
	return rc;
}

static int write_doc(FILE *f, const json_t *doc)
{
	return write_text(f, sw_json_dump(doc));
}

int svc_print_json(const json_t *doc)
{
	return write_doc(svc_out(), doc);
}

int svc_print_json_text(char *text)
{
	return write_text(svc_out(), text);
}

int svc_fail(enum tbl_err code, int exit_override, const char *message,
	     const struct next *next, const char *root, const json_t *details)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *own = NULL;
	json_t *doc = NULL;
	int exit_code = exit_override ? exit_override : tbl_err_exit[code];

	if (next == NULL) {
		if (next_none(&own, root, &err) < 0)
			return SVC_EXIT_DEFECT;
		next = own;
	}
	doc = json_object();
	if (doc == NULL ||
	    json_object_set_new(doc, "contract_version", json_integer(2)) < 0 ||
	    json_object_set_new(doc, "code", json_string(tbl_err_wire[code])) < 0 ||
	    json_object_set_new(doc, "message", sw_json_text(message)) < 0 ||
	    json_object_set_new(doc, "next", next_to_json(next)) < 0 ||
	    json_object_set_new(doc, "exit_code", json_integer(exit_code)) < 0 ||
	    (details && json_object_set(doc, "details", (json_t *)details) < 0) ||
	    write_doc(err_stream(), doc) < 0)
		exit_code = SVC_EXIT_DEFECT;
	json_decref(doc);
	next_free(own);
	return exit_code;
}

int svc_fail_inspect(enum tbl_err code, const char *message, const char *root,
		     const char *run)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next_fill fill = { .run_id = run };
	struct next *n = NULL;
	char cwd[4096];
	int rc;

	if (root == NULL || root[0] == '\0')
		root = getcwd(cwd, sizeof(cwd)) ? cwd : "/";
	if (next_build_form(&n, run ? NEXT_FORM_INSPECT_RUN : NEXT_FORM_INSPECT_RUNS, NULL,
			    root, &fill, &err) < 0)
		n = NULL;
	rc = svc_fail(code, 0, message, n, root, NULL);
	next_free(n);
	return rc;
}

const char *svc_config_warning(size_t i)
{
	return vcs_config_warning(i);
}
