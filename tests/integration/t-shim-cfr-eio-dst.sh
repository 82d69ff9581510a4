#!/bin/bash
# EIO from copy_file_range while the source reads fine (the destination
# failed) is fatal: exit 1, "error writing" names the destination, no
# fallback writes a single byte.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "cfr=eio@$SHIM_AT"
shim_run 1 "cfr=eio@$SHIM_AT,write=trace" --road=copy_file_range,read_write \
	"$SRC" "$DST"
assert_error writing 'Input/output error'
assert_not_complete "$SHIM_AT"
assert_injected "^copy_file_range\\(.* off=$SHIM_AT .*-> EIO \\(injected"
assert_not_logged '^p?write(64)?\('
pass "EIO on the destination: error writing, no fallback"
