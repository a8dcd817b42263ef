#ifndef IO_UTIL_DIGEST_H
#define IO_UTIL_DIGEST_H

/* SHA-256 helpers (OpenSSL) and the reference's two framings.
 *
 * "sections" framing, S(name, bytes) = "\0" name "\0" decimal(len) "\0" bytes,
 * is used by the workspace identity and Git fingerprints; the "framed"
 * digest hashes, for each field, an 8-byte big-endian length then the bytes,
 * and is used by source, material, answer and comment revisions. */

#include <stddef.h>
#include <stdint.h>

#include "io/util/err.h"

/* "sha256:" + 64 lowercase hex + NUL */
#define SW_DIGEST_LEN 72
/* 64 lowercase hex + NUL */
#define SW_HEX_LEN 65

struct sw_sha256;	/* an incremental hash; opaque */

int sw_sha256_new(struct sw_sha256 **out, struct sw_error *err);
void sw_sha256_update(struct sw_sha256 *h, const void *buf, size_t len);
/* Appends S(name, bytes). */
void sw_sha256_section(struct sw_sha256 *h, const char *name,
		       const void *bytes, size_t len);
/* As sw_sha256_section with a NUL-terminated value. */
void sw_sha256_section_str(struct sw_sha256 *h, const char *name,
			   const char *value);
/* Appends one framed field: 8-byte big-endian length, then the bytes. */
void sw_sha256_field(struct sw_sha256 *h, const void *bytes, size_t len);
/* Writes "sha256:<hex>" into `out` (SW_DIGEST_LEN bytes) and frees `h`. */
void sw_sha256_final_prefixed(struct sw_sha256 *h, char out[SW_DIGEST_LEN]);
/* Writes "<hex>" into `out` (SW_HEX_LEN bytes) and frees `h`. */
void sw_sha256_final_hex(struct sw_sha256 *h, char out[SW_HEX_LEN]);
void sw_sha256_free(struct sw_sha256 *h);
/* The digest of a material (a stored context or Issue section):
 * framed("slipway-material/v1", bytes) as "sha256:<hex>".  The one
 * definition every writer and checker of materials uses.  SW_ENOMEM (out
 * is then ""). */
int sw_material_digest(char out[SW_DIGEST_LEN], const void *bytes, size_t len,
		       struct sw_error *err);

/* Writes the 2n lowercase hex digits of bytes[0..n) at `out`, with no
 * NUL; returns the end. */
char *sw_hex_bytes(char *out, const void *bytes, size_t n);

/* One-shot plain digests of a buffer. */
void sw_sha256_hex(const void *buf, size_t len, char out[SW_HEX_LEN]);
void sw_sha256_prefixed(const void *buf, size_t len, char out[SW_DIGEST_LEN]);

/* A fast incremental check of our own caches' bytes (XXH3-128, libxxhash):
 * it tells changed bytes apart, which is all a cache needs; it is no
 * defence against someone who may write the files anyway.  Nothing on the
 * wire uses it. */
#define SW_XXH_HEX_LEN 33	/* 32 lowercase hex + NUL */
struct sw_xxh;
int sw_xxh_new(struct sw_xxh **out, struct sw_error *err);
/* A new state that has seen what `h` has seen.  SW_ENOMEM. */
int sw_xxh_copy(struct sw_xxh **out, const struct sw_xxh *h, struct sw_error *err);
void sw_xxh_update(struct sw_xxh *h, const void *buf, size_t len);
/* The digest of the bytes so far, leaving `h` open for more. */
void sw_xxh_peek_hex(const struct sw_xxh *h, char out[SW_XXH_HEX_LEN]);
void sw_xxh_free(struct sw_xxh *h);
void sw_xxh_hex(const void *buf, size_t len, char out[SW_XXH_HEX_LEN]);

/* XXH3-128 chained over the lines of a line-structured file (the journal):
 * starting from 16 zero bytes, each complete line, '\n' included, folds
 * into the value as c = XXH3-128(c || line).  Bytes may be fed in any
 * pieces.  The value after a complete line is all the state there is, so
 * a reader that trusts it may resume from it (sw_lchain_from_hex) without
 * the lines before; peek gives "" while a line is pending. */
struct sw_lchain;
int sw_lchain_new(struct sw_lchain **out, struct sw_error *err);
/* Resumes from a value peeked earlier.  SW_EINVAL, SW_ENOMEM. */
int sw_lchain_from_hex(struct sw_lchain **out, const char *hex, struct sw_error *err);
int sw_lchain_copy(struct sw_lchain **out, const struct sw_lchain *h, struct sw_error *err);
void sw_lchain_update(struct sw_lchain *h, const void *buf, size_t len);
void sw_lchain_peek_hex(const struct sw_lchain *h, char out[SW_XXH_HEX_LEN]);
void sw_lchain_free(struct sw_lchain *h);

/* 1 if `s` is "sha256:" followed by exactly 64 lowercase hex digits. */
int sw_digest_valid(const char *s);

#endif
