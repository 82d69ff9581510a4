#!/bin/bash
# Server-side copy on FUSE.  (a) Within one faultfs mount (in/ -> out/)
# smartcp plans copy_file_range first (--explain), takes it (-v, --json),
# the kernel hands the call to faultfs (its log shows one copy of the whole
# file) and the bytes are right.  (b) Between two faultfs mounts (same FUSE
# type) smartcp still plans and takes copy_file_range and the bytes are
# right; whether the kernel passes that call to the filesystem is printed,
# not asserted (Linux 6.18 does not: fuse answers EXDEV for two
# connections and the kernel copies through splice itself).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

ff_setup
F=$T/ff
SRC=$F/in/src

say "(a) one mount: $SRC -> $F/out/dst"
assert_exit 0 "$SMARTCP" --explain "$SRC" "$F/out/dst"
assert_grep "^  source: +fuse\\.faultfs faultfs on $F " "$OUT"
assert_grep "^  dest: +fuse\\.faultfs faultfs on $F " "$OUT"
assert_grep '^  plan: +copy_file_range, read_write$' "$OUT"
[ ! -e "$F/out/dst" ] || fail "--explain created the destination"
: >"$F.log"
assert_exit 0 "$SMARTCP" -v "$SRC" "$F/out/dst"
assert_chain copy_file_range
assert_same "$T/ref" "$F/out/dst"
assert_fault_hit "$F" "^copy_file_range /in/src off=0 -> /out/dst off=0 len=$FF_SIZE -> $FF_SIZE\$"
check_json_road copy_file_range "$SRC" "$F/out/dst2"
assert_same "$T/ref" "$F/out/dst2"
assert_same "$T/ref" "$SRC"
pass "copy_file_range served by faultfs, bytes equal"

say "(b) two mounts: $SRC -> $T/ff2/dst"
mount_faultfs "$T/ff2"
assert_exit 0 "$SMARTCP" --explain "$SRC" "$T/ff2/dst"
assert_grep "^  dest: +fuse\\.faultfs faultfs on $T/ff2 " "$OUT"
assert_grep '^  plan: +copy_file_range(, [a-z_]+)*$' "$OUT"
: >"$F.log"
: >"$T/ff2.log"
assert_exit 0 "$SMARTCP" -v "$SRC" "$T/ff2/dst"
assert_chain copy_file_range
assert_same "$T/ref" "$T/ff2/dst"
assert_same "$T/ref" "$SRC"
if grep -q '^copy_file_range ' "$F.log" "$T/ff2.log"; then
	say "note: Linux $(uname -r) passed copy_file_range between two FUSE mounts to the filesystem"
else
	say "note: Linux $(uname -r) copied between two FUSE mounts itself (splice); faultfs saw no copy_file_range"
fi
pass "copy_file_range between two faultfs mounts, bytes equal"
