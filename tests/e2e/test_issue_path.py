"""From idea to Issue to Run, with the installed capability texts as the only
guide.  Each walk installs the texts into a scratch repository, reads the
installed files, and runs what they say: the envelope procedure's shell
commands, with the query and filter files install put beside it, against a fake `gh` on PATH
that answers from recorded GitHub JSON (tests/e2e/fake_github.py); the
propose text's worked example as the Issue, published by running the
propose text's own publication commands against a writable fake.  Slipway
itself then judges the result.  A text whose commands or example are wrong
makes these walks fail (see the *_fails tests)."""

import json
import os
import re
import subprocess
import tempfile
import unittest

from fake_github import FakeGitHub
from slipway_e2e import SHARED, framed, run, scratch_repo, unittest_main, validate
from test_host_texts import KINDS, SURFACES, Install, Reader, unlinked

OWNER, REPO, NUMBER = "acme", "rocket", 42
ISSUE_ID = "I_kwDOAcme42"


# ---- the installed texts ------------------------------------------------

def texts_for(surface="claude"):
    """The texts a host of `surface` reads on the path from an idea to an
    Issue to a Run, in that order, each reference by the path an already-read
    text names (test_host_texts.Reader), and the reader, which counts the
    bytes."""
    r = Reader(Install.of(surface))
    out = {"workflow": r.cap("slipway-workflow"), "propose": r.cap("slipway-propose")}
    out["change"] = r.ref("change-issue.md")
    out["publishing"] = r.ref("publishing.md")
    out["run"] = r.cap("slipway-run")
    out["envelope"] = r.ref("source-envelope.md")
    return out, r


def install(repo):
    """The texts for claude, slipway-decompose's too (the scratch
    repository `repo` runs the Runs)."""
    texts, r = texts_for("claude")
    texts["decompose"] = r.cap("slipway-decompose")
    return texts


def section(text, heading):
    """The Markdown from `heading` (a whole line) to the next heading of the
    same or a higher level."""
    level = heading.split(" ")[0]
    start = text.index("\n" + heading + "\n") + 1
    m = re.compile(r"^#{1,%d} " % len(level), re.M).search(text, start + len(heading))
    return text[start:m.start() if m else len(text)]


def fences(text):
    """Every fenced block as (info, content), fences of 3 or more backticks,
    indented blocks (inside list items) dedented."""
    out = []
    for m in re.finditer(r"^( *)(`{3,})([^\n`]*)\n(.*?)\n\1\2[ \t]*$", text, re.M | re.S):
        ind = len(m.group(1))
        body = "\n".join(l[ind:] if l[:ind].strip() == "" else l for l in m.group(4).split("\n"))
        out.append((m.group(3).strip(), body))
    return out


def fetch_script(text):
    """The shell commands of "## The fetch", in order."""
    return [c for info, c in fences(section(text, "## The fetch")) if info == "sh"]


def query_files(text):
    """The installed files the fetch commands pass to gh (`-F query=@FILE`,
    `--jq "$(cat FILE)"`), paths from the repository root."""
    script = "\n".join(fetch_script(text))
    return re.findall(r"query=@(\S+)", script) + re.findall(r'--jq "\$\(cat (\S+)\)"', script)


def follow_envelope_procedure(texts, gh, owner=OWNER, repo=REPO, number=NUMBER, root=None):
    """Does what the envelope reference says, as a host would: runs its
    commands from the root of the repository the texts were installed in
    (`root`, claude's install by default), where the paths of the query
    files it passes to gh start, with OWNER, REPO, NUMBER set.  Returns
    (exit status, envelope path or None, stderr)."""
    out = os.path.join(tempfile.mkdtemp(prefix="slipway-envelope-out-"), "source-path")
    script = "set -e\n" + "\n".join(fetch_script(texts["envelope"])) + '\nprintf %s "$SOURCE" > "$OUT"\n'
    env = dict(os.environ)
    env.update(gh.env())
    env.update({"OWNER": owner, "REPO": repo, "NUMBER": str(number), "OUT": out})
    p = subprocess.run(["sh", "-c", script], env=env, capture_output=True, timeout=60,
                       cwd=root or Install.of("claude").repo)
    path = None
    if os.path.exists(out):
        with open(out) as f:
            path = f.read()
    return p.returncode, (path or None), p.stderr.decode()


# ---- an Issue published on the fake GitHub --------------------------------

SECTIONS = [
    ("outcome", "outcome", "Outcome", "Launch reports its altitude."),
    ("requirements", "requirements", "Requirements", "- Print the altitude in metres after each burn."),
    ("acceptance-examples", "acceptance_examples", "Acceptance examples", "Given a burn of 3 s, the log shows `altitude=`."),
    ("constraints", "constraints", "Constraints", "No new dependencies."),
    ("non-goals", "non_goals", "Non-goals", "Imperial units."),
]


def publish(gh, sections=SECTIONS, number=NUMBER, issue_id=ISSUE_ID, base_db=9000, parent=None,
            marker="<!-- slipway-level: change/v2 -->"):
    """Posts one comment per section and a body whose manifest names them,
    as the propose text's publication procedure ends.  Returns the
    manifest."""
    entries = []
    for n, (key, role, title, payload) in enumerate(sections):
        node, db = "IC_kwDO%d" % (base_db + n), base_db + n
        body = "<!-- slipway-section:v1 key=%s -->\n%s\n" % (key, payload)
        gh.add_comment(number, node, db, body)
        entries.append({"key": key, "role": role, "title": title, "comment_node_id": node,
                        "comment_database_id": db, "body_sha256": framed("slipway-comment-body/v1", body)})
    manifest = {"manifest_version": 2, "profile": "change/v2", "sections": entries}
    if parent:
        manifest["parent_requirements_revision"] = parent
    body = "%s\n```slipway-manifest\n%s\n```\n" % (marker, json.dumps(manifest, indent=2))
    if any(i["number"] == number for i in gh.state["issues"]):
        gh.set_body(number, body, "2026-11-30T12:00:00Z")
    else:
        gh.add_issue(number, issue_id, "[Change] Report altitude", body, labels=["level:change"])
    # A discussion comment the manifest does not name: never fetched.
    gh.add_comment(number, "IC_kwDOchat%d" % base_db, base_db + 99, "Looks good to me!")
    return manifest


def start_run(repo, source):
    goal = os.path.join(tempfile.mkdtemp(), "goal")
    with open(goal, "w") as f:
        f.write("Deliver the Change in acme/rocket#42\n")
    return run("run", "--goal-file", goal, "--source-file", source, "--budget", "8", "--json", cwd=repo)


class Walk(unittest.TestCase):
    """A scratch repository with the texts installed, and a fake GitHub."""

    def setUp(self):
        self.repo = scratch_repo()
        self.texts = install(self.repo)
        self.gh = FakeGitHub(OWNER, REPO)


class EnvelopeWalk(Walk):

    def test_run_points_to_the_installed_envelope_reference(self):
        self.assertRegex(self.texts["run"], r"`[^`]*/references/source-envelope\.md`")

    def test_every_host_gets_the_reference_where_its_run_text_names_it(self):
        # One copy, at the path the run text names (beside the run text on
        # most hosts; Copilot's and Kilo's sit in their own folders).
        for surface in SURFACES:
            texts, r = texts_for(surface)
            path = [p for p in r.docs if p.endswith("references/source-envelope.md")]
            named = set(re.findall(r"`([^`\s]*references/source-envelope\.md)`", texts["run"]))
            self.assertEqual(len(path), 1, surface)
            self.assertEqual(named, set(path), surface)
            self.assertEqual(unlinked(texts["envelope"]), unlinked(self.texts["envelope"]), surface)

    def test_the_fetch_passes_the_query_files_installed_beside_the_reference(self):
        # The two queries and two filters are files install wrote in the
        # envelope reference's folder, named by their path from the
        # repository root, the same bytes on every surface; the host never
        # types them.
        claude = Install.of("claude").repo
        want = sorted(os.path.basename(p) for p in query_files(self.texts["envelope"]))
        self.assertEqual(want, ["envelope.graphql", "envelope.jq", "manifest-ids.graphql", "manifest-ids.jq"])
        for surface in SURFACES:
            texts, r = texts_for(surface)
            ref = [p for p in r.docs if p.endswith("references/source-envelope.md")][0]
            for f in query_files(texts["envelope"]):
                self.assertEqual(os.path.dirname(os.path.normpath(f)), os.path.dirname(ref), (surface, f))
                with open(os.path.join(r.inst.repo, f), encoding="utf-8") as got, \
                        open(os.path.join(claude, ".claude/skills/slipway-run/references",
                                          os.path.basename(f)), encoding="utf-8") as base:
                    self.assertEqual(got.read(), base.read(), (surface, f))
            self.assertNotIn("Save as", texts["envelope"], surface)

    def test_envelope_from_the_procedure_starts_a_run_and_materials_read_back(self):
        manifest = publish(self.gh)
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        with open(source, encoding="utf-8") as f:
            env = json.load(f)
        self.assertEqual(oct(os.stat(source).st_mode & 0o777), "0o600")
        # Only reads, and exactly the comments the manifest names.
        calls = self.gh.calls()
        self.assertEqual([c[:2] for c in calls], [["api", "graphql"]] * 2)
        asked = sorted(a.split("=", 1)[1] for a in calls[1] if a.startswith("ids[]="))
        self.assertEqual(asked, sorted(s["comment_node_id"] for s in manifest["sections"]))
        self.assertNotIn("IC_kwDOchat9000", json.dumps(env))
        self.assertEqual(env["labels"], ["level:change"])
        self.assertEqual(env["canonical_url"], "https://github.com/acme/rocket/issues/42")

        res = start_run(self.repo, source)
        self.assertEqual(res.code, 0, res.err)
        doc = res.json_out()
        validate(doc, "protocolState")
        pin = doc["pinned_source"]
        self.assertEqual([s["key"] for s in pin["sections"]], [s[0] for s in SECTIONS])
        self.assertEqual(pin["repository_id"], "R_kgDOAcmeRkt")
        self.assertEqual(pin["issue_id"], ISSUE_ID)
        for key, _, _, payload in SECTIONS:
            # The reader variant the Action offers, plus the section.
            reader = doc["action"]["requirements"]["reader"]
            self.assertEqual(reader["base_argv"][:3], ["slipway", "protocol", "material"])
            m = run(*reader["base_argv"][1:], reader["input"]["flag"], key, cwd=self.repo)
            self.assertEqual(m.code, 0, m.err)
            mat = m.json_out()
            self.assertEqual(mat["section"]["markdown"], payload + "\n")

    def test_procedure_reproduces_the_reference_fixture(self):
        # Extra step, only where ../shared/reference exists: GitHub holding
        # the fixture's Issue yields the fixture, byte for byte in every
        # observed field.
        fixture_path = os.path.join(SHARED, "reference/fixtures/container-source-envelope.json")
        if not os.path.exists(fixture_path):
            self.skipTest("%s is absent (no reference folder)" % fixture_path)
        with open(fixture_path, encoding="utf-8") as f:
            want = json.load(f)
        owner, name = want["canonical_url"].split("/")[3:5]
        gh = FakeGitHub(owner, name, want["repository_id"])
        gh.add_issue(want["issue_number"], want["issue_id"], want["title"], want["body"],
                     labels=want["labels"], updated=want["updated_at"])
        for c in want["comments"]:
            gh.add_comment(want["issue_number"], c["node_id"], c["database_id"], c["body"],
                           author=c["author_id"], updated=c["updated_at"], minimized=c["is_minimized"])
        rc, source, err = follow_envelope_procedure(self.texts, gh, owner, name, want["issue_number"])
        self.assertEqual(rc, 0, err)
        with open(source, encoding="utf-8") as f:
            got = json.load(f)
        self.assertRegex(got.pop("fetched_at"), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        want.pop("fetched_at")
        key = lambda c: c["node_id"]
        self.assertEqual(sorted(got.pop("comments"), key=key), sorted(want.pop("comments"), key=key))
        self.assertEqual(got, want)

    def test_a_query_that_forgets_a_field_fails_the_walk(self):
        publish(self.gh)
        inst = Install("claude")  # a copy of its own, edited
        query = [f for f in query_files(self.texts["envelope"]) if f.endswith("/envelope.graphql")][0]
        with open(os.path.join(inst.repo, query), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("isMinimized ", text)
        with open(os.path.join(inst.repo, query), "w", encoding="utf-8") as f:
            f.write(text.replace("isMinimized ", ""))
        rc, source, err = follow_envelope_procedure(self.texts, self.gh, root=inst.repo)
        self.assertEqual(rc, 0, err)
        res = start_run(self.repo, source)
        self.assertEqual(res.code, 2)
        self.assertEqual(res.json_err()["code"], "invalid_source")

    def test_an_issue_without_a_manifest_gives_an_envelope_slipway_classifies(self):
        self.gh.add_issue(NUMBER, ISSUE_ID, "Make it faster", "Please make the rocket faster.\n")
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        with open(source, encoding="utf-8") as f:
            self.assertEqual(json.load(f)["comments"], [])
        res = start_run(self.repo, source)
        self.assertEqual(res.code, 2)
        doc = res.json_err()
        self.assertEqual(doc["code"], "invalid_source")
        self.assertIn("change_marker_required", doc["message"])
        # The commonest rejections say what to do about it.
        row = [l for l in self.texts["envelope"].splitlines() if l.startswith("- `change_marker_required`: ")]
        self.assertEqual(len(row), 1)
        self.assertIn("slipway-propose", row[0])

    def test_a_missing_issue_stops_the_procedure(self):
        rc, source, err = follow_envelope_procedure(self.texts, self.gh, number=7)
        self.assertNotEqual(rc, 0)
        self.assertIn("Could not resolve to an Issue", err)

    def test_refresh_after_an_amendment_yields_a_valid_candidate(self):
        publish(self.gh)
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        doc = start_run(self.repo, source).json_out()
        run_id, pinned = doc["run_id"], doc["pinned_source"]
        stop = run("stop", run_id, "--root", self.repo, "--json", cwd=self.repo)
        self.assertEqual(stop.code, 0, stop.err)

        # Unchanged Issue: the refresh is not material.
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        res = run("protocol", "resume", run_id, "--root", self.repo, "--source-file", source,
                  cwd=self.repo)
        self.assertEqual(res.code, 0, res.err)
        self.assertEqual(res.json_out()["resume_operation"], "source_refreshed")
        run("stop", run_id, "--root", self.repo, "--json", cwd=self.repo)

        # The amendment: replacement comments and a manifest naming, as its
        # parent, the pinned requirements revision read where the propose
        # text says to read it.
        st = run("status", run_id, "--root", self.repo, "--json", cwd=self.repo)
        self.assertEqual(st.code, 0, st.err)
        self.assertEqual(st.json_out()["pinned_source"]["requirements_revision"], pinned["requirements_revision"])
        self.assertIn("field `pinned_source.requirements_revision`", self.texts["publishing"])
        changed = [s if s[0] != "requirements" else
                   ("requirements", "requirements", "Requirements", "- Print the altitude in feet too.")
                   for s in SECTIONS]
        publish(self.gh, changed, base_db=9100, parent=pinned["requirements_revision"])
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        res = run("protocol", "resume", run_id, "--root", self.repo, "--source-file", source,
                  cwd=self.repo)
        self.assertEqual(res.code, 0, res.err)
        out = res.json_out()
        self.assertEqual(out["resume_operation"], "source_candidate_created")
        cand = out["source_candidate"]
        self.assertTrue(cand["valid"])
        self.assertNotEqual(cand["requirements_revision"], pinned["requirements_revision"])
        req = [s for s in cand["snapshot"]["sections"] if s["key"] == "requirements"][0]
        self.assertEqual(req["provenance"]["comment_database_id"], 9101)
        self.assertEqual(req["material_sha256"], framed("slipway-material/v1", "- Print the altitude in feet too.\n"))

    def test_refresh_of_a_broken_issue_yields_an_invalid_candidate(self):
        publish(self.gh)
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        run_id = start_run(self.repo, source).json_out()["run_id"]
        run("stop", run_id, "--root", self.repo, "--json", cwd=self.repo)
        iss = self.gh.issue(NUMBER)
        self.gh.set_body(NUMBER, iss["body"].replace("change/v2 -->", "change/v9 -->", 1), "2026-11-30T13:00:00Z")
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        res = run("protocol", "resume", run_id, "--root", self.repo, "--source-file", source,
                  cwd=self.repo)
        self.assertEqual(res.code, 0, res.err)
        cand = res.json_out()["source_candidate"]
        self.assertFalse(cand["valid"])
        self.assertEqual(cand["classification_code"], "unsupported_marker")

    def test_the_rejections_name_real_codes_and_the_error_code_page(self):
        # The host text keeps a few codes with their fixes and points to the
        # documentation's error-code page for every code: the page of the
        # sources, and the path it is installed at, from the binary's folder.
        rej = section(self.texts["envelope"], "## Rejections")
        root = os.path.join(os.path.dirname(__file__), "../..")
        with open(os.path.join(root, "tables/source_classes.def")) as f:
            codes = re.findall(r'^SOURCE_CLASS\(\w+,\s*"([a-z_]+)"\)', f.read(), re.M)
        with open(os.path.join(root, "tables/error_codes.def")) as f:
            codes += re.findall(r'^ERR\(\w+,\s*"([a-z_]+)"', f.read(), re.M)
        listed = re.findall(r"^- `([a-z_]+)`: \S", rej, re.M)
        self.assertTrue(3 <= len(listed) <= 5, listed)
        for code in listed + ["invalid_source", "invalid_source_candidate"]:
            self.assertIn(code, codes)
            self.assertIn("`%s`" % code, rej)
        page = "docs/en/reference/error-codes.md"
        self.assertIn("`%s`" % page, rej)
        self.assertTrue(os.path.exists(os.path.join(root, page)))
        self.assertIn('`$(dirname "$(command -v slipway)")/../share/doc/slipway/en/reference/error-codes.md`', rej)
        self.assertNotIn("| Code |", self.texts["envelope"])


# ---- propose: the worked example is a real Change Issue -------------------

def worked_example(texts):
    """The propose text's worked example: [(key, node id, database id,
    comment body)] and the Issue body, as the text says GitHub holds them
    (each comment body ends with a line break)."""
    ex = section(texts["change"], "## 2. Worked example")
    comments = [(m.group(1), m.group(2), int(m.group(3)), m.group(4) + "\n") for m in re.finditer(
        r"^Comment \d+, key `([^`]+)` \(node id `([^`]+)`, database id `(\d+)`\):\n\n```markdown\n(.*?)\n```$",
        ex, re.M | re.S)]
    bodies = [c for info, c in fences(ex) if info == "markdown" and c.startswith("<!-- slipway-level:")]
    assert len(bodies) == 1, "the worked example must show one Issue body"
    return comments, bodies[0] + "\n"


def publish_example(gh, comments, body):
    gh.add_issue(NUMBER, ISSUE_ID, "[Change] Report altitude after each burn", body)
    for key, node, db, text in comments:
        gh.add_comment(NUMBER, node, db, text)
    gh.add_comment(NUMBER, "IC_kwDOchat", 2999, "Nice idea.")


class ProposeWalk(Walk):

    def test_installed_texts_have_no_unexpanded_markers(self):
        # The generator itself is tested in test_build_checks.py.
        for name, text in self.texts.items():
            self.assertNotIn("<!-- slipway:", text, name)

    def test_worked_example_published_is_accepted_by_slipway_run(self):
        comments, body = worked_example(self.texts)
        self.assertEqual(len(comments), 5)
        publish_example(self.gh, comments, body)
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        res = start_run(self.repo, source)
        self.assertEqual(res.code, 0, res.err)
        pin = res.json_out()["pinned_source"]
        self.assertEqual([(s["key"], s["provenance"]["comment_database_id"]) for s in pin["sections"]],
                         [(c[0], c[2]) for c in comments])
        for sec, c in zip(pin["sections"], comments):
            payload = c[3].split("\n", 1)[1]
            self.assertEqual(sec["material_sha256"], framed("slipway-material/v1", payload))

    def test_digest_command_reproduces_every_example_digest(self):
        comments, body = worked_example(self.texts)
        publish_example(self.gh, comments, body)
        manifest = json.loads(body.split("```slipway-manifest\n", 1)[1].split("\n```", 1)[0])
        want = {s["comment_database_id"]: s["body_sha256"] for s in manifest["sections"]}
        cmd = [c for info, c in fences(section(self.texts["change"], "## 1. What a Change Issue is made of"))
               if info == "sh" and "python3" in c]
        self.assertEqual(len(cmd), 1)
        env = dict(os.environ)
        env.update(self.gh.env())
        for _, _, db, _ in comments:
            script = cmd[0].replace("OWNER", OWNER).replace("REPO", REPO).replace("COMMENT_ID", str(db))
            p = subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.strip(), want[db])

    def test_a_wrong_worked_example_fails(self):
        comments, body = worked_example(self.texts)
        key, node, db, text = comments[1]
        comments[1] = (key, node, db, text.replace("whole metres", "whole meters"))
        publish_example(self.gh, comments, body)
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        res = start_run(self.repo, source)
        self.assertEqual(res.code, 2)
        doc = res.json_err()
        self.assertEqual(doc["code"], "invalid_source")
        self.assertIn("source_section_hash_mismatch", doc["message"])


# ---- propose: the publication procedure, followed step by step ------------

class PublicationWalk(unittest.TestCase):
    """Runs the publication commands of the installed texts against a
    writable fake GitHub, with the worked example's sections as the drafts
    the person confirmed, then builds the envelope, starts a Run and submits
    its first Outcome; then amends the Issue as the amendment example does
    and adopts it.  Once with the texts of each host surface; prints the
    bytes the host had read before its first accepted submit."""

    def setUp(self):
        self.repo = scratch_repo()

    def sh(self, script, **subst):
        for k, v in subst.items():
            script = script.replace(k, str(v))
        env = dict(os.environ)
        env.update(self.gh.env())
        p = subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, (script, p.stderr))
        return p.stdout

    def private(self, text):
        fd, path = tempfile.mkstemp(prefix="slipway-draft-")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return path

    def blocks(self, texts):
        pub = section(texts["publishing"], "## 2. The writes, in order")
        blocks = [c for info, c in fences(pub) if info == "sh"]

        def block(marker):
            found = [b for b in blocks if marker in b]
            self.assertEqual(len(found), 1, marker)
            return found[0]
        return pub, block

    def digest_cmd(self, texts):
        return [c for info, c in fences(section(texts["change"], "## 1. What a Change Issue is made of"))
                if info == "sh" and "python3" in c][0]

    def post_and_write(self, texts, number, comments, manifest, body_of, before=None):
        """Writes 2 to 7: posts `comments` [(key, text)], reads them back,
        notes the baseline, fills the manifest entries of those keys with
        GitHub's ids and digests, re-fetches and, when nothing moved,
        writes the body.  `before` (optional) runs between the baseline and
        the re-fetch, as someone else would.  Returns the ids posted, or
        None when the re-fetch says to stop."""
        _, block = self.blocks(texts)
        repo = {"OWNER": OWNER, "REPO": REPO}
        ids = []
        for key, text in comments:
            out = self.sh(block("/comments -X POST"), NUMBER=number, SECTION_FILE=self.private(text), **repo)
            db, node = out.split()
            ids.append((key, int(db), node))
        digests = {key: self.sh(self.digest_cmd(texts), COMMENT_ID=db, **repo).strip() for key, db, _ in ids}
        baseline = self.sh(block("--jq '.updated_at'"), NUMBER=number, **repo).strip()
        for sec in manifest["sections"]:
            for key, db, node in ids:
                if sec["key"] == key:
                    sec.update({"comment_database_id": db, "comment_node_id": node, "body_sha256": digests[key]})
        if before:
            before()
        out = self.sh(block("--jq '.updated_at, .body'"), NUMBER=number, **repo)
        updated, current = out.split("\n", 1)
        if updated != baseline:  # "Stop and tell the person"
            return None
        self.assertEqual(self.sh(block("-X PATCH"), NUMBER=number, BODY_FILE=self.private(body_of(manifest)),
                                 **repo).strip(), self.url)
        return ids, current

    def publish_new(self, texts):
        """Writes 1 to 7 for the worked example; returns its comments."""
        self.gh.state["writable"] = True
        self.gh.save()
        _, block = self.blocks(texts)
        pub = section(texts["publishing"], "## 2. The writes, in order")
        title = re.search(r"for example `(\[Change\][^`]+)`", texts["propose"]).group(1)
        placeholder = re.search(r"placeholder body that holds no Slipway marker, for example `([^`]+)`", pub).group(1)
        comments, example_body = worked_example(texts)
        confirmed = json.loads(example_body.split("```slipway-manifest\n", 1)[1].split("\n```", 1)[0])
        out = self.sh(block("-X POST -f title"), TITLE=title, PLACEHOLDER=self.private(placeholder + "\n"),
                      OWNER=OWNER, REPO=REPO)
        self.number, self.issue_node, self.url = out.split()
        body_of = lambda m: "<!-- slipway-level: change/v2 -->\n```slipway-manifest\n%s\n```\n" % json.dumps(m, indent=2)
        got = self.post_and_write(texts, self.number, [(c[0], c[3]) for c in comments], confirmed, body_of)
        self.assertIsNotNone(got)
        ids, current = got
        self.assertEqual(current.strip(), placeholder)
        return comments, ids

    def test_publishing_and_amending_with_the_texts_of_each_host_surface(self):
        for surface in KINDS:
            with self.subTest(surface=surface):
                self.walk(surface)

    def walk(self, surface):
        self.repo = scratch_repo()
        self.gh = FakeGitHub(OWNER, REPO)
        texts, reader = texts_for(surface)
        comments, ids = self.publish_new(texts)
        # The reconcile read lists what exists.
        listing = re.search(r"`(gh api repos/OWNER/REPO/issues/NUMBER/comments --paginate[^`]*)`",
                            section(texts["publishing"], "## 3. Never retry blindly")).group(1)
        out = self.sh(listing, NUMBER=self.number, OWNER=OWNER, REPO=REPO)
        self.assertEqual([l.split("\t") for l in out.strip().split("\n")], [[str(db), node] for _, db, node in ids])

        self.texts_root = reader.inst.repo  # where the query files the texts name are
        rc, source, err = follow_envelope_procedure(texts, self.gh, number=int(self.number),
                                                    root=self.texts_root)
        self.assertEqual(rc, 0, err)
        res = start_run(self.repo, source)
        self.assertEqual(res.code, 0, res.err)
        st = res.json_out()
        pin = st["pinned_source"]
        self.assertEqual(pin["issue_id"], self.issue_node)
        self.assertEqual([s["key"] for s in pin["sections"]], [c[0] for c in comments])
        # The host's first Outcome, from slipway-run's example.
        example = json.loads(re.search(r"\*\*Example: orient-completed\*\*\.[^\n]*\n\n```json\n(.*?)\n```",
                                       texts["run"], re.S).group(1).replace(
                                           "REPLACE-WITH-action.action_id", st["action"]["action_id"]))
        path = self.private(json.dumps(example))
        var = [v for v in st["next"]["variants"] if v["id"] == "submit-outcome-file"][0]
        sub = run(*(var["base_argv"][1:] + ["--outcome-file", path]), cwd=self.repo)
        self.assertEqual(sub.code, 0, sub.err)
        print("  idea -> Issue -> Run with the %s texts: %d bytes read before the first accepted submit"
              % (surface, reader.bytes))
        self.amend(texts, st["run_id"], pin)

    def amend(self, texts, run_id, pin):
        """The amendment worked example, published as its procedure says,
        refreshes into a valid candidate that the Run adopts."""
        pub = texts["publishing"]
        amend = section(pub, "## 4. Amending a published Change")
        # Its parent is the revision the Run pinned (the worked example's).
        parent = re.search(r"`pinned_source.requirements_revision` is `(sha256:[0-9a-f]{64})`", amend).group(1)
        self.assertEqual(pin["requirements_revision"], parent)
        replacements = re.findall(r"^Replacement for key `([^`]+)` \(node id `[^`]+`, database id `\d+`\):\n\n"
                                  r"```markdown\n(.*?)\n```$", amend, re.M | re.S)
        self.assertEqual([k for k, _ in replacements], ["requirements", "acceptance-examples"])
        example_body = [c for info, c in fences(amend) if info == "markdown" and c.startswith("<!-- slipway-level:")]
        self.assertEqual(len(example_body), 1)
        manifest = json.loads(example_body[0].split("```slipway-manifest\n", 1)[1].split("\n```", 1)[0])
        self.assertEqual(manifest["parent_requirements_revision"], parent)
        # The unchanged entries are the ones already published: GitHub's ids.
        old = {s["key"]: s for s in self.gh.manifest(int(self.number))["sections"]}
        for sec in manifest["sections"]:
            if sec["key"] not in dict(replacements):
                sec.update({k: old[sec["key"]][k] for k in ("comment_node_id", "comment_database_id", "body_sha256")})
        body_of = lambda m: "<!-- slipway-level: change/v2 -->\n```slipway-manifest\n%s\n```\n" % json.dumps(m, indent=2)
        run("stop", run_id, "--root", self.repo, "--json", cwd=self.repo)
        got = self.post_and_write(texts, self.number, [(k, t + "\n") for k, t in replacements], manifest, body_of)
        self.assertIsNotNone(got)
        rc, source, err = follow_envelope_procedure(texts, self.gh, number=int(self.number),
                                                    root=self.texts_root)
        self.assertEqual(rc, 0, err)
        res = run("protocol", "resume", run_id, "--root", self.repo, "--source-file", source, cwd=self.repo)
        self.assertEqual(res.code, 0, res.err)
        st = res.json_out()
        self.assertEqual(st["resume_operation"], "source_candidate_created")
        self.assertTrue(st["source_candidate"]["valid"], st["source_candidate"])
        adopt = [v for v in st["next"]["variants"] if v["id"] == "adopt"][0]
        res = run(*adopt["base_argv"][1:], cwd=self.repo)
        self.assertEqual(res.code, 0, res.err)
        st = res.json_out()
        self.assertEqual(st["resume_operation"], "source_amended")
        keys = {s["key"]: s for s in st["pinned_source"]["sections"]}
        for key, text in replacements:
            self.assertEqual(keys[key]["material_sha256"],
                             framed("slipway-material/v1", text.split("\n", 1)[1] + "\n"))

    def test_someone_elses_comment_after_the_baseline_stops_the_body_write(self):
        self.gh = FakeGitHub(OWNER, REPO)
        texts, _ = texts_for("claude")
        self.gh.state["writable"] = True
        self.gh.save()
        _, block = self.blocks(texts)
        out = self.sh(block("-X POST -f title"), TITLE="t", PLACEHOLDER=self.private("placeholder\n"),
                      OWNER=OWNER, REPO=REPO)
        self.number, _, self.url = out.split()
        comments, example_body = worked_example(texts)
        confirmed = json.loads(example_body.split("```slipway-manifest\n", 1)[1].split("\n```", 1)[0])
        body_of = lambda m: "never written"
        # Our own posts move updated_at; the baseline taken after them does not
        # stop the write.  A comment by someone else after it does.
        other = lambda: self.gh.add_comment(int(self.number), "IC_other", 8999, "Wait, one more thing.",
                                            updated="2026-11-30T23:00:00Z", touch=True)
        self.assertIsNone(self.post_and_write(texts, self.number, [(c[0], c[3]) for c in comments],
                                              confirmed, body_of, before=other))
        self.assertEqual(self.gh.issue(int(self.number))["body"], "placeholder\n")


# ---- workflow and decompose ---------------------------------------------

CAPS = ["slipway-run", "slipway-clarify", "slipway-propose", "slipway-decompose",
        "slipway-implement", "slipway-review", "slipway-workflow"]


class RouteTexts(Walk):
    def routes(self):
        table = section(self.texts["workflow"], "## What the user has, and where it leads")
        rows = [l.split("|")[1:-1] for l in table.splitlines() if l.startswith("| ") and "---" not in l]
        return {r[0].strip(): r[1].strip() for r in rows[1:]}

    def test_every_starting_point_leads_to_one_installed_capability(self):
        routes = self.routes()
        for have, cap in routes.items():
            self.assertTrue(cap in CAPS or cap in ("the doctor", "nothing"), (have, cap))
        # The starting points this path must cover, and where they lead.
        self.assertEqual(routes["A settled idea they want as a GitHub Issue"], "slipway-propose")
        self.assertEqual(routes["An idea too large for one delivery"], "slipway-decompose")
        self.assertEqual(routes["An Issue that is a Change Issue"], "slipway-run")
        self.assertEqual(routes["An Issue that is a planning Objective"], "slipway-decompose")
        self.assertEqual(routes["A source envelope file"], "slipway-run")
        self.assertEqual(routes["A stopped or out-of-budget Run"], "slipway-run")

    def test_the_issue_kind_rule_matches_the_parser(self):
        # The marker workflow tells Change Issues by is the one a worked
        # example starts with and slipway accepts (ProposeWalk).
        m = re.search(r"`([^`]+)` is a Change Issue", self.texts["workflow"])
        _, body = worked_example(self.texts)
        self.assertTrue(body.startswith(m.group(1) + "\n"))
        # An Issue that starts with the Objective spelling is classified so.
        m = re.search(r"a line containing `([^`]+)` is an Objective", self.texts["workflow"])
        self.gh.add_issue(NUMBER, ISSUE_ID, "Plan", m.group(1) + "v1 -->\nThe plan.\n")
        rc, source, err = follow_envelope_procedure(self.texts, self.gh)
        self.assertEqual(rc, 0, err)
        res = start_run(self.repo, source)
        self.assertIn("objective_marker", res.json_err()["message"])
        self.assertIn("slipway-decompose", [l for l in self.texts["envelope"].splitlines()
                                           if l.startswith("- `objective_marker`: ")][0])

    def test_decompose_publishes_with_the_propose_rules(self):
        t = self.texts["decompose"]
        self.assertIn("slipway-propose's publication procedure", t)
        for rule in ("confirms the complete plan", "never retried blindly", "re-fetching"):
            self.assertIn(rule, t)
        for role in ("`outcome`", "`requirements`", "`acceptance_examples`", "`constraints`", "`non_goals`"):
            self.assertIn(role, t)


# ---- doctor: what this path needs on the machine ------------------------

class DoctorForTheIssuePath(Walk):
    def doctor(self, path):
        res = run("doctor", "--root", self.repo, "--json", cwd=self.repo,
                  env={"PATH": path, "FAKE_GH_STATE": self.gh.dir})
        self.assertEqual(res.code, 0, res.err)
        return {c["code"]: c for c in res.json_out()["checks"] if c["name"].startswith("github")}

    def fake_path(self):
        return self.gh.env()["PATH"]

    def test_missing_gh_is_reported_with_where_to_get_it(self):
        empty = tempfile.mkdtemp(prefix="no-gh-")
        checks = self.doctor(empty)
        self.assertEqual(list(checks), ["github_cli_unavailable"])
        self.assertIn("https://cli.github.com/", checks["github_cli_unavailable"]["detail"])

    def test_unauthenticated_gh_names_the_login_command_and_stops(self):
        self.gh.state["authenticated"] = False
        self.gh.save()
        checks = self.doctor(self.fake_path())
        self.assertEqual(list(checks), ["github_cli_compatible", "github_auth_unavailable"])
        self.assertIn("gh auth login --hostname github.com", checks["github_auth_unavailable"]["detail"])

    def test_a_readable_repository_is_reported_and_only_read_commands_run(self):
        subprocess.run(["git", "-C", self.repo, "remote", "add", "origin",
                        "https://github.com/acme/rocket.git"], check=True)
        self.gh.state["permissions"] = {"pull": True, "triage": False, "push": False}
        self.gh.save()
        checks = self.doctor(self.fake_path())
        self.assertEqual(list(checks), ["github_cli_compatible", "github_auth_available",
                                        "github_issue_permissions_limited"])
        detail = checks["github_issue_permissions_limited"]["detail"]
        self.assertIn("acme/rocket: read=true triage=false write=false", detail)
        self.assertIn("Change Issues published", detail)
        self.assertEqual(self.gh.calls(), [["--version"], ["auth", "status", "--hostname", "github.com"],
                                           ["api", "--hostname", "github.com", "repos/acme/rocket",
                                            "--jq", ".permissions"]])

    def test_an_unreadable_repository_names_the_fix(self):
        subprocess.run(["git", "-C", self.repo, "remote", "add", "origin",
                        "git@github.com:acme/rocket.git"], check=True)
        self.gh.state["permissions"] = {"pull": False}
        self.gh.save()
        detail = self.doctor(self.fake_path())["github_issue_permissions_limited"]["detail"]
        self.assertIn("no source envelope can be built", detail)


if __name__ == "__main__":
    unittest_main()
