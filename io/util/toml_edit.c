/* A byte-preserving editor of one table in TOML text: a line scanner that
 * follows TOML 1.0's spelling far enough to know where each table starts
 * and which keys each line defines, and the append and cut it allows. */

#include "io/util/toml_edit.h"

#include <stdbool.h>
#include <string.h>

#include "io/util/buf.h"
#include "io/util/mem.h"

#define SEGS_MAX 16
#define SEG_MAX 128

/* A dotted key path, decoded. */
struct keys {
	char seg[SEGS_MAX][SEG_MAX];
	size_t n;
};

struct scan {
	const char *t;
	size_t len, i;
	unsigned line;
	struct sw_error *err;
};

static int fail(struct scan *s, const char *what)
{
	return sw_error_set(s->err, SW_EPARSE, "line %u: %s", s->line, what);
}

static bool at_eol(const struct scan *s)
{
	return s->i >= s->len || s->t[s->i] == '\n' ||
	       (s->t[s->i] == '\r' && s->i + 1 < s->len && s->t[s->i + 1] == '\n');
}

static void skip_blank(struct scan *s)
{
	while (s->i < s->len && (s->t[s->i] == ' ' || s->t[s->i] == '\t'))
		s->i++;
}

/* Past one line end (the scan is at one, or at the end). */
static void eat_eol(struct scan *s)
{
	if (s->i < s->len && s->t[s->i] == '\r')
		s->i++;
	if (s->i < s->len && s->t[s->i] == '\n') {
		s->i++;
		s->line++;
	}
}

static void skip_comment(struct scan *s)
{
	if (s->i < s->len && s->t[s->i] == '#')
		while (!at_eol(s))
			s->i++;
}

/* Blanks, comments and line ends, as inside an array. */
static void skip_space(struct scan *s)
{
	for (;;) {
		skip_blank(s);
		skip_comment(s);
		if (s->i >= s->len || !at_eol(s))
			return;
		eat_eol(s);
	}
}

/* The rest of a line: blanks, a comment, the line end. */
static int end_line(struct scan *s)
{
	skip_blank(s);
	skip_comment(s);
	if (!at_eol(s))
		return fail(s, "unexpected text after a value");
	eat_eol(s);
	return 0;
}

static bool bare_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A one-line basic ("...") or literal ('...') string at the scan; its
 * decoded text goes to `out` (when not NULL; an escape it cannot decode
 * to ASCII marks it with a NUL byte, which no path key holds). */
static int one_line_string(struct scan *s, char *out, size_t cap)
{
	char q = s->t[s->i++];
	size_t n = 0;

	for (;;) {
		char c;

		if (s->i >= s->len || s->t[s->i] == '\n' || s->t[s->i] == '\r')
			return fail(s, "a string does not end on its line");
		c = s->t[s->i++];
		if (c == q)
			break;
		if (q == '"' && c == '\\') {
			char e = s->i < s->len ? s->t[s->i++] : '\0';
			int v = -1;

			switch (e) {
			case 'b': c = '\b'; break;
			case 't': c = '\t'; break;
			case 'n': c = '\n'; break;
			case 'f': c = '\f'; break;
			case 'r': c = '\r'; break;
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case 'u':
			case 'U': {
				size_t digits = e == 'u' ? 4 : 8;

				v = 0;
				for (size_t k = 0; k < digits; k++) {
					int h = s->i < s->len ? hexval(s->t[s->i]) : -1;

					if (h < 0)
						return fail(s, "a \\u escape needs hex digits");
					v = v * 16 + h;
					s->i++;
				}
				c = v > 0 && v < 0x80 ? (char)v : '\0';
				break;
			}
			default:
				return fail(s, "an unknown escape in a string");
			}
		}
		if (out && n + 1 < cap)
			out[n++] = c;
	}
	if (out)
		out[n] = '\0';
	return 0;
}

/* A multi-line string ("""...""" or '''...''') at the scan. */
static int multi_line_string(struct scan *s)
{
	char q = s->t[s->i];

	s->i += 3;
	while (s->i < s->len) {
		if (s->t[s->i] == '\\' && q == '"') {
			if (s->i + 1 < s->len && s->t[s->i + 1] == '\n')
				s->line++;
			s->i += 2;
			continue;
		}
		if (s->t[s->i] == '\n')
			s->line++;
		if (s->i + 2 < s->len && s->t[s->i] == q && s->t[s->i + 1] == q && s->t[s->i + 2] == q) {
			s->i += 3;
			/* Up to two quotes may close the content itself. */
			for (int k = 0; k < 2 && s->i < s->len && s->t[s->i] == q; k++)
				s->i++;
			return 0;
		}
		s->i++;
	}
	return fail(s, "a multi-line string does not end");
}

/* One key of a dotted key, decoded into `out`. */
static int one_key(struct scan *s, char out[SEG_MAX])
{
	size_t n = 0;

	if (s->i < s->len && (s->t[s->i] == '"' || s->t[s->i] == '\''))
		return one_line_string(s, out, SEG_MAX);
	while (s->i < s->len && bare_char(s->t[s->i])) {
		if (n + 1 < SEG_MAX)
			out[n++] = s->t[s->i];
		s->i++;
	}
	out[n] = '\0';
	return n > 0 ? 0 : fail(s, "a key is expected");
}

static int dotted_key(struct scan *s, struct keys *k)
{
	int rc;

	k->n = 0;
	for (;;) {
		char seg[SEG_MAX];

		skip_blank(s);
		if ((rc = one_key(s, seg)) < 0)
			return rc;
		if (k->n < SEGS_MAX)
			memcpy(k->seg[k->n], seg, SEG_MAX);
		k->n++;
		skip_blank(s);
		if (s->i >= s->len || s->t[s->i] != '.')
			break;
		s->i++;
	}
	return k->n <= SEGS_MAX ? 0 : fail(s, "a key has too many parts");
}

static int value(struct scan *s, int depth);

/* A number, boolean or date, spelled as TOML spells them. */
static int scalar(struct scan *s)
{
	size_t start = s->i, n;
	const char *w = s->t + start;

	while (s->i < s->len && (bare_char(s->t[s->i]) || strchr("+.:", s->t[s->i])))
		s->i++;
	n = s->i - start;
	/* A date and a time may be parted by one space. */
	if (n == 10 && w[4] == '-' && w[7] == '-' && s->i + 1 < s->len && s->t[s->i] == ' ' &&
	    s->t[s->i + 1] >= '0' && s->t[s->i + 1] <= '9') {
		s->i++;
		while (s->i < s->len && (bare_char(s->t[s->i]) || strchr("+.:", s->t[s->i])))
			s->i++;
		n = s->i - start;
	}
	if (n == 0)
		return fail(s, "a value is expected");
	if ((n == 4 && memcmp(w, "true", 4) == 0) || (n == 5 && memcmp(w, "false", 5) == 0) ||
	    (n == 3 && (memcmp(w, "inf", 3) == 0 || memcmp(w, "nan", 3) == 0)) ||
	    (n == 4 && (w[0] == '+' || w[0] == '-') &&
	     (memcmp(w + 1, "inf", 3) == 0 || memcmp(w + 1, "nan", 3) == 0)))
		return 0;
	if ((w[0] >= '0' && w[0] <= '9') ||
	    ((w[0] == '+' || w[0] == '-') && n > 1 && w[1] >= '0' && w[1] <= '9'))
		return 0;
	return fail(s, "a value is not a string, number, boolean, date, array or table");
}

static int array(struct scan *s, int depth)
{
	int rc;

	s->i++;
	for (;;) {
		skip_space(s);
		if (s->i >= s->len)
			return fail(s, "an array does not end");
		if (s->t[s->i] == ']') {
			s->i++;
			return 0;
		}
		if ((rc = value(s, depth + 1)) < 0)
			return rc;
		skip_space(s);
		if (s->i < s->len && s->t[s->i] == ',')
			s->i++;
		else if (s->i >= s->len || s->t[s->i] != ']')
			return fail(s, "an array needs a comma between its values");
	}
}

static int inline_table(struct scan *s, int depth)
{
	struct keys k;
	int rc;

	s->i++;
	for (;;) {
		skip_space(s);
		if (s->i >= s->len)
			return fail(s, "an inline table does not end");
		if (s->t[s->i] == '}') {
			s->i++;
			return 0;
		}
		if ((rc = dotted_key(s, &k)) < 0)
			return rc;
		skip_blank(s);
		if (s->i >= s->len || s->t[s->i] != '=')
			return fail(s, "a key in an inline table needs '='");
		s->i++;
		skip_blank(s);
		if ((rc = value(s, depth + 1)) < 0)
			return rc;
		skip_space(s);
		if (s->i < s->len && s->t[s->i] == ',')
			s->i++;
		else if (s->i >= s->len || s->t[s->i] != '}')
			return fail(s, "an inline table needs a comma between its keys");
	}
}

static int value(struct scan *s, int depth)
{
	char c;

	if (depth > 64)
		return fail(s, "values are nested too deeply");
	if (s->i >= s->len)
		return fail(s, "a value is expected");
	c = s->t[s->i];
	if ((c == '"' || c == '\'') && s->i + 2 < s->len && s->t[s->i + 1] == c && s->t[s->i + 2] == c)
		return multi_line_string(s);
	if (c == '"' || c == '\'')
		return one_line_string(s, NULL, 0);
	if (c == '[')
		return array(s, depth);
	if (c == '{')
		return inline_table(s, depth);
	return scalar(s);
}

/* Whether the first `n` keys of `a` are the keys of `b` (all of them). */
static bool starts_with(const struct keys *a, size_t n, const struct keys *b)
{
	if (n < b->n || a->n < b->n)
		return false;
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(a->seg[i], b->seg[i]) != 0)
			return false;
	return true;
}

static bool same(const struct keys *a, const struct keys *b)
{
	return a->n == b->n && starts_with(a, a->n, b);
}

static int parse_path(struct keys *k, const char *path, struct sw_error *err)
{
	const char *p = path;

	k->n = 0;
	while (*p) {
		size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-");

		if (n == 0 || n >= SEG_MAX || k->n == SEGS_MAX || (p[n] != '.' && p[n] != '\0'))
			return sw_error_set(err, SW_EINVAL, "\"%s\" is not a path of bare keys", path);
		memcpy(k->seg[k->n], p, n);
		k->seg[k->n++][n] = '\0';
		p += n + (p[n] == '.');
	}
	return k->n > 0 ? 0 : sw_error_set(err, SW_EINVAL, "an empty table path");
}

int sw_toml_find(struct sw_toml_table *out, const char *text, size_t len, const char *path,
		 struct sw_error *err)
{
	struct scan s = { text, len, 0, 1, err };
	struct keys target, parent, table, k;
	bool inside = false;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = parse_path(&target, path, err)) < 0)
		return rc;
	parent = target;
	parent.n--;
	table.n = 0;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		s.i = 3;
	while (s.i < len) {
		size_t line_start = s.i;

		skip_blank(&s);
		if (s.i < len && s.t[s.i] == '#')
			skip_comment(&s);
		if (at_eol(&s)) {
			if (s.i >= len)
				break;
			eat_eol(&s);
			continue;
		}
		if (s.t[s.i] == '\r')
			return fail(&s, "a carriage return without a line feed");
		if (s.t[s.i] == '[') {
			bool many = s.i + 1 < len && s.t[s.i + 1] == '[';

			s.i += many ? 2 : 1;
			if ((rc = dotted_key(&s, &k)) < 0)
				return rc;
			skip_blank(&s);
			if (s.i >= len || s.t[s.i] != ']' || (many && (s.i + 1 >= len || s.t[s.i + 1] != ']')))
				return fail(&s, "a table header does not end with ']'");
			s.i += many ? 2 : 1;
			if ((rc = end_line(&s)) < 0)
				return rc;
			inside = false;
			table = k;
			if (!many && same(&k, &target)) {
				if (out->state != SW_TOML_ABSENT) {
					out->state = SW_TOML_OTHER;
					continue;
				}
				out->state = SW_TOML_HEADER;
				out->start = line_start;
				out->end = s.i;
				inside = true;
			} else if (starts_with(&k, k.n, &target) ||
				   (many && starts_with(&target, target.n, &k))) {
				/* A sub-table under it, or an array of tables
				 * at or above it. */
				out->state = SW_TOML_OTHER;
			}
			continue;
		}
		if ((rc = dotted_key(&s, &k)) < 0)
			return rc;
		skip_blank(&s);
		if (s.i >= len || s.t[s.i] != '=')
			return fail(&s, "a key needs '=' and a value");
		s.i++;
		skip_blank(&s);
		if ((rc = value(&s, 0)) < 0 || (rc = end_line(&s)) < 0)
			return rc;
		{
			struct keys full = table;

			for (size_t j = 0; j < k.n && full.n < SEGS_MAX; j++)
				memcpy(full.seg[full.n++], k.seg[j], SEG_MAX);
			if (inside) {
				out->end = s.i;
			} else if (starts_with(&full, full.n, &target) ||
				   starts_with(&target, target.n, &full) ||
				   (starts_with(&full, full.n, &parent) && table.n < parent.n)) {
				/* Keys under it, a value at it or above it, or
				 * its parent made by dotted keys. */
				out->state = SW_TOML_OTHER;
			}
		}
	}
	return 0;
}

int sw_toml_is(const struct sw_toml_table *t, const char *text, const char *block)
{
	size_t i = t->start, n = strlen(block), j = 0;

	if (t->state != SW_TOML_HEADER)
		return 0;
	for (; i < t->end && j < n; i++, j++) {
		if (text[i] == '\r' && i + 1 < t->end && text[i + 1] == '\n')
			i++;
		if (text[i] != block[j])
			return 0;
	}
	return i == t->end && j == n;
}

static const char *eol_of(const char *text, size_t len)
{
	return sw_memmem(text, len, "\r\n", 2) ? "\r\n" : "\n";
}

static int hand_over(char **out, size_t *out_len, struct sw_buf *b, const char *path,
		     const char *block, enum sw_toml_state want, struct sw_error *err)
{
	struct sw_toml_table t;
	size_t n = b->len;
	char *s = sw_buf_detach(b);

	if (s == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (sw_toml_find(&t, s, n, path, err) < 0 || t.state != want ||
	    (want == SW_TOML_HEADER && !sw_toml_is(&t, s, block))) {
		sw_free(s);
		return sw_error_set(err, SW_EPARSE, "the edited text would not read back as intended");
	}
	*out = s;
	*out_len = n;
	return 0;
}

int sw_toml_add(char **out, size_t *out_len, const char *text, size_t len, const char *path,
		const char *block, struct sw_error *err)
{
	struct sw_buf b = SW_BUF_INIT;
	struct sw_toml_table t;
	const char *eol = eol_of(text, len);
	int rc;

	*out = NULL;
	*out_len = 0;
	if ((rc = sw_toml_find(&t, text, len, path, err)) < 0)
		return rc;
	if (t.state != SW_TOML_ABSENT)
		return sw_error_set(err, SW_EINVAL, "[%s] is there already", path);
	sw_buf_add(&b, text, len);
	if (len > 0 && text[len - 1] != '\n')
		sw_buf_str(&b, eol);
	if (len > 0)
		sw_buf_str(&b, eol);
	for (const char *p = block; *p; p++) {
		if (*p == '\n')
			sw_buf_str(&b, eol);
		else
			sw_buf_ch(&b, *p);
	}
	return hand_over(out, out_len, &b, path, block, SW_TOML_HEADER, err);
}

int sw_toml_remove(char **out, size_t *out_len, const char *text, size_t len, const char *path,
		   const char *block, struct sw_error *err)
{
	struct sw_buf b = SW_BUF_INIT;
	struct sw_toml_table t;
	const char *eol = eol_of(text, len);
	size_t start, el = strlen(eol);
	int rc;

	*out = NULL;
	*out_len = 0;
	if ((rc = sw_toml_find(&t, text, len, path, err)) < 0)
		return rc;
	if (!sw_toml_is(&t, text, block))
		return sw_error_set(err, SW_EINVAL, "[%s] is not the table to remove", path);
	start = t.start;
	/* The blank line sw_toml_add put before it. */
	if (start >= 2 * el && memcmp(text + start - el, eol, el) == 0 &&
	    memcmp(text + start - 2 * el, eol, el) == 0)
		start -= el;
	sw_buf_add(&b, text, start);
	sw_buf_add(&b, text + t.end, len - t.end);
	return hand_over(out, out_len, &b, path, block, SW_TOML_ABSENT, err);
}
