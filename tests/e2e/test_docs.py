"""The user-facing docs say what the binary does: the README links the
documentation and the state diagram, its synopsis names every flag of every
command, and the diagram draws one edge per pair of states (the paused
ones are rows of one node), none out of `ended` and only `start` out of
`new`; the architecture page lists every
file of io/ in each language, in an order in which each file calls only
the files before it (read off the objects with nm)."""

import os
import re
import subprocess

from slipway_e2e import ROOT, main, skip

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


if __name__ == "__main__":
    main([test_readme_links_the_docs_and_the_diagram,
          test_readme_synopsis_names_every_flag,
          test_diagram_has_one_edge_per_pair_and_no_impossible_edge,
          test_architecture_lists_every_io_file_in_call_order])
