#ifndef IO_SOURCE_SOURCE_H
#define IO_SOURCE_SOURCE_H

/* Source envelope intake: reads a host-supplied GitHub Issue envelope
 * (source-envelope.schema.json), validates it, classifies its body and
 * produces either a pinned source (a path-free catalog of manifest
 * sections plus their Markdown payloads) or an invalid candidate.
 *
 * Calling sequence: source_read_file, then source_parse_candidate (resume:
 * body failures become an invalid candidate) or source_parse (new Run: body
 * failures are errors); read the result; *_free.
 *
 * Two kinds of failure, as the reference draws them:
 *   - hard errors (malformed JSON, unknown or missing keys, identity or
 *     projection rules) are returned as negative codes: SW_EPARSE for the
 *     JSON shape, SW_EINVAL for a broken rule, SW_ETOOBIG over 16 MiB;
 *   - body classification failures (marker, manifest, sections) are a
 *     candidate with valid = 0 and a classification code.
 *
 * Nothing returned keeps the raw body, labels, envelope timestamps, the file
 * path or comments the manifest does not reference. */

#include <stddef.h>
#include <stdint.h>

#include "io/util/digest.h"
#include "io/util/err.h"

#define SOURCE_VERSION 2
#define SOURCE_PARSER_VERSION 2
#define SOURCE_MANIFEST_VERSION 2
#define SOURCE_PROFILE "change/v2"

#define SOURCE_MAX_FILE_BYTES 16777216u
#define SOURCE_MAX_MANIFEST_BYTES 262144u
#define SOURCE_MAX_SECTION_BYTES 262144u
#define SOURCE_MAX_BUNDLE_BYTES 4194304u
#define SOURCE_MAX_SECTIONS 64u
#define SOURCE_MAX_LABELS 100u
#define SOURCE_MAX_URL_ALIASES 64u
#define SOURCE_MAX_TITLE_BYTES 512u
#define SOURCE_MAX_CLASS_ERROR_BYTES 1024u
#define SOURCE_MIN_SECTIONS 5u

/* The body format of a Change Issue.  The parser (io/source/source_body.c) and the
 * capability texts that teach hosts to write and fetch such an Issue
 * (io/adapters/capabilities/NAME.md, expanded at build time by mk/gen/gencap.c) take these
 * spellings from here, so the two cannot drift apart. */
#define SOURCE_CHANGE_MARKER "<!-- slipway-level: change/v2 -->"
#define SOURCE_LEVEL_MARKER_PREFIX "<!-- slipway-level:"
#define SOURCE_OBJECTIVE_MARKER_HINT "slipway-level: objective/"
#define SOURCE_MANIFEST_FENCE "```slipway-manifest"
#define SOURCE_MANIFEST_CLOSE "```"
/* A section comment's first non-blank line: prefix, key, suffix. */
#define SOURCE_SECTION_MARKER_PREFIX "<!-- slipway-section:v1 key="
#define SOURCE_SECTION_MARKER_SUFFIX " -->"
/* What source__key_valid accepts, spelled for the texts. */
#define SOURCE_KEY_PATTERN "^[a-z0-9][a-z0-9._-]{0,63}$"
/* Domain tag of a comment body digest (manifest `body_sha256`). */
#define SOURCE_COMMENT_BODY_DOMAIN "slipway-comment-body/v1"

enum source_role {
#define SOURCE_ROLE(id, wire) SOURCE_ROLE_##id,
#include "tables/source_roles.def"
#undef SOURCE_ROLE
	SOURCE_ROLE__COUNT
};

enum source_class {
#define SOURCE_CLASS(id, wire) SOURCE_CLASS_##id,
#include "tables/source_classes.def"
#undef SOURCE_CLASS
	SOURCE_CLASS__COUNT
};

extern const char *const source_role_wire[SOURCE_ROLE__COUNT];
extern const char *const source_class_wire[SOURCE_CLASS__COUNT];

/* The sentinel (NONE) for an unknown spelling. */
enum source_role source_role_from_wire(const char *s);
enum source_class source_class_from_wire(const char *s);

struct source_parent {
	char *repository_id;
	char *issue_id;
	char *canonical_url;
};

struct source_provenance {
	char *comment_node_id;
	int64_t comment_database_id;
	char *url;
	char *author_id;
	char *observed_updated_at;
};

struct source_section {
	char *key;
	enum source_role role;
	char *title;
	char body_sha256[SW_DIGEST_LEN];
	char section_revision[SW_DIGEST_LEN];
	char material_sha256[SW_DIGEST_LEN];
	size_t bytes;
	struct source_provenance provenance;
	/* The section Markdown (`bytes` long, not NUL-terminated), for the
	 * caller to store as material `material_sha256`.  NULL in a source
	 * decoded from the journal. */
	unsigned char *payload;
};

struct source_pinned {
	int source_version;
	int parser_version;
	int manifest_version;
	char *profile;
	char *provider;
	char *host;
	char *repository_id;
	char *issue_id;
	int64_t issue_number;
	char *canonical_url;
	char **url_aliases;
	size_t n_url_aliases;
	char source_revision[SW_DIGEST_LEN];
	char manifest_revision[SW_DIGEST_LEN];
	char requirements_revision[SW_DIGEST_LEN];
	char parent_requirements_revision[SW_DIGEST_LEN];	/* "" if absent */
	char *title;
	struct source_parent *parent;				/* NULL if absent */
	struct source_section *sections;
	size_t n_sections;
};

/* A refreshed envelope, classified.  A valid candidate has `snapshot`,
 * `source_revision`, `requirements_revision` and `title`, and empty
 * `observation_sha256`; an invalid one has `classification_error` (plain
 * text, at most 1024 bytes) and `observation_sha256`, and none of the
 * others. */
struct source_candidate {
	int valid;
	enum source_class code;
	char *classification_error;		/* NULL when valid */
	int source_version;
	int parser_version;
	char *provider;
	char *host;
	char *repository_id;
	char *issue_id;
	int64_t issue_number;
	char *canonical_url;
	char **url_aliases;
	size_t n_url_aliases;
	char observation_sha256[SW_DIGEST_LEN];	/* "" when valid */
	char source_revision[SW_DIGEST_LEN];	/* "" when invalid */
	char requirements_revision[SW_DIGEST_LEN];	/* "" when invalid */
	char *title;				/* NULL when invalid */
	struct source_parent *parent;		/* NULL if absent */
	struct source_pinned *snapshot;		/* NULL when invalid */
};

/* Reads the envelope file at `path` into a new sw_malloc'd buffer (*out,
 * *out_len; NUL-terminated for convenience).  Only a regular file reached
 * without following a symlink in the last component is read, and its
 * identity (device, inode) must stay the same between lstat, open and the
 * end of the read.  Codes: SW_EINVAL empty path, SW_ENOTFOUND missing,
 * SW_EUNSAFE symlink / not regular / identity changed, SW_ETOOBIG over
 * SOURCE_MAX_FILE_BYTES, SW_EIO other OS errors, SW_ENOMEM.  On failure *out
 * is NULL. */
int source_read_file(char **out, size_t *out_len, const char *path,
		     struct sw_error *err);

/* Validates the envelope in `len` bytes at `buf` and classifies its body.
 * On success *out is a new candidate (valid or invalid) the caller frees
 * with source_candidate_free.  Codes: SW_ETOOBIG, SW_EPARSE (JSON or key
 * shape), SW_EINVAL (a validation rule), SW_ENOMEM.  On failure *out is
 * NULL. */
int source_parse_candidate(struct source_candidate **out, const char *buf,
			   size_t len, struct sw_error *err);

/* As source_parse_candidate, but a body classification failure is an error
 * (SW_EINVAL, message names the classification code) and success yields the
 * pinned snapshot only.  `*code_out`, if not NULL, receives the
 * classification code (SOURCE_CLASS_VALID_CHANGE on success, NONE for a hard
 * error).  The caller frees *out with source_pinned_free. */
int source_parse(struct source_pinned **out, enum source_class *code_out,
		 const char *buf, size_t len, struct sw_error *err);

/* Checks every persisted-source rule (projection, versions, sections,
 * manifest rules, provenance URLs) and recomputes manifest, source and
 * requirements revisions; when payloads are present also material and
 * section revisions.  Codes: SW_EINVAL, SW_ENOMEM. */
int source_pinned_validate(const struct source_pinned *p, struct sw_error *err);

/* The persisted-candidate rules: validity decides which of the revisions,
 * title, snapshot and classification_error are present; the projection
 * rules of a pinned source; a valid candidate matches its (validated)
 * snapshot.  Codes: SW_EINVAL, SW_ENOMEM. */
int source_candidate_validate(const struct source_candidate *c,
			      struct sw_error *err);

/* Deep copy.  *out NULL on failure (SW_ENOMEM). */
int source_pinned_clone(struct source_pinned **out,
			const struct source_pinned *p, struct sw_error *err);

void source_pinned_free(struct source_pinned *p);
void source_candidate_free(struct source_candidate *c);

/* The source_revision of a pinned source whose projection (repository id)
 * changed while its manifest did not: framed("slipway-source/v2", "2",
 * host, repository_id, issue_id, normalized title, manifest_revision).
 * Codes: SW_ENOMEM. */
int source_revision_compute(char out[SW_DIGEST_LEN], const char *host,
			    const char *repository_id, const char *issue_id,
			    const char *title, const char *manifest_revision,
			    struct sw_error *err);

/* framed("slipway-comment-body/v1", body with CRLF/CR turned into LF): the
 * digest a manifest must declare for a comment body.  Codes: SW_ENOMEM. */
int source_comment_body_sha256(char out[SW_DIGEST_LEN], const char *body,
			       size_t len, struct sw_error *err);

#endif
