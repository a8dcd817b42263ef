"""The README's main job (tests/e2e/demo.sh) keeps working: it drives a
first Run in a scratch repository through to its summary."""

import os
import re
import subprocess

from slipway_e2e import BIN, main

DEMO = os.path.join(os.path.dirname(__file__), "demo.sh")


def test_demo_drives_a_run_to_its_end():
    res = subprocess.run(["sh", DEMO, BIN], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "next Action: implement" in res.stdout, res.stdout
    assert "next Action: review" in res.stdout, res.stdout
    assert re.search(r"^Run \S+ ended: ", res.stdout, re.M), res.stdout
    assert "exited 0: greeting present" in res.stdout, res.stdout


if __name__ == "__main__":
    main([test_demo_drives_a_run_to_its_end])
