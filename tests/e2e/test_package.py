"""The package around the binary: `make deps X` installs before X reads
pkg-config (also under -j), a clear message when the libraries are
missing, user flags honoured, -Werror only in developer mode, --version
from git describe (reproducible under SOURCE_DATE_EPOCH), and install /
uninstall under DESTDIR with the Debian locations; every relative link of
the Markdown resolves both in the repository and in the installed
documentation, and slipway(1) names the installed places under PREFIX."""

import os
import re
import shutil
import subprocess
import tempfile

from slipway_e2e import ROOT, main

ENV = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def make(*args, env=None):
    return subprocess.run(["make", "--no-print-directory", "-C", ROOT] + list(args),
                          capture_output=True, text=True, env=env or ENV, timeout=600)


def fake_machine():
    """A PATH on which the packages look missing: dpkg-query knows nothing,
    apt-get 'installs' by creating a marker, and pkg-config fails until the
    marker exists (then asks the real one)."""
    d = tempfile.mkdtemp(prefix="slipway-fake-debian-")
    marker = os.path.join(d, "installed")
    real = shutil.which("pkg-config")
    scripts = {
        "dpkg-query": "#!/bin/sh\nexit 1\n",
        "apt-get": "#!/bin/sh\n[ \"$1\" = install ] && touch %s\nexit 0\n" % marker,
        "pkg-config": "#!/bin/sh\n[ -e %s ] || exit 1\nexec %s \"$@\"\n" % (marker, real),
    }
    for name, text in scripts.items():
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    env = dict(ENV, PATH=d + ":" + ENV["PATH"])
    return env, marker


def test_missing_libraries_give_a_clear_message():
    env, _ = fake_machine()
    res = make("pkg-flags", "SUDO=", env=env)
    assert res.returncode != 0
    assert "run 'make deps' first" in res.stdout + res.stderr, res.stdout + res.stderr


def test_deps_then_build_reads_pkg_config_after_installing():
    for jobs in ([], ["-j2"]):
        env, marker = fake_machine()
        res = make(*jobs, "deps", "pkg-flags", "SUDO=", env=env)
        out = res.stdout + res.stderr
        assert res.returncode == 0, out
        assert os.path.exists(marker)
        assert out.index("installing:") < out.index("PKG_LIBS="), out
        assert "-ljansson" in out and "-lgit2" in out, out


def compile_line(*flags):
    res = make("-B", "-n", "V=1", "build/rel/io/util/err.o", *flags)
    assert res.returncode == 0, res.stderr
    return [line for line in res.stdout.splitlines() if "io/util/err.c" in line][0]


def test_user_flags_are_honoured_and_werror_is_for_developers():
    line = compile_line("CFLAGS=-O1 -fstack-clash-protection", "CPPFLAGS=-D_FORTIFY_SOURCE=2")
    assert "-O1 -fstack-clash-protection" in line and "-D_FORTIFY_SOURCE=2" in line, line
    assert "-Werror" not in line, line
    assert "-Werror" in compile_line("DEVELOPER=1")
    res = make("-B", "-n", "V=1", "build/slipway", "LDFLAGS=-Wl,-z,relro")
    assert any("-Wl,-z,relro" in ln and "-o build/slipway" in ln for ln in res.stdout.splitlines()), res.stdout


def test_version_is_reproducible_under_source_date_epoch():
    def version_h():
        res = subprocess.run(["sh", os.path.join(ROOT, "mk/version.sh"), "/nonexistent"],
                             capture_output=True, text=True, env=dict(ENV, SOURCE_DATE_EPOCH="1767225600"))
        assert res.returncode == 0, res.stderr
        return res.stdout
    a, b = version_h(), version_h()
    assert a == b
    assert '#define SLIPWAY_DATE "2026-01-01T00:00:00Z"' in a, a
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    assert commit and commit in a, a


def test_version_flag_names_the_commit_and_date():
    bin_ = os.environ.get("SLIPWAY_BIN", os.path.join(ROOT, "build/slipway"))
    out = subprocess.run([bin_, "--version"], capture_output=True, text=True).stdout
    assert "unknown" not in out, out
    assert "commit: " in out and "built:  20" in out, out


def test_install_and_uninstall_honour_destdir_and_prefix():
    dest = tempfile.mkdtemp(prefix="slipway-destdir-")
    res = make("install", "DESTDIR=" + dest, "PREFIX=/usr")
    assert res.returncode == 0, res.stdout + res.stderr
    want = ["usr/bin/slipway", "usr/share/doc/slipway/LICENSE", "usr/share/doc/slipway/README.md",
            "usr/share/doc/slipway/en/index.md", "usr/share/doc/slipway/en/guides/first-run.md",
            "usr/share/slipway/schemas/machine-protocol.schema.json",
            "usr/share/slipway/schemas/source-envelope.schema.json",
            "usr/share/man/man1/slipway.1", "usr/share/man/man1/slipway-protocol.1",
            "usr/share/man/man1/slipway-mcp.1",
            "usr/share/doc/slipway/en/reference/commands.md",
            "usr/share/doc/slipway/zh/reference/error-codes.md",
            "usr/share/doc/slipway/ja/reference/protocol.md",
            "usr/share/doc/slipway/diagrams/run-states.svg",
            "usr/share/bash-completion/completions/slipway",
            "usr/share/zsh/vendor-completions/_slipway",
            "usr/share/fish/vendor_completions.d/slipway.fish"]
    for path in want:
        assert os.path.isfile(os.path.join(dest, path)), path
    assert os.access(os.path.join(dest, "usr/bin/slipway"), os.X_OK)
    # The envelope reference sends a host to the error-code page by its
    # path from the binary's folder: it is there after an install.
    with open(os.path.join(ROOT, "build/gen/capabilities/source-envelope.md"), encoding="utf-8") as f:
        named = re.search(r'`\$\(dirname "\$\(command -v slipway\)"\)/([^`]+)`', f.read()).group(1)
    assert os.path.isfile(os.path.normpath(os.path.join(dest, "usr/bin", named))), named
    res = make("uninstall", "DESTDIR=" + dest, "PREFIX=/usr")
    assert res.returncode == 0, res.stdout + res.stderr
    left = [os.path.join(d, f) for d, _, files in os.walk(dest) for f in files]
    assert not left, left
    res = make("install", "DESTDIR=" + dest, "BINDIR=/opt/sw/bin", "MANDIR=/opt/sw/man")
    assert res.returncode == 0, res.stdout + res.stderr
    assert os.path.isfile(os.path.join(dest, "opt/sw/bin/slipway"))
    assert os.path.isfile(os.path.join(dest, "opt/sw/man/man1/slipway-run.1"))
    shutil.rmtree(dest)


def link_targets(text):
    """The relative link and image targets of a Markdown text (CommonMark
    with tables, as markdown-it reads it), without their #anchors."""
    from markdown_it import MarkdownIt
    out = []

    def walk(tokens):
        for t in tokens:
            if t.type == "link_open":
                out.append(t.attrGet("href"))
            elif t.type == "image":
                out.append(t.attrGet("src"))
            elif t.type in ("html_inline", "html_block"):
                out.extend(re.findall(r'<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"', t.content))
            if t.children:
                walk(t.children)
    walk(MarkdownIt("commonmark").enable("table").parse(text))
    return [t.split("#", 1)[0] for t in out
            if t and not t.startswith("#") and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t)]


def broken_links(top, skip=()):
    """'page -> target' for every relative link under `top` that names no file."""
    bad = []
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if os.path.relpath(os.path.join(d, x), top) not in skip]
        for f in sorted(files):
            if f.endswith(".md"):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    for t in link_targets(fh.read()):
                        if not os.path.exists(os.path.normpath(os.path.join(d, t))):
                            bad.append("%s -> %s" % (os.path.relpath(os.path.join(d, f), top), t))
    return bad


def test_links_resolve_in_the_repository_and_the_installed_tree():
    prefix = tempfile.mkdtemp(prefix="slipway-prefix-")
    try:
        res = make("install", "PREFIX=" + prefix)
        assert res.returncode == 0, res.stdout + res.stderr
        docdir = os.path.join(prefix, "share", "doc", "slipway")
        pages = [os.path.relpath(os.path.join(d, f), docdir)
                 for d, _, files in os.walk(docdir) for f in files if f.endswith(".md")]
        assert "README.md" in pages and "en/index.md" in pages and len(pages) > 40, pages
        with open(os.path.join(docdir, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        assert "en/index.md" in link_targets(readme) and "mk/gen" not in readme, readme
        assert broken_links(docdir) == []
        assert broken_links(ROOT, skip=("build", ".git", "tests", "dist")) == []
        # slipway(1) names where this install put the schemas and the docs.
        with open(os.path.join(prefix, "share", "man", "man1", "slipway.1"), encoding="utf-8") as f:
            page = f.read().replace("\\-", "-")
        files = page.split(".SH FILES", 1)[1].split(".SH ", 1)[0]
        assert os.path.join(prefix, "share", "doc", "slipway") + "/" in files, files
        assert os.path.join(prefix, "share", "slipway", "schemas") + "/" in files, files
        assert "/usr/share" not in files, files
    finally:
        make("uninstall", "PREFIX=" + prefix)
        shutil.rmtree(prefix, ignore_errors=True)
        make("man")


def test_self_a_link_missing_from_one_tree_is_found():
    d = tempfile.mkdtemp(prefix="slipway-links-")
    try:
        os.makedirs(os.path.join(d, "en"))
        with open(os.path.join(d, "en", "a.md"), "w") as f:
            f.write("[b](b.md#x) [spec](../../spec/s.md) `[no](c.md)` ![d](../diagrams/d.svg) [w](https://x.org)\n")
        with open(os.path.join(d, "en", "b.md"), "w") as f:
            f.write("| a | [c](c.md) |\n| --- | --- |\n")
        assert broken_links(d) == ["en/a.md -> ../../spec/s.md", "en/a.md -> ../diagrams/d.svg",
                                   "en/b.md -> c.md"], broken_links(d)
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    main([test_missing_libraries_give_a_clear_message,
          test_deps_then_build_reads_pkg_config_after_installing,
          test_user_flags_are_honoured_and_werror_is_for_developers,
          test_version_is_reproducible_under_source_date_epoch,
          test_version_flag_names_the_commit_and_date,
          test_install_and_uninstall_honour_destdir_and_prefix,
          test_self_a_link_missing_from_one_tree_is_found,
          test_links_resolve_in_the_repository_and_the_installed_tree])
