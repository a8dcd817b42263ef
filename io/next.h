#ifndef IO_NEXT_H
#define IO_NEXT_H

/* The typed `next` object every success and continuable error carries:
 * {operation, workspace_identity, variants[{id, base_argv[], inputs[]}]}.
 * Hosts execute base_argv plus their input values; nothing here is prose.
 *
 * Calling sequence: next_new, next_add_variant (+ next_variant_add_input),
 * next_to_json / render, next_free.  A next owns copies of every string
 * passed in. */

#include <stddef.h>

#include "io/digest.h"
#include "io/err.h"
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

#endif
