"""Wire conformance under faults: a committed mutation whose reply cannot be
written, the recovery offered while a source candidate waits, preflight
nexts, large destructive requests, damaged run directories, the journal's
file checks and the escaping of human output."""

import json
import os
import subprocess

from protocol_support import (decision_pause, destructive_pause, encode, outcome, start,
                              state_of, submit, write_tmp)
from slipway_e2e import BIN, assert_cli_error, main, run, scratch_repo, skip_test, validate
import test_issue_backed as ib

COMMITTED = {"phase": "response_output", "committed": True, "projection_stale": False,
             "namespace_detached": False, "ambiguous": False}


def run_to_full(*args, cwd=None, stdin=None):
    """Runs the binary with stdout on /dev/full: every write to it fails."""
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([BIN] + list(args), cwd=cwd, input=stdin, stdout=full,
                              stderr=subprocess.PIPE, timeout=60)
    return proc.returncode, proc.stderr


def run_stdout_closed(*args, cwd=None):
    """Runs the binary with its stdout closed."""
    proc = subprocess.run([BIN] + list(args), cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=60,
                          preexec_fn=lambda: os.close(1))
    return proc.returncode, proc.stderr


def committed_output_error(code, err, repo, run_id):
    assert code == 3, "exit %d: %r" % (code, err)
    doc = json.loads(err.decode())
    validate(doc, "cliError")
    assert doc["code"] == "mutation_committed_output_failed", doc
    assert doc["details"] == COMMITTED, doc
    assert [v["id"] for v in doc["next"]["variants"]] == ["inspect-run"], doc
    assert doc["next"]["variants"][0]["base_argv"] == \
        ["slipway", "status", run_id, "--root", repo], doc
    return doc


def runs(repo):
    return run("status", "--json", cwd=repo).json_out()["runs"]


# ---- 1: a committed mutation whose reply cannot be written ----

def test_run_whose_reply_cannot_be_written_is_committed_output_failed():
    repo = scratch_repo()
    for mode in (["--json"], []):
        before = {r["id"] for r in runs(repo)}
        code, err = run_to_full("run", *mode, "--", "goal", cwd=repo)
        after = runs(repo)
        new = [r for r in after if r["id"] not in before]
        assert len(new) == 1, after
        committed_output_error(code, err, repo, new[0]["id"])
        run("stop", new[0]["id"], cwd=repo)


def test_run_with_stdout_closed_is_committed_output_failed_and_writes_no_file():
    repo = scratch_repo()
    code, err = run_stdout_closed("run", "--json", "--", "goal", cwd=repo)
    listed = runs(repo)
    assert len(listed) == 1, listed
    committed_output_error(code, err, repo, listed[0]["id"])
    rdir = os.path.join(repo, ".git", "slipway", "runs", listed[0]["id"])
    for line in open(os.path.join(rdir, "journal.jsonl"), "rb").read().splitlines():
        assert b"protocolState" not in line and json.loads(line)["sequence"] >= 1


def test_each_mutation_whose_reply_fails_reports_the_commit():
    repo = scratch_repo()
    st = start(repo)
    rid = st["run_id"]
    # submit
    path = write_tmp(encode(outcome(st["action"], summary="oriented", suggest="implement")))
    code, err = run_to_full("protocol", "submit", "--run", rid, "--action",
                            st["action"]["action_id"], "--outcome-file", path, cwd=repo)
    committed_output_error(code, err, repo, rid)
    cur = run("status", rid, "--json", cwd=repo).json_out()
    assert cur["current_action"]["kind"] == "implement", cur
    # answer (a decision pause first)
    paused = submit(repo, {"run_id": rid, "action": cur["current_action"]}, status="needs_input",
                    pause=decision_pause())
    text = write_tmp(b"this way")
    code, err = run_to_full("protocol", "answer", "--run", rid, "--action",
                            paused["action"]["action_id"], "--text-file", text, cwd=repo)
    committed_output_error(code, err, repo, rid)
    cur = run("status", rid, "--json", cwd=repo).json_out()
    assert cur["state"] == "active", cur
    # skip
    code, err = run_to_full("protocol", "skip", "--run", rid, "--action",
                            cur["current_action"]["action_id"], cwd=repo)
    committed_output_error(code, err, repo, rid)
    # stop, then resume
    code, err = run_to_full("stop", rid, "--json", cwd=repo)
    committed_output_error(code, err, repo, rid)
    assert run("status", rid, "--json", cwd=repo).json_out()["state"] == "stopped"
    code, err = run_to_full("protocol", "resume", rid, cwd=repo)
    committed_output_error(code, err, repo, rid)
    assert run("status", rid, "--json", cwd=repo).json_out()["state"] == "active"


def test_material_whose_output_fails_is_runtime_error_with_inspect_run():
    repo = scratch_repo()
    doc = ib.start(repo)
    rid = doc["run_id"]
    code, err = run_to_full("protocol", "material", "--run", rid, "--action",
                            doc["action"]["action_id"], "--section", "outcome", cwd=repo)
    assert code == 3, (code, err)
    e = json.loads(err.decode())
    validate(e, "cliError")
    assert e["code"] == "runtime_error", e
    assert [v["id"] for v in e["next"]["variants"]] == ["inspect-run"], e


# ---- 2: while a source candidate waits ----

def test_errors_while_a_candidate_waits_offer_the_choice():
    repo = scratch_repo()
    doc, st = ib.invalid_candidate_run(repo)
    rid, cid = doc["run_id"], st["source_candidate"]["candidate_id"]
    for res, code, exit_code in (
            (ib.resume(repo, rid, "--use-pinned-source"), "source_candidate_pending", 3),
            (ib.resume(repo, rid), "source_choice_required", 3),
            (ib.resume(repo, rid, "--source-choice", "adopt", "--candidate", cid),
             "invalid_source_candidate_choice", 3)):
        err = assert_cli_error(res, code, exit_code)
        assert [v["id"] for v in err["next"]["variants"]] == ["keep-pinned"], err
        assert "--candidate" in err["next"]["variants"][0]["base_argv"], err
    # An unreadable or unusable refreshed envelope in that state.
    for bad in (write_tmp(b"[]"), os.path.join(repo, "no-such-envelope.json")):
        err = assert_cli_error(ib.resume(repo, rid, "--source-file", bad),
                               "invalid_source_candidate", 2)
        assert [v["id"] for v in err["next"]["variants"]] == ["keep-pinned"], err
    # Following the offered variant works.
    argv = err["next"]["variants"][0]["base_argv"]
    res = run(*argv[1:], cwd=repo)
    assert res.code == 0, res.err


def test_errors_while_a_valid_candidate_waits_offer_keep_and_adopt():
    repo = scratch_repo()
    doc = ib.stopped_run(repo)
    rid = doc["run_id"]
    env = ib.amended(ib.fixture(), "requirements", "# Requirements\n\nAmended.\n",
                     parent=doc["pinned_source"]["requirements_revision"])
    assert ib.refresh(repo, rid, env).code == 0
    err = assert_cli_error(ib.resume(repo, rid, "--use-pinned-source"),
                           "source_candidate_pending", 3)
    assert [v["id"] for v in err["next"]["variants"]] == ["keep-pinned", "adopt"], err


# ---- 3: status --section "" ----

def test_status_with_an_empty_section_offers_inspect_run():
    repo = scratch_repo()
    err = assert_cli_error(run("status", "abc", "--section", "", cwd=repo),
                           "material_section_required", 2)
    assert [v["id"] for v in err["next"]["variants"]] == ["inspect-run"], err
    assert err["next"]["variants"][0]["base_argv"] == ["slipway", "status", "abc", "--root", repo]


# ---- 5: the command-line grammar the reference parses ----

def test_protocol_takes_its_persistent_root_before_the_operation():
    repo = scratch_repo()
    other = scratch_repo()
    st = start(repo)
    rid, aid = st["run_id"], st["action"]["action_id"]
    res = run("protocol", "--root", repo, "skip", "--run", rid, "--action", aid, cwd=other)
    doc = state_of(res)
    assert doc["action"]["action_id"] != aid, "the skip went to the Run in --root"
    res = run("protocol", "--root=" + repo, "skip", "--run", rid, "--action",
              doc["action"]["action_id"], cwd=other)
    state_of(res)
    for args in (("protocol", "--root", repo), ("protocol", "--root=" + repo)):
        err = assert_cli_error(run(*args, cwd=other), "protocol_operation_required", 2)
        assert err["next"]["operation"] == "none"
    assert_cli_error(run("protocol", "--json", cwd=repo), "invalid_usage", 2)
    assert_cli_error(run("protocol", "--root", cwd=repo), "invalid_usage", 2)


def test_a_root_level_flag_before_the_command_name_belongs_to_the_command():
    repo = scratch_repo()
    other = scratch_repo()
    rid = start(repo)["run_id"]
    doc = json.loads(run("--root", repo, "status", "--json", cwd=other).out)
    assert [r["id"] for r in doc["runs"]] == [rid], doc
    doc = json.loads(run("--root=" + repo, "status", rid, "--json", cwd=other).out)
    assert doc["id"] == rid
    res = run("--root", repo, "protocol", "--root", repo, "resume", rid, cwd=other)
    assert_cli_error(res, "run_not_resumable", 3)
    err = assert_cli_error(run("--root", repo, cwd=other), "invalid_usage", 2)
    assert "unknown flag: --root" in err["message"]
    assert_cli_error(run("--bogus", "status", cwd=repo), "invalid_usage", 2)


def test_tool_values_are_read_as_csv_records():
    repo = scratch_repo()
    for d in (".claude", ".codex", ".cursor"):
        os.makedirs(os.path.join(repo, d))
    res = run("install", "--tool", '"claude,codex"', "--json", cwd=repo)
    assert res.code == 0, res.err
    assert res.json_out()["hosts"] == ["claude", "codex"]
    res = run("uninstall", "--tool", '"claude,codex"', "--tool", "cursor", "--json", cwd=repo)
    assert res.code == 0, res.err
    assert res.json_out()["hosts"] == ["claude", "codex", "cursor"]
    err = assert_cli_error(run("install", "--tool", 'cl"aude', cwd=repo), "invalid_usage", 2)
    assert "bare" in err["message"], err
    assert_cli_error(run("install", "--tool", '"claude', cwd=repo), "invalid_usage", 2)
    assert_cli_error(run("install", "--tool", "", cwd=repo), "host_adapter_required", 2)


# ---- 6: destructive requests with hundreds of targets ----

def test_destructive_request_with_hundreds_of_targets_can_be_confirmed():
    repo = scratch_repo()
    st = start(repo, "delete many files", "--budget", "20", "--no-review")
    rid = st["run_id"]
    st = submit(repo, st, suggest="implement")
    targets = sorted([{"kind": "path", "value": "build/out/file-%04d.o" % i} for i in range(600)],
                     key=lambda t: (t["kind"], t["value"]))
    pause = destructive_pause(targets)
    digest = pause["destructive_request"]["scope_sha256"]
    paused = submit(repo, st, status="needs_input", summary="confirm", pause=pause)
    assert paused["pause_reason"] == "destructive_confirmation_required"
    res = run("protocol", "answer", "--run", rid, "--action", st["action"]["action_id"],
              "--confirm-destructive", "--scope-sha256", digest, cwd=repo)
    granted = state_of(res)
    auth = granted["action"]["destructive_authorization"]
    assert auth["scope_sha256"] == digest and auth["targets"] == targets


# ---- 8: missing or damaged materials/ ----

def run_dir(repo, run_id):
    return os.path.join(repo, ".git", "slipway", "runs", run_id)


def damage_materials(rdir, how):
    mdir = os.path.join(rdir, "materials")
    if how == "missing":
        subprocess.run(["rm", "-rf", mdir], check=True)
    elif how == "file":
        subprocess.run(["rm", "-rf", mdir], check=True)
        with open(mdir, "w") as f:
            f.write("not a directory\n")
    else:
        for name in os.listdir(mdir):
            with open(os.path.join(mdir, name), "ab") as f:
                f.write(b"tampered")


def test_damaged_materials_hide_nothing_of_the_run():
    # A context that cannot be read back is shown as a note naming its
    # material; the Run stays shown and listed (issue 27, item 10).
    for how in ("missing", "file", "tampered"):
        repo = scratch_repo()
        st = start(repo)
        rid = st["run_id"]
        damage_materials(run_dir(repo, rid), how)
        res = run("status", rid, "--json", cwd=repo)
        assert res.code == 0, (how, res.err)
        doc = res.json_out()
        validate(doc, "runStatus")
        note = doc["current_action"]["context"]
        assert note.startswith("[context unavailable: its material sha256:"), (how, note)
        assert doc["actions"][0]["action"]["context"] == note, doc
        human = run("status", rid, cwd=repo)
        assert human.code == 0 and b"Unreadable material: sha256:" in human.out, human.out
        listing = run("status", "--json", cwd=repo)
        assert listing.code == 0, listing.err
        doc = listing.json_out()
        validate(doc, "statusList")
        assert [r["id"] for r in doc["runs"]] == [rid] and doc["unavailable_runs"] == [], (how, doc)
        human = run("status", cwd=repo)
        assert human.code == 0 and ("%s  active" % rid).encode() in human.out, human.out


# ---- 9: run creation is all or nothing; older debris is reported ----

def runs_entries(repo):
    d = os.path.join(repo, ".git", "slipway", "runs")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def test_a_run_that_fails_to_be_created_leaves_nothing():
    repo = scratch_repo()
    failures = 0
    for limit in range(4, 40):
        code, out, err = run_limited_fds(limit, "run", "--json", "--", "goal", cwd=repo)
        if code == 0:
            doc = json.loads(out)
            assert runs_entries(repo) == [doc["run_id"]], runs_entries(repo)
            break
        failures += 1
        assert code == 3, (limit, err)
        assert runs_entries(repo) == [], (limit, err, runs_entries(repo))
        listing = run("status", "--json", cwd=repo).json_out()
        assert listing["runs"] == [] and listing["unavailable_runs"] == [], listing
    assert failures > 0, "no descriptor limit made the creation fail"


def test_debris_of_older_versions_is_reported_by_status_and_doctor():
    repo = scratch_repo()
    runs = os.path.join(repo, ".git", "slipway", "runs")
    os.makedirs(os.path.join(runs, "left-empty"), mode=0o700)
    os.makedirs(os.path.join(runs, "left-partial", "materials"), mode=0o700)
    open(os.path.join(runs, "left-partial", "run.lock"), "w").close()
    os.makedirs(os.path.join(runs, ".tmp-killed-0123456789abcdef"), mode=0o700)
    doc = run("status", "--json", cwd=repo).json_out()
    validate(doc, "statusList")
    assert [u["id"] for u in doc["unavailable_runs"]] == ["left-empty", "left-partial"], doc
    for u in doc["unavailable_runs"]:
        assert u["code"] == "run_journal_invalid", u
        assert "incomplete run directory" in u["detail"] and "holds no Run" in u["detail"], u
    res = run("doctor", "--json", cwd=repo)
    assert res.code == 0, res.err
    checks = res.json_out()["checks"]
    debris = [c for c in checks if c["code"] == "runstore_incomplete_run"]
    assert [c["status"] for c in debris] == ["warning"] * 3, checks
    for c, name in zip(debris, [".tmp-killed-0123456789abcdef", "left-empty", "left-partial"]):
        assert ('"%s"' % name) in c["detail"], c
    codes = [c["code"] for c in checks]
    assert codes.index("runstore_incomplete_run") < codes.index("runstore_durability_full")
    human = run("doctor", cwd=repo)
    assert b"runstore_incomplete_run" in human.out
    # Nothing was removed or changed.
    assert runs_entries(repo) == [".tmp-killed-0123456789abcdef", "left-empty", "left-partial"]


# ---- 11: bidi controls and line separators in human output ----

INVISIBLE = ["\u061c", "\u200e", "\u200f", "\u2028", "\u2029", "\u202a", "\u202b", "\u202c",
             "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]


def shown(ch):
    return "<U+%04X>" % ord(ch)


def assert_escaped(text, chars):
    for ch in INVISIBLE:
        assert ch not in text, "raw %r in human output" % shown(ch)
    for ch in chars:
        assert shown(ch) in text, (shown(ch), text[:400])


def test_human_output_escapes_bidi_controls_and_json_keeps_them():
    repo = scratch_repo()
    goal = "fix " + "".join("%s%d" % (ch, i) for i, ch in enumerate(INVISIBLE)) + " done"
    res = run("run", "--", goal, cwd=repo)
    assert res.code == 0, res.err
    assert_escaped(res.out.decode(), INVISIBLE)
    # (json.loads on the bytes: str.splitlines would split at U+2028)
    doc = json.loads(run("status", "--json", cwd=repo).out)
    rid = doc["runs"][0]["id"]
    assert doc["runs"][0]["goal"] == goal, "JSON carries the goal unchanged"
    st = json.loads(run("status", rid, "--json", cwd=repo).out)
    question = "Which \u202eone\u2029?"
    path = write_tmp(encode(outcome(st["current_action"], status="needs_input",
                                    pause=decision_pause(question))))
    res = run("protocol", "submit", "--run", rid, "--action", st["current_action"]["action_id"],
              "--outcome-file", path, cwd=repo)
    assert res.code == 0, res.err
    for args, shows in ((("status", rid), ["\u202e", "\u2029"]), (("status",), ["\u202e"]),
                        (("stop", rid), [])):
        res = run(*args, cwd=repo)
        assert res.code == 0, res.err
        assert_escaped(res.out.decode(), shows)
    # JSON is left to the encoder: the bidi control stays raw (the encoder
    # writes only U+2028/U+2029 as escapes) and the text decodes unchanged.
    out = run("status", rid, "--json", cwd=repo).out.decode()
    assert "\u202e" in out and "<U+" not in out, "JSON is not filtered"
    assert question in json.dumps(json.loads(out), ensure_ascii=False), "JSON is unchanged"


def test_escaping_holds_across_the_output_buffer():
    repo = scratch_repo()
    goal = "ab\u202e" * 6000 + "c\u2028" * 3000
    res = run("run", "--", goal, cwd=repo)
    assert res.code == 0, res.err
    text = res.out.decode()
    assert_escaped(text, ["\u202e", "\u2028"])
    assert text.count("<U+202E>") == 6000 and text.count("<U+2028>") == 3000


def test_human_material_escapes_bidi_controls():
    repo = scratch_repo()
    payload = "# Constraints\n\nKeep \u202eevil\u202c text\u2029 out.\n"
    doc = ib.start(repo, ib.with_section_payload(ib.fixture(), "constraints", payload))
    res = run("status", doc["run_id"], "--section", "constraints", cwd=repo)
    assert res.code == 0, res.err
    assert_escaped(res.out.decode(), ["\u202e", "\u202c", "\u2029"])
    res = run("status", doc["run_id"], "--section", "constraints", "--json", cwd=repo)
    assert json.loads(res.out)["section"]["markdown"] == payload


# ---- 12: system failures, a torn only line, hard links ----

def run_limited_fds(limit, *args, cwd=None):
    import resource

    def lower():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    # libgit2 keeps an error buffer per thread that it does not free when
    # a scan thread fails under EMFILE; the leak check would turn that
    # into exit 1 and hide the status this test is about.
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    proc = subprocess.run([BIN] + list(args), cwd=cwd, capture_output=True, timeout=60,
                          preexec_fn=lower, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def test_fd_exhaustion_is_not_blamed_on_the_journal():
    repo = scratch_repo()
    rid = start(repo)["run_id"]
    seen = set()
    for limit in range(4, 40):
        code, out, err = run_limited_fds(limit, "status", rid, "--json", cwd=repo)
        if code == 0:
            continue
        doc = json.loads(err.decode().splitlines()[-1])
        assert doc["code"] != "run_journal_invalid", (limit, doc)
        seen.add(doc["code"])
        code, out, err = run_limited_fds(limit, "status", "--json", cwd=repo)
        if code == 0:
            listing = json.loads(out)
            validate(listing, "statusList")
            for u in listing["unavailable_runs"]:
                assert u["code"] == "run_unavailable", (limit, listing)
                seen.add("listed:" + u["code"])
    assert "runstore_unavailable" in seen and "listed:run_unavailable" in seen, seen


def test_permission_denied_journal_is_runstore_unavailable():
    if os.geteuid() != 0:
        skip_test("needs root, to read the Run as another user (running as uid %d)" % os.geteuid())
    if not os.path.exists("/usr/bin/setpriv"):
        skip_test("needs /usr/bin/setpriv (util-linux) to read the Run as another user")
    repo = scratch_repo()
    rid = start(repo)["run_id"]
    subprocess.run(["chmod", "755", repo], check=True)
    subprocess.run(["chown", "-R", "nobody", repo], check=True)
    journal = os.path.join(run_dir(repo, rid), "journal.jsonl")
    os.chown(journal, 0, 0)
    as_nobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", BIN]
    env = dict(os.environ, HOME="/tmp")
    proc = subprocess.run(as_nobody + ["status", rid, "--json"], cwd=repo, capture_output=True,
                          env=env, timeout=60)
    assert proc.returncode == 3, proc.stderr
    doc = json.loads(proc.stderr)
    validate(doc, "cliError")
    assert doc["code"] == "runstore_unavailable" and "Permission denied" in doc["message"], doc
    proc = subprocess.run(as_nobody + ["status", "--json"], cwd=repo, capture_output=True,
                          env=env, timeout=60)
    listing = json.loads(proc.stdout)
    assert [(u["id"], u["code"]) for u in listing["unavailable_runs"]] == \
        [(rid, "run_unavailable")], listing


def test_rejected_mutation_keeps_a_journal_whose_only_line_is_torn():
    repo = scratch_repo()
    st = start(repo)
    rid, aid = st["run_id"], st["action"]["action_id"]
    journal = os.path.join(run_dir(repo, rid), "journal.jsonl")
    torn = open(journal, "rb").read()[:300]
    assert b"\n" not in torn
    with open(journal, "wb") as f:
        f.write(torn)
    for args in (("protocol", "skip", "--run", rid, "--action", aid), ("stop", rid),
                 ("protocol", "resume", rid)):
        res = run(*args, cwd=repo)
        assert res.code == 3, res.err
        assert open(journal, "rb").read() == torn, args


def test_a_hard_linked_journal_is_refused_and_the_other_name_is_untouched():
    repo = scratch_repo()
    rid = start(repo)["run_id"]
    journal = os.path.join(run_dir(repo, rid), "journal.jsonl")
    outside = os.path.join(scratch_repo(commit=False), "outside.jsonl")
    os.link(journal, outside)
    before = open(outside, "rb").read()
    err = assert_cli_error(run("stop", rid, "--json", cwd=repo), "mutation_not_committed", 3)
    assert "hard link" in err["message"], err
    assert open(outside, "rb").read() == before
    err = assert_cli_error(run("status", rid, "--json", cwd=repo), "run_journal_invalid", 3)
    assert "hard link" in err["message"], err


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
