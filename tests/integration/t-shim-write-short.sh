#!/bin/bash
# Short writes (1 byte, 4096 bytes a call) are continued with the rest
# of the buffer: no byte lost or doubled.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" 40009

say "write=short:1, 40009 bytes"
shim_run 0 write=short:1 -v --road=read_write "$SRC" "$DST"
assert_copied
assert_injected '^p?write(64)?\(.* off=1 .*-> 1 of '
assert_chain 'read_write'
pass "1 byte a call"

random_file "$SRC" "$SHIM_SIZE"
say "write=short:4096, $SHIM_SIZE bytes"
shim_run 0 write=short:4096 -v --road=read_write "$SRC" "$DST"
assert_copied
assert_injected '^p?write(64)?\(.* off=4096 .*-> 4096 of '
assert_chain 'read_write'
pass "4096 bytes a call"
