"""status (list, targeted, human, corrupt, foreign worktree) and the human
output of run/stop, whose printed commands must run when pasted into sh."""

import json
import os
import re
import subprocess
import tempfile
import uuid

from protocol_support import (decision_pause, destructive_pause, encode, new_repo, outcome, run_dir, start,
                              state_of, submit, tree_digest, write_tmp)
from slipway_e2e import BIN, assert_cli_error, main, run, validate


def test_status_lists_two_runs_sorted_with_their_next():
    repo = new_repo()
    a = start(repo, "first goal")
    b = start(repo, "second goal")
    doc = state_of(run("status", "--json", cwd=repo), "statusList")
    assert sorted(r["id"] for r in doc["runs"]) == sorted([a["run_id"], b["run_id"]])
    assert doc["unavailable_runs"] == []
    by_id = {a["run_id"]: a, b["run_id"]: b}
    for r in doc["runs"]:
        st = by_id[r["id"]]
        assert r["state"] == "active" and r["remaining_budget"] == 7
        assert r["next"] == st["next"]
        assert r["current_action"] == st["action"]
        assert r["next"]["workspace_identity"] == r["workspace_identity"]["id"]
        assert r["workspace"] == repo


def test_status_list_is_ordered_by_creation_time_not_by_id():
    repo = new_repo()
    created = [start(repo, "goal %d" % i)["run_id"] for i in range(5)]
    doc = state_of(run("status", "--json", cwd=repo), "statusList")
    stamps = [r["created_at"] for r in doc["runs"]]
    assert [r["id"] for r in doc["runs"]] == created, (created, stamps)


def test_targeted_status_and_terminal_runs_hide_the_current_action():
    repo = new_repo()
    st = start(repo, "targeted")
    doc = state_of(run("status", st["run_id"], "--json", cwd=repo), "runStatus")
    assert doc["id"] == st["run_id"] and doc["current_action"]["action_id"] == st["action"]["action_id"]
    assert doc["initial_budget"] == 8 and doc["review_enabled"] is True
    state_of(run("stop", st["run_id"], "--json", cwd=repo))
    doc = state_of(run("status", st["run_id"], "--json", cwd=repo), "runStatus")
    assert doc["state"] == "stopped" and "current_action" not in doc
    assert doc["actions"][0]["voided"] is True


def test_status_of_a_missing_run_and_a_bad_id():
    repo = new_repo()
    start(repo)
    doc = assert_cli_error(run("status", str(uuid.uuid4()), "--json", cwd=repo), "run_not_found", 3)
    assert [v["id"] for v in doc["next"]["variants"]] == ["list-runs"]
    assert_cli_error(run("status", "../bad", "--json", cwd=repo), "invalid_run_id", 2)


def test_status_never_creates_the_store():
    repo = new_repo()
    doc = state_of(run("status", "--json", cwd=repo), "statusList")
    assert doc == {"contract_version": 2, "runs": [], "unavailable_runs": []}
    res = run("status", cwd=repo)
    assert res.code == 0 and res.out == b"No run journals were found.\n", res.out
    assert not os.path.exists(os.path.join(repo, ".git", "slipway"))


def test_status_human_list_lines():
    repo = new_repo()
    a = start(repo, "first goal")
    b = start(repo, "second goal", "--budget", "3")
    state_of(run("stop", b["run_id"], "--json", cwd=repo))
    res = run("status", cwd=repo)
    assert res.code == 0 and res.err == b""
    want = {a["run_id"]: "%s  %-7s  remaining=%d  %s" % (a["run_id"], "active", 7, "first goal"),
            b["run_id"]: "%s  %-7s  remaining=%d  %s" % (b["run_id"], "stopped", 2, "second goal")}
    order = [r["id"] for r in state_of(run("status", "--json", cwd=repo), "statusList")["runs"]]
    assert res.out.decode().splitlines() == [want[i] for i in order], "same lines, same order as --json"


def test_status_human_targeted_view_shows_question_and_choices():
    repo = new_repo()
    st = start(repo, "choose a channel")
    submit(repo, st, status="needs_input", pause=decision_pause("Which\nchannel?"))
    res = run("status", st["run_id"], cwd=repo)
    text = res.out.decode()
    assert res.code == 0, res.err
    # The goal and the outcome lead, on one line each.
    assert text.startswith("Run %s paused (decision_required): choose a channel\n"
                           "So far: 1 Action (1 with an outcome, 0 skipped, 0 voided), 7 of 8 budget left"
                           % st["run_id"]), text
    assert "Pending question: Which channel?\n" in text, text
    # The targeted view names the Action id first, then its kind (run's start line is the reverse).
    assert "Current action: %s (orient)\n" % st["action"]["action_id"] in text, text
    assert "- answer-decision: requires text_file (path via --text-file)\n" in text, text
    assert "{" not in text


def test_pending_question_is_bounded_to_200_runes():
    repo = new_repo()
    st = start(repo)
    submit(repo, st, status="needs_input", pause=decision_pause("first line\n" + "\u754c" * 300))
    text = run("status", st["run_id"], cwd=repo).out.decode()
    line = [l for l in text.splitlines() if l.startswith("Pending question: ")][0]
    q = line[len("Pending question: "):]
    assert len(q) == 200 and q.endswith("\u2026") and q.startswith("first line \u754c"), q


def test_corrupt_journal_is_unavailable_in_the_list_and_invalid_when_targeted():
    repo = new_repo()
    good = start(repo, "good run")
    bad = start(repo, "bad run")
    with open(os.path.join(run_dir(repo, bad["run_id"]), "journal.jsonl"), "ab") as f:
        f.write(b"not-json\n")
    before = tree_digest(run_dir(repo, bad["run_id"]))
    doc = state_of(run("status", "--json", cwd=repo), "statusList")
    assert [r["id"] for r in doc["runs"]] == [good["run_id"]]
    assert len(doc["unavailable_runs"]) == 1
    entry = doc["unavailable_runs"][0]
    assert entry["id"] == bad["run_id"] and entry["code"] == "run_journal_invalid"
    err = assert_cli_error(run("status", bad["run_id"], "--json", cwd=repo), "run_journal_invalid", 3)
    assert [v["id"] for v in err["next"]["variants"]] == ["list-runs"]
    human = run("status", cwd=repo).out.decode()
    assert re.search(r"^%s  unavailable  code=run_journal_invalid  \S" % bad["run_id"], human, re.M), human
    assert tree_digest(run_dir(repo, bad["run_id"])) == before, "status must not repair a journal"
    # With a corrupt run dir, implicit stop refuses to guess.
    assert_cli_error(run("stop", cwd=repo), "run_id_required", 2)


def test_corrupt_first_record_lists_as_run_journal_invalid():
    repo = new_repo()
    st = start(repo)
    with open(os.path.join(run_dir(repo, st["run_id"]), "journal.jsonl"), "wb") as f:
        f.write(b"{broken\n")
    doc = state_of(run("status", "--json", cwd=repo), "statusList")
    assert doc["runs"] == [] and doc["unavailable_runs"][0]["code"] == "run_journal_invalid"


def _linked_worktree(repo):
    wt = os.path.join(os.path.realpath(tempfile.mkdtemp()), "linked tree")
    subprocess.run(["git", "-C", repo, "worktree", "add", "-q", "--detach", wt, "HEAD"], check=True,
                   capture_output=True)
    return wt


def test_linked_worktree_run_is_a_foreign_stub_and_refuses_mutation_elsewhere():
    repo = new_repo()
    wt = _linked_worktree(repo)
    st = start(wt, "foreign visibility")
    assert st["action"]["context"]
    doc = state_of(run("status", "--json", cwd=repo), "statusList")
    assert len(doc["runs"]) == 1 and doc["unavailable_runs"] == []
    stub = doc["runs"][0]
    assert set(stub) == {"contract_version", "id", "goal", "workspace", "workspace_identity",
                         "workspace_foreign", "state", "created_at", "next"}, sorted(stub)
    assert stub["workspace_foreign"] is True and stub["workspace"] == wt
    assert stub["next"]["operation"] == "command"
    assert [v["id"] for v in stub["next"]["variants"]] == ["inspect-run-in-its-workspace"]
    assert stub["next"]["variants"][0]["base_argv"] == ["slipway", "status", st["run_id"], "--root", wt]
    assert stub["next"]["workspace_identity"] == stub["workspace_identity"]["id"]

    human = run("status", cwd=repo).out.decode()
    # Its state can be read only in its own worktree: the human list says so.
    assert "unknown  another worktree's Run (%s): its state is read there" % wt in human, human
    assert "remaining=" not in human and "active" not in human

    local = state_of(run("status", "--json", cwd=wt), "statusList")
    assert local["runs"][0].get("workspace_foreign", False) is False

    before = tree_digest(run_dir(repo, st["run_id"]))
    err = assert_cli_error(run("protocol", "skip", "--run", st["run_id"], "--action", st["action"]["action_id"],
                               cwd=repo), "workspace_identity_mismatch", 3)
    assert err["details"]["expected_workspace_identity"] == stub["workspace_identity"]["id"]
    assert err["details"]["observed_workspace_identity"] != stub["workspace_identity"]["id"]
    assert [v["id"] for v in err["next"]["variants"]] == ["inspect-run-in-its-workspace"]
    assert err["next"]["variants"][0]["base_argv"] == ["slipway", "status", "--root", wt]
    assert err["next"]["workspace_identity"] == stub["workspace_identity"]["id"]
    # A targeted status from the main worktree is refused the same way.
    assert_cli_error(run("status", st["run_id"], "--json", cwd=repo), "workspace_identity_mismatch", 3)
    assert_cli_error(run("stop", st["run_id"], "--json", cwd=repo), "workspace_identity_mismatch", 3)
    assert tree_digest(run_dir(repo, st["run_id"])) == before
    # The foreign run is no implicit-stop candidate from the main worktree.
    assert_cli_error(run("stop", cwd=repo), "run_id_required", 2)


def _choices(text):
    lines = text.splitlines()
    i = lines.index("Next choices:")
    return dict(re.match(r"^- ([a-z0-9-]+): (.*)$", l).groups() for l in lines[i + 1:])


def _sh(command, stdin=None):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(BIN)) + os.pathsep + env.get("PATH", "")
    assert os.path.basename(BIN) == "slipway"
    return subprocess.run(["sh", "-c", command], input=stdin, capture_output=True, env=env,
                          cwd=tempfile.gettempdir(), timeout=60)


def test_human_run_and_stop_print_commands_that_run_in_sh():
    repo = new_repo(prefix="slip way's $HOME repo-")
    res = run("run", "--", "a human goal", cwd=repo)
    assert res.code == 0 and res.err == b"", res.err
    text = res.out.decode()
    m = re.match(r"^Run (\S+) started\.\nState: active\nGoal: a human goal\nBudget remaining: 7\n"
                 r"Current action: orient \((\S+)\)\nNext choices:\n", text)
    assert m, text
    run_id, action_id = m.groups()
    choices = _choices(text)
    assert list(choices) == ["submit-outcome-file", "submit-outcome-stdin", "skip-action"]
    assert choices["submit-outcome-file"] == "requires outcome_file (path via --outcome-file)"

    body = encode(outcome({"action_id": action_id, "kind": "orient"}, suggest="implement"))
    proc = _sh(choices["submit-outcome-stdin"], stdin=body)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    doc = json.loads(proc.stdout)
    validate(doc, "protocolState")
    assert doc["action"]["kind"] == "implement"

    res = run("stop", run_id, cwd=repo)
    assert res.code == 0, res.err
    text = res.out.decode()
    assert text.startswith("Stopped run %s.\n" % run_id), text
    choices = _choices(text)
    assert list(choices) == ["resume-ad-hoc"]
    proc = _sh(choices["resume-ad-hoc"])
    assert proc.returncode == 0, proc.stderr
    resumed = json.loads(proc.stdout)
    validate(resumed, "protocolState")
    assert resumed["resume_operation"] == "ad_hoc_resumed" and resumed["action"]["kind"] == "orient"


def test_human_skip_command_runs_in_sh():
    repo = new_repo(prefix="quote'd dir-")
    text = run("run", "--", "goal", cwd=repo).out.decode()
    proc = _sh(_choices(text)["skip-action"])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    validate(doc, "protocolState")
    assert doc["action"]["kind"] == "summarize"


def _resolve(next_doc, vid, values):
    """Next.Resolve: base_argv plus `flag value` per given input, in input order."""
    var = [v for v in next_doc["variants"] if v["id"] == vid][0]
    argv = list(var["base_argv"])
    for inp in var["inputs"]:
        if inp["name"] in values:
            argv += [inp["flag"], values[inp["name"]]]
        else:
            assert not inp["required"], (vid, inp)
    assert argv[0] == "slipway"
    return [BIN] + argv[1:]


def _exec(argv, stdin=None):
    """Runs a resolved next from an unrelated directory: --root alone must bind it."""
    proc = subprocess.run(argv, input=stdin, capture_output=True, cwd=tempfile.gettempdir(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    validate(doc, "protocolState")
    return doc


def test_structured_next_variants_execute_as_resolved():
    repo = new_repo(prefix="next resolve-")
    st = start(repo, "follow the next", "--budget", "20", "--no-review")
    body = encode(outcome(st["action"], status="needs_input", pause=decision_pause()))
    paused = _exec(_resolve(st["next"], "submit-outcome-file", {"outcome_file": write_tmp(body)}))
    assert paused["pause_reason"] == "decision_required"
    answer = write_tmp(b"pick the first", ".txt")
    st = _exec(_resolve(paused["next"], "answer-decision", {"text_file": answer}))
    assert st["action"]["kind"] == "orient"
    body = encode(outcome(st["action"], suggest="implement"))
    st = _exec(_resolve(st["next"], "submit-outcome-stdin", {}), stdin=body)
    assert st["action"]["kind"] == "implement"
    pause = destructive_pause([{"kind": "external_resource", "value": "s3://bucket/key"}])
    body = encode(outcome(st["action"], status="needs_input", pause=pause))
    paused = _exec(_resolve(st["next"], "submit-outcome-file", {"outcome_file": write_tmp(body)}))
    granted = _exec(_resolve(paused["next"], "confirm-destructive", {}))
    assert granted["action"]["destructive_authorization"]["scope_sha256"] == pause["destructive_request"]["scope_sha256"]
    stopped = state_of(run("stop", granted["run_id"], "--json", cwd=repo))
    resumed = _exec(_resolve(stopped["next"], "resume-ad-hoc", {"budget": "9"}))
    assert resumed["action"]["remaining_budget"] == 8 and resumed["budget_applied"] is True


def test_run_with_an_explicit_root_from_elsewhere():
    repo = new_repo()
    elsewhere = os.path.realpath(tempfile.mkdtemp())
    st = state_of(run("run", "--root", repo, "--json", "--", "-leading goal", cwd=elsewhere))
    assert st["action"]["goal"] == "-leading goal"
    assert st["next"]["variants"][0]["base_argv"][8] == repo
    assert os.path.isdir(run_dir(repo, st["run_id"]))
    doc = state_of(run("status", "--root", os.path.join(repo, ".git", ".."), "--json", cwd=elsewhere), "statusList")
    assert [r["id"] for r in doc["runs"]] == [st["run_id"]]


def test_implicit_stop_takes_the_only_paused_run():
    repo = new_repo()
    st = start(repo)
    submit(repo, st, status="needs_input", pause=decision_pause())
    ended = start(repo, "finished")
    ended = submit(repo, ended)
    ended = submit(repo, ended)
    assert ended["state"] == "ended"
    stopped = state_of(run("stop", "--json", cwd=repo))
    assert stopped["run_id"] == st["run_id"] and stopped["state"] == "stopped"


def test_human_status_of_an_ended_run_prints_the_summary_and_no_choices():
    repo = new_repo()
    st = start(repo, "finish me")
    st = submit(repo, st)
    st = submit(repo, st, summary="the host's final words")
    assert st["state"] == "ended"
    text = run("status", st["run_id"], cwd=repo).out.decode()
    assert text.startswith("Run %s ended: finish me\nOutcome: ended after 2 Actions" % st["run_id"]), text
    # The host's final words, once, at the top; the summary holds the same report.
    assert text.count("the host's final words") == 1, text
    assert text.index("Final report:\n  the host's final words\n") < text.index("\nWhat changed")
    assert st["summary"].startswith(text.split("\nPinned source")[0].split("\nWhat changed")[0]), st["summary"]
    assert "Next choices:" not in text and "Current action:" not in text
    line = [l for l in run("status", cwd=repo).out.decode().splitlines() if l.startswith(st["run_id"])][0]
    assert line == "%s  ended    remaining=6  finish me" % st["run_id"], line


def test_foreign_stub_keeps_its_pinned_identity_after_the_worktree_is_gone():
    import shutil
    repo = new_repo()
    wt = _linked_worktree(repo)
    st = start(wt, "vanishing worktree")
    pinned = state_of(run("status", "--json", cwd=repo), "statusList")["runs"][0]["workspace_identity"]["id"]
    shutil.rmtree(wt)
    doc = state_of(run("status", "--json", cwd=repo), "statusList")
    stub = doc["runs"][0]
    assert stub["id"] == st["run_id"] and stub["workspace_foreign"] is True
    assert stub["next"]["workspace_identity"] == pinned
    assert stub["next"]["variants"][0]["base_argv"] == ["slipway", "status", st["run_id"], "--root", wt]


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
