/* SHA-256 (libcrypto) and the reference's two digest framings.  See
 * io/util/digest.h. */

#include "io/util/digest.h"

#include <stdio.h>
#include <string.h>

/* The low-level SHA-256 of libcrypto, not EVP: EVP's first digest sets
 * up OpenSSL's provider machinery (about 0.5 ms of every process), while
 * SHA256_* run the same assembly (SHA instructions where the CPU has them)
 * with nothing to set up.  OpenSSL 3 deprecates them without a removal
 * date; the API level below keeps them declared. */
#define OPENSSL_API_COMPAT 0x10100000L
#include <openssl/sha.h>
#include <xxhash.h>

struct sw_sha256 {
	SHA256_CTX ctx;
};

int sw_sha256_new(struct sw_sha256 **out, struct sw_error *err)
{
	struct sw_sha256 *h = sw_calloc(1, sizeof(*h));

	*out = NULL;
	if (h == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate hash");
	SHA256_Init(&h->ctx);
	*out = h;
	return 0;
}

void sw_sha256_update(struct sw_sha256 *h, const void *buf, size_t len)
{
	SHA256_Update(&h->ctx, buf, len);
}

/* The framing "\0" name "\0" decimal(len) "\0" is assembled in one buffer
 * and hashed in one update (an observation hashes thousands of sections:
 * snprintf and five small updates each were an eighth of a submit's
 * instructions); the bytes hashed are the same. */
void sw_sha256_section(struct sw_sha256 *h, const char *name,
		       const void *bytes, size_t len)
{
	size_t nl = strlen(name), o = 0, v = len;
	char head[160], num[24];
	int d = 0;

	do {
		num[d++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	if (nl + (size_t)d + 3 > sizeof(head)) {
		SHA256_Update(&h->ctx, "", 1);
		SHA256_Update(&h->ctx, name, nl);
		o = 0;
	} else {
		head[o++] = '\0';
		memcpy(head + o, name, nl);
		o += nl;
	}
	head[o++] = '\0';
	while (d > 0)
		head[o++] = num[--d];
	head[o++] = '\0';
	SHA256_Update(&h->ctx, head, o);
	SHA256_Update(&h->ctx, bytes, len);
}

void sw_sha256_section_str(struct sw_sha256 *h, const char *name,
			   const char *value)
{
	sw_sha256_section(h, name, value, strlen(value));
}

void sw_sha256_field(struct sw_sha256 *h, const void *bytes, size_t len)
{
	unsigned char be[8];
	uint64_t n = len;

	for (int i = 7; i >= 0; i--) {
		be[i] = (unsigned char)(n & 0xff);
		n >>= 8;
	}
	sw_sha256_update(h, be, sizeof(be));
	sw_sha256_update(h, bytes, len);
}

/* The two lowercase hex digits of every byte: a byte is one 2-byte copy
 * (the index fingerprint formats 50,000 ids with it). */
static const char hex_pairs[256][2] = {
#define HD(v) (char)((v) < 10 ? '0' + (v) : 'a' + (v) - 10)
#define HP(x) { HD((x) >> 4), HD((x) & 15) }
#define HP4(x) HP(x), HP((x) + 1), HP((x) + 2), HP((x) + 3)
#define HP16(x) HP4(x), HP4((x) + 4), HP4((x) + 8), HP4((x) + 12)
	HP16(0x00), HP16(0x10), HP16(0x20), HP16(0x30), HP16(0x40), HP16(0x50), HP16(0x60), HP16(0x70),
	HP16(0x80), HP16(0x90), HP16(0xa0), HP16(0xb0), HP16(0xc0), HP16(0xd0), HP16(0xe0), HP16(0xf0),
#undef HP16
#undef HP4
#undef HP
#undef HD
};

char *sw_hex_bytes(char *out, const void *bytes, size_t n)
{
	const unsigned char *b = bytes;

	for (size_t i = 0; i < n; i++, out += 2)
		memcpy(out, hex_pairs[b[i]], 2);
	return out;
}

static void to_hex_n(const unsigned char *md, size_t n, char *out)
{
	*sw_hex_bytes(out, md, n) = '\0';
}

static void to_hex(const unsigned char *md, char *out)
{
	to_hex_n(md, 32, out);
}

void sw_sha256_final_hex(struct sw_sha256 *h, char out[SW_HEX_LEN])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	SHA256_Final(md, &h->ctx);
	to_hex(md, out);
	sw_sha256_free(h);
}

void sw_sha256_final_prefixed(struct sw_sha256 *h, char out[SW_DIGEST_LEN])
{
	memcpy(out, "sha256:", 7);
	sw_sha256_final_hex(h, out + 7);
}

void sw_sha256_free(struct sw_sha256 *h)
{
	if (h == NULL)
		return;
	sw_free(h);
}

void sw_sha256_hex(const void *buf, size_t len, char out[SW_HEX_LEN])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_CTX c;

	/* Not SHA256(): in OpenSSL 3 that one goes through EVP. */
	SHA256_Init(&c);
	SHA256_Update(&c, buf, len);
	SHA256_Final(md, &c);
	to_hex(md, out);
}

void sw_sha256_prefixed(const void *buf, size_t len, char out[SW_DIGEST_LEN])
{
	memcpy(out, "sha256:", 7);
	sw_sha256_hex(buf, len, out + 7);
}

int sw_material_digest(char out[SW_DIGEST_LEN], const void *bytes, size_t len,
		       struct sw_error *err)
{
	static const char domain[] = "slipway-material/v1";
	struct sw_sha256 *h = NULL;
	int rc;

	out[0] = '\0';
	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	sw_sha256_field(h, domain, sizeof(domain) - 1);
	sw_sha256_field(h, bytes, len);
	sw_sha256_final_prefixed(h, out);
	return 0;
}

int sw_digest_valid(const char *s)
{
	if (strncmp(s, "sha256:", 7) != 0 || strlen(s) != 71)
		return 0;
	for (const char *p = s + 7; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

/* ---- XXH3-128 ---- */

struct sw_xxh {
	XXH3_state_t *st;
};

int sw_xxh_new(struct sw_xxh **out, struct sw_error *err)
{
	struct sw_xxh *h = sw_malloc(sizeof(*h));

	*out = NULL;
	if (h == NULL || (h->st = XXH3_createState()) == NULL) {
		sw_free(h);
		return sw_error_set(err, SW_ENOMEM, "cannot allocate a hash");
	}
	XXH3_128bits_reset(h->st);
	*out = h;
	return 0;
}

int sw_xxh_copy(struct sw_xxh **out, const struct sw_xxh *h, struct sw_error *err)
{
	if (sw_xxh_new(out, err) < 0)
		return SW_ENOMEM;
	XXH3_copyState((*out)->st, h->st);
	return 0;
}

void sw_xxh_update(struct sw_xxh *h, const void *buf, size_t len)
{
	XXH3_128bits_update(h->st, buf, len);
}

static void xxh_to_hex(XXH128_hash_t v, char out[SW_XXH_HEX_LEN])
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, v);
	to_hex_n(c.digest, sizeof(c.digest), out);
}

void sw_xxh_peek_hex(const struct sw_xxh *h, char out[SW_XXH_HEX_LEN])
{
	xxh_to_hex(XXH3_128bits_digest(h->st), out);
}

void sw_xxh_free(struct sw_xxh *h)
{
	if (h == NULL)
		return;
	XXH3_freeState(h->st);
	sw_free(h);
}

void sw_xxh_hex(const void *buf, size_t len, char out[SW_XXH_HEX_LEN])
{
	xxh_to_hex(XXH3_128bits(buf, len), out);
}

/* ---- XXH3-128 chained over lines ---- */

struct sw_lchain {
	XXH128_canonical_t c;	/* the value after the last complete line */
	XXH3_state_t *st;	/* the pending line, fed c first */
	size_t pending;		/* bytes of it fed so far */
};

static void lchain_restart(struct sw_lchain *h)
{
	XXH3_128bits_reset(h->st);
	XXH3_128bits_update(h->st, h->c.digest, sizeof(h->c.digest));
	h->pending = 0;
}

int sw_lchain_new(struct sw_lchain **out, struct sw_error *err)
{
	struct sw_lchain *h = sw_calloc(1, sizeof(*h));

	*out = NULL;
	if (h == NULL || (h->st = XXH3_createState()) == NULL) {
		sw_free(h);
		return sw_error_set(err, SW_ENOMEM, "cannot allocate a hash");
	}
	lchain_restart(h);
	*out = h;
	return 0;
}

static int hex_nibble(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int sw_lchain_from_hex(struct sw_lchain **out, const char *hex, struct sw_error *err)
{
	unsigned char v[sizeof(((XXH128_canonical_t *)0)->digest)];
	int rc;

	*out = NULL;
	if (strlen(hex) != 2 * sizeof(v))
		return sw_error_set(err, SW_EINVAL, "a chained digest is 32 hex digits");
	for (size_t i = 0; i < sizeof(v); i++) {
		int hi = hex_nibble(hex[2 * i]), lo = hex_nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return sw_error_set(err, SW_EINVAL, "a chained digest is 32 hex digits");
		v[i] = (unsigned char)(hi << 4 | lo);
	}
	if ((rc = sw_lchain_new(out, err)) < 0)
		return rc;
	memcpy((*out)->c.digest, v, sizeof(v));
	lchain_restart(*out);
	return 0;
}

int sw_lchain_copy(struct sw_lchain **out, const struct sw_lchain *h, struct sw_error *err)
{
	if (sw_lchain_new(out, err) < 0)
		return SW_ENOMEM;
	(*out)->c = h->c;
	(*out)->pending = h->pending;
	XXH3_copyState((*out)->st, h->st);
	return 0;
}

void sw_lchain_update(struct sw_lchain *h, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		const char *nl = memchr(p, '\n', len);
		size_t take = nl ? (size_t)(nl - p) + 1 : len;

		XXH3_128bits_update(h->st, p, take);
		h->pending += take;
		p += take;
		len -= take;
		if (nl != NULL) {
			XXH128_canonicalFromHash(&h->c, XXH3_128bits_digest(h->st));
			lchain_restart(h);
		}
	}
}

void sw_lchain_peek_hex(const struct sw_lchain *h, char out[SW_XXH_HEX_LEN])
{
	if (h->pending > 0)
		out[0] = '\0';
	else
		to_hex_n(h->c.digest, sizeof(h->c.digest), out);
}

void sw_lchain_free(struct sw_lchain *h)
{
	if (h == NULL)
		return;
	XXH3_freeState(h->st);
	sw_free(h);
}
