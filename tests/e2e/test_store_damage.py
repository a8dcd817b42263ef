"""The run store under leftovers and damage: stale temporaries of killed
processes, a copied run directory, a damaged run.json, run.lock or
context material, and several busy Runs met by one command."""

import fcntl
import json
import os
import shutil
import subprocess
import time
import uuid

from protocol_support import start, state_of, submit
from slipway_e2e import BIN, assert_cli_error, main, run, scratch_repo, validate


def run_dir(repo, run_id):
    return os.path.join(repo, ".git", "slipway", "runs", run_id)


def tree(path):
    """Every entry below path with its type, mode and bytes, to compare."""
    out = {}
    for base, dirs, files in os.walk(path):
        for name in sorted(dirs + files):
            p = os.path.join(base, name)
            st = os.lstat(p)
            data = None
            if os.path.isfile(p) and not os.path.islink(p):
                try:
                    with open(p, "rb") as f:
                        data = f.read()
                except OSError:
                    data = "unreadable"
            out[os.path.relpath(p, path)] = (st.st_mode, data)
    return out


def checks_of(repo):
    res = run("doctor", "--json", cwd=repo)
    assert res.code == 0, res.err
    return res.json_out()["checks"]


# ---- several busy Runs share one lock wait ----

def hold_locks(repo, ids):
    fds = []
    for rid in ids:
        fd = os.open(run_dir(repo, rid), os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fds.append(fd)
    return fds


def test_three_busy_runs_cost_one_lock_wait_and_are_listed_busy():
    repo = scratch_repo()
    ids = sorted(start(repo, "goal %d" % i)["run_id"] for i in range(3))
    fds = hold_locks(repo, ids)
    # The test build takes the wait from the environment: 1.5 s.  Waiting
    # per Run (and twice per Run in the listing) took 9 s.
    env = {"SLIPWAY_TEST_LOCK_TIMEOUT_MS": "1500"}
    try:
        for args in (("status", "--json"), ("status",), ("stop", "--json")):
            t0 = time.monotonic()
            res = run(*args, cwd=repo, env=env)
            took = time.monotonic() - t0
            assert took < 4.5, (args, took)
            if args[0] == "stop":
                err = assert_cli_error(res, "run_id_required", 2)
                assert "cannot be read" in err["message"], err
                continue
            assert res.code == 0, res.err
            if "--json" in args:
                doc = res.json_out()
                validate(doc, "statusList")
                assert doc["runs"] == [], doc
                assert [(u["id"], u["code"]) for u in doc["unavailable_runs"]] == \
                    [(i, "run_busy") for i in ids], doc
            else:
                for i in ids:
                    assert ("%s  unavailable  code=run_busy" % i).encode() in res.out, res.out
    finally:
        for fd in fds:
            os.close(fd)
    assert len(run("status", "--json", cwd=repo).json_out()["runs"]) == 3


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")])
