#include "io/adapters/adapter.h"
#include "io/adapters/adapter_folders.h"
#include "io/adapters/adapter_mcp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "io/util/digest.h"
#include "io/util/json.h"

#define MANIFEST_NAME "ownership-manifest.json"
#define SENTINEL_NAME ".adapter-generated"
#define SENTINEL_BYTES "generated\n"
#define MANIFEST_MAX (256u << 10)
#define MANAGED_MAX (1u << 20)
#define AGENT_POLICY_YAML "policy:\n  allow_implicit_invocation: false\n"

const char *const adapter_capabilities[ADAPTER_NCAPS] = {
	"slipway-run", "slipway-clarify", "slipway-propose", "slipway-decompose",
	"slipway-implement", "slipway-review", "slipway-workflow"
};

/* Bits of adapter_capabilities, in its order. */
enum {
	CAP_RUN = 1u << 0, CAP_CLARIFY = 1u << 1, CAP_PROPOSE = 1u << 2, CAP_DECOMPOSE = 1u << 3,
	CAP_IMPLEMENT = 1u << 4, CAP_REVIEW = 1u << 5, CAP_WORKFLOW = 1u << 6,
	CAP_ALL = (1u << ADAPTER_NCAPS) - 1
};

/*	  reference                  named by */
const struct adapter_reference adapter_references[] = {
	{ "ground-rules.md",       CAP_ALL },
	{ "outcome-examples.md",   CAP_RUN },
	{ "next-variants.md",      CAP_RUN },
	{ "recovery.md",           CAP_RUN },
	{ "destructive.md",        CAP_RUN | CAP_IMPLEMENT },
	{ "source-envelope.md",    CAP_RUN },
	{ "decision-interview.md", CAP_CLARIFY },
	{ "change-issue.md",       CAP_PROPOSE | CAP_DECOMPOSE },
	{ "publishing.md",         CAP_PROPOSE | CAP_DECOMPOSE },
	{ NULL, 0 }
};

const struct adapter_reference *adapter_reference_find(const char *name)
{
	for (const struct adapter_reference *r = adapter_references; r->name; r++)
		if (strcmp(r->name, name) == 0)
			return r;
	return NULL;
}

/* How a host exposes a capability to its user. */
enum surface {
	SURF_NONE = 0,		/* kiro before a surface is chosen */
	SURF_SKILL,		/* <dir>/C/SKILL.md, whole text */
	SURF_COPILOT,		/* .github/agents/C.agent.md */
	SURF_KILO,		/* launcher + body */
	SURF_KIRO_IDE,
	SURF_KIRO_CLI,
	SURF_OPENCODE,
	SURF_WINDSURF
};

/* Whether the user picks the host's surface (--surface ide|cli). */
enum surface_choice { FIXED_SURFACE = 0, CHOSEN_SURFACE };

/* A file beside each SKILL.md that keeps the host from invoking the skill
 * on its own: Codex reads agents/openai.yaml (AGENT_POLICY_YAML). */
enum invocation_policy { NO_POLICY_FILE = 0, OPENAI_AGENT_POLICY };

/*	  id          skills dir          surface        ownership root     detect paths, surface choice, invocation policy */
static const struct host {
	const char *id;
	const char *skills;
	enum surface surface;
	const char *owner;
	const char *detect[5];
	enum surface_choice choice;
	enum invocation_policy policy;
} hosts[ADAPTER_NHOSTS] = {
	{ "claude",   ".claude/skills",   SURF_SKILL,    ".claude",         { ".claude" } },
	{ "codex",    ".codex/skills",    SURF_SKILL,    ".codex",          { ".codex" }, FIXED_SURFACE, OPENAI_AGENT_POLICY },
	{ "copilot",  ".github/agents",   SURF_COPILOT,  ".github/copilot", { ".github/agents", ".github/copilot", ".github/prompts", ".github/skills" } },
	{ "cursor",   ".cursor/skills",   SURF_SKILL,    ".cursor",         { ".cursor" } },
	{ "kilo",     ".kilocode/skills", SURF_KILO,     ".kilocode",       { ".kilo", ".kilocode" } },
	{ "kiro",     ".kiro/skills",     SURF_NONE,     ".kiro",           { ".kiro" }, CHOSEN_SURFACE },
	{ "opencode", ".opencode/skills", SURF_OPENCODE, ".opencode",       { ".opencode" } },
	{ "pi",       ".pi/skills",       SURF_SKILL,    ".pi",             { ".pi" } },
	{ "qwen",     ".qwen/skills",     SURF_SKILL,    ".qwen",           { ".qwen" } },
	{ "windsurf", ".windsurf/skills", SURF_WINDSURF, ".windsurf",       { ".windsurf" } },
};

/* One file this build generates for a host. */
struct gen_file {
	char *rel;
	char *data;
	size_t len;
	const char *cap;
	int callable;
	int policy;		/* an invocation-policy file (struct host policy) */
	char sha[SW_HEX_LEN];
};

struct gen_set {
	struct gen_file *v;
	size_t n;
};

struct claim {
	char *path;
	char sha[SW_HEX_LEN];
};

struct manifest {
	int found;
	char *surface;		/* kiro only */
	struct claim *files;
	size_t n;
	char sha[SW_HEX_LEN];	/* of the manifest bytes */
};

enum cls { CLS_MISSING, CLS_PRISTINE, CLS_MODIFIED };

/* ---- small helpers ---- */

static void report_normalize(struct adapter_report *r)
{
	if (r->outcome != ADAPTER_TXN_COMMITTED) {
		adapter_strs_release(&r->written);
		adapter_strs_release(&r->removed);
	}
	adapter_strs_normalize(&r->hosts);
	adapter_strs_normalize(&r->written);
	adapter_strs_normalize(&r->removed);
	adapter_strs_normalize(&r->preserved);
	adapter_strs_normalize(&r->recovery);
	adapter_strs_normalize(&r->warnings);
}

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

/* ---- generation ---- */

static void gen_release(struct gen_set *g)
{
	for (size_t i = 0; i < g->n; i++) {
		sw_free(g->v[i].rel);
		sw_free(g->v[i].data);
	}
	sw_free(g->v);
	g->v = NULL;
	g->n = 0;
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

static const char *surface_dir(enum surface s)
{
	switch (s) {
	case SURF_KILO: return ".kilocode/slipway/capabilities";
	case SURF_KIRO_IDE:
	case SURF_KIRO_CLI: return ".kiro/slipway/capabilities";
	case SURF_OPENCODE: return ".opencode/slipway/capabilities";
	case SURF_WINDSURF: return ".windsurf/slipway/capabilities";
	case SURF_COPILOT: return ".github/agents";
	case SURF_NONE:
	case SURF_SKILL: return NULL;
	}
	return NULL;
}

/* The launcher a host's user invokes for capability `cap`. */
static int add_launcher(struct gen_set *g, enum surface s, const char *cap,
			const char *desc_q, const char *desc_raw,
			struct sw_error *err)
{
	char *rel = NULL, *data = NULL;

	switch (s) {
	case SURF_KILO:
		rel = sw_asprintf(".kilo/commands/%s.md", cap);
		data = sw_asprintf("---\ndescription: %s\nsubtask: false\n---\n\n@.kilocode/slipway/capabilities/%s.md\n", desc_q, cap);
		break;
	case SURF_KIRO_IDE:
		rel = sw_asprintf(".kiro/steering/%s.md", cap);
		data = sw_asprintf("---\ninclusion: manual\n---\n\n#[[file:.kiro/slipway/capabilities/%s.md]]\n", cap);
		break;
	case SURF_KIRO_CLI: {
		json_t *d = json_string(desc_raw);
		char *dj = d ? sw_json_dump(d) : NULL;

		json_decref(d);
		rel = sw_asprintf(".kiro/agents/%s.json", cap);
		data = dj ? sw_asprintf("{\n  \"name\": \"%s\",\n  \"description\": %s,\n  \"prompt\": \"file://../slipway/capabilities/%s.md\",\n  \"tools\": [\n    \"*\"\n  ]\n}\n", cap, dj, cap) : NULL;
		sw_free(dj);
		break;
	}
	case SURF_OPENCODE:
	case SURF_WINDSURF:
		rel = sw_asprintf(s == SURF_OPENCODE ? ".opencode/commands/%s.md" : ".windsurf/workflows/%s.md", cap);
		data = sw_asprintf("---\ndescription: %s\n---\n\n@%s/%s.md\n", desc_q, surface_dir(s), cap);
		break;
	case SURF_NONE:
	case SURF_SKILL:
	case SURF_COPILOT:
		return sw_error_set(err, SW_EINVAL, "no launcher for this surface");
	}
	return gen_add(g, rel, data, data ? strlen(data) : 0, cap, 1, 0, err);
}

#define REF_MENTION "`references/"

/* `text` with every mention "`references/NAME" written as "`DIR/references/
 * NAME", the path from the repository root of the copy installed beside the
 * capability in folder `dir`.  Takes `text` (owned); NULL when out of
 * memory. */
static char *link_references(char *text, size_t *len, const char *dir)
{
	size_t n = 0, dlen = strlen(dir), mlen = strlen(REF_MENTION);
	const char *p, *q;
	char *out, *o;

	if (text == NULL)
		return NULL;
	for (p = text; (q = strstr(p, REF_MENTION)) != NULL; p = q + mlen)
		n++;
	if (n == 0)
		return text;
	if ((out = sw_malloc(*len + n * (dlen + 1) + 1)) == NULL) {
		sw_free(text);
		return NULL;
	}
	for (p = text, o = out; (q = strstr(p, REF_MENTION)) != NULL; p = q + mlen) {
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		*o++ = '`';
		memcpy(o, dir, dlen);
		o += dlen;
		*o++ = '/';
		memcpy(o, &REF_MENTION[1], mlen - 1);
		o += mlen - 1;
	}
	memcpy(o, p, *len - (size_t)(p - text));
	o += *len - (size_t)(p - text);
	*o = '\0';
	*len = (size_t)(o - out);
	sw_free(text);
	return out;
}

/* The folder, from the repository root, holding capability `cap`'s file. */
static char *cap_dir(const struct host *h, enum surface s, const char *cap)
{
	return s == SURF_SKILL ? sw_asprintf("%s/%s", h->skills, cap) : sw_strdup(surface_dir(s));
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

/* Every file this build generates for `h` with surface `s`, in generation
 * order (support files of a capability follow its launcher). */
static int generate(struct gen_set *g, const struct host *h, enum surface s,
		    const struct adapter_text *texts, struct sw_error *err)
{
	const struct adapter_text *common = text_find(texts, "_common.md");
	char *desc = NULL, *desc_q = NULL, *data = NULL, *dir = NULL;
	size_t len;
	int rc = 0;

	g->v = NULL;
	g->n = 0;
	if (s == SURF_NONE)
		return 0;
	if (common == NULL)
		return sw_error_set(err, SW_ENOTFOUND, "capability texts are missing");
	for (size_t i = 0; i < ADAPTER_NCAPS; i++) {
		const char *cap = adapter_capabilities[i], *front, *body;
		char name[64];
		const struct adapter_text *t;
		size_t flen;

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
		switch (s) {
		case SURF_SKILL:
			data = join3(t->bytes, t->len, "\n", 1, common->bytes, common->len, &len);
			data = link_references(data, &len, dir);
			if ((rc = gen_add(g, sw_asprintf("%s/%s/SKILL.md", h->skills, cap),
					  data, len, cap, 1, 0, err)) < 0)
				goto out;
			if (h->policy == OPENAI_AGENT_POLICY &&
			    (rc = gen_add(g, sw_asprintf("%s/%s/agents/openai.yaml", h->skills, cap),
					  sw_strdup(AGENT_POLICY_YAML), strlen(AGENT_POLICY_YAML), cap, 0, 1, err)) < 0)
				goto out;
			break;
		case SURF_COPILOT: {
			char *head = sw_asprintf("---\nname: %s\ndescription: %s\ndisable-model-invocation: true\n---\n\n", cap, desc_q);
			size_t blen = t->len - (size_t)(body - t->bytes);

			if (head == NULL) {
				rc = sw_error_set(err, SW_ENOMEM, "out of memory");
				goto out;
			}
			{
				char *tmp = join3(head, strlen(head), body, blen, "\n", 1, &len);

				data = tmp ? join3(tmp, len, common->bytes, common->len, "", 0, &len) : NULL;
				sw_free(tmp);
			}
			sw_free(head);
			data = link_references(data, &len, dir);
			if ((rc = gen_add(g, sw_asprintf(".github/agents/%s.agent.md", cap),
					  data, len, cap, 1, 0, err)) < 0)
				goto out;
			break;
		}
		case SURF_KILO:
		case SURF_KIRO_IDE:
		case SURF_KIRO_CLI:
		case SURF_OPENCODE:
		case SURF_WINDSURF: {
			size_t blen = t->len - (size_t)(body - t->bytes);

			if ((rc = add_launcher(g, s, cap, desc_q, desc, err)) < 0)
				goto out;
			data = join3(body, blen, "\n", 1, common->bytes, common->len, &len);
			data = link_references(data, &len, dir);
			if ((rc = gen_add(g, sw_asprintf("%s/%s.md", surface_dir(s), cap),
					  data, len, cap, 0, 0, err)) < 0)
				goto out;
			break;
		}
		case SURF_NONE:
			break;
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
	if (rc < 0)
		gen_release(g);
	return rc;
}

static const struct gen_file *gen_find(const struct gen_set *g, const char *rel)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].rel, rel) == 0)
			return &g->v[i];
	return NULL;
}

/* ---- paths ---- */

/* Lexically cleans a repository-relative path; NULL (err set) when it is
 * empty, absolute or leaves the repository. */
static char *normalize_rel(const char *in, struct sw_error *err)
{
	const char *s = in, *e = in + strlen(in);
	char *out, *p;
	size_t n;

	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	if (s == e) {
		sw_error_set(err, SW_EINVAL, "an ownership path is empty");
		return NULL;
	}
	if (*s == '/') {
		sw_error_set(err, SW_EINVAL, "ownership path \"%.*s\" is not repository-relative", (int)(e - s), s);
		return NULL;
	}
	if ((out = sw_calloc((size_t)(e - s) + 1, 1)) == NULL) {
		sw_error_set(err, SW_ENOMEM, "out of memory");
		return NULL;
	}
	p = out;
	while (s < e) {
		const char *seg = s, *slash;

		while (s < e && *s != '/')
			s++;
		slash = s;
		n = (size_t)(slash - seg);
		if (s < e)
			s++;
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			if (p == out) {
				sw_error_set(err, SW_EINVAL, "ownership path \"%s\" leaves the repository", in);
				sw_free(out);
				return NULL;
			}
			while (p > out && p[-1] != '/')
				p--;
			if (p > out)
				p--;
			*p = '\0';
			continue;
		}
		if (p != out)
			*p++ = '/';
		memcpy(p, seg, n);
		p += n;
		*p = '\0';
	}
	if (out[0] == '\0') {
		sw_error_set(err, SW_EINVAL, "ownership path \"%s\" is not repository-relative", in);
		sw_free(out);
		return NULL;
	}
	return out;
}

/* root + "/" + rel after checking no existing component is a symlink and no
 * intermediate one a non-directory. */
static char *safe_path(const char *root, const char *rel, struct sw_error *err)
{
	char *abs = sw_asprintf("%s/%s", root, rel);
	size_t rootlen = strlen(root);

	if (abs == NULL) {
		sw_error_set(err, SW_ENOMEM, "out of memory");
		return NULL;
	}
	for (char *p = abs + rootlen + 1;; p++) {
		char save = *p;
		struct stat st;

		if (save != '/' && save != '\0')
			continue;
		*p = '\0';
		if (lstat(abs, &st) < 0) {
			int e = errno;

			*p = save;
			if (e == ENOENT)
				return abs;
			sw_error_sys(err, e, "cannot inspect '%s'", abs);
			sw_free(abs);
			return NULL;
		}
		if (S_ISLNK(st.st_mode)) {
			sw_error_set(err, SW_EUNSAFE, "path \"%s\" crosses the symlink \"%s\"", rel, abs + rootlen + 1);
			*p = save;
			sw_free(abs);
			return NULL;
		}
		if (save == '/' && !S_ISDIR(st.st_mode)) {
			sw_error_set(err, SW_EUNSAFE, "path \"%s\" crosses a non-directory", rel);
			*p = save;
			sw_free(abs);
			return NULL;
		}
		*p = save;
		if (save == '\0')
			return abs;
	}
}

static char *owner_file(const char *root, const struct host *h, const char *name,
			struct sw_error *err)
{
	char *rel = sw_asprintf("%s/slipway/%s", h->owner, name), *abs;

	if (rel == NULL) {
		sw_error_set(err, SW_ENOMEM, "out of memory");
		return NULL;
	}
	abs = safe_path(root, rel, err);
	sw_free(rel);
	return abs;
}

static char *owner_rel(const struct host *h, const char *name)
{
	return sw_asprintf("%s/slipway/%s", h->owner, name);
}

/* Hashes a regular non-symlink file of at most MANAGED_MAX bytes, or
 * reports what it is instead. */
static int classify(enum cls *out, const char *path, const char *sha,
		    struct sw_error *err)
{
	struct stat st;
	char *buf = NULL;
	char hex[SW_HEX_LEN];
	ssize_t got;
	size_t off = 0;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT) {
			*out = CLS_MISSING;
			return 0;
		}
		return sw_error_sys(err, errno, "cannot inspect '%s'", path);
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > MANAGED_MAX) {
		*out = CLS_MODIFIED;
		return 0;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return sw_error_sys(err, errno, "cannot open '%s'", path);
	if ((buf = sw_malloc(MANAGED_MAX + 1)) == NULL) {
		close(fd);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	while (off <= MANAGED_MAX && (got = read(fd, buf + off, MANAGED_MAX + 1 - off)) > 0)
		off += (size_t)got;
	close(fd);
	if (off > MANAGED_MAX) {
		*out = CLS_MODIFIED;
	} else {
		sw_sha256_hex(buf, off, hex);
		*out = strcmp(hex, sha) == 0 ? CLS_PRISTINE : CLS_MODIFIED;
	}
	sw_free(buf);
	return 0;
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int detected(const char *root, const struct host *h)
{
	for (size_t i = 0; i < 5 && h->detect[i]; i++) {
		char *p = sw_asprintf("%s/%s", root, h->detect[i]);
		struct stat st;
		int yes = p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode);

		sw_free(p);
		if (yes)
			return 1;
	}
	return 0;
}

static enum surface kiro_surface(const char *s)
{
	if (s && strcmp(s, "ide") == 0)
		return SURF_KIRO_IDE;
	if (s && strcmp(s, "cli") == 0)
		return SURF_KIRO_CLI;
	return SURF_NONE;
}

/* ---- manifest ---- */

static void manifest_release(struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		sw_free(m->files[i].path);
	sw_free(m->files);
	sw_free(m->surface);
	memset(m, 0, sizeof(*m));
}

static int cmp_claim(const void *a, const void *b)
{
	return strcmp(((const struct claim *)a)->path, ((const struct claim *)b)->path);
}

static const struct claim *claim_find(const struct manifest *m, const char *rel)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->files[i].path, rel) == 0)
			return &m->files[i];
	return NULL;
}

static int only_keys(json_t *o, const char *const *allowed, const char *what,
		     struct sw_error *err)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; allowed[i]; i++)
			if (strcmp(k, allowed[i]) == 0)
				break;
		if (allowed[i] == NULL)
			return sw_error_set(err, SW_EPARSE, "%s has the unknown field \"%s\"", what, k);
	}
	return 0;
}

static int read_small(char **out, size_t *len, const char *path, size_t limit,
		      struct sw_error *err)
{
	char *buf = sw_malloc(limit + 1);
	size_t off = 0;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	*out = NULL;
	if (buf == NULL) {
		if (fd >= 0)
			close(fd);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	if (fd < 0) {
		sw_free(buf);
		return sw_error_sys(err, errno, "cannot open '%s'", path);
	}
	while (off <= limit && (got = read(fd, buf + off, limit + 1 - off)) > 0)
		off += (size_t)got;
	close(fd);
	if (off > limit) {
		sw_free(buf);
		return sw_error_set(err, SW_ETOOBIG, "'%s' exceeds %zu bytes", path, limit);
	}
	buf[off] = '\0';
	*out = buf;
	*len = off;
	return 0;
}

/* Loads and validates `h`'s manifest: m->found = 0 when there is none. */
static int manifest_load(struct manifest *m, const char *root, const struct host *h,
			 const struct adapter_text *texts, struct sw_error *err)
{
	static const char *const top_keys[] = { "version", "tool_id", "surface", "files", NULL };
	static const char *const file_keys[] = { "path", "sha256", NULL };
	struct gen_set g = { NULL, 0 };
	char *path = NULL, *raw = NULL;
	json_t *doc = NULL, *v, *files;
	struct stat st;
	size_t len = 0;
	enum surface s = h->surface;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	if ((path = owner_file(root, h, MANIFEST_NAME, err)) == NULL)
		return err->code;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			rc = sw_error_sys(err, errno, "cannot inspect the ownership manifest for %s", h->id);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = sw_error_set(err, SW_EUNSAFE, "ownership manifest for %s is not a regular file", h->id);
		goto out;
	}
	if ((size_t)st.st_size > MANIFEST_MAX) {
		rc = sw_error_set(err, SW_ETOOBIG, "ownership manifest for %s exceeds %u bytes", h->id, MANIFEST_MAX);
		goto out;
	}
	if ((rc = read_small(&raw, &len, path, MANIFEST_MAX, err)) < 0)
		goto out;
	if ((rc = sw_json_load_strict(&doc, raw, len, MANIFEST_MAX, err)) < 0)
		goto out;
	if (!json_is_object(doc)) {
		rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s is not a JSON object", h->id);
		goto out;
	}
	if ((rc = only_keys(doc, top_keys, "ownership manifest", err)) < 0)
		goto out;
	v = json_object_get(doc, "version");
	if (v && !json_is_integer(v)) {
		rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a non-integer version", h->id);
		goto out;
	}
	if (!v || json_integer_value(v) != 2) {
		rc = sw_error_set(err, SW_EINVAL, "unsupported ownership manifest version %lld for %s",
				  v ? (long long)json_integer_value(v) : 0LL, h->id);
		goto out;
	}
	v = json_object_get(doc, "tool_id");
	if (v && !json_is_string(v)) {
		rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a non-string tool_id", h->id);
		goto out;
	}
	if (!v || strcmp(json_string_value(v), h->id) != 0) {
		rc = sw_error_set(err, SW_EINVAL, "ownership manifest for %s belongs to \"%s\"", h->id,
				  v ? json_string_value(v) : "");
		goto out;
	}
	v = json_object_get(doc, "surface");
	if (v && !json_is_null(v)) {
		const char *k;
		json_t *sv;

		if (!json_is_object(v)) {
			rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a malformed surface", h->id);
			goto out;
		}
		json_object_foreach(v, k, sv)
			if (!json_is_string(sv)) {
				rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a malformed surface", h->id);
				goto out;
			}
		if ((sv = json_object_get(v, h->id)) != NULL &&
		    (m->surface = sw_strdup(json_string_value(sv))) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (h->choice == CHOSEN_SURFACE) {
		if ((s = kiro_surface(m->surface)) == SURF_NONE) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "the kiro ownership manifest records no valid surface (ide or cli)");
			goto out;
		}
	}
	files = json_object_get(doc, "files");
	if (!json_is_array(files)) {
		rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s needs a files array", h->id);
		goto out;
	}
	if ((rc = generate(&g, h, s, texts, err)) < 0)
		goto out;
	if ((m->files = sw_calloc(json_array_size(files) + 1, sizeof(*m->files))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(files); i++) {
		json_t *f = json_array_get(files, i), *p, *hv;
		const char *hx;
		char *rel;

		if (!json_is_object(f) || (rc = only_keys(f, file_keys, "ownership manifest entry", err)) < 0) {
			rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a malformed entry", h->id);
			goto out;
		}
		p = json_object_get(f, "path");
		hv = json_object_get(f, "sha256");
		if ((p && !json_is_string(p)) || (hv && !json_is_string(hv))) {
			rc = sw_error_set(err, SW_EPARSE, "ownership manifest for %s has a malformed entry", h->id);
			goto out;
		}
		if ((rel = normalize_rel(p ? json_string_value(p) : "", err)) == NULL) {
			rc = err->code;
			goto out;
		}
		m->files[m->n].path = rel;
		m->n++;
		if (claim_find(m, rel) != &m->files[m->n - 1]) {
			rc = sw_error_set(err, SW_EINVAL, "duplicate ownership path \"%s\"", rel);
			goto out;
		}
		hx = hv ? json_string_value(hv) : "";
		while (*hx == ' ' || *hx == '\t' || *hx == '\n' || *hx == '\r')
			hx++;
		{
			size_t k;

			for (k = 0; k < 64; k++) {
				char c = hx[k];

				if (c >= 'A' && c <= 'F')
					c = (char)(c - 'A' + 'a');
				if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
					break;
				m->files[m->n - 1].sha[k] = c;
			}
			for (size_t t = 64; k == 64 && hx[t]; t++)
				if (!strchr(" \t\r\n", hx[t]))
					k = 0;
			if (k != 64) {
				rc = sw_error_set(err, SW_EINVAL, "invalid sha256 for \"%s\"", rel);
				goto out;
			}
			m->files[m->n - 1].sha[64] = '\0';
		}
		if (gen_find(&g, rel) == NULL) {
			rc = sw_error_set(err, SW_EINVAL,
					  "ownership manifest for %s claims \"%s\", which is not a path slipway manages",
					  h->id, rel);
			goto out;
		}
	}
	qsort(m->files, m->n, sizeof(*m->files), cmp_claim);
	sw_sha256_hex(raw, len, m->sha);
	m->found = 1;
out:
	if (rc < 0)
		manifest_release(m);
	gen_release(&g);
	json_decref(doc);
	sw_free(raw);
	sw_free(path);
	return rc;
}

/* The manifest bytes for `claims` (sorted by the caller). */
static char *manifest_encode(const struct host *h, enum surface s,
			     const struct claim *claims, size_t n, size_t *len)
{
	size_t cap = 256 + n * 160;
	char *out = sw_malloc(cap), *p = out;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		cap += strlen(claims[i].path);
	sw_free(out);
	if ((out = sw_malloc(cap)) == NULL)
		return NULL;
	p = out;
	p += snprintf(p, cap, "{\n  \"version\": 2,\n  \"tool_id\": \"%s\",\n", h->id);
	if (h->choice == CHOSEN_SURFACE)
		p += snprintf(p, cap - (size_t)(p - out), "  \"surface\": {\n    \"kiro\": \"%s\"\n  },\n",
			      s == SURF_KIRO_CLI ? "cli" : "ide");
	p += snprintf(p, cap - (size_t)(p - out), "  \"files\": [");
	for (size_t i = 0; i < n; i++)
		p += snprintf(p, cap - (size_t)(p - out), "%s\n    {\n      \"path\": \"%s\",\n      \"sha256\": \"%s\"\n    }",
			      i ? "," : "", claims[i].path, claims[i].sha);
	p += snprintf(p, cap - (size_t)(p - out), n ? "\n  ]\n}\n" : "]\n}\n");
	*len = (size_t)(p - out);
	return out;
}

/* ---- selection ---- */

static const struct host *host_lookup(const char *id)
{
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		if (strcmp(hosts[i].id, id) == 0)
			return &hosts[i];
	return NULL;
}

/* Marks the selected hosts in sel[]; explicit --tool values win over
 * detection.  Returns the count, or a negative code. */
static int select_hosts(int sel[ADAPTER_NHOSTS], const struct adapter_request *req,
			int default_detected, struct sw_error *err)
{
	int count = 0;

	memset(sel, 0, sizeof(int) * ADAPTER_NHOSTS);
	if (!req->tools_given && default_detected) {
		for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
			if ((sel[i] = detected(req->root, &hosts[i])))
				count++;
		if (count == 0)
			return sw_error_set(err, SW_ENOTFOUND,
					    "no AI coding host was detected in this repository; name one with --tool");
		return count;
	}
	for (size_t t = 0; t < req->ntools; t++) {
		const char *p = req->tools[t];

		for (;;) {
			const char *comma = strchr(p, ','), *e = comma ? comma : p + strlen(p);
			char id[32];
			size_t n = 0;

			while (p < e && strchr(" \t\r\n", *p))
				p++;
			while (e > p && strchr(" \t\r\n", e[-1]))
				e--;
			if (e > p) {
				const struct host *h;

				if ((size_t)(e - p) >= sizeof(id))
					return sw_error_proto(err, TBL_ERR_UNKNOWN_HOST_ADAPTER,
							      "unknown host adapter \"%.*s\"", (int)(e - p), p);
				for (; p < e; p++)
					id[n++] = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
				id[n] = '\0';
				if (strcmp(id, "all") == 0) {
					for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
						sel[i] = 1;
				} else if ((h = host_lookup(id)) != NULL) {
					sel[h - hosts] = 1;
				} else {
					return sw_error_proto(err, TBL_ERR_UNKNOWN_HOST_ADAPTER,
							      "unknown host adapter \"%s\"", id);
				}
			}
			if (comma == NULL)
				break;
			p = comma + 1;
		}
	}
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		count += sel[i];
	if (count == 0)
		return sw_error_proto(err, TBL_ERR_HOST_ADAPTER_REQUIRED,
				      "--tool must name at least one host adapter");
	return count;
}

static char *missing_manifest_warning(const struct host *h)
{
	int kiro = h->choice == CHOSEN_SURFACE;

	return sw_asprintf("%s has a %s/slipway/" SENTINEL_NAME " marker but no ownership manifest, so slipway owns none of its files; "
			   "back up the host directory, move the marker and any generated files you want recreated out of the way, "
			   "then run slipway install --tool %s%s; files left in place stay untouched",
			   h->id, h->owner, h->id, kiro ? " --surface ide|cli" : "");
}

static char *stale_warning(const struct host *h, const char *rel)
{
	return sw_asprintf("%s: the ownership claim on %s does not match what this slipway version generates; "
			   "the file is kept and the claim dropped; delete the file and run slipway install --refresh to regenerate it",
			   h->id, rel);
}

/* ---- install ---- */

struct file_plan {
	int write, preserve, owned_pristine;
	enum adapter_txn_guard guard;
	char sha[SW_HEX_LEN];
	char *abs;
	char *warning;
};

static int inspect_for_install(struct file_plan *fp, const char *root,
			       const struct host *h, const struct gen_file *f,
			       const struct manifest *m, struct sw_error *err)
{
	const struct claim *c = m->found ? claim_find(m, f->rel) : NULL;
	int stale = 0;
	enum cls k;
	int rc;

	if ((fp->abs = safe_path(root, f->rel, err)) == NULL)
		return err->code;
	if (c && strcmp(c->sha, f->sha) != 0) {
		/* A recorded hash we do not generate proves nothing: keep the file. */
		stale = 1;
	} else if (c) {
		if ((rc = classify(&k, fp->abs, c->sha, err)) < 0)
			return rc;
		if (k == CLS_MODIFIED) {
			fp->preserve = 1;
			return 0;
		}
		fp->write = 1;
		fp->owned_pristine = k == CLS_PRISTINE;
		fp->guard = k == CLS_MISSING ? ADAPTER_TXN_EXPECT_MISSING : ADAPTER_TXN_EXPECT_SHA256;
		snprintf(fp->sha, sizeof(fp->sha), "%s", c->sha);
		return 0;
	}
	if (!exists(fp->abs)) {
		if (errno != ENOENT)
			return sw_error_sys(err, errno, "cannot inspect '%s'", fp->abs);
		fp->write = 1;
		fp->guard = ADAPTER_TXN_EXPECT_MISSING;
		return 0;
	}
	fp->preserve = 1;
	if (stale && (fp->warning = stale_warning(h, f->rel)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	return 0;
}

static int plan_install(struct adapter_report *rep, struct adapter_txn *txn,
			const struct adapter_request *req, const struct host *h,
			enum surface chosen, struct sw_error *err)
{
	struct manifest m;
	struct gen_set g = { NULL, 0 };
	struct file_plan *fps = NULL;
	struct claim *claims = NULL;
	char *mpath = NULL, *spath = NULL, *enc = NULL;
	enum surface s = h->surface;
	enum cls sentinel;
	char sentinel_sha[SW_HEX_LEN];
	int unavailable[ADAPTER_NCAPS] = { 0 };
	size_t nclaims = 0, len;
	int rc, kiro = h->choice == CHOSEN_SURFACE;

	if ((rc = manifest_load(&m, req->root, h, req->texts, err)) < 0)
		return rc;
	if (m.found && kiro) {
		s = kiro_surface(m.surface);
		if (chosen != SURF_NONE && chosen != s) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "kiro is installed with the %s surface; --surface %s does not match",
					    m.surface, chosen == SURF_KIRO_CLI ? "cli" : "ide");
			goto out;
		}
	} else if (kiro) {
		if (chosen == SURF_NONE) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "the first kiro install needs --surface ide or --surface cli");
			goto out;
		}
		s = chosen;
	}
	if ((rc = generate(&g, h, s, req->texts, err)) < 0)
		goto out;
	if (m.found && !req->refresh) {
		rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
			"%s is already installed; run slipway install --refresh to update the files slipway manages", h->id), err);
		goto out;
	}
	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	if ((mpath = owner_file(req->root, h, MANIFEST_NAME, err)) == NULL ||
	    (spath = owner_file(req->root, h, SENTINEL_NAME, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = classify(&sentinel, spath, sentinel_sha, err)) < 0)
		goto out;
	if (!m.found && sentinel != CLS_MISSING) {
		rc = adapter_strs_addf_own(&rep->warnings, missing_manifest_warning(h), err);
		goto out;
	}
	if (m.found && sentinel == CLS_MODIFIED &&
	    (rc = adapter_strs_addf_own(&rep->preserved, owner_rel(h, SENTINEL_NAME), err)) < 0)
		goto out;
	if ((fps = sw_calloc(g.n + 1, sizeof(*fps))) == NULL ||
	    (claims = sw_calloc(g.n + 1, sizeof(*claims))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < g.n; i++) {
		if ((rc = inspect_for_install(&fps[i], req->root, h, &g.v[i], &m, err)) < 0)
			goto out;
		if (!g.v[i].callable && !fps[i].write)
			for (size_t c = 0; c < ADAPTER_NCAPS; c++)
				if (strcmp(adapter_capabilities[c], g.v[i].cap) == 0)
					unavailable[c] = 1;
	}
	/* Support files land before the entrypoints that load them. */
	for (int phase = 0; phase < 2; phase++) {
		for (size_t i = 0; i < g.n; i++) {
			const struct gen_file *f = &g.v[i];
			struct file_plan *fp = &fps[i];
			int blocked = 0;

			if (f->callable != phase)
				continue;
			for (size_t c = 0; c < ADAPTER_NCAPS; c++)
				if (f->callable && unavailable[c] && strcmp(adapter_capabilities[c], f->cap) == 0)
					blocked = 1;
			if (blocked) {
				if (fp->owned_pristine) {
					if ((rc = adapter_txn_remove(txn, fp->abs, ADAPTER_TXN_EXPECT_SHA256, f->sha, err)) < 0 ||
					    (rc = adapter_strs_add(&rep->removed, f->rel, err)) < 0)
						goto out;
				} else if (fp->preserve && (rc = adapter_strs_add(&rep->preserved, f->rel, err)) < 0) {
					goto out;
				}
				if ((fp->warning && (rc = adapter_strs_add(&rep->warnings, fp->warning, err)) < 0) ||
				    (rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
					    "%s: %s was not installed because files capability %s needs are not managed by slipway",
					    h->id, f->rel, f->cap), err)) < 0)
					goto out;
				continue;
			}
			if (fp->preserve) {
				if ((rc = adapter_strs_add(&rep->preserved, f->rel, err)) < 0 ||
				    (fp->warning && (rc = adapter_strs_add(&rep->warnings, fp->warning, err)) < 0))
					goto out;
				continue;
			}
			if (!fp->write)
				continue;
			if ((rc = adapter_txn_write(txn, fp->abs, f->data, f->len, 0644, fp->guard, fp->sha, err)) < 0 ||
			    (rc = adapter_strs_add(&rep->written, f->rel, err)) < 0)
				goto out;
			if ((claims[nclaims].path = sw_strdup(f->rel)) == NULL) {
				rc = sw_error_set(err, SW_ENOMEM, "out of memory");
				goto out;
			}
			memcpy(claims[nclaims++].sha, f->sha, SW_HEX_LEN);
		}
	}
	if (nclaims == 0) {
		if ((rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
			     "%s is not installed: slipway could not safely claim any of its files, and the files kept stay yours", h->id), err)) < 0)
			goto out;
		if (m.found) {
			if ((rc = adapter_txn_remove(txn, mpath, ADAPTER_TXN_EXPECT_SHA256, m.sha, err)) < 0 ||
			    (rc = adapter_strs_addf_own(&rep->removed, owner_rel(h, MANIFEST_NAME), err)) < 0)
				goto out;
			if (sentinel == CLS_PRISTINE &&
			    ((rc = adapter_txn_remove(txn, spath, ADAPTER_TXN_EXPECT_SHA256, sentinel_sha, err)) < 0 ||
			     (rc = adapter_strs_addf_own(&rep->removed, owner_rel(h, SENTINEL_NAME), err)) < 0))
				goto out;
		}
		goto out;
	}
	qsort(claims, nclaims, sizeof(*claims), cmp_claim);
	if ((enc = manifest_encode(h, s, claims, nclaims, &len)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = adapter_txn_write(txn, mpath, enc, len, 0600,
				    m.found ? ADAPTER_TXN_EXPECT_SHA256 : ADAPTER_TXN_EXPECT_MISSING,
				    m.sha, err)) < 0 ||
	    (rc = adapter_strs_addf_own(&rep->written, owner_rel(h, MANIFEST_NAME), err)) < 0)
		goto out;
	if (sentinel != CLS_MODIFIED &&
	    ((rc = adapter_txn_write(txn, spath, SENTINEL_BYTES, strlen(SENTINEL_BYTES), 0600,
				     sentinel == CLS_MISSING ? ADAPTER_TXN_EXPECT_MISSING : ADAPTER_TXN_EXPECT_SHA256,
				     sentinel_sha, err)) < 0 ||
	     (rc = adapter_strs_addf_own(&rep->written, owner_rel(h, SENTINEL_NAME), err)) < 0))
		goto out;
out:
	for (size_t i = 0; fps && i < g.n; i++) {
		sw_free(fps[i].abs);
		sw_free(fps[i].warning);
	}
	for (size_t i = 0; claims && i < nclaims; i++)
		sw_free(claims[i].path);
	sw_free(claims);
	sw_free(fps);
	sw_free(enc);
	sw_free(mpath);
	sw_free(spath);
	gen_release(&g);
	manifest_release(&m);
	return rc;
}

static int is_surface_error(const struct sw_error *err)
{
	return err->code == SW_EPROTO && err->proto == TBL_ERR_INVALID_ADAPTER_SURFACE;
}

static int run_txn(struct adapter_report *rep, struct adapter_txn *txn,
		   const char *root, struct sw_error *err)
{
	char *warning = NULL;
	const char *arts[64];
	int rc = adapter_txn_apply(txn, &rep->outcome, &warning, err);

	if (warning)
		(void)adapter_strs_addf_own(&rep->warnings, warning, NULL);
	if (rc < 0 && rep->outcome == ADAPTER_TXN_AMBIGUOUS) {
		size_t n = adapter_txn_artifacts(txn, arts, 64), rootlen = strlen(root);

		for (size_t i = 0; i < n && i < 64; i++)
			(void)adapter_strs_add(&rep->recovery,
				       strncmp(arts[i], root, rootlen) == 0 && arts[i][rootlen] == '/'
				       ? arts[i] + rootlen + 1 : arts[i], NULL);
		if (n > 0)
			(void)adapter_strs_add(&rep->warnings,
				       "the transaction could not be fully undone; the recovery artifacts hold the previous file contents", NULL);
	}
	return rc;
}

int adapter_install(struct adapter_report *rep, const struct adapter_request *req,
		    struct sw_error *err)
{
	struct adapter_txn *txn = NULL;
	int sel[ADAPTER_NHOSTS];
	enum surface chosen = SURF_NONE;
	int rc, count, surface_given = req->surface && req->surface[0];

	rep->outcome = ADAPTER_TXN_NOT_COMMITTED;
	if ((rc = count = select_hosts(sel, req, 1, err)) < 0)
		goto out;
	if (surface_given) {
		if (!sel[5]) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "--surface applies only when kiro is among the selected hosts");
			goto out;
		}
		if ((chosen = kiro_surface(req->surface)) == SURF_NONE) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "the kiro surface must be ide or cli");
			goto out;
		}
	}
	if ((rc = adapter_txn_new(&txn, req->root, err)) < 0)
		goto out;
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		struct sw_error herr = SW_ERROR_INIT;
		size_t first = adapter_txn_size(txn);

		if (!sel[i])
			continue;
		if (plan_install(rep, txn, req, &hosts[i], chosen, &herr) < 0) {
			if (count > 1 && !req->tools_given && !surface_given &&
			    i == 5 && is_surface_error(&herr)) {
				rc = adapter_strs_add(&rep->warnings,
					      "kiro was skipped: its first install needs --surface ide or --surface cli; the other detected hosts were installed", err);
				if (rc < 0)
					goto out;
				continue;
			}
			if (is_surface_error(&herr))
				rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE, "%s", herr.msg);
			else
				rc = sw_error_set(err, herr.code, "cannot plan the %s install: %s", hosts[i].id, herr.msg);
			goto out;
		}
		if (req->mcp && adapter_mcp_plan_install(rep, txn, req->root, hosts[i].id,
							 hosts[i].owner, &herr) < 0) {
			rc = sw_error_set(err, herr.code, "cannot plan the %s MCP registration: %s",
					  hosts[i].id, herr.msg);
			goto out;
		}
		if (adapter_folders_plan_install(rep, txn, req->root, hosts[i].id, hosts[i].owner,
						 first, &herr) < 0) {
			rc = sw_error_set(err, herr.code, "cannot plan the %s install: %s",
					  hosts[i].id, herr.msg);
			goto out;
		}
		if ((rc = adapter_strs_add(&rep->hosts, hosts[i].id, err)) < 0)
			goto out;
	}
	rc = run_txn(rep, txn, req->root, err);
out:
	adapter_txn_free(txn);
	report_normalize(rep);
	return rc;
}

/* ---- uninstall ---- */

static int plan_uninstall(struct adapter_report *rep, struct adapter_txn *txn,
			  const struct adapter_request *req, const struct host *h,
			  struct sw_error *err)
{
	struct manifest m;
	struct gen_set g = { NULL, 0 };
	const char *surviving[ADAPTER_NCAPS] = { NULL };
	char *mpath = NULL, *spath = NULL, *abs = NULL;
	char sentinel_sha[SW_HEX_LEN];
	enum cls k;
	int rc;

	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	if ((rc = adapter_mcp_plan_uninstall(rep, txn, req->root, h->id, h->owner, err)) < 0)
		return rc;
	if ((rc = manifest_load(&m, req->root, h, req->texts, err)) < 0)
		return rc;
	if ((spath = owner_file(req->root, h, SENTINEL_NAME, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if (!m.found) {
		if (exists(spath))
			rc = adapter_strs_addf_own(&rep->warnings, missing_manifest_warning(h), err);
		goto out;
	}
	if ((rc = generate(&g, h, h->choice == CHOSEN_SURFACE ? kiro_surface(m.surface) : h->surface,
			   req->texts, err)) < 0)
		goto out;
	for (size_t i = 0; i < g.n; i++) {
		const struct gen_file *f = &g.v[i];
		const struct claim *c = claim_find(&m, f->rel);
		size_t ci;

		if (!f->callable)
			continue;
		for (ci = 0; strcmp(adapter_capabilities[ci], f->cap) != 0; ci++)
			;
		sw_free(abs);
		if ((abs = safe_path(req->root, f->rel, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		if (!c || strcmp(c->sha, f->sha) != 0) {
			if (exists(abs))
				surviving[ci] = f->rel;
			continue;
		}
		if ((rc = classify(&k, abs, c->sha, err)) < 0)
			goto out;
		if (k == CLS_MODIFIED)
			surviving[ci] = f->rel;
	}
	/* A surviving Codex skill keeps its explicit-invocation policy. */
	for (size_t i = 0; i < g.n; i++) {
		const struct gen_file *f = &g.v[i];
		size_t ci;

		if (!f->policy)
			continue;
		for (ci = 0; strcmp(adapter_capabilities[ci], f->cap) != 0; ci++)
			;
		if (!surviving[ci])
			continue;
		sw_free(abs);
		if ((abs = safe_path(req->root, f->rel, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		if ((rc = classify(&k, abs, f->sha, err)) < 0)
			goto out;
		if (k != CLS_PRISTINE) {
			rc = sw_error_set(err, SW_ECONFLICT,
					  "cannot uninstall %s safely: %s stays but its invocation policy %s is %s; restore the generated policy and retry",
					  h->id, surviving[ci], f->rel, k == CLS_MISSING ? "missing" : "modified");
			goto out;
		}
		if ((rc = adapter_txn_verify(txn, abs, ADAPTER_TXN_EXPECT_SHA256, f->sha, err)) < 0)
			goto out;
		if (!claim_find(&m, f->rel) &&
		    ((rc = adapter_strs_add(&rep->preserved, f->rel, err)) < 0 ||
		     (rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
			     "%s: kept %s because %s stays", h->id, f->rel, surviving[ci]), err)) < 0))
			goto out;
	}
	for (size_t i = 0; i < m.n; i++) {
		const struct claim *c = &m.files[i];
		const struct gen_file *f = gen_find(&g, c->path);
		size_t ci = 0;

		sw_free(abs);
		if ((abs = safe_path(req->root, c->path, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		if (f && f->policy) {
			for (ci = 0; strcmp(adapter_capabilities[ci], f->cap) != 0; ci++)
				;
			if (surviving[ci]) {
				if ((rc = classify(&k, abs, f->sha, err)) < 0)
					goto out;
				if (k == CLS_PRISTINE) {
					if ((rc = adapter_strs_add(&rep->preserved, c->path, err)) < 0 ||
					    (rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
						    "%s: capability %s stays partly installed because %s remains, so its invocation policy %s was kept",
						    h->id, f->cap, surviving[ci], c->path), err)) < 0)
						goto out;
					continue;
				}
			}
		}
		if (!f || strcmp(f->sha, c->sha) != 0) {
			if (exists(abs) &&
			    ((rc = adapter_strs_add(&rep->preserved, c->path, err)) < 0 ||
			     (rc = adapter_strs_addf_own(&rep->warnings, stale_warning(h, c->path), err)) < 0))
				goto out;
			continue;
		}
		if ((rc = classify(&k, abs, c->sha, err)) < 0)
			goto out;
		if (k == CLS_PRISTINE) {
			if ((rc = adapter_txn_remove(txn, abs, ADAPTER_TXN_EXPECT_SHA256, c->sha, err)) < 0 ||
			    (rc = adapter_strs_add(&rep->removed, c->path, err)) < 0)
				goto out;
		} else if (k == CLS_MODIFIED && (rc = adapter_strs_add(&rep->preserved, c->path, err)) < 0) {
			goto out;
		}
	}
	if ((mpath = owner_file(req->root, h, MANIFEST_NAME, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = adapter_txn_remove(txn, mpath, ADAPTER_TXN_EXPECT_SHA256, m.sha, err)) < 0 ||
	    (rc = adapter_strs_addf_own(&rep->removed, owner_rel(h, MANIFEST_NAME), err)) < 0 ||
	    (rc = classify(&k, spath, sentinel_sha, err)) < 0)
		goto out;
	if (k == CLS_PRISTINE)
		rc = adapter_txn_remove(txn, spath, ADAPTER_TXN_EXPECT_SHA256, sentinel_sha, err) < 0
		     ? err->code : adapter_strs_addf_own(&rep->removed, owner_rel(h, SENTINEL_NAME), err);
	else if (k == CLS_MODIFIED)
		rc = adapter_strs_addf_own(&rep->preserved, owner_rel(h, SENTINEL_NAME), err);
out:
	sw_free(abs);
	sw_free(mpath);
	sw_free(spath);
	gen_release(&g);
	manifest_release(&m);
	return rc;
}

int adapter_uninstall(struct adapter_report *rep, const struct adapter_request *req,
		      struct sw_error *err)
{
	struct adapter_txn *txn = NULL;
	struct adapter_strs folders = { NULL, 0 };
	int sel[ADAPTER_NHOSTS] = { 0 };
	int rc = 0, count = 0;

	rep->outcome = ADAPTER_TXN_NOT_COMMITTED;
	if (req->tools_given) {
		if ((rc = select_hosts(sel, req, 0, err)) < 0)
			goto out;
	} else {
		for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
			struct manifest m;
			struct sw_error herr = SW_ERROR_INIT;

			if (manifest_load(&m, req->root, &hosts[i], req->texts, &herr) < 0) {
				rc = sw_error_set(err, herr.code, "cannot inspect %s for uninstall: %s", hosts[i].id, herr.msg);
				goto out;
			}
			sel[i] = m.found;
			count += m.found;
			manifest_release(&m);
		}
		if (count == 0) {
			rc = sw_error_set(err, SW_ENOTFOUND, "no installed host adapter was found; name one with --tool");
			goto out;
		}
	}
	if ((rc = adapter_txn_new(&txn, req->root, err)) < 0)
		goto out;
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		struct sw_error herr = SW_ERROR_INIT;

		if (!sel[i])
			continue;
		if (plan_uninstall(rep, txn, req, &hosts[i], &herr) < 0 ||
		    adapter_folders_plan_uninstall(rep, txn, req->root, hosts[i].id, hosts[i].owner,
						   &folders, &herr) < 0) {
			rc = sw_error_set(err, herr.code, "cannot plan the %s uninstall: %s", hosts[i].id, herr.msg);
			goto out;
		}
		if ((rc = adapter_strs_add(&rep->hosts, hosts[i].id, err)) < 0)
			goto out;
	}
	rc = run_txn(rep, txn, req->root, err);
	/* Only once the files are gone: the folders slipway made that are
	 * left empty. */
	if (rc == 0 && rep->outcome == ADAPTER_TXN_COMMITTED)
		adapter_folders_remove_empty(rep, req->root, &folders);
out:
	adapter_strs_release(&folders);
	adapter_txn_free(txn);
	report_normalize(rep);
	return rc;
}

/* ---- inspection: list and doctor ---- */

struct inspection {
	int complete;
	int modified, stale;
	int sentinel_missing, sentinel_modified;
	int healthy_caps[ADAPTER_NCAPS];
};

static int inspect(struct inspection *in, const char *root, const struct host *h,
		   const struct manifest *m, enum surface s,
		   const struct adapter_text *texts, struct sw_error *err)
{
	struct gen_set g = { NULL, 0 };
	int *healthy = NULL;
	char sentinel_sha[SW_HEX_LEN];
	char *spath = NULL;
	enum cls k;
	int rc;

	memset(in, 0, sizeof(*in));
	if ((rc = generate(&g, h, s, texts, err)) < 0)
		return rc;
	if ((healthy = sw_calloc(g.n + 1, sizeof(*healthy))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	in->complete = m->n == g.n;
	for (size_t i = 0; i < g.n; i++) {
		const struct claim *c = claim_find(m, g.v[i].rel);

		if (!c || strcmp(c->sha, g.v[i].sha) != 0)
			in->complete = 0;
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct gen_file *f = gen_find(&g, m->files[i].path);
		struct sw_error ignore = SW_ERROR_INIT;
		char *abs;

		if (!f || strcmp(f->sha, m->files[i].sha) != 0) {
			in->stale++;
			in->modified++;
			continue;
		}
		if ((abs = safe_path(root, f->rel, &ignore)) == NULL) {
			in->modified++;
			continue;
		}
		if (classify(&k, abs, f->sha, &ignore) < 0 || k != CLS_PRISTINE)
			in->modified++;
		else
			healthy[f - g.v] = 1;
		sw_free(abs);
	}
	for (size_t c = 0; c < ADAPTER_NCAPS; c++) {
		int found = 0, ok = 1;

		for (size_t i = 0; i < g.n; i++) {
			const struct claim *cl;

			if (strcmp(g.v[i].cap, adapter_capabilities[c]) != 0)
				continue;
			found = 1;
			cl = claim_find(m, g.v[i].rel);
			if (!cl || strcmp(cl->sha, g.v[i].sha) != 0 || !healthy[i])
				ok = 0;
		}
		in->healthy_caps[c] = found && ok;
	}
	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	if ((spath = owner_file(root, h, SENTINEL_NAME, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = classify(&k, spath, sentinel_sha, err)) < 0)
		goto out;
	if (k == CLS_MISSING) {
		in->sentinel_missing = 1;
		in->modified++;
	} else if (k == CLS_MODIFIED) {
		in->sentinel_modified = 1;
		in->modified++;
	}
out:
	sw_free(spath);
	sw_free(healthy);
	gen_release(&g);
	return rc;
}

static enum surface manifest_surface(const struct host *h, const struct manifest *m)
{
	return h->choice == CHOSEN_SURFACE ? kiro_surface(m->surface) : h->surface;
}

/* Where slipway mcp is registered for `h`, or the warning that our entry
 * changed (shown unless the host has a warning already). */
static int list_mcp(struct adapter_host_status *st, const char *root, const struct host *h,
		    struct sw_error *err)
{
	struct sw_error herr = SW_ERROR_INIT;
	enum adapter_mcp_state ms;

	if (adapter_mcp_inspect(&ms, root, h->id, h->owner, &herr) < 0) {
		if (herr.code == SW_ENOMEM)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		ms = ADAPTER_MCP_CHANGED;
	}
	if (ms == ADAPTER_MCP_REGISTERED)
		st->mcp_config = adapter_mcp_config(h->id);
	st->mcp_changed = ms == ADAPTER_MCP_CHANGED;
	if (st->mcp_changed && st->warning == NULL &&
	    (st->warning = sw_asprintf("the slipway MCP server entry in %s is missing or changed; it is kept",
				       adapter_mcp_config(h->id))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	return 0;
}

int adapter_list(struct adapter_host_status out[ADAPTER_NHOSTS], const char *root,
		 const struct adapter_text *texts, struct sw_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out) * ADAPTER_NHOSTS);
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		const struct host *h = &hosts[i];
		struct adapter_host_status *st = &out[i];
		struct sw_error herr = SW_ERROR_INIT;
		struct inspection in;
		struct manifest m;
		int want_warning = 0;

		st->id = h->id;
		st->detected = detected(root, h);
		if (manifest_load(&m, root, h, texts, &herr) < 0) {
			if (herr.code == SW_ENOMEM)
				return sw_error_set(err, SW_ENOMEM, "out of memory");
			if ((st->warning = sw_asprintf("the ownership manifest cannot be read: %s", herr.msg)) == NULL)
				return sw_error_set(err, SW_ENOMEM, "out of memory");
			continue;
		}
		st->installed = m.found;
		if (m.found) {
			if (inspect(&in, root, h, &m, manifest_surface(h, &m), texts, &herr) < 0) {
				want_warning = 1;
				st->warning = sw_asprintf("the managed files cannot be inspected: %s", herr.msg);
			} else {
				st->needs_refresh = !in.complete || in.modified > 0;
				want_warning = in.stale > 0;
				if (in.stale > 0)
					st->warning = sw_asprintf(
						"%d ownership claim(s) record bytes this slipway version does not generate; refresh or uninstall keeps those files and drops the claims",
						in.stale);
				for (size_t c = 0; c < ADAPTER_NCAPS; c++)
					if (in.healthy_caps[c])
						st->caps[st->ncaps++] = adapter_capabilities[c];
			}
		}
		manifest_release(&m);
		if (want_warning && st->warning == NULL)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		if ((rc = list_mcp(st, root, h, err)) < 0)
			return rc;
	}
	return 0;
}

void adapter_list_release(struct adapter_host_status st[ADAPTER_NHOSTS])
{
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		sw_free(st[i].warning);
		st[i].warning = NULL;
	}
}

int adapter_checks_add(struct adapter_checks *c, const char *code, const char *status,
		       const char *host, const char *name, const char *detail,
		       struct sw_error *err)
{
	struct adapter_check *grown = sw_realloc(c->v, (c->n + 1) * sizeof(*grown));
	struct adapter_check *k;

	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	c->v = grown;
	k = &c->v[c->n];
	memset(k, 0, sizeof(*k));
	k->status = status;
	k->host = host;
	k->name = name;
	if ((k->code = sw_strdup(code)) == NULL || (k->detail = sw_strdup(detail)) == NULL) {
		sw_free(k->code);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	c->n++;
	return 0;
}

void adapter_checks_release(struct adapter_checks *c)
{
	for (size_t i = 0; i < c->n; i++) {
		sw_free(c->v[i].code);
		sw_free(c->v[i].detail);
	}
	sw_free(c->v);
	c->v = NULL;
	c->n = 0;
}

static int add_own(struct adapter_checks *c, const char *code, const char *status,
		   const char *host, const char *name, char *detail, struct sw_error *err)
{
	int rc;

	if (detail == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	rc = adapter_checks_add(c, code, status, host, name, detail, err);
	sw_free(detail);
	return rc;
}

/* Generated files of `h` (every kiro surface) left without a manifest. */
static char *unowned_detail(const char *root, const struct host *h,
			    const struct adapter_text *texts)
{
	enum surface probes[2] = { h->surface, SURF_NONE };
	struct adapter_strs found = { NULL, 0 };
	char *list = NULL, *out = NULL;
	size_t len = 0;

	if (h->choice == CHOSEN_SURFACE) {
		probes[0] = SURF_KIRO_IDE;
		probes[1] = SURF_KIRO_CLI;
	}
	for (size_t p = 0; p < 2; p++) {
		struct gen_set g = { NULL, 0 };

		if (probes[p] == SURF_NONE || generate(&g, h, probes[p], texts, NULL) < 0)
			continue;
		for (size_t i = 0; i < g.n; i++) {
			char *abs = safe_path(root, g.v[i].rel, NULL);

			if (abs && exists(abs))
				(void)adapter_strs_add(&found, g.v[i].rel, NULL);
			sw_free(abs);
		}
		gen_release(&g);
	}
	adapter_strs_normalize(&found);
	if (found.n == 0)
		goto done;
	for (size_t i = 0; i < found.n; i++)
		len += strlen(found.v[i]) + 2;
	if ((list = sw_calloc(len + 1, 1)) == NULL)
		goto done;
	for (size_t i = 0; i < found.n; i++) {
		if (i)
			strncat(list, ", ", len - strlen(list));
		strncat(list, found.v[i], len - strlen(list));
	}
	out = sw_asprintf("detected without an ownership manifest; %zu generated capability file(s) are left unowned: %s. "
			  "Uninstall will not remove them and --refresh will not adopt them; back them up, delete the ones to recreate, then run slipway install --tool %s%s",
			  found.n, list, h->id, h->choice == CHOSEN_SURFACE ? " --surface ide|cli" : "");
done:
	sw_free(list);
	adapter_strs_release(&found);
	return out;
}

/* The MCP registration of an installed host, when there is one. */
static int doctor_mcp(struct adapter_checks *c, const char *root, const struct host *h,
		      struct sw_error *err)
{
	struct sw_error herr = SW_ERROR_INIT;
	enum adapter_mcp_state st;

	if (adapter_mcp_inspect(&st, root, h->id, h->owner, &herr) < 0)
		return adapter_checks_add(c, "mcp_server_unreadable", "error", h->id, "MCP server", herr.msg, err);
	switch (st) {
	case ADAPTER_MCP_REGISTERED:
		return add_own(c, "mcp_server_registered", "ok", h->id, "MCP server", sw_asprintf(
			"slipway mcp is registered in %s", adapter_mcp_config(h->id)), err);
	case ADAPTER_MCP_CHANGED:
		return add_own(c, "mcp_server_modified", "warning", h->id, "MCP server", sw_asprintf(
			"the slipway entry in %s is missing or changed; it is kept as yours, and "
			"slipway install --mcp --refresh cannot replace it", adapter_mcp_config(h->id)), err);
	case ADAPTER_MCP_NONE:
		break;
	}
	return 0;
}

static int doctor_host(struct adapter_checks *c, const char *root, const struct host *h,
		       const struct adapter_text *texts, struct sw_error *err)
{
	struct sw_error herr = SW_ERROR_INIT;
	struct inspection in;
	struct manifest m;
	char *spath = NULL;
	int rc = 0;

	if (manifest_load(&m, root, h, texts, &herr) < 0)
		return adapter_checks_add(c, "adapter_manifest_unreadable", "error", h->id, "manifest", herr.msg, err);
	if (!m.found && !detected(root, h)) {
		rc = adapter_checks_add(c, "adapter_not_detected", "ok", h->id, "adapter", "not detected", err);
		goto out;
	}
	if (!m.found) {
		char *detail = NULL;

		spath = owner_file(root, h, SENTINEL_NAME, NULL);
		if (spath && exists(spath))
			detail = missing_manifest_warning(h);
		else if ((detail = unowned_detail(root, h, texts)) == NULL)
			detail = sw_strdup("detected, but no ownership manifest is installed");
		rc = add_own(c, "adapter_not_installed", "warning", h->id, "adapter", detail, err);
		goto out;
	}
	if (inspect(&in, root, h, &m, manifest_surface(h, &m), texts, &herr) < 0) {
		rc = adapter_checks_add(c, "adapter_inspection_unavailable", "error", h->id, "adapter inspection", herr.msg, err);
		goto out;
	}
	if (in.sentinel_modified)
		rc = add_own(c, "adapter_modified", "warning", h->id, "adapter", sw_asprintf(
			"the generated marker %s/slipway/" SENTINEL_NAME " was edited and is kept as your file%s; inspect and delete it before slipway install --refresh to regenerate",
			h->owner, in.modified > 1 ? " (other managed files changed or are missing too)" : ""), err);
	else if (in.stale > 0)
		rc = add_own(c, "adapter_refresh_required", "warning", h->id, "adapter", sw_asprintf(
			"%d ownership claim(s) record bytes this version does not generate; refresh or uninstall keeps those files and drops the claims; delete them first to regenerate",
			in.stale), err);
	else if (!in.complete || in.sentinel_missing)
		rc = adapter_checks_add(c, "adapter_refresh_required", "warning", h->id, "adapter",
					"the managed capability set or its marker is incomplete or outdated; run slipway install --refresh", err);
	else if (in.modified > 0)
		rc = add_own(c, "adapter_modified", "warning", h->id, "adapter", sw_asprintf(
			"%d managed file(s) changed or missing", in.modified), err);
	else
		rc = add_own(c, "adapter_healthy", "ok", h->id, "adapter", sw_asprintf(
			"%zu managed files", m.n), err);
	if (rc == 0)
		rc = doctor_mcp(c, root, h, err);
out:
	sw_free(spath);
	manifest_release(&m);
	return rc;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int legacy_checks(struct adapter_checks *c, const char *common, struct sw_error *err)
{
	static const char *const names[][2] = {
		{ "runtime", "legacy_runtime_residue" },
		{ "cache", "legacy_cache_residue" },
		{ "scope-root", "legacy_scope_root_residue" },
		{ "scopes", "legacy_scopes_residue" },
		{ "locks", "legacy_locks_residue" },
		{ "processes", "legacy_processes_residue" },
		{ "repair-backups", "legacy_repair_backups_residue" },
	};
	struct adapter_strs entries = { NULL, 0 };
	char *dir = sw_asprintf("%s/slipway", common);
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int rc = 0;

	if (dir == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (lstat(dir, &st) < 0 && errno == ENOENT)
		goto out;
	if (!S_ISDIR(st.st_mode) || (d = opendir(dir)) == NULL) {
		rc = adapter_checks_add(c, "legacy_unknown_residue", "warning", "-", "legacy_runstore",
					"the retired slipway namespace in the Git common directory could not be inspected safely; "
					"stop any old slipway binary, back up the Git common directory and inspect it by hand; nothing is migrated or deleted", err);
		goto out;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "runs") &&
		    (rc = adapter_strs_add(&entries, de->d_name, err)) < 0)
			goto out;
	if (entries.n)
		qsort(entries.v, entries.n, sizeof(*entries.v), cmp_cstr);
	for (size_t i = 0; i < entries.n; i++) {
		const char *code = "legacy_unknown_residue";

		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(names[k][0], entries.v[i]) == 0)
				code = names[k][1];
		if ((rc = add_own(c, code, "warning", "-", "legacy_runstore", sw_asprintf(
			     "retired slipway data \"%s\" remains in the Git common directory; stop any old slipway binary, back up the Git common directory and remove it by hand if you wish; nothing is migrated or deleted",
			     entries.v[i]), err)) < 0)
			goto out;
	}
out:
	if (d)
		closedir(d);
	adapter_strs_release(&entries);
	sw_free(dir);
	return rc;
}

/* The run store's checks (the caller made them from what the store
 * found, see struct adapter_store_facts), in its order. */
static int store_checks(struct adapter_checks *c, const struct adapter_store_facts *store,
			struct sw_error *err)
{
	int rc = 0;

	for (size_t i = 0; store != NULL && i < store->n && rc == 0; i++)
		rc = adapter_checks_add(c, store->v[i].code, store->v[i].status, "-", "runstore",
					store->v[i].detail, err);
	return rc;
}

int adapter_doctor_local(struct adapter_checks *c, const char *root,
			 const char *git_common_dir, const struct adapter_store_facts *store,
			 const struct adapter_text *texts, struct sw_error *err)
{
	int rc;

	if ((rc = adapter_checks_add(c, "repository_ok", "ok", "-", "repository", root, err)) < 0)
		return rc;
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		if ((rc = doctor_host(c, root, &hosts[i], texts, err)) < 0)
			return rc;
	if (git_common_dir == NULL)
		return 0;
	if ((rc = legacy_checks(c, git_common_dir, err)) < 0)
		return rc;
	return store_checks(c, store, err);
}

/* ---- the host table, for the generated documentation ---- */

int adapter_host_doc(struct adapter_host_doc *out, size_t i)
{
	if (i >= ADAPTER_NHOSTS)
		return -1;
	memset(out, 0, sizeof(*out));
	out->id = hosts[i].id;
	out->owner = hosts[i].owner;
	out->detect = hosts[i].detect;
	while (out->ndetect < 5 && hosts[i].detect[out->ndetect])
		out->ndetect++;
	out->chooses_surface = hosts[i].choice == CHOSEN_SURFACE;
	out->mcp_config = adapter_mcp_config(hosts[i].id);
	return 0;
}

int adapter_host_walk(size_t i, const char *surface, const struct adapter_text *texts,
		      adapter_path_fn *fn, void *payload, struct sw_error *err)
{
	const struct host *h;
	enum surface s;
	struct gen_set g = { NULL, 0 };
	char *rel;
	int rc;

	if (i >= ADAPTER_NHOSTS)
		return sw_error_set(err, SW_EINVAL, "no host %zu", i);
	h = &hosts[i];
	s = h->choice == CHOSEN_SURFACE ? kiro_surface(surface) : h->surface;
	if (s == SURF_NONE || (h->choice != CHOSEN_SURFACE && surface && *surface))
		return sw_error_set(err, SW_EINVAL, "host %s has no surface \"%s\"", h->id,
				    surface ? surface : "");
	if ((rc = generate(&g, h, s, texts, err)) < 0)
		return rc;
	for (size_t k = 0; k < g.n; k++)
		fn(ADAPTER_PATH_GENERATED, g.v[k].rel, g.v[k].cap, payload);
	gen_release(&g);
	{
		static const struct { enum adapter_path_role role; const char *name; } own[] = {
			{ ADAPTER_PATH_MANIFEST, MANIFEST_NAME },
			{ ADAPTER_PATH_SENTINEL, SENTINEL_NAME },
			{ ADAPTER_PATH_MCP_RECORD, ADAPTER_MCP_RECORD },
		};

		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++) {
			if (own[k].role == ADAPTER_PATH_MCP_RECORD && adapter_mcp_config(h->id) == NULL)
				continue;
			if ((rel = owner_rel(h, own[k].name)) == NULL)
				return sw_error_set(err, SW_ENOMEM, "out of memory");
			fn(own[k].role, rel, NULL, payload);
			sw_free(rel);
		}
	}
	if (adapter_mcp_config(h->id))
		fn(ADAPTER_PATH_MCP_CONFIG, adapter_mcp_config(h->id), NULL, payload);
	return 0;
}

/* ---- what slipway installed (for the Run report) ---- */

/* 1 when `rel` lies in one of the folders `h` keeps its files in. */
static int host_folder(const struct host *h, const char *rel)
{
	const char *dirs[8] = { h->skills, h->owner };
	size_t n = 2;

	for (size_t i = 0; i < 5 && h->detect[i]; i++)
		dirs[n++] = h->detect[i];
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dirs[i]);

		if (strncmp(rel, dirs[i], len) == 0 && rel[len] == '/')
			return 1;
	}
	return 0;
}

static int owned_add(struct sw_owned_group *g, char *path, const char *hex)
{
	struct sw_owned_file *grown;

	if (path == NULL || (grown = sw_realloc(g->files, (g->n + 1) * sizeof(*grown))) == NULL) {
		sw_free(path);
		return -1;
	}
	g->files = grown;
	g->files[g->n].path = path;
	g->files[g->n].sha256[0] = '\0';
	if (hex)
		snprintf(g->files[g->n].sha256, sizeof(g->files[g->n].sha256), "sha256:%s", hex);
	g->n++;
	return 0;
}

/* Reads `h`'s manifest into `g`: 0 with g->n == 0 when there is none or
 * it cannot be read, -1 on ENOMEM. */
static int installed_host(struct sw_owned_group *g, const char *root, const struct host *h)
{
	struct sw_error e = SW_ERROR_INIT;
	char *path = owner_file(root, h, MANIFEST_NAME, &e), *raw = NULL;
	char sentinel_sha[SW_HEX_LEN];
	json_t *doc = NULL, *f;
	size_t len = 0, i;
	int rc = 0;

	g->owner = h->id;
	if (path == NULL)
		return e.code == SW_ENOMEM ? -1 : 0;
	if (read_small(&raw, &len, path, MANIFEST_MAX, &e) < 0 ||
	    sw_json_load_strict(&doc, raw, len, MANIFEST_MAX, &e) < 0 || !json_is_object(doc) ||
	    json_integer_value(json_object_get(doc, "version")) != 2 ||
	    !json_is_string(json_object_get(doc, "tool_id")) ||
	    strcmp(json_string_value(json_object_get(doc, "tool_id")), h->id) != 0 ||
	    !json_is_array(json_object_get(doc, "files"))) {
		rc = e.code == SW_ENOMEM ? -1 : 0;
		goto out;
	}
	json_array_foreach(json_object_get(doc, "files"), i, f) {
		const char *p = json_string_value(json_object_get(f, "path"));
		const char *hex = json_string_value(json_object_get(f, "sha256"));
		char *rel;

		if (p == NULL || hex == NULL || strlen(hex) != SW_HEX_LEN - 1)
			continue;
		if ((rel = normalize_rel(p, &e)) == NULL) {
			if (e.code == SW_ENOMEM) {
				rc = -1;
				goto out;
			}
			continue;
		}
		if (!host_folder(h, rel)) {
			sw_free(rel);
			continue;
		}
		if (owned_add(g, rel, hex) < 0) {
			rc = -1;
			goto out;
		}
	}
	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	if (owned_add(g, owner_rel(h, MANIFEST_NAME), NULL) < 0 ||
	    owned_add(g, owner_rel(h, SENTINEL_NAME), sentinel_sha) < 0 ||
	    owned_add(g, owner_rel(h, "mcp-server.json"), NULL) < 0 ||
	    owned_add(g, owner_rel(h, "created-folders.json"), NULL) < 0)
		rc = -1;
out:
	json_decref(doc);
	sw_free(raw);
	sw_free(path);
	return rc;
}

int adapter_installed(struct sw_owned *out, const char *root, struct sw_error *err)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		struct sw_owned_group *g = &out->groups[out->n];

		if (installed_host(g, root, &hosts[i]) < 0) {
			sw_owned_release(out);
			return sw_error_set(err, SW_ENOMEM, "out of memory reading the ownership manifests");
		}
		if (g->n > 0)
			out->n++;
	}
	return 0;
}
