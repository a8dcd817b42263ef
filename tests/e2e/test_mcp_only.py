"""A host that speaks MCP only: no capability text, nothing but what
`slipway mcp` returns (the initialize instructions, tools/list, each
result).  It follows every `next` through the tool call the result's
_meta["slipway/next"] spells out, builds each Outcome so that it validates
against the submit tool's own input schema, and computes the destructive
scope digest with the recipe the schema's descriptions give, checked first
on their worked example.  The destructive flow must end with zero rejected
calls.  Raw JSON-RPC over the server's stdin and stdout."""

import hashlib
import json
import os
import re
import subprocess
import uuid

import jsonschema

from slipway_e2e import BIN, main, scratch_repo, validate_any


class Client:
    """One `slipway mcp` session; counts what the server refused."""

    def __init__(self, repo):
        self.repo = repo
        self.proc = subprocess.Popen([BIN, "mcp", "--root", repo], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=repo)
        self.next_id = 0
        self.rejections = []
        self.hello = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                 "clientInfo": {"name": "mcp-only", "version": "1"}})
        self.tools = {t["name"]: t for t in self.request("tools/list", {})["tools"]}

    def request(self, method, params):
        self.next_id += 1
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                           "params": params}) + "\n").encode())
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        assert reply["id"] == self.next_id, reply
        if "error" in reply:
            self.rejections.append(reply["error"])
            raise AssertionError("JSON-RPC error: %s" % reply["error"])
        return reply["result"]

    def call(self, tool, arguments):
        res = self.request("tools/call", {"name": tool, "arguments": arguments})
        doc = res["structuredContent"]
        assert json.loads(res["content"][0]["text"]) == doc
        validate_any(doc)
        if res["isError"]:
            self.rejections.append(doc)
        else:
            self.check_meta(doc, res.get("_meta", {}))
        return doc, res

    def check_meta(self, doc, meta):
        """Every variant of `next` has its tool call, and the call carries
        what base_argv fixes."""
        variants = doc.get("next", {}).get("variants", [])
        calls = meta.get("slipway/next", [])
        assert [c["variant"] for c in calls] == [v["id"] for v in variants], (calls, variants)
        for v, c in zip(variants, calls):
            assert c["tool"] in self.tools, c
            props = self.tools[c["tool"]]["inputSchema"]["properties"]
            for name, value in c["arguments"].items():
                assert name in props, (c, name)
                if isinstance(value, str) and name != "root":
                    assert value in v["base_argv"], (c, v)
            for inp, arg in c["inputs"].items():
                assert inp in [i["name"] for i in v["inputs"]] and arg in props, (c, v)

    def follow(self, doc, res, variant, **values):
        """Runs `variant` of the last result's next as its _meta call says:
        its arguments, and each input's value under the argument named."""
        call = [c for c in res["_meta"]["slipway/next"] if c["variant"] == variant][0]
        arguments = dict(call["arguments"])
        for name, value in values.items():
            arg = call["inputs"].get(name) or (call.get("stdin") if name == "stdin" else None)
            assert arg, (variant, name, call)
            arguments[arg] = value
        return self.call(call["tool"], arguments)

    def close(self):
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0, self.proc.stderr.read()


# ---- what the host learns from the server ----------------------------------

def submit_schema(c):
    """The submit tool's Outcome schema, as a validator of Outcomes."""
    s = c.tools["submit"]["inputSchema"]
    schema = dict(s["$defs"]["outcome"], **{"$defs": s["$defs"]})
    return jsonschema.Draft7Validator(schema)


class Recipe:
    """The canonical scope as the destructive request's description says."""

    def __init__(self, c):
        text = c.tools["submit"]["inputSchema"]["$defs"]["destructiveRequest"]["description"]
        self.text = text
        template = re.search(r'the UTF-8 bytes of (\{"impact":I.*?\]\})', text).group(1)
        self.keys = re.findall(r'"([a-z_]+)":', template)  # impact, request_id, scope_version, targets, kind, value
        assert self.keys[:4] == ["impact", "request_id", "scope_version", "targets"], self.keys
        self.version = int(re.search(r'"scope_version":(\d+)', template).group(1))
        self.python = re.search(r"as Python's json\.dumps\(scope, ensure_ascii=False, separators=\(\",\",\":\"\)\)", text)
        assert self.python, "the description names a way to write the canonical scope"
        ex = re.search(r"Worked example: request_id (\S+), targets (\S+) (\S+) then (\S+) (\S+), impact \"(.*?)\" "
                       r"give the canonical scope (\{.*?\]\}) and scope_sha256 (sha256:[0-9a-f]{64})", text)
        assert ex, text
        self.example = {"request_id": ex.group(1), "targets": [{"kind": ex.group(2), "value": ex.group(3)},
                                                              {"kind": ex.group(4), "value": ex.group(5)}],
                        "impact": ex.group(6)}
        self.example_canonical, self.example_digest = ex.group(7), ex.group(8)

    def canonical(self, r):
        scope = {self.keys[0]: r["impact"], self.keys[1]: r["request_id"], self.keys[2]: self.version,
                 self.keys[3]: [{self.keys[4]: t["kind"], self.keys[5]: t["value"]} for t in r["targets"]]}
        return json.dumps(scope, ensure_ascii=False, separators=(",", ":"))

    def digest(self, r):
        return "sha256:" + hashlib.sha256(self.canonical(r).encode("utf-8")).hexdigest()


def outcome(action, status="completed", **fields):
    doc = {"contract_version": 2, "action_id": action["action_id"], "action_kind": action["kind"],
           "status": status, "summary": "Done.", "observations": [], "known_issues": [],
           "suggested_actions": [], "pause": None, "implementation": None, "review": None}
    doc.update(fields)
    return doc


def submit(c, doc, res, out):
    """Submits Outcome `out` through the submit variant's call, after
    checking it against the tool's own schema."""
    errors = sorted(submit_schema(c).iter_errors(out), key=str)
    assert not errors, [e.message for e in errors]
    return c.follow(doc, res, "submit-outcome-stdin", stdin=out)


# ---- the flows --------------------------------------------------------------

def test_an_mcp_only_host_deletes_a_file_through_the_destructive_flow_with_no_rejection():
    repo = scratch_repo()
    with open(os.path.join(repo, "old.txt"), "w") as f:
        f.write("stale\n")
    subprocess.run(["git", "-C", repo, "add", "old.txt"], check=True)
    subprocess.run(["git", "-C", repo, "commit", "-qm", "old"], check=True)
    c = Client(repo)
    rules = c.hello["instructions"]
    # What tells this host that deleting a file needs a destructive pause.
    assert "Approval in words is never a grant" in rules and "destructive_confirmation_required" in rules, rules
    recipe = Recipe(c)
    # The recipe, checked on the worked example first.
    assert recipe.canonical(recipe.example) == recipe.example_canonical
    assert recipe.digest(recipe.example) == recipe.example_digest

    doc, res = c.call("run", {"goal": "Remove old.txt, it is no longer used."})
    assert doc["action"]["kind"] == "orient"
    doc, res = submit(c, doc, res, outcome(doc["action"], summary="old.txt is unused.",
                                           suggested_actions=[{"kind": "implement", "brief": "Delete old.txt."}]))
    assert doc["action"]["kind"] == "implement"
    request = {"request_id": str(uuid.uuid4()),
               "targets": sorted([{"kind": "path", "value": "old.txt"}], key=lambda t: (t["kind"], t["value"])),
               "impact": 'Deletes "old.txt" \u2014 it can be restored from Git history.'}
    request["scope_sha256"] = recipe.digest(request)
    doc, res = submit(c, doc, res, outcome(doc["action"], status="needs_input", summary="Deleting needs a yes.",
                                           pause={"reason": "destructive_confirmation_required",
                                                  "question": "May I delete old.txt?",
                                                  "destructive_request": request}))
    assert doc["pause_reason"] == "destructive_confirmation_required", doc
    # The user confirms this exact request.
    doc, res = c.follow(doc, res, "confirm-destructive")
    grant = doc["action"]["destructive_authorization"]
    assert grant["targets"] == request["targets"] and grant["scope_sha256"] == request["scope_sha256"]
    os.unlink(os.path.join(repo, "old.txt"))
    doc, res = submit(c, doc, res, outcome(doc["action"], summary="Deleted old.txt.",
                                           observations=["ran `rm old.txt`: exit 0"],
                                           implementation={"result": "applied", "files_changed": ["old.txt"],
                                                           "activities": [], "uncertainties": [], "attempts": 1}))
    assert doc["action"]["kind"] == "review"
    doc, res = submit(c, doc, res, outcome(doc["action"], summary="The file is gone, nothing uses it.",
                                           review={"result": "no_findings_reported", "findings": [],
                                                   "uncertainties": []}))
    doc, res = submit(c, doc, res, outcome(doc["action"], summary="Deleted old.txt after confirmation."))
    assert doc["state"] == "ended" and doc["next"]["operation"] == "none", doc
    assert not os.path.exists(os.path.join(repo, "old.txt"))
    print("  MCP-only destructive flow: %d calls refused" % len(c.rejections))
    assert c.rejections == [], c.rejections
    c.close()


def test_a_wrong_digest_names_the_one_slipway_expected_and_the_call_to_resubmit():
    repo = scratch_repo()
    c = Client(repo)
    recipe = Recipe(c)
    doc, res = c.call("run", {"goal": "Clean up."})
    doc, res = submit(c, doc, res, outcome(doc["action"], suggested_actions=[{"kind": "implement", "brief": "x"}]))
    request = {"request_id": str(uuid.uuid4()), "targets": [{"kind": "path", "value": "caf\u00e9/"}],
               "impact": "Deletes caf\u00e9/."}
    # A recipe that escapes non-ASCII, as the description says not to.
    wrong = dict(request, scope_sha256="sha256:" + hashlib.sha256(json.dumps(
        {"impact": request["impact"], "request_id": request["request_id"], "scope_version": 1,
         "targets": request["targets"]}, separators=(",", ":")).encode()).hexdigest())
    out = outcome(doc["action"], status="needs_input", summary="s",
                  pause={"reason": "destructive_confirmation_required", "question": "q?",
                         "destructive_request": wrong})
    err, eres = c.follow(doc, res, "submit-outcome-stdin", stdin=out)
    assert eres["isError"] and err["code"] == "invalid_outcome", err
    right = recipe.digest(request)
    assert right in err["message"] and '{"impact":I,"request_id":R,"scope_version":1' in err["message"], err
    # The error's next offers the submit again, as a tool call.
    assert [c_["tool"] for c_ in eres["_meta"]["slipway/next"]][:2] == ["submit", "submit"], eres["_meta"]
    out["pause"]["destructive_request"] = dict(request, scope_sha256=right)
    doc, res = c.follow(err, eres, "submit-outcome-stdin", stdin=out)
    assert doc["pause_reason"] == "destructive_confirmation_required", doc
    c.close()


def test_every_variant_of_a_run_is_followed_by_its_tool_call():
    """Decision, environment, status, stop and resume variants, and an
    error's refresh-adapters, each through _meta alone."""
    repo = scratch_repo()
    assert subprocess.run([BIN, "install", "--tool", "claude", "--root", repo], capture_output=True).returncode == 0
    c = Client(repo)
    doc, res = c.call("run", {"goal": "g", "budget": 3})
    doc, res = submit(c, doc, res, outcome(doc["action"], status="needs_input", summary="ask",
                                           pause={"reason": "decision_required", "question": "Which?",
                                                  "destructive_request": None}))
    doc, res = c.follow(doc, res, "answer-decision", text_file="The first one, as recommended.")
    assert doc["action"]["kind"] == "orient", doc
    doc, res = submit(c, doc, res, outcome(doc["action"], status="needs_input", summary="down",
                                           pause={"reason": "environment_unavailable", "question": "DB?",
                                                  "destructive_request": None}))
    doc, res = c.follow(doc, res, "resume-ad-hoc", budget=2)
    assert doc["state"] == "active" and doc["action"]["kind"] == "orient", doc
    # status's next is followed the same way.
    status, sres = c.call("status", {"run_id": doc["run_id"]})
    doc, res = c.follow(status, sres, "skip-action")
    assert doc["action"]["kind"] == "summarize", doc
    doc, res = c.call("stop", {"run_id": doc["run_id"]})
    doc, res = c.follow(doc, res, "resume-ad-hoc")
    assert doc["state"] == "active", doc
    # A wrong contract version: the error's next is refresh-adapters, the
    # install tool, which answers a changeReport.
    bad = outcome(doc["action"])
    bad["contract_version"] = 1
    err, eres = c.call("submit", {"run_id": doc["run_id"], "action_id": doc["action"]["action_id"],
                                  "outcome": bad})
    assert err["code"] == "contract_version_mismatch", err
    call = eres["_meta"]["slipway/next"][0]
    assert (call["variant"], call["tool"], call["arguments"]) == ("refresh-adapters", "install", {"refresh": True})
    rep, rres = c.follow(err, eres, "refresh-adapters")
    assert not rres["isError"] and rep["hosts"] == ["claude"], rep
    c.close()
    assert [r.get("code") for r in c.rejections] == ["contract_version_mismatch"], c.rejections


if __name__ == "__main__":
    main([test_an_mcp_only_host_deletes_a_file_through_the_destructive_flow_with_no_rejection,
          test_a_wrong_digest_names_the_one_slipway_expected_and_the_call_to_resubmit,
          test_every_variant_of_a_run_is_followed_by_its_tool_call])
