#!/bin/sh
# tests/summary.sh STEP...: the last line of `make test`, from the counts
# tests/step.sh kept for each step (fuzz/* steps count runs, not tests).
set -u
steps=0 tests=0 skipped=0 fuzzers=0 runs=0
for s in "$@"; do
	f=build/test-logs/$(printf '%s' "$s" | tr '/' '_').log.count
	[ -f "$f" ] || { echo "make test: no result for $s"; exit 1; }
	read -r n k < "$f"
	case $s in
	fuzz/*) fuzzers=$((fuzzers + 1)) runs=$((runs + n)) ;;
	*) steps=$((steps + 1)) tests=$((tests + n)) skipped=$((skipped + k)) ;;
	esac
done
if [ -d "${SLIPWAY_SHARED:-/nonexistent}/reference" ]; then
	conf="conformance with $SLIPWAY_SHARED/reference checked"
else
	conf="conformance with ../shared/reference skipped (no such folder)"
fi
echo "make test: all passed: $tests tests in $steps files, $fuzzers fuzzers ($runs runs, fixed seed), $skipped skip notes; $conf"
