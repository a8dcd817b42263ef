"""The user-facing docs say what the binary does: the README links the
documentation and the state diagram, its synopsis names every flag of every
command, and the diagram draws one edge per pair of states (the paused
ones are rows of one node), none out of `ended` and only `start` out of
`new`; the architecture page lists every
file of io/ in each language, in an order in which each file calls only
the files before it (read off the objects with nm).  The error-code page
gives every error code and every Issue rejection code an entry, in each
language, with its exit status, what happened and what to do, and every
link to one of its entries finds the anchor.  The quick start of
docs/en/index.md runs as written in a scratch repository and leaves one
Run whose change holds none of the files `install` wrote."""

import json
import os
import re
import shutil
import subprocess
import tempfile

from slipway_e2e import BIN, ROOT, main, scratch_repo, skip

BIN = os.environ.get("SLIPWAY_BIN", os.path.join(ROOT, "build", "slipway"))


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def test_readme_links_the_docs_and_the_diagram():
    readme = read("README.md")
    for target in ("docs/en/index.md", "docs/diagrams/run-states.svg", "LICENSE", "CHANGELOG.md", "schemas"):
        assert "](%s)" % target in readme, target
        assert os.path.exists(os.path.join(ROOT, target)), target
    assert readme.count("\n    make deps ") == 2, "exactly two set-up commands"


def test_readme_synopsis_names_every_flag():
    readme = read("README.md")
    synopsis = readme.split("## Commands", 1)[1].split("\n\n", 2)[1]
    lines = [line for line in synopsis.splitlines() if line.startswith("| `slipway")]
    for words in (["run"], ["status"], ["stop"], ["install"], ["uninstall"],
                  ["protocol", "submit"], ["protocol", "answer"], ["protocol", "skip"],
                  ["protocol", "resume"], ["protocol", "material"]):
        out = subprocess.run([BIN] + words + ["--help"], capture_output=True, text=True).stdout
        flags = set(re.findall(r"--([a-z][a-z0-9-]*)", out.split("\nFlags:\n", 1)[1])) - {"help", "root"}
        row = [line for line in lines if " ".join(words) + " " in line.split("|")[1]
               or ("/ " + words[0]) in line or (", `" + words[0]) in line]
        assert row, words
        missing = [f for f in flags if "--" + f not in row[0]]
        assert not missing, (words, missing)


def test_diagram_has_one_edge_per_pair_and_no_impossible_edge():
    # Invisible edges only place the nodes.
    dot = "\n".join(line for line in read("docs", "diagrams", "run-states.dot").splitlines()
                     if "style=invis" not in line)
    edges = re.findall(r'^\t"([^"]+)" -> "([^"]+)"(?::"([^"]+)")?', dot, re.M)
    assert edges and len(edges) == len(set(edges)), edges
    assert not [e for e in edges if e[0] == "ended"]
    starts = re.findall(r'^\t"new" -> "([^"]+)" \[label="([^"]*)"', dot, re.M)
    assert starts == [("active", "start")], starts
    # The paused states are the rows of one node, each entered from active.
    rows = re.findall(r'<td align="left" port="([a-z]+)"[^>]*>paused:\1</td>', dot)
    assert sorted(rows) == ["budget", "decision", "destructive", "environment"], rows
    assert sorted(e[2] for e in edges if e[:2] == ("active", "paused")) == sorted(rows)
    assert len(edges) < 40, "%d edges: unreadable" % len(edges)


def rooms_table(lang):
    """The rows of the architecture page's table of io/ files: folder ->
    the .c names in the order the row gives them."""
    rows = {}
    for line in read("docs", lang, "architecture.md").splitlines():
        m = re.match(r"\| `(io/[a-z]+)/` \|(.*)\|\s*$", line)
        names = re.findall(r"`([a-z_0-9]+\.c)`", m.group(2)) if m else []
        if names:
            rows[m.group(1)] = names
    return rows


def calls(folder):
    """For each object of `folder` in the sanitizer build: the files of the
    same folder whose symbols it uses."""
    objs = {}
    for name in sorted(os.listdir(os.path.join(ROOT, folder))):
        o = os.path.join(ROOT, "build", "san", folder, name[:-2] + ".o")
        if name.endswith(".c") and os.path.exists(o):
            objs[name] = o
    defs, uses = {}, {}
    for name, o in objs.items():
        for line in subprocess.run(["nm", o], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDRBC":
                defs[p[2]] = name
            elif len(p) == 2 and p[0] == "U":
                uses.setdefault(name, set()).add(p[1])
    return {n: {defs[u] for u in uses.get(n, ()) if u in defs and defs[u] != n} for n in objs}


def test_architecture_lists_every_io_file_in_call_order():
    en = rooms_table("en")
    folders = sorted("io/" + d for d in os.listdir(os.path.join(ROOT, "io"))
                     if os.path.isdir(os.path.join(ROOT, "io", d)))
    assert sorted(en) == folders, (sorted(en), folders)
    for folder in folders:
        on_disk = sorted(n for n in os.listdir(os.path.join(ROOT, folder)) if n.endswith(".c"))
        assert sorted(en[folder]) == on_disk, (folder, en[folder], on_disk)
        assert len(set(en[folder])) == len(en[folder]), (folder, "a file named twice")
    for lang in ("zh", "ja"):
        assert rooms_table(lang) == en, "docs/%s/architecture.md lists other files" % lang
    if not os.path.isdir(os.path.join(ROOT, "build", "san", "io")):
        skip("the call order of io/ files", "no sanitizer build in build/san")
        return
    for folder in folders:
        order = en[folder]
        for name, callees in calls(folder).items():
            late = sorted(c for c in callees if order.index(c) > order.index(name))
            assert not late, "%s: %s calls %s, listed after it" % (folder, name, late)


LANGS = ("en", "zh", "ja")
# The labels of an entry of the error-code page, per language (the rows of
# mk/gen/gendocs_words.def): what happened, what to do, the exit status.
ENTRY_LABELS = {
    "en": ("What happened", "What to do", "Exit status"),
    "zh": ("发生了什么", "处理办法", "退出状态"),
    "ja": ("何が起きたか", "対処", "終了ステータス"),
}


def table_codes():
    """[(wire, exit status)] of tables/error_codes.def (but NONE), then of the
    classification codes of tables/source_classes.def (but NONE and
    valid_change), which `slipway run` reports as invalid_source."""
    errors = re.findall(r'^ERR\(\w+,\s*"(\w*)",\s*(\d+),', read("tables", "error_codes.def"), re.M)
    codes = [(w, int(x)) for w, x in errors if w]
    status = dict(codes)["invalid_source"]
    classes = re.findall(r'^SOURCE_CLASS\(\w+,\s*"(\w*)"\)', read("tables", "source_classes.def"), re.M)
    return codes + [(w, status) for w in classes if w and w != "valid_change"]


def code_entries(text, lang):
    """{code: (meaning, fix, exit status or None)} of the entries of an
    error-code page: a `### `code`` heading, then its labelled lines."""
    happened, todo, status = ENTRY_LABELS[lang]
    out = {}
    for m in re.finditer(r"^### `([a-z_]+)`\n(.*?)(?=^#|\Z)", text, re.M | re.S):
        body = m.group(2)
        meaning = re.search(r"^\*\*%s\*\*[:：] ?(.*)$" % re.escape(happened), body, re.M)
        fix = re.search(r"^\*\*%s\*\*[:：] ?(.*)$" % re.escape(todo), body, re.M)
        exit_status = re.search(r"%s[:：] ?(\d+)" % re.escape(status), body)
        out[m.group(1)] = (meaning.group(1).strip() if meaning else "",
                           fix.group(1).strip() if fix else "",
                           int(exit_status.group(1)) if exit_status else None)
    return out


def check_error_page(text, lang, codes):
    problems = []
    entries = code_entries(text, lang)
    for code, status in codes:
        if code not in entries:
            problems.append("%s: no entry for %s" % (lang, code))
            continue
        meaning, fix, got = entries[code]
        if not meaning or not fix:
            problems.append("%s: %s lacks %s" % (lang, code, "a meaning" if not meaning else "a fix"))
        if got != status:
            problems.append("%s: %s gives exit status %s, the table %d" % (lang, code, got, status))
    extra = set(entries) - {c for c, _ in codes}
    if extra:
        problems.append("%s: entries for codes the tables do not have: %s" % (lang, sorted(extra)))
    return problems


def test_error_page_gives_every_code_a_meaning_and_a_fix():
    codes = table_codes()
    assert len(codes) > 100 and ("change_marker_required", 2) in codes, codes[:3]
    for lang in LANGS:
        text = read("docs", lang, "reference", "error-codes.md")
        problems = check_error_page(text, lang, codes)
        assert not problems, "\n".join(problems)
    # The check fails on a page whose entry lost its fix, or its entry.
    text = read("docs", "zh", "reference", "error-codes.md")
    broken = re.sub(r"(### `objective_marker`\n\n.*?\n\n\*\*处理办法\*\*：)[^\n]*", r"\1", text, flags=re.S)
    assert broken != text
    assert check_error_page(broken, "zh", codes) == ["zh: objective_marker lacks a fix"]
    gone = text.replace("### `run_busy`", "### run busy")
    assert check_error_page(gone, "zh", codes) == ["zh: no entry for run_busy"]


def anchors(text):
    """The anchors of a page as GitHub makes them: each heading's slug
    (lower case, punctuation but '-' and '_' dropped, spaces as '-') and
    each <a id="...">."""
    out = set(re.findall(r'<a (?:id|name)="([^"]+)"', text))
    fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            out.add(slug)
    return out


def broken_error_links(pages):
    """Links into the error-code page ({path: text}, paths relative to
    docs/) whose anchor it does not have."""
    problems = []
    for path, text in sorted(pages.items()):
        plain = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]*#[^)\s]+)\)", plain):
            file, frag = target.split("#", 1)
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not dest.endswith("reference/error-codes.md"):
                continue
            if dest not in pages:
                problems.append("%s links %s, which is not a page" % (path, target))
            elif frag not in anchors(pages[dest]):
                problems.append("%s links %s: no such anchor" % (path, target))
    return problems


def test_every_link_into_the_error_page_finds_its_anchor():
    pages = {}
    for lang in LANGS:
        base = os.path.join(ROOT, "docs")
        for d, _, files in os.walk(os.path.join(base, lang)):
            for f in files:
                if f.endswith(".md"):
                    full = os.path.join(d, f)
                    pages[os.path.relpath(full, base)] = read(full)
    problems = broken_error_links(pages)
    assert not problems, "\n".join(problems)
    for lang in LANGS:
        own = pages["%s/reference/error-codes.md" % lang]
        assert "](#invalid_source)" in own and "](#issue-rejection-codes)" in own, lang
    assert "error-codes.md#issue-rejection-codes" in pages["en/guides/issue-backed-runs.md"]
    # The check fails on a link to an anchor the page lacks.
    pages["en/guides/first-run.md"] += "\n[x](../reference/error-codes.md#no_such_code)\n"
    assert broken_error_links(pages) == [
        "en/guides/first-run.md links ../reference/error-codes.md#no_such_code: no such anchor"]


def quick_start_blocks():
    """The sh blocks of index.md's quick start, and the build block left out
    (make deps, make, sudo make install: the binary under test stands in)."""
    section = read("docs", "en", "index.md").split("\n## A first Run in five minutes\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```", section, re.M | re.S)
    build = [b for b in blocks if re.search(r"^(sudo )?make\b", b, re.M)]
    assert len(build) == 1 and blocks[0] == build[0], blocks
    return blocks[1:]


# The counts the pages quote from a Claude Code install, per language:
# (what it counts, pattern).  "installed" is every file install wrote (the
# report's line), "managed" what doctor counts.
QUOTED_COUNTS = [
    ("installed", r"(\d+) files installed by slipway for claude"),
    ("managed", r"adapter_healthy\s+(\d+) managed files"),
    ("installed", r"\((\d+) files for Claude Code\)"),
    ("installed", r"Claude Code 为 (\d+) 个文件"),
    ("installed", r"Claude Code では\n?(\d+) ファイル"),
]


def quoted_count_problems(pages, counts):
    """[problem] for each count a page quotes that is not the binary's."""
    problems = []
    for path, text in sorted(pages.items()):
        for what, pattern in QUOTED_COUNTS:
            for m in re.finditer(pattern, text):
                if int(m.group(1)) != counts[what]:
                    problems.append("%s: quotes %s where %s is %d" % (path, m.group(0), what, counts[what]))
    return problems


def test_the_install_counts_the_pages_quote_are_the_binarys():
    """The pages quote how many files `install --tool claude` writes and how
    many doctor manages; both follow what the binary does (they drifted
    each time the installed texts gained a file)."""
    repo = scratch_repo()
    res = subprocess.run([BIN, "install", "--tool", "claude", "--json"], cwd=repo, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    installed = len(json.loads(res.stdout)["written"])
    res = subprocess.run([BIN, "doctor"], cwd=repo, capture_output=True, text=True)
    managed = int(re.search(r"adapter_healthy\s+(\d+) managed files", res.stdout).group(1))
    counts = {"installed": installed, "managed": managed}
    pages = {}
    for lang in ("en", "zh", "ja"):
        for base, _dirs, files in os.walk(os.path.join(ROOT, "docs", lang)):
            for name in files:
                if name.endswith(".md"):
                    with open(os.path.join(base, name), encoding="utf-8") as f:
                        pages[os.path.relpath(os.path.join(base, name), ROOT)] = f.read()
    found = sum(len(re.findall(p, t)) for t in pages.values() for _, p in QUOTED_COUNTS)
    assert found >= 9, "the pages quote %d counts; the patterns no longer find them" % found
    problems = quoted_count_problems(pages, counts)
    assert not problems, "\n".join(problems)
    # One count off is found.
    wrong = {"docs/en/x.md": "  - %d files installed by slipway for claude" % (installed + 1)}
    assert quoted_count_problems(wrong, counts) == [
        "docs/en/x.md: quotes %d files installed by slipway for claude where installed is %d"
        % (installed + 1, installed)]


def test_quick_start_runs_as_written():
    base = os.path.realpath(tempfile.mkdtemp(prefix="slipway-quickstart-"))
    try:
        bindir = os.path.join(base, "bin")
        os.mkdir(bindir)
        os.symlink(os.path.abspath(BIN), os.path.join(bindir, "slipway"))
        repo = os.path.join(base, "hello")
        script = "set -e\n" + "".join(quick_start_blocks()).replace("/tmp/hello", repo)
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
                   GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
        res = subprocess.run(["bash", "-c", script], cwd=base, env=env, capture_output=True, text=True,
                             timeout=120)
        assert res.returncode == 0, (script, res.stdout, res.stderr)
        assert "installed by slipway" not in res.stdout

        def slipway(*args):
            r = subprocess.run([BIN, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, (args, r.stdout, r.stderr)
            return r.stdout
        runs = json.loads(slipway("status", "--json"))["runs"]
        assert len(runs) == 1, [r["id"] for r in runs]
        run = runs[0]["id"]
        report = slipway("status", run)
        assert "What changed: none." in report and "installed by slipway" not in report, report
        # Nothing the install wrote is this Run's change: an Orient that
        # suggests nothing ends the Run without a Review.
        action = json.loads(slipway("status", run, "--json"))["current_action"]["action_id"]
        outcome = {"contract_version": 2, "action_id": action, "action_kind": "orient",
                   "status": "completed", "summary": "nothing to do", "observations": [],
                   "known_issues": [], "suggested_actions": [], "pause": None,
                   "implementation": None, "review": None}
        r = subprocess.run([BIN, "protocol", "submit", "--run", run, "--action", action, "--outcome-stdin"],
                           cwd=repo, env=env, input=json.dumps(outcome), capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["action"]["kind"] == "summarize", r.stdout
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main([test_readme_links_the_docs_and_the_diagram,
          test_readme_synopsis_names_every_flag,
          test_diagram_has_one_edge_per_pair_and_no_impossible_edge,
          test_architecture_lists_every_io_file_in_call_order,
          test_error_page_gives_every_code_a_meaning_and_a_fix,
          test_every_link_into_the_error_page_finds_its_anchor,
          test_quick_start_runs_as_written,
          test_the_install_counts_the_pages_quote_are_the_binarys])
