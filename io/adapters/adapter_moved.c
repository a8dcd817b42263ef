/* Moving an install from the layout an earlier slipway wrote: a file of
 * that layout still as slipway wrote it is removed while install writes
 * its successor, and one a person edited stays where it is, reported with
 * the place its text has now.  Plans into the caller's transaction; never
 * writes itself. */
#include "io/adapters/adapter_internal.h"

#include <string.h>

int adapter__plan_moved(struct adapter_report *rep, struct adapter_txn *txn, const char *root,
			const struct host *h, const struct manifest *m, const struct gen_set *g,
			struct sw_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < m->n && rc == 0; i++) {
		const struct claim *c = &m->files[i];
		const struct gen_file *old, *next;
		char *abs = NULL;
		enum cls k;

		if (!adapter__gen_moved(g, c->path))
			continue;
		if ((abs = adapter__safe_path(root, c->path, err)) == NULL)
			return err->code;
		old = adapter__gen_claimed(g, c->path, c->sha);
		if (old == NULL) {
			/* A claim on bytes no layout of this build generates:
			 * as anywhere else, the file stays and the claim goes. */
			if (adapter__exists(abs) &&
			    (rc = adapter_strs_add(&rep->preserved, c->path, err)) == 0)
				rc = adapter_strs_addf_own(&rep->warnings, adapter__stale_warning(h, c->path), err);
		} else if ((rc = adapter__classify(&k, abs, c->sha, err)) < 0) {
			/* rc set */
		} else if (k == CLS_PRISTINE) {
			if ((rc = adapter_txn_remove(txn, abs, ADAPTER_TXN_EXPECT_SHA256, c->sha, err)) == 0)
				rc = adapter_strs_add(&rep->removed, c->path, err);
		} else if (k == CLS_MODIFIED) {
			next = adapter__gen_successor(g, old);
			if ((rc = adapter_strs_add(&rep->preserved, c->path, err)) == 0)
				rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
					"%s: %s was edited, so it stays where an earlier slipway wrote it; "
					"this version installs its text as %s", h->id, c->path,
					next ? next->rel : "part of another file"), err);
		}
		sw_free(abs);
	}
	return rc;
}
