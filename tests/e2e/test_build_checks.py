"""The build's own guards: the purity link check of fsm/ and tables/ fails on
a stray libc call, swapped enum columns (or swapped need and deny fact sets)
in a rule row do not compile, an effect without its handler does not compile,
and a
capability text with an unknown contract marker does not build."""

import os
import subprocess
import tempfile

from slipway_e2e import main

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


def test_swapped_rule_columns_do_not_compile():
    d = tempfile.mkdtemp()
    good = ('#include "fsm/fsm.h"\nconst struct fsm_rule r = { 900, 0, FSM_EV_STOP, FSM_NEED(FSM_F(CONFIRM)), '
            'FSM_DENY(FSM_F(BUDGET)), FSM_APPLY, TBL_ERR_NONE, FSM_ST_STOPPED, FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, 0, "x" };\n')
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
                         ["-fsyntax-only", os.path.join(ROOT, "io", "run.c")],
                         capture_output=True, text=True)
    assert res.returncode != 0 and "effect_UNHANDLED" in res.stderr, res.stderr[-2000:]
    res = subprocess.run(["cc"] + CFLAGS[:-2] + ["-I", ROOT] + pkg +
                         ["-fsyntax-only", os.path.join(ROOT, "io", "run.c")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]


def test_the_spec_event_table_is_events_def():
    import re
    with open(os.path.join(ROOT, "tables", "events.def"), encoding="utf-8") as f:
        rows = re.findall(r'^EVENT\(\w+,\s*"([^"]*)",\s*(\w+),\s*(NULL|"[^"]*")\)', f.read(), re.M)
    with open(os.path.join(ROOT, "tables", "journal_events.def"), encoding="utf-8") as f:
        jwire = dict(re.findall(r'^JEVENT\((\w+),\s*"([^"]*)"\)', f.read(), re.M))
    want = [(name, jwire[jtype], op.strip('"') if op != "NULL" else "")
            for name, jtype, op in rows if name]
    with open(os.path.join(ROOT, "spec", "run-state-machine.md"), encoding="utf-8") as f:
        spec = f.read()
    table = spec[spec.index("## Events"):]
    got = [(m[0], m[1], m[2]) for m in
           re.findall(r'^\| ([a-z-]+) \| [^|]+ \| `([a-z_]+)` \|\s*`?([a-z_]*)`?\s*\|$', table, re.M)]
    assert got == want, (got, want)


def gendocs_capability(text):
    res = subprocess.run(["make", "-s", "-C", ROOT, "build/gendocs"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    d = tempfile.mkdtemp()
    path = os.path.join(d, "cap.md")
    with open(path, "w") as f:
        f.write(text)
    return subprocess.run([os.path.join(ROOT, "build/gendocs"), "capability", path],
                          capture_output=True, text=True)


def test_capability_markers_expand_and_unknown_ones_fail_the_build():
    res = gendocs_capability("intro\n<!-- slipway:matrix review -->\n  <!-- slipway:example review-clean -->\nend\n")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("intro\n") and res.stdout.endswith("end\n")
    assert "| `review` | `partial` |" in res.stdout and "| `implement` |" not in res.stdout
    assert "  ```json\n  {\n" in res.stdout, "an indented marker keeps its indentation"
    for bad in ("<!-- slipway:no-such-section -->\n", "<!-- slipway:example no-such-example -->\n",
                "<!-- slipway:matrix deploy -->\n"):
        res = gendocs_capability(bad)
        assert res.returncode != 0 and "gendocs capability" in res.stderr, (bad, res.stdout)


if __name__ == "__main__":
    main([test_purity_check_passes_on_the_tree,
          test_purity_check_fails_on_a_stray_puts,
          test_swapped_rule_columns_do_not_compile,
          test_an_effect_without_a_handler_does_not_compile,
          test_the_spec_event_table_is_events_def,
          test_capability_markers_expand_and_unknown_ones_fail_the_build])
