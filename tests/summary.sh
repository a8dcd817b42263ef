#!/bin/sh
# tests/summary.sh STEP...: the last line of `make test`, from the counts
# tests/step.sh kept for each step.
set -u
steps=0 tests=0 skipped=0
for s in "$@"; do
	f=build/test-logs/$(printf '%s' "$s" | tr '/' '_').log.count
	[ -f "$f" ] || { echo "make test: no result for $s"; exit 1; }
	read -r n k < "$f"
	steps=$((steps + 1)) tests=$((tests + n)) skipped=$((skipped + k))
done
if [ -d "${SLIPWAY_SHARED:-/nonexistent}/reference" ]; then
	conf="conformance with $SLIPWAY_SHARED/reference checked"
else
	conf="conformance with ../shared/reference skipped (folder absent)"
fi
echo "make test: passed: $steps steps, $tests tests and fuzz runs, $skipped skipped; $conf"
