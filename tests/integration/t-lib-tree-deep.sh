#!/bin/bash
# A tree deeper than PATH_MAX under `ulimit -n 64`, copied by smartcp and
# by libsmartcp's tree copy through a program of its own (tests/lib/
# treecp.c, built against make install DESTDIR=...: lib-installed.sh):
# t-deep-pathmax.sh's tree (60 directories of 100-character names, a
# file at the bottom with a mode, an xattr, a second name there and one
# at the top, a symlink, a read-only directory), with -r, -a and -a -j8.
# Each copy: exit 0, nothing said, treecp's sc_tree_copy() and
# sc_tree_finish() returned 0, and the copy equals the source (tests/
# treecmp, by directory descriptor; -a: modes, owners, times, user.*
# xattrs and hard links too).  Two descriptors a level would be 120: the
# walk holds a bounded number, for the library's users as for smartcp.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-installed.sh"

serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_treecmp
need_treecp

LEVELS=60
printf -v pad '%96s' ''
pad=${pad// /d}

cd "$T"
mkdir src
printf 'made first, linked from the bottom\n' >src/first
xattrs=yes
(
	cd src
	for i in $(seq -f %04g "$LEVELS"); do
		mkdir "$pad$i"
		cd "$pad$i"
	done
	printf 'bottom\n' >f
	chmod 640 f
	ln f hl
	ln -s f sl
	ln "$T/src/first" f1
	mkdir ro
	printf 'in a read-only directory\n' >ro/g
	chmod 555 ro
	setfattr -n user.deep -v yes f 2>/dev/null || : >"$T/.no-xattr"
	ln f "$T/src/zlast"
)
[ -e .no-xattr ] && xattrs="no (not supported here)"
say "a tree of $LEVELS levels of 100-character names; xattr checked: $xattrs"

# deep_copy PROGRAM OPTION...: src to a fresh dst under ulimit -n 64;
# exit 0, nothing said, and the copy compares equal (-a: attributes too)
deep_copy() {
	local prog=$1 cmp=
	shift
	rm -rf dst
	case " $* " in *" -a "*) cmp=-a ;; esac
	(
		ulimit -n 64
		exec "$prog" "$@" src dst
	) >"$OUT" 2>"$ERR" || {
		rc=$?
		_show "$ERR"
		fail "'$prog $* src dst' under ulimit -n 64 exited $rc"
	}
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "'$prog $*' said something"; }
	"$TREECMP" $cmp src dst >"$T/.cmp" 2>&1 || {
		cut -c1-300 "$T/.cmp" >&2
		fail "the copy differs ($prog $*, ulimit -n 64)"
	}
}

for opts in -r -a "-a -j8"; do
	say "smartcp $opts, ulimit -n 64"
	# shellcheck disable=SC2086
	deep_copy "$SMARTCP" $opts
	say "treecp $opts, ulimit -n 64"
	# shellcheck disable=SC2086
	deep_copy "$TREECP" $opts
	tail -n 2 "$OUT" | paste -sd' ' | grep -qx 'returned: 0 finished: 0' ||
		{ _show "$OUT"; fail "treecp $opts: the library did not return 0"; }
	# a line for each of the tree's entries: 60 levels, 6 at the
	# bottom, first and zlast, the operand
	n=$(grep -c "^'src" "$OUT")
	assert_eq "$n" $((LEVELS + 6 + 2 + 1)) "treecp $opts: entries said"
	pass "$opts: smartcp and treecp, all $LEVELS levels, equal"
done
