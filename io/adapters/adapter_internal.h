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

/* How a host exposes a capability to its user.  A surface ending in _V1
 * is the layout an earlier slipway wrote, generated only to recognise its
 * files (see struct gen_set). */
enum surface {
	SURF_NONE = 0,		/* kiro before a surface is chosen */
	SURF_SKILL,		/* <dir>/C/SKILL.md, whole text */
	SURF_COPILOT,		/* .github/agents/C.agent.md, references outside that folder */
	SURF_KILO,		/* .kilo/commands/C.md holding the text */
	SURF_KIRO_IDE,		/* steering file including the text */
	SURF_KIRO_CLI,		/* agent whose prompt is the text, with the MCP servers */
	SURF_OPENCODE,		/* command including the text with @ */
	SURF_WINDSURF,		/* workflow holding the text when it fits */
	SURF_COPILOT_V1,	/* references in .github/agents/references/ */
	SURF_KILO_V1,		/* command naming the text with @ */
	SURF_KIRO_CLI_V1,	/* agent without the project's MCP servers */
	SURF_WINDSURF_V1	/* workflow naming the text with @ */
};

/* Whether the user picks the host's surface (--surface ide|cli). */
enum surface_choice { FIXED_SURFACE = 0, CHOSEN_SURFACE };

/* A file beside each SKILL.md that keeps the host from invoking the skill
 * on its own: Codex reads agents/openai.yaml (AGENT_POLICY_YAML). */
enum invocation_policy { NO_POLICY_FILE = 0, OPENAI_AGENT_POLICY };

/* The format of a host's MCP configuration file. */
enum mcp_format {
	MCP_FORMAT_NONE = 0,
	MCP_JSON,		/* strict JSON */
	MCP_JSONC,		/* JSON with comments and trailing commas */
	MCP_TOML		/* the servers are tables [KEY.slipway] */
};

/* slipway's entry for the server, in the shape the host documents. */
enum mcp_shape {
	MCP_SHAPE_NONE = 0,
	MCP_PLAIN,		/* {"command": "slipway", "args": ["mcp"]} */
	MCP_TYPED,		/* {"type": "stdio", "command": "slipway", "args": ["mcp"]} */
	MCP_PLAIN_WORKSPACE,	/* MCP_PLAIN, args ["mcp", "--root", "${workspaceFolder}"] */
	MCP_TYPED_WORKSPACE,	/* MCP_TYPED, args ["mcp", "--root", "${workspaceFolder}"] */
	MCP_LOCAL,		/* {"type": "local", "command": ["slipway", "mcp"]} */
	MCP_TOML_TABLE		/* command = "slipway", args = ["mcp"] */
};

/* A configuration file with its format and servers key. */
struct mcp_file {
	const char *path;
	enum mcp_format format;
	const char *key;
};

/* One project MCP configuration a host reads and install --mcp registers
 * slipway in (adapter_mcp.c).  The file is `config`, or the first of
 * `alt` that exists: the host reads those too, and a second file would
 * only split the user's servers.  An entry an earlier slipway wrote in
 * `legacy` is moved from there.  When `shadow` exists, the host reads it
 * instead of this file, and install says so if it has no slipway server. */
struct mcp_reg {
	const char *config;
	const char *alt[3];
	enum mcp_format format;
	const char *key;
	enum mcp_shape shape;
	const char *record;	/* slipway's record of its entry, in <owner>/slipway/ */
	struct mcp_file legacy;
	const char *shadow;
};

#define MCP_REGS_MAX 2

/* Where a host's row comes from: the host and version its paths were
 * checked against, the pages that document them, and a decision taken
 * against the documentation, with its reason. */
struct host_source {
	const char *product;
	const char *checked;
	const char *docs[4];
	const char *note;
};

/* One row of the hosts table (adapter__hosts, io/adapters/adapter.c). */
struct host {
	const char *id;
	const char *skills;
	enum surface surface;
	const char *owner;
	const char *detect[5];
	enum surface_choice choice;
	enum invocation_policy policy;
	const struct mcp_reg *mcp;	/* MCP_REGS_MAX at most, ended by config NULL; or NULL */
	const struct host_source *source;
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

/* The files of a surface, and those of the layout it replaced (`old`, the
 * same texts in an earlier slipway's layout): a claim on one of those is
 * slipway's while its hash is what that layout generates, so a refresh
 * moves the file and uninstall removes it. */
struct gen_set {
	struct gen_file *v;
	size_t n;
	struct gen_file *old;
	size_t nold;
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
/* The file at `rel` whose bytes hash to `sha`: of the current layout, else
 * of the one it replaced; NULL when neither generates it. */
const struct gen_file *adapter__gen_claimed(const struct gen_set *g, const char *rel, const char *sha);
/* Whether `rel` is a path of the layout replaced, and not of the current one. */
int adapter__gen_moved(const struct gen_set *g, const char *rel);
/* The current file that takes over from the replaced layout's `old`. */
const struct gen_file *adapter__gen_successor(const struct gen_set *g, const struct gen_file *old);

/* ---- adapter_moved.c: files of the layout an earlier slipway wrote ---- */

/* Queues, for each claim of `m` on a path only the replaced layout has,
 * the removal of a file still as slipway wrote it; an edited one is kept
 * and named, with where its text is now.  0 or a negative code. */
int adapter__plan_moved(struct adapter_report *rep, struct adapter_txn *txn, const char *root,
			const struct host *h, const struct manifest *m, const struct gen_set *g,
			struct sw_error *err);

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
/* The ids of the hosts other than `h` that need no --surface, comma-separated
 * (sw_malloc'd; NULL when out of memory). */
char *adapter__other_hosts(const struct host *h);

#endif
