"""The build's guard of the Run record codec: `make check-record` passes on
the tree and fails when code outside io/ reaches into the record's encoding
(io/store/run_codec.h) -- a call in any service, cli or mcp source (the mutation
path of service/mutate.c included), an object that references a codec symbol,
an include of the codec header -- while a codec name in a comment or a
string is no use."""

import os
import shutil
import subprocess
import tempfile

from slipway_e2e import main

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "../.."))
SCRIPT = os.path.join(ROOT, "mk/check_record.sh")


def config():
    res = subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT, "check-record-config"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    syms, = res.stdout.splitlines()
    return syms


def check(srcs, objs=""):
    return subprocess.run(["sh", SCRIPT, config(), objs, " ".join(srcs)], capture_output=True,
                          text=True, cwd=ROOT)


def copy_with(path, old, new, d):
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    assert old in text, old
    out = os.path.join(d, os.path.basename(path))
    with open(out, "w") as f:
        f.write(text.replace(old, new, 1))
    return out


def test_the_tree_passes():
    res = subprocess.run(["make", "-s", "-C", ROOT, "check-record"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def expect_offence(path, old, new, offence):
    """The source check fails on a copy of `path` with `old` replaced by
    `new`, naming `offence`."""
    d = tempfile.mkdtemp()
    stray = copy_with(path, old, new, d)
    res = check([stray])
    shutil.rmtree(d)
    assert res.returncode != 0, res.stdout
    assert offence in res.stdout, res.stdout


def test_a_call_in_another_file_fails():
    expect_offence("service/status.c", "\tif (req->section_given && req->run_id == NULL)",
                   "\tif (req->run_id && run_json(NULL))\n\t\treturn 1;\n"
                   "\tif (req->section_given && req->run_id == NULL)", "uses run_json")


def test_a_call_in_the_mutation_path_fails():
    line = "\tgf.candidate_id = waiting ? waiting->candidate_id : candidate_id;"
    expect_offence("service/mutate.c", line,
                   line + "\n\tif (run_json(c->run) == NULL)\n\t\treturn SW_EINVAL;",
                   "mutate_cb uses run_json")


def test_a_call_in_a_reply_fails_and_names_its_function():
    expect_offence("service/failure.c", "\tfill.run_id = run_id(r);",
                   "\tfill.run_id = json_string_value(json_object_get(run_json(r), \"id\"));",
                   "svc_run_next uses run_json")


def test_a_codec_name_in_a_comment_or_string_is_no_use():
    d = tempfile.mkdtemp()
    plain = os.path.join(d, "failure.c")
    shutil.copy(os.path.join(ROOT, "service/failure.c"), plain)
    ok = check([plain])
    quoted = copy_with("service/failure.c", "\tfill.run_id = run_id(r);",
                       "\tfill.run_id = run_id(r);\t/* not run_json(r) */\n"
                       "\t(void)\"run_current_action\";", d)
    quoted_res = check([quoted])
    shutil.rmtree(d)
    assert ok.returncode == 0, ok.stdout
    assert quoted_res.returncode == 0, quoted_res.stdout


def test_an_object_that_references_a_codec_symbol_fails():
    d = tempfile.mkdtemp()
    src = os.path.join(d, "stray.c")
    obj = os.path.join(d, "stray.o")
    with open(src, "w") as f:
        # No codec name in the text the source check reads: only nm sees it.
        f.write("#define CODEC(x) run_##x\nstruct run;\nconst void *CODEC(json)(const struct run *);\n"
                "const void *stray(const struct run *r);\n"
                "const void *stray(const struct run *r) { return CODEC(json)(r); }\n")
    res = subprocess.run(["cc", "-c", "-o", obj, src], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    res = check([], objs=obj)
    shutil.rmtree(d)
    assert res.returncode != 0 and "calls run_json" in res.stdout, res.stdout


def test_including_the_codec_header_fails():
    d = tempfile.mkdtemp()
    stray = copy_with("service/report.c", '#include "io/store/run_record.h"\n',
                      '#include "io/store/run_record.h"\n#include "io/store/run_codec.h"\n', d)
    res = check([stray])
    shutil.rmtree(d)
    assert res.returncode != 0 and "includes io/store/run_codec.h" in res.stdout, res.stdout


if __name__ == "__main__":
    main([test_the_tree_passes,
          test_a_call_in_another_file_fails,
          test_a_call_in_the_mutation_path_fails,
          test_a_call_in_a_reply_fails_and_names_its_function,
          test_a_codec_name_in_a_comment_or_string_is_no_use,
          test_an_object_that_references_a_codec_symbol_fails,
          test_including_the_codec_header_fails])
