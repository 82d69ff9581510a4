#!/bin/bash
# --if-changed with -b (or --remove-destination): a destination that
# already holds the source's bytes is left alone entirely, as without -b:
# no backup, no rewrite (same inode, mtime, ctime), "[unchanged]" with
# -v, only the attributes --preserve asks for set.  It once made a backup
# and wrote the file anew.  A destination that differs is still backed
# up, then copied.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"

# st FILE: inode, size, mtime and ctime in ns, mode
st() { stat -c '%i %s %.9Y %.9Z %a' "$1"; }

random_file a 100000
for opts in "-b" "--backup=numbered" "--remove-destination" "-b -r"; do
	say "--if-changed $opts, equal files: left alone"
	rm -f b b~ b.~*
	cp -p a b
	before=$(st b)
	sleep 0.01
	# shellcheck disable=SC2086
	assert_exit 0 "$SMARTCP" -v --if-changed $opts a b
	assert_line "'a' -> 'b' [unchanged]" "$OUT"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty"; }
	assert_eq "$(st b)" "$before" "inode size mtime ctime mode of b"
	left=$(ls | grep -v -x -e a -e b || true)
	[ -z "$left" ] || fail "$opts: made $left"
	pass "$opts: [unchanged], no backup, b as it was"
done

say "--if-changed -b -p, equal bytes, other mode: only the mode is set"
rm -f b b~
cp a b
chmod 0600 b
chmod 0644 a
ino=$(stat -c %i b)
assert_exit 0 "$SMARTCP" --if-changed -b -p a b
assert_eq "$(stat -c '%i %a' b)" "$ino 644" "inode and mode of b"
[ ! -e b~ ] || fail "a backup was made of an equal file"
pass "same inode, mode 644, no backup"

say "--if-changed -b, different bytes: backed up, then copied"
printf 'old\n' >b
assert_exit 0 "$SMARTCP" -v --if-changed -b a b
assert_grep "^'a' -> 'b' \\(backup: 'b~'\\) \\[[a-z_]+\\]\$" "$OUT"
assert_same a b
assert_eq "$(cat b~)" old "the backup"
pass "b~ holds the old bytes, b the new"

say "installed as cp: the same, with cp's -v line"
ln -s "$SMARTCP" cp
rm -f b~
assert_exit 0 ./cp -v --if-changed -b a b
assert_line "'a' -> 'b'" "$OUT"
[ ! -e b~ ] || fail "cp --if-changed -b backed up an equal file"
printf 'old\n' >b
assert_exit 0 ./cp -v --if-changed -b a b
assert_line "'a' -> 'b' (backup: 'b~')" "$OUT"
assert_same a b
pass "no backup when equal; 'a' -> 'b' (backup: 'b~') when not"

say "-r --if-changed -b into a tree: equal files untouched, the changed one backed up"
rm -rf s t
mkdir -p s/d t/d
for f in x y d/z; do random_file "s/$f" 3000; cp -p "s/$f" "t/$f"; done
printf 'changed\n' >t/y
sx=$(st t/x) sz=$(st t/d/z)
assert_exit 0 "$SMARTCP" -r --if-changed -b s/. t
assert_eq "$(st t/x)" "$sx" "t/x"
assert_eq "$(st t/d/z)" "$sz" "t/d/z"
assert_same s/y t/y
assert_eq "$(cat t/y~)" changed "t/y~"
[ ! -e t/x~ ] && [ ! -e t/d/z~ ] || fail "equal files were backed up"
pass "only t/y~ made"
