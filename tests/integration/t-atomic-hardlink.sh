#!/bin/bash
# --atomic onto a destination with other names (hard links) gives that
# name a new file, and the other names keep the old data: a rename cannot
# write into the inode they share.  That is kept on purpose (smartcp(1),
# under --atomic), and -v says it as a warning, once, when it happens: not
# without -v, not for a file with one name, not when --if-changed leaves
# the file alone, not where the old file goes anyway (-b, and
# --remove-destination, where cp breaks the link too), not when the copy
# failed (the link is whole then).  Before, nothing was said.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"
echo new >s
W="had other hard links; --atomic replaced it, and they keep the old data"

# fresh: d with a second name d2, both the old bytes
fresh() {
	rm -f d d2 d~ d.out d.err
	echo old >d
	ln d d2
}

say "--atomic -v onto a file with another name"
fresh
assert_exit 0 "$SMARTCP" --atomic -v s d
assert_eq "$(cat d) $(cat d2) $(stat -c %h d)" "new old 1" "d, its other name d2, d's links"
assert_eq "$(grep -cF "warning: 'd' $W" "$ERR")" 1 "warnings about d"
assert_grep "^'s' -> 'd'" "$OUT"
pass "d is new, d2 keeps the old data, and -v said so"

say "through a symlink to such a file: the file it leads to is replaced"
fresh
ln -s d l
assert_exit 0 "$SMARTCP" --atomic -v s l
assert_eq "$(cat d) $(cat d2)" "new old" "d and d2"
grep -qF "warning: 'l' $W" "$ERR" || fail "no warning about l: $(cat "$ERR")"
rm l
pass "said"

say "nothing said: without -v, one name, --if-changed unchanged, -b, --remove-destination"
fresh
assert_exit 0 "$SMARTCP" --atomic s d
assert_eq "$(cat d2)" old "d2"
assert_no_grep warning "$ERR"
rm d2
echo old >d
assert_exit 0 "$SMARTCP" --atomic -v s d
assert_no_grep warning "$ERR"
fresh
cp s d
assert_exit 0 "$SMARTCP" --atomic --if-changed -v s d
assert_eq "$(stat -c %h d)" 2 "links of an unchanged d"
assert_no_grep warning "$ERR"
for opt in -b --remove-destination; do
	fresh
	assert_exit 0 "$SMARTCP" --atomic -v "$opt" s d
	assert_eq "$(cat d) $(cat d2)" "new old" "d and d2 after $opt"
	assert_no_grep warning "$ERR"
done
pass "no warning in those cases"

say "a failed --atomic copy leaves the link whole and says nothing of it"
need_shim
fresh
assert_exit 1 env LD_PRELOAD="$SHIM" SMARTCP_FAULT="write=eio@0" \
	"$SMARTCP" --atomic -v --road=read_write s d
assert_eq "$(cat d) $(cat d2) $(stat -c %h d)" "old old 2" "d, d2, links"
assert_no_grep warning "$ERR"
pass "old file and its link kept"
