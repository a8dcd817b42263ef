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

#define ADAPTER_NHOSTS 10
#define ADAPTER_NCAPS 7

/* Capability names, in their canonical order.  The hosts are rows of the
 * host table in io/adapters/adapter.c, their differences columns of it. */
extern const char *const adapter_capabilities[ADAPTER_NCAPS];

/* One capability source file: "slipway-run.md" ... "slipway-workflow.md"
 * (frontmatter + body), the references "decision-interview.md" (installed
 * beside slipway-clarify) and "source-envelope.md" (beside slipway-run), and
 * "_common.md" (the shared rules appended to every capability).  Arrays end with name == NULL. */
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
};

/* Plans every selected host, then applies all writes in one transaction.
 * *rep (zeroed by the caller) is filled on success AND on failure; a report
 * whose outcome is not committed lists nothing as written or removed.
 * Release it with adapter_report_release. */
int adapter_install(struct adapter_report *rep,
		    const struct adapter_request *req, struct sw_error *err);

/* Removes the claimed files that are still pristine, the manifest and a
 * pristine sentinel, in one transaction.  Without --tool, the hosts that
 * have a manifest are selected (none → error). */
int adapter_uninstall(struct adapter_report *rep,
		      const struct adapter_request *req, struct sw_error *err);

struct adapter_host_status {
	const char *id;			/* static */
	int detected, installed, needs_refresh;
	const char *caps[ADAPTER_NCAPS];	/* healthy capabilities, static */
	size_t ncaps;
	const char *mcp_config;		/* static: where slipway mcp is registered, or NULL */
	int mcp_changed;		/* registered once, the entry is not ours any more */
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

/* What doctor reports of the run store, gathered by the caller (the
 * service reads the store; this layer never does): the names of the
 * directories under runs/ that hold no Run. */
struct adapter_store_facts {
	char *const *debris;
	size_t ndebris;
};

/* Appends repository_ok, one adapter check per host, the legacy residue
 * warnings for `<git_common_dir>/slipway/` (never modified) and one warning
 * per name in `store` (NULL: none). */
int adapter_doctor_local(struct adapter_checks *c, const char *root,
			 const char *git_common_dir, const struct adapter_store_facts *store,
			 const struct adapter_text *texts, struct sw_error *err);

#endif
