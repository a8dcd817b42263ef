"""The user's files around host adapters: the folders install creates go
with uninstall (and only those), and a shared MCP configuration keeps every
byte of the user's (numbers as written, key order, layout)."""

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
    ours = (',\n        "slipway": {\n            "command": "slipway",\n            "args": [\n'
            '                "mcp",\n                "--root",\n                %s\n'
            '            ]\n        }' % json.dumps(repo)).encode()
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


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
