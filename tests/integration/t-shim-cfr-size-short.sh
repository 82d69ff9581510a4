#!/bin/bash
# The source claims to be shorter than it is (st_size $SHIM_AT of
# $SHIM_SIZE bytes): a kernel road stops at the claimed end, and one read
# past it finds data and read_write copies the rest.
#
# After copy_file_range on a local filesystem the end is no longer read
# but taken from the stat the copy takes anyway (issue 30): there the
# stat is the kernel's own size, which a lie injected above the kernel
# cannot be; a filesystem whose stat does lie (FUSE, network) keeps the
# read, which t-faultfs-size-lie checks on every road.  Here the kernel
# road is splice, after which the read is made on every filesystem.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "stat=size:$SHIM_AT, --road=splice,read_write"
shim_run 0 "stat=size:$SHIM_AT" -v --road=splice,read_write "$SRC" "$DST"
assert_copied
assert_injected "-> st_size $SHIM_AT instead of $SHIM_SIZE \\(injected"
assert_chain 'splice: 0 before end -> read_write'
pass "the claimed end was checked with a read; all bytes copied"
