"""Edges the system hands slipway: file names and repository paths that are
not UTF-8, a file-size limit (RLIMIT_FSIZE, SIGXFSZ), a HOME the user
cannot read, and status --section without a Run id."""

import hashlib
import json
import os
import resource
import shutil
import subprocess
import tempfile

from protocol_support import (encode, impl, outcome, review_block, run_dir, start, state_of,
                              submit, tree_digest, write_tmp)
from slipway_e2e import BIN, assert_cli_error, main, run, scratch_repo, validate
from test_mcp import init, msg

# Names of every kind of byte sequence that is not UTF-8.
NAMES = [b"caf\xe9",             # Latin-1
         b"\xc0\xafslash",       # overlong "/"
         b"s\xed\xa0\x80",       # a UTF-16 surrogate
         b"t\xe2\x82x",          # a truncated sequence
         b"big\xf4\x90\x80\x80"]  # past U+10FFFF


def go_lossy(b):
    """What Go's decoder reads back from its encoder's output for bytes
    `b`: each byte that starts no valid UTF-8 sequence is one U+FFFD (not
    one per maximal invalid run, as Python's "replace" does)."""
    out, i = [], 0
    while i < len(b):
        for n in (1, 2, 3, 4):
            try:
                ch = b[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                out.append(ch)
                i += n
                break
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


def git_out(repo, *args):
    return subprocess.run(["git", "-C", repo, "-c", "core.fsmonitor=false"] + list(args),
                          check=True, capture_output=True).stdout


def digest(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def status_doc(repo, rid):
    res = run("status", rid, "--json", cwd=repo)
    assert res.code == 0, res.err
    return res.json_out()


# ---- file names that are not UTF-8 ----

def test_names_that_are_not_utf8_are_observed_as_git_prints_them():
    repo = scratch_repo()
    brepo = repo.encode()
    with open(os.path.join(brepo, b"tr\xe9s"), "wb") as f:
        f.write(b"1")
    subprocess.run([b"git", b"-C", brepo, b"add", b"tr\xe9s"], check=True)
    subprocess.run(["git", "-C", repo, "commit", "-qm", "tracked"], check=True)
    with open(os.path.join(brepo, b"tr\xe9s"), "wb") as f:
        f.write(b"11")
    for i, name in enumerate(NAMES):
        with open(os.path.join(brepo, name), "wb") as f:
            f.write(b"content %d" % i)
    st = start(repo, "work beside odd names")
    rid = st["run_id"]
    doc = status_doc(repo, rid)
    validate(doc, "runStatus")
    g = doc["initial_git"]
    # The fingerprints are the digests of git's own bytes.
    assert g["status_fingerprint"] == digest(git_out(repo, "status", "--porcelain=v2", "-z",
                                                     "--untracked-files=all")), g
    assert g["index_fingerprint"] == digest(git_out(repo, "ls-files", "--stage", "-z")), g
    # Each path is recorded as Go reads it back, in the order of its bytes.
    raw_paths = sorted(NAMES + [b"tr\xe9s"])
    assert g["dirty_files"] == [go_lossy(p) for p in raw_paths], g["dirty_files"]
    assert g["path_count"] == len(raw_paths) and g["content_observation_complete"] is True
    by_content = {o["content_sha256"] for o in g["path_observations"]}
    for i, name in enumerate(NAMES):
        assert digest(b"content %d" % i) in by_content, name
    assert digest(b"11") in by_content
    # Every file slipway wrote is UTF-8 JSON.
    for base, _dirs, files in os.walk(run_dir(repo, rid)):
        for name in files:
            data = open(os.path.join(base, name), "rb").read()
            data.decode("utf-8")
    # The Run goes on to its end; its report names the paths as recorded.
    st = submit(repo, st, summary="oriented", suggest="implement")
    with open(os.path.join(brepo, b"caf\xe9"), "wb") as f:
        f.write(b"changed")
    st = submit(repo, st, summary="changed caf", implementation=impl("applied", ["README"]))
    assert st["action"]["kind"] == "review", st["action"]["kind"]
    assert "caf\ufffd [untracked ??]" in st["action"]["brief"], st["action"]["brief"]
    st = submit(repo, st, summary="fine", review=review_block())
    st = submit(repo, st, summary="done")
    assert st["state"] == "ended", st
    assert "  - t\ufffd\ufffdx (untracked ??)" in st["summary"], st["summary"]
    assert status_doc(repo, rid)["state"] == "ended"


def test_names_that_read_the_same_end_the_details_and_stay_unique():
    repo = scratch_repo()
    for name in (b"caf\xe8", b"caf\xe9", b"caf\xef\xbf\xbd"):
        with open(os.path.join(repo.encode(), name), "wb") as f:
            f.write(name)
    st = start(repo)
    g = status_doc(repo, st["run_id"])["initial_git"]
    assert g["path_count"] == 3 and g["details_truncated"] is True, g
    assert g["dirty_files"] == ["caf\ufffd"], g
    assert g["status_fingerprint"] == digest(git_out(repo, "status", "--porcelain=v2", "-z",
                                                     "--untracked-files=all")), g


def test_a_name_that_is_not_utf8_does_not_pause_an_active_run():
    repo = scratch_repo()
    st = start(repo)
    with open(os.path.join(repo.encode(), b"caf\xe9"), "wb") as f:
        f.write(b"x")
    st = submit(repo, st, summary="oriented", suggest="implement")
    assert st["state"] == "active" and "pause_reason" not in st, st
    assert st["action"]["kind"] == "review", "Git changed since the Run started"
    cur = status_doc(repo, st["run_id"])["current_git"]
    assert cur["dirty_files"] == ["caf\ufffd"], cur


# ---- a repository path that is not UTF-8 ----

def test_a_repository_whose_path_is_not_utf8_is_refused_with_its_cause():
    parent = tempfile.mkdtemp(prefix="slipway-e2e-")
    repo = os.path.join(parent.encode(), b"re\xe9po")
    os.mkdir(repo)
    subprocess.run([b"git", b"init", b"-q", repo], check=True)
    for args in (["doctor", "--json"], ["doctor"], ["list", "--json"], ["status", "--json"],
                 ["run", "--json", "--", "goal"], ["install", "--tool", "claude", "--json"]):
        res = run(*args, cwd=repo)
        doc = assert_cli_error(res, "git_repository_required", 2)
        assert "not a valid UTF-8 path" in doc["message"], doc
        # The path is named as Go's encoder writes bytes that are not UTF-8.
        assert b"re\\ufffdpo" in res.err, res.err
    assert not os.path.exists(os.path.join(repo, b".git", b"slipway")), "nothing was written"
    shutil.rmtree(parent)


# ---- the file-size limit ----

def limited(limit, *args, cwd=None, stdin=None):
    """Runs the binary with RLIMIT_FSIZE at `limit` bytes: a write past it
    raises SIGXFSZ, whose default action kills the process."""
    def lower():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run([BIN] + list(args), cwd=cwd, input=stdin, capture_output=True,
                          timeout=60, preexec_fn=lower)


def failed_write(proc, what):
    assert proc.returncode == 3, (what, proc.returncode, proc.stderr)
    assert proc.stdout == b"", what
    doc = json.loads(proc.stderr)
    validate(doc, "cliError")
    assert doc["code"] == "mutation_not_committed", (what, doc)
    assert "File too large" in doc["message"], (what, doc)
    return doc


def runs_entries(repo):
    d = os.path.join(repo, ".git", "slipway", "runs")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def test_a_file_size_limit_fails_the_write_and_leaves_the_run_as_it_was():
    repo = scratch_repo()
    # A Run that cannot be created leaves nothing.
    for limit in (0, 1024, 2048):
        failed_write(limited(limit, "run", "--json", "--", "goal", cwd=repo), limit)
        assert runs_entries(repo) == [], (limit, runs_entries(repo))
    # A Run whose journal outgrew its projection: the limit falls on the
    # projection, then on the journal append, at every byte up to success.
    st = start(repo, "goal", "--budget", "100")
    for i in range(12):
        st = submit(repo, st, summary="step %d" % i, suggest="clarify")
    rid = st["run_id"]
    d = run_dir(repo, rid)
    journal = os.path.getsize(os.path.join(d, "journal.jsonl"))
    path = write_tmp(encode(outcome(st["action"], summary="more", suggest="clarify")))
    phases = set()
    for limit in list(range(0, journal - 4096, 1021)) + list(range(journal - 4096, journal + 8192, 8)):
        before = tree_digest(d)
        proc = limited(limit, "protocol", "submit", "--run", rid, "--action",
                       st["action"]["action_id"], "--outcome-file", path, cwd=repo)
        if proc.returncode == 0:
            break
        phases.add(failed_write(proc, limit)["details"]["phase"])
        assert tree_digest(d) == before, "limit %d changed the run directory" % limit
    else:
        raise AssertionError("no limit let the submit through")
    assert limit > journal, (limit, journal)
    assert phases == {"projection_write", "journal_write"}, phases
    assert status_doc(repo, rid)["current_action"]["kind"] == "clarify"


def test_the_mcp_server_under_a_file_size_limit_keeps_serving():
    repo = scratch_repo()
    call = msg(id=1, method="tools/call", params={"name": "run", "arguments": {"goal": "g"}})
    def lower():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
    proc = subprocess.run([BIN, "mcp", "--root", repo], input=init() + call + msg(id=2, method="ping"),
                          capture_output=True, timeout=60, cwd=repo, preexec_fn=lower)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    replies = [json.loads(l) for l in proc.stdout.decode().splitlines()]
    assert [r["id"] for r in replies] == [0, 1, 2], replies
    res = replies[1]["result"]
    assert res["isError"] is True and res["structuredContent"]["code"] == "mutation_not_committed", res
    assert replies[2]["result"] == {}
    assert runs_entries(repo) == []


# ---- a HOME the user cannot read ----

def as_user_with_unreadable_home():
    """(argv prefix, env, home) that run the binary with a HOME whose Git
    configuration cannot be read, as `sudo -u someone` without -H does; or
    None when this machine cannot build that (root without setpriv)."""
    home = tempfile.mkdtemp(prefix="slipway-e2e-home-")
    if os.geteuid() != 0:
        os.chmod(home, 0)
        return [BIN], dict(os.environ, HOME=home), home
    if not os.path.exists("/usr/bin/setpriv"):
        return None
    # root's own mkdtemp directory (0700) is closed to nobody.
    return (["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", BIN],
            dict(os.environ, HOME=home), home)


def test_an_unreadable_home_leaves_its_configuration_out_with_a_warning():
    how = as_user_with_unreadable_home()
    if how is None:
        print("SKIP test_an_unreadable_home_leaves_its_configuration_out_with_a_warning: "
              "running as root without /usr/bin/setpriv, no other user to run as")
        return
    prefix, env, home = how
    repo = scratch_repo()
    if os.geteuid() == 0:
        subprocess.run(["chmod", "755", repo], check=True)
        subprocess.run(["chown", "-R", "nobody", repo], check=True)

    def slipway(*args, stdin=None):
        return subprocess.run(prefix + list(args), cwd=repo, input=stdin, capture_output=True,
                              env=env, timeout=60)
    warning = ("warning: cannot read the Git configuration '%s/.gitconfig' (Permission denied)"
               % home).encode()
    # JSON documents are untouched and stderr stays empty.
    res = slipway("run", "--json", "--", "goal")
    assert res.returncode == 0 and res.stderr == b"", (res.returncode, res.stderr)
    rid = json.loads(res.stdout)["run_id"]
    res = slipway("status", "--json")
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    assert [r["id"] for r in json.loads(res.stdout)["runs"]] == [rid]
    res = slipway("doctor", "--json")
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    assert json.loads(res.stdout)["checks"][0]["code"] == "repository_ok"
    # Human output says what was left out, once per file, after the output.
    res = slipway("status")
    assert res.returncode == 0, res.stderr
    assert rid.encode() in res.stdout
    assert res.stderr.count(warning) == 1, res.stderr
    assert all(l.startswith(b"warning: ") for l in res.stderr.splitlines()), res.stderr
    # An error stays one cliError.
    res = slipway("status", "nosuch")
    assert res.returncode == 3 and json.loads(res.stderr)["code"] == "run_not_found", res.stderr
    # The MCP server logs it.
    res = slipway("mcp", stdin=init() + msg(id=1, method="tools/call",
                                            params={"name": "status", "arguments": {}}))
    replies = [json.loads(l) for l in res.stdout.splitlines()]
    assert replies[1]["result"]["isError"] is False, replies[1]
    assert b"slipway mcp: " + warning in res.stderr, res.stderr
    os.chmod(home, 0o700)


# ---- status --section without a Run id ----

def test_status_section_without_a_run_id_offers_inspect_runs():
    repo = scratch_repo()
    sub = os.path.join(repo, "sub")
    os.mkdir(sub)
    for args, cwd in ((["status", "--section", "outcome"], repo),
                      (["status", "--section", "outcome", "--json"], sub),
                      (["status", "--section", ""], sub),
                      (["status", "--section", "k", "--root", sub], "/")):
        err = assert_cli_error(run(*args, cwd=cwd), "run_id_required", 2)
        assert err["message"] == "reading a pinned section requires one run id", err
        assert err["next"]["operation"] == "command", err
        assert err["next"]["variants"] == [{"id": "inspect-runs", "inputs": [],
                                            "base_argv": ["slipway", "status", "--root", repo]}], err
        listing = run(*err["next"]["variants"][0]["base_argv"][1:], "--json", cwd="/")
        assert listing.code == 0 and listing.json_out()["runs"] == []


if __name__ == "__main__":
    main([test_names_that_are_not_utf8_are_observed_as_git_prints_them,
          test_names_that_read_the_same_end_the_details_and_stay_unique,
          test_a_name_that_is_not_utf8_does_not_pause_an_active_run,
          test_a_repository_whose_path_is_not_utf8_is_refused_with_its_cause,
          test_a_file_size_limit_fails_the_write_and_leaves_the_run_as_it_was,
          test_the_mcp_server_under_a_file_size_limit_keeps_serving,
          test_an_unreadable_home_leaves_its_configuration_out_with_a_warning,
          test_status_section_without_a_run_id_offers_inspect_runs])
