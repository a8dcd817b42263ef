"""The release artefacts of mk/release.mk (issue #33), checked where they
are built: the static binary needs no shared library and runs a whole Run,
install and an MCP session with an empty environment and inside a chroot
that holds nothing but itself, a repository and /tmp (no git, no
/etc/passwd entry for its user); the arm64 binary does the same under
qemu-user; the archives verify against checksums.txt, hold a prefix and
come out byte-identical from a second `make dist`; the SBOM names every
library linked in with its Debian version; the .deb and the .rpm hold the
same files, lintian and rpmlint report nothing, and the .deb installs with
apt-get and leaves nothing behind when purged.

Each check builds what it needs with make (nothing when it is current).
A check whose tool is missing (the cross toolchain, qemu, rpm, lintian,
rpmlint: `make deps-release`) or that needs root is skipped with its
reason, and counted."""

import glob
import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import tempfile

from slipway_e2e import ROOT, main, skip_test

ENV = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
STATIC = os.path.join(ROOT, "build/static/amd64/slipway")
STATIC_ARM64 = os.path.join(ROOT, "build/static/arm64/slipway")
DIST = os.path.join(ROOT, "dist")
QEMU = "qemu-aarch64-static"
_built = set()


def make(*targets):
    """Builds targets once per file; fails the test with make's output."""
    key = " ".join(targets)
    if key in _built:
        return
    res = subprocess.run(["make", "--no-print-directory", "-C", ROOT] + list(targets),
                         capture_output=True, text=True, env=ENV, timeout=1800)
    assert res.returncode == 0, "make %s:\n%s%s" % (key, res.stdout[-3000:], res.stderr[-3000:])
    _built.add(key)


def need_tools(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        skip_test("no %s (release tools: make deps-release)" % ", ".join(missing))


def need_root(what):
    if os.geteuid() != 0:
        skip_test("%s needs root" % what)


def arm64_ready():
    return shutil.which("aarch64-linux-gnu-gcc") is not None and \
        os.path.exists(os.path.join(ROOT, "build/sysroot/arm64/debs"))


def release_arches():
    """Both architectures when the arm64 toolchain and libraries are here."""
    return "amd64 arm64" if arm64_ready() else "amd64"


def static_amd64():
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "libgit2"],
                            capture_output=True, text=True).stdout.strip()
    if not os.path.exists(os.path.join(libdir, "libgit2.a")):
        skip_test("no %s/libgit2.a to link statically (make deps)" % libdir)
    make("static")
    return STATIC


def version_of(argv):
    return subprocess.run(argv + ["--version"], capture_output=True, text=True).stdout.split()[1]


# A whole Run, install/uninstall and an MCP session, driven by a command
# prefix (the binary, or qemu and the binary) in a repository; `spawn`
# runs one command and returns (exit status, stdout, stderr).

def outcome(action, kind, suggested="[]", implementation="null", review="null"):
    return ('{"contract_version":2,"action_id":"%s","action_kind":"%s","status":"completed",'
            '"summary":"%s done.","observations":[],"known_issues":[],"suggested_actions":%s,'
            '"pause":null,"implementation":%s,"review":%s}'
            % (action, kind, kind, suggested, implementation, review)).encode()


def drive_everything(spawn, write_file):
    """spawn(args, stdin) -> (code, out, err); write_file(name, text)
    changes a file of the repository, as the host would."""
    def ok(args, stdin=None):
        code, out, err = spawn(args, stdin)
        assert code == 0, "slipway %s: exit %d: %s %s" % (" ".join(args), code, out[-2000:], err[-2000:])
        return out

    doc = json.loads(ok(["run", "--json", "--", "Greet the world"]))
    run_id = doc["run_id"] if "run_id" in doc else doc["run"]["id"]
    action = doc["action"]["action_id"]
    assert doc["action"]["kind"] == "orient", doc
    doc = json.loads(ok(["protocol", "submit", "--run", run_id, "--action", action, "--outcome-stdin"],
                        outcome(action, "orient", '[{"kind":"implement","brief":"Add a greeting."}]')))
    action = doc["action"]["action_id"]
    assert doc["action"]["kind"] == "implement", doc
    write_file("hello.txt", "hello, world\n")
    impl = ('{"result":"applied","files_changed":["hello.txt"],"activities":[{"kind":"test",'
            '"command":"true","exit_code":0,"summary":"greeting present"}],"uncertainties":[],"attempts":1}')
    doc = json.loads(ok(["protocol", "submit", "--run", run_id, "--action", action, "--outcome-stdin"],
                        outcome(action, "implement", implementation=impl)))
    action = doc["action"]["action_id"]
    assert doc["action"]["kind"] == "review", doc
    review = '{"result":"no_findings_reported","findings":[],"uncertainties":[]}'
    doc = json.loads(ok(["protocol", "submit", "--run", run_id, "--action", action, "--outcome-stdin"],
                        outcome(action, "review", review=review)))
    action = doc["action"]["action_id"]
    assert doc["action"]["kind"] == "summarize", doc
    ok(["protocol", "submit", "--run", run_id, "--action", action, "--outcome-stdin"],
       outcome(action, "summarize"))
    report = ok(["status", run_id]).decode()
    assert "hello.txt" in report, report

    doc = json.loads(ok(["install", "--tool", "claude", "--json"]))
    assert doc, doc
    listed = json.loads(ok(["list", "--json"]))
    assert "claude" in json.dumps(listed), listed
    ok(["uninstall", "--tool", "claude", "--json"])

    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "test_release", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "status", "arguments": {"run_id": run_id}}}]
    out = ok(["mcp"], "".join(json.dumps(m) + "\n" for m in msgs).encode())
    replies = {r["id"]: r for r in map(json.loads, out.decode().splitlines()) if "id" in r}
    assert "result" in replies[1] and replies[2]["result"]["tools"], replies
    assert not replies[3]["result"].get("isError"), replies[3]
    return run_id


def make_repo(parent, owner=None):
    """A one-commit repository at parent/repo, made with the host's git."""
    repo = os.path.join(parent, "repo")
    os.makedirs(repo)
    for args in (["init", "-q"], ["config", "user.email", "t@example.com"], ["config", "user.name", "t"]):
        subprocess.run(["git", "-C", repo] + args, check=True)
    with open(os.path.join(repo, "hello.txt"), "w") as f:
        f.write("hello\n")
    subprocess.run(["git", "-C", repo, "add", "hello.txt"], check=True)
    subprocess.run(["git", "-C", repo, "commit", "-qm", "first"], check=True)
    if owner is not None:
        for d, dirs, files in os.walk(parent):
            for n in [d] + [os.path.join(d, x) for x in dirs + files]:
                os.lchown(n, owner, owner)
    return repo


def host_spawner(prefix, repo, env):
    def spawn(args, stdin):
        p = subprocess.run(prefix + args, input=stdin, capture_output=True, cwd=repo, env=env, timeout=120)
        return p.returncode, p.stdout, p.stderr
    return spawn


def file_writer(repo):
    def write(name, text):
        with open(os.path.join(repo, name), "w") as f:
            f.write(text)
    return write


def test_static_binary_needs_no_shared_library():
    binary = static_amd64()
    kind = subprocess.run(["file", "-b", binary], capture_output=True, text=True).stdout
    assert "static-pie linked" in kind, kind
    dyn = subprocess.run(["readelf", "-d", "-l", binary], capture_output=True, text=True).stdout
    assert "NEEDED" not in dyn and "INTERP" not in dyn, dyn
    ver = version_of([binary])
    built = subprocess.run(["sh", os.path.join(ROOT, "mk/version.sh"), "/nonexistent"],
                           capture_output=True, text=True).stdout
    assert '"%s"' % ver in built, (ver, built)


def test_static_binary_runs_everything_with_an_empty_environment():
    """env -i: no HOME, no PATH.  Under strace when it is there: no NSS
    (passwd, group, nsswitch.conf, libnss), no shared object, no TLS
    (certificates), no program started, no socket."""
    binary = static_amd64()
    d = tempfile.mkdtemp(prefix="slipway-envi-")
    repo = make_repo(d)
    prefix = [binary]
    trace = os.path.join(d, "trace")
    if shutil.which("strace"):
        prefix = ["strace", "-f", "-qq", "-o", trace, "-e", "trace=%file,execve,socket,connect", binary]
    drive_everything(host_spawner(prefix, repo, {}), file_writer(repo))
    if not shutil.which("strace"):
        skip_test("no strace: the Run passed with env -i, its system calls were not traced")
    text = "".join(open(f, encoding="utf-8", errors="replace").read()
                   for f in glob.glob(trace + "*"))
    for word in ("/etc/passwd", "/etc/group", "nsswitch.conf", "libnss", ".so", "/etc/ssl",
                 "/usr/lib/ssl", "certs", "socket(", "connect("):
        assert word not in text, "%s in the trace:\n%s" % (
            word, "\n".join(l for l in text.splitlines() if word in l)[:2000])
    execs = [l for l in text.splitlines() if "execve(" in l and binary not in l]
    assert not execs, execs
    shutil.rmtree(d)


def test_static_binary_runs_in_a_chroot_holding_nothing_else():
    """The chroot holds /slipway, /repo and /tmp: no git, no library, no
    /etc; the user (uid 4242) has no passwd entry anywhere."""
    need_root("chroot")
    binary = static_amd64()
    d = tempfile.mkdtemp(prefix="slipway-chroot-")
    os.chmod(d, 0o755)
    shutil.copy(binary, os.path.join(d, "slipway"))
    os.mkdir(os.path.join(d, "tmp"))
    os.chmod(os.path.join(d, "tmp"), 0o1777)
    repo = make_repo(d, owner=4242)
    assert sorted(os.listdir(d)) == ["repo", "slipway", "tmp"]

    def enter():
        os.chroot(d)
        os.chdir("/repo")
        os.setgid(4242)
        os.setuid(4242)

    def spawn(args, stdin):
        p = subprocess.run(["/slipway"] + args, input=stdin, capture_output=True, env={},
                           preexec_fn=enter, timeout=120)
        return p.returncode, p.stdout, p.stderr
    drive_everything(spawn, file_writer(repo))
    shutil.rmtree(d)


def test_arm64_binary_runs_everything_under_qemu():
    need_tools("aarch64-linux-gnu-gcc", QEMU)
    if not arm64_ready():
        skip_test("no arm64 libraries in build/sysroot/arm64 (make deps-release)")
    make("static-arm64")
    kind = subprocess.run(["file", "-b", STATIC_ARM64], capture_output=True, text=True).stdout
    assert "ARM aarch64" in kind and "static-pie linked" in kind, kind
    d = tempfile.mkdtemp(prefix="slipway-qemu-")
    repo = make_repo(d)
    drive_everything(host_spawner([QEMU, STATIC_ARM64], repo, {}), file_writer(repo))
    shutil.rmtree(d)


def dist_files():
    return sorted(f for f in os.listdir(DIST) if f != "checksums.txt")


def sums():
    with open(os.path.join(DIST, "checksums.txt")) as f:
        return f.read()


def build_dist():
    static_amd64()
    make("dist", "RELEASE_ARCHES=" + release_arches())


def test_archives_are_a_prefix_verify_and_rebuild_identically():
    build_dist()
    res = subprocess.run(["sha256sum", "-c", "checksums.txt"], cwd=DIST, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    version = version_of([STATIC])
    epoch = int(subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"],
                               capture_output=True, text=True).stdout)
    for arch in release_arches().split():
        name = os.path.join(DIST, "slipway_%s_linux_%s.tar.gz" % (version, arch))
        with tarfile.open(name) as t:
            members = t.getmembers()
        names = [m.name for m in members]
        assert names == sorted(names), "entries are sorted"
        for m in members:
            assert m.isfile(), "%s: only files, so that extracting changes no directory" % m.name
            assert (m.uid, m.gid, m.uname, m.gname) == (0, 0, "", ""), m.name
            assert m.mtime == epoch, (m.name, m.mtime, epoch)
            assert m.mode == (0o755 if m.name == "bin/slipway" else 0o644), (m.name, oct(m.mode))
        for want in ("bin/slipway", "share/man/man1/slipway.1", "share/man/man1/slipway-run.1",
                     "share/bash-completion/completions/slipway", "share/zsh/site-functions/_slipway",
                     "share/fish/vendor_completions.d/slipway.fish",
                     "share/slipway/schemas/machine-protocol.schema.json",
                     "share/doc/slipway/LICENSE", "share/doc/slipway/README.md",
                     "share/doc/slipway/en/installation.md"):
            assert want in names, want
        assert all(n.split("/")[0] in ("bin", "share") for n in names), names
    prefix = tempfile.mkdtemp(prefix="slipway-prefix-")
    subprocess.run(["tar", "-C", prefix, "-xzf",
                    os.path.join(DIST, "slipway_%s_linux_amd64.tar.gz" % version)], check=True)
    assert version_of([os.path.join(prefix, "bin/slipway")]) == version
    shutil.rmtree(prefix)

    before = {f: open(os.path.join(DIST, f), "rb").read() for f in dist_files()}
    first = sums()
    _built.discard("dist RELEASE_ARCHES=" + release_arches())
    build_dist()
    assert sums() == first, "checksums.txt changed:\n%s\n%s" % (first, sums())
    for f, data in before.items():
        with open(os.path.join(DIST, f), "rb") as g:
            assert g.read() == data, f + " is not byte-identical"


def test_sbom_names_every_library_linked_in_with_its_version():
    build_dist()
    version = version_of([STATIC])
    for arch in release_arches().split():
        with open(os.path.join(DIST, "slipway_%s_linux_%s.sbom.spdx.json" % (version, arch))) as f:
            doc = json.load(f)
        assert doc["spdxVersion"] == "SPDX-2.3" and doc["dataLicense"] == "CC0-1.0", doc
        assert doc["SPDXID"] == "SPDXRef-DOCUMENT" and doc["documentNamespace"].startswith("https://")
        by_name = {p["name"]: p for p in doc["packages"]}
        for p in doc["packages"]:
            for key in ("SPDXID", "name", "versionInfo", "downloadLocation", "licenseDeclared"):
                assert p.get(key), (p["name"], key)
        for lib in ("libgit2", "jansson", "openssl", "xxhash", "glibc", "zlib", "pcre2"):
            assert lib in by_name, "%s: %s missing" % (arch, lib)
        for absent in ("libssh2",):
            assert absent not in by_name, "%s is offered to the linker but nothing of it is linked" % absent
        links = {r["relatedSpdxElement"] for r in doc["relationships"] if r["relationshipType"] == "STATIC_LINK"}
        assert links == {p["SPDXID"] for p in doc["packages"] if p["name"] != "slipway"}, links
        tarball = os.path.join(DIST, "slipway_%s_linux_%s.tar.gz" % (version, arch))
        with tarfile.open(tarball) as t:
            binary = t.extractfile("bin/slipway").read()
        sha = {c["algorithm"]: c["checksumValue"] for c in by_name["slipway"]["checksums"]}
        assert sha["SHA256"] == hashlib.sha256(binary).hexdigest()
        if arch == "amd64":
            installed = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libgit2-dev"],
                                       capture_output=True, text=True).stdout
            assert by_name["libgit2"]["versionInfo"] == installed, (by_name["libgit2"], installed)


def deb_path(arch="amd64"):
    found = glob.glob(os.path.join(DIST, "slipway_*_%s.deb" % arch))
    assert len(found) == 1, found
    return found[0]


def test_deb_and_rpm_hold_the_same_files():
    need_tools("rpmbuild", "rpm")
    static_amd64()
    make("release", "RELEASE_ARCHES=" + release_arches())
    for arch, rarch in (("amd64", "x86_64"), ("arm64", "aarch64")):
        if arch not in release_arches():
            continue
        listing = subprocess.run(["dpkg-deb", "-c", deb_path(arch)], capture_output=True, text=True,
                                 check=True).stdout
        deb = {l.split()[5][1:] for l in listing.splitlines() if not l.startswith("d")}
        rpm_file, = glob.glob(os.path.join(DIST, "slipway-*.%s.rpm" % rarch))
        rpm = set(subprocess.run(["rpm", "-qp", "--qf", "[%{FILENAMES}\\t%{FILEMODES:perms}\\n]", rpm_file],
                                 capture_output=True, text=True, check=True).stdout.splitlines())
        rpm = {l.split("\t")[0] for l in rpm if not l.split("\t")[1].startswith("d")}
        # What each distribution puts in its own place.
        deb_only = {"/usr/share/doc/slipway/copyright", "/usr/share/doc/slipway/changelog.gz",
                    "/usr/share/lintian/overrides/slipway", "/usr/share/zsh/vendor-completions/_slipway"}
        rpm_only = {"/usr/share/licenses/slipway/LICENSE", "/usr/share/zsh/site-functions/_slipway"}
        assert deb - rpm == deb_only, sorted(deb - rpm)
        assert rpm - deb == rpm_only, sorted(rpm - deb)
        for want in ("/usr/bin/slipway", "/usr/share/man/man1/slipway.1.gz",
                     "/usr/share/bash-completion/completions/slipway",
                     "/usr/share/slipway/schemas/machine-protocol.schema.json",
                     "/usr/share/doc/slipway/README.md"):
            assert want in deb, want


def test_lintian_and_rpmlint_report_nothing():
    need_tools("lintian", "rpmlint", "rpmbuild")
    static_amd64()
    make("release", "RELEASE_ARCHES=" + release_arches())
    debs = sorted(glob.glob(os.path.join(DIST, "slipway_*.deb")))
    res = subprocess.run(["lintian", "--fail-on", "error,warning", "--display-level", ">=warning"] + debs,
                         capture_output=True, text=True, timeout=600)
    tags = [l for l in res.stdout.splitlines() if l[:2] in ("E:", "W:")]
    assert res.returncode == 0 and not tags, res.stdout + res.stderr
    rpms = sorted(glob.glob(os.path.join(DIST, "slipway-*.rpm")))
    res = subprocess.run(["rpmlint", "-c", os.path.join(ROOT, "mk/release/rpmlint.toml")] + rpms,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0 and "0 errors, 0 warnings" in res.stdout, res.stdout + res.stderr


def test_deb_installs_with_apt_and_purges_to_nothing():
    need_root("apt-get install")
    need_tools("apt-get", "man")
    static_amd64()
    make("deb", "RELEASE_ARCHES=amd64")
    if shutil.which("slipway") or os.path.exists("/usr/bin/slipway"):
        skip_test("a slipway is already installed (%s): not touching it" % (shutil.which("slipway") or "/usr/bin/slipway"))
    deb = deb_path()
    files = [l.split()[5][1:] for l in subprocess.run(["dpkg-deb", "-c", deb], capture_output=True,
                                                       text=True, check=True).stdout.splitlines()]
    apt = ["apt-get", "-q", "-y", "-o", "DPkg::Lock::Timeout=300"]
    env = dict(ENV, DEBIAN_FRONTEND="noninteractive")
    res = subprocess.run(apt + ["install", "--no-install-recommends", deb], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    try:
        assert version_of(["slipway"]) == version_of([STATIC])
        man = subprocess.run(["man", "-w", "slipway"], capture_output=True, text=True)
        assert man.stdout.strip() == "/usr/share/man/man1/slipway.1.gz", man.stdout + man.stderr
        comp = subprocess.run(["bash", "-c", ". /usr/share/bash-completion/completions/slipway && complete -p slipway"],
                              capture_output=True, text=True)
        assert comp.returncode == 0 and "slipway" in comp.stdout, comp.stdout + comp.stderr
        d = tempfile.mkdtemp(prefix="slipway-deb-")
        repo = make_repo(d)
        drive_everything(host_spawner(["slipway"], repo, {"PATH": "/usr/bin:/bin"}), file_writer(repo))
        shutil.rmtree(d)
    finally:
        res = subprocess.run(apt + ["purge", "slipway"], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    left = [f for f in files if os.path.lexists(f) and not os.path.isdir(f)]
    assert not left, left
    dirs = ["/usr/share/doc/slipway", "/usr/share/slipway"]
    assert not any(os.path.exists(x) for x in dirs), [x for x in dirs if os.path.exists(x)]


if __name__ == "__main__":
    main([test_static_binary_needs_no_shared_library,
          test_static_binary_runs_everything_with_an_empty_environment,
          test_static_binary_runs_in_a_chroot_holding_nothing_else,
          test_arm64_binary_runs_everything_under_qemu,
          test_archives_are_a_prefix_verify_and_rebuild_identically,
          test_sbom_names_every_library_linked_in_with_its_version,
          test_deb_and_rpm_hold_the_same_files,
          test_lintian_and_rpmlint_report_nothing,
          test_deb_installs_with_apt_and_purges_to_nothing])
