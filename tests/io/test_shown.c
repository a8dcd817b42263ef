/* io/util/shown: which characters a person sees as "<U+XXXX>" (controls,
 * DEL, C1, bidi controls, line and paragraph separators), and text written
 * with them shown. */
#include <criterion/criterion.h>

#include <string.h>

#include "io/util/buf.h"
#include "io/util/err.h"
#include "io/util/shown.h"

TestSuite(io_shown);

Test(io_shown, controls_and_bidi_are_shown_tab_and_line_feed_are_not)
{
	static const unsigned shown[] = { 0x00, 0x07, 0x0D, 0x1B, 0x1F, 0x7F, 0x80, 0x9B, 0x9F,
					  0x061C, 0x200E, 0x2028, 0x202E, 0x2066, 0x2069 };
	static const unsigned kept[] = { '\t', '\n', ' ', 'a', 0xA0, 0xE9, 0x2027, 0x2070, 0x1F600 };

	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		cr_expect(sw_cp_shown_as_code(shown[i]), "U+%04X", shown[i]);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		cr_expect(!sw_cp_shown_as_code(kept[i]), "U+%04X", kept[i]);
}

Test(io_shown, text_is_written_with_each_one_as_its_code_point)
{
	struct sw_buf b = SW_BUF_INIT;
	char *s;

	sw_buf_shown(&b, "x\x1b]0;PWNED\x07\x1b[2J\r\xc2\x9b\xe2\x80\xae.txt \xc3\xa9\t\n\xff");
	cr_assert_not_null(s = sw_buf_detach(&b));
	cr_expect_str_eq(s, "x<U+001B>]0;PWNED<U+0007><U+001B>[2J<U+000D><U+009B><U+202E>.txt \xc3\xa9\t\n\xff");
	sw_free(s);
}

Test(io_shown, a_byte_that_starts_no_sequence_is_taken_alone)
{
	unsigned cp = 0;

	cr_expect_eq(sw_utf8_next("\xe2\x80", 2, &cp), 1, "a truncated sequence");
	cr_expect_eq(cp, 0xE2);
	cr_expect_eq(sw_utf8_next("\xc0\x80", 2, &cp), 1, "an overlong form");
	cr_expect_eq(sw_utf8_next("\xed\xa0\x80", 3, &cp), 1, "a surrogate");
	cr_expect_eq(sw_utf8_next("\xf0\x9f\x98\x80", 4, &cp), 4);
	cr_expect_eq(cp, 0x1F600);
	cr_expect_eq(sw_utf8_next("", 0, &cp), 0);
}
