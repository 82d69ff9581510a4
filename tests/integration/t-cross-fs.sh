#!/bin/bash
# Across filesystems (btrfs -> xfs, xfs -> btrfs, ext4 -> tmpfs,
# tmpfs -> ext4) the copy is exact, and smartcp neither clones nor calls
# copy_file_range: since Linux 5.19 that only gives EXDEV between different
# filesystems, so the plan skips it.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace

kmaj=$(uname -r | cut -d. -f1)
kmin=$(uname -r | cut -d. -f2)
if [ "$kmaj" -lt 5 ] || { [ "$kmaj" -eq 5 ] && [ "$kmin" -lt 19 ]; }; then
	skip "needs Linux >= 5.19 (cross-filesystem copy_file_range gives EXDEV)"
fi

mount_btrfs "$T/btrfs"
mount_xfs "$T/xfs"
mount_ext4 "$T/ext4"
mount_tmpfs "$T/tmpfs" 64M

size=$((5 * 1024 * 1024 + 123))
for d in btrfs xfs ext4 tmpfs; do
	random_file "$T/$d/src" "$size"
	mkdir "$T/$d/in"
done

# check_cross FROM TO: copy FROM/src -> TO/from-FROM and FROM/src -> TO/in/.
check_cross() {
	local from=$1 to=$2 log=$T/log.$1-$2
	say "$from -> $to, $size bytes"
	trace_smartcp "$log" -v "$T/$from/src" "$T/$to/from-$from" >"$T/v" ||
		fail "smartcp exited $?"
	assert_same "$T/$from/src" "$T/$to/from-$from"
	trace_smartcp "$log.dir" "$T/$from/src" "$T/$to/in" ||
		fail "smartcp exited $?"
	assert_same "$T/$from/src" "$T/$to/in/src"
	cat "$log.dir" >>"$log"
	assert_calls "$log" copy_file_range -eq 0
	assert_calls "$log" FICLONE -eq 0
	case $(v_road "$T/v") in
	clone | copy_file_range) fail "-v names road $(v_road "$T/v")" ;;
	esac
	rm "$T/$to/in/src"
	pass "$from -> $to exact, $(roads_called "$log"), road $(v_road "$T/v")"
}

check_cross btrfs xfs
check_cross xfs btrfs
check_cross ext4 tmpfs
check_cross tmpfs ext4

say "several files from different filesystems into one directory"
mkdir "$T/ext4/many"
cp "$T/xfs/src" "$T/xfs/x1"
cp "$T/tmpfs/src" "$T/tmpfs/t1"
trace_smartcp "$T/log.many" "$T/btrfs/src" "$T/xfs/x1" "$T/tmpfs/t1" \
	"$T/ext4/many" || fail "smartcp exited $?"
assert_same "$T/btrfs/src" "$T/ext4/many/src"
assert_same "$T/xfs/x1" "$T/ext4/many/x1"
assert_same "$T/tmpfs/t1" "$T/ext4/many/t1"
assert_calls "$T/log.many" copy_file_range -eq 0
assert_calls "$T/log.many" FICLONE -eq 0
pass "3 sources -> ext4/many/: $(roads_called "$T/log.many")"
