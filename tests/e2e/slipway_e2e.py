"""Shared helpers of the end-to-end tests: run the binary, parse its JSON,
validate documents against our schemas (schemas/, generated from tables/),
make scratch repositories.

Conformance: when the reference folder exists (SLIPWAY_SHARED, by default
../shared beside the clone), every document is also validated against the
reference schema; without it that extra check is skipped, and main() says so."""

import copy
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile

import jsonschema

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "../.."))
BIN = os.environ.get("SLIPWAY_BIN", os.path.join(ROOT, "build/slipway"))
SHARED = os.environ.get("SLIPWAY_SHARED", os.path.join(ROOT, "../shared"))
# The reference folder for the conformance checks, or None when absent.
REFERENCE = os.path.join(SHARED, "reference")
if not os.path.isdir(REFERENCE):
    REFERENCE = None
SCHEMA_PATH = os.path.join(ROOT, "schemas/machine-protocol.schema.json")
FIXTURE = os.path.join(ROOT, "tests/data/source-envelope.json")
_SKIPPED = []

with open(SCHEMA_PATH, encoding="utf-8") as f:
    _SCHEMA = json.load(f)
_REF_SCHEMA = None
if REFERENCE is not None:
    with open(os.path.join(REFERENCE, "v2/machine-protocol.schema.json"), encoding="utf-8") as f:
        _REF_SCHEMA = json.load(f)


_SEAMS = []


def has_test_seams():
    """True when BIN is a test build (-DSW_TESTING): the seams that let a
    test fail a transaction step or shorten the lock wait through the
    environment are compiled in.  A release build (`make`, `make static`)
    has none, and the checks that need them skip there, counted.  Read
    from the binary's symbols (a stripped binary or a wrapper script has
    none: no seams)."""
    if not _SEAMS:
        nm = subprocess.run(["nm", BIN], capture_output=True, text=True)
        _SEAMS.append(" T sw_alloc_fail_after\n" in nm.stdout)
    return _SEAMS[0]


def skip(what, why):
    """Records a check that could not run and why; main() prints it as a
    skip note (tests/step.sh counts the lines that start with SKIP)."""
    _SKIPPED.append((what, why))


class Skipped(Exception):
    """Raised by skip_test(): the test did not run."""


def skip_test(why):
    """Ends the calling test as skipped, not passed: main() prints
    "SKIP <test>: <why>" and leaves it out of the passed count."""
    raise Skipped(why)


def unittest_main():
    """unittest.main for the files written as TestCases, with the same
    closing lines as main(): a skip note per skipped test and "N passed, M
    failed" (skips counted apart)."""
    import unittest
    result = unittest.main(verbosity=1, exit=False).result
    for test, why in result.skipped:
        print("SKIP %s: %s" % (test.id().rsplit(".", 1)[-1], why))
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    if REFERENCE is None:
        print("SKIP conformance with the reference schema: %s not found" % os.path.join(SHARED, "reference"))
    print("%d passed, %d failed" % (result.testsRun - len(result.skipped) - failed, failed))
    sys.exit(1 if failed else 0)


def schema_for(defname, schema=None):
    """Our schema (or `schema`) with its root narrowed to one $defs entry."""
    s = copy.deepcopy(schema or _SCHEMA)
    s.pop("oneOf", None)
    s["$ref"] = "#/$defs/" + defname
    return s


def _schemas():
    return [_SCHEMA] + ([_REF_SCHEMA] if _REF_SCHEMA is not None else [])


def validate(doc, defname):
    """Raises jsonschema.ValidationError unless doc is a valid `defname`
    under our schema and, when present, the reference schema."""
    for schema in _schemas():
        validator = jsonschema.Draft202012Validator(
            schema_for(defname, schema), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        validator.validate(doc)


def validate_any(doc):
    """Every printed document must validate against the whole schema."""
    for schema in _schemas():
        jsonschema.Draft202012Validator(
            schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(doc)


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
        """The one JSON document on stdout, validated against the schema."""
        lines = self.out.decode().splitlines()
        assert len(lines) == 1, "stdout must hold exactly one JSON line: %r" % self.out
        doc = json.loads(lines[0])
        validate_any(doc)
        return doc

    def json_err(self):
        """The cliError on stderr, validated against the schema."""
        lines = self.err.decode().splitlines()
        assert len(lines) == 1, "stderr must hold exactly one JSON line: %r" % self.err
        doc = json.loads(lines[0])
        validate(doc, "cliError")
        return doc


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


def _unlisted(tests):
    """The test_* functions of the running file that `tests` leaves out: a
    test that is defined must run."""
    import inspect
    listed = set(tests)
    module = sys.modules["__main__"]
    return sorted(name for name, f in vars(module).items()
                  if name.startswith("test_") and inspect.isfunction(f)
                  and f.__module__ == "__main__" and f not in listed)


def main(tests):
    failed = skipped = 0
    unlisted = _unlisted(tests)
    if unlisted:
        failed += 1
        print("FAIL defined but never run: %s" % ", ".join(unlisted))
    for t in tests:
        try:
            t()
            print("ok   %s" % t.__name__)
        except Skipped as e:
            skipped += 1
            print("SKIP %s: %s" % (t.__name__, e))
        except Exception as e:  # noqa: BLE001 - report every failure
            failed += 1
            print("FAIL %s: %s: %s" % (t.__name__, type(e).__name__, e))
    if REFERENCE is None:
        print("SKIP conformance with the reference schema: %s not found" % os.path.join(SHARED, "reference"))
    for what, why in _SKIPPED:
        print("SKIP %s: %s" % (what, why))
    print("%d passed, %d failed" % (len(tests) - failed - skipped + (1 if unlisted else 0), failed))
    sys.exit(1 if failed else 0)
