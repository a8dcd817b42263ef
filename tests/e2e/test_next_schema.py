"""Every `next` the builders in io/wire/next.c produce validates against the
schema's `next` definition.

The JSON comes from the Criterion test
io_next/every_builder_json_is_written_for_the_schema_check, which writes one
file per builder (and per argv form) into $SLIPWAY_NEXT_JSON_DIR.  This
script runs that single test into a temporary directory, then validates
each file with python3-jsonschema (draft 2020-12).  It also checks that the
files cover every variant id, and that the schema rejects a few broken
copies, so a vacuous pass would show.

Environment: SLIPWAY_BIN (build/san/slipway; the test binary is found next
to it under tests/io/), SLIPWAY_SHARED (the ../shared folder, for the
conformance check against the reference schema when it exists).
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

VARIANT_IDS = {
    "submit-outcome-file", "submit-outcome-stdin", "skip-action",
    "answer-decision", "confirm-destructive", "decline-or-feedback",
    "resume-ad-hoc", "refresh-source", "use-pinned-source", "keep-pinned",
    "adopt", "retry-run", "start-with-source", "inspect-run", "inspect-runs",
    "list-runs", "inspect-run-in-its-workspace", "refresh-adapters",
    "run-doctor", "retry-doctor", "retry-list", "list-host-adapters",
    "inspect-host-adapters", "install-kiro",
}


def test_binary():
    slipway = os.environ.get("SLIPWAY_BIN")
    build = os.path.dirname(slipway) if slipway else os.path.join(REPO, "build", "san")
    path = os.path.join(build, "tests", "io", "test_next")
    if not os.path.exists(path):
        # Only the sanitizer build has unit binaries (a release binary,
        # make static, has none beside it).
        path = os.path.join(REPO, "build", "san", "tests", "io", "test_next")
    if not os.path.exists(path):
        # `make e2e` alone does not build the unit binaries.
        target = os.path.relpath(path, REPO)
        subprocess.run(["make", "-C", REPO, target], check=True,
                       stdout=subprocess.DEVNULL)
    return path


class BothValidators:
    """Errors under our schema and, when present, the reference schema."""
    def __init__(self, validators):
        self.validators = validators

    def iter_errors(self, doc):
        for v in self.validators:
            yield from v.iter_errors(doc)


def next_validator():
    paths = [os.path.join(REPO, "schemas", "machine-protocol.schema.json")]
    shared = os.environ.get("SLIPWAY_SHARED", os.path.join(REPO, "..", "shared"))
    reference = os.path.join(shared, "reference", "v2", "machine-protocol.schema.json")
    if os.path.exists(reference):
        paths.append(reference)
    else:
        print("SKIP conformance of next with the reference schema: %s not found" % reference)
    return BothValidators([one_validator(p) for p in paths])


def one_validator(path):
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    root = {
        "$schema": schema["$schema"],
        "$id": schema["$id"],
        "$defs": schema["$defs"],
        "$ref": "#/$defs/next",
    }
    jsonschema.Draft202012Validator.check_schema(root)
    return jsonschema.Draft202012Validator(root)


class NextSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.validator = next_validator()
        cls.tmp = tempfile.TemporaryDirectory(prefix="next-json-")
        env = dict(os.environ, SLIPWAY_NEXT_JSON_DIR=cls.tmp.name,
                   ASAN_OPTIONS="detect_leaks=1")
        subprocess.run(
            [test_binary(), "--short-filename",
             "--filter=io_next/every_builder_json_is_written_for_the_schema_check"],
            check=True, env=env, stdout=subprocess.DEVNULL)
        cls.docs = {}
        for path in sorted(glob.glob(os.path.join(cls.tmp.name, "*.json"))):
            with open(path, encoding="utf-8") as f:
                cls.docs[os.path.basename(path)] = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def errors(self, doc):
        return [e.message for e in self.validator.iter_errors(doc)]

    def test_builders_wrote_every_case(self):
        self.assertGreaterEqual(len(self.docs), 41, sorted(self.docs))

    def test_every_builder_next_validates(self):
        for name, doc in self.docs.items():
            with self.subTest(name=name):
                self.assertEqual(self.errors(doc), [])

    def test_every_variant_id_is_covered(self):
        ids = {v["id"] for d in self.docs.values() for v in d["variants"]}
        self.assertEqual(ids, VARIANT_IDS)

    def test_schema_rejects_broken_copies(self):
        def broken(name, mutate):
            doc = copy.deepcopy(self.docs[name])
            mutate(doc)
            return doc

        cases = {
            "dropped input": broken("action.json",
                                    lambda d: d["variants"][0]["inputs"].clear()),
            "extra argv": broken("resume-ad-hoc.json",
                                 lambda d: d["variants"][0]["base_argv"].append("--x")),
            "placeholder": broken("form-15-inspect-run.json",
                                  lambda d: d["variants"][0]["base_argv"].append("<file>")),
            "none with variants": broken("action.json",
                                         lambda d: d.update(operation="none")),
            "budget 1001": broken("refresh-fixed.json",
                                  lambda d: d["variants"][0]["base_argv"].__setitem__(7, "1001")),
            "required confirm text": broken(
                "destructive.json",
                lambda d: d["variants"][0]["inputs"][0].update(required=True)),
            "upper-case identity": broken(
                "none.json", lambda d: d.update(workspace_identity="sha256:" + "A" * 64)),
        }
        for what, doc in cases.items():
            with self.subTest(what=what):
                self.assertNotEqual(self.errors(doc), [])


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
