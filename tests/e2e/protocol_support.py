"""Helpers shared by the test_protocol*.py files: Outcome documents, the run
directory on disk, scope digests and one-call wrappers that validate every
printed document against the reference schema."""

import hashlib
import json
import os
import subprocess
import tempfile
import uuid

from slipway_e2e import assert_cli_error, run, scratch_repo, validate


def state_of(res, defname="protocolState"):
    """The one stdout document of a successful command, schema-checked."""
    assert res.code == 0, "exit %d: %r" % (res.code, res.err)
    assert res.err == b"", "stderr must stay empty on success: %r" % res.err
    doc = res.json_out()
    validate(doc, defname)
    return doc


def start(repo, goal="update the README", *flags):
    """`run --json` in repo; returns the protocolState."""
    return state_of(run("run", "--json", *flags, "--", goal, cwd=repo))


def write_tmp(data, suffix=".json"):
    fd, path = tempfile.mkstemp(suffix=suffix, prefix="slipway-e2e-in-")
    with os.fdopen(fd, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def outcome(action, status="completed", summary="done", suggest=None, pause=None,
            implementation=None, review=None, kind=None, action_id=None):
    """An Outcome for `action` (a dict from an Action) with every key present."""
    return {
        "contract_version": 2,
        "action_id": action_id or action["action_id"],
        "action_kind": kind or action["kind"],
        "status": status,
        "summary": summary,
        "observations": [],
        "known_issues": [],
        "suggested_actions": [] if suggest is None else [{"kind": suggest, "brief": "Do the %s step." % suggest}],
        "pause": pause,
        "implementation": implementation,
        "review": review,
    }


def encode(doc):
    return json.dumps(doc, separators=(",", ":")).encode()


def impl(result="applied", files=None):
    return {"result": result, "files_changed": files or [], "activities": [],
            "uncertainties": [], "attempts": 1}


def review_block(result="no_findings_reported", findings=None):
    return {"result": result, "findings": findings or [], "uncertainties": []}


def submit_raw(repo, st, raw, action_id=None, run_id=None):
    """protocol submit of raw bytes through --outcome-file; returns the Result."""
    path = write_tmp(raw)
    return run("protocol", "submit", "--run", run_id or st["run_id"],
               "--action", action_id or st["action"]["action_id"], "--outcome-file", path, cwd=repo)


def submit(repo, st, **kw):
    """Submit a built Outcome for the current Action; returns the new protocolState."""
    return state_of(submit_raw(repo, st, encode(outcome(st["action"], **kw))))


def variant_ids(doc):
    return [v["id"] for v in doc["next"]["variants"]]


def run_dir(repo, run_id):
    common = subprocess.run(["git", "-C", repo, "rev-parse", "--path-format=absolute", "--git-common-dir"],
                            check=True, capture_output=True).stdout.decode().strip()
    return os.path.join(common, "slipway", "runs", run_id)


def tree_digest(path):
    """{relative path: sha256 of bytes} for every file under path."""
    out = {}
    for base, _dirs, files in os.walk(path):
        for name in files:
            full = os.path.join(base, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, path)] = hashlib.sha256(f.read()).hexdigest()
    return out


def tree_bytes(path):
    """{relative path: (mode, bytes)} of every entry under path (None for a
    folder's or a link's bytes, "unreadable" for a file that cannot be
    read), to compare a run directory before and after."""
    out = {}
    for base, dirs, files in os.walk(path):
        for name in sorted(dirs + files):
            p = os.path.join(base, name)
            st = os.lstat(p)
            data = None
            if os.path.isfile(p) and not os.path.islink(p):
                try:
                    with open(p, "rb") as f:
                        data = f.read()
                except OSError:
                    data = "unreadable"
            out[os.path.relpath(p, path)] = (st.st_mode, data)
    return out


def journal_lines(repo, run_id):
    with open(os.path.join(run_dir(repo, run_id), "journal.jsonl"), "rb") as f:
        return [l for l in f.read().split(b"\n") if l]


def rejected_untouched(repo, run_id, args, code, exit_code=3, stdin=None):
    """Runs a mutation that must be rejected with `code` and checks that every
    file of the run directory kept its exact bytes. Returns the cliError."""
    before = tree_digest(run_dir(repo, run_id))
    doc = assert_cli_error(run(*args, cwd=repo, stdin=stdin), code, exit_code)
    after = tree_digest(run_dir(repo, run_id))
    assert before == after, "run directory changed by a rejected %s: %r -> %r" % (code, before, after)
    return doc


def scope_sha256(request_id, targets, impact):
    """MAP §8: plain sha256 of the canonical request JSON (keys sorted, no spaces)."""
    def j(s):
        return json.dumps(s, ensure_ascii=False)
    body = '{"impact":%s,"request_id":%s,"scope_version":1,"targets":[%s]}' % (
        j(impact), j(request_id),
        ",".join('{"kind":%s,"value":%s}' % (j(t["kind"]), j(t["value"])) for t in targets))
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()


def destructive_pause(targets, impact="delete the target permanently", question="Confirm exact target?"):
    rid = str(uuid.uuid4())
    return {"reason": "destructive_confirmation_required", "question": question,
            "destructive_request": {"request_id": rid, "targets": targets, "impact": impact,
                                    "scope_sha256": scope_sha256(rid, targets, impact)}}


def decision_pause(question="Which channel?"):
    return {"reason": "decision_required", "question": question, "destructive_request": None}


def new_repo(**kw):
    return scratch_repo(**kw)
