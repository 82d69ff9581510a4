#!/bin/bash
# A FICLONE that succeeds (the shim copies the bytes, as a filesystem
# that shares extents would make them appear) ends the copy: clone is the
# only road taken and the destination holds the source's bytes.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

say "clone=ok, --road=clone"
shim_run 0 clone=ok -v --road=clone "$SRC" "$DST"
assert_copied
assert_injected "^ioctl\\(.*/out/dst>, FICLONE, .*/in/src>\\) -> 0, copied $SHIM_SIZE bytes \\(injected"
assert_chain 'clone'
pass "clone succeeded"

say "clone=ok, --road=clone,copy_file_range,read_write,--reflink=always"
shim_run 0 "clone=ok,cfr=trace,write=trace" -v --reflink=always \
	--road=clone,copy_file_range,read_write "$SRC" "$DST"
assert_copied
assert_chain 'clone'
assert_not_logged '^(copy_file_range|p?write(64)?)\('
pass "nothing else ran after the clone"
