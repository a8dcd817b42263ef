#ifndef IO_ADAPTER_RUNSTORE_H
#define IO_ADAPTER_RUNSTORE_H

/* The run store's checks of `slipway doctor`, after the legacy residue
 * and before the durability check: each finding of store_inspect (see
 * io/store.h) and each run directory whose name is not the run id its
 * journal records (a copied or renamed directory), one check each, in
 * path order.  Nothing is changed.  A store that cannot be opened is left
 * to the other checks.  SW_ENOMEM. */

#include "io/adapter.h"
#include "io/err.h"

int adapter_runstore_checks(struct adapter_checks *c, const char *git_common_dir,
			    struct sw_error *err);

#endif
