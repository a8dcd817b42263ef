#!/bin/sh
# check-record: code outside io/ reads a Run through the structs of
# io/run_record.h, never through the record's encoding (io/run_codec.h).
#
# usage: check_record.sh SYMS ALLOW OBJS SRCS
#   SYMS   the functions io/run_codec.h declares
#   ALLOW  file:function entries that may still use them (each must exist)
#   OBJS   objects of the code outside io/ (nm: none may reference SYMS,
#          except objects built from a source that ALLOW names)
#   SRCS   the sources of that code (text: no file includes io/run_codec.h
#          and no function uses SYMS, except as ALLOW says)
# Prints each offence and exits 1 when there is one.
syms=$1 allow=$2 objs=$3 srcs=$4
bad=0
allowed_file() {
	for a in $allow; do [ "${a%%:*}" = "$1" ] && return 0; done
	return 1
}
for o in $objs; do
	src=${o#build/san/}; src=${src#build/rel/}; src=${src%.o}.c
	allowed_file "$src" && continue
	for s in $(nm -u "$o" | awk '{print $2}'); do
		for w in $syms; do
			if [ "$s" = "$w" ]; then
				echo "check-record: $o calls $s (io/run_codec.h)"; bad=1
			fi
		done
	done
done
for f in $srcs; do
	fns=
	for a in $allow; do [ "${a%%:*}" = "$f" ] && fns="$fns ${a#*:}"; done
	out=$(awk -v syms="$syms" -v fns="$fns" -v file="$f" '
		BEGIN {
			n = split(syms, s, " "); for (i = 1; i <= n; i++) sym[s[i]] = 1
			n = split(fns, a, " "); for (i = 1; i <= n; i++) { ok[a[i]] = 1; seen[a[i]] = 0 }
			fn = ""
		}
		# A definition starts at column 0 with its name before "(", and
		# ends at the "}" in column 0.
		/^[A-Za-z_][^;]*[A-Za-z_0-9]+[ \t]*\(/ && $0 !~ /;[ \t]*$/ {
			line = $0; sub(/\(.*/, "", line); k = split(line, w, /[^A-Za-z_0-9]+/)
			fn = w[k]; if (fn in seen) seen[fn] = 1
		}
		/^#[ \t]*include[ \t]*"io\/run_codec\.h"/ && fns == "" {
			printf "%s:%d: includes io/run_codec.h\n", file, NR
		}
		{
			t = $0
			gsub(/"([^"\\]|\\.)*"/, "", t)	# string literals
			sub(/\/\*.*/, "", t)		# comments (one-line use)
			m = split(t, w, /[^A-Za-z_0-9]+/)
			for (i = 1; i <= m; i++)
				if ((w[i] in sym) && !(fn in ok))
					printf "%s:%d: %s uses %s (io/run_codec.h)\n", file, NR, fn == "" ? "file scope" : fn, w[i]
		}
		/^}/ { fn = "" }
		END {
			for (f in seen) if (!seen[f])
				printf "%s: allow-listed function %s does not exist; drop it from the list\n", file, f
		}' "$f")
	if [ -n "$out" ]; then echo "$out" | sed 's/^/check-record: /'; bad=1; fi
done
[ $bad = 0 ] && echo "check-record: service/, cli/ and mcp/ read the Run record through io/run_record.h ($(echo $allow | wc -w) allow-listed functions)"
exit $bad
