/* An install or uninstall that was interrupted, as the hosts see it: the
 * recovery install and uninstall run first (through the locked folder of
 * the intent record, `<git dir>/slipway`), the folders of every host where
 * a staged copy or backup can be left, what slipway generates there, and
 * how the recovery is told in a change report or in doctor's checks. */
#include "io/adapters/adapter_internal.h"
#include "io/adapters/adapter_intent.h"
#include "io/adapters/adapter_mcp.h"

#include <string.h>

#include "io/util/buf.h"
#include "io/util/digest.h"

/* The folders to look in, and the bytes slipway generates at each path. */
struct known {
	struct adapter_strs dirs;
	struct adapter_strs paths;	/* parallel to shas */
	char (*shas)[SW_HEX_LEN];
	size_t cap;
};

static void known_release(struct known *k)
{
	adapter_strs_release(&k->dirs);
	adapter_strs_release(&k->paths);
	sw_free(k->shas);
	k->shas = NULL;
	k->cap = 0;
}

static int add_dir_of(struct known *k, const char *rel, struct sw_error *err)
{
	const char *slash = strrchr(rel, '/');
	char *dir = slash ? sw_strndup(rel, (size_t)(slash - rel)) : sw_strdup("");
	int rc;

	if (dir == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	for (size_t i = 0; i < k->dirs.n; i++)
		if (strcmp(k->dirs.v[i], dir) == 0) {
			sw_free(dir);
			return 0;
		}
	rc = adapter_strs_addf_own(&k->dirs, dir, err);
	return rc;
}

static int add_known(struct known *k, const char *rel, const char *sha, struct sw_error *err)
{
	int rc;

	if (k->paths.n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 256;
		char (*grown)[SW_HEX_LEN] = sw_realloc(k->shas, cap * sizeof(*grown));

		if (grown == NULL)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		k->shas = grown;
		k->cap = cap;
	}
	memcpy(k->shas[k->paths.n], sha, SW_HEX_LEN);
	if ((rc = adapter_strs_add(&k->paths, rel, err)) < 0)
		return rc;
	return add_dir_of(k, rel, err);
}

/* Whether any folder of `h` (its ownership root, a detect folder) is
 * there: 1, 0, or SW_ENOMEM. */
static int present(const char *root, const struct host *h, struct sw_error *err)
{
	const char *dirs[6] = { h->owner };

	for (size_t i = 0; i < 5 && h->detect[i]; i++)
		dirs[i + 1] = h->detect[i];
	for (size_t i = 0; i < 6 && dirs[i]; i++) {
		char *p = sw_asprintf("%s/%s", root, dirs[i]);
		int yes;

		if (p == NULL)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		yes = adapter__exists(p);
		sw_free(p);
		if (yes)
			return 1;
	}
	return 0;
}

/* Every MCP configuration's folder (and so the root), and of each host
 * whose folders exist, every surface: what it generates and its ownership
 * folder.  A host with no folder has no staged copy or backup either. */
static int gather(struct known *k, const char *root, const struct adapter_text *texts,
		  struct sw_error *err)
{
	char sentinel_sha[SW_HEX_LEN];
	int rc = 0;

	memset(k, 0, sizeof(*k));
	sw_sha256_hex(SENTINEL_BYTES, strlen(SENTINEL_BYTES), sentinel_sha);
	for (size_t i = 0; i < ADAPTER_NHOSTS && rc == 0; i++) {
		const struct host *h = &adapter__hosts[i];
		enum surface probes[2] = { h->surface, SURF_NONE };
		char *sentinel;
		const char *configs[ADAPTER_MCP_MAX];
		size_t nconfigs = adapter_mcp_configs(h->id, configs, NULL);

		for (size_t c = 0; c < nconfigs && rc == 0; c++)
			rc = add_dir_of(k, configs[c], err);
		if (rc < 0 || (rc = present(root, h, err)) <= 0)
			continue;
		rc = 0;
		sentinel = adapter__owner_rel(h, SENTINEL_NAME);
		if (h->choice == CHOSEN_SURFACE) {
			probes[0] = SURF_KIRO_IDE;
			probes[1] = SURF_KIRO_CLI;
		}
		for (size_t p = 0; p < 2 && rc == 0; p++) {
			struct gen_set g = { NULL, 0 };

			if (probes[p] == SURF_NONE)
				continue;
			if ((rc = adapter__generate(&g, h, probes[p], texts, err)) < 0)
				break;
			for (size_t f = 0; f < g.n && rc == 0; f++)
				rc = add_known(k, g.v[f].rel, g.v[f].sha, err);
			adapter__gen_release(&g);
		}
		if (rc == 0)
			rc = sentinel ? add_known(k, sentinel, sentinel_sha, err)
				      : sw_error_set(err, SW_ENOMEM, "out of memory");
		sw_free(sentinel);
	}
	if (rc < 0)
		known_release(k);
	return rc;
}

/* What a recovery and then a sweep did (or would do), by event: the
 * sweep's collected files are `swept`, the files it keeps `left`. */
struct heard {
	const struct known *known;
	struct adapter_strs restored, discarded, collected, kept, swept, left, folders;
	int sweeping;
	struct sw_error *err;
};

static int is_known(const char *path, const char *sha, void *payload)
{
	const struct known *k = ((struct heard *)payload)->known;

	for (size_t i = 0; i < k->paths.n; i++)
		if (strcmp(k->paths.v[i], path) == 0 && strcmp(k->shas[i], sha) == 0)
			return 1;
	return 0;
}

static void heard_release(struct heard *h)
{
	adapter_strs_release(&h->restored);
	adapter_strs_release(&h->discarded);
	adapter_strs_release(&h->collected);
	adapter_strs_release(&h->kept);
	adapter_strs_release(&h->swept);
	adapter_strs_release(&h->left);
	adapter_strs_release(&h->folders);
}

static int hear(enum adapter_txn_event ev, const char *path, void *payload)
{
	struct heard *h = payload;
	struct adapter_strs *to = NULL;

	switch (ev) {
	case ADAPTER_TXN_EV_RESTORED: to = &h->restored; break;
	case ADAPTER_TXN_EV_DISCARDED: to = &h->discarded; break;
	case ADAPTER_TXN_EV_COLLECTED: to = h->sweeping ? &h->swept : &h->collected; break;
	case ADAPTER_TXN_EV_KEPT: to = h->sweeping ? &h->left : &h->kept; break;
	case ADAPTER_TXN_EV_FOLDER: to = &h->folders; break;
	case ADAPTER_TXN_EV_NONE: return 0;
	}
	return adapter_strs_add(to, path, h->err);
}

/* "a, b and c" (sw_malloc'd), or NULL on ENOMEM. */
static char *join(const struct adapter_strs *s)
{
	struct sw_buf b = SW_BUF_INIT;

	for (size_t i = 0; i < s->n; i++) {
		if (i)
			sw_buf_str(&b, i + 1 == s->n ? " and " : ", ");
		sw_buf_str(&b, s->v[i]);
	}
	if (s->n == 0)
		sw_buf_str(&b, "");
	return sw_buf_detach(&b);
}

/* "install of claude (process 123)" */
static char *batch_name(const struct adapter_intent *in)
{
	struct adapter_strs hosts = { in->hosts, in->nhosts };
	char *list = join(&hosts), *out;

	if (list == NULL)
		return NULL;
	out = sw_asprintf("%s%s%s (process %ld)", in->operation[0] ? in->operation : "install or uninstall",
			  in->nhosts ? " of " : "", list, in->pid);
	sw_free(list);
	return out;
}

/* What the recovery did, or (doctor) will do, in one sentence. */
static char *tell(const struct adapter_intent *in, const struct heard *h, int future)
{
	struct adapter_strs clauses = { NULL, 0 };
	char *name = batch_name(in), *list = join(&h->restored), *what = NULL, *out = NULL;
	int back = in->phase == ADAPTER_INTENT_PREPARED, ok = name && list;

	if (ok && h->restored.n)
		ok = adapter_strs_addf_own(&clauses, sw_asprintf(
			"%s %s from %s backup%s", future ? "restores" : "restored", list,
			h->restored.n > 1 ? "their" : "its", h->restored.n > 1 ? "s" : ""), NULL) == 0;
	if (ok && h->discarded.n)
		ok = adapter_strs_addf_own(&clauses, sw_asprintf(
			"%s %zu file(s) it had written where there was none", future ? "removes" : "removed",
			h->discarded.n), NULL) == 0;
	if (ok && h->collected.n)
		ok = adapter_strs_addf_own(&clauses, sw_asprintf(
			"%s %zu of its staged copies and backups", future ? "deletes" : "deleted",
			h->collected.n), NULL) == 0;
	if (ok && h->folders.n)
		ok = adapter_strs_addf_own(&clauses, sw_asprintf(
			"%s %zu folder(s) it had %s", future ? "removes" : "removed", h->folders.n,
			back ? "created" : "emptied"), NULL) == 0;
	if (ok && (what = join(&clauses)) != NULL) {
		if (future)
			out = sw_asprintf("an %s was killed %s it committed; the next slipway install or "
					  "uninstall %s%s%s", name, back ? "before" : "after",
					  back ? "rolls it back" : "completes it", *what ? ": " : "", what);
		else
			out = sw_asprintf("an interrupted %s was %s%s%s", name,
					  back ? "rolled back" : "completed", *what ? ": " : "", what);
	}
	adapter_strs_release(&clauses);
	sw_free(what);
	sw_free(name);
	sw_free(list);
	return out;
}

/* The host id of the hosts table (static), or "-". */
static const char *static_host(const struct adapter_intent *in)
{
	for (size_t i = 0; in->nhosts == 1 && i < ADAPTER_NHOSTS; i++)
		if (strcmp(adapter__hosts[i].id, in->hosts[0]) == 0)
			return adapter__hosts[i].id;
	return "-";
}

static char *kept_sentence(const struct adapter_strs *kept, int future)
{
	char *list = join(kept), *out;

	if (list == NULL)
		return NULL;
	out = sw_asprintf("%s %zu file(s) an interrupted slipway install or uninstall left, which slipway cannot "
			  "prove hold only its own bytes: %s; inspect them, move back what you need and delete them by hand",
			  future ? "it keeps" : "kept", kept->n, list);
	sw_free(list);
	return out;
}

static char *swept_sentence(const struct adapter_strs *swept, int future)
{
	char *list = join(swept), *out;

	if (list == NULL)
		return NULL;
	out = sw_asprintf("%s %zu file(s) an interrupted slipway install or uninstall left, holding only bytes "
			  "slipway generates: %s", future ? "it deletes" : "deleted", swept->n, list);
	sw_free(list);
	return out;
}

/* The recovery, then the sweep of every host folder, heard into *h.
 * *found is the record (phase NONE when none). */
static int recover_and_sweep(struct heard *h, struct adapter_intent *found, const char *root,
			     struct adapter_intent_dir *d, int dry_run,
			     const struct adapter_text *texts, struct sw_error *err)
{
	struct known k;
	int rc;

	memset(&k, 0, sizeof(k));
	h->err = err;
	h->known = &k;
	if ((rc = adapter_txn_recover(found, root, d, dry_run, hear, h, err)) < 0 ||
	    (rc = gather(&k, root, texts, err)) < 0)
		goto out;
	h->sweeping = 1;
	for (size_t i = 0; i < k.dirs.n && rc == 0; i++)
		rc = adapter_txn_sweep(root, k.dirs.v[i], dry_run ? found : NULL, dry_run, is_known, hear, h, err);
	adapter_strs_normalize(&h->kept);
	adapter_strs_normalize(&h->left);
	adapter_strs_normalize(&h->swept);
	adapter_strs_normalize(&h->restored);
out:
	h->known = NULL;
	known_release(&k);
	return rc;
}

static char *intent_dir(const char *git_dir)
{
	return sw_asprintf("%s/slipway", git_dir);
}

int adapter__recover(struct adapter_intent_dir **out, struct adapter_intent *found,
		     struct adapter_report *rep, const struct adapter_request *req,
		     struct sw_error *err)
{
	struct heard h;
	char *dir = intent_dir(req->git_dir);
	int rc;

	memset(&h, 0, sizeof(h));
	memset(found, 0, sizeof(*found));
	*out = NULL;
	if (dir == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = adapter_intent_dir_open(out, dir, 1, err)) < 0 ||
	    (rc = recover_and_sweep(&h, found, req->root, *out, 0, req->texts, err)) < 0)
		goto out;
	if (found->phase != ADAPTER_INTENT_NONE &&
	    (rc = adapter_strs_addf_own(&rep->warnings, tell(found, &h, 0), err)) < 0)
		goto out;
	/* Kept by the recovery or found by the sweep: the same to the user. */
	for (size_t i = 0; i < h.left.n; i++)
		if ((rc = adapter_strs_add(&h.kept, h.left.v[i], err)) < 0)
			goto out;
	adapter_strs_normalize(&h.kept);
	for (size_t i = 0; i < h.kept.n; i++)
		if ((rc = adapter_strs_add(&rep->recovery, h.kept.v[i], err)) < 0)
			goto out;
	if ((h.kept.n && (rc = adapter_strs_addf_own(&rep->warnings, kept_sentence(&h.kept, 0), err)) < 0) ||
	    (h.swept.n && (rc = adapter_strs_addf_own(&rep->warnings, swept_sentence(&h.swept, 0), err)) < 0))
		goto out;
out:
	if (rc < 0) {
		adapter_intent_dir_close(*out);
		*out = NULL;
		adapter_intent_release(found);
	}
	sw_free(dir);
	heard_release(&h);
	return rc;
}

/* Appends one check to out[*n]; `detail` is taken (NULL: out of memory). */
static int say(struct interruption *out, size_t *n, const char *code, const char *status,
	       const char *host, char *detail, struct sw_error *err)
{
	if (detail == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	out[*n] = (struct interruption){ code, status, host, detail };
	(*n)++;
	return 0;
}

int adapter__doctor_interrupted(struct interruption out[2], size_t *n, const char *root,
				const char *git_dir, const struct adapter_text *texts,
				struct sw_error *err)
{
	struct sw_error herr = SW_ERROR_INIT;
	struct adapter_intent_dir *d = NULL;
	struct adapter_intent found;
	struct heard h;
	char *dir = intent_dir(git_dir);
	int rc = 0;

	*n = 0;
	memset(&h, 0, sizeof(h));
	memset(&found, 0, sizeof(found));
	if (dir == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (adapter_intent_dir_open(&d, dir, 0, &herr) < 0) {
		rc = herr.code == SW_ENOMEM ? sw_error_set(err, SW_ENOMEM, "out of memory")
		     : say(out, n, "adapter_transaction_unreadable", "error", "-", sw_strdup(herr.msg), err);
		goto out;
	}
	if (adapter_intent_dir_busy(d)) {
		rc = say(out, n, "adapter_transaction_running", "warning", "-", sw_strdup(
			"a slipway install or uninstall is running in this worktree; run doctor again once it ends"),
			err);
		goto out;
	}
	if (recover_and_sweep(&h, &found, root, d, 1, texts, &herr) < 0) {
		rc = herr.code == SW_ENOMEM ? sw_error_set(err, SW_ENOMEM, "out of memory")
		     : say(out, n, "adapter_transaction_unreadable", "error", "-", sw_asprintf(
			"%s; the next install or uninstall stops on it too: check the files it names, then move %s/%s out of the way",
			herr.msg, dir, ADAPTER_INTENT_NAME), err);
		goto out;
	}
	if (found.phase != ADAPTER_INTENT_NONE) {
		char *said = tell(&found, &h, 1), *kept = h.kept.n ? kept_sentence(&h.kept, 1) : NULL;

		rc = say(out, n, "adapter_transaction_interrupted", "warning", static_host(&found),
			 said && (kept || !h.kept.n) ? sw_asprintf("%s%s%s", said, kept ? "; " : "", kept ? kept : "")
						     : NULL, err);
		sw_free(said);
		sw_free(kept);
		if (rc < 0)
			goto out;
	}
	if (h.left.n + h.swept.n) {
		char *a = h.swept.n ? swept_sentence(&h.swept, 1) : NULL;
		char *k = h.left.n ? kept_sentence(&h.left, 1) : NULL;

		rc = say(out, n, "adapter_leftover_files", "warning", "-",
			 (a || !h.swept.n) && (k || !h.left.n)
			 ? sw_asprintf("the next slipway install or uninstall looks at what is left: %s%s%s",
				       a ? a : "", a && k ? "; " : "", k ? k : "") : NULL, err);
		sw_free(a);
		sw_free(k);
	}
out:
	sw_free(dir);
	heard_release(&h);
	adapter_intent_release(&found);
	adapter_intent_dir_close(d);
	return rc;
}
