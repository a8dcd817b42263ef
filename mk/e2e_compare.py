#!/usr/bin/env python3
"""Compare two captures of the end-to-end suite (mk/e2e-capture.mk).

usage: e2e_compare.py BEFORE_DIR AFTER_DIR

Each capture holds one <test file>.jsonl per end-to-end file: every slipway
process the file waited for, with its argv, stdin, stdout, stderr and exit
status (tests/support/capture/sitecustomize.py).  What differs between two
runs of the same program is renamed before the comparison, consistently
within a file and in order of first appearance: UUIDs, hex digests,
commit ids and their short forms, timestamps and long integers (clocks), temporary paths, process ids and durations.  The
same program therefore gives the same normalised stream, and a program whose
documents changed does not.  Records are compared in order; a file whose
records differ only in order (tests that start processes from threads) is
compared as a multiset and reported as such; one that differs only in
which clock and digest values repeat (two files written in the same clock
tick, say) is reported as such too.  Exits 1 when a file differs.
"""

import difflib
import json
import os
import re
import sys

PATTERNS = [
    ("U", re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")),
    ("T", re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?")),
    ("H", re.compile(r"(?<![0-9a-fA-F])(?:[0-9a-f]{64}|[0-9A-F]{64})(?![0-9a-fA-F])")),
    ("C", re.compile(r"(?<![0-9a-fA-F])[0-9a-f]{40}(?![0-9a-fA-F])")),
    ("X", re.compile(r"(?<![0-9a-fA-F])[0-9a-f]{16}(?![0-9a-fA-F])")),
    ("G", re.compile(r"(?<![0-9a-fA-F])[0-9a-f]{12}(?![0-9a-fA-F])")),
    ("S", re.compile(r"(?<![0-9a-fA-F-])[0-9a-f]{8}(?![0-9a-fA-F-])")),
    ("I", re.compile(r"(?<![0-9.])\d{10,}(?![0-9])")),
    ("P", re.compile(r"/tmp/[A-Za-z0-9_.+-]+")),
    # tempfile's random names, where they sit outside a /tmp path above
    ("R", re.compile(r"(?<=slipway-e2e-)[a-z0-9_]{8}|(?<=repo-)[a-z0-9_]{8}")),
    ("N", re.compile(r"(?<=slipway-bak-)\d+|(?<=slipway-tmp-)\d+|(?<=pid[ =])\d+|(?<=\"pid\":)\d+|(?<=_ms\":)\d+|(?<=\d\.\d)\d+")),
]


# Values whose equality pattern depends on timing (a clock, or a digest
# over an observation that holds one): the loose comparison names them all
# alike.
LOOSE = ("H", "I", "T")


class Renamer:
    def __init__(self, loose=False):
        self.seen = {}
        self.loose = loose

    def __call__(self, text):
        if text is None:
            return None
        for tag, rx in PATTERNS:
            def sub(m, tag=tag):
                if self.loose and tag in LOOSE:
                    return "<%s>" % tag
                key = (tag, m.group(0))
                if key not in self.seen:
                    self.seen[key] = "<%s%d>" % (tag, sum(1 for k in self.seen if k[0] == tag))
                return self.seen[key]
            text = rx.sub(sub, text)
        return text


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def tree_root(recs):
    """The tree the captured binary was built in: argv[0] is
    ROOT/build/<kind>/slipway."""
    for r in recs:
        parts = r["argv"][0].split("/")
        if len(parts) > 3 and parts[-3] == "build":
            return "/".join(parts[:-3])
    return None


def render(recs, loose=False):
    ren = Renamer(loose)
    root = tree_root(recs)
    out = []
    for r in recs:
        if root:
            r = {k: (v.replace(root, "<ROOT>") if isinstance(v, str) else
                     [a.replace(root, "<ROOT>") for a in v] if isinstance(v, list) else v)
                 for k, v in r.items()}
        out.append(json.dumps({k: (ren(v) if isinstance(v, str) else
                                   [ren(a) for a in v] if isinstance(v, list) else v)
                               for k, v in r.items()}, sort_keys=True))
    return out


def render_unordered(recs):
    # Each record on its own: names restart per record, so order cannot matter.
    return sorted(render([r])[0] for r in recs)


def main(a, b):
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    bad = 0
    total = 0
    for n in names:
        pa, pb = os.path.join(a, n), os.path.join(b, n)
        if not (os.path.exists(pa) and os.path.exists(pb)):
            print("%s: only in %s" % (n, a if os.path.exists(pa) else b))
            bad += 1
            continue
        ra, rb = load(pa), load(pb)
        total += len(ra)
        la, lb = render(ra), render(rb)
        if la == lb:
            print("%s: %d documents, identical" % (n, len(ra)))
            continue
        if render_unordered(ra) == render_unordered(rb):
            print("%s: %d documents, identical as a set (order differs)" % (n, len(ra)))
            continue
        if render(ra, True) == render(rb, True):
            print("%s: %d documents, identical but for which clock and digest values "
                  "repeat (timing)" % (n, len(ra)))
            continue
        bad += 1
        print("%s: DIFFERS (%d against %d records)" % (n, len(ra), len(rb)))
        for line in list(difflib.unified_diff(la, lb, a, b, lineterm="", n=0))[:12]:
            print("   " + line[:600])
    print("e2e-compare: %d files, %d documents before; %d differ" % (len(names), total, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
