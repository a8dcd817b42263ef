"""Ad-hoc Runs end to end: the happy path, routing, budget, replay and the
service-side rejections of submit/answer/skip/resume/stop."""

import json
import os
import subprocess
import uuid

from protocol_support import (decision_pause, destructive_pause, encode, impl, journal_lines,
                              new_repo, outcome, rejected_untouched, review_block, run_dir,
                              start, state_of, submit, submit_raw, variant_ids, write_tmp)
from slipway_e2e import BIN, assert_cli_error, main, run, validate

ACTION_VARIANTS = ["submit-outcome-file", "submit-outcome-stdin", "skip-action"]


def _last_event(repo, run_id):
    return json.loads(journal_lines(repo, run_id)[-1])["type"]


def _change_file(repo, name="feature.txt", text="new content\n"):
    with open(os.path.join(repo, name), "w") as f:
        f.write(text)


def test_happy_path_orient_implement_review_summarize_ends_with_summary():
    repo = new_repo()
    st = start(repo, "add a feature file")
    assert st["state"] == "active" and st["action"]["kind"] == "orient"
    assert st["action"]["remaining_budget"] == 7
    assert variant_ids(st) == ACTION_VARIANTS and st["next"]["operation"] == "action"
    run_id = st["run_id"]
    orient_id = st["action"]["action_id"]
    assert _last_event(repo, run_id) == "run_started"

    st = submit(repo, st, summary="facts gathered", suggest="implement")
    assert st["action"]["kind"] == "implement" and st["action"]["remaining_budget"] == 6
    assert st["action"]["brief"] == "Do the implement step."
    assert "- orient action %s: facts gathered" % orient_id in st["action"]["context"], st["action"]["context"]
    assert _last_event(repo, run_id) == "outcome_submitted"

    _change_file(repo)
    st = submit(repo, st, summary="added feature.txt", implementation=impl("applied", ["feature.txt"]))
    assert st["action"]["kind"] == "review", "a change must interpose Review"
    assert st["action"]["remaining_budget"] == 5

    st = submit(repo, st, summary="looks right", review=review_block())
    assert st["action"]["kind"] == "summarize" and st["action"]["remaining_budget"] == 4

    st = submit(repo, st, summary="all done")
    assert st["state"] == "ended" and "action" not in st
    assert st["summary"].strip(), st
    assert st["next"]["operation"] == "none" and st["next"]["variants"] == []
    assert st["run_id"] == run_id

    doc = assert_cli_error(run("protocol", "resume", run_id, cwd=repo), "run_already_ended", 3)
    assert doc["details"] == {"run_id": run_id, "state": "ended"}


def test_no_review_routes_a_change_straight_to_summarize():
    repo = new_repo()
    st = start(repo, "change without review", "--no-review")
    st = submit(repo, st, suggest="implement")
    _change_file(repo)
    st = submit(repo, st, implementation=impl("applied", ["feature.txt"]))
    assert st["action"]["kind"] == "summarize", st["action"]["kind"]


def _status(repo, run_id):
    return state_of(run("status", run_id, "--json", cwd=repo), "runStatus")


def test_review_findings_route_to_summarize_without_repair():
    repo = new_repo()
    st = start(repo)
    st = submit(repo, st, suggest="implement")
    _change_file(repo)
    st = submit(repo, st, implementation=impl("applied", ["feature.txt"]))
    assert st["action"]["kind"] == "review"
    st = submit(repo, st, status="completed",
                review=review_block("findings_reported", [{"location": "feature.txt", "summary": "s", "detail": "d"}]))
    assert st["action"]["kind"] == "summarize", "findings never route to repair"
    assert _status(repo, st["run_id"])["review_pending"] is False


def test_review_interposition_drops_a_queued_suggestion():
    repo = new_repo()
    st = start(repo)
    _change_file(repo)  # Orient's own change makes Review pending
    st = submit(repo, st, suggest="implement")
    assert st["action"]["kind"] == "review", "Review comes before the queued suggestion"
    status = _status(repo, st["run_id"])
    assert status.get("pending_actions", []) == []
    # The wording is ours; the machine-readable prefix and the dropped brief are facts.
    dropped = [u for u in status.get("uncertainties", []) if u.startswith("unresolved_suggestion: ")]
    assert len(dropped) == 1 and "implement" in dropped[0] and "Do the implement step." in dropped[0], dropped
    assert any(u.startswith("attribution_uncertainty: ") for u in status.get("uncertainties", []))
    assert any(o.startswith("observed_since_start: ") for o in status.get("observations", [])), \
        status.get("observations")
    st = submit(repo, st, review=review_block())
    assert st["action"]["kind"] == "summarize"


def test_implement_report_discrepancy_is_observed():
    repo = new_repo()
    st = start(repo, "claims without change", "--no-review")
    st = submit(repo, st, suggest="implement")
    st = submit(repo, st, implementation=impl("applied", ["ghost.txt"]))
    assert st["action"]["kind"] == "summarize"
    obs = _status(repo, st["run_id"]).get("observations", [])
    hits = [o for o in obs if o.startswith("report_discrepancy: ")]
    assert len(hits) == 1 and "applied" in hits[0], obs
    assert not any(o.startswith("observed_since_start: ") for o in obs), obs


def test_voided_review_stays_pending_across_stop_and_resume():
    repo = new_repo()
    st = start(repo, "review survives resume", "--budget", "20")
    rid = st["run_id"]
    st = submit(repo, st, suggest="implement")
    _change_file(repo)
    st = submit(repo, st, implementation=impl("applied", ["feature.txt"]))
    assert st["action"]["kind"] == "review"
    state_of(run("stop", rid, "--json", cwd=repo))
    st = state_of(run("protocol", "resume", rid, cwd=repo))
    assert st["action"]["kind"] == "orient"
    assert _status(repo, rid)["review_pending"] is True
    st = submit(repo, st)
    assert st["action"]["kind"] == "review", "a voided Review is still owed"


def test_skipped_summary_ends_with_the_fixed_factual_report():
    repo = new_repo()
    st = start(repo)
    st = submit(repo, st)
    assert st["action"]["kind"] == "summarize"
    ended = state_of(run("protocol", "skip", "--run", st["run_id"], "--action", st["action"]["action_id"], cwd=repo))
    # A fixed three-line factual summary: the skip, the final Git fact, no host report.
    lines = ended["summary"].split("\n")
    assert ended["summary"].endswith("\n") and len(lines) == 4 and lines[3] == "", ended["summary"]
    assert "skipped" in lines[0] and "no difference" in lines[1].lower(), ended["summary"]
    assert _status(repo, st["run_id"])["final_git_observed"] is True


def test_skipped_review_is_projected_as_not_run():
    repo = new_repo()
    st = start(repo)
    st = submit(repo, st, suggest="implement")
    _change_file(repo)
    st = submit(repo, st, implementation=impl("applied", ["feature.txt"]))
    review_id = st["action"]["action_id"]
    state_of(run("protocol", "skip", "--run", st["run_id"], "--action", review_id, cwd=repo))
    rec = [a for a in _status(repo, st["run_id"])["actions"] if a["action"]["action_id"] == review_id][0]
    assert rec["skipped"] is True
    assert rec["review_projection"] == {"result": "not_run", "findings": [], "uncertainties": []}


def test_status_section_on_an_ad_hoc_run_is_material_unavailable():
    repo = new_repo()
    st = start(repo)
    assert_cli_error(run("status", "--section", "goal", "--json", cwd=repo), "run_id_required", 2)
    assert_cli_error(run("status", st["run_id"], "--section", "goal", "--json", cwd=repo), "material_unavailable", 3)


def test_oversize_outcome_on_stdin_is_invalid_outcome():
    repo = new_repo()
    st = start(repo)
    doc = outcome(st["action"])
    doc["observations"] = ["x" * 1048576]
    rejected_untouched(repo, st["run_id"], ["protocol", "submit", "--run", st["run_id"], "--action",
                                            st["action"]["action_id"], "--outcome-stdin"],
                       "invalid_outcome", 2, stdin=encode(doc))


def test_orient_without_suggestion_goes_to_summarize():
    repo = new_repo()
    st = start(repo)
    st = submit(repo, st)
    assert st["action"]["kind"] == "summarize"


def test_identical_resubmission_replays_without_a_journal_line():
    repo = new_repo()
    st = start(repo)
    raw = encode(outcome(st["action"], suggest="implement"))
    first = submit_raw(repo, st, raw)
    doc = state_of(first)
    lines = journal_lines(repo, st["run_id"])
    second = submit_raw(repo, st, raw)
    assert second.code == 0 and second.out == first.out, (second.out, first.out)
    assert journal_lines(repo, st["run_id"]) == lines
    assert doc["action"]["kind"] == "implement"


def test_different_bytes_for_an_answered_action_conflict():
    repo = new_repo()
    st = start(repo)
    raw = encode(outcome(st["action"], suggest="implement"))
    state_of(submit_raw(repo, st, raw))
    # Same meaning, different bytes (a trailing newline): still a conflict.
    path = write_tmp(raw + b"\n")
    doc = rejected_untouched(repo, st["run_id"],
                             ["protocol", "submit", "--run", st["run_id"], "--action",
                              st["action"]["action_id"], "--outcome-file", path], "outcome_conflict")
    assert doc["details"] == {"run_id": st["run_id"], "state": "active"}
    assert doc["next"]["operation"] == "action"


def test_submit_for_another_action_is_stale():
    repo = new_repo()
    st = start(repo)
    other = str(uuid.uuid4())
    path = write_tmp(encode(outcome(st["action"], action_id=other)))
    doc = rejected_untouched(repo, st["run_id"],
                             ["protocol", "submit", "--run", st["run_id"], "--action", other,
                              "--outcome-file", path], "stale_action")
    assert doc["next"]["operation"] == "action"
    assert doc["next"]["variants"][0]["base_argv"][6] == st["action"]["action_id"]


def test_semantic_outcome_errors_exit_3_with_the_current_action_next():
    repo = new_repo()
    st = start(repo)
    args = ["protocol", "submit", "--run", st["run_id"], "--action", st["action"]["action_id"], "--outcome-file"]
    cases = [
        outcome(st["action"], implementation=impl()),                 # orient with implementation
        outcome(st["action"], status="needs_input", pause=None),      # needs_input without pause
        outcome(st["action"], status="needs_input", pause=decision_pause(), suggest="implement"),
        outcome(st["action"], status="needs_input",                   # orient cannot ask for destruction
                pause=destructive_pause([{"kind": "path", "value": "x"}])),
    ]
    for doc in cases:
        err = rejected_untouched(repo, st["run_id"], args + [write_tmp(encode(doc))], "invalid_outcome", 3)
        assert err["next"]["operation"] == "action", err
        assert variant_ids(err) == ACTION_VARIANTS


def test_action_kind_mismatch_is_a_semantic_error_exit_3():
    repo = new_repo()
    st = start(repo)
    path = write_tmp(encode(outcome(st["action"], kind="clarify")))
    err = rejected_untouched(repo, st["run_id"], ["protocol", "submit", "--run", st["run_id"], "--action",
                                                  st["action"]["action_id"], "--outcome-file", path],
                             "invalid_outcome", 3)
    assert err["next"]["operation"] == "action"


def test_submit_while_paused_or_stopped_is_run_not_active():
    repo = new_repo()
    st = start(repo)
    paused = submit(repo, st, status="needs_input", pause=decision_pause())
    assert paused["state"] == "paused" and paused["pause_reason"] == "decision_required"
    assert variant_ids(paused) == ["answer-decision", "skip-action"]
    # The waiting Action already has its needs_input outcome (other bytes conflict),
    # so an Action without an outcome is named: a paused Run takes none.
    other = str(uuid.uuid4())
    path = write_tmp(encode(outcome(st["action"], summary="other", action_id=other)))
    args = ["protocol", "submit", "--run", st["run_id"], "--action", other, "--outcome-file", path]
    doc = rejected_untouched(repo, st["run_id"], args, "run_not_active")
    assert doc["details"]["state"] == "paused"
    assert doc["next"]["operation"] == "answer"
    path = write_tmp(encode(outcome(st["action"], summary="other")))
    args = ["protocol", "submit", "--run", st["run_id"], "--action", st["action"]["action_id"], "--outcome-file", path]
    rejected_untouched(repo, st["run_id"], args, "outcome_conflict")

    repo3 = new_repo()
    st3 = start(repo3, "budget pause", "--budget", "1")
    submit(repo3, st3)
    path = write_tmp(encode(outcome(st3["action"], action_id=other)))
    doc = rejected_untouched(repo3, st3["run_id"], ["protocol", "submit", "--run", st3["run_id"], "--action", other,
                                                    "--outcome-file", path], "run_not_active")
    assert doc["details"]["state"] == "paused" and doc["next"]["operation"] == "resume"

    repo2 = new_repo()
    st2 = start(repo2)
    state_of(run("stop", st2["run_id"], "--json", cwd=repo2))
    args2 = ["protocol", "submit", "--run", st2["run_id"], "--action", st2["action"]["action_id"], "--outcome-file",
             write_tmp(encode(outcome(st2["action"])))]
    doc = rejected_untouched(repo2, st2["run_id"], args2, "run_not_active")
    assert doc["details"]["state"] == "stopped"
    assert doc["next"]["operation"] == "resume"


def test_concurrent_identical_submits_record_one_transition():
    repo = new_repo()
    st = start(repo)
    path = write_tmp(encode(outcome(st["action"], suggest="implement")))
    argv = [BIN, "protocol", "submit", "--run", st["run_id"], "--action", st["action"]["action_id"],
            "--outcome-file", path]
    procs = [subprocess.Popen(argv, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    assert len({o[0] for o in outs}) == 1, "every racer sees the same committed state"
    types = [json.loads(l)["type"] for l in journal_lines(repo, st["run_id"])]
    assert types == ["run_started", "outcome_submitted"], types


def test_stop_twice_then_implicit_stop_and_ambiguity():
    repo = new_repo()
    st = start(repo, "only run")
    rid = st["run_id"]
    stopped = state_of(run("stop", "--json", cwd=repo))  # implicit: the only active run
    assert stopped["run_id"] == rid and stopped["state"] == "stopped"
    assert "action" not in stopped and "pause_reason" not in stopped
    n = len(journal_lines(repo, rid))
    assert _last_event(repo, rid) == "run_stopped"
    again = state_of(run("stop", rid, "--json", cwd=repo))
    assert again["state"] == "stopped"
    assert len(journal_lines(repo, rid)) == n + 1, "stopping again is journaled"
    # The stopped run is no candidate: implicit stop now has none.
    doc = assert_cli_error(run("stop", "--json", cwd=repo), "run_id_required", 2)
    assert doc["next"]["variants"][0]["id"] == "list-runs"

    start(repo, "first")
    start(repo, "second")
    doc = assert_cli_error(run("stop", cwd=repo), "run_id_required", 2)
    assert doc["next"]["operation"] == "command" and variant_ids(doc) == ["list-runs"]
    assert doc["next"]["variants"][0]["base_argv"] == ["slipway", "status", "--root", repo]


def test_stop_of_an_ended_run_is_run_already_ended():
    repo = new_repo()
    st = start(repo)
    st = submit(repo, st)
    st = submit(repo, st)
    assert st["state"] == "ended"
    rejected_untouched(repo, st["run_id"], ["stop", st["run_id"], "--json"], "run_already_ended")


def test_skip_each_kind():
    repo = new_repo()
    st = start(repo, "skip everything", "--budget", "20")
    rid = st["run_id"]

    def skip(s):
        return state_of(run("protocol", "skip", "--run", rid, "--action", s["action"]["action_id"], cwd=repo))

    # orient skipped with no change -> summarize
    s = skip(st)
    assert s["action"]["kind"] == "summarize"
    # resume to get a fresh orient, then orient -> clarify, skip clarify -> summarize
    state_of(run("stop", rid, "--json", cwd=repo))
    s = state_of(run("protocol", "resume", rid, cwd=repo))
    s = submit(repo, s, suggest="clarify")
    assert s["action"]["kind"] == "clarify"
    s = skip(s)
    assert s["action"]["kind"] == "summarize"
    # implement skipped after a change -> review; skipped review -> summarize
    state_of(run("stop", rid, "--json", cwd=repo))
    s = state_of(run("protocol", "resume", rid, cwd=repo))
    s = submit(repo, s, suggest="implement")
    assert s["action"]["kind"] == "implement"
    _change_file(repo)
    s = skip(s)
    assert s["action"]["kind"] == "review", "an observed change routes to Review"
    s = skip(s)
    assert s["action"]["kind"] == "summarize"
    ended = skip(s)
    assert ended["state"] == "ended" and ended["summary"].strip()
    assert _last_event(repo, rid) == "action_skipped"
    # a skip on an ended run
    rejected_untouched(repo, rid, ["protocol", "skip", "--run", rid, "--action", s["action"]["action_id"]],
                       "run_not_skippable")


def test_stop_while_paused_voids_the_waiting_action_and_skip_is_refused():
    repo = new_repo()
    st = start(repo)
    rid, aid = st["run_id"], st["action"]["action_id"]
    submit(repo, st, status="needs_input", pause=decision_pause())
    stopped = state_of(run("stop", rid, "--json", cwd=repo))
    assert "pause_reason" not in stopped and "action" not in stopped
    assert variant_ids(stopped) == ["resume-ad-hoc"]
    status = state_of(run("status", rid, "--json", cwd=repo), "runStatus")
    assert status["actions"][0]["voided"] is True
    rejected_untouched(repo, rid, ["protocol", "skip", "--run", rid, "--action", aid], "run_not_skippable")
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid, "--text", "late"],
                       "answer_not_expected")


def test_run_in_a_repository_without_commits():
    repo = new_repo(commit=False)
    st = start(repo, "unborn head")
    status = state_of(run("status", st["run_id"], "--json", cwd=repo), "runStatus")
    assert status["initial_git"]["head"] == "unborn"


def test_run_whose_start_observation_fails_is_git_observation_failed_and_leaves_no_run():
    repo = new_repo()
    index = os.path.join(repo, ".git", "index")
    with open(index, "rb") as f:
        good = f.read()
    with open(index, "wb") as f:
        f.write(b"not an index\n")
    assert subprocess.run(["git", "-C", repo, "status"], capture_output=True).returncode != 0, \
        "git cannot read the index either"
    doc = assert_cli_error(run("run", "--json", "--", "a goal", cwd=repo), "git_observation_failed", 3)
    assert "index" in doc["message"], doc
    assert doc["next"]["operation"] == "start" and variant_ids(doc) == ["retry-run"], doc
    assert doc["next"]["variants"][0]["base_argv"][:2] == ["slipway", "run"], doc
    runs = os.path.join(repo, ".git", "slipway", "runs")
    assert not os.path.exists(runs) or os.listdir(runs) == [], os.listdir(runs)
    listing = state_of(run("status", "--json", cwd=repo), "statusList")
    assert listing["runs"] == [] and listing["unavailable_runs"] == [], listing
    # With the index back, the same command starts a Run.
    with open(index, "wb") as f:
        f.write(good)
    st = start(repo, "a goal")
    assert st["state"] == "active" and st["action"]["kind"] == "orient"


def test_skip_of_a_non_current_action_is_stale():
    repo = new_repo()
    st = start(repo)
    rejected_untouched(repo, st["run_id"], ["protocol", "skip", "--run", st["run_id"], "--action",
                                            str(uuid.uuid4())], "stale_action")


def test_skip_while_paused_for_a_decision():
    repo = new_repo()
    st = start(repo)
    submit(repo, st, status="needs_input", pause=decision_pause())
    s = state_of(run("protocol", "skip", "--run", st["run_id"], "--action", st["action"]["action_id"], cwd=repo))
    assert s["state"] == "active" and s["action"]["kind"] == "summarize"


def test_source_option_on_ad_hoc_resume_is_not_allowed():
    repo = new_repo()
    st = start(repo)
    rid = st["run_id"]
    state_of(run("stop", rid, "--json", cwd=repo))
    doc = rejected_untouched(repo, rid, ["protocol", "resume", rid, "--use-pinned-source"], "source_mode_not_allowed")
    assert doc["details"] == {"run_id": rid, "state": "stopped"}
    assert doc["next"]["operation"] == "resume" and variant_ids(doc) == ["resume-ad-hoc"]


def test_material_on_an_ad_hoc_run_is_unavailable():
    repo = new_repo()
    st = start(repo)
    before = os.listdir(run_dir(repo, st["run_id"]))
    assert_cli_error(run("protocol", "material", "--run", st["run_id"], "--action", st["action"]["action_id"],
                         "--section", "goal", cwd=repo), "material_unavailable", 3)
    assert os.listdir(run_dir(repo, st["run_id"])) == before


def test_mutations_on_a_missing_run_are_runtime_errors():
    repo = new_repo()
    start(repo)  # the store exists
    ghost = str(uuid.uuid4())
    act = str(uuid.uuid4())
    path = write_tmp(encode(outcome({"action_id": act, "kind": "orient"})))
    for args in (["protocol", "submit", "--run", ghost, "--action", act, "--outcome-file", path],
                 ["protocol", "skip", "--run", ghost, "--action", act],
                 ["protocol", "answer", "--run", ghost, "--action", act, "--text", "x"],
                 ["protocol", "resume", ghost],
                 ["stop", ghost, "--json"]):
        doc = assert_cli_error(run(*args, cwd=repo), "runtime_error", 3)
        assert not os.path.exists(run_dir(repo, ghost)), args
        assert variant_ids(doc) == ["inspect-run"], (args, doc["next"])
        assert doc["next"]["variants"][0]["base_argv"] == ["slipway", "status", ghost, "--root", repo]


def test_targeted_status_repeats_the_run_next_and_current_action():
    # status RUN --json re-derives the same next and shows the same Action as the run that issued it.
    repo = new_repo()
    st = start(repo)
    status = state_of(run("status", st["run_id"], "--json", cwd=repo), "runStatus")
    assert status["current_action"] == st["action"]
    validate(status["next"], "next")
    assert status["next"] == st["next"]


def test_run_directory_layout_modes_journal_and_projection():
    import stat
    repo = new_repo()
    st = start(repo)
    st = submit(repo, st, suggest="clarify")
    state_of(run("protocol", "skip", "--run", st["run_id"], "--action", st["action"]["action_id"], cwd=repo))
    d = run_dir(repo, st["run_id"])
    for path in (os.path.dirname(os.path.dirname(d)), os.path.dirname(d), d):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o700, path
    for name in ("journal.jsonl", "run.json"):
        assert stat.S_IMODE(os.stat(os.path.join(d, name)).st_mode) == 0o600, name
    records = [json.loads(l) for l in journal_lines(repo, st["run_id"])]
    assert [r["sequence"] for r in records] == [1, 2, 3]
    assert [r["type"] for r in records] == ["run_started", "outcome_submitted", "action_skipped"]
    assert all(set(r) == {"sequence", "type", "at", "data"} for r in records)
    assert all(r["data"]["event_version"] == 2 and r["data"]["run_id"] == st["run_id"] for r in records)
    with open(os.path.join(d, "run.json"), "rb") as f:
        raw = f.read()
    proj = json.loads(raw)
    assert raw.endswith(b"\n") and raw.startswith(b'{\n  "revision": 3,'), raw[:40]
    assert proj["revision"] == 3 and proj["data"]["id"] == st["run_id"]

def test_replay_checkpoint_is_a_cache_the_journal_overrules():
    # After a committed mutation the run directory holds run.checkpoint, so
    # the next one replays only the newer records.  It is only ever a
    # cache: missing, garbage or a symlink means a full replay, and a
    # corrupt earlier journal record is still run_journal_invalid.
    import stat
    repo = new_repo()
    st = start(repo, "update the README", "--budget", "20")
    for _ in range(3):
        st = submit(repo, st, suggest="clarify")
    d = run_dir(repo, st["run_id"])
    cp = os.path.join(d, "run.checkpoint")
    assert stat.S_IMODE(os.lstat(cp).st_mode) == 0o600
    with open(cp, "rb") as f:
        head = f.read().split(b" ")
    assert head[0] == b"slipway-checkpoint/5" and len(head[1]) == 32 and head[2] == b"4", head[:3]
    # Its log of frozen records only grows: the next mutation appends the
    # record it froze to the same file.
    log = os.path.join(d, "run.checkpoint-log")
    assert stat.S_IMODE(os.lstat(log).st_mode) == 0o600
    with open(log, "rb") as f:
        before = f.read()
    ino = os.lstat(log).st_ino
    st = submit(repo, st, suggest="clarify")
    with open(log, "rb") as f:
        after = f.read()
    assert os.lstat(log).st_ino == ino and after.startswith(before) and len(after) > len(before)
    # A log changed in place is not trusted (a full replay writes a new one).
    with open(log, "r+b") as f:
        f.write(b"9")
    st = submit(repo, st, suggest="clarify")
    assert os.lstat(log).st_ino != ino
    with open(log, "rb") as f:
        assert f.read().startswith(after[:1])
    os.unlink(cp)
    st = submit(repo, st, suggest="clarify")
    assert os.path.isfile(cp)
    with open(cp, "wb") as f:
        f.write(b"garbage\n")
    st = submit(repo, st, suggest="clarify")
    os.unlink(cp)
    os.symlink(os.path.join(d, "journal.jsonl"), cp)
    st = submit(repo, st, suggest="clarify")
    assert not os.path.islink(cp)
    assert len(journal_lines(repo, st["run_id"])) == 9
    # An earlier record broken in place, the checkpoint left as it was.
    path = os.path.join(d, "journal.jsonl")
    with open(path, "rb") as f:
        raw = f.read()
    second = raw.index(b"\n") + 1
    broken = raw[:second] + b"X" + raw[second + 1:]
    with open(path, "wb") as f:
        f.write(broken)
    err = rejected_untouched(repo, st["run_id"],
                             ["protocol", "submit", "--run", st["run_id"], "--action",
                              st["action"]["action_id"], "--outcome-file",
                              write_tmp(encode(outcome(st["action"])))], "mutation_not_committed")
    assert err["details"]["phase"] == "replay" and not err["details"]["committed"], err
    assert_cli_error(run("status", st["run_id"], "--json", cwd=repo), "run_journal_invalid", 3)


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
