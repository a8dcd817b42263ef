/* uninstall: removes each selected host's pristine claimed files, its
 * manifest and marker, its MCP entry and the folders install created once
 * empty, in one transaction.  Keeps every file that changed, and the
 * invocation policy of a capability that stays. */
#include "io/adapters/adapter_internal.h"
#include "io/adapters/adapter_folders.h"
#include "io/adapters/adapter_intent.h"
#include "io/adapters/adapter_mcp.h"

#include <string.h>

#include "io/util/digest.h"

static int plan_uninstall(struct adapter_report *rep, struct adapter_txn *txn,
			  const struct adapter_request *req, const struct host *h,
			  struct sw_error *err)
{
	struct manifest m;
	struct gen_set g = { NULL, 0 };
	const char *surviving[ADAPTER_NCAPS] = { NULL };
	char *mpath = NULL, *spath = NULL, *abs = NULL;
	char sentinel_sha[SW_HEX_LEN];
	enum cls k;
	int rc;

	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	if ((rc = adapter_mcp_plan_uninstall(rep, txn, req->root, h->id, h->owner, err)) < 0)
		return rc;
	if ((rc = adapter__manifest_load(&m, req->root, h, req->texts, err)) < 0)
		return rc;
	if ((spath = adapter__owner_file(req->root, h, SENTINEL_NAME, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if (!m.found) {
		if (adapter__exists(spath))
			rc = adapter_strs_addf_own(&rep->warnings, adapter__missing_manifest_warning(h), err);
		goto out;
	}
	if ((rc = adapter__generate(&g, h, h->choice == CHOSEN_SURFACE ? adapter__kiro_surface(m.surface) : h->surface,
			   req->texts, err)) < 0)
		goto out;
	/* A generated path with no claim is the person's (an edit that a
	 * refresh kept): it stays, and the report says so. */
	for (size_t i = 0; i < g.n; i++) {
		if (adapter__claim_find(&m, g.v[i].rel) != NULL)
			continue;
		sw_free(abs);
		if ((abs = adapter__safe_path(req->root, g.v[i].rel, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		if (adapter__exists(abs) && (rc = adapter_strs_add(&rep->preserved, g.v[i].rel, err)) < 0)
			goto out;
	}
	for (size_t i = 0; i < g.n; i++) {
		const struct gen_file *f = &g.v[i];
		const struct claim *c = adapter__claim_find(&m, f->rel);
		size_t ci;

		if (!f->callable)
			continue;
		for (ci = 0; strcmp(adapter_capabilities[ci], f->cap) != 0; ci++)
			;
		sw_free(abs);
		if ((abs = adapter__safe_path(req->root, f->rel, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		if (!c || strcmp(c->sha, f->sha) != 0) {
			if (adapter__exists(abs))
				surviving[ci] = f->rel;
			continue;
		}
		if ((rc = adapter__classify(&k, abs, c->sha, err)) < 0)
			goto out;
		if (k == CLS_MODIFIED)
			surviving[ci] = f->rel;
	}
	/* A surviving Codex skill keeps its explicit-invocation policy. */
	for (size_t i = 0; i < g.n; i++) {
		const struct gen_file *f = &g.v[i];
		size_t ci;

		if (!f->policy)
			continue;
		for (ci = 0; strcmp(adapter_capabilities[ci], f->cap) != 0; ci++)
			;
		if (!surviving[ci])
			continue;
		sw_free(abs);
		if ((abs = adapter__safe_path(req->root, f->rel, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		if ((rc = adapter__classify(&k, abs, f->sha, err)) < 0)
			goto out;
		if (k != CLS_PRISTINE) {
			rc = sw_error_set(err, SW_ECONFLICT,
					  "cannot uninstall %s safely: %s stays but its invocation policy %s is %s; restore the generated policy and retry",
					  h->id, surviving[ci], f->rel, k == CLS_MISSING ? "missing" : "modified");
			goto out;
		}
		if ((rc = adapter_txn_verify(txn, abs, ADAPTER_TXN_EXPECT_SHA256, f->sha, err)) < 0)
			goto out;
		if (!adapter__claim_find(&m, f->rel) &&
		    ((rc = adapter_strs_add(&rep->preserved, f->rel, err)) < 0 ||
		     (rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
			     "%s: kept %s because %s stays", h->id, f->rel, surviving[ci]), err)) < 0))
			goto out;
	}
	for (size_t i = 0; i < m.n; i++) {
		const struct claim *c = &m.files[i];
		const struct gen_file *f = adapter__gen_claimed(&g, c->path, c->sha);
		size_t ci = 0;

		sw_free(abs);
		if ((abs = adapter__safe_path(req->root, c->path, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		if (f && f->policy) {
			for (ci = 0; strcmp(adapter_capabilities[ci], f->cap) != 0; ci++)
				;
			if (surviving[ci]) {
				if ((rc = adapter__classify(&k, abs, f->sha, err)) < 0)
					goto out;
				if (k == CLS_PRISTINE) {
					if ((rc = adapter_strs_add(&rep->preserved, c->path, err)) < 0 ||
					    (rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
						    "%s: capability %s stays partly installed because %s remains, so its invocation policy %s was kept",
						    h->id, f->cap, surviving[ci], c->path), err)) < 0)
						goto out;
					continue;
				}
			}
		}
		if (!f || strcmp(f->sha, c->sha) != 0) {
			if (adapter__exists(abs) &&
			    ((rc = adapter_strs_add(&rep->preserved, c->path, err)) < 0 ||
			     (rc = adapter_strs_addf_own(&rep->warnings, adapter__stale_warning(h, c->path), err)) < 0))
				goto out;
			continue;
		}
		if ((rc = adapter__classify(&k, abs, c->sha, err)) < 0)
			goto out;
		if (k == CLS_PRISTINE) {
			if ((rc = adapter_txn_remove(txn, abs, ADAPTER_TXN_EXPECT_SHA256, c->sha, err)) < 0 ||
			    (rc = adapter_strs_add(&rep->removed, c->path, err)) < 0)
				goto out;
		} else if (k == CLS_MODIFIED && (rc = adapter_strs_add(&rep->preserved, c->path, err)) < 0) {
			goto out;
		}
	}
	if ((mpath = adapter__owner_file(req->root, h, MANIFEST_NAME, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = adapter_txn_remove(txn, mpath, ADAPTER_TXN_EXPECT_SHA256, m.sha, err)) < 0 ||
	    (rc = adapter_strs_addf_own(&rep->removed, adapter__owner_rel(h, MANIFEST_NAME), err)) < 0 ||
	    (rc = adapter__classify(&k, spath, sentinel_sha, err)) < 0)
		goto out;
	if (k == CLS_PRISTINE)
		rc = adapter_txn_remove(txn, spath, ADAPTER_TXN_EXPECT_SHA256, sentinel_sha, err) < 0
		     ? err->code : adapter_strs_addf_own(&rep->removed, adapter__owner_rel(h, SENTINEL_NAME), err);
	else if (k == CLS_MODIFIED)
		rc = adapter_strs_addf_own(&rep->preserved, adapter__owner_rel(h, SENTINEL_NAME), err);
out:
	sw_free(abs);
	sw_free(mpath);
	sw_free(spath);
	adapter__gen_release(&g);
	adapter__manifest_release(&m);
	return rc;
}

/* An uninstall that finds nothing installed because the run it retries
 * was killed after its commit and has just been completed: that run's
 * hosts are reported, committed. */
static int completed(struct adapter_report *rep, const struct adapter_intent *found,
		     struct sw_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < found->nhosts && rc == 0; i++)
		rc = adapter_strs_add(&rep->hosts, found->hosts[i], err);
	if (rc == 0)
		rep->outcome = ADAPTER_TXN_COMMITTED;
	return rc;
}

int adapter_uninstall(struct adapter_report *rep, const struct adapter_request *req,
		      struct sw_error *err)
{
	struct adapter_intent_dir *intents = NULL;
	struct adapter_intent found;
	struct adapter_txn *txn = NULL;
	struct adapter_strs folders = { NULL, 0 };
	const char **gone = NULL;
	size_t ngone;
	int sel[ADAPTER_NHOSTS] = { 0 };
	int rc = 0, count = 0;

	memset(&found, 0, sizeof(found));
	rep->outcome = ADAPTER_TXN_NOT_COMMITTED;
	if (req->tools_given && (rc = adapter__select_hosts(sel, req, 0, err)) < 0)
		goto out;
	if ((rc = adapter__recover(&intents, &found, rep, req, err)) < 0)
		goto out;
	if (!req->tools_given) {
		for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
			struct manifest m;
			struct sw_error herr = SW_ERROR_INIT;

			if (adapter__manifest_load(&m, req->root, &adapter__hosts[i], req->texts, &herr) < 0) {
				rc = sw_error_set(err, herr.code, "cannot inspect %s for uninstall: %s", adapter__hosts[i].id, herr.msg);
				goto out;
			}
			sel[i] = m.found;
			count += m.found;
			adapter__manifest_release(&m);
		}
		if (count == 0 && found.phase == ADAPTER_INTENT_COMMITTED &&
		    strcmp(found.operation, "uninstall") == 0) {
			rc = completed(rep, &found, err);
			goto out;
		}
		if (count == 0) {
			rc = sw_error_set(err, SW_ENOTFOUND, "no installed host adapter was found; name one with --tool");
			goto out;
		}
	}
	if ((rc = adapter_txn_new(&txn, req->root, intents, err)) < 0)
		goto out;
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		struct sw_error herr = SW_ERROR_INIT;

		if (!sel[i])
			continue;
		if (plan_uninstall(rep, txn, req, &adapter__hosts[i], &herr) < 0 ||
		    adapter_folders_plan_uninstall(rep, txn, req->root, adapter__hosts[i].id, adapter__hosts[i].owner,
						   &folders, &herr) < 0) {
			rc = sw_error_set(err, herr.code, "cannot plan the %s uninstall: %s", adapter__hosts[i].id, herr.msg);
			goto out;
		}
		if ((rc = adapter_strs_add(&rep->hosts, adapter__hosts[i].id, err)) < 0)
			goto out;
	}
	/* The folders slipway made are removed once the files are gone and
	 * they are left empty, by the batch (so a kill then is finished too). */
	for (size_t i = 0; i < folders.n; i++)
		if ((rc = adapter_txn_remove_folder(txn, folders.v[i], err)) < 0)
			goto out;
	if ((rc = adapter_txn_describe(txn, "uninstall", rep->hosts.v, rep->hosts.n, err)) < 0 ||
	    (rc = adapter__run_txn(rep, txn, req->root, err)) < 0 || rep->outcome != ADAPTER_TXN_COMMITTED)
		goto out;
	ngone = adapter_txn_removed_folders(txn, NULL, 0);
	if ((gone = sw_calloc(ngone + 1, sizeof(*gone))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	adapter_txn_removed_folders(txn, gone, ngone);
	for (size_t i = 0; i < ngone && rc == 0; i++)
		rc = adapter_strs_addf_own(&rep->removed, sw_asprintf("%s/", gone[i]), err);
out:
	sw_free(gone);
	adapter_strs_release(&folders);
	adapter_txn_free(txn);
	adapter_intent_dir_close(intents);
	adapter_intent_release(&found);
	adapter__report_normalize(rep);
	return rc;
}
