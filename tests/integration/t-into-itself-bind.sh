#!/bin/bash
# A directory copied into itself through another path to it is refused by
# device and inode, whatever the path (issue 27, item 3).  With bs bind-
# mounted on bd, bd/dd is bs/dd: `smartcp -r bs/dd bd/dd/sub` recursed
# until the stack overflowed (27,563 directories, SIGSEGV); GNU cp says
# "cannot copy a directory, 'bs/dd', into itself, 'bd/dd/sub'" and exits 1
# (after making bd/dd/sub and copying into it until it meets it).
# smartcp looks up the destination's parent and its ".." chain to the
# root before anything is made: the same message, exit 1, nothing
# created; with -j4, with -a, and under the name cp.
#
# Deeper in the walk, a source directory that is a directory this run made
# (here s/x, a bind mount of the destination's parent d, holds d/s, the
# copy of s) is refused the same way, with the operands' names, as GNU cp
# does; the copy ends, exit 1.
set -eu
. "$(dirname "$0")/lib.sh"

need_root "bind mounts"
need_cmd timeout

GNU_CP=
if /bin/cp --version 2>/dev/null | head -n 1 | grep -q 'GNU coreutils'; then
	GNU_CP=/bin/cp
fi
mkdir "$T/bin"
ln -s "$SMARTCP" "$T/bin/cp"

cd "$T"
mkdir -p bs/dd bd
printf 'in dd\n' >bs/dd/f
do_mount "$T/bd" --bind "$T/bs"
[ "$(stat -c %d:%i bd/dd)" = "$(stat -c %d:%i bs/dd)" ] ||
	fail "the bind mount does not show bs/dd as bd/dd"

# into_itself PROG NAME OPTION...: PROG OPTIONS bs/dd bd/dd/sub refused by
# its NAME, exit 1, nothing made (PROG "cp": smartcp under that name)
into_itself() {
	local prog=$1 name=$2 rc=0
	shift 2
	PATH=$T/bin:$PATH timeout 60 "$prog" "$@" bs/dd bd/dd/sub \
		>"$OUT" 2>"$ERR" || rc=$?
	[ "$rc" -lt 124 ] ||
		fail "$name $* bs/dd bd/dd/sub: exit $rc (timed out, or a signal)"
	assert_eq "$rc" 1 "$name $*: exit status"
	assert_eq "$(cat "$ERR")" \
		"$name: cannot copy a directory, 'bs/dd', into itself, 'bd/dd/sub'" \
		"$name $*: message"
	[ ! -s "$OUT" ] || { _show "$OUT"; fail "$name $*: said something on stdout"; }
	[ ! -e bs/dd/sub ] || fail "$name $*: made bs/dd/sub ($(find bs/dd/sub | wc -l) entries)"
	assert_eq "$(ls -A bs/dd)" f "$name $*: what bs/dd holds"
	pass "$name $* bs/dd bd/dd/sub: refused, exit 1, nothing made"
}

say "bs/dd into bd/dd/sub, bd a bind mount of bs"
into_itself "$SMARTCP" "$SMARTCP" -r
into_itself "$SMARTCP" "$SMARTCP" -r -j4
into_itself "$SMARTCP" "$SMARTCP" -a
into_itself cp cp -r
into_itself cp cp -rv
into_itself cp cp -a -j4

if [ -n "$GNU_CP" ]; then
	say "GNU cp says the same"
	rc=0
	(cd "$T" && PATH=/bin timeout 60 cp -r bs/dd bd/dd/sub) >"$OUT" 2>"$ERR" || rc=$?
	assert_eq "$rc" 1 "GNU cp: exit status"
	assert_eq "$(cat "$ERR")" \
		"cp: cannot copy a directory, 'bs/dd', into itself, 'bd/dd/sub'" \
		"GNU cp: message"
	rm -rf bs/dd/sub
	pass "GNU cp: the same message, exit 1"
fi

say "deeper: a source directory that is a copy this run made"
mkdir -p s/x d
printf 'file\n' >s/f
do_mount "$T/s/x" --bind "$T/d"
for opts in "-r" "-r -j4" "-a"; do
	rm -rf d/s
	rc=0
	# shellcheck disable=SC2086
	PATH=$T/bin:$PATH timeout 60 cp $opts s d/s >"$OUT" 2>"$ERR" || rc=$?
	assert_eq "$rc" 1 "cp $opts s d/s: exit status"
	assert_eq "$(cat "$ERR")" \
		"cp: cannot copy a directory, 's', into itself, 'd/s'" \
		"cp $opts s d/s: message"
	assert_eq "$(cat d/s/f)" file "cp $opts s d/s: d/s/f"
	[ -d d/s/x ] && [ ! -e d/s/x/s ] ||
		fail "cp $opts s d/s: d/s/x: $(find d/s/x | head -n 3)"
	pass "cp $opts s d/s: refused at s/x/s, exit 1, the rest copied"
done
rm -rf d/s
