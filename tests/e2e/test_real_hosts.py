"""slipway's install checked by the AI coding hosts themselves: each host's
own program, at the version pinned by tests/hosts/package-lock.json
(`make deps-hosts`), reads a scratch repository after `slipway install
--tool HOST --mcp` and shows what it found, offline and without a login.

- Claude Code: `claude mcp list` starts the registered server: Connected.
- Codex: `codex mcp list` shows the entry; `codex debug prompt-input`
  lists the skills from .codex/skills once their policy lets the model see
  them (and, as the host table records, a skill found in .codex/skills and
  .agents/skills twice).
- OpenCode and Kilo: `mcp list` connects; `debug config` shows the
  commands; OpenCode's `debug skill` keeps one skill of a name.
- Qwen Code: `qwen mcp list` connects once the server is approved.
- The Copilot CLI: `copilot mcp list` shows .github/mcp.json, and not
  while the repository has a .mcp.json without slipway; `copilot skill
  list` keeps one skill of a name.

A host without an installed program is a skip (`make test`), or a failure
under `make host-check` (SLIPWAY_HOST_CHECK=1).  Cursor, Kiro and Windsurf
ship no program on the npm registry, and Pi's lists nothing offline: a skip
each.  Every host runs in a home directory of its own, so nothing of the
person's configuration is read or written."""

import atexit
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

from slipway_e2e import BIN, ROOT, main, run, scratch_repo, skip_test, validate

MODULES = os.path.join(ROOT, "tests/hosts/node_modules")
REQUIRED = os.environ.get("SLIPWAY_HOST_CHECK") == "1"
CAPS = ["slipway-run", "slipway-clarify", "slipway-propose", "slipway-decompose",
        "slipway-implement", "slipway-review", "slipway-workflow"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def platform_names():
    """npm's os and cpu words for this machine."""
    osname = {"linux": "linux", "darwin": "darwin"}.get(sys.platform, sys.platform)
    cpu = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine())
    return osname, cpu


def program(host):
    """The argv that starts `host`'s program from tests/hosts/node_modules,
    or None when it is not installed.  Install scripts never ran, so a
    package that copies its platform's binary in place is started from the
    platform package itself."""
    osname, cpu = platform_names()
    node = shutil.which("node")
    candidates = {
        "claude": [[node, "@anthropic-ai/claude-code/cli-wrapper.cjs"]],
        "codex": [[node, "@openai/codex/bin/codex.js"]],
        "qwen": [[node, "@qwen-code/qwen-code/cli-entry.js"]],
        "copilot": [[node, "@github/copilot/npm-loader.js"]],
        "opencode": [["opencode-%s-%s/bin/opencode" % (osname, cpu)],
                     ["opencode-%s-%s-baseline/bin/opencode" % (osname, cpu)]],
        "kilo": [["@kilocode/cli-%s-%s/bin/kilo" % (osname, cpu)],
                 ["@kilocode/cli-%s-%s-baseline/bin/kilo" % (osname, cpu)]],
    }[host]
    for argv in candidates:
        if argv[0] is None:
            continue
        path = os.path.join(MODULES, argv[-1])
        if os.path.exists(path):
            return argv[:-1] + [path]
    return None


def need(host):
    argv = program(host)
    if argv is None:
        why = "%s's program is not in tests/hosts/node_modules (make deps-hosts)" % host
        if REQUIRED:
            raise AssertionError(why)
        skip_test(why)
    return argv


class Sandbox:
    """A home directory of the test's own, and a PATH on which `slipway` is
    the binary under test (the hosts start the server by that name)."""

    def __init__(self):
        self.home = tempfile.mkdtemp(prefix="slipway-host-home-")
        atexit.register(shutil.rmtree, self.home, True)
        bindir = os.path.join(self.home, "bin")
        os.makedirs(bindir)
        os.symlink(BIN, os.path.join(bindir, "slipway"))
        self.env = {k: v for k, v in os.environ.items()
                    if not k.endswith(("_API_KEY", "_TOKEN")) and not k.startswith(("XDG_", "CODEX_"))}
        self.env.update({
            "HOME": self.home,
            "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_DATA_HOME": os.path.join(self.home, ".local/share"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "XDG_STATE_HOME": os.path.join(self.home, ".local/state"),
            "CODEX_HOME": os.path.join(self.home, ".codex"),
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "NO_COLOR": "1",
            "ASAN_OPTIONS": "detect_leaks=0",
        })

    def write(self, rel, data):
        path = os.path.join(self.home, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(data)

    def host(self, argv, *args, cwd, check=True):
        p = subprocess.run(argv + list(args), cwd=cwd, env=self.env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=300)
        out = ANSI.sub("", p.stdout.decode(errors="replace"))
        err = ANSI.sub("", p.stderr.decode(errors="replace"))
        if check:
            assert p.returncode == 0, (argv + list(args), p.returncode, out, err)
        return out, err


def install(repo, *tools, mcp=True):
    res = run("install", "--tool", ",".join(tools), *(["--mcp"] if mcp else []), "--json", cwd=repo)
    assert res.code == 0, res.err
    doc = res.json_out()
    validate(doc, "changeReport")
    assert doc["transaction_outcome"] == "committed", doc
    return doc


def copy_skill(repo, src, dst, without_policy=True):
    shutil.copytree(os.path.join(repo, src), os.path.join(repo, dst))
    if without_policy:
        shutil.rmtree(os.path.join(repo, dst, "agents"), ignore_errors=True)


# ---- Claude Code ----

def test_claude_code_connects_to_the_server_registered_in_mcp_json():
    claude = need("claude")
    box, repo = Sandbox(), scratch_repo()
    install(repo, "claude")
    # What a person grants in Claude Code's interface before it starts a
    # project's servers: the folder's trust and the server's approval.
    box.write(".claude.json", json.dumps({"projects": {repo: {"hasTrustDialogAccepted": True}}}))
    with open(os.path.join(repo, ".claude/settings.local.json"), "w") as f:
        json.dump({"enabledMcpjsonServers": ["slipway"]}, f)
    out, _ = box.host(claude, "mcp", "list", cwd=repo)
    assert re.search(r"^slipway: slipway mcp - ✔ Connected$", out, re.M), out
    version, _ = box.host(claude, "--version", cwd=repo)
    print("  Claude Code %s: slipway Connected" % version.split()[0])


# ---- Codex ----

def prompt_skills(box, codex, repo):
    """The skill roots and the skills `codex debug prompt-input` shows."""
    out, _ = box.host(codex, "debug", "prompt-input", "hello", cwd=repo)
    text = "\n".join(c.get("text", "") for item in json.loads(out) for c in item.get("content", []) or [])
    roots = dict(re.findall(r"- `(r\d+)` = `([^`]+)`", text))
    skills = [(name, roots.get(root)) for name, root in
              re.findall(r"^- (slipway-[a-z]+): .*?\(file: (r\d+)/slipway-[a-z]+/SKILL\.md\)", text, re.M)]
    return skills


def codex_box(repo):
    box = Sandbox()
    # Codex reads a project's .codex/config.toml only in a trusted project.
    box.write(".codex/config.toml", '[projects."%s"]\ntrust_level = "trusted"\n' % repo)
    return box


def test_codex_lists_the_server_of_the_projects_config_toml():
    codex = need("codex")
    repo = scratch_repo()
    box = codex_box(repo)
    install(repo, "codex")
    out, _ = box.host(codex, "mcp", "list", "--json", cwd=repo)
    servers = {s["name"]: s for s in json.loads(out)}
    assert "slipway" in servers, out
    transport = servers["slipway"].get("transport", servers["slipway"])
    assert transport.get("command") == "slipway" and transport.get("args") == ["mcp"], servers["slipway"]
    version, _ = box.host(codex, "--version", cwd=repo)
    print("  %s: mcp list shows slipway" % version.strip())


def test_codex_reads_the_skills_in_codex_skills_once_their_policy_allows_it():
    codex = need("codex")
    repo = scratch_repo()
    box = codex_box(repo)
    install(repo, "codex", mcp=False)
    # Installed: each skill's agents/openai.yaml keeps it from the model's
    # list (the person invokes it).
    assert prompt_skills(box, codex, repo) == [], "the policy hides them"
    for cap in CAPS:
        os.unlink(os.path.join(repo, ".codex/skills", cap, "agents/openai.yaml"))
    seen = prompt_skills(box, codex, repo)
    assert sorted(seen) == sorted((c, os.path.join(repo, ".codex/skills")) for c in CAPS), seen


def test_codex_lists_a_skill_found_in_codex_skills_and_agents_skills_twice():
    codex = need("codex")
    repo = scratch_repo()
    box = codex_box(repo)
    install(repo, "codex", mcp=False)
    os.unlink(os.path.join(repo, ".codex/skills/slipway-run/agents/openai.yaml"))
    copy_skill(repo, ".codex/skills/slipway-run", ".agents/skills/slipway-run")
    seen = prompt_skills(box, codex, repo)
    assert sorted(seen) == [("slipway-run", os.path.join(repo, ".agents/skills")),
                            ("slipway-run", os.path.join(repo, ".codex/skills"))], seen


# ---- OpenCode and Kilo ----

def connected(out, name="slipway"):
    return re.search(r"✓ %s\s+connected" % name, out) is not None


def test_opencode_connects_and_loads_the_commands():
    opencode = need("opencode")
    box, repo = Sandbox(), scratch_repo()
    install(repo, "opencode")
    out, err = box.host(opencode, "mcp", "list", cwd=repo)
    assert connected(out), out + err
    out, _ = box.host(opencode, "debug", "config", cwd=repo)
    commands = json.loads(out)["command"]
    assert sorted(commands) == sorted(CAPS), commands
    assert commands["slipway-run"]["template"] == "@.opencode/slipway/capabilities/slipway-run.md", commands


def test_opencode_keeps_one_skill_of_a_name_from_claude_skills_and_agents_skills():
    opencode = need("opencode")
    box, repo = Sandbox(), scratch_repo()
    install(repo, "claude", mcp=False)
    copy_skill(repo, ".claude/skills/slipway-run", ".agents/skills/slipway-run")
    out, _ = box.host(opencode, "debug", "skill", cwd=repo)
    found = [s["location"] for s in json.loads(out) if s.get("name") == "slipway-run"]
    assert len(found) == 1, found


def test_kilo_connects_and_its_commands_hold_their_text():
    kilo = need("kilo")
    box, repo = Sandbox(), scratch_repo()
    install(repo, "kilo")
    out, err = box.host(kilo, "mcp", "list", cwd=repo)
    assert connected(out), out + err
    out, _ = box.host(kilo, "debug", "config", cwd=repo)
    commands = json.loads(out)["command"]
    assert sorted(commands) == sorted(CAPS), commands
    template = commands["slipway-run"]["template"]
    assert template.startswith("# Slipway Run") and "\n@" not in template, template[:200]


# ---- Qwen Code ----

def test_qwen_code_connects_to_the_server_in_its_settings():
    qwen = need("qwen")
    box, repo = Sandbox(), scratch_repo()
    install(repo, "qwen")
    # The approval a person gives a project's server in Qwen Code.
    box.host(qwen, "mcp", "approve", "slipway", cwd=repo)
    out, err = box.host(qwen, "mcp", "list", cwd=repo)
    assert re.search(r"✓ slipway: slipway mcp \(stdio\) - Connected", out), out + err


# ---- the Copilot CLI ----

def copilot_box(repo):
    box = Sandbox()
    # The folder trust a person grants in the Copilot CLI.
    box.write(".copilot/config.json", json.dumps({"trusted_folders": [repo]}))
    return box


def copilot_servers(box, copilot, repo):
    out, _ = box.host(copilot, "mcp", "list", "--json", cwd=repo)
    return json.loads(out[out.index("{"):]).get("mcpServers", {})


def test_the_copilot_cli_reads_github_mcp_json_unless_the_repository_has_a_mcp_json():
    copilot = need("copilot")
    repo = scratch_repo()
    box = copilot_box(repo)
    install(repo, "copilot")
    servers = copilot_servers(box, copilot, repo)
    assert servers["slipway"]["sourcePath"] == os.path.join(repo, ".github/mcp.json"), servers
    assert servers["slipway"]["command"] == "slipway" and servers["slipway"]["args"] == ["mcp"], servers
    # The case install warns about: a .mcp.json without slipway hides it.
    with open(os.path.join(repo, ".mcp.json"), "w") as f:
        json.dump({"mcpServers": {"mine": {"command": "true"}}}, f)
    assert "slipway" not in copilot_servers(box, copilot, repo)


def test_the_copilot_cli_keeps_one_skill_of_a_name():
    copilot = need("copilot")
    repo = scratch_repo()
    box = copilot_box(repo)
    install(repo, "claude", mcp=False)
    copy_skill(repo, ".claude/skills/slipway-run", ".agents/skills/slipway-run")
    out, _ = box.host(copilot, "skill", "list", cwd=repo)
    assert len(re.findall(r"^\s*slipway-run - ", out, re.M)) == 1, out


# ---- hosts with nothing to run offline ----

def test_cursor_kiro_and_windsurf_ship_no_program_to_check_with():
    skip_test("Cursor, Kiro and Windsurf ship no command-line program on the npm registry; "
              "their rows are checked against their documentation only")


def test_pi_lists_nothing_offline():
    skip_test("Pi's program has no offline listing of its skills, and Pi has no MCP client")


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
