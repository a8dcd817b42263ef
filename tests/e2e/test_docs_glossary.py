"""The Chinese and Japanese pages use their glossary's words.

docs/zh/glossary.tsv and docs/ja/glossary.tsv give, for each English term
that recurs in the documentation (journal, log, pinned, anchored, the
workspace identity, Action, Outcome, Run, ...), how that language's pages
say it and the renderings they must never use: the journal's word for any
other log, the pinned word for an anchored directory, a phrase that
weakens the English.  Every page of the language (templates and generated
pages included) is checked with its lines joined, so that a phrase wrapped
across two lines is found too; each rendering must still occur somewhere,
so that the glossary describes the pages of now.

Each check is a function of a docs folder, and the self-tests run it on a
copy with a wrong term put back and watch it fail."""

import os
import re
import shutil
import tempfile

from slipway_e2e import ROOT, main

DOCS = os.path.join(ROOT, "docs")
LANGS = ("zh", "ja")
TERMS = ("journal", "log", "pinned", "anchored", "workspace identity", "Action", "Outcome", "Run")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def glossary(docs, lang):
    """[(english, rendering, [never...], meaning)] of docs/LANG/glossary.tsv."""
    rows = []
    for n, line in enumerate(read(os.path.join(docs, lang, "glossary.tsv")).splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        assert len(cols) == 4 and all(c.strip() for c in cols), "%s/glossary.tsv:%d: %r" % (lang, n, line)
        never = [] if cols[2] == "-" else [w.strip() for w in cols[2].split(" | ")]
        assert all(never), "%s/glossary.tsv:%d: an empty rendering" % (lang, n)
        rows.append((cols[0], cols[1], never, cols[3]))
    return rows


def pages(docs, lang):
    """path -> text with its lines joined twice: without a space (as CJK
    text wraps) and with one (as a line ending beside a Latin word reads)."""
    out = {}
    base = os.path.join(docs, lang)
    for d, _, files in os.walk(base):
        for f in files:
            if f.endswith(".md") or f.endswith(".md.in"):
                p = os.path.join(d, f)
                text = read(p)
                out[os.path.relpath(p, docs)] = (re.sub(r"\n[ \t]*", "", text) + "\n" +
                                                 re.sub(r"\n[ \t]*", " ", text))
    return out


def check_glossary(docs):
    """What breaks the glossaries of `docs`: [] when nothing does."""
    out = []
    for lang in LANGS:
        rows = glossary(docs, lang)
        named = [r[0] for r in rows]
        out += ["%s/glossary.tsv lacks %r" % (lang, t) for t in TERMS if t not in named]
        out += ["%s/glossary.tsv names %r twice" % (lang, t) for t in set(named) if named.count(t) > 1]
        texts = pages(docs, lang)
        for english, rendering, never, _ in rows:
            if not any(rendering in t for t in texts.values()):
                out.append("%s: no page says %r (%s)" % (lang, rendering, english))
            for wrong in never:
                for path, text in sorted(texts.items()):
                    if wrong in text:
                        out.append("%s uses %r for %r; the glossary says %r" % (path, wrong, english, rendering))
    return out


def test_the_pages_follow_their_glossary():
    problems = check_glossary(DOCS)
    assert not problems, "\n".join(problems)


def broken_copy():
    d = tempfile.mkdtemp(prefix="slipway-glossary-")
    for lang in LANGS:
        shutil.copytree(os.path.join(DOCS, lang), os.path.join(d, lang))
    return d


def append(d, page, text):
    with open(os.path.join(d, page), "a", encoding="utf-8") as f:
        f.write(text)


def test_self_a_wrong_term_put_back_fails():
    d = broken_copy()
    try:
        assert check_glossary(d) == []
        # The journal's word for the report's Action log, wrapped across lines.
        append(d, "zh/guides/reading-a-report.md", "\nAction\n  日志列出每个 Action。\n")
        # The pinned word for an anchored directory.
        append(d, "ja/trust-boundary.md", "\nパスは固定されたディレクトリから開かれます。\n")
        # The weakened "never parses prose" and the ambiguous person.
        append(d, "ja/concepts.md", "\n読み解く必要もありません。本人に頼まれたとき。\n")
        got = check_glossary(d)
        assert "zh/guides/reading-a-report.md uses 'Action 日志' for 'log'; the glossary says '记录'" in got, got
        assert any(p.startswith("ja/trust-boundary.md uses '固定されたディレクトリ'") for p in got), got
        assert any(p.startswith("ja/concepts.md uses '読み解く必要もありません'") for p in got), got
        assert any(p.startswith("ja/concepts.md uses '本人'") for p in got), got
    finally:
        shutil.rmtree(d)


def test_self_a_stale_or_thin_glossary_fails():
    d = broken_copy()
    try:
        path = os.path.join(d, "zh", "glossary.tsv")
        text = read(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace("\n工作区身份\t", "\n").replace("锚定\t", "系留\t"))
        got = check_glossary(d)
        assert "zh: no page says '系留' (anchored)" in got, got
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(l for l in text.splitlines() if not l.startswith("journal\t")) + "\n")
        assert "zh/glossary.tsv lacks 'journal'" in check_glossary(d)
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    main([test_the_pages_follow_their_glossary,
          test_self_a_wrong_term_put_back_fails,
          test_self_a_stale_or_thin_glossary_fails])
