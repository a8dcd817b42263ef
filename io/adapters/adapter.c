/* The hosts table and what the adapter's operations share: the capability
 * and reference lists, the table of the ten hosts (their differences are
 * its columns), and the report and transaction steps install and uninstall
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

/*	  id          skills dir          surface        ownership root     detect paths, surface choice, invocation policy */
const struct host adapter__hosts[ADAPTER_NHOSTS] = {
	{ "claude",   ".claude/skills",   SURF_SKILL,    ".claude",         { ".claude" } },
	{ "codex",    ".codex/skills",    SURF_SKILL,    ".codex",          { ".codex" }, FIXED_SURFACE, OPENAI_AGENT_POLICY },
	{ "copilot",  ".github/agents",   SURF_COPILOT,  ".github/copilot", { ".github/agents", ".github/copilot", ".github/prompts", ".github/skills" } },
	{ "cursor",   ".cursor/skills",   SURF_SKILL,    ".cursor",         { ".cursor" } },
	{ "kilo",     ".kilocode/skills", SURF_KILO,     ".kilocode",       { ".kilo", ".kilocode" } },
	{ "kiro",     ".kiro/skills",     SURF_NONE,     ".kiro",           { ".kiro" }, CHOSEN_SURFACE },
	{ "opencode", ".opencode/skills", SURF_OPENCODE, ".opencode",       { ".opencode" } },
	{ "pi",       ".pi/skills",       SURF_SKILL,    ".pi",             { ".pi" } },
	{ "qwen",     ".qwen/skills",     SURF_SKILL,    ".qwen",           { ".qwen" } },
	{ "windsurf", ".windsurf/skills", SURF_WINDSURF, ".windsurf",       { ".windsurf" } },
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
