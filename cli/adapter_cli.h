#ifndef CLI_ADAPTER_CLI_H
#define CLI_ADAPTER_CLI_H

/* Plumbing shared by install, uninstall, list and doctor: the workspace
 * root, the embedded capability texts, the changeReport output and the
 * adapter error nexts. */

#include "io/adapter.h"
#include "tables/tables.h"

struct cli_command;

/* The adapter commands' shared front: parses argv against cmd->opts,
 * prints --help, refuses positional arguments.  Returns -1 to go on, else
 * the exit status (the error, if any, already written). */
int cli_adapter_parse(int argc, char **argv, const struct cli_command *cmd);

/* The worktree containing `raw` (or the cwd when NULL/""): *root and
 * *common (the Git common dir) are sw_malloc'd on success.  On failure the
 * cliError has been written and the exit status is returned (> 0). */
int cli_adapter_root(char **root, char **common, const char *raw);

/* The embedded capability texts as the io layer wants them. */
const struct adapter_text *cli_adapter_texts(void);

/* Writes the cliError for a failed adapter operation: the selection and
 * surface codes when `err` carries them, else `fallback` (install_failed,
 * uninstall_failed) with the report as details when `rep` is given.
 * Returns the exit status. */
int cli_adapter_fail(enum tbl_err fallback, const char *root,
		     const struct sw_error *err, const struct adapter_report *rep);

/* A usage error whose next is list-host-adapters. */
int cli_adapter_selection_fail(enum tbl_err code, const char *root,
			       const char *message);

/* Prints the report: JSON when `json`, else "<heading> for: ..." lines. */
int cli_change_report_print(const char *heading, const struct adapter_report *r,
			    int json);

/* The values of --tool (install, uninstall): the host ids of io/adapter.c
 * in registry order, then "all".  tests/e2e/test_manpages.py checks the
 * list against `slipway list --json`. */
#define CLI_TOOL_CHOICES \
	"claude codex copilot cursor kilo kiro opencode pi qwen windsurf all"

#endif
