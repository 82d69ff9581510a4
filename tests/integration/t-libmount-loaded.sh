#!/bin/bash
# Issue 30: libmount is loaded (with dlopen) where only it can tell:
# --explain and --json print the facts (and libblkid the UUID), a FUSE
# source (faultfs; its type name decides server-side copies), a
# filesystem whose type name smartcp's tables do not know (ext2, whose
# magic it shares with ext4), and one whose magic number is not in the
# tables either (squashfs, when mksquashfs is there).  The dynamic loader
# says what it loads (LD_DEBUG=files).
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts ext4, ext2 and FUSE"
need_cmd cmp mkfs.ext2 losetup

E=$T/ext4
M=$T/tmpfs
mount_ext4 "$E"
mount_tmpfs "$M" 64M
random_file "$E/a" 7000

# loads NAME ARGS...: smartcp ARGS with the loader's report in $T/NAME.ld,
# stdout in $T/NAME.out; must exit 0.
loads() {
	local name=$1 rc=0
	shift
	LD_DEBUG=files "$SMARTCP" "$@" >"$T/$name.out" 2>"$T/$name.ld" || rc=$?
	[ "$rc" -eq 0 ] || { _show "$T/$name.ld"; fail "smartcp $* exited $rc"; }
	grep -q 'file=libc\.so' "$T/$name.ld" ||
		skip "the dynamic loader does not report with LD_DEBUG=files"
}
# loaded NAME LIB WHAT: LIB was loaded, libmount by libsmartcp's dlopen
# (libblkid comes with it: libmount needs it).  By libsmartcp, or by the
# sanitizer runtime that stands in for dlopen.
loaded() {
	local re="file=$2\\.so\\.1 "
	[ "$2" != libmount ] || re="$re.*dynamically loaded by"
	grep -Eq "$re" "$T/$1.ld" || { _show "$T/$1.ld"; fail "$3 does not load $2"; }
}

loads explain --explain "$E/a" "$M/x"
loaded explain libmount "--explain"
loaded explain libblkid "--explain"
assert_grep "^  source: +ext4 $IMAGE_LOOP on $E " "$T/explain.out"
[ ! -e "$M/x" ] || fail "--explain made the destination"
pass "--explain loads libmount and libblkid, and names the mount"

loads json --json "$E/a" "$M/j"
loaded json libmount "--json"
assert_grep '"source_fs":\{"type":"ext4","class":"local","uuid":"[0-9a-f-]{36}"' \
	"$T/json.out"
assert_same "$E/a" "$M/j"
pass "--json loads libmount and libblkid, and gives the UUID"

say "ext2: a magic ext4 shares, a name only libmount's lists place"
img=$T/e2.img
truncate -s 64M "$img"
loop=$(losetup -f --show "$img") || fail "losetup failed"
_register loop "$loop"
mkfs.ext2 -q -F "$loop" || fail "mkfs.ext2 failed"
do_mount "$T/e2" -t ext2 "$loop"
[ "$(fs_type "$T/e2")" = ext2 ] || skip "ext2 mounts as $(fs_type "$T/e2") here"
random_file "$T/e2/s" 3000
loads ext2 -v "$T/e2/s" "$T/e2/t"
loaded ext2 libmount "a copy within ext2"
assert_same "$T/e2/s" "$T/e2/t"
assert_grep "\\[copy_file_range\\]" "$T/ext2.out"
pass "ext2 loads libmount; copy_file_range within it as before"

if command -v mksquashfs >/dev/null && grep -qw squashfs /proc/filesystems; then
	say "squashfs: a magic the tables do not know"
	mkdir -p "$T/sqsrc"
	random_file "$T/sqsrc/f" 4000
	mksquashfs "$T/sqsrc" "$T/sq.img" -quiet -noappend >/dev/null ||
		fail "mksquashfs failed"
	do_mount "$T/sq" -t squashfs -o loop,ro "$T/sq.img"
	loads squashfs -v "$T/sq/f" "$M/sqf"
	loaded squashfs libmount "a copy from squashfs"
	assert_same "$T/sqsrc/f" "$M/sqf"
	pass "squashfs loads libmount"
else
	say "squashfs part not run: no mksquashfs or no squashfs in this kernel"
fi

# A FUSE source: faultfs, as lib-faultfs.sh finds and mounts it.
for _c in "${FAULTFS:-}" ${abs_top_builddir:+"$abs_top_builddir/tests/faultfs/faultfs"} \
	  "$(dirname "$SMARTCP")/../tests/faultfs/faultfs"; do
	[ -n "$_c" ] && [ -x "$_c" ] && { FAULTFS=$_c; break; }
done
if [ -c /dev/fuse ] && [ -n "${FAULTFS:-}" ] && [ -x "$FAULTFS" ]; then
	say "FUSE: faultfs"
	F=$T/ff
	mkdir -p "$F"
	"$FAULTFS" -f "$F" -o "log=$T/ff.log" </dev/null >"$T/ff.out" 2>&1 &
	_register umount "$F"
	for _ in $(seq 100); do
		grep -qF " $F fuse.faultfs " /proc/self/mounts && break
		sleep 0.05
	done
	grep -qF " $F fuse.faultfs " /proc/self/mounts ||
		fail "faultfs did not mount: $(tail -n 1 "$T/ff.out")"
	random_file "$F/src" 5000
	loads fuse -v "$F/src" "$M/fuse"
	loaded fuse libmount "a FUSE source"
	assert_same "$F/src" "$M/fuse"
	pass "a FUSE source loads libmount"
else
	say "FUSE part not run: no /dev/fuse or faultfs not built"
fi

# A tree copied by -j workers: libmount is loaded on the walk thread
# before the first worker starts (a worker may meet a FUSE subtype or an
# unknown magic), so no library's first-use set-up runs in a worker.
if command -v strace >/dev/null; then
	say "-j2: loaded before the workers start"
	mkdir -p "$E/tree"
	for i in $(seq 200); do random_file "$E/tree/f$i" 3000; done
	# (LeakSanitizer cannot run under ptrace: the sanitizer build checks
	# leaks in the runs above)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -o "$T/jobs.st" -e trace=openat,clone,clone3 \
		"$SMARTCP" -r -j2 "$E/tree" "$M/tree" ||
		fail "smartcp -r -j2 failed"
	diff -r "$E/tree" "$M/tree" >/dev/null || fail "the tree differs"
	main=$(head -n 1 "$T/jobs.st" | awk '{ print $1 }')
	first_clone=$(grep -n -E '^[0-9]+ +clone3?\(' "$T/jobs.st" | head -n 1 | cut -d: -f1)
	[ -n "$first_clone" ] || skip "-j2 started no worker for 200 files here"
	load=$(grep -n -E '^[0-9]+ +openat\(.*/libmount\.so\.1"' "$T/jobs.st" |
		head -n 1)
	[ -n "$load" ] || { _show "$T/jobs.st"; fail "-j2 never loads libmount"; }
	[ "${load%%:*}" -lt "$first_clone" ] ||
		{ _show "$T/jobs.st"; fail "libmount loaded after a worker started"; }
	echo "${load#*:}" | grep -Eq "^$main " ||
		fail "libmount loaded by another thread than the walk's"
	pass "-j2 loads libmount on the walk thread before its workers"
fi
