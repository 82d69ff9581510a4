#!/bin/bash
# splice refused on its first call (EINVAL, ENOSYS) is "not here": the
# copy falls back to read_write from offset 0.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

for e in EINVAL ENOSYS; do
	say "splice=$e@call:1, --road=splice,read_write"
	shim_run 0 "splice=$e@call:1" -v --road=splice,read_write "$SRC" "$DST"
	assert_copied
	assert_injected "^splice\\(.* off=0 .*-> $e \\(injected"
	assert_chain "splice: $e -> read_write"
	pass "$e falls back to read_write"
done
