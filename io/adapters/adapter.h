#ifndef IO_ADAPTERS_ADAPTER_H
#define IO_ADAPTERS_ADAPTER_H

/* Host adapters: the capability files slipway generates for AI coding hosts,
 * their ownership manifests, and the install / uninstall / list / doctor
 * operations over them.
 *
 * Ten hosts, in registry order: claude codex copilot cursor kilo kiro
 * opencode pi qwen windsurf.  Each owns `<root>/<ownership root>/slipway/`
 * holding ownership-manifest.json (version 2, the files slipway claims with
 * the sha256 of the bytes THIS build generates) and the .adapter-generated
 * sentinel.  A file is rewritten or removed only while its bytes still hash
 * to what this build generates; anything else is preserved and reported.
 *
 * The capability texts are passed in (`texts`, see struct adapter_text): the
 * io layer does not know how they were embedded.  Errors that map to a
 * specific wire code are SW_EPROTO with `err->proto` set to
 * unknown_host_adapter, host_adapter_required or invalid_adapter_surface;
 * everything else is a plain code and the caller reports install_failed /
 * uninstall_failed / list_failed / doctor_failed. */

#include <stddef.h>

#include "io/adapters/adapter_txn.h"
#include "io/adapters/report.h"
#include "io/util/err.h"
#include "io/util/owned.h"

#define ADAPTER_NHOSTS 10
#define ADAPTER_NCAPS 7
#define ADAPTER_NMCP 2		/* the most project MCP configurations one host has */

/* Capability names, in their canonical order.  The hosts are rows of the
 * host table in io/adapters/adapter.c, their differences columns of it. */
extern const char *const adapter_capabilities[ADAPTER_NCAPS];

/* A reference text and the capabilities that name it (bit i:
 * adapter_capabilities[i]).  It is installed beside each of them (in the
 * `references/` folder next to the capability's file), and every mention
 * of `references/NAME` in an installed text is written as the path from the
 * repository root.  Ends with name == NULL. */
struct adapter_reference {
	const char *name;
	unsigned caps;
};

extern const struct adapter_reference adapter_references[];

/* The row of reference `name`, or NULL. */
const struct adapter_reference *adapter_reference_find(const char *name);

/* One capability source file: "slipway-run.md" ... "slipway-workflow.md"
 * (frontmatter + body), a reference of adapter_references, and
 * "_common.md" (the shared rules appended to every capability).  Arrays end
 * with name == NULL. */
struct adapter_text {
	const char *name;
	const char *bytes;
	size_t len;
};


struct adapter_request {
	const char *root;		/* absolute worktree root */
	char *const *tools;		/* raw --tool values (commas allowed) */
	size_t ntools;
	int tools_given;		/* --tool appeared at all */
	const char *surface;		/* kiro surface; NULL or "" = not given */
	int refresh;
	const struct adapter_text *texts;
	int mcp;			/* also register slipway mcp (io/adapters/adapter_mcp.h) */
	const char *git_dir;		/* the worktree's Git directory: the record of a
					 * batch in flight is <git_dir>/slipway/adapter-txn.json */
};

/* Plans every selected host, then applies all writes in one transaction.
 * *rep (zeroed by the caller) is filled on success AND on failure; a report
 * whose outcome is not committed lists nothing as written or removed.
 * Release it with adapter_report_release.
 *
 * Install and uninstall first finish what a killed one left (see
 * io/adapters/adapter_txn.h): the batch its record names is rolled back or
 * forward, leftovers slipway generated are deleted, and the report says so
 * in `warnings`, listing every file kept in `recovery_artifacts`.  SW_EBUSY
 * while another install or uninstall runs in the worktree. */
int adapter_install(struct adapter_report *rep,
		    const struct adapter_request *req, struct sw_error *err);

/* Removes the claimed files that are still pristine, the manifest and a
 * pristine sentinel, in one transaction.  Without --tool, the hosts that
 * have a manifest are selected (none → error, unless the uninstall that a
 * kill interrupted was just completed: its hosts are then reported). */
int adapter_uninstall(struct adapter_report *rep,
		      const struct adapter_request *req, struct sw_error *err);

struct adapter_host_status {
	const char *id;			/* static */
	int detected, installed, needs_refresh;
	const char *caps[ADAPTER_NCAPS];	/* healthy capabilities, static */
	size_t ncaps;
	const char *mcp_config[ADAPTER_NMCP];	/* static: where slipway mcp is registered, NULL-padded */
	int mcp_changed;		/* registered once, the entry is not ours any more */
	int mcp_outdated;		/* ours as an earlier slipway wrote it (install --refresh) */
	char *warning;			/* sw_malloc'd or NULL */
};

/* Fills out[0..ADAPTER_NHOSTS) in registry order.  An unreadable manifest
 * degrades to that host's warning.  Release with adapter_list_release. */
int adapter_list(struct adapter_host_status out[ADAPTER_NHOSTS],
		 const char *root, const struct adapter_text *texts,
		 struct sw_error *err);
void adapter_list_release(struct adapter_host_status st[ADAPTER_NHOSTS]);

/* One doctorCheck.  Strings are sw_malloc'd except `status`, `name` and
 * `host` which are static. */
struct adapter_check {
	char *code;
	const char *status;		/* ok | warning | error */
	const char *host;		/* host id or "-" */
	const char *name;
	char *detail;
	int has_durability;
	int file_sync, dir_sync;
	const char *level;		/* file_and_directory_fsync | file_fsync_only */
	const char *limitation;		/* NULL when none */
};

struct adapter_checks {
	struct adapter_check *v;
	size_t n;
};

/* Appends one check; `code` and `detail` are copied. */
int adapter_checks_add(struct adapter_checks *c, const char *code,
		       const char *status, const char *host, const char *name,
		       const char *detail, struct sw_error *err);
void adapter_checks_release(struct adapter_checks *c);

/* What doctor reports of the run store, as checks the caller made (the
 * service reads the store; this layer never does): leftovers, damage and
 * misnamed run directories, in order.  Borrowed. */
struct adapter_store_fact {
	const char *code;	/* runstore_... */
	const char *status;	/* warning | error */
	const char *detail;
};
struct adapter_store_facts {
	const struct adapter_store_fact *v;
	size_t n;
};

/* Appends repository_ok, one adapter check per host, what an interrupted
 * install or uninstall left in the worktree (its record is in
 * `<git_dir>/slipway/`; NULL: not looked at), the legacy residue warnings
 * for `<git_common_dir>/slipway/` (never modified) and the run store's
 * checks in `store` (NULL: none). */
int adapter_doctor_local(struct adapter_checks *c, const char *root, const char *git_dir,
			 const char *git_common_dir, const struct adapter_store_facts *store,
			 const struct adapter_text *texts, struct sw_error *err);

/* ---- the host table, for the generated documentation (mk/gen/gendocs) ---- */

/* One row of the host table: `id`, the ownership root (which holds
 * `slipway/ownership-manifest.json`), the directories whose presence
 * selects the host when --tool is not given (`detect`, `ndetect` of them),
 * whether the user picks the surface (--surface), the project MCP
 * configurations install --mcp edits (`nmcp` of them), and where the row
 * comes from: the host (`product`) and the version checked, the
 * documentation pages (`ndocs`) and a decision taken against them (`note`,
 * or NULL).  Strings are static. */
struct adapter_host_doc {
	const char *id;
	const char *owner;
	const char *const *detect;
	size_t ndetect;
	int chooses_surface;
	const char *mcp_config[ADAPTER_NMCP];
	size_t nmcp;
	const char *product;
	const char *checked;
	const char *const *docs;
	size_t ndocs;
	const char *note;
};

/* Fills *out with host `i` in registry order; -1 when i >= ADAPTER_NHOSTS. */
int adapter_host_doc(struct adapter_host_doc *out, size_t i);

/* What a path named by adapter_host_walk is. */
enum adapter_path_role {
	ADAPTER_PATH_GENERATED,		/* a file install generates for capability `cap` */
	ADAPTER_PATH_MANIFEST,		/* the ownership manifest */
	ADAPTER_PATH_SENTINEL,		/* the .adapter-generated marker */
	ADAPTER_PATH_FOLDERS,		/* the record of the folders install created (when it created one) */
	ADAPTER_PATH_MCP_RECORD,	/* install --mcp: the record of slipway's entry */
	ADAPTER_PATH_MCP_CONFIG		/* install --mcp: the shared file slipway adds one entry to */
};

typedef void adapter_path_fn(enum adapter_path_role role, const char *path,
			     const char *cap, void *payload);

/* Calls `fn` with every repository-relative path install writes or claims
 * for host `i` with `surface` ("ide" or "cli" for a host that chooses one,
 * NULL otherwise): the generated files in generation order (the same code
 * as install, with `texts`), then the ownership files, then the MCP
 * configuration.  Writes nothing.  0, or a negative code with `err` set. */
int adapter_host_walk(size_t i, const char *surface, const struct adapter_text *texts,
		      adapter_path_fn *fn, void *payload, struct sw_error *err);
/* The files slipway's own install wrote for each host, as its ownership
 * manifests say (one group per host with a readable manifest, the host id
 * its owner): every claimed path with the sha256 it was written with, plus
 * the manifest, the .adapter-generated sentinel and the MCP records in
 * `<ownership root>/slipway/`.  A claim outside the host's own folders is
 * ignored, and so is a manifest that cannot be read: what it claims is then
 * reported like any other file.  Reads only the manifests.  *out is zeroed
 * here; release it with sw_owned_release.  SW_ENOMEM only. */
int adapter_installed(struct sw_owned *out, const char *root, struct sw_error *err);

#endif
