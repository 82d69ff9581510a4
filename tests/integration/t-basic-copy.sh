#!/bin/bash
# Basic cp semantics: file -> file, file -> dir, several files -> dir, -t,
# -T, overwriting a longer destination truncates it (same inode, as cp),
# and an empty file gives an empty file.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"
random_file a 300000
random_file 'b c' 4097
printf 'x' >one
: >empty
mkdir d

say "file -> new file"
assert_exit 0 "$SMARTCP" a a.copy
assert_same a a.copy
[ ! -s "$OUT" ] || fail "smartcp printed on stdout without -v"
pass "a -> a.copy"

say "file -> directory puts it under its base name"
assert_exit 0 "$SMARTCP" a d
assert_same a d/a
assert_exit 0 "$SMARTCP" "$T/b c" d/
assert_same 'b c' 'd/b c'
pass "a -> d/a, 'b c' -> 'd/b c'"

say "several files -> directory"
mkdir m
assert_exit 0 "$SMARTCP" a 'b c' one empty m
for f in a 'b c' one empty; do
	assert_same "$f" "m/$f"
done
pass "4 files -> m/"

say "-t DIR"
mkdir t
assert_exit 0 "$SMARTCP" -t t a 'b c'
assert_same a t/a
assert_same 'b c' 't/b c'
assert_exit 0 "$SMARTCP" --target-directory=t one
assert_same one t/one
pass "-t t a 'b c', --target-directory=t one"

say "-T: the destination is a file name, never a directory"
assert_exit 0 "$SMARTCP" -T a tfile
assert_same a tfile
mkdir tdir
assert_exit 1 "$SMARTCP" -T a tdir
[ -d tdir ] || fail "-T replaced the directory tdir"
[ ! -e tdir/a ] || fail "-T copied into the directory tdir"
assert_grep "cannot overwrite directory 'tdir' with non-directory" "$ERR"
pass "-T a tfile copies; -T a tdir refuses"

say "overwriting a longer destination truncates it, keeping its inode"
random_file long 100000
ino=$(stat -c %i long)
assert_exit 0 "$SMARTCP" one long
assert_size long 1
assert_same one long
assert_eq "$(stat -c %i long)" "$ino" "inode of overwritten destination"
pass "100000-byte destination now 1 byte, same inode"

say "empty file -> empty file; empty file over a non-empty one"
assert_exit 0 "$SMARTCP" empty empty.copy
[ -f empty.copy ] || fail "empty.copy not created"
assert_size empty.copy 0
assert_exit 0 "$SMARTCP" empty a.copy
assert_size a.copy 0
pass "empty copies"

say "copy of a file larger than one buffer, odd size"
random_file big $((3 * 1024 * 1024 + 7))
assert_exit 0 "$SMARTCP" big big.copy
assert_same big big.copy
pass "3 MiB + 7"

say "-v names each file"
assert_exit 0 "$SMARTCP" -v a 'b c' t
assert_grep "^'a' -> 't/a' \[[a-z_]+.*\]\$" "$OUT"
assert_grep "^'b c' -> 't/b c' \[[a-z_]+.*\]\$" "$OUT"
assert_eq "$(wc -l <"$OUT")" 2 "-v lines for 2 files"
pass "-v lines"
