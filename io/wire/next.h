#ifndef IO_WIRE_NEXT_H
#define IO_WIRE_NEXT_H

/* The typed `next` object every success and continuable error carries:
 * {operation, workspace_identity, variants[{id, base_argv[], inputs[]}]}.
 * Hosts execute base_argv plus their input values; nothing here is prose.
 *
 * Calling sequence: a builder (next_build_*, which validates), or next_new
 * + next_add_form / next_add_variant (+ next_variant_add_input) +
 * next_validate; then next_to_json, next_resolve or render_next_choices
 * (io/wire/render.h); next_free.  A next owns copies of every string passed in.
 * On a failed add the next may hold a partial variant; free it. */

#include <stddef.h>

#include "fsm/fsm.h"
#include "io/util/digest.h"
#include "io/util/err.h"
#include "tables/tables.h"

struct json_t;

struct next_input {
	char *name;		/* ^[a-z][a-z0-9_]*$ */
	enum tbl_input type;
	char *flag;		/* ^--[a-z][a-z0-9-]*$ */
	int required;
	char **choices;		/* enum only; NULL-terminated, else NULL */
};

struct next_variant {
	enum tbl_variant id;
	char **argv;		/* NULL-terminated base_argv */
	size_t argc;
	struct next_input *inputs;
	size_t ninputs;
};

struct next {
	enum tbl_nextop operation;
	char identity[SW_DIGEST_LEN];
	char *root;		/* the workspace root the argv address, or NULL */
	struct next_variant *variants;
	size_t nvariants;
};

/* A new next with no variants.  `identity` is a "sha256:" digest. */
int next_new(struct next **out, enum tbl_nextop op, const char *identity,
	     const char *root, struct sw_error *err);

/* operation "none" for the workspace at `root` (the current directory when
 * NULL): its discovered identity, or the unavailable-workspace identity when
 * `root` is not a usable worktree. */
int next_none(struct next **out, const char *root, struct sw_error *err);

/* As next_none for an already known identity. */
int next_none_identity(struct next **out, const char *identity,
		       struct sw_error *err);

/* Appends a variant whose base_argv is the NULL-terminated `argv`.  Returns
 * the new variant through *vout (borrowed) when not NULL. */
int next_add_variant(struct next *n, enum tbl_variant id,
		     const char *const *argv, struct next_variant **vout,
		     struct sw_error *err);

/* Appends an input; `choices` is NULL-terminated or NULL. */
int next_variant_add_input(struct next_variant *v, const char *name,
			   enum tbl_input type, const char *flag, int required,
			   const char *const *choices, struct sw_error *err);

/* A single-variant `command` (or other) next addressed at `root`, whose
 * identity is discovered as for next_none. */
int next_command(struct next **out, enum tbl_nextop op, enum tbl_variant id,
		 const char *root, const char *const *argv,
		 struct sw_error *err);

/* The JSON value of `n` (a new reference), or NULL on ENOMEM. */
struct json_t *next_to_json(const struct next *n);

void next_free(struct next *n);

/* ---- Forms and builders (MAP §4.2) ------------------------------------
 *
 * A form is one base_argv template with its input list (tables/
 * next_forms.def).  The builders only fill templates: the caller decides
 * which run situation applies.  Every builder validates the result
 * (next_validate) and returns SW_EINVAL when it breaks a rule, for example
 * when `root` is not absolute or an id would start with "--"; *out is then
 * NULL.  Upstream falls back to a `none` next for the same workspace when a
 * command next does not validate; that choice is the caller's. */

enum next_form {
#define FORM(id, variant, op, also, inputs, ...) NEXT_FORM_##id,
#include "tables/next_forms.def"
#undef FORM
	NEXT_FORM__COUNT
};

/* The values a form's template reads; a form reads only its own slots and
 * the others may be NULL / 0. */
struct next_fill {
	const char *run_id;		/* ARG_RUN */
	const char *action_id;		/* ARG_ACTION */
	const char *scope_digest;	/* ARG_DIGEST: "sha256:<hex>" */
	const char *candidate_id;	/* ARG_CANDIDATE */
	unsigned budget;		/* ARG_BUDGET, written in decimal; a
					 * value outside 1..1000 fails
					 * validation (the reference's
					 * Service.Start substitutes its
					 * default first: the caller's job) */
	int no_review;			/* ARG_NO_REVIEW: append --no-review */
};

/* Variant id and one-variant operation of `form`. */
enum tbl_variant next_form_variant(enum next_form form);
enum tbl_nextop next_form_operation(enum next_form form);

/* Appends the variant of `form`, with ARG_ROOT = n->root (which must be
 * set), and its inputs.  Does not validate.  Codes: SW_ENOMEM, SW_EINVAL
 * when a slot the form reads is NULL or n->root is NULL. */
int next_add_form(struct next *n, enum next_form form,
		  const struct next_fill *fill, struct sw_error *err);

/* A validated one-variant next of `form` (operation next_form_operation),
 * addressed at `root`.  When `identity` is NULL it is discovered from
 * `root` as NewCommandNext does (the worktree's identity, else the
 * unavailable-workspace identity) and n->root becomes the canonical root,
 * so a `root` that is not the canonical worktree root fails validation
 * exactly as upstream.  To address a workspace known to be unusable
 * without querying Git (NewUnavailableWorkspaceCommandNext), pass the
 * identity and cleaned root from vcs_unavailable_identity. */
int next_build_form(struct next **out, enum next_form form,
		    const char *identity, const char *root,
		    const struct next_fill *fill, struct sw_error *err);

/* The next of a Run whose situation matched `rule` (a tbl_next_rules row,
 * see fsm_next): the rule's operation and its variants in order, filled
 * from `fill`, with `identity` the Run's pinned identity and `root` its
 * workspace; validated.  Codes: SW_ENOMEM, SW_EINVAL (*out NULL). */
int next_from_rule(struct next **out, const struct fsm_next_rule *rule,
		   const char *identity, const char *root,
		   const struct next_fill *fill, struct sw_error *err);

/* operation start: retry-run, or start-with-source when `with_source`;
 * `--no-review` last when `no_review`.  The goal is never embedded. */
int next_build_start(struct next **out, const char *identity,
		     const char *root, unsigned budget, int no_review,
		     int with_source, struct sw_error *err);

/* ---- Validation and resolution ---------------------------------------- */

/* Checks `n` the way the reference's Next.Validate does: digest identity,
 * `none` iff no variants, unique well-formed ids, base_argv starting with
 * "slipway" holding exactly one absolute `--root` before any `--`, equal
 * across variants (and to n->root when set), no empty, NUL, invalid UTF-8
 * or placeholder (FILE, <...>) elements before `--`, well-formed unique
 * inputs whose flags are not in base_argv, choices only (and non-empty,
 * unique) for enums, and the per-operation argv grammar.  Returns 0 or
 * SW_EINVAL with the broken rule in err->msg. */
int next_validate(const struct next *n, struct sw_error *err);

/* One host-supplied input value; `name` names a variant input. */
struct next_value {
	const char *name;
	enum tbl_input type;
	const char *value;
};

/* Resolves variant `id` of `n` with `values` (any order): validates `n`,
 * then appends `flag value` for each supplied input in the variant's input
 * order, at the end of base_argv or just before its first `--`.  Rejects
 * an unknown or repeated name, a missing required input, a type mismatch,
 * an empty / NUL / invalid UTF-8 value, an enum value outside choices, a
 * digest not "sha256:<64 lowercase hex>", and a --budget value outside
 * ^([1-9][0-9]{0,2}|1000)$.  On success *argv_out is a NULL-terminated
 * sw_malloc'd vector (free with next_argv_free) of *argc_out elements.
 * Codes: SW_EINVAL, SW_ENOTFOUND (no such variant), SW_ENOMEM. */
int next_resolve(char ***argv_out, size_t *argc_out, const struct next *n,
		 enum tbl_variant id, const struct next_value *values,
		 size_t nvalues, struct sw_error *err);

void next_argv_free(char **argv);

/* 1 when `s` is "sha256:" + 64 lowercase hex. */
int next_digest_valid(const char *s);
/* 1 when `s` is a canonical budget: ^([1-9][0-9]{0,2}|1000)$. */
int next_budget_valid(const char *s);
/* 1 when the reference treats `s` as a placeholder (FILE or <...> after
 * trimming white space, then quotes). */
int next_is_placeholder(const char *s);

#endif
