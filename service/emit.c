/* The two output channels of the operations: documents on stdout, the
 * structured error (cliError) on stderr. */

#include "service/emit.h"

#include <stdio.h>
#include <unistd.h>

#include <jansson.h>

#include "io/err.h"
#include "io/json.h"

/* Writes `s` (sw_malloc'd, freed here; NULL is a failure) plus "\n". */
static int write_text(FILE *f, char *s)
{
	int rc = 0;

	if (s == NULL)
		return -1;
	if (fputs(s, f) == EOF || fputc('\n', f) == EOF || fflush(f) == EOF)
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
	return write_doc(stdout, doc);
}

int svc_print_json_html(const json_t *doc)
{
	return write_text(stdout, sw_json_dump_html(doc));
}

int svc_print_json_text(char *text)
{
	return write_text(stdout, text);
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
			return CLI_EXIT_DEFECT;
		next = own;
	}
	doc = json_object();
	if (doc == NULL ||
	    json_object_set_new(doc, "contract_version", json_integer(2)) < 0 ||
	    json_object_set_new(doc, "code", json_string(tbl_err_wire[code])) < 0 ||
	    json_object_set_new(doc, "message", json_string(message)) < 0 ||
	    json_object_set_new(doc, "next", next_to_json(next)) < 0 ||
	    json_object_set_new(doc, "exit_code", json_integer(exit_code)) < 0 ||
	    (details && json_object_set(doc, "details", (json_t *)details) < 0) ||
	    write_doc(stderr, doc) < 0)
		exit_code = CLI_EXIT_DEFECT;
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
