#!/bin/sh
# check-record: code outside io/ reads a Run through the structs of
# io/store/run_record.h, never through the record's encoding (io/store/run_codec.h).
#
# usage: check_record.sh SYMS OBJS SRCS
#   SYMS   the functions io/store/run_codec.h declares
#   OBJS   objects of the code outside io/ (nm: none may reference SYMS)
#   SRCS   the sources of that code (text: no file includes io/store/run_codec.h
#          and no line uses SYMS)
# Prints each offence and exits 1 when there is one.
syms=$1 objs=$2 srcs=$3
bad=0
for o in $objs; do
	for s in $(nm -u "$o" | awk '{print $2}'); do
		for w in $syms; do
			if [ "$s" = "$w" ]; then
				echo "check-record: $o calls $s (io/store/run_codec.h)"; bad=1
			fi
		done
	done
done
for f in $srcs; do
	out=$(awk -v syms="$syms" -v file="$f" '
		BEGIN {
			n = split(syms, s, " "); for (i = 1; i <= n; i++) sym[s[i]] = 1
			fn = ""
		}
		# A definition starts at column 0 with its name before "(", and
		# ends at the "}" in column 0 (named in the report).
		/^[A-Za-z_][^;]*[A-Za-z_0-9]+[ \t]*\(/ && $0 !~ /;[ \t]*$/ {
			line = $0; sub(/\(.*/, "", line); k = split(line, w, /[^A-Za-z_0-9]+/)
			fn = w[k]
		}
		/^#[ \t]*include[ \t]*"io\/store\/run_codec\.h"/ {
			printf "%s:%d: includes io/store/run_codec.h\n", file, NR
		}
		{
			t = $0
			gsub(/"([^"\\]|\\.)*"/, "", t)	# string literals
			sub(/\/\*.*/, "", t)		# comments (one-line use)
			m = split(t, w, /[^A-Za-z_0-9]+/)
			for (i = 1; i <= m; i++)
				if (w[i] in sym)
					printf "%s:%d: %s uses %s (io/store/run_codec.h)\n", file, NR, fn == "" ? "file scope" : fn, w[i]
		}
		/^}/ { fn = "" }' "$f")
	if [ -n "$out" ]; then echo "$out" | sed 's/^/check-record: /'; bad=1; fi
done
[ $bad = 0 ] && echo "check-record: service/, cli/ and mcp/ read the Run record through io/store/run_record.h"
exit $bad
