/* slipway status: the Runs of this repository, or one Run. */

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "io/buf.h"
#include "io/input.h"
#include "io/json.h"
#include "io/render.h"
#include "io/run.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The waiting question of the current Action: its words joined by single
 * spaces; over 200 characters it keeps 199 and ends with an ellipsis. */
static void print_question(const json_t *doc)
{
	const json_t *cur = json_object_get(doc, "current_action"), *rec;
	struct sw_buf b = SW_BUF_INIT;
	const char *q = NULL, *p;
	size_t i, chars = 0, cut = 0;
	char *text;

	if (cur == NULL)
		return;
	json_array_foreach(json_object_get(doc, "actions"), i, rec)
		if (strcmp(jstr(json_object_get(rec, "action"), "action_id"), jstr(cur, "action_id")) == 0)
			q = jstr(json_object_get(json_object_get(rec, "outcome"), "pause"), "question");
	if (q == NULL)
		return;
	for (p = q; *p;) {
		size_t n;

		while (*p && strchr(" \t\n\r\v\f", *p))
			p++;
		n = strcspn(p, " \t\n\r\v\f");
		if (n == 0)
			break;
		if (b.len)
			sw_buf_ch(&b, ' ');
		sw_buf_add(&b, p, n);
		p += n;
	}
	if ((text = sw_buf_detach(&b)) == NULL)
		return;
	for (i = 0; text[i]; i++)
		if (((unsigned char)text[i] & 0xc0) != 0x80 && ++chars == 200)
			cut = i;
	if (chars > 200)
		printf("Pending question: %.*s\u2026\n", (int)cut, text);
	else
		printf("Pending question: %s\n", text);
	sw_free(text);
}

/* The destructive request a person is asked to confirm: every target and
 * the impact, as the host sent them. */
static void print_request(const json_t *doc)
{
	const json_t *req = json_object_get(doc, "pending_destructive_request"), *t;
	size_t i;

	if (req == NULL)
		return;
	printf("Destructive request: %s\nTargets:\n", jstr(req, "request_id"));
	json_array_foreach(json_object_get(req, "targets"), i, t)
		printf("  - %s: %s\n", jstr(t, "kind"), jstr(t, "value"));
	printf("Impact: %s\nScope digest: %s\n", jstr(req, "impact"), jstr(req, "scope_sha256"));
}

static int print_run(const json_t *doc)
{
	const json_t *cur = json_object_get(doc, "current_action");
	const json_t *pinned = json_object_get(doc, "pinned_source");
	const json_t *cand = json_object_get(doc, "source_candidate");

	printf("Run: %s\nState: %s\nGoal: %s\nBudget remaining: %lld\n", jstr(doc, "id"),
	       jstr(doc, "state"), jstr(doc, "goal"),
	       (long long)json_integer_value(json_object_get(doc, "remaining_budget")));
	if (pinned)
		printf("Pinned source: %s (%s)\nSource revision: %s\nRequirements revision: %s\n",
		       jstr(pinned, "canonical_url"), jstr(pinned, "issue_id"),
		       jstr(pinned, "source_revision"), jstr(pinned, "requirements_revision"));
	if (jstr(doc, "pause_reason"))
		printf("Pause reason: %s\n", jstr(doc, "pause_reason"));
	print_question(doc);
	print_request(doc);
	if (cand) {
		printf("Current source candidate: %s (%s, %s)\n", jstr(cand, "candidate_id"),
		       jstr(cand, "classification"), jstr(cand, "classification_code"));
		if (jstr(cand, "classification_error"))
			printf("Candidate classification: %s\n", jstr(cand, "classification_error"));
	}
	if (cur)
		printf("Current action: %s (%s)\n", jstr(cur, "action_id"), jstr(cur, "kind"));
	if (jstr(doc, "summary"))
		printf("\nSummary:\n%s", jstr(doc, "summary"));
	return 0;
}

/* The statusList document as the reference prints it: the envelope and
 * unavailable_runs as its writer encodes them, each entry of runs with
 * HTML escaping (its status entries go through json.Marshal).  sw_malloc'd,
 * or NULL on ENOMEM. */
static char *list_text(const struct driver_listing *l)
{
	struct sw_buf b = SW_BUF_INIT;
	json_t *entry;
	char *s;
	size_t i;

	sw_buf_str(&b, "{\"contract_version\":2,\"runs\":[");
	json_array_foreach(l->runs, i, entry) {
		if ((s = sw_json_dump_html(entry)) == NULL)
			b.failed = 1;
		else if (i > 0)
			sw_buf_ch(&b, ',');
		sw_buf_str(&b, s ? s : "");
		sw_free(s);
	}
	sw_buf_str(&b, "],\"unavailable_runs\":");
	if ((s = sw_json_dump(l->unavailable)) == NULL)
		b.failed = 1;
	sw_buf_str(&b, s ? s : "");
	sw_free(s);
	sw_buf_ch(&b, '}');
	return sw_buf_detach(&b);
}

int cmd_status(int argc, char **argv)
{
	const char *root = NULL, *section = NULL;
	int json = 0, rc;
	struct cli_opt opts[] = {
		{ "root", CLI_OPT_STRING, &root, 0, "workspace root (default: current Git worktree)", "string" },
		{ "json", CLI_OPT_BOOL, &json, 0, "emit JSON", NULL },
		{ "section", CLI_OPT_STRING, &section, 0, "read one pinned source chapter of the given Run", "string" },
		{ NULL, 0, NULL, 0, NULL, NULL },
	};
	static const struct cli_command cmd = {
		"status [run-id] [--section KEY] [flags]", "Show the Runs of this repository",
		"  slipway status\n  slipway status RUN --json\n  slipway status RUN --section requirements",
		NULL
	};
	struct sw_error err = SW_ERROR_INIT;
	struct driver d = { 0 };
	struct run *r = NULL;
	char **pos = NULL;
	size_t npos = 0;

	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "status", &pos, &npos,
				    cli_raw_root(argc, argv))) >= 0)
		return rc;
	if (!json)
		(void)cli_human_output();
	d.root_arg = root && *root ? root : NULL;
	if ((rc = cli_max_args(npos, 1, d.root_arg)) != 0)
		goto out;
	if (npos == 1 && input_run_id_check(pos[0], &err) < 0) {
		rc = driver_usage(&d, TBL_ERR_INVALID_RUN_ID, err.msg);
		goto out;
	}
	if (opts[2].seen && npos != 1) {
		rc = driver_usage(&d, TBL_ERR_RUN_ID_REQUIRED, "reading a pinned section requires one run id");
		goto out;
	}
	if (opts[2].seen && section[0] == '\0') {
		rc = cli_fail_inspect(TBL_ERR_MATERIAL_SECTION_REQUIRED, "section cannot be empty",
				      d.root_arg, pos[0]);
		goto out;
	}
	if ((rc = driver_open(&d, false)) != 0)
		goto out;
	if (opts[2].seen) {
		rc = driver_material(&d, pos[0], NULL, section, !json);
		goto close;
	}
	if (npos == 1) {
		json_t *doc;

		if ((rc = driver_load(&d, pos[0], &r, 0, NULL)) != 0)
			goto close;
		if ((doc = driver_status_json(&d, r, &err)) == NULL) {
			rc = driver_fail_status(&d, &err);
			goto close;
		}
		if (json) {
			rc = cli_print_json_html(doc) < 0 ? CLI_EXIT_DEFECT : 0;
		} else {
			char *choices = NULL;
			struct next *n = driver_run_next(r, 0);

			print_run(doc);
			if (jstr(doc, "summary") == NULL) {
				char *report = run_report(r);

				if (report)
					printf("\nReport so far:\n%s", report);
				sw_free(report);
			}
			if (n && render_next_choices(&choices, n, RENDER_SHELL_NATIVE, NULL, &err) == 0 &&
			    choices && choices[0])
				fputs(choices, stdout);
			sw_free(choices);
			next_free(n);
			rc = fflush(stdout) == EOF ? CLI_EXIT_DEFECT : 0;
		}
		json_decref(doc);
	} else {
		struct driver_listing l;
		json_t *entry;
		size_t i;

		if ((rc = driver_list(&d, &l, !json)) != 0)
			goto close;
		if (json) {
			rc = cli_print_json_text(list_text(&l)) < 0 ? CLI_EXIT_DEFECT : 0;
		} else {
			if (json_array_size(l.runs) == 0 && json_array_size(l.unavailable) == 0)
				printf("No run journals were found.\n");
			json_array_foreach(l.runs, i, entry) {
				if (json_is_true(json_object_get(entry, "workspace_foreign")))
					printf("%s  %-7s  foreign=true  workspace=%s  %s\n", jstr(entry, "id"),
					       jstr(entry, "state"), jstr(entry, "workspace"), jstr(entry, "goal"));
				else
					printf("%s  %-7s  remaining=%lld  %s\n", jstr(entry, "id"),
					       jstr(entry, "state"),
					       (long long)json_integer_value(json_object_get(entry, "remaining_budget")),
					       jstr(entry, "goal"));
			}
			json_array_foreach(l.unavailable, i, entry)
				printf("%s  unavailable  code=%s  %s\n", jstr(entry, "id"), jstr(entry, "code"),
				       jstr(entry, "detail"));
			rc = fflush(stdout) == EOF ? CLI_EXIT_DEFECT : 0;
		}
		driver_listing_release(&l);
	}
close:
	run_free(r);
	driver_close(&d);
out:
	sw_free(pos);
	return rc;
}
