/* Paths under the repository root: cleaning a claimed path, refusing one
 * that crosses a symlink, the ownership folder's files, hashing a file to
 * tell pristine from modified, and whether a host is detected.  Reads the
 * file system only (lstat, open O_NOFOLLOW); never writes. */
#include "io/adapters/adapter_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/digest.h"

#define MANAGED_MAX (1u << 20)

/* Lexically cleans a repository-relative path; NULL (err set) when it is
 * empty, absolute or leaves the repository. */
char *adapter__normalize_rel(const char *in, struct sw_error *err)
{
	const char *s = in, *e = in + strlen(in);
	char *out, *p;
	size_t n;

	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	if (s == e) {
		sw_error_set(err, SW_EINVAL, "an ownership path is empty");
		return NULL;
	}
	if (*s == '/') {
		sw_error_set(err, SW_EINVAL, "ownership path \"%.*s\" is not repository-relative", (int)(e - s), s);
		return NULL;
	}
	if ((out = sw_calloc((size_t)(e - s) + 1, 1)) == NULL) {
		sw_error_set(err, SW_ENOMEM, "out of memory");
		return NULL;
	}
	p = out;
	while (s < e) {
		const char *seg = s, *slash;

		while (s < e && *s != '/')
			s++;
		slash = s;
		n = (size_t)(slash - seg);
		if (s < e)
			s++;
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			if (p == out) {
				sw_error_set(err, SW_EINVAL, "ownership path \"%s\" leaves the repository", in);
				sw_free(out);
				return NULL;
			}
			while (p > out && p[-1] != '/')
				p--;
			if (p > out)
				p--;
			*p = '\0';
			continue;
		}
		if (p != out)
			*p++ = '/';
		memcpy(p, seg, n);
		p += n;
		*p = '\0';
	}
	if (out[0] == '\0') {
		sw_error_set(err, SW_EINVAL, "ownership path \"%s\" is not repository-relative", in);
		sw_free(out);
		return NULL;
	}
	return out;
}

/* root + "/" + rel after checking no existing component is a symlink and no
 * intermediate one a non-directory. */
char *adapter__safe_path(const char *root, const char *rel, struct sw_error *err)
{
	char *abs = sw_asprintf("%s/%s", root, rel);
	size_t rootlen = strlen(root);

	if (abs == NULL) {
		sw_error_set(err, SW_ENOMEM, "out of memory");
		return NULL;
	}
	for (char *p = abs + rootlen + 1;; p++) {
		char save = *p;
		struct stat st;

		if (save != '/' && save != '\0')
			continue;
		*p = '\0';
		if (lstat(abs, &st) < 0) {
			int e = errno;

			*p = save;
			if (e == ENOENT)
				return abs;
			sw_error_sys(err, e, "cannot inspect '%s'", abs);
			sw_free(abs);
			return NULL;
		}
		if (S_ISLNK(st.st_mode)) {
			sw_error_set(err, SW_EUNSAFE, "path \"%s\" crosses the symlink \"%s\"", rel, abs + rootlen + 1);
			*p = save;
			sw_free(abs);
			return NULL;
		}
		if (save == '/' && !S_ISDIR(st.st_mode)) {
			sw_error_set(err, SW_EUNSAFE, "path \"%s\" crosses a non-directory", rel);
			*p = save;
			sw_free(abs);
			return NULL;
		}
		*p = save;
		if (save == '\0')
			return abs;
	}
}

char *adapter__owner_file(const char *root, const struct host *h, const char *name,
			  struct sw_error *err)
{
	char *rel = sw_asprintf("%s/slipway/%s", h->owner, name), *abs;

	if (rel == NULL) {
		sw_error_set(err, SW_ENOMEM, "out of memory");
		return NULL;
	}
	abs = adapter__safe_path(root, rel, err);
	sw_free(rel);
	return abs;
}

char *adapter__owner_rel(const struct host *h, const char *name)
{
	return sw_asprintf("%s/slipway/%s", h->owner, name);
}

/* Hashes a regular non-symlink file of at most MANAGED_MAX bytes, or
 * reports what it is instead. */
int adapter__classify(enum cls *out, const char *path, const char *sha,
		      struct sw_error *err)
{
	struct stat st;
	char *buf = NULL;
	char hex[SW_HEX_LEN];
	ssize_t got;
	size_t off = 0;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT) {
			*out = CLS_MISSING;
			return 0;
		}
		return sw_error_sys(err, errno, "cannot inspect '%s'", path);
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > MANAGED_MAX) {
		*out = CLS_MODIFIED;
		return 0;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return sw_error_sys(err, errno, "cannot open '%s'", path);
	if ((buf = sw_malloc(MANAGED_MAX + 1)) == NULL) {
		close(fd);
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	while (off <= MANAGED_MAX && (got = read(fd, buf + off, MANAGED_MAX + 1 - off)) > 0)
		off += (size_t)got;
	close(fd);
	if (off > MANAGED_MAX) {
		*out = CLS_MODIFIED;
	} else {
		sw_sha256_hex(buf, off, hex);
		*out = strcmp(hex, sha) == 0 ? CLS_PRISTINE : CLS_MODIFIED;
	}
	sw_free(buf);
	return 0;
}

int adapter__exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int adapter__detected(const char *root, const struct host *h)
{
	for (size_t i = 0; i < 5 && h->detect[i]; i++) {
		char *p = sw_asprintf("%s/%s", root, h->detect[i]);
		struct stat st;
		int yes = p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode);

		sw_free(p);
		if (yes)
			return 1;
	}
	return 0;
}

enum surface adapter__kiro_surface(const char *s)
{
	if (s && strcmp(s, "ide") == 0)
		return SURF_KIRO_IDE;
	if (s && strcmp(s, "cli") == 0)
		return SURF_KIRO_CLI;
	return SURF_NONE;
}
