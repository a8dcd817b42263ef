/* The reference's sections framing (io/util/digest.h): sw_sha256_section
 * hashes "\0" name "\0" decimal(len) "\0" bytes, whatever the length of
 * the name and the number of digits. */

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "io/util/digest.h"
#include "io/util/err.h"

TestSuite(io_digest);

/* The digest of the framing written out by hand and hashed in one piece. */
static void by_hand(char out[SW_DIGEST_LEN], const char *name, const char *bytes, size_t len)
{
	struct sw_error err = SW_ERROR_INIT;
	struct sw_sha256 *h = NULL;
	char num[32];
	size_t nl = strlen(name);
	int n = snprintf(num, sizeof(num), "%zu", len);

	cr_assert_eq(sw_sha256_new(&h, &err), 0);
	sw_sha256_update(h, "", 1);
	sw_sha256_update(h, name, nl);
	sw_sha256_update(h, "", 1);
	sw_sha256_update(h, num, (size_t)n);
	sw_sha256_update(h, "", 1);
	sw_sha256_update(h, bytes, len);
	sw_sha256_final_prefixed(h, out);
}

Test(io_digest, a_section_hashes_its_framing_for_every_name_and_length)
{
	static char big[100001], name[300];
	static const size_t lens[] = { 0, 1, 9, 10, 99, 100, 12345, 100000 };
	static const size_t names[] = { 0, 1, 7, 150, 156, 157, 158, 299 };

	memset(big, 'b', sizeof(big) - 1);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		memset(name, 'n', names[i]);
		name[names[i]] = '\0';
		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			struct sw_error err = SW_ERROR_INIT;
			struct sw_sha256 *h = NULL;
			char want[SW_DIGEST_LEN], got[SW_DIGEST_LEN];

			by_hand(want, name, big, lens[k]);
			cr_assert_eq(sw_sha256_new(&h, &err), 0);
			sw_sha256_section(h, name, big, lens[k]);
			sw_sha256_final_prefixed(h, got);
			cr_assert_str_eq(got, want, "name %zu, length %zu", names[i], lens[k]);
		}
	}
}

/* sw_hex_bytes writes every byte value as printf's %02x does, two digits
 * each with nothing after them, and returns the end. */
Test(io_digest, hex_bytes_writes_every_byte_value_as_two_lowercase_digits)
{
	unsigned char all[256];
	char got[2 * 256 + 1], want[2 * 256 + 1];

	for (int i = 0; i < 256; i++) {
		all[i] = (unsigned char)i;
		snprintf(want + 2 * i, 3, "%02x", i);
	}
	memset(got, '#', sizeof(got));
	cr_assert_eq(sw_hex_bytes(got, all, 256), got + 512);
	cr_assert_eq(got[512], '#', "nothing is written past the digits");
	got[512] = '\0';
	cr_assert_str_eq(got, want);
	cr_assert_eq(sw_hex_bytes(got, all, 0), got);
}
