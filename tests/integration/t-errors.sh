#!/bin/bash
# Error messages and exit statuses are those of cp: missing source,
# directory without -r, uncreatable destination, a file onto itself,
# missing operands; the program name in messages follows argv[0].
set -eu
. "$(dirname "$0")/lib.sh"

# Messages start with argv[0] as given (as GNU cp's do), so run smartcp
# by name from PATH: argv[0] is then "smartcp".
mkdir "$T/bin" "$T/cpbin"
ln -s "$SMARTCP" "$T/bin/smartcp"
ln -s "$SMARTCP" "$T/cpbin/cp"
PATH=$T/bin:$PATH
SMARTCP=smartcp

cd "$T"
echo data >a
mkdir d
echo file >notdir

say "missing source"
assert_exit 1 "$SMARTCP" x y
assert_line "smartcp: cannot stat 'x': No such file or directory" "$ERR"
[ ! -e y ] || fail "y created for a missing source"
pass "cannot stat 'x'"

say "missing source among good ones: the others are copied, exit 1"
mkdir out
assert_exit 1 "$SMARTCP" a x out
assert_line "smartcp: cannot stat 'x': No such file or directory" "$ERR"
assert_same a out/a
pass "a copied, x reported"

say "directory without -r"
assert_exit 1 "$SMARTCP" d e
assert_line "smartcp: -r not specified; omitting directory 'd'" "$ERR"
[ ! -e e ] || fail "e created for an omitted directory"
pass "omitting directory 'd'"

say "destination below a regular file"
assert_exit 1 "$SMARTCP" a notdir/y
# GNU cp 9 stats the destination first and says "cannot stat"; either
# names the destination and the errno.
assert_grep "^smartcp: cannot (stat|create regular file) 'notdir/y': Not a directory\$" "$ERR"
[ -f notdir ] || fail "notdir changed"
pass "cannot create regular file ... Not a directory"

if [ "$(id -u)" -eq 0 ]; then
	say "destination on a read-only filesystem"
	do_mount "$T/ro" -t tmpfs -o ro,size=1M tmpfs
	assert_exit 1 "$SMARTCP" a ro/y
	assert_line "smartcp: cannot create regular file 'ro/y': Read-only file system" "$ERR"
	pass "cannot create regular file ... Read-only file system"
else
	say "read-only destination needs root to mount; not checked"
fi

say "a file onto itself"
assert_exit 1 "$SMARTCP" a a
assert_line "smartcp: 'a' and 'a' are the same file" "$ERR"
assert_eq "$(cat a)" data "content of a after copying it onto itself"
ln a a.link
assert_exit 1 "$SMARTCP" a a.link
assert_line "smartcp: 'a' and 'a.link' are the same file" "$ERR"
assert_eq "$(cat a)" data "content of a after copying onto its hard link"
pass "same file refused, content intact"

say "missing operands"
assert_exit 1 "$SMARTCP"
assert_line "smartcp: missing file operand" "$ERR"
assert_line "Try 'smartcp --help' for more information." "$ERR"
assert_exit 1 "$SMARTCP" a
assert_line "smartcp: missing destination file operand after 'a'" "$ERR"
assert_line "Try 'smartcp --help' for more information." "$ERR"
pass "missing file operand"

say "several sources, target not a directory"
assert_exit 1 "$SMARTCP" a notdir a
# GNU cp 9: "target 'a': Not a directory"; before: "... is not a directory".
assert_grep "^smartcp: target 'a'(: Not a directory| is not a directory)\$" "$ERR"
pass "target is not a directory"

say "program name in messages follows argv[0]"
assert_exit 1 env PATH="$T/cpbin:$PATH" cp x y
assert_line "cp: cannot stat 'x': No such file or directory" "$ERR"
assert_exit 1 env PATH="$T/cpbin:$PATH" cp
assert_line "cp: missing file operand" "$ERR"
assert_line "Try 'cp --help' for more information." "$ERR"
pass "cp: ..."

say "a failed write into a file with other hard links"
# Removing the name would break the link and leave the other name holding
# a prefix that looks like a file: the file is emptied instead, both
# names kept.  A new file that fails is removed.
if [ "$(id -u)" -eq 0 ]; then
	mount_tmpfs "$T/small" 1M
	echo old >"$T/small/x"
	ln "$T/small/x" "$T/small/h"
	head -c 3M /dev/urandom >big
	assert_exit 1 "$SMARTCP" big "$T/small/x"
	assert_line "smartcp: error writing '$T/small/x': No space left on device" "$ERR"
	assert_eq "$(stat -c '%h %s' "$T/small/x")" "2 0" "links and size of x"
	assert_eq "$(stat -c %i "$T/small/x")" "$(stat -c %i "$T/small/h")" "x and h are one file"
	assert_exit 1 "$SMARTCP" big "$T/small/new"
	[ ! -e "$T/small/new" ] || fail "a new file that failed was left"
	pass "emptied, links kept; a new file removed"
	# a copy_file_range that fails: cp says "error copying"; under its
	# own name smartcp names the end that failed
	rm -f "$T/small/"*
	head -c 600K /dev/urandom >"$T/small/src"
	head -c 300K /dev/urandom >"$T/small/fill"
	assert_exit 1 env PATH="$T/cpbin:$PATH" cp "$T/small/src" "$T/small/c"
	assert_line "cp: error copying '$T/small/src' to '$T/small/c': No space left on device" "$ERR"
	assert_exit 1 "$SMARTCP" "$T/small/src" "$T/small/s"
	assert_line "smartcp: error writing '$T/small/s': No space left on device" "$ERR"
	[ ! -e "$T/small/c" ] && [ ! -e "$T/small/s" ] || fail "a partial copy was left"
	pass "copy_file_range's ENOSPC: cp's words as cp, the failing end as smartcp"
else
	echo "SKIP: a failed write into a hard-linked file (needs root to mount a small tmpfs)"
fi
