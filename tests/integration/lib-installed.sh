# shellcheck shell=bash
# Helpers of the tests that build a program against the installed
# library, as a user of libsmartcp would: make install DESTDIR=... of the
# build tree, pkg-config --cflags --libs smartcp from there, and a C file
# compiled with those flags alone (the source and build trees are not on
# the include path).  Sourced after lib.sh; the test declares, at its top
# level,
#
#	serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
#
# installed_lib: make install into $T/destdir (once), then BUILD, SRC
# (the build and source trees), DESTDIR, LIBDIR (where libsmartcp.so.1
# is), PC_FLAGS (pkg-config --cflags --libs smartcp).  Skips without a
# build directory or pkg-config.
installed_lib() {
	local pc
	[ -z "${LIBDIR:-}" ] || return 0
	need_cmd pkg-config make
	BUILD=${abs_top_builddir:-$(cd "$(dirname "$SMARTCP")/.." && pwd)}
	SRC=${abs_top_srcdir:-$(cd "$TEST_DIR/../.." && pwd)}
	[ -f "$BUILD/Makefile" ] || skip "no build directory for $SMARTCP"
	DESTDIR=$T/destdir
	say "make install DESTDIR=$DESTDIR"
	make -s -C "$BUILD" install DESTDIR="$DESTDIR" >"$T/install.log" 2>&1 ||
		{ cat "$T/install.log"; fail "make install failed"; }
	pc=$(find "$DESTDIR" -name smartcp.pc -path '*/pkgconfig/*' | head -n 1)
	[ -n "$pc" ] || fail "no smartcp.pc installed"
	LIBDIR=$(dirname "$(dirname "$pc")")
	[ -e "$LIBDIR/libsmartcp.so.1" ] || fail "no libsmartcp.so.1 in $LIBDIR"
	PC_FLAGS=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$DESTDIR \
		pkg-config --cflags --libs smartcp) ||
		fail "pkg-config --cflags --libs smartcp failed"
	case $PC_FLAGS in
	*"-I$DESTDIR"*"-L$DESTDIR"*|*"-L$DESTDIR"*"-I$DESTDIR"*) ;;
	*) fail "pkg-config flags do not point into DESTDIR: $PC_FLAGS" ;;
	esac
}

# build_installed C-FILE OUT [LIBS...]: C-FILE compiled as the library
# was (the build's CC, CFLAGS and LDFLAGS: a sanitizer build gets its
# flags), with -Wall -Wextra -Werror, against the installed library only;
# OUT runs with it (a run path into DESTDIR, which LD_LIBRARY_PATH does
# not override), and ldd is asked that it does.
build_installed() {
	local cfile=$1 out=$2 cc cflags ldflags
	shift 2
	installed_lib
	[ -f "$cfile" ] || fail "no $cfile"
	cc=$(sed -n 's/^CC = //p' "$BUILD/Makefile")
	cflags=$(sed -n 's/^CFLAGS = //p' "$BUILD/Makefile")
	ldflags=$(sed -n 's/^LDFLAGS = //p' "$BUILD/Makefile")
	# shellcheck disable=SC2086
	${cc:-cc} $cflags -Wall -Wextra -Werror -o "$out" "$cfile" \
		$PC_FLAGS -Wl,--disable-new-dtags -Wl,-rpath,"$LIBDIR" \
		$ldflags "$@" 2>"$T/cc.log" ||
		{ cat "$T/cc.log"; fail "$cfile does not build against the installed library"; }
	ldd "$out" | grep -q "libsmartcp.so.1 => $LIBDIR/" ||
		fail "$out does not load the installed library: $(ldd "$out" | grep smartcp)"
}

# need_treecp: TREECP, tests/lib/treecp.c built against the installed
# library (in $T, so that the race tests' attacker may reach it too).
need_treecp() {
	installed_lib
	TREECP=$T/treecp
	build_installed "$SRC/tests/lib/treecp.c" "$TREECP" -lpthread
	"$TREECP" --version | grep -q '^treecp ' ||
		fail "$TREECP --version: $("$TREECP" --version 2>&1)"
	say "treecp built with: $PC_FLAGS"
}
