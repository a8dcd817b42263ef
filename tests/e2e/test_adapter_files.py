"""The user's files around host adapters: the folders install creates go
with uninstall (and only those), and a shared MCP configuration keeps every
byte of the user's (numbers as written, key order, layout)."""

import hashlib
import json
import os

from slipway_e2e import main, run, scratch_repo, validate

HOSTS = ["claude", "codex", "copilot", "cursor", "kilo", "kiro", "opencode", "pi", "qwen", "windsurf"]


def report(res):
    assert res.code == 0, res.err
    doc = res.json_out()
    validate(doc, "changeReport")
    assert doc["transaction_outcome"] == "committed", doc
    return doc


def listing(repo):
    res = run("list", "--json", cwd=repo)
    assert res.code == 0, res.err
    return {h["id"]: h for h in res.json_out()["hosts"]}


def files_below(repo):
    out = []
    for d, dirs, files in os.walk(repo):
        if ".git" in dirs:
            dirs.remove(".git")
        rel = os.path.relpath(d, repo)
        out += [n if rel == "." else os.path.join(rel, n) for n in files]
        if rel != ".":
            out.append(rel + "/")
    return sorted(out)


def read(repo, rel):
    with open(os.path.join(repo, rel), "rb") as f:
        return f.read()


def write(repo, rel, data):
    os.makedirs(os.path.dirname(os.path.join(repo, rel)) or repo, exist_ok=True)
    with open(os.path.join(repo, rel), "wb") as f:
        f.write(data)


# ---- the folders install creates ----

def test_uninstall_takes_the_folders_it_created_and_no_host_stays_detected():
    repo = scratch_repo()
    report(run("install", "--tool", "all", "--surface", "ide", "--mcp", "--json", cwd=repo))
    assert all(h["detected"] for h in listing(repo).values())
    rep = report(run("uninstall", "--json", cwd=repo))
    assert ".claude/" in rep["removed"] and ".vscode/" in rep["removed"], rep
    assert files_below(repo) == ["README"], files_below(repo)
    assert not any(h["detected"] for h in listing(repo).values()), listing(repo)
    # So a plain install chooses no host the user never chose.
    res = run("install", "--json", cwd=repo)
    assert res.code == 3 and res.json_err()["code"] == "install_failed", res.err


def test_folders_that_existed_or_hold_anything_else_stay():
    repo = scratch_repo()
    os.makedirs(os.path.join(repo, ".cursor"))               # the user's, empty
    write(repo, ".github/workflows/ci.yml", b"on: push\n")    # the user's
    report(run("install", "--tool", "claude,cursor,copilot", "--mcp", "--json", cwd=repo))
    write(repo, ".claude/notes.md", b"mine\n")                # added after install
    rep = report(run("uninstall", "--json", cwd=repo))
    for gone in (".claude/skills/", ".claude/slipway/", ".cursor/skills/", ".github/agents/",
                 ".github/copilot/", ".vscode/"):
        assert gone in rep["removed"], (gone, rep["removed"])
    for kept in (".claude/", ".cursor/", ".github/"):
        assert kept not in rep["removed"], (kept, rep["removed"])
    assert files_below(repo) == [".claude/", ".claude/notes.md", ".cursor/", ".github/",
                                 ".github/workflows/", ".github/workflows/ci.yml", "README"], \
        files_below(repo)
    hosts = listing(repo)
    assert [h for h in HOSTS if hosts[h]["detected"]] == ["claude", "cursor"], hosts


def test_a_folders_record_that_is_not_slipways_is_kept_and_trusted_for_nothing():
    repo = scratch_repo()
    mine = b'{"folders": [".claude", "src"]}\n'
    write(repo, ".claude/slipway/created-folders.json", mine)
    os.makedirs(os.path.join(repo, "src"))
    rep = report(run("install", "--tool", "claude", "--json", cwd=repo))
    assert ".claude/slipway/created-folders.json" in rep["preserved"], rep
    assert any("created-folders.json is not a record slipway wrote" in w for w in rep["warnings"])
    rep = report(run("uninstall", "--json", cwd=repo))
    assert read(repo, ".claude/slipway/created-folders.json") == mine
    assert os.path.isdir(os.path.join(repo, "src"))
    assert not [r for r in rep["removed"] if r.endswith("/")], rep


# ---- shared MCP configuration files ----

USER_MCP = (b'{\n    "mcpServers": {\n        "mine": {"command": "x", "timeout": 0.3,'
            b' "limit": 1E5, "big": 10000000000, "name": "caf\\u00e9"}\n    },\n'
            b'    "zeta": [1.50, -0.0],\n    "alpha": true\n}\n')


def test_install_mcp_writes_the_users_numbers_back_as_they_were():
    repo = scratch_repo()
    write(repo, ".mcp.json", USER_MCP)
    report(run("install", "--tool", "claude", "--mcp", "--json", cwd=repo))
    text = read(repo, ".mcp.json")
    ours = (b',\n        "slipway": {\n            "type": "stdio",\n            "command": "slipway",\n'
            b'            "args": [\n                "mcp"\n            ]\n        }')
    at = USER_MCP.index(b'"caf\\u00e9"}') + len(b'"caf\\u00e9"}')
    assert text == USER_MCP[:at] + ours + USER_MCP[at:], text
    assert list(json.loads(text)) == ["mcpServers", "zeta", "alpha"]
    assert "mcp: slipway mcp is registered in .mcp.json" in run("list", cwd=repo).out.decode()
    report(run("uninstall", "--json", cwd=repo))
    assert read(repo, ".mcp.json") == USER_MCP


def test_a_configuration_that_cannot_be_read_back_exactly_is_left_untouched():
    repo = scratch_repo()
    cases = {".mcp.json": b'{"mcpServers": {}, "huge": 18446744073709551616}\n',
             ".cursor/mcp.json": b'{"mcpServers": {}, "mcpServers": {}}\n'}
    for rel, data in cases.items():
        write(repo, rel, data)
    rep = report(run("install", "--tool", "claude,cursor", "--mcp", "--json", cwd=repo))
    for rel, data in cases.items():
        assert read(repo, rel) == data, rel
        assert rel in rep["preserved"], rep
        assert any(w.startswith("%s: %s cannot be read as JSON exactly" %
                                ("claude" if rel == ".mcp.json" else "cursor", rel))
                   for w in rep["warnings"]), rep["warnings"]
    for record in (".claude/slipway/mcp-server.json", ".cursor/slipway/mcp-server.json"):
        assert not os.path.exists(os.path.join(repo, record))


def test_a_user_file_at_the_mcp_record_path_is_never_overwritten_or_removed():
    repo = scratch_repo()
    mine = b'{"note": "my own file"}\n'
    write(repo, ".claude/slipway/mcp-server.json", mine)
    write(repo, ".mcp.json", USER_MCP)
    rep = report(run("install", "--tool", "claude", "--mcp", "--json", cwd=repo))
    assert ".claude/slipway/mcp-server.json" in rep["preserved"], rep
    assert any("mcp-server.json is not a record slipway wrote" in w for w in rep["warnings"]), rep
    assert read(repo, ".claude/slipway/mcp-server.json") == mine
    assert read(repo, ".mcp.json") == USER_MCP
    rep = report(run("uninstall", "--json", cwd=repo))
    assert ".claude/slipway/mcp-server.json" not in rep["removed"], rep
    assert read(repo, ".claude/slipway/mcp-server.json") == mine
    assert read(repo, ".mcp.json") == USER_MCP


# ---- where the hosts read, in the shape they document ----

def all_files(repo):
    for d, dirs, files in os.walk(repo):
        if ".git" in dirs:
            dirs.remove(".git")
        for n in files:
            yield os.path.relpath(os.path.join(d, n), repo)


def test_no_file_install_writes_holds_a_path_of_this_machine():
    for surface in ("ide", "cli"):
        repo = scratch_repo()
        report(run("install", "--tool", "all", "--surface", surface, "--mcp", "--json", cwd=repo))
        marks = {repo.encode(), os.path.realpath(repo).encode(), os.path.expanduser("~").encode()}
        for rel in all_files(repo):
            data = read(repo, rel)
            for m in marks:
                if len(m) > 1:
                    assert m not in data, (rel, m)


def test_the_tool_all_refusal_names_both_fixes_and_writes_nothing():
    repo = scratch_repo()
    res = run("install", "--tool", "all", "--json", cwd=repo)
    assert res.code == 2, res.err
    doc = res.json_err()
    assert doc["code"] == "invalid_adapter_surface", doc
    assert "--surface ide or --surface cli" in doc["message"], doc
    assert "--tool claude,codex,copilot,cursor,kilo,opencode,pi,qwen,windsurf" in doc["message"], doc
    assert files_below(repo) == ["README"], files_below(repo)
    help_text = " ".join(run("install", "--help", cwd=repo).out.decode().split())
    assert "kiro's first install needs one, --tool all too (or name the hosts without kiro)" in help_text, help_text


def test_texts_reach_the_model_whole_where_no_include_is_documented():
    repo = scratch_repo()
    report(run("install", "--tool", "kilo,windsurf", "--json", cwd=repo))
    for cap in ("slipway-run", "slipway-review"):
        for rel in (".kilo/commands/%s.md" % cap, ".windsurf/workflows/%s.md" % cap):
            text = read(repo, rel).decode()
            assert "\n@" not in text, rel
            # Windsurf's limit for a workflow file (docs.windsurf.com).
            if rel.startswith(".windsurf") and len(text) > 12000:
                assert "Read the file `.windsurf/slipway/capabilities/%s.md`" % cap in text, rel
            else:
                assert "## Ground rules and safety boundaries" in text, rel
    assert not os.path.exists(os.path.join(repo, ".kilocode/slipway/capabilities/slipway-run.md"))
    # Copilot's references stay out of .github/agents/, which VS Code reads as agents.
    repo = scratch_repo()
    rep = report(run("install", "--tool", "copilot", "--json", cwd=repo))
    assert not [p for p in rep["written"] if p.startswith(".github/agents/") and not p.endswith(".agent.md")], rep
    assert ".github/copilot/slipway/references/ground-rules.md" in rep["written"], rep


# ---- TOML and JSONC configurations ----

USER_TOML = (b'# my Codex settings\r\nmodel = "o3"  # fast\r\nlimit = 1_000\r\n\r\n'
             b'[mcp_servers.docs]\r\ncommand = "docs-server"\r\nargs = [\r\n  "--port", # why\r\n  "8080",\r\n]\r\n'
             b'[profiles."a b"]\r\nmodel = \'gpt\'')
OURS_TOML = b'[mcp_servers.slipway]\r\ncommand = "slipway"\r\nargs = ["mcp"]\r\n'


def test_codex_gets_its_table_in_the_projects_config_toml_and_the_rest_stays():
    repo = scratch_repo()
    write(repo, ".codex/config.toml", USER_TOML)
    rep = report(run("install", "--tool", "codex", "--mcp", "--json", cwd=repo))
    assert ".codex/config.toml" in rep["written"], rep
    assert read(repo, ".codex/config.toml") == USER_TOML + b"\r\n\r\n" + OURS_TOML
    assert "mcp: slipway mcp is registered in .codex/config.toml" in run("list", cwd=repo).out.decode()
    report(run("uninstall", "--json", cwd=repo))
    assert read(repo, ".codex/config.toml") == USER_TOML + b"\r\n"
    # Created by slipway, and empty again: removed.
    repo = scratch_repo()
    report(run("install", "--tool", "codex", "--mcp", "--json", cwd=repo))
    assert read(repo, ".codex/config.toml") == OURS_TOML.replace(b"\r\n", b"\n")
    report(run("uninstall", "--json", cwd=repo))
    assert files_below(repo) == ["README"], files_below(repo)


def test_a_config_toml_slipway_cannot_read_or_with_a_slipway_table_of_its_own_is_left_alone():
    cases = {b'model = "o3\n': "cannot be read as TOML (line 1",
             b'[mcp_servers.slipway]\ncommand = "mine"\n': 'already has an MCP server named "slipway"',
             b'mcp_servers = { slipway = { command = "mine" } }\n': 'already has an MCP server named "slipway"'}
    for data, why in cases.items():
        repo = scratch_repo()
        write(repo, ".codex/config.toml", data)
        rep = report(run("install", "--tool", "codex", "--mcp", "--json", cwd=repo))
        assert read(repo, ".codex/config.toml") == data
        assert ".codex/config.toml" in rep["preserved"], rep
        assert any(w.startswith("codex: .codex/config.toml") and why in w for w in rep["warnings"]), rep
        assert not os.path.exists(os.path.join(repo, ".codex/slipway/mcp-server.json"))


USER_JSONC = (b'{\n  // the team\'s servers\n  "$schema": "https://opencode.ai/config.json",\n'
              b'  "mcp": {\n    "docs": { "type": "remote", "url": "https://x/mcp", "timeout": 1E4 }, /* keep */\n  },\n}\n')


def test_jsonc_configurations_keep_their_comments_and_the_file_the_host_reads_is_edited():
    repo = scratch_repo()
    write(repo, "opencode.json", USER_JSONC)
    write(repo, "kilo.json", b'{"mcp": {}}\n')        # Kilo's own project file: used, not a second one
    rep = report(run("install", "--tool", "opencode,kilo", "--mcp", "--json", cwd=repo))
    text = read(repo, "opencode.json")
    assert text.startswith(USER_JSONC[:USER_JSONC.index(b", /* keep */")]), text
    assert b"// the team's servers" in text and b"/* keep */" in text and b"1E4" in text
    assert b'"slipway": {\n      "type": "local",\n      "command": [\n        "slipway",\n        "mcp"\n' in text
    assert "kilo.json" in rep["written"] and not os.path.exists(os.path.join(repo, ".kilo/kilo.jsonc")), rep
    report(run("uninstall", "--json", cwd=repo))
    assert read(repo, "opencode.json") == USER_JSONC
    assert read(repo, "kilo.json") == b'{"mcp": {}}\n'


def test_the_copilot_cli_file_says_when_the_host_reads_another_one_instead():
    repo = scratch_repo()
    write(repo, ".mcp.json", b'{"mcpServers": {}}\n')
    rep = report(run("install", "--tool", "copilot", "--mcp", "--json", cwd=repo))
    assert ".github/mcp.json" in rep["written"] and ".vscode/mcp.json" in rep["written"], rep
    assert any("reads .mcp.json instead of .github/mcp.json" in w and "install --tool claude --mcp" in w
               for w in rep["warnings"]), rep["warnings"]
    assert json.loads(read(repo, ".vscode/mcp.json"))["servers"]["slipway"] == {
        "type": "stdio", "command": "slipway", "args": ["mcp", "--root", "${workspaceFolder}"]}


# ---- moving an install an earlier slipway made ----

def sha(data):
    return hashlib.sha256(data).hexdigest()


def record(host, config, entry_sha, created):
    return ('{\n  "version": 1,\n  "tool_id": "%s",\n  "config": "%s",\n  "server": "slipway",\n'
            '  "entry_sha256": "%s",\n  "created_config": %s\n}\n'
            % (host, config, entry_sha, "true" if created else "false")).encode()


def old_entry(repo):
    entry = {"command": "slipway", "args": ["mcp", "--root", repo]}
    return entry, sha(json.dumps(entry, sort_keys=True, separators=(",", ":")).encode())


def test_refresh_rewrites_an_entry_an_earlier_slipway_wrote_and_moves_it_where_the_host_reads_now():
    repo = scratch_repo()
    report(run("install", "--tool", "claude,kilo", "--json", cwd=repo))
    entry, digest = old_entry(repo)
    write(repo, ".mcp.json", json.dumps({"mcpServers": {"mine": {"command": "x"}, "slipway": entry}}, indent=2).encode() + b"\n")
    write(repo, ".claude/slipway/mcp-server.json", record("claude", ".mcp.json", digest, False))
    write(repo, ".kilocode/mcp.json", json.dumps({"mcpServers": {"slipway": entry}}, indent=2).encode() + b"\n")
    write(repo, ".kilocode/slipway/mcp-server.json", record("kilo", ".kilocode/mcp.json", digest, True))
    listed = run("list", "--json", cwd=repo).json_out()
    assert all(h["needs_refresh"] for h in listed["hosts"] if h["id"] in ("claude", "kilo")), listed
    checks = run("doctor", "--json", cwd=repo).json_out()["checks"]
    assert [c["host_id"] for c in checks if c["code"] == "mcp_server_refresh_required"] == ["claude", "kilo"], checks
    rep = report(run("install", "--refresh", "--json", cwd=repo))
    assert json.loads(read(repo, ".mcp.json"))["mcpServers"] == {
        "mine": {"command": "x"}, "slipway": {"type": "stdio", "command": "slipway", "args": ["mcp"]}}
    assert ".kilocode/mcp.json" in rep["removed"], rep
    assert json.loads(read(repo, ".kilo/kilo.jsonc"))["mcp"]["slipway"] == {
        "type": "local", "command": ["slipway", "mcp"]}
    assert "mcp: slipway mcp is registered in .kilo/kilo.jsonc" in run("list", cwd=repo).out.decode()
    for rel in all_files(repo):
        assert repo.encode() not in read(repo, rel), rel
    report(run("uninstall", "--json", cwd=repo))
    assert json.loads(read(repo, ".mcp.json")) == {"mcpServers": {"mine": {"command": "x"}}}
    assert not os.path.exists(os.path.join(repo, ".kilo"))


def old_layout(repo):
    """Turns a fresh copilot and kiro (cli) install into the layout the
    previous slipway wrote: Copilot's references in .github/agents/
    references/, Kiro's agents without includeMcpJson; the manifests claim
    those bytes."""
    for host, owner in (("copilot", ".github/copilot"), ("kiro", ".kiro")):
        path = owner + "/slipway/ownership-manifest.json"
        manifest = json.loads(read(repo, path))
        for f in manifest["files"]:
            data = read(repo, f["path"])
            rel = f["path"]
            if host == "copilot":
                data = data.replace(b".github/copilot/slipway/references/", b".github/agents/references/")
                if "/references/" in rel:
                    os.unlink(os.path.join(repo, rel))
                    rel = ".github/agents/references/" + os.path.basename(rel)
            elif rel.endswith(".json"):
                data = data.replace(b',\n  "includeMcpJson": true', b"")
            write(repo, rel, data)
            f["path"], f["sha256"] = rel, sha(data)
        manifest["files"].sort(key=lambda f: f["path"])
        write(repo, path, json.dumps(manifest, indent=2).encode() + b"\n")


def test_refresh_moves_the_files_of_an_earlier_layout_and_keeps_those_edited():
    repo = scratch_repo()
    report(run("install", "--tool", "copilot", "--json", cwd=repo))
    report(run("install", "--tool", "kiro", "--surface", "cli", "--json", cwd=repo))
    old_layout(repo)
    with open(os.path.join(repo, ".github/agents/references/recovery.md"), "ab") as f:
        f.write(b"my note\n")
    hosts = listing(repo)
    assert hosts["copilot"]["needs_refresh"] and hosts["kiro"]["needs_refresh"], hosts
    rep = report(run("install", "--refresh", "--json", cwd=repo))
    assert ".github/agents/references/ground-rules.md" in rep["removed"], rep
    assert ".github/copilot/slipway/references/ground-rules.md" in rep["written"], rep
    assert ".kiro/agents/slipway-run.json" in rep["written"], rep
    assert rep["preserved"] == [".github/agents/references/recovery.md"], rep
    assert any(".github/agents/references/recovery.md was edited" in w and
               ".github/copilot/slipway/references/recovery.md" in w for w in rep["warnings"]), rep
    assert json.loads(read(repo, ".kiro/agents/slipway-run.json"))["includeMcpJson"] is True
    hosts = listing(repo)
    assert not hosts["copilot"]["needs_refresh"] and not hosts["kiro"]["needs_refresh"], hosts
    assert len(hosts["copilot"]["capabilities"]) == 7, hosts


def test_uninstall_finds_the_files_of_an_earlier_layout():
    repo = scratch_repo()
    report(run("install", "--tool", "copilot", "--json", cwd=repo))
    report(run("install", "--tool", "kiro", "--surface", "cli", "--json", cwd=repo))
    old_layout(repo)
    rep = report(run("uninstall", "--json", cwd=repo))
    assert ".github/agents/references/ground-rules.md" in rep["removed"], rep
    # (The folders an earlier slipway made are not in this made-up record.)
    assert [f for f in files_below(repo) if not f.endswith("/")] == ["README"], files_below(repo)


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
