/* Staging directories (runs/.tmp-<run id>-<16 hex>): the shared lock on
 * runs/ a creation holds until it has locked the one it makes, their
 * removal (a failed creation's own, and those of creations that were
 * killed, once their owner has provably ended), and the check doctor
 * makes (io/store/store_names.h says why the locks prove it). */

#include "io/store/store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/store/store_names.h"

int store__staging_hold(struct store *s, struct sw_error *err)
{
	return store__lock_wait(s->runs_fd, s, SW_OS_LOCK_SH, err);
}

void store__staging_release(struct store *s)
{
	if (s->runs_fd >= 0)
		sw_os_lock(s->runs_fd, SW_OS_LOCK_UN);
}

/* Removes the entries of directory `dfd`, and of its subdirectories down
 * to `depth` levels, then those subdirectories when empty. */
static void remove_tree(int dfd, int depth)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		int sub;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    unlinkat(dfd, de->d_name, 0) == 0 || errno != EISDIR || depth == 0)
			continue;
		sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			remove_tree(sub, depth - 1);
			close(sub);
		}
		unlinkat(dfd, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* Removes what staging directory `dfd` holds: files, and one level of
 * subdirectories (materials/).  Best effort: what stays keeps the
 * directory, and its staging name, which no listing takes for a Run. */
void store__remove_staged(int dfd)
{
	remove_tree(dfd, 1);
}

/* With runs/ locked exclusively: opens staging directory `name` below
 * `runs_fd` and takes its own lock without waiting.  NULL and *fd the
 * locked directory when that works (its creation has ended), else why
 * not (static text or `buf`). */
static const char *claim(int *fd, int runs_fd, const char *name, char *buf, size_t size)
{
	struct stat st, cur;
	int d;

	*fd = -1;
	if (!store__is_staged_name(name))
		return "its name is not one slipway gives a staging directory";
	if ((d = openat(runs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		snprintf(buf, size, "it cannot be opened (%s)", strerror(errno));
		return buf;
	}
	if (sw_os_lock(d, SW_OS_LOCK_EX | SW_OS_LOCK_NB) < 0) {
		int e = errno;

		close(d);
		if (e == EWOULDBLOCK)
			return "a slipway process holds its lock (a Run being created, or a process "
			       "that is stopped); once that process has ended, the next slipway run "
			       "removes it";
		snprintf(buf, size, "its lock cannot be taken (%s)", strerror(e));
		return buf;
	}
	if (fstat(d, &st) < 0 || fstatat(runs_fd, name, &cur, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !store__same_file(&st, &cur)) {
		close(d);
		return "it changed while slipway looked at it";
	}
	*fd = d;
	return NULL;
}

static const char *const STARTING =
	"a slipway process was starting a Run at that moment, so it could not be checked; check again";

const char *store__staged_owner(int runs_fd, const char *name, char *buf, size_t size)
{
	const char *why;
	int fd = -1;

	if (!store__is_staged_name(name))
		return claim(&fd, runs_fd, name, buf, size);
	if (sw_os_lock(runs_fd, SW_OS_LOCK_EX | SW_OS_LOCK_NB) < 0)
		return STARTING;
	why = claim(&fd, runs_fd, name, buf, size);
	store__close_fd(&fd);
	sw_os_lock(runs_fd, SW_OS_LOCK_UN);
	return why;
}

/* Removes every staging directory whose creation has provably ended.
 * Best effort and without waiting: when a creation is between making its
 * staging directory and locking it, nothing is removed this time.  Plain
 * unlinks, outside the fault seam, as a failed creation's own cleanup. */
void store__collect_staged(struct store *s)
{
	char buf[128];
	struct dirent *de;
	DIR *d = NULL;
	int fd;

	if (s->runs_fd < 0 || sw_os_lock(s->runs_fd, SW_OS_LOCK_EX | SW_OS_LOCK_NB) < 0)
		return;
	if ((fd = openat(s->runs_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	while ((de = readdir(d)) != NULL) {
		int sfd = -1;

		if (!store__is_staged_name(de->d_name) ||
		    claim(&sfd, s->runs_fd, de->d_name, buf, sizeof(buf)) != NULL)
			continue;
		store__remove_staged(sfd);
		unlinkat(s->runs_fd, de->d_name, AT_REMOVEDIR);
		store__close_fd(&sfd);
	}
	closedir(d);
out:
	sw_os_lock(s->runs_fd, SW_OS_LOCK_UN);
}
