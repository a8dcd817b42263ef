/* The legal-outcome matrix, checked exhaustively against an oracle built
 * from our own expectations (tests/data/legal-outcomes.txt), written out
 * independently of tables/matrix.c. */

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsm/fsm.h"

/* One row of the expected table, as sets. */
struct ref_row {
	enum fsm_kind kind;
	unsigned statuses, pauses, impl_results, review_results;
	int impl_required, review_required, max_suggestions;
};

static struct ref_row ref[32];
static size_t nref;

static unsigned words_in(const char *cell, const char *const *wire, int count)
{
	unsigned set = 0;

	for (int i = 1; i < count; i++) {
		const char *p = cell;
		size_t n = strlen(wire[i]);

		while ((p = strstr(p, wire[i])) != NULL) {
			int left = p == cell || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z'));
			int right = !(p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z'));

			if (left && right)
				set |= 1u << i;
			p += n;
		}
	}
	return set;
}

/* The wire spellings of a comma-separated list; every item must be one. */
static unsigned list_in(const char *cell, const char *const *wire, int count)
{
	char buf[256], *save = NULL;
	unsigned set = 0;

	snprintf(buf, sizeof(buf), "%s", cell);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 1; i < count && strcmp(wire[i], w) != 0; i++)
			;
		cr_assert_lt(i, count, "'%s' is not a wire spelling", w);
		set |= 1u << i;
	}
	return set;
}

static void trim(char *s)
{
	char *e = s + strlen(s);

	while (e > s && (e[-1] == ' ' || e[-1] == '|' || e[-1] == '\n'))
		*--e = '\0';
}

/* Reads the first Markdown table after the heading line starting with
 * `heading` in `path` (the generated docs) into rows[]. */
static size_t load_table(struct ref_row *rows, const char *path,
			 const char *heading)
{
	char line[1024];
	int in_section = 0;
	size_t nrows = 0;
	FILE *f;

	f = fopen(path, "r");
	cr_assert_not_null(f, "%s is required", path);
	while (fgets(line, sizeof(line), f)) {
		char *cells[8];
		int n = 0;

		if (strncmp(line, heading, strlen(heading)) == 0) {
			in_section = 1;
			continue;
		}
		if (in_section && line[0] == '#')
			break;
		if (!in_section || line[0] != '|' || strstr(line, "---") ||
		    strstr(line, "| `action_kind` |"))
			continue;
		for (char *p = line + 1, *save = NULL, *tok;
		     n < 8 && (tok = strtok_r(p, "|", &save)) != NULL; p = NULL) {
			while (*tok == ' ')
				tok++;
			trim(tok);
			cells[n++] = tok;
		}
		if (n < 6)
			continue;
		struct ref_row *r = &rows[nrows++];

		memset(r, 0, sizeof(*r));
		r->kind = tbl_kind_lookup(cells[0]);
		r->statuses = words_in(cells[1], tbl_status_wire, FSM_STATUS__COUNT);
		if (strcmp(cells[2], "null") == 0)
			r->pauses = 1u << FSM_PAUSE_NONE;
		else if (strstr(cells[2], "any of the 3 host reasons"))
			r->pauses = (1u << FSM_PAUSE_DECISION_REQUIRED) |
				    (1u << FSM_PAUSE_ENVIRONMENT) |
				    (1u << FSM_PAUSE_DESTRUCTIVE);
		else
			r->pauses = words_in(cells[2], tbl_pause_wire, FSM_PAUSE__COUNT);
		r->impl_required = strcmp(cells[3], "null") != 0;
		r->impl_results = words_in(cells[3], tbl_result_wire, FSM_RESULT__COUNT);
		r->review_required = strcmp(cells[4], "null") != 0;
		r->review_results = words_in(cells[4], tbl_result_wire, FSM_RESULT__COUNT);
		r->max_suggestions = strstr(cells[5], "1") ? 1 : 0;
		cr_assert(r->kind != FSM_KIND_NONE && r->statuses != 0,
			  "unreadable row '%s' in %s", cells[0], path);
	}
	fclose(f);
	return nrows;
}

/* tests/data/legal-outcomes.txt: six whitespace-separated columns. */
static void load_reference(void)
{
	const char *root = getenv("SLIPWAY_TEST_ROOT");
	char path[4096], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/data/legal-outcomes.txt", root ? root : ".");
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s is required", path);
	nref = 0;
	while (fgets(line, sizeof(line), f)) {
		char kind[32], st[128], pa[256], im[128], rv[128];
		int sugg;
		struct ref_row *r;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		cr_assert_eq(sscanf(line, "%31s %127s %255s %127s %127s %d",
				    kind, st, pa, im, rv, &sugg), 6, "bad line: %s", line);
		cr_assert_lt(nref, sizeof(ref) / sizeof(ref[0]));
		r = &ref[nref++];
		memset(r, 0, sizeof(*r));
		r->kind = tbl_kind_lookup(kind);
		cr_assert(r->kind != FSM_KIND_NONE, "unknown kind '%s'", kind);
		r->statuses = list_in(st, tbl_status_wire, FSM_STATUS__COUNT);
		r->pauses = strcmp(pa, "-") == 0 ? 1u << FSM_PAUSE_NONE
				: list_in(pa, tbl_pause_wire, FSM_PAUSE__COUNT);
		r->impl_required = strcmp(im, "-") != 0;
		r->impl_results = r->impl_required ? list_in(im, tbl_result_wire, FSM_RESULT__COUNT) : 0;
		r->review_required = strcmp(rv, "-") != 0;
		r->review_results = r->review_required ? list_in(rv, tbl_result_wire, FSM_RESULT__COUNT) : 0;
		r->max_suggestions = sugg;
	}
	fclose(f);
}

static const struct ref_row *ref_row_for(enum fsm_kind k, enum fsm_status s)
{
	for (size_t i = 0; i < nref; i++)
		if (ref[i].kind == k && (ref[i].statuses & (1u << s)))
			return &ref[i];
	return NULL;
}

/* The oracle: the expected table plus the rules stated in its header. */
static int oracle(const struct fsm_outcome_shape *o)
{
	const struct ref_row *r = ref_row_for(o->kind, o->status);
	unsigned review_ok;

	if (r == NULL)
		return 0;
	if (!(r->pauses & (1u << o->pause)))
		return 0;
	if (o->has_supersedes && o->pause != FSM_PAUSE_DECISION_REQUIRED)
		return 0;
	if ((o->pause == FSM_PAUSE_DESTRUCTIVE) != (o->has_destructive_request != 0))
		return 0;
	if (o->has_implementation != r->impl_required)
		return 0;
	if (o->has_implementation && !(r->impl_results & (1u << o->implementation)))
		return 0;
	if (o->has_review != r->review_required)
		return 0;
	review_ok = r->review_results;
	/* "hosts may never send not_run" */
	review_ok &= ~(1u << FSM_RESULT_NOT_RUN);
	if (o->has_review && !(review_ok & (1u << o->review)))
		return 0;
	if (o->has_review && o->review == FSM_RESULT_NO_FINDINGS && o->findings != 0)
		return 0;
	if (o->has_review && o->review == FSM_RESULT_FINDINGS && o->findings == 0)
		return 0;
	if ((int)o->suggestions > r->max_suggestions)
		return 0;
	if (o->suggestions > 0 &&
	    !(o->suggestion_kind == FSM_KIND_CLARIFY ||
	      o->suggestion_kind == FSM_KIND_IMPLEMENT ||
	      o->suggestion_kind == FSM_KIND_SUMMARIZE))
		return 0;
	return 1;
}

Test(fsm_matrix, expected_table_has_twelve_rows)
{
	load_reference();
	cr_assert_eq(nref, 12, "tests/data/legal-outcomes.txt has %zu rows", nref);
}

Test(fsm_matrix, accepts_exactly_the_expected_combinations)
{
	unsigned long checked = 0, legal = 0;
	struct fsm_outcome_shape o;

	load_reference();
	for (int k = 1; k < FSM_KIND__COUNT; k++)
	for (int s = 1; s < FSM_STATUS__COUNT; s++)
	for (int p = 0; p < FSM_PAUSE__COUNT; p++)
	for (int sup = 0; sup < 2; sup++)
	for (int req = 0; req < 2; req++)
	for (int impl = 0; impl < FSM_RESULT__COUNT; impl++)	/* 0 = absent */
	for (int rev = 0; rev < FSM_RESULT__COUNT; rev++)	/* 0 = absent */
	for (int fnd = 0; fnd < 2; fnd++)
	for (int ns = 0; ns < 3; ns++)
	for (int sk = 1; sk < FSM_KIND__COUNT; sk++) {
		if (impl != 0 && tbl_result_branch[impl] != FSM_BRANCH_IMPLEMENTATION)
			continue;
		if (rev != 0 && tbl_result_branch[rev] != FSM_BRANCH_REVIEW)
			continue;
		if (ns == 0 && sk > 1)
			continue;
		memset(&o, 0, sizeof(o));
		o.kind = (enum fsm_kind)k;
		o.status = (enum fsm_status)s;
		o.pause = (enum fsm_pause)p;
		o.has_supersedes = sup;
		o.has_destructive_request = req;
		o.has_implementation = impl != 0;
		o.implementation = (enum fsm_result)impl;
		o.has_review = rev != 0;
		o.review = (enum fsm_result)rev;
		o.findings = (size_t)fnd;
		o.suggestions = (size_t)ns;
		o.suggestion_kind = (enum fsm_kind)sk;

		int want = oracle(&o);
		enum fsm_violation got = fsm_outcome_check(&o);

		cr_expect_eq(got == FSM_VIOLATION_NONE, want,
			     "kind=%s status=%s pause=%s sup=%d req=%d impl=%s rev=%s findings=%d sugg=%d/%s: got %s",
			     tbl_kind_wire[k], tbl_status_wire[s], tbl_pause_wire[p], sup, req,
			     tbl_result_wire[impl], tbl_result_wire[rev], fnd, ns,
			     tbl_kind_wire[sk], tbl_violation_text[got]);
		checked++;
		legal += want;
	}
	printf("fsm_matrix: %lu Outcome shapes checked, %lu legal\n", checked, legal);
	cr_assert_gt(legal, 0);
}

Test(fsm_matrix, each_expected_row_is_a_matrix_cell)
{
	load_reference();
	for (int k = 1; k < FSM_KIND__COUNT; k++)
		for (int s = 1; s < FSM_STATUS__COUNT; s++) {
			const struct ref_row *r = ref_row_for((enum fsm_kind)k, (enum fsm_status)s);
			const struct fsm_legal *c = &tbl_legal[k][s];

			cr_expect_eq(c->legal, r != NULL, "%s/%s", tbl_kind_wire[k], tbl_status_wire[s]);
			if (r == NULL)
				continue;
			cr_expect_eq(c->pauses, r->pauses, "%s/%s pauses", tbl_kind_wire[k], tbl_status_wire[s]);
			cr_expect_eq(c->max_suggestions, (unsigned)r->max_suggestions,
				     "%s/%s suggestions", tbl_kind_wire[k], tbl_status_wire[s]);
			cr_expect_eq(c->results,
				     r->impl_required ? r->impl_results : r->review_results,
				     "%s/%s results", tbl_kind_wire[k], tbl_status_wire[s]);
		}
}

Test(fsm_matrix, generated_doc_equals_the_expected_table_cell_for_cell)
{
	const char *root = getenv("SLIPWAY_TEST_ROOT");
	struct ref_row doc[32];
	char path[4096];
	size_t ndoc;

	load_reference();
	snprintf(path, sizeof(path), "%s/docs/en/reference/protocol.md", root ? root : ".");
	ndoc = load_table(doc, path, "## Legal Outcomes");
	cr_assert_eq(ndoc, nref, "docs have %zu matrix rows, the expected table %zu", ndoc, nref);
	for (size_t i = 0; i < ndoc; i++) {
		cr_expect_eq(doc[i].kind, ref[i].kind, "row %zu kind", i);
		cr_expect_eq(doc[i].statuses, ref[i].statuses, "row %zu statuses", i);
		cr_expect_eq(doc[i].pauses, ref[i].pauses, "row %zu pause", i);
		cr_expect_eq(doc[i].impl_required, ref[i].impl_required, "row %zu implementation", i);
		cr_expect_eq(doc[i].impl_results, ref[i].impl_results, "row %zu implementation", i);
		cr_expect_eq(doc[i].review_required, ref[i].review_required, "row %zu review", i);
		cr_expect_eq(doc[i].review_results, ref[i].review_results, "row %zu review", i);
		cr_expect_eq(doc[i].max_suggestions, ref[i].max_suggestions, "row %zu suggestions", i);
	}
}

Test(fsm_matrix, kind_mismatch_is_reported_by_the_interpreter)
{
	struct fsm_run run = { .state = FSM_ST_ACTIVE, .action = FSM_KIND_ORIENT,
			       .initial_budget = 8, .remaining = 7 };
	struct fsm_input in = { .event = FSM_EV_SUBMIT, .facts = FSM_F(NAMED_CURRENT) };
	struct fsm_step st;

	in.outcome.kind = FSM_KIND_CLARIFY;
	in.outcome.status = FSM_STATUS_COMPLETED;
	st = fsm_step(&run, &in);
	cr_assert_eq(st.verdict, FSM_REJECT);
	cr_assert_eq(st.err, TBL_ERR_INVALID_OUTCOME);
	cr_assert_eq(st.violation, FSM_VIOLATION_KIND_MISMATCH);
}
