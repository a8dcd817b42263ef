#!/usr/bin/env python3
"""check-layers: the rooms of the source tree and the one way their
dependencies run.

  tables/ fsm/                 the pure core (check-purity proves it)
  io/util/                     shared utilities, below every other room of io/
  io/git/ io/source/           Git observation, the source envelope
  io/wire/                     Outcome, next, host inputs, rendering of next
  io/store/                    the run store: journal, record, materials, lock
  io/adapters/                 host files, manifests, MCP registration
  service/                     one entry per operation, above all of io/
  mcp/ cli/                    the front ends

What fails, each offence on a line of its own:
  - an #include of a room that ROOM may not reach (the ALLOWED table below:
    Git, Source and Adapters never reach the store; cli/ and mcp/ reach the
    store and Git only through service/);
  - a circle of object files that call each other (nm: defined and
    undefined symbols); cli/ is left out, as its command table points at
    every cmd_*.c and each parses its argv through cli/cli.c, the
    shape of git's commands[] and its builtins;
  - a file name of the run directory (run.json, journal.jsonl, ...) as a
    string outside io/store/: only the store touches the run directory;
  - a host id compared in a C condition: host differences are columns of
    the hosts table (io/adapters/adapter.c);
  - a .c file of service/ or cli/ over MAX_LINES lines, or one whose first
    line does not open the comment that says its job;
  - an object of io/, service/ or mcp/ that exports a symbol without its
    room's prefix (R2: PREFIXES below).

usage: check_layers.py [--extra-src ROOM_PATH=FILE]... [--extra-obj FILE[=ROOM_PATH]]... OBJ...
  OBJ         the objects of io/, service/ and mcp/ for the circle check
  --extra-src FILE is read as if it were ROOM_PATH (the self-tests add a
              stray include or condition this way)
  --extra-obj an object added to the circle and prefix checks (as ROOM_PATH)
"""

import os
import re
import subprocess
import sys

ROOMS = ["tables", "fsm", "io/util", "io/git", "io/source", "io/wire", "io/store",
         "io/adapters", "service", "mcp", "cli"]
IO = {"io/util", "io/git", "io/source", "io/wire", "io/store", "io/adapters"}
CORE = {"tables", "fsm"}
ALLOWED = {
    # One pure core: the rows of tables/ are written in fsm/'s types.
    "tables": {"tables", "fsm"},
    "fsm": {"fsm", "tables"},
    "io/util": {"io/util", "tables"},
    "io/git": {"io/git", "io/util"} | CORE,
    "io/source": {"io/source", "io/util", "tables"},
    # next.c names the workspace a next points at (Git discovery).
    "io/wire": {"io/wire", "io/util", "io/git"} | CORE,
    "io/store": {"io/store", "io/util", "io/git", "io/source", "io/wire"} | CORE,
    "io/adapters": {"io/adapters", "io/util", "tables"},
    "service": {"service"} | IO | CORE,
    "mcp": {"mcp", "service", "io/util", "io/wire", "io/source", "io/adapters"} | CORE,
    "cli": {"cli", "service", "mcp", "io/util", "io/wire", "io/adapters"} | CORE,
}
PREFIXES = {
    "io/util": ("sw_",),
    "io/store": ("store_", "run_", "journal_"),
    # io/git/vcs_notls.c stands in for libgit2's TLS and SSH members.
    "io/git": ("vcs_", "git_"),
    "io/source": ("source_",),
    "io/adapters": ("adapter_",),
    "io/wire": ("input_", "next_", "outcome_", "render_"),
    "service": ("svc_",),
    "mcp": ("mcp_",),
}
STORE_NAMES = ["journal.jsonl", "run.json", "run.lock", "run.checkpoint", "run.checkpoint-log",
               "run.summary", "materials"]
MAX_LINES = 1000
ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))


def room_of(path):
    for r in sorted(ROOMS, key=len, reverse=True):
        if path == r or path.startswith(r + "/"):
            return r
    return None


def sources():
    out = []
    for r in ROOMS:
        d = os.path.join(ROOT, r)
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h", ".def")):
                out.append((r + "/" + name, os.path.join(d, name)))
    return out


def host_ids():
    with open(os.path.join(ROOT, "io/adapters/adapter.c")) as f:
        text = f.read()
    table = text[text.index(" adapter__hosts[ADAPTER_NHOSTS] = {"):]
    table = table[:table.index("};")]
    return re.findall(r'^\s*\{\s*"([a-z]+)"', table, re.M)


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def check_source(path, text, hosts, bad):
    room = room_of(path)
    code = strip_comments(text)
    for n, line in enumerate(code.split("\n"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            target = room_of(m.group(1))
            if target is not None and target not in ALLOWED[room]:
                bad.append("%s:%d: %s/ includes %s (%s/ may not reach %s/)"
                           % (path, n, room, m.group(1), room, target))
        for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', line):
            if room != "io/store" and any(lit == s or lit.endswith("/" + s) or
                                          lit.startswith(s + "/") for s in STORE_NAMES):
                bad.append('%s:%d: names the run directory\'s "%s" outside io/store/'
                           % (path, n, lit))
        if re.search(r"\b(if|while)\b|strn?cmp|==|!=|\?", line):
            for h in hosts:
                if re.search(r'(strn?cmp\s*\([^;]*|[!=]=\s*)"%s"' % h, line):
                    bad.append('%s:%d: compares the host id "%s" in a condition '
                               '(make it a column of the hosts table)' % (path, n, h))
    if room in ("service", "cli") and path.endswith(".c"):
        lines = text.count("\n")
        if lines > MAX_LINES:
            bad.append("%s: %d lines (at most %d in %s/)" % (path, lines, MAX_LINES, room))
        if not text.startswith("/*"):
            bad.append("%s: the first line does not open the comment that says the file's job"
                       % path)


def circles(objs, as_path, bad):
    defs, uses = {}, {}
    # One nm for every object (-A names the object on each line, before
    # the last colon: neither an address nor a C symbol holds one).
    out = subprocess.run(["nm", "-A"] + list(objs), capture_output=True, text=True,
                         check=True).stdout if objs else ""
    for line in out.splitlines():
        cut = line.rfind(":")
        o, p = line[:cut], line[cut + 1:].split()
        if len(p) == 3 and p[1] in "TDRBC":
            defs[p[2]] = o
        elif len(p) == 2 and p[0] == "U":
            uses.setdefault(o, set()).add(p[1])
    for o in objs:
        rel = as_path.get(o) or (o.split("build/rel/", 1)[1] if "build/rel/" in o else None)
        room = room_of(rel) if rel else None
        if room in PREFIXES:
            for sym, where in defs.items():
                if where == o and not sym.startswith(PREFIXES[room]):
                    bad.append("%s exports %s without a prefix of %s/ (%s)"
                               % (rel[:-2] + ".c", sym, room, ", ".join(PREFIXES[room])))
    graph = {o: sorted({defs[u] for u in uses.get(o, ()) if u in defs and defs[u] != o})
             for o in objs}
    index, low, stack, on, count = {}, {}, [], set(), [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = count[0]
        count[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                bad.append("circle: %s call each other" % " <-> ".join(sorted(comp)))

    for o in objs:
        if o not in index:
            visit(o)


def main(argv):
    extra_src, objs, as_path, i = [], [], {}, 0
    while i < len(argv):
        if argv[i] == "--extra-src":
            src_path, _, f = argv[i + 1].partition("=")
            extra_src.append((src_path, f))
            i += 2
        elif argv[i] == "--extra-obj":
            obj, _, path = argv[i + 1].partition("=")
            objs.append(obj)
            if path:
                as_path[obj] = path[:-2] + ".o" if path.endswith(".c") else path
            i += 2
        else:
            objs.append(argv[i])
            i += 1
    bad = []
    hosts = host_ids()
    if len(hosts) < 2:
        bad.append("io/adapters/adapter.c: the hosts table was not found")
    for path, f in sources() + extra_src:
        with open(f, encoding="utf-8", errors="replace") as fh:
            check_source(path, fh.read(), hosts, bad)
    circles(objs, as_path, bad)
    for b in bad:
        print("check-layers: " + b)
    if bad:
        return 1
    print("check-layers: %d rooms, dependencies one way, no circle among %d objects"
          % (len(ROOMS), len(objs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
