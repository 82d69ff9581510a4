#!/bin/bash
# FICLONE failing with EIO or ENOSPC is fatal: exit 1, the message names
# a side and its file, and no other road writes a byte.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

for e in EIO:'Input/output error' ENOSPC:'No space left on device'; do
	name=${e%%:*}
	text=${e#*:}
	say "clone=$name, --road=clone,read_write"
	shim_run 1 "clone=$name,write=trace" --road=clone,read_write \
		"$SRC" "$DST"
	# FICLONE cannot say which side failed; either is a fair report.
	assert_error either "$text"
	assert_not_complete 0
	assert_injected "^ioctl\\(.*FICLONE.*-> $name \\(injected"
	assert_not_logged '^p?write(64)?\('
	pass "$name from FICLONE: exit 1, no fallback"
done
