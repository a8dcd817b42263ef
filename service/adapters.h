#ifndef SERVICE_ADAPTERS_H
#define SERVICE_ADAPTERS_H

/* The host adapter operations, install, uninstall, list and doctor, one
 * entry each in the style of service/ops.h: a front end fills the typed
 * request and calls the entry, which finds the worktree, carries the
 * operation out through io/adapters/adapter.h and answers: the JSON document (the
 * changeReport, the host list, the doctor checks) or the cliError with its
 * next, and the exit status, also returned.  With `res` NULL the answer is
 * written as it is made (stdout, stderr: the CLI); otherwise *res receives
 * it (service/emit.h).
 *
 * With `human` the entry writes no document: on success *found receives
 * what happened, for the front end to show as text (the text forms are
 * the CLI's, not part of the protocol); errors are answered as always.
 * Release *found with svc_adapters_found_release in every case. */

#include <stddef.h>

#include "io/adapters/adapter.h"
#include "service/emit.h"

struct svc_adapter_request {
	const char *root;		/* --root as given, or NULL: the current
					 * directory; either way the Git worktree
					 * containing it */
	char *const *tools;		/* install, uninstall: the --tool values */
	size_t ntools;
	int tools_given;		/* --tool appeared at all */
	const char *surface;		/* install: kiro surface, or NULL */
	int refresh;			/* install --refresh */
	int mcp;			/* install --mcp */
	const struct adapter_text *texts;	/* the capability texts this build
						 * installs and compares against */
	int human;
};

struct svc_adapters_found {
	struct adapter_report report;			/* install, uninstall */
	struct adapter_host_status hosts[ADAPTER_NHOSTS];	/* list */
	struct adapter_checks checks;			/* doctor */
};

int svc_op_install(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		   struct svc_result *res);
int svc_op_uninstall(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		     struct svc_result *res);
int svc_op_list(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		struct svc_result *res);
/* Exit 0 whatever the checks find. */
int svc_op_doctor(const struct svc_adapter_request *req, struct svc_adapters_found *found,
		  struct svc_result *res);

void svc_adapters_found_release(struct svc_adapters_found *found);

/* doctor's checks of the run store below `common` (service/doctor_store.c):
 * one row per leftover, damaged or rebuildable file (store_inspect) or
 * material a Run refers to that is missing, in path order, then one per
 * run directory whose name is not the run id its journal records; none
 * when the store cannot be read or `common` is NULL.
 * Release with svc_doctor_store_facts_release.  SW_ENOMEM. */
int svc_doctor_store_facts(struct adapter_store_facts *out, const char *common);
void svc_doctor_store_facts_release(struct adapter_store_facts *f);

#endif
