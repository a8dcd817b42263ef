/* An observation as a value: the validation rules of
 * spec/git-observation.md, the change test between two observations, deep
 * copy and release.  Never touches a repository or a file. */

#include "io/git/observe_internal.h"

#include <string.h>

#include "io/util/buf.h"
#include "io/util/json.h"

static const char *const observation_names[] = {
	"regular", "symlink", "oversize_sampled", "content_unobserved",
	"missing", "non_regular", "unreadable",
};

static int known_observation(const char *s)
{
	for (size_t i = 0; i < sizeof(observation_names) / sizeof(*observation_names); i++)
		if (strcmp(s, observation_names[i]) == 0)
			return 1;
	return 0;
}

static int valid_text(const char *s)
{
	return s != NULL && *s != '\0' && sw_utf8_valid(s, strlen(s));
}

/* Relative to the worktree: not absolute, not "..", not under "../". */
static int valid_rel_path(const char *s)
{
	return valid_text(s) && s[0] != '/' && strcmp(s, "..") != 0 &&
	       strncmp(s, "../", 3) != 0;
}

static int check_path_obs(const struct vcs_path_obs *p, struct sw_error *err)
{
	const char *o = p->observation;
	int has_sha = p->content_sha256[0] != '\0', has_kind = p->content_kind[0] != '\0';

	if (!valid_text(p->category) || !valid_text(p->state))
		return sw_error_set(err, SW_EINVAL,
				    "path observation '%s' requires valid category and state", p->path);
	if (has_sha && !sw_digest_valid(p->content_sha256))
		return sw_error_set(err, SW_EINVAL,
				    "path observation '%s' has a malformed content digest", p->path);
	if (strcmp(o, "regular") == 0 || strcmp(o, "oversize_sampled") == 0 ||
	    strcmp(o, "symlink") == 0) {
		const char *kind = o[0] == 'r' ? "full_sha256" :
				   o[0] == 'o' ? "oversize_samples_v1" : "symlink_target_sha256";

		if (!has_sha || strcmp(p->content_kind, kind) != 0)
			return sw_error_set(err, SW_EINVAL,
					    "path observation '%s' requires a %s digest", p->path, kind);
		if (o[0] != 's' && !p->has_mtime)
			return sw_error_set(err, SW_EINVAL,
					    "path observation '%s' requires modification metadata", p->path);
	} else if (known_observation(o)) {
		if (has_sha || has_kind)
			return sw_error_set(err, SW_EINVAL,
					    "path observation '%s' cannot keep a content digest for %s",
					    p->path, o);
	} else {
		return sw_error_set(err, SW_EINVAL,
				    "path observation '%s' has unsupported observation '%s'", p->path, o);
	}
	if (p->has_size && p->size < 0)
		return sw_error_set(err, SW_EINVAL, "path observation '%s' has negative size", p->path);
	return 0;
}

int vcs_observation_validate(const struct vcs_observation *o,
			     struct sw_error *err)
{
	char expect[SW_DIGEST_LEN];
	struct vcs_observation copy;
	int rc;

	if (o->version != 1)
		return sw_error_set(err, SW_EINVAL, "git observation version must be 1");
	if (!valid_text(o->head))
		return sw_error_set(err, SW_EINVAL, "git observation head must be nonempty UTF-8");
	if (!sw_digest_valid(o->index_fingerprint) || !sw_digest_valid(o->status_fingerprint) ||
	    !sw_digest_valid(o->path_fingerprint) || !sw_digest_valid(o->snapshot_hash))
		return sw_error_set(err, SW_EINVAL, "git observation digests must be lowercase sha256");
	if (o->path_count < 0 || o->content_byte_limit <= 0 ||
	    o->content_bytes_hashed < 0 || o->content_bytes_hashed > o->content_byte_limit)
		return sw_error_set(err, SW_EINVAL, "git observation counters out of range");
	if (o->content_observation_complete &&
	    (o->content_byte_limit_exceeded || o->content_deadline_exceeded))
		return sw_error_set(err, SW_EINVAL,
				    "complete git content observation cannot report a budget limit");
	if ((int64_t)o->retained > o->path_count)
		return sw_error_set(err, SW_EINVAL,
				    "git observation path_count cannot be smaller than retained details");
	if (!o->details_truncated != (o->path_count == (int64_t)o->retained))
		return sw_error_set(err, SW_EINVAL,
				    "git observation details_truncated must state whether details were omitted");
	for (size_t i = 0; i < o->retained; i++) {
		const struct vcs_path_obs *p = &o->paths[i];

		if (!valid_rel_path(p->path))
			return sw_error_set(err, SW_EINVAL,
					    "dirty_files[%zu] must be a relative UTF-8 path", i);
		if (i > 0 && strcmp(o->paths[i - 1].path, p->path) >= 0)
			return sw_error_set(err, SW_EINVAL,
					    "git observation dirty files must be sorted and unique");
		if ((rc = check_path_obs(p, err)) < 0)
			return rc;
	}
	if (!o->details_truncated) {
		if ((rc = vcs__path_fingerprint_of(o, expect, err)) < 0)
			return rc;
		if (strcmp(expect, o->path_fingerprint) != 0)
			return sw_error_set(err, SW_EINVAL,
					    "git observation path_fingerprint does not match path details");
	}
	copy = *o;
	if ((rc = vcs_observation_seal(&copy, err)) < 0)
		return rc;
	if (strcmp(copy.snapshot_hash, o->snapshot_hash) != 0)
		return sw_error_set(err, SW_EINVAL,
				    "git observation snapshot_hash does not match its fields");
	return 0;
}

/* Observations that say something definite about the content. */
static int concrete(const char *obs)
{
	return strcmp(obs, "content_unobserved") != 0 && strcmp(obs, "unreadable") != 0;
}

static int path_changed(const struct vcs_path_obs *now, const struct vcs_path_obs *was)
{
	if (strcmp(now->category, was->category) != 0 || strcmp(now->state, was->state) != 0)
		return 1;
	if (now->content_sha256[0] && was->content_sha256[0])
		return strcmp(now->content_sha256, was->content_sha256) != 0 ||
		       strcmp(now->content_kind, was->content_kind) != 0;
	if (now->has_size && was->has_size && now->size != was->size)
		return 1;
	return concrete(now->observation) && concrete(was->observation) &&
	       strcmp(now->observation, was->observation) != 0;
}

static const struct vcs_path_obs *find_path(const struct vcs_observation *o,
					    const char *path)
{
	size_t lo = 0, hi = o->retained;

	/* Retained details are sorted bytewise (validated on decode). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(o->paths[mid].path, path);

		if (c == 0)
			return &o->paths[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int vcs_observation_changed_from(const struct vcs_observation *now,
				 const struct vcs_observation *start)
{
	if (strcmp(now->snapshot_hash, start->snapshot_hash) == 0)
		return 0;
	if (now->content_observation_complete && start->content_observation_complete)
		return 1;
	if (strcmp(now->head, start->head) != 0 ||
	    strcmp(now->index_fingerprint, start->index_fingerprint) != 0 ||
	    strcmp(now->status_fingerprint, start->status_fingerprint) != 0)
		return 1;
	for (size_t i = 0; i < now->retained; i++) {
		const struct vcs_path_obs *was = find_path(start, now->paths[i].path);

		if (was != NULL && path_changed(&now->paths[i], was))
			return 1;
	}
	return 0;
}

void vcs_observation_release(struct vcs_observation *o)
{
	if (o == NULL)
		return;
	for (size_t i = 0; i < o->retained; i++) {
		sw_free(o->paths[i].path);
		sw_free(o->paths[i].category);
		sw_free(o->paths[i].state);
	}
	sw_free(o->paths);
	sw_free(o->head);
	*o = (struct vcs_observation)VCS_OBSERVATION_INIT;
}

int vcs_observation_copy(struct vcs_observation *dst,
			 const struct vcs_observation *src,
			 struct sw_error *err)
{
	int rc = SW_ENOMEM;

	*dst = *src;
	dst->head = NULL;
	dst->paths = NULL;
	dst->retained = 0;
	if ((dst->head = sw_strdup(src->head)) == NULL)
		goto out;
	if (src->retained > 0 &&
	    (dst->paths = sw_calloc(src->retained, sizeof(*dst->paths))) == NULL)
		goto out;
	for (size_t i = 0; i < src->retained; i++) {
		struct vcs_path_obs *d = &dst->paths[i];

		*d = src->paths[i];
		d->path = sw_strdup(src->paths[i].path);
		d->category = sw_strdup(src->paths[i].category);
		d->state = sw_strdup(src->paths[i].state);
		dst->retained++;
		if (!d->path || !d->category || !d->state)
			goto out;
	}
	rc = 0;
out:
	if (rc < 0) {
		vcs_observation_release(dst);
		sw_error_set(err, SW_ENOMEM, "cannot copy git observation");
	}
	return rc;
}
