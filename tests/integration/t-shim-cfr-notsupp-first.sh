#!/bin/bash
# copy_file_range says "not here" on its first call (EXDEV, EOPNOTSUPP,
# EINVAL, EBADF, EPERM, ETXTBSY, EACCES): the copy falls back to
# read_write from offset 0, and the -v chain names the errno.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

for e in EXDEV EOPNOTSUPP EINVAL EBADF EPERM ETXTBSY EACCES; do
	say "cfr=$e on the first call"
	shim_run 0 "cfr=$e@0" -v --road=copy_file_range,read_write "$SRC" "$DST"
	assert_copied
	assert_injected "^copy_file_range\\(.* off=0 .*-> $e \\(injected"
	assert_chain "copy_file_range: $e -> read_write"
	pass "$e falls back to read_write"
done
