"""Capture of what slipway prints to the end-to-end suite (mk/e2e-capture.mk).

Python loads this module at start-up when its folder is on PYTHONPATH and
SLIPWAY_CAPTURE_DIR is set.  Every slipway process that a test waits for
through subprocess (run, check_output or communicate) is appended, as one
JSON line, to SLIPWAY_CAPTURE_DIR/<test file>.jsonl: argv, the bytes given
on stdin, stdout, stderr and the exit status.  mk/e2e_compare.py compares
two such captures.  Nothing here changes what a test sees.
"""

import json
import os
import subprocess
import sys
import threading

_DIR = os.environ.get("SLIPWAY_CAPTURE_DIR")
_BIN = os.environ.get("SLIPWAY_BIN", "")
_LOCK = threading.Lock()


def _text(b):
    if b is None:
        return None
    if isinstance(b, str):
        return b
    return b.decode("utf-8", errors="backslashreplace")


def _is_slipway(args):
    argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args or [])
    if not argv:
        return False
    first = os.fspath(argv[0])
    if isinstance(first, bytes):
        first = first.decode(errors="replace")
    return first == _BIN or os.path.basename(first) == "slipway"


def _install():
    name = os.path.basename(sys.argv[0] or "python") if sys.argv else "python"
    path = os.path.join(_DIR, name + ".jsonl")
    orig = subprocess.Popen.communicate

    def communicate(self, input=None, timeout=None):
        out, err = orig(self, input, timeout)
        try:
            if _is_slipway(self.args):
                argv = [self.args] if isinstance(self.args, (str, bytes)) else list(self.args)
                rec = {"argv": [_text(os.fspath(a)) if not isinstance(a, str) else a for a in argv],
                       "stdin": _text(input), "stdout": _text(out), "stderr": _text(err),
                       "rc": self.returncode}
                line = json.dumps(rec, sort_keys=True) + "\n"
                with _LOCK:
                    with open(path, "a", encoding="utf-8") as f:
                        f.write(line)
        except Exception:  # a capture never breaks a test
            pass
        return out, err

    subprocess.Popen.communicate = communicate


if _DIR:
    _install()
