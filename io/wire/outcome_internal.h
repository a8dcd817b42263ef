/* What the files of the Outcome decoder (outcome*.c) share and no caller
 * sees: the two wire codes a rejection carries, the builder's state, and
 * the outcome__ helpers one file defines for its siblings.  Never included
 * outside io/wire/: callers go through io/wire/outcome.h. */
#ifndef IO_WIRE_OUTCOME_INTERNAL_H
#define IO_WIRE_OUTCOME_INTERNAL_H

#include <jansson.h>

#include "io/util/err.h"
#include "io/wire/outcome.h"

#define INVALID TBL_ERR_INVALID_OUTCOME
#define MISMATCH TBL_ERR_CONTRACT_VERSION_MISMATCH

/* ---- outcome_build.c: building the C struct ---- */

struct build {
	int nomem;
	int has_nul;	/* some string carried an escaped NUL */
};

void outcome__build_outcome(struct build *b, struct outcome *o, const json_t *root);

/* ---- outcome_text.c: text rules, as rejections naming the field ---- */

int outcome__need_nonblank_markdown(const char *s, const char *what,
				    struct sw_error *err);
int outcome__need_nonblank_plain(const char *s, const char *what,
				 struct sw_error *err);
int outcome__need_list(const struct outcome_strings *l, const char *what,
		       int markdown, struct sw_error *err);

/* ---- outcome_destructive.c: destructive requests ---- */

int outcome__check_request(const struct outcome_request *r, struct sw_error *err);

#endif
