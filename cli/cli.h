#ifndef CLI_CLI_H
#define CLI_CLI_H

/* The commands' shared front: the command and flag tables, the option
 * parser that writes each flag through its destination, --help and the
 * reference lines for the man pages.  The one structured error path
 * (cliError on stderr, exit 2 or 3) is the service's (service/emit.h). */

#include <stddef.h>

#include "cli/exit.h"
#include "service/adapters.h"
#include "service/emit.h"

/* The values of --tool (install, uninstall): the host ids of io/adapters/adapter.c
 * in registry order, then "all".  tests/e2e/test_manpages.py checks the
 * list against `slipway list --json`. */
#define CLI_TOOL_CHOICES \
	"claude codex copilot cursor kilo kiro opencode pi qwen windsurf all"

enum cli_flag {
	CLI_FLAG_NONE,
#define FLAG(id, name, dest, type, value, usage, choices) CLI_FLAG_##id,
#include "cli/flags.def"
#undef FLAG
	CLI_FLAG__COUNT
};

enum cli_cmd {
	CLI_CMD_NONE,
#define CMD(id, group, name, fn, args, use, summary, examples, ...) CLI_CMD_##id,
#include "cli/commands.def"
#undef CMD
	CLI_CMD__COUNT
};

enum cli_flag_type {
	CLI_FLAG_BOOL,		/* --x, --x=true, --x=false (also 1, 0) */
	CLI_FLAG_STRING,	/* --x V, --x=V; the last one wins */
	CLI_FLAG_STRINGS	/* repeatable, each value one CSV record: --x a,b --x '"c,d"' */
};

enum cli_args_rule { CLI_ARGS_NONE, CLI_ARGS_AT_MOST_ONE, CLI_ARGS_ONE, CLI_ARGS_OWN };

/* A string flag's destination: the value (borrowed from argv) and whether
 * the flag was given at all, so that "" and "not given" stay apart. */
struct cli_str {
	const char *v;
	int given;
};

struct cli_strings {
	char **v;		/* NULL-terminated; owned */
	size_t n;
	int given;
};

/* What a command line says: one member per flag destination (the
 * destination column of cli/flags.def), then the positional arguments.
 * Zero-initialise; release with cli_args_release. */
struct cli_args {
	struct cli_str root, run, action, outcome_file, text, text_file, scope_sha256,
		budget, source_file, source_choice, candidate, section, goal_file, surface;
	int json, outcome_stdin, text_stdin, confirm_destructive, use_pinned_source,
	    goal_stdin, no_review, mcp, refresh, from_candidate, markdown;
	struct cli_strings tool;
	char **pos;		/* NULL-terminated, borrowed from argv; array owned */
	size_t npos;
};

void cli_args_release(struct cli_args *a);

/* The --root value when it is not empty, else NULL ("not given"). */
const char *cli_root(const struct cli_args *a);

struct cli_flag_row {
	const char *name;	/* without the leading "--" */
	enum cli_flag_type type;
	size_t dest;		/* offset of the destination in struct cli_args */
	const char *value_name;	/* "string", "int", ... for --help; NULL for bool */
	const char *usage;	/* one line for --help */
	const char *choices;	/* accepted values, space-separated, or NULL */
};

#define CLI_FLAGS_MAX 9
struct cli_command {
	enum cli_cmd group;
	const char *name;
	int (*fn)(int argc, char **argv);
	enum cli_args_rule args;
	const char *use;	/* "run [flags] [-- <goal>]" */
	const char *summary;
	const char *examples;	/* may be NULL */
	enum cli_flag flags[CLI_FLAGS_MAX];	/* ends at CLI_FLAG_NONE */
};

extern const struct cli_flag_row cli_flags[CLI_FLAG__COUNT];
extern const struct cli_command cli_commands[CLI_CMD__COUNT];

/* The command `name` of `group` (CLI_CMD_NONE for the top level), or
 * NULL. */
const struct cli_command *cli_find(enum cli_cmd group, const char *name);

/* Parses argv[1..argc) for command `id` into *a: flags through their
 * destinations, non-flag arguments (and everything after "--") into
 * a->pos.  `--help`/`-h` prints the command's help; a usage error is
 * written as invalid_usage bound to `root_arg`, and so is a positional
 * argument the command's rule refuses (bound to the parsed --root).
 * Returns -1 when the command should go on, else the exit status. */
int cli_parse_command(enum cli_cmd id, int argc, char **argv, struct cli_args *a,
		      const char *root_arg);

/* Finds the command name in argv[1..argc) as the reference's command
 * lookup does: flags before it are skipped, one without "=" taking the
 * next argument as its value unless its name (without dashes) is in
 * `bools` (NULL-terminated); "--" ends the search.  When found at index
 * k > 1, argv is reordered to name, the flags that preceded it, then the
 * rest, so the command parses those flags as its own.  Returns k, or 0
 * when argv holds no command name. */
int cli_hoist_command(int argc, char **argv, const char *const *bools);

/* The raw --root value appearing before "--", or NULL. */
const char *cli_raw_root(int argc, char **argv);

/* Routes what the command prints on stdout from here on through a filter
 * that shows controls, bidi controls and U+2028/U+2029 as "<U+XXXX>" (the
 * rule of io/util/shown.h), so text from
 * a goal, summary, answer or material cannot reorder or break what the
 * person reads (sw_os_filter_stdout: where the system cannot filter a
 * stream as it is written, the output comes out at cli_human_end).  For
 * human output only: a command printing JSON never calls it.  Write
 * errors reach fflush/ferror or cli_human_end.  Returns 0 or -1. */
int cli_human_output(void);

/* Ends the filter after the command: flushes what it held and puts
 * stdout back.  0, or -1 when the output could not all be written (the
 * command then fails); 0 without a filter. */
int cli_human_end(void);

/* 1 once cli_human_output has been called: the command prints for a
 * person. */
int cli_human(void);

/* For human output that succeeded: one "warning: ..." line on stderr per
 * Git configuration file that could not be read and was left out
 * (vcs_config_warning).  JSON output and errors never get them: stderr
 * then holds exactly one cliError or nothing. */
void cli_config_warnings(void);

/* Prints help for command `id` to stdout; returns CLI_EXIT_OK or DEFECT.
 * In reference mode (cli_help_reference) it prints the same facts as one
 * JSON line instead: {"path","use","summary","examples","options":[{"name",
 * "type","value","usage","choices"}]}, which `slipway _reference` gathers
 * for the generated man pages and shell completions.  A group (a command
 * other commands name as theirs) prints {"path","summary","commands":[
 * {"name","summary"}]} and then each member's line. */
int cli_print_help(enum cli_cmd id);

/* Switches every later help print to reference mode (see above). */
void cli_help_reference(void);

/* True in reference mode. */
int cli_help_is_reference(void);

/* One reference line for the group `group` (CLI_CMD_NONE: the whole
 * program, summarised as `summary`): its visible members. */
int cli_print_group_reference(enum cli_cmd group, const char *path, const char *summary);

/* The capability texts embedded in this build (mk/embed.sh), as
 * io/adapters/adapter.h wants them; terminated by a NULL name. */
const struct adapter_text *cli_adapter_texts(void);

/* The adapter request the command line `a` makes (install, uninstall,
 * list, doctor), with this build's embedded capability texts. */
struct svc_adapter_request cli_adapter_request(const struct cli_args *a);

/* The changeReport of install or uninstall as text under `heading`. */
int cli_print_change_report(const char *heading, const struct adapter_report *r);

/* The program's own help: what it is and the visible commands. */
int cli_print_root_help(void);

/* Flushes stdout: CLI_EXIT_OK, or CLI_EXIT_DEFECT when it failed. */
int cli_flush(void);

#endif
