/* The service handle: the workspace discovered, the run store opened, and
 * the clock and the source reader every operation shares. */

#include "service/internal.h"

#include <string.h>

#include "service/emit.h"
#include "service/ops.h"
#include "io/store/journal.h"
#include "io/source/source.h"

void svc_keep_warm(bool on)
{
	vcs_keep_warm(on);
	store_keep_warm(on);
}

void svc_now(char *buf, size_t len)
{
	char out[JOURNAL_TIME_LEN];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	journal_format_time(&ts, out);
	snprintf(buf, len, "%s", out);
}

int svc_read_source(char **out, size_t *out_len, const char *path, const char *bytes,
		    size_t len, struct sw_error *err)
{
	*out = NULL;
	*out_len = 0;
	if (bytes == NULL)
		return source_read_file(out, out_len, path, err);
	if (len > SOURCE_MAX_FILE_BYTES)
		return sw_error_set(err, SW_ETOOBIG, "source envelope exceeds %u bytes",
				    SOURCE_MAX_FILE_BYTES);
	if ((*out = sw_malloc(len + 1)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot copy the source envelope");
	memcpy(*out, bytes, len);
	(*out)[len] = '\0';
	*out_len = len;
	return 0;
}

int svc_usage(const struct svc *d, enum tbl_err code, const char *msg)
{
	return svc_fail(code, 0, msg, NULL, d->root_arg, NULL);
}

int svc_discover_failed(const struct sw_error *err, const char *root_arg)
{
	struct sw_error ignored = SW_ERROR_INIT;
	struct next *n = NULL;
	char *root = NULL;
	int rc;

	if (err->code == SW_ENOTFOUND || err->code == SW_EIO || err->code == SW_EINVAL)
		return svc_fail(TBL_ERR_GIT_REPOSITORY_REQUIRED, 0, err->msg, NULL, root_arg, NULL);
	/* The retry names the root as an absolute path (a next's argv
	 * never holds a relative one): the current directory when none. */
	root = vcs_path_abs_clean(root_arg && *root_arg ? root_arg : ".", &ignored);
	if (root != NULL)
		next_build_form(&n, NEXT_FORM_RETRY_DOCTOR, NULL, root, &(struct next_fill){ 0 },
				&ignored);
	rc = svc_fail(TBL_ERR_GIT_REPOSITORY_UNAVAILABLE, 0, err->msg, n, root_arg, NULL);
	next_free(n);
	sw_free(root);
	return rc;
}

int svc_discover(struct svc *d)
{
	struct sw_error err = SW_ERROR_INIT;

	d->store = NULL;
	if (vcs_discover(&d->ws, d->root_arg, &err) == 0)
		return 0;
	return svc_discover_failed(&err, d->root_arg);
}

int svc_open_store(struct svc *d, bool writable)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	int rc;

	if (store_open(&d->store, d->ws.git_common_dir, writable, &err) == 0)
		return 0;
	next_build_form(&n, NEXT_FORM_RUN_DOCTOR, d->ws.id, d->ws.worktree_root,
			&(struct next_fill){ 0 }, &(struct sw_error)SW_ERROR_INIT);
	rc = svc_fail(TBL_ERR_RUNSTORE_UNAVAILABLE, 0, err.msg, n, NULL, NULL);
	next_free(n);
	vcs_identity_release(&d->ws);
	return rc;
}

int svc_open(struct svc *d, bool writable)
{
	int rc = svc_discover(d);

	return rc ? rc : svc_open_store(d, writable);
}

void svc_close(struct svc *d)
{
	store_free(d->store);
	d->store = NULL;
	json_decref(d->contexts);
	d->contexts = NULL;
	vcs_identity_release(&d->ws);
}
