/* What the files of the Run record share, private to io/store/: the Run
 * in memory (struct run), its frozen Action records, the order of the
 * record's fields, and the helpers one part calls in another (run__*).
 * Its files, each calling only files listed below it (make check-layers):
 *   run_effects.c   a step's effects: run_apply, run_apply_replay, run_create
 *   run_issue.c     the Action issued
 *   run_brief.c     briefs and the final summary
 *   run_project.c   run.json as pieces, and the replay checkpoint
 *   run_view.c      the record for output
 *   run_delta.c     journal deltas and their replay
 *   run_fields.c    the fields, facts, getters and setters
 *   run_frozen.c    frozen Action records
 *   run_context.c   the context text of an Action
 *   run_util.c      small helpers, decoding, clone and free
 * Never included outside io/store/. */

#ifndef IO_STORE_RUN_INTERNAL_H
#define IO_STORE_RUN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "io/store/run.h"

struct run_view;
struct sw_error;

/* Frozen Action records.  Every record but the last is final (only the
 * current Action's record changes, and the current Action is the last
 * one), so on the mutation path the Run keeps those records as the text
 * run.json already holds for them plus what the rules need to know (id,
 * kind, outcome digest, voided/skipped, context item), not as JSON values:
 * loading, copying, diffing and projecting a Run then costs the same at
 * 1,000 Actions as at one.  A frozen set is shared by a Run and its clones
 * and only grows; each Run owns the first `nfz` entries. */
enum { FZ_OUTCOME = 1, FZ_VOIDED = 2, FZ_SKIPPED = 4 };

/* Limits of a frozen record's strings (a longer one stays a JSON value). */
#define FZ_ID_MAX 63
#define FZ_KIND_MAX 15

struct fz_entry {
	/* NUL-terminated, in `own` or in the checkpoint log read back */
	const char *id;
	const char *kind;
	const char *sha;		/* outcome_payload_sha256, "" when none */
	const char *text_sha;		/* checked before the text is parsed */
	unsigned flags;
	const char *item;		/* context item, NULL when none */
	size_t item_len;
	const char *text;		/* run.json form (depth 3), or NULL: */
	size_t text_len;
	unsigned long long text_at;	/* where it is in the source run.json */
	char *own;			/* strings, item and text when not borrowed */
};

struct frozen {
	unsigned refs;
	size_t n, cap;
	struct fz_entry *e;
	char *log;			/* the checkpoint log read back */
	int src_fd;			/* the run.json read back with them */
	/* The first `logged` entries are the checkpoint log read back, which
	 * is `log_bytes` long: a checkpoint only appends the rest. */
	size_t logged, log_bytes;
};

struct run {
	json_t *rec;		/* the record: runStatus fields without `next`;
				 * `actions` holds only the records after the
				 * frozen ones */
	json_t *contexts;	/* contexts issued since run_take_contexts */
	struct frozen *fz;	/* may be NULL */
	size_t nfz;		/* frozen records that precede rec.actions */
	/* The record decoded (io/store/run_record.h), NULL until run_check; once
	 * set, every change made here decodes it again (run__view_refresh). */
	struct run_view *view;
};

/* ---- run_util.c: small helpers, decoding, lifetime ---- */

int run__oom(struct sw_error *err);
/* Keeps a decoded record in step after a change. */
int run__view_refresh(struct run *r, struct sw_error *err);
json_t *run__arr(json_t *rec, const char *key);
int run__append_str(json_t *rec, const char *key, const char *s);
int run__append_unique(json_t *rec, const char *key, const char *s);
int run__extend(json_t *rec, const char *key, const json_t *items);
const char *run__str(const json_t *o, const char *key);
json_t *run__record_for(const json_t *rec, const char *action_id);
char *run__truncate_marked(const char *s, size_t limit);
void run__fz_release(struct frozen *fz);

/* ---- run_context.c: the context text of an Action ---- */

int run__action_item(char **item, const json_t *v);
char *run__build_context(const struct run *r, size_t limit);

/* ---- run_frozen.c: frozen records ---- */

json_t *run__fz_parse(const struct frozen *fz, const struct fz_entry *e);
unsigned run__record_flags(const json_t *v);
json_t *run__fz_records(const struct run *r);
const struct fz_entry *run__fz_find(const struct run *r, const char *action_id);

/* ---- run_fields.c: the record field by field ---- */

/* The record's fields in the order status prints them. */
extern const char *const run__field_order[];
extern const size_t run__nfields;
json_t *run__ordered_copy(const json_t *rec);
int run__known_field(const char *k);

/* ---- run_brief.c: briefs and summaries ---- */

char *run__compose_brief(const json_t *rec, enum fsm_kind kind, enum fsm_brief which,
			 const char *suggested, int changed, const struct sw_owned *installed);
char *run__final_summary(const struct run *r, const struct run_effects *fx);

/* ---- run_issue.c: the Action issued ---- */

int run__issue_action(struct run *r, enum fsm_kind kind, enum fsm_brief which,
		      const char *suggested, const struct run_effects *fx,
		      json_t *authorization, struct sw_error *err);

/* ---- run_view.c: output ---- */

json_t *run__status_object(const struct run *r, int for_status, run_context_fn *resolve,
			   void *payload, int frozen);

#endif
