#!/bin/bash
# A FUSE file whose stat says 0 or 4096 bytes while reads give 3 MiB
# (generated-content behaviour, delivered by the kernel from faultfs) is
# copied exactly on every road: the default plan, copy_file_range, splice
# and read_write, to the same faultfs and to the local disk.  The kernel
# roads stop at the size stat claims (the kernel cuts copy_file_range's
# count to it) and read_write carries on to the real end; the source is
# unchanged.  --explain plans copy_file_range first for faultfs to faultfs.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

ff_setup

say "--explain for a faultfs file that says st_size 0"
set_fault "$T/ff/in/src" size=0
assert_exit 0 "$SMARTCP" --explain "$T/ff/in/src" "$T/ff/out/dst"
clear_fault "$T/ff/in/src"
assert_grep '^  source: +fuse\.faultfs ' "$OUT"
assert_grep '^  plan: +copy_file_range, read_write$' "$OUT"
[ ! -e "$T/ff/out/dst" ] || fail "--explain created the destination"
pass "plan: copy_file_range, read_write"

ff_all_roads size0 size4096 size0_to_local size4096_to_local
