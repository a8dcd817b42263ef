/* The intent record of an adapter transaction: its format, its durable
 * writing in the worktree's Git directory and the lock on its folder.
 * Knows nothing of the files the record names.  See
 * io/adapters/adapter_intent.h. */

#include "io/adapters/adapter_intent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/json.h"

#define TMP_NAME ADAPTER_INTENT_NAME ".tmp"
#define INTENT_MAX (8u << 20)
#define LOCK_WAIT_MS 5000
#define LOCK_POLL_MS 25

static const char *const phase_wire[] = {
	[ADAPTER_INTENT_NONE] = "", [ADAPTER_INTENT_PREPARED] = "prepared",
	[ADAPTER_INTENT_COMMITTED] = "committed"
};

static const char *const kind_wire[] = {
	[ADAPTER_INTENT_KIND_NONE] = "", [ADAPTER_INTENT_WRITE] = "write",
	[ADAPTER_INTENT_REMOVE] = "remove"
};

struct adapter_intent_dir {
	char *path;
	int fd;			/* -1: a read-only open of a missing folder */
	int locked;
};

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sw_free(v[i]);
	sw_free(v);
}

void adapter_intent_release(struct adapter_intent *in)
{
	if (in == NULL)
		return;
	for (size_t i = 0; i < in->nops; i++) {
		sw_free(in->ops[i].path);
		sw_free(in->ops[i].tmp);
		sw_free(in->ops[i].bak);
	}
	sw_free(in->ops);
	sw_free(in->operation);
	free_list(in->hosts, in->nhosts);
	free_list(in->dirs, in->ndirs);
	free_list(in->folders, in->nfolders);
	memset(in, 0, sizeof(*in));
}

/* ---- encoding ---- */

static json_t *op_json(const struct adapter_intent_op *o)
{
	json_t *j = json_pack("{s:s, s:s}", "path", o->path, "kind", kind_wire[o->kind]);
	const char *prior = o->prior == ADAPTER_PRIOR_MISSING ? "missing"
			    : o->prior == ADAPTER_PRIOR_SHA256 ? o->prior_sha : "unknown";

	if (j == NULL ||
	    (o->tmp && json_object_set_new(j, "tmp", json_string(o->tmp)) < 0) ||
	    (o->bak && json_object_set_new(j, "bak", json_string(o->bak)) < 0) ||
	    json_object_set_new(j, "prior", json_string(prior)) < 0 ||
	    (o->kind == ADAPTER_INTENT_WRITE &&
	     (json_object_set_new(j, "new", json_string(o->new_sha)) < 0 ||
	      json_object_set_new(j, "size", json_integer((json_int_t)o->size)) < 0))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

char *adapter_intent_encode(const struct adapter_intent *in, size_t *len)
{
	json_t *doc = NULL, *ops = json_array();
	char *body = NULL, *out = NULL;

	for (size_t i = 0; ops && i < in->nops; i++)
		if (json_array_append_new(ops, op_json(&in->ops[i])) < 0) {
			json_decref(ops);
			ops = NULL;
		}
	if (ops == NULL)
		return NULL;
	doc = json_pack("{s:i, s:s, s:s, s:o*, s:I, s:o, s:o*, s:o*}", "version", 1,
			"phase", phase_wire[in->phase], "operation", in->operation ? in->operation : "",
			"hosts", sw_json_strings(in->hosts, in->nhosts), "pid", (json_int_t)in->pid,
			"ops", ops, "dirs", sw_json_strings(in->dirs, in->ndirs),
			"folders", sw_json_strings(in->folders, in->nfolders));
	if (doc == NULL || json_object_size(doc) != 8 ||
	    (body = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER)) == NULL)
		goto out;
	if ((out = sw_asprintf("%s\n", body)) != NULL)
		*len = strlen(out);
out:
	sw_free(body);
	json_decref(doc);
	return out;
}

/* ---- decoding ---- */

/* A clean repository-relative path: no empty, "." or ".." part, not
 * absolute, no control character. */
static int clean_rel(const char *p)
{
	const char *seg = p;

	if (*p == '\0' || *p == '/')
		return 0;
	for (const char *c = p;; c++) {
		if (*c != '/' && *c != '\0') {
			if ((unsigned char)*c < 0x20)
				return 0;
			continue;
		}
		if (c == seg || (c - seg == 1 && seg[0] == '.') ||
		    (c - seg == 2 && seg[0] == '.' && seg[1] == '.'))
			return 0;
		if (*c == '\0')
			return 1;
		seg = c + 1;
	}
}

/* A plain name in one folder. */
static int clean_name(const char *n)
{
	return clean_rel(n) && strchr(n, '/') == NULL;
}

static int hex64(const char *s)
{
	return s && strlen(s) == SW_HEX_LEN - 1 && strspn(s, "0123456789abcdef") == SW_HEX_LEN - 1;
}

static int only_keys(json_t *o, const char *const *allowed)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; allowed[i] && strcmp(k, allowed[i]) != 0; i++)
			;
		if (allowed[i] == NULL)
			return 0;
	}
	return 1;
}

/* Copies a JSON array of clean paths (absent: none); 1 when it is not
 * one, SW_ENOMEM. */
static int take_list(char ***v, size_t *n, json_t *a, struct sw_error *err)
{
	json_t *e;
	size_t i;

	if (a == NULL)
		return 0;
	if (!json_is_array(a))
		return 1;
	if ((*v = sw_calloc(json_array_size(a) + 1, sizeof(**v))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	json_array_foreach(a, i, e) {
		if (!json_is_string(e) || !clean_rel(json_string_value(e)))
			return 1;
		if (((*v)[(*n)++] = sw_strdup(json_string_value(e))) == NULL)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
	}
	return 0;
}

static int take_str(char **out, json_t *v, int (*valid)(const char *), struct sw_error *err)
{
	if (v == NULL)
		return 0;
	if (!json_is_string(v) || !valid(json_string_value(v)))
		return 1;
	if ((*out = sw_strdup(json_string_value(v))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	return 0;
}

static int decode_op(struct adapter_intent_op *o, json_t *j, struct sw_error *err)
{
	static const char *const keys[] = { "path", "kind", "tmp", "bak", "prior", "new", "size", NULL };
	const char *kind = json_string_value(json_object_get(j, "kind"));
	const char *prior = json_string_value(json_object_get(j, "prior"));
	const char *fresh = json_string_value(json_object_get(j, "new"));
	json_t *size = json_object_get(j, "size");
	int rc;

	if (!json_is_object(j) || !only_keys(j, keys) || kind == NULL || prior == NULL)
		return 1;
	if ((rc = take_str(&o->path, json_object_get(j, "path"), clean_rel, err)) != 0 ||
	    (rc = take_str(&o->tmp, json_object_get(j, "tmp"), clean_name, err)) != 0 ||
	    (rc = take_str(&o->bak, json_object_get(j, "bak"), clean_name, err)) != 0)
		return rc;
	o->kind = strcmp(kind, "write") == 0 ? ADAPTER_INTENT_WRITE
		  : strcmp(kind, "remove") == 0 ? ADAPTER_INTENT_REMOVE : ADAPTER_INTENT_KIND_NONE;
	if (o->path == NULL || o->kind == ADAPTER_INTENT_KIND_NONE)
		return 1;
	if (strcmp(prior, "missing") == 0) {
		o->prior = ADAPTER_PRIOR_MISSING;
	} else if (strcmp(prior, "unknown") == 0) {
		o->prior = ADAPTER_PRIOR_UNKNOWN;
	} else if (hex64(prior)) {
		o->prior = ADAPTER_PRIOR_SHA256;
		memcpy(o->prior_sha, prior, SW_HEX_LEN);
	} else {
		return 1;
	}
	/* A target that was there was moved aside; one that was not, never. */
	if ((o->prior == ADAPTER_PRIOR_MISSING) != (o->bak == NULL))
		return 1;
	if (o->kind == ADAPTER_INTENT_REMOVE)
		return o->tmp == NULL && fresh == NULL && size == NULL ? 0 : 1;
	if (o->tmp == NULL || !hex64(fresh) || !json_is_integer(size) || json_integer_value(size) < 0)
		return 1;
	memcpy(o->new_sha, fresh, SW_HEX_LEN);
	o->size = (size_t)json_integer_value(size);
	return 0;
}

int adapter_intent_decode(struct adapter_intent *out, const char *bytes, size_t len,
			  struct sw_error *err)
{
	static const char *const keys[] = { "version", "phase", "operation", "hosts", "pid", "ops",
					    "dirs", "folders", NULL };
	json_t *doc = NULL, *ops, *v;
	const char *phase;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if ((rc = sw_json_load_strict(&doc, bytes, len, INTENT_MAX, err)) < 0)
		return rc;
	ops = json_object_get(doc, "ops");
	phase = json_string_value(json_object_get(doc, "phase"));
	v = json_object_get(doc, "pid");
	if (!json_is_object(doc) || !only_keys(doc, keys) ||
	    json_integer_value(json_object_get(doc, "version")) != 1 ||
	    !json_is_integer(json_object_get(doc, "version")) || phase == NULL ||
	    !json_is_string(json_object_get(doc, "operation")) || !json_is_integer(v) ||
	    !json_is_array(ops))
		goto bad;
	out->phase = strcmp(phase, "prepared") == 0 ? ADAPTER_INTENT_PREPARED
		     : strcmp(phase, "committed") == 0 ? ADAPTER_INTENT_COMMITTED : ADAPTER_INTENT_NONE;
	if (out->phase == ADAPTER_INTENT_NONE)
		goto bad;
	out->pid = (long)json_integer_value(v);
	if ((out->operation = sw_strdup(json_string_value(json_object_get(doc, "operation")))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = take_list(&out->hosts, &out->nhosts, json_object_get(doc, "hosts"), err)) != 0 ||
	    (rc = take_list(&out->dirs, &out->ndirs, json_object_get(doc, "dirs"), err)) != 0 ||
	    (rc = take_list(&out->folders, &out->nfolders, json_object_get(doc, "folders"), err)) != 0)
		goto fail;
	if ((out->ops = sw_calloc(json_array_size(ops) + 1, sizeof(*out->ops))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	json_array_foreach(ops, i, v) {
		out->nops++;
		if ((rc = decode_op(&out->ops[i], v, err)) != 0)
			goto fail;
	}
	goto out;
fail:
	if (rc < 0)
		goto out;
bad:
	rc = sw_error_set(err, SW_EPARSE, "the record of an interrupted install or uninstall is damaged");
out:
	if (rc < 0)
		adapter_intent_release(out);
	json_decref(doc);
	return rc;
}

/* ---- the folder, its lock and the record on disk ---- */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int adapter_intent_dir_open(struct adapter_intent_dir **out, const char *dir, int lock,
			    struct sw_error *err)
{
	struct adapter_intent_dir *d = sw_calloc(1, sizeof(*d));
	struct stat st;
	int rc = 0;

	*out = NULL;
	if (d == NULL || (d->path = sw_strdup(dir)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	d->fd = -1;
	if (lock && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		rc = sw_error_sys(err, errno, "cannot create '%s'", dir);
		goto out;
	}
	if ((d->fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ENOENT && !lock)
			goto out;
		rc = errno == ELOOP || errno == ENOTDIR
		     ? sw_error_set(err, SW_EUNSAFE, "'%s' is a symlink or not a directory", dir)
		     : sw_error_sys(err, errno, "cannot open '%s'", dir);
		goto out;
	}
	if (fstat(d->fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rc = sw_error_set(err, SW_EUNSAFE, "'%s' is not a directory", dir);
		goto out;
	}
	for (long waited = 0; lock; waited += LOCK_POLL_MS) {
		if (flock(d->fd, LOCK_EX | LOCK_NB) == 0) {
			d->locked = 1;
			break;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			rc = sw_error_sys(err, errno, "cannot lock '%s'", dir);
			goto out;
		}
		if (waited >= LOCK_WAIT_MS) {
			rc = sw_error_set(err, SW_EBUSY,
					  "another slipway install or uninstall is running in this worktree (it holds '%s')",
					  dir);
			goto out;
		}
		sleep_ms(LOCK_POLL_MS);
	}
out:
	if (rc < 0)
		adapter_intent_dir_close(d);
	else
		*out = d;
	return rc;
}

int adapter_intent_dir_busy(const struct adapter_intent_dir *d)
{
	int fd, busy;

	if (d->locked || d->fd < 0)
		return 0;
	/* A descriptor of our own, so that taking and dropping the lock here
	 * never touches one held through d->fd. */
	if ((fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	busy = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

const char *adapter_intent_dir_path(const struct adapter_intent_dir *d)
{
	return d->path;
}

void adapter_intent_dir_close(struct adapter_intent_dir *d)
{
	if (d == NULL)
		return;
	if (d->fd >= 0)
		close(d->fd);
	sw_free(d->path);
	sw_free(d);
}

int adapter_intent_read(struct adapter_intent *out, struct adapter_intent_dir *d,
			struct sw_error *err)
{
	struct sw_buf b = SW_BUF_INIT;
	struct stat st;
	char chunk[8192];
	ssize_t got;
	int fd = -1, rc = 0;

	memset(out, 0, sizeof(*out));
	if (d->fd < 0)
		return 0;
	/* Only a writer killed before its rename leaves the staged copy, and
	 * with the lock held no writer lives. */
	if (d->locked && unlinkat(d->fd, TMP_NAME, 0) < 0 && errno != ENOENT)
		return sw_error_sys(err, errno, "cannot remove '%s/%s'", d->path, TMP_NAME);
	if ((fd = openat(d->fd, ADAPTER_INTENT_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;
		return errno == ELOOP
		       ? sw_error_set(err, SW_EUNSAFE, "'%s/%s' is a symlink", d->path, ADAPTER_INTENT_NAME)
		       : sw_error_sys(err, errno, "cannot open '%s/%s'", d->path, ADAPTER_INTENT_NAME);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = sw_error_set(err, SW_EUNSAFE, "'%s/%s' is not a regular file", d->path,
				  ADAPTER_INTENT_NAME);
		goto out;
	}
	while ((got = read(fd, chunk, sizeof(chunk))) > 0 && b.len <= INTENT_MAX)
		sw_buf_add(&b, chunk, (size_t)got);
	if (got < 0) {
		rc = sw_error_sys(err, errno, "cannot read '%s/%s'", d->path, ADAPTER_INTENT_NAME);
		goto out;
	}
	if (b.failed) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	rc = adapter_intent_decode(out, b.p ? b.p : "", b.len, err);
out:
	sw_buf_release(&b);
	close(fd);
	return rc;
}

int adapter_intent_write(struct adapter_intent_dir *d, const struct adapter_intent *in,
			 struct sw_error *err)
{
	size_t len = 0;
	char *text = adapter_intent_encode(in, &len);
	int fd = -1, rc = 0;

	if (!d->locked) {
		rc = sw_error_set(err, SW_EINVAL, "the record folder '%s' is not locked", d->path);
		goto out;
	}
	if (text == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	fd = openat(d->fd, TMP_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || sw_write_full(fd, text, len) != len || fsync(fd) < 0) {
		rc = sw_error_sys(err, errno, "cannot write '%s/%s'", d->path, TMP_NAME);
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		rc = sw_error_sys(err, errno, "cannot write '%s/%s'", d->path, TMP_NAME);
		goto out;
	}
	fd = -1;
	if (renameat(d->fd, TMP_NAME, d->fd, ADAPTER_INTENT_NAME) < 0 || fsync(d->fd) < 0)
		rc = sw_error_sys(err, errno, "cannot write '%s/%s'", d->path, ADAPTER_INTENT_NAME);
out:
	if (fd >= 0)
		close(fd);
	sw_free(text);
	return rc;
}

int adapter_intent_remove(struct adapter_intent_dir *d, struct sw_error *err)
{
	if (d->fd < 0 || !d->locked)
		return sw_error_set(err, SW_EINVAL, "the record folder '%s' is not locked", d->path);
	if (unlinkat(d->fd, ADAPTER_INTENT_NAME, 0) < 0 && errno != ENOENT)
		return sw_error_sys(err, errno, "cannot remove '%s/%s'", d->path, ADAPTER_INTENT_NAME);
	return 0;
}
