/* JSON output bytes (io/util/json.h): what the reference's Go encoder writes. */

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/err.h"
#include "io/util/json.h"

static void setup(void)
{
	sw_alloc_init();
}

TestSuite(io_json, .init = setup);

/* Encodes the one-string array holding `len` bytes at `s`. */
static char *dump_string(const char *s, size_t len, int html)
{
	json_t *v = json_pack("[s%]", s, len);
	char *out;

	cr_assert_not_null(v);
	out = html ? sw_json_dump_html(v) : sw_json_dump(v);
	json_decref(v);
	return out;
}

Test(io_json, strings_are_escaped_as_go_escapes_them)
{
	/* Every C0 control, the short escapes, DEL and '/' raw, U+2028/9. */
	static const struct { const char *in; size_t len; const char *plain, *html; } rows[] = {
		{ "\x00\x01\x0b\x0e\x1a\x1f", 6, "[\"\\u0000\\u0001\\u000b\\u000e\\u001a\\u001f\"]", NULL },
		{ "\b\f\n\r\t\"\\", 7, "[\"\\b\\f\\n\\r\\t\\\"\\\\\"]", NULL },
		{ "\x7f/", 2, "[\"\x7f/\"]", NULL },
		{ "a\xe2\x80\xa8" "b\xe2\x80\xa9" "c", 9, "[\"a\\u2028b\\u2029c\"]", NULL },
		{ "\xe2\x80\xa7\xe2\x80\xaa\xe2\x82\xac", 9, "[\"\xe2\x80\xa7\xe2\x80\xaa\xe2\x82\xac\"]", NULL },
		{ "<a href=\"x\">&amp;</a>", 21, "[\"<a href=\\\"x\\\">&amp;</a>\"]",
		  "[\"\\u003ca href=\\\"x\\\"\\u003e\\u0026amp;\\u003c/a\\u003e\"]" },
		{ "\\u00AB", 6, "[\"\\\\u00AB\"]", NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *plain = dump_string(rows[i].in, rows[i].len, 0);
		char *html = dump_string(rows[i].in, rows[i].len, 1);

		cr_expect_str_eq(plain, rows[i].plain, "row %zu", i);
		cr_expect_str_eq(html, rows[i].html ? rows[i].html : rows[i].plain, "row %zu", i);
		sw_free(plain);
		sw_free(html);
	}
}

/* Text from the system (a file name) need not be UTF-8: Go's encoder
 * writes each byte that starts no valid sequence as \ufffd, one escape per
 * byte, in keys as in values, and keeps a real U+FFFD as it is. */
Test(io_json, bytes_that_are_not_utf8_are_written_as_go_writes_them)
{
	static const struct { const char *in; size_t len; const char *out; } rows[] = {
		{ "caf\xe9", 4, "caf\\ufffd" },				/* Latin-1 */
		{ "\xc0\xaf|\xe0\x80\xaf|\xf0\x80\x80\xaf", 11,		/* overlong */
		  "\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd" },
		{ "\xed\xa0\x80\xed\xbf\xbf", 6,				/* surrogates */
		  "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd" },
		{ "\xf4\x90\x80\x80\xff", 5,				/* past U+10FFFF */
		  "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd" },
		{ "\xe2\x82x\x80", 4, "\\ufffd\\ufffdx\\ufffd" },		/* truncated, stray */
		{ "\xef\xbf\xbd\xe9\n", 5, "\xef\xbf\xbd\\ufffd\\n" },	/* a real U+FFFD */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		json_t *v = json_array(), *o = json_object();
		char want[160], *got, *lossy;
		size_t n;

		cr_assert(v && o);
		json_array_append_new(v, json_stringn_nocheck(rows[i].in, rows[i].len));
		json_object_setn_new_nocheck(o, rows[i].in, rows[i].len, json_true());
		json_array_append_new(v, o);
		snprintf(want, sizeof(want), "[\"%s\",{\"%s\":true}]", rows[i].out, rows[i].out);
		got = sw_json_dump(v);
		cr_expect_str_eq(got, want, "row %zu", i);
		sw_free(got);
		got = sw_json_dump_html(v);
		cr_expect_str_eq(got, want, "row %zu html", i);
		sw_free(got);
		/* What a decoder reads back is the lossy copy. */
		lossy = sw_utf8_lossy(rows[i].in, rows[i].len, &n);
		cr_assert_not_null(lossy);
		cr_expect(sw_utf8_valid(lossy, n), "row %zu", i);
		got = sw_json_dump(json_array_get(v, 0));
		{
			json_t *back = json_loads(got, JSON_DECODE_ANY, NULL);

			cr_assert_not_null(back, "row %zu", i);
			cr_expect(json_string_length(back) == n &&
				  memcmp(json_string_value(back), lossy, n) == 0, "row %zu", i);
			json_decref(back);
		}
		sw_free(got);
		sw_free(lossy);
		json_decref(v);
	}
}

Test(io_json, keys_and_nested_values_get_the_same_escapes)
{
	json_t *v = json_pack("{s:{s:[s,i,b,n]}}", "k\xe2\x80\xa8<", "in&", "\x1b>", 7, 1);
	char *plain, *html;

	cr_assert_not_null(v);
	plain = sw_json_dump(v);
	html = sw_json_dump_html(v);
	cr_expect_str_eq(plain, "{\"k\\u2028<\":{\"in&\":[\"\\u001b>\",7,true,null]}}");
	cr_expect_str_eq(html, "{\"k\\u2028\\u003c\":{\"in\\u0026\":[\"\\u001b\\u003e\",7,true,null]}}");
	sw_free(plain);
	sw_free(html);
	json_decref(v);
}

Test(io_json, every_allocation_failure_gives_null_and_leaks_nothing)
{
	json_t *v = json_pack("{s:s}", "a", "\xe2\x80\xa8<&>");
	int failed = 0;

	cr_assert_not_null(v);
	for (unsigned long n = 1; n < 64; n++) {
		char *out;

		sw_alloc_fail_after(n);
		out = sw_json_dump_html(v);
		sw_alloc_fail_after(0);
		if (out == NULL) {
			failed++;
			continue;
		}
		cr_expect_str_eq(out, "{\"a\":\"\\u2028\\u003c\\u0026\\u003e\"}", "n=%lu", n);
		sw_free(out);
	}
	cr_expect(failed > 0);
	json_decref(v);
}

/* ---- the one-pass encoder against its oracle ---- */

static unsigned long long rng_state = 0x5eed15b0ULL;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng_state >> 33) % n;
}

/* Pieces a string is made of: what needs escaping, each UTF-8 length,
 * U+2028/9 and their neighbours, and every kind of malformed sequence
 * (stray continuation, overlong, surrogate, past U+10FFFF, truncated). */
static const char *const pieces[] = {
	"a", "Z", " ", "/", "\x7f", "\"", "\\", "<", ">", "&", "\\u00e9", "\x00", "\x01", "\x08",
	"\x09", "\x0a", "\x0c", "\x0d", "\x1b", "\x1f", "\xc2\x80", "\xc3\xa9", "\xdf\xbf",
	"\xe0\xa0\x80", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xa7", "\xe2\x80\xaa",
	"\xe2\x82\xac", "\xef\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80", "\xf0\x90\x80\x80",
	"\xf4\x8f\xbf\xbf", "\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80",
	"\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xe2\x80", "\xe2",
	"\xf0\x90\x80", "\xc3", "plain text run of ascii ",
};

/* A string of random pieces (`valid`: only well-formed UTF-8 pieces). */
static size_t random_text(char *buf, size_t cap, int valid)
{
	size_t n = 0, count = rnd(12);

	for (size_t i = 0; i < count; i++) {
		size_t k = rnd(sizeof(pieces) / sizeof(pieces[0]));
		const char *p = pieces[k];
		/* "\x00" has length 1 in the table; strlen says 0. */
		size_t len = p[0] == '\0' ? 1 : strlen(p);

		if (valid && !sw_utf8_valid(p, len))
			continue;
		if (n + len >= cap)
			break;
		memcpy(buf + n, p, len);
		n += len;
	}
	buf[n] = '\0';
	return n;
}

static json_t *random_value(int depth, int valid)
{
	static const json_int_t ints[] = { 0, 1, -1, 9, 10, -10, 1000000007, INT64_MAX, INT64_MIN };
	static const double reals[] = { 0.0, -0.0, 1.5, 1e300, -2.5e-7, 3.0, 0.1 };
	char text[256];
	size_t n;
	unsigned kind = depth > 5 ? rnd(7) : rnd(9);

	switch (kind) {
	case 0: return json_null();
	case 1: return json_true();
	case 2: return json_false();
	case 3: return json_integer(ints[rnd(sizeof(ints) / sizeof(ints[0]))]);
	case 4: return rnd(8) == 0 ? json_real(reals[rnd(sizeof(reals) / sizeof(reals[0]))]) :
				      json_integer((json_int_t)rnd(100000) - 50000);
	case 5:
	case 6:
		n = random_text(text, sizeof(text), valid || rnd(16) != 0);
		return json_stringn_nocheck(text, n);
	case 7: {
		json_t *a = json_array();

		for (unsigned i = rnd(5); i > 0; i--)
			json_array_append_new(a, random_value(depth + 1, valid));
		return a;
	}
	default: {
		json_t *o = json_object();

		for (unsigned i = rnd(5); i > 0; i--) {
			n = random_text(text, sizeof(text), valid || rnd(16) != 0);
			json_object_setn_new_nocheck(o, text, n, random_value(depth + 1, valid));
		}
		return o;
	}
	}
}

/* Both encoders give the same bytes, or both fail. */
static void expect_same(const json_t *v, const char *what, unsigned i)
{
	for (int html = 0; html < 2; html++) {
		char *fast = html ? sw_json_dump_html(v) : sw_json_dump(v);
		char *ref = sw_json_dump_jansson(v, html);

		if (ref == NULL)
			cr_expect_null(fast, "%s %u html=%d: the oracle fails, the encoder wrote %s",
				       what, i, html, fast);
		else if (fast == NULL)
			cr_expect_not_null(fast, "%s %u html=%d: no output, oracle %s", what, i, html, ref);
		else
			cr_expect_str_eq(fast, ref, "%s %u html=%d", what, i, html);
		sw_free(fast);
		sw_free(ref);
	}
}

Test(io_json, the_encoder_writes_the_oracles_bytes_for_random_values)
{
	for (unsigned i = 0; i < 20000; i++) {
		json_t *v = random_value(0, i % 2);

		cr_assert_not_null(v);
		expect_same(v, "value", i);
		json_decref(v);
	}
}

Test(io_json, the_encoder_writes_every_byte_and_pair_as_the_oracle_does)
{
	char s[3];

	for (unsigned a = 0; a < 256; a++) {
		for (unsigned b = 0; b < 256; b++) {
			json_t *v = json_array(), *o = json_object();

			/* Two bytes, and a third after 0xe2 (U+2028 and kin), as
			 * a value and as a key. */
			s[0] = (char)a;
			s[1] = (char)b;
			s[2] = (char)0xa8;
			cr_assert_not_null(v);
			cr_assert_not_null(o);
			json_array_append_new(v, json_stringn_nocheck(s, a == 0xe2 ? 3 : 2));
			json_object_setn_new_nocheck(o, s, a == 0xe2 ? 3 : 2, json_null());
			json_array_append_new(v, o);
			expect_same(v, "pair", a * 256 + b);
			json_decref(v);
		}
	}
}

Test(io_json, deep_nesting_cycles_and_reals_go_to_the_oracle)
{
	json_t *deep = json_string("leaf"), *loop = json_array(), *inner = json_array(), *mixed;

	for (int i = 0; i < 2000; i++) {
		json_t *a = json_array();

		json_array_append_new(a, deep);
		deep = a;
	}
	expect_same(deep, "deep", 0);
	json_decref(deep);
	/* A cycle through two arrays: Jansson refuses it, and so must the
	 * encoder. */
	cr_assert_not_null(inner);
	cr_assert(json_array_append(loop, inner) == 0 && json_array_append(inner, loop) == 0);
	cr_expect_null(sw_json_dump(loop));
	cr_expect_null(sw_json_dump_html(inner));
	json_array_clear(inner);
	json_decref(inner);
	json_decref(loop);
	mixed = json_pack("{s:f,s:[f,i,s]}", "r", 0.1, "a", 1e22, 3, "\xe2\x80\xa9<");
	expect_same(mixed, "reals", 0);
	json_decref(mixed);
}

/* ---- the loader of slipway's own JSON ---- */

/* `v` (wrapped in an array when it is not one of its own) as
 * sw_json_dump writes it; *len gets its length. */
static char *own_text(json_t *v, size_t *len)
{
	json_t *w = json_is_object(v) || json_is_array(v) ? json_incref(v) : json_pack("[O]", v);
	char *text;

	cr_assert_not_null(w);
	text = sw_json_dump(w);
	cr_assert_not_null(text);
	json_decref(w);
	*len = strlen(text);
	return text;
}

/* The loader must give what json_loadb gives, or nothing; with
 * `must_load`, what json_loadb reads (every text sw_json_dump writes but
 * those holding U+0000, which Jansson refuses too). */
static void expect_loaded_as_jansson(const char *text, size_t len, int must_load, unsigned i)
{
	json_t *own = sw_json_load_own(text, len);
	json_t *ref = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);

	if (must_load && ref != NULL)
		cr_assert_not_null(own, "%u: not loaded: %.*s", i, (int)len, text);
	if (own != NULL) {
		char *a = sw_json_dump(own), *b;

		cr_assert_not_null(ref, "%u: loaded what Jansson refuses: %.*s", i, (int)len, text);
		b = sw_json_dump(ref);
		cr_assert(json_equal(own, ref), "%u: %.*s", i, (int)len, text);
		cr_assert_str_eq(a, b, "%u", i);
		sw_free(a);
		sw_free(b);
	}
	json_decref(own);
	json_decref(ref);
}

Test(io_json, the_own_loader_reads_what_the_encoder_wrote_as_jansson_does)
{
	unsigned loaded = 0;

	for (unsigned i = 0; i < 20000; i++) {
		json_t *v = random_value(0, i % 2);
		size_t len;
		char *text = own_text(v, &len);
		json_t *back = sw_json_load_own(text, len);

		expect_loaded_as_jansson(text, len, 1, i);
		/* And it writes back the very bytes it was read from (a
		 * string that was not UTF-8 comes back as U+FFFD). */
		if (back != NULL && i % 2 == 1) {
			char *again = sw_json_dump(back);

			cr_assert_str_eq(again, text, "%u", i);
			sw_free(again);
			loaded++;
		}
		json_decref(back);
		sw_free(text);
		json_decref(v);
	}
	/* Most of the 10,000 of UTF-8 hold no U+0000. */
	cr_assert_gt(loaded, 7500, "%u of 10000 loaded", loaded);
	/* Whitespace and the escapes sw_json_dump never writes. */
	{
		static const char *const texts[] = {
			" [ 1 , { \"a\" : \"b\" } , [ ] , { } ] \n",
			"{\"\\u00e9\\/\\b\\f\\n\\r\\t\\\"\\\\\":\"\\ud83d\\ude00\\u20AC\"}",
			"[-0, -0.0, 0.5e-3, 1E+2, 1e308, 4.9e-324, -9223372036854775808]",
		};

		for (unsigned i = 0; i < sizeof(texts) / sizeof(*texts); i++)
			expect_loaded_as_jansson(texts[i], strlen(texts[i]), 1, i);
	}
}

Test(io_json, the_own_loader_refuses_what_jansson_refuses_and_more_never)
{
	static const char *const bad[] = {
		"", " ", "1", "\"s\"", "null", "[", "]", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\":1,\"a\":2}",
		"{\"a\" 1}", "{1:2}", "{\"a\"}", "[01]", "[1.]", "[.5]", "[1e]", "[1e+]", "[-]", "[+1]",
		"[\"\\u0000\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]", "[\"\\x\"]",
		"[\"\\u12\"]", "[\"\x01\"]", "[\"\xff\"]", "[\"\xc0\x80\"]", "[\"\xed\xa0\x80\"]",
		"[\"abc]", "[\"abc\\\"]", "[9223372036854775808]", "[-9223372036854775809]", "[1e400]",
		"[-1e400]", "[tru]", "[nul]", "[fals]", "[1] x", "[1][2]", "[Infinity]", "[NaN]",
		"{\"k\\u0000\":1}", "[1 2]",
	};
	char deep[2 * 600 + 1];

	for (unsigned i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_assert_null(sw_json_load_own(bad[i], strlen(bad[i])), "%u: %s", i, bad[i]);
	/* Deeper than slipway writes: refused, whatever Jansson says. */
	memset(deep, '[', 600);
	memset(deep + 600, ']', 600);
	cr_assert_null(sw_json_load_own(deep, 1200));
	/* Damaged texts: whatever the loader takes, Jansson reads the same. */
	for (unsigned i = 0; i < 20000; i++) {
		static const char bytes[] = "{}[]\",:\\u0123456789abcdefABCDEF-+.eEtrnul \t\n\x01\x80\xc3\xe2\xed\xf0\xff";
		json_t *v = random_value(0, 1);
		size_t len, at;
		char *text = own_text(v, &len);

		at = rnd((unsigned)len);
		switch (rnd(4)) {
		case 0:	/* a byte changed */
			text[at] = bytes[rnd(sizeof(bytes) - 1)];
			break;
		case 1:	/* a byte dropped */
			memmove(text + at, text + at + 1, len - at);
			len--;
			break;
		case 2:	/* cut short */
			len = at;
			break;
		default:	/* two bytes swapped */
			if (at + 1 < len) {
				char t = text[at];

				text[at] = text[at + 1];
				text[at + 1] = t;
			}
			break;
		}
		expect_loaded_as_jansson(text, len, 0, i);
		sw_free(text);
		json_decref(v);
	}
}

Test(io_json, the_own_loader_survives_every_allocation_failure)
{
	json_t *v = json_pack("{s:[s,s%,I,f,b,n],s:{s:s}}", "a\xc3\xa9", "x\\\"\n", "s\xe2\x80\xa8",
			      (size_t)4, (json_int_t)-7, 2.5, 1, "k", "w", "\\u00e9");
	size_t len;
	char *text = own_text(v, &len);
	int clean = 0;

	for (unsigned long n = 1; !clean && n < 1000; n++) {
		unsigned long failures = sw_alloc_failures();
		json_t *got;

		sw_alloc_fail_after(n);
		got = sw_json_load_own(text, len);
		sw_alloc_fail_after(0);
		clean = sw_alloc_failures() == failures;
		if (clean) {
			cr_assert_not_null(got);
			cr_assert(json_equal(got, v));
		} else {
			cr_assert_null(got, "at %lu an allocation failed and a value came back", n);
		}
		json_decref(got);
	}
	cr_assert(clean);
	sw_free(text);
	json_decref(v);
}
