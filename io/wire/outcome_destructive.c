/* Destructive requests: target kinds, request ids, the canonical scope and
 * its digest (MAP 8), and the check of a request as a whole.  Never reads
 * the rest of the Outcome: outcome_check.c calls in with the request. */

#include "io/wire/outcome_internal.h"

#include <string.h>

#include "io/util/buf.h"

/* Destructive target kinds, in enum outcome_target_kind order. */
static const char *const target_kind_wire[] = {
	"", "path", "git_ref", "external_resource", "data_domain", NULL,
};

enum outcome_target_kind outcome_target_kind_lookup(const char *s)
{
	size_t i;

	for (i = 1; target_kind_wire[i] != NULL; i++)
		if (strcmp(s, target_kind_wire[i]) == 0)
			return (enum outcome_target_kind)i;
	return OUTCOME_TARGET_NONE;
}

int outcome_uuid_valid(const char *s)
{
	size_t i;
	int nonzero = 0;

	if (strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
			continue;
		}
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
		nonzero |= s[i] != '0';
	}
	/* RFC 4122 variant: the top bits of the clock_seq byte are 10. */
	if (!strchr("89ab", s[19]))
		return 0;
	return nonzero;
}

/* Appends `s` as a canonical JSON string (MAP 8): only `"`, `\` and C0
 * controls are escaped; every other byte, UTF-8 included, goes in raw. */
static void canonical_string(struct sw_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0, i;
	char esc[7];

	sw_buf_ch(b, '"');
	for (i = 0;; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		size_t replen = 2;

		if (c != '\0' && c >= 0x20 && c != '"' && c != '\\')
			continue;
		sw_buf_add(b, s + run, i - run);
		if (c == '\0')
			break;
		switch (c) {
		case '"': rep = "\\\""; break;
		case '\\': rep = "\\\\"; break;
		case '\b': rep = "\\b"; break;
		case '\t': rep = "\\t"; break;
		case '\n': rep = "\\n"; break;
		case '\f': rep = "\\f"; break;
		case '\r': rep = "\\r"; break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0x0f];
			rep = esc;
			replen = 6;
			break;
		}
		sw_buf_add(b, rep, replen);
		run = i + 1;
	}
	sw_buf_ch(b, '"');
}

static int check_targets(const struct outcome_request *r, struct sw_error *err)
{
	size_t i;

	if (r->n_targets == 0)
		return sw_error_set(err, SW_EINVAL, "targets must contain at least one target");
	for (i = 0; i < r->n_targets; i++) {
		const struct outcome_target *t = &r->targets[i], *p;
		int ck, cv;

		if (outcome_target_kind_lookup(t->kind) == OUTCOME_TARGET_NONE)
			return sw_error_set(err, SW_EINVAL,
					    "targets[%zu] has an unsupported kind \"%.64s\"; allowed: path, "
					    "git_ref, external_resource, data_domain", i, t->kind);
		if (!outcome_text_nonblank(t->value, strlen(t->value)) ||
		    !outcome_text_plain(t->value, strlen(t->value)))
			return sw_error_set(err, SW_EINVAL,
					    "targets[%zu].value must be non-empty plain text", i);
		if (i == 0)
			continue;
		p = &r->targets[i - 1];
		ck = strcmp(p->kind, t->kind);
		cv = strcmp(p->value, t->value);
		if (ck == 0 && cv == 0)
			return sw_error_set(err, SW_EINVAL, "targets[%zu] duplicates targets[%zu]", i, i - 1);
		if (ck > 0 || (ck == 0 && cv > 0))
			return sw_error_set(err, SW_EINVAL, "targets must be bytewise sorted by kind and value");
	}
	return 0;
}

int outcome_scope_canonical(char **out, size_t *len, const struct outcome_request *r,
			    struct sw_error *err)
{
	struct sw_buf b = SW_BUF_INIT;
	int rc;

	*out = NULL;
	*len = 0;
	if (!outcome_uuid_valid(r->request_id))
		return sw_error_set(err, SW_EINVAL,
				    "request_id must be a canonical lowercase non-nil RFC UUID");
	if (!outcome_text_nonblank(r->impact, strlen(r->impact)) ||
	    !outcome_text_markdown(r->impact, strlen(r->impact)))
		return sw_error_set(err, SW_EINVAL, "impact must be non-empty markdown text");
	if ((rc = check_targets(r, err)) < 0)
		return rc;
	sw_buf_str(&b, "{\"impact\":");
	canonical_string(&b, r->impact);
	sw_buf_str(&b, ",\"request_id\":");
	canonical_string(&b, r->request_id);
	sw_buf_str(&b, ",\"scope_version\":1,\"targets\":[");
	for (size_t i = 0; i < r->n_targets; i++) {
		sw_buf_str(&b, i ? ",{\"kind\":" : "{\"kind\":");
		canonical_string(&b, r->targets[i].kind);
		sw_buf_str(&b, ",\"value\":");
		canonical_string(&b, r->targets[i].value);
		sw_buf_ch(&b, '}');
	}
	sw_buf_str(&b, "]}");
	*len = b.len;
	if ((*out = sw_buf_detach(&b)) == NULL) {
		*len = 0;
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	return 0;
}

int outcome_scope_sha256(const struct outcome_request *r,
			 char out[SW_DIGEST_LEN], struct sw_error *err)
{
	char *canon;
	size_t len;
	int rc;

	if ((rc = outcome_scope_canonical(&canon, &len, r, err)) < 0)
		return rc;
	sw_sha256_prefixed(canon, len, out);
	sw_free(canon);
	return 0;
}

void outcome_scope_example(struct outcome_request *r, struct outcome_target targets[2])
{
	static char request_id[] = "3f0c6a52-9b1e-4d7a-8c2f-5e4b1a9d7c60";
	static char impact[] = "Deletes the build/cache directory and the local branch old-release; "
			       "both can be rebuilt from origin.";
	static char k0[] = "git_ref", v0[] = "refs/heads/old-release";
	static char k1[] = "path", v1[] = "build/cache";

	targets[0] = (struct outcome_target){ k0, v0 };
	targets[1] = (struct outcome_target){ k1, v1 };
	*r = (struct outcome_request){ request_id, targets, 2, impact, NULL };
}

int outcome_request_verify(const struct outcome_request *r,
			   struct sw_error *err)
{
	char digest[SW_DIGEST_LEN];
	int rc;

	if (!sw_digest_valid(r->scope_sha256))
		return sw_error_set(err, SW_EINVAL,
				    "destructive_request.scope_sha256 must use lowercase sha256:<64 hex> format");
	if ((rc = outcome_scope_sha256(r, digest, err)) < 0)
		return rc;
	if (strcmp(digest, r->scope_sha256) != 0)
		return sw_error_set(err, SW_EINVAL,
				    "destructive_request.scope_sha256 does not match its canonical scope: "
				    "for the request as sent it is %s, the SHA-256 of the UTF-8 bytes "
				    "{\"impact\":I,\"request_id\":R,\"scope_version\":1,\"targets\":"
				    "[{\"kind\":K,\"value\":V},...]} (keys in this order, targets as sent, "
				    "no whitespace, no trailing newline; strings escape only \\\", \\\\ "
				    "and controls below U+0020)", digest);
	return 0;
}

int outcome__check_request(const struct outcome_request *r, struct sw_error *err)
{
	struct sw_error local = SW_ERROR_INIT;
	int rc;

	if ((rc = outcome_request_verify(r, &local)) == 0)
		return 0;
	if (rc == SW_ENOMEM)
		return sw_error_set(err, SW_ENOMEM, "%s", local.msg);
	return sw_error_proto(err, INVALID, "invalid destructive_request: %s", local.msg);
}
