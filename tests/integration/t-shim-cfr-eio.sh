#!/bin/bash
# EIO from copy_file_range where the source cannot be read (a bad block
# at $SHIM_AT: copy_file_range and read both fail there) is fatal: exit 1,
# "error reading" names the source, no fallback writes a single byte.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "cfr=eio@$SHIM_AT,read=eio@$SHIM_AT"
shim_run 1 "cfr=eio@$SHIM_AT,read=eio@$SHIM_AT,write=trace" \
	--road=copy_file_range,read_write "$SRC" "$DST"
assert_error reading 'Input/output error'
assert_not_complete "$SHIM_AT"
assert_injected "^copy_file_range\\(.* off=$SHIM_AT .*-> EIO \\(injected"
assert_not_logged '^p?write(64)?\('
pass "EIO on the source: error reading, no fallback"
