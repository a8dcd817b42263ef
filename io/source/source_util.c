/* Text, URL, time and digest rules shared by the source modules, and the
 * wire spellings of roles and classes.  See io/source/source_util.h. */

#include "io/source/source_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/util/json.h"

/* The wire spellings of roles and classes (tables/source_*.def), here
 * below both the parser (io/source/source.c) and the body scanner
 * (io/source/source_body.c). */

const char *const source_role_wire[SOURCE_ROLE__COUNT] = {
#define SOURCE_ROLE(id, wire) [SOURCE_ROLE_##id] = wire,
#include "tables/source_roles.def"
#undef SOURCE_ROLE
};

const char *const source_class_wire[SOURCE_CLASS__COUNT] = {
#define SOURCE_CLASS(id, wire) [SOURCE_CLASS_##id] = wire,
#include "tables/source_classes.def"
#undef SOURCE_CLASS
};

enum source_role source_role_from_wire(const char *s)
{
	for (int i = SOURCE_ROLE_NONE + 1; s && i < SOURCE_ROLE__COUNT; i++)
		if (strcmp(s, source_role_wire[i]) == 0)
			return (enum source_role)i;
	return SOURCE_ROLE_NONE;
}

enum source_class source_class_from_wire(const char *s)
{
	for (int i = SOURCE_CLASS_NONE + 1; s && i < SOURCE_CLASS__COUNT; i++)
		if (strcmp(s, source_class_wire[i]) == 0)
			return (enum source_class)i;
	return SOURCE_CLASS_NONE;
}

/* Decodes the code point at s[*i] (input is valid UTF-8) and advances *i.
 * An invalid byte decodes as U+FFFD, one byte long, as Go's range loop does. */
static uint32_t next_cp(const char *s, size_t len, size_t *i)
{
	const unsigned char *u = (const unsigned char *)s + *i;
	size_t left = len - *i;
	uint32_t cp;
	size_t n;

	if (u[0] < 0x80) {
		cp = u[0];
		n = 1;
	} else if ((u[0] & 0xe0) == 0xc0 && left >= 2) {
		cp = ((uint32_t)(u[0] & 0x1f) << 6) | (u[1] & 0x3f);
		n = 2;
	} else if ((u[0] & 0xf0) == 0xe0 && left >= 3) {
		cp = ((uint32_t)(u[0] & 0x0f) << 12) |
		     ((uint32_t)(u[1] & 0x3f) << 6) | (u[2] & 0x3f);
		n = 3;
	} else if ((u[0] & 0xf8) == 0xf0 && left >= 4) {
		cp = ((uint32_t)(u[0] & 0x07) << 18) |
		     ((uint32_t)(u[1] & 0x3f) << 12) |
		     ((uint32_t)(u[2] & 0x3f) << 6) | (u[3] & 0x3f);
		n = 4;
	} else {
		cp = 0xfffd;
		n = 1;
	}
	*i += n;
	return cp;
}

static int is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* Go unicode.IsSpace, plus U+FEFF when `feff`. */
static int is_space(uint32_t cp, int feff)
{
	switch (cp) {
	case '\t': case '\n': case '\v': case '\f': case '\r': case ' ':
	case 0x85: case 0xa0: case 0x1680: case 0x2028: case 0x2029:
	case 0x202f: case 0x205f: case 0x3000:
		return 1;
	case 0xfeff:
		return feff;
	default:
		return cp >= 0x2000 && cp <= 0x200a;
	}
}

int source__no_controls(const char *s, size_t len, int markdown)
{
	size_t i = 0;

	while (i < len) {
		uint32_t cp = next_cp(s, len, &i);

		if (!is_control(cp))
			continue;
		if (markdown && (cp == '\t' || cp == '\n' || cp == '\r'))
			continue;
		return 0;
	}
	return 1;
}

int source__blank(const char *s, size_t len, int feff)
{
	size_t i = 0;

	while (i < len)
		if (!is_space(next_cp(s, len, &i), feff))
			return 0;
	return 1;
}

const char *source__trim(const char *s, size_t len, size_t *out_len)
{
	size_t start = 0, end = len, i;

	while (start < len) {
		i = start;
		if (!is_space(next_cp(s, len, &i), 0))
			break;
		start = i;
	}
	/* Walk back over whole code points: find each one's lead byte. */
	while (end > start) {
		size_t lead = end - 1;

		while (lead > start && ((unsigned char)s[lead] & 0xc0) == 0x80)
			lead--;
		i = lead;
		if (!is_space(next_cp(s, len, &i), 0) || i != end)
			break;
		end = lead;
	}
	*out_len = end - start;
	return s + start;
}

int source__node_id_valid(const char *s, size_t len)
{
	size_t i = 0;

	if (len == 0)
		return 0;
	while (i < len)
		if (is_space(next_cp(s, len, &i), 1))
			return 0;
	return 1;
}

static int digits(const char *s, size_t n, int *out)
{
	int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 1;
}

static int days_in(int month, int year)
{
	static const int d[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		return 29;
	return d[month - 1];
}

/* Go's time.Parse(time.RFC3339, s) tries a strict fast path, then the
 * generic layout parser, which additionally takes a one-digit hour, a
 * comma before fractional seconds, and zone offsets up to 24:60.  The
 * union of both is what the reference accepts. */
int source__rfc3339_valid(const char *s, size_t len)
{
	int year, month, day, hour, min, sec, zh, zm;
	size_t p = 0;

	if (len < 4 || !digits(s, 4, &year))
		return 0;
	p = 4;
	if (p + 6 > len || s[p] != '-' || !digits(s + p + 1, 2, &month) ||
	    s[p + 3] != '-' || !digits(s + p + 4, 2, &day))
		return 0;
	p += 6;
	if (month < 1 || month > 12 || day < 1 || day > days_in(month, year))
		return 0;
	if (p >= len || s[p] != 'T')
		return 0;
	p++;
	/* hour: one or two digits */
	if (p >= len || s[p] < '0' || s[p] > '9')
		return 0;
	hour = s[p++] - '0';
	if (p < len && s[p] >= '0' && s[p] <= '9')
		hour = hour * 10 + (s[p++] - '0');
	if (hour > 23)
		return 0;
	if (p + 6 > len || s[p] != ':' || !digits(s + p + 1, 2, &min) ||
	    s[p + 3] != ':' || !digits(s + p + 4, 2, &sec))
		return 0;
	p += 6;
	if (min > 59 || sec > 59)
		return 0;
	if (p + 1 < len && (s[p] == '.' || s[p] == ',') &&
	    s[p + 1] >= '0' && s[p + 1] <= '9') {
		p++;
		while (p < len && s[p] >= '0' && s[p] <= '9')
			p++;
	}
	if (p < len && s[p] == 'Z')
		return p + 1 == len;
	if (p + 6 != len || (s[p] != '+' && s[p] != '-') || s[p + 3] != ':' ||
	    !digits(s + p + 1, 2, &zh) || !digits(s + p + 4, 2, &zm))
		return 0;
	return zh <= 24 && zm <= 60;
}

static int owner_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-';
}

static int repo_char(char c)
{
	return owner_char(c) || c == '_' || c == '.';
}

/* The reference parses with net/url, which lowercases the scheme.  Every
 * other deviation from the literal form is refused there too: userinfo,
 * ports, queries, fragments, escapes (they either set RawPath or decode to
 * a character no owner/repository may hold) and extra segments. */
const char *source__issue_url_check(const char *s, size_t len, int64_t expected)
{
	static const char host[] = "://github.com/";
	size_t p, start;
	uint64_t n = 0;

	if (len < 5 || strncasecmp(s, "https", 5) != 0 ||
	    len < 5 + sizeof(host) - 1 || memcmp(s + 5, host, sizeof(host) - 1) != 0)
		return "must be an https://github.com issue url";
	if (memchr(s, '?', len) || memchr(s, '#', len))
		return "must not contain a query or fragment";
	if (memchr(s, '%', len))
		return "must not contain escaped path segments";
	p = 5 + sizeof(host) - 1;
	start = p;
	while (p < len && s[p] != '/')
		if (!owner_char(s[p++]))
			return "contains an invalid github owner";
	if (p == start || p >= len)
		return "must match https://github.com/<owner>/<repo>/issues/<number>";
	start = ++p;
	while (p < len && s[p] != '/')
		if (!repo_char(s[p++]))
			return "contains an invalid github repository";
	if (p == start || p >= len ||
	    (p - start == 1 && s[start] == '.') ||
	    (p - start == 2 && s[start] == '.' && s[start + 1] == '.'))
		return "must match https://github.com/<owner>/<repo>/issues/<number>";
	p++;
	if (len - p < 8 || memcmp(s + p, "issues/", 7) != 0)
		return "must match https://github.com/<owner>/<repo>/issues/<number>";
	p += 7;
	if (memchr(s + p, '/', len - p))
		return "must match https://github.com/<owner>/<repo>/issues/<number>";
	if (s[p] == '0')
		return "issue number must be a positive canonical decimal";
	for (; p < len; p++) {
		uint64_t d = (uint64_t)(s[p] - '0');

		if (s[p] < '0' || s[p] > '9' || n > UINT64_MAX / 10 ||
		    (n == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return "issue number must be a positive canonical decimal";
		n = n * 10 + d;
	}
	if (expected > 0 && n != (uint64_t)expected)
		return "issue number must match issue_number";
	return NULL;
}

int source__comment_url_valid(const char *s, size_t len, const char *issue_url,
			      int64_t database_id)
{
	char want[64], got[64];
	const char *hash = memchr(s, '#', len);
	size_t base, flen, n = 0, ilen = strlen(issue_url);

	if (hash == NULL)
		return 0;
	base = (size_t)(hash - s);
	if (base < 8 || strncasecmp(s, "https", 5) != 0 ||
	    memcmp(s + 5, "://", 3) != 0)
		return 0;
	if (ilen != base || memcmp(issue_url, "https://", 8) != 0 ||
	    memcmp(issue_url + 8, s + 8, base - 8) != 0)
		return 0;
	snprintf(want, sizeof(want), "issuecomment-%" PRId64, database_id);
	flen = len - base - 1;
	for (size_t i = 0; i < flen; i++) {
		const char *f = hash + 1;
		char c = f[i];

		if (c == '%') {
			if (i + 2 >= flen)
				return 0;
			if (sw_hex_digit((unsigned char)f[i + 1]) < 0 || sw_hex_digit((unsigned char)f[i + 2]) < 0)
				return 0;
			c = (char)(sw_hex_digit((unsigned char)f[i + 1]) * 16 + sw_hex_digit((unsigned char)f[i + 2]));
			i += 2;
		}
		if (n + 1 >= sizeof(got))
			return 0;
		got[n++] = c;
	}
	got[n] = '\0';
	return n == strlen(want) && memcmp(got, want, n) == 0;
}

int source__key_valid(const char *s, size_t len)
{
	if (len == 0 || len > 64)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (i > 0 && (c == '-' || c == '_' || c == '.'))
			continue;
		return 0;
	}
	return 1;
}

char *source__normalize(const char *s, size_t len, size_t *out_len)
{
	char *o = sw_malloc(len + 1);
	size_t n = 0;

	if (o == NULL)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\r') {
			o[n++] = '\n';
			if (i + 1 < len && s[i + 1] == '\n')
				i++;
			continue;
		}
		o[n++] = s[i];
	}
	o[n] = '\0';
	*out_len = n;
	return o;
}

int source__framed(char out[SW_DIGEST_LEN], const struct source__field *f,
		   size_t n, struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	int rc;

	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		sw_sha256_field(h, f[i].p, f[i].len);
	sw_sha256_final_prefixed(h, out);
	return 0;
}

#define STR(x) { (x), strlen(x) }

int source__comment_digest(char out[SW_DIGEST_LEN], const char *body,
			   size_t len, struct sw_error *err)
{
	struct source__field f[] = { STR(SOURCE_COMMENT_BODY_DOMAIN), { body, len } };

	return source__framed(out, f, 2, err);
}

int source__section_digest(char out[SW_DIGEST_LEN], const char *key,
			   enum source_role role, const char *title,
			   const void *payload, size_t len, struct sw_error *err)
{
	struct source__field f[] = {
		STR("slipway-section/v2"), STR(key), STR(source_role_wire[role]),
		STR(title), { payload, len },
	};

	return source__framed(out, f, 5, err);
}

int source__manifest_revision(char out[SW_DIGEST_LEN], int manifest_version,
			      const char *profile, const char *parent,
			      const struct source__manifest_section *s, size_t n,
			      struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	char num[32];
	int rc;

	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	snprintf(num, sizeof(num), "%d", manifest_version);
	sw_sha256_field(h, "slipway-manifest/v2", 19);
	sw_sha256_field(h, num, strlen(num));
	sw_sha256_field(h, profile, strlen(profile));
	sw_sha256_field(h, parent ? parent : "", parent ? strlen(parent) : 0);
	for (size_t i = 0; i < n; i++) {
		const char *role = source_role_wire[s[i].role];

		snprintf(num, sizeof(num), "%" PRId64, s[i].comment_database_id);
		sw_sha256_field(h, s[i].key, strlen(s[i].key));
		sw_sha256_field(h, role, strlen(role));
		sw_sha256_field(h, s[i].title, strlen(s[i].title));
		sw_sha256_field(h, s[i].comment_node_id, strlen(s[i].comment_node_id));
		sw_sha256_field(h, num, strlen(num));
		sw_sha256_field(h, s[i].body_sha256, strlen(s[i].body_sha256));
	}
	sw_sha256_final_prefixed(h, out);
	return 0;
}

int source__requirements_revision(char out[SW_DIGEST_LEN], const char *profile,
				  const struct source__manifest_section *s,
				  size_t n, struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	int rc;

	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	sw_sha256_field(h, "slipway-requirements/v2", 23);
	sw_sha256_field(h, profile, strlen(profile));
	for (size_t i = 0; i < n; i++) {
		const char *role = source_role_wire[s[i].role];

		sw_sha256_field(h, s[i].key, strlen(s[i].key));
		sw_sha256_field(h, role, strlen(role));
		sw_sha256_field(h, s[i].title, strlen(s[i].title));
		sw_sha256_field(h, s[i].section_revision, strlen(s[i].section_revision));
	}
	sw_sha256_final_prefixed(h, out);
	return 0;
}

int source__source_revision(char out[SW_DIGEST_LEN], const char *host,
			    const char *repository_id, const char *issue_id,
			    const char *title, const char *manifest_revision,
			    struct sw_error *err)
{
	size_t tlen = 0;
	char *t = source__normalize(title, strlen(title), &tlen);
	int rc;

	if (t == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot normalize title");
	{
		struct source__field f[] = {
			STR("slipway-source/v2"), STR("2"), STR(host),
			STR(repository_id), STR(issue_id), { t, tlen },
			STR(manifest_revision),
		};

		rc = source__framed(out, f, 7, err);
	}
	sw_free(t);
	return rc;
}

const char *source__manifest_check(const struct source__manifest_section *s,
				   size_t n, char *why, size_t whylen)
{
	unsigned roles[SOURCE_ROLE__COUNT] = { 0 };

	if (n < SOURCE_MIN_SECTIONS || n > SOURCE_MAX_SECTIONS) {
		snprintf(why, whylen, "sections must contain %u..%u entries",
			 SOURCE_MIN_SECTIONS, SOURCE_MAX_SECTIONS);
		return why;
	}
	for (size_t i = 0; i < n; i++) {
		size_t tlen = strlen(s[i].title);

		if (!source__key_valid(s[i].key, strlen(s[i].key))) {
			snprintf(why, whylen, "sections[%zu].key must be 1..64 "
				 "lowercase ascii key characters", i);
			return why;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(s[j].key, s[i].key) == 0) {
				snprintf(why, whylen, "sections[%zu].key duplicates "
					 "\"%s\"", i, s[i].key);
				return why;
			}
		if (s[i].role == SOURCE_ROLE_NONE) {
			snprintf(why, whylen, "sections[%zu].role is unsupported", i);
			return why;
		}
		roles[s[i].role]++;
		if (!source__no_controls(s[i].title, tlen, 0)) {
			snprintf(why, whylen, "sections[%zu].title contains a "
				 "disallowed control", i);
			return why;
		}
		if (source__blank(s[i].title, tlen, 1) ||
		    tlen > SOURCE_MAX_TITLE_BYTES) {
			snprintf(why, whylen, "sections[%zu].title must contain "
				 "1..%u bytes", i, SOURCE_MAX_TITLE_BYTES);
			return why;
		}
		if (!source__node_id_valid(s[i].comment_node_id,
					   strlen(s[i].comment_node_id))) {
			snprintf(why, whylen, "sections[%zu].comment_node_id must "
				 "be a github node id", i);
			return why;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(s[j].comment_node_id, s[i].comment_node_id) == 0) {
				snprintf(why, whylen, "sections[%zu].comment_node_id "
					 "is duplicated", i);
				return why;
			}
		if (s[i].comment_database_id <= 0) {
			snprintf(why, whylen, "sections[%zu].comment_database_id "
				 "must be positive", i);
			return why;
		}
		for (size_t j = 0; j < i; j++)
			if (s[j].comment_database_id == s[i].comment_database_id) {
				snprintf(why, whylen, "sections[%zu].comment_database_id "
					 "is duplicated", i);
				return why;
			}
		if (!sw_digest_valid(s[i].body_sha256)) {
			snprintf(why, whylen, "sections[%zu].body_sha256 must use "
				 "lowercase sha256:<64 hex> format", i);
			return why;
		}
	}
	for (int r = SOURCE_ROLE_NONE + 1; r < SOURCE_ROLE__COUNT; r++)
		if (roles[r] == 0) {
			snprintf(why, whylen, "sections require at least one \"%s\" "
				 "role", source_role_wire[r]);
			return why;
		}
	return NULL;
}
