#!/bin/sh
# mk/diagrams.sh GENDOCS OUT SCENARIO SOURCE...: draws every diagram of
# docs/diagrams/ into OUT: NAME.dot printed by `GENDOCS dot NAME` from the
# code, NAME.svg rendered from it by Graphviz.  SCENARIO is the
# spec/scenarios file the protocol sequence replays; the SOURCEs are the
# program's sources, whose #include lines the layers diagram draws.  Used
# by `make docs` (OUT = docs/diagrams) and `make docs-check`.
set -eu
gendocs=$1 out=$2 scenario=$3
shift 3
command -v dot >/dev/null 2>&1 || {
	echo "mk/diagrams.sh: Graphviz (dot) is missing; run make deps" >&2
	exit 1
}
mkdir -p "$out"
for name in layers run-states protocol-sequence run-store issue-source adapter-ownership; do
	case $name in
	protocol-sequence) set -- "$scenario" ;;
	layers) ;;
	*) set -- ;;
	esac
	# "$@" holds the sources for layers, drawn first.
	"$gendocs" dot "$name" "$@" >"$out/$name.dot.tmp" || { rm -f "$out/$name.dot.tmp"; exit 1; }
	mv "$out/$name.dot.tmp" "$out/$name.dot"
	dot -Tsvg "$out/$name.dot" >"$out/$name.svg.tmp" || { rm -f "$out/$name.svg.tmp"; exit 1; }
	mv "$out/$name.svg.tmp" "$out/$name.svg"
done
