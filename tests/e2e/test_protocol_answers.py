"""Ad-hoc Runs end to end: answers (decision, destructive confirmation and
its one-shot grant, supersession), budget exhaustion and resume."""

import json
import os
import uuid

from protocol_support import (decision_pause, destructive_pause, encode, impl, journal_lines, new_repo, outcome,
                              rejected_untouched, run_dir, scope_sha256, start, state_of, submit, variant_ids,
                              write_tmp)
from slipway_e2e import assert_cli_error, main, run


def _last_event(repo, run_id):
    return json.loads(journal_lines(repo, run_id)[-1])["type"]


def _status(repo, run_id):
    return state_of(run("status", run_id, "--json", cwd=repo), "runStatus")


def test_resume_of_a_run_waiting_for_an_answer_is_not_resumable():
    repo = new_repo()
    st = start(repo)
    submit(repo, st, status="needs_input", pause=decision_pause())
    doc = rejected_untouched(repo, st["run_id"], ["protocol", "resume", st["run_id"]], "run_not_resumable")
    assert doc["next"]["operation"] == "answer"


def test_skip_while_waiting_for_destruction_clears_the_request():
    repo = new_repo()
    st = start(repo, "skip destruction", "--no-review")
    st = submit(repo, st, suggest="implement")
    submit(repo, st, status="needs_input", pause=destructive_pause([{"kind": "data_domain", "value": "users"}]))
    assert "pending_destructive_request" in _status(repo, st["run_id"])
    s = state_of(run("protocol", "skip", "--run", st["run_id"], "--action", st["action"]["action_id"], cwd=repo))
    assert s["action"]["kind"] == "summarize"
    status = _status(repo, st["run_id"])
    assert "pending_destructive_request" not in status and "destructive_grant" not in status


def test_answers_decision_blank_and_not_expected():
    repo = new_repo()
    st = start(repo, "choose a channel")
    rid, aid = st["run_id"], st["action"]["action_id"]
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid, "--text", "x"],
                       "answer_not_expected")
    paused = submit(repo, st, status="needs_input", pause=decision_pause())
    assert "action" in paused and paused["action"]["action_id"] == aid
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid, "--text", "   "],
                       "answer_required")
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid, "--text", "x",
                                   "--confirm-destructive", "--scope-sha256", "sha256:" + "0" * 64],
                       "destructive_confirmation_not_expected")
    ans = state_of(run("protocol", "answer", "--run", rid, "--action", aid, "--text", "use email", cwd=repo))
    assert ans["state"] == "active" and ans["action"]["kind"] == "orient"
    assert ans["action"]["action_id"] != aid
    assert "Decisions:\n- action %s decision:\n  use email\n" % aid in ans["action"]["context"], ans["action"]["context"]
    assert _last_event(repo, rid) == "answer_recorded"
    n = len(journal_lines(repo, rid))
    again = state_of(run("protocol", "answer", "--run", rid, "--action", aid, "--text", "use email", cwd=repo))
    assert again == ans, "the same answer replays"
    again = state_of(run("protocol", "answer", "--run", rid, "--action", aid, "--text-stdin", cwd=repo,
                         stdin=b"use email"))
    assert again == ans, "the same text through stdin is the same answer"
    again = state_of(run("protocol", "answer", "--run", rid, "--action", aid, "--text-file",
                         write_tmp(b"use email", ".txt"), cwd=repo))
    assert again == ans
    assert len(journal_lines(repo, rid)) == n, "replays write nothing"
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid, "--text", "other"],
                       "answer_conflict")


def test_destructive_decline_mismatch_confirm_and_one_shot_grant():
    repo = new_repo()
    st = start(repo, "delete exact target", "--budget", "20", "--no-review")
    rid = st["run_id"]
    st = submit(repo, st, suggest="implement")
    targets = [{"kind": "path", "value": "/absolute/target with spaces"}]
    pause = destructive_pause(targets)
    digest = pause["destructive_request"]["scope_sha256"]
    paused = submit(repo, st, status="needs_input", summary="confirmation required", pause=pause)
    assert paused["pause_reason"] == "destructive_confirmation_required"
    assert variant_ids(paused) == ["confirm-destructive", "decline-or-feedback", "skip-action"]
    confirm = paused["next"]["variants"][0]
    assert confirm["base_argv"][-2:] == ["--confirm-destructive", "--scope-sha256"] or digest in confirm["base_argv"]
    assert digest in confirm["base_argv"]
    aid = st["action"]["action_id"]

    declined = state_of(run("protocol", "answer", "--run", rid, "--action", aid, "--text", "no, keep it", cwd=repo))
    assert declined["action"]["kind"] == "orient"
    assert "destructive_authorization" not in declined["action"]

    st = submit(repo, declined, suggest="implement")
    pause = destructive_pause(targets)
    digest = pause["destructive_request"]["scope_sha256"]
    submit(repo, st, status="needs_input", summary="confirmation required", pause=pause)
    aid = st["action"]["action_id"]
    wrong = "sha256:" + ("1" * 64 if digest[-1] != "1" else "2" * 64)
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid,
                                   "--confirm-destructive", "--scope-sha256", wrong], "destructive_scope_mismatch")
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid,
                                   "--scope-sha256", digest], "destructive_confirmation_pair_required", 2)
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid,
                                   "--confirm-destructive", "--scope-sha256", digest.upper()],
                       "destructive_scope_required")
    rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid, "--text", " "],
                       "answer_required")
    granted = state_of(run("protocol", "answer", "--run", rid, "--action", aid,
                           "--confirm-destructive", "--scope-sha256", digest, cwd=repo))
    act = granted["action"]
    assert act["kind"] == "implement" and act["action_id"] != aid
    auth = act["destructive_authorization"]
    assert auth["scope_sha256"] == digest and auth["targets"] == targets
    assert auth["originating_action_id"] == aid
    assert auth["request_id"] == pause["destructive_request"]["request_id"]
    assert auth["confirmed_at"].endswith("Z")

    # The grant is one-shot: the next Action carries no authorization.
    nxt = submit(repo, granted, implementation=impl("not_needed"))
    assert "destructive_authorization" not in nxt.get("action", {}), nxt


def test_environment_pause_is_resumed_not_answered():
    repo = new_repo()
    st = start(repo)
    rid, aid = st["run_id"], st["action"]["action_id"]
    pause = {"reason": "environment_unavailable", "question": "Start the database?", "destructive_request": None}
    paused = submit(repo, st, status="needs_input", pause=pause)
    assert paused["pause_reason"] == "environment_unavailable"
    assert variant_ids(paused) == ["resume-ad-hoc", "skip-action"]
    doc = rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid, "--text", "done"],
                             "answer_not_allowed")
    assert variant_ids(doc) == ["resume-ad-hoc"], "answer_not_allowed carries the resume-only next"
    res = state_of(run("protocol", "resume", rid, cwd=repo))
    assert res["action"]["kind"] == "orient" and res["action"]["action_id"] != aid


def test_destructive_confirmation_without_budget_is_committed_then_reported():
    repo = new_repo()
    st = start(repo, "delete with no budget left", "--budget", "2", "--no-review")
    rid = st["run_id"]
    st = submit(repo, st, suggest="implement")
    assert st["action"]["remaining_budget"] == 0
    pause = destructive_pause([{"kind": "git_ref", "value": "refs/heads/old"}])
    digest = pause["destructive_request"]["scope_sha256"]
    submit(repo, st, status="needs_input", pause=pause)
    aid = st["action"]["action_id"]
    n = len(journal_lines(repo, rid))
    args = ("protocol", "answer", "--run", rid, "--action", aid, "--confirm-destructive", "--scope-sha256", digest)
    doc = assert_cli_error(run(*args, cwd=repo), "budget_exhausted", 3)
    assert doc["details"] == {"run_id": rid, "state": "paused"}
    assert variant_ids(doc) == ["resume-ad-hoc"]
    assert len(journal_lines(repo, rid)) == n + 1, "the confirmation is journaled although reported as an error"
    status = state_of(run("status", rid, "--json", cwd=repo), "runStatus")
    assert status["pause_reason"] == "budget_exhausted" and "current_action" not in status
    # The exact replay raises the same error and writes nothing.
    assert_cli_error(run(*args, cwd=repo), "budget_exhausted", 3)
    assert len(journal_lines(repo, rid)) == n + 1


def test_destructive_request_with_a_wrong_digest_is_a_semantic_error():
    repo = new_repo()
    st = start(repo, "bad request", "--no-review")
    st = submit(repo, st, suggest="implement")
    pause = destructive_pause([{"kind": "path", "value": "a"}])
    pause["destructive_request"]["scope_sha256"] = "sha256:" + "0" * 64
    path = write_tmp(encode(outcome(st["action"], status="needs_input", pause=pause)))
    err = rejected_untouched(repo, st["run_id"], ["protocol", "submit", "--run", st["run_id"], "--action",
                                                  st["action"]["action_id"], "--outcome-file", path],
                             "invalid_outcome", 3)
    assert err["next"]["operation"] == "action"


def test_decision_answer_without_budget_pauses_and_replays():
    repo = new_repo()
    st = start(repo, "no budget to re-orient", "--budget", "1")
    rid, aid = st["run_id"], st["action"]["action_id"]
    submit(repo, st, status="needs_input", pause=decision_pause())
    first = run("protocol", "answer", "--run", rid, "--action", aid, "--text", "go", cwd=repo)
    doc = state_of(first)
    assert doc["state"] == "paused" and doc["pause_reason"] == "budget_exhausted" and "action" not in doc
    n = len(journal_lines(repo, rid))
    again = run("protocol", "answer", "--run", rid, "--action", aid, "--text", "go", cwd=repo)
    assert again.code == 0 and again.out == first.out
    assert len(journal_lines(repo, rid)) == n


def test_superseding_an_unknown_answer_is_rejected():
    repo = new_repo()
    st = start(repo)
    pause = decision_pause()
    pause["supersedes_answer_action_id"] = str(uuid.uuid4())
    path = write_tmp(encode(outcome(st["action"], status="needs_input", pause=pause)))
    rejected_untouched(repo, st["run_id"], ["protocol", "submit", "--run", st["run_id"], "--action",
                                            st["action"]["action_id"], "--outcome-file", path],
                       "invalid_decision_supersession")


def test_superseding_an_active_answer_marks_it_inactive():
    repo = new_repo()
    st = start(repo, "two decisions", "--budget", "20")
    rid, first = st["run_id"], st["action"]["action_id"]
    submit(repo, st, status="needs_input", pause=decision_pause("Which channel?"))
    st = state_of(run("protocol", "answer", "--run", rid, "--action", first, "--text", "email", cwd=repo))
    pause = decision_pause("Email or SMS after all?")
    pause["supersedes_answer_action_id"] = first
    submit(repo, st, status="needs_input", pause=pause)
    second = st["action"]["action_id"]
    st = state_of(run("protocol", "answer", "--run", rid, "--action", second, "--text", "sms", cwd=repo))
    answers = {a["action_id"]: a for a in state_of(run("status", rid, "--json", cwd=repo), "runStatus")["answers"]}
    assert answers[first]["active"] is False and answers[first]["superseded_by"] == second, answers
    assert answers[second]["active"] is True
    ctx = st["action"]["context"]
    assert "  sms\n" in ctx and "  email\n" not in ctx, ctx


def test_budget_one_exhausts_then_resume_replenishes():
    repo = new_repo()
    st = start(repo, "tiny budget", "--budget", "1")
    assert st["action"]["remaining_budget"] == 0
    rid = st["run_id"]
    paused = submit(repo, st, suggest="implement")
    assert paused["state"] == "paused" and paused["pause_reason"] == "budget_exhausted"
    assert "action" not in paused
    assert paused["next"]["operation"] == "resume" and variant_ids(paused) == ["resume-ad-hoc"]
    assert paused["next"]["variants"][0]["base_argv"] == ["slipway", "protocol", "resume", rid, "--root", repo]

    res = state_of(run("protocol", "resume", rid, cwd=repo))
    assert _last_event(repo, rid) == "run_resumed"
    assert res["resume_operation"] == "ad_hoc_resumed" and res["budget_applied"] is True
    assert res["action"]["kind"] == "orient"
    assert res["action"]["remaining_budget"] == 2, "max(initial=1, 3) - 1"

    rejected_untouched(repo, rid, ["protocol", "resume", rid], "run_not_resumable")

    state_of(run("stop", rid, "--json", cwd=repo))
    res = state_of(run("protocol", "resume", rid, "--budget", "5", cwd=repo))
    assert res["action"]["remaining_budget"] == 4


def test_resume_keeps_a_positive_remainder():
    repo = new_repo()
    st = start(repo, "keep remainder", "--budget", "6")
    rid = st["run_id"]
    state_of(run("stop", rid, "--json", cwd=repo))
    res = state_of(run("protocol", "resume", rid, cwd=repo))
    assert res["action"]["remaining_budget"] == 4, "5 left, one spent on the new Orient"

def _paused_for_destruction():
    """A Run paused for a destructive confirmation: (repo, run id, waiting
    Action id, the request)."""
    repo = new_repo()
    st = start(repo, "delete exact target", "--no-review")
    st = submit(repo, st, suggest="implement")
    pause = destructive_pause([{"kind": "path", "value": "a"}])
    paused = submit(repo, st, status="needs_input", pause=pause)
    assert paused["pause_reason"] == "destructive_confirmation_required"
    return repo, st["run_id"], st["action"]["action_id"], pause["destructive_request"]


def _damage_last_record(repo, rid, change):
    """Rewrites the journal's last record (the pause) with change(its data)."""
    path = os.path.join(run_dir(repo, rid), "journal.jsonl")
    lines = journal_lines(repo, rid)
    rec = json.loads(lines[-1])
    assert rec["type"] == "outcome_submitted"
    change(rec["data"])
    lines[-1] = json.dumps(rec, separators=(",", ":"), ensure_ascii=False).encode()
    with open(path, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")


def test_a_damaged_destructive_pause_is_refused_with_the_references_codes():
    """The request a destructive pause waits on is re-validated before any
    answer, in the reference's order; only a damaged journal gets past the
    replay with one of these, and the answer changes nothing."""
    def no_pending_request(data):
        del data["set"]["pending_destructive_request"]

    def pending_request_that_does_not_verify(data):
        data["set"]["pending_destructive_request"]["impact"] += ", and the backups"

    def another_valid_request(data):
        req = data["set"]["pending_destructive_request"]
        req["targets"] = [{"kind": "path", "value": "b"}]
        req["scope_sha256"] = scope_sha256(req["request_id"], req["targets"], req["impact"])

    def an_older_grant_kept(data):
        req = data["set"]["pending_destructive_request"]
        data["set"]["destructive_grant"] = dict(
            req, originating_action_id=str(uuid.uuid4()), scope_version=1,
            confirmed_at="2026-01-01T00:00:00Z")

    for damage, code in ((no_pending_request, "destructive_request_missing"),
                         (pending_request_that_does_not_verify, "invalid_destructive_request"),
                         (another_valid_request, "destructive_scope_changed"),
                         (an_older_grant_kept, "destructive_grant_conflict")):
        repo, rid, aid, req = _paused_for_destruction()
        _damage_last_record(repo, rid, damage)
        for answer in (["--confirm-destructive", "--scope-sha256", req["scope_sha256"]],
                       ["--text", "no, keep it"]):
            err = rejected_untouched(repo, rid, ["protocol", "answer", "--run", rid, "--action", aid] + answer,
                                     code)
            assert err["details"]["run_id"] == rid and err["details"]["state"] == "paused", (code, err)
            assert err["message"], (code, err)


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
