/* The Markdown helpers every generated table uses (a table head, a cell)
 * and the failure message that names the template and line being printed.
 * Below the page templates (mk/gen/gendocs_pages.c) and the tables
 * (gendocs_protocol.c, gendocs_cli.c): it calls none of them. */

#include <stdarg.h>
#include <stdio.h>

#include "mk/gen/gendocs.h"

static const char *at_file;
static size_t at_line;

void gendocs_where(const char *file, size_t line)
{
	at_file = file;
	at_line = line;
}

int gendocs_fail(const char *fmt, ...)
{
	va_list ap;

	if (at_file)
		fprintf(stderr, "gendocs: %s:%zu: ", at_file, at_line);
	else
		fprintf(stderr, "gendocs: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

void gendocs_head(FILE *out, ...)
{
	va_list ap;
	const char *w;
	size_t n = 0;

	va_start(ap, out);
	fputc('|', out);
	while ((w = va_arg(ap, const char *)) != NULL) {
		fputc(' ', out);
		gendocs_cell(out, gendocs_tr(w));
		fputs(" |", out);
		n++;
	}
	va_end(ap);
	fputs("\n|", out);
	while (n--)
		fputs(" --- |", out);
	fputc('\n', out);
}

void gendocs_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}
