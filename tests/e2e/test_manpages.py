"""Man pages and shell completions (built by `make man` from the CLI's own
option tables): clean under `groff -man -ww`, one page per command, every
flag of `slipway CMD --help` documented and completed, enum values and Run
ids completed."""

import json
import os
import re
import shutil
import subprocess
import tempfile

from slipway_e2e import ROOT, main, scratch_repo, skip

BIN = os.path.join(ROOT, "build", "slipway")
MAN = os.path.join(ROOT, "build", "man")
COMP = os.path.join(ROOT, "build", "completion")
ENV = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
subprocess.run(["make", "-s", "-C", ROOT, "man"], check=True, env=ENV, stdout=subprocess.DEVNULL)


def help_flags(*words):
    out = subprocess.run([BIN] + list(words) + ["--help"], capture_output=True, text=True).stdout
    flags = out.split("\nFlags:\n", 1)[1]
    return sorted(set(re.findall(r"--([a-z][a-z0-9-]*)", flags)) - {"help"})


def man_text(name):
    res = subprocess.run(["groff", "-man", "-Tutf8", "-P-c", "-P-b", "-P-u", os.path.join(MAN, name + ".1")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout.replace("\u2010", "-").replace("\u2212", "-")


def commands():
    """(command words, page name) of every documented command."""
    out = []
    root = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
    for name in re.findall(r"^  ([a-z]+) ", root.split("Available Commands:\n")[1], re.M):
        if name == "protocol":
            group = subprocess.run([BIN, "protocol", "--help"], capture_output=True, text=True).stdout
            ops = re.findall(r"^  ([a-z]+) ", group.split("Available Commands:\n")[1], re.M)
            out += [(["protocol", op], "slipway-protocol") for op in ops]
        else:
            out.append(([name], "slipway-" + name))
    return out


def test_every_page_is_clean_under_groff_ww():
    pages = sorted(os.listdir(MAN))
    assert len(pages) == 10, pages
    for page in pages:
        res = subprocess.run(["groff", "-man", "-ww", "-z", os.path.join(MAN, page)],
                             capture_output=True, text=True)
        assert res.returncode == 0 and res.stderr == "", (page, res.stderr)


def test_pages_agree_with_help():
    cmds = commands()
    assert len(cmds) >= 12, cmds
    for words, page in cmds:
        text = man_text(page)
        flags = help_flags(*words)
        assert flags, words
        for flag in flags:
            assert "--" + flag in text, "%s: --%s missing from %s(1)" % (" ".join(words), flag, page)
        summary = subprocess.run([BIN] + words + ["--help"], capture_output=True,
                                 text=True).stdout.splitlines()[0]
        assert " ".join(summary.split()) in " ".join(text.split()), (words, summary)
    root = man_text("slipway")
    for _, page in cmds:
        assert page in root, page
    # `slipway _help CMD` (the reference's hidden help command) prints the same.
    for words, _ in cmds:
        if len(words) == 1:
            via_help = subprocess.run([BIN, "_help", words[0]], capture_output=True, text=True).stdout
            direct = subprocess.run([BIN, words[0], "--help"], capture_output=True, text=True).stdout
            assert via_help == direct, words


def test_every_page_is_installed_and_mcp_lists_its_tools_and_resources():
    make_vars = subprocess.run(["make", "-s", "-C", ROOT, "-p", "-n", "man"], capture_output=True,
                               text=True, env=ENV).stdout
    names = re.search(r"^MAN_NAMES\s*:?=\s*(.*)$", make_vars, re.M).group(1).split()
    assert sorted(n + ".1" for n in names) == sorted(os.listdir(MAN)), names
    asks = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "resources/templates/list"}]
    out = subprocess.run([BIN, "mcp", "--root", tempfile.mkdtemp(prefix="slipway-mcp-man-")],
                         input="".join(json.dumps(a) + "\n" for a in asks), capture_output=True,
                         text=True, timeout=60).stdout
    answers = {d["id"]: d["result"] for d in map(json.loads, out.splitlines())}
    text = " ".join(man_text("slipway-mcp").split())
    tools = answers[2]["tools"]
    assert len(tools) >= 8, tools
    for t in tools:
        assert "%s - %s" % (t["name"], t["title"]) in text, t["name"]
        for arg in t["inputSchema"]["properties"]:
            assert arg in text, (t["name"], arg)
    for r in answers[3]["resourceTemplates"]:
        assert r["uriTemplate"] in text, r
    assert "2025-06-18" in text and "slipway://runs" in text


def bash_complete(words, cwd=None, path=None):
    script = ("source %s\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_slipway\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n"
              % (os.path.join(COMP, "slipway.bash"), " ".join("'%s'" % w for w in words), len(words) - 1))
    env = dict(ENV, PATH=(path + ":" if path else "") + ENV["PATH"])
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=cwd, env=env)
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


def test_bash_completes_commands_flags_enums_and_run_ids():
    assert "protocol" in bash_complete(["slipway", ""])
    assert sorted(bash_complete(["slipway", "protocol", ""])) == ["--help", "answer", "material",
                                                                  "resume", "skip", "submit"]
    for words, _ in commands():
        got = bash_complete(["slipway"] + words + ["--"])
        assert sorted(f[2:] for f in got if f != "--help") == help_flags(*words), words
    repo = scratch_repo()
    hosts = [h["id"] if isinstance(h, dict) else h for h in
             json.loads(subprocess.run([BIN, "list", "--json"], cwd=repo, capture_output=True,
                                       text=True).stdout)["hosts"]]
    assert bash_complete(["slipway", "install", "--tool", ""]) == hosts + ["all"]
    assert bash_complete(["slipway", "install", "--surface", ""]) == ["ide", "cli"]
    assert bash_complete(["slipway", "protocol", "resume", "--source-choice", ""]) == ["pinned", "adopt"]
    bindir = tempfile.mkdtemp(prefix="slipway-bin-")
    os.symlink(BIN, os.path.join(bindir, "slipway"))
    run_id = json.loads(subprocess.run([BIN, "run", "--json", "--", "complete me"], cwd=repo,
                                       capture_output=True, text=True).stdout)["run_id"]
    assert bash_complete(["slipway", "status", ""], cwd=repo, path=bindir) == [run_id]
    assert bash_complete(["slipway", "protocol", "submit", "--run", ""], cwd=repo, path=bindir) == [run_id]
    shutil.rmtree(bindir)


def test_zsh_and_fish_completions_parse_and_fish_completes():
    for shell, name, what in (("zsh", "_slipway", "zsh completion syntax"),
                              ("fish", "slipway.fish", "fish completion syntax and candidates")):
        if shutil.which(shell) is None:
            skip(what, "%s is not installed" % shell)
            continue
        res = subprocess.run([shell, "-n", os.path.join(COMP, name)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
    if shutil.which("fish"):
        res = subprocess.run(["fish", "-c", "source %s; complete -C 'slipway protocol resume --source-choice '"
                              % os.path.join(COMP, "slipway.fish")], capture_output=True, text=True)
        assert sorted(line.split("\t")[0] for line in res.stdout.splitlines()) == ["adopt", "pinned"], res.stdout


if __name__ == "__main__":
    main([test_every_page_is_clean_under_groff_ww, test_pages_agree_with_help,
          test_every_page_is_installed_and_mcp_lists_its_tools_and_resources,
          test_bash_completes_commands_flags_enums_and_run_ids,
          test_zsh_and_fish_completions_parse_and_fish_completes])
