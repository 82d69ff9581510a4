#!/bin/bash
# The 5.3-5.18 silent zero: the source claims st_size 0 (fstat, statx)
# and copy_file_range returns 0 at offset 0, although the file holds data.
# Size is a hint, not the truth: one real read finds the data and the
# copy goes on with read_write to the real end of the file.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

# FICLONE is refused too, in case $T is on a filesystem that clones.
for roads in copy_file_range,read_write ""; do
	say "stat=size:0,cfr=zero ${roads:+--road=$roads}"
	shim_run 0 clone=eopnotsupp,stat=size:0,cfr=zero -v \
		${roads:+--road=$roads} "$SRC" "$DST"
	assert_copied
	assert_injected "^(f?stat|statx|lstat|fstatat)(64)?\\(.*-> st_size 0 instead of $SHIM_SIZE \\(injected"
	# smartcp may read first (size 0 is confirmed with one read) or call
	# copy_file_range and get the 0; either way read_write ends the copy.
	if grep -q '^copy_file_range(' "$SHIM_LOG"; then
		assert_injected '^copy_file_range\(.* off=0 .*-> 0 \(injected'
	fi
	assert_chain '(.* -> )?read_write'
	pass "size 0 and a 0 from copy_file_range: all $SHIM_SIZE bytes copied"
done
