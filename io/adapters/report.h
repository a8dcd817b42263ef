#ifndef IO_ADAPTERS_REPORT_H
#define IO_ADAPTERS_REPORT_H

/* The change report of install and uninstall, and the string lists it is
 * made of.  Below both io/adapters/adapter.c (the capability files) and
 * io/adapters/adapter_mcp.c (the MCP registration), which fill the same
 * report; neither calls the other for these.
 *
 * A list owns its strings and is kept NULL-terminated; a zeroed list is
 * empty.  Every function that can fail returns 0 or SW_ENOMEM. */

#include <stddef.h>

#include "io/adapters/adapter_txn.h"
#include "io/util/err.h"

struct adapter_strs {
	char **v;
	size_t n;
};

/* The changeReport: every list sorted and unique once returned. */
struct adapter_report {
	enum adapter_txn_outcome outcome;
	struct adapter_strs hosts, written, removed, preserved, recovery, warnings;
};

/* Appends a copy of `v`. */
int adapter_strs_add(struct adapter_strs *s, const char *v, struct sw_error *err);

/* Appends `owned` and takes it (freed here on failure too); NULL counts as
 * out of memory, so a failed sw_asprintf can be passed straight in. */
int adapter_strs_addf_own(struct adapter_strs *s, char *owned, struct sw_error *err);

/* Sorts bytewise and drops empty strings and duplicates. */
void adapter_strs_normalize(struct adapter_strs *s);

/* Frees every string and leaves the list empty. */
void adapter_strs_release(struct adapter_strs *s);

void adapter_report_release(struct adapter_report *r);

#endif
