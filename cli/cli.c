#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "io/json.h"

static struct cli_opt *find_opt(struct cli_opt *opts, const char *name,
				size_t len)
{
	for (struct cli_opt *o = opts; o && o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

static int push_strings(struct cli_strings *s, const char *value)
{
	const char *p = value;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char **grown = sw_realloc(s->v, (s->n + 2) * sizeof(*grown));

		if (grown == NULL)
			return -1;
		s->v = grown;
		if ((s->v[s->n] = sw_strndup(p, len)) == NULL)
			return -1;
		s->v[++s->n] = NULL;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

void cli_strings_release(struct cli_strings *s)
{
	for (size_t i = 0; i < s->n; i++)
		sw_free(s->v[i]);
	sw_free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int set_value(struct cli_opt *o, const char *value, char *msg,
		     size_t msglen)
{
	switch (o->type) {
	case CLI_OPT_BOOL:
		if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
			*(int *)o->dest = 1;
		} else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) {
			*(int *)o->dest = 0;
		} else {
			snprintf(msg, msglen,
				 "invalid argument \"%s\" for \"--%s\" flag",
				 value, o->name);
			return CLI_EXIT_USAGE;
		}
		break;
	case CLI_OPT_STRING:
		*(const char **)o->dest = value;
		break;
	case CLI_OPT_STRINGS:
		if (push_strings(o->dest, value) < 0) {
			snprintf(msg, msglen, "out of memory");
			return CLI_EXIT_RUNTIME;
		}
		break;
	case CLI_OPT_INT: {
		char *end = NULL;
		long v;

		errno = 0;
		v = strtol(value, &end, 10);
		if (value[0] == '\0' || *end != '\0' || errno != 0 ||
		    v < INT_MIN || v > INT_MAX) {
			snprintf(msg, msglen,
				 "invalid argument \"%s\" for \"--%s\" flag",
				 value, o->name);
			return CLI_EXIT_USAGE;
		}
		*(long *)o->dest = v;
		break;
	}
	}
	o->seen = 1;
	return 0;
}

int cli_parse(int argc, char **argv, struct cli_opt *opts, char ***pos,
	      size_t *npos, int *help, char *msg, size_t msglen)
{
	char **out = sw_calloc((size_t)argc + 1, sizeof(*out));
	size_t n = 0;
	int rc;

	*pos = NULL;
	*npos = 0;
	*help = 0;
	if (out == NULL) {
		snprintf(msg, msglen, "out of memory");
		return CLI_EXIT_RUNTIME;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			while (++i < argc)
				out[n++] = argv[i];
			break;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			*help = 1;
			continue;
		}
		if (a[0] != '-' || a[1] == '\0') {
			out[n++] = argv[i];
			continue;
		}
		if (a[1] != '-') {
			snprintf(msg, msglen, "unknown shorthand flag: '%c' in %s",
				 a[1], a);
			goto usage;
		}
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		struct cli_opt *o = find_opt(opts, name, len);

		if (o == NULL) {
			snprintf(msg, msglen, "unknown flag: --%.*s", (int)len, name);
			goto usage;
		}
		if (eq) {
			rc = set_value(o, eq + 1, msg, msglen);
		} else if (o->type == CLI_OPT_BOOL) {
			rc = set_value(o, "true", msg, msglen);
		} else if (i + 1 < argc) {
			rc = set_value(o, argv[++i], msg, msglen);
		} else {
			snprintf(msg, msglen, "flag needs an argument: --%s", o->name);
			goto usage;
		}
		if (rc != 0) {
			sw_free(out);
			return rc;
		}
	}
	*pos = out;
	*npos = n;
	return 0;
usage:
	sw_free(out);
	return CLI_EXIT_USAGE;
}

int cli_parse_command(int argc, char **argv, struct cli_opt *opts,
		      const struct cli_command *cmd, const char *path,
		      char ***pos, size_t *npos, const char *root_arg)
{
	char msg[600];
	int help = 0, rc;

	if ((rc = cli_parse(argc, argv, opts, pos, npos, &help, msg, sizeof(msg))) != 0)
		return cli_fail(rc == CLI_EXIT_USAGE ? TBL_ERR_INVALID_USAGE : TBL_ERR_RUNTIME_ERROR,
				0, msg, NULL, root_arg, NULL);
	if (help) {
		struct cli_command c = *cmd;

		c.opts = opts;
		sw_free(*pos);
		*pos = NULL;
		return cli_print_help(path, &c);
	}
	return -1;
}

int cli_no_args(size_t npos, char *const *pos, const char *path,
		const char *root_arg)
{
	char msg[300];

	if (npos == 0)
		return 0;
	snprintf(msg, sizeof(msg), "unknown command \"%s\" for \"slipway %s\"", pos[0], path);
	return cli_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, root_arg, NULL);
}

int cli_max_args(size_t npos, size_t max, const char *root_arg)
{
	char msg[120];

	if (npos <= max)
		return 0;
	snprintf(msg, sizeof(msg), "accepts at most %zu arg(s), received %zu", max, npos);
	return cli_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, root_arg, NULL);
}

const char *cli_raw_root(int argc, char **argv)
{
	const char *root = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strncmp(argv[i], "--root=", 7) == 0)
			root = argv[i] + 7;
		else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
			root = argv[++i];
	}
	return root;
}

static int write_doc(FILE *f, const json_t *doc)
{
	char *s = sw_json_dump(doc);
	int rc = 0;

	if (s == NULL)
		return -1;
	if (fputs(s, f) == EOF || fputc('\n', f) == EOF || fflush(f) == EOF)
		rc = -1;
	sw_free(s);
	return rc;
}

int cli_print_json(const json_t *doc)
{
	return write_doc(stdout, doc);
}

int cli_fail(enum tbl_err code, int exit_override, const char *message,
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

static int reference_mode;

void cli_help_reference(void)
{
	reference_mode = 1;
}

int cli_help_is_reference(void)
{
	return reference_mode;
}

static const char *const opt_type_name[] = {
	[CLI_OPT_BOOL] = "bool", [CLI_OPT_STRING] = "string",
	[CLI_OPT_STRINGS] = "strings", [CLI_OPT_INT] = "int",
};

static json_t *choices_json(const char *choices)
{
	json_t *a = json_array();

	while (a && choices && *choices) {
		size_t n = strcspn(choices, " ");

		if (n)
			json_array_append_new(a, json_stringn(choices, n));
		choices += n + (choices[n] == ' ');
	}
	return a;
}

static int print_reference(const char *path, const struct cli_command *cmd)
{
	json_t *doc = json_object(), *opts = json_array();
	int rc = 0;

	for (const struct cli_opt *o = cmd->opts; doc && opts && o && o->name; o++)
		if (json_array_append_new(opts, json_pack("{s:s, s:s, s:s?, s:s, s:o}",
			"name", o->name, "type", opt_type_name[o->type],
			"value", o->value_name, "usage", o->usage,
			"choices", choices_json(o->choices))) < 0)
			rc = -1;
	if (doc == NULL || opts == NULL || rc < 0 ||
	    json_object_set_new(doc, "path", json_string(path)) < 0 ||
	    json_object_set_new(doc, "use", json_string(cmd->use)) < 0 ||
	    json_object_set_new(doc, "summary", json_string(cmd->summary)) < 0 ||
	    json_object_set_new(doc, "examples",
				cmd->examples ? json_string(cmd->examples) : json_null()) < 0 ||
	    json_object_set(doc, "options", opts) < 0 || cli_print_json(doc) < 0)
		rc = -1;
	json_decref(opts);
	json_decref(doc);
	return rc < 0 ? CLI_EXIT_DEFECT : CLI_EXIT_OK;
}

int cli_print_group_reference(const char *path, const char *summary,
			      const char *const *names, const char *const *summaries)
{
	json_t *doc = json_object(), *cmds = json_array();
	int rc = 0;

	for (size_t i = 0; doc && cmds && names[i]; i++)
		if (json_array_append_new(cmds, json_pack("{s:s, s:s}", "name", names[i],
							  "summary", summaries[i])) < 0)
			rc = -1;
	if (doc == NULL || cmds == NULL || rc < 0 ||
	    json_object_set_new(doc, "path", json_string(path)) < 0 ||
	    json_object_set_new(doc, "summary", json_string(summary)) < 0 ||
	    json_object_set(doc, "commands", cmds) < 0 || cli_print_json(doc) < 0)
		rc = -1;
	json_decref(cmds);
	json_decref(doc);
	return rc < 0 ? CLI_EXIT_DEFECT : CLI_EXIT_OK;
}

int cli_print_help(const char *path, const struct cli_command *cmd)
{
	if (reference_mode)
		return print_reference(path, cmd);
	printf("%s\n\nUsage:\n  slipway %s\n", cmd->summary, cmd->use);
	if (cmd->examples)
		printf("\nExamples:\n%s\n", cmd->examples);
	printf("\nFlags:\n");
	for (const struct cli_opt *o = cmd->opts; o && o->name; o++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", o->name,
			 o->value_name ? " " : "",
			 o->value_name ? o->value_name : "");
		printf("      %-28s %s\n", left, o->usage);
	}
	printf("  -h, --help                       help for %s\n", path);
	return fflush(stdout) == EOF ? CLI_EXIT_DEFECT : CLI_EXIT_OK;
}
