#include "io/next.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "io/vcs.h"

static char **strv_dup(const char *const *v, size_t *count)
{
	size_t n = 0;
	char **out;

	while (v && v[n])
		n++;
	if ((out = sw_calloc(n + 1, sizeof(*out))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if ((out[i] = sw_strdup(v[i])) == NULL) {
			for (size_t k = 0; k < i; k++)
				sw_free(out[k]);
			sw_free(out);
			return NULL;
		}
	}
	if (count)
		*count = n;
	return out;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		sw_free(v[i]);
	sw_free(v);
}

int next_new(struct next **out, enum tbl_nextop op, const char *identity,
	     const char *root, struct sw_error *err)
{
	struct next *n = sw_calloc(1, sizeof(*n));

	*out = NULL;
	if (n == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate next");
	n->operation = op;
	snprintf(n->identity, sizeof(n->identity), "%s", identity);
	if (root != NULL && (n->root = sw_strdup(root)) == NULL) {
		sw_free(n);
		return sw_error_set(err, SW_ENOMEM, "cannot allocate next");
	}
	*out = n;
	return 0;
}

/* Identity and canonical root of the workspace at `root`. */
static int identity_for(char identity[SW_DIGEST_LEN], char **canon,
			const char *root, struct sw_error *err)
{
	struct vcs_identity id = VCS_IDENTITY_INIT;
	struct sw_error ignored = SW_ERROR_INIT;

	if (vcs_discover(&id, root, &ignored) == 0) {
		memcpy(identity, id.id, SW_DIGEST_LEN);
		*canon = id.worktree_root;
		id.worktree_root = NULL;
		vcs_identity_release(&id);
		return *canon ? 0 : sw_error_set(err, SW_ENOMEM, "no root");
	}
	return vcs_unavailable_identity(identity, canon,
					root && *root ? root : ".", err);
}

int next_none(struct next **out, const char *root, struct sw_error *err)
{
	char identity[SW_DIGEST_LEN];
	char *canon = NULL;
	int rc;

	*out = NULL;
	if ((rc = identity_for(identity, &canon, root, err)) < 0)
		return rc;
	rc = next_new(out, TBL_NEXTOP_NONE, identity, canon, err);
	sw_free(canon);
	return rc;
}

int next_none_identity(struct next **out, const char *identity,
		       struct sw_error *err)
{
	return next_new(out, TBL_NEXTOP_NONE, identity, NULL, err);
}

int next_add_variant(struct next *n, enum tbl_variant id,
		     const char *const *argv, struct next_variant **vout,
		     struct sw_error *err)
{
	struct next_variant *grown, *v;

	grown = sw_realloc(n->variants, (n->nvariants + 1) * sizeof(*grown));
	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate variant");
	n->variants = grown;
	v = &n->variants[n->nvariants];
	memset(v, 0, sizeof(*v));
	v->id = id;
	if ((v->argv = strv_dup(argv, &v->argc)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate variant");
	n->nvariants++;
	if (vout)
		*vout = v;
	return 0;
}

int next_variant_add_input(struct next_variant *v, const char *name,
			   enum tbl_input type, const char *flag, int required,
			   const char *const *choices, struct sw_error *err)
{
	struct next_input *grown, *in;

	grown = sw_realloc(v->inputs, (v->ninputs + 1) * sizeof(*grown));
	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "cannot allocate input");
	v->inputs = grown;
	in = &v->inputs[v->ninputs];
	memset(in, 0, sizeof(*in));
	in->type = type;
	in->required = required;
	in->name = sw_strdup(name);
	in->flag = sw_strdup(flag);
	if (choices)
		in->choices = strv_dup(choices, NULL);
	v->ninputs++;
	if (!in->name || !in->flag || (choices && !in->choices))
		return sw_error_set(err, SW_ENOMEM, "cannot allocate input");
	return 0;
}

int next_command(struct next **out, enum tbl_nextop op, enum tbl_variant id,
		 const char *root, const char *const *argv,
		 struct sw_error *err)
{
	char identity[SW_DIGEST_LEN];
	char *canon = NULL;
	int rc;

	*out = NULL;
	if ((rc = identity_for(identity, &canon, root, err)) < 0)
		return rc;
	if ((rc = next_new(out, op, identity, canon, err)) == 0 &&
	    (rc = next_add_variant(*out, id, argv, NULL, err)) < 0) {
		next_free(*out);
		*out = NULL;
	}
	sw_free(canon);
	return rc;
}

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();

	for (size_t i = 0; a && v && v[i]; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *next_to_json(const struct next *n)
{
	json_t *o = json_object(), *vars = json_array();

	if (o == NULL || vars == NULL)
		goto fail;
	if (json_object_set_new(o, "operation",
				json_string(tbl_nextop_wire[n->operation])) < 0 ||
	    json_object_set_new(o, "workspace_identity",
				json_string(n->identity)) < 0)
		goto fail;
	for (size_t i = 0; i < n->nvariants; i++) {
		const struct next_variant *v = &n->variants[i];
		json_t *vo = json_object(), *ins = json_array();

		if (vo == NULL || ins == NULL ||
		    json_array_append_new(vars, vo) < 0) {
			json_decref(vo);
			json_decref(ins);
			goto fail;
		}
		json_object_set_new(vo, "id", json_string(tbl_variant_wire[v->id]));
		json_object_set_new(vo, "base_argv", strv_json(v->argv));
		for (size_t k = 0; k < v->ninputs; k++) {
			const struct next_input *in = &v->inputs[k];
			json_t *io = json_object();

			json_array_append_new(ins, io);
			json_object_set_new(io, "name", json_string(in->name));
			json_object_set_new(io, "type",
					    json_string(tbl_input_wire[in->type]));
			json_object_set_new(io, "flag", json_string(in->flag));
			json_object_set_new(io, "required",
					    json_boolean(in->required));
			if (in->choices)
				json_object_set_new(io, "choices",
						    strv_json(in->choices));
		}
		if (json_object_set_new(vo, "inputs", ins) < 0)
			goto fail;
	}
	if (json_object_set_new(o, "variants", vars) < 0) {
		vars = NULL;
		goto fail;
	}
	return o;
fail:
	json_decref(vars);
	json_decref(o);
	return NULL;
}

void next_free(struct next *n)
{
	if (n == NULL)
		return;
	for (size_t i = 0; i < n->nvariants; i++) {
		struct next_variant *v = &n->variants[i];

		strv_free(v->argv);
		for (size_t k = 0; k < v->ninputs; k++) {
			sw_free(v->inputs[k].name);
			sw_free(v->inputs[k].flag);
			strv_free(v->inputs[k].choices);
		}
		sw_free(v->inputs);
	}
	sw_free(n->variants);
	sw_free(n->root);
	sw_free(n);
}
