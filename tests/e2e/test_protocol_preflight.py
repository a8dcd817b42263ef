"""Preflight errors of run, protocol submit/answer/skip/resume: usage codes
(exit 2) that never touch the run store, and the decode-time Outcome errors."""

import os
import tempfile
import uuid

from protocol_support import encode, new_repo, outcome, rejected_untouched, start, write_tmp
from slipway_e2e import assert_cli_error, main, run

MAX_TEXT = 262144


def _no_store(repo):
    assert not os.path.exists(os.path.join(repo, ".git", "slipway")), "preflight must not open the run store"


def _run_err(repo, code, *args, stdin=None, exit_code=2):
    doc = assert_cli_error(run(*args, cwd=repo, stdin=stdin), code, exit_code)
    _no_store(repo)
    return doc


def test_run_goal_mode_errors():
    repo = new_repo()
    goal = write_tmp("goal from file", ".txt")
    doc = _run_err(repo, "goal_required", "run", "--json")
    assert doc["next"]["operation"] == "none"
    _run_err(repo, "goal_required", "run", "--json", "--", "   \n\t")
    _run_err(repo, "goal_mode_conflict", "run", "--json", "--goal-file", goal, "--", "positional")
    _run_err(repo, "goal_mode_conflict", "run", "--json", "--goal-file", goal, "--goal-stdin", stdin=b"x")
    _run_err(repo, "goal_file_required", "run", "--json", "--goal-file", "")
    _run_err(repo, "goal_unavailable", "run", "--json", "--goal-file", os.path.join(repo, "no-such-goal"))
    _run_err(repo, "goal_unavailable", "run", "--json", "--goal-file", tempfile.mkdtemp())


def test_run_symlinked_goal_file_is_unavailable():
    repo = new_repo()
    target = write_tmp("private goal", ".txt")
    link = os.path.join(tempfile.mkdtemp(), "goal-link.txt")
    os.symlink(target, link)
    _run_err(repo, "goal_unavailable", "run", "--json", "--goal-file", link)


def test_run_invalid_goal_text():
    repo = new_repo()
    _run_err(repo, "invalid_goal", "run", "--json", "--", "bell\x07goal")
    _run_err(repo, "invalid_goal", "run", "--json", "--", "esc\x1bgoal")
    _run_err(repo, "invalid_goal", "run", "--json", "--goal-file", write_tmp(b"g\xff", ".txt"))
    _run_err(repo, "invalid_goal", "run", "--json", "--goal-stdin", stdin=b"c1\xc2\x85control")


def test_run_goal_size_limit():
    repo = new_repo()
    big = b"g" * (MAX_TEXT + 1)
    _run_err(repo, "action_too_large", "run", "--json", "--goal-file", write_tmp(big, ".txt"))
    _run_err(repo, "action_too_large", "run", "--json", "--goal-stdin", stdin=big)
    # Raw bytes under the cap, but the JSON-encoded goal string is over it.
    quotes = b'"' * (MAX_TEXT // 2 + 8)
    _run_err(repo, "action_too_large", "run", "--json", "--goal-file", write_tmp(quotes, ".txt"))
    ok = start(repo, "g" * 100000)
    assert len(ok["action"]["goal"]) == 100000


def test_run_budget_and_usage_errors():
    repo = new_repo()
    _run_err(repo, "invalid_budget", "run", "--json", "--budget", "0", "--", "goal")
    _run_err(repo, "invalid_budget", "run", "--json", "--budget", "1001", "--", "goal")
    _run_err(repo, "invalid_usage", "run", "--json", "--budget", "abc", "--", "goal")
    _run_err(repo, "invalid_usage", "run", "--json", "one", "two")
    _run_err(repo, "source_file_required", "run", "--json", "--source-file", "", "--", "goal")


def test_run_budget_bounds_are_inclusive():
    repo = new_repo()
    st = start(repo, "max budget", "--budget", "1000")
    assert st["action"]["remaining_budget"] == 999


def test_run_outside_a_repository():
    d = os.path.realpath(tempfile.mkdtemp())
    assert_cli_error(run("run", "--json", "--", "goal", cwd=d), "git_repository_required", 2)
    assert os.listdir(d) == []


def test_run_goal_is_stored_verbatim():
    repo = new_repo()
    goal = "  keep  this goal exactly  \n"
    st = start(repo, goal)
    assert st["action"]["goal"] == goal
    st = start(repo, "--root")
    assert st["action"]["goal"] == "--root"


def test_submit_preflight_codes():
    repo = new_repo()
    rid = str(uuid.uuid4())
    path = write_tmp(encode(outcome({"action_id": "a", "kind": "orient"})))
    _run_err(repo, "run_id_required", "protocol", "submit", "--action", "a", "--outcome-file", path)
    _run_err(repo, "run_id_required", "protocol", "submit", "--run", "", "--action", "a", "--outcome-file", path)
    doc = _run_err(repo, "invalid_run_id", "protocol", "submit", "--run", "../x", "--action", "a",
                   "--outcome-file", path)
    assert [v["id"] for v in doc["next"]["variants"]] == ["inspect-runs"]
    doc = _run_err(repo, "action_id_required", "protocol", "submit", "--run", rid, "--outcome-file", path)
    assert doc["next"]["variants"][0]["id"] == "inspect-run"
    assert doc["next"]["variants"][0]["base_argv"] == ["slipway", "status", rid, "--root", repo]
    _run_err(repo, "outcome_mode_required", "protocol", "submit", "--run", rid, "--action", "a")
    _run_err(repo, "outcome_mode_required", "protocol", "submit", "--run", rid, "--action", "a",
             "--outcome-file", path, "--outcome-stdin", stdin=b"{}")
    _run_err(repo, "outcome_mode_required", "protocol", "submit", "--run", rid, "--action", "a",
             "--outcome-stdin=false")
    _run_err(repo, "outcome_file_required", "protocol", "submit", "--run", rid, "--action", "a",
             "--outcome-file", "")
    _run_err(repo, "outcome_file_required", "protocol", "submit", "--run", rid, "--action", "a",
             "--outcome-file", "  ")


def test_submit_missing_outcome_file_is_unavailable_before_the_store_opens():
    repo = new_repo()
    rid = str(uuid.uuid4())
    doc = _run_err(repo, "outcome_unavailable", "protocol", "submit", "--run", rid, "--action", "a",
                   "--outcome-file", os.path.join(repo, "missing.json"))
    assert [v["id"] for v in doc["next"]["variants"]] == ["submit-outcome-file"]


def test_submit_symlinked_outcome_file_is_unavailable():
    repo = new_repo()
    st = start(repo)
    link = os.path.join(tempfile.mkdtemp(), "outcome.json")
    os.symlink(write_tmp(encode(outcome(st["action"]))), link)
    rejected_untouched(repo, st["run_id"], ["protocol", "submit", "--run", st["run_id"], "--action",
                                            st["action"]["action_id"], "--outcome-file", link],
                       "outcome_unavailable", 2)


def test_submit_decode_errors_exit_2_with_retry_next_matching_the_mode():
    repo = new_repo()
    st = start(repo)
    rid, aid = st["run_id"], st["action"]["action_id"]
    good = encode(outcome(st["action"]))
    bad_docs = [
        b"{not json",
        good[:-1] + b',"summary":"again"}',                              # duplicate key
        good[:-1] + b',"approved":true}',                                # unknown field
        good.replace(b'"action_kind":"orient",', b""),                   # missing key
        b"\xef\xbb\xbf" + good,                                          # BOM
        b"   ",                                                          # blank
        good + b"{}",                                                    # trailing data
        good.replace(b'"contract_version":2', b'"contract_version":2.0'),  # float
    ]
    for raw in bad_docs:
        doc = rejected_untouched(repo, rid, ["protocol", "submit", "--run", rid, "--action", aid,
                                             "--outcome-file", write_tmp(raw)], "invalid_outcome", 2)
        assert [v["id"] for v in doc["next"]["variants"]] == ["submit-outcome-file"], raw
        doc = rejected_untouched(repo, rid, ["protocol", "submit", "--run", rid, "--action", aid,
                                             "--outcome-stdin"], "invalid_outcome", 2, stdin=raw)
        assert [v["id"] for v in doc["next"]["variants"]] == ["submit-outcome-stdin"], raw


def test_submit_wrong_contract_version_is_exit_3_refresh_adapters():
    repo = new_repo()
    st = start(repo)
    doc = outcome(st["action"])
    doc["contract_version"] = 999
    err = rejected_untouched(repo, st["run_id"], ["protocol", "submit", "--run", st["run_id"], "--action",
                                                  st["action"]["action_id"], "--outcome-stdin"],
                             "contract_version_mismatch", 3, stdin=encode(doc))
    assert [v["id"] for v in err["next"]["variants"]] == ["refresh-adapters"]
    assert err["next"]["variants"][0]["base_argv"] == ["slipway", "install", "--refresh", "--root", repo]
    # Unknown fields beat the version check.
    doc["extra"] = 1
    rejected_untouched(repo, st["run_id"], ["protocol", "submit", "--run", st["run_id"], "--action",
                                            st["action"]["action_id"], "--outcome-stdin"],
                       "invalid_outcome", 2, stdin=encode(doc))


def test_answer_preflight_codes():
    repo = new_repo()
    rid = str(uuid.uuid4())
    f = write_tmp("answer", ".txt")
    _run_err(repo, "run_id_required", "protocol", "answer", "--run", "", "--action", "a", "--text", "x")
    _run_err(repo, "invalid_run_id", "protocol", "answer", "--run", "a/b", "--action", "a", "--text", "x")
    _run_err(repo, "action_id_required", "protocol", "answer", "--run", rid, "--text", "x")
    _run_err(repo, "answer_mode_conflict", "protocol", "answer", "--run", rid, "--action", "a",
             "--text", "x", "--text-file", f)
    _run_err(repo, "answer_mode_conflict", "protocol", "answer", "--run", rid, "--action", "a",
             "--text-file", f, "--text-stdin", stdin=b"x")
    _run_err(repo, "answer_file_required", "protocol", "answer", "--run", rid, "--action", "a", "--text-file", "")
    _run_err(repo, "answer_unavailable", "protocol", "answer", "--run", rid, "--action", "a",
             "--text-file", os.path.join(repo, "nope.txt"))
    _run_err(repo, "invalid_answer", "protocol", "answer", "--run", rid, "--action", "a",
             "--text-file", write_tmp(b"a\xff", ".txt"))
    _run_err(repo, "answer_too_large", "protocol", "answer", "--run", rid, "--action", "a",
             "--text-stdin", stdin=b"x" * (MAX_TEXT + 1))
    _run_err(repo, "destructive_confirmation_pair_required", "protocol", "answer", "--run", rid,
             "--action", "a", "--confirm-destructive")
    _run_err(repo, "destructive_confirmation_pair_required", "protocol", "answer", "--run", rid,
             "--action", "a", "--scope-sha256", "sha256:" + "0" * 64)


def test_skip_preflight_codes():
    repo = new_repo()
    _run_err(repo, "run_id_required", "protocol", "skip", "--action", "a")
    _run_err(repo, "invalid_run_id", "protocol", "skip", "--run", "x" * 129, "--action", "a")
    _run_err(repo, "action_id_required", "protocol", "skip", "--run", "r", "--action", "")


def test_resume_preflight_codes():
    repo = new_repo()
    _run_err(repo, "run_id_required", "protocol", "resume", "")
    _run_err(repo, "invalid_usage", "protocol", "resume")
    _run_err(repo, "invalid_usage", "protocol", "resume", "a", "b")
    _run_err(repo, "invalid_run_id", "protocol", "resume", "bad id")
    doc = _run_err(repo, "invalid_budget", "protocol", "resume", "r1", "--budget", "0")
    assert [v["id"] for v in doc["next"]["variants"]] == ["inspect-run"]
    _run_err(repo, "invalid_budget", "protocol", "resume", "r1", "--budget", "1001")
    _run_err(repo, "source_file_required", "protocol", "resume", "r1", "--source-file", "")
    _run_err(repo, "source_choice_requires_candidate", "protocol", "resume", "r1", "--source-choice", "adopt")
    _run_err(repo, "source_choice_requires_candidate", "protocol", "resume", "r1", "--candidate", "c")
    _run_err(repo, "invalid_source_choice", "protocol", "resume", "r1", "--source-choice", "other",
             "--candidate", "c")
    _run_err(repo, "source_mode_conflict", "protocol", "resume", "r1", "--use-pinned-source",
             "--source-choice", "pinned", "--candidate", "c")


def test_bare_protocol_needs_an_operation():
    repo = new_repo()
    _run_err(repo, "protocol_operation_required", "protocol")


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
