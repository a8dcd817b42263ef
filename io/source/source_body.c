/* The body of a source envelope: markers, the slipway-manifest fence and
 * each referenced comment's section.  See io/source/source_body.h. */

#include "io/source/source_body.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "io/util/json.h"
#include "io/source/source_util.h"

static const char change_marker[] = SOURCE_CHANGE_MARKER;
static const char manifest_fence[] = SOURCE_MANIFEST_FENCE;
static const char section_prefix[] = SOURCE_SECTION_MARKER_PREFIX;
static const char section_suffix[] = SOURCE_SECTION_MARKER_SUFFIX;

/* ---- lines ---------------------------------------------------------- */

/* A view of one line (no LF). */
struct line {
	const char *p;
	size_t n;
};

static int line_eq(struct line l, const char *s)
{
	return l.n == strlen(s) && memcmp(l.p, s, l.n) == 0;
}

static int line_blank(struct line l)
{
	return source__blank(l.p, l.n, 0);
}

/* Splits at every LF into `*out` (Go strings.Split: n LFs give n+1 lines). */
static int split_lines(struct line **out, size_t *nout, const char *s,
		       size_t len, struct sw_error *err)
{
	size_t n = 1, k = 0, start = 0;
	struct line *v;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	if ((v = sw_calloc(n, sizeof(*v))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot split source body");
	for (size_t i = 0; i <= len; i++)
		if (i == len || s[i] == '\n') {
			v[k].p = s + start;
			v[k].n = i - start;
			k++;
			start = i + 1;
		}
	*out = v;
	*nout = n;
	return 0;
}

static long first_nonblank(const struct line *l, size_t n, size_t from)
{
	for (size_t i = from; i < n; i++)
		if (!line_blank(l[i]))
			return (long)i;
	return -1;
}

static int contains(struct line l, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= l.n; i++)
		if (memcmp(l.p + i, needle, k) == 0)
			return 1;
	return 0;
}

/* ---- Markdown containers -------------------------------------------
 * A CommonMark-like model, just enough to tell whether a line sits inside
 * a fenced code block: block quotes and list items are containers; a fence
 * belongs to the containers it was opened in, and a line that does not
 * carry them ends it.  List contexts are the list items a later line may
 * continue; they are always nested, so one container vector plus the
 * lengths of its list-ending prefixes describes them all. */

enum mdkind { MD_NONE, MD_LIST, MD_QUOTE };

struct mdc {
	enum mdkind kind;
	size_t indent;
};

struct mdvec {
	struct mdc *v;
	size_t n, cap;
};

static int vec_push(struct mdvec *a, struct mdc c, struct sw_error *err)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		struct mdc *v = sw_realloc(a->v, cap * sizeof(*v));

		if (v == NULL)
			return sw_error_set(err, SW_ENOMEM, "cannot track markdown");
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = c;
	return 0;
}

static int vec_set(struct mdvec *a, const struct mdc *src, size_t n,
		   struct sw_error *err)
{
	a->n = 0;
	for (size_t i = 0; i < n; i++)
		if (vec_push(a, src[i], err) < 0)
			return SW_ENOMEM;
	return 0;
}

static struct line drop(struct line l, size_t k)
{
	l.p += k;
	l.n -= k;
	return l;
}

static size_t lead_spaces(struct line l)
{
	size_t k = 0;

	while (k < l.n && l.p[k] == ' ')
		k++;
	return k;
}

static int strip_quote(struct line *l)
{
	size_t k = lead_spaces(*l);

	if (k > 3 || k == l->n || l->p[k] != '>')
		return 0;
	*l = drop(*l, k + 1);
	if (l->n > 0 && l->p[0] == ' ')
		*l = drop(*l, 1);
	return 1;
}

static size_t list_marker_len(struct line t)
{
	size_t k = 0;

	if (t.n == 0)
		return 0;
	if (t.p[0] == '-' || t.p[0] == '+' || t.p[0] == '*')
		return 1;
	while (k < t.n && k < 9 && t.p[k] >= '0' && t.p[k] <= '9')
		k++;
	if (k == 0 || k >= t.n || (t.p[k] != '.' && t.p[k] != ')'))
		return 0;
	return k + 1;
}

/* A list marker at the start of `l`: the content after it, the content
 * indent, the ordered start number or -1 for a bullet. */
static int strip_list(struct line *l, size_t *indent, long *start)
{
	size_t lead = lead_spaces(*l), mlen, sp = 0;
	struct line t = drop(*l, lead);

	if (lead > 3 || (mlen = list_marker_len(t)) == 0)
		return 0;
	*start = -1;
	if (t.p[0] >= '0' && t.p[0] <= '9') {
		*start = 0;
		for (size_t i = 0; i + 1 < mlen; i++)
			*start = *start * 10 + (t.p[i] - '0');
	}
	if (t.n == mlen) {
		*indent = lead + mlen + 1;
		*l = drop(*l, l->n);
		return 1;
	}
	if (t.p[mlen] != ' ')
		return 0;
	while (mlen + sp < t.n && t.p[mlen + sp] == ' ')
		sp++;
	if (sp > 4)
		sp = 1;
	*indent = lead + mlen + sp;
	*l = drop(*l, *indent);
	return 1;
}

static int container_blank(struct line l)
{
	for (;;) {
		if (line_blank(l))
			return 1;
		if (!strip_quote(&l))
			return 0;
	}
}

/* Removes the prefix that continues the containers `c[0..n)`. */
static int strip_prefix(struct line *l, const struct mdc *c, size_t n)
{
	struct line x = *l;

	for (size_t i = 0; i < n; i++) {
		if (c[i].kind == MD_LIST) {
			if (x.n < c[i].indent)
				return 0;
			for (size_t k = 0; k < c[i].indent; k++)
				if (x.p[k] != ' ')
					return 0;
			x = drop(x, c[i].indent);
		} else if (!strip_quote(&x)) {
			return 0;
		}
	}
	*l = x;
	return 1;
}

struct para {
	int active;
	struct mdvec c;
};

struct fence {
	char marker;		/* 0: no open fence */
	size_t length;
	struct mdvec c;
};

struct mdstate {
	struct fence fence;
	struct mdvec deep;	/* list contexts: prefixes of deep ... */
	size_t *ends;		/* ... of these lengths, increasing */
	size_t nends, capends;
	struct para para;
	struct mdvec scratch;	/* base + new markers of the current line */
};

static int same_kinds(const struct mdvec *a, const struct mdvec *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].kind != b->v[i].kind || a->v[i].indent != b->v[i].indent)
			return 0;
	return 1;
}

/* Opens the container markers at the start of `l`, appending them to
 * `pre` (which starts as the continued base).  An ordered item not
 * starting at 1 cannot interrupt a paragraph in the same containers. */
static int strip_markers(struct line *l, struct mdvec *pre,
			 const struct para *p, struct sw_error *err)
{
	for (;;) {
		struct line x = *l;
		size_t indent;
		long start;

		if (strip_quote(&x)) {
			if (vec_push(pre, (struct mdc){ MD_QUOTE, 0 }, err) < 0)
				return SW_ENOMEM;
			*l = x;
			continue;
		}
		if (!strip_list(&x, &indent, &start))
			return 0;
		if (start != -1 && start != 1 && p->active && same_kinds(pre, &p->c))
			return 0;
		if (vec_push(pre, (struct mdc){ MD_LIST, indent }, err) < 0)
			return SW_ENOMEM;
		*l = x;
	}
}

/* Fence delimiter: up to 3 spaces, then 3+ backticks or tildes. */
static int fence_delim(struct line l, char *marker, size_t *length)
{
	size_t k = lead_spaces(l), n = 0;
	struct line t = drop(l, k);

	if (k > 3 || t.n < 3 || (t.p[0] != '`' && t.p[0] != '~'))
		return 0;
	while (n < t.n && t.p[n] == t.p[0])
		n++;
	*marker = t.p[0];
	*length = n;
	return n >= 3;
}

static int fence_info_ok(struct line l, char marker, size_t length)
{
	struct line t = drop(l, lead_spaces(l));

	return marker != '`' || memchr(t.p + length, '`', t.n - length) == NULL;
}

static int fence_closes(struct line l, char marker, size_t length)
{
	struct line t = drop(l, lead_spaces(l));

	return t.n >= length && t.p[0] == marker &&
	       line_blank(drop(t, length));
}

static const struct mdc *ctx_base(const struct mdstate *s, size_t count,
				  size_t *n)
{
	*n = count ? s->ends[count - 1] : 0;
	return s->deep.v;
}

static int push_end(struct mdstate *s, size_t end, struct sw_error *err)
{
	if (s->nends == s->capends) {
		size_t cap = s->capends ? s->capends * 2 : 8;
		size_t *v = sw_realloc(s->ends, cap * sizeof(*v));

		if (v == NULL)
			return sw_error_set(err, SW_ENOMEM, "cannot track markdown");
		s->ends = v;
		s->capends = cap;
	}
	s->ends[s->nends++] = end;
	return 0;
}

/* List contexts become the list-ending prefixes of `c`. */
static int contexts_from(struct mdstate *s, const struct mdvec *c,
			 struct sw_error *err)
{
	if (vec_set(&s->deep, c->v, c->n, err) < 0)
		return SW_ENOMEM;
	s->nends = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].kind == MD_LIST && push_end(s, i + 1, err) < 0)
			return SW_ENOMEM;
	return 0;
}

/* Tries to open a fence on `l`: 1 opened, 0 not, negative on ENOMEM. */
static int try_open(struct mdstate *s, struct line l, struct sw_error *err)
{
	for (size_t count = s->nends + 1; count-- > 0;) {
		struct line x = l;
		size_t n;
		const struct mdc *base = ctx_base(s, count, &n);
		char marker;
		size_t length;

		if (!strip_prefix(&x, base, n))
			continue;
		if (vec_set(&s->scratch, base, n, err) < 0 ||
		    strip_markers(&x, &s->scratch, &s->para, err) < 0)
			return SW_ENOMEM;
		if (!fence_delim(x, &marker, &length) ||
		    !fence_info_ok(x, marker, length))
			return 0;
		if (vec_set(&s->fence.c, s->scratch.v, s->scratch.n, err) < 0)
			return SW_ENOMEM;
		s->fence.marker = marker;
		s->fence.length = length;
		return 1;
	}
	return 0;
}

/* The paragraph state after `l`, computed against the current contexts. */
static int next_para(struct mdstate *s, struct line l, struct para *out,
		     struct sw_error *err)
{
	out->active = 0;
	out->c.n = 0;
	if (container_blank(l))
		return 0;
	for (size_t count = s->nends + 1; count-- > 0;) {
		struct line x = l, t;
		size_t n, k;
		const struct mdc *base = ctx_base(s, count, &n);

		if (!strip_prefix(&x, base, n))
			continue;
		if (vec_set(&out->c, base, n, err) < 0 ||
		    strip_markers(&x, &out->c, &s->para, err) < 0)
			return SW_ENOMEM;
		k = lead_spaces(x);
		t = drop(x, k);
		if (k > 3 || t.n == 0)
			return 0;
		if (t.p[0] == '#') {
			size_t h = 0;

			while (h < t.n && h < 7 && t.p[h] == '#')
				h++;
			if (h <= 6 && (h == t.n || t.p[h] == ' ' || t.p[h] == '\t'))
				return 0;
		}
		{
			char m = 0;
			size_t cnt = 0, i;

			for (i = 0; i < t.n; i++) {
				char c = t.p[i];

				if (c == ' ' || c == '\t')
					continue;
				if (c != '*' && c != '-' && c != '_')
					break;
				if (m == 0)
					m = c;
				if (c != m)
					break;
				cnt++;
			}
			if (i == t.n && cnt >= 3)
				return 0;
		}
		out->active = 1;
		return 0;
	}
	return 0;
}

static int prefix_has_quote(const struct mdc *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].kind == MD_QUOTE)
			return 1;
	return 0;
}

/* The list contexts after `l` (uses the paragraph state before it). */
static int next_contexts(struct mdstate *s, struct line l, struct sw_error *err)
{
	if (container_blank(l)) {
		size_t count = 0;

		if (!line_blank(l))
			return 0;
		while (count < s->nends &&
		       !prefix_has_quote(s->deep.v, s->ends[count]))
			count++;
		s->nends = count;
		return 0;
	}
	for (size_t count = s->nends + 1; count-- > 0;) {
		struct line x = l;
		size_t n;
		const struct mdc *base = ctx_base(s, count, &n);

		if (!strip_prefix(&x, base, n))
			continue;
		if (vec_set(&s->scratch, base, n, err) < 0 ||
		    strip_markers(&x, &s->scratch, &s->para, err) < 0)
			return SW_ENOMEM;
		s->nends = count;
		s->deep.n = n;
		for (size_t i = n; i < s->scratch.n; i++) {
			if (vec_push(&s->deep, s->scratch.v[i], err) < 0)
				return SW_ENOMEM;
			if (s->scratch.v[i].kind == MD_LIST &&
			    push_end(s, s->deep.n, err) < 0)
				return SW_ENOMEM;
		}
		return 0;
	}
	s->nends = 0;
	return 0;
}

static void mdstate_release(struct mdstate *s)
{
	sw_free(s->fence.c.v);
	sw_free(s->deep.v);
	sw_free(s->ends);
	sw_free(s->para.c.v);
	sw_free(s->scratch.v);
}

static int scan_lines(const struct line *lines, size_t n, char *why,
		      size_t whylen, struct sw_error *err)
{
	struct mdstate s = { 0 };
	struct para np = { 0 };
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct line l = lines[i];

		if (s.fence.marker) {
			struct line x = l;
			int belongs = container_blank(l) ? (x.n = 0, 1) :
				strip_prefix(&x, s.fence.c.v, s.fence.c.n);

			if (belongs) {
				char m;
				size_t len;

				if (fence_delim(x, &m, &len) && m == s.fence.marker &&
				    len >= s.fence.length && fence_closes(x, m, len))
					s.fence.marker = 0;
				continue;
			}
			s.fence.marker = 0;
		}
		{
			size_t tn;
			const char *t = source__trim(l.p, l.n, &tn);

			if (tn == strlen(manifest_fence) &&
			    memcmp(t, manifest_fence, tn) == 0) {
				snprintf(why, whylen, "source body contains multiple "
					 "manifest fences");
				rc = 1;
				goto out;
			}
		}
		if ((rc = try_open(&s, l, err)) < 0)
			goto out;
		if (rc == 1) {
			rc = 0;
			if (contexts_from(&s, &s.fence.c, err) < 0) {
				rc = SW_ENOMEM;
				goto out;
			}
			s.para.active = 0;
			s.para.c.n = 0;
			continue;
		}
		if ((rc = next_para(&s, l, &np, err)) < 0 ||
		    (rc = next_contexts(&s, l, err)) < 0)
			goto out;
		{
			struct para tmp = s.para;

			s.para = np;
			np = tmp;
		}
		if (contains(l, SOURCE_LEVEL_MARKER_PREFIX)) {
			snprintf(why, whylen, "source body contains an additional "
				 "slipway-level marker outside a code fence");
			rc = 1;
			goto out;
		}
	}
out:
	sw_free(np.c.v);
	mdstate_release(&s);
	return rc;
}

int source__scan_after_manifest(const char *text, size_t len, char *why,
				size_t whylen, struct sw_error *err)
{
	struct line *lines = NULL;
	size_t n = 0;
	int rc;

	if ((rc = split_lines(&lines, &n, text, len, err)) < 0)
		return rc;
	rc = scan_lines(lines, n, why, whylen, err);
	sw_free(lines);
	return rc;
}

/* ---- manifest -------------------------------------------------------- */

struct manifest {
	int version;
	const char *profile;
	const char *parent;	/* "" when absent */
	struct source__manifest_section *s;
	size_t n;
};

static int has_only_keys(json_t *o, const char *const *keys, size_t n)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; i < n; i++)
			if (strcmp(k, keys[i]) == 0)
				break;
		if (i == n)
			return 0;
	}
	return 1;
}

static const char *str_member(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Strict shape of the manifest (exact keys, types).  Returns NULL or a
 * reason.  Values borrowed from `root`. */
static const char *decode_manifest(struct manifest *m, json_t *root,
				   struct sw_error *err, int *nomem)
{
	static const char *const top[] = {
		"manifest_version", "profile", "parent_requirements_revision",
		"sections",
	};
	static const char *const sec[] = {
		"key", "role", "title", "comment_node_id", "comment_database_id",
		"body_sha256",
	};
	json_t *v, *arr;
	size_t i;

	if (!json_is_object(root))
		return "manifest must be a json object";
	if (!has_only_keys(root, top, 4))
		return "manifest has an unknown field";
	v = json_object_get(root, "manifest_version");
	if (!json_is_integer(v))
		return "manifest_version must be an integer";
	if (json_integer_value(v) != SOURCE_MANIFEST_VERSION)
		return "manifest_version must be 2";
	m->version = SOURCE_MANIFEST_VERSION;
	if ((m->profile = str_member(root, "profile")) == NULL)
		return "profile must be a string";
	v = json_object_get(root, "parent_requirements_revision");
	m->parent = "";
	if (v != NULL && (m->parent = json_string_value(v)) == NULL)
		return "parent_requirements_revision must be a string";
	arr = json_object_get(root, "sections");
	if (!json_is_array(arr))
		return "sections must be an array";
	m->n = json_array_size(arr);
	if (m->n > 0 && (m->s = sw_calloc(m->n, sizeof(*m->s))) == NULL) {
		*nomem = sw_error_set(err, SW_ENOMEM, "cannot decode manifest");
		return "out of memory";
	}
	json_array_foreach(arr, i, v) {
		struct source__manifest_section *s = &m->s[i];
		json_t *id;

		if (!json_is_object(v) || !has_only_keys(v, sec, 6) ||
		    json_object_size(v) != 6)
			return "manifest section must hold exactly key, role, title, "
			       "comment_node_id, comment_database_id, body_sha256";
		s->key = str_member(v, "key");
		s->title = str_member(v, "title");
		s->comment_node_id = str_member(v, "comment_node_id");
		s->body_sha256 = str_member(v, "body_sha256");
		id = json_object_get(v, "comment_database_id");
		if (!s->key || !s->title || !s->comment_node_id ||
		    !s->body_sha256 || !str_member(v, "role") ||
		    !json_is_integer(id))
			return "manifest section field has the wrong type";
		s->role = source_role_from_wire(str_member(v, "role"));
		s->comment_database_id = json_integer_value(id);
	}
	return NULL;
}

/* ---- sections ---------------------------------------------------------- */

void source__section_release(struct source_section *s)
{
	sw_free(s->key);
	sw_free(s->title);
	sw_free(s->provenance.comment_node_id);
	sw_free(s->provenance.url);
	sw_free(s->provenance.author_id);
	sw_free(s->provenance.observed_updated_at);
	sw_free(s->payload);
}

/* The payload of a normalized section comment: everything after the line
 * holding exactly the section marker of `key`, which must be the first
 * non-blank line.  Returns NULL (reason in why) or the payload start. */
static const char *section_payload(const char *body, size_t len,
				   const char *key, size_t *plen, char *why,
				   size_t whylen)
{
	size_t i = 0;

	while (i <= len) {
		const char *nl = memchr(body + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - body) : len;
		struct line l = { body + i, end - i };

		if (!line_blank(l)) {
			size_t kl = strlen(key), pl = sizeof(section_prefix) - 1;

			size_t sl = sizeof(section_suffix) - 1;

			if (l.n != pl + kl + sl || memcmp(l.p, section_prefix, pl) != 0 ||
			    memcmp(l.p + pl, key, kl) != 0 ||
			    memcmp(l.p + pl + kl, section_suffix, sl) != 0)
				break;
			if (nl == NULL) {
				*plen = 0;
				return body + len;
			}
			*plen = len - end - 1;
			return body + end + 1;
		}
		if (nl == NULL)
			break;
		i = end + 1;
	}
	snprintf(why, whylen, "manifest section \"%s\" comment must begin with "
		 "%s%s%s", key, section_prefix, key, section_suffix);
	return NULL;
}

static int build_sections(struct source_pinned *pin, enum source_class *code,
			  char *why, size_t whylen, const struct manifest *m,
			  const struct source__comment *c, size_t nc,
			  struct sw_error *err)
{
	struct source_section *out = NULL;
	unsigned char *used = NULL;
	char *norm = NULL;
	size_t total = 0;
	int rc = 0;

	if ((out = sw_calloc(m->n, sizeof(*out))) == NULL ||
	    (used = sw_calloc(nc + 1, 1)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot build sections");
		goto out;
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct source__manifest_section *r = &m->s[i];
		struct source_section *s = &out[i];
		const struct source__comment *cm = NULL;
		const char *payload;
		size_t j, nlen = 0, plen = 0;

		for (j = 0; j < nc; j++)
			if (strcmp(c[j].node_id, r->comment_node_id) == 0) {
				cm = &c[j];
				break;
			}
		if (cm == NULL) {
			*code = SOURCE_CLASS_SECTION_MISSING;
			snprintf(why, whylen, "manifest section \"%s\" is missing "
				 "its referenced comment", r->key);
			goto out;
		}
		used[j] = 1;
		if (cm->database_id != r->comment_database_id) {
			*code = SOURCE_CLASS_SECTION_INVALID;
			snprintf(why, whylen, "manifest section \"%s\" comment "
				 "database id does not match", r->key);
			goto out;
		}
		if (cm->is_minimized) {
			*code = SOURCE_CLASS_SECTION_MINIMIZED;
			snprintf(why, whylen, "manifest section \"%s\" references "
				 "a minimized comment", r->key);
			goto out;
		}
		sw_free(norm);
		if ((norm = source__normalize(cm->body, cm->body_len, &nlen)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot normalize comment");
			goto out;
		}
		if ((rc = source__comment_digest(s->body_sha256, norm, nlen, err)) < 0)
			goto out;
		if (strcmp(s->body_sha256, r->body_sha256) != 0) {
			*code = SOURCE_CLASS_SECTION_HASH_MISMATCH;
			snprintf(why, whylen, "manifest section \"%s\" comment body "
				 "digest does not match", r->key);
			goto out;
		}
		payload = section_payload(norm, nlen, r->key, &plen, why, whylen);
		if (payload == NULL) {
			*code = SOURCE_CLASS_SECTION_INVALID;
			goto out;
		}
		if (source__blank(payload, plen, 0)) {
			*code = SOURCE_CLASS_SECTION_INVALID;
			snprintf(why, whylen, "manifest section \"%s\" payload must "
				 "be nonempty", r->key);
			goto out;
		}
		if (!sw_utf8_valid(payload, plen) ||
		    !source__no_controls(payload, plen, 1)) {
			*code = SOURCE_CLASS_SECTION_INVALID;
			snprintf(why, whylen, "manifest section \"%s\" payload must "
				 "be utf-8 without disallowed controls", r->key);
			goto out;
		}
		if (plen > SOURCE_MAX_SECTION_BYTES) {
			*code = SOURCE_CLASS_SECTION_TOO_LARGE;
			snprintf(why, whylen, "manifest section \"%s\" exceeds %u "
				 "bytes", r->key, SOURCE_MAX_SECTION_BYTES);
			goto out;
		}
		if (total > SOURCE_MAX_BUNDLE_BYTES - plen) {
			*code = SOURCE_CLASS_BUNDLE_TOO_LARGE;
			snprintf(why, whylen, "source bundle exceeds %u bytes",
				 SOURCE_MAX_BUNDLE_BYTES);
			goto out;
		}
		total += plen;
		s->role = r->role;
		s->bytes = plen;
		s->provenance.comment_database_id = cm->database_id;
		if ((s->key = sw_strdup(r->key)) == NULL ||
		    (s->title = sw_strdup(r->title)) == NULL ||
		    (s->provenance.comment_node_id = sw_strdup(cm->node_id)) == NULL ||
		    (s->provenance.url = sw_strdup(cm->url)) == NULL ||
		    (s->provenance.author_id = sw_strdup(cm->author_id)) == NULL ||
		    (s->provenance.observed_updated_at = sw_strdup(cm->updated_at)) == NULL ||
		    (s->payload = sw_malloc(plen ? plen : 1)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "cannot copy section");
			goto out;
		}
		memcpy(s->payload, payload, plen);
		if ((rc = sw_material_digest(s->material_sha256, payload, plen,
						  err)) < 0 ||
		    (rc = source__section_digest(s->section_revision, s->key,
						 s->role, s->title, payload, plen,
						 err)) < 0)
			goto out;
	}
	for (size_t j = 0; j < nc; j++)
		if (!used[j]) {
			*code = SOURCE_CLASS_SECTION_UNEXPECTED;
			snprintf(why, whylen, "source envelope contains a comment "
				 "not referenced by the manifest");
			goto out;
		}
	pin->sections = out;
	pin->n_sections = m->n;
	out = NULL;
	*code = SOURCE_CLASS_VALID_CHANGE;
out:
	for (size_t i = 0; out && i < m->n; i++)
		source__section_release(&out[i]);
	sw_free(out);
	sw_free(used);
	sw_free(norm);
	return rc;
}

/* ---- the bundle --------------------------------------------------------- */

static enum source_class marker_class(struct line l)
{
	if (contains(l, SOURCE_OBJECTIVE_MARKER_HINT))
		return SOURCE_CLASS_OBJECTIVE_MARKER;
	if (contains(l, "slipway-level:"))
		return SOURCE_CLASS_UNSUPPORTED_MARKER;
	return SOURCE_CLASS_CHANGE_MARKER_REQUIRED;
}

int source__classify(struct source_pinned *pin, enum source_class *code,
		     char *why, size_t whylen, const char *body, size_t len,
		     const struct source__comment *comments, size_t ncomments,
		     struct sw_error *err)
{
	struct line *lines = NULL;
	struct manifest m = { 0 };
	struct sw_error jerr = SW_ERROR_INIT;
	json_t *root = NULL;
	const char *reason;
	const char *joined = NULL;
	size_t n = 0, jlen;
	long marker, fence, close = -1;
	int rc, nomem = 0;

	*code = SOURCE_CLASS_NONE;
	if ((rc = split_lines(&lines, &n, body, len, err)) < 0)
		goto out;
	marker = first_nonblank(lines, n, 0);
	if (marker < 0 || !line_eq(lines[marker], change_marker)) {
		*code = marker < 0 ? SOURCE_CLASS_CHANGE_MARKER_REQUIRED :
				     marker_class(lines[marker]);
		snprintf(why, whylen, "source must begin with %s", change_marker);
		goto out;
	}
	*code = SOURCE_CLASS_MANIFEST_INVALID;
	fence = first_nonblank(lines, n, (size_t)marker + 1);
	if (fence < 0 || !line_eq(lines[fence], manifest_fence)) {
		snprintf(why, whylen, "source marker must be followed by %s",
			 manifest_fence);
		goto out;
	}
	for (size_t i = (size_t)fence + 1; i < n; i++)
		if (line_eq(lines[i], SOURCE_MANIFEST_CLOSE)) {
			close = (long)i;
			break;
		}
	if (close < 0) {
		snprintf(why, whylen, "source manifest fence is not closed");
		goto out;
	}
	if ((rc = scan_lines(lines + close + 1, n - (size_t)close - 1, why,
			     whylen, err)) != 0) {
		if (rc > 0)
			rc = 0;
		goto out;
	}
	/* The manifest text runs from the line after the fence up to (not
	 * including) the LF before the closing line. */
	{
		const char *start = lines[fence + 1].p;
		const char *end = lines[close].p;

		jlen = close == fence + 1 ? 0 : (size_t)(end - start) - 1;
		joined = start;
	}
	if (jlen == 0) {
		snprintf(why, whylen, "source manifest is empty");
		goto out;
	}
	if (jlen > SOURCE_MAX_MANIFEST_BYTES) {
		snprintf(why, whylen, "source manifest exceeds %u bytes",
			 SOURCE_MAX_MANIFEST_BYTES);
		goto out;
	}
	if ((rc = sw_json_load_strict(&root, joined, jlen,
				      SOURCE_MAX_MANIFEST_BYTES, &jerr)) < 0) {
		if (rc == SW_ENOMEM) {
			sw_error_set(err, SW_ENOMEM, "%s", jerr.msg);
			goto out;
		}
		rc = 0;
		snprintf(why, whylen, "source manifest is invalid json: %s",
			 jerr.msg);
		goto out;
	}
	if ((reason = decode_manifest(&m, root, err, &nomem)) != NULL) {
		rc = nomem;
		snprintf(why, whylen, "source manifest is invalid json: %s", reason);
		goto out;
	}
	if (strcmp(m.profile, SOURCE_PROFILE) != 0) {
		snprintf(why, whylen, "source manifest is invalid: profile must "
			 "be exactly %s", SOURCE_PROFILE);
		goto out;
	}
	if (m.parent[0] != '\0' && !sw_digest_valid(m.parent)) {
		snprintf(why, whylen, "source manifest is invalid: "
			 "parent_requirements_revision must use lowercase "
			 "sha256:<64 hex> format");
		goto out;
	}
	{
		char inner[384];

		if (source__manifest_check(m.s, m.n, inner, sizeof(inner))) {
			snprintf(why, whylen, "source manifest is invalid: %s", inner);
			goto out;
		}
	}
	if ((rc = build_sections(pin, code, why, whylen, &m, comments,
				 ncomments, err)) < 0 ||
	    *code != SOURCE_CLASS_VALID_CHANGE)
		goto out;
	/* The sections are in; fill the manifest facts and revisions. */
	for (size_t i = 0; i < m.n; i++)
		m.s[i].section_revision = pin->sections[i].section_revision;
	pin->manifest_version = m.version;
	memcpy(pin->parent_requirements_revision, m.parent, strlen(m.parent) + 1);
	if ((pin->profile = sw_strdup(m.profile)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot copy profile");
		goto out;
	}
	if ((rc = source__manifest_revision(pin->manifest_revision, m.version,
					    m.profile, m.parent, m.s, m.n,
					    err)) < 0 ||
	    (rc = source__requirements_revision(pin->requirements_revision,
						m.profile, m.s, m.n, err)) < 0)
		goto out;
out:
	if (rc < 0)
		*code = SOURCE_CLASS_NONE;
	sw_free(m.s);
	json_decref(root);
	sw_free(lines);
	return rc;
}
