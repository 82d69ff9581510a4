#!/bin/bash
# make install into the running system, as a user of the quick build
# does, and the installed smartcp runs: it finds libsmartcp.so.1 by the
# loader's own search (with prefix /usr/local, /usr/local/lib is found
# only through /etc/ld.so.cache, which the install refreshes), copies a
# file, and after make uninstall nothing of it is left.  Root only, and
# only where nothing is installed at the prefix yet: the test must not
# touch an installation it did not make.
set -eu
. "$(dirname "$0")/lib.sh"
serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_root "installs into the system's prefix and runs ldconfig"
need_cmd make cmp

build=${abs_top_builddir:-$(cd "$(dirname "$SMARTCP")/.." && pwd)}
[ -f "$build/Makefile" ] || skip "no build directory for $SMARTCP"
prefix=$(sed -n 's/^prefix = //p' "$build/Makefile")
bindir=$(sed -n 's/^bindir = //p' "$build/Makefile" | sed "s|\${exec_prefix}|$prefix|")
prog=$bindir/smartcp
for f in "$prog" "$prefix"/lib*/libsmartcp.so* "$prefix"/lib/*/libsmartcp.so*; do
	[ ! -e "$f" ] || skip "$f exists already: not installing over it"
done

say "make install (prefix $prefix, no DESTDIR)"
_register sh "make -s -C '$build' uninstall >/dev/null 2>&1; ldconfig 2>/dev/null; true"
make -s -C "$build" install >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "make install failed"; }
[ -x "$prog" ] || fail "no $prog after make install"

# A clean environment: no LD_LIBRARY_PATH, the program by its full name.
env -i PATH=/usr/bin:/bin "$prog" --version >"$OUT" 2>"$ERR" ||
	{ _show "$ERR"; fail "the installed smartcp does not run"; }
assert_grep '^smartcp \(smartcp\) ' "$OUT"
random_file "$T/src" 100000
env -i PATH=/usr/bin:/bin "$prog" "$T/src" "$T/dst" ||
	fail "the installed smartcp could not copy a file"
assert_same "$T/src" "$T/dst"
pass "the installed smartcp runs and copies"

say "make uninstall leaves nothing of it"
make -s -C "$build" uninstall >"$T/uninstall.log" 2>&1 ||
	{ cat "$T/uninstall.log"; fail "make uninstall failed"; }
[ ! -e "$prog" ] || fail "$prog is still there after make uninstall"
# only this prefix's entries: an installation elsewhere is not ours
if ldconfig -p | grep -F " => $prefix/lib" | grep -q 'libsmartcp\.so'; then
	fail "the loader's cache still names $prefix's libsmartcp after make uninstall"
fi
pass "gone, and the loader's cache no longer names it"
