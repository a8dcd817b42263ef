"""A recorded GitHub behind a fake `gh` on PATH, for tests that follow the
installed capability texts.  Nothing here reaches the network.

FakeGitHub keeps one repository with Issues and comments as GitHub's GraphQL
API would return them.  Its `gh` script answers `--version`, `auth status`
REST reads of the repository, an Issue, a comment or an Issue's comments
(and, only when a test makes the state writable, the three REST writes the
propose text uses; a new comment moves its Issue's updated_at, as on GitHub), and read-only `api graphql`
calls: for GraphQL it parses the query's selection set and
returns only the fields the query asks for (so a query that forgets a field
produces a document without it), enforces declared non-null variables,
applies `--jq` through the jq program as gh applies its built-in one, and
logs every invocation.  Anything else exits 1.  It is no GitHub: it knows
exactly the calls the installed texts make."""

import json
import os
import shutil
import stat
import sys
import tempfile

GH_SCRIPT = r'''#!/usr/bin/env python3
import json, os, re, subprocess, sys

STATE = os.environ["FAKE_GH_STATE"]
with open(os.path.join(STATE, "state.json"), encoding="utf-8") as f:
    state = json.load(f)
with open(os.path.join(STATE, "log.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")

def fail(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(1)

def emit(doc, jq):
    """Prints the response, through --jq as gh applies it; exits."""
    text = json.dumps(doc)
    if jq is None:
        print(text)
        sys.exit(0)
    p = subprocess.run(["jq", "-r", jq], input=text.encode(), capture_output=True)
    sys.stdout.buffer.write(p.stdout)
    sys.stderr.buffer.write(p.stderr)
    sys.exit(0 if p.returncode == 0 else 1)

argv = sys.argv[1:]
# `--hostname github.com` may come anywhere after `api`; it selects nothing here.
if argv[:1] == ["api"] and "--hostname" in argv:
    k = argv.index("--hostname")
    if argv[k + 1] != "github.com":
        fail("fake gh: only github.com is recorded")
    argv = argv[:k] + argv[k + 2:]
if argv == ["--version"]:
    print("gh version 2.95.0 (2026-01-01)")
    sys.exit(0)
if argv[:2] == ["auth", "status"]:
    sys.exit(0 if state.get("authenticated", True) else 1)
def save():
    with open(os.path.join(STATE, "state.json"), "w", encoding="utf-8") as f:
        json.dump(state, f)

def tick():
    state["clock"] = state.get("clock", 0) + 1
    return "2026-11-30T14:%02d:00Z" % state["clock"]

def rest_comment(c):
    return {"id": c["databaseId"], "node_id": c["id"], "html_url": c["url"], "body": c["body"],
            "updated_at": c["updatedAt"], "user": {"login": "octo", "node_id": c["author"]["id"]}}

def rest_issue(iss):
    return {"number": iss["number"], "node_id": iss["id"], "html_url": iss["url"], "title": iss["title"],
            "body": iss["body"], "updated_at": iss["updatedAt"], "labels": [{"name": n} for n in iss["labels"]]}

if len(argv) >= 2 and argv[0] == "api" and argv[1].startswith("repos/"):
    # REST: reads of the repository, an Issue, a comment or an Issue's
    # comments; writes (create Issue, create comment, edit Issue body) only
    # when the state says `writable`.
    method, body, jq, i = "GET", {}, None, 2
    while i < len(argv):
        a = argv[i]
        if a in ("-X", "--method"):
            method = argv[i + 1]
        elif a in ("-f", "--raw-field", "-F", "--field"):
            key, _, val = argv[i + 1].partition("=")
            if a in ("-F", "--field") and val.startswith("@"):
                with open(val[1:], encoding="utf-8", newline="") as f:
                    val = f.read()
            body[key] = val
        elif a in ("--jq", "-q"):
            jq = argv[i + 1]
        elif a == "--paginate":
            i += 1
            continue
        else:
            fail("fake gh: unexpected argument %r" % a)
        i += 2
    if body and method == "GET":
        method = "POST"
    if method != "GET" and not state.get("writable"):
        fail("fake gh: writes are not recorded here: %r" % argv)
    repo = state["repository"]
    path = argv[1].split("?")[0]
    parts = path.split("/")
    if parts[1:3] != [repo["owner"], repo["name"]]:
        fail("gh: Not Found (HTTP 404)")
    route, obj = (method,) + tuple("N" if p.isdigit() else p for p in parts[3:]), None
    issue = None
    if len(parts) >= 5 and parts[3] == "issues" and parts[4].isdigit():
        issue = next((x for x in state["issues"] if x["number"] == int(parts[4])), None)
        if issue is None:
            fail("gh: Not Found (HTTP 404)")
    if route == ("GET",):
        obj = {"node_id": repo["id"], "full_name": repo["owner"] + "/" + repo["name"],
               "permissions": state.get("permissions", {"pull": True})}
    elif route == ("GET", "issues", "comments", "N"):
        obj = next((rest_comment(c) for c in state["comments"].values()
                    if str(c["databaseId"]) == parts[5]), None)
    elif route == ("GET", "issues", "N"):
        obj = rest_issue(issue)
    elif route == ("GET", "issues", "N", "comments"):
        obj = [rest_comment(c) for c in sorted(state["comments"].values(), key=lambda c: c["databaseId"])
               if c["issue_number"] == issue["number"]]
    elif route == ("POST", "issues"):
        n = max([x["number"] for x in state["issues"]] + [0]) + 1
        url = "https://github.com/%s/%s/issues/%d" % (repo["owner"], repo["name"], n)
        issue = {"id": "I_kwDOfake%d" % n, "number": n, "url": url, "title": body["title"],
                 "body": body.get("body", ""), "updatedAt": tick(), "labels": [], "parent": None,
                 "repository_id": repo["id"]}
        state["issues"].append(issue)
        obj = rest_issue(issue)
    elif route == ("POST", "issues", "N", "comments"):
        db = 7000 + len(state["comments"])
        c = {"id": "IC_kwDOfake%d" % db, "databaseId": db, "url": "%s#issuecomment-%d" % (issue["url"], db),
             "updatedAt": tick(), "isMinimized": False, "body": body["body"],
             "author": {"__typename": "User", "login": "octo", "id": "U_kgDOAuthor"},
             "issue_number": issue["number"]}
        state["comments"][c["id"]] = c
        issue["updatedAt"] = c["updatedAt"]  # as on GitHub: a new comment moves the Issue's updated_at
        obj = rest_comment(c)
    elif route == ("PATCH", "issues", "N"):
        issue.update({k: v for k, v in body.items() if k in ("title", "body")})
        issue["updatedAt"] = tick()
        obj = rest_issue(issue)
    if obj is None:
        fail("gh: Not Found (HTTP 404)")
    if method != "GET":
        save()
    emit(obj, jq)
if argv[:2] != ["api", "graphql"]:
    fail("fake gh: only reads are recorded: %r" % argv)

fields, jq = {}, None
i = 2
while i < len(argv):
    a = argv[i]
    if a in ("-f", "--raw-field", "-F", "--field"):
        kv = argv[i + 1]
        i += 2
        key, eq, val = kv.partition("=")
        if a in ("-F", "--field") and eq and val.startswith("@"):
            # as gh: the rest is a file to read the value from
            try:
                with open(val[1:], encoding="utf-8", newline="") as f:
                    val = f.read()
            except OSError as e:
                fail("fake gh: %s" % e)
        elif a in ("-F", "--field") and eq and re.fullmatch(r"-?[0-9]+", val):
            val = int(val)
        if key.endswith("[]"):
            lst = fields.setdefault(key[:-2], [])
            if eq:
                lst.append(val)
            continue
        if not eq:
            fail("fake gh: field %r needs a value" % kv)
        fields[key] = val
    elif a == "--jq" or a == "-q":
        jq = argv[i + 1]
        i += 2
    else:
        fail("fake gh: unexpected argument %r" % a)

query = fields.pop("query", None)
if query is None:
    fail("fake gh: no query")
query = re.sub(r"#[^\n]*", "", query)  # GraphQL comments
tokens = re.findall(r'\.\.\.|[A-Za-z_][A-Za-z0-9_]*|\$[A-Za-z_][A-Za-z0-9_]*|[{}()\[\]!:=,]|"[^"]*"|-?[0-9]+', query)
if not tokens or tokens[0] != "query":
    fail("fake gh: only queries are recorded")
# Variable declarations.
k = 1
declared = {}
if tokens[k] == "(":
    k += 1
    while tokens[k] != ")":
        name = tokens[k]
        k += 2
        typ = []
        while tokens[k] not in (",", ")") and not tokens[k].startswith("$"):
            typ.append(tokens[k])
            k += 1
        declared[name[1:]] = "".join(typ)
        if tokens[k] == ",":
            k += 1
    k += 1
for name, typ in declared.items():
    if typ.endswith("!") and name not in fields:
        fail("GraphQL: Variable $%s of type %s was provided invalid value" % (name, typ))
for name in fields:
    if name not in declared:
        fail("GraphQL: Variable $%s is not declared" % name)

def parse(i):
    sel = []
    while tokens[i] != "}":
        if tokens[i] == "...":
            typ = tokens[i + 2]
            sub, i = parse(i + 4)
            sel.append(("frag", typ, sub))
            continue
        name = tokens[i]
        i += 1
        args = {}
        if tokens[i] == "(":
            i += 1
            while tokens[i] != ")":
                aname, aval = tokens[i], tokens[i + 2]
                args[aname] = fields.get(aval[1:]) if aval.startswith("$") else aval
                i += 3
                if tokens[i] == ",":
                    i += 1
            i += 1
        sub = None
        if tokens[i] == "{":
            sub, i = parse(i + 1)
        sel.append(("field", name, args, sub))
    return sel, i + 1

root_sel, _ = parse(k + 1)

repo = state["repository"]

def issue_obj(num):
    for iss in state["issues"]:
        if iss["number"] == int(num):
            o = dict(iss)
            o["__typename"] = "Issue"
            o["labels"] = {"totalCount": len(iss["labels"]), "nodes": [{"name": n} for n in iss["labels"]]}
            return o
    return None

def comment_obj(node_id):
    c = state["comments"].get(node_id)
    if c is None:
        return None
    o = dict(c)
    o["__typename"] = "IssueComment"
    return o

def resolve(parent, name, args):
    if parent is ROOT:
        if name == "repository":
            if args.get("owner") != repo["owner"] or args.get("name") != repo["name"]:
                fail("GraphQL: Could not resolve to a Repository with the name '%s/%s'. (repository)" % (args.get("owner"), args.get("name")))
            return {"__typename": "Repository", "id": repo["id"], "_repo": True}
        if name == "nodes":
            return [comment_obj(x) for x in args.get("ids") or []]
        fail("fake gh: unknown root field %s" % name)
    if parent.get("_repo") and name == "issue":
        o = issue_obj(args["number"])
        if o is None:
            fail("GraphQL: Could not resolve to an Issue with the number of %s. (repository.issue)" % args["number"])
        return o
    if name == "labels" and parent.get("__typename") == "Issue":
        lab = parent["labels"]
        first = int(args.get("first", 0))
        return {"totalCount": lab["totalCount"], "nodes": lab["nodes"][:first]}
    if name == "issue" and parent.get("__typename") == "IssueComment":
        return issue_obj(parent["issue_number"])
    if name == "repository" and parent.get("__typename") == "Issue":
        return {"__typename": "Repository", "id": parent["repository_id"]}
    if name not in parent:
        fail("fake gh: field %s is not recorded on %s" % (name, parent.get("__typename")))
    return parent[name]

ROOT = object()

def project(parent, sel):
    out = {}
    for item in sel:
        if item[0] == "frag":
            typ, sub = item[1], item[2]
            if parent.get("__typename") == typ or (typ == "Node" and "id" in parent):
                out.update(project(parent, sub))
            continue
        _, name, args, sub = item
        val = resolve(parent, name, args)
        if sub is None:
            if isinstance(val, (dict, list)) and name != "__typename":
                fail("fake gh: field %s needs a selection" % name)
            out[name] = val
        elif val is None:
            out[name] = None
        elif isinstance(val, list):
            out[name] = [None if v is None else project(v, sub) for v in val]
        else:
            out[name] = project(val, sub)
    return out

emit({"data": project(ROOT, root_sel)}, jq)
'''


class FakeGitHub:
    """One repository OWNER/REPO with Issues and comments, and a bin
    directory holding its `gh`.  `env()` is what a command needs to use it."""

    def __init__(self, owner="acme", name="rocket", repo_id="R_kgDOAcmeRkt"):
        if shutil.which("jq") is None:
            raise RuntimeError("the fake gh applies --jq with the jq program: install jq (make deps)")
        self.dir = tempfile.mkdtemp(prefix="fake-github-")
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        gh = os.path.join(self.bin, "gh")
        with open(gh, "w", encoding="utf-8") as f:
            f.write(GH_SCRIPT.replace("#!/usr/bin/env python3", "#!" + sys.executable, 1))
        os.chmod(gh, stat.S_IRWXU)
        self.state = {"repository": {"owner": owner, "name": name, "id": repo_id},
                      "issues": [], "comments": {}, "authenticated": True}
        self.save()

    def save(self):
        with open(os.path.join(self.dir, "state.json"), "w", encoding="utf-8") as f:
            json.dump(self.state, f)

    def load(self):
        """Takes up what the `gh` script wrote since."""
        with open(os.path.join(self.dir, "state.json"), encoding="utf-8") as f:
            self.state = json.load(f)

    def url(self, number):
        r = self.state["repository"]
        return "https://github.com/%s/%s/issues/%d" % (r["owner"], r["name"], number)

    def add_issue(self, number, issue_id, title, body, labels=(), updated="2026-11-30T10:00:00Z"):
        self.load()
        self.state["issues"].append({
            "id": issue_id, "number": number, "url": self.url(number), "title": title,
            "body": body, "updatedAt": updated, "labels": list(labels), "parent": None,
            "repository_id": self.state["repository"]["id"]})
        self.save()

    def issue(self, number):
        self.load()
        return next(i for i in self.state["issues"] if i["number"] == number)

    def manifest(self, number):
        """The manifest in Issue `number`'s body."""
        body = self.issue(number)["body"]
        return json.loads(body.split("```slipway-manifest\n", 1)[1].split("\n```", 1)[0])

    def set_body(self, number, body, updated):
        iss = self.issue(number)
        iss["body"] = body
        iss["updatedAt"] = updated
        self.save()

    def add_comment(self, number, node_id, database_id, body, author="U_kgDOAuthor",
                    updated="2026-11-30T10:00:00Z", minimized=False, touch=False):
        """A comment on Issue `number`; with `touch` it moves the Issue's
        updated_at, as a new comment does on GitHub."""
        self.load()
        if touch:
            self.issue(number)["updatedAt"] = updated
        self.state["comments"][node_id] = {
            "id": node_id, "databaseId": database_id,
            "url": "%s#issuecomment-%d" % (self.url(number), database_id),
            "updatedAt": updated, "isMinimized": minimized, "body": body,
            "author": {"__typename": "User", "login": "octo", "id": author},
            "issue_number": number}
        self.save()

    def env(self):
        return {"PATH": self.bin + os.pathsep + os.environ.get("PATH", ""),
                "FAKE_GH_STATE": self.dir}

    def calls(self):
        """Every recorded invocation's argv, oldest first."""
        path = os.path.join(self.dir, "log.jsonl")
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def clear_calls(self):
        path = os.path.join(self.dir, "log.jsonl")
        if os.path.exists(path):
            os.remove(path)
