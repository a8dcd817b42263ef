/* Registration of slipway mcp in hosts' project MCP configurations (see
 * adapter_mcp.h): the entry each host documents, in JSON, JSONC or TOML,
 * claimed through a record beside the host's ownership manifest. */

#include "io/adapters/adapter_mcp.h"
#include "io/adapters/adapter_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "io/util/buf.h"
#include "io/util/digest.h"
#include "io/util/file.h"
#include "io/util/json_edit.h"
#include "io/util/toml_edit.h"

#define SERVER_NAME "slipway"
#define CONFIG_MAX (1024 * 1024)
_Static_assert(ADAPTER_MCP_MAX == ADAPTER_NMCP, "one bound for the configurations of a host");
_Static_assert(MCP_REGS_MAX == ADAPTER_NMCP, "one bound for the configurations of a host");

#define TOML_BLOCK "[%s." SERVER_NAME "]\ncommand = \"slipway\"\nargs = [\"mcp\"]\n"

static const struct host *host_of(const char *id)
{
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		if (strcmp(adapter__hosts[i].id, id) == 0)
			return &adapter__hosts[i];
	return NULL;
}

size_t adapter_mcp_configs(const char *host_id, const char *out[ADAPTER_MCP_MAX],
			   const char *records[ADAPTER_MCP_MAX])
{
	const struct host *h = host_of(host_id);
	size_t n = 0;

	for (const struct mcp_reg *r = h ? h->mcp : NULL; r && r->config && n < ADAPTER_MCP_MAX; r++, n++) {
		out[n] = r->config;
		if (records)
			records[n] = r->record;
	}
	return n;
}

/* ---- the entry ---- */

static json_t *entry_json(enum mcp_shape shape)
{
	switch (shape) {
	case MCP_PLAIN:
		return json_pack("{ss s[s]}", "command", "slipway", "args", "mcp");
	case MCP_TYPED:
		return json_pack("{ss ss s[s]}", "type", "stdio", "command", "slipway", "args", "mcp");
	case MCP_PLAIN_WORKSPACE:
		return json_pack("{ss s[sss]}", "command", "slipway", "args", "mcp", "--root",
				 "${workspaceFolder}");
	case MCP_TYPED_WORKSPACE:
		return json_pack("{ss ss s[sss]}", "type", "stdio", "command", "slipway", "args", "mcp",
				 "--root", "${workspaceFolder}");
	case MCP_LOCAL:
		return json_pack("{ss s[ss]}", "type", "local", "command", "slipway", "mcp");
	case MCP_SHAPE_NONE:
	case MCP_TOML_TABLE:
		break;
	}
	return NULL;
}

/* The digest slipway records for a JSON entry. */
static int json_sha(char out[SW_HEX_LEN], const json_t *entry)
{
	char *text = json_dumps(entry, JSON_COMPACT | JSON_SORT_KEYS);

	if (text == NULL)
		return -1;
	sw_sha256_hex(text, strlen(text), out);
	sw_free(text);
	return 0;
}

/* The digest of the entry this build writes for `r`. */
static int current_sha(char out[SW_HEX_LEN], const struct mcp_reg *r)
{
	json_t *e;
	char *block;
	int rc = -1;

	if (r->format == MCP_TOML) {
		if ((block = sw_asprintf(TOML_BLOCK, r->key)) == NULL)
			return -1;
		sw_sha256_hex(block, strlen(block), out);
		sw_free(block);
		return 0;
	}
	if ((e = entry_json(r->shape)) != NULL)
		rc = json_sha(out, e);
	json_decref(e);
	return rc;
}

/* ---- a configuration file ---- */

struct cfg {
	struct mcp_file f;
	int found;
	char *bytes;
	size_t len;
	char sha[SW_HEX_LEN];		/* of the bytes */
	json_t *doc;			/* JSON: the document read */
	struct sw_toml_table table;	/* TOML: where [KEY.slipway] is */
	const char *why;		/* why it cannot be edited, or NULL */
	char why_buf[600];
};

static void cfg_release(struct cfg *c)
{
	sw_free(c->bytes);
	json_decref(c->doc);
	memset(c, 0, sizeof(*c));
}

static char *path_in(const char *root, const char *rel)
{
	return sw_asprintf("%s/%s", root, rel);
}

/* Reads file `f` below `root`: missing, unreadable for slipway (c->why),
 * or parsed.  A negative code only for an I/O failure or no memory. */
static int cfg_load(struct cfg *c, const char *root, struct mcp_file f, struct sw_error *err)
{
	char *abs = path_in(root, f.path), *plain = NULL;
	struct stat st;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->f = f;
	if (abs == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (lstat(abs, &st) < 0) {
		if (errno != ENOENT)
			rc = sw_error_sys(err, errno, "cannot inspect '%s'", abs);
		goto out;
	}
	if ((rc = sw_read_regular_file(&c->bytes, &c->len, abs, CONFIG_MAX, err)) < 0)
		goto out;
	c->found = 1;
	sw_sha256_hex(c->bytes, c->len, c->sha);
	if (f.format == MCP_TOML) {
		struct sw_error e = SW_ERROR_INIT;
		char *path = sw_asprintf("%s." SERVER_NAME, f.key);

		if (path == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto out;
		}
		if (sw_toml_find(&c->table, c->bytes, c->len, path, &e) < 0) {
			snprintf(c->why_buf, sizeof(c->why_buf), "cannot be read as TOML (%s)", e.msg);
			c->why = c->why_buf;
		}
		sw_free(path);
		goto out;
	}
	{
		struct sw_error e = SW_ERROR_INIT;
		const char *text = c->bytes;
		json_t *servers;

		if (f.format == MCP_JSONC) {
			if (sw_json_uncomment(&plain, c->bytes, c->len, &e) < 0) {
				if (e.code == SW_ENOMEM) {
					rc = sw_error_set(err, SW_ENOMEM, "out of memory");
					goto out;
				}
				c->why = "cannot be read as JSON with comments (a comment or string does not end)";
				goto out;
			}
			text = plain;
		}
		c->doc = json_loadb(text, c->len, JSON_REJECT_DUPLICATES, NULL);
		if (c->doc == NULL)
			c->why = f.format == MCP_JSONC
				 ? "cannot be read as JSON with comments exactly (not JSONC, a duplicate key, a number or string slipway cannot carry)"
				 : "cannot be read as JSON exactly (not JSON, a duplicate key, a number or string slipway cannot carry)";
		else if (!json_is_object(c->doc))
			c->why = "is not a JSON object";
		else if ((servers = json_object_get(c->doc, f.key)) != NULL && !json_is_object(servers))
			c->why = "has a servers entry that is not an object";
	}
out:
	sw_free(plain);
	sw_free(abs);
	return rc;
}

/* Whether the file holds an entry "slipway", and its digest ("" when it
 * is one slipway never writes, such as a TOML table defined otherwise). */
static int cfg_entry(const struct cfg *c, char sha[SW_HEX_LEN])
{
	sha[0] = '\0';
	if (!c->found || c->why)
		return 0;
	if (c->f.format == MCP_TOML) {
		struct sw_buf b = SW_BUF_INIT;
		char *block;

		if (c->table.state == SW_TOML_ABSENT)
			return 0;
		if (c->table.state == SW_TOML_OTHER)
			return 1;
		/* The table's lines, line ends read as LF. */
		for (size_t i = c->table.start; i < c->table.end; i++)
			if (!(c->bytes[i] == '\r' && i + 1 < c->table.end && c->bytes[i + 1] == '\n'))
				sw_buf_ch(&b, c->bytes[i]);
		if ((block = sw_buf_detach(&b)) != NULL)
			sw_sha256_hex(block, strlen(block), sha);
		sw_free(block);
		return 1;
	}
	{
		json_t *have = json_object_get(json_object_get(c->doc, c->f.key), SERVER_NAME);

		if (have == NULL)
			return 0;
		if (json_sha(sha, have) < 0)
			sha[0] = '\0';
		return 1;
	}
}

static enum sw_json_syntax syntax_of(enum mcp_format f)
{
	return f == MCP_JSONC ? SW_JSON_WITH_COMMENTS : SW_JSON_STRICT;
}

/* The file's text with our entry for `shape` added; the file may be
 * missing.  A refusal of the editor is a negative code in `e` (the
 * caller keeps the file); `err` only for no memory. */
static int cfg_add(char **out, size_t *len, const struct cfg *c, enum mcp_shape shape,
		   struct sw_error *e)
{
	const char *path[1] = { c->f.key };
	json_t *entry = NULL, *wrapped = NULL, *doc = NULL;
	char *block = NULL;
	int rc;

	*out = NULL;
	if (c->f.format == MCP_TOML) {
		char *tpath = sw_asprintf("%s." SERVER_NAME, c->f.key);

		if ((block = sw_asprintf(TOML_BLOCK, c->f.key)) == NULL || tpath == NULL)
			rc = sw_error_set(e, SW_ENOMEM, "out of memory");
		else
			rc = sw_toml_add(out, len, c->found ? c->bytes : "", c->found ? c->len : 0, tpath, block, e);
		sw_free(tpath);
		sw_free(block);
		return rc;
	}
	if ((entry = entry_json(shape)) == NULL)
		return sw_error_set(e, SW_ENOMEM, "out of memory");
	if (!c->found) {
		char *body;

		if ((doc = json_pack("{s{sO}}", c->f.key, SERVER_NAME, entry)) == NULL ||
		    (body = json_dumps(doc, JSON_INDENT(2))) == NULL) {
			rc = sw_error_set(e, SW_ENOMEM, "out of memory");
		} else {
			*out = sw_asprintf("%s\n", body);
			sw_free(body);
			rc = *out ? 0 : sw_error_set(e, SW_ENOMEM, "out of memory");
			if (*out)
				*len = strlen(*out);
		}
	} else if (json_object_get(c->doc, c->f.key) != NULL) {
		rc = sw_json_edit_add(out, len, c->bytes, c->len, syntax_of(c->f.format), path, 1, SERVER_NAME,
				      entry, e);
	} else if ((wrapped = json_pack("{sO}", SERVER_NAME, entry)) == NULL) {
		rc = sw_error_set(e, SW_ENOMEM, "out of memory");
	} else {
		rc = sw_json_edit_add(out, len, c->bytes, c->len, syntax_of(c->f.format), path, 0, c->f.key,
				      wrapped, e);
	}
	json_decref(doc);
	json_decref(wrapped);
	json_decref(entry);
	return rc;
}

/* The file's text without our entry, whose lines are `block` for TOML;
 * *empty when nothing but an empty servers object is left. */
static int cfg_remove(char **out, size_t *len, int *empty, const struct cfg *c, struct sw_error *e)
{
	const char *path[1] = { c->f.key };
	int rc;

	*out = NULL;
	*empty = 0;
	if (c->f.format == MCP_TOML) {
		char *block = sw_asprintf(TOML_BLOCK, c->f.key), *tpath = sw_asprintf("%s." SERVER_NAME, c->f.key);

		rc = block && tpath ? sw_toml_remove(out, len, c->bytes, c->len, tpath, block, e)
				    : sw_error_set(e, SW_ENOMEM, "out of memory");
		sw_free(block);
		sw_free(tpath);
		if (rc == 0)
			*empty = strspn(*out, " \t\r\n") == *len;
		return rc;
	}
	rc = sw_json_edit_remove(out, len, c->bytes, c->len, syntax_of(c->f.format), path, 1, SERVER_NAME, e);
	if (rc == 0)
		*empty = json_object_size(c->doc) == 1 &&
			 json_object_size(json_object_get(c->doc, c->f.key)) == 1;
	return rc;
}

/* ---- the record ---- */

static char *record_text(const char *host_id, const char *config, const char *sha, int created)
{
	return sw_asprintf("{\n  \"version\": 1,\n  \"tool_id\": \"%s\",\n  \"config\": \"%s\",\n"
			   "  \"server\": \"%s\",\n  \"entry_sha256\": \"%s\",\n  \"created_config\": %s\n}\n",
			   host_id, config, SERVER_NAME, sha, created ? "true" : "false");
}

/* The files a record of `r` may name: the current one, those read
 * instead of it, and the one an earlier slipway used. */
static int known_file(struct mcp_file *out, const struct mcp_reg *r, const char *path)
{
	if (path == NULL)
		return 0;
	if (strcmp(path, r->config) == 0) {
		*out = (struct mcp_file){ r->config, r->format, r->key };
		return 1;
	}
	for (size_t i = 0; i < sizeof(r->alt) / sizeof(r->alt[0]) && r->alt[i]; i++)
		if (strcmp(path, r->alt[i]) == 0) {
			*out = (struct mcp_file){ r->alt[i], r->format, r->key };
			return 1;
		}
	if (r->legacy.path && strcmp(path, r->legacy.path) == 0) {
		*out = r->legacy;
		return 1;
	}
	return 0;
}

/* A record as slipway writes it. */
struct record {
	int found, valid;
	struct mcp_file file;		/* the configuration it names */
	char sha[SW_HEX_LEN];		/* the entry's */
	int created;
	char bytes_sha[SW_HEX_LEN];	/* of the record file */
	char *rel, *abs;
};

/* Whether `path` is the file an earlier slipway used for `r`. */
static int is_legacy(const struct mcp_reg *r, const char *path)
{
	return r->legacy.path && strcmp(r->legacy.path, path) == 0;
}

static void record_release(struct record *r)
{
	sw_free(r->rel);
	sw_free(r->abs);
	memset(r, 0, sizeof(*r));
}

/* Reads the record of `reg`: valid only when it is byte for byte one
 * slipway writes for this host and names one of the files `reg` knows; a
 * file there that is not is the user's and is never rewritten. */
static int record_load(struct record *out, const char *root, const char *owner, const char *host_id,
		       const struct mcp_reg *reg, struct sw_error *err)
{
	char *bytes = NULL, *again = NULL;
	size_t len = 0;
	json_t *doc = NULL;
	struct stat st;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if ((out->rel = sw_asprintf("%s/slipway/%s", owner, reg->record)) == NULL ||
	    (out->abs = path_in(root, out->rel)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	if (lstat(out->abs, &st) < 0)
		return errno == ENOENT ? 0 : sw_error_sys(err, errno, "cannot inspect '%s'", out->abs);
	if ((rc = sw_read_regular_file(&bytes, &len, out->abs, CONFIG_MAX, err)) < 0)
		return rc;
	out->found = 1;
	sw_sha256_hex(bytes, len, out->bytes_sha);
	doc = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, NULL);
	{
		const char *s = json_string_value(json_object_get(doc, "entry_sha256"));
		json_t *c = json_object_get(doc, "created_config");

		if (s && strlen(s) == SW_HEX_LEN - 1 && strspn(s, "0123456789abcdef") == SW_HEX_LEN - 1 &&
		    json_is_boolean(c) &&
		    known_file(&out->file, reg, json_string_value(json_object_get(doc, "config"))) &&
		    (again = record_text(host_id, out->file.path, s, json_is_true(c))) != NULL &&
		    strlen(again) == len && memcmp(again, bytes, len) == 0) {
			out->valid = 1;
			memcpy(out->sha, s, SW_HEX_LEN);
			out->created = json_is_true(c);
		}
	}
	sw_free(again);
	json_decref(doc);
	sw_free(bytes);
	return 0;
}

/* ---- install ---- */

static int warn(struct adapter_report *rep, struct sw_error *err, char *msg)
{
	return adapter_strs_addf_own(&rep->warnings, msg, err);
}

static int keep(struct adapter_report *rep, const char *rel, char *msg, struct sw_error *err)
{
	int rc = adapter_strs_add(&rep->preserved, rel, err);

	if (rc == 0)
		rc = warn(rep, err, msg);
	else
		sw_free(msg);
	return rc;
}

static int exists_in(const char *root, const char *rel)
{
	char *abs = path_in(root, rel);
	struct stat st;
	int yes = abs && lstat(abs, &st) == 0;

	sw_free(abs);
	return yes;
}

/* The file install edits for `r`: the one the record names when it is
 * still one of the current ones and exists, else the first of `alt` that
 * exists, else `config`. */
static struct mcp_file target_of(const char *root, const struct mcp_reg *r, const struct record *rec)
{
	struct mcp_file f = { r->config, r->format, r->key };

	if (rec->valid && !is_legacy(r, rec->file.path) && exists_in(root, rec->file.path))
		return rec->file;
	for (size_t i = 0; i < sizeof(r->alt) / sizeof(r->alt[0]) && r->alt[i]; i++)
		if (exists_in(root, r->alt[i]))
			return (struct mcp_file){ r->alt[i], r->format, r->key };
	return f;
}

/* The host whose registration creates `config`, for a hint. */
static const char *creator_of(const char *config)
{
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		for (const struct mcp_reg *r = adapter__hosts[i].mcp; r && r->config; r++)
			if (strcmp(r->config, config) == 0)
				return adapter__hosts[i].id;
	return NULL;
}

/* Says so when the host reads `r->shadow` instead and it has no slipway. */
static int shadow_warning(struct adapter_report *rep, const char *root, const char *host_id,
			  const struct mcp_reg *r, struct sw_error *err)
{
	struct cfg s;
	char sha[SW_HEX_LEN];
	const char *who;
	int rc = 0;

	if (r->shadow == NULL)
		return 0;
	if ((rc = cfg_load(&s, root, (struct mcp_file){ r->shadow, MCP_JSON, "mcpServers" }, err)) < 0)
		return rc;
	if (s.found && !cfg_entry(&s, sha)) {
		who = creator_of(r->shadow);
		rc = warn(rep, err, sw_asprintf("%s: the host reads %s instead of %s while %s exists, and it "
						"has no slipway server%s%s%s", host_id, r->shadow, r->config,
						r->shadow, who ? " (slipway install --tool " : "",
						who ? who : "", who ? " --mcp adds one)" : ""));
	}
	cfg_release(&s);
	return rc;
}

/* Queues the removal of our entry (digest `sha`) from `c`, or keeps the
 * file and says why. */
static int plan_remove(struct adapter_report *rep, struct adapter_txn *txn, const char *root,
		       const char *host_id, const struct cfg *c, const char *sha, int created,
		       struct sw_error *err)
{
	struct sw_error e = SW_ERROR_INIT;
	char have[SW_HEX_LEN], *text = NULL, *abs = NULL;
	size_t len = 0;
	int empty = 0, rc = 0;

	if (!c->found)
		return 0;
	if (c->why || !cfg_entry(c, have) || strcmp(have, sha) != 0)
		return keep(rep, c->f.path, sw_asprintf("%s: the MCP server entry in %s is no longer the one "
							"slipway registered; it was kept", host_id, c->f.path), err);
	if (cfg_remove(&text, &len, &empty, c, &e) < 0) {
		if (e.code == SW_ENOMEM)
			return sw_error_set(err, SW_ENOMEM, "out of memory");
		return keep(rep, c->f.path, sw_asprintf("%s: %s cannot be rewritten exactly (%s); it was left "
							"untouched with slipway's entry in it", host_id,
							c->f.path, e.msg), err);
	}
	if ((abs = path_in(root, c->f.path)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
	} else if (created && empty) {
		if ((rc = adapter_txn_remove(txn, abs, ADAPTER_TXN_EXPECT_SHA256, c->sha, err)) == 0)
			rc = adapter_strs_add(&rep->removed, c->f.path, err);
	} else if ((rc = adapter_txn_write(txn, abs, text, len, 0644, ADAPTER_TXN_EXPECT_SHA256, c->sha, err)) == 0) {
		rc = adapter_strs_add(&rep->written, c->f.path, err);
	}
	sw_free(abs);
	sw_free(text);
	return rc;
}

static int plan_install_one(struct adapter_report *rep, struct adapter_txn *txn, const char *root,
			    const char *host_id, const char *owner, const struct mcp_reg *r,
			    int only_recorded, struct sw_error *err)
{
	struct record rec;
	struct cfg tgt = { 0 }, old = { 0 };
	struct mcp_file file;
	struct sw_error e = SW_ERROR_INIT;
	char want[SW_HEX_LEN], have[SW_HEX_LEN], *text = NULL, *record = NULL, *abs = NULL;
	size_t len = 0;
	int rc, present, moving, created;

	if ((rc = record_load(&rec, root, owner, host_id, r, err)) < 0)
		goto out;
	if (rec.found && !rec.valid) {
		rc = keep(rep, rec.rel, sw_asprintf("%s: %s is not a record slipway wrote; it was kept and "
						    "the MCP server was not registered", host_id, rec.rel), err);
		goto out;
	}
	if (only_recorded && !rec.found)
		goto out;
	if (current_sha(want, r) < 0) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	file = target_of(root, r, &rec);
	moving = rec.valid && strcmp(rec.file.path, file.path) != 0;
	if ((rc = cfg_load(&tgt, root, file, err)) < 0)
		goto out;
	if (tgt.why) {
		rc = keep(rep, file.path, sw_asprintf("%s: %s %s; it was left untouched and the MCP server was "
						      "not registered", host_id, file.path, tgt.why), err);
		goto out;
	}
	present = cfg_entry(&tgt, have);
	if (present && strcmp(have, want) == 0 && rec.valid && !moving) {
		/* Registered already; a record of an earlier entry is brought
		 * up to date. */
		if (strcmp(rec.sha, want) == 0)
			goto shadow;
		created = rec.created;
		goto write_record;
	}
	if (present && !(rec.valid && !moving && strcmp(have, rec.sha) == 0)) {
		rc = keep(rep, file.path, sw_asprintf("%s: %s already has an MCP server named \"%s\" that "
						      "slipway did not register; it was kept", host_id,
						      file.path, SERVER_NAME), err);
		goto out;
	}
	if (present) {
		/* Ours as an earlier slipway wrote it: taken out, then added
		 * in its current shape. */
		char *without = NULL;
		size_t wlen = 0;
		int empty;

		if (cfg_remove(&without, &wlen, &empty, &tgt, &e) == 0) {
			struct cfg again = tgt;

			again.bytes = without;
			again.len = wlen;
			again.doc = NULL;
			if (file.format == MCP_TOML) {
				char *tpath = sw_asprintf("%s." SERVER_NAME, file.key);

				if (tpath == NULL || sw_toml_find(&again.table, without, wlen, tpath, &e) < 0)
					(void)sw_error_set(&e, tpath ? SW_EPARSE : SW_ENOMEM, "cannot be read again");
				sw_free(tpath);
			} else {
				char *plain = NULL;

				if (sw_json_uncomment(&plain, without, wlen, &e) == 0)
					again.doc = json_loadb(plain, wlen, JSON_REJECT_DUPLICATES, NULL);
				sw_free(plain);
			}
			if (e.code == SW_OK && (file.format == MCP_TOML || again.doc))
				(void)cfg_add(&text, &len, &again, r->shape, &e);
			else if (e.code == SW_OK)
				(void)sw_error_set(&e, SW_EPARSE, "cannot be read again");
			json_decref(again.doc);
		}
		sw_free(without);
	} else {
		(void)cfg_add(&text, &len, &tgt, r->shape, &e);
	}
	if (e.code == SW_ENOMEM) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if (e.code != SW_OK) {
		rc = keep(rep, file.path, sw_asprintf("%s: %s cannot be rewritten exactly (%s); it was left "
						      "untouched and the MCP server was not registered",
						      host_id, file.path, e.msg), err);
		goto out;
	}
	if ((abs = path_in(root, file.path)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = adapter_txn_write(txn, abs, text, len, 0644,
				    tgt.found ? ADAPTER_TXN_EXPECT_SHA256 : ADAPTER_TXN_EXPECT_MISSING,
				    tgt.sha, err)) < 0 ||
	    (rc = adapter_strs_add(&rep->written, file.path, err)) < 0)
		goto out;
	created = !tgt.found || (rec.valid && !moving && rec.created);
	if (moving) {
		/* From the file an earlier slipway used to the current one. */
		if ((rc = cfg_load(&old, root, rec.file, err)) < 0 ||
		    (rc = plan_remove(rep, txn, root, host_id, &old, rec.sha, rec.created, err)) < 0)
			goto out;
	}
write_record:
	if ((record = record_text(host_id, file.path, want, created)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = adapter_txn_write(txn, rec.abs, record, strlen(record), 0600,
				    rec.found ? ADAPTER_TXN_EXPECT_SHA256 : ADAPTER_TXN_EXPECT_MISSING,
				    rec.bytes_sha, err)) < 0 ||
	    (rc = adapter_strs_add(&rep->written, rec.rel, err)) < 0)
		goto out;
shadow:
	rc = shadow_warning(rep, root, host_id, r, err);
out:
	sw_free(text);
	sw_free(record);
	sw_free(abs);
	cfg_release(&tgt);
	cfg_release(&old);
	record_release(&rec);
	return rc;
}

int adapter_mcp_plan_install(struct adapter_report *rep, struct adapter_txn *txn,
			     const char *root, const char *host_id, const char *owner,
			     int only_recorded, struct sw_error *err)
{
	const struct host *h = host_of(host_id);
	int rc = 0;

	if (h == NULL || h->mcp == NULL)
		return only_recorded ? 0 : warn(rep, err, sw_asprintf(
			"%s documents no project-level MCP configuration; its capability texts drive "
			"slipway through argv", host_id));
	for (const struct mcp_reg *r = h->mcp; r->config && rc == 0; r++)
		rc = plan_install_one(rep, txn, root, host_id, owner, r, only_recorded, err);
	return rc;
}

/* ---- uninstall ---- */

int adapter_mcp_plan_uninstall(struct adapter_report *rep, struct adapter_txn *txn,
			       const char *root, const char *host_id, const char *owner,
			       struct sw_error *err)
{
	const struct host *h = host_of(host_id);
	int rc = 0;

	for (const struct mcp_reg *r = h ? h->mcp : NULL; r && r->config && rc == 0; r++) {
		struct record rec;
		struct cfg c = { 0 };

		if ((rc = record_load(&rec, root, owner, host_id, r, err)) < 0 || !rec.found) {
			record_release(&rec);
			continue;
		}
		if (!rec.valid) {
			/* Not slipway's record: the user's file stays, and so
			 * does every entry of the configuration. */
			rc = keep(rep, rec.rel, sw_asprintf("%s: %s is not a record slipway wrote; it and %s "
							    "were kept", host_id, rec.rel, r->config), err);
		} else if ((rc = adapter_txn_remove(txn, rec.abs, ADAPTER_TXN_EXPECT_SHA256, rec.bytes_sha,
						    err)) == 0 &&
			   (rc = adapter_strs_add(&rep->removed, rec.rel, err)) == 0 &&
			   (rc = cfg_load(&c, root, rec.file, err)) == 0) {
			rc = plan_remove(rep, txn, root, host_id, &c, rec.sha, rec.created, err);
		}
		cfg_release(&c);
		record_release(&rec);
	}
	return rc;
}

/* ---- list and doctor ---- */

int adapter_mcp_inspect(struct adapter_mcp_status out[ADAPTER_MCP_MAX], size_t *n,
			const char *root, const char *host_id, const char *owner,
			struct sw_error *err)
{
	const struct host *h = host_of(host_id);
	int rc = 0;

	*n = 0;
	for (const struct mcp_reg *r = h ? h->mcp : NULL; r && r->config && *n < ADAPTER_MCP_MAX; r++) {
		struct adapter_mcp_status *st = &out[(*n)++];
		struct record rec;
		struct cfg c = { 0 };
		char have[SW_HEX_LEN], want[SW_HEX_LEN];

		st->state = ADAPTER_MCP_NONE;
		st->config = r->config;
		if ((rc = record_load(&rec, root, owner, host_id, r, err)) < 0)
			return rc;
		if (rec.valid) {
			st->config = rec.file.path;
			st->state = ADAPTER_MCP_CHANGED;
			if (cfg_load(&c, root, rec.file, &(struct sw_error)SW_ERROR_INIT) == 0 &&
			    cfg_entry(&c, have) && strcmp(have, rec.sha) == 0)
				st->state = current_sha(want, r) == 0 && strcmp(want, rec.sha) == 0 &&
					    !is_legacy(r, rec.file.path)
					    ? ADAPTER_MCP_REGISTERED : ADAPTER_MCP_OUTDATED;
			cfg_release(&c);
		}
		record_release(&rec);
	}
	return rc;
}
