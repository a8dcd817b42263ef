/* A token-preserving editor of one object member in JSON text. */

#include "io/util/json_edit.h"

#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/mem.h"

#define BAD ((size_t)-1)

/* One member of an object: its key token and its value, as byte ranges. */
struct member {
	size_t key_start, key_end, value_start, value_end;
};

struct object {
	size_t open, close;	/* the braces */
	struct member *m;
	size_t n;
};

static bool ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const char *t, size_t len, size_t i)
{
	while (i < len && ws(t[i]))
		i++;
	return i;
}

int sw_json_uncomment(char **out, const char *text, size_t len, struct sw_error *err)
{
	char *s = sw_malloc(len + 1);
	size_t i = 0, last_comma = BAD;

	*out = NULL;
	if (s == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	memcpy(s, text, len);
	s[len] = '\0';
	while (i < len) {
		char c = s[i];

		if (c == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			if (i >= len)
				goto bad;
			i++;
			last_comma = BAD;
		} else if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			for (; i < len && s[i] != '\n'; i++)
				s[i] = s[i] == '\r' ? '\r' : ' ';
		} else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			size_t start = i;

			for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
				;
			if (i + 1 >= len)
				goto bad;
			for (i += 2; start < i; start++)
				if (s[start] != '\n' && s[start] != '\r')
					s[start] = ' ';
		} else if (c == ',') {
			last_comma = i++;
		} else if (c == '}' || c == ']') {
			if (last_comma != BAD)
				s[last_comma] = ' ';
			last_comma = BAD;
			i++;
		} else {
			if (!ws(c))
				last_comma = BAD;
			i++;
		}
	}
	*out = s;
	return 0;
bad:
	sw_free(s);
	return sw_error_set(err, SW_EPARSE, "a comment or a string does not end");
}

/* The text as a JSON parser reads it: `text` itself, or for JSONC a copy
 * with the comments blanked (*owned, to be freed).  NULL with err set. */
static const char *readable(char **owned, const char *text, size_t len, enum sw_json_syntax syntax,
			    struct sw_error *err)
{
	*owned = NULL;
	if (syntax == SW_JSON_STRICT)
		return text;
	return sw_json_uncomment(owned, text, len, err) < 0 ? NULL : *owned;
}

/* Past the string token at t[i] ('"'), or BAD. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (t[i] == '\\')
			i++;
		else if (t[i] == '"')
			return i + 1;
	}
	return BAD;
}

/* Past the value at t[i], or BAD.  The text has been parsed by Jansson
 * already, so only where each value ends is found here. */
static size_t skip_value(const char *t, size_t len, size_t i)
{
	size_t depth = 0, start = i;

	if (i >= len)
		return BAD;
	if (t[i] == '"')
		return skip_string(t, len, i);
	if (t[i] != '{' && t[i] != '[') {
		while (i < len && !ws(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']')
			i++;
		return i > start ? i : BAD;
	}
	while (i < len) {
		if (t[i] == '"') {
			if ((i = skip_string(t, len, i)) == BAD)
				return BAD;
			continue;
		}
		if (t[i] == '{' || t[i] == '[')
			depth++;
		else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
			return i + 1;
		i++;
	}
	return BAD;
}

/* The members of the object whose '{' is t[open]. */
static int scan_object(struct object *o, const char *t, size_t len, size_t open)
{
	size_t i = skip_ws(t, len, open + 1);

	memset(o, 0, sizeof(*o));
	o->open = open;
	if (i < len && t[i] == '}') {
		o->close = i;
		return 0;
	}
	while (i < len && t[i] == '"') {
		struct member mb;
		struct member *grown;

		mb.key_start = i;
		if ((mb.key_end = skip_string(t, len, i)) == BAD)
			return SW_EPARSE;
		i = skip_ws(t, len, mb.key_end);
		if (i >= len || t[i] != ':')
			return SW_EPARSE;
		mb.value_start = skip_ws(t, len, i + 1);
		if ((mb.value_end = skip_value(t, len, mb.value_start)) == BAD)
			return SW_EPARSE;
		if ((grown = sw_realloc(o->m, (o->n + 1) * sizeof(*grown))) == NULL)
			return SW_ENOMEM;
		o->m = grown;
		o->m[o->n++] = mb;
		i = skip_ws(t, len, mb.value_end);
		if (i < len && t[i] == '}') {
			o->close = i;
			return 0;
		}
		if (i >= len || t[i] != ',')
			return SW_EPARSE;
		i = skip_ws(t, len, i + 1);
	}
	return SW_EPARSE;
}

/* 1 when the key token of `mb` decodes to `key`. */
static bool key_is(const char *t, const struct member *mb, const char *key)
{
	json_t *k = json_loadb(t + mb->key_start, mb->key_end - mb->key_start,
			       JSON_DECODE_ANY, NULL);
	bool same = json_is_string(k) && strcmp(json_string_value(k), key) == 0;

	json_decref(k);
	return same;
}

static long find(const struct object *o, const char *t, const char *key)
{
	for (size_t i = 0; i < o->n; i++)
		if (key_is(t, &o->m[i], key))
			return (long)i;
	return -1;
}

/* The object at `path`. */
static int locate(struct object *o, const char *t, size_t len, const char *const *path,
		  size_t depth, struct sw_error *err)
{
	size_t open = skip_ws(t, len, 0);
	int rc;

	memset(o, 0, sizeof(*o));
	if (open >= len || t[open] != '{')
		return sw_error_set(err, SW_EPARSE, "the document is not a JSON object");
	for (size_t d = 0;; d++) {
		long k;

		if ((rc = scan_object(o, t, len, open)) < 0) {
			sw_free(o->m);
			o->m = NULL;
			return rc == SW_ENOMEM ? sw_error_set(err, SW_ENOMEM, "out of memory")
					       : sw_error_set(err, SW_EPARSE, "the document cannot be followed");
		}
		if (d == depth)
			return 0;
		k = find(o, t, path[d]);
		if (k < 0 || t[o->m[k].value_start] != '{') {
			sw_free(o->m);
			o->m = NULL;
			return sw_error_set(err, SW_EINVAL, "\"%s\" is no object member", path[d]);
		}
		open = o->m[k].value_start;
		sw_free(o->m);
		o->m = NULL;
	}
}

/* The original document with the same edit made through Jansson, and the
 * edited text parsed, must encode alike (keys in order, every number as it
 * parsed): else SW_EPARSE.  `value` NULL removes. */
static int check(const char *orig, size_t olen, const char *neu, size_t nlen,
		 enum sw_json_syntax syntax, const char *const *path, size_t depth, const char *key,
		 const json_t *value, struct sw_error *err)
{
	json_error_t jerr;
	json_t *a = NULL, *b = NULL, *obj;
	char *sa = NULL, *sb = NULL, *oc = NULL, *nc = NULL;
	int rc = 0;

	if ((orig = readable(&oc, orig, olen, syntax, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	obj = a = json_loadb(orig, olen, JSON_REJECT_DUPLICATES, &jerr);
	if (a == NULL) {
		rc = sw_error_set(err, SW_EPARSE, "it cannot be read as JSON (%s)", jerr.text);
		goto out;
	}
	if (!json_is_object(a)) {
		rc = sw_error_set(err, SW_EPARSE, "it is not a JSON object");
		goto out;
	}
	for (size_t d = 0; d < depth && json_is_object(obj); d++)
		obj = json_object_get(obj, path[d]);
	if (!json_is_object(obj) || (value && json_object_get(obj, key) != NULL) ||
	    (!value && json_object_get(obj, key) == NULL)) {
		rc = sw_error_set(err, SW_EINVAL, "the member to edit is not where it should be");
		goto out;
	}
	if (neu == NULL)
		goto out;	/* only the original was to be checked */
	if ((value ? json_object_set(obj, key, (json_t *)value) : json_object_del(obj, key)) < 0 ||
	    (sa = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((neu = readable(&nc, neu, nlen, syntax, err)) == NULL ||
	    (b = json_loadb(neu, nlen, JSON_REJECT_DUPLICATES, &jerr)) == NULL ||
	    (sb = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY)) == NULL || strcmp(sa, sb) != 0)
		rc = sw_error_set(err, SW_EPARSE, "its edited text would not read back exactly");
out:
	sw_free(oc);
	sw_free(nc);
	sw_free(sa);
	sw_free(sb);
	json_decref(a);
	json_decref(b);
	return rc;
}

/* Layout of the lines written: each starts with `ind`, then `unit` once
 * per level of nesting; `eol` ends them. */
struct layout {
	const char *ind, *unit, *eol;
	size_t ind_len, unit_len;
};

/* `v` encoded one level per line in layout `l` when `lines`, else on one
 * line (compact when `tight`). */
static void put_value(struct sw_buf *b, const json_t *v, bool lines, bool tight,
		      const struct layout *l)
{
	size_t flags = JSON_ENCODE_ANY | (lines ? JSON_INDENT(1) : tight ? JSON_COMPACT : 0);
	char *text = json_dumps(v, flags);

	if (text == NULL) {
		b->failed = 1;
		return;
	}
	for (const char *p = text; *p; p++) {
		if (*p != '\n') {
			sw_buf_ch(b, *p);
			continue;
		}
		sw_buf_str(b, l->eol);
		sw_buf_add(b, l->ind, l->ind_len);
		/* JSON_INDENT(1): one space per level, strings hold no raw
		 * line end. */
		for (; p[1] == ' '; p++)
			sw_buf_add(b, l->unit, l->unit_len);
	}
	sw_free(text);
}

/* The spaces and tabs that start the line holding t[at]. */
static void line_indent(const char *t, size_t at, size_t *start, size_t *n)
{
	size_t ls = at;

	while (ls > 0 && t[ls - 1] != '\n')
		ls--;
	*start = ls;
	for (*n = 0; ls + *n < at && (t[ls + *n] == ' ' || t[ls + *n] == '\t'); (*n)++)
		;
}

static int finish(char **out, size_t *out_len, struct sw_buf *b, const char *text, size_t len,
		  enum sw_json_syntax syntax, const char *const *path, size_t depth, const char *key,
		  const json_t *value, struct sw_error *err)
{
	size_t n = b->len;
	char *s = sw_buf_detach(b);
	int rc;

	if (s == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if ((rc = check(text, len, s, n, syntax, path, depth, key, value, err)) < 0) {
		sw_free(s);
		return rc;
	}
	*out = s;
	*out_len = n;
	return 0;
}

/* 1 when text[a, b) holds a comment (differs from the readable copy). */
static bool commented(const char *text, const char *t, size_t a, size_t b)
{
	return b > a && memcmp(text + a, t + a, b - a) != 0;
}

int sw_json_edit_add(char **out, size_t *out_len, const char *text, size_t len,
		     enum sw_json_syntax syntax, const char *const *path, size_t depth,
		     const char *key, const json_t *value, struct sw_error *err)
{
	struct sw_buf b = SW_BUF_INIT;
	struct object o = { 0 };
	json_t *kv = json_string(key);
	char *key_json = kv ? json_dumps(kv, JSON_ENCODE_ANY) : NULL, *owned = NULL;
	const char *eol = sw_memmem(text, len, "\r\n", 2) ? "\r\n" : "\n";
	const char *t;		/* the text as read: layout is taken from it */
	size_t base = 0, base_len = 0;
	int rc;

	*out = NULL;
	*out_len = 0;
	json_decref(kv);
	if (key_json == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if ((rc = check(text, len, NULL, 0, syntax, path, depth, key, value, err)) < 0)
		goto out;
	if ((t = readable(&owned, text, len, syntax, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = locate(&o, t, len, path, depth, err)) < 0)
		goto out;
	line_indent(t, o.open, &base, &base_len);
	if (o.n > 0) {
		const struct member *first = &o.m[0], *last = &o.m[o.n - 1];
		const char *gap = t + o.open + 1, *nl;
		size_t gap_len = first->key_start - (o.open + 1);
		const char *colon = t + first->key_end;
		size_t colon_len = first->value_start - first->key_end;
		bool lines = (nl = sw_memrchr(gap, '\n', gap_len)) != NULL;
		struct layout l = { "", "  ", eol, 0, 2 };

		if (lines) {
			l.ind = nl + 1;
			l.ind_len = (size_t)(gap + gap_len - l.ind);
			/* One level deeper than the object's line, as the
			 * members are. */
			if (l.ind_len > base_len && memcmp(l.ind, t + base, base_len) == 0) {
				l.unit = l.ind + base_len;
				l.unit_len = l.ind_len - base_len;
			}
		}
		sw_buf_add(&b, text, last->value_end);
		if (o.n > 1 && !commented(text, t, o.m[o.n - 2].value_end, last->key_start)) {
			const struct member *prev = &o.m[o.n - 2];

			sw_buf_add(&b, t + prev->value_end, last->key_start - prev->value_end);
		} else {
			/* The separator a member after the first has; one with
			 * a comment in it is not copied. */
			sw_buf_ch(&b, ',');
			if (lines)
				sw_buf_str(&b, nl > gap && nl[-1] == '\r' ? "\r\n" : "\n");
			sw_buf_add(&b, l.ind, l.ind_len);
			if (!lines)
				sw_buf_add(&b, gap, gap_len);
		}
		sw_buf_str(&b, key_json);
		sw_buf_add(&b, colon, colon_len);
		put_value(&b, value, lines, memchr(colon, ' ', colon_len) == NULL, &l);
		sw_buf_add(&b, text + last->value_end, len - last->value_end);
	} else {
		struct sw_buf ind = SW_BUF_INIT;
		const char *unit = memchr(t + base, '\t', base_len) ? "\t" : "  ";
		struct layout l = { NULL, unit, eol, 0, strlen(unit) };
		size_t keep = o.open + 1;

		/* A comment inside the empty object stays, before the member. */
		if (commented(text, t, o.open + 1, o.close))
			for (keep = o.close; keep > o.open + 1 && ws(text[keep - 1]); keep--)
				;
		sw_buf_add(&ind, t + base, base_len);
		sw_buf_str(&ind, unit);
		l.ind = ind.p ? ind.p : "";
		l.ind_len = ind.len;
		sw_buf_add(&b, text, keep);
		sw_buf_str(&b, eol);
		sw_buf_add(&b, l.ind, l.ind_len);
		sw_buf_str(&b, key_json);
		sw_buf_str(&b, ": ");
		put_value(&b, value, true, false, &l);
		sw_buf_str(&b, eol);
		sw_buf_add(&b, t + base, base_len);
		sw_buf_add(&b, text + o.close, len - o.close);
		if (ind.failed)
			b.failed = 1;
		sw_buf_release(&ind);
	}
	rc = finish(out, out_len, &b, text, len, syntax, path, depth, key, value, err);
out:
	sw_buf_release(&b);
	sw_free(o.m);
	sw_free(owned);
	sw_free(key_json);
	return rc;
}

/* Where the comma at or after t[i] is, or BAD. */
static size_t comma_at_or_after(const char *t, size_t len, size_t i)
{
	for (; i < len && t[i] != ','; i++)
		if (!ws(t[i]))
			return BAD;
	return i < len ? i : BAD;
}

int sw_json_edit_remove(char **out, size_t *out_len, const char *text, size_t len,
			enum sw_json_syntax syntax, const char *const *path, size_t depth,
			const char *key, struct sw_error *err)
{
	struct sw_buf b = SW_BUF_INIT;
	struct object o = { 0 };
	char *owned = NULL;
	const char *t;
	long k;
	int rc;

	*out = NULL;
	*out_len = 0;
	if ((rc = check(text, len, NULL, 0, syntax, path, depth, key, NULL, err)) < 0)
		goto out;
	if ((t = readable(&owned, text, len, syntax, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = locate(&o, t, len, path, depth, err)) < 0)
		goto out;
	if ((k = find(&o, t, key)) < 0) {
		rc = sw_error_set(err, SW_EINVAL, "\"%s\" is not a member", key);
		goto out;
	}
	{
		const struct member *m = &o.m[k];
		/* The bytes the exact removal takes besides the member. */
		size_t from = o.n == 1 ? o.open + 1 : k > 0 ? o.m[k - 1].value_end : m->key_start;
		size_t to = o.n == 1 ? o.close : k > 0 ? m->value_end : o.m[1].key_start;

		if (commented(text, t, from, m->key_start) || commented(text, t, m->value_end, to)) {
			/* Comments around the member stay: only the member and
			 * one comma go. */
			size_t c = k > 0 ? comma_at_or_after(t, len, o.m[k - 1].value_end)
				   : o.n > 1 ? comma_at_or_after(t, len, m->value_end) : BAD;

			if (k > 0 && c != BAD) {
				sw_buf_add(&b, text, c);
				sw_buf_add(&b, text + c + 1, m->key_start - (c + 1));
				sw_buf_add(&b, text + m->value_end, len - m->value_end);
			} else if (c != BAD) {
				sw_buf_add(&b, text, m->key_start);
				sw_buf_add(&b, text + c + 1, len - (c + 1));
			} else {
				sw_buf_add(&b, text, m->key_start);
				sw_buf_add(&b, text + m->value_end, len - m->value_end);
			}
		} else if (o.n == 1) {
			sw_buf_add(&b, text, o.open + 1);
			sw_buf_add(&b, text + o.close, len - o.close);
		} else if (k > 0) {
			sw_buf_add(&b, text, o.m[k - 1].value_end);
			sw_buf_add(&b, text + m->value_end, len - m->value_end);
		} else {
			sw_buf_add(&b, text, m->key_start);
			sw_buf_add(&b, text + o.m[1].key_start, len - o.m[1].key_start);
		}
	}
	rc = finish(out, out_len, &b, text, len, syntax, path, depth, key, NULL, err);
out:
	sw_buf_release(&b);
	sw_free(o.m);
	sw_free(owned);
	return rc;
}
