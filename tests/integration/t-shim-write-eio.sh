#!/bin/bash
# EIO writing the destination at offset $SHIM_AT: exit 1, "error
# writing" names the destination, which does not look complete.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "write=eio@$SHIM_AT, --road=read_write"
shim_run 1 "write=eio@$SHIM_AT" --road=read_write "$SRC" "$DST"
assert_error writing 'Input/output error'
assert_not_complete "$SHIM_AT"
assert_injected "^p?write(64)?\\(.* off=$SHIM_AT .*-> EIO \\(injected"
pass "EIO writing: error writing '$DST'"
