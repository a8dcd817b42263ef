/* The command line's shared machinery: the command and flag tables
 * (cli/commands.def, cli/flags.def), the parser that writes each option
 * through its destination, --help and _reference, and the human stdout. */

#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/commands.h"
#include "io/util/embedded.h"
#include "io/util/buf.h"
#include "io/util/json.h"
#include "io/util/os.h"
#include "io/util/shown.h"

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

/* ---- The tables ---- */

#define FLAG(id, name, dest, type, value, usage, choices) \
	[CLI_FLAG_##id] = { name, CLI_FLAG_##type, offsetof(struct cli_args, dest), value, usage, choices },
const struct cli_flag_row cli_flags[CLI_FLAG__COUNT] = {
#include "cli/flags.def"
};
#undef FLAG

/* Each flag writes to a destination of its type. */
#define DEST_BOOL int
#define DEST_STRING struct cli_str
#define DEST_STRINGS struct cli_strings
#define FLAG(id, name, dest, type, value, usage, choices) \
	_Static_assert(_Generic(((struct cli_args *)0)->dest, DEST_##type: 1, default: 0), \
		       "flag " #id " writes to a destination of another type");
#include "cli/flags.def"
#undef FLAG

/* FLAGS(a, b, ...): CLI_FLAG_a, CLI_FLAG_b, ... (up to CLI_FLAGS_MAX - 1). */
#define F1(a) CLI_FLAG_##a
#define F2(a, ...) CLI_FLAG_##a, F1(__VA_ARGS__)
#define F3(a, ...) CLI_FLAG_##a, F2(__VA_ARGS__)
#define F4(a, ...) CLI_FLAG_##a, F3(__VA_ARGS__)
#define F5(a, ...) CLI_FLAG_##a, F4(__VA_ARGS__)
#define F6(a, ...) CLI_FLAG_##a, F5(__VA_ARGS__)
#define F7(a, ...) CLI_FLAG_##a, F6(__VA_ARGS__)
#define F8(a, ...) CLI_FLAG_##a, F7(__VA_ARGS__)
#define PICK(_1, _2, _3, _4, _5, _6, _7, _8, f, ...) f
#define FLAGS(...) PICK(__VA_ARGS__, F8, F7, F6, F5, F4, F3, F2, F1, -)(__VA_ARGS__)

const struct cli_command cli_commands[CLI_CMD__COUNT] = {
#define CMD(id, group, name, fn, args, use, summary, examples, ...) \
	[CLI_CMD_##id] = { CLI_CMD_##group, name, fn, CLI_ARGS_##args, use, summary, examples, \
			   { FLAGS(__VA_ARGS__) } },
#include "cli/commands.def"
#undef CMD
};

const struct cli_command *cli_find(enum cli_cmd group, const char *name)
{
	for (int c = CLI_CMD_NONE + 1; c < CLI_CMD__COUNT; c++)
		if (cli_commands[c].group == group && strcmp(cli_commands[c].name, name) == 0)
			return &cli_commands[c];
	return NULL;
}

/* ---- Parsing ---- */

void cli_args_release(struct cli_args *a)
{
	for (size_t i = 0; i < a->tool.n; i++)
		sw_free(a->tool.v[i]);
	sw_free(a->tool.v);
	sw_free(a->pos);
	a->tool.v = a->pos = NULL;
	a->tool.n = a->npos = 0;
}

const char *cli_root(const struct cli_args *a)
{
	return a->root.v && a->root.v[0] ? a->root.v : NULL;
}

/* The flag `name` (`len` bytes) of command `c`, or NULL. */
static const struct cli_flag_row *find_flag(const struct cli_command *c, const char *name,
					    size_t len)
{
	for (const enum cli_flag *f = c->flags; *f != CLI_FLAG_NONE; f++)
		if (strlen(cli_flags[*f].name) == len && strncmp(cli_flags[*f].name, name, len) == 0)
			return &cli_flags[*f];
	return NULL;
}

/* Writes `value` through the destination of flag `o` in *a. */
static int set_value(struct cli_args *a, const struct cli_flag_row *o, const char *value,
		     char *msg, size_t msglen)
{
	void *dest = (char *)a + o->dest;

	switch (o->type) {
	case CLI_FLAG_BOOL:
		if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
			*(int *)dest = 1;
		} else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) {
			*(int *)dest = 0;
		} else {
			snprintf(msg, msglen, "invalid argument \"%s\" for \"--%s\" flag",
				 value, o->name);
			return CLI_EXIT_USAGE;
		}
		return 0;
	case CLI_FLAG_STRING:
		*(struct cli_str *)dest = (struct cli_str){ value, 1 };
		return 0;
	case CLI_FLAG_STRINGS: {
		struct cli_strings *s = dest;
		const char *why = NULL;
		int rc = push_strings(s, value, &why);

		s->given = 1;
		if (rc == -2) {
			snprintf(msg, msglen, "invalid argument \"%s\" for \"--%s\" flag: %s",
				 value, o->name, why);
			return CLI_EXIT_USAGE;
		}
		if (rc < 0) {
			snprintf(msg, msglen, "out of memory");
			return CLI_EXIT_RUNTIME;
		}
		return 0;
	}
	}
	return CLI_EXIT_DEFECT;
}

/* Flags and positional arguments of argv[1..argc) into *a; *help for
 * --help/-h.  A usage error returns CLI_EXIT_USAGE with `msg` filled. */
static int parse(const struct cli_command *c, int argc, char **argv, struct cli_args *a,
		 int *help, char *msg, size_t msglen)
{
	if ((a->pos = sw_calloc((size_t)argc + 1, sizeof(*a->pos))) == NULL) {
		snprintf(msg, msglen, "out of memory");
		return CLI_EXIT_RUNTIME;
	}
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *name, *eq;
		const struct cli_flag_row *o;
		size_t len;
		int rc;

		if (strcmp(arg, "--") == 0) {
			while (++i < argc)
				a->pos[a->npos++] = argv[i];
			break;
		}
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			*help = 1;
			continue;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			a->pos[a->npos++] = argv[i];
			continue;
		}
		if (arg[1] != '-') {
			snprintf(msg, msglen, "unknown shorthand flag: '%c' in %s", arg[1], arg);
			return CLI_EXIT_USAGE;
		}
		name = arg + 2;
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		if ((o = find_flag(c, name, len)) == NULL) {
			snprintf(msg, msglen, "unknown flag: --%.*s", (int)len, name);
			return CLI_EXIT_USAGE;
		}
		if (eq)
			rc = set_value(a, o, eq + 1, msg, msglen);
		else if (o->type == CLI_FLAG_BOOL)
			rc = set_value(a, o, "true", msg, msglen);
		else if (i + 1 < argc)
			rc = set_value(a, o, argv[++i], msg, msglen);
		else {
			snprintf(msg, msglen, "flag needs an argument: --%s", o->name);
			rc = CLI_EXIT_USAGE;
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The command's rule for positional arguments, as the reference words
 * its errors. */
static int check_positional(const struct cli_command *c, const struct cli_args *a)
{
	char msg[300];

	switch (c->args) {
	case CLI_ARGS_NONE:
		if (a->npos == 0)
			return -1;
		snprintf(msg, sizeof(msg), "unknown command \"%s\" for \"slipway %s%s%s\"", a->pos[0],
			 c->group ? cli_commands[c->group].name : "", c->group ? " " : "", c->name);
		break;
	case CLI_ARGS_AT_MOST_ONE:
		if (a->npos <= 1)
			return -1;
		snprintf(msg, sizeof(msg), "accepts at most 1 arg(s), received %zu", a->npos);
		break;
	case CLI_ARGS_ONE:
		if (a->npos == 1)
			return -1;
		snprintf(msg, sizeof(msg), "accepts 1 arg(s), received %zu", a->npos);
		break;
	case CLI_ARGS_OWN:
	default:
		return -1;
	}
	return svc_fail(TBL_ERR_INVALID_USAGE, 0, msg, NULL, cli_root(a), NULL);
}

int cli_parse_command(enum cli_cmd id, int argc, char **argv, struct cli_args *a,
		      const char *root_arg)
{
	char msg[600];
	int help = 0, rc;

	if ((rc = parse(&cli_commands[id], argc, argv, a, &help, msg, sizeof(msg))) != 0)
		return svc_fail(rc == CLI_EXIT_USAGE ? TBL_ERR_INVALID_USAGE : TBL_ERR_RUNTIME_ERROR,
				0, msg, NULL, root_arg, NULL);
	if (help)
		return cli_print_help(id);
	return check_positional(&cli_commands[id], a);
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

static const char *const flag_type_name[] = {
	[CLI_FLAG_BOOL] = "bool", [CLI_FLAG_STRING] = "string", [CLI_FLAG_STRINGS] = "strings",
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

/* Prints `doc` (taken over; NULL is a failure) as one line. */
static int print_line(json_t *doc)
{
	int rc = doc && svc_print_json(doc) == 0 ? CLI_EXIT_OK : CLI_EXIT_DEFECT;

	json_decref(doc);
	return rc;
}

static int print_reference(const struct cli_command *c)
{
	json_t *opts = json_array();

	for (const enum cli_flag *f = c->flags; opts && *f != CLI_FLAG_NONE; f++) {
		const struct cli_flag_row *o = &cli_flags[*f];

		if (json_array_append_new(opts, json_pack("{s:s, s:s, s:s?, s:s, s:o}",
			"name", o->name, "type", flag_type_name[o->type], "value", o->value_name,
			"usage", o->usage, "choices", choices_json(o->choices))) < 0) {
			json_decref(opts);
			opts = NULL;
		}
	}
	return print_line(opts ? json_pack("{s:s, s:s, s:s, s:s?, s:o}", "path", c->name,
					   "use", c->use, "summary", c->summary,
					   "examples", c->examples, "options", opts) : NULL);
}

int cli_print_group_reference(enum cli_cmd group, const char *path, const char *summary)
{
	json_t *cmds = json_array();
	int rc;

	for (int c = CLI_CMD_NONE + 1; cmds && c < CLI_CMD__COUNT; c++)
		if (cli_commands[c].group == group && cli_commands[c].name[0] != '_' &&
		    json_array_append_new(cmds, json_pack("{s:s, s:s}", "name", cli_commands[c].name,
							  "summary", cli_commands[c].summary)) < 0) {
			json_decref(cmds);
			cmds = NULL;
		}
	rc = print_line(cmds ? json_pack("{s:s, s:s, s:o}", "path", path, "summary", summary,
					 "commands", cmds) : NULL);
	for (int c = CLI_CMD_NONE + 1; rc == CLI_EXIT_OK && c < CLI_CMD__COUNT; c++)
		if (cli_commands[c].group == group && cli_commands[c].name[0] != '_') {
			char *argv[] = { (char *)cli_commands[c].name, (char *)"--help", NULL };

			rc = cli_commands[c].fn(2, argv);
		}
	return rc;
}

int cli_print_help(enum cli_cmd id)
{
	const struct cli_command *c = &cli_commands[id];

	if (reference_mode)
		return print_reference(c);
	printf("%s\n\nUsage:\n  slipway %s\n", c->summary, c->use);
	if (c->examples)
		printf("\nExamples:\n%s\n", c->examples);
	printf("\nFlags:\n");
	for (const enum cli_flag *f = c->flags; *f != CLI_FLAG_NONE; f++) {
		const struct cli_flag_row *o = &cli_flags[*f];
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->value_name ? " " : "",
			 o->value_name ? o->value_name : "");
		printf("      %-28s %s\n", left, o->usage);
	}
	printf("  -h, --help                       help for %s\n", c->name);
	return cli_flush();
}

const struct adapter_text *cli_adapter_texts(void)
{
	static struct adapter_text texts[32];
	static int ready;

	for (size_t n = 0; !ready && sw_embedded_capabilities[n].name && n + 1 < 32; n++)
		texts[n] = (struct adapter_text){ sw_embedded_capabilities[n].name,
						  sw_embedded_capabilities[n].bytes,
						  sw_embedded_capabilities[n].len };
	ready = 1;
	return texts;
}

struct svc_adapter_request cli_adapter_request(const struct cli_args *a)
{
	return (struct svc_adapter_request){
		.root = a->root.v, .tools = a->tool.v, .ntools = a->tool.n,
		.tools_given = a->tool.given, .surface = a->surface.v, .refresh = a->refresh,
		.mcp = a->mcp, .texts = cli_adapter_texts(), .human = !a->json };
}

int cli_print_root_help(void)
{
	printf("slipway drives an AI coding host through bounded Actions of one Run,\n"
	       "journals every Outcome and observes Git on its own.\n\n"
	       "Usage:\n  slipway [command]\n\nAvailable Commands:\n");
	for (int c = CLI_CMD_NONE + 1; c < CLI_CMD__COUNT; c++)
		if (cli_commands[c].group == CLI_CMD_NONE && cli_commands[c].name[0] != '_')
			printf("  %-10s %s\n", cli_commands[c].name, cli_commands[c].summary);
	printf("\nFlags:\n  -h, --help      help for slipway\n"
	       "  -v, --version   version for slipway\n\n"
	       "Use \"slipway [command] --help\" for more information about a command.\n");
	return cli_flush();
}

int cli_flush(void)
{
	return fflush(stdout) == EOF ? CLI_EXIT_DEFECT : CLI_EXIT_OK;
}

/* ---- human output ---- */

/* Code points a terminal would act on or that reorder or break the lines
 * it shows: C0 and C1 controls (but tab and line feed), DEL, the bidi
 * marks, embeddings, overrides and isolates, and the Unicode line and
 * paragraph separators (io/util/shown.h).  Human output writes them as
 * "<U+XXXX>"; JSON output is never filtered. */
static int invisible(unsigned cp)
{
	return sw_cp_shown_as_code(cp);
}

struct human_out {
	unsigned char held[2];	/* a sequence split by the stdio buffer */
	size_t nheld;
};

/* The length of the UTF-8 sequence at p that may encode one of them (a
 * C0 control or DEL alone, the lead bytes 0xC2, 0xD8 and 0xE2), else 0. */
static size_t candidate_len(unsigned char lead)
{
	return lead < 0x20 || lead == 0x7F ? 1 : lead == 0xC2 || lead == 0xD8 ? 2 : lead == 0xE2 ? 3 : 0;
}

/* Writes to `fd` the `len` bytes of `buf` behind the bytes held from the
 * last write, each invisible code point as "<U+XXXX>"; a sequence cut by
 * the end of `buf` is held for the next write.  `all` has room for the
 * held bytes and `len`.  0, or -1 when the write failed. */
static int filter(struct human_out *h, int fd, unsigned char *all, const char *buf, size_t len)
{
	size_t n, i = 0, from = 0, keep = 0;

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
		cp = k == 1 ? all[i]
		   : k == 2 ? ((all[i] & 0x1Fu) << 6) | (all[i + 1] & 0x3Fu)
			    : ((all[i] & 0x0Fu) << 12) | ((all[i + 1] & 0x3Fu) << 6) |
			      (all[i + 2] & 0x3Fu);
		if (!invisible(cp)) {
			i++;
			continue;
		}
		snprintf(shown, sizeof(shown), "<U+%04X>", cp);
		if (sw_write_full(fd, all + from, i - from) != i - from ||
		    sw_write_full(fd, shown, strlen(shown)) != strlen(shown))
			return -1;
		i += k;
		from = i;
	}
	if (sw_write_full(fd, all + from, n - keep - from) != n - keep - from)
		return -1;
	memcpy(h->held, all + n - keep, keep);
	h->nheld = keep;
	return 0;
}

/* The filter (sw_os_filter_write_fn): the stream's writes, filtered in
 * pieces through a buffer on the stack: no allocation, which could fail
 * after the command succeeded and leave its output half written. */
static ssize_t human_write(void *cookie, int fd, const char *buf, size_t len)
{
	enum { PIECE = 4096 };
	struct human_out *h = cookie;
	unsigned char all[PIECE + sizeof(h->held)];

	for (size_t done = 0; done < len; done += PIECE)
		if (filter(h, fd, all, buf + done, len - done < PIECE ? len - done : PIECE) < 0)
			return -1;
	return (ssize_t)len;
}

/* The end (sw_os_filter_end_fn): a sequence cut off by the end of the
 * output is written as it came. */
static int human_end(void *cookie, int fd)
{
	struct human_out *h = cookie;

	return sw_write_full(fd, h->held, h->nheld) == h->nheld ? 0 : -1;
}

static int human;

int cli_human(void)
{
	return human;
}

void cli_config_warnings(void)
{
	const char *w;

	for (size_t i = 0; (w = svc_config_warning(i)) != NULL; i++)
		fprintf(stderr, "warning: %s\n", w);
}

int cli_human_output(void)
{
	static struct human_out h;	/* one stdout, for the process's life */

	human = 1;
	h.nheld = 0;
	return sw_os_filter_stdout(human_write, human_end, &h);
}

int cli_human_end(void)
{
	return sw_os_filter_stdout_end();
}
