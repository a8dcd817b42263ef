#ifndef IO_ADAPTERS_ADAPTER_MCP_H
#define IO_ADAPTERS_ADAPTER_MCP_H

/* Registration of `slipway mcp` in a host's project-level MCP
 * configuration, for the hosts whose documentation names one:
 *
 *   claude   .mcp.json                "mcpServers"  Claude Code, project scope
 *                                                      (code.claude.com/docs/en/mcp)
 *   copilot  .vscode/mcp.json         "servers"     VS Code, workspace configuration
 *                                                      (code.visualstudio.com MCP configuration reference)
 *   cursor   .cursor/mcp.json         "mcpServers"  Cursor, project configuration
 *                                                      (cursor.com/docs/mcp)
 *   kilo     .kilocode/mcp.json       "mcpServers"  Kilo Code, project-level configuration
 *                                                      (kilo.ai/docs, using MCP in Kilo Code)
 *   kiro     .kiro/settings/mcp.json  "mcpServers"  Kiro IDE and CLI, workspace configuration
 *                                                      (kiro.dev/docs/mcp/configuration)
 *
 * Left out: Windsurf documents only a user-level file
 * (~/.codeium/windsurf/mcp_config.json); Codex's project file is TOML
 * (.codex/config.toml, trusted projects only), which slipway does not edit
 * while keeping the user's content; Qwen Code's current project file is
 * Claude Code's .mcp.json (one entry cannot belong to two hosts); opencode
 * and Pi are not registered (no project MCP file of this shape was
 * confirmed for them).
 *
 * The configuration file is shared with the user: slipway adds one entry
 * named "slipway" ({"command": "slipway", "args": ["mcp", "--root", ROOT]})
 * and claims only that entry, in its own ownership record
 * `<ownership root>/slipway/mcp-server.json` (the entry's sha256, and
 * whether slipway created the file).  Every other entry and key is kept.
 * An existing entry named "slipway" that is not ours, or a configuration
 * that is not a JSON object, is preserved and reported, never rewritten.
 * Uninstall removes our entry only while it is still exactly ours, and the
 * file only when slipway created it and nothing else is left in it.
 * Writes go through the caller's transaction with guards on the bytes read,
 * so a file changed meanwhile stops the whole install. */

#include "io/adapters/report.h"
#include "io/adapters/adapter_txn.h"
#include "io/util/err.h"

/* The name of slipway's record of its entry, beside the host's ownership
 * manifest: `<ownership root>/slipway/mcp-server.json`. */
#define ADAPTER_MCP_RECORD "mcp-server.json"

/* The configuration file of host `host_id` relative to the root, or NULL
 * when the host documents no project-level MCP configuration. */
const char *adapter_mcp_config(const char *host_id);

/* Queues the registration for host `host_id` (owner: its ownership root
 * directory) into `txn` and reports written/preserved/warnings in `rep`.
 * Hosts without a configuration get a warning.  0 or a negative code. */
int adapter_mcp_plan_install(struct adapter_report *rep, struct adapter_txn *txn,
			     const char *root, const char *host_id, const char *owner,
			     struct sw_error *err);

/* Queues the removal of our registration when the record exists. */
int adapter_mcp_plan_uninstall(struct adapter_report *rep, struct adapter_txn *txn,
			       const char *root, const char *host_id, const char *owner,
			       struct sw_error *err);

/* The registration state for list and doctor. */
enum adapter_mcp_state {
	ADAPTER_MCP_NONE = 0,		/* no record */
	ADAPTER_MCP_REGISTERED,		/* our entry is in the configuration */
	ADAPTER_MCP_CHANGED		/* the record exists, the entry is not ours any more */
};

int adapter_mcp_inspect(enum adapter_mcp_state *out, const char *root, const char *host_id,
			const char *owner, struct sw_error *err);


#endif
