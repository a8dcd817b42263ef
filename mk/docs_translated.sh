#!/bin/sh
# mk/docs_translated.sh [PAGE...]: the translated-from lines of the
# Chinese and Japanese docs (`make docs-i18n-stamp [PAGES="..."]`).
#
# Every page under docs/zh/ and docs/ja/ (templates *.md.in included)
# starts with
#     <!-- translated-from: en/PATH sha256:HEX -->
# naming the English page it translates and the SHA-256 of that page's
# bytes when the translation was last brought up to date.  When the
# English page changes, tests/e2e/test_docs_i18n.py reports the
# translation as stale until this line is stamped again.
#
# Without PAGE: prints each translated page as ok, stale or unstamped,
# and exits 1 when one is not ok.
# With PAGEs (zh/guides/recovery.md, docs/ja/reference/protocol.md.in,
# ...): writes their line with the English page's digest of now.  Stamp a
# page only after its translation says what the current English says.  A
# generated page (one with a template beside it) is stamped through its
# template, then `make docs`.
set -eu
cd "$(dirname "$0")/.."

digest() { sha256sum "$1" | cut -d' ' -f1; }

# The English page a translation follows: en/PATH for zh|ja/PATH.
english() { printf 'en/%s\n' "${1#*/}"; }

status() {
	page=$1 en=$(english "$1")
	[ -f "docs/$en" ] || { echo "no-english $page (docs/$en does not exist)"; return 1; }
	line=$(head -n 1 "docs/$page")
	want=$en
	# A generated page carries its template's line.
	[ -f "docs/$page.in" ] && want=$en.in
	case $line in
	"<!-- translated-from: $want sha256:"*" -->") ;;
	*) echo "unstamped $page"; return 1 ;;
	esac
	got=${line#"<!-- translated-from: $want sha256:"}
	got=${got%" -->"}
	if [ "$got" = "$(digest "docs/$want")" ]; then echo "ok $page"; else echo "stale $page (docs/$want changed)"; return 1; fi
}

if [ $# -eq 0 ]; then
	rc=0
	for f in $(cd docs && find zh ja -type f \( -name '*.md' -o -name '*.md.in' \) 2>/dev/null | sort); do
		status "$f" || rc=1
	done
	exit $rc
fi

for arg in "$@"; do
	page=${arg#docs/}
	case $page in
	zh/*|ja/*) ;;
	*) echo "mk/docs_translated.sh: $arg is not a page under docs/zh or docs/ja" >&2; exit 2 ;;
	esac
	[ -f "docs/$page" ] || { echo "mk/docs_translated.sh: docs/$page does not exist" >&2; exit 2; }
	if [ -f "docs/$page.in" ]; then
		echo "mk/docs_translated.sh: docs/$page is generated; stamp docs/$page.in, then run make docs" >&2
		exit 2
	fi
	en=$(english "$page")
	[ -f "docs/$en" ] || { echo "mk/docs_translated.sh: docs/$en does not exist" >&2; exit 2; }
	line="<!-- translated-from: $en sha256:$(digest "docs/$en") -->"
	tmp="docs/$page.stamp-tmp"
	if head -n 1 "docs/$page" | grep -q '^<!-- translated-from: '; then
		{ echo "$line"; tail -n +2 "docs/$page"; } >"$tmp"
	else
		{ echo "$line"; cat "docs/$page"; } >"$tmp"
	fi
	mv "$tmp" "docs/$page"
	echo "stamped $page ($en)"
done
