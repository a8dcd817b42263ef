/* Workspace discovery and identity, in process with libgit2, and the
 * configuration libgit2 may read.  See io/git/vcs.h. */

#include "io/git/vcs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>

#include "io/git/observe_internal.h"
#include "io/util/json.h"

static int libgit2_ready;

/* ---- the handle discovery opened ------------------------------------- */

/* A command discovers its workspace, then observes it: the observation
 * would open the very repository again (some 40 system calls).  The last
 * discovery's handle is kept here, with the identity it was opened for,
 * and handed to the first observation of exactly that identity.  It is as
 * fresh as a handle opened then: discovery reads no index, and libgit2
 * reads refs, and configuration whose stamp changed, on use. */
static struct {
	git_repository *repo;
	struct vcs_identity id;
	unsigned taken;		/* handed over, for the tests */
} discovered;

void vcs__drop_discovered(void)
{
	git_repository_free(discovered.repo);
	discovered.repo = NULL;
	vcs_identity_release(&discovered.id);
}

git_repository *vcs__take_discovered(const struct vcs_identity *ws)
{
	git_repository *repo = NULL;

	if (discovered.repo != NULL && vcs_identity_equal(&discovered.id, ws)) {
		repo = discovered.repo;
		discovered.repo = NULL;
		discovered.taken++;
	}
	vcs__drop_discovered();
	return repo;
}

#ifdef SW_TESTING
unsigned vcs_test_discovered_taken(void)
{
	return discovered.taken;
}
#endif

/* Keeps `*repo` (taken over, *repo set to NULL) for the identity `id`. */
static void keep_discovered(git_repository **repo, const struct vcs_identity *id)
{
	vcs__drop_discovered();
	discovered.id.version = id->version;
	memcpy(discovered.id.id, id->id, sizeof(id->id));
	if ((discovered.id.worktree_root = sw_strdup(id->worktree_root)) == NULL ||
	    (discovered.id.git_dir = sw_strdup(id->git_dir)) == NULL ||
	    (discovered.id.git_common_dir = sw_strdup(id->git_common_dir)) == NULL) {
		vcs_identity_release(&discovered.id);
		return;	/* not kept: *repo is freed by the caller */
	}
	discovered.repo = *repo;
	*repo = NULL;
}

/* ---- configuration that cannot be read -------------------------------- */

#define CONFIG_WARNINGS_MAX 8

static char *config_warnings[CONFIG_WARNINGS_MAX];
static size_t nconfig_warnings;

const char *vcs_config_warning(size_t i)
{
	return i < nconfig_warnings ? config_warnings[i] : NULL;
}

/* The files libgit2 looks for in each directory of a level's search path:
 * the configuration, and at the XDG level the ignore and attributes files
 * too (git warns when it cannot read its ignore file). */
static const struct {
	int level;
	const char *files[3];
} config_files[] = {
	{ GIT_CONFIG_LEVEL_SYSTEM, { "gitconfig", NULL } },
	{ GIT_CONFIG_LEVEL_XDG,    { "config", "ignore", "attributes" } },
	{ GIT_CONFIG_LEVEL_GLOBAL, { ".gitconfig", NULL } },
};

/* The system failing (an I/O error, no memory or file descriptors left),
 * not a file that is none of the user's to read. */
static int system_failure(int e)
{
	return e == EIO || e == ENOMEM || e == EMFILE || e == ENFILE;
}

/* 1 when `path` exists (or may) but cannot be read: it cannot be looked up
 * (a HOME without search permission), is a directory, or cannot be opened
 * for reading.  errno is left set.  A system failure is 0: git does not
 * leave such a file out, and libgit2 meets the failure and discovery
 * reports it (git_repository_unavailable). */
static int unreadable(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) != 0)
		return errno != ENOENT && errno != ENOTDIR && !system_failure(errno);
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return 1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return !system_failure(errno);
	close(fd);
	return 0;
}

/* git reads its configuration with warnings when a file cannot be read
 * (a HOME the user may not enter: sudo -u without -H), while libgit2 fails
 * to open the repository.  A directory of a search path holding such a
 * file is left out of that path, as git leaves the file out, and a warning
 * says so (vcs_config_warning). */
static void skip_unreadable_config(void)
{
	for (size_t l = 0; l < sizeof(config_files) / sizeof(config_files[0]); l++) {
		git_buf path = { 0 };
		char *keep = NULL, *list, *dir, *save = NULL;
		size_t used = 0, cap;
		int dropped = 0;

		if (git_libgit2_opts(GIT_OPT_GET_SEARCH_PATH, config_files[l].level, &path) < 0 ||
		    path.ptr == NULL || (list = sw_strdup(path.ptr)) == NULL) {
			git_buf_dispose(&path);
			continue;
		}
		cap = strlen(list) + 1;
		if ((keep = sw_malloc(cap)) != NULL)
			keep[0] = '\0';
		for (dir = strtok_r(list, ":", &save); keep && dir; dir = strtok_r(NULL, ":", &save)) {
			int bad = 0;

			for (size_t f = 0; f < 3 && config_files[l].files[f] && !bad; f++) {
				char *file = sw_asprintf("%s/%s", dir, config_files[l].files[f]);

				if (file && (bad = unreadable(file)) &&
				    nconfig_warnings < CONFIG_WARNINGS_MAX &&
				    (config_warnings[nconfig_warnings] = sw_asprintf(
					     "cannot read the Git configuration '%s' (%s): it is left out, as git leaves it out",
					     file, strerror(errno))) != NULL)
					nconfig_warnings++;
				sw_free(file);
			}
			if (bad) {
				dropped = 1;
				continue;
			}
			used += (size_t)snprintf(keep + used, cap - used, "%s%s", used ? ":" : "", dir);
		}
		if (keep && dropped)
			git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, config_files[l].level, keep);
		sw_free(keep);
		sw_free(list);
		git_buf_dispose(&path);
	}
}

int vcs__libgit2_init(struct sw_error *err)
{
	if (!libgit2_ready) {
		if (git_libgit2_init() < 0)
			return sw_error_set(err, SW_EGIT, "cannot initialise libgit2");
		/* We only read objects git wrote: re-hashing every object on
		 * read (the default) costs time and proves nothing here. */
		git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
		skip_unreadable_config();
		libgit2_ready = 1;
	}
	return 0;
}

char *vcs_path_abs_clean(const char *path, struct sw_error *err)
{
	char *joined = NULL, *out = NULL;
	char cwd[PATH_MAX];
	size_t n, o = 0;

	if (path[0] != '/') {
		if (getcwd(cwd, sizeof(cwd)) == NULL) {
			sw_error_sys(err, errno, "cannot read current directory");
			return NULL;
		}
		joined = sw_asprintf("%s/%s", cwd, path);
	} else {
		joined = sw_strdup(path);
	}
	if (joined == NULL) {
		sw_error_set(err, SW_ENOMEM, "cannot allocate path");
		return NULL;
	}
	n = strlen(joined);
	if ((out = sw_malloc(n + 2)) == NULL) {
		sw_free(joined);
		sw_error_set(err, SW_ENOMEM, "cannot allocate path");
		return NULL;
	}
	/* Walk the components, resolving "." and ".." lexically. */
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && joined[j] != '/')
			j++;
		size_t len = j - i;

		if (len == 0 || (len == 1 && joined[i] == '.')) {
			/* skip */
		} else if (len == 2 && joined[i] == '.' && joined[i + 1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, joined + i, len);
			o += len;
		}
		i = j + 1;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	sw_free(joined);
	return out;
}

static char *resolve_dir(const char *path, struct sw_error *err)
{
	char buf[PATH_MAX], *out;
	struct stat st;
	size_t n;

	if (realpath(path, buf) == NULL) {
		if (errno == ENOENT || errno == ENOTDIR)
			sw_error_set(err, SW_ENOTFOUND, "'%s' does not exist", path);
		else
			sw_error_sys(err, errno, "cannot resolve '%s'", path);
		return NULL;
	}
	if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
		sw_error_set(err, SW_EIO, "'%s' is not a directory", buf);
		return NULL;
	}
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	if ((out = sw_strdup(buf)) == NULL)
		sw_error_set(err, SW_ENOMEM, "cannot allocate path");
	return out;
}

/* 1 when `path` is `dir` or lies below it (both clean and absolute). */
static int path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* `path` without its trailing slashes (sw_malloc'd), or NULL. */
static char *strip_slashes(const char *path)
{
	size_t n = strlen(path);
	char *out;

	while (n > 1 && path[n - 1] == '/')
		n--;
	if ((out = sw_malloc(n + 1)) != NULL) {
		memcpy(out, path, n);
		out[n] = '\0';
	}
	return out;
}

/* What resolve_dir(`path`) returns, found without walking `path` again
 * where libgit2's name is provably canonical already (`dir` is):
 *   - a name that is `dir` or one of its parents: every component of a
 *     canonical path is a directory and no symlink, so its prefixes are
 *     canonical too (libgit2 finds the worktree by walking up from `dir`);
 *   - `below` "/.git" where lstat finds a directory (no symlink), `below`
 *     being canonical;
 *   - `same` itself, when libgit2 names the very same directory.
 * Anything else goes through realpath.  NULL with `err` set on failure. */
static char *canonical_dir(const char *path, const char *dir, const char *below,
			   const char *same, struct sw_error *err)
{
	char *p = strip_slashes(path);
	struct stat st;

	if (p != NULL) {
		size_t bl = below ? strlen(below) : 0;

		if ((dir != NULL && path_within(dir, p)) || (same != NULL && strcmp(p, same) == 0) ||
		    (below != NULL && strncmp(p, below, bl) == 0 && strcmp(p + bl, "/.git") == 0 &&
		     lstat(p, &st) == 0 && S_ISDIR(st.st_mode)))
			return p;
		sw_free(p);
	}
	return resolve_dir(path, err);
}

int vcs_identity_compute_id(struct vcs_identity *id, struct sw_error *err)
{
	struct sw_sha256 *h = NULL;
	int rc;

	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	sw_sha256_section_str(h, "version", "1");
	sw_sha256_section_str(h, "worktree_root", id->worktree_root);
	sw_sha256_section_str(h, "git_dir", id->git_dir);
	sw_sha256_section_str(h, "git_common_dir", id->git_common_dir);
	sw_sha256_final_prefixed(h, id->id);
	return 0;
}

/* Why libgit2 could not open a repository from `dir` (its return code
 * `code`): none was found (SW_ENOTFOUND, git's "not a git repository"),
 * or one was found and the system failed to read it, its configuration
 * included (an I/O error, no memory: SW_EGIT, libgit2's class in
 * sys_errno), which says nothing about where the command was run.  What
 * else libgit2 refuses (a configuration it cannot parse, an unsupported
 * repository format) git refuses too: no worktree to work in. */
static int open_failed(int code, const char *dir, struct sw_error *err)
{
	const git_error *e = git_error_last();
	int klass = e ? e->klass : GIT_ERROR_NONE;

	if (code == GIT_ENOTFOUND || (klass != GIT_ERROR_OS && klass != GIT_ERROR_NOMEMORY))
		return sw_error_set(err, SW_ENOTFOUND, "'%s' is not inside a Git worktree", dir);
	if (err != NULL && err->code == SW_OK) {
		sw_error_set(err, SW_EGIT, "cannot read the Git repository containing '%s': %s", dir,
			     e->message);
		err->sys_errno = klass;
	}
	return SW_EGIT;
}

int vcs_discover(struct vcs_identity *out, const char *start,
		 struct sw_error *err)
{
	git_repository *repo = NULL;
	char *abs = NULL, *dir = NULL;
	struct stat st;
	int rc, from_cwd;

	out->version = 1;
	out->worktree_root = out->git_dir = out->git_common_dir = NULL;
	out->id[0] = '\0';
	if ((rc = vcs__libgit2_init(err)) < 0)
		goto out;
	if ((abs = vcs_path_abs_clean(start && *start ? start : ".", err)) == NULL) {
		rc = err->code;
		goto out;
	}
	/* getcwd(3) names the current directory as the kernel reached it:
	 * no symlink, "." or "..", already what realpath returns. */
	from_cwd = start == NULL || *start == '\0' || strcmp(start, ".") == 0;
	if (stat(abs, &st) != 0) {
		from_cwd = 0;
	} else if (!S_ISDIR(st.st_mode)) {
		char *slash = strrchr(abs, '/');

		from_cwd = 0;
		if (slash != NULL && slash != abs)
			*slash = '\0';
		else if (slash != NULL)
			slash[1] = '\0';
	}
	if (from_cwd) {
		dir = abs;
		abs = NULL;
	} else if ((dir = resolve_dir(abs, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if ((rc = git_repository_open_ext(&repo, dir, 0, NULL)) < 0) {
		rc = open_failed(rc, dir, err);
		goto out;
	}
	if (git_repository_is_bare(repo) || git_repository_workdir(repo) == NULL) {
		rc = sw_error_set(err, SW_ENOTFOUND,
				  "'%s' is not inside a Git worktree", dir);
		goto out;
	}
	if ((out->worktree_root = canonical_dir(git_repository_workdir(repo), dir, NULL, NULL,
						err)) == NULL ||
	    (out->git_dir = canonical_dir(git_repository_path(repo), NULL, out->worktree_root,
					  NULL, err)) == NULL ||
	    (out->git_common_dir = canonical_dir(git_repository_commondir(repo), NULL, NULL,
						 out->git_dir, err)) == NULL) {
		rc = err->code ? err->code : SW_EIO;
		goto out;
	}
	/* git refuses --show-toplevel from inside a git directory, while
	 * libgit2 opens such a start as its repository: reject it here. */
	if (path_within(dir, out->git_dir) || path_within(dir, out->git_common_dir)) {
		rc = sw_error_set(err, SW_ENOTFOUND,
				  "'%s' is inside a Git directory, not a worktree", dir);
		goto out;
	}
	if (!path_within(dir, out->worktree_root)) {
		rc = sw_error_set(err, SW_ENOTFOUND,
				  "'%s' is not inside a Git worktree", dir);
		goto out;
	}
	/* The identity records the three paths as UTF-8 text (JSON), and
	 * every `next` names the root in an argv: bytes that are not UTF-8
	 * could be neither read back nor run. */
	{
		const char *bad = !sw_utf8_valid(out->worktree_root, strlen(out->worktree_root))
					  ? out->worktree_root
				  : !sw_utf8_valid(out->git_dir, strlen(out->git_dir)) ? out->git_dir
				  : !sw_utf8_valid(out->git_common_dir, strlen(out->git_common_dir))
					  ? out->git_common_dir : NULL;

		if (bad != NULL) {
			rc = sw_error_set(err, SW_EINVAL,
					  "%s '%s' is not a valid UTF-8 path, and slipway records workspace paths as UTF-8 text: move or rename it to a UTF-8 path",
					  bad == out->worktree_root ? "the Git worktree" : "its Git directory",
					  bad);
			goto out;
		}
	}
	if ((rc = vcs_identity_compute_id(out, err)) == 0)
		keep_discovered(&repo, out);
out:
	if (rc < 0)
		vcs_identity_release(out);
	git_repository_free(repo);
	sw_free(dir);
	sw_free(abs);
	return rc;
}

int vcs_identity_equal(const struct vcs_identity *a,
		       const struct vcs_identity *b)
{
	return a->version == b->version && a->worktree_root && b->worktree_root &&
	       strcmp(a->worktree_root, b->worktree_root) == 0 &&
	       strcmp(a->git_dir, b->git_dir) == 0 &&
	       strcmp(a->git_common_dir, b->git_common_dir) == 0 &&
	       strcmp(a->id, b->id) == 0;
}

void vcs_identity_release(struct vcs_identity *id)
{
	if (id == NULL)
		return;
	sw_free(id->worktree_root);
	sw_free(id->git_dir);
	sw_free(id->git_common_dir);
	id->worktree_root = id->git_dir = id->git_common_dir = NULL;
	id->id[0] = '\0';
}

int vcs_unavailable_identity(char out[SW_DIGEST_LEN], char **clean_out,
			     const char *root, struct sw_error *err)
{
	static const char prefix[] = "unavailable-workspace-root-v1";
	struct sw_sha256 *h = NULL;
	char *clean;
	int rc;

	if ((clean = vcs_path_abs_clean(root, err)) == NULL)
		return err->code;
	if ((rc = sw_sha256_new(&h, err)) < 0) {
		sw_free(clean);
		return rc;
	}
	sw_sha256_update(h, prefix, sizeof(prefix)); /* includes the NUL */
	sw_sha256_update(h, clean, strlen(clean));
	sw_sha256_final_prefixed(h, out);
	if (clean_out)
		*clean_out = clean;
	else
		sw_free(clean);
	return 0;
}

struct json_t *vcs_identity_to_json(const struct vcs_identity *id)
{
	json_t *o = json_object();

	if (o == NULL ||
	    json_object_set_new(o, "version", json_integer(id->version)) < 0 ||
	    json_object_set_new(o, "worktree_root", json_string(id->worktree_root)) < 0 ||
	    json_object_set_new(o, "git_dir", json_string(id->git_dir)) < 0 ||
	    json_object_set_new(o, "git_common_dir", json_string(id->git_common_dir)) < 0 ||
	    json_object_set_new(o, "id", json_string(id->id)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* An absolute, lexically clean path: no empty, "." or ".." component and no
 * trailing slash (except "/" itself). */
static int path_is_clean_abs(const char *p, size_t len)
{
	if (len == 0 || p[0] != '/' || memchr(p, '\0', len) != NULL ||
	    !sw_utf8_valid(p, len))
		return 0;
	if (len == 1)
		return 1;
	if (p[len - 1] == '/')
		return 0;
	for (size_t i = 1; i <= len; i++) {
		size_t j = i;

		while (j < len && p[j] != '/')
			j++;
		if (j == i || (j - i == 1 && p[i] == '.') ||
		    (j - i == 2 && p[i] == '.' && p[i + 1] == '.'))
			return 0;
		i = j;
	}
	return 1;
}

static int identity_path(char **dst, const json_t *o, const char *key,
			 struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return sw_error_set(err, SW_EPARSE,
				    "workspace identity %s must be a string", key);
	if (!path_is_clean_abs(json_string_value(v), json_string_length(v)))
		return sw_error_set(err, SW_EINVAL,
				    "workspace identity %s must be an absolute clean path", key);
	if ((*dst = sw_strdup(json_string_value(v))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate identity");
	return 0;
}

int vcs_identity_from_json(struct vcs_identity *out, const struct json_t *v,
			   struct sw_error *err)
{
	char computed[SW_DIGEST_LEN];
	json_t *ver, *id;
	int rc;

	out->version = 1;
	out->worktree_root = out->git_dir = out->git_common_dir = NULL;
	out->id[0] = '\0';
	if (!json_is_object(v) || json_object_size(v) != 5) {
		rc = sw_error_set(err, SW_EPARSE,
				  "workspace identity must be an object with five fields");
		goto out;
	}
	ver = json_object_get(v, "version");
	id = json_object_get(v, "id");
	if (!json_is_integer(ver) || !json_is_string(id)) {
		rc = sw_error_set(err, SW_EPARSE,
				  "workspace identity needs integer version and string id");
		goto out;
	}
	if (json_integer_value(ver) != 1) {
		rc = sw_error_set(err, SW_EINVAL, "workspace identity version must be 1");
		goto out;
	}
	if ((rc = identity_path(&out->worktree_root, v, "worktree_root", err)) < 0 ||
	    (rc = identity_path(&out->git_dir, v, "git_dir", err)) < 0 ||
	    (rc = identity_path(&out->git_common_dir, v, "git_common_dir", err)) < 0)
		goto out;
	if (!sw_digest_valid(json_string_value(id))) {
		rc = sw_error_set(err, SW_EINVAL,
				  "workspace identity id must be a lowercase sha256 digest");
		goto out;
	}
	if ((rc = vcs_identity_compute_id(out, err)) < 0)
		goto out;
	memcpy(computed, out->id, sizeof(computed));
	if (strcmp(computed, json_string_value(id)) != 0) {
		rc = sw_error_set(err, SW_EINVAL,
				  "workspace identity id does not match its paths");
		goto out;
	}
out:
	if (rc < 0)
		vcs_identity_release(out);
	return rc;
}
