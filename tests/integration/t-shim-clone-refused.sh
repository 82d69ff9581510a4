#!/bin/bash
# FICLONE refused (EOPNOTSUPP, EXDEV, EINVAL) is "not here": the copy
# falls back to the next road and the -v chain names the errno.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

for e in EOPNOTSUPP EXDEV EINVAL; do
	say "clone=$e, --road=clone,read_write"
	shim_run 0 "clone=$e" -v --road=clone,read_write "$SRC" "$DST"
	assert_copied
	assert_injected "^ioctl\\(.*/out/dst>, FICLONE, .*/in/src>\\) -> $e \\(injected"
	assert_chain "clone: $e -> read_write"
	pass "$e falls back to read_write"
done
