#!/bin/bash
# Installed as cp, smartcp prints its -v line before it copies a file that
# is not a directory, as GNU cp does: the line is there when the copy then
# fails, and on a terminal it comes before the error.  --debug adds cp's
# line (coreutils 9.2 and later) saying how the data went: "copy offload:
# yes|unsupported|avoided|unknown, reflink: yes|unsupported|no|unknown,
# sparse detection: no|SEEK_HOLE|zeros|SEEK_HOLE + zeros", checked here
# against the system calls strace saw for the same copy.  --debug also
# says "skipped 'd'" for each destination -n, -u, --update=none or a "no"
# to -i leaves alone, and --update=none-fail (cp 9.6) fails for each.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace

mount_tmpfs "$T/tmpfs" 64M
mount_btrfs "$T/btrfs"
mount_ext4 "$T/ext4"

mkdir "$T/bin"
ln -s "$SMARTCP" "$T/bin/cp"
CP=$T/bin/cp

echo hello >"$T/tmpfs/a"
head -c 300000 /dev/urandom >"$T/btrfs/b"
truncate -s 8M "$T/tmpfs/sparse"
printf data | dd of="$T/tmpfs/sparse" bs=1 seek=4M conv=notrunc status=none

# debug_of CMD...: the --debug line of one copy, and the calls it made
debug_of() {
	local rc=0

	# LeakSanitizer cannot run under ptrace (see trace_smartcp)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -o "$T/trace" -e trace=ioctl,copy_file_range,splice,lseek \
		"$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 0 ] || { _show "$T/err"; fail "$*: status $rc"; }
	grep '^copy offload:' "$T/out" || true
}
calls() { grep -c "$1" "$T/trace" || true; }

say "same tmpfs: copy_file_range, no clone on tmpfs"
line=$(debug_of "$CP" --debug "$T/tmpfs/a" "$T/tmpfs/a2")
assert_eq "$line" "copy offload: yes, reflink: unsupported, sparse detection: no" "--debug line"
assert_eq "$(calls 'copy_file_range(.*= [1-9]')" 1 "copy_file_range calls"
assert_same "$T/tmpfs/a" "$T/tmpfs/a2"
assert_line "'$T/tmpfs/a' -> '$T/tmpfs/a2'" "$T/out"

say "--reflink=never: no clone, and no copy_file_range (it may clone)"
line=$(debug_of "$CP" --debug --reflink=never "$T/btrfs/b" "$T/btrfs/b0")
assert_eq "$line" "copy offload: avoided, reflink: no, sparse detection: no" "--debug line"
assert_eq "$(calls FICLONE)" 0 "FICLONE calls"
assert_eq "$(calls copy_file_range)" 0 "copy_file_range calls"
assert_same "$T/btrfs/b" "$T/btrfs/b0"

say "btrfs: a clone, nothing else asked"
line=$(debug_of "$CP" --debug "$T/btrfs/b" "$T/btrfs/b2")
assert_eq "$line" "copy offload: unknown, reflink: yes, sparse detection: unknown" "--debug line"
assert_eq "$(calls 'FICLONE.*= 0')" 1 "successful FICLONE calls"
assert_eq "$(calls copy_file_range)" 0 "copy_file_range calls"
assert_same "$T/btrfs/b" "$T/btrfs/b2"

say "across filesystems: copy_file_range known to be refused"
line=$(debug_of "$CP" --debug "$T/btrfs/b" "$T/ext4/b")
assert_eq "$line" "copy offload: unsupported, reflink: unsupported, sparse detection: no" "--debug line"
assert_eq "$(calls copy_file_range)" 0 "copy_file_range calls"
assert_same "$T/btrfs/b" "$T/ext4/b"

say "sparse source: SEEK_HOLE (as cp 9.10 says it, tmpfs -> ext4)"
line=$(debug_of "$CP" --debug "$T/tmpfs/sparse" "$T/ext4/sparse")
assert_eq "$line" "copy offload: unsupported, reflink: unsupported, sparse detection: SEEK_HOLE" "--debug line"
[ "$(calls SEEK_DATA)" -ge 1 ] || fail "no SEEK_DATA seen"
assert_same "$T/tmpfs/sparse" "$T/ext4/sparse"

say "--sparse=always on a sparse source: SEEK_HOLE + zeros, offload avoided"
line=$(debug_of "$CP" --debug --sparse=always "$T/tmpfs/sparse" "$T/ext4/sparse2")
assert_eq "$line" "copy offload: avoided, reflink: unsupported, sparse detection: SEEK_HOLE + zeros" "--debug line"
assert_same "$T/tmpfs/sparse" "$T/ext4/sparse2"

say "no data copied: no --debug line"
line=$(debug_of "$CP" --debug --attributes-only "$T/tmpfs/a" "$T/tmpfs/attr")
assert_eq "$line" "" "--debug line"
line=$(debug_of "$CP" --debug -l "$T/tmpfs/a" "$T/tmpfs/hard")
assert_eq "$line" "" "--debug line"
assert_line "'$T/tmpfs/a' -> '$T/tmpfs/hard'" "$T/out"

say "as cp, -v names the file before the copy, also when it fails"
assert_exit 1 "$CP" -v "$T/tmpfs/a" /dev/full
assert_line "'$T/tmpfs/a' -> '/dev/full'" "$OUT"
assert_line "$CP: error writing '/dev/full': No space left on device" "$ERR"
# one stream, as on a terminal: the -v line first, then the error
"$CP" -v "$T/tmpfs/a" /dev/full >"$T/both" 2>&1 && fail "no failure"
assert_eq "$(head -n 1 "$T/both")" "'$T/tmpfs/a' -> '/dev/full'" "first line"
assert_eq "$(sed -n 2p "$T/both")" \
	"$CP: error writing '/dev/full': No space left on device" "second line"
# a source that cannot be read: named, then the error; nothing made
chmod 755 "$T" "$T/bin"
chmod 1777 "$T/tmpfs"
chmod 000 "$T/tmpfs/a"
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$CP" -v "$T/tmpfs/a" "$T/tmpfs/no" >"$T/both" 2>&1 && fail "no failure"
assert_eq "$(head -n 1 "$T/both")" "'$T/tmpfs/a' -> '$T/tmpfs/no'" "first line"
assert_eq "$(sed -n 2p "$T/both")" \
	"$CP: cannot open '$T/tmpfs/a' for reading: Permission denied" "second line"
[ ! -e "$T/tmpfs/no" ] || fail "a destination was left for an unreadable source"
chmod 644 "$T/tmpfs/a"

say "--debug names each destination left alone (cp 9.4 and later)"
cd "$T/tmpfs"
echo new >s
echo old >d
touch -d '2000-01-01' s
"$CP" --debug -n s d >"$T/out"
assert_line "skipped 'd'" "$T/out"
"$CP" --debug -u s d >"$T/out"
assert_line "skipped 'd'" "$T/out"
"$CP" --debug --update=none s d >"$T/out"
assert_line "skipped 'd'" "$T/out"
echo n | "$CP" --debug -i s d >"$T/out" 2>/dev/null
assert_line "skipped 'd'" "$T/out"
"$CP" -v -n s d >"$T/out"
[ ! -s "$T/out" ] || { _show "$T/out"; fail "-v without --debug named a skipped file (cp 9.1 and 9.4+ do not)"; }
assert_eq "$(cat d)" old "d after the skips"
pass "skipped 'd' with -n, -u, --update=none and a no to -i"

say "--update=none-fail: each existing destination is said and fails"
"$CP" --update=none-fail s d >"$T/out" 2>"$T/err" && fail "none-fail over d exited 0"
assert_eq "$(cat "$T/err")" "$CP: not replacing 'd'" "message"
[ ! -s "$T/out" ] || fail "none-fail printed on stdout"
assert_eq "$(cat d)" old "d after none-fail"
"$CP" --update=none-fail s fresh
assert_eq "$(cat fresh)" new "a missing destination is copied"
assert_exit 1 "$CP" -b --update=none s d
assert_line "$CP: --backup is mutually exclusive with -n or --update=none-fail" "$ERR"
pass "not replacing 'd', exit 1; -b refused with it"
cd "$T"

say "under its own name, -v still names the road after the copy"
"$SMARTCP" -v "$T/btrfs/b" "$T/btrfs/b3" >"$T/out"
assert_line "'$T/btrfs/b' -> '$T/btrfs/b3' [clone]" "$T/out"
pass "t-debug-verbose"
