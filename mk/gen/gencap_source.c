/* The capability sections that teach a host the Change Issue format and the
 * source envelope: the roles and section markers the source parser accepts
 * (io/source/source.h, tables/source_roles.def) and the fix of each source
 * rejection code, from tables/source_classes.def, tables/error_codes.def
 * and tables/error_help.def (whose rows the error-code page prints too),
 * with the check that every such code has its row (run before every
 * expansion, so a code added without one fails the build).  The markers that name them are listed with all the others in
 * mk/gen/gencap.c, which also prints a code's fix from the rows given here:
 * this file calls nothing of gencap.c. */

#include <stdio.h>
#include <string.h>

#include "mk/gen/gencap_source.h"
#include "io/source/source.h"

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
#define SOURCE_HELP(id, meaning, fix) { 0, SC_##id, fix },
#define ERR_HELP(id, meaning, fix) { 1, EC_##id, fix },
#include "tables/error_help.def"
#undef SOURCE_HELP
#undef ERR_HELP
};

#define NFIXES (sizeof(fixes) / sizeof(fixes[0]))

static int has_fix(int is_err, int id)
{
	for (size_t i = 0; i < NFIXES; i++)
		if (fixes[i].is_err == is_err && fixes[i].id == id)
			return 1;
	return 0;
}

int gencap_source_check_fixes(void)
{
	int rc = 0;

	for (int c = SC_NONE + 1; c < SC__COUNT; c++)
		if (c != SC_VALID_CHANGE && !has_fix(0, c)) {
			fprintf(stderr, "gendocs capability: classification code %s has no row in tables/error_help.def\n",
				class_wire[c]);
			rc = -1;
		}
	for (int e = EC_NONE + 1; e < EC__COUNT; e++)
		if (strstr(errs[e].wire, "source") && !has_fix(1, e)) {
			fprintf(stderr, "gendocs capability: error code %s has no row in tables/error_help.def\n",
				errs[e].wire);
			rc = -1;
		}
	return rc;
}

int gencap_source_roles(FILE *out, const char *arg)
{
	size_t n = sizeof(role_wire) / sizeof(role_wire[0]);

	(void)arg;
	for (size_t i = 1; i < n; i++)
		fprintf(out, "%s`%s`", i == 1 ? "" : i + 1 == n ? " and " : ", ",
			role_wire[i]);
	return 0;
}

int gencap_source_section_marker(FILE *out, const char *arg)
{
	fprintf(out, "%s%s%s", SOURCE_SECTION_MARKER_PREFIX, arg,
		SOURCE_SECTION_MARKER_SUFFIX);
	return 0;
}

size_t gencap_source_fix_count(void)
{
	return NFIXES;
}

const char *gencap_source_fix_row(size_t i, const char **code, int *exit_status)
{
	const struct fix *f = &fixes[i];

	*code = f->is_err ? errs[f->id].wire : class_wire[f->id];
	*exit_status = f->is_err ? errs[f->id].exit : 0;
	return f->text;
}
