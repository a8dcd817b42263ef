/* Inspection for list and doctor: how each host's claimed files compare
 * with what this build generates, the MCP registration, the retired
 * namespace in the Git common directory and the run store's checks the
 * caller found.  Reads only; never writes or removes a file. */
#include "io/adapters/adapter_internal.h"
#include "io/adapters/adapter_intent.h"
#include "io/adapters/adapter_mcp.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/util/digest.h"

struct inspection {
	int complete;
	int refreshable;	/* install --refresh would write or claim a file */
	int modified, stale;
	int moved;		/* claims on files of the layout this build replaced */
	int sentinel_missing, sentinel_modified;
	int healthy_caps[ADAPTER_NCAPS];
	/* Generated paths with no claim that hold a file: the person's (an
	 * edit a refresh kept, or a file that was there first).  Neither
	 * refresh nor uninstall touches them. */
	struct adapter_strs kept;
};

static void inspection_release(struct inspection *in)
{
	adapter_strs_release(&in->kept);
}

/* What install --refresh does with the generated files that have no
 * claim (see inspect_for_install in adapter_install.c): one that exists
 * is kept as the person's; a missing one is written, unless it is an
 * entrypoint whose capability has a support file kept.  Counts the kept
 * ones into in->kept and sets in->refreshable when one would be written. */
static int unclaimed_files(struct inspection *in, const char *root, const struct manifest *m,
			   const struct gen_set *g, struct sw_error *err)
{
	int blocked[ADAPTER_NCAPS] = { 0 };
	int rc = 0;

	for (int phase = 0; phase < 2 && rc == 0; phase++) {
		for (size_t i = 0; i < g->n && rc == 0; i++) {
			const struct gen_file *f = &g->v[i];
			struct sw_error ignore = SW_ERROR_INIT;
			size_t ci;
			char *abs;

			if (f->callable != phase || adapter__claim_find(m, f->rel) != NULL)
				continue;
			for (ci = 0; ci < ADAPTER_NCAPS && strcmp(adapter_capabilities[ci], f->cap) != 0; ci++)
				;
			if ((abs = adapter__safe_path(root, f->rel, &ignore)) == NULL)
				continue;
			if (adapter__exists(abs)) {
				rc = adapter_strs_add(&in->kept, f->rel, err);
				if (!f->callable && ci < ADAPTER_NCAPS)
					blocked[ci] = 1;
			} else if (!(f->callable && ci < ADAPTER_NCAPS && blocked[ci])) {
				in->refreshable = 1;
			}
			sw_free(abs);
		}
	}
	return rc;
}

static int inspect(struct inspection *in, const char *root, const struct host *h,
		   const struct manifest *m, enum surface s,
		   const struct adapter_text *texts, struct sw_error *err)
{
	struct gen_set g = { NULL, 0 };
	int *healthy = NULL;
	char sentinel_sha[SW_HEX_LEN];
	char *spath = NULL;
	enum cls k;
	int rc;

	memset(in, 0, sizeof(*in));
	if ((rc = adapter__generate(&g, h, s, texts, err)) < 0)
		return rc;
	if ((healthy = sw_calloc(g.n + 1, sizeof(*healthy))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	in->complete = m->n == g.n;
	for (size_t i = 0; i < g.n; i++) {
		const struct claim *c = adapter__claim_find(m, g.v[i].rel);

		if (!c || strcmp(c->sha, g.v[i].sha) != 0)
			in->complete = 0;
		if (c && strcmp(c->sha, g.v[i].sha) != 0)
			in->refreshable = 1;
	}
	if ((rc = unclaimed_files(in, root, m, &g, err)) < 0)
		goto out;
	for (size_t i = 0; i < m->n; i++) {
		const struct gen_file *f = adapter__gen_claimed(&g, m->files[i].path, m->files[i].sha);
		struct sw_error ignore = SW_ERROR_INIT;
		char *abs;

		if (f && !(f >= g.v && f < g.v + g.n)) {
			/* Installed in an earlier layout: install --refresh moves it. */
			in->moved++;
			in->complete = 0;
			continue;
		}
		if (!f) {
			in->stale++;
			in->modified++;
			continue;
		}
		if ((abs = adapter__safe_path(root, f->rel, &ignore)) == NULL) {
			in->modified++;
			continue;
		}
		if (adapter__classify(&k, abs, f->sha, &ignore) < 0 || k != CLS_PRISTINE)
			in->modified++;
		else
			healthy[f - g.v] = 1;
		sw_free(abs);
	}
	for (size_t c = 0; c < ADAPTER_NCAPS; c++) {
		int found = 0, ok = 1;

		for (size_t i = 0; i < g.n; i++) {
			const struct claim *cl;

			if (strcmp(g.v[i].cap, adapter_capabilities[c]) != 0)
				continue;
			found = 1;
			cl = adapter__claim_find(m, g.v[i].rel);
			if (!cl || strcmp(cl->sha, g.v[i].sha) != 0 || !healthy[i])
				ok = 0;
		}
		in->healthy_caps[c] = found && ok;
	}
	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	if ((spath = adapter__owner_file(root, h, SENTINEL_NAME, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = adapter__classify(&k, spath, sentinel_sha, err)) < 0)
		goto out;
	if (k == CLS_MISSING) {
		in->sentinel_missing = 1;
		in->modified++;
	} else if (k == CLS_MODIFIED) {
		in->sentinel_modified = 1;
		in->modified++;
	}
out:
	if (rc < 0)
		inspection_release(in);
	sw_free(spath);
	sw_free(healthy);
	adapter__gen_release(&g);
	return rc;
}

/* "a, b, c" of `s`, sw_malloc'd; NULL when out of memory. */
static char *joined(const struct adapter_strs *s)
{
	size_t len = 1;
	char *out;

	for (size_t i = 0; i < s->n; i++)
		len += strlen(s->v[i]) + 2;
	if ((out = sw_calloc(len, 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			strncat(out, ", ", len - 1 - strlen(out));
		strncat(out, s->v[i], len - 1 - strlen(out));
	}
	return out;
}

/* The files a refresh kept as the person's, and the way back to what
 * slipway generates: move the copy away, then refresh. */
static char *kept_detail(const struct inspection *in, const struct host *h, int for_list)
{
	char *list = joined(&in->kept), *out;

	if (list == NULL)
		return NULL;
	if (for_list)
		out = sw_asprintf("%zu file(s) slipway generates are yours, not managed (edited, then kept by a refresh): %s; "
				  "slipway doctor says how to get slipway's back", in->kept.n, list);
	else
		out = sw_asprintf("%zu file(s) slipway generates are yours now and no longer managed (you edited them and a refresh kept them): %s. "
				  "install --refresh never overwrites them and uninstall leaves them; to get slipway's version back, "
				  "move your copy out of %s (or delete it), then run slipway install --refresh --tool %s",
				  in->kept.n, list, h->owner, h->id);
	sw_free(list);
	return out;
}

static enum surface manifest_surface(const struct host *h, const struct manifest *m)
{
	return h->choice == CHOSEN_SURFACE ? adapter__kiro_surface(m->surface) : h->surface;
}

/* Where slipway mcp is registered for `h`, or the warning that our entry
 * changed or is an earlier slipway's (shown unless the host has a warning
 * already). */
static int list_mcp(struct adapter_host_status *st, const char *root, const struct host *h,
		    struct sw_error *err)
{
	struct adapter_mcp_status ms[ADAPTER_MCP_MAX];
	struct sw_error herr = SW_ERROR_INIT;
	const char *changed = NULL, *outdated = NULL;
	size_t n = 0, k = 0;

	if (adapter_mcp_inspect(ms, &n, root, h->id, h->owner, &herr) < 0) {
		if (herr.code == SW_ENOMEM)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		n = 0;
		st->mcp_changed = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (ms[i].state == ADAPTER_MCP_REGISTERED || ms[i].state == ADAPTER_MCP_OUTDATED)
			st->mcp_config[k++] = ms[i].config;
		if (ms[i].state == ADAPTER_MCP_CHANGED && changed == NULL)
			changed = ms[i].config;
		if (ms[i].state == ADAPTER_MCP_OUTDATED && outdated == NULL)
			outdated = ms[i].config;
	}
	st->mcp_changed |= changed != NULL;
	st->mcp_outdated = outdated != NULL;
	if (outdated)
		st->needs_refresh = 1;
	if (st->warning == NULL && (changed || st->mcp_changed) &&
	    (st->warning = sw_asprintf("the slipway MCP server entry in %s is missing or changed; it is kept",
				       changed ? changed : "the host's MCP configuration")) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (st->warning == NULL && outdated &&
	    (st->warning = sw_asprintf("the slipway MCP server entry in %s is as an earlier slipway wrote it; "
				       "slipway install --refresh rewrites it", outdated)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	return 0;
}

int adapter_list(struct adapter_host_status out[ADAPTER_NHOSTS], const char *root,
		 const struct adapter_text *texts, struct sw_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out) * ADAPTER_NHOSTS);
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		const struct host *h = &adapter__hosts[i];
		struct adapter_host_status *st = &out[i];
		struct sw_error herr = SW_ERROR_INIT;
		struct inspection in;
		struct manifest m;
		int want_warning = 0;

		st->id = h->id;
		st->detected = adapter__detected(root, h);
		if (adapter__manifest_load(&m, root, h, texts, &herr) < 0) {
			if (herr.code == SW_ENOMEM)
				return sw_error_set(err, SW_ENOMEM, "out of memory");
			if ((st->warning = sw_asprintf("the ownership manifest cannot be read: %s", herr.msg)) == NULL)
				return sw_error_set(err, SW_ENOMEM, "out of memory");
			continue;
		}
		st->installed = m.found;
		if (m.found) {
			if (inspect(&in, root, h, &m, manifest_surface(h, &m), texts, &herr) < 0) {
				want_warning = 1;
				st->warning = sw_asprintf("the managed files cannot be inspected: %s", herr.msg);
			} else {
				/* REFRESH needed only where a refresh changes something. */
				st->needs_refresh = in.refreshable || in.modified > 0 || in.moved > 0;
				want_warning = in.stale > 0 || in.kept.n > 0;
				if (in.stale > 0)
					st->warning = sw_asprintf(
						"%d ownership claim(s) record bytes this slipway version does not generate; refresh or uninstall keeps those files and drops the claims",
						in.stale);
				else if (in.kept.n > 0)
					st->warning = kept_detail(&in, h, 1);
				for (size_t c = 0; c < ADAPTER_NCAPS; c++)
					if (in.healthy_caps[c])
						st->caps[st->ncaps++] = adapter_capabilities[c];
				inspection_release(&in);
			}
		}
		adapter__manifest_release(&m);
		if (want_warning && st->warning == NULL)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		if ((rc = list_mcp(st, root, h, err)) < 0)
			return rc;
	}
	return 0;
}

void adapter_list_release(struct adapter_host_status st[ADAPTER_NHOSTS])
{
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++) {
		sw_free(st[i].warning);
		st[i].warning = NULL;
	}
}

int adapter_checks_add(struct adapter_checks *c, const char *code, const char *status,
		       const char *host, const char *name, const char *detail,
		       struct sw_error *err)
{
	struct adapter_check *grown = sw_realloc(c->v, (c->n + 1) * sizeof(*grown));
	struct adapter_check *k;

	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	c->v = grown;
	k = &c->v[c->n];
	memset(k, 0, sizeof(*k));
	k->status = status;
	k->host = host;
	k->name = name;
	if ((k->code = sw_strdup(code)) == NULL || (k->detail = sw_strdup(detail)) == NULL) {
		sw_free(k->code);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	c->n++;
	return 0;
}

void adapter_checks_release(struct adapter_checks *c)
{
	for (size_t i = 0; i < c->n; i++) {
		sw_free(c->v[i].code);
		sw_free(c->v[i].detail);
	}
	sw_free(c->v);
	c->v = NULL;
	c->n = 0;
}

static int add_own(struct adapter_checks *c, const char *code, const char *status,
		   const char *host, const char *name, char *detail, struct sw_error *err)
{
	int rc;

	if (detail == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	rc = adapter_checks_add(c, code, status, host, name, detail, err);
	sw_free(detail);
	return rc;
}

/* Generated files of `h` (every kiro surface) left without a manifest. */
static char *unowned_detail(const char *root, const struct host *h,
			    const struct adapter_text *texts)
{
	enum surface probes[2] = { h->surface, SURF_NONE };
	struct adapter_strs found = { NULL, 0 };
	char *list = NULL, *out = NULL;

	if (h->choice == CHOSEN_SURFACE) {
		probes[0] = SURF_KIRO_IDE;
		probes[1] = SURF_KIRO_CLI;
	}
	for (size_t p = 0; p < 2; p++) {
		struct gen_set g = { NULL, 0 };

		if (probes[p] == SURF_NONE || adapter__generate(&g, h, probes[p], texts, NULL) < 0)
			continue;
		for (size_t i = 0; i < g.n; i++) {
			char *abs = adapter__safe_path(root, g.v[i].rel, NULL);

			if (abs && adapter__exists(abs))
				(void)adapter_strs_add(&found, g.v[i].rel, NULL);
			sw_free(abs);
		}
		adapter__gen_release(&g);
	}
	adapter_strs_normalize(&found);
	if (found.n == 0 || (list = joined(&found)) == NULL)
		goto done;
	out = sw_asprintf("detected without an ownership manifest; %zu generated capability file(s) are left unowned: %s. "
			  "Uninstall will not remove them and --refresh will not adopt them; back them up, delete the ones to recreate, then run slipway install --tool %s%s",
			  found.n, list, h->id, h->choice == CHOSEN_SURFACE ? " --surface ide|cli" : "");
done:
	sw_free(list);
	adapter_strs_release(&found);
	return out;
}

/* The MCP registrations of an installed host, when there are any. */
static int doctor_mcp(struct adapter_checks *c, const char *root, const struct host *h,
		      struct sw_error *err)
{
	struct adapter_mcp_status ms[ADAPTER_MCP_MAX];
	struct sw_error herr = SW_ERROR_INIT;
	size_t n = 0;
	int rc = 0;

	if (adapter_mcp_inspect(ms, &n, root, h->id, h->owner, &herr) < 0)
		return adapter_checks_add(c, "mcp_server_unreadable", "error", h->id, "MCP server", herr.msg, err);
	for (size_t i = 0; i < n && rc == 0; i++) {
		switch (ms[i].state) {
		case ADAPTER_MCP_REGISTERED:
			rc = add_own(c, "mcp_server_registered", "ok", h->id, "MCP server", sw_asprintf(
				"slipway mcp is registered in %s", ms[i].config), err);
			break;
		case ADAPTER_MCP_OUTDATED:
			rc = add_own(c, "mcp_server_refresh_required", "warning", h->id, "MCP server", sw_asprintf(
				"slipway mcp is registered in %s as an earlier slipway wrote it; slipway install "
				"--refresh rewrites it where the host reads it now", ms[i].config), err);
			break;
		case ADAPTER_MCP_CHANGED:
			rc = add_own(c, "mcp_server_modified", "warning", h->id, "MCP server", sw_asprintf(
				"the slipway entry in %s is missing or changed; it is kept as yours, and "
				"slipway install --mcp --refresh cannot replace it", ms[i].config), err);
			break;
		case ADAPTER_MCP_NONE:
			break;
		}
	}
	return rc;
}

static int doctor_host(struct adapter_checks *c, const char *root, const struct host *h,
		       const struct adapter_text *texts, struct sw_error *err)
{
	struct sw_error herr = SW_ERROR_INIT;
	struct inspection in;
	struct manifest m;
	char *spath = NULL;
	int rc = 0;

	if (adapter__manifest_load(&m, root, h, texts, &herr) < 0)
		return adapter_checks_add(c, "adapter_manifest_unreadable", "error", h->id, "manifest", herr.msg, err);
	if (!m.found && !adapter__detected(root, h)) {
		rc = adapter_checks_add(c, "adapter_not_detected", "ok", h->id, "adapter", "not detected", err);
		goto out;
	}
	if (!m.found) {
		char *detail = NULL;

		spath = adapter__owner_file(root, h, SENTINEL_NAME, NULL);
		if (spath && adapter__exists(spath))
			detail = adapter__missing_manifest_warning(h);
		else if ((detail = unowned_detail(root, h, texts)) == NULL)
			detail = sw_strdup("detected, but no ownership manifest is installed");
		rc = add_own(c, "adapter_not_installed", "warning", h->id, "adapter", detail, err);
		goto out;
	}
	if (inspect(&in, root, h, &m, manifest_surface(h, &m), texts, &herr) < 0) {
		rc = adapter_checks_add(c, "adapter_inspection_unavailable", "error", h->id, "adapter inspection", herr.msg, err);
		goto out;
	}
	if (in.sentinel_modified)
		rc = add_own(c, "adapter_modified", "warning", h->id, "adapter", sw_asprintf(
			"the generated marker %s/slipway/" SENTINEL_NAME " was edited and is kept as your file%s; inspect and delete it before slipway install --refresh to regenerate",
			h->owner, in.modified > 1 ? " (other managed files changed or are missing too)" : ""), err);
	else if (in.moved > 0 && in.stale == 0)
		rc = add_own(c, "adapter_refresh_required", "warning", h->id, "adapter", sw_asprintf(
			"%d file(s) are where an earlier slipway installed them; slipway install --refresh moves them "
			"to where this version installs them, and keeps those you edited", in.moved), err);
	else if (in.stale > 0)
		rc = add_own(c, "adapter_refresh_required", "warning", h->id, "adapter", sw_asprintf(
			"%d ownership claim(s) record bytes this version does not generate; refresh or uninstall keeps those files and drops the claims; delete them first to regenerate",
			in.stale), err);
	else if (in.kept.n > 0)
		rc = add_own(c, "adapter_modified", "warning", h->id, "adapter", kept_detail(&in, h, 0), err);
	else if (!in.complete || in.sentinel_missing)
		rc = adapter_checks_add(c, "adapter_refresh_required", "warning", h->id, "adapter",
					"the managed capability set or its marker is incomplete or outdated; run slipway install --refresh", err);
	else if (in.modified > 0)
		rc = add_own(c, "adapter_modified", "warning", h->id, "adapter", sw_asprintf(
			"%d managed file(s) changed or missing", in.modified), err);
	else
		rc = add_own(c, "adapter_healthy", "ok", h->id, "adapter", sw_asprintf(
			"%zu managed files", m.n), err);
	inspection_release(&in);
	if (rc == 0)
		rc = doctor_mcp(c, root, h, err);
out:
	sw_free(spath);
	adapter__manifest_release(&m);
	return rc;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int legacy_checks(struct adapter_checks *c, const char *common, struct sw_error *err)
{
	static const char *const names[][2] = {
		{ "runtime", "legacy_runtime_residue" },
		{ "cache", "legacy_cache_residue" },
		{ "scope-root", "legacy_scope_root_residue" },
		{ "scopes", "legacy_scopes_residue" },
		{ "locks", "legacy_locks_residue" },
		{ "processes", "legacy_processes_residue" },
		{ "repair-backups", "legacy_repair_backups_residue" },
	};
	struct adapter_strs entries = { NULL, 0 };
	char *dir = sw_asprintf("%s/slipway", common);
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int rc = 0;

	if (dir == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (lstat(dir, &st) < 0 && errno == ENOENT)
		goto out;
	if (!S_ISDIR(st.st_mode) || (d = opendir(dir)) == NULL) {
		rc = adapter_checks_add(c, "legacy_unknown_residue", "warning", "-", "legacy_runstore",
					"the retired slipway namespace in the Git common directory could not be inspected safely; "
					"stop any old slipway binary, back up the Git common directory and inspect it by hand; nothing is migrated or deleted", err);
		goto out;
	}
	/* The record of an install or uninstall in flight is not retired
	 * data: adapter_transaction_* report it. */
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "runs") &&
		    strcmp(de->d_name, ADAPTER_INTENT_NAME) && strcmp(de->d_name, ADAPTER_INTENT_NAME ".tmp") &&
		    (rc = adapter_strs_add(&entries, de->d_name, err)) < 0)
			goto out;
	if (entries.n)
		qsort(entries.v, entries.n, sizeof(*entries.v), cmp_cstr);
	for (size_t i = 0; i < entries.n; i++) {
		const char *code = "legacy_unknown_residue";

		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(names[k][0], entries.v[i]) == 0)
				code = names[k][1];
		if ((rc = add_own(c, code, "warning", "-", "legacy_runstore", sw_asprintf(
			     "retired slipway data \"%s\" remains in the Git common directory; stop any old slipway binary, back up the Git common directory and remove it by hand if you wish; nothing is migrated or deleted",
			     entries.v[i]), err)) < 0)
			goto out;
	}
out:
	if (d)
		closedir(d);
	adapter_strs_release(&entries);
	sw_free(dir);
	return rc;
}

/* The run store's checks (the caller made them from what the store
 * found, see struct adapter_store_facts), in its order. */
static int store_checks(struct adapter_checks *c, const struct adapter_store_facts *store,
			struct sw_error *err)
{
	int rc = 0;

	for (size_t i = 0; store != NULL && i < store->n && rc == 0; i++)
		rc = adapter_checks_add(c, store->v[i].code, store->v[i].status, "-", "runstore",
					store->v[i].detail, err);
	return rc;
}

int adapter_doctor_local(struct adapter_checks *c, const char *root, const char *git_dir,
			 const char *git_common_dir, const struct adapter_store_facts *store,
			 const struct adapter_text *texts, struct sw_error *err)
{
	int rc;

	if ((rc = adapter_checks_add(c, "repository_ok", "ok", "-", "repository", root, err)) < 0)
		return rc;
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		if ((rc = doctor_host(c, root, &adapter__hosts[i], texts, err)) < 0)
			return rc;
	if (git_dir != NULL) {
		struct interruption said[2];
		size_t n = 0;

		rc = adapter__doctor_interrupted(said, &n, root, git_dir, texts, err);
		for (size_t i = 0; i < n; i++) {
			if (rc == 0)
				rc = adapter_checks_add(c, said[i].code, said[i].status, said[i].host,
							"adapter transaction", said[i].detail, err);
			sw_free(said[i].detail);
		}
		if (rc < 0)
			return rc;
	}
	if (git_common_dir == NULL)
		return 0;
	if ((rc = legacy_checks(c, git_common_dir, err)) < 0)
		return rc;
	return store_checks(c, store, err);
}
