/* slipway stop: stop a Run (the one active or paused Run when no id). */

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "io/input.h"

/* The one local active or paused Run, when exactly one exists. */
static int implicit_run(struct driver *d, char *out, size_t len)
{
	struct driver_listing l;
	struct next *n = NULL;
	const char *found = NULL;
	size_t candidates = 0, i;
	json_t *entry;
	int rc;

	if ((rc = driver_list(d, &l, 0)) != 0)
		return rc;
	json_array_foreach(l.runs, i, entry) {
		const char *state = json_string_value(json_object_get(entry, "state"));

		if (json_is_true(json_object_get(entry, "workspace_foreign")))
			continue;
		if (strcmp(state, "active") == 0 || strcmp(state, "paused") == 0) {
			candidates++;
			found = json_string_value(json_object_get(entry, "id"));
		}
	}
	if (json_array_size(l.unavailable) == 0 && candidates == 1) {
		snprintf(out, len, "%s", found);
		driver_listing_release(&l);
		return 0;
	}
	next_build_form(&n, NEXT_FORM_LIST_RUNS, d->ws.id, d->ws.worktree_root,
			&(struct next_fill){ 0 }, &(struct sw_error)SW_ERROR_INIT);
	rc = cli_fail(TBL_ERR_RUN_ID_REQUIRED, 0,
		      json_array_size(l.unavailable)
			      ? "some run journals cannot be read; name the run to stop"
		      : candidates == 0 ? "no active or paused run to stop"
					: "more than one active or paused run; name the run to stop",
		      n, NULL, NULL);
	next_free(n);
	driver_listing_release(&l);
	return rc;
}

int cmd_stop(int argc, char **argv)
{
	const char *root = NULL;
	int json = 0, rc;
	struct cli_opt opts[] = {
		{ "root", CLI_OPT_STRING, &root, 0, "workspace root (default: current Git worktree)", "string" },
		{ "json", CLI_OPT_BOOL, &json, 0, "emit machine-protocol JSON", NULL },
		{ NULL, 0, NULL, 0, NULL, NULL },
	};
	static const struct cli_command cmd = {
		"stop [run-id] [flags]", "Stop a Run; resume it later with slipway protocol resume",
		"  slipway stop\n  slipway stop RUN --json", NULL
	};
	struct sw_error err = SW_ERROR_INIT;
	struct driver_mutation m = { .event = FSM_EV_STOP };
	struct driver d = { 0 };
	char **pos = NULL, id[160], headline[200];
	size_t npos = 0;

	if ((rc = cli_parse_command(argc, argv, opts, &cmd, "stop", &pos, &npos,
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
	if ((rc = driver_open(&d, true)) != 0)
		goto out;
	if (npos == 1)
		snprintf(id, sizeof(id), "%s", pos[0]);
	else if ((rc = implicit_run(&d, id, sizeof(id))) != 0)
		goto close;
	m.run_id = id;
	if ((rc = driver_mutate(&d, &m)) == 0) {
		snprintf(headline, sizeof(headline), "Stopped run %s.", id);
		rc = driver_print_state(&d, m.run, !json, headline, 0, NULL);
	}
	driver_mutation_release(&m);
close:
	driver_close(&d);
out:
	sw_free(pos);
	return rc;
}
