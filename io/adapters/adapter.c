/* The hosts table and what the adapter's operations share: the capability
 * and reference lists, the table of the ten hosts (their differences are
 * its columns: where each reads its capabilities and its project MCP
 * servers, and the documentation and host version each row was checked
 * against), and the report and transaction steps install and uninstall
 * both end with.  Never generates, reads or writes a host's files itself. */
#include "io/adapters/adapter.h"
#include "io/adapters/adapter_internal.h"

#include <string.h>

const char *const adapter_capabilities[ADAPTER_NCAPS] = {
	"slipway-run", "slipway-clarify", "slipway-propose", "slipway-decompose",
	"slipway-implement", "slipway-review", "slipway-workflow"
};

/* Bits of adapter_capabilities, in its order. */
enum {
	CAP_RUN = 1u << 0, CAP_CLARIFY = 1u << 1, CAP_PROPOSE = 1u << 2, CAP_DECOMPOSE = 1u << 3,
	CAP_IMPLEMENT = 1u << 4, CAP_REVIEW = 1u << 5, CAP_WORKFLOW = 1u << 6,
	CAP_ALL = (1u << ADAPTER_NCAPS) - 1
};

/*	  reference                  named by */
const struct adapter_reference adapter_references[] = {
	{ "ground-rules.md",       CAP_ALL },
	{ "outcome-examples.md",   CAP_RUN },
	{ "next-variants.md",      CAP_RUN },
	{ "recovery.md",           CAP_RUN },
	{ "destructive.md",        CAP_RUN | CAP_IMPLEMENT },
	{ "source-envelope.md",    CAP_RUN },
	{ "manifest-ids.graphql",  CAP_RUN },	/* the envelope procedure's queries and filters, */
	{ "manifest-ids.jq",       CAP_RUN },	/* which it passes to gh as files */
	{ "envelope.graphql",      CAP_RUN },
	{ "envelope.jq",           CAP_RUN },
	{ "decision-interview.md", CAP_CLARIFY },
	{ "change-issue.md",       CAP_PROPOSE | CAP_DECOMPOSE },
	{ "publishing.md",         CAP_PROPOSE | CAP_DECOMPOSE },
	{ NULL, 0 }
};

const struct adapter_reference *adapter_reference_find(const char *name)
{
	for (const struct adapter_reference *r = adapter_references; r->name; r++)
		if (strcmp(r->name, name) == 0)
			return r;
	return NULL;
}

/* The project MCP configurations each host reads (struct mcp_reg). */
#define NO_LEGACY { NULL, MCP_FORMAT_NONE, NULL }
/*	  configuration              also read, edited instead when one exists                  format     servers       entry                record                 moved from (an earlier slipway's)                     read instead when it exists */
static const struct mcp_reg claude_mcp[] = {
	{ ".mcp.json",               { NULL },                                                  MCP_JSON,  "mcpServers", MCP_TYPED,           "mcp-server.json",     NO_LEGACY,                                            NULL },
	{ NULL } };
static const struct mcp_reg codex_mcp[] = {
	{ ".codex/config.toml",      { NULL },                                                  MCP_TOML,  "mcp_servers", MCP_TOML_TABLE,     "mcp-server.json",     NO_LEGACY,                                            NULL },
	{ NULL } };
static const struct mcp_reg copilot_mcp[] = {
	{ ".vscode/mcp.json",        { NULL },                                                  MCP_JSONC, "servers",    MCP_TYPED_WORKSPACE, "mcp-server.json",     NO_LEGACY,                                            NULL },
	{ ".github/mcp.json",        { NULL },                                                  MCP_JSON,  "mcpServers", MCP_TYPED,           "mcp-server-cli.json", NO_LEGACY,                                            ".mcp.json" },
	{ NULL } };
static const struct mcp_reg cursor_mcp[] = {
	{ ".cursor/mcp.json",        { NULL },                                                  MCP_JSON,  "mcpServers", MCP_PLAIN_WORKSPACE, "mcp-server.json",     NO_LEGACY,                                            NULL },
	{ NULL } };
static const struct mcp_reg kilo_mcp[] = {
	{ ".kilo/kilo.jsonc",        { "kilo.jsonc", "kilo.json", ".kilo/kilo.json" },          MCP_JSONC, "mcp",        MCP_LOCAL,           "mcp-server.json",     { ".kilocode/mcp.json", MCP_JSON, "mcpServers" },    NULL },
	{ NULL } };
static const struct mcp_reg kiro_mcp[] = {
	{ ".kiro/settings/mcp.json", { NULL },                                                  MCP_JSON,  "mcpServers", MCP_PLAIN,           "mcp-server.json",     NO_LEGACY,                                            NULL },
	{ NULL } };
static const struct mcp_reg opencode_mcp[] = {
	{ "opencode.json",           { "opencode.jsonc", ".opencode/opencode.jsonc", ".opencode/opencode.json" }, MCP_JSONC, "mcp", MCP_LOCAL, "mcp-server.json",     NO_LEGACY,                                            NULL },
	{ NULL } };
static const struct mcp_reg qwen_mcp[] = {
	{ ".qwen/settings.json",     { NULL },                                                  MCP_JSONC, "mcpServers", MCP_PLAIN,           "mcp-server.json",     NO_LEGACY,                                            NULL },
	{ NULL } };

/* Where each row comes from (struct host_source): the host's program and
 * the version its paths were checked on, its documentation, and the
 * decisions taken against the documentation.  The programs pinned in
 * tests/hosts/package.json are checked by `make host-check`;
 * "documentation" marks a host with no program to run. */
static const struct host_source claude_src = { "Claude Code", "2.1.332",
	{ "https://code.claude.com/docs/en/skills", "https://code.claude.com/docs/en/mcp" }, NULL };
static const struct host_source codex_src = { "Codex CLI", "0.171.0",
	{ "https://developers.openai.com/codex/skills", "https://developers.openai.com/codex/mcp",
	  "https://developers.openai.com/codex/config-reference" },
	"Skills stay in .codex/skills, which Codex 0.171.0 reads (`codex debug prompt-input` lists it as a skill root) "
	"although its skills page names only .agents/skills. OpenCode, Kilo and the Copilot CLI read .agents/skills too, "
	"and Pi and Qwen Code document it; the first three keep one skill of a name, so Codex's copy, whose invocation "
	"policy only Codex reads, would stand in for their own, and Codex lists a skill found in both folders twice. "
	"`make host-check` fails on a Codex that stops reading .codex/skills." };
static const struct host_source copilot_src = { "Copilot CLI", "1.0.102",
	{ "https://code.visualstudio.com/docs/copilot/customization/custom-agents",
	  "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
	  "https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers" },
	"The references sit in .github/copilot/slipway/references/, out of .github/agents/, where VS Code reads every "
	".md file as an agent (microsoft/vscode#277597). The Copilot CLI reads .github/mcp.json only while the "
	"repository has no .mcp.json (`copilot mcp list`)." };
static const struct host_source cursor_src = { "Cursor", "documentation",
	{ "https://cursor.com/docs/context/skills", "https://cursor.com/docs/context/mcp" }, NULL };
static const struct host_source kilo_src = { "Kilo CLI", "7.7.7",
	{ "https://kilo.ai/docs/cli", "https://kilo.ai/docs/automate/mcp/using-in-kilo-code" },
	"Commands hold their text: Kilo documents no @file include. The MCP entry moved from .kilocode/mcp.json, "
	"which Kilo lists as legacy, to .kilo/kilo.jsonc, or to kilo.jsonc or kilo.json when the project has one." };
static const struct host_source kiro_src = { "Kiro", "documentation",
	{ "https://kiro.dev/docs/steering/", "https://kiro.dev/docs/cli/custom-agents/configuration-reference",
	  "https://kiro.dev/docs/mcp/configuration" },
	"CLI agents set includeMcpJson: without it an agent does not see .kiro/settings/mcp.json." };
static const struct host_source opencode_src = { "OpenCode", "1.18.33",
	{ "https://opencode.ai/docs/commands/", "https://opencode.ai/docs/mcp-servers/", "https://opencode.ai/docs/config/" },
	NULL };
static const struct host_source pi_src = { "Pi", "0.73.1",
	{ "https://github.com/badlogic/pi-mono/tree/main/packages/coding-agent" },
	"Pi has no MCP client, so nothing is registered for it." };
static const struct host_source qwen_src = { "Qwen Code", "0.24.4",
	{ "https://qwenlm.github.io/qwen-code-docs/en/users/features/mcp/",
	  "https://qwenlm.github.io/qwen-code-docs/1.x/en/users/mcp/" },
	"Qwen Code also reads the project .mcp.json, which its 1.x documentation makes the project file; a server of "
	"the same name in both is listed once (`qwen mcp list`)." };
static const struct host_source windsurf_src = { "Windsurf", "documentation",
	{ "https://docs.windsurf.com/windsurf/cascade/workflows", "https://docs.windsurf.com/windsurf/cascade/mcp" },
	"Workflows hold their text, as Windsurf documents no @file include, up to its limit of 12000 characters; a "
	"longer one says which file to read. Windsurf reads MCP servers from the user's configuration only." };

/*	  id          skills dir          surface        ownership root     detect paths                                                                 surface choice   invocation policy    MCP configurations  source */
const struct host adapter__hosts[ADAPTER_NHOSTS] = {
	{ "claude",   ".claude/skills",   SURF_SKILL,    ".claude",         { ".claude" },                                                               FIXED_SURFACE,   NO_POLICY_FILE,      claude_mcp,         &claude_src },
	{ "codex",    ".codex/skills",    SURF_SKILL,    ".codex",          { ".codex" },                                                                FIXED_SURFACE,   OPENAI_AGENT_POLICY, codex_mcp,          &codex_src },
	{ "copilot",  ".github/agents",   SURF_COPILOT,  ".github/copilot", { ".github/agents", ".github/copilot", ".github/prompts", ".github/skills" }, FIXED_SURFACE, NO_POLICY_FILE,    copilot_mcp,        &copilot_src },
	{ "cursor",   ".cursor/skills",   SURF_SKILL,    ".cursor",         { ".cursor" },                                                               FIXED_SURFACE,   NO_POLICY_FILE,      cursor_mcp,         &cursor_src },
	{ "kilo",     ".kilocode/skills", SURF_KILO,     ".kilocode",       { ".kilo", ".kilocode" },                                                    FIXED_SURFACE,   NO_POLICY_FILE,      kilo_mcp,           &kilo_src },
	{ "kiro",     ".kiro/skills",     SURF_NONE,     ".kiro",           { ".kiro" },                                                                 CHOSEN_SURFACE,  NO_POLICY_FILE,      kiro_mcp,           &kiro_src },
	{ "opencode", ".opencode/skills", SURF_OPENCODE, ".opencode",       { ".opencode" },                                                             FIXED_SURFACE,   NO_POLICY_FILE,      opencode_mcp,       &opencode_src },
	{ "pi",       ".pi/skills",       SURF_SKILL,    ".pi",             { ".pi" },                                                                   FIXED_SURFACE,   NO_POLICY_FILE,      NULL,               &pi_src },
	{ "qwen",     ".qwen/skills",     SURF_SKILL,    ".qwen",           { ".qwen" },                                                                 FIXED_SURFACE,   NO_POLICY_FILE,      qwen_mcp,           &qwen_src },
	{ "windsurf", ".windsurf/skills", SURF_WINDSURF, ".windsurf",       { ".windsurf" },                                                             FIXED_SURFACE,   NO_POLICY_FILE,      NULL,               &windsurf_src },
};

/* ---- what install and uninstall share: the report, the transaction ---- */

void adapter__report_normalize(struct adapter_report *r)
{
	if (r->outcome != ADAPTER_TXN_COMMITTED) {
		adapter_strs_release(&r->written);
		adapter_strs_release(&r->removed);
	}
	adapter_strs_normalize(&r->hosts);
	adapter_strs_normalize(&r->written);
	adapter_strs_normalize(&r->removed);
	adapter_strs_normalize(&r->preserved);
	adapter_strs_normalize(&r->recovery);
	adapter_strs_normalize(&r->warnings);
}

int adapter__run_txn(struct adapter_report *rep, struct adapter_txn *txn,
		     const char *root, struct sw_error *err)
{
	char *warning = NULL;
	const char *arts[64];
	int rc = adapter_txn_apply(txn, &rep->outcome, &warning, err);

	if (warning)
		(void)adapter_strs_addf_own(&rep->warnings, warning, NULL);
	if (rc < 0 && rep->outcome == ADAPTER_TXN_AMBIGUOUS) {
		size_t n = adapter_txn_artifacts(txn, arts, 64), rootlen = strlen(root);

		for (size_t i = 0; i < n && i < 64; i++)
			(void)adapter_strs_add(&rep->recovery,
				       strncmp(arts[i], root, rootlen) == 0 && arts[i][rootlen] == '/'
				       ? arts[i] + rootlen + 1 : arts[i], NULL);
		if (n > 0)
			(void)adapter_strs_add(&rep->warnings,
				       "the transaction could not be fully undone; the recovery artifacts hold the previous file contents", NULL);
	}
	return rc;
}
