/* slipway install: write the capability files for AI coding hosts. */

#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

/* The changeReport as text: the hosts, then one line per file. */
int cli_print_change_report(const char *heading, const struct adapter_report *r)
{
	static const char *const labels[] = { "wrote", "removed", "preserved", "recovery artifact:", "warning:" };
	const struct adapter_strs *lists[] = { &r->written, &r->removed, &r->preserved, &r->recovery, &r->warnings };

	printf("%s for: ", heading);
	for (size_t i = 0; i < r->hosts.n; i++)
		printf("%s%s", i ? ", " : "", r->hosts.v[i]);
	printf("%s\n", r->hosts.n ? "" : "(no host)");
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			printf("  %s %s\n", labels[l], lists[l]->v[i]);
	if (r->written.n + r->removed.n == 0)
		printf("  nothing changed\n");
	return cli_flush();
}

int cmd_install(int argc, char **argv)
{
	struct svc_adapters_found found = { 0 };
	struct svc_adapter_request req;
	struct cli_args a = { 0 };
	int rc;

	if ((rc = cli_parse_command(CLI_CMD_INSTALL, argc, argv, &a, cli_raw_root(argc, argv))) >= 0)
		goto out;
	req = cli_adapter_request(&a);
	if ((rc = svc_op_install(&req, &found, NULL)) == 0 && !a.json)
		rc = cli_print_change_report("Install result", &found.report);
out:
	svc_adapters_found_release(&found);
	cli_args_release(&a);
	return rc;
}
