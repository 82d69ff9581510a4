#!/bin/bash
# --if-changed leaves a destination that already holds the source's bytes
# untouched: no open for writing, same inode, same mtime and ctime, "-v"
# says [unchanged].  One changed byte (same size) is noticed and copied.
# With -p, an attribute-only difference (the mode) is fixed without
# rewriting the data.
set -eu
. "$(dirname "$0")/lib.sh"
need_cmd strace

cd "$T"

# st FILE: inode, size, mtime and ctime in ns, mode
st() { stat -c '%i %s %.9Y %.9Z %a' "$1"; }

# no_write_of LOG NAME: the strace LOG shows no call that could change NAME.
no_write_of() {
	local bad
	bad=$(grep -E "\"$2\"" "$1" | grep -E \
		-e 'open(at)?\(.*O_(WRONLY|RDWR|TRUNC|CREAT)' \
		-e '(^|[ >])(creat|truncate|unlink(at)?|rename(at2?)?|link(at)?|utimensat|utimes|chmod|fchmodat|chown|lchown|fchownat|setxattr|lsetxattr|removexattr)\(' \
		|| true)
	[ -z "$bad" ] || { echo "$bad" >&2; fail "$2 was written to (calls above)"; }
}

random_file a 100000

say "first run copies"
assert_exit 0 "$SMARTCP" -v --if-changed a b
assert_same a b
assert_no_grep '\[unchanged\]' "$OUT"
assert_grep "^'a' -> 'b' \[[a-z_]+\]\$" "$OUT"
pass "copied: $(cat "$OUT")"

say "second run leaves b untouched"
before=$(st b)
sleep 0.01
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=%file,%desc -o "$T/log" \
	"$SMARTCP" -v --if-changed a b >"$OUT" 2>"$ERR" ||
	fail "smartcp --if-changed exited $?: $(cat "$ERR")"
assert_line "'a' -> 'b' [unchanged]" "$OUT"
assert_eq "$(st b)" "$before" "inode size mtime ctime mode of b"
grep -Eq 'open(at)?\(.*"b", O_RDONLY' "$T/log" ||
	fail "b was not even read (strace log has no read-only open of b)"
no_write_of "$T/log" b
grep -Eq '(^|[ >])(ftruncate|fallocate|copy_file_range|splice|fchmod|fchown|fsetxattr)\(|utimensat\([0-9]+, NULL' "$T/log" &&
	{ grep -E 'ftruncate|fallocate|copy_file_range|splice|fchmod|fchown|fsetxattr|utimensat' "$T/log" >&2;
	  fail "data or attribute calls in an unchanged run"; }
assert_same a b
pass "[unchanged], no open for writing, inode/mtime/ctime same"

say "--json says unchanged"
assert_exit 0 "$SMARTCP" --json --if-changed a b
assert_grep '"unchanged":true' "$OUT"
assert_eq "$(st b)" "$before" "stat of b after --json --if-changed"
pass '"unchanged":true'

say "one byte changed, same size: rewritten"
printf 'Z' | dd of=a bs=1 seek=54321 conv=notrunc status=none
cmp -s a b && printf 'Y' | dd of=a bs=1 seek=54321 conv=notrunc status=none
! cmp -s a b || fail "could not change a byte of a"
assert_size a 100000
sleep 0.01
assert_exit 0 "$SMARTCP" -v --if-changed a b
assert_no_grep '\[unchanged\]' "$OUT"
assert_same a b
[ "$(stat -c %.9Y b)" != "$(echo "$before" | cut -d' ' -f3)" ] ||
	fail "b rewritten but its mtime did not change"
pass "b rewritten: $(cat "$OUT")"

say "-p: a mode-only difference is fixed without rewriting the data"
assert_exit 0 "$SMARTCP" -p --if-changed a b
assert_same a b
chmod 0600 a
before=$(st b)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=%file,%desc -o "$T/log2" \
	"$SMARTCP" -v -p --if-changed a b >"$OUT" 2>"$ERR" ||
	fail "smartcp -p --if-changed exited $?: $(cat "$ERR")"
assert_line "'a' -> 'b' [unchanged]" "$OUT"
assert_eq "$(stat -c %a b)" 600 "mode of b after -p --if-changed"
assert_eq "$(stat -c '%i %s %.9Y' b)" "$(echo "$before" | cut -d' ' -f1-3)" \
	"inode size mtime of b"
grep -E '"b"' "$T/log2" | grep -Eq 'open(at)?\(.*O_(WRONLY|RDWR|TRUNC)' &&
	{ grep '"b"' "$T/log2" >&2; fail "b opened for writing to fix its mode"; }
grep -Eq '(^|[ >])(ftruncate|fallocate|copy_file_range|splice)\(' "$T/log2" &&
	fail "data calls to fix a mode"
assert_same a b
pass "mode 600, same inode and mtime, no data written"

say "without -p, a mode-only difference is no difference"
chmod 0640 a
before=$(st b)
assert_exit 0 "$SMARTCP" -v --if-changed a b
assert_line "'a' -> 'b' [unchanged]" "$OUT"
assert_eq "$(st b)" "$before" "stat of b (mode not preserved)"
pass "unchanged, mode of b still $(stat -c %a b)"
