/* The plain-C byte searches (io/util/mem.h): glibc's answers for memmem
 * and memrchr, at the ends and at the edges. */

#include <criterion/criterion.h>
#include <string.h>

#include "io/util/mem.h"

TestSuite(io_mem);

static const char hay[] = "abcabcab";
#define HAY_LEN (sizeof(hay) - 1)

Test(io_mem, memmem_finds_the_first_occurrence_at_either_end)
{
	cr_assert_eq(sw_memmem(hay, HAY_LEN, "abc", 3), hay);
	cr_assert_eq(sw_memmem(hay, HAY_LEN, "cab", 3), hay + 2);
	cr_assert_eq(sw_memmem(hay, HAY_LEN, "cabcab", 6), hay + 2);
	cr_assert_eq(sw_memmem(hay, HAY_LEN, "b", 1), hay + 1);
	cr_assert_eq(sw_memmem(hay + 3, HAY_LEN - 3, "cab", 3), hay + 5);	/* the last bytes */
	cr_assert_eq(sw_memmem(hay, HAY_LEN, hay, HAY_LEN), hay);		/* the whole */
}

Test(io_mem, memmem_finds_an_empty_needle_at_the_start)
{
	cr_assert_eq(sw_memmem(hay, HAY_LEN, "q", 0), hay);
	cr_assert_eq(sw_memmem(hay, 0, "q", 0), hay);
}

Test(io_mem, memmem_reports_what_is_not_there)
{
	cr_assert_null(sw_memmem(hay, HAY_LEN, "abd", 3));
	cr_assert_null(sw_memmem(hay, HAY_LEN, "abcabcabc", 9));	/* longer than hay */
	cr_assert_null(sw_memmem(hay, 0, "a", 1));
	cr_assert_null(sw_memmem("xxxxabc", 6, "abc", 3));	/* cut one byte short */
	cr_assert_null(sw_memmem("\r", 1, "\r\n", 2));
}

Test(io_mem, memmem_compares_nul_bytes_as_bytes)
{
	static const char s[] = "xa\0b";

	cr_assert_null(sw_memmem("a\0b", 3, "a\0c", 3));
	cr_assert_eq(sw_memmem(s, 4, "a\0b", 3), s + 1);
}

Test(io_mem, memrchr_finds_the_last_byte)
{
	static const char s[] = "a\nb\nc";

	cr_assert_eq(sw_memrchr(s, '\n', 5), s + 3);
	cr_assert_eq(sw_memrchr(s, '\n', 3), s + 1);
	cr_assert_eq(sw_memrchr(s, 'a', 5), s);		/* the first byte */
	cr_assert_eq(sw_memrchr(s, 'c', 5), s + 4);	/* the last byte */
}

Test(io_mem, memrchr_reports_what_is_not_there)
{
	static const char s[] = "a\nb\nc";

	cr_assert_null(sw_memrchr(s, 'c', 4));
	cr_assert_null(sw_memrchr(s, 'z', 5));
	cr_assert_null(sw_memrchr(s, 'a', 0));
}

Test(io_mem, memrchr_compares_as_unsigned_char)
{
	static const char s[] = "\xff" "x";

	cr_assert_eq(sw_memrchr(s, 0xff, 2), s);
	cr_assert_eq(sw_memrchr(s, -1, 2), s);
}
