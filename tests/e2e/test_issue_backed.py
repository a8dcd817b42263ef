"""Issue-backed Runs: starting from a source envelope, the pinned catalog on
every Action, the material reader, status --section and resume with the
pinned source.  Envelopes derive from the reference fixture; a changed
comment body gets its manifest digest recomputed here."""

import copy
import hashlib
import json
import os
import tempfile

from slipway_e2e import FIXTURE, assert_cli_error, framed, main, run, scratch_repo, validate

MANIFEST_FENCE = "```slipway-manifest\n"


def fixture():
    with open(FIXTURE, encoding="utf-8") as f:
        return json.load(f)


# owner/name of the fixture's repository, as it appears in its URLs.
FIXTURE_REPO = "/".join(fixture()["canonical_url"].split("/")[3:5])


def manifest_of(env):
    body = env["body"]
    start = body.index(MANIFEST_FENCE) + len(MANIFEST_FENCE)
    end = body.index("\n```", start)
    return json.loads(body[start:end]), body[:start], body[end:]


def with_section_payload(env, key, payload):
    """The envelope with section `key` rewritten and its digest recomputed."""
    env = copy.deepcopy(env)
    manifest, head, tail = manifest_of(env)
    for sec in manifest["sections"]:
        if sec["key"] != key:
            continue
        for c in env["comments"]:
            if c["node_id"] == sec["comment_node_id"]:
                c["body"] = "<!-- slipway-section:v1 key=%s -->\n%s" % (key, payload)
                sec["body_sha256"] = framed("slipway-comment-body/v1", c["body"])
    env["body"] = head + json.dumps(manifest, separators=(",", ":")) + tail
    return env


def write_env(env):
    fd, path = tempfile.mkstemp(prefix="slipway-source-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(env, f)
    return path


def payload_of(env, key):
    for c in env["comments"]:
        if c["body"].startswith("<!-- slipway-section:v1 key=%s -->\n" % key):
            return c["body"].split("\n", 1)[1]
    raise KeyError(key)


def runs_dir(repo):
    return os.path.join(repo, ".git", "slipway", "runs")


def start(repo, env=None, *extra):
    path = write_env(env if env is not None else fixture())
    res = run("run", "--source-file", path, "--json", *extra, "--", "ship the change", cwd=repo)
    assert res.code == 0, res.err
    doc = res.json_out()
    validate(doc, "protocolState")
    return doc


def check_action_source(action, pinned, repo):
    keys = [s["key"] for s in pinned["sections"]]
    assert action["source"] == {
        "kind": "change_issue",
        "canonical_url": pinned["canonical_url"],
        "issue_id": pinned["issue_id"],
        "source_revision": pinned["source_revision"],
        "manifest_revision": pinned["manifest_revision"],
        "requirements_revision": pinned["requirements_revision"],
    }
    req = action["requirements"]
    assert list(req.keys()) == ["requirements_revision", "sections", "required_for_action", "reader"]
    assert req["requirements_revision"] == pinned["requirements_revision"]
    assert [s["key"] for s in req["sections"]] == keys
    for got, sec in zip(req["sections"], pinned["sections"]):
        assert got == {k: sec[k] for k in ("key", "role", "title", "section_revision",
                                              "material_sha256", "bytes")}
    assert req["required_for_action"] == keys
    assert req["reader"] == {
        "operation": "read_material",
        "base_argv": ["slipway", "protocol", "material", "--root", repo,
                      "--run", action["run_id"], "--action", action["action_id"]],
        "input": {"name": "section", "type": "enum", "flag": "--section",
                  "required": True, "choices": keys},
    }
    order = list(action.keys())
    assert order.index("context") < order.index("source") < order.index("requirements") \
        < order.index("remaining_budget"), order


def test_start_pins_the_source_and_the_first_action_carries_the_catalog():
    repo = scratch_repo()
    doc = start(repo)
    pinned = doc["pinned_source"]
    assert pinned["issue_id"] == fixture()["issue_id"]
    assert [s["key"] for s in pinned["sections"]] == [
        "outcome", "requirements", "acceptance-examples", "constraints", "non-goals"]
    assert doc["action"]["kind"] == "orient"
    check_action_source(doc["action"], pinned, repo)


def test_start_stores_each_section_as_material_and_nothing_raw():
    repo = scratch_repo()
    env = fixture()
    doc = start(repo, env)
    rdir = os.path.join(runs_dir(repo), doc["run_id"])
    names = sorted(os.listdir(os.path.join(rdir, "materials")))
    want = [s["material_sha256"][len("sha256:"):] for s in doc["pinned_source"]["sections"]]
    # Besides the sections: the first Action's context, kept by digest.
    ctx = doc["action"]["context"].encode()
    framed = b"".join(len(x).to_bytes(8, "big") + x for x in (b"slipway-material/v1", ctx))
    want.append(hashlib.sha256(framed).hexdigest())
    assert names == sorted(want)
    for sec in doc["pinned_source"]["sections"]:
        with open(os.path.join(rdir, "materials", sec["material_sha256"][7:]), "rb") as f:
            data = f.read()
        assert data == payload_of(env, sec["key"]).encode()
        assert len(data) == sec["bytes"]
    with open(os.path.join(rdir, "journal.jsonl"), encoding="utf-8") as f:
        journal = f.read()
    # Neither the raw body, the labels nor the envelope timestamps are kept.
    assert "slipway-manifest" not in journal
    assert "kind:maintenance" not in journal
    assert env["fetched_at"] not in journal


def test_status_shows_the_pinned_source():
    repo = scratch_repo()
    doc = start(repo)
    res = run("status", doc["run_id"], "--json", cwd=repo)
    assert res.code == 0, res.err
    st = res.json_out()
    validate(st, "runStatus")
    assert st["pinned_source"] == doc["pinned_source"]
    check_action_source(st["current_action"], doc["pinned_source"], repo)


def test_rejected_envelopes_are_invalid_source_and_leave_no_run():
    repo = scratch_repo()
    bad_marker = fixture()
    bad_marker["body"] = bad_marker["body"].replace("change/v2 -->", "objective/v2 -->", 1)
    wrong_digest = fixture()
    wrong_digest["comments"][0]["body"] += "edited\n"
    bad_provider = fixture()
    bad_provider["provider"] = "gitlab"
    cases = [write_env(bad_marker), write_env(wrong_digest), write_env(bad_provider)]
    notjson = tempfile.mkstemp(suffix=".json")[1]
    with open(notjson, "w") as f:
        f.write("{")
    cases.append(notjson)
    cases.append(os.path.join(tempfile.mkdtemp(), "missing.json"))
    for path in cases:
        res = run("run", "--source-file", path, "--budget", "5", "--json", "--", "goal", cwd=repo)
        doc = assert_cli_error(res, "invalid_source", 2)
        var = doc["next"]["variants"]
        assert [v["id"] for v in var] == ["start-with-source"], doc
        assert any(i["flag"] == "--source-file" for i in var[0]["inputs"]), doc
        assert not os.path.isdir(runs_dir(repo)) or os.listdir(runs_dir(repo)) == [], path


def test_a_symlinked_source_file_is_refused():
    repo = scratch_repo()
    target = write_env(fixture())
    link = os.path.join(tempfile.mkdtemp(), "link.json")
    os.symlink(target, link)
    res = run("run", "--source-file", link, "--json", "--", "goal", cwd=repo)
    doc = assert_cli_error(res, "invalid_source", 2)
    assert "read safely" in doc["message"]


def test_empty_source_file_flag_is_source_file_required():
    repo = scratch_repo()
    assert_cli_error(run("run", "--source-file", "", "--", "goal", cwd=repo),
                     "source_file_required", 2)


def test_human_start_with_source():
    repo = scratch_repo()
    path = write_env(fixture())
    res = run("run", "--source-file", path, "--", "ship", cwd=repo)
    assert res.code == 0, res.err
    text = res.out.decode()
    assert text.startswith("Run ") and "Current action: orient" in text


def material(repo, run_id, action_id, key):
    return run("protocol", "material", "--root", repo, "--run", run_id, "--action", action_id,
               "--section", key, cwd=repo)


def section_status(repo, run_id, key, *extra):
    return run("status", run_id, "--section", key, "--root", repo, *extra, cwd=repo)


def rewrite_journal(repo, run_id, old, new):
    path = os.path.join(runs_dir(repo), run_id, "journal.jsonl")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert old in text
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))


def test_material_returns_each_section_of_the_current_action():
    repo = scratch_repo()
    env = fixture()
    doc = start(repo, env)
    action = doc["action"]
    for sec in action["requirements"]["sections"]:
        res = material(repo, doc["run_id"], action["action_id"], sec["key"])
        assert res.code == 0, res.err
        m = res.json_out()
        validate(m, "actionMaterial")
        assert list(m.keys()) == ["contract_version", "message_type", "run_id", "action_id",
                                  "requirements_revision", "section"]
        assert m["message_type"] == "action_material"
        assert m["action_id"] == action["action_id"]
        assert m["requirements_revision"] == action["requirements"]["requirements_revision"]
        assert m["section"] == {"key": sec["key"], "role": sec["role"], "title": sec["title"],
                                "section_revision": sec["section_revision"],
                                "markdown": payload_of(env, sec["key"])}


def test_the_reader_argv_from_the_action_works_as_given():
    repo = scratch_repo()
    doc = start(repo)
    reader = doc["action"]["requirements"]["reader"]
    res = run(*(reader["base_argv"][1:] + [reader["input"]["flag"], reader["input"]["choices"][1]]),
              cwd=tempfile.mkdtemp())
    assert res.code == 0, res.err
    assert res.json_out()["section"]["key"] == reader["input"]["choices"][1]


def test_material_error_codes_in_order():
    repo = scratch_repo()
    doc = start(repo)
    rid, aid = doc["run_id"], doc["action"]["action_id"]
    assert_cli_error(material(repo, rid, aid, "Bad Key"), "material_section_invalid", 3)
    assert_cli_error(material(repo, rid, "00000000-0000-4000-8000-000000000000", "outcome"),
                     "material_action_not_found", 3)
    assert_cli_error(material(repo, rid, aid, "no-such-key"), "material_section_not_found", 3)
    assert_cli_error(material(repo, rid, aid, ""), "material_section_required", 2)


def test_missing_or_tampered_blob_is_material_unavailable():
    repo = scratch_repo()
    doc = start(repo)
    rid, aid = doc["run_id"], doc["action"]["action_id"]
    secs = doc["pinned_source"]["sections"]
    mdir = os.path.join(runs_dir(repo), rid, "materials")
    os.unlink(os.path.join(mdir, secs[0]["material_sha256"][7:]))
    assert_cli_error(material(repo, rid, aid, secs[0]["key"]), "material_unavailable", 3)
    assert_cli_error(section_status(repo, rid, secs[0]["key"], "--json"), "material_unavailable", 3)
    blob = os.path.join(mdir, secs[1]["material_sha256"][7:])
    os.chmod(blob, 0o600)
    with open(blob, "ab") as f:
        f.write(b"tampered\n")
    assert_cli_error(material(repo, rid, aid, secs[1]["key"]), "material_unavailable", 3)


def test_catalog_disagreeing_with_the_blob_is_material_corrupt():
    repo = scratch_repo()
    doc = start(repo)
    rid, aid = doc["run_id"], doc["action"]["action_id"]
    sec = doc["pinned_source"]["sections"][0]
    rewrite_journal(repo, rid, '"bytes":%d' % sec["bytes"], '"bytes":%d' % (sec["bytes"] + 1))
    assert_cli_error(material(repo, rid, aid, sec["key"]), "material_corrupt", 3)
    assert_cli_error(section_status(repo, rid, sec["key"], "--json"), "material_corrupt", 3)
    repo = scratch_repo()
    doc = start(repo)
    rid, aid = doc["run_id"], doc["action"]["action_id"]
    sec = doc["pinned_source"]["sections"][0]
    rewrite_journal(repo, rid, '"title":"%s"' % sec["title"], '"title":"Renamed"')
    assert_cli_error(material(repo, rid, aid, sec["key"]), "material_corrupt", 3)


def test_material_of_an_ad_hoc_run_is_unavailable():
    repo = scratch_repo()
    res = run("run", "--json", "--", "ad hoc", cwd=repo)
    doc = res.json_out()
    assert_cli_error(material(repo, doc["run_id"], doc["action"]["action_id"], "outcome"),
                     "material_unavailable", 3)
    assert_cli_error(section_status(repo, doc["run_id"], "outcome", "--json"),
                     "material_unavailable", 3)


def test_stopped_run_material_is_stale_but_status_section_still_reads():
    repo = scratch_repo()
    env = fixture()
    doc = start(repo, env)
    rid, aid = doc["run_id"], doc["action"]["action_id"]
    res = run("stop", rid, "--json", cwd=repo)
    assert res.code == 0, res.err
    assert_cli_error(material(repo, rid, aid, "outcome"), "material_action_stale", 3)
    res = section_status(repo, rid, "requirements", "--json")
    assert res.code == 0, res.err
    pm = res.json_out()
    validate(pm, "pinnedMaterial")
    assert list(pm.keys()) == ["contract_version", "message_type", "run_id", "run_state",
                               "source_revision", "requirements_revision", "section"]
    assert pm["message_type"] == "pinned_material" and pm["run_state"] == "stopped"
    assert pm["source_revision"] == doc["pinned_source"]["source_revision"]
    assert pm["section"]["markdown"] == payload_of(env, "requirements")
    assert "action_id" not in pm


def test_status_section_checks_and_human_form():
    repo = scratch_repo()
    env = fixture()
    doc = start(repo, env)
    rid = doc["run_id"]
    assert_cli_error(run("status", "--section", "outcome", cwd=repo), "run_id_required", 2)
    assert_cli_error(section_status(repo, rid, ""), "material_section_required", 2)
    assert_cli_error(section_status(repo, rid, "BAD"), "material_section_invalid", 3)
    assert_cli_error(section_status(repo, rid, "nope"), "material_section_not_found", 3)
    res = section_status(repo, rid, "constraints")
    assert res.code == 0, res.err
    text = res.out.decode()
    assert "constraints" in text and "authorizes no work" in text
    assert text.endswith(payload_of(env, "constraints"))
    # Reading is read-only: the journal is unchanged.
    jpath = os.path.join(runs_dir(repo), rid, "journal.jsonl")
    before = open(jpath, "rb").read()
    section_status(repo, rid, "outcome", "--json")
    material(repo, rid, doc["action"]["action_id"], "outcome")
    assert open(jpath, "rb").read() == before


def resume(repo, run_id, *extra):
    return run("protocol", "resume", run_id, "--root", repo, *extra, cwd=repo)


def test_resume_with_the_pinned_source_reorients_and_applies_the_budget():
    repo = scratch_repo()
    doc = start(repo, None, "--budget", "3")
    rid = doc["run_id"]
    stopped = run("stop", rid, "--json", cwd=repo).json_out()
    validate(stopped, "protocolState")
    assert [v["id"] for v in stopped["next"]["variants"]] == ["refresh-source", "use-pinned-source"]
    res = resume(repo, rid, "--use-pinned-source", "--budget", "5")
    assert res.code == 0, res.err
    st = res.json_out()
    validate(st, "protocolState")
    assert st["state"] == "active" and st["action"]["kind"] == "orient"
    assert st["resume_operation"] == "source_refresh_skipped" and st["budget_applied"] is True
    assert st["action"]["remaining_budget"] == 4
    assert st["action"]["action_id"] != doc["action"]["action_id"]
    assert st["pinned_source"] == doc["pinned_source"]
    check_action_source(st["action"], doc["pinned_source"], repo)
    # The new Action reads material; the voided one no longer can.
    assert material(repo, rid, st["action"]["action_id"], "outcome").code == 0
    assert_cli_error(material(repo, rid, doc["action"]["action_id"], "outcome"),
                     "material_action_stale", 3)
    full = run("status", rid, "--json", cwd=repo).json_out()
    validate(full, "runStatus")
    assert full["last_resume_result"] == {"operation": "source_refresh_skipped",
                                          "budget_applied": True}
    assert full["observations"][-1] == "source_refresh_skipped"


def test_the_use_pinned_source_variant_runs_as_printed():
    repo = scratch_repo()
    doc = start(repo)
    stopped = run("stop", doc["run_id"], "--json", cwd=repo).json_out()
    var = [v for v in stopped["next"]["variants"] if v["id"] == "use-pinned-source"][0]
    res = run(*var["base_argv"][1:], cwd=tempfile.mkdtemp())
    assert res.code == 0, res.err
    assert res.json_out()["resume_operation"] == "source_refresh_skipped"


def test_issue_backed_resume_without_a_mode_and_ad_hoc_with_one_are_refused():
    repo = scratch_repo()
    doc = start(repo)
    rid = doc["run_id"]
    assert_cli_error(resume(repo, rid, "--use-pinned-source"), "run_not_resumable", 3)
    run("stop", rid, cwd=repo)
    assert_cli_error(resume(repo, rid), "source_mode_required", 3)
    assert_cli_error(resume(repo, rid, "--use-pinned-source", "--source-file", FIXTURE),
                     "source_mode_conflict", 2)
    adhoc = run("run", "--json", "--", "ad hoc", cwd=repo).json_out()
    run("stop", adhoc["run_id"], cwd=repo)
    assert_cli_error(resume(repo, adhoc["run_id"], "--use-pinned-source"),
                     "source_mode_not_allowed", 3)
    res = resume(repo, adhoc["run_id"])
    assert res.code == 0, res.err
    assert res.json_out()["resume_operation"] == "ad_hoc_resumed"


def stopped_run(repo, env=None):
    doc = start(repo, env)
    res = run("stop", doc["run_id"], "--json", cwd=repo)
    assert res.code == 0, res.err
    return doc


def refresh(repo, run_id, env, *extra):
    return resume(repo, run_id, "--source-file", write_env(env), *extra)


def refreshed_ok(res, note):
    assert res.code == 0, res.err
    st = res.json_out()
    validate(st, "protocolState")
    assert st["resume_operation"] == "source_refreshed" and st["budget_applied"] is True
    assert st["state"] == "active" and st["action"]["kind"] == "orient"
    return st


def observations(repo, run_id):
    full = run("status", run_id, "--json", cwd=repo).json_out()
    validate(full, "runStatus")
    return full


def test_refresh_with_the_same_envelope_is_unchanged():
    repo = scratch_repo()
    doc = stopped_run(repo)
    st = refreshed_ok(refresh(repo, doc["run_id"], fixture(), "--budget", "4"), None)
    assert st["pinned_source"] == doc["pinned_source"]
    assert st["action"]["remaining_budget"] == 3
    check_action_source(st["action"], st["pinned_source"], repo)
    full = observations(repo, doc["run_id"])
    assert full["observations"][-1] == "source_refreshed_unchanged"
    assert full["last_resume_result"] == {"operation": "source_refreshed", "budget_applied": True}


def test_refresh_with_a_new_title_is_non_material_and_repins():
    repo = scratch_repo()
    doc = stopped_run(repo)
    env = fixture()
    env["title"] = "[Change] Container source smoke, renamed"
    st = refreshed_ok(refresh(repo, doc["run_id"], env), None)
    assert st["pinned_source"]["title"] == env["title"]
    assert st["pinned_source"]["source_revision"] != doc["pinned_source"]["source_revision"]
    assert st["pinned_source"]["requirements_revision"] == doc["pinned_source"]["requirements_revision"]
    assert st["action"]["source"]["source_revision"] == st["pinned_source"]["source_revision"]
    assert observations(repo, doc["run_id"])["observations"][-1] == "source_refreshed_non_material"
    # The new Action reads its material.
    res = material(repo, doc["run_id"], st["action"]["action_id"], "requirements")
    assert res.code == 0, res.err


def test_refresh_after_a_transfer_is_projection_drift_with_an_alias():
    repo = scratch_repo()
    doc = stopped_run(repo)
    env = fixture()
    old_url = env["canonical_url"]
    env["canonical_url"] = old_url.replace(FIXTURE_REPO, "example/moved-repo")
    for c in env["comments"]:
        c["url"] = c["url"].replace(old_url, env["canonical_url"])
    st = refreshed_ok(refresh(repo, doc["run_id"], env), None)
    assert st["pinned_source"]["canonical_url"] == env["canonical_url"]
    assert st["pinned_source"]["url_aliases"] == [old_url]
    assert st["action"]["source"]["canonical_url"] == env["canonical_url"]
    assert observations(repo, doc["run_id"])["observations"][-1] == "source_projection_drift"


def test_refresh_of_another_issue_is_source_issue_mismatch():
    repo = scratch_repo()
    doc = stopped_run(repo)
    env = fixture()
    env["issue_id"] = "I_anotherIssue"
    err = assert_cli_error(refresh(repo, doc["run_id"], env), "source_issue_mismatch", 3)
    assert err["details"]["pinned_issue_id"] == fixture()["issue_id"]
    assert err["details"]["refreshed_issue_id"] == "I_anotherIssue"
    assert err["details"]["run_id"] == doc["run_id"] and err["details"]["state"] == "stopped"
    assert [v["id"] for v in err["next"]["variants"]] == ["start-with-source"]


def amended(env, key, payload, parent=None, node_suffix="_v2", db_offset=100):
    """The envelope with section `key` moved to a replacement comment."""
    env = copy.deepcopy(env)
    manifest, head, tail = manifest_of(env)
    for sec in manifest["sections"]:
        if sec["key"] != key:
            continue
        old = [c for c in env["comments"] if c["node_id"] == sec["comment_node_id"]][0]
        env["comments"].remove(old)
        new = dict(old)
        new["node_id"] = old["node_id"] + node_suffix
        new["database_id"] = old["database_id"] + db_offset
        new["url"] = "%s#issuecomment-%d" % (env["canonical_url"], new["database_id"])
        new["body"] = "<!-- slipway-section:v1 key=%s -->\n%s" % (key, payload)
        env["comments"].append(new)
        sec["comment_node_id"] = new["node_id"]
        sec["comment_database_id"] = new["database_id"]
        sec["body_sha256"] = framed("slipway-comment-body/v1", new["body"])
    if parent:
        manifest["parent_requirements_revision"] = parent
    env["body"] = head + json.dumps(manifest, separators=(",", ":")) + tail
    return env


def test_refresh_with_an_unparented_amendment_is_a_history_fork():
    repo = scratch_repo()
    doc = stopped_run(repo)
    env = amended(fixture(), "requirements", "# Requirements\n\nSomething else.\n")
    err = assert_cli_error(refresh(repo, doc["run_id"], env), "source_history_fork", 3)
    assert [v["id"] for v in err["next"]["variants"]] == ["start-with-source"]


def test_refresh_that_edits_an_accepted_comment_in_place_is_refused():
    repo = scratch_repo()
    doc = stopped_run(repo)
    env = with_section_payload(fixture(), "requirements", "# Requirements\n\nEdited in place.\n")
    assert_cli_error(refresh(repo, doc["run_id"], env), "source_history_in_place_edit", 3)


def invalid_candidate_run(repo):
    doc = stopped_run(repo)
    env = fixture()
    env["body"] = "no marker here\n"
    res = refresh(repo, doc["run_id"], env)
    assert res.code == 0, res.err
    st = res.json_out()
    validate(st, "protocolState")
    return doc, st


def test_an_invalid_refreshed_body_becomes_a_candidate_and_pauses_without_budget():
    repo = scratch_repo()
    doc, st = invalid_candidate_run(repo)
    rid = doc["run_id"]
    assert st["state"] == "paused" and st["pause_reason"] == "decision_required"
    assert "action" not in st
    assert st["resume_operation"] == "source_candidate_created" and st["budget_applied"] is False
    cand = st["source_candidate"]
    assert cand["valid"] is False and cand["classification"] == "invalid"
    assert cand["classification_code"] == "change_marker_required"
    assert "snapshot" not in cand and "title" not in cand
    assert st["pinned_source"] == doc["pinned_source"]
    assert [v["id"] for v in st["next"]["variants"]] == ["keep-pinned"]
    full = observations(repo, rid)
    assert full["observations"][-1] == "source_candidate_invalid"
    assert full["last_resume_result"] == {"operation": "source_candidate_created",
                                          "budget_applied": False,
                                          "candidate_id": cand["candidate_id"]}
    assert full["remaining_budget"] == doc["action"]["remaining_budget"]
    # While the candidate waits only a choice resumes.
    assert_cli_error(resume(repo, rid, "--use-pinned-source"), "source_candidate_pending", 3)
    assert_cli_error(refresh(repo, rid, fixture()), "source_candidate_pending", 3)
    assert_cli_error(resume(repo, rid), "source_choice_required", 3)
    assert_cli_error(resume(repo, rid, "--source-choice", "pinned", "--candidate", "other"),
                     "stale_source_candidate", 3)
    assert_cli_error(resume(repo, rid, "--source-choice", "adopt", "--candidate",
                            cand["candidate_id"]), "invalid_source_candidate_choice", 3)


def test_keeping_the_pinned_source_resolves_the_candidate_once():
    repo = scratch_repo()
    doc, st = invalid_candidate_run(repo)
    rid, cid = doc["run_id"], st["source_candidate"]["candidate_id"]
    var = st["next"]["variants"][0]
    res = run(*(var["base_argv"][1:] + ["--budget", "4"]), cwd=tempfile.mkdtemp())
    assert res.code == 0, res.err
    kept = res.json_out()
    validate(kept, "protocolState")
    assert kept["resume_operation"] == "source_pinned" and kept["budget_applied"] is True
    assert kept["state"] == "active" and kept["action"]["kind"] == "orient"
    assert kept["action"]["remaining_budget"] == 3
    assert "source_candidate" not in kept
    assert kept["pinned_source"] == doc["pinned_source"]
    check_action_source(kept["action"], kept["pinned_source"], repo)
    full = observations(repo, rid)
    assert full["last_source_choice"]["candidate_id"] == cid
    assert full["last_source_choice"]["choice"] == "pinned"
    assert full["last_source_choice"]["resulting_action_id"] == kept["action"]["action_id"]
    assert full["observations"][-1] == "source_pinned"
    # The same choice again replays without writing; the other one conflicts.
    jpath = os.path.join(runs_dir(repo), rid, "journal.jsonl")
    before = open(jpath, "rb").read()
    again = resume(repo, rid, "--source-choice", "pinned", "--candidate", cid, "--budget", "999")
    assert again.code == 0, again.err
    assert again.out == res.out, "a replayed choice answers byte for byte as the first time"
    replay = again.json_out()
    validate(replay, "protocolState")
    assert replay["resume_operation"] == "source_pinned"
    assert replay["action"]["action_id"] == kept["action"]["action_id"]
    assert open(jpath, "rb").read() == before
    assert_cli_error(resume(repo, rid, "--source-choice", "adopt", "--candidate", cid),
                     "source_choice_conflict", 3)


def test_an_amendment_becomes_a_valid_candidate_and_adopting_it_repins():
    repo = scratch_repo()
    doc = stopped_run(repo)
    rid = doc["run_id"]
    payload = "# Requirements\n\nThe materially amended accepted requirement.\n"
    env = amended(fixture(), "requirements", payload,
                  parent=doc["pinned_source"]["requirements_revision"])
    res = refresh(repo, rid, env)
    assert res.code == 0, res.err
    st = res.json_out()
    validate(st, "protocolState")
    cand = st["source_candidate"]
    assert cand["valid"] is True and cand["classification_code"] == "valid_change"
    assert cand["requirements_revision"] != doc["pinned_source"]["requirements_revision"]
    assert [v["id"] for v in st["next"]["variants"]] == ["keep-pinned", "adopt"]
    assert observations(repo, rid)["observations"][-1] == "source_amendment_candidate"
    res = resume(repo, rid, "--source-choice", "adopt", "--candidate", cand["candidate_id"])
    assert res.code == 0, res.err
    adopted = res.json_out()
    validate(adopted, "protocolState")
    assert adopted["resume_operation"] == "source_amended"
    assert adopted["pinned_source"]["requirements_revision"] == cand["requirements_revision"]
    assert adopted["pinned_source"]["parent_requirements_revision"] == \
        doc["pinned_source"]["requirements_revision"]
    check_action_source(adopted["action"], adopted["pinned_source"], repo)
    m = material(repo, rid, adopted["action"]["action_id"], "requirements")
    assert m.code == 0, m.err
    assert m.json_out()["section"]["markdown"] == payload
    full = observations(repo, rid)
    assert full["last_source_choice"]["choice"] == "adopt"
    assert full["last_resume_result"]["candidate_id"] == cand["candidate_id"]


def test_refresh_preflight_and_mode_errors():
    repo = scratch_repo()
    doc = stopped_run(repo)
    bad = tempfile.mkstemp(suffix=".json")[1]
    with open(bad, "w") as f:
        f.write("[]")
    err = assert_cli_error(resume(repo, doc["run_id"], "--source-file", bad),
                           "invalid_source_candidate", 2)
    assert [v["id"] for v in err["next"]["variants"]] == ["refresh-source", "use-pinned-source"]
    assert_cli_error(resume(repo, doc["run_id"], "--source-choice", "pinned", "--candidate", "c1"),
                     "stale_source_candidate", 3)
    adhoc = run("run", "--json", "--", "ad hoc", cwd=repo).json_out()
    run("stop", adhoc["run_id"], cwd=repo)
    assert_cli_error(resume(repo, adhoc["run_id"], "--source-file", write_env(fixture())),
                     "source_mode_not_allowed", 3)
    active = start(repo)
    assert_cli_error(resume(repo, active["run_id"], "--source-file", write_env(fixture())),
                     "run_not_resumable", 3)


def submit(repo, run_id, action, outcome):
    path = tempfile.mkstemp(suffix=".json")[1]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(outcome, f)
    return run("protocol", "submit", "--run", run_id, "--action", action["action_id"],
               "--outcome-file", path, "--root", repo, cwd=repo)


def test_adopting_new_requirements_retires_decisions_given_under_the_old_ones():
    repo = scratch_repo()
    doc = start(repo)
    rid = doc["run_id"]
    ask = {"contract_version": 2, "action_id": doc["action"]["action_id"], "action_kind": "orient",
           "status": "needs_input", "summary": "need a decision", "observations": [],
           "known_issues": [], "suggested_actions": [],
           "pause": {"reason": "decision_required", "question": "Which way?",
                     "destructive_request": None},
           "implementation": None, "review": None}
    res = submit(repo, rid, doc["action"], ask)
    assert res.code == 0, res.err
    res = run("protocol", "answer", "--run", rid, "--action", doc["action"]["action_id"],
              "--text", "Go left.", "--root", repo, cwd=repo)
    assert res.code == 0, res.err
    after = res.json_out()
    assert "Go left." in after["action"]["context"]
    full = observations(repo, rid)
    answer = full["answers"][0]
    assert answer["requirements_revision"] == doc["pinned_source"]["requirements_revision"]
    assert answer["source_revision"] == doc["pinned_source"]["source_revision"]
    run("stop", rid, cwd=repo)
    env = amended(fixture(), "requirements", "# Requirements\n\nNew ones.\n",
                  parent=doc["pinned_source"]["requirements_revision"])
    cand = refresh(repo, rid, env).json_out()["source_candidate"]
    res = resume(repo, rid, "--source-choice", "adopt", "--candidate", cand["candidate_id"])
    assert res.code == 0, res.err
    adopted = res.json_out()
    assert "Go left." not in adopted["action"]["context"]
    answer = observations(repo, rid)["answers"][0]
    assert answer["active"] is False
    assert answer["superseded_by"] == "requirements:" + cand["requirements_revision"]


def test_human_status_shows_the_pinned_source_and_the_candidate():
    repo = scratch_repo()
    doc, st = invalid_candidate_run(repo)
    res = run("status", doc["run_id"], cwd=repo)
    assert res.code == 0, res.err
    text = res.out.decode()
    assert "Pinned source: %s (%s)" % (doc["pinned_source"]["canonical_url"],
                                       doc["pinned_source"]["issue_id"]) in text
    assert "Requirements revision: " + doc["pinned_source"]["requirements_revision"] in text
    assert "Current source candidate: %s (invalid, change_marker_required)" % \
        st["source_candidate"]["candidate_id"] in text


def test_refresh_beyond_the_alias_history_is_source_alias_limit():
    repo = scratch_repo()
    doc = stopped_run(repo)
    # A Run that already followed 64 transfers (written into its journal).
    aliases = ["https://github.com/example/old-%d/issues/434" % i for i in range(64)]
    rewrite_journal(repo, doc["run_id"], '"url_aliases":[]',
                    '"url_aliases":' + json.dumps(aliases, separators=(",", ":")))
    env = fixture()
    old_url = env["canonical_url"]
    env["canonical_url"] = old_url.replace(FIXTURE_REPO, "example/moved-again")
    for c in env["comments"]:
        c["url"] = c["url"].replace(old_url, env["canonical_url"])
    err = assert_cli_error(refresh(repo, doc["run_id"], env), "source_alias_limit", 3)
    assert [v["id"] for v in err["next"]["variants"]] == ["start-with-source"]


TESTS = [
    test_start_pins_the_source_and_the_first_action_carries_the_catalog,
    test_start_stores_each_section_as_material_and_nothing_raw,
    test_status_shows_the_pinned_source,
    test_rejected_envelopes_are_invalid_source_and_leave_no_run,
    test_a_symlinked_source_file_is_refused,
    test_empty_source_file_flag_is_source_file_required,
    test_human_start_with_source,
    test_material_returns_each_section_of_the_current_action,
    test_the_reader_argv_from_the_action_works_as_given,
    test_material_error_codes_in_order,
    test_missing_or_tampered_blob_is_material_unavailable,
    test_catalog_disagreeing_with_the_blob_is_material_corrupt,
    test_material_of_an_ad_hoc_run_is_unavailable,
    test_stopped_run_material_is_stale_but_status_section_still_reads,
    test_status_section_checks_and_human_form,
    test_resume_with_the_pinned_source_reorients_and_applies_the_budget,
    test_the_use_pinned_source_variant_runs_as_printed,
    test_issue_backed_resume_without_a_mode_and_ad_hoc_with_one_are_refused,
    test_refresh_with_the_same_envelope_is_unchanged,
    test_refresh_with_a_new_title_is_non_material_and_repins,
    test_refresh_after_a_transfer_is_projection_drift_with_an_alias,
    test_refresh_of_another_issue_is_source_issue_mismatch,
    test_refresh_with_an_unparented_amendment_is_a_history_fork,
    test_refresh_that_edits_an_accepted_comment_in_place_is_refused,
    test_an_invalid_refreshed_body_becomes_a_candidate_and_pauses_without_budget,
    test_keeping_the_pinned_source_resolves_the_candidate_once,
    test_an_amendment_becomes_a_valid_candidate_and_adopting_it_repins,
    test_adopting_new_requirements_retires_decisions_given_under_the_old_ones,
    test_human_status_shows_the_pinned_source_and_the_candidate,
    test_refresh_beyond_the_alias_history_is_source_alias_limit,
    test_refresh_preflight_and_mode_errors,
]

if __name__ == "__main__":
    main(TESTS)
