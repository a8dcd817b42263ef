"""The report a person reads (`status RUN`, `status RUN --markdown`, the
ended Run's `summary`), fact by fact and section by section, for the flows
hosts drive: a plain Run, a decision, a destructive confirmation and a
decline, a skipped Review, --no-review, a budget pause and an Issue-backed
Run with an amendment.  Every Run starts in a repository where `slipway
install` left its capability files untracked, as a new user's would.  The
Markdown form is read with a real Markdown parser (markdown-it-py, Debian's
python3-markdown-it) and must carry the text form's facts."""

import os
import re
import shutil
import subprocess

from markdown_it import MarkdownIt

from protocol_support import (decision_pause, destructive_pause, impl, new_repo, review_block,
                              start, state_of, submit)
from slipway_e2e import assert_cli_error, main, run
import test_issue_backed as ib

# The sections in the order the report prints them (tables/report_sections.def).
TITLES = ["What changed", "Destructive work", "Decisions", "Review", "Checks", "Requirements",
          "Known issues", "Uncertainties", "Observations", "Skipped and voided Actions",
          "Action log", "Dirty before the Run"]
FINAL = "SUMMARIZE-TEXT: the two files are gone; test_mean still fails as before."


def installed_repo():
    """A repository with three committed files and slipway's claude
    capabilities installed (untracked); returns (repo, installed count)."""
    repo = new_repo()
    for name, text in (("old_a.txt", "a\n"), ("old_b.txt", "b\n"), ("keep.py", "x = 1\n")):
        with open(os.path.join(repo, name), "w") as f:
            f.write(text)
    subprocess.run(["git", "-C", repo, "add", "."], check=True)
    subprocess.run(["git", "-C", repo, "commit", "-qm", "files"], check=True)
    res = run("install", "--tool", "claude", cwd=repo)
    assert res.code == 0, res.err
    out = subprocess.run(["git", "-C", repo, "status", "--porcelain", "-uall"], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    n = len([l for l in out if l.startswith("?? .claude/")])
    assert n > 5, out
    return repo, n


def write(repo, name, text):
    with open(os.path.join(repo, name), "w") as f:
        f.write(text)


def report(repo, rid, *flags):
    res = run("status", rid, *flags, cwd=repo)
    assert res.code == 0 and res.err == b"", res.err
    return res.out.decode()


def sections(text):
    """{title: body} of the text report; a section that says " none." has
    the body "none"."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^(%s):( none\.)?$" % "|".join(map(re.escape, TITLES)), line)
        if m:
            cur = m.group(1)
            out[cur] = "none" if m.group(2) else ""
        elif line.startswith("Next choices:"):
            cur = None
        elif cur is not None and line:
            out[cur] += line + "\n"
    return out


def md_sections(text):
    """{h2 title: [tokens]} of the Markdown report, parsed by markdown-it."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    out, cur = {}, None
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.tag == "h2":
            cur = tokens[i + 1].content
            out[cur] = []
        elif cur is not None:
            out[cur].append(t)
    return out, tokens


def table_rows(tokens):
    """The rows of the first table among tokens, each a list of cell texts."""
    rows, row = [], None
    for t in tokens:
        if t.type == "tr_open":
            row = []
        elif t.type == "tr_close":
            rows.append(row)
            row = None
        elif t.type == "inline" and row is not None:
            row.append("".join(c.content for c in t.children))
        elif t.type == "table_close":
            break
    return rows


def md_text(tokens):
    return "\n".join(t.content for t in tokens if t.type == "inline")


def md_plain(tokens):
    """What a reader sees of the inline tokens: text and code, markup gone."""
    out = []
    for t in tokens:
        if t.type == "inline":
            out.append("".join(c.content for c in t.children
                               if c.type in ("text", "code_inline", "softbreak", "html_inline")
                               or c.type.endswith("break")))
    return "\n".join(out)


def installed_line(n):
    return "%d files installed by slipway for claude" % n


def assert_no_installed_path(text):
    assert ".claude/" not in text, text


def assert_summary_once(text, final=FINAL):
    assert text.count(final) == 1, text


def finish(repo, st, summary=FINAL):
    while st["state"] != "ended":
        kind = st["action"]["kind"]
        if kind == "review":
            st = submit(repo, st, summary="Reviewed.", review=review_block())
        elif kind == "summarize":
            st = submit(repo, st, summary=summary)
        else:
            st = submit(repo, st, summary="%s done." % kind)
    return st


def destructive_run(repo, decline=False):
    """orient, a destructive request for two files, confirmed (then both
    files deleted, keep.py edited and NOTES.md added without reporting it)
    or declined, then review and summarize."""
    st = start(repo, "remove the two obsolete files")
    st = submit(repo, st, summary="old_a.txt and old_b.txt are unused.", suggest="implement")
    targets = [{"kind": "path", "value": "old_a.txt"}, {"kind": "path", "value": "old_b.txt"}]
    pause = destructive_pause(targets, impact="both files are deleted from the worktree")
    st = submit(repo, st, status="needs_input", pause=pause)
    aid = st["action"]["action_id"]
    if decline:
        st = state_of(run("protocol", "answer", "--run", st["run_id"], "--action", aid,
                          "--text", "No, keep them.\n", cwd=repo))
        return finish(repo, st), pause
    st = state_of(run("protocol", "answer", "--run", st["run_id"], "--action", aid,
                      "--confirm-destructive", "--scope-sha256",
                      pause["destructive_request"]["scope_sha256"], cwd=repo))
    os.unlink(os.path.join(repo, "old_a.txt"))
    os.unlink(os.path.join(repo, "old_b.txt"))
    write(repo, "NOTES.md", "notes\n")
    write(repo, "keep.py", "x = 2\n")
    im = impl("applied", ["old_a.txt", "old_b.txt", "keep.py"])
    im["activities"] = [{"kind": "test", "command": "make test", "exit_code": 1,
                         "summary": "test_mean fails"}]
    st = submit(repo, st, summary="Deleted old_a.txt and old_b.txt.", implementation=im)
    st = submit(repo, st, summary="Reviewed the deletion.", review=review_block())
    st = submit(repo, st, summary=FINAL + "\n\n")
    return st, pause


# ---- the flows ---------------------------------------------------------------

def test_destructive_confirm_report_leads_with_changes_and_the_confirmation():
    repo, n = installed_repo()
    st, pause = destructive_run(repo)
    assert st["state"] == "ended"
    text = report(repo, st["run_id"])
    s = sections(text)
    assert list(s) == [t for t in TITLES if t in s] and "Requirements" not in s, list(s)
    # The goal and the outcome lead, in one line each.
    first, second = text.splitlines()[:2]
    assert first == "Run %s ended: remove the two obsolete files" % st["run_id"], first
    assert second.startswith("Outcome: ended after 5 Actions") and "2 destructive targets confirmed" in second
    # What changed: every path Git saw change, with its kind; an added file
    # the host did not report is listed as added.
    changes = s["What changed"]
    assert "  - added: NOTES.md (not reported by the host)\n" in changes, changes
    assert "  - deleted: old_a.txt (reported)\n" in changes and "  - deleted: old_b.txt (reported)\n" in changes
    assert "  - modified: keep.py (reported)\n" in changes, changes
    # The confirmation with its targets, impact, time and the Action that carried it out.
    dw = s["Destructive work"]
    answered = run("status", st["run_id"], "--json", cwd=repo).json_out()
    at = [a for a in answered["answers"] if a["confirm_destructive"]][0]["at"]
    assert "confirmed by the person at %s; carried out by implement " % at in dw, dw
    assert "(completed)" in dw and "targets: path old_a.txt; path old_b.txt\n" in dw, dw
    assert "impact: both files are deleted from the worktree\n" in dw, dw
    assert s["Decisions"] == "none"
    assert "no_findings_reported: Reviewed the deletion." in s["Review"]
    assert "test `make test` exited 1: test_mean fails" in s["Checks"]
    # Uncertainties in plain words, not the code alone.
    assert "2 deleted files could not be fingerprinted" in s["Uncertainties"], s["Uncertainties"]
    assert "git_content_observation_incomplete" not in text and "attribution note" not in text
    # slipway's own files: one line, never one by one; the Summarize text once.
    assert installed_line(n) in s["Dirty before the Run"], s["Dirty before the Run"]
    assert_no_installed_path(text)
    assert_summary_once(text)
    assert "5. summarize " in s["Action log"] and "its report is the Final report" in s["Action log"]
    assert len(text.encode()) <= 2500, "%d bytes:\n%s" % (len(text.encode()), text)
    # The summary the host relays carries the same facts.
    summary = st["summary"]
    assert summary == answered["summary"]
    for fact in ("added: NOTES.md (not reported by the host)", "deleted: old_a.txt (reported)",
                 "targets: path old_a.txt; path old_b.txt", "impact: both files are deleted",
                 "confirmed by the person at " + at, installed_line(n)):
        assert fact in summary, (fact, summary)
    assert_no_installed_path(summary)
    assert_summary_once(summary)
    # The Review and Summarize briefs name slipway's files in one line.
    for a in answered["actions"]:
        if a["action"]["kind"] in ("review", "summarize"):
            assert installed_line(n) + " (managed files and install records)" in a["action"]["brief"], \
                a["action"]["brief"]
            assert_no_installed_path(a["action"]["brief"])


def test_markdown_report_parses_and_carries_the_text_facts():
    repo, n = installed_repo()
    st, _ = destructive_run(repo)
    text = report(repo, st["run_id"])
    md = report(repo, st["run_id"], "--markdown")
    s = sections(text)
    ms, tokens = md_sections(md)
    h1 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h1"]
    assert h1 == ["remove the two obsolete files"], h1
    # The same sections in the same order, the Final report first.
    assert list(ms) == ["Final report"] + list(s), (list(ms), list(s))
    # What changed is a table whose rows are the text's changes.
    got = {tuple(r) for r in table_rows(ms["What changed"])[1:]}
    want = set()
    for m in re.finditer(r"  - (\w[\w ,]*): (\S+) \((reported|not reported by the host)\)", s["What changed"]):
        want.add((m.group(2), m.group(1), "yes" if m.group(3) == "reported" else "no"))
    assert got == want, (got, want, md)
    assert installed_line(n) in md_text(ms["What changed"] + ms["Dirty before the Run"]) or \
        installed_line(n) in md_text(ms["Dirty before the Run"])
    dw = md_text(ms["Destructive work"])
    for fact in ("confirmed by the person at", "old_a.txt", "old_b.txt", "both files are deleted"):
        assert fact in dw, (fact, dw)
    assert md_plain(tokens).count(FINAL) == 1 and ".claude/" not in md
    assert "Next choices" not in md


def test_plain_run_with_an_unreported_file():
    repo, n = installed_repo()
    st = start(repo, "add a greeting")
    st = submit(repo, st, summary="Plan: greet.", suggest="implement")
    write(repo, "greet.py", "print('hi')\n")
    write(repo, "scratch.log", "left behind\n")
    st = submit(repo, st, summary="Added greet.py.", implementation=impl("applied", ["greet.py", "docs.md"]))
    st = finish(repo, st)
    s = sections(report(repo, st["run_id"]))
    assert "  - added: greet.py (reported)\n" in s["What changed"], s
    assert "  - added: scratch.log (not reported by the host)\n" in s["What changed"], s
    assert "reported by the host, but Git shows no change: docs.md" in s["What changed"], s
    assert s["Destructive work"] == "none" and s["Decisions"] == "none"
    assert "added: scratch.log (not reported by the host)" in st["summary"]
    assert_no_installed_path(st["summary"])


def test_a_manifest_claims_only_slipways_own_files_as_they_were_written():
    # A claim outside the host's folders, or a claimed file whose bytes
    # changed since install, is listed like any other path.
    import json
    repo, n = installed_repo()
    mpath = os.path.join(repo, ".claude", "slipway", "ownership-manifest.json")
    with open(mpath) as f:
        manifest = json.load(f)
    st = start(repo, "forge")
    write(repo, "keep.py", "x = 9\n")
    import hashlib
    manifest["files"].append({"path": "keep.py", "sha256": hashlib.sha256(b"x = 9\n").hexdigest()})
    with open(mpath, "w") as f:
        json.dump(manifest, f)
    claimed = manifest["files"][0]["path"]
    with open(os.path.join(repo, claimed), "a") as f:
        f.write("edited\n")
    st = finish(repo, submit(repo, st, summary="go", suggest="implement"))
    s = sections(report(repo, st["run_id"]))
    assert "  - modified: keep.py (not reported by the host)\n" in s["What changed"], s
    # The claimed file was untracked when the Run started: dirty before it.
    assert "  - modified: %s (not reported by the host; also dirty before the Run)\n" % claimed \
        in s["What changed"], s


def test_decision_is_printed_with_its_question_and_the_trimmed_answer():
    repo, _ = installed_repo()
    st = start(repo, "pick a format")
    st = submit(repo, st, status="needs_input", pause=decision_pause("Which format?\nJSON or text?"))
    live = report(repo, st["run_id"])
    assert "Pending question: Which format? JSON or text?\n" in live, live
    st = state_of(run("protocol", "answer", "--run", st["run_id"], "--action", st["action"]["action_id"],
                      "--text", "  Use JSON.\n\n", cwd=repo))
    so_far = sections(report(repo, st["run_id"]))
    # The Action the decision belongs to is named, as the log names it.
    full = run("status", st["run_id"], "--json", cwd=repo).json_out()
    asked = "  - Q (orient %s): Which format? JSON or text?\n    A: Use JSON.\n" % full["answers"][0]["action_id"][:8]
    assert so_far["Decisions"] == asked, so_far
    assert "closed by the person's answer" in so_far["Skipped and voided Actions"]
    st = finish(repo, st)
    assert asked[4:] in st["summary"], st["summary"]


def test_destructive_decline_is_reported_with_its_targets():
    repo, n = installed_repo()
    st, _ = destructive_run(repo, decline=True)
    s = sections(report(repo, st["run_id"]))
    dw = s["Destructive work"]
    assert "  - declined by the person: No, keep them.\n" in dw, dw
    assert "targets: path old_a.txt; path old_b.txt" in dw and "impact: both files" in dw, dw
    assert s["What changed"] == "none" and s["Decisions"] == "none", s
    assert "declined by the person: No, keep them." in st["summary"]


def test_skipped_review_and_no_review():
    repo, _ = installed_repo()
    st = start(repo, "edit keep.py")
    st = submit(repo, st, summary="go", suggest="implement")
    write(repo, "keep.py", "x = 3\n")
    st = submit(repo, st, implementation=impl("applied", ["keep.py"]))
    assert st["action"]["kind"] == "review"
    st = state_of(run("protocol", "skip", "--run", st["run_id"], "--action", st["action"]["action_id"],
                      cwd=repo))
    st = finish(repo, st)
    s = sections(report(repo, st["run_id"]))
    assert s["Review"] == "  - Review was skipped by the user.\n", s["Review"]
    assert re.search(r"  - review \w{8}: skipped by the user\n", s["Skipped and voided Actions"]), s
    assert "  - modified: keep.py (reported)\n" in s["What changed"]

    repo, _ = installed_repo()
    st = start(repo, "edit keep.py", "--no-review")
    st = submit(repo, st, summary="go", suggest="implement")
    write(repo, "keep.py", "x = 4\n")
    st = finish(repo, submit(repo, st, implementation=impl("applied", ["keep.py"])))
    s = sections(report(repo, st["run_id"]))
    assert "Review was disabled for this Run" in s["Review"], s["Review"]


def test_budget_pause_reports_so_far():
    repo, n = installed_repo()
    st = start(repo, "small budget", "--budget", "2")
    st = submit(repo, st, summary="go", suggest="implement")
    write(repo, "half.txt", "partial\n")
    st = submit(repo, st, implementation=impl("applied", ["half.txt"]))
    assert st["pause_reason"] == "budget_exhausted", st
    text = report(repo, st["run_id"])
    assert text.startswith("Run %s paused (budget_exhausted): small budget\nSo far: 2 Actions" % st["run_id"])
    assert "0 of 2 budget left" in text.splitlines()[1]
    s = sections(text)
    assert "  - added: half.txt (reported)\n" in s["What changed"], s
    assert installed_line(n) in s["Dirty before the Run"] and ".claude/" not in text
    assert "Next choices:" in text


def test_known_issues_are_those_of_the_last_report_and_checks_mark_old_failures():
    repo, _ = installed_repo()
    st = start(repo, "fix mean")
    st = submit(repo, st, summary="found it", suggest="implement")
    # Orient saw a bug; Implement fixes it and reports the old test failure.
    rec = run("status", st["run_id"], "--json", cwd=repo).json_out()
    write(repo, "keep.py", "x = 5\n")
    im = impl("applied", ["keep.py"])
    im["activities"] = [{"kind": "test", "command": "make lint", "exit_code": 2, "summary": "lint fails"}]
    from protocol_support import encode, outcome, submit_raw
    o = outcome(st["action"], implementation=im)
    o["known_issues"] = ["`make lint` already failed before the Run.", "`make lint` already failed before the Run"]
    st = state_of(submit_raw(repo, st, encode(o)))
    del rec
    st = finish(repo, st)
    s = sections(report(repo, st["run_id"]))
    assert s["Known issues"] == "  - `make lint` already failed before the Run.\n", s["Known issues"]
    assert "exited 2 (a known issue: the host reported it failing before the Run)" in s["Checks"], s


def test_a_known_issue_the_last_report_does_not_repeat_is_counted_not_called_resolved():
    """An earlier Action's known issue that the last report leaves out may
    be resolved or reworded: the report counts it and says so, never
    that it is resolved."""
    repo, _ = installed_repo()
    st = start(repo, "add mode")
    st = submit(repo, st, summary="found it", suggest="implement")
    write(repo, "keep.py", "x = 5\n")
    from protocol_support import encode, outcome, submit_raw
    o = outcome(st["action"], implementation=impl("applied", ["keep.py"]))
    o["known_issues"] = ["Tied values must be orderable."]
    st = state_of(submit_raw(repo, st, encode(o)))
    st = submit(repo, st, summary="Reviewed.", review=review_block())
    o = outcome(st["action"], summary=FINAL)
    o["known_issues"] = ["On a tie, the values must compare with <."]
    st = state_of(submit_raw(repo, st, encode(o)))
    assert st["state"] == "ended", st
    s = sections(report(repo, st["run_id"]))
    assert s["Known issues"] == ("  - On a tie, the values must compare with <.\n"
                                 "  - 1 reported by earlier Actions and not repeated by the last report: "
                                 "resolved, or said again in other words; the Action log has it.\n"), s
    assert "resolved." not in s["Known issues"], s


def test_issue_backed_amendment_is_judged_by_section_and_the_report_says_the_move():
    repo, n = installed_repo()
    doc = ib.start(repo)
    rid = doc["run_id"]
    assert run("stop", rid, cwd=repo).code == 0
    env = ib.amended(ib.fixture(), "requirements", "# Requirements\n\nAMENDED requirement text.\n",
                     parent=doc["pinned_source"]["requirements_revision"])
    res = ib.refresh(repo, rid, env)
    assert res.code == 0, res.err
    cand = res.json_out()["source_candidate"]
    text = report(repo, rid)
    req = sections(text)["Requirements"]
    assert "a refreshed Issue waits for the person's choice (candidate %s" % cand["candidate_id"] in req, req
    keys = [sec["key"] for sec in doc["pinned_source"]["sections"]]
    for k in keys:
        assert "    - %s: %s\n" % (k, "changed" if k == "requirements" else "unchanged") in req, req
    assert "slipway status %s --section KEY --candidate" % rid in req
    assert "source_amendment_candidate" not in text
    # The candidate's text of a section, with the bounds and errors of --section.
    out = report(repo, rid, "--section", "requirements", "--candidate")
    assert "AMENDED requirement text." in out and "it is not adopted" in out, out
    pinned = report(repo, rid, "--section", "requirements")
    assert "AMENDED" not in pinned
    doc_err = assert_cli_error(run("status", rid, "--section", "nope", "--candidate", cwd=repo),
                               "material_section_not_found", 3)
    assert "source candidate" in doc_err["message"]
    assert_cli_error(run("status", rid, "--section", "BAD KEY", "--candidate", cwd=repo),
                     "material_section_invalid", 3)
    assert_cli_error(run("status", rid, "--candidate", cwd=repo), "invalid_usage", 2)
    assert_cli_error(run("status", rid, "--section", "requirements", "--candidate", "--json", cwd=repo),
                     "invalid_usage", 2)
    res = ib.resume(repo, rid, "--source-choice", "adopt", "--candidate", cand["candidate_id"])
    assert res.code == 0, res.err
    adopted = res.json_out()
    # No candidate any more: a clear error whose next runs as printed.
    err = assert_cli_error(run("status", rid, "--section", "requirements", "--candidate", cwd=repo),
                           "material_unavailable", 3)
    argv = err["next"]["variants"][0]["base_argv"]
    assert argv[:2] == ["slipway", "status"] and not err["next"]["variants"][0]["inputs"], err
    assert run(*argv[1:], cwd=repo).code == 0
    req = sections(report(repo, rid))["Requirements"]
    move = "moved from revision %s to %s (an adopted amendment); changed: requirements; unchanged: %d" % (
        doc["pinned_source"]["requirements_revision"], cand["requirements_revision"], len(keys) - 1)
    assert move in req, (move, req)
    st = finish(repo, adopted)
    assert move in st["summary"], st["summary"]
    assert_no_installed_path(report(repo, rid))


def test_markdown_flag_usage():
    repo, _ = installed_repo()
    st = start(repo)
    assert_cli_error(run("status", "--markdown", cwd=repo), "run_id_required", 2)
    assert_cli_error(run("status", st["run_id"], "--markdown", "--json", cwd=repo), "invalid_usage", 2)
    md = report(repo, st["run_id"], "--markdown")
    ms, _ = md_sections(md)
    assert "What changed" in ms and "Action log" in ms, md


# ---- issue #35: repeats, earlier changes, history, words, what is left -------

OBS = ("Ran `make test` (pytest -q, 13 tests): 12 passed, 1 failed: test_mean_empty raises "
       "ZeroDivisionError in calc.py line 3.")
READ = "Read calc.py, test_calc.py and the Issue's requirements; the Makefile's test target runs pytest -q."
FINDINGS = [{"location": "calc.py:3", "summary": "mean() of an empty list divides by zero",
             "detail": "mean([]) evaluates sum([]) / len([]) and raises ZeroDivisionError; the amended "
                       "requirements ask for None on an empty list. Guard len(xs) == 0 before dividing."},
            {"location": "test_calc.py:1", "summary": "no test covers the empty list",
             "detail": "test_mean_empty is named in the Issue but not written; add it, asserting "
                       "mean([]) is None, so that the guard cannot regress."}]
KNOWN = "The empty-list guard is not written yet."


def sub(repo, st, obs=(), known=(), **kw):
    """submit with observations and known issues."""
    from protocol_support import encode, outcome, submit_raw
    o = outcome(st["action"], **kw)
    o["observations"] = list(obs)
    o["known_issues"] = list(known)
    return state_of(submit_raw(repo, st, encode(o)))


def codex_flow(repo):
    """The Issue-backed Run of issue #35 as the Codex host drove it: every
    Outcome repeats the same test line, keep.py was dirty before the Run and
    is edited again, Review reports two findings, the person stops the Run
    during Summarize, refreshes the Issue and adopts its amendment, the
    second Review repeats the findings, and the Run ends without an
    Implement of the amendment.  Returns (run id, ended state, the pinned
    revision before and after)."""
    write(repo, "keep.py", "x = 0  # dirty before the Run\n")
    doc = ib.start(repo)
    rid = doc["run_id"]
    st = sub(repo, doc, obs=[READ, OBS], summary="calc.py's mean() fails on an empty list.", suggest="implement")
    write(repo, "calc.py", "def mean(xs):\n    return sum(xs) / len(xs)\n")
    write(repo, "keep.py", "x = 1  # edited by the Run\n")
    im = impl("applied", ["calc.py", "keep.py"])
    im["activities"] = [{"kind": "lint", "command": "make lint", "exit_code": 0, "summary": "clean"},
                        {"kind": "test", "command": "make test", "exit_code": 1,
                         "summary": "test_mean_empty fails"}]
    st = sub(repo, st, obs=[READ, OBS, OBS], summary="Fixed mean() for lists that are not empty.",
             implementation=im)
    assert st["action"]["kind"] == "review", st["action"]["kind"]
    st = sub(repo, st, obs=[READ, OBS], known=[KNOWN], summary="Two findings.",
             review=review_block("findings_reported", FINDINGS))
    assert st["action"]["kind"] == "summarize", st["action"]["kind"]
    adopted, cand = adopt_amendment(repo, doc)
    # The code changed before the adoption: the Orient's brief says that
    # Review and Summarize follow, and that a new Run implements it.
    brief = adopted["action"]["brief"]
    assert "goes on to Review and Summarize whatever you suggest" in brief and \
        "a new Run from the amended Issue implements it" in brief, brief
    st = sub(repo, adopted, obs=[READ, OBS], summary="Re-oriented on the amended requirements.",
             suggest="implement")
    assert st["action"]["kind"] == "review", st["action"]["kind"]
    st = sub(repo, st, obs=[READ, OBS], known=[KNOWN], summary="The same two findings.",
             review=review_block("findings_reported", FINDINGS))
    st = sub(repo, st, obs=[READ, OBS], summary="Fixed mean(); the empty-list guard and its test are still open.")
    assert st["state"] == "ended", st
    return rid, st, doc["pinned_source"]["requirements_revision"], cand["requirements_revision"]


def test_codex_flow_report_names_everything_in_under_4_KB():
    repo, n = installed_repo()
    rid, st, before, after = codex_flow(repo)
    text = report(repo, rid)
    assert len(text.encode()) < 4096, "%d bytes:\n%s" % (len(text.encode()), text)
    s = sections(text)
    lines = text.splitlines()
    # The first paragraph says what is left: findings, known issues, failed
    # checks and the amendment no Implement followed.
    assert lines[2] == ("Still open: 2 Review findings, 1 known issue, 1 failed check; the adopted amendment "
                        "is not implemented (requirements changed, requirements revision %s): a new Run "
                        "from the amended Issue implements it." % after[:19]), lines[:4]
    assert re.search(r"moved from revision \S+ to \S+ \(an adopted amendment\); changed: requirements; "
                     r"unchanged: \d+; not implemented in this Run\n", s["Requirements"]), s["Requirements"]
    # Repeats: the test line once, with its count; the findings once, from
    # the last Review, which says it superseded the first.
    assert s["Observations"] == "  - %s (6 times)\n  - %s (7 times)\n" % (READ, OBS), s["Observations"]
    for f in FINDINGS:
        assert s["Review"].count(f["summary"]) == 1, s["Review"]
    assert re.search(r"  - the last Review \(\w{8}\) supersedes 1 earlier one\n", s["Review"]), s["Review"]
    # A file dirty before the Run and changed again is marked.
    assert "  - modified: keep.py (reported; also dirty before the Run)\n" in s["What changed"], s
    assert "  - added: calc.py (reported)\n" in s["What changed"], s
    # The history: who stopped, the refresh, the adoption with its budget.
    log = s["Action log"]
    assert re.search(r"  4\. summarize \w{8}: voided without an outcome\n"
                     r"     - stopped by the person\n"
                     r"     - the Issue was refreshed and changed: the Run waits for the person's choice\n"
                     r"     - the person adopted the amended requirements; resumed with budget \d+\n"
                     r"  5\. orient ", log), log
    assert re.search(r"summarize \w{8}: voided when the person stopped the Run\n",
                     s["Skipped and voided Actions"]), s
    assert "closed by a stop or a resume" not in text
    assert "moved from revision %s to %s" % (before, after) in s["Requirements"], s["Requirements"]
    assert "test `make test` exited 1: test_mean_empty fails" in s["Checks"], s["Checks"]
    assert s["Known issues"] == "  - %s\n" % KNOWN, s["Known issues"]
    # The summary the host relays carries the same facts.
    summary = st["summary"]
    for fact in (lines[2], "%s (7 times)" % OBS, "supersedes 1 earlier one", "also dirty before the Run",
                 "stopped by the person", "the person adopted the amended requirements"):
        assert fact in summary, (fact, summary)
    assert summary.count(FINDINGS[0]["summary"]) == 1


def adopt_amendment(repo, doc):
    """Stops the Run, refreshes its Issue with the requirements amended and
    adopts the candidate; returns the Orient's protocolState and the
    candidate."""
    rid = doc["run_id"]
    assert run("stop", rid, cwd=repo).code == 0
    env = ib.amended(ib.fixture(), "requirements", "# Requirements\n\nAlso guard the empty list.\n",
                     parent=doc["pinned_source"]["requirements_revision"])
    res = ib.refresh(repo, rid, env)
    assert res.code == 0, res.err
    cand = res.json_out()["source_candidate"]
    res = ib.resume(repo, rid, "--source-choice", "adopt", "--candidate", cand["candidate_id"])
    assert res.code == 0, res.err
    st = res.json_out()
    assert st["resume_operation"] == "source_amended" and st["action"]["kind"] == "orient", st
    return st, cand


def test_an_adopted_amendment_is_not_implemented_unless_a_completed_implement_covered_it():
    # Adopted before any change: as the brief says, Implement follows the
    # suggestion, runs under the amended requirements and completes: nothing
    # is open.
    repo, _ = installed_repo()
    doc = ib.start(repo)
    st, _ = adopt_amendment(repo, doc)
    assert "Otherwise suggest implement for it." in st["action"]["brief"], st["action"]["brief"]
    st = submit(repo, st, summary="go", suggest="implement")
    assert st["action"]["kind"] == "implement", st["action"]["kind"]
    write(repo, "calc.py", "def mean(xs):\n    return sum(xs) / len(xs) if xs else None\n")
    st = finish(repo, submit(repo, st, implementation=impl("applied", ["calc.py"])))
    assert "not implemented" not in st["summary"], st["summary"]
    # With --no-review an Implement follows the adoption even after a
    # change, but a partial one does not cover the amendment.
    repo, _ = installed_repo()
    doc = ib.start(repo, None, "--no-review")
    st = submit(repo, doc, summary="go", suggest="implement")
    write(repo, "calc.py", "def mean(xs):\n    return sum(xs) / len(xs)\n")
    st = submit(repo, st, implementation=impl("applied", ["calc.py"]))
    assert st["action"]["kind"] == "summarize", st["action"]["kind"]
    st, _ = adopt_amendment(repo, doc)
    st = submit(repo, st, summary="go", suggest="implement")
    assert st["action"]["kind"] == "implement", st["action"]["kind"]
    write(repo, "calc.py", "def mean(xs):\n    return sum(xs) / len(xs)  # half done\n")
    st = finish(repo, submit(repo, st, status="partial", implementation=impl("partial", ["calc.py"])))
    text = report(repo, doc["run_id"])
    still = text.splitlines()[2]
    assert still.startswith("Still open: the adopted amendment is not implemented (requirements changed, "
                            "requirements revision sha256:") and \
        still.endswith("): a new Run from the amended Issue implements it."), still
    assert "; not implemented in this Run\n" in sections(text)["Requirements"], text
    assert still in st["summary"], st["summary"]


def test_a_path_dirty_before_is_marked_and_earlier_deletions_are_no_uncertainty():
    repo, _ = installed_repo()
    # Run 1 deletes old_a.txt and edits keep.py; that is its own uncertainty.
    st = start(repo, "first Run")
    st = submit(repo, st, summary="go", suggest="implement")
    os.unlink(os.path.join(repo, "old_a.txt"))
    write(repo, "keep.py", "x = 2\n")
    st = finish(repo, submit(repo, st, implementation=impl("applied", ["old_a.txt", "keep.py"])))
    assert "1 deleted file could not be fingerprinted" in st["summary"], st["summary"]
    # Run 2 starts with both dirty, edits keep.py again, deletes nothing and
    # skips its Review.
    st = start(repo, "second Run")
    st = submit(repo, st, summary="go", suggest="implement")
    write(repo, "keep.py", "x = 3\n")
    st = submit(repo, st, implementation=impl("applied", ["keep.py"]))
    assert st["action"]["kind"] == "review"
    st = state_of(run("protocol", "skip", "--run", st["run_id"], "--action", st["action"]["action_id"],
                      cwd=repo))
    st = finish(repo, st)
    text = report(repo, st["run_id"])
    s = sections(text)
    assert s["What changed"] == "  - modified: keep.py (reported; also dirty before the Run)\n", s
    assert "could not be fingerprinted" not in text and "fingerprinted" not in st["summary"], text
    assert "old_a.txt (ordinary .D)" in s["Dirty before the Run"], s["Dirty before the Run"]
    md = report(repo, st["run_id"], "--markdown")
    rows = table_rows(md_sections(md)[0]["What changed"])
    assert rows[1:] == [["keep.py", "modified, also dirty before the Run", "yes"]], rows


def test_stops_resumes_and_budget_pauses_are_in_the_action_log():
    repo, _ = installed_repo()
    st = start(repo, "tiny budget", "--budget", "1")
    rid = st["run_id"]
    st = submit(repo, st, summary="Orient done.", suggest="implement")
    assert st["pause_reason"] == "budget_exhausted", st
    res = run("protocol", "resume", rid, "--budget", "5", cwd=repo)
    assert res.code == 0, res.err
    text = report(repo, rid)
    # The budget the Run was given last, not the one it started with.
    assert "4 of 5 budget left" in text.splitlines()[1], text
    assert "of 1 budget left" not in text
    assert run("stop", rid, cwd=repo).code == 0
    assert run("protocol", "resume", rid, cwd=repo).code == 0
    s = sections(report(repo, rid))
    log = s["Action log"]
    assert re.search(r"  1\. orient \w{8}: Orient done\.\n"
                     r"     - paused: budget spent\n"
                     r"     - resumed by the person with budget 5\n"
                     r"  2\. orient \w{8}: voided without an outcome\n"
                     r"     - stopped by the person\n"
                     r"     - resumed by the person with budget 4\n"
                     r"  3\. orient \w{8}: in progress\n$", log), log
    assert re.search(r"  - orient \w{8}: voided when the person stopped the Run\n$",
                     s["Skipped and voided Actions"]), s
    md = report(repo, rid, "--markdown")
    ms, tokens = md_sections(md)
    nested = [t for t in ms["Action log"] if t.type == "bullet_list_open"]
    assert len(nested) == 2, md


def test_the_persons_words_with_a_confirmation_are_under_destructive_work():
    repo, _ = installed_repo()
    st = start(repo, "remove the two obsolete files")
    st = submit(repo, st, summary="unused", suggest="implement")
    targets = [{"kind": "path", "value": "old_a.txt"}]
    pause = destructive_pause(targets, impact="old_a.txt is deleted")
    st = submit(repo, st, status="needs_input", pause=pause)
    st = state_of(run("protocol", "answer", "--run", st["run_id"], "--action", st["action"]["action_id"],
                      "--confirm-destructive", "--scope-sha256", pause["destructive_request"]["scope_sha256"],
                      "--text", "Yes, delete it; nothing imports it.\n", cwd=repo))
    os.unlink(os.path.join(repo, "old_a.txt"))
    st = finish(repo, submit(repo, st, summary="Deleted.", implementation=impl("applied", ["old_a.txt"])))
    dw = sections(report(repo, st["run_id"]))["Destructive work"]
    assert "\n    the person's words: Yes, delete it; nothing imports it.\n" in dw, dw
    assert "the person's words: Yes, delete it; nothing imports it." in st["summary"]
    md = md_text(md_sections(report(repo, st["run_id"], "--markdown"))[0]["Destructive work"])
    assert "the person's words: Yes, delete it; nothing imports it." in md, md


# ---- Markdown: host text is text ------------------------------------------------

HOSTILE_LINE = "# Fix mean() in calc.py <b>bold</b> | pipe | `tick` [link](http://evil.example) *em* &amp; $x$"
HOSTILE_BLOCK = ("ok\n\n<!--\n## What changed\n[ref]: http://evil.example\n| a | b |\n| - | - |\n"
                 "<img src=x onerror=alert(1)>\n<details><summary>hidden</summary>\n> quoted\n"
                 "1. listed\n- item\n    indented code\n```\nfence\n===")


def html_of(md):
    """The HTML markdown-it renders, parsed: (start tags, comments, text)."""
    from html.parser import HTMLParser

    class P(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags, self.comments, self.text = [], [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

        def handle_comment(self, data):
            self.comments.append(data)

        def handle_data(self, data):
            self.text.append(data)

    p = P()
    p.feed(MarkdownIt("commonmark").enable("table").render(md))
    p.close()
    return p.tags, p.comments, "".join(p.text)


def hostile_run(repo):
    """A Run whose goal, question, answer, findings, known issue, check and
    Summarize report are hostile Markdown; a file name carries some too."""
    st = start(repo, HOSTILE_LINE)
    st = submit(repo, st, status="needs_input", pause=decision_pause(HOSTILE_LINE))
    st = state_of(run("protocol", "answer", "--run", st["run_id"], "--action", st["action"]["action_id"],
                      "--text", HOSTILE_BLOCK, cwd=repo))
    st = sub(repo, st, summary=HOSTILE_BLOCK, suggest="implement", obs=[HOSTILE_LINE])
    write(repo, "p|q`[x](y).txt", "x\n")
    im = impl("applied", ["p|q`[x](y).txt"])
    im["activities"] = [{"kind": "test", "command": "make test | tee `log`", "exit_code": 1,
                         "summary": HOSTILE_LINE}]
    st = sub(repo, st, summary=HOSTILE_BLOCK, implementation=im, known=[HOSTILE_LINE])
    st = sub(repo, st, summary=HOSTILE_BLOCK, review=review_block("findings_reported", [
        {"location": "calc.py:1", "summary": HOSTILE_LINE, "detail": HOSTILE_BLOCK}]))
    st = sub(repo, st, summary=HOSTILE_BLOCK)
    assert st["state"] == "ended"
    return st


def test_markdown_escapes_host_text_the_same_way_everywhere_and_nothing_else():
    repo, _ = installed_repo()
    st = hostile_run(repo)
    md = report(repo, st["run_id"], "--markdown")
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    # slipway's sections, each once and in order; nothing hides one.
    h2 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert h2 == ["Final report"] + [t for t in TITLES if t != "Requirements"], h2
    h1 = [tokens[i + 1] for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h1"]
    assert len(h1) == 1 and md_plain(h1) == HOSTILE_LINE, md_plain(h1)
    # No HTML, link, image or emphasis comes from host text.
    kinds = {t.type for t in tokens} | {c.type for t in tokens if t.children for c in t.children}
    for bad in ("html_block", "html_inline", "link_open", "image", "em_open", "fence", "code_block", "hr"):
        assert bad not in kinds, (bad, md)
    assert [t.tag for t in tokens if t.type == "blockquote_open"] == ["blockquote"], md
    assert sum(1 for t in tokens if t.type == "ordered_list_open") == 1, md   # the Action log
    assert sum(1 for t in tokens if t.type == "table_open") == 1, md          # What changed
    tags, comments, _ = html_of(md)
    assert comments == [] and not {"img", "details", "b", "a", "em", "script"} & set(tags), (tags, md)
    # The hostile line reads as written wherever it appears, escaped the
    # same way: the escaped form of the heading is found in each place.
    esc = md.splitlines()[0][2:]
    assert esc != HOSTILE_LINE
    assert md.count(esc) >= 5, (esc, md)
    plain = md_plain(tokens)
    assert plain.count(HOSTILE_LINE) >= 5, plain
    for line in HOSTILE_BLOCK.splitlines():
        assert line.strip() in plain, (line, plain)
    # Nothing else is escaped: no backslash before a character Markdown
    # would not misread, and a plain goal keeps its dots and parentheses.
    assert not re.search(r"\\[^\\`*_\[\]<|~$&#>+=.)\-]", md), md
    repo2, _ = installed_repo()
    plain_goal = start(repo2, "Fix mean() in calc.py")
    assert report(repo2, plain_goal["run_id"], "--markdown").startswith("# Fix mean() in calc.py\n")
    # The text form prints the same text as it is.
    text = report(repo, st["run_id"])
    assert text.count(HOSTILE_LINE) >= 5 and "\\" not in text, text


def test_host_markdown_cannot_hide_the_sections_after_it():
    """Issue #36: an unclosed comment, raw HTML and a link definition in
    every host text; the rendering holds none of them, and every section
    after them is there."""
    hide = ("ok\n\n<!--\n<img src=x onerror=alert(1)>\n<details><summary>x</summary>\n"
            "[ref]: http://evil.example\n\nsee [ref]")
    repo, _ = installed_repo()
    st = start(repo, "hide")
    st = submit(repo, st, summary=hide, suggest="implement")
    write(repo, "new.txt", "x\n")
    st = submit(repo, st, summary=hide, implementation=impl("applied", ["new.txt"]))
    st = submit(repo, st, summary=hide, review=review_block("findings_reported", [
        {"location": "a:1", "summary": "s", "detail": hide}]))
    st = submit(repo, st, summary=hide)
    md = report(repo, st["run_id"], "--markdown")
    env = {}
    tokens = MarkdownIt("commonmark").enable("table").parse(md, env)
    assert not env.get("references"), env
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert "<!--" not in html, html
    tags, comments, text = html_of(md)
    assert comments == [] and set(tags) <= {"h1", "h2", "p", "ul", "ol", "li", "code", "strong", "em",
                                             "blockquote", "table", "thead", "tbody", "tr", "th", "td"}, tags
    h2 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert h2 == ["Final report"] + [t for t in TITLES if t not in ("Requirements", "Observations")], h2
    assert "new.txt" in text and text.count("[ref]: http://evil.example") == 5, text


# ---- issue #36: controls, bounds, counts -----------------------------------------

ESC_NAME = "x\x1b]0;PWNED\x07\x1b[2J.txt"


def test_controls_in_paths_goals_and_roots_are_shown_as_code_points():
    repo, _ = installed_repo()
    write(repo, ESC_NAME.replace("x", "before", 1), "dirty before\n")
    st = start(repo, "legit\rFAKE-ID  ended")
    st = submit(repo, st, summary="go", suggest="implement")
    write(repo, ESC_NAME, "x\n")
    st = submit(repo, st, implementation=impl("applied", []))
    for flags in ((), ("--markdown",)):
        out = run("status", st["run_id"], *flags, cwd=repo).out
        assert b"\x1b" not in out and b"\x07" not in out and b"\r" not in out, out
        assert b"x<U+001B>]0;PWNED<U+0007><U+001B>[2J.txt" in out, out
        assert b"before<U+001B>]0;PWNED" in out, out
    listing = run("status", cwd=repo).out
    assert b"\r" not in listing and b"legit<U+000D>FAKE-ID  ended" in listing, listing
    st = finish(repo, st)
    assert "\x1b" not in st["summary"] and "x<U+001B>]0;PWNED<U+0007>" in st["summary"], st["summary"]
    # A repository whose path holds controls: run and doctor print it shown.
    from slipway_e2e import scratch_repo
    odd = scratch_repo(prefix="slipway-e2e-\x1b[2J\r")
    for args in (("run", "--", "a goal"), ("doctor",)):
        res = run(*args, cwd=odd)
        assert res.code == 0, res.err
        assert b"\x1b" not in res.out and b"\r" not in res.out, res.out
        assert b"<U+001B>[2J<U+000D>" in res.out, res.out


def test_the_human_report_is_bounded_and_keeps_the_decisive_facts():
    """A Run of about 70 Actions whose reports and observations are long:
    a decision, then 60 Clarify Actions, then a confirmed deletion, a
    failing check and a Review finding.  Its report would be about 250 KB."""
    repo, _ = installed_repo()
    st = start(repo, "a long Run", "--budget", "500")
    rid = st["run_id"]
    st = submit(repo, st, status="needs_input", pause=decision_pause("Which way?"))
    st = state_of(run("protocol", "answer", "--run", rid, "--action", st["action"]["action_id"],
                      "--text", "DECISION-KEPT", cwd=repo))
    st = submit(repo, st, summary="go", suggest="clarify")
    filler = "lorem ipsum " * 150
    for i in range(60):
        st = sub(repo, st, obs=["OBSERVATION-%d %s" % (i, filler)], summary="CLARIFY-%d %s" % (i, filler),
                 suggest="clarify" if i < 59 else "implement")
    assert st["action"]["kind"] == "implement", st["action"]["kind"]
    pause = destructive_pause([{"kind": "path", "value": "old_a.txt"}], impact="IMPACT-KEPT")
    st = submit(repo, st, status="needs_input", pause=pause)
    st = state_of(run("protocol", "answer", "--run", rid, "--action", st["action"]["action_id"],
                      "--confirm-destructive", "--scope-sha256", pause["destructive_request"]["scope_sha256"],
                      cwd=repo))
    os.unlink(os.path.join(repo, "old_a.txt"))
    im = impl("applied", ["old_a.txt"])
    im["activities"] = [{"kind": "test", "command": "make FAILED-KEPT", "exit_code": 1, "summary": "fails"}]
    st = submit(repo, st, summary="DELETED-KEPT", implementation=im)
    st = submit(repo, st, summary="Reviewed.", review=review_block("findings_reported", [
        {"location": "a:1", "summary": "FINDING-KEPT", "detail": "d"}]))
    for flags in ((), ("--markdown",)):
        out = report(repo, rid, *flags)
        size = len(out.encode())
        body = out.split("\nNext choices:")[0]
        assert size <= 65536 + 4096 and len(body.encode()) <= 65536, size
        assert re.search(r"\n\n\.\.\.\[report truncated omitted_bytes=\d+ original_sha256=sha256:[0-9a-f]{64}\]\n",
                         body), body[-400:]
        for fact in ("DECISION-KEPT", "IMPACT-KEPT", "FAILED-KEPT", "FINDING-KEPT", "DELETED-KEPT",
                     "CLARIFY-59", "OBSERVATION-59", "earlier Actions left out of this bounded report"):
            assert fact in body, (fact, flags)
        assert not re.search(r"^ *1\. orient", body, re.M), body


def test_the_changed_path_count_is_true_when_the_list_is_bounded():
    from slipway_e2e import scratch_repo
    repo = scratch_repo()
    st = start(repo, "many files")
    os.mkdir(os.path.join(repo, "many"))
    for i in range(20000):
        with open(os.path.join(repo, "many", "f%05d" % i), "w") as f:
            f.write("x")
    st = submit(repo, st, summary="go", suggest="implement")
    full = run("status", st["run_id"], "--json", cwd=repo).json_out()
    count = full["current_git"]["path_count"]
    assert count == 20000 and full["current_git"]["details_truncated"], full["current_git"]["path_count"]
    text = report(repo, st["run_id"])
    m = re.search(r"Git shows (\d+) changed paths \(a bounded list of (\d+)\)", text.splitlines()[1])
    assert m and int(m.group(1)) == 20000 and int(m.group(2)) < 20000, text.splitlines()[1]
    listed = int(m.group(2))
    assert "%d further changed paths are not listed" % (20000 - listed) in text, text[-600:]


# ---- issue #35 item 7: foreign Runs, briefs --------------------------------------

def test_another_worktrees_run_is_listed_as_unknown_and_how_to_clear_it_once_gone():
    repo, _ = installed_repo()
    other = repo + "-wt"
    subprocess.run(["git", "-C", repo, "worktree", "add", "-q", other], check=True)
    st = start(other, "in the other worktree")
    assert run("stop", st["run_id"], cwd=other).code == 0
    line = [l for l in run("status", cwd=repo).out.decode().splitlines() if l.startswith(st["run_id"])][0]
    assert "unknown  another worktree's Run (%s): its state is read there" % other in line, line
    assert "active" not in line and "foreign=true" not in line, line
    stub = [r for r in run("status", "--json", cwd=repo).json_out()["runs"] if r["id"] == st["run_id"]][0]
    assert stub["workspace_foreign"] is True and stub["state"] == "active", stub
    subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", other], check=True)
    line = [l for l in run("status", cwd=repo).out.decode().splitlines() if l.startswith(st["run_id"])][0]
    common = os.path.join(repo, ".git", "slipway", "runs", st["run_id"])
    assert "that worktree no longer exists; clear the Run with: rm -r '%s'" % common in line, line
    doctor = run("doctor", cwd=repo).out.decode()
    assert re.search(r"warning +- +runstore_run_orphaned +run \"%s\" .* belongs to the worktree %s, which no "
                     r"longer exists" % (st["run_id"], re.escape(other)), doctor), doctor
    shutil.rmtree(common)
    assert st["run_id"] not in run("status", cwd=repo).out.decode()
    assert "runstore_run_orphaned" not in run("doctor", cwd=repo).out.decode()


def test_briefs_name_dirty_paths_without_digests_and_count_installed_files_as_the_report_does():
    repo, n = installed_repo()
    write(repo, "keep.py", "x = 0\n")
    st = start(repo, "edit keep.py")
    st = submit(repo, st, summary="go", suggest="implement")
    write(repo, "keep.py", "x = 1\n")
    st = submit(repo, st, implementation=impl("applied", ["keep.py"]))
    brief = st["action"]["brief"]
    assert st["action"]["kind"] == "review"
    assert "sha256:" not in brief and "count=" not in brief and not brief.rstrip().endswith(";"), brief
    assert ("Paths already dirty when the Run started (%d): keep.py [ordinary .M]; %d files installed by "
            "slipway for claude (managed files and install records)." % (n + 1, n)) in brief, brief
    st = finish(repo, st)
    assert installed_line(n) + " (managed files and install records)" in report(repo, st["run_id"])


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
