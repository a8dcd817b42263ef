"""Durability, read from the system calls a mutation makes (strace): each
material the journal record names is written to a temporary file, that
file fsynced, renamed into materials/ and the directory fsynced, all before
the journal append; the append is fsynced before the reply is written; a
new Run's directory entries (the journal's directory, runs/ once the Run is
published) are fsynced before the reply too.  A missing or reordered fsync
fails here: the order checker is also tried on the traced sequence with
one fsync dropped or moved, and must object."""

import json
import os
import re
import shutil
import subprocess
import tempfile

from protocol_support import encode, impl, new_repo, outcome, run_dir, write_tmp
from slipway_e2e import BIN, main, skip_test, validate

CALLS = ["openat", "write", "writev", "pwrite64", "pwritev", "fsync", "fdatasync",
         "rename", "renameat", "renameat2", "linkat", "mkdirat", "unlinkat"]
WRITES = ("write", "writev", "pwrite64", "pwritev")
SYNCS = ("fsync", "fdatasync")
LINE = re.compile(r"^(?:\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+)")
FD = re.compile(r"^(\d+)<([^>]*)>")
RENAME = re.compile(r'^\d+<([^>]*)>, "([^"]*)", \d+<([^>]*)>, "([^"]*)"')


def parse(text):
    """[(call, path, extra)]: `path` is the file or directory the call acts
    on (the fd's path), for a rename (old path, new path); failed calls and
    other lines are left out.  A linkat is a rename too ("rename-linkat"):
    the POSIX side of the OS seam (make PORTABLE=1, io/util/os_posix.c)
    renames a file without replacing by linkat then unlinkat, and the new
    name is in place from the link on."""
    events = []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m or int(m.group(3)) < 0:
            continue
        call, args = m.group(1), m.group(2)
        if call.startswith("rename") or call == "linkat":
            r = RENAME.match(args)
            if r:
                name = "rename-linkat" if call == "linkat" else call
                events.append((name, os.path.join(r.group(1), r.group(2)), os.path.join(r.group(3), r.group(4))))
            continue
        f = FD.match(args)
        if f:
            events.append((call, f.group(2), int(f.group(1))))
    return events


def traced(args, cwd, stdin=None):
    """Runs slipway under strace: (exit status, stdout, stderr, events)."""
    strace = shutil.which("strace")
    if strace is None:
        skip_test("strace is not installed (make deps installs it)")
    fd, log = tempfile.mkstemp(prefix="slipway-strace-")
    os.close(fd)
    # LeakSanitizer cannot run under ptrace; everything else stays on.
    env = dict(os.environ, ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"),
                                                                "detect_leaks=0"])))
    proc = subprocess.run([strace, "-f", "-qq", "-y", "-s", "300", "-o", log, "-e", "trace=" + ",".join(CALLS),
                           BIN] + list(args), cwd=cwd, input=stdin, capture_output=True, env=env, timeout=120)
    with open(log, encoding="utf-8", errors="replace") as f:
        text = f.read()
    os.unlink(log)
    if proc.returncode != 0 and not text and b"ptrace" in proc.stderr:
        skip_test("strace cannot trace here: %s" % proc.stderr.decode(errors="replace").strip()[:200])
    return proc.returncode, proc.stdout, proc.stderr, parse(text)


def first(events, pred, after=-1):
    """Index of the first event after `after` that satisfies pred, or None."""
    for i in range(after + 1, len(events)):
        if pred(events[i]):
            return i
    return None


def check_order(events, create=False):
    """The durability order of one mutation's events; returns what is wrong
    (an empty list when nothing is) and the materials it wrote."""
    wrong = []
    journal = [i for i, e in enumerate(events) if e[0] in WRITES and e[1].endswith("/journal.jsonl")]
    if len(journal) != 1:
        return ["%d journal writes, want 1" % len(journal)], []
    jw = journal[0]
    jpath = events[jw][1]
    js = first(events, lambda e: e[0] in SYNCS and e[1] == jpath, jw)
    reply = first(events, lambda e: e[0] in WRITES and e[2] == 1)
    if js is None:
        wrong.append("the journal append is never fsynced")
    if reply is None:
        wrong.append("no reply was written")
    elif js is not None and reply < js:
        wrong.append("the reply is written before the journal is fsynced")
    if any(e[0] in WRITES and e[1] == jpath for e in events[jw + 1:]):
        wrong.append("the journal is written again after its append")
    materials = []
    for r, e in enumerate(events):
        if not (e[0].startswith("rename") and os.path.basename(os.path.dirname(e[2])) == "materials"):
            continue
        tmp, blob = e[1], e[2]
        materials.append(os.path.basename(blob))
        writes = [i for i in range(r) if events[i][0] in WRITES and events[i][1] == tmp]
        sync = first(events, lambda x: x[0] in SYNCS and x[1] == tmp, writes[-1] if writes else -1)
        dsync = first(events, lambda x: x[0] in SYNCS and x[1] == os.path.dirname(blob), r)
        name = os.path.basename(blob)[:12]
        if not writes:
            wrong.append("material %s was never written" % name)
        if sync is None or sync > r:
            wrong.append("material %s is not fsynced before its rename" % name)
        if sync is not None and sync > jw:
            wrong.append("material %s is fsynced after the journal append" % name)
        if dsync is None or dsync > jw:
            wrong.append("materials/ is not fsynced after material %s is renamed and before the journal "
                          "append" % name)
    if create:
        rundir = os.path.dirname(jpath)
        publish = first(events, lambda e: e[0].startswith("rename") and e[1] == rundir)
        dsync = first(events, lambda e: e[0] in SYNCS and e[1] == rundir, js if js is not None else jw)
        if publish is None:
            wrong.append("the new Run's directory is never published")
        else:
            runs = os.path.dirname(events[publish][2])
            rsync = first(events, lambda e: e[0] in SYNCS and e[1] == runs, publish)
            if dsync is None or dsync > publish:
                wrong.append("the new journal's directory is not fsynced before the Run is published")
            if rsync is None or (reply is not None and rsync > reply):
                wrong.append("runs/ is not fsynced after the Run is published and before the reply")
    return wrong, materials


def named_materials(repo, rid):
    """The material names (hex digests) the journal's last record names."""
    with open(os.path.join(run_dir(repo, rid), "journal.jsonl"), "rb") as f:
        last = f.read().rstrip(b"\n").split(b"\n")[-1].decode()
    return set(re.findall(r"sha256:([0-9a-f]{64})", last))


def assert_durable(events, repo, rid, create=False):
    wrong, written = check_order(events, create)
    assert not wrong, wrong
    assert written, "the mutation wrote no material: nothing was checked"
    named = named_materials(repo, rid)
    assert set(written) <= named, ("written but not named by the journal record", set(written) - named)
    mdir = os.path.join(run_dir(repo, rid), "materials")
    for name in named & set(os.listdir(mdir)):
        assert os.path.isfile(os.path.join(mdir, name)), name
    return written


def test_run_start_makes_its_materials_and_journal_durable_before_it_answers():
    repo = new_repo()
    code, out, err, events = traced(["run", "--json", "--", "a durable goal"], repo)
    assert code == 0, err
    st = json.loads(out)
    validate(st, "protocolState")
    assert_durable(events, repo, st["run_id"], create=True)


def _submit(repo, st, **kw):
    path = write_tmp(encode(outcome(st["action"], **kw)))
    code, out, err, events = traced(["protocol", "submit", "--run", st["run_id"], "--action",
                                     st["action"]["action_id"], "--outcome-file", path], repo)
    assert code == 0, err
    doc = json.loads(out)
    validate(doc, "protocolState")
    return doc, events


def test_submit_makes_its_materials_and_journal_durable_before_it_answers():
    repo = new_repo()
    code, out, err, _ = traced(["run", "--json", "--", "a durable goal"], repo)
    assert code == 0, err
    st = json.loads(out)
    for kw in (dict(suggest="implement"), dict(summary="nothing to change", implementation=impl("not_needed"))):
        st, events = _submit(repo, st, **kw)
        assert_durable(events, repo, st["run_id"])
    assert st["action"]["kind"] == "summarize", st


def test_the_order_checker_objects_to_a_dropped_or_moved_fsync():
    """The checker itself, on a real traced submit with one fsync taken out
    or moved after the journal append: each must be found."""
    repo = new_repo()
    code, out, err, _ = traced(["run", "--json", "--", "a durable goal"], repo)
    st = json.loads(out)
    _, events = _submit(repo, st, suggest="implement")
    assert check_order(events)[0] == []
    jw = [i for i, e in enumerate(events) if e[0] in WRITES and e[1].endswith("/journal.jsonl")][0]
    syncs = [i for i, e in enumerate(events) if e[0] in SYNCS]
    journal_sync = [i for i in syncs if events[i][1].endswith("/journal.jsonl")]
    blob_syncs = [i for i in syncs if "/materials/.tmp-" in events[i][1]]
    dir_syncs = [i for i in syncs if events[i][1].endswith("/materials") and i < jw]
    assert journal_sync and blob_syncs and dir_syncs, events
    cases = [("no journal fsync", [e for i, e in enumerate(events) if i != journal_sync[0]])]
    for what, i in (("material fsync", blob_syncs[0]), ("materials/ fsync", dir_syncs[-1])):
        cases.append(("no " + what, [e for k, e in enumerate(events) if k not in (i,)]))
        moved = events[:i] + events[i + 1:jw + 1] + [events[i]] + events[jw + 1:]
        cases.append((what + " after the journal append", moved))
    for what, seq in cases:
        assert check_order(seq)[0], "the checker missed: " + what


if __name__ == "__main__":
    main([test_run_start_makes_its_materials_and_journal_durable_before_it_answers,
          test_submit_makes_its_materials_and_journal_durable_before_it_answers,
          test_the_order_checker_objects_to_a_dropped_or_moved_fsync])
