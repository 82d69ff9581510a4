#!/bin/bash
# The source claims to be shorter than it is (st_size $SHIM_AT of
# $SHIM_SIZE bytes) and copy_file_range returns 0 at that claimed end, as
# the kernel does when it clamps to the size it believes: one read past
# the claimed end finds data and read_write copies the rest.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "stat=size:$SHIM_AT,cfr=zero@$SHIM_AT"
shim_run 0 "stat=size:$SHIM_AT,cfr=zero@$SHIM_AT" -v \
	--road=copy_file_range,read_write "$SRC" "$DST"
assert_copied
assert_injected "-> st_size $SHIM_AT instead of $SHIM_SIZE \\(injected"
# smartcp may stop copy_file_range at the size it believes by itself, or
# get the 0 from it there; either way it must not stop at SHIM_AT.
if grep -q "^copy_file_range(.* off=$SHIM_AT " "$SHIM_LOG"; then
	assert_injected "^copy_file_range\\(.* off=$SHIM_AT .*-> 0 \\(injected"
fi
assert_chain 'copy_file_range: 0 before end -> read_write'
pass "the claimed end was checked with a read; all bytes copied"
