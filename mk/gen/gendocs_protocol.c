/* The protocol tables of docs/<lang>/reference/protocol.md, printed from
 * the tables the binary runs (the .def files of tables/, tables/matrix.c,
 * tables/rules.c).  Header words and yes/no are translated; wire names,
 * fact and effect names and the rows' `why` texts are printed as the code
 * spells them. */

#include <stdio.h>
#include <string.h>

#include "mk/gen/gencap.h"
#include "mk/gen/gendocs.h"
#include "fsm/fsm.h"

static const enum fsm_status status_order[] = {
	FSM_STATUS_COMPLETED, FSM_STATUS_PARTIAL, FSM_STATUS_ERROR,
	FSM_STATUS_NEEDS_INPUT,
};

static void print_set(FILE *out, unsigned set, const char *const *wire, int count,
		      const char *sep)
{
	int first = 1;

	for (int i = 1; i < count; i++)
		if (set & (1u << i)) {
			fprintf(out, "%s%s", first ? "" : sep, wire[i]);
			first = 0;
		}
}

static int same_cell(const struct fsm_legal *a, const struct fsm_legal *b)
{
	return a->legal == b->legal && a->branch == b->branch &&
	       a->results == b->results && a->pauses == b->pauses &&
	       a->max_suggestions == b->max_suggestions &&
	       a->suggestion_kinds == b->suggestion_kinds;
}

static void print_cell(FILE *out, const struct fsm_legal *c)
{
	fprintf(out, " | ");
	if (c->pauses == (1u << FSM_PAUSE_NONE))
		fprintf(out, "null");
	else
		print_set(out, c->pauses, tbl_pause_wire, FSM_PAUSE__COUNT, " / ");
	fprintf(out, " | ");
	if (c->branch == FSM_BRANCH_IMPLEMENTATION) {
		fprintf(out, "result ");
		print_set(out, c->results, tbl_result_wire, FSM_RESULT__COUNT, "/");
	} else {
		fprintf(out, "null");
	}
	fprintf(out, " | ");
	if (c->branch == FSM_BRANCH_REVIEW) {
		if (c->results & (1u << FSM_RESULT_NO_FINDINGS))
			fprintf(out, "no_findings_reported (0 findings) / findings_reported (>=1)");
		else
			print_set(out, c->results, tbl_result_wire, FSM_RESULT__COUNT, "/");
	} else {
		fprintf(out, "null");
	}
	fprintf(out, " | %s", c->max_suggestions ? "0-1 (" : "0");
	if (c->max_suggestions) {
		print_set(out, c->suggestion_kinds, tbl_kind_wire, FSM_KIND__COUNT, "/");
		fprintf(out, ")");
	}
	fprintf(out, " |\n");
}

/* One row per Action kind and group of statuses with the same rule. */
int gendocs_legal_outcomes(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "`action_kind`", "`status`", "`pause`", "`implementation`", "`review`",
		     "`suggested_actions`", NULL);
	for (int k = 1; k < FSM_KIND__COUNT; k++) {
		int done[4] = { 0 };

		for (int i = 0; i < 4; i++) {
			const struct fsm_legal *c = &tbl_legal[k][status_order[i]];

			if (done[i] || !c->legal)
				continue;
			fprintf(out, "| %s | ", tbl_kind_wire[k]);
			for (int j = i, first = 1; j < 4; j++)
				if (!done[j] && same_cell(c, &tbl_legal[k][status_order[j]])) {
					fprintf(out, "%s%s", first ? "" : "/",
						tbl_status_wire[status_order[j]]);
					done[j] = 1;
					first = 0;
				}
			print_cell(out, c);
		}
	}
	return 0;
}

static void print_facts(FILE *out, uint64_t f)
{
	int first = 1;

	for (int i = 0; i < FSM_FACT__COUNT; i++)
		if (f & (UINT64_C(1) << i)) {
			fprintf(out, "%s%s", first ? "" : " ", tbl_fact_name[i]);
			first = 0;
		}
	if (first)
		fprintf(out, "-");
}

static void print_states(FILE *out, unsigned set)
{
	int first = 1;

	if (set == FSM_IN_ANY) {
		fprintf(out, "%s", gendocs_tr("any"));
		return;
	}
	for (int s = 1; s < FSM_ST__COUNT; s++)
		if (set & (1u << s)) {
			fprintf(out, "%s%s", first ? "" : ", ", tbl_state_name[s]);
			first = 0;
		}
}

static void print_events(FILE *out, unsigned set)
{
	int first = 1;

	if (set == FSM_ON_ANY) {
		fprintf(out, "%s", gendocs_tr("any"));
		return;
	}
	for (int e = FSM_EV_INVALID + 1; e < FSM_EV__COUNT; e++)
		if (set & (1u << e)) {
			fprintf(out, "%s%s", first ? "" : ", ", tbl_event_name[e]);
			first = 0;
		}
}

static void print_ops(FILE *out, uint32_t ops)
{
	int first = 1;

	for (size_t i = 0; i < FSM_EFFECT__COUNT; i++)
		if (ops & (1u << i)) {
			fprintf(out, "%s%s", first ? "" : " ", tbl_op_name[i]);
			first = 0;
		}
	if (first)
		fprintf(out, "-");
}

static const char *verdict_name(enum fsm_verdict v)
{
	switch (v) {
	case FSM_REJECT:
		return "reject";
	case FSM_APPLY:
		return "apply";
	case FSM_APPLY_ERROR:
		return "apply, then error";
	case FSM_IDEMPOTENT:
		return "replay";
	}
	return "?";
}

int gendocs_routing_rules(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "id", "from", "event", "`need`", "`deny`", "verdict", "result", "effects",
		     "why", NULL);
	for (size_t i = 0; i < tbl_rules_len; i++) {
		const struct fsm_rule *r = &tbl_rules[i];

		fprintf(out, "| %u | ", r->id);
		print_states(out, r->from);
		fprintf(out, " | ");
		print_events(out, r->on);
		fprintf(out, " | ");
		print_facts(out, r->need.all);
		fprintf(out, " | ");
		print_facts(out, r->deny.any);
		fprintf(out, " | %s | ", verdict_name(r->verdict));
		if (r->err != TBL_ERR_NONE)
			fprintf(out, "`%s`", tbl_err_wire[r->err]);
		switch (r->issue) {
		case FSM_ISSUE_KIND:
			fprintf(out, "issue %s", tbl_kind_wire[r->kind]);
			break;
		case FSM_ISSUE_SUGGESTED:
			fprintf(out, "issue the suggested kind");
			break;
		case FSM_ISSUE_END:
			fprintf(out, "end");
			break;
		case FSM_ISSUE_NONE:
			if (r->to != FSM_ST_INVALID)
				fprintf(out, "%s%s", r->err != TBL_ERR_NONE ? ", " : "",
					tbl_state_name[r->to]);
			break;
		}
		if (r->journal != TBL_JEVENT_INVALID)
			fprintf(out, ", journaled as `%s`", tbl_jevent_wire[r->journal]);
		fprintf(out, " | ");
		print_ops(out, r->ops);
		fprintf(out, " | ");
		gendocs_cell(out, r->why);
		if (r->detail) {
			fprintf(out, " (the message and details come from the gatherer of ");
			print_facts(out, r->detail);
			fprintf(out, ")");
		}
		fprintf(out, " |\n");
	}
	return 0;
}

int gendocs_note_rules(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "row", "`need`", "`deny`", "note", NULL);
	for (size_t i = 0; i < tbl_note_rules_len; i++) {
		const struct fsm_note_rule *n = &tbl_note_rules[i];

		fprintf(out, "| %u | ", n->row);
		print_facts(out, n->need.all);
		fprintf(out, " | ");
		print_facts(out, n->deny.any);
		fprintf(out, " | `%s` |\n", n->note);
	}
	return 0;
}

int gendocs_issue_rules(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "#", "`need`", "`deny`", "state", "issued", "why", NULL);
	for (size_t i = 0; i < tbl_issue_rules_len; i++) {
		const struct fsm_issue_rule *r = &tbl_issue_rules[i];

		fprintf(out, "| %zu | ", i);
		print_facts(out, r->need.all);
		fprintf(out, " | ");
		print_facts(out, r->deny.any);
		fprintf(out, " | %s | %s | ", tbl_state_name[r->to], gendocs_tr(r->issues ? "yes" : "no"));
		gendocs_cell(out, r->why);
		fprintf(out, " |\n");
	}
	return 0;
}

int gendocs_run_states(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "state", "`state`", "`pause_reason`", NULL);
	for (int s = 1; s < FSM_ST__COUNT; s++)
		fprintf(out, "| %s | %s | %s |\n", tbl_state_name[s],
			tbl_runstate_wire[tbl_state_runstate[s]][0]
				? tbl_runstate_wire[tbl_state_runstate[s]] : "-",
			tbl_pause_wire[tbl_state_pause[s]][0]
				? tbl_pause_wire[tbl_state_pause[s]] : "-");
	return 0;
}

int gendocs_pause_reasons(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "reason", "a host may send it", "`protocol answer` accepted", NULL);
	for (int p = 1; p < FSM_PAUSE__COUNT; p++)
		fprintf(out, "| `%s` | %s | %s |\n", tbl_pause_wire[p],
			gendocs_tr(tbl_pause_host_may_send[p] ? "yes" : "no"),
			gendocs_tr(tbl_pause_answerable[p] ? "yes" : "no"));
	return 0;
}

int gendocs_next_rules(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "#", "from", "`need`", "`deny`", "operation", "variants", "why", NULL);
	for (size_t i = 0; i < tbl_next_rules_len; i++) {
		const struct fsm_next_rule *r = &tbl_next_rules[i];

		fprintf(out, "| %zu | ", i);
		print_states(out, r->from);
		fprintf(out, " | ");
		print_facts(out, r->need.all);
		fprintf(out, " | ");
		print_facts(out, r->deny.any);
		fprintf(out, " | `%s` | ", tbl_nextop_wire[r->op]);
		for (int v = 0; v < 4 && r->variants[v] != TBL_VARIANT_INVALID; v++)
			fprintf(out, "%s`%s`", v ? ", " : "", tbl_variant_wire[r->variants[v]]);
		fprintf(out, " | ");
		gendocs_cell(out, r->why);
		fprintf(out, " |\n");
	}
	return 0;
}

int gendocs_next_variants(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "variant", "operation", NULL);
	for (int v = 1; v < TBL_VARIANT__COUNT; v++)
		fprintf(out, "| `%s` | `%s` |\n", tbl_variant_wire[v],
			tbl_nextop_wire[tbl_variant_op[v]]);
	return 0;
}

int gendocs_journal_events(FILE *out, const char *arg)
{
	(void)arg;
	gendocs_head(out, "type", "resume operation", NULL);
	for (int j = 1; j < TBL_JEVENT__COUNT; j++) {
		const char *op = tbl_jevent_resume_op[j];

		fprintf(out, "| `%s` | %s%s%s |\n", tbl_jevent_wire[j], op ? "`" : "",
			op ? op : "-", op ? "`" : "");
	}
	return 0;
}

/* The facts and effects the rows read and name, from their .def files. */
int gendocs_facts(FILE *out, const char *arg)
{
	static const struct {
		const char *name, *group, *doc;
	} facts[] = {
#define FACT(id, group, name, doc) { name, #group, doc },
#include "tables/facts.def"
#undef FACT
	};

	(void)arg;
	gendocs_head(out, "fact", "group", "meaning", NULL);
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		fprintf(out, "| %s | %s | ", facts[i].name, facts[i].group);
		gendocs_cell(out, facts[i].doc);
		fprintf(out, " |\n");
	}
	return 0;
}

int gendocs_effects(FILE *out, const char *arg)
{
	static const struct {
		const char *name, *phase, *doc;
	} effects[] = {
#define EFFECT(id, name, phase, doc) { name, #phase, doc },
#include "tables/effects.def"
#undef EFFECT
	};

	(void)arg;
	gendocs_head(out, "effect", "phase", "what it does", NULL);
	for (size_t i = 0; i < sizeof(effects) / sizeof(effects[0]); i++) {
		fprintf(out, "| %s | %s | ", effects[i].name, effects[i].phase);
		gendocs_cell(out, effects[i].doc);
		fprintf(out, " |\n");
	}
	return 0;
}

/* An example Outcome of the capability texts (mk/gen/gencap.c), checked by
 * the Outcome decoder, marked for tests/e2e/test_docs_i18n.py, which
 * submits it to the binary. */
int gendocs_example_outcome(FILE *out, const char *arg)
{
	if (arg == NULL)
		return gendocs_fail("example-outcome needs the name of an example");
	return gencap_example_block(out, arg) < 0 ? -1 : 0;
}
