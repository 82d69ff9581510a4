#!/bin/bash
# A road that failed "not here" for a pair of filesystems is not tried
# again for that pair in the same run: with copy_file_range missing
# (ENOSYS), three files make exactly one copy_file_range call.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

for f in a b c; do
	random_file "$T/in/$f" $((SHIM_SIZE + ${#f}))
done

# Later files take splice (one filesystem, copy_file_range learned to
# fail: issue 29 item 2), not read_write.
# --road would switch learning off, so the default plan runs; FICLONE is
# refused too in case $T is on a filesystem that clones.
say "three files, cfr=enosys, default plan"
shim_run 0 clone=eopnotsupp,cfr=enosys -v "$T/in/a" "$T/in/b" "$T/in/c" \
	"$T/out/"
for f in a b c; do
	assert_same "$T/in/$f" "$T/out/$f"
done
[ ! -s "$ERR" ] || { _show "$ERR"; fail "messages on stderr"; }
assert_eq "$(grep -c '^copy_file_range(' "$SHIM_LOG")" 1 \
	"copy_file_range calls that reached the shim"
assert_injected "^copy_file_range\\(.*/in/a>.*-> ENOSYS \\(injected"
assert_line "'$T/in/b' -> '$T/out/b' [splice]" "$OUT"
assert_line "'$T/in/c' -> '$T/out/c' [splice]" "$OUT"
pass "ENOSYS learned from the first file"
