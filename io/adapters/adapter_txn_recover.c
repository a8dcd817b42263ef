/* After a kill: a batch that never committed rolled back from its intent
 * record, one that committed rolled forward, and the staged copies and
 * backups no record names collected when provably slipway's or reported.
 * The other half of the transaction's contract; see
 * io/adapters/adapter_txn.h. */

#include "io/adapters/adapter_txn.h"
#include "io/adapters/adapter_intent.h"
#include "io/adapters/adapter_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ctx {
	int rootfd;
	int dry;
	adapter_txn_event_fn *fn;
	void *payload;
	struct sw_error *err;
};

static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Tells `fn` of `name` beside `path` (NULL: of `path` itself). */
static int emit(struct ctx *c, enum adapter_txn_event ev, const char *path, const char *name)
{
	char *rel;
	int rc;

	if (name == NULL)
		return c->fn ? c->fn(ev, path, c->payload) : 0;
	if ((rel = sw_asprintf("%.*s%s", (int)(base(path) - path), path, name)) == NULL)
		return sw_error_set(c->err, SW_ENOMEM, "out of memory");
	rc = c->fn ? c->fn(ev, rel, c->payload) : 0;
	sw_free(rel);
	return rc;
}

static int exists_at(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Whether `name` holds exactly the bytes of sha256 `sha`. */
static int holds(int dfd, const char *name, const char *sha)
{
	char hex[SW_HEX_LEN];

	return adapter__hash_at(dfd, name, hex) == 0 && strcmp(hex, sha) == 0;
}

/* A staged copy: ours while it is a regular file no longer than the new
 * bytes it was being written with (a kill may have cut it short).  One
 * that cannot be deleted is only reported: it is nobody's data. */
static int drop_staged(struct ctx *c, int dfd, const struct adapter_intent_op *o)
{
	struct stat st;

	if (fstatat(dfd, o->tmp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > o->size ||
	    (!c->dry && unlinkat(dfd, o->tmp, 0) < 0))
		return emit(c, ADAPTER_TXN_EV_KEPT, o->path, o->tmp);
	return emit(c, ADAPTER_TXN_EV_COLLECTED, o->path, o->tmp);
}

/* Prepared: puts back what was there before the batch.  A step that
 * fails stops the recovery with the record kept: a retry must not run on
 * a tree whose user file is still a backup. */
static int roll_back(struct ctx *c, int dfd, const struct adapter_intent_op *o)
{
	const char *name = base(o->path);
	int is_new = o->kind == ADAPTER_INTENT_WRITE && holds(dfd, name, o->new_sha);
	int rc;

	if (o->tmp && (rc = drop_staged(c, dfd, o)) != 0)
		return rc;
	if (o->bak && exists_at(dfd, o->bak)) {
		/* The backup goes back over nothing, or over the batch's own new
		 * bytes; anything else at the target is someone's and stays. */
		if (exists_at(dfd, name) && !is_new)
			return emit(c, ADAPTER_TXN_EV_KEPT, o->path, o->bak);
		if (!c->dry && (exists_at(dfd, name) ? renameat(dfd, o->bak, dfd, name)
						     : adapter__rename_noreplace(dfd, o->bak, name)) < 0)
			return sw_error_sys(c->err, errno, "cannot restore '%s' from '%s'", o->path, o->bak);
		return emit(c, ADAPTER_TXN_EV_RESTORED, o->path, NULL);
	}
	if (o->prior == ADAPTER_PRIOR_MISSING && is_new) {
		if (!c->dry && unlinkat(dfd, name, 0) < 0)
			return sw_error_sys(c->err, errno, "cannot remove '%s'", o->path);
		return emit(c, ADAPTER_TXN_EV_DISCARDED, o->path, NULL);
	}
	return 0;
}

/* Committed: deletes what the batch no longer needs (what cannot be
 * deleted is reported; the batch's change is in place). */
static int roll_forward(struct ctx *c, int dfd, const struct adapter_intent_op *o)
{
	const char *name = base(o->path);
	int rc;

	if (o->tmp && (rc = drop_staged(c, dfd, o)) != 0)
		return rc;
	if (o->bak == NULL || !exists_at(dfd, o->bak))
		return 0;
	/* Deleted only while provably the copy of the bytes replaced, and the
	 * batch's change is in place. */
	if (o->prior != ADAPTER_PRIOR_SHA256 || !holds(dfd, o->bak, o->prior_sha) ||
	    (o->kind == ADAPTER_INTENT_WRITE ? !holds(dfd, name, o->new_sha) : exists_at(dfd, name)) ||
	    (!c->dry && unlinkat(dfd, o->bak, 0) < 0))
		return emit(c, ADAPTER_TXN_EV_KEPT, o->path, o->bak);
	return emit(c, ADAPTER_TXN_EV_COLLECTED, o->path, o->bak);
}

/* Removes folder `rel` when it is empty (read only: when it exists). */
static int remove_folder(struct ctx *c, const char *rel)
{
	int fd = adapter__open_dir(c->rootfd, rel, 1), gone;

	if (fd < 0)
		return 0;
	gone = c->dry ? exists_at(fd, base(rel)) : unlinkat(fd, base(rel), AT_REMOVEDIR) == 0;
	close(fd);
	return gone ? emit(c, ADAPTER_TXN_EV_FOLDER, rel, NULL) : 0;
}

/* A folder that is gone, or is not a folder we follow (a symlink), holds
 * no staged copy or backup of ours. */
static int not_there(void)
{
	return errno == ENOENT || errno == ENOTDIR || errno == ELOOP;
}

static size_t depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		d += *p == '/';
	return d;
}

int adapter_txn_recover(struct adapter_intent *found, const char *root,
			struct adapter_intent_dir *intents, int dry_run,
			adapter_txn_event_fn *fn, void *payload, struct sw_error *err)
{
	struct ctx c = { -1, dry_run, fn, payload, err };
	int rc, back;

	if ((rc = adapter_intent_read(found, intents, err)) < 0 || found->phase == ADAPTER_INTENT_NONE)
		return rc;
	back = found->phase == ADAPTER_INTENT_PREPARED;
	if ((c.rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return sw_error_sys(err, errno, "cannot open '%s'", root);
	/* Backwards when undoing, as the in-process undo goes. */
	for (size_t k = 0; k < found->nops && rc == 0; k++) {
		const struct adapter_intent_op *o = &found->ops[back ? found->nops - 1 - k : k];
		int dfd = adapter__open_dir(c.rootfd, o->path, 1);

		if (dfd < 0) {
			if (!not_there())
				rc = sw_error_sys(err, errno, "cannot open the folder of '%s'", o->path);
			continue;
		}
		rc = back ? roll_back(&c, dfd, o) : roll_forward(&c, dfd, o);
		if (rc == 0 && !dry_run && fsync(dfd) < 0)
			rc = sw_error_sys(err, errno, "cannot sync the folder of '%s'", o->path);
		close(dfd);
	}
	/* Each folder is listed after its parent. */
	for (size_t k = found->ndirs; back && k-- > 0 && rc == 0;)
		rc = remove_folder(&c, found->dirs[k]);
	for (size_t d = 64; !back && d-- > 0 && rc == 0;)
		for (size_t k = 0; k < found->nfolders && rc == 0; k++)
			if (depth(found->folders[k]) == d)
				rc = remove_folder(&c, found->folders[k]);
	if (rc == 0 && !dry_run)
		rc = adapter_intent_remove(intents, err);
	close(c.rootfd);
	return rc;
}

/* ---- staged copies and backups no record names ---- */

/* Whether `entry` is ".NAME.slipway-TAG-PID-N": 1 with the length of
 * NAME and PID, else 0. */
static int parse_sibling(const char *entry, size_t *namelen, long *pid)
{
	const char *mark = NULL, *p;
	char *end;

	for (p = strstr(entry, ".slipway-"); p; p = strstr(p + 1, ".slipway-"))
		mark = p;
	if (entry[0] != '.' || mark == NULL || mark == entry + 1 ||
	    (strncmp(mark + 9, "tmp-", 4) != 0 && strncmp(mark + 9, "bak-", 4) != 0))
		return 0;
	p = mark + 13;
	if (*p < '1' || *p > '9')
		return 0;
	errno = 0;
	*pid = strtol(p, &end, 10);
	if (errno != 0 || *end != '-' || end[1] < '0' || end[1] > '9' ||
	    strspn(end + 1, "0123456789") != strlen(end + 1))
		return 0;
	*namelen = (size_t)(mark - entry - 1);
	return 1;
}

/* Whether `named` names `entry` in folder `dir` as a staged copy or backup. */
static int is_named(const struct adapter_intent *named, const char *dir, const char *entry)
{
	size_t dlen = strlen(dir);

	for (size_t i = 0; named && i < named->nops; i++) {
		const struct adapter_intent_op *o = &named->ops[i];
		size_t plen = (size_t)(base(o->path) - o->path);

		if (plen != (dlen ? dlen + 1 : 0) || strncmp(o->path, dir, dlen) != 0)
			continue;
		if ((o->tmp && strcmp(o->tmp, entry) == 0) || (o->bak && strcmp(o->bak, entry) == 0))
			return 1;
	}
	return 0;
}

static int pid_alive(long pid)
{
	return pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int adapter_txn_sweep(const char *root, const char *dir, const struct adapter_intent *named,
		      int dry_run, adapter_txn_known_fn *known, adapter_txn_event_fn *fn,
		      void *payload, struct sw_error *err)
{
	struct ctx c = { -1, dry_run, fn, payload, err };
	char *rel = NULL, *trel = NULL;
	struct dirent *de;
	DIR *d = NULL;
	int dfd = -1, rc = 0;

	if ((c.rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return sw_error_sys(err, errno, "cannot open '%s'", root);
	if ((dfd = adapter__open_dir(c.rootfd, dir, 0)) < 0) {
		if (!not_there())
			rc = sw_error_sys(err, errno, "cannot open '%s/%s'", root, dir);
		goto out;
	}
	{
		int fd = dup(dfd);

		if (fd < 0 || (d = fdopendir(fd)) == NULL) {
			if (fd >= 0)
				close(fd);
			rc = sw_error_sys(err, errno, "cannot read '%s/%s'", root, dir);
			goto out;
		}
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char hex[SW_HEX_LEN];
		size_t namelen = 0;
		long pid = 0;
		int ours;

		sw_free(rel);
		sw_free(trel);
		rel = trel = NULL;
		if (!parse_sibling(de->d_name, &namelen, &pid) || is_named(named, dir, de->d_name))
			continue;
		rel = *dir ? sw_asprintf("%s/%s", dir, de->d_name) : sw_strdup(de->d_name);
		trel = sw_asprintf("%s%s%.*s", dir, *dir ? "/" : "", (int)namelen, de->d_name + 1);
		if (rel == NULL || trel == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			break;
		}
		/* Provably ours: the process that made it is gone, and its bytes
		 * are ones slipway generates for that path. */
		ours = !pid_alive(pid) && adapter__hash_at(dfd, de->d_name, hex) == 0 &&
		       known && known(trel, hex, payload);
		if (ours && !dry_run && unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT) {
			rc = sw_error_sys(err, errno, "cannot remove '%s'", rel);
			break;
		}
		rc = emit(&c, ours ? ADAPTER_TXN_EV_COLLECTED : ADAPTER_TXN_EV_KEPT, rel, NULL);
	}
out:
	if (d)
		closedir(d);
	if (dfd >= 0)
		close(dfd);
	close(c.rootfd);
	sw_free(rel);
	sw_free(trel);
	return rc;
}
