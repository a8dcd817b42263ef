#ifndef IO_ADAPTERS_ADAPTER_MCP_H
#define IO_ADAPTERS_ADAPTER_MCP_H

/* Registration of `slipway mcp` in a host's project-level MCP
 * configurations, the ones its documentation names (the `mcp` column of
 * the hosts table in io/adapters/adapter.c, with each file's format,
 * servers key and entry shape, and the sources):
 *
 *   claude    .mcp.json                 mcpServers  {"type": "stdio", "command": "slipway", "args": ["mcp"]}
 *   codex     .codex/config.toml        [mcp_servers.slipway] command = "slipway", args = ["mcp"]
 *   copilot   .vscode/mcp.json (JSONC)  servers     stdio, args ["mcp", "--root", "${workspaceFolder}"]
 *             .github/mcp.json          mcpServers  stdio (the Copilot CLI)
 *   cursor    .cursor/mcp.json          mcpServers  args ["mcp", "--root", "${workspaceFolder}"]
 *   kilo      .kilo/kilo.jsonc          mcp         {"type": "local", "command": ["slipway", "mcp"]}
 *   kiro      .kiro/settings/mcp.json   mcpServers  {"command": "slipway", "args": ["mcp"]}
 *   opencode  opencode.json (JSONC)     mcp         {"type": "local", "command": ["slipway", "mcp"]}
 *   qwen      .qwen/settings.json       mcpServers  {"command": "slipway", "args": ["mcp"]}
 *
 * (kilo and opencode edit the project file the host reads already when
 * there is one.)  No entry holds a path of this machine: each host starts
 * its stdio servers in the project, where `slipway mcp` finds the Git
 * worktree on its own, or is given the variable the host documents.
 * Pi has no MCP client and Windsurf reads only a user-level file.
 *
 * Each file is shared with the user: slipway adds one entry named
 * "slipway" and claims only that entry, in its own record
 * `<ownership root>/slipway/<record>` (version 1: the host, the file, the
 * entry's sha256 and whether slipway created the file).  The user's other
 * entries, keys, comments and number spellings are kept byte for byte
 * (io/util/json_edit.h, io/util/toml_edit.h).  A file that cannot be read
 * exactly, an entry "slipway" that is not ours, or a record slipway did
 * not write is kept and reported, never rewritten.  An entry of ours that
 * an earlier slipway wrote (another shape, or in a file it used before)
 * is rewritten or moved by install.  Uninstall removes our entry only
 * while it is still exactly ours, and the file only when slipway created
 * it and nothing else is left in it.  Writes go through the caller's
 * transaction with guards on the bytes read. */

#include <stddef.h>

#include "io/adapters/report.h"
#include "io/adapters/adapter_txn.h"
#include "io/util/err.h"

/* The most configurations one host has. */
#define ADAPTER_MCP_MAX 2

/* The configuration files of host `host_id`, relative to the root, into
 * out[] (static strings); returns how many (0: the host documents none).
 * `records` (may be NULL) receives the record file names alike. */
size_t adapter_mcp_configs(const char *host_id, const char *out[ADAPTER_MCP_MAX],
			   const char *records[ADAPTER_MCP_MAX]);

/* Queues the registration for host `host_id` (owner: its ownership root
 * directory) into `txn` and reports written/preserved/warnings in `rep`.
 * With `only_recorded`, a configuration slipway has no record for is left
 * alone (install --refresh without --mcp brings an existing registration
 * up to date).  Hosts without a configuration get a warning unless
 * `only_recorded`.  0 or a negative code. */
int adapter_mcp_plan_install(struct adapter_report *rep, struct adapter_txn *txn,
			     const char *root, const char *host_id, const char *owner,
			     int only_recorded, struct sw_error *err);

/* Queues the removal of our registrations whose record exists, wherever
 * the record says the entry is. */
int adapter_mcp_plan_uninstall(struct adapter_report *rep, struct adapter_txn *txn,
			       const char *root, const char *host_id, const char *owner,
			       struct sw_error *err);

/* The registration state for list and doctor. */
enum adapter_mcp_state {
	ADAPTER_MCP_NONE = 0,		/* no record */
	ADAPTER_MCP_REGISTERED,		/* our entry is in the configuration */
	ADAPTER_MCP_OUTDATED,		/* ours, as an earlier slipway wrote it: install --refresh rewrites it */
	ADAPTER_MCP_CHANGED		/* the record exists, the entry is not ours any more */
};

struct adapter_mcp_status {
	enum adapter_mcp_state state;
	const char *config;		/* static: the file the record names, or the host's */
};

/* Fills out[0..*n) with one status per configuration of the host. */
int adapter_mcp_inspect(struct adapter_mcp_status out[ADAPTER_MCP_MAX], size_t *n,
			const char *root, const char *host_id, const char *owner,
			struct sw_error *err);

#endif
