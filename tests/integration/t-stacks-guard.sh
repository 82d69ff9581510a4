#!/bin/bash
# A real copy meets a known-bad stack, and the guard prevents the damage.
# The fault shim plays the stack: statmount says the test's tmpfs is
# zfs (SMARTCP_FAULT_FSTYPE), a directory standing in for /sys/module
# gives the OpenZFS version (SMARTCP_SYS_MODULE), and the shim makes the
# road of the bug do what the bug did: a clone or a copy_file_range that
# writes a wrong byte and claims success, SEEK_DATA that finds no data
# where there is some.  Each time the same copy on a fixed version is
# damaged (the shim bites), and on the bad version it is byte-exact, with
# -v and --json saying why.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts tmpfs"
need_cmd jq
need_shim

mount_tmpfs "$T/mnt"
mnt=$(cd "$T/mnt" && pwd -P)
mkdir "$mnt/src" "$mnt/dst"
random_file "$mnt/src/a" $((3 * 1024 * 1024 + 13))
# a sparse file: data at 1 MiB and 5 MiB, holes around it
truncate -s 8M "$mnt/src/sparse"
head -c 65536 /dev/urandom | dd of="$mnt/src/sparse" bs=64k seek=16 \
	conv=notrunc status=none
head -c 65536 /dev/urandom | dd of="$mnt/src/sparse" bs=64k seek=80 \
	conv=notrunc status=none

# zfs module fixtures: VERSION, or none at all
sysmod() {
	mkdir -p "$T/sys-$1/zfs/parameters"
	[ "$1" = none ] || echo "$1-1" >"$T/sys-$1/zfs/version"
}
for v in 2.1.13 2.1.14 2.2.0 2.2.2 none; do sysmod $v; done

LOG=$T/shim.log
# stacked VERSION FAULTS SMARTCP-ARGS...: smartcp on "zfs" at VERSION, the
# shim making FAULTS on the tmpfs; stdout in $OUT, stderr in $ERR.
stacked() {
	local v=$1 faults=$2
	shift 2
	rm -f "$mnt"/dst/*
	: >"$LOG"
	assert_exit 0 env SMARTCP_SYS_MODULE="$T/sys-$v" LD_PRELOAD="$SHIM" \
		SMARTCP_FAULT_FSTYPE="zfs:$mnt" SMARTCP_FAULT="$faults" \
		SMARTCP_FAULT_LOG="$LOG" SMARTCP_FAULT_MATCH="$mnt/" \
		"$SMARTCP" "$@"
}

stacked 2.2.0 "" --explain "$mnt/src/a" "$mnt/dst/"
grep -q '^  source:  zfs@2.2.0-1 ' "$OUT" ||
	skip "statmount(2) is not what tells the type here (Linux before 6.8?)"

say "block cloning: the shim's clone and copy_file_range flip byte 4096"
stacked 2.2.2 "clone=flip:4096,cfr=flip:4096" -v "$mnt/src/a" "$mnt/dst/"
! cmp -s "$mnt/src/a" "$mnt/dst/a" ||
	fail "the shim did not corrupt the copy on zfs 2.2.2 (fixed): nothing shown"
grep -q 'FICLONE.*byte 4096 flipped' "$LOG" || fail "no clone reached the shim"
pass "on zfs 2.2.2 (fixed) the clone is taken, and the shim corrupts it"

stacked 2.2.0 "clone=flip:4096,cfr=flip:4096,splice=trace" -v \
	"$mnt/src/a" "$mnt/dst/"
assert_same "$mnt/src/a" "$mnt/dst/a"
assert_no_grep 'FICLONE|copy_file_range' "$LOG"
assert_grep 'splice' "$LOG"
assert_line "'$mnt/src/a' -> '$mnt/dst/a' [splice; zfs-dnode-dirty: no hole detection with SEEK_DATA; zfs-bclone-2.2.0: clone, copy_file_range skipped]" "$OUT"
stacked 2.2.0 "clone=flip:4096,cfr=flip:4096" --json "$mnt/src/a" "$mnt/dst/"
assert_same "$mnt/src/a" "$mnt/dst/a"
head -n1 "$OUT" >rec.json
jq -e '.road == "splice" and .source_fs.module == "2.2.0-1" and
	([.skipped[] | select(.reason | endswith("(zfs#15526)")) | .road]
	 == ["clone","copy_file_range"]) and
	(.advisories[] | select(.stack == "zfs-bclone-2.2.0") |
	 .action == "skip")' rec.json >/dev/null ||
	{ _show rec.json; fail "--json does not say why"; }
pass "on zfs 2.2.0 neither is taken: byte-exact, and -v and --json name zfs#15526"

say "hole detection: the shim's SEEK_DATA finds no data (dnode_is_dirty)"
stacked 2.1.14 "seek=enxio" -v "$mnt/src/sparse" "$mnt/dst/"
! cmp -s "$mnt/src/sparse" "$mnt/dst/sparse" ||
	fail "the shim did not corrupt the copy on zfs 2.1.14 (fixed)"
assert_grep 'SEEK_DATA.*ENXIO \(injected' "$LOG"
pass "on zfs 2.1.14 (fixed) holes are looked for, and the copy comes out zeros"

stacked 2.1.13 "seek=enxio" -v "$mnt/src/sparse" "$mnt/dst/"
assert_same "$mnt/src/sparse" "$mnt/dst/sparse"
assert_no_grep 'SEEK_DATA|SEEK_HOLE' "$LOG"
assert_grep "zfs-dnode-dirty: no hole detection with SEEK_DATA\]$" "$OUT"
pass "on zfs 2.1.13 SEEK_DATA is not asked: byte-exact, and -v names the row"

say "a module of unknown version: the clone is taken and verified"
stacked none "clone=flip:4096,cfr=flip:4096" --json "$mnt/src/a" "$mnt/dst/"
assert_same "$mnt/src/a" "$mnt/dst/a"
head -n1 "$OUT" >rec.json
jq -e '.verify == "repaired" and .verify_mismatch_at == 4096 and
	.tried[0].road == "clone" and
	(.advisories[] | select(.stack == "zfs-bclone-2.2.0") |
	 .maybe and .verify and .action == "verify")' rec.json >/dev/null ||
	{ _show rec.json; fail "not verified and repaired"; }
stacked none "clone=flip:4096,cfr=flip:4096" -v "$mnt/src/a" "$mnt/dst/"
assert_same "$mnt/src/a" "$mnt/dst/a"
assert_grep 'verify: differed at byte 4096, repaired; .*zfs-bclone-2\.2\.0: may hold \(module version unknown\); clone taken, the copy verified' "$OUT"
pass "the flipped clone is found and copied again: byte-exact"

say "--road still forces the road a row skips, and names the row"
stacked 2.2.0 "clone=flip:4096" -v --road=clone,read_write \
	"$mnt/src/a" "$mnt/dst/"
! cmp -s "$mnt/src/a" "$mnt/dst/a" || fail "--road=clone was not taken"
assert_grep 'zfs-bclone-2\.2\.0: clone forced' "$OUT"
pass "forced, and named"
