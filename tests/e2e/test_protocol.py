"""Ad-hoc Runs end to end: runs every test of the test_protocol_*.py parts
(flow, answers, preflight, status) in one process. Each part also runs on its own."""

import test_protocol_answers
import test_protocol_flow
import test_protocol_preflight
import test_protocol_status
from slipway_e2e import main


def _tests(module):
    return [v for k, v in sorted(vars(module).items()) if k.startswith("test_") and callable(v)]


if __name__ == "__main__":
    main(_tests(test_protocol_flow) + _tests(test_protocol_answers) + _tests(test_protocol_preflight) + _tests(test_protocol_status))
