/* gitObservation as JSON (keys in the reference's order) and back,
 * decoded strictly and validated.  Never touches a repository or a file. */

#include "io/git/observe.h"

#include <string.h>

#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/json.h"

static json_t *path_obs_json(const struct vcs_path_obs *p)
{
	json_t *o = json_object();

	if (o == NULL ||
	    json_object_set_new(o, "path", json_string(p->path)) < 0 ||
	    json_object_set_new(o, "category", json_string(p->category)) < 0 ||
	    json_object_set_new(o, "state", json_string(p->state)) < 0 ||
	    json_object_set_new(o, "observation", json_string(p->observation)) < 0 ||
	    (p->has_size && json_object_set_new(o, "size", json_integer(p->size)) < 0) ||
	    (p->has_mtime &&
	     json_object_set_new(o, "modified_unix_nano", json_integer(p->modified_unix_nano)) < 0) ||
	    (p->content_sha256[0] &&
	     json_object_set_new(o, "content_sha256", json_string(p->content_sha256)) < 0) ||
	    (p->content_kind[0] &&
	     json_object_set_new(o, "content_fingerprint_kind", json_string(p->content_kind)) < 0)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

struct json_t *vcs_observation_to_json(const struct vcs_observation *o)
{
	json_t *j = json_object(), *files = json_array(), *paths = json_array();
	json_t *result = NULL;

	if (j == NULL || files == NULL || paths == NULL)
		goto out;
	for (size_t i = 0; i < o->retained; i++) {
		if (json_array_append_new(files, json_string(o->paths[i].path)) < 0 ||
		    json_array_append_new(paths, path_obs_json(&o->paths[i])) < 0)
			goto out;
	}
	if (json_object_set_new(j, "version", json_integer(o->version)) < 0 ||
	    json_object_set_new(j, "head", json_string(o->head)) < 0 ||
	    json_object_set_new(j, "index_fingerprint", json_string(o->index_fingerprint)) < 0 ||
	    json_object_set_new(j, "status_fingerprint", json_string(o->status_fingerprint)) < 0 ||
	    json_object_set_new(j, "snapshot_hash", json_string(o->snapshot_hash)) < 0 ||
	    json_object_set_new(j, "path_count", json_integer(o->path_count)) < 0 ||
	    json_object_set_new(j, "path_fingerprint", json_string(o->path_fingerprint)) < 0 ||
	    json_object_set_new(j, "details_truncated", json_boolean(o->details_truncated)) < 0 ||
	    json_object_set_new(j, "content_observation_complete",
				json_boolean(o->content_observation_complete)) < 0 ||
	    json_object_set_new(j, "content_bytes_hashed", json_integer(o->content_bytes_hashed)) < 0 ||
	    json_object_set_new(j, "content_byte_limit", json_integer(o->content_byte_limit)) < 0 ||
	    json_object_set_new(j, "content_byte_limit_exceeded",
				json_boolean(o->content_byte_limit_exceeded)) < 0 ||
	    json_object_set_new(j, "content_deadline_exceeded",
				json_boolean(o->content_deadline_exceeded)) < 0)
		goto out;
	if (json_object_set_new(j, "dirty_files", files) < 0) {
		files = NULL;
		goto out;
	}
	files = NULL;
	if (json_object_set_new(j, "path_observations", paths) < 0) {
		paths = NULL;
		goto out;
	}
	paths = NULL;
	result = j;
	j = NULL;
out:
	json_decref(files);
	json_decref(paths);
	json_decref(j);
	return result;
}

static int get_digest(char out[SW_DIGEST_LEN], const json_t *o, const char *key,
		      struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= SW_DIGEST_LEN)
		return sw_error_set(err, json_is_string(v) ? SW_EINVAL : SW_EPARSE,
				    "git observation %s must be a sha256 digest string", key);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int get_bool(int *out, const json_t *o, const char *key, struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return sw_error_set(err, SW_EPARSE, "git observation %s must be a boolean", key);
	*out = json_is_true(v);
	return 0;
}

static int get_int(int64_t *out, const json_t *o, const char *key, struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		return sw_error_set(err, SW_EPARSE, "git observation %s must be an integer", key);
	*out = json_integer_value(v);
	return 0;
}

static int dup_string(char **out, const json_t *o, const char *key, struct sw_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return sw_error_set(err, SW_EPARSE, "%s must be a string", key);
	if (strlen(json_string_value(v)) != json_string_length(v))
		return sw_error_set(err, SW_EINVAL, "%s must not contain NUL", key);
	if ((*out = sw_strdup(json_string_value(v))) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate %s", key);
	return 0;
}

static int path_obs_from_json(struct vcs_path_obs *p, const json_t *v,
			      struct sw_error *err)
{
	static const char *const keys[] = {
		"path", "category", "state", "observation", "size",
		"modified_unix_nano", "content_sha256", "content_fingerprint_kind",
	};
	const char *key;
	json_t *val;
	int rc;

	if (!json_is_object(v))
		return sw_error_set(err, SW_EPARSE, "path observation must be an object");
	json_object_foreach((json_t *)v, key, val) {
		size_t k = 0;

		while (k < sizeof(keys) / sizeof(*keys) && strcmp(keys[k], key) != 0)
			k++;
		if (k == sizeof(keys) / sizeof(*keys))
			return sw_error_set(err, SW_EPARSE, "path observation has unknown key '%s'", key);
	}
	if ((rc = dup_string(&p->path, v, "path", err)) < 0 ||
	    (rc = dup_string(&p->category, v, "category", err)) < 0 ||
	    (rc = dup_string(&p->state, v, "state", err)) < 0)
		return rc;
	val = json_object_get(v, "observation");
	if (!json_is_string(val) || json_string_length(val) >= sizeof(p->observation))
		return sw_error_set(err, SW_EPARSE, "path observation kind must be a known string");
	memcpy(p->observation, json_string_value(val), json_string_length(val) + 1);
	if (json_object_get(v, "size") != NULL) {
		if ((rc = get_int(&p->size, v, "size", err)) < 0)
			return rc;
		p->has_size = 1;
	}
	if (json_object_get(v, "modified_unix_nano") != NULL) {
		if ((rc = get_int(&p->modified_unix_nano, v, "modified_unix_nano", err)) < 0)
			return rc;
		p->has_mtime = 1;
	}
	if (json_object_get(v, "content_sha256") != NULL &&
	    (rc = get_digest(p->content_sha256, v, "content_sha256", err)) < 0)
		return rc;
	val = json_object_get(v, "content_fingerprint_kind");
	if (val != NULL) {
		if (!json_is_string(val) || json_string_length(val) >= sizeof(p->content_kind) ||
		    json_string_length(val) == 0)
			return sw_error_set(err, SW_EPARSE,
					    "content_fingerprint_kind must be a known string");
		memcpy(p->content_kind, json_string_value(val), json_string_length(val) + 1);
	}
	return 0;
}

int vcs_observation_from_json(struct vcs_observation *out,
			      const struct json_t *v, struct sw_error *err)
{
	static const char *const keys[] = {
		"version", "head", "index_fingerprint", "status_fingerprint",
		"snapshot_hash", "path_count", "path_fingerprint", "details_truncated",
		"content_observation_complete", "content_bytes_hashed",
		"content_byte_limit", "content_byte_limit_exceeded",
		"content_deadline_exceeded", "dirty_files", "path_observations",
	};
	json_t *files, *paths, *val;
	int64_t version = 0;
	size_t n;
	int rc;

	*out = (struct vcs_observation)VCS_OBSERVATION_INIT;
	if (!json_is_object(v) || json_object_size(v) != sizeof(keys) / sizeof(*keys)) {
		rc = sw_error_set(err, SW_EPARSE, "git observation must be an object with %zu keys",
				  sizeof(keys) / sizeof(*keys));
		goto out;
	}
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		if (json_object_get(v, keys[k]) == NULL) {
			rc = sw_error_set(err, SW_EPARSE, "git observation lacks '%s'", keys[k]);
			goto out;
		}
	}
	if ((rc = get_int(&version, v, "version", err)) < 0 ||
	    (rc = dup_string(&out->head, v, "head", err)) < 0 ||
	    (rc = get_digest(out->index_fingerprint, v, "index_fingerprint", err)) < 0 ||
	    (rc = get_digest(out->status_fingerprint, v, "status_fingerprint", err)) < 0 ||
	    (rc = get_digest(out->snapshot_hash, v, "snapshot_hash", err)) < 0 ||
	    (rc = get_int(&out->path_count, v, "path_count", err)) < 0 ||
	    (rc = get_digest(out->path_fingerprint, v, "path_fingerprint", err)) < 0 ||
	    (rc = get_bool(&out->details_truncated, v, "details_truncated", err)) < 0 ||
	    (rc = get_bool(&out->content_observation_complete, v,
			   "content_observation_complete", err)) < 0 ||
	    (rc = get_int(&out->content_bytes_hashed, v, "content_bytes_hashed", err)) < 0 ||
	    (rc = get_int(&out->content_byte_limit, v, "content_byte_limit", err)) < 0 ||
	    (rc = get_bool(&out->content_byte_limit_exceeded, v,
			   "content_byte_limit_exceeded", err)) < 0 ||
	    (rc = get_bool(&out->content_deadline_exceeded, v,
			   "content_deadline_exceeded", err)) < 0)
		goto out;
	if (version != 1) {
		rc = sw_error_set(err, SW_EINVAL, "git observation version must be 1");
		goto out;
	}
	out->version = 1;
	files = json_object_get(v, "dirty_files");
	paths = json_object_get(v, "path_observations");
	if (!json_is_array(files) || !json_is_array(paths)) {
		rc = sw_error_set(err, SW_EPARSE, "dirty_files and path_observations must be arrays");
		goto out;
	}
	n = json_array_size(paths);
	if (json_array_size(files) != n) {
		rc = sw_error_set(err, SW_EINVAL,
				  "git observation dirty files and path observations must correspond");
		goto out;
	}
	if (n > 0 && (out->paths = sw_calloc(n, sizeof(*out->paths))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate paths");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		out->retained++;
		if ((rc = path_obs_from_json(&out->paths[i], json_array_get(paths, i), err)) < 0)
			goto out;
		val = json_array_get(files, i);
		if (!json_is_string(val) || strcmp(json_string_value(val), out->paths[i].path) != 0) {
			rc = sw_error_set(err, SW_EINVAL,
					  "path observations must match dirty files in order");
			goto out;
		}
	}
	rc = vcs_observation_validate(out, err);
out:
	if (rc < 0)
		vcs_observation_release(out);
	return rc;
}
