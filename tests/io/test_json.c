/* JSON output bytes (io/json.h): what the reference's Go encoder writes. */

#include <criterion/criterion.h>
#include <string.h>

#include <jansson.h>

#include "io/err.h"
#include "io/json.h"

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
