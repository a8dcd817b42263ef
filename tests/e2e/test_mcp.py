"""slipway mcp end to end: the official MCP TypeScript SDK client
(tests/mcp/session.mjs, @modelcontextprotocol/sdk pinned by
tests/mcp/package-lock.json, installed by `make deps`) drives whole Runs
through every pause kind; each result is compared with what the CLI prints
for the same operation (a replay of the same mutation through the CLI must
answer byte for byte and write nothing) and for the same state (status).
Raw JSON-RPC tests cover malformed input, negotiation and limits."""

import copy
import hashlib
import json
import os
import re
import subprocess

from protocol_support import (decision_pause, destructive_pause, encode, impl, journal_lines,
                              outcome, review_block, run_dir, start, tree_digest)
from slipway_e2e import BIN, FIXTURE, ROOT, main, run, scratch_repo, validate, validate_any

SESSION = os.path.join(ROOT, "tests/mcp/session.mjs")
SDK = os.path.join(ROOT, "tests/mcp/node_modules/@modelcontextprotocol/sdk/package.json")
TOOLS = ["run", "submit", "answer", "skip", "resume", "stop", "status", "material", "doctor", "list", "install"]
# What issue 26 allows: the tools/list reply and the initialize instructions.
LIMIT_TOOLS, LIMIT_INSTRUCTIONS = 24000, 2000
TRANSCRIPT = os.environ.get("SLIPWAY_MCP_TRANSCRIPT")


def as_js(v):
    """`v` as a JavaScript client holds it: integers beyond 2**53 (the
    nanosecond file times) become the nearest double."""
    if isinstance(v, dict):
        return {k: as_js(x) for k, x in v.items()}
    if isinstance(v, list):
        return [as_js(x) for x in v]
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2 ** 53:
        return float(v)
    return v


class Session:
    """One SDK client session against `slipway mcp --root repo`."""

    def __init__(self, repo):
        assert os.path.exists(SDK), "the MCP SDK is missing: run `make deps` (tests/mcp/node_modules)"
        self.repo = repo
        self.proc = subprocess.Popen(["node", SESSION, repo], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=dict(os.environ, SLIPWAY_BIN=BIN), cwd=repo)
        self.hello = self._read()
        assert self.hello.get("ready"), self.hello
        self.request(op="listTools")  # the SDK caches the output validators

    def _read(self):
        line = self.proc.stdout.readline()
        assert line, "the SDK session ended: %s" % self.proc.stderr.read().decode()
        return json.loads(line)

    def request(self, **req):
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        return self._read()

    def ok(self, **req):
        res = self.request(**req)
        assert res["ok"], res
        return res["result"]

    def call(self, name, **arguments):
        """A tools/call whose result the SDK accepted; checks the result's
        shape and returns (document, printed text, isError)."""
        res = self.ok(op="call", name=name, arguments=arguments)
        if TRANSCRIPT:
            with open(TRANSCRIPT, "a") as f:
                f.write("-> %s %s\n<- %s\n" % (name, json.dumps(arguments), res["content"][0]["text"]))
        assert [c["type"] for c in res["content"]] == ["text"], res
        doc = res["structuredContent"]
        text = res["content"][0]["text"]
        assert as_js(json.loads(text)) == as_js(doc), "text and structuredContent disagree:\n%s\n%s" % (text, json.dumps(doc))
        if res["isError"]:
            validate(doc, "cliError")
        else:
            validate_any(doc)
        return doc, text, res["isError"]

    def state(self, name, **arguments):
        doc, _, is_error = self.call(name, **arguments)
        assert not is_error, doc
        validate(doc, "protocolState")
        return doc

    def close(self):
        self.proc.stdin.close()
        err = self.proc.stderr.read().decode()
        assert self.proc.wait(timeout=60) == 0, err
        return err


def cli_text(res):
    """What a CLI command printed: stdout on success, the cliError otherwise."""
    return (res.out if res.code == 0 else res.err).decode().rstrip("\n")


def same_as_cli(repo, run_id, text, *argv, stdin=None):
    """The CLI replay of the mutation MCP just carried out answers with the
    same bytes and writes nothing: both surfaces ran the same operation."""
    before = tree_digest(run_dir(repo, run_id))
    res = run(*argv, "--root", repo, cwd=repo, stdin=stdin)
    assert res.code == 0, res.err
    assert cli_text(res) == text, "CLI %s: %s\nMCP: %s" % (argv[:2], cli_text(res), text)
    assert tree_digest(run_dir(repo, run_id)) == before, "the CLI replay wrote to the run"


def status_agrees(s, run_id):
    """status over MCP, as a resource, and over the CLI: the same document."""
    doc, text, is_error = s.call("status", run_id=run_id)
    assert not is_error
    validate(doc, "runStatus")
    assert text == cli_text(run("status", run_id, "--json", "--root", s.repo, cwd=s.repo))
    res = s.ok(op="read", uri="slipway://runs/%s" % run_id)
    assert res["contents"] == [{"uri": "slipway://runs/%s" % run_id,
                                "mimeType": "application/json", "text": text}]
    return doc


def submit(s, st, **kw):
    """submit over MCP, compared with the CLI's replay of the same Outcome."""
    out = outcome(st["action"], **kw)
    new = s.state("submit", run_id=st["run_id"], action_id=st["action"]["action_id"], outcome=out)
    _, text, _ = s.call("submit", run_id=st["run_id"], action_id=st["action"]["action_id"], outcome=out)
    assert as_js(json.loads(text)) == as_js(new), "the same submit again replays"
    same_as_cli(s.repo, st["run_id"], text, "protocol", "submit", "--run", st["run_id"],
                "--action", st["action"]["action_id"], "--outcome-stdin", stdin=encode(out))
    status_agrees(s, st["run_id"])
    return new


def portable(schema):
    """Our schema as the tools carry it: a tuple closed by maxItems drops
    its draft 2020-12 "items": false, which a draft-07 validator would read
    as "no items"."""
    if isinstance(schema, list):
        return [portable(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: portable(v) for k, v in schema.items()}
    if "prefixItems" in out and out.get("items") is False and \
            out.get("maxItems", len(out["prefixItems"]) + 1) <= len(out["prefixItems"]):
        del out["items"]
    return out


def undescribed(schema):
    """`schema` without its descriptions (annotations: they validate
    nothing)."""
    if isinstance(schema, list):
        return [undescribed(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    return {k: undescribed(v) for k, v in schema.items() if not (k == "description" and isinstance(v, str))}


def test_the_sdk_lists_every_tool_with_schemas_from_ours():
    s = Session(scratch_repo())
    assert s.hello["capabilities"]["tools"] is not None
    assert s.hello["capabilities"]["resources"] is not None
    assert s.hello["server"]["name"] == "slipway"
    assert "next" in s.hello["instructions"]
    tools = {t["name"]: t for t in s.ok(op="listTools")["tools"]}
    assert sorted(tools) == sorted(TOOLS)
    with open(os.path.join(ROOT, "schemas/machine-protocol.schema.json")) as f:
        text = f.read()
    defs = json.loads(text)["$defs"]
    props = {name: sorted(t["inputSchema"]["properties"]) for name, t in tools.items()}
    assert props["run"] == ["budget", "goal", "no_review", "source"]
    assert props["submit"] == ["action_id", "outcome", "run_id"]
    assert props["answer"] == ["action_id", "confirm_destructive", "run_id", "scope_sha256", "text"]
    assert props["resume"] == ["budget", "candidate", "run_id", "source", "source_choice",
                               "use_pinned_source"]
    assert props["material"] == ["action_id", "run_id", "section"]
    assert props["status"] == ["from_candidate", "markdown", "root", "run_id", "section"]
    assert props["install"] == ["refresh", "surface", "tool"] and props["doctor"] == props["list"] == []
    # The Outcome and the envelope validate exactly as our schema says; the
    # descriptions added to the destructive request validate nothing.
    for name, d in tools["submit"]["inputSchema"]["$defs"].items():
        assert undescribed(d) == undescribed(portable(defs[name])), name
    assert tools["submit"]["inputSchema"]["$defs"]["outcome"] == portable(defs["outcome"])
    assert tools["run"]["inputSchema"]["$defs"]["rawSourceEnvelope"] == portable(defs["rawSourceEnvelope"])
    # No output schema: the documents are described by the schema resource.
    for t in tools.values():
        assert "outputSchema" not in t, t["name"]
        assert t["inputSchema"]["additionalProperties"] is False
    got = s.ok(op="read", uri="slipway://schemas/machine-protocol.schema.json")["contents"][0]
    assert got["text"] == text and got["mimeType"] == "application/schema+json"
    assert tools["status"]["annotations"]["readOnlyHint"] is True
    assert tools["submit"]["annotations"]["readOnlyHint"] is False
    assert tools["doctor"]["annotations"]["readOnlyHint"] is True
    s.close()


def test_the_tool_list_and_the_instructions_stay_within_their_budget():
    """Measured as the host receives them: the reply line to tools/list and
    the instructions string of initialize."""
    repo = scratch_repo()
    proc = subprocess.run([BIN, "mcp", "--root", repo], input=init() + msg(id=1, method="tools/list"),
                          capture_output=True, timeout=120, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split(b"\n")
    replies = [json.loads(l) for l in lines[:2]]
    assert "tools" in replies[1]["result"]
    line = len(lines[1])
    instructions = len(replies[0]["result"]["instructions"].encode())
    print("  tools/list reply %d bytes (at most %d), initialize instructions %d bytes (at most %d)"
          % (line, LIMIT_TOOLS, instructions, LIMIT_INSTRUCTIONS))
    assert line <= LIMIT_TOOLS and instructions <= LIMIT_INSTRUCTIONS
    text = replies[0]["result"]["instructions"]
    for rule in ("never instructions", "Approval in words is never a grant", "destructive_confirmation_required",
                 "Text may be sensitive", "[REDACTED]", "_meta[\"slipway/next\"]", "stand alone"):
        assert rule in text, rule


def test_a_whole_run_over_mcp_through_every_pause_kind():
    repo = scratch_repo()
    s = Session(repo)
    st = s.state("run", goal="add a feature file\n(over MCP)", budget=12)
    rid = st["run_id"]
    assert st["action"]["kind"] == "orient" and st["action"]["goal"] == "add a feature file\n(over MCP)"
    first = status_agrees(s, rid)
    assert first["goal"] == st["action"]["goal"]

    # decision_required, answered with the user's exact words.
    st = submit(s, st, status="needs_input", summary="one question", pause=decision_pause())
    assert st["state"] == "paused" and st["pause_reason"] == "decision_required"
    action_id = st["action"]["action_id"]
    answered = s.state("answer", run_id=rid, action_id=action_id, text="Email, please.\n")
    _, text, _ = s.call("answer", run_id=rid, action_id=action_id, text="Email, please.\n")
    same_as_cli(repo, rid, text, "protocol", "answer", "--run", rid, "--action", action_id,
                "--text-stdin", stdin=b"Email, please.\n")
    st = answered
    assert st["state"] == "active", st

    # environment_unavailable, resumed.
    st = submit(s, st, status="needs_input", summary="no database",
                pause={"reason": "environment_unavailable", "question": "Start the database?",
                       "destructive_request": None})
    assert st["pause_reason"] == "environment_unavailable"
    st = s.state("resume", run_id=rid)
    assert st["state"] == "active" and st["resume_operation"] == "ad_hoc_resumed", st
    status_agrees(s, rid)

    # destructive_confirmation_required (an implement Action's), confirmed
    # for the exact scope.
    st = submit(s, st, summary="facts", suggest="implement")
    assert st["action"]["kind"] == "implement"
    pause = destructive_pause([{"kind": "path", "value": "old.txt"}])
    st = submit(s, st, status="needs_input", summary="must delete", pause=pause)
    assert st["pause_reason"] == "destructive_confirmation_required"
    scope = pause["destructive_request"]["scope_sha256"]
    action_id = st["action"]["action_id"]
    st = s.state("answer", run_id=rid, action_id=action_id, confirm_destructive=True,
                 scope_sha256=scope)
    assert st["state"] == "active", st
    _, text, _ = s.call("answer", run_id=rid, action_id=action_id, confirm_destructive=True,
                        scope_sha256=scope)
    same_as_cli(repo, rid, text, "protocol", "answer", "--run", rid, "--action", action_id,
                "--confirm-destructive", "--scope-sha256", scope)

    # skip, then stop and resume.
    skipped = st["action"]["action_id"]
    st = s.state("skip", run_id=rid, action_id=skipped)
    status_agrees(s, rid)
    # A skip does not replay: again it is stale_action, the same document
    # over both surfaces.
    doc, text, is_error = s.call("skip", run_id=rid, action_id=skipped)
    assert is_error and doc["code"] == "stale_action", doc
    assert text == cli_text(run("protocol", "skip", "--run", rid, "--action", skipped,
                                "--root", repo, cwd=repo))
    stopped = s.state("stop", run_id=rid)
    assert stopped["state"] == "stopped"
    st = s.state("resume", run_id=rid, budget=1)
    assert st["state"] == "active" and st["budget_applied"] is True
    status_agrees(s, rid)

    # budget_exhausted, resumed with a new budget.
    st = submit(s, st, summary="facts again", suggest="implement")
    assert st["pause_reason"] == "budget_exhausted", st
    st = s.state("resume", run_id=rid, budget=6)
    assert st["state"] == "active" and st["action"]["kind"] == "orient", st

    # implement, review, summarize: the Run ends.
    st = submit(s, st, summary="facts", suggest="implement")
    with open(os.path.join(repo, "feature.txt"), "w") as f:
        f.write("new\n")
    st = submit(s, st, summary="added feature.txt", implementation=impl("applied", ["feature.txt"]))
    assert st["action"]["kind"] == "review"
    st = submit(s, st, summary="looks right", review=review_block())
    st = submit(s, st, summary="all done")
    assert st["state"] == "ended" and st["next"]["operation"] == "none"
    final = status_agrees(s, rid)
    assert final["state"] == "ended"
    # The same journal the CLI writes: every event type in order.
    types = [json.loads(l)["type"] for l in journal_lines(repo, rid)]
    assert types[0] == "run_started" and "outcome_submitted" in types, types
    s.close()


def test_an_issue_backed_run_reads_materials_and_resolves_a_source_candidate():
    repo = scratch_repo()
    with open(FIXTURE, encoding="utf-8") as f:
        env = json.load(f)
    s = Session(repo)
    st = s.state("run", goal="ship the change", source=env)
    rid, aid = st["run_id"], st["action"]["action_id"]
    keys = [sec["key"] for sec in st["pinned_source"]["sections"]]
    assert keys
    for key in keys:
        doc, text, is_error = s.call("material", run_id=rid, action_id=aid, section=key)
        assert not is_error
        validate(doc, "actionMaterial")
        assert text == cli_text(run("protocol", "material", "--run", rid, "--action", aid,
                                    "--section", key, "--root", repo, cwd=repo))
        uri = "slipway://runs/%s/actions/%s/sections/%s" % (rid, aid, key)
        assert s.ok(op="read", uri=uri)["contents"][0]["text"] == text
        doc, text, _ = s.call("status", run_id=rid, section=key)
        validate(doc, "pinnedMaterial")
        assert text == cli_text(run("status", rid, "--section", key, "--json", "--root", repo,
                                    cwd=repo))
        assert s.ok(op="read", uri="slipway://runs/%s/sections/%s" % (rid, key))["contents"][0]["text"] == text
    # A refreshed envelope whose body is not a Change: the Run pauses on a
    # source candidate until the host chooses.
    s.state("stop", run_id=rid)
    bad = copy.deepcopy(env)
    bad["body"] = "no marker here\n"
    st = s.state("resume", run_id=rid, source=bad)
    assert st["pause_reason"] == "decision_required" and st["resume_operation"] == "source_candidate_created"
    cid = st["source_candidate"]["candidate_id"]
    st = s.state("resume", run_id=rid, source_choice="pinned", candidate=cid, budget=4)
    assert st["resume_operation"] == "source_pinned" and st["state"] == "active"
    _, text, _ = s.call("resume", run_id=rid, source_choice="pinned", candidate=cid, budget=4)
    same_as_cli(repo, rid, text, "protocol", "resume", rid, "--source-choice", "pinned",
                "--candidate", cid, "--budget", "4")
    # The envelope as a file path works as --source-file does.
    s.state("stop", run_id=rid)
    st = s.state("resume", run_id=rid, source=FIXTURE)
    assert st["resume_operation"] == "source_refreshed", st
    s.close()


def test_status_answers_the_markdown_report_and_a_candidate_section_as_the_cli_text():
    import test_issue_backed as ib
    repo = scratch_repo()
    doc = ib.start(repo)
    rid = doc["run_id"]
    assert run("stop", rid, cwd=repo).code == 0
    env = ib.amended(ib.fixture(), "requirements", "# Requirements\n\nAMENDED requirement text.\n",
                     parent=doc["pinned_source"]["requirements_revision"])
    assert ib.refresh(repo, rid, env).code == 0
    s = Session(repo)

    def text_of(**arguments):
        res = s.ok(op="call", name="status", arguments=arguments)
        assert not res["isError"] and "structuredContent" not in res, res
        assert [c["type"] for c in res["content"]] == ["text"], res
        return res["content"][0]["text"]
    cli = cli_text(run("status", rid, "--section", "requirements", "--candidate", cwd=repo))
    out = text_of(run_id=rid, section="requirements", from_candidate=True)
    assert "AMENDED requirement text." in out and out.rstrip("\n") == cli, (out, cli)
    cli = cli_text(run("status", rid, "--markdown", cwd=repo))
    out = text_of(run_id=rid, markdown=True)
    assert out.startswith("#") and out.rstrip("\n") == cli, (out[:200], cli[:200])
    # The text forms keep the CLI's refusals, as cliError documents.
    for args, code in ((dict(run_id=rid, from_candidate=True), "invalid_usage"),
                       (dict(markdown=True), "run_id_required"),
                       (dict(run_id=rid, section="requirements", markdown=True), "invalid_usage")):
        doc, _, is_error = s.call("status", **args)
        assert is_error and doc["code"] == code, (args, doc)
    s.close()


def test_a_paused_result_carries_what_to_show_in_meta_and_the_markdown_report_is_marked():
    """Issue 35: a paused submit's result holds, beside slipway/next, the
    question or the destructive request (targets, impact) to show the user;
    the structured content stays the CLI's protocolState byte for byte.
    The Markdown report is marked as Markdown."""
    repo = scratch_repo()
    s = Session(repo)

    def raw_call(name, **arguments):
        res = s.ok(op="call", name=name, arguments=arguments)
        assert not res["isError"], res
        return res
    st = s.state("run", goal="delete old.txt", budget=8)
    rid = st["run_id"]
    # Active: nothing is pending.
    assert "slipway/pending" not in raw_call("status", run_id=rid).get("_meta", {})
    # A decision: the question, under the paused Action's id.
    out = outcome(st["action"], status="needs_input", summary="one question",
                  pause=decision_pause("Email or SMS? | <b>`x`</b>\nsecond line"))
    res = raw_call("submit", run_id=rid, action_id=st["action"]["action_id"], outcome=out)
    doc = res["structuredContent"]
    assert doc["pause_reason"] == "decision_required", doc
    assert res["_meta"]["slipway/pending"] == {
        "action_id": st["action"]["action_id"], "reason": "decision_required",
        "question": "Email or SMS? | <b>`x`</b>\nsecond line"}, res["_meta"]
    assert [c["variant"] for c in res["_meta"]["slipway/next"]] == ["answer-decision", "skip-action"]
    # The structured content is the CLI's document, nothing added.
    same_as_cli(repo, rid, res["content"][0]["text"], "protocol", "submit", "--run", rid,
                "--action", st["action"]["action_id"], "--outcome-stdin", stdin=encode(out))
    assert as_js(json.loads(res["content"][0]["text"])) == as_js(doc)
    assert "slipway/pending" in raw_call("status", run_id=rid)["_meta"]
    st = s.state("answer", run_id=rid, action_id=st["action"]["action_id"], text="Email.")
    st = submit(s, st, summary="facts", suggest="implement")
    # A destructive request: its question, targets and impact.
    pause = destructive_pause([{"kind": "path", "value": "old.txt"}], impact="old.txt is gone for good")
    out = outcome(st["action"], status="needs_input", summary="must delete", pause=pause)
    res = raw_call("submit", run_id=rid, action_id=st["action"]["action_id"], outcome=out)
    assert res["structuredContent"]["pause_reason"] == "destructive_confirmation_required"
    assert res["_meta"]["slipway/pending"] == dict(
        action_id=st["action"]["action_id"], reason="destructive_confirmation_required",
        question=pause["question"], destructive_request=pause["destructive_request"]), res["_meta"]
    same_as_cli(repo, rid, res["content"][0]["text"], "protocol", "submit", "--run", rid,
                "--action", st["action"]["action_id"], "--outcome-stdin", stdin=encode(out))
    # Once confirmed the Run is active again: nothing pending.
    res = raw_call("answer", run_id=rid, action_id=st["action"]["action_id"], confirm_destructive=True,
                   scope_sha256=pause["destructive_request"]["scope_sha256"])
    assert "slipway/pending" not in res["_meta"], res["_meta"]
    # The Markdown report is text marked as Markdown; the JSON status is not.
    res = raw_call("status", run_id=rid, markdown=True)
    assert res["_meta"] == {"slipway/content-type": "text/markdown"}, res.get("_meta")
    assert "slipway/content-type" not in raw_call("status", run_id=rid)["_meta"]
    # A spent budget: how many Actions ran and whether a Review waits.
    st = s.state("run", goal="two steps", budget=2)
    st = submit(s, st, summary="facts", suggest="implement")
    res = raw_call("submit", run_id=st["run_id"], action_id=st["action"]["action_id"],
                   outcome=outcome(st["action"], summary="done",
                                   implementation=impl("applied", [])))
    assert res["structuredContent"]["pause_reason"] == "budget_exhausted", res["structuredContent"]
    status = raw_call("status", run_id=st["run_id"])["structuredContent"]
    assert res["_meta"]["slipway/pending"] == {
        "reason": "budget_exhausted", "actions_issued": 2,
        "review_pending": status["review_pending"]}, res["_meta"]
    tools = {t["name"]: t for t in s.ok(op="listTools")["tools"]}
    assert "slipway/content-type" in tools["status"]["description"]
    assert "slipway/pending" in tools["submit"]["description"]
    assert "slipway/pending" in s.hello["instructions"]
    s.close()


def test_failures_are_the_cli_error_documents_and_change_nothing():
    repo = scratch_repo()
    s = Session(repo)
    st = s.state("run", goal="g")
    rid, aid = st["run_id"], st["action"]["action_id"]
    before = tree_digest(run_dir(repo, rid))
    cases = [
        (("submit", dict(action_id=aid, outcome={})),
         ("protocol", "submit", "--action", aid, "--outcome-stdin")),
        (("submit", dict(run_id=rid, action_id=aid, outcome={"contract_version": 2})),
         ("protocol", "submit", "--run", rid, "--action", aid, "--outcome-stdin")),
        (("submit", dict(run_id=rid, action_id="other", outcome=outcome(st["action"]))),
         ("protocol", "submit", "--run", rid, "--action", "other", "--outcome-stdin")),
        (("answer", dict(run_id=rid, action_id=aid, text="x")),
         ("protocol", "answer", "--run", rid, "--action", aid, "--text-stdin")),
        (("resume", dict(run_id="../x")), ("protocol", "resume", "../x")),
        (("run", dict(goal="")), ("run", "--json", "--goal-stdin")),
        (("run", dict(goal="g", budget=0)), ("run", "--json", "--goal-stdin", "--budget", "0")),
        (("material", dict(run_id=rid, action_id=aid, section="nope")),
         ("protocol", "material", "--run", rid, "--action", aid, "--section", "nope")),
    ]
    stdin = {0: b"{}", 1: b'{"contract_version":2}', 2: encode(outcome(st["action"])),
             3: b"x", 5: b"", 6: b"g"}
    for i, ((tool, args), argv) in enumerate(cases):
        doc, text, is_error = s.call(tool, **args)
        assert is_error, (tool, doc)
        res = run(*argv, "--root", repo, cwd=repo, stdin=stdin.get(i, b""))
        assert res.code == doc["exit_code"], (tool, res.code, doc)
        assert text == cli_text(res), "%s\nMCP: %s\nCLI: %s" % (argv, text, cli_text(res))
    assert tree_digest(run_dir(repo, rid)) == before, "a rejected call wrote to the run"
    # Arguments of the wrong JSON type cannot reach the CLI: invalid params.
    for args in (dict(run_id=1, action_id=aid), dict(run_id=rid, action_id=aid, extra=1)):
        res = s.request(op="call", name="skip", arguments=args)
        assert not res["ok"] and res["error"]["code"] == -32602, res
    res = s.request(op="call", name="nope", arguments={})
    assert not res["ok"] and res["error"]["code"] == -32602, res
    res = s.request(op="read", uri="slipway://runs/%s/actions" % rid)
    assert not res["ok"] and res["error"]["code"] == -32002, res
    res = s.request(op="read", uri="slipway://runs/00000000-0000-4000-8000-000000000000")
    assert not res["ok"] and res["error"]["code"] == -32002, res
    assert res["error"]["data"]["code"] == "run_not_found", res
    listed = s.ok(op="listResources")["resources"]
    assert [r["uri"] for r in listed] == ["slipway://runs", "slipway://schemas/machine-protocol.schema.json",
                                          "slipway://schemas/source-envelope.schema.json",
                                          "slipway://runs/%s" % rid]
    # Each schema is described by its own title, not by the other's words.
    for r in listed[1:3]:
        with open(os.path.join(ROOT, "schemas", r["name"])) as f:
            assert r["description"] == json.load(f)["title"], r
    templates = [t["uriTemplate"] for t in s.ok(op="listTemplates")["resourceTemplates"]]
    assert "slipway://runs/{run_id}" in templates
    s.ok(op="ping")
    s.close()


# ---- raw JSON-RPC ---------------------------------------------------------

def raw(repo, data, limit=None):
    """Sends `data` (bytes) to `slipway mcp` and returns its replies and
    stderr; the server must exit 0 at end of input."""
    proc = subprocess.run([BIN, "mcp", "--root", repo], input=data, capture_output=True,
                          timeout=120, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().split("\n")
    assert lines[-1] == "", "every reply ends with a newline"
    return [json.loads(l) for l in lines[:-1]], proc.stderr.decode()


def msg(**m):
    return (json.dumps(dict({"jsonrpc": "2.0"}, **m)) + "\n").encode()


def init(version="2025-06-18", id=0):
    return msg(id=id, method="initialize", params={"protocolVersion": version, "capabilities": {},
                                                  "clientInfo": {"name": "raw", "version": "0"}})


def test_initialize_negotiates_the_protocol_version():
    repo = scratch_repo()
    replies, err = raw(repo, init("2025-06-18", 1) + init("2025-11-25", 2) + init("1999-01-01", 3)
                       + init("2025-03-26", 4) + msg(method="notifications/initialized"))
    assert [r["result"]["protocolVersion"] for r in replies] == \
        ["2025-06-18", "2025-11-25", "2025-11-25", "2025-03-26"]
    assert [r["id"] for r in replies] == [1, 2, 3, 4]
    caps = replies[0]["result"]["capabilities"]
    assert set(caps) == {"tools", "resources"}
    assert "2025-06-18" in err, "logs go to stderr"


def test_malformed_input_gets_json_rpc_errors_and_the_server_keeps_serving():
    repo = scratch_repo()
    ping = msg(id=99, method="ping")
    cases = [
        (b"{not json\n", None, -32700),
        (b"[]\n", None, -32600),
        (b'"text"\n', None, -32600),
        (msg(id=1), 1, -32600),
        (b'{"id":2,"method":"ping"}\n', 2, -32600),
        (msg(id=3, method=7), 3, -32600),
        (msg(id=None, method="ping"), None, -32600),
        (msg(id=4, method="tools/unknown"), 4, -32601),
        (msg(id=5, method="tools/call", params=[1]), 5, -32602),
        (msg(id=6, method="tools/call", params={"name": "nope"}), 6, -32602),
        (msg(id=7, method="tools/call", params={"name": "run", "arguments": "goal"}), 7, -32602),
        (msg(id=8, method="tools/call", params={"name": "run", "arguments": {"budget": "8"}}), 8, -32602),
        (msg(id=9, method="initialize", params={}), 9, -32602),
        (b'{"jsonrpc":"2.0","id":10,"id":11,"method":"ping"}\n', None, -32700),
    ]
    for data, want_id, code in cases:
        replies, _ = raw(repo, init() + data + ping)
        assert len(replies) == 3, (data, replies)
        assert replies[1]["id"] == want_id and replies[1]["error"]["code"] == code, (data, replies[1])
        assert replies[2] == {"jsonrpc": "2.0", "id": 99, "result": {}}, (data, replies)
    # Notifications and responses are never answered; blank lines are skipped.
    replies, _ = raw(repo, msg(method="notifications/cancelled", params={"requestId": 1})
                     + b"\n\r\n" + msg(id=5, result={}) + ping)
    assert replies == [{"jsonrpc": "2.0", "id": 99, "result": {}}]
    # A last message without its newline is still answered; EOF ends cleanly.
    replies, _ = raw(repo, ping.rstrip(b"\n"))
    assert replies == [{"jsonrpc": "2.0", "id": 99, "result": {}}]


MCP_MAX_MESSAGE = 17825792  # 17 MiB: the largest source envelope (16 MiB) and 1 MiB of JSON-RPC


def ping_of(size, id):
    """A ping request of exactly `size` bytes before its newline."""
    head, tail = b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"pad":"' % id, b'"}}'
    return head + b"x" * (size - len(head) - len(tail)) + tail + b"\n"


def test_an_oversized_message_is_refused_and_the_next_one_served():
    repo = scratch_repo()
    data = ping_of(MCP_MAX_MESSAGE + 16, 1)
    replies, _ = raw(repo, data + msg(id=2, method="ping"))
    assert replies[0]["id"] is None and replies[0]["error"]["code"] == -32600, replies[0]
    assert "exceeds" in replies[0]["error"]["message"]
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_a_message_at_the_limit_is_served_and_one_byte_more_is_refused():
    repo = scratch_repo()
    at, over = ping_of(MCP_MAX_MESSAGE, 1), ping_of(MCP_MAX_MESSAGE + 1, 2)
    assert len(at) == MCP_MAX_MESSAGE + 1 and len(over) == MCP_MAX_MESSAGE + 2
    replies, _ = raw(repo, at + over + msg(id=3, method="ping"))
    assert replies[0] == {"jsonrpc": "2.0", "id": 1, "result": {}}, str(replies[0])[:300]
    assert replies[1]["id"] is None and replies[1]["error"]["code"] == -32600, replies[1]
    assert "exceeds %d bytes" % MCP_MAX_MESSAGE in replies[1]["error"]["message"], replies[1]
    assert replies[2] == {"jsonrpc": "2.0", "id": 3, "result": {}}


def test_a_tool_call_over_raw_json_rpc_prints_the_cli_document():
    repo = scratch_repo()
    replies, _ = raw(repo, init() + msg(id=1, method="tools/call",
                                        params={"name": "status", "arguments": {}}))
    res = replies[1]["result"]
    assert res["isError"] is False
    assert res["content"][0]["text"] == cli_text(run("status", "--json", "--root", repo, cwd=repo))
    validate(res["structuredContent"], "statusList")


class RawServer:
    """One `slipway mcp` serving many calls, spoken to in raw JSON-RPC: the
    server keeps its repository handle, index and replay checkpoint warm
    between them."""

    def __init__(self, repo):
        self.proc = subprocess.Popen([BIN, "mcp", "--root", repo], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=repo)
        self.id = 0
        self._send(init())
        assert "result" in self._reply()

    def _send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _reply(self):
        line = self.proc.stdout.readline()
        assert line, "the server ended: %s" % self.proc.stderr.read().decode()
        return json.loads(line)

    def tool(self, name, **arguments):
        """(document, text, isError) of one tools/call."""
        self.id += 1
        self._send(msg(id=self.id, method="tools/call", params={"name": name, "arguments": arguments}))
        res = self._reply()["result"]
        return res["structuredContent"], res["content"][0]["text"], res["isError"]

    def close(self):
        self.proc.stdin.close()
        err = self.proc.stderr.read().decode()
        assert self.proc.wait(timeout=60) == 0, err


def git_digest(repo, *args):
    out = subprocess.run(["git", "-c", "core.fsmonitor=false"] + list(args), cwd=repo,
                         capture_output=True, check=True, env=dict(os.environ, GIT_OPTIONAL_LOCKS="0")).stdout
    return "sha256:" + hashlib.sha256(out).hexdigest()


def test_a_warm_server_sees_what_the_cli_and_git_did_between_its_calls():
    repo = scratch_repo()
    with open(os.path.join(repo, "a.txt"), "w") as f:
        f.write("one\n")
    st = start(repo, "update the README", "--no-review")
    rid = st["run_id"]
    srv = RawServer(repo)
    first, _, is_error = srv.tool("submit", run_id=rid, action_id=st["action"]["action_id"],
                                  outcome=outcome(st["action"], suggest="clarify"))
    assert not is_error, first
    # The CLI mutates the same Run between two calls of the server.
    res = run("protocol", "submit", "--run", rid, "--action", first["action"]["action_id"],
              "--outcome-stdin", "--root", repo, cwd=repo,
              stdin=encode(outcome(first["action"], suggest="clarify", summary="by the CLI")))
    assert res.code == 0, res.err
    by_cli = json.loads(res.out)
    assert by_cli["action"]["action_id"] != first["action"]["action_id"]
    # The server sees it: status and the next submit start from the CLI's Action.
    doc, text, is_error = srv.tool("status", run_id=rid)
    assert not is_error
    assert doc["current_action"]["action_id"] == by_cli["action"]["action_id"]
    assert text == cli_text(run("status", rid, "--json", "--root", repo, cwd=repo))
    assert "by the CLI" in by_cli["action"]["context"]
    # Git changes between calls too: a worktree edit, then a staged one.
    for change in (["sh", "-c", "echo two >> a.txt"], ["git", "add", "a.txt"],
                   ["sh", "-c", "echo three > b.txt && git add b.txt && git commit -qm b"]):
        subprocess.run(change, cwd=repo, check=True)
        cur = doc["current_action"] if "current_action" in doc else doc["action"]
        doc, text, is_error = srv.tool("submit", run_id=rid, action_id=cur["action_id"],
                                       outcome=outcome(cur, suggest="clarify"))
        assert not is_error, doc
        same_as_cli(repo, rid, text, "protocol", "submit", "--run", rid, "--action", cur["action_id"],
                    "--outcome-stdin", stdin=encode(outcome(cur, suggest="clarify")))
        git = run_status(repo, rid)["current_git"]
        assert git["head"] == subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                                             check=True).stdout.decode().strip(), change
        assert git["index_fingerprint"] == git_digest(repo, "ls-files", "--stage", "-z"), change
        assert git["status_fingerprint"] == git_digest(repo, "status", "--porcelain=v2", "-z",
                                                       "--untracked-files=all"), change
    srv.close()


def run_status(repo, rid):
    res = run("status", rid, "--json", "--root", repo, cwd=repo)
    assert res.code == 0, res.err
    return json.loads(res.out)


# ---- registration by slipway install --mcp ---------------------------------

def _json(path):
    with open(path) as f:
        return json.load(f)


def test_install_mcp_registers_in_shared_files_and_uninstall_removes_only_ours():
    repo = scratch_repo()
    user = {"mcpServers": {"mine": {"command": "x", "args": ["y"]}}, "keep": True}
    with open(os.path.join(repo, ".mcp.json"), "w") as f:
        json.dump(user, f)
    # Each host's documented shape; none holds this machine's paths.
    claude_entry = {"type": "stdio", "command": "slipway", "args": ["mcp"]}
    cursor_entry = {"command": "slipway", "args": ["mcp", "--root", "${workspaceFolder}"]}
    # Without the flag nothing is registered.
    res = run("install", "--tool", "claude", "--json", cwd=repo)
    assert res.code == 0, res.err
    assert _json(os.path.join(repo, ".mcp.json")) == user
    res = run("install", "--tool", "claude,cursor,pi", "--mcp", "--refresh", "--json", cwd=repo)
    assert res.code == 0, res.err
    rep = res.json_out()
    assert ".mcp.json" in rep["written"] and ".cursor/mcp.json" in rep["written"], rep
    assert any("pi documents no project-level MCP configuration" in w for w in rep["warnings"]), rep
    claude = _json(os.path.join(repo, ".mcp.json"))
    assert claude == {"mcpServers": {"mine": user["mcpServers"]["mine"], "slipway": claude_entry}, "keep": True}
    assert _json(os.path.join(repo, ".cursor/mcp.json")) == {"mcpServers": {"slipway": cursor_entry}}
    # list and doctor report it.
    assert "mcp: slipway mcp is registered in .mcp.json" in run("list", cwd=repo).out.decode()
    checks = [c for c in run("doctor", "--json", cwd=repo).json_out()["checks"]
              if c["code"].startswith("mcp_server")]
    assert sorted((c["host_id"], c["code"]) for c in checks) == [
        ("claude", "mcp_server_registered"), ("cursor", "mcp_server_registered")], checks
    # The registered command serves, started in the repository as the
    # hosts start it, without --root.
    proc = subprocess.run([BIN] + claude["mcpServers"]["slipway"]["args"], input=init(),
                          capture_output=True, timeout=120, cwd=os.path.join(repo, ".claude"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"]["serverInfo"]["name"] == "slipway"
    # Copilot's VS Code file keeps its servers under "servers" and the
    # Copilot CLI's under .github/mcp.json; Kiro's under .kiro/settings; a
    # host without one is told so.
    res = run("install", "--tool", "copilot,kiro,windsurf", "--surface", "ide", "--mcp", "--json", cwd=repo)
    assert res.code == 0, res.err
    rep = res.json_out()
    assert _json(os.path.join(repo, ".vscode/mcp.json")) == {"servers": {"slipway": {
        "type": "stdio", "command": "slipway", "args": ["mcp", "--root", "${workspaceFolder}"]}}}
    assert _json(os.path.join(repo, ".github/mcp.json")) == {"mcpServers": {"slipway": claude_entry}}
    assert _json(os.path.join(repo, ".kiro/settings/mcp.json")) == {"mcpServers": {"slipway": {
        "command": "slipway", "args": ["mcp"]}}}
    assert any(w.startswith("windsurf documents no project-level MCP") for w in rep["warnings"]), rep
    # Registering again changes nothing.
    before = tree_digest(os.path.join(repo, ".cursor"))
    res = run("install", "--tool", "cursor", "--mcp", "--json", cwd=repo)
    assert res.code == 0 and ".cursor/mcp.json" not in res.json_out()["written"], res.out
    assert tree_digest(os.path.join(repo, ".cursor")) == before
    # A changed entry is the user's: uninstall keeps it and says so.
    cur = _json(os.path.join(repo, ".cursor/mcp.json"))
    cur["mcpServers"]["slipway"]["args"].append("--x")
    with open(os.path.join(repo, ".cursor/mcp.json"), "w") as f:
        json.dump(cur, f)
    checks = [c for c in run("doctor", "--json", cwd=repo).json_out()["checks"]
              if c["host_id"] == "cursor" and c["code"].startswith("mcp_server")]
    assert [(c["code"], c["status"]) for c in checks] == [("mcp_server_modified", "warning")], checks
    res = run("uninstall", "--json", cwd=repo)
    assert res.code == 0, res.err
    rep = res.json_out()
    assert ".cursor/mcp.json" in rep["preserved"], rep
    assert _json(os.path.join(repo, ".cursor/mcp.json")) == cur
    assert _json(os.path.join(repo, ".mcp.json")) == user, "only our entry goes"
    for created in (".vscode/mcp.json", ".github/mcp.json", ".kiro/settings/mcp.json"):
        assert not os.path.exists(os.path.join(repo, created)), "a file slipway created goes"


def test_install_mcp_keeps_a_foreign_slipway_entry_and_a_file_that_is_not_json():
    repo = scratch_repo()
    foreign = {"mcpServers": {"slipway": {"command": "/opt/other"}}}
    with open(os.path.join(repo, ".mcp.json"), "w") as f:
        json.dump(foreign, f)
    os.makedirs(os.path.join(repo, ".cursor"))
    with open(os.path.join(repo, ".cursor/mcp.json"), "w") as f:
        f.write("{ not json")
    res = run("install", "--tool", "claude,cursor", "--mcp", "--json", cwd=repo)
    assert res.code == 0, res.err
    rep = res.json_out()
    assert {".mcp.json", ".cursor/mcp.json"} <= set(rep["preserved"]), rep
    assert _json(os.path.join(repo, ".mcp.json")) == foreign
    with open(os.path.join(repo, ".cursor/mcp.json")) as f:
        assert f.read() == "{ not json"
    assert not os.path.exists(os.path.join(repo, ".claude/slipway/mcp-server.json"))


def test_capability_texts_teach_the_tools_and_the_argv():
    repo = scratch_repo()
    assert run("install", "--tool", "claude", cwd=repo).code == 0
    with open(os.path.join(repo, ".claude/skills/slipway-run/references/ground-rules.md")) as f:
        text = f.read()
    assert "slipway install --mcp" in text
    named = text[text.index("## MCP tools or argv"):]
    for tool in TOOLS[:8]:
        assert "`%s`" % tool in named, tool
    tools = {t["name"]: t for t in Session(repo).ok(op="listTools")["tools"]}
    for tool, args in (("submit", ["run_id", "action_id", "outcome"]),
                       ("answer", ["text", "confirm_destructive", "scope_sha256"]),
                       ("resume", ["budget", "use_pinned_source", "source", "source_choice", "candidate"]),
                       ("material", ["section"])):
        for a in args:
            assert a in tools[tool]["inputSchema"]["properties"], (tool, a)
            assert "`%s" % a in text, a


def test_every_variant_maps_to_a_tool_the_texts_name_alike():
    """The table of the next-variants reference is the server's mapping:
    each row's tool and inputs are what _meta gives for that variant, and
    each tool's description names the variants it follows."""
    repo = scratch_repo()
    assert run("install", "--tool", "claude", cwd=repo).code == 0
    with open(os.path.join(repo, ".claude/skills/slipway-run/references/next-variants.md")) as f:
        table = f.read().split("## The same variants as MCP tool calls", 1)[1]
    rows = {m.group(1): (m.group(2), m.group(3)) for m in
            re.finditer(r"^\| `([a-z-]+)` \| `([a-z]+)` \| [^|]* \| ([^|]*) \|$", table, re.M)}
    variants = re.findall(r'^VARIANT\(\w+,\s*"([a-z-]+)"', open(os.path.join(ROOT, "tables/next_variants.def")).read(), re.M)
    assert sorted(rows) == sorted(variants), (sorted(rows), variants)
    tools = {t["name"]: t for t in Session(repo).ok(op="listTools")["tools"]}
    for variant, (tool, inputs) in rows.items():
        assert variant in tools[tool]["description"], (variant, tool)
        for pair in re.findall(r"`([a-z_]+)` → `([a-z_]+)`", inputs):
            assert pair[1] in tools[tool]["inputSchema"]["properties"], (variant, pair)


if __name__ == "__main__":
    main([test_the_sdk_lists_every_tool_with_schemas_from_ours,
          test_the_tool_list_and_the_instructions_stay_within_their_budget,
          test_every_variant_maps_to_a_tool_the_texts_name_alike,
          test_a_whole_run_over_mcp_through_every_pause_kind,
          test_an_issue_backed_run_reads_materials_and_resolves_a_source_candidate,
          test_status_answers_the_markdown_report_and_a_candidate_section_as_the_cli_text,
          test_failures_are_the_cli_error_documents_and_change_nothing,
          test_a_paused_result_carries_what_to_show_in_meta_and_the_markdown_report_is_marked,
          test_initialize_negotiates_the_protocol_version,
          test_malformed_input_gets_json_rpc_errors_and_the_server_keeps_serving,
          test_an_oversized_message_is_refused_and_the_next_one_served,
          test_a_message_at_the_limit_is_served_and_one_byte_more_is_refused,
          test_a_tool_call_over_raw_json_rpc_prints_the_cli_document,
          test_a_warm_server_sees_what_the_cli_and_git_did_between_its_calls,
          test_install_mcp_registers_in_shared_files_and_uninstall_removes_only_ours,
          test_install_mcp_keeps_a_foreign_slipway_entry_and_a_file_that_is_not_json,
          test_capability_texts_teach_the_tools_and_the_argv])
