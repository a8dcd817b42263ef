"""The user-facing docs say what the binary does: the README links the
documentation and the state diagram, its synopsis names every flag of every
command, and the diagram draws one edge per pair of states, none out of
`ended` and only `start` out of `new`."""

import os
import re
import subprocess

from slipway_e2e import ROOT, main

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
    dot = read("docs", "diagrams", "run-states.dot")
    edges = re.findall(r'^\t"([^"]+)" -> "([^"]+)"', dot, re.M)
    assert edges and len(edges) == len(set(edges)), edges
    assert not [e for e in edges if e[0] == "ended"]
    starts = re.findall(r'^\t"new" -> "([^"]+)" \[label="([^"]*)"', dot, re.M)
    assert starts == [("active", "start")], starts
    assert "cluster_paused" in dot
    assert len(edges) < 40, "%d edges: unreadable" % len(edges)


if __name__ == "__main__":
    main([test_readme_links_the_docs_and_the_diagram,
          test_readme_synopsis_names_every_flag,
          test_diagram_has_one_edge_per_pair_and_no_impossible_edge])
