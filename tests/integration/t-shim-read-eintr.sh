#!/bin/bash
# read() interrupted by a signal (EINTR on every other call) is retried
# transparently: the copy succeeds with every byte.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "read=eintr@every:2, --road=read_write"
shim_run 0 read=eintr@every:2 -v --road=read_write "$SRC" "$DST"
assert_copied
assert_injected '^p?read(64)?\(.* off=0 .*-> EINTR \(injected'
assert_injected "^p?read(64)?\\(.* off=[1-9][0-9]* .*-> EINTR \\(injected"
assert_chain 'read_write'
pass "EINTR on reads retried"
