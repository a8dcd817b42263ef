#!/bin/sh
# mk/check_macos.sh FILE...: compiles each product source FILE for every
# target in $MACOS_TARGETS with zig's cc ($ZIG), against zig's macOS system
# headers and the library headers in $MACOS_INCLUDE; compile only, nothing
# is linked or kept (-o /dev/null).  $MACOS_CFLAGS are the language and
# warning flags.  One line per failure (V=1: every compile), then
# "N passed, M failed" for tests/step.sh.
#
# A file matching a pattern of $MACOS_PENDING (shell patterns) that fails is
# a skip note, not a failure: a file whose Linux-only calls have not moved
# behind the OS seam yet (issue #32, phase 2).  Without zig: one skip note.
set -uf
if [ ! -x "${ZIG:-}" ]; then
	echo "SKIP check-macos: no zig at ${ZIG:-(unset)}; make deps-zig installs it (tests/zig)"
	echo "0 passed, 0 failed"
	exit 0
fi
echo "check-macos: zig $("$ZIG" version), targets $MACOS_TARGETS, $# sources each"
passed=0 failed=0 pending=0
for t in $MACOS_TARGETS; do
	for f in "$@"; do
		# shellcheck disable=SC2086 # MACOS_CFLAGS is a list of flags
		if out=$("$ZIG" cc -target "$t" $MACOS_CFLAGS -isystem "$MACOS_INCLUDE" \
			-c -o /dev/null "$f" 2>&1); then
			passed=$((passed + 1))
			[ "${V:-0}" = 1 ] && echo "ok   $t $f"
			continue
		fi
		first=$(printf '%s\n' "$out" | grep -m 1 'error:' | sed 's/^[^ ]* //')
		is_pending=0
		for p in ${MACOS_PENDING:-}; do
			# shellcheck disable=SC2254 # p is a pattern
			case $f in $p) is_pending=1 ;; esac
		done
		if [ $is_pending = 1 ]; then
			pending=$((pending + 1))
			echo "SKIP $t $f: pending #32 phase 2 (Linux-only calls outside the OS seam): $first"
			[ "${V:-0}" = 1 ] && printf '%s\n' "$out"
		else
			failed=$((failed + 1))
			echo "FAIL $t $f"
			printf '%s\n' "$out" | grep -E 'error|warning' | sed 's/^/  /'
		fi
	done
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
