#!/bin/bash
# Short splices (1 byte, 4096 bytes a call, into and out of the pipe)
# just continue with splice: no fallback, no byte lost or doubled.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" 40009

say "splice_read=short:3,splice_write=short:1, 40009 bytes"
shim_run 0 splice_read=short:3,splice_write=short:1 -v --road=splice \
	"$SRC" "$DST"
assert_copied
assert_injected '^splice\(.*/in/src>, [0-9]+<pipe:.*-> 3 of '
assert_injected '^splice\([0-9]+<pipe:.*/out/dst>\) .*-> 1 of 3 asked'
assert_injected '^splice\([0-9]+<pipe:.*/out/dst>\) .*-> 1 of 2 asked'
assert_chain 'splice'
pass "3 bytes into the pipe, 1 byte out a call"

random_file "$SRC" "$SHIM_SIZE"
say "splice=short:4096, $SHIM_SIZE bytes"
shim_run 0 splice=short:4096 -v --road=splice "$SRC" "$DST"
assert_copied
assert_injected '^splice\(.*/in/src>, [0-9]+<pipe:.*-> 4096 of '
assert_chain 'splice'
pass "4096 bytes into the pipe a call"

say "splice_write=short:4096, $SHIM_SIZE bytes"
shim_run 0 splice_write=short:4096 -v --road=splice "$SRC" "$DST"
assert_copied
assert_injected '^splice\([0-9]+<pipe:.*/out/dst>\) .*-> 4096 of '
assert_chain 'splice'
pass "4096 bytes out of the pipe a call"
