/* The typed `next` object: building, validating, resolving and encoding
 * its argv variants.  See io/wire/next.h. */

#include "io/wire/next.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/util/json.h"
#include "io/git/vcs.h"

static char **strv_dup(const char *const *v, size_t *count)
{
	size_t n = 0;
	char **out;

	while (v && v[n])
		n++;
	if ((out = sw_calloc(n + 1, sizeof(*out))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if ((out[i] = sw_strdup(v[i])) == NULL) {
			for (size_t k = 0; k < i; k++)
				sw_free(out[k]);
			sw_free(out);
			return NULL;
		}
	}
	if (count)
		*count = n;
	return out;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		sw_free(v[i]);
	sw_free(v);
}

int next_new(struct next **out, enum tbl_nextop op, const char *identity,
	     const char *root, struct sw_error *err)
{
	struct next *n = sw_calloc(1, sizeof(*n));

	*out = NULL;
	if (n == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate next");
	n->operation = op;
	snprintf(n->identity, sizeof(n->identity), "%s", identity);
	if (root != NULL && (n->root = sw_strdup(root)) == NULL) {
		sw_free(n);
		return sw_error_set(err, SW_ENOMEM, "cannot allocate next");
	}
	*out = n;
	return 0;
}

/* Identity and canonical root of the workspace at `root`. */
static int identity_for(char identity[SW_DIGEST_LEN], char **canon,
			const char *root, struct sw_error *err)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct sw_error ignored = SW_ERROR_INIT;

	if (vcs_discover(&id, root, &ignored) == 0) {
		memcpy(identity, id.id, SW_DIGEST_LEN);
		*canon = id.worktree_root;
		id.worktree_root = NULL;
		vcs_identity_release(&id);
		return *canon ? 0 : sw_error_set(err, SW_ENOMEM, "no root");
	}
	return vcs_unavailable_identity(identity, canon,
					root && *root ? root : ".", err);
}

int next_none(struct next **out, const char *root, struct sw_error *err)
{
	char identity[SW_DIGEST_LEN];
	char *canon = NULL;
	int rc;

	*out = NULL;
	if ((rc = identity_for(identity, &canon, root, err)) < 0)
		return rc;
	rc = next_new(out, TBL_NEXTOP_NONE, identity, canon, err);
	sw_free(canon);
	return rc;
}

int next_none_identity(struct next **out, const char *identity,
		       struct sw_error *err)
{
	return next_new(out, TBL_NEXTOP_NONE, identity, NULL, err);
}

int next_add_variant(struct next *n, enum tbl_variant id,
		     const char *const *argv, struct next_variant **vout,
		     struct sw_error *err)
{
	struct next_variant *grown, *v;

	grown = sw_realloc(n->variants, (n->nvariants + 1) * sizeof(*grown));
	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate variant");
	n->variants = grown;
	v = &n->variants[n->nvariants];
	memset(v, 0, sizeof(*v));
	v->id = id;
	if ((v->argv = strv_dup(argv, &v->argc)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate variant");
	n->nvariants++;
	if (vout)
		*vout = v;
	return 0;
}

int next_variant_add_input(struct next_variant *v, const char *name,
			   enum tbl_input type, const char *flag, int required,
			   const char *const *choices, struct sw_error *err)
{
	struct next_input *grown, *in;

	grown = sw_realloc(v->inputs, (v->ninputs + 1) * sizeof(*grown));
	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate input");
	v->inputs = grown;
	in = &v->inputs[v->ninputs];
	memset(in, 0, sizeof(*in));
	in->type = type;
	in->required = required;
	in->name = sw_strdup(name);
	in->flag = sw_strdup(flag);
	if (choices)
		in->choices = strv_dup(choices, NULL);
	v->ninputs++;
	if (!in->name || !in->flag || (choices && !in->choices))
		return sw_error_set(err, SW_ENOMEM, "cannot allocate input");
	return 0;
}

int next_command(struct next **out, enum tbl_nextop op, enum tbl_variant id,
		 const char *root, const char *const *argv,
		 struct sw_error *err)
{
	char identity[SW_DIGEST_LEN];
	char *canon = NULL;
	int rc;

	*out = NULL;
	if ((rc = identity_for(identity, &canon, root, err)) < 0)
		return rc;
	if ((rc = next_new(out, op, identity, canon, err)) == 0 &&
	    (rc = next_add_variant(*out, id, argv, NULL, err)) < 0) {
		next_free(*out);
		*out = NULL;
	}
	sw_free(canon);
	return rc;
}

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();

	for (size_t i = 0; a && v && v[i]; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *next_to_json(const struct next *n)
{
	json_t *o = json_object(), *vars = json_array();

	if (o == NULL || vars == NULL)
		goto fail;
	if (json_object_set_new(o, "operation",
				json_string(tbl_nextop_wire[n->operation])) < 0 ||
	    json_object_set_new(o, "workspace_identity",
				json_string(n->identity)) < 0)
		goto fail;
	for (size_t i = 0; i < n->nvariants; i++) {
		const struct next_variant *v = &n->variants[i];
		json_t *vo = json_object(), *ins = json_array();

		if (vo == NULL || ins == NULL ||
		    json_array_append_new(vars, vo) < 0) {
			json_decref(vo);
			json_decref(ins);
			goto fail;
		}
		json_object_set_new(vo, "id", json_string(tbl_variant_wire[v->id]));
		json_object_set_new(vo, "base_argv", strv_json(v->argv));
		for (size_t k = 0; k < v->ninputs; k++) {
			const struct next_input *in = &v->inputs[k];
			json_t *io = json_object();

			json_array_append_new(ins, io);
			json_object_set_new(io, "name", json_string(in->name));
			json_object_set_new(io, "type",
					    json_string(tbl_input_wire[in->type]));
			json_object_set_new(io, "flag", json_string(in->flag));
			json_object_set_new(io, "required",
					    json_boolean(in->required));
			if (in->choices)
				json_object_set_new(io, "choices",
						    strv_json(in->choices));
		}
		if (json_object_set_new(vo, "inputs", ins) < 0)
			goto fail;
	}
	if (json_object_set_new(o, "variants", vars) < 0) {
		vars = NULL;
		goto fail;
	}
	return o;
fail:
	json_decref(vars);
	json_decref(o);
	return NULL;
}

void next_free(struct next *n)
{
	if (n == NULL)
		return;
	for (size_t i = 0; i < n->nvariants; i++) {
		struct next_variant *v = &n->variants[i];

		strv_free(v->argv);
		for (size_t k = 0; k < v->ninputs; k++) {
			sw_free(v->inputs[k].name);
			sw_free(v->inputs[k].flag);
			strv_free(v->inputs[k].choices);
		}
		sw_free(v->inputs);
	}
	sw_free(n->variants);
	sw_free(n->root);
	sw_free(n);
}

/* ---- Forms -------------------------------------------------------------- */

/* Template slots; compared by address, so no literal can collide. */
static const char ARG_RUN[] = "\001run";
static const char ARG_ACTION[] = "\001action";
static const char ARG_ROOT[] = "\001root";
static const char ARG_DIGEST[] = "\001digest";
static const char ARG_CANDIDATE[] = "\001candidate";
static const char ARG_BUDGET[] = "\001budget";
static const char ARG_NO_REVIEW[] = "\001no-review";

/* The input lists a form carries (MAP §4.2), in order. */
enum input_set {
	IN_NONE,
	IN_OUTCOME_FILE,
	IN_TEXT_FILE,
	IN_TEXT_FILE_OPT,
	IN_BUDGET,
	IN_SOURCE_BUDGET,
	IN_SOURCE_FILE,
	IN_GOAL_FILE,
	IN_GOAL_SOURCE,
	IN_SURFACE,
	IN__COUNT
};

struct input_spec {
	const char *name;
	enum tbl_input type;
	const char *flag;
	int required;
	const char *const *choices;
};

static const char *const surface_choices[] = { "ide", "cli", NULL };

/* clang-format off */
/*	name            type             flag              required  choices */
static const struct input_spec in_outcome_file =
	{ "outcome_file", TBL_INPUT_PATH,   "--outcome-file", 1,        NULL };
static const struct input_spec in_text_file =
	{ "text_file",    TBL_INPUT_PATH,   "--text-file",    1,        NULL };
static const struct input_spec in_text_file_opt =
	{ "text_file",    TBL_INPUT_PATH,   "--text-file",    0,        NULL };
static const struct input_spec in_budget =
	{ "budget",       TBL_INPUT_STRING, "--budget",       0,        NULL };
static const struct input_spec in_source_file =
	{ "source_file",  TBL_INPUT_PATH,   "--source-file",  1,        NULL };
static const struct input_spec in_goal_file =
	{ "goal_file",    TBL_INPUT_PATH,   "--goal-file",    1,        NULL };
static const struct input_spec in_surface =
	{ "surface",      TBL_INPUT_ENUM,   "--surface",      1,        surface_choices };

#define INPUT_SET_MAX 2
static const struct input_spec *const input_sets[IN__COUNT][INPUT_SET_MAX] = {
	[IN_NONE]          = { NULL },
	[IN_OUTCOME_FILE]  = { &in_outcome_file },
	[IN_TEXT_FILE]     = { &in_text_file },
	[IN_TEXT_FILE_OPT] = { &in_text_file_opt },
	[IN_BUDGET]        = { &in_budget },
	[IN_SOURCE_BUDGET] = { &in_source_file, &in_budget },
	[IN_SOURCE_FILE]   = { &in_source_file },
	[IN_GOAL_FILE]     = { &in_goal_file },
	[IN_GOAL_SOURCE]   = { &in_goal_file, &in_source_file },
	[IN_SURFACE]       = { &in_surface },
};
/* clang-format on */

#define FORM_ARGV_MAX 13	/* longest template (12) + NULL */

struct form_row {
	enum tbl_variant variant;
	enum tbl_nextop op;
	unsigned also;		/* other operations it may appear under */
	enum input_set inputs;
	const char *argv[FORM_ARGV_MAX];
};

#define ALSO(op) (1u << TBL_NEXTOP_##op)
static const struct form_row forms[NEXT_FORM__COUNT] = {
#define FORM(id, v, o, also, in, ...) \
	[NEXT_FORM_##id] = { TBL_VARIANT_##v, TBL_NEXTOP_##o, also, IN_##in, { __VA_ARGS__ } },
#include "tables/next_forms.def"
#undef FORM
};

enum tbl_variant next_form_variant(enum next_form form)
{
	if ((int)form <= NEXT_FORM_INVALID || form >= NEXT_FORM__COUNT)
		return TBL_VARIANT_INVALID;
	return forms[form].variant;
}

enum tbl_nextop next_form_operation(enum next_form form)
{
	if ((int)form <= NEXT_FORM_INVALID || form >= NEXT_FORM__COUNT)
		return TBL_NEXTOP_INVALID;
	return forms[form].op;
}

/* Fills the template of `form` into `argv` (FORM_ARGV_MAX slots); `budget`
 * is scratch space for the decimal budget. */
static int fill_template(const char *argv[FORM_ARGV_MAX], char budget[16],
			 enum next_form form, const char *root,
			 const struct next_fill *fill, struct sw_error *err)
{
	static const struct next_fill empty;
	size_t k = 0;

	if (fill == NULL)
		fill = &empty;
	for (size_t i = 0; forms[form].argv[i] != NULL; i++) {
		const char *t = forms[form].argv[i];
		const char *v = t;

		if (t == ARG_RUN)
			v = fill->run_id;
		else if (t == ARG_ACTION)
			v = fill->action_id;
		else if (t == ARG_ROOT)
			v = root;
		else if (t == ARG_DIGEST)
			v = fill->scope_digest;
		else if (t == ARG_CANDIDATE)
			v = fill->candidate_id;
		else if (t == ARG_BUDGET) {
			snprintf(budget, 16, "%u", fill->budget);
			v = budget;
		} else if (t == ARG_NO_REVIEW) {
			if (!fill->no_review)
				continue;
			v = "--no-review";
		}
		if (v == NULL)
			return sw_error_set(err, SW_EINVAL,
					    "next form %s lacks a value for slot %d",
					    tbl_variant_wire[forms[form].variant],
					    (int)i);
		argv[k++] = v;
	}
	argv[k] = NULL;
	return 0;
}

static int add_form(struct next *n, enum next_form form, const char *root,
		    const struct next_fill *fill, struct sw_error *err)
{
	const char *argv[FORM_ARGV_MAX];
	char budget[16];
	struct next_variant *v = NULL;
	int rc;

	if ((int)form <= NEXT_FORM_INVALID || form >= NEXT_FORM__COUNT)
		return sw_error_set(err, SW_EINVAL, "unknown next form %d",
				    (int)form);
	if (root == NULL)
		return sw_error_set(err, SW_EINVAL, "next form needs a root");
	if ((rc = fill_template(argv, budget, form, root, fill, err)) < 0)
		return rc;
	if ((rc = next_add_variant(n, forms[form].variant, argv, &v, err)) < 0)
		return rc;
	for (size_t i = 0; i < INPUT_SET_MAX; i++) {
		const struct input_spec *s = input_sets[forms[form].inputs][i];

		if (s == NULL)
			break;
		if ((rc = next_variant_add_input(v, s->name, s->type, s->flag,
						 s->required, s->choices,
						 err)) < 0)
			return rc;
	}
	return 0;
}

int next_add_form(struct next *n, enum next_form form,
		  const struct next_fill *fill, struct sw_error *err)
{
	return add_form(n, form, n->root, fill, err);
}

/* A validated next of `op` holding `nforms` forms, all addressed at
 * `argv_root`; n->root is `next_root`. */
static int build(struct next **out, enum tbl_nextop op, const char *identity,
		 const char *next_root, const char *argv_root,
		 const enum next_form *list, size_t nforms,
		 const struct next_fill *fill, struct sw_error *err)
{
	struct next *n = NULL;
	int rc;

	*out = NULL;
	if (identity == NULL || argv_root == NULL) {
		rc = sw_error_set(err, SW_EINVAL, "next needs an identity and a root");
		goto out;
	}
	if ((rc = next_new(&n, op, identity, next_root, err)) < 0)
		goto out;
	for (size_t i = 0; i < nforms; i++)
		if ((rc = add_form(n, list[i], argv_root, fill, err)) < 0)
			goto out;
	if ((rc = next_validate(n, err)) < 0)
		goto out;
	*out = n;
	n = NULL;
out:
	next_free(n);
	return rc;
}

/* As build, discovering the identity (and canonical n->root) from `root`
 * when `identity` is NULL. */
static int build_discovering(struct next **out, enum tbl_nextop op,
			     const char *identity, const char *root,
			     const enum next_form *list, size_t nforms,
			     const struct next_fill *fill, struct sw_error *err)
{
	char found[SW_DIGEST_LEN];
	char *canon = NULL;
	int rc;

	*out = NULL;
	if (root == NULL)
		return sw_error_set(err, SW_EINVAL, "next needs a root");
	if (identity != NULL)
		return build(out, op, identity, root, root, list, nforms, fill,
			     err);
	if ((rc = identity_for(found, &canon, root, err)) < 0)
		return rc;
	rc = build(out, op, found, canon, root, list, nforms, fill, err);
	sw_free(canon);
	return rc;
}

int next_build_form(struct next **out, enum next_form form,
		    const char *identity, const char *root,
		    const struct next_fill *fill, struct sw_error *err)
{
	return build_discovering(out, next_form_operation(form), identity,
				 root, &form, 1, fill, err);
}

/* The first form of variant `v` (refresh-source: the one whose budget is
 * an input). */
static enum next_form form_of(enum tbl_variant v)
{
	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT; f++)
		if (forms[f].variant == v)
			return (enum next_form)f;
	return NEXT_FORM_INVALID;
}

int next_from_rule(struct next **out, const struct fsm_next_rule *rule,
		   const char *identity, const char *root,
		   const struct next_fill *fill, struct sw_error *err)
{
	enum next_form list[sizeof(rule->variants) / sizeof(rule->variants[0])];
	size_t k = 0;

	while (k < sizeof(list) / sizeof(list[0]) &&
	       rule->variants[k] != TBL_VARIANT_INVALID) {
		list[k] = form_of(rule->variants[k]);
		k++;
	}
	return build(out, rule->op, identity, root, root, list, k, fill, err);
}

int next_build_start(struct next **out, const char *identity,
		     const char *root, unsigned budget, int no_review,
		     int with_source, struct sw_error *err)
{
	enum next_form form = with_source ? NEXT_FORM_START_WITH_SOURCE
					  : NEXT_FORM_RETRY_RUN;
	struct next_fill f = { .budget = budget, .no_review = no_review };

	return build_discovering(out, TBL_NEXTOP_START, identity, root, &form,
				 1, &f, err);
}

/* ---- Validation (the reference's Next.Validate) -------------------------- */

#define BUDGET_MAX 1000u

static int invalid(struct sw_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int invalid(struct sw_error *err, const char *fmt, ...)
{
	char msg[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sw_error_set(err, SW_EINVAL, "%s", msg);
}

static int streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static int has_dashes(const char *s)
{
	return strncmp(s, "--", 2) == 0;
}

static int in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static int utf8_ok(const char *s)
{
	return sw_utf8_valid(s, strlen(s));
}

int next_digest_valid(const char *s)
{
	if (s == NULL || strncmp(s, "sha256:", 7) != 0 || strlen(s) != 71)
		return 0;
	for (s += 7; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

int next_budget_valid(const char *s)
{
	unsigned v = 0;
	size_t len;

	if (s == NULL || s[0] < '1' || s[0] > '9')
		return 0;
	len = strlen(s);
	/* Any canonical decimal longer than four digits exceeds 1000. */
	if (len > 4)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	return v <= BUDGET_MAX;
}

/* ^[a-z][a-z0-9<extra>]*$ */
static int ident_ok(const char *s, char extra)
{
	if (s == NULL || *s < 'a' || *s > 'z')
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == extra))
			return 0;
	return 1;
}

static int flag_ok(const char *s)
{
	return s != NULL && strncmp(s, "--", 2) == 0 && ident_ok(s + 2, '-');
}

/* Length of the Unicode white space (Go's unicode.IsSpace) at `s`, or 0.
 * `s` is valid UTF-8. */
static size_t space_at(const unsigned char *s)
{
	unsigned cp;
	size_t len;

	if (*s < 0x80)
		return (*s == ' ' || (*s >= '\t' && *s <= '\r')) ? 1 : 0;
	if ((*s & 0xe0) == 0xc0) {
		cp = ((unsigned)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
		len = 2;
	} else if ((*s & 0xf0) == 0xe0) {
		cp = ((unsigned)(s[0] & 0x0f) << 12) |
		     ((unsigned)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
		len = 3;
	} else {
		return 0;	/* nothing above U+FFFF is white space */
	}
	if (cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
	    (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
	    cp == 0x202f || cp == 0x205f || cp == 0x3000)
		return len;
	return 0;
}

/* Start of the UTF-8 sequence that ends just before `end`. */
static const unsigned char *prev_char(const unsigned char *begin,
				      const unsigned char *end)
{
	const unsigned char *p = end - 1;

	while (p > begin && (*p & 0xc0) == 0x80)
		p--;
	return p;
}

int next_is_placeholder(const char *arg)
{
	const unsigned char *b = (const unsigned char *)arg;
	const unsigned char *e;
	size_t n;

	if (arg == NULL || !utf8_ok(arg))
		return 0;
	e = b + strlen(arg);
	/* White space first, then quotes, as the reference trims. */
	while (b < e && (n = space_at(b)) > 0)
		b += n;
	while (e > b) {
		const unsigned char *p = prev_char(b, e);

		if (space_at(p) != (size_t)(e - p))
			break;
		e = p;
	}
	while (b < e && (*b == '"' || *b == '\''))
		b++;
	while (e > b && (e[-1] == '"' || e[-1] == '\''))
		e--;
	n = (size_t)(e - b);
	if (n == 4 && memcmp(b, "FILE", 4) == 0)
		return 1;
	return n >= 2 && b[0] == '<' && e[-1] == '>';
}

static int root_ok(const char *root)
{
	return root != NULL && root[0] == '/' && utf8_ok(root);
}

/* The single `--root` value of variant `idx`. */
static int variant_root(const char **out, const struct next_variant *v,
			size_t idx, struct sw_error *err)
{
	size_t count = 0;
	const char *root = NULL;

	for (size_t i = 0; i < v->argc; i++) {
		if (strcmp(v->argv[i], "--") == 0)
			break;
		if (strcmp(v->argv[i], "--root") != 0)
			continue;
		count++;
		if (i + 1 >= v->argc)
			return invalid(err, "next.variants[%zu].base_argv needs a value after --root", idx);
		root = v->argv[i + 1];
	}
	if (count != 1)
		return invalid(err, "next.variants[%zu].base_argv must contain exactly one --root option before --", idx);
	if (!root_ok(root))
		return invalid(err, "next.variants[%zu]: workspace root must be an absolute UTF-8 path", idx);
	*out = root;
	return 0;
}

static int validate_variant(const char *root, const struct next_variant *v,
			    size_t idx, struct sw_error *err)
{
	const char *mine = NULL;
	int rc, positional = 0;

	if (v->argc == 0 || v->argv == NULL)
		return invalid(err, "next.variants[%zu].base_argv must be non-empty", idx);
	if ((rc = variant_root(&mine, v, idx, err)) < 0)
		return rc;
	if (strcmp(mine, root) != 0)
		return invalid(err, "next.variants[%zu].base_argv must preserve the exact workspace root after --root", idx);
	for (size_t i = 0; i < v->argc; i++) {
		const char *a = v->argv[i];

		if (a[0] == '\0' || !utf8_ok(a))
			return invalid(err, "next.variants[%zu].base_argv[%zu] must be non-empty UTF-8 without NUL", idx, i);
		/* After `--` come literal positional values, never slots. */
		if (positional)
			continue;
		if (strcmp(a, "--") == 0) {
			positional = 1;
			continue;
		}
		if (next_is_placeholder(a))
			return invalid(err, "next.variants[%zu].base_argv[%zu] cannot contain a placeholder", idx, i);
	}
	if (strcmp(v->argv[0], "slipway") != 0)
		return invalid(err, "next.variants[%zu].base_argv must begin with slipway", idx);
	for (size_t i = 0; i < v->ninputs; i++) {
		const struct next_input *in = &v->inputs[i];

		if (!ident_ok(in->name, '_'))
			return invalid(err, "next.variants[%zu].inputs[%zu].name must be lower-case snake-case", idx, i);
		for (size_t k = 0; k < i; k++)
			if (strcmp(v->inputs[k].name, in->name) == 0)
				return invalid(err, "next input name \"%s\" is duplicated", in->name);
		if (!flag_ok(in->flag))
			return invalid(err, "next input \"%s\" has invalid flag", in->name);
		for (size_t k = 0; k < i; k++)
			if (strcmp(v->inputs[k].flag, in->flag) == 0)
				return invalid(err, "next input flag \"%s\" is duplicated", in->flag);
		for (size_t k = 0; k < v->argc; k++)
			if (strcmp(v->argv[k], in->flag) == 0)
				return invalid(err, "next input flag \"%s\" is already present in base_argv", in->flag);
		switch (in->type) {
		case TBL_INPUT_STRING:
		case TBL_INPUT_PATH:
		case TBL_INPUT_DIGEST:
			if (in->choices != NULL)
				return invalid(err, "next input \"%s\" only permits choices for enum type", in->name);
			break;
		case TBL_INPUT_ENUM:
			if (in->choices == NULL || in->choices[0] == NULL)
				return invalid(err, "next enum input \"%s\" requires nonempty choices", in->name);
			for (size_t c = 0; in->choices[c] != NULL; c++) {
				if (in->choices[c][0] == '\0' ||
				    !utf8_ok(in->choices[c]))
					return invalid(err, "next enum input \"%s\" has an invalid choice", in->name);
				for (size_t d = 0; d < c; d++)
					if (strcmp(in->choices[d], in->choices[c]) == 0)
						return invalid(err, "next enum input \"%s\" has duplicate choice", in->name);
			}
			break;
		case TBL_INPUT_INVALID:
		case TBL_INPUT__COUNT:
		default:
			return invalid(err, "next input \"%s\" has unsupported type", in->name);
		}
	}
	return 0;
}

/* ---- The grammar: a variant must match a form of its id --------------- */

/* Why the argv of `v` is not form `f`'s, written to `why`; 0 when it is.
 * A slot accepts its kind of value (tables/next_forms.def), every other
 * word of the template must be there as written, and nothing may follow. */
static int argv_mismatch(const struct form_row *f, const struct next_variant *v,
			 char *why, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; f->argv[i] != NULL; i++) {
		const char *t = f->argv[i];
		const char *a = k < v->argc ? v->argv[k] : NULL;
		const char *bad = NULL;

		if (t == ARG_NO_REVIEW) {	/* the one optional word */
			k += streq(a, "--no-review");
			continue;
		}
		if (a == NULL)
			bad = "is missing";
		else if (t == ARG_RUN || t == ARG_ACTION || t == ARG_CANDIDATE)
			bad = has_dashes(a) ? "must be an id, not a flag" : NULL;
		else if (t == ARG_DIGEST)
			bad = next_digest_valid(a) ? NULL : "must be a lowercase sha256 digest";
		else if (t == ARG_BUDGET)
			bad = next_budget_valid(a) ? NULL : "must be a canonical positive base-10 integer no greater than 1000";
		else if (t != ARG_ROOT && strcmp(a, t) != 0)	/* the root: variant_root */
			bad = "differs from the form";
		if (bad) {
			snprintf(why, len, "base_argv[%zu] %s (%s expects %s)", k, bad,
				 tbl_variant_wire[f->variant], t[0] == '\001' ? t + 1 : t);
			return 1;
		}
		k++;
	}
	if (k == v->argc)
		return 0;
	snprintf(why, len, "base_argv[%zu] \"%s\" is not in the %s form", k, v->argv[k],
		 tbl_variant_wire[f->variant]);
	return 1;
}

static int strv_eq(char *const *a, const char *const *b)
{
	size_t i = 0;

	if (a == NULL || b == NULL)
		return a == NULL && b == NULL;
	for (; a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return a[i] == NULL && b[i] == NULL;
}

/* As argv_mismatch for the inputs: the form's list, in order, each with
 * its name, type, flag, requiredness and choices. */
static int inputs_mismatch(const struct form_row *f, const struct next_variant *v,
			   char *why, size_t len)
{
	const struct input_spec *const *want = input_sets[f->inputs];
	size_t n = 0;

	while (n < INPUT_SET_MAX && want[n] != NULL)
		n++;
	if (v->ninputs != n) {
		snprintf(why, len, "%s takes %zu input(s), not %zu",
			 tbl_variant_wire[f->variant], n, v->ninputs);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct next_input *in = &v->inputs[i];

		if (!streq(in->name, want[i]->name) || in->type != want[i]->type ||
		    !streq(in->flag, want[i]->flag) || !in->required != !want[i]->required ||
		    !strv_eq(in->choices, want[i]->choices)) {
			snprintf(why, len, "inputs[%zu] is not %s's %s %s input %s",
				 i, tbl_variant_wire[f->variant],
				 want[i]->required ? "required" : "optional",
				 tbl_input_wire[want[i]->type], want[i]->flag);
			return 1;
		}
	}
	return 0;
}

/* The variant must match one form of its id (tables/next_forms.def) that
 * may appear under the next's operation.  A command next is open, as in
 * the reference: any slipway command but the run and protocol grammars,
 * which belong to start and the mutations (its forms are what slipway
 * itself offers, and a host may be handed others, say with literal
 * positional values after "--"). */
static int validate_form(enum tbl_nextop op, const struct next_variant *v,
			 size_t idx, struct sw_error *err)
{
	char why[240] = "", other[sizeof(why)] = "";
	int under = 0;

	if (op == TBL_NEXTOP_COMMAND && v->id != TBL_VARIANT_SKIP_ACTION) {
		if (v->argc < 2 || streq(v->argv[1], "protocol") || streq(v->argv[1], "run"))
			return invalid(err, "operation command must not carry run or protocol grammar");
		return 0;
	}

	for (int f = NEXT_FORM_INVALID + 1; f < NEXT_FORM__COUNT; f++) {
		const struct form_row *row = &forms[f];

		if (row->variant != v->id ||
		    (row->op != op && !(row->also & (1u << op))))
			continue;
		if (!argv_mismatch(row, v, other, sizeof(other)) &&
		    !inputs_mismatch(row, v, other, sizeof(other)))
			return 0;
		/* Where an id has several forms, the first one's reason is told. */
		if (!under)
			memcpy(why, other, sizeof(why));
		under = 1;
	}
	if (!under)
		return invalid(err, "next.variants[%zu]: %s is not valid under operation %s",
			       idx, tbl_variant_wire[v->id], tbl_nextop_wire[op]);
	return invalid(err, "next.variants[%zu] does not match its form: %s", idx, why);
}

int next_validate(const struct next *n, struct sw_error *err)
{
	const char *root;
	int rc;

	if ((int)n->operation <= TBL_NEXTOP_INVALID ||
	    n->operation >= TBL_NEXTOP__COUNT)
		return invalid(err, "next.operation is unsupported");
	if (!next_digest_valid(n->identity))
		return invalid(err, "next.workspace_identity must be a lowercase sha256 digest");
	root = n->root;
	if (root != NULL && !root_ok(root))
		return invalid(err, "next workspace root must be an absolute UTF-8 path");
	if (n->operation == TBL_NEXTOP_NONE) {
		if (n->nvariants != 0)
			return invalid(err, "next operation none cannot contain variants");
		return 0;
	}
	if (n->nvariants == 0)
		return invalid(err, "next requires at least one variant");
	if (root == NULL && (rc = variant_root(&root, &n->variants[0], 0, err)) < 0)
		return rc;
	for (size_t i = 0; i < n->nvariants; i++) {
		const struct next_variant *v = &n->variants[i];

		if ((int)v->id <= TBL_VARIANT_INVALID || v->id >= TBL_VARIANT__COUNT ||
		    !ident_ok(tbl_variant_wire[v->id], '-'))
			return invalid(err, "next.variants[%zu].id must be lower-case kebab-case", i);
		for (size_t k = 0; k < i; k++)
			if (n->variants[k].id == v->id)
				return invalid(err, "next variant id \"%s\" is duplicated", tbl_variant_wire[v->id]);
		if ((rc = validate_variant(root, v, i, err)) < 0)
			return rc;
		if ((rc = validate_form(n->operation, v, i, err)) < 0)
			return rc;
	}
	return 0;
}

/* ---- Resolution (the reference's Next.Resolve) --------------------------- */

void next_argv_free(char **argv)
{
	strv_free(argv);
}

static const struct next_value *value_for(const struct next_value *values,
					  size_t nvalues, const char *name)
{
	for (size_t i = 0; i < nvalues; i++)
		if (streq(values[i].name, name))
			return &values[i];
	return NULL;
}

int next_resolve(char ***argv_out, size_t *argc_out, const struct next *n,
		 enum tbl_variant id, const struct next_value *values,
		 size_t nvalues, struct sw_error *err)
{
	const struct next_variant *v = NULL;
	const char **flat = NULL;
	char **argv = NULL;
	size_t k = 0, at;
	int rc;

	*argv_out = NULL;
	if (argc_out)
		*argc_out = 0;
	if ((rc = next_validate(n, err)) < 0)
		goto out;
	for (size_t i = 0; i < n->nvariants && v == NULL; i++)
		if (n->variants[i].id == id)
			v = &n->variants[i];
	if (v == NULL) {
		rc = sw_error_set(err, SW_ENOTFOUND, "unknown next variant \"%s\"",
				  (int)id > 0 && id < TBL_VARIANT__COUNT ?
				  tbl_variant_wire[id] : "?");
		goto out;
	}
	for (size_t i = 0; i < nvalues; i++) {
		int known = 0;

		for (size_t j = 0; j < v->ninputs; j++)
			known |= streq(v->inputs[j].name, values[i].name);
		if (!known) {
			rc = invalid(err, "unknown input \"%s\" for next variant \"%s\"",
				     values[i].name ? values[i].name : "",
				     tbl_variant_wire[id]);
			goto out;
		}
		for (size_t j = 0; j < i; j++)
			if (streq(values[j].name, values[i].name)) {
				rc = invalid(err, "input \"%s\" is supplied twice", values[i].name);
				goto out;
			}
	}
	if ((flat = sw_calloc(v->argc + 2 * v->ninputs + 1, sizeof(*flat))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate argv");
		goto out;
	}
	/* Inputs go just before a `--`, so positional values stay positional. */
	for (at = 0; at < v->argc && strcmp(v->argv[at], "--") != 0; at++)
		flat[k++] = v->argv[at];
	for (size_t j = 0; j < v->ninputs; j++) {
		const struct next_input *in = &v->inputs[j];
		const struct next_value *val = value_for(values, nvalues, in->name);

		if (val == NULL) {
			if (in->required) {
				rc = invalid(err, "required input \"%s\" is missing", in->name);
				goto out;
			}
			continue;
		}
		if (val->type != in->type) {
			rc = invalid(err, "input \"%s\" requires type %s", in->name,
				     tbl_input_wire[in->type]);
			goto out;
		}
		if (val->value == NULL || val->value[0] == '\0' || !utf8_ok(val->value)) {
			rc = invalid(err, "input \"%s\" must be nonempty valid UTF-8 without NUL", in->name);
			goto out;
		}
		if (in->type == TBL_INPUT_ENUM && !in_list((const char *const *)in->choices, val->value)) {
			rc = invalid(err, "input \"%s\" must be one of its choices", in->name);
			goto out;
		}
		if (in->type == TBL_INPUT_DIGEST && !next_digest_valid(val->value)) {
			rc = invalid(err, "input \"%s\" must use lowercase sha256:<64 hex> format", in->name);
			goto out;
		}
		if (streq(in->flag, "--budget") && !next_budget_valid(val->value)) {
			rc = invalid(err, "input \"%s\" must be a canonical positive base-10 integer no greater than 1000", in->name);
			goto out;
		}
		flat[k++] = in->flag;
		flat[k++] = val->value;
	}
	for (; at < v->argc; at++)
		flat[k++] = v->argv[at];
	flat[k] = NULL;
	if ((argv = strv_dup(flat, NULL)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate argv");
		goto out;
	}
	*argv_out = argv;
	if (argc_out)
		*argc_out = k;
	rc = 0;
out:
	sw_free(flat);
	return rc;
}
