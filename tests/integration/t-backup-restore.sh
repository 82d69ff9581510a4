#!/bin/bash
# A copy that fails after -b moved its destination to the backup puts the
# backup back under its name, as cp does ("'g~' -> 'g' (unbackup)" under
# -v): the old file is never left only under its backup name, the name
# itself gone.
#  - under the name cp, beside GNU cp, byte for byte (stdout and stderr in
#    one log, the files left): a source the user cannot read, a
#    destination filesystem that fills up, numbered backups, and a file
#    failing inside a tree copied with -r;
#  - under its own name: --atomic -b on a full filesystem, and -j4 in a
#    tree, the old files back and the others copied.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts tmpfs, runs copies as uid 65534"
need_cmd setpriv

need_gnu_cp_as_user
mkdir "$T/w"
chmod 0777 "$T/w"
head -c 300000 /dev/urandom >"$T/big"
chmod 0644 "$T/big"
# 64 KiB: the 300,000 bytes of big cannot fit
mount_tmpfs "$T/full" 64k

# state: each file under $T/w and $T/full with its content, one a line.
state() {
	(cd "$T" && find w full -type f | sort | while read -r f; do
		printf '%s=%s\n' "$f" "$(cat "$f")"
	done)
}

# both NAME SETUP CMD [user]: SETUP (shell, run in $T/w, emptied first)
# then CMD, once with GNU cp and once with smartcp as cp, both found as
# "cp" through PATH; their logs (stdout and stderr together), exit
# statuses and what the directory holds must be the same.  $T/NAME.gnu
# and $T/NAME.ours keep the states.
both() {
	local name=$1 setup=$2 cmd=$3 as=${4:-root} who path rc
	for who in gnu ours; do
		path=/usr/bin:/bin
		[ "$who" = gnu ] || path=$T/ours:$path
		find "$T/w" "$T/full" -mindepth 1 -delete
		(cd "$T/w" && eval "$setup")
		rc=0
		if [ "$as" = user ]; then
			# shellcheck disable=SC2086 # NB is a command and options
			(cd "$T/w" && PATH=$path $NB sh -c "$cmd") \
				>"$T/$name.$who.log" 2>&1 || rc=$?
		else
			(cd "$T/w" && PATH=$path sh -c "$cmd") \
				>"$T/$name.$who.log" 2>&1 || rc=$?
		fi
		echo "rc=$rc" >>"$T/$name.$who.log"
		state >"$T/$name.$who"
	done
	cmp "$T/$name.ours.log" "$T/$name.gnu.log" || {
		diff "$T/$name.ours.log" "$T/$name.gnu.log" >&2
		fail "$name: not what GNU cp writes"
	}
	cmp "$T/$name.ours" "$T/$name.gnu" || {
		diff "$T/$name.ours" "$T/$name.gnu" >&2
		fail "$name: not the files GNU cp leaves"
	}
	assert_grep "(unbackup)" "$T/$name.gnu.log"
	pass "$name: $(grep -c . "$T/$name.gnu.log") lines and the files as GNU cp"
}

say "a source the user cannot read"
both unreadable 'echo new >f; chmod 0 f; echo old >g; chown 65534 g' \
	'cp -bv f g' user
assert_line "w/g=old" "$T/unreadable.ours"
both numbered 'echo new >f; chmod 0 f; echo old >g; echo older >g.~1~;
	chown 65534 g g.~1~' 'cp -v --backup=numbered f g' user
assert_line "w/g=old" "$T/numbered.ours"
assert_line "w/g.~1~=older" "$T/numbered.ours"

say "a destination filesystem that fills up"
both enospc "echo old >$T/full/g; cp $T/big big" "cp -bv big $T/full/g"
assert_line "full/g=old" "$T/enospc.ours"
assert_grep "No space left on device" "$T/enospc.ours.log"

say "a file failing inside a tree"
# The source is made once, for both cps: each reads a directory in the
# order of its inode numbers, which files made anew for each would not
# share while other tests free inodes beside this one.
mkdir -p "$T/src/s/sub"
for i in 1 2 3; do echo "n$i" >"$T/src/s/sub/f$i"; done
chmod 0 "$T/src/s/sub/f2"
chown -R 65534 "$T/src/s"
chmod 0755 "$T/src"
both tree 'mkdir -p d/s/sub
	for i in 1 2 3; do echo "o$i" >"d/s/sub/f$i"; done
	chown -R 65534 d' 'cp -rbv ../src/s d' user
assert_line "w/d/s/sub/f2=o2" "$T/tree.ours"
assert_line "w/d/s/sub/f1=n1" "$T/tree.ours"

say "smartcp --atomic -b on a full filesystem"
find "$T/full" -mindepth 1 -delete
echo old >"$T/full/g"
assert_exit 1 "$SMARTCP" --atomic -b "$T/big" "$T/full/g"
assert_grep "No space left on device" "$ERR"
assert_eq "$(cat "$T/full/g")" old "the destination after the failed copy"
assert_eq "$(ls -A "$T/full")" g "what is left on the filesystem"
pass "the old file back under its name, no backup or temporary left"

say "smartcp -j4 -rb, a file failing in a tree"
find "$T/w" -mindepth 1 -delete
(cd "$T/w" && mkdir -p s/sub d/s/sub &&
	for i in $(seq 20); do echo "n$i" >"s/sub/f$i"; echo "o$i" >"d/s/sub/f$i"; done &&
	chmod 0 s/sub/f7 s/sub/f13 && chown -R 65534 s d)
# shellcheck disable=SC2086
(cd "$T/w" && $NB "$SMARTCP" -j4 -rb s d >"$T/j4.out" 2>&1) && rc=0 || rc=$?
assert_eq "$rc" 1 "exit status"
for i in $(seq 20); do
	case $i in
	7|13)	want=o$i; [ ! -e "$T/w/d/s/sub/f$i~" ] ||
			fail "f$i~ left beside the restored f$i" ;;
	*)	want=n$i ;;
	esac
	assert_eq "$(cat "$T/w/d/s/sub/f$i")" "$want" "d/s/sub/f$i"
done
pass "the two failed files hold their old bytes, the 18 others the new"
