#!/bin/bash
# Short copies from copy_file_range (1 byte, 4096 bytes a call) just
# continue with copy_file_range: no fallback, no byte lost or doubled.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" 40009

say "cfr=short:1, 40009 bytes"
shim_run 0 cfr=short:1 -v --road=copy_file_range,read_write "$SRC" "$DST"
assert_copied
assert_injected '^copy_file_range\(.* off=40007 .*-> 1 of 2 asked'
assert_chain 'copy_file_range'
pass "1 byte a call"

random_file "$SRC" "$SHIM_SIZE"
say "cfr=short:4096, $SHIM_SIZE bytes"
shim_run 0 cfr=short:4096 -v --road=copy_file_range,read_write "$SRC" "$DST"
assert_copied
assert_injected '^copy_file_range\(.* off=4096 .*-> 4096 of '
assert_chain 'copy_file_range'
pass "4096 bytes a call"
