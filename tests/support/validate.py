"""Validates one JSON document (stdin) against a $defs entry of the
reference schema: `validate.py DEFNAME`.  Exit 0 when valid, 1 with the
reason on stderr otherwise.  Used by the C unit tests (tests/support/schema.c)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../e2e"))
from slipway_e2e import validate  # noqa: E402

try:
    validate(json.load(sys.stdin), sys.argv[1])
except Exception as e:  # noqa: BLE001
    print("%s: %s" % (type(e).__name__, str(e)[:2000]), file=sys.stderr)
    sys.exit(1)
