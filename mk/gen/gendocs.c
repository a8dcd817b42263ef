/* Writes the generated docs from tables/: `gendocs tables` prints
 * docs/protocol-tables.md, `gendocs dot` prints docs/run-states.dot (from
 * the model checker's walk, tests/support/fsm_explore.c), `gendocs
 * capability IN [OUT]` expands a capability text template (mk/gen/gencap.c).
 * Built and run by `make docs`; `make docs-check` compares the output
 * with the committed files. */

#include <stdio.h>
#include <string.h>

#include "mk/gen/gencap.h"
#include "fsm/fsm.h"
#include "tests/support/fsm_explore.h"

static const enum fsm_status status_order[] = {
	FSM_STATUS_COMPLETED, FSM_STATUS_PARTIAL, FSM_STATUS_ERROR,
	FSM_STATUS_NEEDS_INPUT,
};

static void print_set(unsigned set, const char *const *wire, int count,
		      const char *sep)
{
	int first = 1;

	for (int i = 1; i < count; i++)
		if (set & (1u << i)) {
			printf("%s%s", first ? "" : sep, wire[i]);
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

static void print_cell(const struct fsm_legal *c)
{
	printf(" | ");
	if (c->pauses == (1u << FSM_PAUSE_NONE))
		printf("null");
	else
		print_set(c->pauses, tbl_pause_wire, FSM_PAUSE__COUNT, " / ");
	printf(" | ");
	if (c->branch == FSM_BRANCH_IMPLEMENTATION) {
		printf("result ");
		print_set(c->results, tbl_result_wire, FSM_RESULT__COUNT, "/");
	} else {
		printf("null");
	}
	printf(" | ");
	if (c->branch == FSM_BRANCH_REVIEW) {
		if (c->results & (1u << FSM_RESULT_NO_FINDINGS))
			printf("no_findings_reported (0 findings) / findings_reported (>=1)");
		else
			print_set(c->results, tbl_result_wire, FSM_RESULT__COUNT, "/");
	} else {
		printf("null");
	}
	printf(" | %s", c->max_suggestions ? "0-1 (" : "0");
	if (c->max_suggestions) {
		print_set(c->suggestion_kinds, tbl_kind_wire, FSM_KIND__COUNT, "/");
		printf(")");
	}
	printf(" |\n");
}

static void matrix(void)
{
	printf("## Legal Outcomes\n\n"
	       "One row per Action kind and group of statuses with the same rule. "
	       "A status not listed for a kind is never valid. `pause.supersedes_answer_action_id` "
	       "is allowed only with `decision_required`, and `pause.destructive_request` is "
	       "non-null exactly when the reason is `destructive_confirmation_required`.\n\n"
	       "| kind | status | pause | implementation | review | suggestions |\n"
	       "| --- | --- | --- | --- | --- | --- |\n");
	for (int k = 1; k < FSM_KIND__COUNT; k++) {
		int done[4] = { 0 };

		for (int i = 0; i < 4; i++) {
			const struct fsm_legal *c = &tbl_legal[k][status_order[i]];

			if (done[i] || !c->legal)
				continue;
			printf("| %s | ", tbl_kind_wire[k]);
			for (int j = i, first = 1; j < 4; j++)
				if (!done[j] && same_cell(c, &tbl_legal[k][status_order[j]])) {
					printf("%s%s", first ? "" : "/",
					       tbl_status_wire[status_order[j]]);
					done[j] = 1;
					first = 0;
				}
			print_cell(c);
		}
	}
}

static void print_facts(uint64_t f)
{
	int first = 1;

	for (int i = 0; i < FSM_FACT__COUNT; i++)
		if (f & (UINT64_C(1) << i)) {
			printf("%s%s", first ? "" : " ", tbl_fact_name[i]);
			first = 0;
		}
	if (first)
		printf("-");
}

static void print_states(unsigned set)
{
	int first = 1;

	if (set == FSM_IN_ANY) {
		printf("any");
		return;
	}
	for (int s = 1; s < FSM_ST__COUNT; s++)
		if (set & (1u << s)) {
			printf("%s%s", first ? "" : ", ", tbl_state_name[s]);
			first = 0;
		}
}

static void print_events(unsigned set)
{
	int first = 1;

	if (set == FSM_ON_ANY) {
		printf("any");
		return;
	}
	for (int e = FSM_EV_INVALID + 1; e < FSM_EV__COUNT; e++)
		if (set & (1u << e)) {
			printf("%s%s", first ? "" : ", ", tbl_event_name[e]);
			first = 0;
		}
}

static void print_ops(uint32_t ops)
{
	int first = 1;

	for (size_t i = 0; i < FSM_EFFECT__COUNT; i++)
		if (ops & (1u << i)) {
			printf("%s%s", first ? "" : " ", tbl_op_name[i]);
			first = 0;
		}
	if (first)
		printf("-");
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

static void rules(void)
{
	printf("\n## Routing Rules\n\n"
	       "The interpreter takes the first row whose states, event and facts match; "
	       "`need` facts must hold and `deny` facts must not. The id of a row is stable "
	       "(never renumbered when rows move, never reused) and is recorded with every "
	       "journaled decision. Issuing an Action then goes through the issue table below.\n\n"
	       "| id | from | event | need | deny | verdict | result | effects | why |\n"
	       "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < tbl_rules_len; i++) {
		const struct fsm_rule *r = &tbl_rules[i];

		printf("| %u | ", r->id);
		print_states(r->from);
		printf(" | ");
		print_events(r->on);
		printf(" | ");
		print_facts(r->need.all);
		printf(" | ");
		print_facts(r->deny.any);
		printf(" | %s | ", verdict_name(r->verdict));
		if (r->err != TBL_ERR_NONE)
			printf("`%s`", tbl_err_wire[r->err]);
		switch (r->issue) {
		case FSM_ISSUE_KIND:
			printf("issue %s", tbl_kind_wire[r->kind]);
			break;
		case FSM_ISSUE_SUGGESTED:
			printf("issue the suggested kind");
			break;
		case FSM_ISSUE_END:
			printf("end");
			break;
		case FSM_ISSUE_NONE:
			if (r->to != FSM_ST_INVALID)
				printf("%s%s", r->err != TBL_ERR_NONE ? ", " : "",
				       tbl_state_name[r->to]);
			break;
		}
		if (r->journal != TBL_JEVENT_INVALID)
			printf(", journaled as `%s`", tbl_jevent_wire[r->journal]);
		printf(" | ");
		print_ops(r->ops);
		printf(" | %s", r->why);
		if (r->detail) {
			printf(" (the message and details come from the gatherer of ");
			print_facts(r->detail);
			printf(")");
		}
		printf(" |\n");
	}
	printf("\n### Notes\n\nAn applied row with the `note` effect records an observation: the first "
	       "line for its id whose facts hold.\n\n| row | need | deny | note |\n| --- | --- | --- | --- |\n");
	for (size_t i = 0; i < tbl_note_rules_len; i++) {
		const struct fsm_note_rule *n = &tbl_note_rules[i];

		printf("| %u | ", n->row);
		print_facts(n->need.all);
		printf(" | ");
		print_facts(n->deny.any);
		printf(" | `%s` |\n", n->note);
	}
	printf("\n### Issuing an Action\n\n| # | need | deny | state | issued | why |\n"
	       "| --- | --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < tbl_issue_rules_len; i++) {
		const struct fsm_issue_rule *r = &tbl_issue_rules[i];

		printf("| %zu | ", i);
		print_facts(r->need.all);
		printf(" | ");
		print_facts(r->deny.any);
		printf(" | %s | %s | %s |\n", tbl_state_name[r->to],
		       r->issues ? "yes" : "no", r->why);
	}
}

static void states(void)
{
	printf("\n## Run States\n\n| state | `state` | `pause_reason` |\n| --- | --- | --- |\n");
	for (int s = 1; s < FSM_ST__COUNT; s++)
		printf("| %s | %s | %s |\n", tbl_state_name[s],
		       tbl_runstate_wire[tbl_state_runstate[s]][0]
			       ? tbl_runstate_wire[tbl_state_runstate[s]] : "-",
		       tbl_pause_wire[tbl_state_pause[s]][0]
			       ? tbl_pause_wire[tbl_state_pause[s]] : "-");
	printf("\n## Pause Reasons\n\n| reason | a host may send it | `protocol answer` accepted |\n"
	       "| --- | --- | --- |\n");
	for (int p = 1; p < FSM_PAUSE__COUNT; p++)
		printf("| `%s` | %s | %s |\n", tbl_pause_wire[p],
		       tbl_pause_host_may_send[p] ? "yes" : "no",
		       tbl_pause_answerable[p] ? "yes" : "no");
}

static void nexts(void)
{
	printf("\n## Next Operations\n\nThe first matching row gives `next.operation` and its variants, in order.\n\n"
	       "| # | from | need | deny | operation | variants | why |\n"
	       "| --- | --- | --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < tbl_next_rules_len; i++) {
		const struct fsm_next_rule *r = &tbl_next_rules[i];

		printf("| %zu | ", i);
		print_states(r->from);
		printf(" | ");
		print_facts(r->need.all);
		printf(" | ");
		print_facts(r->deny.any);
		printf(" | `%s` | ", tbl_nextop_wire[r->op]);
		for (int v = 0; v < 4 && r->variants[v] != TBL_VARIANT_INVALID; v++)
			printf("%s`%s`", v ? ", " : "", tbl_variant_wire[r->variants[v]]);
		printf(" | %s |\n", r->why);
	}
	printf("\n### Variants\n\n| variant | operation |\n| --- | --- |\n");
	for (int v = 1; v < TBL_VARIANT__COUNT; v++)
		printf("| `%s` | `%s` |\n", tbl_variant_wire[v],
		       tbl_nextop_wire[tbl_variant_op[v]]);
}

static void errors(void)
{
	printf("\n## Exit Statuses\n\n| status | meaning |\n| --- | --- |\n");
	for (size_t i = 0; i < tbl_exit_statuses_len; i++)
		printf("| %d | %s |\n", tbl_exit_statuses[i].status, tbl_exit_statuses[i].meaning);
	printf("\n## Error Codes\n\n| code | exit | next | details |\n| --- | --- | --- | --- |\n");
	for (int e = 1; e < TBL_ERR__COUNT; e++)
		printf("| `%s` | %d | %s | %s |\n", tbl_err_wire[e], tbl_err_exit[e],
		       tbl_recovery_doc[tbl_err_recovery[e]],
		       tbl_details_doc[tbl_err_details[e]]);
	printf("\n## Journal Event Types\n\n| type | resume operation |\n| --- | --- |\n");
	for (int j = 1; j < TBL_JEVENT__COUNT; j++)
		printf("| `%s` | %s%s%s |\n", tbl_jevent_wire[j], tbl_jevent_resume_op[j] ? "`" : "",
		       tbl_jevent_resume_op[j] ? tbl_jevent_resume_op[j] : "-",
		       tbl_jevent_resume_op[j] ? "`" : "");
}

/* The facts and effects the rows read and name, from their .def files. */
static void facts_and_effects(void)
{
	static const struct {
		const char *name, *group, *doc;
	} facts[] = {
#define FACT(id, group, name, doc) { name, #group, doc },
#include "tables/facts.def"
#undef FACT
	};
	static const struct {
		const char *name, *phase, *doc;
	} effects[] = {
#define EFFECT(id, name, phase, doc) { name, #phase, doc },
#include "tables/effects.def"
#undef EFFECT
	};

	printf("\n## Facts\n\nINPUT facts come from the service's gatherers with the event; GIT "
	       "facts too, but only when the rows that can still match read them (`fsm_wants`); "
	       "RUN facts are derived from the Run and the Outcome.\n\n"
	       "| fact | group | meaning |\n| --- | --- | --- |\n");
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		printf("| %s | %s | %s |\n", facts[i].name, facts[i].group, facts[i].doc);
	printf("\n## Effects\n\nEach effect has one handler in `io/store/run.c`; BEFORE handlers run "
	       "before the machine's verdict is written to the record, AFTER ones once it is.\n\n"
	       "| effect | phase | what it does |\n| --- | --- | --- |\n");
	for (size_t i = 0; i < sizeof(effects) / sizeof(effects[0]); i++)
		printf("| %s | %s | %s |\n", effects[i].name, effects[i].phase, effects[i].doc);
}

/* The state diagram, from the model checker's walk: an edge for each pair
 * of states some reachable run moves between, labelled with the events
 * that do it; the paused states drawn as one group. */
struct edges {
	unsigned events[FSM_ST__COUNT][FSM_ST__COUNT];	/* bit per event */
};

static void add_edge(const struct fsm_run *before, const struct fsm_input *in,
		     const struct fsm_step *st, size_t depth, void *payload)
{
	struct edges *e = payload;

	(void)depth;
	if (st->verdict == FSM_APPLY || st->verdict == FSM_APPLY_ERROR)
		e->events[before->state][st->run.state] |= 1u << in->event;
}

static void print_edge(const char *from, const char *to, unsigned events,
		       const char *extra)
{
	int first = 1;

	printf("\t\"%s\" -> \"%s\" [label=\"", from, to);
	for (int ev = 1; ev < FSM_EV__COUNT; ev++)
		if (events & (1u << ev)) {
			printf("%s%s", first ? "" : "\\n", tbl_event_name[ev]);
			first = 0;
		}
	printf("\"%s];\n", extra);
}

static int is_paused(int s)
{
	return tbl_state_runstate[s] == FSM_RUN_PAUSED;
}

static int dot(void)
{
	static struct edges e;
	struct fsm_explore_stats x;

	if (fsm_explore(&x, add_edge, &e) < 0) {
		fprintf(stderr, "gendocs: the model checker's walk failed\n");
		return -1;
	}
	printf("// generated by `make docs` from the model checker's walk over tables/\n"
	       "// (tests/support/fsm_explore.c: %zu reachable run states); do not edit\n"
	       "digraph run_states {\n\trankdir=LR;\n\tnewrank=true;\n\tcompound=true;\n"
	       "\tnode [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
	       "\tedge [fontname=\"Helvetica\", fontsize=10];\n", x.states);
	printf("\tsubgraph cluster_paused {\n\t\tlabel=\"paused\";\n\t\tstyle=dashed;\n");
	for (int s = 1; s < FSM_ST__COUNT; s++)
		if (is_paused(s))
			printf("\t\t\"%s\";\n", tbl_state_name[s]);
	printf("\t}\n");
	for (int s = 1; s < FSM_ST__COUNT; s++)
		if (!is_paused(s))
			printf("\t\"%s\"%s;\n", tbl_state_name[s],
			       s == FSM_ST_NEW ? " [shape=circle]" :
			       s == FSM_ST_ENDED ? " [peripheries=2]" : "");
	printf("\t{ rank=source; \"%s\"; }\n\t{ rank=sink; \"%s\"; \"%s\"; }\n",
	       tbl_state_name[FSM_ST_NEW], tbl_state_name[FSM_ST_STOPPED],
	       tbl_state_name[FSM_ST_ENDED]);
	/* Events that take every paused state to the same state outside the
	 * group are drawn once, from the group's border. */
	for (int t = 1; t < FSM_ST__COUNT; t++) {
		unsigned common = ~0u;
		int any = FSM_ST_INVALID;

		if (is_paused(t))
			continue;
		for (int s = 1; s < FSM_ST__COUNT; s++)
			if (is_paused(s)) {
				common &= e.events[s][t];
				any = s;
			}
		if (common == 0 || any == FSM_ST_INVALID)
			continue;
		for (int s = 1; s < FSM_ST__COUNT; s++)
			if (is_paused(s))
				e.events[s][t] &= ~common;
		print_edge(tbl_state_name[any], tbl_state_name[t], common,
			   ", ltail=cluster_paused");
	}
	for (int s = 1; s < FSM_ST__COUNT; s++)
		for (int t = 1; t < FSM_ST__COUNT; t++)
			if (e.events[s][t])
				print_edge(tbl_state_name[s], tbl_state_name[t], e.events[s][t], "");
	printf("}\n");
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "capability") == 0)
		return gencap_expand(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 2 && strcmp(argv[1], "dot") == 0) {
		if (dot() < 0)
			return 1;
	} else if (argc == 2 && strcmp(argv[1], "tables") == 0) {
		printf("<!-- generated by `make docs` from tables/; do not edit -->\n"
		       "# Protocol Tables\n\n"
		       "Everything on this page is printed from the tables the binary runs "
		       "(`tables/*.def`, `tables/matrix.c`, `tables/rules.c`).\n\n");
		matrix();
		states();
		rules();
		facts_and_effects();
		nexts();
		errors();
	} else {
		fprintf(stderr, "usage: gendocs tables|dot|capability IN [OUT]\n");
		return 2;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
