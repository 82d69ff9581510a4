#!/bin/bash
# One directory of 200,000 entries (a mail spool, a cache) copies whole:
# its listing is read in full and sorted by inode, and its files go to the
# -j workers in runs, so the state a directory holds grows with it.  On a
# tmpfs of its own, so the test needs neither disk space nor a clean
# cache: -r with the default -j, the copy compared entry by entry (names,
# sizes, contents) with tests/treecmp, and a few files with cmp; then -a
# into it again (every file exists) with -v, one line per file.
# FLAT_ENTRIES sets the count (the test says when it lowers it to fit).
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts a tmpfs"
need_cmd perl
need_treecmp

N=${FLAT_ENTRIES:-200000}
# source and copy: a 4 KiB page per non-empty file on tmpfs, ~1 KiB of
# kernel memory per inode
avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [ "$avail_kib" -lt $((N * 2 * 6)) ]; then
	skip "$((avail_kib / 1024)) MiB available: too little memory for two trees of $N entries"
fi

do_mount "$T/fs" -t tmpfs -o "size=$((N * 2 * 5))k,nr_inodes=$((N * 2 + 1000))" flat
cd "$T/fs"

say "making one directory of $N files (0-64 bytes)"
perl -e '
	my ($n) = @ARGV; srand(7);
	mkdir "src" or die "src: $!\n";
	for my $i (0 .. $n - 1) {
		my $f = sprintf "src/m%07d", $i;
		open my $o, ">", $f or die "$f: $!\n";
		print $o "x" x int rand 65;
		close $o or die "$f: $!\n";
	}' "$N"
assert_eq "$(find src -maxdepth 1 -type f | wc -l)" "$N" "files made"

say "smartcp -r of the directory"
assert_exit 0 "$SMARTCP" -r src dst
[ ! -s "$ERR" ] || { _show "$ERR"; fail "smartcp said something on stderr"; }
"$TREECMP" src dst >"$T/cmp.out" 2>&1 || { _show "$T/cmp.out"; fail "the copy differs"; }
assert_eq "$(find dst -maxdepth 1 -type f | wc -l)" "$N" "files copied"
for i in 0 1 $((N / 2)) $((N - 1)); do
	f=$(printf 'm%07d' "$i")
	assert_same "src/$f" "dst/$f"
done
pass "$N entries, the copy equal to the source"

say "smartcp -a -v into the copy again: one line per file"
assert_exit 0 "$SMARTCP" -a -v src/. dst
assert_eq "$(grep -c "^'src/\./m" "$OUT")" "$N" "-v lines"
"$TREECMP" -a src dst >"$T/cmp.out" 2>&1 || { _show "$T/cmp.out"; fail "the -a copy differs"; }
pass "-a over an existing copy: $N lines, attributes equal"
