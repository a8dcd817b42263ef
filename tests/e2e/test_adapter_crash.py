"""Crash safety of install and uninstall, the way a person meets it: the
process is killed (strace -e inject=SYSCALL:signal=SIGKILL:when=N) right
before one of its write-side system calls (openat with O_CREAT, write,
fsync, rename, link, unlink, mkdir), once for each in turn; then the same
command is run again and the tree is compared with the one a run that was
never interrupted leaves.  The user's own .mcp.json keeps its server
"mine" throughout, is never recorded as slipway's, and no .slipway-tmp-* or
.slipway-bak-* file is left behind; doctor, run between the kill and the
retry, names the interrupted batch or the leftovers; and the uninstall
that follows a recovered install keeps "mine".

Scenarios: a first `install --tool claude --mcp` over the user's own
.mcp.json; `install --tool claude --mcp --refresh` over an install whose
managed files the user edited one of and deleted another; `uninstall`
after `install --mcp`.  The kill points are found by one traced run first.
Every call on the batch's own record (in .git/slipway/), on the user's
.mcp.json, the MCP record or the ownership manifest is a kill point; the
other calls fall into kinds (staging one file: a .slipway-tmp-* created,
written and synced; moving a file aside; putting one in place; mkdir;
deleting a backup; removing a folder; syncing a folder), where a kill
leaves the same state one file further along, and of each kind the first
two and the last are (staging: of the files).  SLIPWAY_CRASH_ALL=1 takes
every call.  doctor runs after every third kill, and the command that
follows (uninstall after an install) after every fourth and after each
kill on .mcp.json."""

import json
import os
import re
import shutil
import subprocess
import tempfile

from slipway_e2e import BIN, main, skip_test, validate

MINE = '{"mcpServers":{"mine":{"command":"keep-me"}}}\n'
CALLS = ["openat", "write", "fsync", "fdatasync", "rename", "renameat", "renameat2", "link",
         "linkat", "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir"]
LINE = re.compile(r"^(?:\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+|\?)")
LEFTOVER = re.compile(r"\.slipway-(tmp|bak)-")
ALL = os.environ.get("SLIPWAY_CRASH_ALL") == "1"


def env():
    e = dict(os.environ)
    # LeakSanitizer cannot run under ptrace, and a killed process leaks.
    e["ASAN_OPTIONS"] = ":".join(filter(None, [e.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    # doctor must never reach a real gh (and so the network) in tests.
    e["PATH"] = os.pathsep.join(d for d in e.get("PATH", "").split(os.pathsep)
                                if d and not os.access(os.path.join(d, "gh"), os.X_OK))
    return e


def strace():
    s = shutil.which("strace")
    if s is None:
        skip_test("strace is not installed (make deps installs it)")
    return s


def slipway(repo, *args):
    p = subprocess.run([BIN, *args], cwd=repo, env=env(), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def ok(repo, defn, *args):
    rc, out, err = slipway(repo, *args, "--json")
    assert rc == 0, (args, rc, out, err)
    doc = json.loads(out)
    validate(doc, defn)
    return doc


def tree(root):
    """rel path -> sha of every file and "dir" for every folder outside .git."""
    import hashlib
    out = {}
    for d, dirs, files in os.walk(root):
        if d == root and ".git" in dirs:
            dirs.remove(".git")
        for name in dirs:
            out[os.path.relpath(os.path.join(d, name), root) + "/"] = "dir"
        for name in files:
            p = os.path.join(d, name)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = "%o:%s" % (os.stat(p).st_mode & 0o777,
                                                           hashlib.sha256(f.read()).hexdigest())
    return out


def diff(got, want):
    lines = []
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            lines.append("%s: %s, want %s" % (k, "missing" if k not in got else "differs" if k in want
                                              else "extra", "missing" if k not in want else "present"))
    return lines


def trace_points(repo, args):
    """[(syscall, n, what)]: the write-side calls of `slipway args`, n
    counting that syscall's invocations from 1 as strace's when= does."""
    fd, log = tempfile.mkstemp(prefix="slipway-strace-")
    os.close(fd)
    try:
        p = subprocess.run([strace(), "-f", "-qq", "-y", "-s", "400", "-o", log, "-e",
                            "trace=" + ",".join(CALLS), BIN, *args], cwd=repo, env=env(),
                           capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
    finally:
        os.unlink(log)
    seen, points = {}, []
    for line in text.splitlines():
        if "resumed>" in line:
            continue
        m = LINE.match(line) or re.match(r"^(?:\d+\s+)?(\w+)\((.*)<unfinished", line)
        if not m:
            continue
        call, a = m.group(1), m.group(2)
        seen[call] = seen.get(call, 0) + 1
        if call == "openat" and "O_CREAT" not in a:
            continue
        if call == "write" and re.match(r"^[12]<", a):
            continue
        points.append((call, seen[call], a[:300]))
    return points


def category(call, what):
    """What a kill before this call leaves, roughly: kills in one category
    leave the same kind of state, one file further along."""
    if "/.git/" in what:
        return "record"
    if re.search(r"mcp\.json|mcp-server\.json|ownership-manifest\.json", what):
        return "user config or manifest"
    if call in ("openat", "write", "fsync", "fdatasync") and ".slipway-tmp-" in what:
        return "stage " + re.search(r"\.slipway-tmp-[0-9-]+", what).group(0)
    if call.startswith("rename") or call.startswith("link"):
        return "place" if ".slipway-tmp-" in what else "aside"
    if call.startswith("unlink"):
        return "rmdir" if "AT_REMOVEDIR" in what else "collect"
    return call


def pick(points):
    """The kill points worth a run (see the module comment): every one on
    the record, the user's configuration and the manifest; of the others,
    the first two and the last of each category (staging: of the files)."""
    if ALL:
        return points
    cats = [category(c, w) for c, _, w in points]
    stages = [k for k in dict.fromkeys(cats) if k.startswith("stage ")]
    chosen = []
    for i, k in enumerate(cats):
        if k in ("record", "user config or manifest"):
            chosen.append(points[i])
        elif k.startswith("stage "):
            if k in stages[:2] + stages[-1:]:
                chosen.append(points[i])
        else:
            same = [j for j, x in enumerate(cats) if x == k]
            if i in same[:2] + same[-1:]:
                chosen.append(points[i])
    return chosen


class Scenario:
    def __init__(self, name, setup, args, after=None):
        self.name, self.setup, self.args, self.after = name, setup, args, after
        self.base = tempfile.mkdtemp(prefix="slipway-crash-")
        self.repo = os.path.join(self.base, "repo")
        self.template = os.path.join(self.base, "template")
        os.mkdir(self.repo)
        subprocess.run(["git", "init", "-q", self.repo], check=True)
        setup(self.repo)
        shutil.copytree(self.repo, self.template, symlinks=True)

    def reset(self):
        shutil.rmtree(self.repo)
        shutil.copytree(self.template, self.repo, symlinks=True)

    def cleanup(self):
        shutil.rmtree(self.base, ignore_errors=True)

    def run(self):
        """Every failure, as text (empty when none)."""
        failures = []
        # What a run that is never interrupted leaves (and, after it, the
        # command that follows: uninstall after an install).
        doc = ok(self.repo, "changeReport", *self.args)
        assert doc["transaction_outcome"] == "committed", doc
        want = tree(self.repo)
        want_after = None
        if self.after:
            ok(self.repo, "changeReport", *self.after)
            want_after = tree(self.repo)
        self.reset()
        points = trace_points(self.repo, self.args + ["--json"])
        chosen = pick(points)
        assert len(chosen) > 10, points
        for k, (call, n, what) in enumerate(chosen):
            self.reset()
            where = "%s: killed before %s #%d (%s)" % (self.name, call, n, what)
            p = subprocess.run([strace(), "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + call,
                                "-e", "inject=%s:signal=SIGKILL:when=%d" % (call, n), BIN, *self.args,
                                "--json"], cwd=self.repo, env=env(), capture_output=True, timeout=120)
            if p.returncode == 0:
                failures.append("%s: the process was not killed" % where)
                continue
            failures += ["%s: %s" % (where, f) for f in self.check_killed(k)]
            record = os.path.exists(os.path.join(self.repo, ".git/slipway/adapter-txn.json"))
            rc, out, err = slipway(self.repo, *self.args, "--json")
            if rc != 0:
                failures.append("%s: the retry failed (exit %d): %s" % (where, rc, err.strip()[:300]))
                continue
            doc = json.loads(out)
            validate(doc, "changeReport")
            if doc["transaction_outcome"] != "committed" or doc["recovery_artifacts"]:
                failures.append("%s: the retry reports %s with recovery artifacts %s"
                                % (where, doc["transaction_outcome"], doc["recovery_artifacts"]))
            if record and not any(w.startswith("an interrupted ") for w in doc["warnings"]):
                failures.append("%s: the retry does not say what it recovered: %s" % (where, doc["warnings"]))
            got = tree(self.repo)
            left = [f for f in got if LEFTOVER.search(f)]
            if left:
                failures.append("%s: leftovers after the retry: %s" % (where, ", ".join(left)))
            if "mine" not in self.servers():
                failures.append("%s: the user's server \"mine\" is gone after the retry" % where)
            d = diff(got, want)
            if d:
                failures.append("%s: the retry's tree differs from an uninterrupted run's: %s"
                                % (where, "; ".join(d[:6])))
            if self.after and (k % 4 == 0 or ".mcp.json" in what):
                rc, out, err = slipway(self.repo, *self.after, "--json")
                if rc != 0:
                    failures.append("%s: %s after the retry failed: %s" % (where, " ".join(self.after),
                                                                           err.strip()[:300]))
                elif "mine" not in self.servers():
                    failures.append("%s: %s after the retry lost the user's server \"mine\""
                                    % (where, " ".join(self.after)))
                elif diff(tree(self.repo), want_after):
                    failures.append("%s: %s after the retry left %s" % (
                        where, " ".join(self.after), "; ".join(diff(tree(self.repo), want_after)[:6])))
        return failures, len(chosen), len(points)

    def servers(self):
        try:
            with open(os.path.join(self.repo, ".mcp.json")) as f:
                return json.load(f).get("mcpServers", {})
        except (OSError, ValueError):
            return {}

    def check_killed(self, k):
        """Right after the kill (every third point): doctor names the
        interrupted batch, or each leftover when there is no record."""
        if k % 3:
            return []
        left = [f for f in tree(self.repo) if LEFTOVER.search(f)]
        record = os.path.exists(os.path.join(self.repo, ".git/slipway/adapter-txn.json"))
        rc, out, err = slipway(self.repo, "doctor", "--json")
        if rc != 0:
            return ["doctor failed after the kill: %s" % err.strip()[:300]]
        doc = json.loads(out)
        validate(doc, "doctorReport")
        codes = {c["code"]: c for c in doc["checks"]}
        if record and "adapter_transaction_interrupted" not in codes:
            return ["doctor does not report the interrupted batch: %s" % sorted(codes)]
        if left and not record:
            c = codes.get("adapter_leftover_files")
            named = c["detail"] if c else ""
            missing = [f for f in left if os.path.basename(f) not in named]
            if missing:
                return ["doctor does not name the leftovers %s" % ", ".join(missing)]
        return []


def user_mcp(repo):
    with open(os.path.join(repo, ".mcp.json"), "w") as f:
        f.write(MINE)


def user_skill(repo):
    os.makedirs(os.path.join(repo, ".claude/skills/mine"))
    with open(os.path.join(repo, ".claude/skills/mine/SKILL.md"), "w") as f:
        f.write("the user's own skill\n")


def scenario(name, setup, args, after=None):
    s = Scenario(name, setup, args, after)
    try:
        failures, chosen, total = s.run()
    finally:
        s.cleanup()
    print("     %s: %d kill points of %d write-side calls" % (name, chosen, total))
    assert not failures, "%d failure(s):\n  %s" % (len(failures), "\n  ".join(failures[:25]))


def test_a_killed_first_install_over_the_users_mcp_json_is_rolled_back_and_retried():
    def setup(repo):
        user_mcp(repo)
        user_skill(repo)
    scenario("install --mcp", setup, ["install", "--tool", "claude", "--mcp"], after=["uninstall"])


def test_a_killed_refresh_keeps_the_users_edits_and_mcp_json():
    def setup(repo):
        user_mcp(repo)
        ok(repo, "changeReport", "install", "--tool", "claude")
        with open(os.path.join(repo, ".claude/skills/slipway-review/SKILL.md"), "a") as f:
            f.write("\nmy own note\n")
        os.unlink(os.path.join(repo, ".claude/skills/slipway-run/references/recovery.md"))
    scenario("install --mcp --refresh", setup, ["install", "--tool", "claude", "--mcp", "--refresh"],
             after=["uninstall"])


def test_a_killed_uninstall_is_finished_or_undone_by_the_next_one():
    def setup(repo):
        user_mcp(repo)
        user_skill(repo)
        ok(repo, "changeReport", "install", "--tool", "claude", "--mcp")
    scenario("uninstall", setup, ["uninstall"])


if __name__ == "__main__":
    main([test_a_killed_first_install_over_the_users_mcp_json_is_rolled_back_and_retried,
          test_a_killed_refresh_keeps_the_users_edits_and_mcp_json,
          test_a_killed_uninstall_is_finished_or_undone_by_the_next_one])
