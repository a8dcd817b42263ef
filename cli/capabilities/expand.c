/* Expands a capability text template (cli/capabilities/NAME.md.in) into the
 * text that is embedded and installed (build/gen/capabilities/NAME.md).
 *
 *   expand IN OUT
 *
 * A token `{{NAME}}` or `{{NAME ARG}}` is replaced by the spelling the source
 * parser itself uses: markers, fences, versions, limits (io/source.h), roles
 * (tables/source_roles.def) and the rejection table built from
 * tables/source_classes.def, tables/error_codes.def and
 * tables/source_fixes.def.  An unknown token, an unclosed token, or a
 * rejection code without a fix row fails the build, so a text can never name
 * a spelling the parser does not accept.  Built and run by mk/captext.mk. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/source.h"

enum sc {
#define SOURCE_CLASS(id, wire) SC_##id,
#include "tables/source_classes.def"
#undef SOURCE_CLASS
	SC__COUNT
};

static const char *const class_wire[] = {
#define SOURCE_CLASS(id, wire) [SC_##id] = wire,
#include "tables/source_classes.def"
#undef SOURCE_CLASS
};

static const char *const role_wire[] = {
#define SOURCE_ROLE(id, wire) wire,
#include "tables/source_roles.def"
#undef SOURCE_ROLE
};

enum ec {
#define ERR(id, wire, exit, rec, det) EC_##id,
#include "tables/error_codes.def"
#undef ERR
	EC__COUNT
};

static const struct {
	const char *wire;
	int exit;
} errs[] = {
#define ERR(id, wire, exit, rec, det) [EC_##id] = { wire, exit },
#include "tables/error_codes.def"
#undef ERR
};

struct fix {
	int is_err;
	int id;
	const char *text;
};

static const struct fix fixes[] = {
#define SOURCE_FIX_CLASS(id, text) { 0, SC_##id, text },
#define SOURCE_FIX_ERR(id, text) { 1, EC_##id, text },
#include "tables/source_fixes.def"
#undef SOURCE_FIX_CLASS
#undef SOURCE_FIX_ERR
};

#define NFIXES (sizeof(fixes) / sizeof(fixes[0]))
#define STR_(x) #x
#define STR(x) STR_(x)

static int has_fix(int is_err, int id)
{
	for (size_t i = 0; i < NFIXES; i++)
		if (fixes[i].is_err == is_err && fixes[i].id == id)
			return 1;
	return 0;
}

/* Every rejection code has a fix row (see tables/source_fixes.def). */
static int check_fixes(void)
{
	int ok = 1;

	for (int c = SC_NONE + 1; c < SC__COUNT; c++)
		if (c != SC_VALID_CHANGE && !has_fix(0, c)) {
			fprintf(stderr, "expand: classification code %s has no row in tables/source_fixes.def\n",
				class_wire[c]);
			ok = 0;
		}
	for (int e = EC_NONE + 1; e < EC__COUNT; e++)
		if (strstr(errs[e].wire, "source") && !has_fix(1, e)) {
			fprintf(stderr, "expand: error code %s has no row in tables/source_fixes.def\n",
				errs[e].wire);
			ok = 0;
		}
	return ok;
}

static void print_roles(FILE *out)
{
	size_t n = sizeof(role_wire) / sizeof(role_wire[0]);

	for (size_t i = 1; i < n; i++)
		fprintf(out, "%s`%s`", i == 1 ? "" : i + 1 == n ? " and " : ", ",
			role_wire[i]);
}

static void print_role_list(FILE *out)
{
	size_t n = sizeof(role_wire) / sizeof(role_wire[0]);

	for (size_t i = 1; i < n; i++)
		fprintf(out, "%s%s", i == 1 ? "" : " ", role_wire[i]);
}

static int expand_text(FILE *out, const char *text, const char *src);

/* The rejection table; fix texts may use tokens too.  0 on a bad token. */
static int print_rejections(FILE *out)
{
	fputs("| Code | Reported as | Fix |\n| --- | --- | --- |\n", out);
	for (size_t i = 0; i < NFIXES; i++) {
		const struct fix *f = &fixes[i];

		if (f->is_err)
			fprintf(out, "| `%s` | error, exit %d | ", errs[f->id].wire, errs[f->id].exit);
		else
			fprintf(out, "| `%s` | `classification_code` of an invalid candidate; at `slipway run`, `invalid_source` | ",
				class_wire[f->id]);
		if (!expand_text(out, f->text, "tables/source_fixes.def"))
			return 0;
		fputs(" |\n", out);
	}
	return 1;
}

/* Writes the expansion of token `name` (with optional `arg`); 0 if the
 * token is unknown. */
static int expand(FILE *out, const char *name, const char *arg)
{
	static const struct {
		const char *name;
		const char *value;
	} plain[] = {
		{ "CHANGE_MARKER", SOURCE_CHANGE_MARKER },
		{ "LEVEL_MARKER_PREFIX", SOURCE_LEVEL_MARKER_PREFIX },
		{ "MANIFEST_FENCE", SOURCE_MANIFEST_FENCE },
		{ "MANIFEST_CLOSE", SOURCE_MANIFEST_CLOSE },
		{ "SECTION_MARKER_PREFIX", SOURCE_SECTION_MARKER_PREFIX },
		{ "SECTION_MARKER_SUFFIX", SOURCE_SECTION_MARKER_SUFFIX },
		{ "COMMENT_BODY_DOMAIN", SOURCE_COMMENT_BODY_DOMAIN },
		{ "PROFILE", SOURCE_PROFILE },
		{ "KEY_PATTERN", SOURCE_KEY_PATTERN },
		{ "SOURCE_VERSION", STR(SOURCE_VERSION) },
		{ "MANIFEST_VERSION", STR(SOURCE_MANIFEST_VERSION) },
	};
	static const struct {
		const char *name;
		unsigned value;
	} nums[] = {
		{ "MIN_SECTIONS", SOURCE_MIN_SECTIONS },
		{ "MAX_SECTIONS", SOURCE_MAX_SECTIONS },
		{ "MAX_LABELS", SOURCE_MAX_LABELS },
		{ "MAX_TITLE_BYTES", SOURCE_MAX_TITLE_BYTES },
		{ "MAX_SECTION_BYTES", SOURCE_MAX_SECTION_BYTES },
		{ "MAX_BUNDLE_BYTES", SOURCE_MAX_BUNDLE_BYTES },
		{ "MAX_MANIFEST_BYTES", SOURCE_MAX_MANIFEST_BYTES },
		{ "MAX_FILE_BYTES", SOURCE_MAX_FILE_BYTES },
	};

	if (strcmp(name, "SECTION_MARKER") == 0 && arg != NULL) {
		fprintf(out, "%s%s%s", SOURCE_SECTION_MARKER_PREFIX, arg,
			SOURCE_SECTION_MARKER_SUFFIX);
		return 1;
	}
	if (arg != NULL)
		return 0;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (strcmp(name, plain[i].name) == 0) {
			fputs(plain[i].value, out);
			return 1;
		}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (strcmp(name, nums[i].name) == 0) {
			fprintf(out, "%u", nums[i].value);
			return 1;
		}
	if (strcmp(name, "ROLES") == 0)
		print_roles(out);
	else if (strcmp(name, "ROLE_LIST") == 0)
		print_role_list(out);
	else if (strcmp(name, "REJECTION_TABLE") == 0)
		return print_rejections(out);
	else
		return 0;
	return 1;
}

/* Copies `text` to `out`, expanding every token; 0 (reported on stderr
 * against `src`) on an unclosed or unknown token. */
static int expand_text(FILE *out, const char *text, const char *src)
{
	const char *p;
	size_t line = 1;

	for (p = text; *p;) {
		const char *open = strstr(p, "{{"), *close;
		char name[64], *arg = NULL, *sp;

		if (open == NULL) {
			fputs(p, out);
			break;
		}
		for (const char *q = p; q < open; q++)
			line += *q == '\n';
		fwrite(p, 1, (size_t)(open - p), out);
		close = strstr(open + 2, "}}");
		if (close == NULL || memchr(open, '\n', (size_t)(close - open)) ||
		    (size_t)(close - open - 2) >= sizeof(name)) {
			fprintf(stderr, "%s:%zu: unclosed or overlong {{ token\n", src, line);
			return 0;
		}
		memcpy(name, open + 2, (size_t)(close - open - 2));
		name[close - open - 2] = '\0';
		if ((sp = strchr(name, ' ')) != NULL) {
			*sp = '\0';
			arg = sp + 1;
		}
		if (!expand(out, name, arg)) {
			fprintf(stderr, "%s:%zu: unknown token {{%s%s%s}}\n", src, line,
				name, arg ? " " : "", arg ? arg : "");
			return 0;
		}
		p = close + 2;
	}
	return 1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	} else {
		buf[n] = '\0';
	}
	if (f)
		fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	char *in, *tmp = NULL;
	FILE *out = NULL;
	int ok;

	if (argc != 3) {
		fprintf(stderr, "usage: expand IN OUT\n");
		return 2;
	}
	if (!check_fixes())
		return 1;
	if ((in = slurp(argv[1])) == NULL) {
		fprintf(stderr, "expand: cannot read %s\n", argv[1]);
		return 1;
	}
	if ((tmp = malloc(strlen(argv[2]) + 5)) == NULL) {
		free(in);
		return 1;
	}
	snprintf(tmp, strlen(argv[2]) + 5, "%s.tmp", argv[2]);
	if ((out = fopen(tmp, "wb")) == NULL) {
		fprintf(stderr, "expand: cannot write %s\n", tmp);
		free(in);
		free(tmp);
		return 1;
	}
	ok = expand_text(out, in, argv[1]);
	if (fclose(out) != 0)
		ok = 0;
	if (ok && rename(tmp, argv[2]) != 0)
		ok = 0;
	if (!ok)
		remove(tmp);
	free(in);
	free(tmp);
	return ok ? 0 : 1;
}
