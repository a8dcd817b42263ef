"""schemas/: our JSON Schemas are valid Draft 2020-12 documents, their enums
follow tables/, and (conformance, when ../shared/reference exists) they
accept what the reference schemas accept: equal after dropping annotations,
except where ours is stricter on purpose (STRICTER below)."""

import json
import os
import re

import jsonschema

from slipway_e2e import REFERENCE, ROOT, main, skip

NAMES = ["machine-protocol", "source-envelope"]
ANNOTATIONS = ("description", "title", "examples", "$comment", "$id")
# Where our schema says more than the reference: cliError.code lists the
# codes of tables/error_codes.def instead of any snake_case word.
STRICTER = {("machine-protocol", "/$defs/cliError/properties/code")}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def ours(name):
    return load(os.path.join(ROOT, "schemas", name + ".schema.json"))


def strip(node, parent=None):
    if isinstance(node, dict):
        return {k: strip(v, k) for k, v in node.items()
                if parent in ("properties", "$defs") or k not in ANNOTATIONS}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def diff(a, b, path=""):
    """Paths where a and b differ (enum lists compared as sets)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(path + "/" + k)
            elif k == "enum":
                if sorted(map(str, a[k])) != sorted(map(str, b[k])):
                    out.append(path + "/enum")
            else:
                out += diff(a[k], b[k], path + "/" + k)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, "%s/%d" % (path, i))
        return out
    return [] if a == b else [path]


def test_schemas_are_valid_draft_2020_12():
    for name in NAMES:
        schema = ours(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert "do not edit" in schema["$comment"]
        assert "x-slipway-enum" not in json.dumps(schema), name


def test_enums_follow_tables():
    """Every row of tables/pause_reasons.def and error_codes.def is a wire value."""
    schema = ours("machine-protocol")["$defs"]
    with open(os.path.join(ROOT, "tables", "error_codes.def"), encoding="utf-8") as f:
        codes = [line.split('"')[1] for line in f if line.startswith("ERR(") and '""' not in line]
    assert schema["cliError"]["properties"]["code"]["enum"] == codes
    status = schema["runStatus"]["properties"]["pause_reason"]["enum"]
    assert "budget_exhausted" in status
    host = schema["pause"]["properties"]["reason"]["enum"]
    assert "budget_exhausted" not in host and "decision_required" in host


def test_outcome_branches_follow_the_expected_legal_outcomes():
    """$defs.outcome.oneOf (generated from tables/matrix.c) has one branch per
    row of tests/data/legal-outcomes.txt, with the same statuses, results
    and suggestion limit."""
    branches = ours("machine-protocol")["$defs"]["outcome"]["oneOf"]
    rows = []
    with open(os.path.join(ROOT, "tests", "data", "legal-outcomes.txt"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rows.append(line.split())
    assert len(branches) == len(rows)

    def values(node):
        return sorted(node["enum"]) if "enum" in node else [node["const"]]

    for branch, (kind, statuses, pauses, impl, review, sugg) in zip(branches, rows):
        p = branch["properties"]
        assert p["action_kind"]["const"] == kind
        assert values(p["status"]) == sorted(statuses.split(",")), kind
        assert p["suggested_actions"]["maxItems"] == int(sugg), kind
        assert (p["pause"] == {"type": "null"}) == (pauses == "-"), kind
        assert ("destructivePause" in json.dumps(p["pause"])) == ("destructive" in pauses), kind
        for name, want in (("implementation", impl), ("review", review)):
            if want == "-":
                assert p[name] == {"type": "null"}, (kind, name)
                continue
            got = re.findall(r'"const": "([a-z_]+)"|"enum": \[([^\]]*)\]', json.dumps(p[name]))
            results = sorted(w.strip(' "') for c, e in got for w in ([c] if c else e.split(",")))
            assert results == sorted(want.split(",")), (kind, name, results)


def test_conformance_equal_to_the_reference_but_for_stricter_enums():
    if REFERENCE is None:
        skip("schemas/ compared with the reference schemas", "no reference folder")
        return
    for name in NAMES:
        ref = load(os.path.join(REFERENCE, "v2", name + ".schema.json"))
        got = diff(strip(ours(name)), strip(ref))
        unexpected = [p for p in got if (name, p.rsplit("/", 1)[0]) not in STRICTER]
        assert not unexpected, "%s differs from the reference at %s" % (name, unexpected[:10])


if __name__ == "__main__":
    main([test_schemas_are_valid_draft_2020_12, test_enums_follow_tables,
          test_outcome_branches_follow_the_expected_legal_outcomes,
          test_conformance_equal_to_the_reference_but_for_stricter_enums])
