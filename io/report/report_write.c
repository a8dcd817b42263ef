/* How the report is written: plain text for a person or GitHub-flavoured
 * Markdown, text from outside slipway made harmless, host text trimmed and
 * indented, paths and ids as code, section headings and list items.  Reads
 * nothing of the Run; never decides what a section says.
 *
 * Text from outside slipway (the goal, host text, the person's words, a
 * path Git observed, an Issue's URL) goes through one writer, text():
 * every character io/util/shown.h names is written as "<U+XXXX>" in every
 * form, and in Markdown every character Markdown would read as markup is
 * escaped with a backslash, the same way everywhere: `\ ` * [ < | ~ $`
 * anywhere (a `]` or `>` closes nothing an escaped `[` or `<` did not
 * open), `_` but inside a word, `&` before a name or number (an entity),
 * and at the start of a line `#`, `>`, `-`, `+`, `=` and the `.` or `)`
 * after digits (a list item), besides a closing run of `#`.  Nothing else
 * is escaped, so the text reads the same in the raw Markdown.  A line's leading and trailing
 * white space is dropped in Markdown (an indent would start code, two
 * trailing spaces a line break). */

#include <stdio.h>
#include <string.h>

#include "io/report/report_internal.h"
#include "io/util/shown.h"

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

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

static int alnum(char c)
{
	return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* 1 when the `#` at s[i] is part of the closing run of `#` of a line of
 * `n` bytes (only `#` and spaces follow it). */
static int closing_hash(const char *s, size_t n, size_t i)
{
	for (size_t k = i; k < n; k++)
		if (s[k] != '#' && s[k] != ' ' && s[k] != '\t')
			return 0;
	return 1;
}

/* Writes `n` bytes of outside text that hold no line break, as one line's
 * content (`line_start`: the text starts a Markdown line or item). */
static void text(struct rr *r, const char *s, size_t n, int line_start)
{
	size_t digits = 0;	/* the digits the line starts with */

	while (line_start && digits < n && digit(s[digits]))
		digits++;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t k = sw_utf8_next(s + i, n - i, &cp);
		char c = s[i];

		if (sw_cp_shown_as_code(cp)) {
			report__putf(r, "<U+%04X>", cp);
			i += k;
			continue;
		}
		if (r->md && k == 1 &&
		    (strchr("\\`*[<|~$", c) != NULL ||
		     (c == '_' && !(i > 0 && alnum(s[i - 1]) && i + 1 < n && alnum(s[i + 1]))) ||
		     (c == '&' && i + 1 < n && (alnum(s[i + 1]) || s[i + 1] == '#')) ||
		     (c == '#' && ((line_start && i == 0) || closing_hash(s, n, i))) ||
		     (line_start && i == 0 && strchr(">-+=", c) != NULL) ||
		     (digits > 0 && i == digits && (c == '.' || c == ')'))))
			sw_buf_ch(&r->b, '\\');
		sw_buf_add(&r->b, s + i, k);
		i += k;
	}
}

void report__text(struct rr *r, const char *s)
{
	text(r, s ? s : "", s ? strlen(s) : 0, 1);
}

/* Host text (Markdown for the host, plain for a person reading the text
 * form), trimmed, CR and CRLF as LF, every line after the first starting
 * with `indent` (a blank line with what is left of it without trailing
 * spaces: ">" keeps a quote whole).  In Markdown each line is text of its
 * own, its leading and trailing white space dropped. */
void report__block(struct rr *r, const char *s, const char *indent)
{
	size_t at, n, i;

	report__trimmed(s, &at, &n);
	for (i = at; i < at + n;) {
		size_t e = i, next;

		while (e < at + n && s[e] != '\n' && s[e] != '\r')
			e++;
		next = e < at + n && s[e] == '\r' && e + 1 < at + n && s[e + 1] == '\n' ? e + 2 : e + 1;
		if (r->md) {
			size_t a = i, z = e;

			while (a < z && report__space(s[a]))
				a++;
			while (z > a && report__space(s[z - 1]))
				z--;
			text(r, s + a, z - a, 1);
		} else {
			text(r, s + i, e - i, 0);
		}
		if (e < at + n) {
			size_t k = strlen(indent);

			sw_buf_ch(&r->b, '\n');
			if (next < at + n && s[next] != '\n' && s[next] != '\r')
				report__put(r, indent);
			else {
				while (k > 0 && indent[k - 1] == ' ')
					k--;
				sw_buf_add(&r->b, indent, k);
			}
		}
		i = next;
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
	text(r, j.p ? j.p : "", chars > max ? cut : j.len, 1);
	if (chars > max)
		report__put(r, "\u2026");
	sw_buf_release(&j);
}

/* A path, command or id: as it is in text, a code span in Markdown (in a
 * table cell `|` is escaped too); line breaks as spaces, and the
 * characters io/util/shown.h names as "<U+XXXX>" in both. */
void report__code(struct rr *r, const char *s, int cell)
{
	size_t run = 0, longest = 0, n = strlen(s);
	int pad;

	if (!r->md) {
		text(r, s, n, 0);
		return;
	}
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = s[0] == '`' || (n && s[n - 1] == '`') || s[0] == ' ';
	for (size_t i = 0; i <= longest; i++)
		sw_buf_ch(&r->b, '`');
	if (pad)
		sw_buf_ch(&r->b, ' ');
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t k = sw_utf8_next(s + i, n - i, &cp);

		if (s[i] == '\n' || s[i] == '\r')
			report__put(r, " ");
		else if (sw_cp_shown_as_code(cp))
			report__putf(r, "<U+%04X>", cp);
		else if (s[i] == '|' && cell)
			report__put(r, "\\|");
		else
			sw_buf_add(&r->b, s + i, k);
		i += k;
	}
	if (pad)
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

/* " (N times)" after a fact said once for N > 1 repeats. */
void report__times(struct rr *r, size_t n)
{
	if (n > 1)
		report__putf(r, " (%zu times)", n);
}
