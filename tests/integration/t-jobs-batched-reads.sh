#!/bin/bash
# -j workers ask for the data of the files they are about to copy in
# batches, through io_uring (lib/tree/readahead.c), not one posix_fadvise a
# file: on a block-device filesystem, each worker sets up a ring and
# every regular file with data is read ahead exactly once, in batches of
# many; empty files are not.  The fstat a copy keeps (-p: the access
# time) is the one taken before the read ahead.  Where io_uring cannot be
# had (refused by the fault shim, as a kernel without it or with
# kernel.io_uring_disabled would), and for a source on tmpfs, whose data
# is in memory anyway, posix_fadvise as before.  Every copy compares
# equal.
set -eu
. "$(dirname "$0")/lib.sh"
# It mounts its image again to empty the page cache ("cold"): a private
# mount namespace another test makes meanwhile (unshare -m: the matrix,
# t-many-mounts, t-xattr-rules, ...) holds a copy of the mount, and with
# it the filesystem and its cache, and nothing is read ahead.
exclusive "mounts its image again to empty its cache, which another test's mount namespace would keep"
need_root "mounts ext4 on a loop device, mounted again to empty its cache"
need_cmd strace
# every run here is traced, and LeakSanitizer cannot run under ptrace
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

M=$T/e
mount_ext4 "$M" 200M
loop=$IMAGE_LOOP

# 4 directories of 60 files, 1 to 9,000 bytes, every 10th empty, and one
# of 300 KiB; their access times far before their modification times, so
# that any read changes them (relatime)
perl -e '
	use strict; my $s = shift; srand(5); mkdir $s or die;
	for my $d (1 .. 4) {
		mkdir "$s/d$d" or die;
		for my $f (1 .. 60) {
			open my $o, ">", "$s/d$d/f$f" or die; binmode $o;
			my $n = $f % 10 ? 1 + ($d * 977 + $f * 131) % 9000 : 0;
			$n = 300 * 1024 if $d == 2 && $f == 7;
			print $o join "", map { chr int rand 256 } 1 .. $n;
			close $o or die;
		}
	}' "$M/src"
find "$M/src" -type f -exec touch -a -d @1000000000 {} +
data_files=$(find "$M/src" -type f -size +0 | wc -l)

remount() {
	umount "$M" && mount -t ext4 "$loop" "$M" ||
		fail "could not mount the image again"
}

# copy NAME SRC ENV... -- OPTION...: smartcp OPTION... SRC NAME with each
# thread traced to $T/NAME.trace.PID; equal to SRC.  $T/NAME.kept: how
# many copies have the access time set below, counted before diff reads
# them (and so changes it)
copy() {
	local name=$1 src=$2
	shift 2
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	rm -f "$T/$name".trace.*
	assert_exit 0 env "${env[@]}" strace -ff -qq \
		-e trace=io_uring_setup,io_uring_enter,fadvise64 \
		-o "$T/$name.trace" "$SMARTCP" "$@" "$src" "$M/$name"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "smartcp $* said something"; }
	find "$M/$name" -type f ! -newerat @1000000001 | wc -l >"$T/$name.kept"
	diff -r "$src" "$M/$name" >"$T/.diff" 2>&1 ||
		{ _show "$T/.diff"; fail "the copy differs (smartcp $*)"; }
	cat "$T/$name".trace.* >"$T/$name.log"
}

# rings LOG: io_uring_setup calls that made a ring
rings() { grep -Ec '^io_uring_setup\(.*= [0-9]+$' "$1" || true; }
# submitted LOG: reads handed over (io_uring_enter with TO_SUBMIT > 0)
submitted() {
	sed -nE 's/^io_uring_enter\([0-9]+, [1-9][0-9]*, 0, 0,.*= ([0-9]+)$/\1/p' "$1" |
		awk '{ n += $1 } END { print n + 0 }'
}
# largest LOG: the largest batch handed over at once
largest() {
	sed -nE 's/^io_uring_enter\([0-9]+, [1-9][0-9]*, 0, 0,.*= ([0-9]+)$/\1/p' "$1" |
		sort -n | tail -n 1
}
willneed() { grep -Ec '^fadvise64\(.*POSIX_FADV_WILLNEED' "$1" || true; }

say "ext4, cold, -a -j2: batches through io_uring"
remount
copy cold "$M/src" -- -a -j2
assert_eq "$(rings "$T/cold.log")" 2 "rings set up (one a worker)"
assert_eq "$(submitted "$T/cold.log")" "$data_files" \
	"reads handed over (one for each file with data)"
[ "$(largest "$T/cold.log")" -ge 8 ] ||
	{ _show "$T/cold.log"; fail "no batch of 8 reads or more"; }
assert_eq "$(willneed "$T/cold.log")" 0 "posix_fadvise calls beside the batches"
pass "one read ahead for each of the $data_files files with data, in batches of up to $(largest "$T/cold.log")"

assert_eq "$(cat "$T/cold.kept")" "$(find "$M/src" -type f | wc -l)" \
	"copies keeping the access time the source had before any read"
pass "-a: every copy has the source's access time from before the read ahead"

say "io_uring refused (io_uring_setup=eperm): posix_fadvise a file"
need_shim
find "$M/src" -type f -exec touch -a -d @1000000000 {} +
remount
rm -f "$T/shim.log"
copy refused "$M/src" LD_PRELOAD="$SHIM" SMARTCP_FAULT='io_uring_setup=eperm' \
	SMARTCP_FAULT_LOG="$T/shim.log" -- -a -j2
assert_grep '^io_uring_setup\(.*EPERM' "$T/shim.log"
assert_eq "$(submitted "$T/refused.log")" 0 "reads handed to a ring"
assert_eq "$(willneed "$T/refused.log")" "$data_files" \
	"posix_fadvise calls (one for each file with data)"
assert_eq "$(cat "$T/refused.kept")" "$(find "$M/src" -type f | wc -l)" \
	"copies keeping the access time"
pass "no ring: posix_fadvise for each file with data, the same copy"

say "source on tmpfs: nothing to batch"
mount_tmpfs "$T/mem" 64M
cp -a "$M/src" "$T/mem/src"
copy mem "$T/mem/src" -- -r -j2
assert_eq "$(submitted "$T/mem.log")" 0 "reads handed to a ring for tmpfs"
pass "tmpfs: no reads through the ring"
