"""The build's guard of the layout: `make check-layers` passes on the tree
and fails, naming the offence, on a stray include (a front end reaching
the store, Git or the report, Git or an adapter reaching the store, the
store reaching the report), on two objects
that call each other, on a run-directory file name outside io/store/, on
a host id compared in a condition, on a .c file over 1,500 lines anywhere
(1,000 in service/ and cli/), on a file of fsm/, io/, service/, cli/ or
mcp/ without its leading comment, and on a circle of rooms (tables/
reaching fsm/ back)."""

import os
import shutil
import subprocess
import tempfile

from slipway_e2e import main

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "../.."))
SCRIPT = os.path.join(ROOT, "mk/check_layers.py")


def make_check(extra):
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT, "check-layers",
                           "LAYERS_EXTRA=" + extra], capture_output=True, text=True)


def check_as(as_path, text):
    """check-layers with `text` read as if it were the file `as_path`."""
    d = tempfile.mkdtemp()
    try:
        f = os.path.join(d, "stray.c")
        with open(f, "w") as fh:
            fh.write(text)
        return make_check("--extra-src %s=%s" % (as_path, f))
    finally:
        shutil.rmtree(d)


def stray(as_path, text, offence):
    """check-layers fails when `text` is read as the file `as_path`, and
    names `offence`."""
    res = check_as(as_path, text)
    assert res.returncode != 0, res.stdout
    assert offence in res.stdout, res.stdout


def test_the_tree_passes():
    res = make_check("")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "dependencies one way" in res.stdout, res.stdout


def test_a_front_end_including_the_store_fails():
    stray("cli/stray.c", '/* x */\n#include "io/store/store.h"\n',
          "cli/stray.c:2: cli/ includes io/store/store.h (cli/ may not reach io/store/)")
    stray("mcp/stray.c", '/* x */\n#include "io/git/vcs.h"\n',
          "mcp/ may not reach io/git/")


def test_git_source_or_adapters_including_the_store_fails():
    for room in ("io/git", "io/source", "io/adapters"):
        stray(room + "/stray.c", '#include "io/store/run.h"\n',
              "%s/ may not reach io/store/" % room)


def test_the_store_or_a_front_end_including_the_report_fails():
    stray("io/store/stray.c", '#include "io/report/report.h"\n',
          "io/store/stray.c:1: io/store/ includes io/report/report.h (io/store/ may not reach io/report/)")
    for room in ("cli", "mcp"):
        stray(room + "/stray.c", '/* x */\n#include "io/report/report.h"\n',
              "%s/ may not reach io/report/" % room)


def test_the_pure_core_reaching_io_fails():
    stray("fsm/stray.c", '#include "io/util/err.h"\n', "fsm/ may not reach io/util/")


def test_an_include_in_a_comment_is_no_offence():
    passes("cli/ok.c", '/* was:\n#include "io/store/store.h"\n */\n')


def test_two_objects_that_call_each_other_fail():
    d = tempfile.mkdtemp()
    try:
        objs = []
        for me, other in (("a", "b"), ("b", "a")):
            src = os.path.join(d, me + ".c")
            with open(src, "w") as fh:
                fh.write("int layers_%s(int n);\nint layers_%s(int n)\n"
                         "{ return n ? layers_%s(n - 1) : 0; }\n" % (other, me, other))
            obj = os.path.join(d, me + ".o")
            subprocess.run(["cc", "-c", "-o", obj, src], check=True)
            objs.append(obj)
        res = make_check(" ".join("--extra-obj " + o for o in objs))
    finally:
        shutil.rmtree(d)
    assert res.returncode != 0, res.stdout
    assert "circle:" in res.stdout and "a.o" in res.stdout and "b.o" in res.stdout, res.stdout


def test_a_symbol_without_its_rooms_prefix_fails():
    d = tempfile.mkdtemp()
    try:
        src = os.path.join(d, "stray.c")
        with open(src, "w") as fh:
            fh.write("int observe_helper(void);\nint observe_helper(void) { return 1; }\n")
        obj = os.path.join(d, "stray.o")
        subprocess.run(["cc", "-c", "-o", obj, src], check=True)
        res = make_check("--extra-obj %s=io/git/stray.c" % obj)
    finally:
        shutil.rmtree(d)
    assert res.returncode != 0, res.stdout
    assert "io/git/stray.c exports observe_helper without a prefix of io/git/" in res.stdout, \
        res.stdout


def test_a_run_directory_name_outside_the_store_fails():
    stray("service/stray.c", '/* x */\nstatic const char *p = "run.json";\n',
          'service/stray.c:2: names the run directory\'s "run.json" outside io/store/')
    stray("io/adapters/stray.c", 'static const char *p = "runs/x/journal.jsonl";\n',
          "outside io/store/")


def test_a_host_id_in_a_condition_fails():
    stray("io/adapters/stray.c", 'int f(const char *id) { if (strcmp(id, "codex") == 0) return 1; return 0; }\n',
          'compares the host id "codex" in a condition')


def test_a_long_service_file_or_one_without_its_comment_fails():
    stray("service/stray.c", "/* x */\n" + "int x;\n" * 1000,
          "service/stray.c: 1001 lines (at most 1000 in service/)")
    stray("service/stray.c", "int x;\n",
          "service/stray.c: the first line does not open the comment")


def passes(as_path, text):
    res = check_as(as_path, text)
    assert res.returncode == 0, res.stdout


def test_a_file_over_1500_lines_anywhere_fails():
    passes("io/git/stray.c", "/* x */\n" + "int x;\n" * 1499)
    stray("io/git/stray.c", "/* x */\n" + "int x;\n" * 1500,
          "io/git/stray.c: 1501 lines (at most 1500 in any .c file)")
    stray("tests/io/test_stray.c", "/* x */\n" + "int x;\n" * 1500,
          "tests/io/test_stray.c: 1501 lines")


def test_a_file_without_its_leading_comment_fails():
    for path in ("io/store/stray.c", "fsm/stray.c", "mcp/stray.c"):
        stray(path, "int x;\n",
              "%s: the first line does not open the comment that says what the file owns" % path)
    stray("io/util/stray.h", "#ifndef X\n#define X\nint x;\n#endif\n",
          "io/util/stray.h: the first line does not open the comment")
    passes("io/util/stray.h", "#ifndef X\n#define X\n\n/* x */\nint x;\n#endif\n")


def test_tables_reaching_fsm_is_a_circle_of_rooms():
    stray("tables/stray.c", '/* x */\n#include "fsm/fsm.h"\n',
          "circle of rooms: fsm/ <-> tables/ reach each other")
    stray("tables/stray.c", '/* x */\n#include "fsm/fsm.h"\n', "tables/ may not reach fsm/")


if __name__ == "__main__":
    main([test_the_tree_passes,
          test_a_front_end_including_the_store_fails,
          test_git_source_or_adapters_including_the_store_fails,
          test_the_store_or_a_front_end_including_the_report_fails,
          test_the_pure_core_reaching_io_fails,
          test_an_include_in_a_comment_is_no_offence,
          test_two_objects_that_call_each_other_fail,
          test_a_symbol_without_its_rooms_prefix_fails,
          test_a_run_directory_name_outside_the_store_fails,
          test_a_host_id_in_a_condition_fails,
          test_a_long_service_file_or_one_without_its_comment_fails,
          test_a_file_over_1500_lines_anywhere_fails,
          test_a_file_without_its_leading_comment_fails,
          test_tables_reaching_fsm_is_a_circle_of_rooms])
