#!/bin/bash
# The installed library is usable on its own: after make install
# DESTDIR=..., pkg-config finds smartcp.pc there, doc/example.c builds
# from the installed header and library alone, and run against them it
# copies /proc/cpuinfo and a file from tmpfs to ext4 with the right
# bytes, by the road its report names (checked against what strace saw
# the kernel asked).  The installed program has no run path into the
# build tree.  The build directory is $abs_top_builddir (make check) or
# the one $SMARTCP was built in.
set -eu
. "$(dirname "$0")/lib.sh"
serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_root "mounts tmpfs and ext4"
need_cmd pkg-config strace make cmp

build=${abs_top_builddir:-$(cd "$(dirname "$SMARTCP")/.." && pwd)}
src=${abs_top_srcdir:-$(cd "$TEST_DIR/../.." && pwd)}
[ -f "$build/Makefile" ] || skip "no build directory for $SMARTCP"
[ -f "$src/doc/example.c" ] || fail "no doc/example.c in $src"

dest=$T/destdir
say "make install DESTDIR=$dest"
make -s -C "$build" install DESTDIR="$dest" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "make install failed"; }

pc=$(find "$dest" -name smartcp.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no smartcp.pc installed"
libdir=$(dirname "$(dirname "$pc")")
[ -e "$libdir/libsmartcp.so.1" ] || fail "no libsmartcp.so.1 in $libdir"
[ -f "$(find "$dest" -path '*/include/smartcp/smartcp.h' | head -n 1)" ] ||
	fail "no <smartcp/smartcp.h> installed"
[ -f "$(find "$dest" -path '*/man3/libsmartcp.3' | head -n 1)" ] ||
	fail "no libsmartcp(3) installed"
soname=$(objdump -p "$libdir/libsmartcp.so.1" | awk '$1 == "SONAME" { print $2 }')
assert_eq "$soname" libsmartcp.so.1 "SONAME"

# The installed program finds the installed library, not the build
# tree's (no run path into $build).
prog=$(find "$dest" -path '*/bin/smartcp' | head -n 1)
[ -x "$prog" ] || fail "no smartcp installed"
if readelf -d "$prog" | grep -E 'R(UN)?PATH' | grep -qF "$build"; then
	fail "the installed smartcp has a run path into the build tree: $(readelf -d "$prog" | grep -E 'R(UN)?PATH')"
fi
pass "installed: smartcp.pc, libsmartcp.so.1, <smartcp/smartcp.h>, libsmartcp(3), smartcp"

export PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_SYSROOT_DIR=$dest
ver=$(pkg-config --modversion smartcp) || fail "pkg-config --modversion smartcp failed"
want=$(sed -n 's/^PACKAGE_VERSION = //p' "$build/Makefile")
assert_eq "$ver" "$want" "pkg-config --modversion smartcp"
flags=$(pkg-config --cflags --libs smartcp) || fail "pkg-config --cflags --libs smartcp failed"
case $flags in
*"-I$dest"*"-L$dest"*|*"-L$dest"*"-I$dest"*) ;;
*) fail "pkg-config flags do not point into DESTDIR: $flags" ;;
esac

# Built as the library was (a sanitizer build gets its flags), but from
# the installed files only: the source and build trees are not on the
# include path.
cc=$(sed -n 's/^CC = //p' "$build/Makefile")
cflags=$(sed -n 's/^CFLAGS = //p' "$build/Makefile")
ldflags=$(sed -n 's/^LDFLAGS = //p' "$build/Makefile")
# shellcheck disable=SC2086
${cc:-cc} $cflags -Wall -Wextra -Werror -o "$T/example" "$src/doc/example.c" \
	$flags $ldflags 2>"$T/cc.log" || { cat "$T/cc.log"; fail "doc/example.c does not build against the installed library"; }
export LD_LIBRARY_PATH=$libdir
ldd "$T/example" | grep -q "libsmartcp.so.1 => $libdir/" ||
	fail "example does not load the installed library: $(ldd "$T/example" | grep smartcp)"
pass "doc/example.c built with: $flags"

mount_tmpfs "$T/tmpfs" 64M
mount_ext4 "$T/ext4"
random_file "$T/tmpfs/data" $((3 * 1024 * 1024 + 517))

say "example: /proc/cpuinfo and tmpfs/data -> ext4"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
strace -f -qq -e trace=copy_file_range,ioctl,splice -o "$T/strace" \
	"$T/example" "$T/tmpfs/data" "$T/ext4" >"$T/out" 2>"$T/err" ||
	{ cat "$T/out" "$T/err"; fail "example exited $?"; }
cat "$T/out"
assert_same "$T/tmpfs/data" "$T/ext4/data"
# /proc/cpuinfo reads differently now and then (cpu MHz): compare what
# cannot change, and its length against the report.
[ -s "$T/ext4/cpuinfo" ] || fail "empty copy of /proc/cpuinfo"
assert_eq "$(grep -c '^processor' "$T/ext4/cpuinfo")" \
	"$(grep -c '^processor' /proc/cpuinfo)" "processors in the copy of /proc/cpuinfo"
assert_eq "$(grep -v MHz "$T/ext4/cpuinfo" | md5sum)" \
	"$(grep -v MHz /proc/cpuinfo | md5sum)" "copy of /proc/cpuinfo, MHz lines aside"
bytes=$(awk '/^\/proc\/cpuinfo ->/ { f = 1 } f && /bytes:/ { sub(",", "", $2); print $2; exit }' "$T/out")
assert_eq "$bytes" "$(stat -c %s "$T/ext4/cpuinfo")" "bytes the report gives for /proc/cpuinfo"
grep -q 'verified: yes' "$T/out" || fail "/proc/cpuinfo not verified"
grep -q 'check: same bytes' "$T/out" || fail "the example's own check did not pass"
# Permissions: 0444 & ~umask for the copy of /proc/cpuinfo.
assert_eq "$(stat -c %a "$T/ext4/cpuinfo")" "$(printf '%o' $((0444 & ~$(umask))))" "mode of the copy of /proc/cpuinfo"
ls -A "$T/ext4" | grep -q 'sc-tmp' && fail "a temporary file was left: $(ls -A "$T/ext4")"

# The road: the last road of each chain moved the data, and the kernel
# was asked for exactly that.  /proc/cpuinfo goes through read_write
# (generated source), so copy_file_range, splice and FICLONE calls all
# belong to the file.
cpu_roads=$(awk '/^\/proc\/cpuinfo ->/ { f = 1 } f && /roads:/ { sub(/^ *roads: /, ""); print; exit }' "$T/out")
assert_eq "$cpu_roads" read_write "road of /proc/cpuinfo"
roads=$(awk -v f="$T/tmpfs/data ->" 'index($0, f) == 1 { g = 1 } g && /roads:/ { sub(/^ *roads: /, ""); print; exit }' "$T/out")
last=${roads##* -> }
last=${last%%:*}
say "file: $roads"
case $last in
clone) assert_ok_calls "$T/strace" FICLONE -ge 1 ;;
copy_file_range) assert_ok_calls "$T/strace" copy_file_range -ge 1 ;;
splice)
	assert_ok_calls "$T/strace" splice -ge 2
	assert_ok_calls "$T/strace" copy_file_range -eq 0 ;;
read_write)
	assert_ok_calls "$T/strace" splice -eq 0
	assert_ok_calls "$T/strace" copy_file_range -eq 0 ;;
*) fail "unknown road '$last' in '$roads'" ;;
esac
case $roads in
*copy_file_range*) ;;
*) assert_calls "$T/strace" copy_file_range -eq 0 ;;
esac
case $roads in
*clone*) ;;
*) assert_calls "$T/strace" FICLONE -eq 0 ;;
esac
pass "the file took $roads, and strace agrees"
