#!/bin/bash
# ENOSPC after $SHIM_AT bytes written: exit 1, "error writing" names
# the destination, which does not look complete.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "write=enospc@$SHIM_AT, --road=read_write"
shim_run 1 "write=enospc@$SHIM_AT" --road=read_write "$SRC" "$DST"
assert_error writing 'No space left on device'
assert_not_complete "$SHIM_AT"
assert_injected "^p?write(64)?\\(.* off=$SHIM_AT .*-> ENOSPC \\(injected"
pass "ENOSPC: error writing '$DST'"
