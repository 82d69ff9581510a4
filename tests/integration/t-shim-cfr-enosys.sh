#!/bin/bash
# A kernel without copy_file_range (before 4.5: ENOSYS): the copy falls
# back to read_write from offset 0 and the bytes are the source's.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "cfr=enosys, --road=copy_file_range,read_write"
shim_run 0 cfr=enosys -v --road=copy_file_range,read_write "$SRC" "$DST"
assert_copied
assert_injected '^copy_file_range\(.* off=0 .*-> ENOSYS \(injected'
assert_chain 'copy_file_range: ENOSYS -> read_write'
pass "ENOSYS falls back to read_write"

# (FICLONE refused too, in case $T is on a filesystem that clones.)
say "cfr=enosys, default plan"
shim_run 0 clone=eopnotsupp,cfr=enosys -v "$SRC" "$DST"
assert_copied
assert_injected '^copy_file_range\(.*-> ENOSYS \(injected'
assert_chain '(.* -> )?copy_file_range: ENOSYS -> read_write'
pass "ENOSYS falls back to read_write with the default plan"
