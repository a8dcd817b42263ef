/* slipway status: the Runs of this repository, or one Run. */

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "service/ops.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* One Run: the report the service rendered (io/render_report.h). */
static int print_one(const struct svc_status_found *res)
{
	fputs(res->report ? res->report : "", stdout);
	return cli_flush();
}

/* The listing as text: one line per Run, then one per unavailable Run. */
static int print_list(const struct svc_listing *l)
{
	json_t *entry;
	size_t i;

	if (json_array_size(l->runs) == 0 && json_array_size(l->unavailable) == 0)
		printf("No run journals were found.\n");
	json_array_foreach(l->runs, i, entry) {
		if (json_is_true(json_object_get(entry, "workspace_foreign")))
			printf("%s  %-7s  foreign=true  workspace=%s  %s\n", jstr(entry, "id"),
			       jstr(entry, "state"), jstr(entry, "workspace"), jstr(entry, "goal"));
		else
			printf("%s  %-7s  remaining=%lld  %s\n", jstr(entry, "id"),
			       jstr(entry, "state"),
			       (long long)json_integer_value(json_object_get(entry, "remaining_budget")),
			       jstr(entry, "goal"));
	}
	json_array_foreach(l->unavailable, i, entry)
		printf("%s  unavailable  code=%s  %s\n", jstr(entry, "id"), jstr(entry, "code"),
		       jstr(entry, "detail"));
	return cli_flush();
}

int cmd_status(int argc, char **argv)
{
	struct svc_status_found res = { 0 };
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_STATUS, argc, argv, &a, cli_raw_root(argc, argv))) >= 0)
		goto out;
	if (!a.json)
		(void)cli_human_output();
	rc = svc_op_status(&(struct svc_status_request){
		.root = cli_root(&a), .run_id = a.npos == 1 ? a.pos[0] : NULL,
		.section = a.section.v, .section_given = a.section.given,
		.candidate = a.from_candidate, .human = !a.json, .markdown = a.markdown },
		&res, NULL);
	if (rc == 0 && !a.json && res.run)
		rc = print_one(&res);
	else if (rc == 0 && !a.json && res.listed)
		rc = print_list(&res.list);
out:
	svc_status_found_release(&res);
	cli_args_release(&a);
	return rc;
}
