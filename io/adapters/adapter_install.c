/* install: plans each selected host's files (write, keep or drop the
 * claim), its MCP registration and the folders it creates, then applies
 * all of it in one transaction.  A file is rewritten or removed only while
 * its bytes are the ones slipway recorded; anything else is kept. */
#include "io/adapters/adapter_internal.h"
#include "io/adapters/adapter_folders.h"
#include "io/adapters/adapter_intent.h"
#include "io/adapters/adapter_mcp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/util/digest.h"

struct file_plan {
	int write, preserve, owned_pristine;
	enum adapter_txn_guard guard;
	char sha[SW_HEX_LEN];
	char *abs;
	char *warning;
};

static int inspect_for_install(struct file_plan *fp, const char *root,
			       const struct host *h, const struct gen_file *f,
			       const struct manifest *m, const struct gen_set *g,
			       struct sw_error *err)
{
	const struct claim *c = m->found ? adapter__claim_find(m, f->rel) : NULL;
	int stale = 0;
	enum cls k;
	int rc;

	if ((fp->abs = adapter__safe_path(root, f->rel, err)) == NULL)
		return err->code;
	if (c && adapter__gen_claimed(g, f->rel, c->sha) == NULL) {
		/* A recorded hash we do not generate proves nothing: keep the
		 * file.  One of the layout this build replaced is ours. */
		stale = 1;
	} else if (c) {
		if ((rc = adapter__classify(&k, fp->abs, c->sha, err)) < 0)
			return rc;
		if (k == CLS_MODIFIED) {
			fp->preserve = 1;
			return 0;
		}
		fp->write = 1;
		fp->owned_pristine = k == CLS_PRISTINE;
		fp->guard = k == CLS_MISSING ? ADAPTER_TXN_EXPECT_MISSING : ADAPTER_TXN_EXPECT_SHA256;
		snprintf(fp->sha, sizeof(fp->sha), "%s", c->sha);
		return 0;
	}
	if (!adapter__exists(fp->abs)) {
		if (errno != ENOENT)
			return sw_error_sys(err, errno, "cannot inspect '%s'", fp->abs);
		fp->write = 1;
		fp->guard = ADAPTER_TXN_EXPECT_MISSING;
		return 0;
	}
	fp->preserve = 1;
	if (stale && (fp->warning = adapter__stale_warning(h, f->rel)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	return 0;
}

static int plan_install(struct adapter_report *rep, struct adapter_txn *txn,
			const struct adapter_request *req, const struct host *h,
			enum surface chosen, struct sw_error *err)
{
	struct manifest m;
	struct gen_set g = { NULL, 0 };
	struct file_plan *fps = NULL;
	struct claim *claims = NULL;
	char *mpath = NULL, *spath = NULL, *enc = NULL;
	enum surface s = h->surface;
	enum cls sentinel;
	char sentinel_sha[SW_HEX_LEN];
	int unavailable[ADAPTER_NCAPS] = { 0 };
	size_t nclaims = 0, len;
	int rc, kiro = h->choice == CHOSEN_SURFACE;

	if ((rc = adapter__manifest_load(&m, req->root, h, req->texts, err)) < 0)
		return rc;
	if (m.found && kiro) {
		s = adapter__kiro_surface(m.surface);
		if (chosen != SURF_NONE && chosen != s) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "kiro is installed with the %s surface; --surface %s does not match",
					    m.surface, chosen == SURF_KIRO_CLI ? "cli" : "ide");
			goto out;
		}
	} else if (kiro) {
		if (chosen == SURF_NONE) {
			char *others = adapter__other_hosts(h);

			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "the first kiro install needs --surface ide or --surface cli: add one, "
					    "or leave kiro out with --tool %s", others ? others : "HOST,...");
			sw_free(others);
			goto out;
		}
		s = chosen;
	}
	if ((rc = adapter__generate(&g, h, s, req->texts, err)) < 0)
		goto out;
	if (m.found && !req->refresh) {
		/* With --mcp the registration still goes ahead (adapter_install). */
		rc = adapter_strs_addf_own(&rep->warnings, req->mcp ? sw_asprintf(
			"%s is already installed: --mcp registers the MCP server and leaves its files as they are; "
			"slipway install --refresh updates the files slipway manages", h->id) : sw_asprintf(
			"%s is already installed; run slipway install --refresh to update the files slipway manages", h->id), err);
		goto out;
	}
	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	if ((mpath = adapter__owner_file(req->root, h, MANIFEST_NAME, err)) == NULL ||
	    (spath = adapter__owner_file(req->root, h, SENTINEL_NAME, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = adapter__classify(&sentinel, spath, sentinel_sha, err)) < 0)
		goto out;
	if (!m.found && sentinel != CLS_MISSING) {
		rc = adapter_strs_addf_own(&rep->warnings, adapter__missing_manifest_warning(h), err);
		goto out;
	}
	if (m.found && sentinel == CLS_MODIFIED &&
	    (rc = adapter_strs_addf_own(&rep->preserved, adapter__owner_rel(h, SENTINEL_NAME), err)) < 0)
		goto out;
	if ((fps = sw_calloc(g.n + 1, sizeof(*fps))) == NULL ||
	    (claims = sw_calloc(g.n + 1, sizeof(*claims))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < g.n; i++) {
		if ((rc = inspect_for_install(&fps[i], req->root, h, &g.v[i], &m, &g, err)) < 0)
			goto out;
		if (!g.v[i].callable && !fps[i].write)
			for (size_t c = 0; c < ADAPTER_NCAPS; c++)
				if (strcmp(adapter_capabilities[c], g.v[i].cap) == 0)
					unavailable[c] = 1;
	}
	/* Support files land before the entrypoints that load them. */
	for (int phase = 0; phase < 2; phase++) {
		for (size_t i = 0; i < g.n; i++) {
			const struct gen_file *f = &g.v[i];
			struct file_plan *fp = &fps[i];
			int blocked = 0;

			if (f->callable != phase)
				continue;
			for (size_t c = 0; c < ADAPTER_NCAPS; c++)
				if (f->callable && unavailable[c] && strcmp(adapter_capabilities[c], f->cap) == 0)
					blocked = 1;
			if (blocked) {
				if (fp->owned_pristine) {
					if ((rc = adapter_txn_remove(txn, fp->abs, ADAPTER_TXN_EXPECT_SHA256, f->sha, err)) < 0 ||
					    (rc = adapter_strs_add(&rep->removed, f->rel, err)) < 0)
						goto out;
				} else if (fp->preserve && (rc = adapter_strs_add(&rep->preserved, f->rel, err)) < 0) {
					goto out;
				}
				if ((fp->warning && (rc = adapter_strs_add(&rep->warnings, fp->warning, err)) < 0) ||
				    (rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
					    "%s: %s was not installed because files capability %s needs are not managed by slipway",
					    h->id, f->rel, f->cap), err)) < 0)
					goto out;
				continue;
			}
			if (fp->preserve) {
				if ((rc = adapter_strs_add(&rep->preserved, f->rel, err)) < 0 ||
				    (fp->warning && (rc = adapter_strs_add(&rep->warnings, fp->warning, err)) < 0))
					goto out;
				continue;
			}
			if (!fp->write)
				continue;
			if ((rc = adapter_txn_write(txn, fp->abs, f->data, f->len, 0644, fp->guard, fp->sha, err)) < 0 ||
			    (rc = adapter_strs_add(&rep->written, f->rel, err)) < 0)
				goto out;
			if ((claims[nclaims].path = sw_strdup(f->rel)) == NULL) {
				rc = sw_error_set(err, SW_ENOMEM, "out of memory");
				goto out;
			}
			memcpy(claims[nclaims++].sha, f->sha, SW_HEX_LEN);
		}
	}
	if (m.found && (rc = adapter__plan_moved(rep, txn, req->root, h, &m, &g, err)) < 0)
		goto out;
	if (nclaims == 0) {
		if ((rc = adapter_strs_addf_own(&rep->warnings, sw_asprintf(
			     "%s is not installed: slipway could not safely claim any of its files, and the files kept stay yours", h->id), err)) < 0)
			goto out;
		if (m.found) {
			if ((rc = adapter_txn_remove(txn, mpath, ADAPTER_TXN_EXPECT_SHA256, m.sha, err)) < 0 ||
			    (rc = adapter_strs_addf_own(&rep->removed, adapter__owner_rel(h, MANIFEST_NAME), err)) < 0)
				goto out;
			if (sentinel == CLS_PRISTINE &&
			    ((rc = adapter_txn_remove(txn, spath, ADAPTER_TXN_EXPECT_SHA256, sentinel_sha, err)) < 0 ||
			     (rc = adapter_strs_addf_own(&rep->removed, adapter__owner_rel(h, SENTINEL_NAME), err)) < 0))
				goto out;
		}
		goto out;
	}
	qsort(claims, nclaims, sizeof(*claims), adapter__cmp_claim);
	if ((enc = adapter__manifest_encode(h, s, claims, nclaims, &len)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = adapter_txn_write(txn, mpath, enc, len, 0600,
				    m.found ? ADAPTER_TXN_EXPECT_SHA256 : ADAPTER_TXN_EXPECT_MISSING,
				    m.sha, err)) < 0 ||
	    (rc = adapter_strs_addf_own(&rep->written, adapter__owner_rel(h, MANIFEST_NAME), err)) < 0)
		goto out;
	if (sentinel != CLS_MODIFIED &&
	    ((rc = adapter_txn_write(txn, spath, SENTINEL_BYTES, strlen(SENTINEL_BYTES), 0600,
				     sentinel == CLS_MISSING ? ADAPTER_TXN_EXPECT_MISSING : ADAPTER_TXN_EXPECT_SHA256,
				     sentinel_sha, err)) < 0 ||
	     (rc = adapter_strs_addf_own(&rep->written, adapter__owner_rel(h, SENTINEL_NAME), err)) < 0))
		goto out;
out:
	for (size_t i = 0; fps && i < g.n; i++) {
		sw_free(fps[i].abs);
		sw_free(fps[i].warning);
	}
	for (size_t i = 0; claims && i < nclaims; i++)
		sw_free(claims[i].path);
	sw_free(claims);
	sw_free(fps);
	sw_free(enc);
	sw_free(mpath);
	sw_free(spath);
	adapter__gen_release(&g);
	adapter__manifest_release(&m);
	return rc;
}

static int is_surface_error(const struct sw_error *err)
{
	return err->code == SW_EPROTO && err->proto == TBL_ERR_INVALID_ADAPTER_SURFACE;
}

int adapter_install(struct adapter_report *rep, const struct adapter_request *req,
		    struct sw_error *err)
{
	struct adapter_intent_dir *intents = NULL;
	struct adapter_intent found;
	struct adapter_txn *txn = NULL;
	int sel[ADAPTER_NHOSTS];
	enum surface chosen = SURF_NONE;
	int rc, count, surface_given = req->surface && req->surface[0];

	memset(&found, 0, sizeof(found));
	rep->outcome = ADAPTER_TXN_NOT_COMMITTED;
	/* The --tool values are checked before anything changes; the hosts
	 * detected, after the recovery put back what a killed run left. */
	if ((req->tools_given && (rc = adapter__select_hosts(sel, req, 1, err)) < 0) ||
	    (rc = adapter__recover(&intents, &found, rep, req, err)) < 0 ||
	    (rc = count = adapter__select_hosts(sel, req, 1, err)) < 0)
		goto out;
	if (surface_given) {
		if (!sel[5]) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "--surface applies only when kiro is among the selected hosts");
			goto out;
		}
		if ((chosen = adapter__kiro_surface(req->surface)) == SURF_NONE) {
			rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE,
					    "the kiro surface must be ide or cli");
			goto out;
		}
	}
	if ((rc = adapter_txn_new(&txn, req->root, intents, err)) < 0)
		goto out;
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		struct sw_error herr = SW_ERROR_INIT;
		size_t first = adapter_txn_size(txn);

		if (!sel[i])
			continue;
		if (plan_install(rep, txn, req, &adapter__hosts[i], chosen, &herr) < 0) {
			if (count > 1 && !req->tools_given && !surface_given &&
			    i == 5 && is_surface_error(&herr)) {
				rc = adapter_strs_add(&rep->warnings,
					      "kiro was skipped: its first install needs --surface ide or --surface cli; the other detected hosts were installed", err);
				if (rc < 0)
					goto out;
				continue;
			}
			if (is_surface_error(&herr))
				rc = sw_error_proto(err, TBL_ERR_INVALID_ADAPTER_SURFACE, "%s", herr.msg);
			else
				rc = sw_error_set(err, herr.code, "cannot plan the %s install: %s", adapter__hosts[i].id, herr.msg);
			goto out;
		}
		if ((req->mcp || req->refresh) &&
		    adapter_mcp_plan_install(rep, txn, req->root, adapter__hosts[i].id, adapter__hosts[i].owner,
					     !req->mcp, &herr) < 0) {
			rc = sw_error_set(err, herr.code, "cannot plan the %s MCP registration: %s",
					  adapter__hosts[i].id, herr.msg);
			goto out;
		}
		if (adapter_folders_plan_install(rep, txn, req->root, adapter__hosts[i].id, adapter__hosts[i].owner,
						 first, &herr) < 0) {
			rc = sw_error_set(err, herr.code, "cannot plan the %s install: %s",
					  adapter__hosts[i].id, herr.msg);
			goto out;
		}
		if ((rc = adapter_strs_add(&rep->hosts, adapter__hosts[i].id, err)) < 0)
			goto out;
	}
	if ((rc = adapter_txn_describe(txn, "install", rep->hosts.v, rep->hosts.n, err)) == 0)
		rc = adapter__run_txn(rep, txn, req->root, err);
out:
	adapter_txn_free(txn);
	adapter_intent_dir_close(intents);
	adapter_intent_release(&found);
	adapter__report_normalize(rep);
	return rc;
}
