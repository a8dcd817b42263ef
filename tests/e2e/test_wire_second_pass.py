"""Wire details checked against the reference's observable behaviour: the
resume next of a Run that cannot resume, tolerant envelope decoding, the exact
JSON bytes on stdout and in the journal, and the run lock's mode."""

import json
import os
import stat

from slipway_e2e import assert_cli_error, main, run, scratch_repo, validate
from test_issue_backed import (fixture, invalid_candidate_run, observations, refresh,
                               resume, runs_dir, start, stopped_run)


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


TESTS = [
    test_a_choice_conflict_on_an_ended_run_offers_no_resume,
    test_errors_while_a_candidate_waits_offer_the_candidate_choices,
]

if __name__ == "__main__":
    main(TESTS)
