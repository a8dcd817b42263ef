/* The context text of an Action: active decisions, the latest outcome,
 * then earlier ones, filled newest first within a byte limit, and the
 * context item of one Action record (which frozen records keep).  Never
 * edits the record. */

#include <string.h>

#include <jansson.h>

#include "io/store/run_internal.h"
#include "io/util/buf.h"

struct ctx_item {
	const char *text;	/* owned (`own`) or a frozen record's */
	size_t len;
	char *own;
	int section;		/* 0 decisions, 1 recent, 2 earlier */
	const char *selected;	/* NULL: omitted */
	size_t selected_len;
};

static size_t render_context(struct sw_buf *out, struct ctx_item *items, size_t n)
{
	static const char *const heads[] = { "Decisions:\n", "Recent outcome:\n",
					     "Earlier outcomes:\n" };
	static const char *const omitted[] = { "decisions", "recent outcomes",
					       "earlier outcomes" };

	out->len = 0;
	if (out->p)
		out->p[0] = '\0';
	for (int s = 0; s < 3; s++) {
		size_t total = 0, shown = 0;

		sw_buf_str(out, heads[s]);
		for (size_t i = 0; i < n; i++) {
			if (items[i].section != s)
				continue;
			total++;
			if (items[i].selected) {
				sw_buf_add(out, items[i].selected, items[i].selected_len);
				shown++;
			}
		}
		if (total == 0)
			sw_buf_str(out, "(none)\n");
		else if (shown < total)
			sw_buf_fmt(out, "[omitted %s: %zu]\n", omitted[s], total - shown);
	}
	return out->len;
}

/* Appends `s` with CR/CRLF turned into LF and every new line indented. */
static void buf_indented(struct sw_buf *b, const char *s, const char *indent,
			 int indent_first)
{
	if (indent_first)
		sw_buf_str(b, indent);
	for (const char *p = s; *p; p++) {
		if (*p == '\r' && p[1] == '\n')
			continue;
		if (*p == '\r' || *p == '\n') {
			sw_buf_str(b, "\n");
			sw_buf_str(b, indent);
			continue;
		}
		sw_buf_add(b, p, 1);
	}
}

/* The context item of one Action record ("- kind action id: summary" and
 * its known issues), or *item NULL when the record has none (no outcome,
 * or voided).  -1 when out of memory. */
int run__action_item(char **item, const json_t *v)
{
	json_t *o = json_object_get(v, "outcome"), *issue;
	struct sw_buf b = { 0 };
	size_t k;

	*item = NULL;
	if (o == NULL || json_is_true(json_object_get(v, "voided")))
		return 0;
	sw_buf_fmt(&b, "- %s action %s: ", run__str(json_object_get(v, "action"), "kind"),
		   run__str(json_object_get(v, "action"), "action_id"));
	buf_indented(&b, run__str(o, "summary"), "  ", 0);
	sw_buf_str(&b, "\n");
	if (json_array_size(json_object_get(o, "known_issues")) > 0) {
		sw_buf_str(&b, "  Known issues:\n");
		json_array_foreach(json_object_get(o, "known_issues"), k, issue) {
			sw_buf_str(&b, "  - ");
			buf_indented(&b, json_string_value(issue), "    ", 0);
			sw_buf_str(&b, "\n");
		}
	}
	if (b.failed) {
		sw_free(b.p);
		return -1;
	}
	*item = b.p;
	return 0;
}

/* Builds the context text: active decisions, then the latest outcome, then
 * earlier ones, filled newest first within `limit` bytes. */
char *run__build_context(const struct run *r, size_t limit)
{
	const json_t *rec = r->rec;
	struct ctx_item *items = NULL;
	struct sw_buf out = { 0 };
	json_t *answers = json_object_get(rec, "answers");
	json_t *actions = json_object_get(rec, "actions"), *v;
	size_t n = 0, cap, i, last_outcome = (size_t)-1;
	size_t *order = NULL, norder = 0;
	char *result = NULL;

	cap = json_array_size(answers) + r->nfz + json_array_size(actions) + 1;
	items = sw_calloc(cap, sizeof(*items));
	order = sw_calloc(cap, sizeof(*order));
	if (items == NULL || order == NULL)
		goto out;
	json_array_foreach(answers, i, v) {
		struct sw_buf b = { 0 };

		const char *pinned_rev = run__str(json_object_get(rec, "pinned_source"),
						  "requirements_revision");
		const char *answer_rev = run__str(v, "requirements_revision");

		if (!json_is_true(json_object_get(v, "active")) ||
		    json_is_true(json_object_get(v, "confirm_destructive")) ||
		    run__str(v, "text") == NULL || run__str(v, "text")[0] == '\0')
			continue;
		/* A decision speaks only for the requirements it was given under. */
		if ((pinned_rev == NULL) != (answer_rev == NULL) ||
		    (pinned_rev && strcmp(pinned_rev, answer_rev) != 0))
			continue;
		sw_buf_fmt(&b, "- action %s decision:\n", run__str(v, "action_id"));
		buf_indented(&b, run__str(v, "text"), "  ", 1);
		sw_buf_str(&b, "\n");
		if (b.failed)
			goto out;
		items[n].text = items[n].own = b.p;
		items[n].len = b.len;
		items[n++].section = 0;
	}
	for (i = 0; i < r->nfz; i++) {
		const struct fz_entry *e = &r->fz->e[i];

		if (e->item == NULL)
			continue;
		items[n].text = e->item;
		items[n].len = e->item_len;
		items[n].section = 2;
		last_outcome = n++;
	}
	json_array_foreach(actions, i, v) {
		char *item;

		if (run__action_item(&item, v) < 0)
			goto out;
		if (item == NULL)
			continue;
		items[n].text = items[n].own = item;
		items[n].len = strlen(item);
		items[n].section = 2;
		last_outcome = n++;
	}
	if (last_outcome != (size_t)-1)
		items[last_outcome].section = 1;
	/* Fill priority: decisions newest first, the recent outcome, then
	 * earlier outcomes newest first.  Sizes are added up rather than
	 * rendered per candidate, keeping this linear; `reserve` covers the
	 * "(none)" and "[omitted ...]" lines the final rendering may add. */
	for (size_t k = n; k-- > 0;)
		if (items[k].section == 0)
			order[norder++] = k;
	if (last_outcome != (size_t)-1)
		order[norder++] = last_outcome;
	for (size_t k = n; k-- > 0;)
		if (items[k].section == 2)
			order[norder++] = k;
	{
		static const size_t reserve = 3 * 48;
		size_t used = strlen("Decisions:\nRecent outcome:\nEarlier outcomes:\n");

		for (size_t k = 0; k < norder; k++) {
			struct ctx_item *it = &items[order[k]];
			char *cut, *whole, *line;

			if (used + it->len + reserve <= limit) {
				it->selected = it->text;
				it->selected_len = it->len;
				used += it->len;
				continue;
			}
			/* The first item that does not fit is cut with a marker;
			 * the rest are omitted. */
			if (used + reserve + 2 >= limit)
				break;
			whole = sw_strndup(it->text, it->len);
			cut = whole ? run__truncate_marked(whole, limit - used - reserve - 1) : NULL;
			if (cut != NULL && (line = sw_asprintf("%s\n", cut)) != NULL) {
				sw_free(it->own);
				it->own = line;
				it->text = it->selected = line;
				it->len = it->selected_len = strlen(line);
			}
			sw_free(cut);
			sw_free(whole);
			break;
		}
	}
	render_context(&out, items, n);
	if (!out.failed)
		result = out.p, out.p = NULL;
out:
	for (size_t k = 0; items && k < n; k++)
		sw_free(items[k].own);
	sw_free(items);
	sw_free(order);
	sw_free(out.p);
	return result;
}
