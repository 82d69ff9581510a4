#!/bin/bash
# Filesystem facts where st_dev does not name the mount: overlay (files
# report the lower or upper layer's device) and bind mounts (two mounts,
# one filesystem).  The facts must say overlay for the overlay, one
# filesystem for a bind mount (so copy_file_range is planned and works),
# and every copy must be exact.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace

E=$T/ext4
mount_ext4 "$E"
mkdir -p "$E/lower" "$E/upper" "$E/work" "$E/plain"
random_file "$E/lower/low" $((3 * 1024 * 1024 + 5))
do_mount "$T/ovl" -t overlay -o "lowerdir=$E/lower,upperdir=$E/upper,workdir=$E/work" overlay
random_file "$T/ovl/up" $((2 * 1024 * 1024 + 9))

say "--explain sees the overlay as overlay"
"$SMARTCP" --explain "$T/ovl/low" "$E/plain/x" >"$T/explain"
assert_grep "source: +overlay .*\\(overlay" "$T/explain"
assert_grep "dest: +ext4 " "$T/explain"
pass "$(grep source: "$T/explain")"

say "overlay -> ext4 and ext4 -> overlay copy exactly, whatever road"
for f in low up; do
	"$SMARTCP" -v "$T/ovl/$f" "$E/plain/$f" >"$T/v"
	assert_same "$T/ovl/$f" "$E/plain/$f"
	"$SMARTCP" -v "$E/plain/$f" "$T/ovl/$f.back" >>"$T/v"
	assert_same "$E/plain/$f" "$T/ovl/$f.back"
done
pass "roads: $(v_road "$T/v" | sort -u | tr '\n' ' ')"

say "a bind mount of the ext4 is the same filesystem: copy_file_range"
do_mount "$T/bind" --bind "$E/plain"
"$SMARTCP" --explain "$E/lower/low" "$T/bind/viabind" >"$T/explain2"
assert_grep "plan: +copy_file_range" "$T/explain2"
trace_smartcp "$T/log" -v "$E/lower/low" "$T/bind/viabind" >"$T/v2"
assert_same "$E/lower/low" "$T/bind/viabind"
assert_ok_calls "$T/log" copy_file_range -ge 1
assert_grep "\\[copy_file_range\\]" "$T/v2"
pass "bind mount: $(cat "$T/v2")"
