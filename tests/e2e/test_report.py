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
            assert installed_line(n) + ";" in a["action"]["brief"], a["action"]["brief"]
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
    assert md.count(FINAL) == 1 and ".claude/" not in md
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
    assert "  - modified: %s (not reported by the host)\n" % claimed in s["What changed"], s


def test_decision_is_printed_with_its_question_and_the_trimmed_answer():
    repo, _ = installed_repo()
    st = start(repo, "pick a format")
    st = submit(repo, st, status="needs_input", pause=decision_pause("Which format?\nJSON or text?"))
    live = report(repo, st["run_id"])
    assert "Pending question: Which format? JSON or text?\n" in live, live
    st = state_of(run("protocol", "answer", "--run", st["run_id"], "--action", st["action"]["action_id"],
                      "--text", "  Use JSON.\n\n", cwd=repo))
    so_far = sections(report(repo, st["run_id"]))
    assert so_far["Decisions"] == "  - Q: Which format? JSON or text?\n    A: Use JSON.\n", so_far
    assert "closed by the person's answer" in so_far["Skipped and voided Actions"]
    st = finish(repo, st)
    assert "Q: Which format? JSON or text?\n    A: Use JSON.\n" in st["summary"], st["summary"]


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


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
