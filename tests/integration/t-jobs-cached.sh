#!/bin/bash
# Into ext4 without a journal the default -j is one worker at most
# (jobs.c, workers_for()), and that one starts only when the first file
# it would get is not all in the page cache (jobs_ready(): cachestat(2),
# or mincore(2) before Linux 6.5): reads that wait on the device are worth
# a worker, a cached tree copies faster on the walk alone.  Checked on a
# no-journal ext4 image: warm, no thread starts; cold (the filesystem
# mounted again, so nothing of it is cached), one; -j2 given, two either
# way.  Every copy compares equal.
set -eu
. "$(dirname "$0")/lib.sh"
# It mounts its image again to empty the page cache ("cold"): a private
# mount namespace another test makes meanwhile (unshare -m: the matrix,
# t-many-mounts, t-xattr-rules, ...) holds a copy of the mount, and with
# it the filesystem and its cache, and the copy is warm after all.
exclusive "mounts its image again to empty its cache, which another test's mount namespace would keep"
need_root "mounts ext4 without a journal on a loop device"
need_cmd strace losetup mkfs.ext4
# every run here is traced, and LeakSanitizer cannot run under ptrace
# (see trace_smartcp in lib.sh)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

img=$T/nj.img
truncate -s 200M "$img"
loop=$(losetup -f --show "$img") || fail "losetup failed"
_register loop "$loop"
mkfs.ext4 -q -F -O ^has_journal -E lazy_itable_init=0 "$loop" ||
	fail "mkfs.ext4 -O ^has_journal failed"
M=$T/nj
do_mount "$M" -t ext4 "$loop"
dev=$(basename "$loop")	# ext4 names it in sysfs as the block device
[ "$(head -c 6 "/sys/fs/ext4/$dev/journal_task" 2>/dev/null)" = "<none>" ] ||
	skip "this kernel does not say in /sys/fs/ext4/$dev/journal_task that the image has no journal"

perl -e '
	use strict; my $s = shift; srand(3); mkdir $s or die;
	for my $d (1 .. 10) {
		mkdir "$s/d$d" or die;
		for my $f (1 .. 30) {
			open my $o, ">", "$s/d$d/f$f" or die; binmode $o;
			print $o join "", map { chr int rand 256 } 1 .. 1 + ($d * 977 + $f * 131) % 9000;
			close $o or die;
		}
	}' "$M/src"

# copy NAME OPTION...: smartcp OPTION... src NAME, traced; equal
copy() {
	local name=$1
	shift
	assert_exit 0 strace -f -qq -e trace=clone,clone3 -o "$T/$name.log" \
		"$SMARTCP" "$@" "$M/src" "$M/$name"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "smartcp $* said something"; }
	diff -r "$M/src" "$M/$name" >"$T/.diff" 2>&1 ||
		{ _show "$T/.diff"; fail "the copy differs (smartcp $*)"; }
}

# cold: the filesystem mounted again, nothing of it in the page cache
remount() {
	umount "$M" && mount -t ext4 "$loop" "$M" || fail "could not mount the image again"
}

say "warm: the tree is in the page cache"
find "$M/src" -type f -exec cat {} + >/dev/null
copy warm -r
assert_eq "$(count_threads "$T/warm.log")" 0 "threads started for a cached tree"
pass "-r, cached: no worker, the walk copied alone"

say "cold: the image mounted again"
remount
copy cold -r
assert_eq "$(count_threads "$T/cold.log")" 1 "threads started for a tree read from the device"
pass "-r, not cached: one worker"

say "-j2 given: two workers, cached or not"
find "$M/src" -type f -exec cat {} + >/dev/null
copy warm-j2 -r -j2
assert_eq "$(count_threads "$T/warm-j2.log")" 2 "threads for -j2 (cached)"
remount
copy cold-j2 -r -j2
assert_eq "$(count_threads "$T/cold-j2.log")" 2 "threads for -j2 (not cached)"
pass "-j2: two workers both times"

say "before Linux 6.5 (cachestat=enosys): mincore tells the same"
need_shim
find "$M/src" -type f -exec cat {} + >/dev/null
rm -f "$T/shim.log"
assert_exit 0 env LD_PRELOAD="$SHIM" SMARTCP_FAULT='cachestat=enosys,mincore=trace' \
	SMARTCP_FAULT_LOG="$T/shim.log" strace -f -qq -e trace=clone,clone3 \
	-o "$T/old-warm.log" "$SMARTCP" -r "$M/src" "$M/old-warm"
diff -r "$M/src" "$M/old-warm" >/dev/null || fail "the copy differs (cachestat refused, warm)"
assert_grep '^cachestat\(.*ENOSYS' "$T/shim.log"
assert_grep '^mincore\(' "$T/shim.log"
assert_eq "$(count_threads "$T/old-warm.log")" 0 "threads, cachestat refused, cached tree"
remount
assert_exit 0 env LD_PRELOAD="$SHIM" SMARTCP_FAULT='cachestat=enosys' \
	strace -f -qq -e trace=clone,clone3 -o "$T/old-cold.log" \
	"$SMARTCP" -r "$M/src" "$M/old-cold"
diff -r "$M/src" "$M/old-cold" >/dev/null || fail "the copy differs (cachestat refused, cold)"
assert_eq "$(count_threads "$T/old-cold.log")" 1 "threads, cachestat refused, tree not cached"
pass "cachestat refused: mincore asked, no worker warm, one cold"
