#!/usr/bin/python3
"""Writes the man pages and the bash, zsh and fish completions of slipway
from the CLI's own tables: `gencli.py [--docdir=D] [--schemadir=S]
REFERENCE VERSION_H OUTDIR [MCP]`.

REFERENCE is the output of `slipway _reference` (one JSON line per command,
printed from cli/commands.def and cli/flags.def by the same code as
`slipway CMD --help`); VERSION_H is build/gen/version.h (version and date
for the page footers).  The EXIT STATUS sections are the rows of
tables/exit_statuses.def.  MCP holds what `slipway mcp` answers to
initialize, tools/list, resources/list and resources/templates/list (one
JSON-RPC message a line): slipway-mcp(1) lists those tools and resources,
with the protocol versions of mcp/server.c.  Pages go to OUTDIR/man,
completions to OUTDIR/completion."""

import json
import os
import re
import sys

def exit_statuses():
    """(status, meaning) of each row of tables/exit_statuses.def."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tables", "exit_statuses.def")
    with open(path, encoding="utf-8") as f:
        return re.findall(r'^EXIT\(\s*\w+,\s*(\d+),\s*"((?:[^"\\]|\\.)*)"\)', f.read(), flags=re.M)


EXIT_STATUS = exit_statuses()


def mcp_versions():
    """The MCP protocol versions `slipway mcp` serves, newest first (mcp/server.c)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mcp", "server.c")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"mcp_protocol_versions\[\]\s*=\s*\{([^}]*)\}", f.read())
    return re.findall(r'"([^"]+)"', m.group(1))


def mcp_reference(path):
    """The results of the server's answers, by request id."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if "id" in d:
                out[d["id"]] = d["result"]
    return out

ROOT_TEXT = """slipway is a local command-line tool that an AI coding host drives one
bounded Action at a time (orient, clarify, implement, review, summarize).
The host does the work and submits a strict JSON Outcome; slipway validates
it, journals it, observes Git on its own and answers with the next Action
and a typed next object of argv variants.  Runs pause (decision, environment,
destructive confirmation, budget), stop and resume.  slipway never touches
the network or a model."""

def files(docdir, schemadir):
    """The FILES section's rows: where `make install` put the schemas and
    the documentation (its DOCDIR and SCHEMADIR, from PREFIX)."""
    return [
        ("<git-common-dir>/slipway/runs/<run-id>/",
         "one Run: its append-only journal, run.json and the pinned source materials"),
        (schemadir.rstrip("/") + "/",
         "the JSON Schemas of every document slipway prints or reads"),
        (docdir.rstrip("/") + "/",
         "the documentation, in English (en/), Chinese (zh/) and Japanese (ja/), and its diagrams"),
    ]

MCP_TEXT = """slipway mcp is a Model Context Protocol server for AI coding hosts that
speak MCP.  It reads newline-delimited JSON-RPC 2.0 messages on stdin and
writes its answers on stdout; its log goes to stderr.  It serves the
protocol versions %s; a client asking for another is answered with %s."""

MCP_TOOLS_TEXT = """Each tool runs the same operation as the slipway command named in its
description, in the same process and through the same code: the same
lock, journal, replay and errors.  A result's structuredContent is
exactly the JSON document that command prints, next included; a refusal
is a result with isError true carrying the command's cliError."""


def load(path):
    cmds, group = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if "commands" in d:
                if d["path"]:
                    group = d
                    group["members"] = []
                    cmds.append(d)
                else:
                    root = d
                continue
            if group and d["path"] in [c["name"] for c in group["commands"]] \
                    and d["use"].startswith(group["path"] + " "):
                d["path"] = group["path"] + " " + d["path"]
                group["members"].append(d)
            else:
                cmds.append(d)
    return root, cmds


def version(path):
    text = open(path, encoding="utf-8").read()
    get = lambda k: re.search(r'#define %s "([^"]*)"' % k, text).group(1)  # noqa: E731
    return get("SLIPWAY_VERSION"), get("SLIPWAY_DATE")[:10]


def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", s, flags=re.M)


def option_lines(opts):
    out = []
    for o in opts:
        head = "\\fB\\-\\-%s\\fR" % esc(o["name"])
        if o["value"]:
            head += " \\fI%s\\fR" % esc(o["value"])
        out += [".TP", head, esc(o["usage"])]
        if o["choices"]:
            out[-1] += "; one of: " + ", ".join("\\fB%s\\fR" % esc(c) for c in o["choices"])
    out += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "print this help and exit"]
    return out


def examples(text):
    if not text:
        return []
    return [".SH EXAMPLES", ".nf", ".RS 4"] + [esc(l.strip()) for l in text.splitlines()] + [".RE", ".fi"]


def common_tail(see):
    out = [".SH EXIT STATUS", ".TP"]
    for i, (code, what) in enumerate(EXIT_STATUS):
        out += ([".TP"] if i else []) + ["\\fB%s\\fR" % code, esc(what)]
    out += [".SH SEE ALSO", ",\n".join("\\fB%s\\fR(1)" % esc(s) for s in see)]
    return out


def header(name, summary, ver, date):
    return ['.\\" generated by mk/gencli.py from `slipway _reference`; do not edit',
            '.TH %s 1 "%s" "slipway %s" "slipway manual"' % (name.upper().replace("-", "\\-"), date, esc(ver)),
            ".SH NAME", "%s \\- %s" % (esc(name), esc(summary))]


def mcp_sections(ref):
    """DESCRIPTION's extra paragraphs, TOOLS and RESOURCES of slipway-mcp(1)."""
    versions = mcp_versions()
    init = ref[1]
    out = [".PP", esc(MCP_TEXT % (", ".join(versions), versions[0])),
           ".PP", "It tells its clients:", ".RS 4", esc(init["instructions"]), ".RE",
           ".SH TOOLS", esc(MCP_TOOLS_TEXT)]
    for t in ref[2]["tools"]:
        schema = t["inputSchema"]
        required = set(schema.get("required", []))
        ro = " (read-only)" if t.get("annotations", {}).get("readOnlyHint") else ""
        out += [".TP", "\\fB%s\\fR \\- %s%s" % (esc(t["name"]), esc(t["title"]), ro),
                esc(t["description"])]
        for arg, spec in schema["properties"].items():
            out += [".br", "\\fI%s\\fR%s: %s" % (esc(arg), " (required)" if arg in required else "",
                                              esc(spec.get("description", "")))]
    out += [".SH RESOURCES", "Run status and materials are also read-only resources (resources/read):"]
    for r in ref[3]["resources"]:
        out += [".TP", "\\fI%s\\fR" % esc(r["uri"]), esc(r["description"])]
    for r in ref[4]["resourceTemplates"]:
        out += [".TP", "\\fI%s\\fR" % esc(r["uriTemplate"]), esc(r["description"])]
    out += [".SH REGISTRATION",
            esc("slipway install --tool HOST --mcp registers this server in the project-level MCP "
                "configuration the host documents; see slipway-install(1).")]
    return out


def page_for(cmd, ver, date, all_names, mcp=None):
    name = "slipway-" + cmd["path"]
    see = ["slipway"] + [n for n in all_names if n != name]
    out = header(name, cmd["summary"], ver, date)
    if "members" in cmd:
        out += [".SH SYNOPSIS"]
        for m in cmd["members"]:
            out += [".B slipway", esc(m["use"]), ".br"]
        out[-1:] = []
        out += [".SH DESCRIPTION", esc(cmd["summary"]) + "."]
        out += [".SH COMMANDS"]
        for m in cmd["members"]:
            out += [".SS \\fBslipway %s\\fR" % esc(m["path"]), esc(m["summary"]) + ".",
                    ".PP", "Usage: \\fBslipway %s\\fR" % esc(m["use"]), ".PP", "Options:",
                    ".RS 4"] + option_lines(m["options"]) + [".RE"]
            ex = examples(m["examples"])
            if ex:
                out += [".PP", "Examples:", ".nf", ".RS 4"] + ex[3:]
    else:
        out += [".SH SYNOPSIS", ".B slipway", esc(cmd["use"])]
        out += [".SH DESCRIPTION", esc(cmd["summary"]) + "."]
        if cmd["path"] == "mcp" and mcp:
            out += mcp_sections(mcp)
        out += [".SH OPTIONS"] + option_lines(cmd["options"]) + examples(cmd["examples"])
    return "\n".join(out + common_tail(see)) + "\n"


def root_page(root, cmds, ver, date, dirs):
    out = header("slipway", root["summary"], ver, date)
    out += [".SH SYNOPSIS", ".B slipway", "\\fICOMMAND\\fR [\\fIflags\\fR]", ".br",
            ".B slipway", "\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR",
            ".SH DESCRIPTION", esc(ROOT_TEXT), ".SH COMMANDS"]
    for c in root["commands"]:
        out += [".TP", "\\fBslipway\\-%s\\fR(1)" % esc(c["name"]), esc(c["summary"])]
    out += [".SH OPTIONS", ".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "print the command list and exit",
            ".TP", "\\fB\\-v\\fR, \\fB\\-\\-version\\fR", "print the version, commit and build date"]
    out += [".SH FILES"]
    for path, what in files(*dirs):
        out += [".TP", "\\fI%s\\fR" % esc(path), esc(what)]
    return "\n".join(out + common_tail(["slipway-" + c["path"] for c in cmds])) + "\n"


def flat(cmds):
    """(path words, options) of every leaf command, plus the groups."""
    for c in cmds:
        if "members" in c:
            for m in c["members"]:
                yield m["path"].split(), m["options"]
        else:
            yield c["path"].split(), c["options"]


# Run ids of this repository: the UUID-shaped "id" members of status --json.
RUN_IDS = ("slipway status --json 2>/dev/null | tr ',{' '\\n\\n' | "
           "sed -n 's/^\"id\":\"\\([0-9a-f]\\{8\\}-[0-9a-f-]\\{27\\}\\)\".*/\\1/p'")


def bash(root, cmds):
    out = ["# bash completion for slipway; generated by mk/gencli.py, do not edit",
           "_slipway_run_ids() { %s; }" % RUN_IDS, "",
           "_slipway()", "{",
           "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
           "    local path= w i",
           "    for ((i = 1; i < COMP_CWORD; i++)); do",
           "        w=${COMP_WORDS[i]}",
           "        [[ $w == -* ]] && continue",
           "        case \"$path\" in",
           "        '') path=$w ;;",
           "        protocol) path=\"protocol $w\" ;;",
           "        esac",
           "    done",
           "    local opts= choices= runarg=0",
           "    case \"$path\" in",
           "    '') COMPREPLY=($(compgen -W '%s --help --version' -- \"$cur\")); return ;;"
           % " ".join(c["name"] for c in root["commands"])]
    for c in cmds:
        if "members" in c:
            out.append("    %s) COMPREPLY=($(compgen -W '%s --help' -- \"$cur\")); return ;;"
                       % (c["path"], " ".join(m["path"].split()[-1] for m in c["members"])))
    for words, opts in flat(cmds):
        out.append("    '%s')" % " ".join(words))
        out.append("        opts='%s --help'" % " ".join("--" + o["name"] for o in opts))
        out.append("        case \"$prev\" in")
        for o in opts:
            if o["choices"]:
                out.append("        --%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;"
                           % (o["name"], " ".join(o["choices"])))
            elif o["name"] == "run":
                out.append("        --run) COMPREPLY=($(compgen -W \"$(_slipway_run_ids)\" -- \"$cur\")); return ;;")
            elif o["name"].endswith("file") or o["name"] == "root":
                out.append("        --%s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;" % o["name"])
            elif o["value"]:
                out.append("        --%s) return ;;" % o["name"])
        out.append("        esac")
        if "<run-id>" in " ".join(words) or words[-1] in ("status", "stop", "resume"):
            out.append("        runarg=1")
        out.append("        ;;")
    out += ["    esac",
            "    if [[ $cur == -* || $runarg == 0 ]]; then",
            "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))",
            "    else",
            "        COMPREPLY=($(compgen -W \"$(_slipway_run_ids)\" -- \"$cur\"))",
            "    fi",
            "}",
            "complete -F _slipway slipway", ""]
    return "\n".join(out)


def zsh_quote(s):
    return s.replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh(root, cmds):
    out = ["#compdef slipway", "# zsh completion for slipway; generated by mk/gencli.py, do not edit", "",
           "_slipway_run_ids() {", "    local -a ids", "    ids=(${(f)\"$(%s)\"})" % RUN_IDS,
           "    _describe 'run id' ids", "}", ""]

    def spec(opts):
        lines = []
        for o in opts:
            action = ""
            if o["choices"]:
                action = ":%s:(%s)" % (o["value"], " ".join(o["choices"]))
            elif o["name"] == "run":
                action = ":run id:_slipway_run_ids"
            elif o["name"].endswith("file") or o["name"] == "root":
                action = ":%s:_files" % o["value"]
            elif o["value"]:
                action = ":%s: " % o["value"]
            lines.append("        '--%s[%s]%s'" % (o["name"], zsh_quote(o["usage"]), action))
        return lines + ["        '(-h --help)'{-h,--help}'[show help]'"]

    for words, opts in flat(cmds):
        fn = "_slipway_" + "_".join(w.replace("-", "_") for w in words)
        pos = []
        if words[-1] in ("status", "stop", "resume"):
            pos = ["        '1:run id:_slipway_run_ids'"]
        out += ["%s() {" % fn, "    _arguments -s \\"] + [l + " \\" for l in spec(opts) + pos][:-1] \
            + [(spec(opts) + pos)[-1]] + ["}", ""]
    for c in cmds:
        if "members" in c:
            fn = "_slipway_" + c["path"]
            out += ["%s() {" % fn, "    local -a cmds", "    cmds=("]
            out += ["        '%s:%s'" % (m["path"].split()[-1], zsh_quote(m["summary"])) for m in c["members"]]
            out += ["    )", "    if (( CURRENT == 2 )); then", "        _describe 'protocol operation' cmds",
                    "    else", "        shift words; (( CURRENT-- ))",
                    "        _call_function ret %s_${words[1]}" % fn, "    fi", "}", ""]
    out += ["_slipway() {", "    local -a cmds", "    cmds=("]
    out += ["        '%s:%s'" % (c["name"], zsh_quote(c["summary"])) for c in root["commands"]]
    out += ["    )", "    if (( CURRENT == 2 )); then",
            "        _describe 'command' cmds",
            "        _arguments '(-v --version)'{-v,--version}'[show the version]' '(-h --help)'{-h,--help}'[show help]'",
            "    else", "        shift words; (( CURRENT-- ))",
            "        _call_function ret _slipway_${words[1]}", "    fi", "}", "",
            "_slipway \"$@\"", ""]
    return "\n".join(out)


def fish_quote(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(root, cmds):
    names = " ".join(c["name"] for c in root["commands"])
    out = ["# fish completion for slipway; generated by mk/gencli.py, do not edit",
           "function __slipway_run_ids", "    %s" % RUN_IDS, "end",
           "complete -c slipway -f",
           "complete -c slipway -n 'not __fish_seen_subcommand_from %s' -s v -l version -d 'show the version'" % names]
    for c in root["commands"]:
        out.append("complete -c slipway -n 'not __fish_seen_subcommand_from %s' -a %s -d %s"
                   % (names, c["name"], fish_quote(c["summary"])))
    for c in cmds:
        if "members" in c:
            subs = " ".join(m["path"].split()[-1] for m in c["members"])
            for m in c["members"]:
                out.append("complete -c slipway -n '__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from %s' -a %s -d %s"
                           % (c["path"], subs, m["path"].split()[-1], fish_quote(m["summary"])))
    for words, opts in flat(cmds):
        cond = " ; and ".join("__fish_seen_subcommand_from %s" % w for w in words)
        for o in opts:
            line = "complete -c slipway -n %s -l %s -d %s" % (fish_quote(cond), o["name"], fish_quote(o["usage"]))
            if o["choices"]:
                line += " -x -a %s" % fish_quote(" ".join(o["choices"]))
            elif o["name"] == "run":
                line += " -x -a '(__slipway_run_ids)'"
            elif o["name"].endswith("file") or o["name"] == "root":
                line += " -r -F"
            elif o["value"]:
                line += " -x"
            out.append(line)
        if words[-1] in ("status", "stop", "resume"):
            out.append("complete -c slipway -n %s -a '(__slipway_run_ids)'" % fish_quote(cond))
    return "\n".join(out) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    # --docdir=D and --schemadir=S (make's DOCDIR and SCHEMADIR) name the
    # installed places in slipway(1); the packages' /usr ones by default.
    dirs = {"--docdir": "/usr/share/doc/slipway", "--schemadir": "/usr/share/slipway/schemas"}
    args = []
    for a in sys.argv[1:]:
        key = a.split("=", 1)[0]
        if key in dirs and "=" in a:
            dirs[key] = a.split("=", 1)[1]
        else:
            args.append(a)
    root, cmds = load(args[0])
    ver, date = version(args[1])
    out = args[2]
    names = ["slipway-" + c["path"] for c in cmds]
    write(os.path.join(out, "man", "slipway.1"),
          root_page(root, cmds, ver, date, (dirs["--docdir"], dirs["--schemadir"])))
    mcp = mcp_reference(args[3]) if len(args) > 3 else None
    for c in cmds:
        write(os.path.join(out, "man", "slipway-%s.1" % c["path"]), page_for(c, ver, date, names, mcp))
    write(os.path.join(out, "completion", "slipway.bash"), bash(root, cmds))
    write(os.path.join(out, "completion", "_slipway"), zsh(root, cmds))
    write(os.path.join(out, "completion", "slipway.fish"), fish(root, cmds))


if __name__ == "__main__":
    main()
