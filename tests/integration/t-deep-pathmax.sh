#!/bin/bash
# A tree nested deeper than PATH_MAX copies whole, with -r and with -a:
# 60 directories of 100-character names (6,000 bytes of path below the
# operand; PATH_MAX is 4,096), a file at the bottom with a mode, an xattr
# and a second name there, a symlink, a read-only directory, and hard
# links between the bottom and the top (one made first at the top, one at
# the bottom).  Every name below the operand goes to the kernel relative
# to an open directory, so nothing says "File name too long", and the
# messages still name the whole path.  The copies are compared by
# tests/treecmp, which walks both trees by descriptor (diff -r cannot
# name their files).  Then all of it again under `ulimit -n 64`, with the
# default -j and with -j8: the descriptors the walk holds do not grow with
# the depth.
set -eu
. "$(dirname "$0")/lib.sh"
need_treecmp

LEVELS=60
printf -v pad '%96s' ''
pad=${pad// /d}

cd "$T"
mkdir src
printf 'made first, linked from the bottom\n' >src/first
xattrs=yes
# down the tree with cd, a name at a time: no path is ever whole
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
	# the bottom file's other name at the top, made last (a higher
	# inode than the first level's: copied after the bottom)
	ln f "$T/src/zlast"
)
[ -e .no-xattr ] && xattrs="no (not supported here)"
say "a tree of $LEVELS levels of 100-character names; xattr checked: $xattrs"

# deep_path DIR: DIR's bottom directory, as messages name it
deep_path() {
	local p=$1 i
	for i in $(seq -f %04g "$LEVELS"); do
		p=$p/$pad$i
	done
	printf '%s' "$p"
}

# deep_copy LIMIT OPTION...: src to a fresh dst under ulimit -n LIMIT;
# exit 0, nothing said, and the copy compares equal (-a: attributes too)
deep_copy() {
	local limit=$1 cmp=
	shift
	rm -rf dst
	case " $* " in *" -a "*) cmp=-a ;; esac
	(
		ulimit -n "$limit"
		exec "$SMARTCP" "$@" src dst
	) >"$OUT" 2>"$ERR" || {
		rc=$?
		_show "$ERR"
		fail "'smartcp $* src dst' under ulimit -n $limit exited $rc"
	}
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "'smartcp $*' said something"; }
	"$TREECMP" $cmp src dst >"$T/.cmp" 2>&1 || {
		cut -c1-300 "$T/.cmp" >&2
		fail "the copy differs (smartcp $*, ulimit -n $limit)"
	}
}

for limit in 1024 64; do
	say "-r, ulimit -n $limit"
	deep_copy "$limit" -r
	pass "-r: all $LEVELS levels, equal"
	say "-a, ulimit -n $limit"
	deep_copy "$limit" -a
	pass "-a: all $LEVELS levels, equal with modes, times, links, xattrs"
done
say "-a -j8, ulimit -n 64"
deep_copy 64 -a -j8
pass "-a -j8 under ulimit -n 64: equal"

say "a failure at the bottom names the whole path"
(
	cd dst
	for i in $(seq -f %04g "$LEVELS"); do
		cd "$pad$i"
	done
	rm f
	mkdir f
)
rc=0
"$SMARTCP" -rT src dst >"$OUT" 2>"$ERR" || rc=$?
assert_eq "$rc" 1 "exit status"
want=": cannot overwrite directory '$(deep_path dst)/f' with non-directory"
[ "$(grep -cF -- "$want" "$ERR")" -eq 1 ] && [ "$(tail -c $((${#want} + 1)) "$ERR")" = "$want" ] || {
	cut -c1-300 "$ERR" >&2
	fail "the message does not name the whole path"
}
[ "$(wc -l <"$ERR")" -eq 1 ] || { cut -c1-300 "$ERR" >&2; fail "more than one message"; }
pass "exit 1, one message, with the whole path in it"
