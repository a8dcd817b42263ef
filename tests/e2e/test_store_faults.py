"""The run store under system call failures injected by strace.

A refused mutation: every openat, read, write, fchmod, fsync, rename,
mkdir and unlink that touches a material (materials/, a blob, a blob's
temporary) of a `protocol submit` and of a `run` is made to fail with
ENOSPC and then EIO, one call at a time.  Each is refused as
mutation_not_committed, with the phase of the step that failed, and leaves
the run directory (for `run`, runs/) byte-identical.

A killed creation: `slipway run` is killed (SIGKILL) at each write-side
call after its staging directory is made.  No Run is lost or half-made;
doctor reports a staging directory left behind by name, saying that the
next `slipway run` removes it, and the next `slipway run` does."""

import json
import os
import re
import shutil
import subprocess
import tempfile

from protocol_support import encode, outcome, start, tree_bytes, write_tmp
from slipway_e2e import BIN, main, run, scratch_repo, skip_test, validate

LINE = re.compile(r"^(\d+)\s+(\w+)\((.*?)(?:\)\s+=\s+(-?\d+).*| <unfinished \.\.\.>)$")
FDPATH = re.compile(r"^(-?\d+|AT_FDCWD)(?:<([^>]*)>)?")
STR = re.compile(r'"((?:[^"\\]|\\.)*)"')
BLOB = re.compile(r"^(?:\.tmp-)?[0-9a-f]{64}(?:-[0-9a-f]{16})?$")


def strace():
    path = shutil.which("strace")
    if path is None:
        skip_test("strace is not installed (make deps installs it)")
    return path


def env_for_strace():
    # LeakSanitizer cannot run under ptrace; everything else stays on.
    return dict(os.environ, ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"),
                                                                "detect_leaks=0"])))


def traced(args, cwd, calls, inject=None):
    """Runs slipway under strace -f -y; returns (proc, [(pid, call, n, paths, rc, args)]):
    n counts the calls of that name in that process from 1, as strace's
    when= does; paths are what the call acts on (an fd's path, joined with
    the name it is given)."""
    fd, log = tempfile.mkstemp(prefix="slipway-strace-")
    os.close(fd)
    cmd = [strace(), "-f", "-qq", "-y", "-s", "300", "-o", log, "-e", "trace=" + ",".join(calls)]
    if inject:
        cmd += ["-e", "inject=" + inject]
    proc = subprocess.run(cmd + [BIN] + list(args), cwd=cwd, capture_output=True,
                          env=env_for_strace(), timeout=120)
    with open(log, encoding="utf-8", errors="replace") as f:
        text = f.read()
    os.unlink(log)
    if proc.returncode != 0 and not text and b"ptrace" in proc.stderr:
        skip_test("strace cannot trace here: %s" % proc.stderr.decode(errors="replace").strip()[:200])
    events, seen = [], {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pid, call, args_text = m.group(1), m.group(2), m.group(3)
        seen[(pid, call)] = n = seen.get((pid, call), 0) + 1
        events.append((pid, call, n, paths_of(call, args_text),
                       None if m.group(4) is None else int(m.group(4)), args_text))
    return proc, events


def paths_of(call, args):
    """The paths a call's arguments name: each fd's path, and for a name
    given after an fd (the *at calls), that name below it."""
    named = call.endswith(("at", "at2"))
    out, rest = [], args
    while rest:
        m = FDPATH.match(rest)
        if m and m.group(2) is not None:
            base = m.group(2)
            rest = rest[m.end():].lstrip(", ")
            s = STR.match(rest) if named else None
            if s:
                out.append(os.path.normpath(os.path.join(base, s.group(1))))
                rest = rest[s.end():].lstrip(", ")
            else:
                out.append(base)
            continue
        cut = rest.find(", ")
        if cut < 0:
            break
        rest = rest[cut + 2:]
    return out


def restore(repo, template):
    store = os.path.join(repo, ".git", "slipway")
    shutil.rmtree(store)
    shutil.copytree(template, store, symlinks=True)


def runs_of(repo):
    return os.path.join(repo, ".git", "slipway", "runs")


# ---- a refused mutation leaves the run directory byte-identical ----

MATERIAL_CALLS = ["openat", "read", "write", "fchmod", "fsync", "renameat2", "linkat", "mkdirat", "unlinkat"]


def material_role(paths):
    """'blob' for a blob or its temporary, 'dir' for materials/ itself, else None."""
    for p in paths:
        if os.path.basename(p) == "materials":
            return "dir"
        if os.path.basename(os.path.dirname(p)) == "materials" and BLOB.match(os.path.basename(p)):
            return "blob"
    return None


def calls_of(events, name):
    return [e for e in events if e[1] == name]


def material_calls(events):
    """The calls on materials before the journal append (the commit)."""
    out = []
    for pid, call, n, paths, _rc, _args in events:
        if call == "write" and any(p.endswith("/journal.jsonl") for p in paths):
            break
        role = material_role(paths)
        if role is not None:
            out.append((pid, call, n, role, paths))
    return out


def expected_phases(call, role):
    if role == "blob":
        return {"material_write"}
    if call == "fsync":
        return {"directory_sync"}
    # materials/ opened by the sweep of leftovers, by the material step, or
    # re-checked before the append.
    return {"leftover_cleanup", "material_write", "namespace_verify"}


def refusals(repo, template, args, watched):
    """Fails each material call of `args` in turn; `watched` is the
    directory that must stay byte-identical.  Returns how many ran."""
    restore(repo, template)
    proc, events = traced(args, repo, MATERIAL_CALLS)
    assert proc.returncode == 0, proc.stderr
    calls = material_calls(events)
    assert any(role == "blob" for _, _, _, role, _ in calls), events
    # The POSIX side of the OS seam (make PORTABLE=1) renames by linkat
    # then unlinkat: once linked the blob is in place, and an unlink that
    # fails leaves the temp name as a leftover and the mutation commits.
    linked = {paths[0] for _, call, _, paths, _, _ in calls_of(events, "linkat")}
    tried, wrong = 0, []
    for pid, call, n, role, paths in calls:
        for errno_name in ("ENOSPC", "EIO"):
            if call == "read" and errno_name == "ENOSPC":
                continue
            restore(repo, template)
            before = tree_bytes(watched)
            what = "%s #%d (%s) %s" % (call, n, errno_name, paths[-1])
            proc, _ = traced(args, repo, [call], "%s:error=%s:when=%d" % (call, errno_name, n))
            if proc.returncode == 0 and call == "openat" and role == "dir":
                # The sweep of leftovers finds no materials/ to sweep: the
                # mutation goes on and commits.
                validate(json.loads(proc.stdout), "protocolState")
                continue
            if proc.returncode == 0 and call == "unlinkat" and paths[-1] in linked:
                validate(json.loads(proc.stdout), "protocolState")
                continue
            if proc.returncode != 3:
                wrong.append("%s: exit %d: %r" % (what, proc.returncode, proc.stderr[-300:]))
                continue
            assert proc.stdout == b"", (what, proc.stdout)
            doc = json.loads(proc.stderr)
            validate(doc, "cliError")
            d = doc.get("details") or {}
            if doc["code"] != "mutation_not_committed" or d["committed"] or d["ambiguous"]:
                wrong.append("%s: %s %r" % (what, doc["code"], d))
            elif d["phase"] not in expected_phases(call, role):
                wrong.append("%s: phase %s (%s)" % (what, d["phase"], doc["message"]))
            after = tree_bytes(watched)
            if after != before:
                changed = sorted(k for k in set(after) | set(before) if after.get(k) != before.get(k))
                wrong.append("%s: left the tree changed: %s" % (what, changed))
            tried += 1
    assert not wrong, "\n  " + "\n  ".join(wrong)
    return tried


def test_a_refused_submit_leaves_the_run_directory_byte_identical_at_every_material_call():
    repo = scratch_repo()
    st = start(repo)
    path = write_tmp(encode(outcome(st["action"], suggest="implement")))
    template = tempfile.mkdtemp(prefix="slipway-e2e-store-")
    shutil.rmtree(template)
    shutil.copytree(os.path.join(repo, ".git", "slipway"), template, symlinks=True)
    args = ["protocol", "submit", "--run", st["run_id"], "--action", st["action"]["action_id"],
            "--outcome-file", path]
    tried = refusals(repo, template, args, os.path.join(runs_of(repo), st["run_id"]))
    assert tried >= 10, tried


def test_a_refused_run_leaves_runs_byte_identical_at_every_material_call():
    repo = scratch_repo()
    start(repo, "an earlier Run")
    template = tempfile.mkdtemp(prefix="slipway-e2e-store-")
    shutil.rmtree(template)
    shutil.copytree(os.path.join(repo, ".git", "slipway"), template, symlinks=True)
    tried = refusals(repo, template, ["run", "--json", "--", "a refused goal"], runs_of(repo))
    assert tried >= 10, tried


# ---- a killed creation leaves no Run lost or half-made, and no debris ----

WRITE_CALLS = ["mkdirat", "openat", "write", "writev", "pwrite64", "pwritev", "copy_file_range", "ftruncate",
               "fchmod", "fsync", "fdatasync", "renameat2", "unlinkat"]
WRITING = re.compile(r"\bO_(?:CREAT|WRONLY|RDWR|APPEND|TRUNC)\b")


def write_side_calls(events, store):
    """The calls that write, from the one that makes the staging directory
    on: under the store, and the reply on stdout."""
    out, on = [], False
    for pid, call, n, paths, _rc, args in events:
        if call == "mkdirat" and any("/runs/.tmp-" in p for p in paths):
            on = True
        if not on or (call == "openat" and not WRITING.search(args)):
            continue
        if any(p.startswith(store + "/") for p in paths) or (call == "write" and args.startswith("1<")):
            out.append((call, n, paths[-1] if paths else "?"))
    return out


def listing(repo):
    res = run("status", "--json", cwd=repo)
    assert res.code == 0, res.err
    doc = res.json_out()
    validate(doc, "statusList")
    return doc


def incomplete(repo):
    res = run("doctor", "--json", cwd=repo)
    assert res.code == 0, res.err
    return [c for c in res.json_out()["checks"] if c["code"] == "runstore_incomplete_run"]


def test_a_killed_run_loses_no_run_and_its_staging_directory_goes_with_the_next_run():
    repo = scratch_repo()
    earlier = start(repo, "an earlier Run")["run_id"]
    store = os.path.realpath(os.path.join(repo, ".git", "slipway"))
    template = tempfile.mkdtemp(prefix="slipway-e2e-store-")
    shutil.rmtree(template)
    shutil.copytree(store, template, symlinks=True)
    args = ["run", "--json", "--", "a goal killed on its way"]
    proc, events = traced(args, repo, WRITE_CALLS)
    assert proc.returncode == 0, proc.stderr
    calls = write_side_calls(events, store)
    assert len(calls) >= 10, calls
    left = published = 0
    wrong = []
    for call, n, path in calls:
        what = "%s #%d %s" % (call, n, path)
        restore(repo, template)
        proc, _ = traced(args, repo, [call], "%s:signal=SIGKILL:when=%d" % (call, n))
        assert proc.returncode in (-9, 137), (what, proc.returncode, proc.stderr[-300:])
        names = sorted(os.listdir(runs_of(repo)))
        staged = [x for x in names if x.startswith(".")]
        new = [x for x in names if not x.startswith(".") and x != earlier]
        left += bool(staged)
        published += bool(new)
        # No Run is lost, and none is half-made: every run directory is a
        # Run status can read.
        doc = listing(repo)
        if sorted(r["id"] for r in doc["runs"]) != sorted([earlier] + new) or doc["unavailable_runs"]:
            wrong.append("%s: status lists %r" % (what, doc))
        # doctor names each staging directory and does not send the person
        # to remove by hand what slipway removes itself.
        rows = incomplete(repo)
        for name in staged:
            row = [c for c in rows if '"%s"' % name in c["detail"]]
            if len(row) != 1 or "the next slipway run removes it" not in row[0]["detail"] or \
                    "by hand" in row[0]["detail"]:
                wrong.append("%s: doctor says %r" % (what, rows))
        # The next `run` removes it, and every Run is still there.
        res = run(*args[:-1], "the next goal", cwd=repo)
        if res.code != 0:
            wrong.append("%s: the next run failed: %r" % (what, res.err))
            continue
        nxt = res.json_out()["run_id"]
        after = sorted(os.listdir(runs_of(repo)))
        if after != sorted([earlier, nxt] + new):
            wrong.append("%s: runs/ holds %r after the next run" % (what, after))
        doc = listing(repo)
        if sorted(r["id"] for r in doc["runs"]) != sorted([earlier, nxt] + new) or doc["unavailable_runs"]:
            wrong.append("%s: status lists %r after the next run" % (what, doc))
        if incomplete(repo):
            wrong.append("%s: doctor still reports %r" % (what, incomplete(repo)))
    assert not wrong, "\n  " + "\n  ".join(wrong)
    assert left > 5 and published > 0, (left, published)


def test_a_staging_directory_whose_owner_holds_its_lock_is_left_and_reported():
    """A staging directory locked by a live process (this test) is neither
    removed by the next run nor called abandoned by doctor; a name slipway
    never gives one is left and reported too."""
    import fcntl
    repo = scratch_repo()
    start(repo)
    held = os.path.join(runs_of(repo), ".tmp-held-0123456789abcdef")
    foreign = os.path.join(runs_of(repo), ".tmp-x")
    os.mkdir(held, 0o700)
    os.mkdir(foreign, 0o700)
    with open(os.path.join(held, "run.lock"), "w"):
        pass
    fd = os.open(held, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        rows = incomplete(repo)
        assert len(rows) == 2, rows
        for row in rows:
            assert "cannot prove that the process that made it has ended" in row["detail"], row
        assert "holds its lock" in rows[0]["detail"] and '".tmp-held-' in rows[0]["detail"], rows
        assert "not one slipway gives" in rows[1]["detail"] and '".tmp-x"' in rows[1]["detail"], rows
        assert run("run", "--json", "--", "another", cwd=repo).code == 0
        assert os.path.exists(os.path.join(held, "run.lock")) and os.path.isdir(foreign)
    finally:
        os.close(fd)
    rows = incomplete(repo)
    assert "the next slipway run removes it" in rows[0]["detail"], rows
    assert run("run", "--json", "--", "a third", cwd=repo).code == 0
    assert not os.path.exists(held) and os.path.isdir(foreign)


if __name__ == "__main__":
    main([test_a_refused_submit_leaves_the_run_directory_byte_identical_at_every_material_call,
          test_a_refused_run_leaves_runs_byte_identical_at_every_material_call,
          test_a_killed_run_loses_no_run_and_its_staging_directory_goes_with_the_next_run,
          test_a_staging_directory_whose_owner_holds_its_lock_is_left_and_reported])
