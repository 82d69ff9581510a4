#!/bin/bash
# btrfs -> the same btrfs clones (FICLONE returns 0, the extents are shared
# afterwards), also from one subvolume to another, and to a subvolume
# mounted on its own (cross-mount clone, Linux >= 5.18).
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace filefrag btrfs

B=$T/btrfs
mount_btrfs "$B"
size=$((5 * 1024 * 1024 + 123))

# check_clone SRC DST: run smartcp under strace and check the clone.
check_clone() {
	local src=$1 dst=$2 log
	log=$T/log.${dst##*/}
	trace_smartcp "$log" -v "$src" "$dst" >"$T/v" || fail "smartcp exited $?"
	assert_same "$src" "$dst"
	assert_ok_calls "$log" FICLONE -ge 1
	assert_calls "$log" copy_file_range -eq 0
	assert_line "'$src' -> '$dst' [clone]" "$T/v"
	sync
	filefrag -v "$dst" >"$T/frag"
	assert_grep 'shared' "$T/frag"
	filefrag -v "$src" >"$T/frag"
	assert_grep 'shared' "$T/frag"
	pass "$src -> $dst cloned, extents shared: $(roads_called "$log")"
}

say "btrfs -> same btrfs, $size bytes"
random_file "$B/src" "$size"
sync
check_clone "$B/src" "$B/dst"

say "subvolume -> another subvolume of the same btrfs"
btrfs -q subvolume create "$B/sv1"
btrfs -q subvolume create "$B/sv2"
random_file "$B/sv1/f" "$size"
sync
[ "$(stat -c %d "$B/sv1/f")" != "$(stat -c %d "$B/sv2")" ] ||
	fail "subvolumes share st_dev; the test means to cross st_dev"
check_clone "$B/sv1/f" "$B/sv2/f"

say "subvolume -> the other subvolume mounted on its own"
do_mount "$T/sv2" -t btrfs -o subvol=sv2 "$(findmnt -n -o SOURCE "$B")"
check_clone "$B/sv1/f" "$T/sv2/g"
assert_same "$B/sv1/f" "$B/sv2/g"

say "--json names the road"
check_json_road clone "$B/src" "$B/dst.json"
assert_same "$B/src" "$B/dst.json"
