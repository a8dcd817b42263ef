#!/bin/sh
# tests/step.sh NAME CMD...: runs one test step of `make test`.  Its output
# goes to build/test-logs/NAME.log; one line says PASS or FAIL (with the
# log after a failure; V=1 shows every log).  The count of tests the step
# ran is kept beside the log for tests/summary.sh.  The step runs with a
# temporary folder of its own as TMPDIR, removed when it passes (kept and
# named when it fails), so that what a test leaves there does not pile up
# in /tmp; a step that leaves anything is said so in its line.
set -u
name=$1
shift
log=build/test-logs/$(printf '%s' "$name" | tr '/' '_').log
mkdir -p build/test-logs
rm -f "$log" "$log.count"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/slipway-step.XXXXXX") || exit 1
chmod 1777 "$tmp"	# as /tmp: the tests that drop to another user make files there
start=$(date +%s)
TMPDIR=$tmp "$@" >"$log" 2>&1
rc=$?
left=$(find "$tmp" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
if [ $rc -eq 0 ]; then
	chmod -R u+rwx "$tmp" 2>/dev/null
	rm -rf "$tmp"
fi
secs=$(($(date +%s) - start))
# Criterion: "Synthesis: Tested: N | ...", tests/e2e: "N passed, M failed",
# unittest: "Ran N tests", libFuzzer: "Done N runs".
n=$(sed -n -e 's/.*Synthesis: Tested: *\([0-9]*\).*/\1/p' \
	-e 's/^\([0-9][0-9]*\) passed, [0-9]* failed$/\1/p' \
	-e 's/^Ran \([0-9][0-9]*\) tests\{0,1\} in.*/\1/p' \
	-e 's/^Done \([0-9][0-9]*\) runs in.*/\1/p' "$log" | tail -n 1)
skipped=$(grep -c '^SKIP' "$log")
[ "${V:-0}" = 1 ] && cat "$log"
if [ $rc -ne 0 ]; then
	[ "${V:-0}" = 1 ] || tail -n 60 "$log"
	echo "  FAIL    $name (exit $rc; full log: $log; its temporary folder, kept: $tmp)"
	exit 1
fi
echo "${n:-1} $skipped" > "$log.count"
extra=
[ "$skipped" -gt 0 ] && extra=", $skipped skipped"
[ "$left" -gt 0 ] && extra="$extra, $left temporary entries left, removed"
echo "  PASS    $name (${n:-1} in ${secs}s$extra)"
