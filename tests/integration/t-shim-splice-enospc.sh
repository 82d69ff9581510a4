#!/bin/bash
# ENOSPC while splicing the pipe into the destination after $SHIM_AT
# bytes is fatal: exit 1, "error writing" names the destination, no
# fallback writes.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "splice_write=enospc@$SHIM_AT, --road=splice,read_write"
shim_run 1 "splice_write=enospc@$SHIM_AT,write=trace" \
	--road=splice,read_write "$SRC" "$DST"
assert_error writing 'No space left on device'
assert_not_complete "$SHIM_AT"
assert_injected "^splice\\(.*/out/dst>\\) off=$SHIM_AT .*-> ENOSPC \\(injected"
assert_not_logged '^p?write(64)?\('
pass "ENOSPC writing: error writing, no fallback"
