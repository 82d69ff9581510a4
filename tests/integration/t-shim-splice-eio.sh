#!/bin/bash
# EIO while splicing the source into the pipe after $SHIM_AT bytes is
# fatal: exit 1, "error reading" names the source, no fallback writes.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "splice_read=eio@$SHIM_AT, --road=splice,read_write"
shim_run 1 "splice_read=eio@$SHIM_AT,write=trace" --road=splice,read_write \
	"$SRC" "$DST"
assert_error reading 'Input/output error'
assert_not_complete "$SHIM_AT"
assert_injected "^splice\\(.*/in/src>, .* off=$SHIM_AT .*-> EIO \\(injected"
assert_not_logged '^p?write(64)?\('
pass "EIO reading: error reading, no fallback"
