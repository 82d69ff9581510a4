#!/bin/bash
# --verify when the copy stays wrong (every write of byte 2000000 is
# flipped, so the repair with read_write is wrong too): exit 1, the
# message names both files and the first differing byte, and no
# destination is left that looks complete.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

for faults in write=flip:2000000 cfr=flip,write=flip:2000000; do
	case $faults in
	cfr*) roads=copy_file_range,read_write ;;
	*) roads=read_write ;;
	esac
	say "$faults --verify --road=$roads"
	shim_run 1 "$faults" --verify --road="$roads" "$SRC" "$DST"
	assert_injected '^p?write(64)?\(.*byte 2000000 flipped \(injected'
	assert_grep "'$DST'.*'$SRC'|'$SRC'.*'$DST'" "$ERR"
	assert_grep "[^0-9]2000000([^0-9]|\$)" "$ERR"
	assert_not_complete
	pass "still wrong after the repair: exit 1, byte 2000000 named"
done
