#!/bin/bash
# --verify catches a clone that claims success but is wrong (FICLONE
# flips byte 12345; FICLONE copies nothing at all): the file is copied
# again with read_write and ends with the source's bytes.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "clone=flip:12345 --verify"
shim_run 0 clone=flip:12345 -v --verify --road=clone,read_write "$SRC" "$DST"
assert_copied
assert_injected '^ioctl\(.*FICLONE.*byte 12345 flipped \(injected'
assert_chain 'clone -> read_write.*[^0-9]12345([^0-9].*)?'
pass "clone with a flipped byte repaired"

say "clone=noop --verify"
shim_run 0 clone=noop -v --verify --road=clone,read_write "$SRC" "$DST"
assert_copied
assert_injected '^ioctl\(.*FICLONE.*-> 0, nothing copied \(injected'
assert_chain 'clone -> read_write.*'
pass "clone that copied nothing repaired"
