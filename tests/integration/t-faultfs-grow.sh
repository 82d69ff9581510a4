#!/bin/bash
# A FUSE file that grows on every read (faultfs grow@N: each read request,
# once served, appends N bytes): a log written at least as fast as it is
# read.  A copy that went on to the end a read finds would never end;
# smartcp follows the file past its old size to the size it had by then,
# stops there, says that it grew and exits 1.  The copy is a prefix of
# the file, at least as long as the file was, on every road that can read
# FUSE (copy_file_range and splice hand over to read_write or serve).
# With --verify --allow-changing-source the copy is proven against what
# was read, and the run succeeds.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

F=$T/f
mount_faultfs "$F"
mkdir -p "$F/in" "$T/out"
random_file "$T/orig" "$FF_SIZE"

for road in default copy_file_range splice read_write; do
	say "$road: the source grows by 256 KiB on every read request"
	rm -f "$F/in/src" "$T/out/dst"
	cp "$T/orig" "$F/in/src"
	set_fault "$F/in/src" grow@262144
	# shellcheck disable=SC2046
	assert_exit 1 timeout 60 "$SMARTCP" -v $(road_opts "$road") \
		"$F/in/src" "$T/out/dst"
	assert_grep "^$SMARTCP: '$F/in/src' changed while it was copied: grew from $FF_SIZE to [0-9]+ bytes\$" "$ERR"
	assert_grep "source changed: grew from $FF_SIZE to [0-9]+ bytes\]\$" "$OUT"
	assert_fault_hit "$F" "grew by 262144"
	n=$(stat -c %s "$T/out/dst")
	assert_le "$FF_SIZE" "$n" "bytes copied"
	cmp -s -n "$FF_SIZE" "$T/orig" "$T/out/dst" ||
		fail "the copy does not start with the file's old bytes"
	clear_fault "$F/in/src"
	cmp -s -n "$n" "$T/out/dst" "$F/in/src" ||
		fail "the copy is not a prefix of the file"
	pass "$road: ended at $n bytes, a prefix of $(stat -c %s "$F/in/src")"
done

say "--verify --allow-changing-source: proven by what was read, exit 0"
# the user said the file is live: the copy is checked against the bytes
# read (read_write alone, whatever road is named), never by reading the
# file again (issue 37, item 6: "changed ... and again while it was
# copied once more", nothing left)
for road in default copy_file_range read_write; do
	rm -f "$F/in/src" "$T/out/dst"
	cp "$T/orig" "$F/in/src"
	set_fault "$F/in/src" grow@262144
	ropts=()
	[ "$road" = default ] || ropts=(--road="$road,read_write")
	assert_exit 0 timeout 60 "$SMARTCP" -v --verify --allow-changing-source \
		${ropts[@]+"${ropts[@]}"} "$F/in/src" "$T/out/dst"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty"; }
	assert_grep "\[read_write, source changed: grew from $FF_SIZE to [0-9]+ bytes, verified\]\$" "$OUT"
	n=$(stat -c %s "$T/out/dst")
	assert_le "$FF_SIZE" "$n" "bytes copied"
	clear_fault "$F/in/src"
	cmp -s -n "$n" "$T/out/dst" "$F/in/src" ||
		fail "the copy is not a prefix of the file"
	pass "$road: verified, $n bytes, a prefix of $(stat -c %s "$F/in/src")"
done
