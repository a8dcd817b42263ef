/* What the files of the capability-file adapter (adapter*.c) share and no
 * caller outside io/adapters/ sees: the hosts table's row type, the
 * generated file set, the ownership manifest in memory, and the adapter__
 * helpers one file defines for its siblings.  Never included by service/,
 * cli/ or mcp/: they go through io/adapters/adapter.h. */
#ifndef IO_ADAPTERS_ADAPTER_INTERNAL_H
#define IO_ADAPTERS_ADAPTER_INTERNAL_H

#include <stddef.h>

#include "io/adapters/adapter.h"
#include "io/adapters/adapter_txn.h"
#include "io/adapters/report.h"
#include "io/util/digest.h"
#include "io/util/err.h"

#define MANIFEST_NAME "ownership-manifest.json"
#define SENTINEL_NAME ".adapter-generated"
#define SENTINEL_BYTES "generated\n"
#define MANIFEST_MAX (256u << 10)

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

/* One row of the hosts table (adapter__hosts, io/adapters/adapter.c). */
struct host {
	const char *id;
	const char *skills;
	enum surface surface;
	const char *owner;
	const char *detect[5];
	enum surface_choice choice;
	enum invocation_policy policy;
};

/* The hosts, in registry order. */
extern const struct host adapter__hosts[ADAPTER_NHOSTS];

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

/* ---- adapter_txn.c: the file steps the transaction and its recovery
 * (adapter_txn_recover.c) share ---- */

/* The name of a staged copy (tag "tmp") or backup ("bak") of the file
 * NAME, beside it: printf(ADAPTER_SIBLING_FMT, NAME, tag, pid, index). */
#define ADAPTER_SIBLING_FMT ".%s.slipway-%s-%ld-%zu"

/* Moves `from` to `to` within `dfd` only if `to` does not exist, so a file
 * created meanwhile is never replaced: the one use of renameat2 (link and
 * unlink where the file system has no RENAME_NOREPLACE).  0, or -1 with
 * errno. */
int adapter__rename_noreplace(int dfd, const char *from, const char *to);

/* The sha256 (hex) of `name` in `dfd`: 0 for a regular non-symlink file of
 * at most 1 MiB, else -1. */
int adapter__hash_at(int dfd, const char *name, char out[SW_HEX_LEN]);

/* Opens the folder `rel` below `rootfd` (with `parent`: the folder holding
 * its last component; "" is the root), one component at a time with
 * O_DIRECTORY | O_NOFOLLOW.  A descriptor, or -1 with errno. */
int adapter__open_dir(int rootfd, const char *rel, int parent);

/* ---- adapter_interrupted.c: an install or uninstall a kill interrupted ---- */

struct adapter_intent;
struct adapter_intent_dir;

/* What install and uninstall do first: open and lock the folder of the
 * intent record, `<req->git_dir>/slipway` (SW_EBUSY while another one
 * runs), roll a batch a kill interrupted back or forward, and collect the
 * staged copies and backups no record names that provably hold only bytes
 * slipway generates (from every host's folders).  What it did goes into
 * rep->warnings; every file it kept, into rep->recovery and a warning.  On
 * success *dir is the locked folder for the batch (close it with
 * adapter_intent_dir_close once the batch is done) and *found the record
 * acted on (phase NONE: none; release it with adapter_intent_release). */
int adapter__recover(struct adapter_intent_dir **dir, struct adapter_intent *found,
		     struct adapter_report *rep, const struct adapter_request *req,
		     struct sw_error *err);

/* One of doctor's checks about an interrupted batch (adapter_inspect.c adds
 * it): `code`, `status` and `host` static, `detail` sw_malloc'd. */
struct interruption {
	const char *code;
	const char *status;
	const char *host;
	char *detail;
};

/* doctor, read only: into out[0..*n), adapter_transaction_interrupted (what
 * the next install or uninstall will do with the record; or
 * adapter_transaction_running, adapter_transaction_unreadable) and
 * adapter_leftover_files (the files no record names, each by name), when
 * there is anything to say.  SW_ENOMEM. */
int adapter__doctor_interrupted(struct interruption out[2], size_t *n, const char *root,
				const char *git_dir, const struct adapter_text *texts,
				struct sw_error *err);

/* ---- adapter.c: what install and uninstall share ---- */

void adapter__report_normalize(struct adapter_report *r);
int adapter__run_txn(struct adapter_report *rep, struct adapter_txn *txn,
		     const char *root, struct sw_error *err);

/* ---- adapter_gen.c: the files this build generates ---- */

void adapter__gen_release(struct gen_set *g);
int adapter__generate(struct gen_set *g, const struct host *h, enum surface s,
		      const struct adapter_text *texts, struct sw_error *err);
const struct gen_file *adapter__gen_find(const struct gen_set *g, const char *rel);

/* ---- adapter_paths.c: paths under the repository root ---- */

char *adapter__normalize_rel(const char *in, struct sw_error *err);
char *adapter__safe_path(const char *root, const char *rel, struct sw_error *err);
char *adapter__owner_file(const char *root, const struct host *h, const char *name,
			  struct sw_error *err);
char *adapter__owner_rel(const struct host *h, const char *name);
int adapter__classify(enum cls *out, const char *path, const char *sha,
		      struct sw_error *err);
int adapter__exists(const char *path);
int adapter__detected(const char *root, const struct host *h);
enum surface adapter__kiro_surface(const char *s);

/* ---- adapter_manifest.c: the ownership manifest ---- */

void adapter__manifest_release(struct manifest *m);
int adapter__cmp_claim(const void *a, const void *b);
const struct claim *adapter__claim_find(const struct manifest *m, const char *rel);
int adapter__read_small(char **out, size_t *len, const char *path, size_t limit,
			struct sw_error *err);
int adapter__manifest_load(struct manifest *m, const char *root, const struct host *h,
			   const struct adapter_text *texts, struct sw_error *err);
char *adapter__manifest_encode(const struct host *h, enum surface s,
			       const struct claim *claims, size_t n, size_t *len);

/* ---- adapter_select.c: which hosts a request names ---- */

int adapter__select_hosts(int sel[ADAPTER_NHOSTS], const struct adapter_request *req,
			  int default_detected, struct sw_error *err);
char *adapter__missing_manifest_warning(const struct host *h);
char *adapter__stale_warning(const struct host *h, const char *rel);

#endif
