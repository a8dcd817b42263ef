#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "io/buf.h"
#include "io/json.h"

static struct cli_opt *find_opt(struct cli_opt *opts, const char *name,
				size_t len)
{
	for (struct cli_opt *o = opts; o && o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

static int push_field(struct cli_strings *s, const char *p, size_t len)
{
	char **grown = sw_realloc(s->v, (s->n + 2) * sizeof(*grown));

	if (grown == NULL)
		return -1;
	s->v = grown;
	if ((s->v[s->n] = sw_malloc(len + 1)) == NULL)
		return -1;
	/* A quoted field's doubled quotes stand for one. */
	{
		size_t k = 0;

		for (size_t i = 0; i < len; i++) {
			s->v[s->n][k++] = p[i];
			if (p[i] == '"')
				i++;
		}
		s->v[s->n][k] = '\0';
	}
	s->v[++s->n] = NULL;
	return 0;
}

/* Appends the fields of `value` read as one CSV record, as the
 * reference's string-slice flags do: comma-separated, a field in double
 * quotes may hold commas and "" for a quote, a bare quote elsewhere is an
 * error; "" gives no field.  Returns 0, -1 (out of memory) or -2 with
 * `why` set (a parse error). */
static int push_strings(struct cli_strings *s, const char *value, const char **why)
{
	const char *p = value;

	if (*p == '\0')
		return 0;
	for (;;) {
		const char *start = p;
		size_t len;

		if (*p == '"') {
			start = ++p;
			for (;; p++) {
				if (*p == '\0') {
					*why = "extraneous or missing \" in quoted-field";
					return -2;
				}
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
					break;
			}
			len = (size_t)(p - start);
			p++;
			if (*p != ',' && *p != '\0' && *p != '\n') {
				*why = "extraneous or missing \" in quoted-field";
				return -2;
			}
		} else {
			while (*p != ',' && *p != '\0' && *p != '\n') {
				if (*p == '"') {
					*why = "bare \" in non-quoted-field";
					return -2;
				}
				p++;
			}
			len = (size_t)(p - start);
		}
		if (push_field(s, start, len) < 0)
			return -1;
		if (*p != ',')
			return 0;	/* the record ends at its line */
		p++;
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
			return SVC_EXIT_USAGE;
		}
		break;
	case CLI_OPT_STRING:
		*(const char **)o->dest = value;
		break;
	case CLI_OPT_STRINGS: {
		const char *why = NULL;
		int rc = push_strings(o->dest, value, &why);

		if (rc == -2) {
			snprintf(msg, msglen, "invalid argument \"%s\" for \"--%s\" flag: %s",
				 value, o->name, why);
			return SVC_EXIT_USAGE;
		}
		if (rc < 0) {
			snprintf(msg, msglen, "out of memory");
			return SVC_EXIT_RUNTIME;
		}
		break;
	}
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
			return SVC_EXIT_USAGE;
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
		return SVC_EXIT_RUNTIME;
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
	return SVC_EXIT_USAGE;
}

int cli_parse_command(int argc, char **argv, struct cli_opt *opts,
		      const struct cli_command *cmd, const char *path,
		      char ***pos, size_t *npos, const char *root_arg)
{
	char msg[600];
	int help = 0, rc;

	if ((rc = cli_parse(argc, argv, opts, pos, npos, &help, msg, sizeof(msg))) != 0)
		return svc_fail(rc == SVC_EXIT_USAGE ? TBL_ERR_INVALID_USAGE : TBL_ERR_RUNTIME_ERROR,
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
	return svc_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, root_arg, NULL);
}

int cli_max_args(size_t npos, size_t max, const char *root_arg)
{
	char msg[120];

	if (npos <= max)
		return 0;
	snprintf(msg, sizeof(msg), "accepts at most %zu arg(s), received %zu", max, npos);
	return svc_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, root_arg, NULL);
}

/* 1 when `flag` (without its dashes) is in `bools`. */
static int takes_no_value(const char *flag, const char *const *bools)
{
	for (; *bools; bools++)
		if (strcmp(flag, *bools) == 0)
			return 1;
	return 0;
}

int cli_hoist_command(int argc, char **argv, const char *const *bools)
{
	int at = 0;

	for (int i = 1; i < argc && at == 0; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-') {
			at = i;
		} else if (strchr(a, '=') == NULL &&
			   ((a[1] == '-' && !takes_no_value(a + 2, bools)) ||
			    (a[1] != '-' && a[1] != '\0' && a[2] == '\0' &&
			     !takes_no_value(a + 1, bools)))) {
			if (i + 2 >= argc)	/* no command can follow */
				break;
			i++;			/* its value */
		}
	}
	if (at > 1) {
		char *name = argv[at];

		memmove(argv + 2, argv + 1, (size_t)(at - 1) * sizeof(*argv));
		argv[1] = name;
	}
	return at;
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
	    json_object_set(doc, "options", opts) < 0 || svc_print_json(doc) < 0)
		rc = -1;
	json_decref(opts);
	json_decref(doc);
	return rc < 0 ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
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
	    json_object_set(doc, "commands", cmds) < 0 || svc_print_json(doc) < 0)
		rc = -1;
	json_decref(cmds);
	json_decref(doc);
	return rc < 0 ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
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
	return fflush(stdout) == EOF ? SVC_EXIT_DEFECT : SVC_EXIT_OK;
}

/* ---- human output ---- */

/* Code points that reorder or break the lines a terminal shows: the bidi
 * marks, embeddings, overrides and isolates, and the Unicode line and
 * paragraph separators.  Human output writes them as "<U+XXXX>"; JSON
 * output is never filtered. */
static int invisible(unsigned cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F ||
	       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

struct human_out {
	int fd;
	unsigned char held[2];	/* a sequence split by the stdio buffer */
	size_t nheld;
};

/* The length of the UTF-8 sequence at p that may encode one of them (the
 * lead bytes 0xD8 and 0xE2), else 0. */
static size_t candidate_len(unsigned char lead)
{
	return lead == 0xD8 ? 2 : lead == 0xE2 ? 3 : 0;
}

static ssize_t human_write(void *cookie, const char *buf, size_t len)
{
	struct human_out *h = cookie;
	unsigned char *all = sw_malloc(h->nheld + len + 1);
	size_t n, i = 0, from = 0, keep = 0;

	if (all == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(all, h->held, h->nheld);
	memcpy(all + h->nheld, buf, len);
	n = h->nheld + len;
	h->nheld = 0;
	while (i < n) {
		size_t k = candidate_len(all[i]);
		unsigned cp;
		char shown[16];

		if (k == 0) {
			i++;
			continue;
		}
		if (n - i < k) {	/* the rest comes with the next write */
			keep = n - i;
			break;
		}
		cp = k == 2 ? ((all[i] & 0x1Fu) << 6) | (all[i + 1] & 0x3Fu)
			    : ((all[i] & 0x0Fu) << 12) | ((all[i + 1] & 0x3Fu) << 6) |
			      (all[i + 2] & 0x3Fu);
		if (!invisible(cp)) {
			i++;
			continue;
		}
		snprintf(shown, sizeof(shown), "<U+%04X>", cp);
		if (sw_write_full(h->fd, all + from, i - from) != i - from ||
		    sw_write_full(h->fd, shown, strlen(shown)) != strlen(shown))
			goto fail;
		i += k;
		from = i;
	}
	if (sw_write_full(h->fd, all + from, n - keep - from) != n - keep - from)
		goto fail;
	memcpy(h->held, all + n - keep, keep);
	h->nheld = keep;
	sw_free(all);
	return (ssize_t)len;
fail:
	sw_free(all);
	return -1;
}

static int human_close(void *cookie)
{
	struct human_out *h = cookie;

	return sw_write_full(h->fd, h->held, h->nheld) == h->nheld ? 0 : -1;
}

int cli_human_output(void)
{
	static const cookie_io_functions_t io = { NULL, human_write, NULL, human_close };
	static struct human_out h;	/* one stdout, for the process's life */
	FILE *f;

	if (fflush(stdout) == EOF)
		return -1;
	h.fd = STDOUT_FILENO;
	h.nheld = 0;
	if ((f = fopencookie(&h, "w", io)) == NULL)
		return -1;
	stdout = f;
	return 0;
}
