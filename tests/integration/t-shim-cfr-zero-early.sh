#!/bin/bash
# copy_file_range returns 0 before the end of a regular file whose size
# is true (after $SHIM_AT bytes): a 0 proves nothing about EOF, one read
# finds more data and read_write copies the rest.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "cfr=zero@$SHIM_AT"
shim_run 0 "cfr=zero@$SHIM_AT" -v --road=copy_file_range,read_write \
	"$SRC" "$DST"
assert_copied
assert_injected "^copy_file_range\\(.* off=0 .*-> $SHIM_AT of "
assert_injected "^copy_file_range\\(.* off=$SHIM_AT .*-> 0 \\(injected"
assert_chain 'copy_file_range: 0 before end -> read_write'
pass "0 before EOF: read_write copied the rest"
