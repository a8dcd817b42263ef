#!/usr/bin/env python3
"""check-layers: the rooms of the source tree and the one way their
dependencies run.

  tables/ fsm/                 the pure core (check-purity proves it)
  io/util/                     shared utilities, below every other room of io/
  io/git/ io/source/           Git observation, the source envelope
  io/wire/                     Outcome, next, host inputs, rendering of next
  io/store/                    the run store: journal, record, materials, lock
  io/report/                   the person's report of a Run (status, summary)
  io/adapters/                 host files, manifests, MCP registration
  service/                     one entry per operation, above all of io/
  mcp/ cli/                    the front ends

What fails, each offence on a line of its own:
  - an #include of a room that ROOM may not reach (the ALLOWED table below:
    Git, Source and Adapters never reach the store; the store never reaches
    the report; cli/ and mcp/ reach the store, Git and the report only
    through service/);
  - a circle of object files that call each other (nm: defined and
    undefined symbols); cli/ is left out, as its command table points at
    every cmd_*.c and each parses its argv through cli/cli.c, the
    shape of git's commands[] and its builtins;
  - a file name of the run directory (run.json, journal.jsonl, ...) as a
    string outside io/store/: only the store touches the run directory;
  - a host id compared in a C condition: host differences are columns of
    the hosts table (io/adapters/adapter.c);
  - a .c file anywhere in the tree over MAX_LINES lines (service/ and cli/:
    MAX_LINES_FRONT), generated files (build/) aside;
  - a .c file of fsm/, io/, service/, cli/ or mcp/ whose first line does not
    open the comment that says what it owns, or a header there whose first
    line after the include guard does not;
  - a circle of rooms: a room that reaches, through the #include lines and
    the calls between objects, a room that reaches it back (fsm/ and tables/
    included: tables/ holds the types, fsm/ the interpreter, one way);
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
         "io/report", "io/adapters", "service", "mcp", "cli"]
IO = {"io/util", "io/git", "io/source", "io/wire", "io/store", "io/report", "io/adapters"}
CORE = {"tables", "fsm"}
ALLOWED = {
    # One pure core: tables/ holds the types and the rows (tables/machine.h),
    # fsm/ interprets them; nothing points back up.
    "tables": {"tables"},
    "fsm": {"fsm", "tables"},
    "io/util": {"io/util", "tables"},
    "io/git": {"io/git", "io/util"} | CORE,
    "io/source": {"io/source", "io/util", "tables"},
    # next.c names the workspace a next points at (Git discovery).
    "io/wire": {"io/wire", "io/util", "io/git"} | CORE,
    "io/store": {"io/store", "io/util", "io/git", "io/source", "io/wire"} | CORE,
    # The report reads the record's structs (io/store/run_record.h) and
    # Git's change list, and renders the next choices.  The store never
    # reaches it: service/ hands report_summary to run_apply as a function.
    "io/report": {"io/report", "io/store", "io/util", "io/git", "io/wire"} | CORE,
    "io/adapters": {"io/adapters", "io/util", "tables"},
    "service": {"service"} | IO | CORE,
    "mcp": {"mcp", "service", "io/util", "io/wire", "io/source", "io/adapters"} | CORE,
    "cli": {"cli", "service", "mcp", "io/util", "io/wire", "io/adapters"} | CORE,
}
PREFIXES = {
    "io/util": ("sw_",),
    "io/store": ("store_", "run_", "journal_"),
    "io/report": ("report_",),
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
MAX_LINES = 1500
MAX_LINES_FRONT = 1000
COMMENTED = ("fsm", "io", "service", "cli", "mcp")
# The generator of the docs and capability texts is a room of its own for
# the circle checks: it reads every room, and no room reads it.
GEN = "mk/gen"
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


def gen_sources():
    d = os.path.join(ROOT, GEN)
    return [(GEN + "/" + n, os.path.join(d, n)) for n in sorted(os.listdir(d))
            if n.endswith((".c", ".h"))]


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
    if path.endswith(".c") and room in ("service", "cli"):
        lines = text.count("\n")
        if lines > MAX_LINES_FRONT:
            bad.append("%s: %d lines (at most %d in %s/)" % (path, lines, MAX_LINES_FRONT, room))
    if path.split("/")[0] in COMMENTED and not opens_with_comment(path, text):
        bad.append("%s: the first line does not open the comment that says what the file owns"
                   % path)
    return {target for target in includes(path, code) if target != room}


def opens_with_comment(path, text):
    """A .c file's first line opens a comment; a header's first line after
    its include guard does."""
    if path.endswith(".c"):
        return text.startswith("/*")
    for line in text.split("\n"):
        if line.startswith(("#ifndef", "#define")) or not line.strip():
            continue
        return line.startswith("/*")
    return False


def includes(path, code):
    out = set()
    for line in code.split("\n"):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            target = room_of(m.group(1)) or (GEN if m.group(1).startswith(GEN + "/") else None)
            if target is not None:
                out.add(target)
    return out


def long_files(extra, bad):
    """Every .c file of the tree (build/, .git and node_modules aside) within
    MAX_LINES lines."""
    files = list(extra)
    for top, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in ("build", ".git", "node_modules")]
        for n in names:
            if n.endswith(".c"):
                f = os.path.join(top, n)
                files.append((os.path.relpath(f, ROOT), f))
    for path, f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().count("\n")
        if lines > MAX_LINES:
            bad.append("%s: %d lines (at most %d in any .c file)" % (path, lines, MAX_LINES))


def room_circles(edges, bad):
    """Fails on a circle in the graph of rooms (an edge: a file of one room
    includes, or an object of one room calls, another room)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    for comp in sccs(graph):
        if len(comp) > 1:
            bad.append("circle of rooms: %s reach each other"
                       % " <-> ".join(r + "/" for r in sorted(comp)))


def sccs(graph):
    index, low, stack, on, count, out = {}, {}, [], set(), [0], []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = count[0]
        count[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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
            out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


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
    for comp in sccs(graph):
        if len(comp) > 1:
            bad.append("circle: %s call each other" % " <-> ".join(sorted(comp)))
    edges = set()
    for o, callees in graph.items():
        ra = obj_room(o, as_path)
        for c in callees:
            rb = obj_room(c, as_path)
            if ra and rb and ra != rb:
                edges.add((ra, rb))
    return edges


def obj_room(o, as_path):
    rel = as_path.get(o) or (o.split("build/rel/", 1)[1] if "build/rel/" in o else None)
    if rel is None:
        return None
    return room_of(rel) or (GEN if rel.startswith(GEN + "/") else None)


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
    edges = set()
    for path, f in sources() + gen_sources() + extra_src:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if path.startswith(GEN + "/"):
            edges |= {(GEN, t) for t in includes(path, strip_comments(text)) if t != GEN}
            continue
        edges |= {(room_of(path), t) for t in check_source(path, text, hosts, bad)}
    long_files([(p, f) for p, f in extra_src if p.endswith(".c")], bad)
    edges |= circles(objs, as_path, bad)
    room_circles(edges, bad)
    for b in bad:
        print("check-layers: " + b)
    if bad:
        return 1
    print("check-layers: %d rooms, dependencies one way, no circle among %d objects or the rooms,"
          " every file within %d lines" % (len(ROOMS), len(objs), MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
