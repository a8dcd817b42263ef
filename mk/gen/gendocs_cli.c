/* The tables of the command and host-adapter reference pages: the
 * commands and their flags (cli/commands.def, cli/flags.def) and what
 * install writes for each host (the host table of io/adapters/adapter.c,
 * walked by the same code as install).  The error-code page is
 * mk/gen/gendocs_errors.c's. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "mk/gen/gendocs.h"
#include "io/adapters/adapter.h"
#include "tables/tables.h"

/* ---- commands ---- */

/* clang-format off */
const struct gendocs_cmd gendocs_cmds[] = {
#define CMD(id, group, name, fn, args, use, summary, examples, ...) \
	{ #id, #group, name, use, summary, examples, #__VA_ARGS__ },
#include "cli/commands.def"
#undef CMD
};
/* clang-format on */

const size_t gendocs_ncmds = sizeof(gendocs_cmds) / sizeof(gendocs_cmds[0]);

static const struct flag {
	const char *id, *name, *value, *usage, *choices;
} flags[] = {
#define FLAG(id, name, dest, type, value, usage, choices) { #id, name, value, usage, choices },
#include "cli/flags.def"
#undef FLAG
};

static const struct flag *flag_by_id(const char *id, size_t len)
{
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strlen(flags[i].id) == len && memcmp(flags[i].id, id, len) == 0)
			return &flags[i];
	return NULL;
}

const char *gendocs_flag_name(const char *id)
{
	const struct flag *f = flag_by_id(id, strlen(id));

	return f ? f->name : "?";
}

static const struct gendocs_cmd *cmd_by_id(const char *id)
{
	for (size_t i = 0; i < gendocs_ncmds; i++)
		if (strcmp(gendocs_cmds[i].id, id) == 0)
			return &gendocs_cmds[i];
	return NULL;
}

const char *gendocs_cmd_path(const struct gendocs_cmd *cmd, char *buf, size_t size)
{
	const struct gendocs_cmd *group = cmd_by_id(cmd->group);

	if (group)
		snprintf(buf, size, "%s %s", group->name, cmd->name);
	else
		snprintf(buf, size, "%s", cmd->name);
	return buf;
}

static int flag_rows(FILE *out, const struct gendocs_cmd *c)
{
	const char *p = c->flags;

	if (strcmp(p, "NONE") == 0)
		return 0;
	fprintf(out, "\n");
	gendocs_head(out, "flag", "value", "meaning", "accepted values", NULL);
	while (*p) {
		size_t len = strcspn(p, ", ");
		const struct flag *f = flag_by_id(p, len);

		if (f == NULL)
			return gendocs_fail("command %s names an unknown flag %.*s", c->name, (int)len, p);
		fprintf(out, "| `--%s` | %s%s%s | ", f->name, f->value ? "`" : "",
			f->value ? f->value : "-", f->value ? "`" : "");
		gendocs_cell(out, gendocs_tr(f->usage));
		fprintf(out, " | ");
		if (f->choices == NULL) {
			fprintf(out, "-");
		} else {
			for (const char *q = f->choices; *q;) {
				size_t n = strcspn(q, " ");

				fprintf(out, "%s`%.*s`", q == f->choices ? "" : ", ", (int)n, q);
				q += n + strspn(q + n, " ");
			}
		}
		fprintf(out, " |\n");
		p += len;
		p += strspn(p, ", ");
	}
	return 0;
}

/* A command's section: its heading, summary, usage, flags and examples. */
static int command_section(FILE *out, const struct gendocs_cmd *c, int level)
{
	char path[64];

	gendocs_cmd_path(c, path, sizeof(path));
	fprintf(out, "%.*s `slipway %s`\n\n", level, "######", path);
	fprintf(out, "%s%s\n\n```\nslipway %s\n```\n", gendocs_tr(c->summary), gendocs_punct('.'),
		c->use);
	if (flag_rows(out, c) < 0)
		return -1;
	if (c->examples) {
		fprintf(out, "\n%s%s\n\n```\n", gendocs_tr("Examples"), gendocs_punct(':'));
		for (const char *p = c->examples; *p;) {
			size_t n = strcspn(p, "\n");

			p += strspn(p, " ");
			n = strcspn(p, "\n");
			fprintf(out, "%.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
		fprintf(out, "```\n");
	}
	return 0;
}

/* Every visible command in table order, the members of a group after it
 * one level down; the sections are separated by a blank line. */
int gendocs_commands(FILE *out, const char *arg)
{
	int first = 1;

	(void)arg;
	for (size_t i = 0; i < gendocs_ncmds; i++) {
		const struct gendocs_cmd *c = &gendocs_cmds[i];

		if (c->name[0] == '_' || strcmp(c->group, "NONE") != 0)
			continue;
		fprintf(out, "%s", first ? "" : "\n");
		first = 0;
		if (command_section(out, c, 3) < 0)
			return -1;
		for (size_t j = 0; j < gendocs_ncmds; j++)
			if (strcmp(gendocs_cmds[j].group, c->id) == 0) {
				fprintf(out, "\n");
				if (command_section(out, &gendocs_cmds[j], 4) < 0)
					return -1;
			}
	}
	return 0;
}

/* ---- host adapters ---- */

/* Stand-ins for the capability texts: install's paths do not depend on
 * the texts, only on their names (the frontmatter must parse). */
#define STUB "---\ndescription: stand-in\n---\n\nbody\n"

static const struct adapter_text *stub_texts(void)
{
	static struct adapter_text t[ADAPTER_NCAPS + 2 + 32];
	static char names[ADAPTER_NCAPS][64];
	size_t n = ADAPTER_NCAPS + 1;

	if (t[0].name)
		return t;
	for (size_t i = 0; i < ADAPTER_NCAPS; i++) {
		snprintf(names[i], sizeof(names[i]), "%s.md", adapter_capabilities[i]);
		t[i] = (struct adapter_text){ names[i], STUB, strlen(STUB) };
	}
	t[ADAPTER_NCAPS] = (struct adapter_text){ "_common.md", STUB, strlen(STUB) };
	/* every reference of the table, the last entry left as the end */
	for (const struct adapter_reference *r = adapter_references; r->name && n + 1 < sizeof(t) / sizeof(t[0]); r++)
		t[n++] = (struct adapter_text){ r->name, STUB, strlen(STUB) };
	return t;
}

#define PATHS_MAX 256

/* Every path of one host walk, in order, with its pattern. */
struct walk {
	struct {
		int role;
		char *path, *pattern;	/* pattern: with <capability> */
		int cap;		/* index in adapter_capabilities, or -1 */
	} v[PATHS_MAX];
	size_t n;
	int overflow;
};

static char *pattern_of(const char *path, const char *cap)
{
	const char *hit = cap ? strstr(path, cap) : NULL;
	char *out;
	size_t n;

	if (hit == NULL)
		return strdup(path);
	n = strlen(path) + sizeof("<capability>");
	if ((out = malloc(n)) == NULL)
		return NULL;
	snprintf(out, n, "%.*s<capability>%s", (int)(hit - path), path, hit + strlen(cap));
	return out;
}

static void collect(enum adapter_path_role role, const char *path, const char *cap,
		    void *payload)
{
	struct walk *w = payload;
	int ci = -1;

	for (int i = 0; cap && i < ADAPTER_NCAPS; i++)
		if (strcmp(adapter_capabilities[i], cap) == 0)
			ci = i;
	if (w->n == PATHS_MAX) {
		w->overflow = 1;
		return;
	}
	w->v[w->n].role = (int)role;
	w->v[w->n].cap = ci;
	w->v[w->n].path = strdup(path);
	w->v[w->n].pattern = pattern_of(path, ci >= 0 ? cap : NULL);
	if (w->v[w->n].path == NULL || w->v[w->n].pattern == NULL)
		w->overflow = 1;
	w->n++;
}

/* The capabilities that made a file of pattern `k`'s pattern. */
static unsigned pattern_caps(const struct walk *w, size_t k)
{
	unsigned caps = 0;

	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].cap >= 0 && w->v[i].role == w->v[k].role &&
		    strcmp(w->v[i].pattern, w->v[k].pattern) == 0)
			caps |= 1u << w->v[i].cap;
	return caps;
}

int gendocs_host_patterns(size_t i, const char *surface, gendocs_path_fn *fn, void *payload)
{
	static struct walk w;
	struct sw_error err = SW_ERROR_INIT;
	const unsigned all = (1u << ADAPTER_NCAPS) - 1;
	int rc = 0;

	w.n = 0;
	w.overflow = 0;
	if (adapter_host_walk(i, surface, stub_texts(), collect, &w, &err) < 0)
		rc = gendocs_fail("cannot walk host %zu: %s", i, err.msg);
	else if (w.overflow)
		rc = gendocs_fail("host %zu: too many paths", i);
	for (size_t k = 0; k < w.n; k++) {
		/* A file made once per capability is named by its pattern, once;
		 * any other keeps its own name. */
		int per = w.v[k].cap >= 0 && pattern_caps(&w, k) == all;
		int seen = 0;

		for (size_t j = 0; per && j < k; j++)
			seen |= w.v[j].role == w.v[k].role && strcmp(w.v[j].pattern, w.v[k].pattern) == 0;
		if (rc == 0 && !seen)
			fn(w.v[k].role, per ? w.v[k].pattern : w.v[k].path, per, payload);
	}
	for (size_t k = 0; k < w.n; k++) {
		free(w.v[k].path);
		free(w.v[k].pattern);
	}
	return rc;
}

/* The surfaces of host `h`: NULL alone, or the values of --surface. */
static size_t surfaces(const struct adapter_host_doc *h, const char *out[4])
{
	size_t n = 0;

	out[0] = NULL;
	if (!h->chooses_surface)
		return 1;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strcmp(flags[i].name, "surface") == 0 && flags[i].choices) {
			static char buf[64];
			char *save = NULL;

			snprintf(buf, sizeof(buf), "%s", flags[i].choices);
			for (char *t = strtok_r(buf, " ", &save); t && n < 3; t = strtok_r(NULL, " ", &save))
				out[n++] = t;
		}
	return n;
}

int gendocs_capabilities(FILE *out, const char *arg)
{
	(void)arg;
	for (size_t i = 0; i < ADAPTER_NCAPS; i++)
		fprintf(out, "- `%s`\n", adapter_capabilities[i]);
	return 0;
}

int gendocs_hosts(FILE *out, const char *arg)
{
	struct adapter_host_doc h;

	(void)arg;
	gendocs_head(out, "host", "`--surface`", "detected by", "ownership root", "`--mcp` registers in",
		     NULL);
	for (size_t i = 0; adapter_host_doc(&h, i) == 0; i++) {
		const char *s[4];
		size_t n = surfaces(&h, s);

		fprintf(out, "| `%s` | ", h.id);
		if (s[0] == NULL)
			fprintf(out, "-");
		for (size_t k = 0; k < n && s[k]; k++)
			fprintf(out, "%s`%s`", k ? ", " : "", s[k]);
		fprintf(out, " | ");
		for (size_t k = 0; k < h.ndetect; k++)
			fprintf(out, "%s`%s/`", k ? ", " : "", h.detect[k]);
		fprintf(out, " | `%s/slipway/` | ", h.owner);
		for (size_t k = 0; k < h.nmcp; k++)
			fprintf(out, "%s`%s`", k ? "<br>" : "", h.mcp_config[k]);
		if (h.nmcp == 0)
			fprintf(out, "%s", gendocs_tr("none"));
		fprintf(out, " |\n");
	}
	return 0;
}

/* Where each row of the host table comes from: the host and the version
 * its paths were checked on, its documentation pages, and the decisions
 * taken against them. */
int gendocs_host_sources(FILE *out, const char *arg)
{
	struct adapter_host_doc h;

	(void)arg;
	gendocs_head(out, "host", "checked on", "documentation", NULL);
	for (size_t i = 0; adapter_host_doc(&h, i) == 0; i++) {
		fprintf(out, "| `%s` | %s %s | ", h.id, h.product, gendocs_tr(h.checked));
		for (size_t k = 0; k < h.ndocs; k++)
			fprintf(out, "%s<%s>", k ? "<br>" : "", h.docs[k]);
		fprintf(out, " |\n");
	}
	return 0;
}

/* The decisions of the host table, one item per host that has one. */
int gendocs_host_notes(FILE *out, const char *arg)
{
	struct adapter_host_doc h;

	(void)arg;
	for (size_t i = 0; adapter_host_doc(&h, i) == 0; i++)
		if (h.note)
			fprintf(out, "- `%s`: %s\n", h.id, gendocs_tr(h.note));
	return 0;
}

/* The columns of the host-files table. */
enum files_col { COL_PER_CAPABILITY, COL_ONCE, COL_OWNERSHIP };

struct files_row {
	FILE *out;
	enum files_col col;
	int any;
};

static void files_cell(int role, const char *path, int per_capability, void *payload)
{
	struct files_row *r = payload;
	enum files_col col = role == ADAPTER_PATH_GENERATED
		? (per_capability ? COL_PER_CAPABILITY : COL_ONCE) : COL_OWNERSHIP;

	if (col != r->col || role == ADAPTER_PATH_MCP_CONFIG)
		return;
	fprintf(r->out, "%s`%s`", r->any ? "<br>" : "", path);
	r->any = 1;
}

int gendocs_host_files(FILE *out, const char *arg)
{
	struct adapter_host_doc h;

	(void)arg;
	gendocs_head(out, "host", "`--surface`", "for each capability", "once per host",
		     "ownership records", NULL);
	for (size_t i = 0; adapter_host_doc(&h, i) == 0; i++) {
		const char *s[4];
		size_t n = surfaces(&h, s);

		for (size_t k = 0; k < n; k++) {
			fprintf(out, "| `%s` | %s%s%s |", h.id, s[k] ? "`" : "", s[k] ? s[k] : "-",
				s[k] ? "`" : "");
			for (int c = COL_PER_CAPABILITY; c <= COL_OWNERSHIP; c++) {
				struct files_row r = { out, (enum files_col)c, 0 };

				fprintf(out, " ");
				if (gendocs_host_patterns(i, s[k], files_cell, &r) < 0)
					return -1;
				fprintf(out, " |");
			}
			fprintf(out, "\n");
		}
	}
	return 0;
}
