#!/bin/sh
# Creates a repository shaped like a real project for the benchmarks: COUNT
# tracked files of 1-2 KiB under src/gNNN/dNN/ (20 files per directory, 20
# directories per group), committed and packed (`git repack -a -d`, one pack
# as after a clone), then five files modified, one modified and staged, one
# deleted, three untracked files beside tracked ones and two in a new
# folder; the index is refreshed by one `git status` at the end.
# Usage: mkrepo_real.sh DIR COUNT
set -eu
dir=$1 n=$2
[ -f "$dir/.git/bench-real-ready-$n" ] && exit 0
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
git init -q .
git config user.email bench@example.invalid
git config user.name bench
awk -v n="$n" 'BEGIN {
	srand(23);
	line = "abcdefghijklmnopqrstuvwxyz0123456789 the quick brown fox jumps over";
	for (i = 0; i < n; i++) {
		d = sprintf("src/g%03d/d%02d", int(i / 400), int(i / 20) % 20);
		if (i % 20 == 0) system("mkdir -p " d);
		f = sprintf("%s/f%02d.c", d, i % 20);
		size = 1024 + int(rand() * 1024);
		printf "/* file %d */\n", i > f;
		for (w = 12; w < size; w += 70)
			printf "%05d %s\n", i, substr(line, 1, 63) > f;
		close(f);
	}
}'
sleep 1	# keep the index strictly newer than every file (no racy entries)
git add -A
git commit -q -m init
git repack -q -a -d
git prune-packed
# path I: the tracked file of index I (as the awk above names it)
path() { printf 'src/g%03d/d%02d/f%02d.c' $(($1 / 400)) $(($1 / 20 % 20)) $(($1 % 20)); }
for i in 0 1 $((n / 2)) $((n - 2)) $((n - 1)); do
	echo "/* modified */" >> "$(path "$i")"
done
echo "/* staged */" >> "$(path 2)"
git add "$(path 2)"
rm "$(path 3)"
for i in 0 $((n / 2)) $((n - 1)); do
	echo "new" > "$(dirname "$(path "$i")")/new$i.c"
done
mkdir src/newfolder && echo "new" > src/newfolder/a.c && echo "new" > src/newfolder/b.c
git -c core.fsmonitor=false status --porcelain=v2 >/dev/null   # refresh stat data once
touch ".git/bench-real-ready-$n"
