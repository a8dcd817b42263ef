"""The build's guard of the Run record codec: `make check-record` passes on
the tree and fails when code outside io/ reaches into the record's encoding
(io/run_codec.h) -- a call in another file, a call in a function of
service/svc.c its allow-list does not name, an object that references a
codec symbol, an include of the codec header -- and when the allow-list
names a function that is gone."""

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
    syms, allow = res.stdout.splitlines()
    return syms, allow


def check(srcs, objs="", allow=None):
    syms, real_allow = config()
    return subprocess.run(["sh", SCRIPT, syms, real_allow if allow is None else allow, objs,
                           " ".join(srcs)], capture_output=True, text=True, cwd=ROOT)


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


def test_a_call_in_another_file_fails():
    d = tempfile.mkdtemp()
    stray = copy_with("service/status.c", "\tif (req->section_given && req->run_id == NULL)",
                      "\tif (req->run_id && run_json(NULL))\n\t\treturn 1;\n"
                      "\tif (req->section_given && req->run_id == NULL)", d)
    res = check([stray])
    shutil.rmtree(d)
    assert res.returncode != 0, res.stdout
    assert "uses run_json" in res.stdout, res.stdout


def test_a_call_outside_the_allow_listed_functions_fails():
    d = tempfile.mkdtemp()
    stray = copy_with("service/svc.c", "\tfill.run_id = run_id(r);",
                      "\tfill.run_id = json_string_value(json_object_get(run_identity(r), \"id\"));", d)
    syms, allow = config()
    # The same allow-list, for the copy: svc_run_next is not on it.
    allow = " ".join(a.replace("service/svc.c", stray) for a in allow.split())
    res = check([stray], allow=allow)
    shutil.rmtree(d)
    assert res.returncode != 0, res.stdout
    assert "svc_run_next uses run_identity" in res.stdout, res.stdout


def test_the_allow_listed_copy_passes_and_a_stale_entry_fails():
    d = tempfile.mkdtemp()
    plain = os.path.join(d, "svc.c")
    shutil.copy(os.path.join(ROOT, "service/svc.c"), plain)
    syms, allow = config()
    allow = " ".join(a.replace("service/svc.c", plain) for a in allow.split())
    ok = check([plain], allow=allow)
    stale = check([plain], allow=allow + " " + plain + ":no_such_function")
    shutil.rmtree(d)
    assert ok.returncode == 0, ok.stdout
    assert stale.returncode != 0 and "no_such_function does not exist" in stale.stdout, stale.stdout


def test_an_object_that_references_a_codec_symbol_fails():
    d = tempfile.mkdtemp()
    src = os.path.join(d, "stray.c")
    obj = os.path.join(d, "stray.o")
    with open(src, "w") as f:
        # No codec name in the text the source check reads: only nm sees it.
        f.write("#define CODEC(x) run_##x\nstruct run;\nconst void *CODEC(identity)(const struct run *);\n"
                "const void *stray(const struct run *r);\n"
                "const void *stray(const struct run *r) { return CODEC(identity)(r); }\n")
    res = subprocess.run(["cc", "-c", "-o", obj, src], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    res = check([], objs=obj)
    shutil.rmtree(d)
    assert res.returncode != 0 and "calls run_identity" in res.stdout, res.stdout


def test_including_the_codec_header_fails():
    d = tempfile.mkdtemp()
    stray = copy_with("cli/cmd_status.c", '#include "io/run_record.h"\n',
                      '#include "io/run_record.h"\n#include "io/run_codec.h"\n', d)
    res = check([stray])
    shutil.rmtree(d)
    assert res.returncode != 0 and "includes io/run_codec.h" in res.stdout, res.stdout


if __name__ == "__main__":
    main([test_the_tree_passes,
          test_a_call_in_another_file_fails,
          test_a_call_outside_the_allow_listed_functions_fails,
          test_the_allow_listed_copy_passes_and_a_stale_entry_fails,
          test_an_object_that_references_a_codec_symbol_fails,
          test_including_the_codec_header_fails])
