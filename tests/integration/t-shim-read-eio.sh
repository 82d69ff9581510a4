#!/bin/bash
# EIO reading the source at offset $SHIM_AT: exit 1, "error reading"
# names the source, the destination does not look complete.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "read=eio@$SHIM_AT, --road=read_write"
shim_run 1 "read=eio@$SHIM_AT" --road=read_write "$SRC" "$DST"
assert_error reading 'Input/output error'
assert_not_complete "$SHIM_AT"
assert_injected "^p?read(64)?\\(.* off=$SHIM_AT .*-> EIO \\(injected"
pass "EIO reading: error reading '$SRC'"
