"""The build's own guards: the purity link check of fsm/ and tables/ fails on
a stray libc call, swapped enum columns in a rule row do not compile, and a
capability text with an unknown contract marker does not build."""

import os
import subprocess
import tempfile

from slipway_e2e import BIN, main

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
    good = ('#include "fsm/fsm.h"\nconst struct fsm_rule r = { 0, FSM_EV_STOP, 0, 0, FSM_APPLY, '
            'TBL_ERR_NONE, FSM_ST_STOPPED, FSM_ISSUE_NONE, FSM_KIND_NONE, FSM_BRIEF_NONE, 0, "x" };\n')
    swapped = good.replace("FSM_ST_STOPPED, FSM_ISSUE_NONE", "FSM_ISSUE_NONE, FSM_ST_STOPPED")
    assert compile_c(good, os.path.join(d, "good.o")).returncode == 0
    res = compile_c(swapped, os.path.join(d, "swapped.o"))
    assert res.returncode != 0 and "enum" in res.stderr, res.stderr


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


def test_binary_links_the_archives_without_tls_or_ssh():
    """With Debian's static archives, the binary needs no shared library but
    libc (and the sanitizer runtimes), and carries neither mbedTLS's CA
    parsing nor libssh2: io/vcs_notls.c stood in for the members that use
    them, so git_libgit2_init parses no CA bundle."""
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "libgit2"],
                            capture_output=True, text=True).stdout.strip()
    if not os.path.exists(os.path.join(libdir, "libgit2.a")):
        print("skipped: no libgit2.a, the binary links the shared libraries")
        return
    ldd = subprocess.run(["ldd", BIN], capture_output=True, text=True).stdout
    for lib in ("libgit2", "libjansson", "libcrypto", "libxxhash", "libmbed", "libssh2", "libpcre2"):
        assert lib not in ldd, lib + " is linked shared:\n" + ldd
    syms = subprocess.run(["nm", BIN], capture_output=True, text=True).stdout
    assert " T git_libgit2_init" in syms
    for sym in ("mbedtls_x509_crt_parse_file", "libssh2_session_init_ex", "gss_init_sec_context",
                "OPENSSL_init_crypto"):
        assert sym not in syms, sym + " is in the binary"


if __name__ == "__main__":
    main([test_purity_check_passes_on_the_tree,
          test_purity_check_fails_on_a_stray_puts,
          test_swapped_rule_columns_do_not_compile,
          test_capability_markers_expand_and_unknown_ones_fail_the_build,
          test_binary_links_the_archives_without_tls_or_ssh])
