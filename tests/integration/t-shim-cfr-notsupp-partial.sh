#!/bin/bash
# copy_file_range says "not here" (EXDEV, EOPNOTSUPP) after copying part of
# the file: read_write carries on from the exact offsets reached, so no
# byte is copied twice or skipped.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

for e in EXDEV EOPNOTSUPP; do
	say "cfr=$e after $SHIM_AT bytes"
	shim_run 0 "cfr=$e@$SHIM_AT" -v --road=copy_file_range,read_write \
		"$SRC" "$DST"
	assert_copied
	# The first call really copied SHIM_AT bytes, the next one failed.
	assert_injected "^copy_file_range\\(.* off=0 .*-> $SHIM_AT of "
	assert_injected "^copy_file_range\\(.* off=$SHIM_AT .*-> $e \\(injected"
	assert_chain "copy_file_range: $e -> read_write"
	pass "$e after $SHIM_AT bytes: read_write continued from there"
done
