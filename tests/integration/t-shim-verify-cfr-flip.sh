#!/bin/bash
# --verify catches an offload that claims success but wrote a wrong byte
# (copy_file_range flips byte 2000000): the mismatch is named, the file is
# copied again with read_write, and it ends with the source's bytes.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "cfr=flip:2000000 --verify"
shim_run 0 cfr=flip:2000000 -v --verify "$SRC" "$DST"
assert_copied
assert_injected '^copy_file_range\(.*-> [0-9]+, byte 2000000 flipped \(injected'
# The -v line names the road that lied, the repair and the offset.
assert_chain 'copy_file_range -> read_write.*[^0-9]2000000([^0-9].*)?'
pass "lying copy_file_range repaired"
