#ifndef DOCS_GENDOCS_H
#define DOCS_GENDOCS_H

/* The parts of build/gendocs (mk/gen/gendocs.c) that the reference pages
 * and diagrams share.
 *
 *   mk/gen/gendocs_i18n.c      the word list (mk/gen/gendocs_words.def) and
 *                            the language a page is printed in
 *   mk/gen/gendocs_md.c        table heads, cells and failure messages
 *   mk/gen/gendocs_pages.c     the page templates and their table markers
 *   mk/gen/gendocs_protocol.c  the protocol tables (tables/, fsm/)
 *   mk/gen/gendocs_cli.c       commands, host adapters
 *   mk/gen/gendocs_errors.c    exit statuses, error and Issue rejection codes
 *   mk/gen/gendocs_dot.c       the diagrams */

#include <stdio.h>

/* ---- languages (mk/gen/gendocs_i18n.c) ---- */

/* The languages of docs/<lang>/, in the word list's column order. */
enum gendocs_lang { GENDOCS_EN, GENDOCS_ZH, GENDOCS_JA, GENDOCS_LANG__COUNT };

extern const char *const gendocs_lang_name[GENDOCS_LANG__COUNT];

/* The language tables are printed in from now on. */
void gendocs_set_lang(enum gendocs_lang lang);

/* `en` in the current language: itself in English, otherwise its row of
 * mk/gen/gendocs_words.def.  A text without a row is printed in English and
 * remembered as missing (gendocs_i18n_check reports it).  A text in
 * backquotes (a wire name) is never translated. */
const char *gendocs_tr(const char *en);

/* The language tables are printed in now. */
enum gendocs_lang gendocs_lang(void);

/* The full stop ('.') or colon (':') that ends a sentence or a label in
 * the current language. */
const char *gendocs_punct(char c);

/* -1 (after naming each on stderr) when a text had no translation, or,
 * when every language was printed (`all`), when a row of the word list
 * was never used: its English text is printed nowhere any more. */
int gendocs_i18n_check(int all);

/* ---- markdown helpers (mk/gen/gendocs_md.c) ---- */

/* The template and line gendocs_fail names from now on (NULL: none). */
void gendocs_where(const char *file, size_t line);

/* A table head: the translated header words, NULL-terminated. */
void gendocs_head(FILE *out, ...) __attribute__((sentinel));

/* `s` in a table cell: "|" escaped, line breaks as spaces. */
void gendocs_cell(FILE *out, const char *s);

/* Reports a failure of the page or diagram being printed; returns -1. */
int gendocs_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- tables a page marker prints; each returns 0 or -1 (reported) ---- */

/* mk/gen/gendocs_protocol.c; `arg` is the marker's argument or NULL */
int gendocs_legal_outcomes(FILE *out, const char *arg);
int gendocs_run_states(FILE *out, const char *arg);
int gendocs_pause_reasons(FILE *out, const char *arg);
int gendocs_routing_rules(FILE *out, const char *arg);
int gendocs_note_rules(FILE *out, const char *arg);
int gendocs_issue_rules(FILE *out, const char *arg);
int gendocs_facts(FILE *out, const char *arg);
int gendocs_effects(FILE *out, const char *arg);
int gendocs_next_rules(FILE *out, const char *arg);
int gendocs_next_variants(FILE *out, const char *arg);
int gendocs_journal_events(FILE *out, const char *arg);
int gendocs_example_outcome(FILE *out, const char *arg);

/* mk/gen/gendocs_errors.c: `error-codes` takes the exit status (2 or 3);
 * each code's entry has a meaning and a fix from tables/error_help.def or
 * its translation docs/<lang>/reference/error-codes.def */
int gendocs_exit_statuses(FILE *out, const char *arg);
int gendocs_error_codes(FILE *out, const char *arg);
int gendocs_source_classes(FILE *out, const char *arg);

/* mk/gen/gendocs_cli.c */
int gendocs_commands(FILE *out, const char *arg);
int gendocs_capabilities(FILE *out, const char *arg);
int gendocs_hosts(FILE *out, const char *arg);
int gendocs_host_files(FILE *out, const char *arg);
int gendocs_host_sources(FILE *out, const char *arg);
int gendocs_host_notes(FILE *out, const char *arg);

/* The rows of cli/commands.def and cli/flags.def, for the tables and the
 * protocol sequence diagram. */
struct gendocs_cmd {
	const char *id, *group, *name, *use, *summary, *examples;
	const char *flags;	/* the flag ids, ", "-separated; "NONE" for none */
};

extern const struct gendocs_cmd gendocs_cmds[];
extern const size_t gendocs_ncmds;

/* The name (without "--") of the flag with id `id` in cli/flags.def;
 * "?" when there is none. */
const char *gendocs_flag_name(const char *id);

/* The words of the command line that `cmd` is ("protocol submit"). */
const char *gendocs_cmd_path(const struct gendocs_cmd *cmd, char *buf, size_t size);

/* The files install writes for host `i` ("ide"/"cli" for a host that
 * chooses its surface, NULL otherwise), with the capability names of the
 * files made once per capability replaced by `<capability>` and each
 * pattern once.  Calls `fn(role, pattern, per_capability, payload)` in
 * generation order.  0 or -1 (reported). */
typedef void gendocs_path_fn(int role, const char *path, int per_capability, void *payload);
int gendocs_host_patterns(size_t i, const char *surface, gendocs_path_fn *fn, void *payload);

/* ---- pages (mk/gen/gendocs_pages.c) ---- */

/* Expands every template docs/<lang>/reference/NAME.md.in under `docs`
 * into OUT/<lang>/reference/NAME.md (through a rename; OUT may be `docs`).
 * 0, or 1 after messages on stderr; nothing is written then. */
int gendocs_pages(const char *docs, const char *out);

/* ---- diagrams (mk/gen/gendocs_dot.c) ---- */

/* Prints the Graphviz source of diagram `name` to stdout.  `args` are the
 * command line's remaining words (the scenario file of protocol-sequence,
 * the sources of layers).  0, or 1 after a message on stderr. */
int gendocs_dot(const char *name, char **args, int nargs);

#endif
