/* Generation: every file this build writes for a host and surface (the
 * capability launchers and texts, the references beside them, Codex's
 * invocation policy), with the sha256 of its bytes, in memory.  Never
 * touches the file system: install, uninstall, list and the docs compare
 * what is on disk with what this returns. */
#include "io/adapters/adapter_internal.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/digest.h"
#include "io/util/json.h"

#define AGENT_POLICY_YAML "policy:\n  allow_implicit_invocation: false\n"

static const struct adapter_text *text_find(const struct adapter_text *t,
					    const char *name)
{
	for (; t && t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* Go's %q for the plain text our descriptions hold. */
static char *quote(const char *s)
{
	size_t n = strlen(s);
	char *out = sw_malloc(n * 4 + 3), *p = out;

	if (out == NULL)
		return NULL;
	*p++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else if (c == '\t') {
			*p++ = '\\';
			*p++ = 't';
		} else if (c < 0x20 || c == 0x7f) {
			p += snprintf(p, 5, "\\x%02x", c);
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '"';
	*p = '\0';
	return out;
}

static void files_release(struct gen_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sw_free(v[i].rel);
		sw_free(v[i].data);
	}
	sw_free(v);
}

void adapter__gen_release(struct gen_set *g)
{
	files_release(g->v, g->n);
	files_release(g->old, g->nold);
	g->v = g->old = NULL;
	g->n = g->nold = 0;
}

/* Appends a file; takes ownership of `rel` and `data` (both freed on
 * failure). */
static int gen_add(struct gen_set *g, char *rel, char *data, size_t len,
		   const char *cap, int callable, int policy, struct sw_error *err)
{
	struct gen_file *grown;

	if (rel == NULL || data == NULL) {
		sw_free(rel);
		sw_free(data);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	grown = sw_realloc(g->v, (g->n + 1) * sizeof(*grown));
	if (grown == NULL) {
		sw_free(rel);
		sw_free(data);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	g->v = grown;
	g->v[g->n] = (struct gen_file){ rel, data, len, cap, callable, policy, "" };
	sw_sha256_hex(data, len, g->v[g->n].sha);
	g->n++;
	return 0;
}

static char *join3(const char *a, size_t alen, const char *b, size_t blen,
		   const char *c, size_t clen, size_t *len)
{
	char *out = sw_malloc(alen + blen + clen + 1);

	if (out == NULL)
		return NULL;
	memcpy(out, a, alen);
	memcpy(out + alen, b, blen);
	memcpy(out + alen + blen, c, clen);
	out[alen + blen + clen] = '\0';
	*len = alen + blen + clen;
	return out;
}

/* Splits "---\n<front>\n---\n<body>"; returns -1 when malformed. */
static int split_front(const char *s, size_t len, const char **front,
		       size_t *flen, const char **body)
{
	const char *end;

	(void)len;
	if (strncmp(s, "---\n", 4) != 0 || (end = strstr(s + 4, "\n---\n")) == NULL)
		return -1;
	*front = s + 4;
	*flen = (size_t)(end - (s + 4));
	*body = end + 5;
	return 0;
}

static char *description(const char *front, size_t flen)
{
	const char *p = front, *end = front + flen;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *colon = memchr(p, ':', (size_t)(le - p));

		if (colon) {
			const char *k = p, *ke = colon, *v = colon + 1, *ve = le;

			while (k < ke && (*k == ' ' || *k == '\t'))
				k++;
			while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
				ke--;
			while (v < ve && (*v == ' ' || *v == '\t' || *v == '\r'))
				v++;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
				ve--;
			while (v < ve && (*v == '"' || *v == '\''))
				v++;
			while (ve > v && (ve[-1] == '"' || ve[-1] == '\''))
				ve--;
			if ((size_t)(ke - k) == 11 && memcmp(k, "description", 11) == 0 && ve > v)
				return sw_strndup(v, (size_t)(ve - v));
		}
		p = le + 1;
	}
	return NULL;
}

/* How the file a user invokes carries the capability's text. */
enum launcher {
	L_SKILL = 0,		/* SKILL.md in the skills folder (not in the table below) */
	L_AGENT,		/* a custom agent holding the text */
	L_COMMAND_TEXT,		/* frontmatter, then the text */
	L_COMMAND_TEXT_OR_NAME,	/* the text when the file stays within the host's limit, else
				 * a sentence naming the text's file */
	L_COMMAND_AT,		/* frontmatter, then @FILE (the host includes it) */
	L_KIRO_STEERING,	/* #[[file:FILE]] */
	L_KIRO_AGENT,		/* an agent whose prompt is file://FILE, with includeMcpJson */
	L_KIRO_AGENT_V1		/* the same without includeMcpJson */
};

/* Where the files of each surface but SURF_SKILL go (a capability C):
 * the launcher the user invokes, its frontmatter (%s: the description),
 * the folder of the texts a launcher names (C.md), the folder holding
 * references/, the host's limit in characters for a launcher holding its
 * text (0: none), and the layout it replaced. */
static const struct surface_row {
	const char *launcher;
	enum launcher kind;
	const char *front;
	const char *texts;
	const char *refs;
	size_t max_chars;
	enum surface old;
} surfaces[] = {
/*	  surface               launcher                       kind                     frontmatter                                   texts                             references                        limit  replaced */
	[SURF_COPILOT]     = { ".github/agents/%s.agent.md", L_AGENT,                 NULL,                                        NULL,                             ".github/copilot/slipway",        0,     SURF_COPILOT_V1 },
	[SURF_COPILOT_V1]  = { ".github/agents/%s.agent.md", L_AGENT,                 NULL,                                        NULL,                             ".github/agents",                 0,     SURF_NONE },
	[SURF_KILO]        = { ".kilo/commands/%s.md",       L_COMMAND_TEXT,          "---\ndescription: %s\nsubtask: false\n---\n\n", NULL,                          ".kilocode/slipway/capabilities", 0,     SURF_KILO_V1 },
	[SURF_KILO_V1]     = { ".kilo/commands/%s.md",       L_COMMAND_AT,            "---\ndescription: %s\nsubtask: false\n---\n\n", ".kilocode/slipway/capabilities", ".kilocode/slipway/capabilities", 0,     SURF_NONE },
	[SURF_KIRO_IDE]    = { ".kiro/steering/%s.md",       L_KIRO_STEERING,         NULL,                                        ".kiro/slipway/capabilities",     ".kiro/slipway/capabilities",     0,     SURF_NONE },
	[SURF_KIRO_CLI]    = { ".kiro/agents/%s.json",       L_KIRO_AGENT,            NULL,                                        ".kiro/slipway/capabilities",     ".kiro/slipway/capabilities",     0,     SURF_KIRO_CLI_V1 },
	[SURF_KIRO_CLI_V1] = { ".kiro/agents/%s.json",       L_KIRO_AGENT_V1,         NULL,                                        ".kiro/slipway/capabilities",     ".kiro/slipway/capabilities",     0,     SURF_NONE },
	[SURF_OPENCODE]    = { ".opencode/commands/%s.md",   L_COMMAND_AT,            "---\ndescription: %s\n---\n\n",             ".opencode/slipway/capabilities", ".opencode/slipway/capabilities", 0,     SURF_NONE },
	[SURF_WINDSURF]    = { ".windsurf/workflows/%s.md",  L_COMMAND_TEXT_OR_NAME,  "---\ndescription: %s\n---\n\n",             ".windsurf/slipway/capabilities", ".windsurf/slipway/capabilities", 12000, SURF_WINDSURF_V1 },
	[SURF_WINDSURF_V1] = { ".windsurf/workflows/%s.md",  L_COMMAND_AT,            "---\ndescription: %s\n---\n\n",             ".windsurf/slipway/capabilities", ".windsurf/slipway/capabilities", 0,     SURF_NONE },
	[SURF_NONE] = { NULL }, [SURF_SKILL] = { NULL },
};

_Static_assert(sizeof(surfaces) / sizeof(surfaces[0]) == SURF_WINDSURF_V1 + 1, "a surface without its row");

/* How a text names a reference: in prose "`references/NAME`", in a command
 * "./references/NAME" (a file the command reads). */
static const char *const ref_mentions[] = { "`references/", "./references/" };
#define NMENTIONS (sizeof(ref_mentions) / sizeof(ref_mentions[0]))

/* The first mention in `p`, its index in *which; NULL when none. */
static const char *next_mention(const char *p, size_t *which)
{
	const char *best = NULL, *q;

	for (size_t i = 0; i < NMENTIONS; i++)
		if ((q = strstr(p, ref_mentions[i])) != NULL && (best == NULL || q < best)) {
			best = q;
			*which = i;
		}
	return best;
}

/* `text` with every mention of a reference "`references/NAME" written as
 * "`DIR/references/NAME" (and "./references/NAME" as
 * "./DIR/references/NAME"), the path from the repository root of the copy
 * installed beside the capability in folder `dir`.  Takes `text` (owned);
 * NULL when out of memory. */
static char *link_references(char *text, size_t *len, const char *dir)
{
	size_t n = 0, dlen = strlen(dir), w = 0;
	const char *p, *q;
	char *out, *o;

	if (text == NULL)
		return NULL;
	for (p = text; (q = next_mention(p, &w)) != NULL; p = q + strlen(ref_mentions[w]))
		n++;
	if (n == 0)
		return text;
	if ((out = sw_malloc(*len + n * (dlen + 1) + 1)) == NULL) {
		sw_free(text);
		return NULL;
	}
	for (p = text, o = out; (q = next_mention(p, &w)) != NULL; p = q + strlen(ref_mentions[w])) {
		/* the mention up to "references/" ("`" or "./"), the folder, then
		 * "/references/" */
		size_t mlen = strlen(ref_mentions[w]), plen = mlen - strlen("references/");

		memcpy(o, p, (size_t)(q - p) + plen);
		o += (size_t)(q - p) + plen;
		memcpy(o, dir, dlen);
		o += dlen;
		*o++ = '/';
		memcpy(o, q + plen, mlen - plen);
		o += mlen - plen;
	}
	memcpy(o, p, *len - (size_t)(p - text));
	o += *len - (size_t)(p - text);
	*o = '\0';
	*len = (size_t)(o - out);
	sw_free(text);
	return out;
}

/* The folder, from the repository root, holding capability `cap`'s
 * references/. */
static char *cap_dir(const struct host *h, enum surface s, const char *cap)
{
	return s == SURF_SKILL ? sw_asprintf("%s/%s", h->skills, cap) : sw_strdup(surfaces[s].refs);
}

/* Characters (UTF-8 code points) of `s`. */
static size_t chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* The launcher of `cap` and, when it names or includes it, the file of
 * its text.  `text` (len bytes, references linked) is borrowed. */
static int add_launcher(struct gen_set *g, enum surface s, const char *cap, const char *desc_q,
			const char *desc_raw, const char *text, size_t len, struct sw_error *err)
{
	const struct surface_row *r = &surfaces[s];
	char *rel = sw_asprintf(r->launcher, cap), *front = NULL, *data = NULL;
	int own_file = 0, rc;

	const char *inline_text = text + strspn(text, "\n");	/* the frontmatter ends with a blank line */

	if (r->front && (front = sw_asprintf(r->front, desc_q)) == NULL) {
		sw_free(rel);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	switch (r->kind) {
	case L_COMMAND_TEXT_OR_NAME:
		data = sw_asprintf("%s%s", front, inline_text);
		if (data && r->max_chars && chars(data, strlen(data)) > r->max_chars) {
			/* Past the host's limit: the file's place, in words. */
			sw_free(data);
			data = sw_asprintf("%sThis workflow's text is too long for a workflow file. Read the file "
					   "`%s/%s.md` and follow it as this workflow's text.\n", front, r->texts, cap);
			own_file = 1;
		}
		break;
	case L_COMMAND_TEXT:
		data = sw_asprintf("%s%s", front, inline_text);
		break;
	case L_COMMAND_AT:
		data = sw_asprintf("%s@%s/%s.md\n", front, r->texts, cap);
		own_file = 1;
		break;
	case L_KIRO_STEERING:
		data = sw_asprintf("---\ninclusion: manual\n---\n\n#[[file:%s/%s.md]]\n", r->texts, cap);
		own_file = 1;
		break;
	case L_KIRO_AGENT:
	case L_KIRO_AGENT_V1: {
		json_t *d = json_string(desc_raw);
		char *dj = d ? sw_json_dump(d) : NULL;

		json_decref(d);
		data = dj ? sw_asprintf("{\n  \"name\": \"%s\",\n  \"description\": %s,\n  \"prompt\": \"file://../slipway/capabilities/%s.md\",\n  \"tools\": [\n    \"*\"\n  ]%s\n}\n",
					cap, dj, cap, r->kind == L_KIRO_AGENT ? ",\n  \"includeMcpJson\": true" : "") : NULL;
		sw_free(dj);
		own_file = 1;
		break;
	}
	case L_SKILL:
	case L_AGENT:
		break;
	}
	sw_free(front);
	if ((rc = gen_add(g, rel, data, data ? strlen(data) : 0, cap, 1, 0, err)) < 0 || !own_file)
		return rc;
	return gen_add(g, sw_asprintf("%s/%s.md", r->texts, cap), sw_strndup(text, len), len, cap, 0, 0, err);
}

/* Adds the reference texts: on a skill surface a copy in the references/
 * folder of each capability that names it, elsewhere one copy in the
 * references/ folder beside every capability file (counted as the first
 * capability's support file). */
static int add_references(struct gen_set *g, const struct host *h, enum surface s,
			  const struct adapter_text *texts, struct sw_error *err)
{
	int rc = 0;

	for (const struct adapter_reference *r = adapter_references; r->name && rc >= 0; r++) {
		const struct adapter_text *t = text_find(texts, r->name);

		if (t == NULL)
			return sw_error_set(err, SW_ENOTFOUND, "capability text %s is missing", r->name);
		for (size_t c = 0; c < ADAPTER_NCAPS && rc >= 0; c++) {
			char *dir, *data;
			size_t len = t->len;

			if (!(r->caps & (1u << c)))
				continue;
			if ((dir = cap_dir(h, s, adapter_capabilities[c])) == NULL)
				return sw_error_set(err, SW_ENOMEM, "out of memory");
			data = link_references(sw_strndup(t->bytes, t->len), &len, dir);
			rc = gen_add(g, sw_asprintf("%s/references/%s", dir, r->name), data, len,
				     adapter_capabilities[c], 0, 0, err);
			sw_free(dir);
			if (s != SURF_SKILL)
				break;
		}
	}
	return rc;
}

/* Every file of surface `s`, in generation order (support files of a
 * capability follow its launcher). */
static int generate(struct gen_set *g, const struct host *h, enum surface s,
		    const struct adapter_text *texts, struct sw_error *err)
{
	const struct adapter_text *common = text_find(texts, "_common.md");
	char *desc = NULL, *desc_q = NULL, *data = NULL, *dir = NULL;
	size_t len;
	int rc = 0;

	if (s == SURF_NONE)
		return 0;
	if (common == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "capability texts are missing");
	for (size_t i = 0; i < ADAPTER_NCAPS; i++) {
		const char *cap = adapter_capabilities[i], *front, *body;
		char name[64];
		const struct adapter_text *t;
		size_t flen, blen;

		snprintf(name, sizeof(name), "%s.md", cap);
		if ((t = text_find(texts, name)) == NULL ||
		    split_front(t->bytes, t->len, &front, &flen, &body) < 0 ||
		    (desc = description(front, flen)) == NULL) {
			rc = sw_error_set(err, SW_EPARSE, "capability %s has no valid frontmatter", cap);
			goto out;
		}
		if ((desc_q = quote(desc)) == NULL || (dir = cap_dir(h, s, cap)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto out;
		}
		blen = t->len - (size_t)(body - t->bytes);
		if (s == SURF_SKILL) {
			data = join3(t->bytes, t->len, "\n", 1, common->bytes, common->len, &len);
			data = link_references(data, &len, dir);
			if ((rc = gen_add(g, sw_asprintf("%s/%s/SKILL.md", h->skills, cap),
					  data, len, cap, 1, 0, err)) < 0)
				goto out;
			if (h->policy == OPENAI_AGENT_POLICY &&
			    (rc = gen_add(g, sw_asprintf("%s/%s/agents/openai.yaml", h->skills, cap),
					  sw_strdup(AGENT_POLICY_YAML), strlen(AGENT_POLICY_YAML), cap, 0, 1, err)) < 0)
				goto out;
		} else if (surfaces[s].kind == L_AGENT) {
			char *head = sw_asprintf("---\nname: %s\ndescription: %s\ndisable-model-invocation: true\n---\n\n", cap, desc_q);
			char *tmp = head ? join3(head, strlen(head), body, blen, "\n", 1, &len) : NULL;

			data = tmp ? join3(tmp, len, common->bytes, common->len, "", 0, &len) : NULL;
			sw_free(tmp);
			sw_free(head);
			data = link_references(data, &len, dir);
			if ((rc = gen_add(g, sw_asprintf(surfaces[s].launcher, cap), data, len, cap, 1, 0, err)) < 0)
				goto out;
		} else {
			data = join3(body, blen, "\n", 1, common->bytes, common->len, &len);
			if ((data = link_references(data, &len, dir)) == NULL) {
				rc = sw_error_set(err, SW_ENOMEM, "out of memory");
				goto out;
			}
			rc = add_launcher(g, s, cap, desc_q, desc, data, len, err);
			sw_free(data);
			if (rc < 0)
				goto out;
		}
		data = NULL;
		sw_free(desc);
		sw_free(desc_q);
		sw_free(dir);
		desc = desc_q = dir = NULL;
	}
	rc = add_references(g, h, s, texts, err);
out:
	sw_free(desc);
	sw_free(desc_q);
	sw_free(dir);
	return rc;
}

/* Every file this build generates for `h` with surface `s`, and in
 * g->old those of the layout `s` replaced. */
int adapter__generate(struct gen_set *g, const struct host *h, enum surface s,
		      const struct adapter_text *texts, struct sw_error *err)
{
	struct gen_set old = { NULL, 0, NULL, 0 };
	int rc;

	memset(g, 0, sizeof(*g));
	if ((rc = generate(g, h, s, texts, err)) == 0 && s != SURF_NONE && s != SURF_SKILL &&
	    surfaces[s].old != SURF_NONE && (rc = generate(&old, h, surfaces[s].old, texts, err)) == 0) {
		g->old = old.v;
		g->nold = old.n;
		old.v = NULL;
		old.n = 0;
	}
	adapter__gen_release(&old);
	if (rc < 0)
		adapter__gen_release(g);
	return rc;
}

const struct gen_file *adapter__gen_find(const struct gen_set *g, const char *rel)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].rel, rel) == 0)
			return &g->v[i];
	return NULL;
}

const struct gen_file *adapter__gen_claimed(const struct gen_set *g, const char *rel, const char *sha)
{
	const struct gen_file *f = adapter__gen_find(g, rel);

	if (f && strcmp(f->sha, sha) == 0)
		return f;
	for (size_t i = 0; i < g->nold; i++)
		if (strcmp(g->old[i].rel, rel) == 0 && strcmp(g->old[i].sha, sha) == 0)
			return &g->old[i];
	return NULL;
}

int adapter__gen_moved(const struct gen_set *g, const char *rel)
{
	if (adapter__gen_find(g, rel))
		return 0;
	for (size_t i = 0; i < g->nold; i++)
		if (strcmp(g->old[i].rel, rel) == 0)
			return 1;
	return 0;
}

/* The last path component. */
static const char *base_of(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return slash ? slash + 1 : rel;
}

const struct gen_file *adapter__gen_successor(const struct gen_set *g, const struct gen_file *old)
{
	const struct gen_file *launcher = NULL;

	for (size_t i = 0; i < g->n; i++) {
		if (strcmp(g->v[i].cap, old->cap) != 0)
			continue;
		if (strcmp(base_of(g->v[i].rel), base_of(old->rel)) == 0)
			return &g->v[i];
		if (g->v[i].callable && launcher == NULL)
			launcher = &g->v[i];
	}
	return launcher;
}
