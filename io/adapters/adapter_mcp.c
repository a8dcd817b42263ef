/* Registration of slipway mcp in hosts' project MCP configurations. */

#include "io/adapters/adapter_mcp.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "io/util/digest.h"
#include "io/util/file.h"
#include "io/util/json_edit.h"

#define SERVER_NAME "slipway"
#define RECORD_NAME ADAPTER_MCP_RECORD
#define CONFIG_MAX (1024 * 1024)

/* The project-level MCP configuration each host documents (see the
 * header for the sources); hosts without one are absent. */
/*	  host       configuration file        servers key */
static const struct mcp_host {
	const char *id;
	const char *config;
	const char *key;
} mcp_hosts[] = {
	{ "claude",  ".mcp.json",               "mcpServers" },
	{ "copilot", ".vscode/mcp.json",        "servers" },
	{ "cursor",  ".cursor/mcp.json",        "mcpServers" },
	{ "kilo",    ".kilocode/mcp.json",      "mcpServers" },
	{ "kiro",    ".kiro/settings/mcp.json", "mcpServers" },
};

static const struct mcp_host *mcp_host(const char *id)
{
	for (size_t i = 0; i < sizeof(mcp_hosts) / sizeof(mcp_hosts[0]); i++)
		if (strcmp(mcp_hosts[i].id, id) == 0)
			return &mcp_hosts[i];
	return NULL;
}

const char *adapter_mcp_config(const char *host_id)
{
	const struct mcp_host *m = mcp_host(host_id);

	return m ? m->config : NULL;
}

static json_t *our_entry(const char *root)
{
	return json_pack("{ss s[sss]}", "command", "slipway", "args", "mcp", "--root", root);
}

static int entry_sha(char out[SW_HEX_LEN], const json_t *entry)
{
	char *text = json_dumps(entry, JSON_COMPACT | JSON_SORT_KEYS);

	if (text == NULL)
		return -1;
	sw_sha256_hex(text, strlen(text), out);
	sw_free(text);
	return 0;
}

/* What a file holds: missing, or its bytes and their sha256. */
struct snapshot {
	int found;
	char *bytes;
	size_t len;
	char sha[SW_HEX_LEN];
};

static int snapshot(struct snapshot *s, const char *path, struct sw_error *err)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return sw_error_sys(err, errno, "cannot inspect '%s'", path);
	}
	if (sw_read_regular_file(&s->bytes, &s->len, path, CONFIG_MAX, err) < 0)
		return err->code;
	s->found = 1;
	sw_sha256_hex(s->bytes, s->len, s->sha);
	return 0;
}

static void snapshot_release(struct snapshot *s)
{
	sw_free(s->bytes);
	memset(s, 0, sizeof(*s));
}

static char *encode(const json_t *doc, size_t *len)
{
	char *body = json_dumps(doc, JSON_INDENT(2)), *text;

	if (body == NULL)
		return NULL;
	text = sw_asprintf("%s\n", body);
	sw_free(body);
	if (text)
		*len = strlen(text);
	return text;
}

/* The ownership record, as slipway writes it. */
static char *record_text(const char *host_id, const char *config, const char *sha, int created)
{
	return sw_asprintf("{\n  \"version\": 1,\n  \"tool_id\": \"%s\",\n  \"config\": \"%s\",\n"
			   "  \"server\": \"%s\",\n  \"entry_sha256\": \"%s\",\n  \"created_config\": %s\n}\n",
			   host_id, config, SERVER_NAME, sha, created ? "true" : "false");
}

/* Reads the record `rec` of host `m`: 0 with the entry digest and the
 * created flag when it is byte for byte a record slipway writes for this
 * host; -1 when it is not slipway's (a file of the user's at that path,
 * or one changed since), which is then never rewritten or removed. */
static int read_record(const struct snapshot *rec, const struct mcp_host *m, char sha[SW_HEX_LEN],
		       int *created)
{
	json_t *doc = json_loadb(rec->bytes, rec->len, JSON_REJECT_DUPLICATES, NULL);
	const char *s = json_string_value(json_object_get(doc, "entry_sha256"));
	json_t *c = json_object_get(doc, "created_config");
	char *again = NULL;
	int ok = s && strlen(s) == SW_HEX_LEN - 1 && strspn(s, "0123456789abcdef") == SW_HEX_LEN - 1 &&
		 json_is_boolean(c);

	if (ok) {
		again = record_text(m->id, m->config, s, json_is_true(c));
		ok = again && strlen(again) == rec->len && memcmp(again, rec->bytes, rec->len) == 0;
	}
	if (ok) {
		memcpy(sha, s, SW_HEX_LEN);
		*created = json_is_true(c);
	}
	sw_free(again);
	json_decref(doc);
	return ok ? 0 : -1;
}

struct paths {
	char *config_abs, *record_abs, *record_rel;
};

static int paths_of(struct paths *p, const char *root, const struct mcp_host *m,
		    const char *owner, struct sw_error *err)
{
	p->config_abs = sw_asprintf("%s/%s", root, m->config);
	p->record_rel = sw_asprintf("%s/slipway/%s", owner, RECORD_NAME);
	p->record_abs = p->record_rel ? sw_asprintf("%s/%s", root, p->record_rel) : NULL;
	if (!p->config_abs || !p->record_rel || !p->record_abs)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	return 0;
}

static void paths_release(struct paths *p)
{
	sw_free(p->config_abs);
	sw_free(p->record_abs);
	sw_free(p->record_rel);
}

static int warn(struct adapter_report *rep, struct sw_error *err, char *msg)
{
	return adapter_strs_addf_own(&rep->warnings, msg, err);
}

/* The configuration as a JSON object with its servers object, or NULL
 * (and *why) when it is not one slipway may edit. */
static json_t *parse_config(const struct snapshot *s, const struct mcp_host *m, const char **why,
			    int *added)
{
	json_t *doc = s->found ? json_loadb(s->bytes, s->len, JSON_REJECT_DUPLICATES, NULL)
			       : json_object();
	json_t *servers;

	*why = NULL;
	if (added)
		*added = 0;
	if (doc == NULL) {
		*why = "cannot be read as JSON exactly (not JSON, a duplicate key, a number or "
		       "string slipway cannot carry)";
	} else if (!json_is_object(doc)) {
		*why = "is not a JSON object";
	} else if ((servers = json_object_get(doc, m->key)) == NULL) {
		if (json_object_set_new(doc, m->key, json_object()) < 0)
			*why = "cannot be edited (out of memory)";
		else if (added)
			*added = 1;
	} else if (!json_is_object(servers)) {
		*why = "has a servers entry that is not an object";
	}
	if (*why) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int adapter_mcp_plan_install(struct adapter_report *rep, struct adapter_txn *txn,
			     const char *root, const char *host_id, const char *owner,
			     struct sw_error *err)
{
	const struct mcp_host *m = mcp_host(host_id);
	struct paths p = { NULL, NULL, NULL };
	struct snapshot cfg = { 0 }, rec = { 0 };
	json_t *doc = NULL, *entry = NULL, *servers, *have;
	char *text = NULL, *record = NULL, sha[SW_HEX_LEN], have_sha[SW_HEX_LEN];
	const char *why;
	size_t len = 0;
	int rc = 0, created = 0, servers_added = 0;

	if (m == NULL)
		return warn(rep, err, sw_asprintf("%s documents no project-level MCP configuration; "
						  "its capability texts drive slipway through argv", host_id));
	if ((rc = paths_of(&p, root, m, owner, err)) < 0 ||
	    (rc = snapshot(&cfg, p.config_abs, err)) < 0 || (rc = snapshot(&rec, p.record_abs, err)) < 0)
		goto out;
	if ((entry = our_entry(root)) == NULL || entry_sha(sha, entry) < 0) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if (rec.found && read_record(&rec, m, have_sha, &created) < 0) {
		/* A file at our record's path that slipway did not write is
		 * the user's: never overwritten, and nothing registered. */
		if ((rc = adapter_strs_add(&rep->preserved, p.record_rel, err)) == 0)
			rc = warn(rep, err, sw_asprintf("%s: %s is not a record slipway wrote; it was kept "
							"and the MCP server was not registered", host_id,
							p.record_rel));
		goto out;
	}
	if ((doc = parse_config(&cfg, m, &why, &servers_added)) == NULL) {
		if ((rc = adapter_strs_add(&rep->preserved, m->config, err)) == 0)
			rc = warn(rep, err, sw_asprintf("%s: %s %s; it was left untouched and the MCP "
							"server was not registered", host_id, m->config, why));
		goto out;
	}
	servers = json_object_get(doc, m->key);
	if ((have = json_object_get(servers, SERVER_NAME)) != NULL) {
		if (json_equal(have, entry) && rec.found)
			goto out;	/* registered already, nothing to do */
		if ((rc = adapter_strs_add(&rep->preserved, m->config, err)) == 0)
			rc = warn(rep, err, sw_asprintf("%s: %s already has an MCP server named \"%s\" that "
							"slipway did not register; it was kept", host_id,
							m->config, SERVER_NAME));
		goto out;
	}
	if (!cfg.found) {
		if (json_object_set(servers, SERVER_NAME, entry) < 0 || (text = encode(doc, &len)) == NULL) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto out;
		}
	} else {
		/* The user's file keeps every byte but our entry's. */
		const char *path[1] = { m->key };
		struct sw_error e = SW_ERROR_INIT;
		json_t *wrapped = NULL;
		int erc;

		if (!servers_added)
			erc = sw_json_edit_add(&text, &len, cfg.bytes, cfg.len, SW_JSON_STRICT, path, 1, SERVER_NAME,
					       entry, &e);
		else if ((wrapped = json_pack("{sO}", SERVER_NAME, entry)) == NULL)
			erc = sw_error_set(&e, SW_ENOMEM, "out of memory");
		else
			erc = sw_json_edit_add(&text, &len, cfg.bytes, cfg.len, SW_JSON_STRICT, path, 0, m->key,
					       wrapped, &e);
		json_decref(wrapped);
		if (erc == SW_ENOMEM) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto out;
		}
		if (erc < 0) {
			if ((rc = adapter_strs_add(&rep->preserved, m->config, err)) == 0)
				rc = warn(rep, err, sw_asprintf("%s: %s cannot be rewritten exactly (%s); it "
								"was left untouched and the MCP server was "
								"not registered", host_id, m->config, e.msg));
			goto out;
		}
	}
	if ((record = record_text(host_id, m->config, sha, !cfg.found)) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = adapter_txn_write(txn, p.config_abs, text, len, 0644,
				    cfg.found ? ADAPTER_TXN_EXPECT_SHA256 : ADAPTER_TXN_EXPECT_MISSING,
				    cfg.sha, err)) < 0 ||
	    (rc = adapter_txn_write(txn, p.record_abs, record, strlen(record), 0600,
				    rec.found ? ADAPTER_TXN_EXPECT_SHA256 : ADAPTER_TXN_EXPECT_MISSING,
				    rec.sha, err)) < 0 ||
	    (rc = adapter_strs_add(&rep->written, m->config, err)) < 0 ||
	    (rc = adapter_strs_add(&rep->written, p.record_rel, err)) < 0)
		goto out;
out:
	sw_free(text);
	sw_free(record);
	json_decref(entry);
	json_decref(doc);
	snapshot_release(&cfg);
	snapshot_release(&rec);
	paths_release(&p);
	return rc;
}

/* Whether the configuration still holds our entry (digest `sha`). */
static int holds_ours(json_t *doc, const struct mcp_host *m, const char *sha)
{
	json_t *have = json_object_get(json_object_get(doc, m->key), SERVER_NAME);
	char got[SW_HEX_LEN];

	return have && entry_sha(got, have) == 0 && strcmp(got, sha) == 0;
}

int adapter_mcp_plan_uninstall(struct adapter_report *rep, struct adapter_txn *txn,
			       const char *root, const char *host_id, const char *owner,
			       struct sw_error *err)
{
	const struct mcp_host *m = mcp_host(host_id);
	struct paths p = { NULL, NULL, NULL };
	struct snapshot cfg = { 0 }, rec = { 0 };
	json_t *doc = NULL;
	char *text = NULL, sha[SW_HEX_LEN];
	const char *why;
	size_t len = 0;
	int rc, created = 0;

	if (m == NULL)
		return 0;
	if ((rc = paths_of(&p, root, m, owner, err)) < 0 || (rc = snapshot(&rec, p.record_abs, err)) < 0 ||
	    !rec.found || (rc = snapshot(&cfg, p.config_abs, err)) < 0)
		goto out;
	if (read_record(&rec, m, sha, &created) < 0) {
		/* Not slipway's record: the user's file stays, and so does
		 * every entry of the configuration. */
		if ((rc = adapter_strs_add(&rep->preserved, p.record_rel, err)) == 0)
			rc = warn(rep, err, sw_asprintf("%s: %s is not a record slipway wrote; it and %s "
							"were kept", host_id, p.record_rel, m->config));
		goto out;
	}
	if ((rc = adapter_txn_remove(txn, p.record_abs, ADAPTER_TXN_EXPECT_SHA256, rec.sha, err)) < 0 ||
	    (rc = adapter_strs_add(&rep->removed, p.record_rel, err)) < 0)
		goto out;
	if (!cfg.found)
		goto out;
	doc = parse_config(&cfg, m, &why, NULL);
	if (doc == NULL || !holds_ours(doc, m, sha)) {
		if ((rc = adapter_strs_add(&rep->preserved, m->config, err)) == 0)
			rc = warn(rep, err, sw_asprintf("%s: the MCP server entry in %s is no longer the one "
							"slipway registered; it was kept", host_id, m->config));
		goto out;
	}
	json_object_del(json_object_get(doc, m->key), SERVER_NAME);
	if (created && json_object_size(doc) == 1 && json_object_size(json_object_get(doc, m->key)) == 0) {
		rc = adapter_txn_remove(txn, p.config_abs, ADAPTER_TXN_EXPECT_SHA256, cfg.sha, err);
		if (rc == 0)
			rc = adapter_strs_add(&rep->removed, m->config, err);
		goto out;
	}
	{
		const char *path[1] = { m->key };
		struct sw_error e = SW_ERROR_INIT;
		int erc = sw_json_edit_remove(&text, &len, cfg.bytes, cfg.len, SW_JSON_STRICT, path, 1, SERVER_NAME, &e);

		if (erc == SW_ENOMEM) {
			rc = sw_error_set(err, SW_ENOMEM, "out of memory");
			goto out;
		}
		if (erc < 0) {
			if ((rc = adapter_strs_add(&rep->preserved, m->config, err)) == 0)
				rc = warn(rep, err, sw_asprintf("%s: %s cannot be rewritten exactly (%s); "
								"it was left untouched with slipway's "
								"entry in it", host_id, m->config, e.msg));
			goto out;
		}
	}
	if ((rc = adapter_txn_write(txn, p.config_abs, text, len, 0644, ADAPTER_TXN_EXPECT_SHA256,
				    cfg.sha, err)) == 0)
		rc = adapter_strs_add(&rep->written, m->config, err);
out:
	sw_free(text);
	json_decref(doc);
	snapshot_release(&cfg);
	snapshot_release(&rec);
	paths_release(&p);
	return rc;
}

int adapter_mcp_inspect(enum adapter_mcp_state *out, const char *root, const char *host_id,
			const char *owner, struct sw_error *err)
{
	const struct mcp_host *m = mcp_host(host_id);
	struct paths p = { NULL, NULL, NULL };
	struct snapshot cfg = { 0 }, rec = { 0 };
	json_t *doc = NULL;
	char sha[SW_HEX_LEN];
	const char *why;
	int rc, created;

	*out = ADAPTER_MCP_NONE;
	if (m == NULL)
		return 0;
	if ((rc = paths_of(&p, root, m, owner, err)) < 0 || (rc = snapshot(&rec, p.record_abs, err)) < 0 ||
	    !rec.found || read_record(&rec, m, sha, &created) < 0)
		goto out;	/* no record of slipway's: nothing registered */
	*out = ADAPTER_MCP_CHANGED;
	if (snapshot(&cfg, p.config_abs, &(struct sw_error)SW_ERROR_INIT) < 0 || !cfg.found)
		goto out;
	if ((doc = parse_config(&cfg, m, &why, NULL)) != NULL && holds_ours(doc, m, sha))
		*out = ADAPTER_MCP_REGISTERED;
out:
	json_decref(doc);
	snapshot_release(&cfg);
	snapshot_release(&rec);
	paths_release(&p);
	return rc;
}
