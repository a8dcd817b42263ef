#ifndef CLI_CLI_H
#define CLI_CLI_H

/* Shared plumbing of the commands: flag parsing, JSON output, and the one
 * structured error path (cliError on stderr, exit 2 or 3, exit 1 only when
 * the error itself cannot be written). */

#include <stddef.h>

#include "service/exit.h"
#include "service/emit.h"
#include "io/next.h"
#include "tables/tables.h"

struct json_t;

enum cli_opt_type {
	CLI_OPT_BOOL,		/* --x, --x=true, --x=false */
	CLI_OPT_STRING,		/* --x V, --x=V; last one wins */
	CLI_OPT_STRINGS,	/* repeatable, each value one CSV record: --x a,b --x '"c,d"' */
	CLI_OPT_INT		/* --x N (decimal, may be negative) */
};

struct cli_opt {
	const char *name;	/* without the leading "--" */
	enum cli_opt_type type;
	void *dest;		/* int *, const char **, struct cli_strings *, long * */
	int seen;		/* set by the parser */
	const char *usage;	/* one line for --help */
	const char *value_name;	/* "string", "int", ... for --help; NULL for bool */
	const char *choices;	/* the accepted values, space-separated, for man
				 * pages and shell completion; NULL when free */
};

struct cli_strings {
	char **v;		/* NULL-terminated; owned */
	size_t n;
};

struct cli_command {
	const char *use;	/* "run [flags] [-- <goal>]" */
	const char *summary;
	const char *examples;	/* may be NULL */
	struct cli_opt *opts;	/* terminated by name == NULL */
};

/* Parses argv[1..argc) against `opts`; non-flag arguments (and everything
 * after "--") land in *pos (NULL-terminated, borrowed pointers into argv,
 * array owned by the caller, freed with sw_free).  `--help`/`-h` set *help.
 * On a usage error writes nothing and returns SVC_EXIT_USAGE with `msg`
 * filled. */
int cli_parse(int argc, char **argv, struct cli_opt *opts, char ***pos,
	      size_t *npos, int *help, char *msg, size_t msglen);

void cli_strings_release(struct cli_strings *s);

/* cli_parse for a command: a usage error is written as invalid_usage
 * (bound to `root_arg`), and --help prints `cmd` with `opts`.  Returns -1
 * when the command should go on, else the exit status to return. */
int cli_parse_command(int argc, char **argv, struct cli_opt *opts,
		      const struct cli_command *cmd, const char *path,
		      char ***pos, size_t *npos, const char *root_arg);

/* invalid_usage naming the first positional argument of the command at
 * `path` ("protocol submit"), when there is one; 0 when there is none. */
int cli_no_args(size_t npos, char *const *pos, const char *path,
		const char *root_arg);

/* invalid_usage unless there are at most `max` positional arguments;
 * 0 when there are. */
int cli_max_args(size_t npos, size_t max, const char *root_arg);

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
 * that shows bidi controls and U+2028/U+2029 as "<U+XXXX>", so text from
 * a goal, summary, answer or material cannot reorder or break what the
 * person reads.  For human output only: a command printing JSON never
 * calls it.  Write errors still reach fflush/ferror.  Returns 0 or -1. */
int cli_human_output(void);

/* Prints help for `cmd` to stdout; returns SVC_EXIT_OK or DEFECT.  In
 * reference mode (cli_help_reference) it prints the same facts as one JSON
 * line instead: {"path","use","summary","examples","options":[{"name",
 * "type","value","usage","choices"}]}, which `slipway _reference` gathers
 * for the generated man pages and shell completions. */
int cli_print_help(const char *path, const struct cli_command *cmd);

/* Switches every later help print to reference mode (see above). */
void cli_help_reference(void);

/* True in reference mode. */
int cli_help_is_reference(void);

/* One reference-mode line for a command group without flags of its own:
 * {"path","use","summary","commands":[...]} (`names` NULL-terminated). */
int cli_print_group_reference(const char *path, const char *summary,
			      const char *const *names, const char *const *summaries);

#endif
