"""End-to-end tests of install / uninstall / list / doctor against the
sanitizer binary (SLIPWAY_BIN) in scratch Git repositories.  Every JSON
document the binary prints is validated against the reference schema
(schemas/machine-protocol.schema.json, and the reference one when present)."""

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest


BIN = os.environ.get("SLIPWAY_BIN", "")
HOSTS = ["claude", "codex", "copilot", "cursor", "kilo", "kiro", "opencode", "pi", "qwen", "windsurf"]
CAPS = ["slipway-run", "slipway-clarify", "slipway-propose", "slipway-decompose",
        "slipway-implement", "slipway-review", "slipway-workflow"]
OWNER = {"claude": ".claude", "codex": ".codex", "copilot": ".github/copilot", "cursor": ".cursor",
         "kilo": ".kilocode", "kiro": ".kiro", "opencode": ".opencode", "pi": ".pi", "qwen": ".qwen",
         "windsurf": ".windsurf"}
# A file each host's user invokes (a callable entrypoint) for slipway-run.
ENTRY = {"claude": ".claude/skills/slipway-run/SKILL.md", "codex": ".codex/skills/slipway-run/SKILL.md",
         "copilot": ".github/agents/slipway-run.agent.md", "cursor": ".cursor/skills/slipway-run/SKILL.md",
         "kilo": ".kilo/commands/slipway-run.md", "kiro": ".kiro/steering/slipway-run.md",
         "opencode": ".opencode/commands/slipway-run.md", "pi": ".pi/skills/slipway-run/SKILL.md",
         "qwen": ".qwen/skills/slipway-run/SKILL.md", "windsurf": ".windsurf/workflows/slipway-run.md"}

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slipway_e2e import has_test_seams, unittest_main, validate as validate_all  # noqa: E402


def validate(doc, name):
    validate_all(doc, name)


def tree_digest(root):
    """path -> sha256 of every file outside .git (symlinks by target)."""
    out = {}
    for d, dirs, files in os.walk(root):
        if ".git" in dirs:
            dirs.remove(".git")
        for name in files:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = "link:" + os.readlink(p)
            else:
                with open(p, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def no_gh_path(path):
    """`path` without the directories that hold an executable gh."""
    return os.pathsep.join(d for d in path.split(os.pathsep)
                           if d and not os.access(os.path.join(d, "gh"), os.X_OK))


class Repo:
    def __init__(self):
        self.dir = os.path.realpath(tempfile.mkdtemp(prefix="slipway-adapters-"))
        subprocess.run(["git", "init", "-q", self.dir], check=True)

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def run(self, *args, env=None):
        e = dict(os.environ)
        e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        # doctor must never reach a real gh (and so the network) in tests.
        e["PATH"] = no_gh_path(e.get("PATH", ""))
        if env:
            e.update(env)
        p = subprocess.run([BIN, *args], cwd=self.dir, env=e, capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def ok_json(self, defn, *args, env=None):
        rc, out, err = self.run(*args, "--json", env=env)
        assert rc == 0, (args, rc, out, err)
        assert err == "", err
        doc = json.loads(out)
        validate(doc, defn)
        return doc

    def fail_json(self, code, exit_code, *args, env=None):
        rc, out, err = self.run(*args, env=env)
        assert rc == exit_code, (args, rc, out, err)
        assert out == "", out
        doc = json.loads(err)
        validate(doc, "cliError")
        assert doc["code"] == code, doc
        assert doc["exit_code"] == exit_code
        return doc

    def list_host(self, host):
        doc = self.ok_json("listReport", "list")
        assert [h["id"] for h in doc["hosts"]] == HOSTS
        return next(h for h in doc["hosts"] if h["id"] == host)

    def write(self, rel, data):
        os.makedirs(os.path.dirname(self.path(rel)) or ".", exist_ok=True)
        with open(self.path(rel), "w") as f:
            f.write(data)


class Base(unittest.TestCase):
    def setUp(self):
        self.repo = Repo()

    def tearDown(self):
        self.repo.cleanup()


class LifecycleTest(Base):
    def lifecycle(self, host, extra):
        r = self.repo
        entry = ENTRY[host]
        if extra[1:] == ["cli"]:
            entry = ".kiro/agents/slipway-run.json"
        doc = r.ok_json("changeReport", "install", "--tool", host, *extra)
        self.assertEqual(doc["transaction_outcome"], "committed")
        self.assertEqual(doc["hosts"], [host])
        manifest = OWNER[host] + "/slipway/ownership-manifest.json"
        self.assertIn(manifest, doc["written"])
        self.assertIn(entry, doc["written"])
        self.assertEqual(doc["written"], sorted(set(doc["written"])))
        self.assertEqual(os.stat(r.path(manifest)).st_mode & 0o777, 0o600)
        self.assertEqual(os.stat(r.path(entry)).st_mode & 0o777, 0o644)
        with open(r.path(manifest)) as f:
            m = json.load(f)
        self.assertEqual(m["version"], 2)
        self.assertEqual(m["tool_id"], host)
        paths = [e["path"] for e in m["files"]]
        self.assertEqual(paths, sorted(paths))
        for e in m["files"]:
            with open(r.path(e["path"]), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), e["sha256"])
        if host == "kiro":
            self.assertEqual(m["surface"], {"kiro": extra[1]})
        else:
            self.assertNotIn("surface", m)

        st = r.list_host(host)
        self.assertTrue(st["detected"] and st["installed"])
        self.assertFalse(st["needs_refresh"])
        self.assertEqual(st["capabilities"], CAPS)

        doctor = r.ok_json("doctorReport", "doctor")
        mine = [c for c in doctor["checks"] if c["host_id"] == host]
        self.assertEqual([c["code"] for c in mine], ["adapter_healthy"])

        # Installing again without --refresh changes nothing.
        before = tree_digest(r.dir)
        doc = r.ok_json("changeReport", "install", "--tool", host)
        self.assertEqual(doc["written"], [])
        self.assertTrue(doc["warnings"])
        self.assertEqual(tree_digest(r.dir), before)

        # A deleted pristine file is recreated by --refresh.
        os.unlink(r.path(entry))
        self.assertTrue(r.list_host(host)["needs_refresh"])
        doc = r.ok_json("changeReport", "install", "--tool", host, "--refresh")
        self.assertIn(entry, doc["written"])
        self.assertEqual(tree_digest(r.dir), before)

        # A hand-edited capability survives --refresh and uninstall.
        with open(r.path(entry), "a") as f:
            f.write("\nmy own note\n")
        edited = tree_digest(r.dir)[entry]
        st = r.list_host(host)
        self.assertTrue(st["needs_refresh"])
        self.assertNotIn("slipway-run", st["capabilities"])
        doctor = r.ok_json("doctorReport", "doctor")
        self.assertEqual([c["code"] for c in doctor["checks"] if c["host_id"] == host], ["adapter_modified"])
        doc = r.ok_json("changeReport", "install", "--tool", host, "--refresh")
        self.assertEqual(doc["transaction_outcome"], "committed")
        self.assertIn(entry, doc["preserved"])
        self.assertNotIn(entry, doc["written"])
        self.assertEqual(tree_digest(r.dir)[entry], edited)

        doc = r.ok_json("changeReport", "uninstall", "--tool", host)
        self.assertEqual(doc["transaction_outcome"], "committed")
        self.assertIn(manifest, doc["removed"])
        left = tree_digest(r.dir)
        self.assertEqual(left[entry], edited)
        self.assertNotIn(manifest, left)
        self.assertNotIn(OWNER[host] + "/slipway/.adapter-generated", left)
        # Only the edited file (and, for Codex, its kept policy) remains.
        extra_left = set(left) - {entry}
        if host == "codex":
            self.assertEqual(extra_left, {".codex/skills/slipway-run/agents/openai.yaml"})
        else:
            self.assertEqual(extra_left, set())
        st = r.list_host(host)
        self.assertFalse(st["installed"])

    def test_every_host_survives_install_refresh_edit_uninstall(self):
        for host in HOSTS:
            if host == "kiro":
                continue
            with self.subTest(host=host):
                self.repo.cleanup()
                self.repo = Repo()
                self.lifecycle(host, [])

    def test_kiro_ide_and_cli_surfaces(self):
        for surface in ("ide", "cli"):
            with self.subTest(surface=surface):
                self.repo.cleanup()
                self.repo = Repo()
                self.lifecycle("kiro", ["--surface", surface])

    def test_kiro_cli_agent_is_indented_json(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "kiro", "--surface", "cli")
        with open(r.path(".kiro/agents/slipway-run.json")) as f:
            text = f.read()
        agent = json.loads(text)
        self.assertEqual(list(agent), ["name", "description", "prompt", "tools", "includeMcpJson"])
        self.assertEqual(agent["prompt"], "file://../slipway/capabilities/slipway-run.md")
        self.assertEqual(agent["tools"], ["*"])
        # Without it an agent does not see .kiro/settings/mcp.json (Kiro's
        # agent configuration reference).
        self.assertIs(agent["includeMcpJson"], True)
        self.assertEqual(text, json.dumps(agent, indent=2) + "\n")

    def test_codex_policy_file_and_support_files(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "codex")
        with open(r.path(".codex/skills/slipway-review/agents/openai.yaml")) as f:
            self.assertEqual(f.read(), "policy:\n  allow_implicit_invocation: false\n")
        self.assertTrue(os.path.exists(r.path(".codex/skills/slipway-clarify/references/decision-interview.md")))

    def test_codex_uninstall_fails_when_a_kept_skill_lost_its_policy(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "codex")
        with open(r.path(ENTRY["codex"]), "a") as f:
            f.write("edit\n")
        with open(r.path(".codex/skills/slipway-run/agents/openai.yaml"), "a") as f:
            f.write("edit\n")
        before = tree_digest(r.dir)
        doc = r.fail_json("uninstall_failed", 3, "uninstall", "--tool", "codex")
        self.assertEqual(doc["details"]["transaction_outcome"], "not_committed")
        self.assertEqual(tree_digest(r.dir), before)

    def test_human_output_is_readable(self):
        r = self.repo
        rc, out, _ = r.run("install", "--tool", "claude")
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith("Install result for: claude\n"), out)
        self.assertIn("  wrote .claude/skills/slipway-run/SKILL.md\n", out)
        rc, out, _ = r.run("list")
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"claude\s+yes\s+yes\s+-\s+7/7")
        rc, out, _ = r.run("doctor")
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"ok\s+claude\s+adapter_healthy\s+29 managed files")
        rc, out, _ = r.run("uninstall")
        self.assertEqual(rc, 0)
        self.assertIn("Uninstall result for: claude\n", out)
        self.assertIn("  removed .claude/slipway/ownership-manifest.json\n", out)


class TransactionTest(Base):
    """Needs the sanitizer build, whose transaction reads a failure seam
    from SLIPWAY_TEST_TXN_FAIL_STEP; skipped against a release build."""

    def setUp(self):
        if not has_test_seams():
            self.skipTest("the binary is a release build: no SLIPWAY_TEST_TXN_FAIL_STEP seam")
        super().setUp()

    def test_failure_mid_transaction_rolls_back_everything(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "claude")
        os.unlink(r.path(ENTRY["claude"]))
        before = tree_digest(r.dir)
        doc = r.fail_json("install_failed", 3, "install", "--tool", "claude,pi", "--refresh",
                          env={"SLIPWAY_TEST_TXN_FAIL_STEP": "6"})
        self.assertEqual(doc["details"]["transaction_outcome"], "rolled_back")
        self.assertEqual(doc["details"]["report"]["transaction_outcome"], "rolled_back")
        self.assertEqual(doc["details"]["report"]["written"], [])
        self.assertEqual(doc["next"]["variants"][0]["id"], "inspect-host-adapters")
        self.assertEqual(tree_digest(r.dir), before)
        self.assertFalse(os.path.exists(r.path(".pi")))

    def test_failed_undo_is_ambiguous_with_recovery_artifacts(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "claude")
        doc = r.fail_json("uninstall_failed", 3, "uninstall",
                          env={"SLIPWAY_TEST_TXN_FAIL_STEP": "3", "SLIPWAY_TEST_TXN_BREAK_UNDO": "1"})
        rep = doc["details"]["report"]
        self.assertEqual(rep["transaction_outcome"], "ambiguous")
        self.assertEqual(rep["removed"], [])
        self.assertTrue(rep["recovery_artifacts"])
        for p in rep["recovery_artifacts"]:
            self.assertTrue(os.path.exists(r.path(p)), p)


class SelectionTest(Base):
    def test_detected_hosts_are_installed_without_tool(self):
        r = self.repo
        os.makedirs(r.path(".cursor"))
        os.makedirs(r.path(".github/prompts"))
        doc = r.ok_json("changeReport", "install")
        self.assertEqual(doc["hosts"], ["copilot", "cursor"])

    def test_no_detected_host_is_install_failed(self):
        doc = self.repo.fail_json("install_failed", 3, "install")
        self.assertEqual(doc["details"]["transaction_outcome"], "not_committed")
        self.assertEqual(doc["next"]["variants"][0]["id"], "inspect-host-adapters")

    def test_comma_separated_and_repeated_tools(self):
        doc = self.repo.ok_json("changeReport", "install", "--tool", "pi, qwen", "--tool", "CLAUDE")
        self.assertEqual(doc["hosts"], ["claude", "pi", "qwen"])

    def test_all_without_kiro_surface_is_a_surface_error(self):
        self.repo.fail_json("invalid_adapter_surface", 2, "install", "--tool", "all")
        doc = self.repo.ok_json("changeReport", "install", "--tool", "all", "--surface", "ide")
        self.assertEqual(doc["hosts"], HOSTS)

    def test_unknown_and_empty_tools(self):
        r = self.repo
        for args in (["install", "--tool", "emacs"], ["uninstall", "--tool", "claude,vim"]):
            doc = r.fail_json("unknown_host_adapter", 2, *args)
            v = doc["next"]["variants"][0]
            self.assertEqual(v["id"], "list-host-adapters")
            self.assertEqual(v["base_argv"], ["slipway", "list", "--root", r.dir])
        for args in (["install", "--tool", ""], ["install", "--tool", " , "], ["uninstall", "--tool="]):
            r.fail_json("host_adapter_required", 2, *args)

    def test_uninstall_without_installed_adapters_fails(self):
        doc = self.repo.fail_json("uninstall_failed", 3, "uninstall")
        self.assertEqual(doc["details"]["report"]["transaction_outcome"], "not_committed")

    def test_positional_arguments_and_unknown_flags_are_usage_errors(self):
        self.repo.fail_json("invalid_usage", 2, "list", "extra")
        self.repo.fail_json("invalid_usage", 2, "doctor", "--bogus")

    def test_outside_a_repository(self):
        d = tempfile.mkdtemp()
        try:
            rc, out, err = self.repo.run("list", "--root", d)
            self.assertEqual(rc, 2)
            doc = json.loads(err)
            validate(doc, "cliError")
            self.assertEqual(doc["code"], "git_repository_required")
        finally:
            shutil.rmtree(d)


class KiroSurfaceTest(Base):
    def check_surface_error(self, *args):
        doc = self.repo.fail_json("invalid_adapter_surface", 2, *args)
        v = doc["next"]["variants"][0]
        self.assertEqual(v["id"], "install-kiro")
        self.assertEqual(v["base_argv"], ["slipway", "install", "--root", self.repo.dir, "--tool", "kiro"])
        self.assertEqual(v["inputs"], [{"name": "surface", "type": "enum", "flag": "--surface",
                                        "required": True, "choices": ["ide", "cli"]}])

    def test_first_install_needs_surface(self):
        self.check_surface_error("install", "--tool", "kiro")

    def test_bad_surface_value(self):
        self.check_surface_error("install", "--tool", "kiro", "--surface", "web")

    def test_surface_without_kiro(self):
        self.check_surface_error("install", "--tool", "claude", "--surface", "ide")

    def test_surface_must_match_the_installed_one(self):
        self.repo.ok_json("changeReport", "install", "--tool", "kiro", "--surface", "ide")
        self.check_surface_error("install", "--tool", "kiro", "--surface", "cli", "--refresh")
        doc = self.repo.ok_json("changeReport", "install", "--tool", "kiro", "--refresh")
        self.assertIn(".kiro/steering/slipway-run.md", doc["written"])

    def test_detected_kiro_is_skipped_beside_other_hosts(self):
        os.makedirs(self.repo.path(".kiro"))
        os.makedirs(self.repo.path(".claude"))
        doc = self.repo.ok_json("changeReport", "install")
        self.assertEqual(doc["hosts"], ["claude"])
        self.assertTrue(any("kiro" in w for w in doc["warnings"]))

    def test_detected_kiro_alone_is_an_error(self):
        os.makedirs(self.repo.path(".kiro"))
        self.check_surface_error("install")


class ManifestTest(Base):
    BAD = {
        "duplicate keys": lambda m: m.replace('"version": 2,', '"version": 2, "version": 2,', 1),
        "unknown field": lambda m: m.replace('"version": 2,', '"version": 2, "extra": true,', 1),
        "wrong tool id": lambda m: m.replace('"tool_id": "claude"', '"tool_id": "codex"', 1),
        "path outside the set": lambda m: m.replace(".claude/skills/slipway-run/SKILL.md", ".claude/settings.json", 1),
        "version 1": lambda m: m.replace('"version": 2', '"version": 1', 1),
        "trailing data": lambda m: m + "{}",
    }

    def check_degraded(self):
        r = self.repo
        before = tree_digest(r.dir)
        doc = r.ok_json("listReport", "list")
        for h in doc["hosts"]:
            if h["id"] == "claude":
                self.assertIn("warning", h)
                self.assertFalse(h["installed"])
            elif h["id"] == "cursor":
                self.assertTrue(h["installed"])
                self.assertNotIn("warning", h)
        doctor = r.ok_json("doctorReport", "doctor")
        codes = {c["host_id"]: c["code"] for c in doctor["checks"] if c["name"] in ("adapter", "manifest")}
        self.assertEqual(codes["claude"], "adapter_manifest_unreadable")
        self.assertEqual(codes["cursor"], "adapter_healthy")
        doc = r.fail_json("install_failed", 3, "install", "--tool", "claude,cursor", "--refresh")
        self.assertEqual(doc["details"]["transaction_outcome"], "not_committed")
        self.assertEqual(doc["details"]["report"]["written"], [])
        r.fail_json("uninstall_failed", 3, "uninstall", "--tool", "claude")
        self.assertEqual(tree_digest(r.dir), before)

    def test_malformed_manifests_degrade_to_a_warning(self):
        for name, mutate in self.BAD.items():
            with self.subTest(name=name):
                self.repo.cleanup()
                self.repo = Repo()
                r = self.repo
                r.ok_json("changeReport", "install", "--tool", "claude,cursor")
                p = r.path(".claude/slipway/ownership-manifest.json")
                with open(p) as f:
                    text = f.read()
                bad = mutate(text)
                self.assertNotEqual(bad, text)
                with open(p, "w") as f:
                    f.write(bad)
                self.check_degraded()

    def test_symlinked_manifest_degrades_to_a_warning(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "claude,cursor")
        p = r.path(".claude/slipway/ownership-manifest.json")
        os.rename(p, r.path("elsewhere.json"))
        os.symlink(r.path("elsewhere.json"), p)
        self.check_degraded()

    def test_symlinked_host_directory_is_never_written_through(self):
        r = self.repo
        target = tempfile.mkdtemp()
        try:
            os.symlink(target, r.path(".claude"))
            doc = r.fail_json("install_failed", 3, "install", "--tool", "claude")
            self.assertIn("symlink", doc["message"])
            self.assertEqual(os.listdir(target), [])
        finally:
            shutil.rmtree(target)

    def test_poisoned_manifest_of_one_host_blocks_every_host(self):
        r = self.repo
        r.write(".codex/slipway/ownership-manifest.json", json.dumps(
            {"version": 2, "tool_id": "codex", "files": [{"path": "../outside", "sha256": "0" * 64}]}))
        before = tree_digest(r.dir)
        doc = r.fail_json("install_failed", 3, "install", "--tool", "claude,codex")
        self.assertIn("repository", doc["message"])
        self.assertEqual(tree_digest(r.dir), before)

    def test_sentinel_without_manifest_adopts_nothing(self):
        r = self.repo
        r.write(".claude/slipway/.adapter-generated", "generated\n")
        r.write(ENTRY["claude"], "mine\n")
        before = tree_digest(r.dir)
        doc = r.ok_json("changeReport", "install", "--tool", "claude")
        self.assertEqual(doc["written"], [])
        self.assertTrue(doc["warnings"])
        self.assertEqual(tree_digest(r.dir), before)
        doctor = r.ok_json("doctorReport", "doctor")
        self.assertIn("adapter_not_installed", [c["code"] for c in doctor["checks"] if c["host_id"] == "claude"])

    def test_unmanaged_existing_file_is_preserved_on_first_install(self):
        r = self.repo
        r.write(ENTRY["claude"], "my own skill\n")
        doc = r.ok_json("changeReport", "install", "--tool", "claude")
        self.assertIn(ENTRY["claude"], doc["preserved"])
        with open(r.path(ENTRY["claude"])) as f:
            self.assertEqual(f.read(), "my own skill\n")
        self.assertNotIn("slipway-run", r.list_host("claude")["capabilities"])

    def test_stale_claim_is_preserved_and_withdrawn(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "claude")
        p = r.path(".claude/slipway/ownership-manifest.json")
        with open(p) as f:
            m = json.load(f)
        for e in m["files"]:
            if e["path"] == ENTRY["claude"]:
                e["sha256"] = "0" * 64
        with open(p, "w") as f:
            f.write(json.dumps(m, indent=2) + "\n")
        st = r.list_host("claude")
        self.assertIn("warning", st)
        doctor = r.ok_json("doctorReport", "doctor")
        self.assertIn("adapter_refresh_required", [c["code"] for c in doctor["checks"] if c["host_id"] == "claude"])
        doc = r.ok_json("changeReport", "install", "--tool", "claude", "--refresh")
        self.assertIn(ENTRY["claude"], doc["preserved"])
        with open(p) as f:
            self.assertNotIn(ENTRY["claude"], [e["path"] for e in json.load(f)["files"]])


FAKE_GH = """#!/bin/sh
case "$1" in
--version) [ -n "$GH_SLEEP" ] && exec sleep "$GH_SLEEP"; [ -n "$GH_VERSION_FAIL" ] && exit 1; echo "gh version $GH_VERSION (2026-01-01)"; echo "https://github.com/cli/cli/releases/tag/v$GH_VERSION";;
auth) echo "Logged in to github.com account octo (token gho_SECRETSECRET)" >&2; echo "token: gho_SECRETSECRET"; exit ${GH_AUTH_EXIT:-0};;
api) echo "$*" > "$GH_LOG"; [ -n "$GH_API_FAIL" ] && exit 1; [ -n "$GH_BIG" ] && head -c 70000 /dev/zero | tr '\\0' ' '; printf '%s\\n' "$GH_PERMS";;
esac
"""


class DoctorTest(Base):
    def setUp(self):
        super().setUp()
        self.bin = tempfile.mkdtemp(prefix="fake-gh-")
        self.log = os.path.join(self.bin, "api.log")

    def tearDown(self):
        shutil.rmtree(self.bin, ignore_errors=True)
        super().tearDown()

    def fake_gh(self):
        p = os.path.join(self.bin, "gh")
        with open(p, "w") as f:
            f.write(FAKE_GH)
        os.chmod(p, 0o755)

    def doctor(self, **env):
        e = {"PATH": self.bin + ":" + no_gh_path("/usr/bin:/bin"), "GH_VERSION": "2.95.1", "GH_LOG": self.log,
             "GH_PERMS": '{"admin":false,"maintain":false,"push":true,"triage":true,"pull":true}'}
        e.update(env)
        doc = self.repo.ok_json("doctorReport", "doctor", env=e)
        self.assertNotIn("SECRET", json.dumps(doc))
        return doc

    def github(self, doc):
        return [c["code"] for c in doc["checks"] if c["name"].startswith("github")]

    def set_origin(self, url):
        subprocess.run(["git", "-C", self.repo.dir, "remote", "add", "origin", url], check=True)

    def test_order_and_durability(self):
        doc = self.doctor()
        codes = [c["code"] for c in doc["checks"]]
        self.assertEqual(codes[0], "repository_ok")
        self.assertEqual(doc["checks"][0]["detail"], self.repo.dir)
        self.assertEqual([c["host_id"] for c in doc["checks"][1:11]], HOSTS)
        dur = doc["checks"][11]
        self.assertEqual(dur["code"], "runstore_durability_full")
        self.assertEqual(dur["durability"], {"level": "file_and_directory_fsync", "file_sync": True,
                                             "directory_sync": True})

    def test_gh_missing(self):
        self.assertEqual(self.github(self.doctor()), ["github_cli_unavailable"])

    def test_gh_old_and_unknown_versions(self):
        self.fake_gh()
        self.assertEqual(self.github(self.doctor(GH_VERSION="2.93.9"))[0], "github_cli_rest_fallback_required")
        self.assertEqual(self.github(self.doctor(GH_VERSION="two"))[0], "github_cli_version_unknown")
        self.assertEqual(self.github(self.doctor(GH_VERSION_FAIL="1"))[0], "github_cli_version_unknown")
        self.assertEqual(self.github(self.doctor(GH_VERSION="2.94.0"))[0], "github_cli_compatible")

    def test_gh_unauthenticated_stops(self):
        self.fake_gh()
        self.set_origin("https://github.com/octo/repo.git")
        self.assertEqual(self.github(self.doctor(GH_AUTH_EXIT="1")),
                         ["github_cli_compatible", "github_auth_unavailable"])

    def test_permission_levels(self):
        self.fake_gh()
        self.set_origin("git@github.com:octo/repo.git")
        cases = {
            '{"admin":true,"pull":true}': "github_issue_permissions_ok",
            '{"maintain":true,"pull":true}': "github_issue_permissions_ok",
            '{"push":true,"pull":true,"triage":false}': "github_issue_permissions_ok",
            '{"triage":true,"pull":true,"push":false}': "github_issue_permissions_limited",
            '{"pull":true,"push":false}': "github_issue_permissions_limited",
            '{"pull":false}': "github_issue_permissions_limited",
            'null': "github_issue_permissions_unknown",
            '{"pull":"yes"}': "github_issue_permissions_unknown",
        }
        for perms, code in cases.items():
            with self.subTest(perms=perms):
                doc = self.doctor(GH_PERMS=perms)
                self.assertEqual(self.github(doc), ["github_cli_compatible", "github_auth_available", code])
        with open(self.log) as f:
            self.assertEqual(f.read().split(), ["api", "--hostname", "github.com", "repos/octo/repo",
                                                "--jq", ".permissions"])
        doc = self.doctor(GH_API_FAIL="1")
        self.assertEqual(self.github(doc)[-1], "github_issue_permissions_unknown")

    def test_gh_runs_are_bounded_in_time(self):
        import time
        self.fake_gh()
        start = time.monotonic()
        doc = self.doctor(GH_SLEEP="30")
        self.assertLess(time.monotonic() - start, 20)
        self.assertEqual(self.github(doc)[0], "github_cli_version_unknown")

    def test_gh_output_is_capped_at_64_kib(self):
        self.fake_gh()
        self.set_origin("https://github.com/octo/repo")
        # Valid JSON after 70000 spaces: only readable if the cap were ignored.
        self.assertEqual(self.github(self.doctor(GH_BIG="1"))[-1], "github_issue_permissions_unknown")
        self.assertEqual(self.github(self.doctor())[-1], "github_issue_permissions_ok")

    def test_permissions_skipped_for_other_or_credentialed_remotes(self):
        self.fake_gh()
        for url in ("https://gitlab.com/octo/repo.git", "https://user:tok@github.com/octo/repo.git",
                    "ssh://bob@github.com/octo/repo"):
            with self.subTest(url=url):
                subprocess.run(["git", "-C", self.repo.dir, "remote", "remove", "origin"],
                               capture_output=True)
                self.set_origin(url)
                doc = self.doctor()
                self.assertEqual(self.github(doc), ["github_cli_compatible", "github_auth_available"])

    def test_legacy_residue_is_reported_and_kept(self):
        common = os.path.join(self.repo.dir, ".git", "slipway")
        for name in ("runs", "runtime", "cache", "repair-backups", "mystery"):
            os.makedirs(os.path.join(common, name))
        doc = self.doctor()
        legacy = [c for c in doc["checks"] if c["name"] == "legacy_runstore"]
        self.assertEqual([c["code"] for c in legacy],
                         ["legacy_cache_residue", "legacy_unknown_residue",
                          "legacy_repair_backups_residue", "legacy_runtime_residue"])
        self.assertTrue(all(c["status"] == "warning" and c["host_id"] == "-" for c in legacy))
        self.assertEqual(sorted(os.listdir(common)), ["cache", "mystery", "repair-backups", "runs", "runtime"])

    def test_adapter_states(self):
        r = self.repo
        os.makedirs(r.path(".cursor"))
        r.ok_json("changeReport", "install", "--tool", "claude,pi")
        os.unlink(r.path(".pi/slipway/.adapter-generated"))
        doc = self.doctor()
        codes = {c["host_id"]: (c["code"], c["status"]) for c in doc["checks"][1:11]}
        self.assertEqual(codes["claude"], ("adapter_healthy", "ok"))
        self.assertEqual(codes["cursor"], ("adapter_not_installed", "warning"))
        self.assertEqual(codes["pi"], ("adapter_refresh_required", "warning"))
        self.assertEqual(codes["codex"], ("adapter_not_detected", "ok"))


class EditedFileTest(Base):
    """A managed file edited and then kept by a refresh is the person's:
    list does not ask for a refresh that cannot change anything, doctor
    names the file and the way back, and following it ends healthy."""

    def kept_then_way_back(self, rel):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "claude")
        with open(r.path(rel), "a") as f:
            f.write("\nmy own note\n")
        doc = r.ok_json("changeReport", "install", "--tool", "claude", "--refresh")
        self.assertIn(rel, doc["preserved"])

        st = r.list_host("claude")
        self.assertFalse(st["needs_refresh"], st)
        self.assertIn(rel, st["warning"])
        rc, out, _ = r.run("list")
        row = [ln for ln in out.splitlines() if ln.startswith("claude ")][0]
        self.assertNotIn("needed", row)
        self.assertIn(rel, out)

        doctor = r.ok_json("doctorReport", "doctor")
        mine = [c for c in doctor["checks"] if c["host_id"] == "claude"]
        self.assertEqual([c["code"] for c in mine], ["adapter_modified"])
        detail = mine[0]["detail"]
        self.assertIn(rel, detail)
        rc, out, _ = r.run("doctor")
        self.assertIn(rel, out)
        # A refresh alone changes nothing, and doctor says the same again.
        r.ok_json("changeReport", "install", "--tool", "claude", "--refresh")
        again = r.ok_json("doctorReport", "doctor")
        self.assertEqual([c["detail"] for c in again["checks"] if c["host_id"] == "claude"], [detail])

        # The person follows doctor's words: move the copy out, then the
        # command it names.
        self.assertIn("move your copy out of .claude (or delete it), then run ", detail)
        command = detail.split("then run ", 1)[1].split()
        self.assertEqual(command[:1], ["slipway"])
        aside = tempfile.mkdtemp(prefix="slipway-mine-")
        shutil.move(r.path(rel), os.path.join(aside, "mine.md"))
        rc, out, err = r.run(*command[1:])
        self.assertEqual(rc, 0, (out, err))
        shutil.rmtree(aside)

        doctor = r.ok_json("doctorReport", "doctor")
        self.assertEqual([c["code"] for c in doctor["checks"] if c["host_id"] == "claude"], ["adapter_healthy"])
        st = r.list_host("claude")
        self.assertFalse(st["needs_refresh"])
        self.assertNotIn("warning", st)
        self.assertEqual(st["capabilities"], CAPS)

    def test_edited_entrypoint_way_back(self):
        self.kept_then_way_back(ENTRY["claude"])

    def test_edited_reference_way_back(self):
        # Its capability's entrypoint is withdrawn while the reference is
        # the person's; the way back brings both.
        self.kept_then_way_back(".claude/skills/slipway-review/references/ground-rules.md")

    def test_uninstall_names_a_kept_file(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "claude")
        with open(r.path(ENTRY["claude"]), "a") as f:
            f.write("\nmy own note\n")
        r.ok_json("changeReport", "install", "--tool", "claude", "--refresh")
        doc = r.ok_json("changeReport", "uninstall", "--tool", "claude")
        self.assertIn(ENTRY["claude"], doc["preserved"])
        self.assertTrue(os.path.exists(r.path(ENTRY["claude"])))

    def test_mcp_on_an_installed_host_says_what_it_did(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "claude")
        doc = r.ok_json("changeReport", "install", "--tool", "claude", "--mcp")
        self.assertIn(".mcp.json", doc["written"])
        self.assertEqual(len(doc["warnings"]), 1, doc)
        self.assertIn("--mcp registers the MCP server and leaves its files as they are", doc["warnings"][0])
        doc = r.ok_json("changeReport", "install", "--tool", "claude")
        self.assertIn("already installed; run slipway install --refresh", doc["warnings"][0])


# Flags of the commands the capability texts may show (MAP section 1).
KNOWN = {
    ("run",): {"--goal-file": 1, "--goal-stdin": 0, "--source-file": 1, "--budget": 1, "--no-review": 0,
               "--json": 0, "--root": 1},
    ("protocol", "submit"): {"--run": 1, "--action": 1, "--outcome-file": 1, "--outcome-stdin": 0, "--root": 1},
    ("protocol", "answer"): {"--run": 1, "--action": 1, "--text": 1, "--text-file": 1, "--text-stdin": 0,
                             "--confirm-destructive": 0, "--scope-sha256": 1, "--root": 1},
    ("protocol", "skip"): {"--run": 1, "--action": 1, "--root": 1},
    ("protocol", "resume"): {"--budget": 1, "--source-file": 1, "--use-pinned-source": 0, "--source-choice": 1,
                             "--candidate": 1, "--root": 1},
    ("protocol", "material"): {"--run": 1, "--action": 1, "--section": 1, "--root": 1},
    ("status",): {"--section": 1, "--root": 1, "--json": 0},
    ("stop",): {"--root": 1, "--json": 0},
    ("install",): {"--root": 1, "--tool": 1, "--surface": 1, "--refresh": 0, "--json": 0},
    ("uninstall",): {"--root": 1, "--tool": 1, "--json": 0},
    ("list",): {"--root": 1, "--json": 0},
    ("doctor",): {"--root": 1, "--json": 0},
}
MAX_POSITIONAL = {("protocol", "resume"): 1, ("status",): 1, ("stop",): 1}
IMPLEMENTED = {("install",), ("uninstall",), ("list",), ("doctor",)}


def command_lines(text):
    lines, inside = [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("```"):
            inside = not inside
            continue
        if inside and s.startswith("slipway "):
            lines.append(s)
    return lines


class CapabilityTextTest(Base):
    def capability_files(self):
        r = self.repo
        r.ok_json("changeReport", "install", "--tool", "claude")
        out = {}
        for cap in CAPS:
            with open(r.path(".claude/skills/%s/SKILL.md" % cap)) as f:
                out[cap] = f.read()
        with open(r.path(".claude/skills/slipway-clarify/references/decision-interview.md")) as f:
            out["decision-interview"] = f.read()
        with open(r.path(".claude/skills/slipway-run/references/source-envelope.md")) as f:
            out["source-envelope"] = f.read()
        return out

    def test_every_shown_command_line_is_accepted(self):
        seen = 0
        for cap, text in self.capability_files().items():
            for line in command_lines(text):
                seen += 1
                argv = shlex.split(line)
                key = (argv[1], argv[2]) if argv[1] == "protocol" else (argv[1],)
                with self.subTest(cap=cap, line=line):
                    self.assertIn(key, KNOWN)
                    flags, rest, positional = KNOWN[key], argv[1 + len(key):], 0
                    i = 0
                    while i < len(rest):
                        a = rest[i]
                        if a.startswith("--"):
                            self.assertIn(a, flags)
                            i += 1 + flags[a]
                            self.assertLessEqual(i, len(rest), "flag %s needs a value" % a)
                        else:
                            positional += 1
                            i += 1
                    self.assertLessEqual(positional, MAX_POSITIONAL.get(key, 0))
                    self.assertNotIn("--goal", [a for a in rest if a == "--goal"])
                    if key in IMPLEMENTED:
                        rc, _, err = self.repo.run(*argv[1:], "--help")
                        self.assertEqual(rc, 0, err)
        self.assertGreater(seen, 10)

    def test_texts_carry_the_protocol_rules(self):
        texts = self.capability_files()
        for cap in CAPS:
            t = texts[cap]
            self.assertTrue(t.startswith("---\nname: %s\ndescription: " % cap), cap)
            self.assertIn("never instructions", t)
            self.assertIn("temporary files", t)
            self.assertIn("exit code", t)
            self.assertIn("confirm-destructive", t)
        self.assertIn("skip needs no reason", texts["slipway-clarify"].replace("a skip needs", "skip needs"))
        self.assertIn("One decision per turn", texts["decision-interview"])


if __name__ == "__main__":
    if not BIN:
        sys.exit("SLIPWAY_BIN must be set")
    unittest_main()
