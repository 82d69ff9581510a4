#!/bin/bash
# ENOSPC from copy_file_range after $SHIM_AT bytes is fatal: exit 1,
# "error writing" names the destination, no fallback writes a byte.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "cfr=enospc@$SHIM_AT"
shim_run 1 "cfr=enospc@$SHIM_AT,write=trace" \
	--road=copy_file_range,read_write "$SRC" "$DST"
assert_error writing 'No space left on device'
assert_not_complete "$SHIM_AT"
assert_injected "^copy_file_range\\(.* off=$SHIM_AT .*-> ENOSPC \\(injected"
assert_not_logged '^p?write(64)?\('
pass "ENOSPC: error writing, no fallback"
