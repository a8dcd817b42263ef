"""A scripted host that knows only what `slipway install` wrote.

Every Outcome this host submits is an example Outcome taken from the
installed capability texts, with the placeholders replaced the way the texts
say; every command it runs is a command or a `next` variant the texts name.
Each flow must reach the end the texts promise, so a change to the texts that
breaks a flow (a missing suggestion, a wrong digest recipe, a variant the
texts no longer mention) fails here.  The only test-side knowledge is the
user's side of the conversation: the goal, the answers, which choice the user
makes."""

import copy
import hashlib
import json
import os
import re
import subprocess
import tempfile
import uuid

from slipway_e2e import BIN, SHARED, main, run, scratch_repo, skip_test, validate

CAPS = ["slipway-run", "slipway-clarify", "slipway-propose", "slipway-decompose",
        "slipway-implement", "slipway-review", "slipway-workflow"]
HOSTS = ["claude", "codex", "copilot", "cursor", "kilo", "kiro", "opencode", "pi", "qwen", "windsurf"]
REPORT = {}  # flow -> outcome, printed at the end for the closing note
ISSUE_FLOW = "issue-backed material reads, refresh, adopt"
# Every flow the tests below drive to the end the texts promise.
FLOWS = ["plain run", "decision pause and answer", "supersession", "destructive confirm",
         "destructive decline", "destructive skip", "environment pause and resume",
         "budget exhaustion and resume", "stop and resume", "skip orient and summarize",
         "skip clarify", "skip implement", "skip review", ISSUE_FLOW] + \
    ["plain run with the %s texts" % h for h in HOSTS + ["kiro-cli"]]


# ---- reading the installed texts -------------------------------------------

def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def host_texts(repo, host):
    """capability -> the text a host of `host` reads, following its launcher."""
    out = {}
    for cap in CAPS:
        if host in ("claude", "codex", "cursor", "pi", "qwen"):
            text = read(os.path.join(repo, ".%s/skills/%s/SKILL.md" % (host, cap)))
        elif host == "copilot":
            text = read(os.path.join(repo, ".github/agents/%s.agent.md" % cap))
        elif host == "kiro":
            launcher = read(os.path.join(repo, ".kiro/steering/%s.md" % cap))
            text = read(os.path.join(repo, re.search(r"#\[\[file:([^\]]+)\]\]", launcher).group(1)))
        elif host == "kiro-cli":
            agent = json.loads(read(os.path.join(repo, ".kiro/agents/%s.json" % cap)))
            rel = agent["prompt"][len("file://"):]
            text = read(os.path.normpath(os.path.join(repo, ".kiro/agents", rel)))
        else:
            launcher = read(os.path.join(repo, {"kilo": ".kilo/commands/%s.md",
                                                "opencode": ".opencode/commands/%s.md",
                                                "windsurf": ".windsurf/workflows/%s.md"}[host] % cap))
            text = read(os.path.join(repo, re.search(r"^@(\S+)$", launcher, re.M).group(1)))
        out[cap] = text
    return out


def install(host, surface=None):
    repo = scratch_repo()
    args = ["install", "--tool", host, "--root", repo] + (["--surface", surface] if surface else [])
    res = run(*args, cwd=repo)
    assert res.code == 0, res.err
    return repo


def body(text):
    """The text without a YAML frontmatter."""
    if text.startswith("---\n"):
        return text[text.index("\n---\n", 4) + 5:]
    return text


class Texts:
    """What the host extracts from the installed capability texts."""

    def __init__(self, caps):
        self.caps = caps
        self.run = caps["slipway-run"]
        self.examples = {}
        for cap, text in caps.items():
            for name, doc in re.findall(r"\*\*Example: ([a-z-]+)\*\*\.[^\n]*\n\n```json\n(.*?)\n```",
                                        text, re.S):
                parsed = json.loads(doc)
                assert self.examples.setdefault(name, parsed) == parsed, \
                    "example %s differs between capabilities" % name
        # "- `REPLACE-WITH-x`: ... (`a.b` in the JSON ...)" or, for the answered
        # id, the context line pattern the text quotes.
        self.placeholders = dict(re.findall(r"^- `(REPLACE-WITH-[^`]+)`: [^\n]*?\(`([a-z_.]+)` in the JSON",
                                            self.run, re.M))
        m = re.search(r"`(- action )<id>( decision:)`", self.run)
        self.decision_line = re.compile(re.escape(m.group(1)) + r"(\S+)" + re.escape(m.group(2))) if m else None

    def section(self, heading):
        """The text under `heading` up to the next heading of the same level."""
        level = heading.split(" ")[0]
        start = self.run.index(heading + "\n")
        rest = self.run[start + len(heading) + 1:]
        m = re.search(r"^%s " % re.escape(level), rest, re.M)
        return rest[:m.start()] if m else rest

    def code(self, heading, contains=""):
        blocks = re.findall(r"```(?:sh|text)?\n(.*?)\n *```", self.section(heading), re.S)
        blocks = [re.sub(r"^ +", "", b, flags=re.M) for b in blocks if contains in b]
        assert blocks, "no code block with %r under %s" % (contains, heading)
        return blocks[0]

    def mentions(self, heading, *words):
        text = self.section(heading)
        for w in words:
            assert w in text, "%s does not mention %s" % (heading, w)


# ---- the scripted host -------------------------------------------------------

def tmpfile(data, suffix=".txt"):
    fd, path = tempfile.mkstemp(suffix=suffix, prefix="slipway-host-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(data)
    os.chmod(path, 0o600)
    return path


def lookup(doc, dotted):
    for part in dotted.split("."):
        doc = doc[part]
    return doc


class Host:
    def __init__(self, texts, repo):
        self.t = texts
        self.repo = repo
        self.st = None
        self.kinds = []

    def command(self, line, **subst):
        argv = line.split()
        assert argv[0] == "slipway", line
        argv = [subst.get(a, a) for a in argv[1:]]
        res = run(*argv, cwd=self.repo)
        assert res.code == 0, "%s: %r" % (line, res.err)
        return res

    def start(self, goal="Handle empty input in the parser.", budget=None):
        line = self.t.code("## Start", "slipway run")
        if budget is not None:  # the text: --budget is the number of Actions
            line = re.sub(r"--budget \d+", "--budget %d" % budget, line)
        path = tmpfile(goal)
        self.st = self.command(line, GOAL=path).json_out()
        os.unlink(path)
        validate(self.st, "protocolState")
        self.note_action()
        return self.st

    def note_action(self):
        if self.st.get("state") == "active":
            self.kinds.append(self.st["action"]["kind"])

    def variant(self, vid, **inputs):
        """Runs variant `vid` of the last `next` as the texts say: base_argv,
        then `flag value` for each input supplied, in order."""
        ids = [v["id"] for v in self.st["next"]["variants"]]
        assert vid in ids, "%s not offered: %s" % (vid, ids)
        var = [v for v in self.st["next"]["variants"] if v["id"] == vid][0]
        argv = list(var["base_argv"][1:])
        for inp in var["inputs"]:
            if inp["name"] in inputs:
                argv += [inp["flag"], str(inputs[inp["name"]])]
            else:
                assert not inp["required"], "%s needs %s" % (vid, inp["name"])
        res = run(*argv, cwd=self.repo)
        assert res.code == 0, "%s: %r" % (vid, res.err)
        self.st = res.json_out()
        validate(self.st, "protocolState")
        self.note_action()
        return self.st

    def fill(self, name, **overrides):
        """Example `name` with its placeholders replaced as the texts say."""
        doc = copy.deepcopy(self.t.examples[name])
        raw = json.dumps(doc)
        for ph, path in self.t.placeholders.items():
            raw = raw.replace(ph, lookup(self.st, path))
        if "REPLACE-WITH-the-answered-action-id" in raw:
            ids = self.t.decision_line.findall(self.st["action"]["context"])
            assert ids, self.st["action"]["context"]
            raw = raw.replace("REPLACE-WITH-the-answered-action-id", ids[-1])
        doc = json.loads(raw)
        doc.update(overrides)
        return doc

    def work(self, doc):
        """The host does what its Outcome reports: it writes the files it
        lists as changed."""
        for rel in (doc.get("implementation") or {}).get("files_changed", []):
            path = os.path.join(self.repo, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "a", encoding="utf-8") as f:
                f.write("/* %s */\n" % self.st["action"]["action_id"])

    def submit(self, name, **overrides):
        assert self.st["next"]["operation"] == "action", self.st["next"]
        doc = self.fill(name, **overrides)
        assert doc["action_kind"] == self.st["action"]["kind"], (name, self.st["action"]["kind"])
        self.work(doc)
        path = tmpfile(json.dumps(doc), ".json")
        try:
            return self.variant("submit-outcome-file", outcome_file=path)
        finally:
            os.unlink(path)

    def answer(self, vid, text=None):
        path = tmpfile(text) if text is not None else None
        try:
            return self.variant(vid, **({"text_file": path} if path else {}))
        finally:
            if path:
                os.unlink(path)

    def default(self):
        """The example the texts give for the current kind when all goes well."""
        kind = self.st["action"]["kind"]
        return {"review": "review-clean"}.get(kind, kind + "-completed")

    def finish(self, limit=12):
        """Drives the Run to its end with the default examples."""
        for _ in range(limit):
            if self.st["next"]["operation"] == "none":
                return self.st
            self.submit(self.default())
        raise AssertionError("the Run did not end: %s" % self.st["next"]["operation"])

    def status_text(self):
        return self.command("slipway status RUN --root WORKSPACE", RUN=self.st["run_id"],
                            WORKSPACE=self.repo).out.decode()


_TEXTS = None


def texts():
    global _TEXTS
    if _TEXTS is None:
        _TEXTS = Texts(host_texts(install("claude"), "claude"))
    return _TEXTS


def host(t=None):
    return Host(t or texts(), scratch_repo())


def ended(h, flow):
    assert h.st["state"] == "ended" and h.st["next"]["operation"] == "none", h.st
    REPORT[flow] = "ended after %s" % ", ".join(h.kinds)
    return h.st["summary"]


# ---- flows -----------------------------------------------------------------

def test_plain_run_goes_orient_implement_review_summarize():
    h = host()
    h.start()
    h.submit("orient-completed")
    assert h.st["action"]["kind"] == "implement"
    assert h.st["action"]["brief"] == h.t.examples["orient-completed"]["suggested_actions"][0]["brief"]
    h.submit("implement-completed")
    h.submit("review-findings")
    h.submit("summarize-completed")
    s = ended(h, "plain run")
    assert h.kinds == ["orient", "implement", "review", "summarize"], h.kinds
    impl = h.t.examples["implement-completed"]["implementation"]
    finding = h.t.examples["review-findings"]["review"]["findings"][0]
    for fact in impl["files_changed"] + [finding["location"], finding["summary"], finding["detail"],
                                         impl["activities"][0]["command"],
                                         h.t.examples["summarize-completed"]["summary"],
                                         h.t.examples["orient-completed"]["summary"]]:
        assert fact in s, (fact, s)


def test_decision_pause_and_answer():
    h = host()
    h.t.mentions("### A decision (`decision_required`)", "`answer-decision`", "--text-file")
    h.start()
    h.submit("orient-decision")
    assert h.st["state"] == "paused" and h.st["pause_reason"] == "decision_required"
    assert h.st["next"]["operation"] == "answer"
    assert h.t.examples["orient-decision"]["pause"]["question"] in h.status_text()
    h.answer("answer-decision", "JSON, please.")
    assert h.st["action"]["kind"] == "orient"
    assert h.t.decision_line.search(h.st["action"]["context"]), h.st["action"]["context"]
    live = h.status_text()  # the same sections as the final report, so far
    assert "So far:" in live and "JSON, please." in live.split("\nDecisions:")[1], live
    assert "Action log:\n  1. orient" in live and "Skipped and voided Actions:" in live, live
    h.finish()
    s = ended(h, "decision pause and answer")
    assert "JSON, please." in s.split("\nDecisions:")[1].split("\nReview:")[0], s


def test_supersession_replaces_the_earlier_answer():
    h = host()
    h.start()
    h.submit("orient-decision")
    h.answer("answer-decision", "Old answer: JSON.")
    first = h.t.decision_line.findall(h.st["action"]["context"])
    h.submit("orient-clarify")
    assert h.st["action"]["kind"] == "clarify"
    h.submit("clarify-supersede")
    assert h.st["pause_reason"] == "decision_required"
    h.answer("answer-decision", "New answer: plain text.")
    ctx = h.st["action"]["context"]
    assert "New answer: plain text." in ctx and "Old answer: JSON." not in ctx, ctx
    assert first and first[-1] not in h.t.decision_line.findall(ctx)
    h.finish()
    s = ended(h, "supersession")
    assert "New answer: plain text." in s and "Old answer: JSON." not in s.split("\nDecisions:")[1].split("\nReview:")[0], s


def scope_digest(h, request):
    """The digest computed with the python3 recipe the texts give."""
    recipe = h.t.code("## Destructive work", "python3 -c")
    path = tmpfile(json.dumps(request, ensure_ascii=False), ".json")
    try:
        out = subprocess.run(["sh", "-c", recipe.replace("REQUEST_FILE", path)],
                             capture_output=True, check=True).stdout.decode().strip()
    finally:
        os.unlink(path)
    return out


def test_the_worked_scope_example_and_both_recipes_agree():
    t = texts()
    sec = t.section("## Destructive work")
    canonical, digest = re.findall(r"```text\n(.*?)\n *```", sec, re.S)[:2]
    canonical, digest = canonical.strip(), digest.strip()
    assert digest == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    assert t.examples["implement-destructive"]["pause"]["destructive_request"]["scope_sha256"] == digest
    shell = t.code("## Destructive work", "sha256sum")
    path = tmpfile(canonical)
    out = subprocess.run(["sh", "-c", shell.replace("SCOPE_FILE", path)], capture_output=True, check=True)
    os.unlink(path)
    assert out.stdout.decode().strip() == digest, out
    h = Host(t, scratch_repo())
    assert scope_digest(h, t.examples["implement-destructive"]["pause"]["destructive_request"]) == digest


def destructive_pause(h):
    """Implement reaches the destructive step and asks, building a fresh
    request as the texts say."""
    h.start()
    h.submit("orient-completed")
    example = h.t.examples["implement-destructive"]
    request = copy.deepcopy(example["pause"]["destructive_request"])
    request["request_id"] = str(uuid.uuid4())  # "a new one for each request"
    request["scope_sha256"] = scope_digest(h, request)
    pause = dict(example["pause"], destructive_request=request)
    h.submit("implement-destructive", pause=pause)
    assert h.st["pause_reason"] == "destructive_confirmation_required", h.st
    text = h.status_text()
    for t in request["targets"]:
        assert t["value"] in text, text
    assert request["impact"] in text and "Destructive request" in text, text
    return request


def test_destructive_confirm():
    h = host()
    h.t.mentions("## Destructive work", "`confirm-destructive`", "`decline-or-feedback`", "`skip-action`",
                 "destructive_authorization")
    request = destructive_pause(h)
    h.answer("confirm-destructive")
    assert h.st["action"]["kind"] == "implement"
    grant = h.st["action"]["destructive_authorization"]
    assert grant["targets"] == request["targets"] and grant["scope_sha256"] == request["scope_sha256"]
    h.submit("implement-completed")
    assert "destructive_authorization" not in h.st.get("action", {})
    h.finish()
    ended(h, "destructive confirm")


def test_destructive_decline():
    h = host()
    destructive_pause(h)
    h.answer("decline-or-feedback", "No, keep the cache.")
    assert h.st["action"]["kind"] == "orient" and "destructive_authorization" not in h.st["action"]
    h.finish()
    s = ended(h, "destructive decline")
    assert "No, keep the cache." in s, s


def test_destructive_skip():
    h = host()
    destructive_pause(h)
    h.answer("skip-action")
    assert "destructive_authorization" not in h.st.get("action", {})
    h.finish()
    s = ended(h, "destructive skip")
    assert "  - implement " in s.split("Skipped and voided Actions:")[1], s
    assert "closed without a decision (the Action was skipped)" in s.split("\nDestructive work:")[1], s


def test_environment_pause_and_resume():
    h = host()
    h.t.mentions("### The environment (`environment_unavailable`)", "`resume-ad-hoc`")
    h.start()
    h.submit("orient-completed")
    h.submit("implement-environment")
    assert h.st["pause_reason"] == "environment_unavailable" and h.st["next"]["operation"] == "resume"
    h.variant("resume-ad-hoc")
    assert h.st["action"]["kind"] == "orient"
    h.finish()
    s = ended(h, "environment pause and resume")
    assert h.t.examples["implement-environment"]["known_issues"][0] in s


def test_budget_exhaustion_and_resume():
    h = host()
    h.t.mentions("### Budget (`budget_exhausted`)", "`resume-ad-hoc`", "--budget")
    h.start(budget=2)
    h.submit("orient-completed")
    h.submit("implement-completed")
    assert h.st["state"] == "paused" and h.st["pause_reason"] == "budget_exhausted", h.st
    h.variant("resume-ad-hoc", budget=4)
    assert h.st["action"]["kind"] == "orient" and h.st["action"]["remaining_budget"] == 3
    h.finish()
    ended(h, "budget exhaustion and resume")


def test_stop_and_resume_gets_a_fresh_orient():
    h = host()
    h.start()
    first = h.st["action"]["action_id"]
    stop = h.t.code("### Stop and resume", "slipway stop")
    h.st = h.command(stop, RUN=h.st["run_id"], WORKSPACE=h.repo).json_out()
    assert h.st["state"] == "stopped" and h.st["next"]["operation"] == "resume"
    h.variant("resume-ad-hoc")
    assert h.st["action"]["kind"] == "orient" and h.st["action"]["action_id"] != first
    h.finish()
    s = ended(h, "stop and resume")
    assert "orient %s: closed by a stop or a resume" % first[:8] in s.split("Skipped and voided Actions")[1], s


def test_skip_of_each_kind():
    t = texts()
    t.mentions("### Skipping an Action", "`skip-action`")
    # orient, then summarize
    h = host()
    h.start()
    h.answer("skip-action")
    assert h.st["action"]["kind"] == "summarize"
    h.answer("skip-action")
    ended(h, "skip orient and summarize")
    for flow, first in (("skip clarify", "orient-clarify"), ("skip implement", "orient-completed")):
        h = host()
        h.start()
        h.submit(first)
        h.answer("skip-action")
        assert h.st["action"]["kind"] == "summarize"
        h.finish()
        ended(h, flow)
    # review: the report says so
    h = host()
    h.start()
    h.submit("orient-completed")
    h.submit("implement-completed")
    assert h.st["action"]["kind"] == "review"
    h.answer("skip-action")
    h.finish()
    s = ended(h, "skip review")
    said = re.search(r'final report says "([^"]+)"', t.section("### Skipping an Action")).group(1)
    assert said in s, s


def issue_fixture():
    try:
        import test_issue_backed as ib
    except (OSError, ImportError):
        return None
    if not os.path.exists(ib.FIXTURE):
        return None
    return ib


def test_issue_backed_material_reads_and_refresh_with_a_candidate():
    ib = issue_fixture()
    if ib is None:
        REPORT[ISSUE_FLOW] = "skipped"
        skip_test("the issue-backed flow needs %s/reference/fixtures (no reference folder)" % SHARED)
    h = host()
    line = h.t.code("## Start", "slipway run") + " --source-file SOURCE"  # "Add --source-file SOURCE"
    goal, src = tmpfile("Ship the change."), ib.write_env(ib.fixture())
    h.st = h.command(line, GOAL=goal, SOURCE=src).json_out()
    h.kinds.append("orient")
    reader = h.st["action"]["requirements"]["reader"]
    h.t.mentions("## Issue-backed Runs", "--section KEY", "`keep-pinned`", "`adopt`")
    for key in reader["input"]["choices"]:
        res = run(*(reader["base_argv"][1:] + [reader["input"]["flag"], key]), cwd=h.repo)
        assert res.code == 0, res.err
        assert res.json_out()["section"]["key"] == key
    stop = h.t.code("### Stop and resume", "slipway stop")
    h.st = h.command(stop, RUN=h.st["run_id"], WORKSPACE=h.repo).json_out()
    env = ib.amended(ib.fixture(), "requirements", "# Requirements\n\nAmended.\n",
                     parent=h.st["pinned_source"]["requirements_revision"])
    h.variant("refresh-source", source_file=ib.write_env(env))
    assert [v["id"] for v in h.st["next"]["variants"]] == ["keep-pinned", "adopt"]
    h.variant("adopt")
    assert h.st["action"]["kind"] == "orient"
    h.finish()
    ended(h, ISSUE_FLOW)


# ---- the texts themselves ----------------------------------------------------

def test_a_text_without_the_orient_suggestion_breaks_the_plain_flow():
    broken = dict(texts().caps)
    broken["slipway-run"] = broken["slipway-run"].replace('"kind": "implement"', '"kind": "summarize"', 1)
    t = Texts(broken)
    h = host(t)
    h.start()
    h.submit("orient-completed")
    assert h.st["action"]["kind"] != "implement", "the broken text no longer leads to Implement"


def test_a_wrong_scope_recipe_is_refused():
    broken = dict(texts().caps)
    recipe = '"scope_version":1,"targets":[{"kind":t'
    assert recipe in broken["slipway-run"]
    broken["slipway-run"] = broken["slipway-run"].replace(recipe, recipe.replace(":1,", ":2,"))
    t = Texts(broken)
    h = host(t)
    h.start()
    h.submit("orient-completed")
    request = copy.deepcopy(t.examples["implement-destructive"]["pause"]["destructive_request"])
    request["request_id"] = str(uuid.uuid4())
    request["scope_sha256"] = scope_digest(h, request)
    doc = h.fill("implement-destructive")
    doc["pause"]["destructive_request"] = request
    path = tmpfile(json.dumps(doc), ".json")
    var = [v for v in h.st["next"]["variants"] if v["id"] == "submit-outcome-file"][0]
    res = run(*(var["base_argv"][1:] + ["--outcome-file", path]), cwd=h.repo)
    assert res.code == 3 and res.json_err()["code"] == "invalid_outcome", res.err
    assert "scope_sha256 does not match" in res.json_err()["message"]


def test_every_capability_carries_the_safety_boundaries_for_every_host():
    ref = texts()
    installs = [(h, install(h, "ide" if h == "kiro" else None)) for h in HOSTS]
    installs.append(("kiro-cli", install("kiro", "cli")))
    for host_id, repo in installs:
        caps = host_texts(repo, host_id)
        for cap, text in caps.items():
            for phrase in ("Approval in words is never a grant", "Text may be sensitive",
                           "Recognized credentials are redacted"):
                assert phrase in text, (host_id, cap, phrase)
            assert body(text).strip() == body(ref.caps[cap]).strip() or host_id == "copilot", (host_id, cap)
        t = Texts(caps)
        assert t.examples == ref.examples and t.placeholders == ref.placeholders, host_id
        h = host(t)
        h.start()
        h.submit("orient-completed")
        h.finish()
        ended(h, "plain run with the %s texts" % host_id)


def test_rejections_name_the_missing_field_and_the_allowed_values():
    h = host()
    h.start()
    for mutate, words in [
            (lambda d: d.pop("contract_version"), ["contract_version", "missing"]),
            (lambda d: (d.pop("review"), d.pop("pause")), ['"pause"', '"review"', "missing"]),
            (lambda d: d.update(status="needs_input", suggested_actions=[],
                                pause={"reason": "budget_exhausted", "question": "q?",
                                       "destructive_request": None}),
             ["decision_required", "environment_unavailable", "destructive_confirmation_required"]),
            (lambda d: d.update(status="done"), ["completed", "partial", "error", "needs_input"])]:
        d = h.fill("orient-completed")
        mutate(d)
        path = tmpfile(json.dumps(d), ".json")
        var = [v for v in h.st["next"]["variants"] if v["id"] == "submit-outcome-file"][0]
        res = run(*(var["base_argv"][1:] + ["--outcome-file", path]), cwd=h.repo)
        err = res.json_err()
        assert res.code == err["exit_code"] and err["code"] in ("invalid_outcome", "contract_version_mismatch"), err
        for w in words:
            assert w in err["message"], (w, err["message"])


def test_report():
    """Run last: every flow reached its end, starting with Orient and ending
    with Summarize (the issue-backed one only skipped, with its note, when
    the reference fixture is absent); then prints how the scripted host
    fared and the size of each text."""
    for flow, outcome in sorted(REPORT.items()):
        print("  flow %-45s %s" % (flow, outcome))
    assert sorted(REPORT) == sorted(FLOWS), "flows that did not end: %s; unexpected: %s" % (
        sorted(set(FLOWS) - set(REPORT)), sorted(set(REPORT) - set(FLOWS)))
    for flow, outcome in REPORT.items():
        if flow == ISSUE_FLOW and issue_fixture() is None:
            assert outcome == "skipped", outcome
            continue
        kinds = outcome[len("ended after "):].split(", ")
        assert outcome.startswith("ended after ") and kinds[0] == "orient" and kinds[-1] == "summarize", \
            (flow, outcome)
    caps = texts().caps
    assert set(CAPS) <= set(caps), sorted(set(CAPS) - set(caps))
    for cap, text in caps.items():
        assert text.strip(), cap
        print("  text %-20s %6d bytes" % (cap, len(text.encode())))


if __name__ == "__main__":
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and k != "test_report"]
    main(tests + [test_report])
