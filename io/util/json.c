/* Strict JSON intake (size, UTF-8, one value, no duplicate keys), the
 * encoder shared by io/, and the loader of slipway's own JSON.  See
 * io/util/json.h. */

#include "io/util/json.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

size_t sw_utf8_seq(const unsigned char *s, size_t left)
{
	unsigned c = s[0], cp;
	size_t need;

	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (left <= need)
		return 0;
	for (size_t k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

int sw_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((n = sw_utf8_seq(s + i, len - i)) == 0)
			return 0;
		i += n;
	}
	return 1;
}

/* The `len` bytes at `str` with each byte that starts no valid UTF-8
 * sequence replaced by the 3 bytes at `repl`; sw_malloc'd, or NULL. */
static char *replace_invalid(const char *str, size_t len, const char *repl, size_t *out_len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0, o = 0;
	char *out;

	for (size_t i = 0; i < len;) {
		size_t k = s[i] < 0x80 ? 1 : sw_utf8_seq(s + i, len - i);

		n += k ? k : 3;
		i += k ? k : 1;
	}
	if ((out = sw_malloc(n + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t k = s[i] < 0x80 ? 1 : sw_utf8_seq(s + i, len - i);

		memcpy(out + o, k ? str + i : repl, k ? k : 3);
		o += k ? k : 3;
		i += k ? k : 1;
	}
	out[o] = '\0';
	if (out_len)
		*out_len = o;
	return out;
}

char *sw_utf8_lossy(const char *str, size_t len, size_t *out_len)
{
	return replace_invalid(str, len, "\xef\xbf\xbd", out_len);
}

json_t *sw_json_text(const char *s)
{
	return s ? json_stringn_nocheck(s, strlen(s)) : NULL;
}

json_t *sw_json_strings(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int sw_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads the 4 hex digits after "\u" at p[0..5]; -1 if p is not such an escape. */
static long escape_at(const char *p, size_t left)
{
	long v = 0;

	if (left < 6 || p[0] != '\\' || p[1] != 'u')
		return -1;
	for (int k = 2; k < 6; k++) {
		int h = sw_hex_digit((unsigned char)p[k]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* Rewrites, in place, every escaped lone surrogate inside string literals to
 * \ufffd (same length).  Malformed text is left for the parser to reject. */
static void neutralise_lone_surrogates(char *s, size_t len)
{
	int in_string = 0;
	size_t i = 0;

	while (i < len) {
		if (!in_string) {
			if (s[i] == '"')
				in_string = 1;
			i++;
			continue;
		}
		if (s[i] == '"') {
			in_string = 0;
			i++;
			continue;
		}
		if (s[i] != '\\') {
			i++;
			continue;
		}
		long v = escape_at(s + i, len - i);

		if (v < 0) {
			i += 2;
			continue;
		}
		if (v >= 0xd800 && v <= 0xdbff) {
			long lo = escape_at(s + i + 6, len - i - 6);

			if (lo >= 0xdc00 && lo <= 0xdfff) {
				i += 12;
				continue;
			}
			memcpy(s + i, "\\ufffd", 6);
		} else if (v >= 0xdc00 && v <= 0xdfff) {
			memcpy(s + i, "\\ufffd", 6);
		}
		i += 6;
	}
}

static int load_strict(struct json_t **out, const char *buf, size_t len,
		       size_t limit, size_t flags, struct sw_error *err)
{
	json_error_t jerr;
	char *copy = NULL;
	json_t *v = NULL;
	unsigned long failures;
	size_t i;
	int rc = 0;

	*out = NULL;
	if (len > limit) {
		rc = sw_error_set(err, SW_ETOOBIG,
				  "input exceeds %zu bytes", limit);
		goto out;
	}
	if (!sw_utf8_valid(buf, len)) {
		rc = sw_error_set(err, SW_EPARSE, "input is not valid UTF-8");
		goto out;
	}
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		rc = sw_error_set(err, SW_EPARSE,
				  "input must not start with a UTF-8 byte order mark");
		goto out;
	}
	for (i = 0; i < len; i++)
		if (!strchr(" \t\r\n", buf[i]))
			break;
	if (i == len) {
		rc = sw_error_set(err, SW_EPARSE, "input is empty");
		goto out;
	}
	if ((copy = sw_strndup(buf, len)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot copy input");
		goto out;
	}
	neutralise_lone_surrogates(copy, len);
	failures = sw_alloc_failures();
	v = json_loadb(copy, len,
		       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | flags, &jerr);
	/* Jansson's lexer ignores some allocation failures and goes on with a
	 * shortened token, so any failure during the parse is ENOMEM, whatever
	 * the parser made of it. */
	if (sw_alloc_failures() != failures) {
		json_decref(v);
		v = NULL;
		rc = sw_error_set(err, SW_ENOMEM, "cannot parse JSON: out of memory");
		goto out;
	}
	if (v == NULL && json_error_code(&jerr) == json_error_out_of_memory) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot parse JSON: out of memory");
		goto out;
	}
	if (v == NULL) {
		rc = sw_error_set(err, SW_EPARSE, "malformed JSON at byte %d: %s",
				  jerr.position, jerr.text);
		goto out;
	}
	*out = v;
out:
	sw_free(copy);
	return rc;
}

int sw_json_load_strict(struct json_t **out, const char *buf, size_t len,
			size_t limit, struct sw_error *err)
{
	return load_strict(out, buf, len, limit, 0, err);
}

int sw_json_load_strict_nul(struct json_t **out, const char *buf, size_t len,
			    size_t limit, struct sw_error *err)
{
	return load_strict(out, buf, len, limit, JSON_ALLOW_NUL, err);
}

/* Rewrites Jansson's compact text `in` (`*len` bytes, sw_malloc'd) into the
 * bytes Go's encoder writes for the same value: \u escapes with lowercase
 * hex, U+2028 and U+2029 always escaped, and with `html` also < > & as
 * \u003c \u003e \u0026.  Outside strings none of these bytes occur, so only
 * escape sequences need skipping.  Returns `in` itself when only hex case
 * changed (in place), a new buffer (freeing `in`), or NULL on ENOMEM. */
static char *go_escapes(char *in, size_t *len, int html)
{
	static const char hex[] = "0123456789abcdef";
	size_t extra = 0, n = *len, k = 0;
	char *out;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '\\') {
			if (i + 1 < n && in[i + 1] == 'u')
				for (size_t h = i + 2; h < i + 6 && h < n; h++)
					if (in[h] >= 'A' && in[h] <= 'F')
						in[h] = (char)(in[h] - 'A' + 'a');
			i += in[i + 1] == 'u' ? 5 : 1;
		} else if (c == 0xe2 && i + 2 < n && (unsigned char)in[i + 1] == 0x80 &&
			   ((unsigned char)in[i + 2] & 0xfe) == 0xa8) {
			extra += 3;
			i += 2;
		} else if (html && (c == '<' || c == '>' || c == '&')) {
			extra += 5;
		}
	}
	if (extra == 0)
		return in;
	if ((out = sw_malloc(n + extra + 1)) == NULL) {
		sw_free(in);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '\\') {
			size_t m = in[i + 1] == 'u' ? 6 : 2;

			memcpy(out + k, in + i, m);
			k += m;
			i += m - 1;
		} else if (c == 0xe2 && i + 2 < n && (unsigned char)in[i + 1] == 0x80 &&
			   ((unsigned char)in[i + 2] & 0xfe) == 0xa8) {
			memcpy(out + k, (unsigned char)in[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
			k += 6;
			i += 2;
		} else if (html && (c == '<' || c == '>' || c == '&')) {
			memcpy(out + k, "\\u00", 4);
			out[k + 4] = hex[c >> 4];
			out[k + 5] = hex[c & 0xf];
			k += 6;
		} else {
			out[k++] = (char)c;
		}
	}
	out[k] = '\0';
	sw_free(in);
	*len = k;
	return out;
}

/* Jansson's dumper refuses a string or key that is not valid UTF-8.  The
 * oracle then dumps a copy in which each byte that starts no valid
 * sequence is a private-use code point (U+E000..U+F8FF) found nowhere in
 * the value, and writes that code point's three bytes in the output as
 * \ufffd, Go's replacement.  Outside strings the output is ASCII, so the
 * swap is exact. */
#define ORACLE_MAX_DEPTH 4096
#define PUA_FIRST 0xe000u
#define PUA_COUNT 0x1900u

struct pua_scan {
	unsigned char used[PUA_COUNT / 8];
	int invalid;
};

static void scan_text(struct pua_scan *m, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n;) {
		size_t k = s[i] < 0x80 ? 1 : sw_utf8_seq(s + i, n - i);

		if (k == 0) {
			m->invalid = 1;
			i++;
			continue;
		}
		if (k == 3) {
			unsigned cp = (s[i] & 0x0fu) << 12 | (s[i + 1] & 0x3fu) << 6 | (s[i + 2] & 0x3fu);

			if (cp >= PUA_FIRST && cp < PUA_FIRST + PUA_COUNT)
				m->used[(cp - PUA_FIRST) / 8] |= (unsigned char)(1u << ((cp - PUA_FIRST) % 8));
		}
		i += k;
	}
}

/* -1 past ORACLE_MAX_DEPTH (deep, or a cycle: left to Jansson). */
static int scan_value(struct pua_scan *m, const json_t *v, int depth)
{
	if (depth > ORACLE_MAX_DEPTH)
		return -1;
	if (json_is_string(v)) {
		scan_text(m, json_string_value(v), json_string_length(v));
	} else if (json_is_array(v)) {
		for (size_t i = 0, n = json_array_size(v); i < n; i++)
			if (scan_value(m, json_array_get(v, i), depth + 1) < 0)
				return -1;
	} else if (json_is_object(v)) {
		for (void *it = json_object_iter((json_t *)v); it;
		     it = json_object_iter_next((json_t *)v, it)) {
			scan_text(m, json_object_iter_key(it), json_object_iter_key_len(it));
			if (scan_value(m, json_object_iter_value(it), depth + 1) < 0)
				return -1;
		}
	}
	return 0;
}

static json_t *marked_value(const json_t *v, const char *mark)
{
	json_t *c = NULL;
	char *t;
	size_t n;

	if (json_is_string(v)) {
		if ((t = replace_invalid(json_string_value(v), json_string_length(v), mark, &n)) != NULL)
			c = json_stringn_nocheck(t, n);
		sw_free(t);
	} else if (json_is_array(v)) {
		c = json_array();
		for (size_t i = 0, m = json_array_size(v); c && i < m; i++)
			if (json_array_append_new(c, marked_value(json_array_get(v, i), mark)) < 0) {
				json_decref(c);
				c = NULL;
			}
	} else if (json_is_object(v)) {
		c = json_object();
		for (void *it = json_object_iter((json_t *)v); c && it;
		     it = json_object_iter_next((json_t *)v, it)) {
			t = replace_invalid(json_object_iter_key(it), json_object_iter_key_len(it), mark, &n);
			if (t == NULL || json_object_setn_new_nocheck(c, t, n,
					marked_value(json_object_iter_value(it), mark)) < 0) {
				json_decref(c);
				c = NULL;
			}
			sw_free(t);
		}
	} else {
		c = json_incref((json_t *)v);
	}
	return c;
}

/* Jansson's compact dump of `v` after go_escapes, or NULL. */
static char *jansson_dump(const json_t *v, int html)
{
	char *out = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	size_t len;

	if (out == NULL)
		return NULL;
	len = strlen(out);
	return go_escapes(out, &len, html);
}

/* `v` through a copy in which the invalid bytes are a marker (`m`: the
 * scan of `v`), or NULL. */
static char *oracle_marked(const json_t *v, const struct pua_scan *m, int html)
{
	char mark[4], *out = NULL, *fin;
	json_t *copy;
	unsigned cp = 0;
	size_t k = 0;

	while (cp < PUA_COUNT && (m->used[cp / 8] & (1u << (cp % 8))))
		cp++;
	if (cp == PUA_COUNT)
		return NULL;
	cp += PUA_FIRST;
	mark[0] = (char)(0xe0 | (cp >> 12));
	mark[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	mark[2] = (char)(0x80 | (cp & 0x3f));
	mark[3] = '\0';
	if ((copy = marked_value(v, mark)) != NULL)
		out = jansson_dump(copy, html);
	json_decref(copy);
	if (out == NULL || (fin = sw_malloc(2 * strlen(out) + 1)) == NULL) {
		sw_free(out);
		return NULL;
	}
	for (const char *p = out; *p;) {
		if (strncmp(p, mark, 3) == 0) {
			memcpy(fin + k, "\\ufffd", 6);
			k += 6;
			p += 3;
		} else {
			fin[k++] = *p++;
		}
	}
	fin[k] = '\0';
	sw_free(out);
	return fin;
}

/* The oracle: Jansson's compact dumper, then go_escapes.  sw_json_dump's
 * own encoder falls back to it for what it does not write itself.  (For
 * a key that is not UTF-8 Jansson writes a truncated key instead of
 * failing, so the scan comes first.) */
char *sw_json_dump_jansson(const struct json_t *v, int html)
{
	unsigned long failures = sw_alloc_failures();
	struct pua_scan m;
	char *out;

	memset(&m, 0, sizeof(m));
	if (scan_value(&m, v, 0) == 0 && m.invalid)
		out = oracle_marked(v, &m, html);
	else
		out = jansson_dump(v, html);
	/* The dumper, too, can drop bytes when a buffer cannot grow. */
	if (out != NULL && sw_alloc_failures() != failures) {
		sw_free(out);
		out = NULL;
	}
	return out;
}

/* ---- the one-pass encoder ---- */

/* Nesting deeper than this goes to the oracle, which also finds cycles. */
#define ENC_MAX_DEPTH 512

enum enc_status { ENC_OK, ENC_NOMEM, ENC_FALLBACK };

struct enc {
	char *p;
	size_t len, cap;
	int html;
};

/* What a byte needs inside a string: nothing (copied as it is), an
 * escape (E), an escape with HTML escaping on (H: < > &), or the check of
 * the multi-byte sequence it leads (M; U+2028 and U+2029 are escaped). */
enum { E = 1, H = 2, M = 4 };
static const unsigned char byte_class[256] = {
	E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E,
	E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E,
	0, 0, E, 0, 0, 0, H, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, H, 0, H, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, E, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
};

static int enc_reserve(struct enc *e, size_t more)
{
	size_t cap = e->cap ? e->cap : 256;
	char *p;

	if (e->cap - e->len > more)
		return 0;
	while (cap - e->len <= more) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	if ((p = sw_realloc(e->p, cap)) == NULL)
		return -1;
	e->p = p;
	e->cap = cap;
	return 0;
}

static int enc_add(struct enc *e, const char *s, size_t n)
{
	if (enc_reserve(e, n) < 0)
		return -1;
	memcpy(e->p + e->len, s, n);
	e->len += n;
	return 0;
}

/* A string or key: exactly what Jansson writes after go_escapes, and for
 * a byte that is not valid UTF-8 what Go writes (\ufffd). */
static enum enc_status enc_string(struct enc *e, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	const unsigned mask = e->html ? (E | H | M) : (E | M);
	size_t i = 0, run;

	/* Room for the quotes and the longest escape of one byte. */
	if (enc_reserve(e, n + 2) < 0)
		return ENC_NOMEM;
	e->p[e->len++] = '"';
	while (i < n) {
		unsigned c;

		for (run = i; run < n && (byte_class[s[run]] & mask) == 0; run++)
			;
		if (run > i) {
			if (enc_add(e, str + i, run - i) < 0)
				return ENC_NOMEM;
			i = run;
			if (i == n)
				break;
		}
		c = s[i];
		if (enc_reserve(e, 8) < 0)
			return ENC_NOMEM;
		if (byte_class[c] & M) {
			size_t k = sw_utf8_seq(s + i, n - i);

			if (k == 0) {
				/* Go writes each byte that starts no valid
				 * sequence as the escape of U+FFFD. */
				memcpy(e->p + e->len, "\\ufffd", 6);
				e->len += 6;
				i++;
				continue;
			}
			if (k == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] & 0xfe) == 0xa8) {
				memcpy(e->p + e->len, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
				e->len += 6;
			} else {
				memcpy(e->p + e->len, s + i, k);
				e->len += k;
			}
			i += k;
			continue;
		}
		e->p[e->len++] = '\\';
		switch (c) {
		case '"': e->p[e->len++] = '"'; break;
		case '\\': e->p[e->len++] = '\\'; break;
		case '\b': e->p[e->len++] = 'b'; break;
		case '\f': e->p[e->len++] = 'f'; break;
		case '\n': e->p[e->len++] = 'n'; break;
		case '\r': e->p[e->len++] = 'r'; break;
		case '\t': e->p[e->len++] = 't'; break;
		default:
			memcpy(e->p + e->len, "u00", 3);
			e->p[e->len + 3] = hex[c >> 4];
			e->p[e->len + 4] = hex[c & 0xf];
			e->len += 5;
			break;
		}
		i++;
	}
	if (enc_add(e, "\"", 1) < 0)
		return ENC_NOMEM;
	return ENC_OK;
}

static int enc_integer(struct enc *e, json_int_t v)
{
	char buf[24];
	size_t k = sizeof(buf);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	do {
		buf[--k] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		buf[--k] = '-';
	return enc_add(e, buf + k, sizeof(buf) - k);
}

static enum enc_status enc_value(struct enc *e, const json_t *v, int depth)
{
	enum enc_status st;

	if (depth > ENC_MAX_DEPTH)
		return ENC_FALLBACK;
	switch (json_typeof(v)) {
	case JSON_NULL:
		return enc_add(e, "null", 4) < 0 ? ENC_NOMEM : ENC_OK;
	case JSON_TRUE:
		return enc_add(e, "true", 4) < 0 ? ENC_NOMEM : ENC_OK;
	case JSON_FALSE:
		return enc_add(e, "false", 5) < 0 ? ENC_NOMEM : ENC_OK;
	case JSON_INTEGER:
		return enc_integer(e, json_integer_value(v)) < 0 ? ENC_NOMEM : ENC_OK;
	case JSON_REAL:
		return ENC_FALLBACK;
	case JSON_STRING:
		return enc_string(e, json_string_value(v), json_string_length(v));
	case JSON_ARRAY:
		if (enc_add(e, "[", 1) < 0)
			return ENC_NOMEM;
		for (size_t i = 0, n = json_array_size(v); i < n; i++) {
			if (i > 0 && enc_add(e, ",", 1) < 0)
				return ENC_NOMEM;
			if ((st = enc_value(e, json_array_get(v, i), depth + 1)) != ENC_OK)
				return st;
		}
		return enc_add(e, "]", 1) < 0 ? ENC_NOMEM : ENC_OK;
	case JSON_OBJECT: {
		void *it = json_object_iter((json_t *)v);

		if (enc_add(e, "{", 1) < 0)
			return ENC_NOMEM;
		for (int first = 1; it != NULL; it = json_object_iter_next((json_t *)v, it), first = 0) {
			if (!first && enc_add(e, ",", 1) < 0)
				return ENC_NOMEM;
			if ((st = enc_string(e, json_object_iter_key(it), json_object_iter_key_len(it))) != ENC_OK)
				return st;
			if (enc_add(e, ":", 1) < 0)
				return ENC_NOMEM;
			if ((st = enc_value(e, json_object_iter_value(it), depth + 1)) != ENC_OK)
				return st;
		}
		return enc_add(e, "}", 1) < 0 ? ENC_NOMEM : ENC_OK;
	}
	}
	return ENC_FALLBACK;
}

/* Writes the bytes of sw_json_dump_jansson in one pass over the value;
 * what it does not write itself (a real number, nesting past
 * ENC_MAX_DEPTH) goes to that oracle whole. */
static char *dump(const struct json_t *v, int html)
{
	struct enc e = { NULL, 0, 0, html };
	enum enc_status st = enc_value(&e, v, 0);

	if (st == ENC_OK && enc_add(&e, "", 1) == 0)
		return e.p;
	sw_free(e.p);
	return st == ENC_FALLBACK ? sw_json_dump_jansson(v, html) : NULL;
}

char *sw_json_dump(const struct json_t *v)
{
	return dump(v, 0);
}

char *sw_json_dump_html(const struct json_t *v)
{
	return dump(v, 1);
}

/* ---- the loader of slipway's own JSON ---- */

struct own {
	const char *p, *end;
	char *tmp;		/* a string's unescaped bytes */
	size_t cap;
};

static void own_space(struct own *o)
{
	while (o->p < o->end && (*o->p == ' ' || *o->p == '\t' || *o->p == '\n' || *o->p == '\r'))
		o->p++;
}

/* The string whose opening quote o->p is past: its bytes in *s, *n (in
 * the text itself when it holds no escape, else in o->tmp).  0, or -1 for
 * what json_loadb would reject (or this loader does not take: \u0000). */
static int own_string(struct own *o, const char **s, size_t *n)
{
	const char *start = o->p, *q = start;
	size_t k = 0;

	while (q < o->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
		q++;
	if (q >= o->end || (unsigned char)*q < 0x20)
		return -1;
	if (*q == '"') {
		if (!sw_utf8_valid(start, (size_t)(q - start)))
			return -1;
		*s = start;
		*n = (size_t)(q - start);
		o->p = q + 1;
		return 0;
	}
	/* Escapes: each sequence is at least as long as what it stands for. */
	{
		const char *close = q;

		while (close < o->end && *close != '"')
			close += *close == '\\' ? 2 : 1;
		if (close >= o->end)
			return -1;
		if ((size_t)(close - start) + 1 > o->cap) {
			char *t = sw_realloc(o->tmp, (size_t)(close - start) + 1);

			if (t == NULL)
				return -1;
			o->tmp = t;
			o->cap = (size_t)(close - start) + 1;
		}
	}
	for (q = start; *q != '"';) {
		unsigned char c = (unsigned char)*q;
		long u, lo;

		if (c < 0x20)
			return -1;
		if (c != '\\') {
			o->tmp[k++] = (char)c;
			q++;
			continue;
		}
		switch (q[1]) {
		case '"': case '\\': case '/':
			o->tmp[k++] = q[1];
			break;
		case 'b': o->tmp[k++] = '\b'; break;
		case 'f': o->tmp[k++] = '\f'; break;
		case 'n': o->tmp[k++] = '\n'; break;
		case 'r': o->tmp[k++] = '\r'; break;
		case 't': o->tmp[k++] = '\t'; break;
		case 'u':
			if ((u = escape_at(q, (size_t)(o->end - q))) <= 0)
				return -1;
			if (u >= 0xdc00 && u <= 0xdfff)
				return -1;
			if (u >= 0xd800 && u <= 0xdbff) {
				lo = escape_at(q + 6, (size_t)(o->end - q - 6));
				if (lo < 0xdc00 || lo > 0xdfff)
					return -1;
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				q += 6;
			}
			if (u < 0x80) {
				o->tmp[k++] = (char)u;
			} else if (u < 0x800) {
				o->tmp[k++] = (char)(0xc0 | (u >> 6));
				o->tmp[k++] = (char)(0x80 | (u & 0x3f));
			} else if (u < 0x10000) {
				o->tmp[k++] = (char)(0xe0 | (u >> 12));
				o->tmp[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
				o->tmp[k++] = (char)(0x80 | (u & 0x3f));
			} else {
				o->tmp[k++] = (char)(0xf0 | (u >> 18));
				o->tmp[k++] = (char)(0x80 | ((u >> 12) & 0x3f));
				o->tmp[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
				o->tmp[k++] = (char)(0x80 | (u & 0x3f));
			}
			q += 4;
			break;
		default:
			return -1;
		}
		q += 2;
	}
	if (!sw_utf8_valid(o->tmp, k))
		return -1;
	*s = o->tmp;
	*n = k;
	o->p = q + 1;
	return 0;
}

/* A number as Jansson's grammar has it: an integer (without fraction or
 * exponent, within json_int_t) or a finite real. */
static json_t *own_number(struct own *o)
{
	const char *q = o->p;
	char num[64];
	int real = 0;
	size_t n;

	if (q < o->end && *q == '-')
		q++;
	if (q >= o->end || *q < '0' || *q > '9')
		return NULL;
	if (*q == '0')
		q++;
	else
		while (q < o->end && *q >= '0' && *q <= '9')
			q++;
	if (q < o->end && *q == '.') {
		real = 1;
		if (++q >= o->end || *q < '0' || *q > '9')
			return NULL;
		while (q < o->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < o->end && (*q == 'e' || *q == 'E')) {
		real = 1;
		if (++q < o->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= o->end || *q < '0' || *q > '9')
			return NULL;
		while (q < o->end && *q >= '0' && *q <= '9')
			q++;
	}
	n = (size_t)(q - o->p);
	if (n >= sizeof(num))
		return NULL;	/* longer than anything slipway writes */
	memcpy(num, o->p, n);
	num[n] = '\0';
	o->p = q;
	errno = 0;
	if (!real) {
		long long v = strtoll(num, NULL, 10);

		return errno == ERANGE ? NULL : json_integer((json_int_t)v);
	}
	{
		double d = strtod(num, NULL);

		return errno == ERANGE && (d > 1 || d < -1) ? NULL : json_real(d);
	}
}

/* Deeper than anything slipway writes, and than Jansson allows. */
#define OWN_MAX_DEPTH 512

static json_t *own_value(struct own *o, int depth);

static json_t *own_container(struct own *o, int depth, int object)
{
	json_t *c = object ? json_object() : json_array();

	if (c == NULL)
		return NULL;
	own_space(o);
	if (o->p < o->end && *o->p == (object ? '}' : ']')) {
		o->p++;
		return c;
	}
	for (;;) {
		const char *key = NULL;
		char *kcopy = NULL;
		size_t klen = 0;
		json_t *v;
		int bad;

		if (object) {
			if (o->p >= o->end || *o->p != '"')
				goto fail;
			o->p++;
			if (own_string(o, &key, &klen) < 0 || memchr(key, '\0', klen) != NULL)
				goto fail;
			/* The key may sit in o->tmp, which the value reuses. */
			if (key == o->tmp && (key = kcopy = sw_strndup(key, klen)) == NULL)
				goto fail;
			own_space(o);
			if (o->p >= o->end || *o->p != ':') {
				sw_free(kcopy);
				goto fail;
			}
			o->p++;
			if (json_object_getn(c, key, klen) != NULL) {
				sw_free(kcopy);
				goto fail;	/* a duplicate key */
			}
		}
		v = own_value(o, depth + 1);
		bad = v == NULL || (object ? json_object_setn_new_nocheck(c, key, klen, v) :
					     json_array_append_new(c, v)) != 0;
		sw_free(kcopy);
		if (bad)
			goto fail;
		own_space(o);
		if (o->p < o->end && *o->p == ',') {
			o->p++;
			own_space(o);
			continue;
		}
		if (o->p < o->end && *o->p == (object ? '}' : ']')) {
			o->p++;
			return c;
		}
		goto fail;
	}
fail:
	json_decref(c);
	return NULL;
}

static json_t *own_value(struct own *o, int depth)
{
	const char *s;
	size_t n;

	own_space(o);
	if (depth > OWN_MAX_DEPTH || o->p >= o->end)
		return NULL;
	switch (*o->p) {
	case '{':
	case '[':
		o->p++;
		return own_container(o, depth, o->p[-1] == '{');
	case '"':
		o->p++;
		return own_string(o, &s, &n) < 0 ? NULL : json_stringn_nocheck(s, n);
	case 't':
		if (o->end - o->p >= 4 && memcmp(o->p, "true", 4) == 0) {
			o->p += 4;
			return json_true();
		}
		return NULL;
	case 'f':
		if (o->end - o->p >= 5 && memcmp(o->p, "false", 5) == 0) {
			o->p += 5;
			return json_false();
		}
		return NULL;
	case 'n':
		if (o->end - o->p >= 4 && memcmp(o->p, "null", 4) == 0) {
			o->p += 4;
			return json_null();
		}
		return NULL;
	default:
		return own_number(o);
	}
}

json_t *sw_json_load_own(const char *buf, size_t len)
{
	struct own o = { buf, buf + len, NULL, 0 };
	json_t *v = NULL;

	own_space(&o);
	if (o.p < o.end && (*o.p == '{' || *o.p == '['))
		v = own_value(&o, 0);
	own_space(&o);
	if (v != NULL && o.p != o.end) {
		json_decref(v);
		v = NULL;
	}
	sw_free(o.tmp);
	return v;
}
