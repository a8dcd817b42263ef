#ifndef IO_SOURCE_SOURCE_UTIL_H
#define IO_SOURCE_SOURCE_UTIL_H

/* Text, URL, time and digest rules shared by the source modules
 * (io/source/source.c, io/source/source_body.c, io/source/source_json.c).  Module-internal: the
 * functions carry the source__ prefix.  All strings are valid UTF-8 of the
 * given length (they come from the strict JSON reader). */

#include <stddef.h>
#include <stdint.h>

#include "io/util/digest.h"
#include "io/util/err.h"
#include "io/source/source.h"

/* 1 if the text has no Unicode control character (C0, DEL, C1); with
 * `markdown` TAB, LF and CR are allowed. */
int source__no_controls(const char *s, size_t len, int markdown);

/* 1 if every code point is white space in Go's unicode.IsSpace sense (the
 * reference trims with it), or the string is empty.  With `feff` U+FEFF also
 * counts, as the schema's ECMAScript \s does; output text must satisfy both. */
int source__blank(const char *s, size_t len, int feff);

/* Go strings.TrimSpace: trims white space at both ends; returns the start
 * and stores the trimmed length. */
const char *source__trim(const char *s, size_t len, size_t *out_len);

/* A GitHub node id: non-empty, no white space (incl. U+FEFF) anywhere. */
int source__node_id_valid(const char *s, size_t len);

/* RFC 3339 as Go's time.Parse(time.RFC3339, s) accepts it. */
int source__rfc3339_valid(const char *s, size_t len);

/* https://github.com/<owner>/<repo>/issues/<n>, n canonical decimal, equal
 * to `expected` when expected > 0.  Returns NULL if valid, else a static
 * reason. */
const char *source__issue_url_check(const char *s, size_t len, int64_t expected);

/* 1 if `s` is `issue_url`#issuecomment-<database_id> (fragment compared
 * after percent-decoding, scheme case-insensitive, as the reference does). */
int source__comment_url_valid(const char *s, size_t len, const char *issue_url,
			      int64_t database_id);

/* ^[a-z0-9][a-z0-9._-]{0,63}$ */
int source__key_valid(const char *s, size_t len);

/* Copies `len` bytes with CRLF and lone CR turned into LF.  Returns a new
 * NUL-terminated sw_malloc'd buffer (length in *out_len) or NULL. */
char *source__normalize(const char *s, size_t len, size_t *out_len);

/* One field of a framed digest. */
struct source__field {
	const void *p;
	size_t len;
};

/* framed(fields...) into out.  Codes: SW_ENOMEM. */
int source__framed(char out[SW_DIGEST_LEN], const struct source__field *f,
		   size_t n, struct sw_error *err);

/* framed("slipway-comment-body/v1", body) of an already-normalized body. */
int source__comment_digest(char out[SW_DIGEST_LEN], const char *body,
			   size_t len, struct sw_error *err);
/* framed("slipway-section/v2", key, role, title, payload) */
int source__section_digest(char out[SW_DIGEST_LEN], const char *key,
			   enum source_role role, const char *title,
			   const void *payload, size_t len, struct sw_error *err);

/* One manifest entry, as the manifest and its revision see it. */
struct source__manifest_section {
	const char *key;
	enum source_role role;
	const char *title;
	const char *comment_node_id;
	int64_t comment_database_id;
	const char *body_sha256;
	const char *section_revision;	/* only for the requirements revision */
};

/* framed("slipway-manifest/v2", "2", profile, parent or "", per section:
 * key, role, title, node id, decimal database id, body digest). */
int source__manifest_revision(char out[SW_DIGEST_LEN], int manifest_version,
			      const char *profile, const char *parent,
			      const struct source__manifest_section *s, size_t n,
			      struct sw_error *err);
/* framed("slipway-requirements/v2", profile, per section: key, role, title,
 * section revision). */
int source__requirements_revision(char out[SW_DIGEST_LEN], const char *profile,
				  const struct source__manifest_section *s,
				  size_t n, struct sw_error *err);
/* framed("slipway-source/v2", "2", host, repository, issue, normalized
 * title, manifest revision). */
int source__source_revision(char out[SW_DIGEST_LEN], const char *host,
			    const char *repository_id, const char *issue_id,
			    const char *title, const char *manifest_revision,
			    struct sw_error *err);

/* The manifest rules (validateSourceManifest): 5..64 sections, keys, roles,
 * titles, unique comment ids, digest form.  Returns NULL if valid, else
 * writes a reason into `why` (plain text) and returns it. */
const char *source__manifest_check(const struct source__manifest_section *s,
				   size_t n, char *why, size_t whylen);

#endif
