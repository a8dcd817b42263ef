"""The status listing reads each Run's run.summary (a cache written with
every mutation) instead of replaying its journal.  Whatever happens to the
cache, the journal or the materials, the listing prints exactly what a
replay of the journal prints: here the replay's output is the same
command with every run.summary moved away.  Since both are this program,
each case also states what the listing must hold, from the flow the test
drove: the Runs it lists with their state, budget and Actions, and the
ones it reports unavailable."""

import json
import os
import shutil

from protocol_support import (decision_pause, new_repo, run_dir, start, state_of, submit,
                              tree_digest)
from slipway_e2e import main, run, validate


def _listings(repo):
    human = run("status", cwd=repo)
    doc = run("status", "--json", cwd=repo)
    return (human.code, human.out, human.err, doc.code, doc.out, doc.err)


def _replayed(repo, ids):
    """The listings with no summary to read (each one moved away and back)."""
    moved = []
    for i in ids:
        p = os.path.join(run_dir(repo, i), "run.summary")
        if os.path.lexists(p):
            os.rename(p, p + ".away")
            moved.append(p)
    try:
        return _listings(repo)
    finally:
        for p in moved:
            os.rename(p + ".away", p)


def _assert_as_replayed(repo, ids, what):
    got = _listings(repo)
    want = _replayed(repo, ids)
    assert got == want, "%s: %r != %r" % (what, got, want)
    return got


# What _runs drives, Run by Run: goal, state, pause reason, remaining
# budget (8, or 3 for the second, less one per issued Action), the kind of
# the current Action (none shown for a stopped Run) and how many Actions
# were issued.
DRIVEN = [
    dict(goal="first goal", state="active", pause=None, remaining=7, current="orient", actions=1),
    dict(goal="second goal", state="paused", pause="decision_required", remaining=2, current="orient",
         actions=1),
    dict(goal="third goal", state="active", pause=None, remaining=4, current="clarify", actions=4),
    dict(goal="fourth goal", state="stopped", pause=None, remaining=7, current=None, actions=1),
]
# The codes the reference lists an unavailable Run with.
UNAVAILABLE = ("run_busy", "run_journal_invalid", "run_unavailable")


def _expect(listing, listed, unavailable, what):
    """listing (the _listings tuple) lists exactly the Runs of `listed`
    ({id: DRIVEN entry}) with those fields, in creation order, and reports
    each id of `unavailable` ({id: allowed codes}) under unavailable_runs;
    an id in both may be either (a Run whose material is damaged: shown
    whole or reported, but never missing)."""
    human_code, human, _, code, out, err = listing
    assert code == 0 and human_code == 0, (what, err)
    doc = json.loads(out)
    validate(doc, "statusList")
    got = {r["id"]: r for r in doc["runs"]}
    gone = {u["id"]: u["code"] for u in doc["unavailable_runs"]}
    assert not set(got) & set(gone), (what, doc)
    assert set(got) | set(gone) == set(listed) | set(unavailable), (what, sorted(got), gone)
    for rid, want in listed.items():
        if rid in gone:
            assert rid in unavailable and gone[rid] in unavailable[rid], (what, rid, gone[rid])
            continue
        r = got[rid]
        cur = r.get("current_action")
        assert (r["goal"], r["state"], r.get("pause_reason"), r["remaining_budget"],
                cur["kind"] if cur else None, len(r["actions"])) == \
            (want["goal"], want["state"], want["pause"], want["remaining"], want["current"],
             want["actions"]), (what, rid, want, r)
    for rid, codes in unavailable.items():
        if rid not in listed:
            assert gone.get(rid) in codes, (what, rid, gone)
    order = [r["id"] for r in doc["runs"]]
    assert order == [i for i in listed if i in got], (what, order)
    lines = human.decode().splitlines()
    assert len(lines) == len(got) + len(gone), (what, lines)
    for rid in order:
        line = [l for l in lines if l.startswith(rid + " ")]
        assert len(line) == 1 and line[0].split()[1:3] == [
            got[rid]["state"], "remaining=%d" % got[rid]["remaining_budget"]] and \
            line[0].endswith(" " + got[rid]["goal"]), (what, rid, lines)


def _runs(repo):
    """Four Runs in different states, each with its summary."""
    a = start(repo, "first goal")
    b = start(repo, "second goal", "--budget", "3")
    submit(repo, b, status="needs_input", pause=decision_pause("Which channel?"))
    c = start(repo, "third goal")
    for _ in range(3):
        c = submit(repo, c, suggest="clarify")
    d = start(repo, "fourth goal")
    state_of(run("stop", d["run_id"], "--json", cwd=repo))
    ids = [a["run_id"], b["run_id"], c["run_id"], d["run_id"]]
    for i in ids:
        with open(os.path.join(run_dir(repo, i), "run.summary"), "rb") as f:
            assert f.read().startswith(b"slipway-summary/3 ")
    return ids, c


def test_the_listing_from_summaries_is_the_listing_from_the_journal():
    repo = new_repo()
    ids, _ = _runs(repo)
    out = _assert_as_replayed(repo, ids, "intact summaries")
    _expect(out, dict(zip(ids, DRIVEN)), {}, "intact summaries")
    # Reading them writes nothing.
    before = {i: tree_digest(run_dir(repo, i)) for i in ids}
    _listings(repo)
    assert before == {i: tree_digest(run_dir(repo, i)) for i in ids}


def _rewrite(path, change):
    """Writes path again with change(its bytes)."""
    with open(path, "rb") as f:
        raw = f.read()
    with open(path, "wb") as f:
        f.write(change(raw))


def _material(repo, run_id):
    mdir = os.path.join(run_dir(repo, run_id), "materials")
    return os.path.join(mdir, sorted(os.listdir(mdir))[0])


def test_damage_to_materials_journal_or_summary_lists_as_the_replay_does():
    def rewrite_material(repo, ids, c):
        p = _material(repo, ids[0])
        with open(p, "r+b") as f:
            f.write(b"X")

    def same_bytes_again(repo, ids, c):
        _rewrite(_material(repo, ids[0]), lambda raw: raw)

    def remove_material(repo, ids, c):
        os.unlink(_material(repo, ids[2]))

    def append_to_journal(repo, ids, c):
        with open(os.path.join(run_dir(repo, ids[1]), "journal.jsonl"), "ab") as f:
            f.write(b"not-json\n")

    def journal_byte_in_place(repo, ids, c):
        def second_record_broken(raw):
            second = raw.index(b"\n") + 1
            return raw[:second] + b"X" + raw[second + 1:]
        _rewrite(os.path.join(run_dir(repo, ids[2]), "journal.jsonl"), second_record_broken)

    def garbage_summary(repo, ids, c):
        with open(os.path.join(run_dir(repo, ids[0]), "run.summary"), "wb") as f:
            f.write(b"slipway-summary/2 1 x 0 0 0 y\n")

    def forged_state(repo, ids, c):
        _rewrite(os.path.join(run_dir(repo, ids[0]), "run.summary"),
                 lambda raw: raw.replace(b'"state":"active"', b'"state":"paused"'))

    def another_runs_summary(repo, ids, c):
        shutil.copyfile(os.path.join(run_dir(repo, ids[1]), "run.summary"),
                        os.path.join(run_dir(repo, ids[0]), "run.summary"))

    def summary_as_symlink(repo, ids, c):
        p = os.path.join(run_dir(repo, ids[0]), "run.summary")
        os.unlink(p)
        os.symlink(os.path.join(run_dir(repo, ids[1]), "run.summary"), p)

    def stale_summary_put_back(repo, ids, c):
        p = os.path.join(run_dir(repo, c["run_id"]), "run.summary")
        shutil.copyfile(p, p + ".old")
        submit(repo, c, suggest="clarify")
        os.replace(p + ".old", p)

    def run_directory_renamed(repo, ids, c):
        old = run_dir(repo, ids[3])
        os.rename(old, os.path.join(os.path.dirname(old), "renamed-run"))

    # What each damage leaves: the index of a Run whose material is
    # damaged (shown whole or reported unavailable), of a Run whose journal
    # is (reported run_journal_invalid), and the changes to DRIVEN.
    cases = [
        (rewrite_material, dict(material=0)),
        (same_bytes_again, {}),
        (remove_material, dict(material=2)),
        (append_to_journal, dict(journal=1)),
        (journal_byte_in_place, dict(journal=2)),
        (garbage_summary, {}),
        (forged_state, {}),
        (another_runs_summary, {}),
        (summary_as_symlink, {}),
        (stale_summary_put_back, dict(driven={2: dict(remaining=3, actions=5)})),
        (run_directory_renamed, dict(renamed=3)),
    ]
    for damage, leaves in cases:
        repo = new_repo()
        ids, c = _runs(repo)
        damage(repo, ids, c)
        out = _assert_as_replayed(repo, ids + ["renamed-run"], damage.__name__)
        listed = {i: dict(DRIVEN[k], **leaves.get("driven", {}).get(k, {})) for k, i in enumerate(ids)}
        unavailable = {}
        if "material" in leaves:
            unavailable[ids[leaves["material"]]] = ("run_unavailable",)
        if "journal" in leaves:
            del listed[ids[leaves["journal"]]]
            unavailable[ids[leaves["journal"]]] = ("run_journal_invalid",)
        if "renamed" in leaves:
            # a directory whose name is not its journal's run id
            del listed[ids[leaves["renamed"]]]
            unavailable["renamed-run"] = UNAVAILABLE
        _expect(out, listed, unavailable, damage.__name__)


def test_a_run_without_a_summary_is_listed_by_replay_and_gets_none_back():
    # A summary lists every material the Run holds; once one is missing
    # the next mutation cannot know them all and writes none.
    repo = new_repo()
    st = start(repo, "a goal")
    p = os.path.join(run_dir(repo, st["run_id"]), "run.summary")
    os.unlink(p)
    st = submit(repo, st, suggest="clarify")
    assert not os.path.lexists(p)
    out = _assert_as_replayed(repo, [st["run_id"]], "no summary")
    _expect(out, {st["run_id"]: dict(goal="a goal", state="active", pause=None, remaining=6,
                                      current="clarify", actions=2)}, {}, "no summary")


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
