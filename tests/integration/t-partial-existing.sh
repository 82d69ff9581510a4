#!/bin/bash
# A copy that fails half-way into a destination that was there before
# empties it and keeps it: the same inode, its owner, group, mode and
# extended attributes, so that a copy into it again keeps them, as with
# cp.  Before, it was removed: copied again, a 0600 file owned by another
# user came back with the source's 0644 and root's ownership.  A file
# the run created is still removed.  ENOSPC on a small tmpfs, as cp and
# under smartcp's own name, and in a tree.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts tmpfs, gives files to another owner"

head -c 300000 /dev/urandom >"$T/big"
chmod 0644 "$T/big"
mount_tmpfs "$T/m" 64k
ln -s "$SMARTCP" "$T/cp"
ln -s "$SMARTCP" "$T/smartcp"

# old NAME: a file that was there before, 0600, owned by 1234:1234, with
# an extended attribute where the filesystem takes one.
old() {
	echo secret >"$T/m/$1"
	chown 1234:1234 "$T/m/$1"
	chmod 0600 "$T/m/$1"
	setfattr -n user.keep -v yes "$T/m/$1" 2>/dev/null || true
}

# kept NAME INODE WHAT: NAME is the same file, emptied, with what it had.
kept() {
	assert_eq "$(stat -c '%i %s %u:%g %a' "$T/m/$1")" "$2 0 1234:1234 600" \
		"$3: inode, size, owner, mode"
	if command -v getfattr >/dev/null && [ -n "$xattr" ]; then
		assert_eq "$(getfattr --only-values -n user.keep "$T/m/$1" 2>/dev/null)" \
			yes "$3: the extended attribute"
	fi
}

old probe
xattr=$(getfattr --only-values -n user.keep "$T/m/probe" 2>/dev/null || true)
rm -f "$T/m/probe"

for prog in cp smartcp; do
	say "$prog: ENOSPC into a file that was there before"
	old f
	ino=$(stat -c %i "$T/m/f")
	rc=0
	"$T/$prog" "$T/big" "$T/m/f" 2>"$T/err" || rc=$?
	assert_eq "$rc" 1 "exit status"
	assert_grep "error writing '$T/m/f': No space left on device" "$T/err"
	kept f "$ino" "$prog"
	rm -f "$T/m/f"
	pass "exit 1, $(head -n 1 "$T/err" | sed 's/^[^:]*: //'), the file kept and emptied"

	say "$prog: ENOSPC into a new file: removed"
	rc=0
	"$T/$prog" "$T/big" "$T/m/new" 2>"$T/err" || rc=$?
	assert_eq "$rc" 1 "exit status"
	[ ! -e "$T/m/new" ] || fail "the new, partial file was left"
	pass "exit 1, nothing left under the new name"
done

say "-r into a tree whose files were there before"
mkdir -p "$T/s/d"
for i in 1 2 3; do cp "$T/big" "$T/s/d/f$i"; done
mkdir -p "$T/m/s/d"
inos=
for i in 1 2 3; do
	old "s/d/f$i"
	inos="$inos $(stat -c %i "$T/m/s/d/f$i")"
done
rc=0
"$SMARTCP" -j2 -r "$T/s" "$T/m" 2>"$T/err" || rc=$?
assert_eq "$rc" 1 "exit status"
i=0
for ino in $inos; do
	i=$((i + 1))
	kept "s/d/f$i" "$ino" "-r f$i"
done
pass "every file that did not fit is kept, emptied, with its owner and mode"
