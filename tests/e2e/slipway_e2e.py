"""Shared helpers of the end-to-end tests: run the binary, parse its JSON,
validate documents against the reference schema, make scratch repositories."""

import copy
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile

import jsonschema

BIN = os.environ.get("SLIPWAY_BIN", os.path.join(os.path.dirname(__file__), "../../build/slipway"))
SHARED = os.environ.get("SLIPWAY_SHARED", os.path.join(os.path.dirname(__file__), "../../../shared"))
SCHEMA_PATH = os.path.join(SHARED, "reference/v2/machine-protocol.schema.json")

with open(SCHEMA_PATH, encoding="utf-8") as f:
    _SCHEMA = json.load(f)


def schema_for(defname):
    """The reference schema with its root narrowed to one $defs entry."""
    s = copy.deepcopy(_SCHEMA)
    s.pop("oneOf", None)
    s["$ref"] = "#/$defs/" + defname
    return s


def validate(doc, defname):
    """Raises jsonschema.ValidationError unless doc is a valid `defname`."""
    validator = jsonschema.Draft202012Validator(
        schema_for(defname), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    validator.validate(doc)


def validate_any(doc):
    """Every printed document must validate against the whole schema."""
    jsonschema.Draft202012Validator(
        _SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(doc)


def framed(*fields):
    """The framed digest: per field, an 8-byte big-endian length then the
    bytes; "sha256:" + hex."""
    h = hashlib.sha256()
    for f in fields:
        b = f.encode() if isinstance(f, str) else f
        h.update(struct.pack(">Q", len(b)))
        h.update(b)
    return "sha256:" + h.hexdigest()


class Result:
    def __init__(self, proc):
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def json_out(self):
        lines = self.out.decode().splitlines()
        assert len(lines) == 1, "stdout must hold exactly one JSON line: %r" % self.out
        return json.loads(lines[0])

    def json_err(self):
        lines = self.err.decode().splitlines()
        assert len(lines) == 1, "stderr must hold exactly one JSON line: %r" % self.err
        return json.loads(lines[0])


def run(*args, cwd=None, stdin=None, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run([BIN] + list(args), cwd=cwd, input=stdin,
                          capture_output=True, env=full_env, timeout=60)
    return Result(proc)


def scratch_repo(commit=True, prefix="slipway-e2e-"):
    """A new Git repository in a temporary directory (kept until exit)."""
    d = tempfile.mkdtemp(prefix=prefix)
    subprocess.run(["git", "init", "-q", d], check=True)
    subprocess.run(["git", "-C", d, "config", "user.email", "t@example.com"], check=True)
    subprocess.run(["git", "-C", d, "config", "user.name", "t"], check=True)
    if commit:
        with open(os.path.join(d, "README"), "w") as f:
            f.write("scratch\n")
        subprocess.run(["git", "-C", d, "add", "README"], check=True)
        subprocess.run(["git", "-C", d, "commit", "-qm", "init"], check=True)
    return os.path.realpath(d)


def assert_cli_error(res, code, exit_code):
    assert res.code == exit_code, "exit %d, want %d: %r" % (res.code, exit_code, res.err)
    assert res.out == b"", "stdout must stay empty on error: %r" % res.out
    doc = res.json_err()
    validate(doc, "cliError")
    assert doc["code"] == code, doc
    assert doc["exit_code"] == exit_code, doc
    return doc


def main(tests):
    failed = 0
    for t in tests:
        try:
            t()
            print("ok   %s" % t.__name__)
        except Exception as e:  # noqa: BLE001 - report every failure
            failed += 1
            print("FAIL %s: %s: %s" % (t.__name__, type(e).__name__, e))
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    sys.exit(1 if failed else 0)
