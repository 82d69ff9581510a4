#!/bin/bash
# Files in /proc report st_size 0 but have content: the copy holds exactly
# what cat reads, one file at a time and several into a directory.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"
files=(/proc/cpuinfo /proc/version /proc/filesystems /proc/cmdline)

for f in "${files[@]}"; do
	say "$f (st_size $(stat -c %s "$f"), cat reads $(wc -c <"$f") bytes)"
	[ -n "$(head -c 1 "$f")" ] ||
		fail "$f is empty here; pick another file"
	copy_generated "$f" "$T/${f##*/}"
	pass "$f -> ${f##*/} equals cat $f"
done

say "several /proc files into a directory"
# The sources are read before and after; a retry (into a fresh directory)
# only when one of them changed in between.
for i in 1 2 3 4 5; do
	d=d.$i
	mkdir "$d"
	for f in "${files[@]}"; do cat "$f" >"ref.${f##*/}"; done
	"$SMARTCP" "${files[@]}" "$d" || fail "smartcp ${files[*]} $d failed"
	same=1
	for f in "${files[@]}"; do
		# cat: cmp trusts st_size 0 and would not read.
		cat "$f" | cmp -s - "ref.${f##*/}" || same=0
	done
	[ $same -eq 1 ] && break
done
for f in "${files[@]}"; do
	assert_same "ref.${f##*/}" "$d/${f##*/}"
done
pass "${files[*]} -> $d/"

say "/proc file over an existing longer destination"
random_file long 100000
copy_generated /proc/version long
pass "destination truncated to the generated length"

say "symlinks whose lstat size is 0: the whole target is copied"
# /proc's links (like ISO 9660 Rock Ridge ones) say st_size 0
mkdir "$T/here"
(cd "$T/here" && "$SMARTCP" -P /proc/self/cwd lk)
assert_eq "$(readlink "$T/here/lk")" "$T/here" "target of the copied /proc/self/cwd"
mkdir "$T/tree"
(cd "$T/tree" && "$SMARTCP" -P /proc/self/exe exe)
assert_eq "$(readlink "$T/tree/exe")" "$(readlink -f "$SMARTCP")" "target of the copied /proc/self/exe"
pass "targets read whole, whatever st_size says"
