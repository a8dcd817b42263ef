/* The journal record and the run.json projection as text: encoding and
 * decoding only, no file I/O (the store does the durable part).  See
 * io/store/journal.h. */

#include "io/store/journal.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/json.h"

static int jb_finish(char **out, size_t *out_len, struct sw_buf *b,
		     struct sw_error *err)
{
	if (b->failed || b->p == NULL) {
		sw_free(b->p);
		*out = NULL;
		return sw_error_set(err, SW_ENOMEM, "cannot build journal text");
	}
	*out = b->p;
	if (out_len)
		*out_len = b->len;
	return 0;
}

void journal_format_time(const struct timespec *ts, char out[JOURNAL_TIME_LEN])
{
	struct tm tm;
	time_t t = ts->tv_sec;
	char frac[24] = "";
	long ns = ts->tv_nsec % 1000000000L;

	memset(&tm, 0, sizeof(tm));
	gmtime_r(&t, &tm);
	if (ns > 0) {
		int n;

		snprintf(frac, sizeof(frac), ".%09ld", ns);
		/* Go's RFC3339Nano drops trailing zeros of the fraction. */
		for (n = (int)strlen(frac); n > 1 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
	}
	char tmp[128];

	snprintf(tmp, sizeof(tmp), "%04d-%02d-%02dT%02d:%02d:%02d%sZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, frac);
	snprintf(out, JOURNAL_TIME_LEN, "%.39s", tmp);
}

static int digits(const char *s, int n, int *val)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*val = v;
	return 1;
}

int journal_time_valid(const char *s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, sec, oh = 0, om = 0, nonzero_frac = 0;
	const char *p;

	if (strlen(s) < 20)
		return 0;
	if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) ||
	    s[7] != '-' || !digits(s + 8, 2, &d) || s[10] != 'T' ||
	    !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &mi) ||
	    s[16] != ':' || !digits(s + 17, 2, &sec))
		return 0;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 ||
	    mi > 59 || sec > 59)
		return 0;
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 0;
	p = s + 19;
	if (*p == '.') {
		int n = 0;

		for (p++; *p >= '0' && *p <= '9'; p++, n++)
			if (*p != '0')
				nonzero_frac = 1;
		if (n < 1 || n > 9)
			return 0;
	}
	if (p[0] == 'Z' && p[1] == '\0') {
		/* UTC */
	} else if ((p[0] == '+' || p[0] == '-') && strlen(p) == 6 &&
		   digits(p + 1, 2, &oh) && p[3] == ':' && digits(p + 4, 2, &om)) {
		if (oh > 23 || om > 59)
			return 0;
	} else {
		return 0;
	}
	/* Go rejects the zero time.Time as "timestamp is required". */
	if (y == 1 && mo == 1 && d == 1 && h == 0 && mi == 0 && sec == 0 &&
	    !nonzero_frac && oh == 0 && om == 0)
		return 0;
	return 1;
}

int journal_compact(char **out, size_t *out_len, const char *in, size_t len,
		    struct sw_error *err)
{
	struct sw_buf b = { 0 };
	int in_str = 0;

	sw_buf_add(&b, "", 0);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (!in_str) {
			if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
				continue;
			if (c == '"')
				in_str = 1;
			sw_buf_ch(&b, (char)c);
			continue;
		}
		if (c == '\\' && i + 1 < len) {
			sw_buf_add(&b, in + i, 2);
			i++;
			continue;
		}
		if (c == '"')
			in_str = 0;
		sw_buf_ch(&b, (char)c);
	}
	return jb_finish(out, out_len, &b, err);
}

int journal_record_encode(char **out, size_t *out_len, long long sequence,
			  enum tbl_jevent type, const char *at,
			  const char *data, size_t data_len,
			  struct sw_error *err)
{
	struct sw_buf b = { 0 };
	char head[160];
	int n;

	*out = NULL;
	if (type <= TBL_JEVENT_INVALID || type >= TBL_JEVENT__COUNT)
		return sw_error_set(err, SW_EINVAL, "unknown journal event type");
	n = snprintf(head, sizeof(head),
		     "{\"sequence\":%lld,\"type\":\"%s\",\"at\":\"%s\",\"data\":",
		     sequence, tbl_jevent_wire[type], at);
	if (n < 0 || (size_t)n >= sizeof(head))
		return sw_error_set(err, SW_EINVAL, "journal record header too long");
	sw_buf_add(&b, head, (size_t)n);
	sw_buf_add(&b, data, data_len);
	sw_buf_add(&b, "}\n", 2);
	return jb_finish(out, out_len, &b, err);
}

/* Index just past the JSON value starting at s[i]; `s` is valid JSON. */
static size_t skip_value(const char *s, size_t len, size_t i)
{
	int depth = 0, in_str = 0;

	if (s[i] != '"' && s[i] != '{' && s[i] != '[') {
		while (i < len && !strchr(",}] \t\r\n", s[i]))
			i++;
		return i;
	}
	for (; i < len; i++) {
		char c = s[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"') {
				in_str = 0;
				if (depth == 0)
					return i + 1;
			}
			continue;
		}
		if (c == '"')
			in_str = 1;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (--depth == 0)
				return i + 1;
		}
	}
	return i;
}

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && strchr(" \t\r\n", s[i]) && s[i] != '\0')
		i++;
	return i;
}

/* Finds the raw text of the top-level "data" member; 0 if not found. */
static int find_data_span(const char *s, size_t len, size_t *start, size_t *end)
{
	size_t i = skip_ws(s, len, 0);

	if (i >= len || s[i] != '{')
		return 0;
	i++;
	for (;;) {
		size_t ks, ke, vs, ve;

		i = skip_ws(s, len, i);
		if (i >= len || s[i] != '"')
			return 0;
		ks = i;
		ke = skip_value(s, len, i);
		i = skip_ws(s, len, ke);
		if (i >= len || s[i] != ':')
			return 0;
		vs = skip_ws(s, len, i + 1);
		ve = skip_value(s, len, vs);
		if (ke - ks == 6 && memcmp(s + ks, "\"data\"", 6) == 0) {
			*start = vs;
			*end = ve;
			return 1;
		}
		i = skip_ws(s, len, ve);
		if (i >= len || s[i] != ',')
			return 0;
		i++;
	}
}

void journal_record_release(struct journal_record *rec)
{
	if (rec == NULL)
		return;
	sw_free(rec->buf);
	memset(rec, 0, sizeof(*rec));
}

static int strict_decode(struct journal_record *rec, const char *line,
			 size_t len, long long expected, struct sw_error *err)
{
	json_t *v = NULL, *seq, *type, *at, *data;
	size_t ds, de;
	int rc = 0;

	memset(rec, 0, sizeof(*rec));
	if ((rc = sw_json_load_strict(&v, line, len, JOURNAL_MAX_LINE, err)) < 0)
		goto out;
	if (!json_is_object(v) || json_object_size(v) != 4 ||
	    (seq = json_object_get(v, "sequence")) == NULL ||
	    (type = json_object_get(v, "type")) == NULL ||
	    (at = json_object_get(v, "at")) == NULL ||
	    (data = json_object_get(v, "data")) == NULL) {
		rc = sw_error_set(err, SW_EPARSE,
				  "journal event %lld: keys must be exactly sequence, type, at, data",
				  expected);
		goto out;
	}
	if (!json_is_integer(seq) || json_integer_value(seq) != expected) {
		rc = sw_error_set(err, SW_EPARSE,
				  "journal event %lld: sequence is not %lld",
				  expected, expected);
		goto out;
	}
	if (!json_is_string(type) ||
	    (rec->type = tbl_jevent_lookup(json_string_value(type))) ==
	    TBL_JEVENT_INVALID) {
		rc = sw_error_set(err, SW_EPARSE,
				  "journal event %lld: unknown event type", expected);
		goto out;
	}
	if (!json_is_string(at) || json_string_length(at) >= JOURNAL_TIME_LEN ||
	    !journal_time_valid(json_string_value(at))) {
		rc = sw_error_set(err, SW_EPARSE,
				  "journal event %lld: invalid timestamp", expected);
		goto out;
	}
	snprintf(rec->at, sizeof(rec->at), "%s", json_string_value(at));
	rec->sequence = expected;
	if (find_data_span(line, len, &ds, &de) && de > ds) {
		rec->buf = sw_strndup(line + ds, de - ds);
		rec->data_len = de - ds;
	} else {
		/* The key was spelled with escapes: fall back to re-encoding. */
		rec->buf = sw_json_dump(data);
		rec->data_len = rec->buf ? strlen(rec->buf) : 0;
	}
	if (rec->buf == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot copy journal data");
		goto out;
	}
	rec->data = rec->buf;
out:
	if (rc < 0)
		journal_record_release(rec);
	json_decref(v);
	return rc;
}

/* ---- fast path ---------------------------------------------------------
 * Replay speed is bounded by decoding, so a record is first checked by a
 * single-pass scanner that builds no tree.  It accepts only what the strict
 * path (sw_json_load_strict + the checks below) also accepts; anything it is
 * unsure about (escaped keys, \u0000, long numbers, deep nesting, objects
 * with many keys) or finds wrong goes to the strict path, which decides
 * and words the error. */

#ifdef SW_TESTING
static int fast_path_on = 1;

void journal_set_fast_path(int on)
{
	fast_path_on = on;
}
#else
enum { fast_path_on = 1 };
#endif

#define FAST_MAX_DEPTH 64
#define FAST_MAX_KEYS 64

struct fscan {
	const unsigned char *s;
	size_t n, i;
};

static void fs_ws(struct fscan *f)
{
	while (f->i < f->n && (f->s[f->i] == ' ' || f->s[f->i] == '\t' ||
			       f->s[f->i] == '\n' || f->s[f->i] == '\r'))
		f->i++;
}

/* One UTF-8 sequence of 2..4 bytes at f->i (no overlongs, surrogates or
 * values past U+10FFFF). */
static int fs_utf8(struct fscan *f)
{
	size_t n = sw_utf8_seq(f->s + f->i, f->n - f->i);

	f->i += n;
	return n != 0;
}

/* Printable ASCII other than '"' and '\\': copied through a string as is. */
static const unsigned char plain_byte[256] = {
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1,
};

/* A string at f->i; [*a, *b) is its raw content; *esc set when it has
 * escapes. */
static int fs_string(struct fscan *f, size_t *a, size_t *b, int *esc)
{
	const unsigned char *s = f->s;

	*esc = 0;
	f->i++;
	*a = f->i;
	for (;;) {
		while (f->i < f->n && plain_byte[s[f->i]])
			f->i++;
		if (f->i >= f->n)
			return 0;
		if (s[f->i] == '"') {
			*b = f->i++;
			return 1;
		}
		if (s[f->i] == '\\') {
			unsigned char e;

			*esc = 1;
			if (f->i + 1 >= f->n)
				return 0;
			e = s[f->i + 1];
			if (e == 'u') {
				int zero = 1;

				if (f->i + 6 > f->n)
					return 0;
				for (int k = 2; k < 6; k++) {
					if (sw_hex_digit(s[f->i + k]) < 0)
						return 0;
					if (s[f->i + k] != '0')
						zero = 0;
				}
				if (zero)
					return 0;
				f->i += 6;
			} else if (strchr("\"\\/bfnrt", e) && e != '\0') {
				f->i += 2;
			} else {
				return 0;
			}
			continue;
		}
		if (s[f->i] < 0x20 || !fs_utf8(f))
			return 0;
	}
}

static int fs_number(struct fscan *f)
{
	size_t start = f->i, digits;
	const unsigned char *s = f->s;
	int neg = s[f->i] == '-', integer = 1;

	if (neg)
		f->i++;
	if (f->i >= f->n)
		return 0;
	if (s[f->i] == '0') {
		f->i++;
	} else if (s[f->i] >= '1' && s[f->i] <= '9') {
		while (f->i < f->n && s[f->i] >= '0' && s[f->i] <= '9')
			f->i++;
	} else {
		return 0;
	}
	digits = f->i - start - (size_t)neg;
	if (f->i < f->n && s[f->i] == '.') {
		size_t d = ++f->i;

		integer = 0;
		while (f->i < f->n && s[f->i] >= '0' && s[f->i] <= '9')
			f->i++;
		if (f->i == d)
			return 0;
	}
	if (f->i < f->n && (s[f->i] == 'e' || s[f->i] == 'E')) {
		size_t d;

		integer = 0;
		f->i++;
		if (f->i < f->n && (s[f->i] == '+' || s[f->i] == '-'))
			f->i++;
		d = f->i;
		while (f->i < f->n && s[f->i] >= '0' && s[f->i] <= '9')
			f->i++;
		/* Two exponent digits cannot overflow or underflow a double. */
		if (f->i == d || f->i - d > 2)
			return 0;
	}
	/* Jansson rejects integers past int64 and reals past double: let
	 * the strict path judge long reals and integers past INT64_MAX (a
	 * time in nanoseconds has 19 digits, and takes this path). */
	if (integer)
		return digits < 19 ||
		       (digits == 19 && memcmp(s + start + neg, "9223372036854775807", 19) <= 0);
	return f->i - start <= 15;
}

static int fs_value(struct fscan *f, int depth);

static int fs_object(struct fscan *f, int depth)
{
	size_t ka[FAST_MAX_KEYS], kb[FAST_MAX_KEYS];
	int nk = 0;

	f->i++;
	fs_ws(f);
	if (f->i < f->n && f->s[f->i] == '}') {
		f->i++;
		return 1;
	}
	for (;;) {
		size_t a, b;
		int esc;

		fs_ws(f);
		if (f->i >= f->n || f->s[f->i] != '"' || !fs_string(f, &a, &b, &esc) ||
		    esc || nk == FAST_MAX_KEYS)
			return 0;
		for (int k = 0; k < nk; k++)
			if (kb[k] - ka[k] == b - a && memcmp(f->s + a, f->s + ka[k], b - a) == 0)
				return 0;
		ka[nk] = a;
		kb[nk++] = b;
		fs_ws(f);
		if (f->i >= f->n || f->s[f->i] != ':')
			return 0;
		f->i++;
		fs_ws(f);
		if (!fs_value(f, depth + 1))
			return 0;
		fs_ws(f);
		if (f->i >= f->n)
			return 0;
		if (f->s[f->i] == '}') {
			f->i++;
			return 1;
		}
		if (f->s[f->i++] != ',')
			return 0;
	}
}

static int fs_array(struct fscan *f, int depth)
{
	f->i++;
	fs_ws(f);
	if (f->i < f->n && f->s[f->i] == ']') {
		f->i++;
		return 1;
	}
	for (;;) {
		fs_ws(f);
		if (!fs_value(f, depth + 1))
			return 0;
		fs_ws(f);
		if (f->i >= f->n)
			return 0;
		if (f->s[f->i] == ']') {
			f->i++;
			return 1;
		}
		if (f->s[f->i++] != ',')
			return 0;
	}
}

static int fs_literal(struct fscan *f, const char *word)
{
	size_t n = strlen(word);

	if (f->n - f->i < n || memcmp(f->s + f->i, word, n) != 0)
		return 0;
	f->i += n;
	return 1;
}

static int fs_value(struct fscan *f, int depth)
{
	size_t a, b;
	int esc;

	if (f->i >= f->n || depth > FAST_MAX_DEPTH)
		return 0;
	switch (f->s[f->i]) {
	case '{':
		return fs_object(f, depth);
	case '[':
		return fs_array(f, depth);
	case '"':
		return fs_string(f, &a, &b, &esc);
	case 't':
		return fs_literal(f, "true");
	case 'f':
		return fs_literal(f, "false");
	case 'n':
		return fs_literal(f, "null");
	default:
		return fs_number(f);
	}
}

/* 1 when the record was decoded here, 0 to defer to the strict path. */
static int fast_decode(struct journal_record *rec, const char *line,
		       size_t len, long long expected)
{
	struct fscan f = { (const unsigned char *)line, len, 0 };
	size_t da = 0, db = 0;
	unsigned seen = 0;

	fs_ws(&f);
	if (f.i >= f.n || f.s[f.i] != '{')
		return 0;
	f.i++;
	for (int member = 0; member < 4; member++) {
		size_t a, b;
		int esc;

		fs_ws(&f);
		if (f.i >= f.n || f.s[f.i] != '"' || !fs_string(&f, &a, &b, &esc) || esc)
			return 0;
		fs_ws(&f);
		if (f.i >= f.n || f.s[f.i] != ':')
			return 0;
		f.i++;
		fs_ws(&f);
#define KEY_IS(k) (b - a == sizeof(k) - 1 && memcmp(line + a, k, b - a) == 0)
		if (KEY_IS("sequence") && !(seen & 1)) {
			long long v = 0;
			size_t d = f.i;

			while (f.i < f.n && f.s[f.i] >= '0' && f.s[f.i] <= '9' && f.i - d < 18)
				v = v * 10 + (f.s[f.i++] - '0');
			if (f.i == d || (f.s[d] == '0' && f.i - d > 1) || v != expected)
				return 0;
			seen |= 1;
		} else if (KEY_IS("type") && !(seen & 2)) {
			size_t va, vb;
			char t[64];

			if (f.i >= f.n || f.s[f.i] != '"' || !fs_string(&f, &va, &vb, &esc) ||
			    esc || vb - va >= sizeof(t))
				return 0;
			memcpy(t, line + va, vb - va);
			t[vb - va] = '\0';
			if ((rec->type = tbl_jevent_lookup(t)) == TBL_JEVENT_INVALID)
				return 0;
			seen |= 2;
		} else if (KEY_IS("at") && !(seen & 4)) {
			size_t va, vb;

			if (f.i >= f.n || f.s[f.i] != '"' || !fs_string(&f, &va, &vb, &esc) ||
			    esc || vb - va >= JOURNAL_TIME_LEN)
				return 0;
			memcpy(rec->at, line + va, vb - va);
			rec->at[vb - va] = '\0';
			if (!journal_time_valid(rec->at))
				return 0;
			seen |= 4;
		} else if (KEY_IS("data") && !(seen & 8)) {
			da = f.i;
			if (!fs_value(&f, 1))
				return 0;
			db = f.i;
			seen |= 8;
		} else {
			return 0;
		}
#undef KEY_IS
		fs_ws(&f);
		if (f.i >= f.n || f.s[f.i++] != (member == 3 ? '}' : ','))
			return 0;
	}
	fs_ws(&f);
	if (f.i != f.n || seen != 15)
		return 0;
	if ((rec->buf = sw_strndup(line + da, db - da)) == NULL)
		return 0;
	rec->data = rec->buf;
	rec->data_len = db - da;
	rec->sequence = expected;
	return 1;
}

int journal_record_decode(struct journal_record *rec, const char *line,
			  size_t len, long long expected, struct sw_error *err)
{
	memset(rec, 0, sizeof(*rec));
	if (fast_path_on && len <= JOURNAL_MAX_LINE &&
	    fast_decode(rec, line, len, expected))
		return 0;
	journal_record_release(rec);
	return strict_decode(rec, line, len, expected, err);
}

static void indent_nl(struct sw_buf *b, int depth)
{
	sw_buf_ch(b, '\n');
	for (int i = 0; i < depth; i++)
		sw_buf_add(b, "  ", 2);
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Copies the string body at in[*i] (after the opening quote) through the
 * closing quote, with the HTML-safe escapes Go's encoder writes.  0 when
 * the string is not closed. */
static int copy_string(struct sw_buf *b, const char *in, size_t len, size_t *i)
{
	size_t k = *i;

	while (k < len) {
		size_t run = k;
		unsigned char c;

		while (run < len && in[run] != '"' && in[run] != '\\' && in[run] != '<' &&
		       in[run] != '>' && in[run] != '&' && (unsigned char)in[run] != 0xe2)
			run++;
		sw_buf_add(b, in + k, run - k);
		if ((k = run) >= len)
			break;
		c = (unsigned char)in[k];
		if (c == '"') {
			sw_buf_ch(b, '"');
			*i = k + 1;
			return 1;
		}
		if (c == '\\') {
			if (k + 1 >= len)
				return 0;
			sw_buf_add(b, in + k, 2);
			k += 2;
		} else if (c == 0xe2 && k + 2 < len && (unsigned char)in[k + 1] == 0x80 &&
			   ((unsigned char)in[k + 2] == 0xa8 || (unsigned char)in[k + 2] == 0xa9)) {
			sw_buf_add(b, (unsigned char)in[k + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
			k += 3;
		} else if (c == 0xe2) {
			sw_buf_ch(b, (char)c);
			k++;
		} else {
			sw_buf_add(b, c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026", 6);
			k++;
		}
	}
	return 0;
}

/* Appends the JSON value `data` to `b` in Go's json.MarshalIndent layout
 * with HTML escaping, as if it sat `base` levels deep: insignificant white
 * space dropped, "{}"/"[]" kept closed, ": " after keys, one member per
 * line.  The input is one JSON value (our own dump); the pass checks its
 * structure (brackets matched, strings closed, nothing after the value)
 * rather than re-parsing it.  0, or SW_EPARSE (b then holds junk). */
static int encode_indented(struct sw_buf *b, const char *data, size_t data_len, int base)
{
	char *open = NULL;	/* the open containers' closing brackets */
	size_t depth = 0, cap = 0;
	int values = 0, scalar = 0, rc = SW_EPARSE;

	for (size_t i = 0; i < data_len;) {
		char c = data[i];

		if (is_ws(c)) {
			scalar = 0;
			i++;
			continue;
		}
		if (depth == 0 && values > 0 && !(scalar && c != '"' && c != '{' && c != '['))
			goto out;
		if (depth == 0 && !scalar)
			values++;
		scalar = 0;
		switch (c) {
		case '"':
			sw_buf_ch(b, '"');
			i++;
			if (!copy_string(b, data, data_len, &i))
				goto out;
			continue;
		case '{':
		case '[': {
			size_t k = i + 1;
			char close = c == '{' ? '}' : ']';

			while (k < data_len && is_ws(data[k]))
				k++;
			sw_buf_ch(b, c);
			if (k < data_len && data[k] == close) {
				sw_buf_ch(b, close);
				i = k + 1;
				continue;
			}
			if (depth == cap) {
				char *n = sw_realloc(open, cap ? cap * 2 : 64);

				if (n == NULL) {
					b->failed = 1;
					rc = 0;	/* reported as SW_ENOMEM by the caller */
					goto out;
				}
				open = n;
				cap = cap ? cap * 2 : 64;
			}
			open[depth++] = close;
			indent_nl(b, (int)depth + base);
			break;
		}
		case '}':
		case ']':
			if (depth == 0 || open[depth - 1] != c)
				goto out;
			indent_nl(b, (int)--depth + base);
			sw_buf_ch(b, c);
			break;
		case ',':
			if (depth == 0)
				goto out;
			sw_buf_ch(b, c);
			indent_nl(b, (int)depth + base);
			break;
		case ':':
			if (depth == 0)
				goto out;
			sw_buf_add(b, ": ", 2);
			break;
		default:
			sw_buf_ch(b, c);
			scalar = depth == 0;
		}
		i++;
	}
	if (depth == 0 && values == 1)
		rc = 0;
out:
	sw_free(open);
	return rc;
}

int journal_projection_encode(char **out, size_t *out_len, long long revision,
			      const char *data, size_t data_len,
			      struct sw_error *err)
{
	struct sw_buf b = { 0 };

	*out = NULL;
	sw_buf_fmt(&b, "{\n  \"revision\": %lld,\n  \"data\": ", revision);
	if (encode_indented(&b, data, data_len, 1) < 0) {
		sw_buf_release(&b);
		return sw_error_set(err, SW_EPARSE, "run projection is not one JSON value");
	}
	sw_buf_add(&b, "\n}\n", 3);
	return jb_finish(out, out_len, &b, err);
}

int journal_projection_value(char **out, size_t *out_len, const char *data,
			     size_t data_len, int depth, struct sw_error *err)
{
	struct sw_buf b = { 0 };

	*out = NULL;
	sw_buf_add(&b, "", 0);
	if (encode_indented(&b, data, data_len, depth) < 0) {
		sw_buf_release(&b);
		return sw_error_set(err, SW_EPARSE, "projection value is not one JSON value");
	}
	return jb_finish(out, out_len, &b, err);
}
