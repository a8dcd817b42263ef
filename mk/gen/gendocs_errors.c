/* The error-code page (docs/<lang>/reference/error-codes.md): the exit
 * statuses (tables/exit_statuses.def), every error code
 * (tables/error_codes.def) with its exit status, recovery, details, meaning
 * and fix, and every classification code of a rejected Issue body
 * (tables/source_classes.def) with its meaning and fix.  The meanings and
 * fixes are the rows of tables/error_help.def; a zh or ja page prints the
 * translation of each row from docs/<lang>/reference/error-codes.def,
 * which carries the digest of the English row it translates.  A code
 * without a row (or with two), and a translation that is missing or was
 * made from another English text, fail the page. */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/source/source.h"
#include "mk/gen/gendocs.h"
#include "tables/tables.h"

struct help {
	int is_class;	/* 1: a classification code; 0: an error code */
	int id;		/* enum tbl_err or enum source_class */
	const char *digest;	/* translations only: of the English row */
	const char *meaning, *fix;
};

/* clang-format off */
static const struct help help_en[] = {
#define ERR_HELP(id, meaning, fix) { 0, TBL_ERR_##id, NULL, meaning, fix },
#define SOURCE_HELP(id, meaning, fix) { 1, SOURCE_CLASS_##id, NULL, meaning, fix },
#include "tables/error_help.def"
#undef ERR_HELP
#undef SOURCE_HELP
	{ -1, 0, NULL, NULL, NULL }
};

#define TR_ERR(id, digest, meaning, fix) { 0, TBL_ERR_##id, digest, meaning, fix },
#define TR_SOURCE(id, digest, meaning, fix) { 1, SOURCE_CLASS_##id, digest, meaning, fix },
static const struct help help_zh[] = {
#include "docs/zh/reference/error-codes.def"
	{ -1, 0, NULL, NULL, NULL }
};

static const struct help help_ja[] = {
#include "docs/ja/reference/error-codes.def"
	{ -1, 0, NULL, NULL, NULL }
};
#undef TR_ERR
#undef TR_SOURCE
/* clang-format on */

static const struct help *const help_of[GENDOCS_LANG__COUNT] = { help_en, help_zh, help_ja };
static const char *const file_of[GENDOCS_LANG__COUNT] = {
	"tables/error_help.def", "docs/zh/reference/error-codes.def",
	"docs/ja/reference/error-codes.def",
};

static const char *code_wire(int is_class, int id)
{
	return is_class ? source_class_wire[id] : tbl_err_wire[id];
}

/* Whether a page lists the code: every error code but NONE, every
 * classification code but NONE and VALID_CHANGE (a valid body). */
static int listed(int is_class, int id)
{
	if (is_class)
		return id > SOURCE_CLASS_VALID_CHANGE && id < SOURCE_CLASS__COUNT;
	return id > TBL_ERR_NONE && id < TBL_ERR__COUNT;
}

/* The digest a translation names: FNV-1a (64 bits) of the English
 * meaning, a NUL and the fix, in 16 hex digits. */
static void digest_of(char out[17], const struct help *h)
{
	uint64_t x = 0xcbf29ce484222325u;
	const char *parts[2] = { h->meaning, h->fix };

	for (int p = 0; p < 2; p++)
		for (const unsigned char *s = (const unsigned char *)parts[p];; s++) {
			x = (x ^ *s) * 0x100000001b3u;
			if (*s == '\0')
				break;
		}
	snprintf(out, 17, "%016" PRIx64, x);
}

/* The row of code (is_class, id) in `rows`, or NULL; *count is how many. */
static const struct help *find(const struct help *rows, int is_class, int id, int *count)
{
	const struct help *found = NULL;

	*count = 0;
	for (const struct help *h = rows; h->is_class >= 0; h++)
		if (h->is_class == is_class && h->id == id) {
			found = found ? found : h;
			++*count;
		}
	return found;
}

static int one_line(const char *s)
{
	return s && *s && strchr(s, '\n') == NULL && strchr(s, '\r') == NULL;
}

/* The rows of one language checked against the codes (and, for a
 * translation, against the English rows): 0, or -1 after naming each
 * problem. */
static int check_lang(enum gendocs_lang lang)
{
	const struct help *rows = help_of[lang];
	int rc = 0;

	for (const struct help *h = rows; h->is_class >= 0; h++) {
		if (!listed(h->is_class, h->id))
			rc = gendocs_fail("%s: %s takes no row: the page lists no such code",
					  file_of[lang], h->is_class ? "a valid body's classification" : "NONE");
		else if (!one_line(h->meaning) || !one_line(h->fix))
			rc = gendocs_fail("%s: the row of %s needs a meaning and a fix, each one line",
					  file_of[lang], code_wire(h->is_class, h->id));
	}
	for (int is_class = 0; is_class < 2; is_class++)
		for (int id = 0; id < (is_class ? SOURCE_CLASS__COUNT : TBL_ERR__COUNT); id++) {
			const struct help *en, *tr;
			char want[17];
			int n;

			if (!listed(is_class, id))
				continue;
			en = find(help_en, is_class, id, &n);
			if (n != 1 && lang != GENDOCS_EN)
				continue;	/* the English page says so */
			if (n != 1) {
				rc = gendocs_fail("tables/error_help.def: %s %s has %s row; give it exactly one "
						  "(%s)", is_class ? "classification code" : "error code",
						  code_wire(is_class, id), n ? "more than one" : "no",
						  is_class ? "SOURCE_HELP" : "ERR_HELP");
				continue;
			}
			if (lang == GENDOCS_EN)
				continue;
			digest_of(want, en);
			tr = find(rows, is_class, id, &n);
			if (n != 1)
				rc = gendocs_fail("%s has %s row for %s; translate the English row of "
						  "tables/error_help.def, with the digest \"%s\"",
						  file_of[lang], n ? "more than one" : "no",
						  code_wire(is_class, id), want);
			else if (tr->digest == NULL || strcmp(tr->digest, want) != 0)
				rc = gendocs_fail("%s: the row of %s translates another English text "
						  "(digest \"%s\"); the row in tables/error_help.def is now "
						  "\"%s\": bring the translation up to date and set that digest",
						  file_of[lang], code_wire(is_class, id),
						  tr->digest ? tr->digest : "", want);
		}
	return rc;
}

/* Each language is checked once, when its page first prints a code. */
static int checked[GENDOCS_LANG__COUNT];

static int check_once(void)
{
	enum gendocs_lang lang = gendocs_lang();

	if (checked[lang] == 0)
		checked[lang] = check_lang(lang) < 0 ? -1 : 1;
	return checked[lang] < 0 ? -1 : 0;
}

/* A label and its text, in the current language: "**What happened**: ...". */
static void labelled(FILE *out, const char *label, const char *text)
{
	fprintf(out, "**%s**%s%s%s\n\n", gendocs_tr(label), gendocs_punct(':'),
		gendocs_lang() == GENDOCS_EN ? " " : "", text);
}

static void meta(FILE *out, const char *label, const char *value, int last)
{
	fprintf(out, "%s%s%s%s%s", gendocs_tr(label), gendocs_punct(':'),
		gendocs_lang() == GENDOCS_EN ? " " : "", value, last ? "\n\n" : " · ");
}

/* One code's entry: its heading (the anchor other pages link), meaning,
 * fix, then the exit status, recovery and details of error `err`. */
static void entry(FILE *out, int is_class, int id, enum tbl_err err)
{
	const struct help *h = find(help_of[gendocs_lang()], is_class, id, &(int){ 0 });
	char status[8];

	fprintf(out, "### `%s`\n\n", code_wire(is_class, id));
	labelled(out, "What happened", h->meaning);
	labelled(out, "What to do", h->fix);
	if (is_class) {
		char link[160];

		snprintf(link, sizeof(link), "[`%s`](#%s)", tbl_err_wire[err], tbl_err_wire[err]);
		meta(out, "Error at `slipway run`", link, 0);
	}
	snprintf(status, sizeof(status), "%d", tbl_err_exit[err]);
	meta(out, "Exit status", status, 0);
	meta(out, "`next`", gendocs_tr(tbl_recovery_doc[tbl_err_recovery[err]]), is_class);
	if (!is_class) {
		const char *d = tbl_details_doc[tbl_err_details[err]];

		meta(out, "`details`", strcmp(d, "-") == 0 ? gendocs_tr("none") : d, 1);
	}
}

/* The line of links to the entries that follow. */
static void index_line(FILE *out, int is_class, int status)
{
	const char *sep = "";

	for (int id = 0; id < (is_class ? SOURCE_CLASS__COUNT : TBL_ERR__COUNT); id++) {
		if (!listed(is_class, id) || (!is_class && tbl_err_exit[id] != status))
			continue;
		fprintf(out, "%s[`%s`](#%s)", sep, code_wire(is_class, id), code_wire(is_class, id));
		sep = " · ";
	}
	fprintf(out, "\n\n");
}

/* ---- the page markers ---- */

int gendocs_exit_statuses(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "status", "meaning", NULL);
	for (size_t i = 0; i < tbl_exit_statuses_len; i++) {
		fprintf(out, "| %d | ", tbl_exit_statuses[i].status);
		gendocs_cell(out, gendocs_tr(tbl_exit_statuses[i].meaning));
		fprintf(out, " |\n");
	}
	return 0;
}

/* The codes raised with exit status `arg` (2 or 3), in table order. */
int gendocs_error_codes(FILE *out, const char *arg)
{
	int status = arg ? atoi(arg) : -1;
	int n = 0;

	if (status != 2 && status != 3)
		return gendocs_fail("error-codes takes the exit status 2 or 3");
	if (check_once() < 0)
		return -1;
	index_line(out, 0, status);
	for (int e = 1; e < TBL_ERR__COUNT; e++) {
		if (tbl_err_exit[e] != status)
			continue;
		entry(out, 0, e, (enum tbl_err)e);
		n++;
	}
	return n ? 0 : gendocs_fail("no error code has exit status %d", status);
}

/* The classification codes of a rejected body, in table order; each is
 * reported at `slipway run` as invalid_source.  A code spelled as an
 * error code would give two entries one anchor. */
int gendocs_source_classes(FILE *out, const char *arg)
{
	(void)arg;
	if (check_once() < 0)
		return -1;
	for (int c = 0; c < SOURCE_CLASS__COUNT; c++)
		for (int e = 1; e < TBL_ERR__COUNT; e++)
			if (strcmp(source_class_wire[c], tbl_err_wire[e]) == 0)
				return gendocs_fail("%s is both an error and a classification code: "
						    "their entries would share an anchor", tbl_err_wire[e]);
	index_line(out, 1, 0);
	for (int c = SOURCE_CLASS_VALID_CHANGE + 1; c < SOURCE_CLASS__COUNT; c++)
		entry(out, 1, c, TBL_ERR_INVALID_SOURCE);
	return 0;
}
