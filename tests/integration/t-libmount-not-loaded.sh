#!/bin/bash
# Issue 30: a call that copies between filesystems whose magic number
# settles the class does not load libmount or libblkid at all (nor
# libselinux and libpcre2, which libmount pulls in): an ext4 image ->
# tmpfs, tmpfs -> ext4, within the ext4 image, within the machine's own
# root filesystem, a generated file from /proc, and a small tree with -j1.
# The dynamic loader says what it loads (LD_DEBUG=files); the roads are
# the ones these copies always took, and the bytes arrive.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts ext4 and tmpfs"
need_cmd cmp

E=$T/ext4
M=$T/tmpfs
mount_ext4 "$E"
mount_tmpfs "$M" 64M
random_file "$E/a" 70000
random_file "$M/b" 5000
mkdir -p "$T/root" "$T/tree/d"
random_file "$T/root/c" 6
printf 'x\n' >"$T/tree/d/f"
printf 'y\n' >"$T/tree/g"
[ "$(fs_type "$T/root")" != tmpfs ] || say "note: \$T is on tmpfs"

# loads NAME ARGS...: smartcp ARGS with the loader's report in $T/NAME.ld;
# its -v output in $T/NAME.v; must exit 0.
loads() {
	local name=$1 rc=0
	shift
	LD_DEBUG=files "$SMARTCP" "$@" >"$T/$name.v" 2>"$T/$name.ld" || rc=$?
	[ "$rc" -eq 0 ] || { _show "$T/$name.ld"; fail "smartcp $* exited $rc"; }
	grep -q 'file=libc\.so' "$T/$name.ld" ||
		skip "the dynamic loader does not report with LD_DEBUG=files"
}

not_loaded() { # NAME WHAT
	local lib
	for lib in libmount libblkid libselinux libpcre2; do
		! grep -E "file=$lib\\.so" "$T/$1.ld" >"$T/$1.hit" || {
			cat "$T/$1.hit" >&2
			fail "$2 loads $lib"
		}
	done
	pass "$2: no libmount, libblkid, libselinux, libpcre2"
}

loads ext4-tmpfs -v "$E/a" "$M/a"
assert_same "$E/a" "$M/a"
assert_grep "\\[splice\\]" "$T/ext4-tmpfs.v"
not_loaded ext4-tmpfs "ext4 -> tmpfs"

loads tmpfs-ext4 -v "$M/b" "$E/b"
assert_same "$M/b" "$E/b"
assert_grep "\\[splice\\]" "$T/tmpfs-ext4.v"
not_loaded tmpfs-ext4 "tmpfs -> ext4"

loads ext4-ext4 -v "$E/a" "$E/a2"
assert_same "$E/a" "$E/a2"
assert_grep "\\[copy_file_range\\]" "$T/ext4-ext4.v"
not_loaded ext4-ext4 "ext4 -> the same ext4"

loads root "$T/root/c" "$T/root/c2"
assert_same "$T/root/c" "$T/root/c2"
not_loaded root "$(fs_type "$T/root") -> itself (the machine's own disk)"

loads proc -v /proc/self/mountinfo "$M/mi"
[ -s "$M/mi" ] || fail "/proc/self/mountinfo copied empty"
assert_grep "\\[read_write\\]" "$T/proc.v"
not_loaded proc "proc -> tmpfs"

loads tree -r -j1 "$T/tree" "$M/tree"
assert_same "$T/tree/d/f" "$M/tree/d/f"
assert_same "$T/tree/g" "$M/tree/g"
not_loaded tree "a tree, -j1"
