#!/usr/bin/python3
"""The JSON forms io/source writes validate against machine-protocol.schema.json.

tests/io/test_source.c (json_forms_follow_the_schema_shapes_and_hold_no_raw_input)
writes build/test-out/source/{pinned,candidate-valid,candidate-invalid}.json; this
script builds that test binary if needed and runs that one test first.  Each document
is checked against its $def (pinnedSource, sourceCandidate), including the byte
caps the schema states as x-slipway-max-utf8-bytes annotations.
"""
import json
import os
import subprocess
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("SLIPWAY_SHARED", os.path.join(ROOT, "..", "shared"))
OUT = os.path.join(ROOT, "build", "test-out", "source")
UNIT = os.path.join(ROOT, "build", "san", "tests", "io", "test_source_json")

DOCS = {
    "pinned.json": "pinnedSource",
    "candidate-valid.json": "sourceCandidate",
    "candidate-invalid.json": "sourceCandidate",
}


def produce():
    """Runs the one unit test that writes the documents, so they are fresh."""
    clean = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    subprocess.run(["make", "-s", "-C", ROOT, os.path.relpath(UNIT, ROOT)], check=True,
                   stdout=subprocess.DEVNULL, env=clean)
    env = dict(os.environ, SLIPWAY_TEST_ROOT=ROOT, SLIPWAY_SHARED=SHARED)
    subprocess.run([UNIT, "--filter", "io_source/json_forms*"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def validator(schema, name):
    root = {"$schema": schema["$schema"], "$defs": schema["$defs"],
            "$ref": "#/$defs/" + name}
    cls = jsonschema.validators.validator_for(root)
    return cls(root, format_checker=jsonschema.FormatChecker())


def byte_caps(value, schema_def, defs, path="$"):
    """Checks x-slipway-max-utf8-bytes on the object members that carry it."""
    failures = []
    if isinstance(value, dict):
        props = schema_def.get("properties", {})
        for key, child in value.items():
            sub = props.get(key, {})
            if "$ref" in sub:
                sub = defs[sub["$ref"].split("/")[-1]]
            cap = sub.get("x-slipway-max-utf8-bytes")
            if cap is not None and isinstance(child, str) and len(child.encode()) > cap:
                failures.append("%s.%s exceeds %d bytes" % (path, key, cap))
            if sub.get("type") == "array" and "items" in sub:
                item = sub["items"]
                if "$ref" in item:
                    item = defs[item["$ref"].split("/")[-1]]
                for i, element in enumerate(child):
                    failures += byte_caps(element, item, defs, "%s.%s[%d]" % (path, key, i))
            elif isinstance(child, dict):
                failures += byte_caps(child, sub, defs, path + "." + key)
    return failures


def load(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as f:
        return json.load(f)


def check(schema, label):
    failures = []
    for name, definition in DOCS.items():
        document = load(OUT, name)
        for error in validator(schema, definition).iter_errors(document):
            failures.append("%s (%s): %s at %s" % (name, label, error.message,
                                                    list(error.absolute_path)))
        failures += ["%s (%s): %s" % (name, label, m) for m in
                     byte_caps(document, schema["$defs"][definition], schema["$defs"])]
    return failures


def envelope_errors(schema, fixture, label):
    cls = jsonschema.validators.validator_for(schema)
    return ["%s: %s" % (label, e.message) for e in cls(schema).iter_errors(fixture)]


def main():
    produce()
    ours = load(ROOT, "schemas", "machine-protocol.schema.json")
    our_envelope = load(ROOT, "schemas", "source-envelope.schema.json")
    failures = check(ours, "schemas/")
    # Our fixture is a valid envelope (sanity of the input side).
    fixture = load(ROOT, "tests", "data", "source-envelope.json")
    failures += envelope_errors(our_envelope, fixture, "tests/data fixture")
    reference = os.path.join(SHARED, "reference")
    if os.path.isdir(reference):
        failures += check(load(reference, "v2", "machine-protocol.schema.json"), "reference")
        ref_envelope = load(reference, "v2", "source-envelope.schema.json")
        ref_fixture = load(reference, "fixtures", "container-source-envelope.json")
        failures += envelope_errors(ref_envelope, fixture, "tests/data fixture, reference schema")
        failures += envelope_errors(our_envelope, ref_fixture, "reference fixture, schemas/")
    else:
        print("SKIP conformance with the reference schemas: %s not found" % reference)
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("test_source_schema: %d documents validate" % len(DOCS))


if __name__ == "__main__":
    main()
