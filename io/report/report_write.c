/* How the report is written: plain text for a person or GitHub-flavoured
 * Markdown, host text trimmed and indented, paths and ids as code, section
 * headings and list items.  Reads nothing of the Run; never decides what a
 * section says. */

#include <stdio.h>
#include <string.h>

#include "io/report/report_internal.h"

void report__put(struct rr *r, const char *s)
{
	sw_buf_str(&r->b, s);
}

int report__space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* `s` without leading and trailing white space: start and length. */
void report__trimmed(const char *s, size_t *at, size_t *n)
{
	size_t a = 0, e = s ? strlen(s) : 0;

	while (a < e && report__space(s[a]))
		a++;
	while (e > a && report__space(s[e - 1]))
		e--;
	*at = a;
	*n = e - a;
}

/* Host text (Markdown for the host, plain for a person reading the text
 * form), trimmed, CR and CRLF as LF, every line after the first starting
 * with `indent` (blank lines stay blank). */
void report__block(struct rr *r, const char *s, const char *indent)
{
	size_t at, n;

	report__trimmed(s, &at, &n);
	for (size_t i = at; i < at + n; i++) {
		char c = s[i];

		if (c == '\r' && i + 1 < at + n && s[i + 1] == '\n')
			continue;
		if (c == '\r')
			c = '\n';
		sw_buf_ch(&r->b, c);
		if (c == '\n' && i + 1 < at + n && s[i + 1] != '\n' && s[i + 1] != '\r')
			report__put(r, indent);
	}
}

/* Words of `s` joined by single spaces, at most `max` characters (then it
 * ends with an ellipsis). */
void report__one_line(struct rr *r, const char *s, size_t max)
{
	struct sw_buf j = SW_BUF_INIT;
	size_t chars = 0, cut = 0;

	for (const char *p = s ? s : ""; *p;) {
		size_t n;

		while (*p && report__space(*p))
			p++;
		for (n = 0; p[n] && !report__space(p[n]); n++)
			;
		if (n == 0)
			break;
		if (j.len)
			sw_buf_ch(&j, ' ');
		sw_buf_add(&j, p, n);
		p += n;
	}
	if (j.failed) {
		r->failed = 1;
		sw_buf_release(&j);
		return;
	}
	/* Over `max` characters: the first max - 1 and an ellipsis. */
	for (size_t i = 0; i < j.len; i++)
		if ((((unsigned char)j.p[i]) & 0xc0) != 0x80 && ++chars == max)
			cut = i;
	for (size_t i = 0; i < (chars > max ? cut : j.len); i++) {
		if (r->md && strchr("\\`*_{}[]<>()#+-.!|~", j.p[i]))
			sw_buf_ch(&r->b, '\\');
		sw_buf_ch(&r->b, j.p[i]);
	}
	if (chars > max)
		report__put(r, "\u2026");
	sw_buf_release(&j);
}

/* A path, command or id: as it is in text, a code span in Markdown (in a
 * table cell `|` is escaped too). */
void report__code(struct rr *r, const char *s, int cell)
{
	size_t run = 0, longest = 0;

	if (!r->md) {
		report__put(r, s);
		return;
	}
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		sw_buf_ch(&r->b, '`');
	if (s[0] == '`' || (s[0] && s[strlen(s) - 1] == '`') || s[0] == ' ')
		sw_buf_ch(&r->b, ' ');
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r')
			report__put(r, " ");
		else if (*p == '|' && cell)
			report__put(r, "\\|");
		else
			sw_buf_ch(&r->b, *p);
	}
	if (s[0] == '`' || (s[0] && s[strlen(s) - 1] == '`') || s[0] == ' ')
		sw_buf_ch(&r->b, ' ');
	for (size_t i = 0; i <= longest; i++)
		sw_buf_ch(&r->b, '`');
}

/* The first eight characters of an id, the way the log names Actions. */
void report__short_id(struct rr *r, const char *id)
{
	char s[9];

	snprintf(s, sizeof(s), "%s", id ? id : "");
	report__code(r, s, 0);
}

/* The start of a section: its title from the table, or the title and
 * "none." when it has nothing to say. */
void report__heading(struct rr *r, enum tbl_report_section sec, size_t count)
{
	r->count = count;
	if (r->md)
		report__putf(r, "\n## %s\n\n%s", tbl_section_title[sec], count ? "" : "None.\n");
	else
		report__putf(r, "\n%s:%s\n", tbl_section_title[sec], count ? "" : " none.");
}

/* The start of one item of a section's list. */
void report__item(struct rr *r)
{
	report__put(r, r->md ? "- " : "  - ");
}

/* The indent of an item's continuation lines. */
const char *report__cont(const struct rr *r)
{
	return r->md ? "  " : "    ";
}
