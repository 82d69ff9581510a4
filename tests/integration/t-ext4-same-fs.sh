#!/bin/bash
# ext4 -> the same ext4 takes copy_file_range (the kernel copies in place,
# no bytes through smartcp), and no FICLONE is tried: ext4 cannot share
# extents and smartcp knows it.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace

E=$T/ext4
mount_ext4 "$E"
size=$((5 * 1024 * 1024 + 123))
random_file "$E/src" "$size"
mkdir "$E/dir"

say "ext4 file -> same ext4, $size bytes"
trace_smartcp "$T/log" -v "$E/src" "$E/dst" >"$T/v" ||
	fail "smartcp exited $?"
assert_same "$E/src" "$E/dst"
assert_ok_calls "$T/log" copy_file_range -ge 1
assert_calls "$T/log" FICLONE -eq 0
assert_calls "$T/log" splice -eq 0
assert_line "'$E/src' -> '$E/dst' [copy_file_range]" "$T/v"
pass "copy_file_range, no clone: $(roads_called "$T/log")"

say "several files into a directory of the same ext4"
random_file "$E/small" 1
trace_smartcp "$T/log2" -v "$E/src" "$E/small" "$E/dir" >"$T/v2" ||
	fail "smartcp exited $?"
assert_same "$E/src" "$E/dir/src"
assert_same "$E/small" "$E/dir/small"
assert_calls "$T/log2" FICLONE -eq 0
assert_ok_calls "$T/log2" copy_file_range -ge 2
assert_eq "$(v_road "$T/v2" | sort -u)" copy_file_range "roads of -v lines"
pass "both by copy_file_range: $(roads_called "$T/log2")"

say "--json names the road"
check_json_road copy_file_range "$E/src" "$E/dst.json"
assert_same "$E/src" "$E/dst.json"
