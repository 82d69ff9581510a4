#!/bin/bash
# libsmartcp keeps its word, installed (issue 36): the reproducers of
# tests/unit/check_word.c (a file copied onto itself, verify_fd of /proc
# and /sys, a FIFO source, a forced road that cannot be taken, copy_path
# over a read-only file, set_xattr_conf, a destination descriptor after
# a failure, SIGPIPE, the plan's reasons, the return codes; round 3:
# the caller's descriptors, a cancel from another thread, sc_made_check's
# MODE, copy_path onto a FIFO or a device, a socket as the source,
# metadata onto itself, fd_short for every open) and
# tests/unit/check_agree.c (explain and copy over one matrix) built
# against the library as make install DESTDIR=... installs it -- the
# installed <smartcp/smartcp.h> and libsmartcp.so.1, found by pkg-config
# -- and run against it, as a new user of API 1 would build them.  The
# build directory is $abs_top_builddir (make check) or the one $SMARTCP
# was built in.
set -eu
. "$(dirname "$0")/lib.sh"
serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_cmd pkg-config make

build=${abs_top_builddir:-$(cd "$(dirname "$SMARTCP")/.." && pwd)}
src=${abs_top_srcdir:-$(cd "$TEST_DIR/../.." && pwd)}
[ -f "$build/Makefile" ] || skip "no build directory for $SMARTCP"
pkg-config --exists check || skip "no check.pc (Check, the unit test library)"

dest=$T/destdir
say "make install DESTDIR=$dest"
make -s -C "$build" install DESTDIR="$dest" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "make install failed"; }
pc=$(find "$dest" -name smartcp.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no smartcp.pc installed"
libdir=$(dirname "$(dirname "$pc")")

export PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_SYSROOT_DIR=$dest
flags=$(pkg-config --cflags --libs smartcp) || fail "pkg-config smartcp failed"
case $flags in
*"-I$dest"*"-L$dest"*|*"-L$dest"*"-I$dest"*) ;;
*) fail "pkg-config flags do not point into DESTDIR: $flags" ;;
esac
# Check's flags from the system, not from DESTDIR
check_flags=$(PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_PATH= pkg-config --cflags --libs check)

# Built as the library was (a sanitizer build gets its flags), from the
# installed files only: neither the source nor the build tree is on the
# include path.
cc=$(sed -n 's/^CC = //p' "$build/Makefile")
cflags=$(sed -n 's/^CFLAGS = //p' "$build/Makefile")
ldflags=$(sed -n 's/^LDFLAGS = //p' "$build/Makefile")
export LD_LIBRARY_PATH=$libdir
for t in check_word check_agree; do
	# shellcheck disable=SC2086
	${cc:-cc} $cflags -Wall -Wextra -Werror -o "$T/$t" \
		"$src/tests/unit/$t.c" $flags $check_flags -lpthread $ldflags \
		2>"$T/cc.log" || { cat "$T/cc.log"; fail "$t.c does not build against the installed library"; }
	ldd "$T/$t" | grep -q "libsmartcp.so.1 => $libdir/" ||
		fail "$t does not load the installed library: $(ldd "$T/$t" | grep smartcp)"
	say "$t against $libdir/libsmartcp.so.1"
	(cd "$T" && "$T/$t") >"$T/$t.out" 2>&1 ||
		{ cat "$T/$t.out"; fail "$t failed against the installed library"; }
	grep -E '^[0-9]+%: Checks' "$T/$t.out"
	grep -q '^100%: Checks' "$T/$t.out" || { cat "$T/$t.out"; fail "$t: not every check passed"; }
	pass "$t: $(grep -E '^[0-9]+%: Checks' "$T/$t.out")"
done
