"""Wire details checked against the reference's observable behaviour: the
resume next of a Run that cannot resume, tolerant envelope decoding, the exact
JSON bytes on stdout and in the journal, and the run lock's mode."""

import hashlib
import json
import os
import stat
import subprocess

from slipway_e2e import assert_cli_error, main, run, scratch_repo, validate
from test_issue_backed import (fixture, invalid_candidate_run, observations, refresh,
                               resume, runs_dir, start, stopped_run, write_env)


def start_raw(repo, env):
    return run("run", "--source-file", write_env(env), "--json", "--", "ship the change",
               cwd=repo)


def skip_current(repo, st):
    var = next(v for v in st["next"]["variants"] if v["id"] == "skip-action")
    res = run(*var["base_argv"][1:], cwd=repo)
    assert res.code == 0, res.err
    return res.json_out()


def test_a_choice_conflict_on_an_ended_run_offers_no_resume():
    repo = scratch_repo()
    doc, st = invalid_candidate_run(repo)
    rid, cid = doc["run_id"], st["source_candidate"]["candidate_id"]
    st = resume(repo, rid, "--source-choice", "pinned", "--candidate", cid).json_out()
    while st["state"] != "ended":
        st = skip_current(repo, st)
    err = assert_cli_error(resume(repo, rid, "--source-choice", "adopt", "--candidate", cid),
                           "source_choice_conflict", 3)
    assert err["next"]["operation"] == "none" and err["next"]["variants"] == [], err["next"]


def test_errors_while_a_candidate_waits_offer_the_candidate_choices():
    repo = scratch_repo()
    doc, st = invalid_candidate_run(repo)
    rid = doc["run_id"]
    for res in (resume(repo, rid, "--use-pinned-source"), resume(repo, rid)):
        err = res.json_err()
        assert err["code"] in ("source_candidate_pending", "source_choice_required"), err
        assert err["next"] == st["next"], err["next"]


def test_a_refresh_without_body_pauses_on_a_change_marker_candidate():
    repo = scratch_repo()
    doc = stopped_run(repo)
    env = fixture()
    del env["body"]
    res = refresh(repo, doc["run_id"], env)
    assert res.code == 0, res.err
    st = res.json_out()
    validate(st, "protocolState")
    assert st["state"] == "paused" and st["pause_reason"] == "decision_required"
    assert st["resume_operation"] == "source_candidate_created"
    cand = st["source_candidate"]
    assert cand["valid"] is False and cand["classification_code"] == "change_marker_required"


def test_absent_envelope_members_are_validated_as_zero_values():
    repo = scratch_repo()
    env = fixture()
    for c in env["comments"]:
        del c["is_minimized"]
    doc = start(repo, env)
    assert doc["state"] == "active"
    for key in ("title", "labels", "comments", "issue_number"):
        env = fixture()
        del env[key]
        err = assert_cli_error(start_raw(repo, env), "invalid_source", 2)
        assert err["message"].find("validate source") >= 0, err
    env = fixture()
    env["body"] = None
    err = assert_cli_error(start_raw(repo, env), "invalid_source", 2)
    assert "validate source" not in err["message"], err
    env = fixture()
    env["Body"] = env.pop("body")
    assert_cli_error(start_raw(repo, env), "invalid_source", 2)


INCOMPLETE = "git_content_observation_incomplete:"


def start_adhoc(repo):
    res = run("run", "--json", "--", "look around", cwd=repo)
    assert res.code == 0, res.err
    return observations(repo, res.json_out()["run_id"])


def test_an_incomplete_start_observation_is_recorded_at_start():
    repo = scratch_repo()
    full = start_adhoc(repo)
    assert full["initial_git"]["content_observation_complete"] is True
    assert not [u for u in full.get("uncertainties", []) if u.startswith(INCOMPLETE)]
    # Over the 64 MiB content budget: sparse files cost no disk.
    repo = scratch_repo()
    for i in range(5):
        with open(os.path.join(repo, "big%d.bin" % i), "wb") as f:
            f.truncate(14 * 1024 * 1024)
    full = start_adhoc(repo)
    assert full["initial_git"]["content_byte_limit_exceeded"] is True
    assert full["initial_git"]["content_observation_complete"] is False
    assert len([u for u in full.get("uncertainties", []) if u.startswith(INCOMPLETE)]) == 1, \
        full.get("uncertainties", [])
    # A deleted tracked file cannot be fingerprinted either.
    repo = scratch_repo()
    os.unlink(os.path.join(repo, "README"))
    full = start_adhoc(repo)
    assert full["initial_git"]["content_observation_complete"] is False
    assert [u for u in full.get("uncertainties", []) if u.startswith(INCOMPLETE)], full.get("uncertainties", [])


def go_string(s, html):
    """A JSON string as Go's encoding/json writes it."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif o < 0x20 or o in (0x2028, 0x2029) or (html and ch in "<>&"):
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return "".join(out) + '"'


def go_json(v, html=False):
    """Compact JSON, keys in document order, escaped as Go's encoder does."""
    if isinstance(v, dict):
        return "{" + ",".join(go_string(k, html) + ":" + go_json(x, html)
                              for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(go_json(x, html) for x in v) + "]"
    if isinstance(v, str):
        return go_string(v, html)
    return json.dumps(v)


def assert_go_bytes(raw, html=False):
    doc = json.loads(raw.decode())
    assert raw.decode() == go_json(doc, html) + "\n", raw
    return doc


GOAL = "ship <b>&</b> \u2028 and \u2029 \u20ac\t"


def test_printed_documents_are_the_reference_encoders_bytes():
    repo = scratch_repo()
    res = run("run", "--json", "--", GOAL, cwd=repo)
    assert res.code == 0, res.err
    assert b"\\u2028" in res.out and b"\\u2029" in res.out and b"<b>&</b>" in res.out
    doc = assert_go_bytes(res.out)
    rid = doc["run_id"]
    # status goes through json.Marshal upstream: HTML escaped as well.
    res = run("status", rid, "--json", cwd=repo)
    assert res.code == 0, res.err
    assert b"\\u003cb\\u003e\\u0026" in res.out
    assert assert_go_bytes(res.out, html=True)["goal"] == GOAL
    # In the list only the run entries are; unavailable_runs is not.
    os.makedirs(os.path.join(runs_dir(repo), "broken<&>"))
    os.makedirs(os.path.join(runs_dir(repo), "junk"))
    with open(os.path.join(runs_dir(repo), "junk", "journal.jsonl"), "w") as f:
        f.write("not json <&>\n")
    res = run("status", "--json", cwd=repo)
    assert res.code == 0, res.err
    listing = json.loads(res.out.decode())
    expect = ('{"contract_version":2,"runs":[' +
              ",".join(go_json(r, True) for r in listing["runs"]) +
              '],"unavailable_runs":' + go_json(listing["unavailable_runs"]) + "}\n")
    assert res.out.decode() == expect
    assert [r["goal"] for r in listing["runs"]] == [GOAL]
    # Errors on stderr, and the other documents, with HTML left alone.
    res = run("stop", rid, "--json", cwd=repo)
    assert_go_bytes(res.out)
    res = run("protocol", "resume", rid, "--root", repo, "--budget", "0", cwd=repo)
    assert res.code == 2, res.err
    assert_go_bytes(res.err)
    res = run("list", "--json", cwd=repo)
    assert_go_bytes(res.out)


def test_a_foreign_run_stub_is_printed_with_sorted_keys():
    repo = scratch_repo()
    other = repo + "-wt"
    subprocess.run(["git", "-C", repo, "worktree", "add", "-q", other], check=True)
    res = run("run", "--json", "--", GOAL, cwd=other)
    assert res.code == 0, res.err
    res = run("status", "--json", cwd=repo)
    assert res.code == 0, res.err
    stub = json.loads(res.out.decode())["runs"][0]
    assert stub["workspace_foreign"] is True
    assert list(stub) == sorted(stub), list(stub)
    assert go_json(stub, True) in res.out.decode()


def big_outcome(action, ch="\u2028"):
    """An Orient Outcome of just under 1 MiB whose one observation is `ch`
    repeated (raw UTF-8 in the file)."""
    doc = {"contract_version": 2, "action_id": action["action_id"], "action_kind": "orient",
           "status": "completed", "summary": "looked", "observations": [""],
           "known_issues": [], "suggested_actions": [], "pause": None,
           "implementation": None, "review": None}
    room = 1048576 - len(json.dumps(doc, ensure_ascii=False).encode())
    doc["observations"][0] = ch * (room // len(ch.encode()))
    raw = json.dumps(doc, ensure_ascii=False).encode()
    assert len(raw) <= 1048576
    return raw


def submit_stdin(repo, doc, raw):
    a = doc["action"]
    return run("protocol", "submit", "--run", doc["run_id"], "--action", a["action_id"],
               "--root", repo, "--outcome-stdin", cwd=repo, stdin=raw)


def test_the_journal_record_is_sized_as_the_reference_encodes_it():
    repo = scratch_repo()
    res = run("run", "--json", "--", "look", cwd=repo)
    doc = res.json_out()
    jpath = os.path.join(runs_dir(repo), doc["run_id"], "journal.jsonl")
    before = open(jpath, "rb").read()
    # Raw, the record would fit; encoded as \u2028 (six bytes each) it does not.
    err = assert_cli_error(submit_stdin(repo, doc, big_outcome(doc["action"])),
                           "journal_record_too_large", 3)
    d = err["details"]
    assert d["context"] == "event payload" and d["limit"] == 4128768 and d["size"] > d["limit"], d
    assert open(jpath, "rb").read() == before
    # The same size in a character that needs no escape is accepted.
    res = submit_stdin(repo, doc, big_outcome(doc["action"], "\u20ac"))
    assert res.code == 0, res.err[:300]
    assert open(jpath, "rb").read() != before


def test_journals_written_with_raw_line_separators_still_load():
    """Earlier versions wrote U+2028/U+2029 raw in journal data; such a
    journal replays to the same Run and later records are escaped."""
    repo = scratch_repo()
    res = run("run", "--json", "--", GOAL, cwd=repo)
    doc = res.json_out()
    rid = doc["run_id"]
    jpath = os.path.join(runs_dir(repo), rid, "journal.jsonl")
    new = open(jpath, "rb").read()
    assert b"\\u2028" in new and "\u2028".encode() not in new
    old = new.replace(b"\\u2028", "\u2028".encode()).replace(b"\\u2029", "\u2029".encode())
    with open(jpath, "wb") as f:
        f.write(old)
    full = observations(repo, rid)
    assert full["goal"] == GOAL
    res = run("stop", rid, "--json", cwd=repo)
    assert res.code == 0, res.err
    after = open(jpath, "rb").read()
    assert after.startswith(old) and len(after) > len(old)
    assert observations(repo, rid)["state"] == "stopped"


def git_out(repo, *args):
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    return subprocess.run(["git", "-c", "core.fsmonitor=false", "-C", repo] + list(args),
                          check=True, capture_output=True, env=env).stdout


def test_a_dirty_submodule_is_fingerprinted_as_git_prints_it():
    up, repo = scratch_repo(), scratch_repo()
    git_out(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "sub")
    git_out(repo, "commit", "-qm", "sub")
    with open(os.path.join(repo, "sub", "README"), "a") as f:
        f.write("more\n")
    with open(os.path.join(repo, "sub", "new"), "w") as f:
        f.write("new\n")
    res = run("run", "--json", "--", "look", cwd=repo)
    assert res.code == 0, res.err
    g = observations(repo, res.json_out()["run_id"])["initial_git"]
    raw = git_out(repo, "status", "--porcelain=v2", "-z", "--untracked-files=all")
    assert b" S.MU " in raw, raw
    assert g["status_fingerprint"] == "sha256:" + hashlib.sha256(raw).hexdigest(), raw


TESTS = [
    test_a_dirty_submodule_is_fingerprinted_as_git_prints_it,
    test_journals_written_with_raw_line_separators_still_load,
    test_the_journal_record_is_sized_as_the_reference_encodes_it,
    test_printed_documents_are_the_reference_encoders_bytes,
    test_a_foreign_run_stub_is_printed_with_sorted_keys,
    test_an_incomplete_start_observation_is_recorded_at_start,
    test_a_refresh_without_body_pauses_on_a_change_marker_candidate,
    test_absent_envelope_members_are_validated_as_zero_values,
    test_a_choice_conflict_on_an_ended_run_offers_no_resume,
    test_errors_while_a_candidate_waits_offer_the_candidate_choices,
]

if __name__ == "__main__":
    main(TESTS)
