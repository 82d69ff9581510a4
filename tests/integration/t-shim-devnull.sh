#!/bin/bash
# A failed copy removes the destination it wrote -- but only a regular
# file: a device given as the destination (/dev/null here, a FIFO or a
# tape elsewhere) is never unlinked, whatever fails.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"
need_root

random_file "$SRC" "$SHIM_SIZE"
before=$(stat -c '%i %t:%T' /dev/null)

for road in read_write splice; do
	say "read=eio@$SHIM_AT into /dev/null, --road=$road"
	shim_run 1 "read=eio@$SHIM_AT" --road="$road" "$SRC" /dev/null
	assert_grep "error reading '$SRC'" "$ERR"
	if [ ! -c /dev/null ]; then
		# put it back before failing: the rest of the machine needs it
		rm -f /dev/null
		mknod -m 666 /dev/null c 1 3
		fail "/dev/null was removed or replaced"
	fi
	assert_eq "$(stat -c '%i %t:%T' /dev/null)" "$before" "/dev/null"
	pass "/dev/null kept after a failed $road copy"
done
