"""Every field of a real journal, deleted or given another type, is refused
as run_journal_invalid (exit 3, one JSON error on stderr) or read without
harm: never a crash, an exit 1 or a sanitizer report.

The journal comes from a real Run (start, an Orient that suggests
Implement, an Implement that changed a file, a decision pause and its
answer, a stop).  Each mutation works on a fresh copy of the Run
directory, and the commands that read it are `status --json`, human
`status` and `stop`."""

import copy
import json
import os
import shutil
import sys

from protocol_support import decision_pause, impl, start, state_of, submit
from slipway_e2e import main, run, scratch_repo, validate

def real_run():
    """A scratch repository holding one Run with every kind of record: a
    decision asked and answered, a suggestion, a changed file with its
    Implement report, a Review issued, then a stop."""
    repo = scratch_repo()
    st = start(repo, "a goal", "--budget", "8")
    run_id = st["run_id"]
    st = submit(repo, st, status="needs_input", pause=decision_pause())
    res = run("protocol", "answer", "--run", run_id, "--action", st["action"]["action_id"],
              "--text", "the first", cwd=repo)
    assert res.code == 0, res.err
    st = state_of(res)
    st = submit(repo, st, suggest="implement")
    with open(os.path.join(repo, "README"), "a") as f:
        f.write("more\n")
    st = submit(repo, st, implementation=impl(files=["README"]))
    assert st["action"]["kind"] == "review", st
    res = run("stop", run_id, "--json", cwd=repo)
    assert res.code == 0, res.err
    return repo, run_id


def paths(value, prefix=()):
    """Every path inside `value`, parents before children."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield prefix + (k,)
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield prefix + (i,)
            yield from paths(v, prefix + (i,))


def other_type(v):
    if isinstance(v, bool) or v is None:
        return "x"
    if isinstance(v, (int, float)):
        return "7"
    if isinstance(v, str):
        return 7
    if isinstance(v, list):
        return {}
    return []


def mutated(record, path, how):
    rec = copy.deepcopy(record)
    parent = rec
    for p in path[:-1]:
        parent = parent[p]
    if how == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = other_type(parent[path[-1]])
    return rec


def check(res, what):
    assert res.code in (0, 3), "%s: exit %d: %r" % (what, res.code, res.err[-400:])
    assert b"runtime error" not in res.err and b"AddressSanitizer" not in res.err, \
        "%s: sanitizer report: %r" % (what, res.err[-400:])
    if res.code == 3:
        doc = res.json_err()
        validate(doc, "cliError")
        return doc["code"]
    return None


def test_every_field_of_a_real_journal_is_refused_or_harmless():
    repo, run_id = real_run()
    rundir = os.path.join(repo, ".git", "slipway", "runs", run_id)
    saved = rundir + ".saved"
    shutil.copytree(rundir, saved)
    with open(os.path.join(saved, "journal.jsonl"), encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    assert len(records) >= 5, len(records)
    refused = tried = 0
    for n, record in enumerate(records):
        for path in paths(record):
            for how in ("delete", "retype"):
                if how == "delete" and isinstance(path[-1], int):
                    continue  # an array element: its siblings shift, covered by retype
                lines = [json.dumps(r, separators=(",", ":")) for r in records]
                lines[n] = json.dumps(mutated(record, path, how), separators=(",", ":"))
                shutil.rmtree(rundir)
                shutil.copytree(saved, rundir)
                with open(os.path.join(rundir, "journal.jsonl"), "w", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
                what = "record %d %s %s" % (n, how, "/".join(map(str, path)))
                codes = {check(run("status", run_id, "--json", cwd=repo), what + " status --json")}
                if tried % 7 == 0:
                    codes.add(check(run("status", run_id, cwd=repo), what + " status"))
                codes.add(check(run("stop", run_id, "--json", cwd=repo), what + " stop"))
                tried += 1
                if "run_journal_invalid" in codes:
                    refused += 1
    # The identity, the state and the Outcomes are read by every command.
    assert refused > tried // 2, (refused, tried)
    print("journal fields: %d mutations, %d refused as run_journal_invalid" % (tried, refused))


if __name__ == "__main__":
    main([test_every_field_of_a_real_journal_is_refused_or_harmless])
    sys.exit(0)
