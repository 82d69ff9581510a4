#!/bin/bash
# A server-side copy_file_range that writes one wrong byte and reports
# success (faultfs flip@1500007).  Without --verify the wrong byte lands
# unnoticed (this proves the fault is real: nothing but reading back can
# see it).  With --verify, on every road, the copy ends byte for byte
# equal: on the copy_file_range roads the mismatch at 1500007 is named in
# the -v line and read_write repairs it; on the others there is nothing to
# repair.  The same when the flip is the destination's (set on its
# directory).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

ff_setup
F=$T/ff
SRC=$F/in/src

say "flip@$FF_MID without --verify"
set_fault "$SRC" "flip@$FF_MID"
assert_exit 0 "$SMARTCP" -v "$SRC" "$F/out/dst"
clear_fault "$SRC"
assert_chain copy_file_range
assert_fault_hit "$F" "^copy_file_range /out/dst byte $FF_MID flipped"
# cmp -l: one differing byte, numbered from 1
got=$(cmp -l "$T/ref" "$F/out/dst" | awk '{ print $1 - 1 }' | tr '\n' ' ' || true)
assert_eq "$got" "$FF_MID " "offsets of the differing bytes"
pass "the lie lands without --verify (byte $FF_MID differs)"

ff_all_roads flip_verify

say "flip@$FF_MID on the destination's side, --verify"
rm -rf "$F/out"
mkdir "$F/out"
set_fault "$F/out" "flip@$FF_MID"
: >"$F.log"
assert_exit 0 "$SMARTCP" -v --verify "$SRC" "$F/out/dst"
clear_fault "$F/out"
assert_fault_hit "$F" "^copy_file_range /out/dst byte $FF_MID flipped"
assert_chain "copy_file_range -> read_write.*[^0-9]$FF_MID([^0-9].*)?"
assert_same "$T/ref" "$F/out/dst"
assert_same "$T/ref" "$SRC"
pass "destination-side flip repaired"
