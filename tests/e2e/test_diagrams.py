"""The diagrams of docs/diagrams/ can be read on a page, and say what the
code does.

Each diagram is rendered from its committed .dot with Graphviz, as `make
docs` does.  A page shows a picture at its natural size (1 pt = 4/3 CSS px)
or, when wider, scaled down to the page width, PAGE_PX.  At that size the
smallest text must be at least READABLE_PX high, and the picture at most
TALLEST_PX tall.  The bound itself is tried on synthetic SVGs at the limit
and one past it.

Beside the sizes: the protocol sequence draws a `next` arrow only where the
reply's `next` offers something (after Summarize ends the Run it is
`none`) and names no row ids; the layers diagram draws no pair of folders
that include each other; the ownership diagram draws a managed file's
states and names the ownership files."""

import os
import re
import shutil
import subprocess

from slipway_e2e import ROOT, main, skip_test

PAGE_PX = 800          # the width a page gives a picture, in CSS px
READABLE_PX = 9.0      # the smallest text a reader is asked to read
TALLEST_PX = 1200      # one and a half page widths
PX_PER_PT = 96.0 / 72.0
DIAGRAMS = os.path.join(ROOT, "docs", "diagrams")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def names():
    return sorted(n[:-4] for n in os.listdir(DIAGRAMS) if n.endswith(".dot"))


def measure(svg):
    """(smallest text in px, height in px) of `svg` shown on a page."""
    m = re.search(r'<svg width="([0-9.]+)pt" height="([0-9.]+)pt"', svg)
    assert m, "no width and height in pt"
    width, height = float(m.group(1)), float(m.group(2))
    scales = re.findall(r'transform="scale\(([0-9.]+) ([0-9.]+)\)', svg)
    user = min([float(a) for a, b in scales] + [1.0])
    shown = min(PX_PER_PT, PAGE_PX / width)   # px per pt on the page
    fonts = [float(f) for f in re.findall(r'font-size="([0-9.]+)"', svg)]
    assert fonts, "no text"
    return min(fonts) * user * shown, height * shown


def problems(svg):
    """What makes `svg` unreadable on a page: [] when nothing does."""
    smallest, tall = measure(svg)
    out = []
    if smallest < READABLE_PX:
        out.append("text %.2f px high at page width (at least %.0f px)" % (smallest, READABLE_PX))
    if tall > TALLEST_PX:
        out.append("%.0f px tall at page width (at most %d px)" % (tall, TALLEST_PX))
    return out


def synthetic(width_pt, height_pt, font):
    return ('<svg width="%spt" height="%spt" viewBox="0.00 0.00 %s %s">\n'
            '<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(4 4)">\n'
            '<text font-family="Helvetica,sans-Serif" font-size="%s">x</text>\n</g>\n</svg>\n'
            % (width_pt, height_pt, width_pt, height_pt, font))


def test_the_bound_holds_at_the_limit_and_fails_one_past():
    # Wider than the page: 9 pt text on 800 pt is scaled to 9 px.
    assert problems(synthetic(800, 300, "9.00")) == []
    assert problems(synthetic(801, 300, "9.00")) != []
    # Narrower: shown at natural size, 6.75 pt is 9 px.
    assert problems(synthetic(300, 300, "6.75")) == []
    assert problems(synthetic(300, 300, "6.74")) != []
    # Height: 900 pt at natural size is 1200 px.
    assert problems(synthetic(500, 900, "10.00")) == []
    assert problems(synthetic(500, 901, "10.00")) != []
    # The smallest text counts, however much larger text there is.
    two = synthetic(500, 300, "14.00").replace("</g>", '<text font-size="6.00">y</text>\n</g>')
    assert problems(two) != []


def test_every_diagram_fits_a_page_at_a_readable_size():
    if shutil.which("dot") is None:
        skip_test("Graphviz (dot) is missing; run make deps")
    found = names()
    assert len(found) >= 6, found
    bad = {}
    for name in found:
        svg = subprocess.run(["dot", "-Tsvg", os.path.join(DIAGRAMS, name + ".dot")],
                             capture_output=True, text=True, check=True).stdout
        committed = read(os.path.join(DIAGRAMS, name + ".svg"))
        for what, text in (("rendered", svg), ("committed", committed)):
            if problems(text):
                bad["%s (%s)" % (name, what)] = problems(text)
    assert not bad, bad


def labels(dot):
    """node id -> label of the plain double-quoted labels of `dot`."""
    return dict(re.findall(r'^\t(\w+) \[label="((?:[^"\\]|\\.)*)"', dot, re.M))


def test_protocol_sequence_offers_next_only_where_next_offers_something():
    dot = read(os.path.join(DIAGRAMS, "protocol-sequence.dot"))
    nodes = labels(dot)
    nexts = re.findall(r'^\ts(\d+) -> h(\d+) \[label="next: ([a-z]+)"', dot, re.M)
    ended = [int(n[1:]) for n, text in nodes.items()
             if n.startswith("s") and text.endswith("\\nnext: none")]
    assert ended, "no step leaves next none"
    assert nexts, "no next arrow"
    for src, dst, op in nexts:
        assert int(dst) == int(src) + 1 and op != "none", (src, dst, op)
        assert int(src) not in ended, "a next arrow leaves a step whose next is none: s%s" % src
    steps = sorted(int(n[1:]) for n in nodes if re.fullmatch(r"h\d+", n))
    after = [s for s in steps if s - 1 in ended]
    assert after and all("not offered" in nodes["h%d" % s] for s in after), after
    assert not re.search(r"\brow \d+", dot), "a row id the page does not explain"
    assert "queue" not in dot


def test_layers_draw_no_folders_that_include_each_other():
    dot = read(os.path.join(DIAGRAMS, "layers.dot"))
    edges = set(re.findall(r'^\t"([^"]+)" -> "([^"]+)"', dot, re.M))
    assert ("fsm", "tables") in edges
    both = sorted((a, b) for a, b in edges if (b, a) in edges)
    assert not both, both
    assert 'color="#b03030"' not in dot, "a pair drawn as a circle"


def test_ownership_draws_the_life_of_a_managed_file():
    dot = read(os.path.join(DIAGRAMS, "adapter-ownership.dot"))
    for state in ("pristine", "modified", "missing", "not claimed"):
        assert state in dot, state
    for name in ("ownership-manifest.json", ".adapter-generated", "created-folders.json"):
        assert name in dot, name
    for command in ("install", "install --refresh", "uninstall"):
        assert re.search(r'-> \w+ \[label="[^"]*\b%s\b' % re.escape(command), dot), command


if __name__ == "__main__":
    main([test_the_bound_holds_at_the_limit_and_fails_one_past,
          test_every_diagram_fits_a_page_at_a_readable_size,
          test_protocol_sequence_offers_next_only_where_next_offers_something,
          test_layers_draw_no_folders_that_include_each_other,
          test_ownership_draws_the_life_of_a_managed_file])
