"""Discovery when the system fails to read the repository: an I/O error
(injected with strace) while reading .git/config or a global Git
configuration is git_repository_unavailable (exit 3, retry with doctor),
never git_repository_required, the usage error of a directory outside any
worktree."""

import json
import os
import shutil
import subprocess
import tempfile

from slipway_e2e import BIN, main, run, scratch_repo, skip_test, validate


def under_strace(repo, fault, path, *args, env=None):
    """Runs slipway in repo with `fault` (an strace -e inject= spec)
    injected into the system calls that touch `path`."""
    strace = shutil.which("strace")
    if strace is None:
        skip_test("strace is not installed (make deps installs it)")
    # LeakSanitizer cannot run under ptrace; everything else stays on.
    env = dict(env or os.environ)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    proc = subprocess.run([strace, "-f", "-qq", "-o", "/dev/null", "-P", path, "-e", "inject=" + fault,
                           BIN] + list(args), cwd=repo, capture_output=True, env=env, timeout=120)
    if b"ptrace" in proc.stderr and proc.returncode != 3:
        skip_test("strace cannot trace here: %s" % proc.stderr.decode(errors="replace")[:200])
    return proc


def assert_unavailable(proc, repo, what):
    assert proc.returncode == 3, (what, proc.returncode, proc.stderr)
    assert proc.stdout == b"", (what, proc.stdout)
    err = json.loads(proc.stderr)
    validate(err, "cliError")
    assert err["code"] == "git_repository_unavailable", (what, err)
    assert err["exit_code"] == 3, (what, err)
    assert "Input/output error" in err["message"], (what, err)
    assert [v["id"] for v in err["next"]["variants"]] == ["retry-doctor"], (what, err)
    assert err["next"]["variants"][0]["base_argv"] == ["slipway", "doctor", "--root", repo, "--json"], \
        (what, err)


def test_an_io_error_reading_the_repository_configuration_is_unavailable():
    repo = scratch_repo()
    assert run("status", "--json", cwd=repo).code == 0
    config = os.path.join(repo, ".git", "config")
    for fault in ("read:error=EIO", "openat:error=EIO"):
        for args in (("status", "--json"), ("status",), ("doctor", "--json"), ("list", "--json"),
                     ("run", "--json", "--", "goal")):
            assert_unavailable(under_strace(repo, fault, config, *args), repo, (fault, args))
    # Without the fault, the same commands work, and nothing was started.
    res = run("status", "--json", cwd=repo)
    assert res.code == 0 and res.json_out()["runs"] == [], res.err


def test_an_io_error_reading_a_global_configuration_is_unavailable():
    repo = scratch_repo()
    home = tempfile.mkdtemp(prefix="slipway-e2e-home-")
    gitconfig = os.path.join(home, ".gitconfig")
    with open(gitconfig, "w") as f:
        f.write("[user]\n\tname = Someone\n")
    env = dict(os.environ, HOME=home)
    for fault in ("read:error=EIO", "openat:error=EIO"):
        proc = under_strace(repo, fault, gitconfig, "status", "--json", env=env)
        assert_unavailable(proc, repo, fault)
    # A global configuration the user may not read is left out, as git
    # leaves it out: the command works and the JSON is untouched.
    proc = under_strace(repo, "openat:error=EACCES", gitconfig, "status", "--json", env=env)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert json.loads(proc.stdout)["runs"] == []
    if os.path.isfile("/etc/gitconfig"):
        proc = under_strace(repo, "read:error=EIO", "/etc/gitconfig", "status", "--json", env=env)
        assert_unavailable(proc, repo, "/etc/gitconfig")
    shutil.rmtree(home)


def test_a_directory_outside_any_worktree_stays_a_usage_error():
    outside = tempfile.mkdtemp(prefix="slipway-e2e-outside-")
    res = run("status", "--json", cwd=outside)
    assert res.code == 2, res.err
    assert json.loads(res.err)["code"] == "git_repository_required", res.err
    os.rmdir(outside)


if __name__ == "__main__":
    main([test_an_io_error_reading_the_repository_configuration_is_unavailable,
          test_an_io_error_reading_a_global_configuration_is_unavailable,
          test_a_directory_outside_any_worktree_stays_a_usage_error])
