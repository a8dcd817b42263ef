"""The command frame: help, version, unknown commands and the cliError shape."""

import hashlib
import os
import subprocess
import tempfile

from slipway_e2e import assert_cli_error, main, run, scratch_repo


def test_bare_slipway_prints_help_and_exits_zero():
    res = run()
    assert res.code == 0
    assert b"Usage:" in res.out and res.err == b""


def test_version_has_three_lines():
    res = run("--version")
    lines = res.out.decode().splitlines()
    assert res.code == 0 and lines[0].startswith("slipway ")
    assert lines[1].startswith("  commit: ") and lines[2].startswith("  built:  ")


def test_unknown_command_is_invalid_usage_with_none_next():
    repo = scratch_repo()
    doc = assert_cli_error(run("frobnicate", cwd=repo), "invalid_usage", 2)
    assert doc["next"]["operation"] == "none" and doc["next"]["variants"] == []


def test_unknown_command_outside_a_repository_uses_the_unavailable_identity():
    d = os.path.realpath(tempfile.mkdtemp())
    doc = assert_cli_error(run("frobnicate", cwd=d), "invalid_usage", 2)
    want = "sha256:" + hashlib.sha256(b"unavailable-workspace-root-v1\0" + d.encode()).hexdigest()
    assert doc["next"]["workspace_identity"] == want


def test_raw_root_binds_the_error_next_to_that_workspace():
    repo = scratch_repo()
    other = os.path.realpath(tempfile.mkdtemp())
    inside = assert_cli_error(run("frobnicate", "--root", repo, cwd=other), "invalid_usage", 2)
    outside = assert_cli_error(run("frobnicate", cwd=other), "invalid_usage", 2)
    assert inside["next"]["workspace_identity"] != outside["next"]["workspace_identity"]


def test_unknown_help_topic():
    assert_cli_error(run("_help", "nope"), "unknown_help_topic", 2)


def test_closed_stdout_is_a_defect_not_a_crash():
    proc = subprocess.run("'%s' --help >&-" % os.environ.get("SLIPWAY_BIN", "build/slipway"),
                          shell=True, capture_output=True)
    assert proc.returncode == 1, proc.returncode


if __name__ == "__main__":
    main([test_bare_slipway_prints_help_and_exits_zero,
          test_version_has_three_lines,
          test_unknown_command_is_invalid_usage_with_none_next,
          test_unknown_command_outside_a_repository_uses_the_unavailable_identity,
          test_raw_root_binds_the_error_next_to_that_workspace,
          test_unknown_help_topic,
          test_closed_stdout_is_a_defect_not_a_crash])
