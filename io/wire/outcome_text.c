/* The text rules of Outcome strings (plain text, markdown, non-blank by
 * both Go's and ECMAScript's idea of space), shared with the other host
 * inputs, and the rejections that name the field breaking one.  Never
 * sees an Outcome as a whole. */

#include "io/wire/outcome_internal.h"

#include <string.h>

/* Decodes one code point of valid UTF-8 at s[*i]; returns -1 on bad input. */
static long next_rune(const char *str, size_t len, size_t *i)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[*i];
	size_t need, k;
	long r;

	if (c < 0x80) {
		(*i)++;
		return c;
	}
	if (c >= 0xf0) {
		need = 3;
		r = c & 0x07;
	} else if (c >= 0xe0) {
		need = 2;
		r = c & 0x0f;
	} else if (c >= 0xc0) {
		need = 1;
		r = c & 0x1f;
	} else {
		return -1;
	}
	if (*i + need >= len)
		return -1;
	for (k = 1; k <= need; k++) {
		if ((s[*i + k] & 0xc0) != 0x80)
			return -1;
		r = (r << 6) | (s[*i + k] & 0x3f);
	}
	*i += need + 1;
	return r;
}

static int is_control(long c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

/* Go's unicode.IsSpace. */
static int go_space(long c)
{
	return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 ||
	       c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
	       c == 0x3000;
}

/* ECMAScript \s: WhiteSpace plus LineTerminator. */
static int ecma_space(long c)
{
	return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 ||
	       c == 0xfeff || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
	       c == 0x3000;
}

static int controls_ok(const char *s, size_t len, int markdown)
{
	size_t i = 0;
	long c;

	while (i < len) {
		if ((c = next_rune(s, len, &i)) < 0)
			return 0;
		if (!is_control(c))
			continue;
		if (markdown && (c == '\t' || c == '\n' || c == '\r'))
			continue;
		return 0;
	}
	return 1;
}

int outcome_text_markdown(const char *s, size_t len)
{
	return controls_ok(s, len, 1);
}

int outcome_text_plain(const char *s, size_t len)
{
	return controls_ok(s, len, 0);
}

int outcome_text_nonblank(const char *s, size_t len)
{
	int go_ink = 0, ecma_ink = 0;
	size_t i = 0;
	long c;

	while (i < len) {
		if ((c = next_rune(s, len, &i)) < 0)
			return 0;
		go_ink |= !go_space(c);
		ecma_ink |= !ecma_space(c);
	}
	return go_ink && ecma_ink;
}

/* Rule checks on a NUL-terminated field; `what` names it in the message. */
static int need_markdown(const char *s, const char *what, struct sw_error *err)
{
	if (!outcome_text_markdown(s, strlen(s)))
		return sw_error_proto(err, INVALID, "%s contains a disallowed control character", what);
	return 0;
}

static int need_plain(const char *s, const char *what, struct sw_error *err)
{
	if (!outcome_text_plain(s, strlen(s)))
		return sw_error_proto(err, INVALID, "%s contains a disallowed control character", what);
	return 0;
}

int outcome__need_nonblank_markdown(const char *s, const char *what,
				    struct sw_error *err)
{
	if (!outcome_text_nonblank(s, strlen(s)))
		return sw_error_proto(err, INVALID, "%s is required", what);
	return need_markdown(s, what, err);
}

int outcome__need_nonblank_plain(const char *s, const char *what,
				 struct sw_error *err)
{
	if (!outcome_text_nonblank(s, strlen(s)))
		return sw_error_proto(err, INVALID, "%s is required", what);
	return need_plain(s, what, err);
}

int outcome__need_list(const struct outcome_strings *l, const char *what,
		       int markdown, struct sw_error *err)
{
	size_t i;

	for (i = 0; i < l->len; i++) {
		int ok = markdown ? outcome_text_markdown(l->items[i], strlen(l->items[i])) :
				    outcome_text_plain(l->items[i], strlen(l->items[i]));

		if (!ok)
			return sw_error_proto(err, INVALID,
					      "%s[%zu] contains a disallowed control character",
					      what, i);
	}
	return 0;
}
