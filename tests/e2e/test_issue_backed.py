"""Issue-backed Runs: starting from a source envelope, the pinned catalog on
every Action, the material reader, status --section and resume with the
pinned source.  Envelopes derive from the reference fixture; a changed
comment body gets its manifest digest recomputed here."""

import copy
import hashlib
import json
import os
import struct
import tempfile

from slipway_e2e import SHARED, assert_cli_error, main, run, scratch_repo, validate

FIXTURE = os.path.join(SHARED, "reference/fixtures/container-source-envelope.json")
MANIFEST_FENCE = "```slipway-manifest\n"


def framed(*fields):
    h = hashlib.sha256()
    for f in fields:
        b = f.encode() if isinstance(f, str) else f
        h.update(struct.pack(">Q", len(b)))
        h.update(b)
    return "sha256:" + h.hexdigest()


def fixture():
    with open(FIXTURE, encoding="utf-8") as f:
        return json.load(f)


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
    assert pinned["issue_id"] == "I_containerSmoke"
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
    want = sorted(s["material_sha256"][len("sha256:"):] for s in doc["pinned_source"]["sections"])
    assert names == want
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


TESTS = [
    test_start_pins_the_source_and_the_first_action_carries_the_catalog,
    test_start_stores_each_section_as_material_and_nothing_raw,
    test_status_shows_the_pinned_source,
    test_rejected_envelopes_are_invalid_source_and_leave_no_run,
    test_a_symlinked_source_file_is_refused,
    test_empty_source_file_flag_is_source_file_required,
    test_human_start_with_source,
]

if __name__ == "__main__":
    main(TESTS)
