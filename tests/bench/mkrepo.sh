#!/bin/sh
# Creates a synthetic repository for bench_observe: $2 tracked files in
# directories of 100, committed, then 3 modified and 2 untracked; with a
# third argument "staged", one more file is modified and staged.
# Usage: mkrepo.sh DIR COUNT [staged]
set -eu
dir=$1 n=$2 staged=${3:-}
[ -f "$dir/.bench-ready-$n" ] && exit 0
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
git init -q .
git config user.email bench@example.invalid
git config user.name bench
awk -v n="$n" 'BEGIN {
	for (i = 0; i < n; i++) {
		d = sprintf("d%03d", int(i / 100));
		if (i % 100 == 0) system("mkdir -p " d);
		f = sprintf("%s/f%05d.txt", d, i);
		printf "file %d\nline two of %d\n", i, i > f;
		close(f);
	}
}'
sleep 1	# keep the index strictly newer than every file (no racy entries)
git add -A
git commit -q -m init
echo change >> d000/f00000.txt
echo change >> d000/f00001.txt
echo change >> "$(ls -d d*/ | tail -1)$(ls "$(ls -d d*/ | tail -1)" | head -1)"
if [ "$staged" = staged ]; then
	echo staged >> d000/f00002.txt
	git add d000/f00002.txt
fi
echo new > untracked-1.txt
mkdir -p newdir && echo new > newdir/untracked-2.txt
git -c core.fsmonitor=false status --porcelain=v2 >/dev/null   # refresh stat data once
touch ".bench-ready-$n"
echo ".bench-ready-*" >> .git/info/exclude
