#!/bin/bash
# --verify reads the destination back from the device, not from the page
# cache the copy filled: its dirty pages are written out and waited for
# (sync_file_range), dropped (POSIX_FADV_DONTNEED), and only then read.
# No fdatasync per file unless --sync asks for durability (then fdatasync
# does both jobs), or the pages are still cached after the drop (mincore
# tells; here the fault shim makes mincore fail, which counts the same).
# A write-out that fails is an error writing the destination.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace

need_shim

E=$T/ext4
mount_ext4 "$E"
size=$((3 * 1024 * 1024 + 5))
random_file "$E/src" "$size"

# assert_order LOG ERE...: each ERE matches a line of LOG, and the first
# match of each comes after the first match of the one before; sets
# $lines to those line numbers ("4 5 9").
assert_order() {
	local log=$1 ere n prev=0
	shift
	lines=
	for ere; do
		n=$(grep -En -- "$ere" "$log" | head -n 1 | cut -d: -f1 || true)
		[ -n "$n" ] && [ "$n" -gt "$prev" ] || {
			_show "$log"
			fail "expected, in this order: $* (found: ${lines:-nothing} then ${n:-none} for /$ere/)"
		}
		lines="${lines:+$lines }$n"
		prev=$n
	done
}

strace_verify() { # LOG ARGS...
	local log=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -y -o "$log" \
		-e trace=sync_file_range,fdatasync,fsync,fadvise64,mincore,pread64 \
		"$SMARTCP" "$@"
}

for road in copy_file_range read_write; do
	say "--verify --road=$road: written out, dropped, then read back"
	rm -f "$E/dst"
	strace_verify "$T/log" --verify --road="$road" "$E/src" "$E/dst" ||
		fail "smartcp exited $?"
	assert_same "$E/src" "$E/dst"
	assert_order "$T/log" "sync_file_range\\([0-9]+<$E/dst>.*WAIT_AFTER" \
		"fadvise64\\([0-9]+<$E/dst>.*POSIX_FADV_DONTNEED" \
		"pread64\\([0-9]+<$E/dst>"
	assert_no_grep "fdatasync\\(|fsync\\(" "$T/log"
	pass "sync_file_range, DONTNEED, read back at lines $lines; no fdatasync"
done

say "--sync --verify: fdatasync before the read back, no sync_file_range"
rm -f "$E/dst"
strace_verify "$T/log" --sync --verify "$E/src" "$E/dst" ||
	fail "smartcp exited $?"
assert_same "$E/src" "$E/dst"
assert_order "$T/log" "fdatasync\\([0-9]+<$E/dst>\\) = 0" "pread64\\([0-9]+<$E/dst>"
assert_no_grep "sync_file_range\\(" "$T/log"
pass "fdatasync, read back at lines $lines"

# The shim without match filters: mincore has no file to match.
shim() { # STATUS FAULTS ARGS...
	local want=$1 faults=$2
	shift 2
	rm -f "$E/dst"
	: >"$T/shim.log"
	assert_exit "$want" env LD_PRELOAD="$SHIM" SMARTCP_FAULT="$faults" \
		SMARTCP_FAULT_LOG="$T/shim.log" "$SMARTCP" "$@"
}

say "pages still cached after the drop (mincore cannot tell): fdatasync after all"
shim 0 mincore=enomem,sync=trace --verify "$E/src" "$E/dst"
assert_same "$E/src" "$E/dst"
assert_grep "^mincore\\(.*ENOMEM \\(injected" "$T/shim.log"
assert_order "$T/shim.log" "^sync_file_range\\(.*<$E/dst>" "^fdatasync\\(.*<$E/dst>\\) -> 0"
pass "sync_file_range, mincore failed, fdatasync"

say "the write-out fails (EIO): error writing the destination, exit 1"
shim 1 sync=eio --verify "$E/src" "$E/dst"
assert_grep "^sync_file_range\\(.*<$E/dst>\\) -> EIO \\(injected" "$T/shim.log"
assert_grep "error writing '$E/dst': Input/output error" "$ERR"
! cmp -s "$E/src" "$E/dst" 2>/dev/null ||
	fail "'$E/dst' looks complete although its write-out failed"
pass "$(head -n 1 "$ERR")"

say "a tree: no fdatasync for any file"
mkdir -p "$E/tree/a" "$E/tree/b"
for i in 1 2 3 4 5 6; do
	random_file "$E/tree/a/f$i" $((i * 7001))
	random_file "$E/tree/b/g$i" $((i * 3001))
done
strace_verify "$T/log" -r --verify "$E/tree" "$E/tree-out" ||
	fail "smartcp exited $?"
diff -r "$E/tree" "$E/tree-out" >/dev/null || fail "trees differ"
assert_no_grep "fdatasync\\(|fsync\\(" "$T/log"
n=$(grep -Ec "sync_file_range\\([0-9]+<$E/tree-out/" "$T/log" || true)
assert_eq "$n" 12 "files written out"
pass "12 files written out with sync_file_range, none fdatasync'ed"

say "a block device is read back like a file (its st_size is 0)"
truncate -s 8M "$T/dev.img"
loop=$(losetup -f --show "$T/dev.img") || fail "losetup failed"
_register loop "$loop"
assert_exit 0 "$SMARTCP" -v --verify "$E/src" "$loop"
assert_grep "\\[[a-z_, ]*, verified\\]" "$OUT"
cmp -n "$size" "$E/src" "$loop" || fail "$loop does not hold the source"
pass "$(cat "$OUT")"

say "a block device whose first write goes wrong is written over again"
dd if=/dev/zero of="$loop" bs=1M count=8 status=none
: >"$T/shim.log"
assert_exit 0 env LD_PRELOAD="$SHIM" SMARTCP_FAULT="write=flip:5000@call:1" \
	SMARTCP_FAULT_LOG="$T/shim.log" SMARTCP_FAULT_MATCH_DST="$loop" \
	"$SMARTCP" -v --verify --road=read_write "$E/src" "$loop"
assert_grep "byte 5000 flipped \\(injected" "$T/shim.log"
assert_grep "verify: differed at byte 5000, repaired" "$OUT"
cmp -n "$size" "$E/src" "$loop" || fail "$loop does not hold the source"
pass "$(cat "$OUT")"

say "/dev/null and a FIFO keep nothing to read back: refused, nothing written"
assert_exit 1 "$SMARTCP" --verify "$E/src" /dev/null
assert_grep "cannot verify '/dev/null': nothing written there can be read back" "$ERR"
mkfifo "$T/fifo"
assert_exit 1 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -y -o "$T/log" -e trace=write,pwrite64,splice,copy_file_range \
	"$SMARTCP" --verify "$E/src" "$T/fifo"
assert_grep "cannot verify '$T/fifo'" "$ERR"
assert_no_grep "<$T/fifo>" "$T/log"
pass "both refused with exit 1; no write, splice or copy_file_range into the FIFO"
