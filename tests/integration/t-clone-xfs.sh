#!/bin/bash
# xfs made with reflink=1 -> the same xfs clones: FICLONE returns 0 and the
# extents are shared afterwards; no copy_file_range is needed.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace filefrag

X=$T/xfs
mount_xfs "$X"
size=$((5 * 1024 * 1024 + 123))

say "xfs -> same xfs, $size bytes"
random_file "$X/src" "$size"
sync
trace_smartcp "$T/log" -v "$X/src" "$X/dst" >"$T/v" || fail "smartcp exited $?"
assert_same "$X/src" "$X/dst"
assert_ok_calls "$T/log" FICLONE -ge 1
assert_calls "$T/log" copy_file_range -eq 0
assert_line "'$X/src' -> '$X/dst' [clone]" "$T/v"
sync
filefrag -v "$X/dst" >"$T/frag"
assert_grep 'shared' "$T/frag"
filefrag -v "$X/src" >"$T/frag"
assert_grep 'shared' "$T/frag"
pass "cloned, extents shared: $(roads_called "$T/log")"

say "xfs -> a directory on the same xfs"
mkdir "$X/d"
trace_smartcp "$T/log2" "$X/src" "$X/d" || fail "smartcp exited $?"
assert_same "$X/src" "$X/d/src"
assert_ok_calls "$T/log2" FICLONE -ge 1
pass "cloned into d/"

say "--json names the road"
check_json_road clone "$X/src" "$X/dst.json"
assert_same "$X/src" "$X/dst.json"
