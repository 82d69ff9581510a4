#!/bin/bash
# The walk keeps descriptors for its deepest directories only (under
# `ulimit -n 64`, four levels); coming back up it opens the others again,
# through ".." of the directory it leaves or else by name from the
# nearest open one, and each must be the directory it saw there.  Here
# the walk waits at the bottom of a 10-level tree (reading a FIFO), and
# meanwhile level 4 is moved out of level 3 and level 3 is replaced by a
# new directory: ".." leads elsewhere, the name leads to another
# directory, so level 3 is refused with cp's message for a directory
# replaced while being copied (once, whether entries of it were left or
# not: their order is the inodes'), exit 1; the bottom is copied.  Then,
# undisturbed, the same walk copies the whole tree.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"
p=src
for i in $(seq 10); do
	p=$p/l$i
done
mkdir -p "$p"
mkfifo "$p/a-fifo"
printf 'bottom\n' >"$p/zz"
printf 'in level 3\n' >src/l1/l2/l3/yy

say "level 3 replaced while the walk is at the bottom"
(
	ulimit -n 64
	exec "$SMARTCP" -r --copy-contents src dst
) >"$OUT" 2>"$ERR" &
pid=$!
# the walk blocks opening the FIFO until a writer comes
for _ in $(seq 50); do
	[ -e "dst${p#src}" ] && break
	sleep 0.1
done
[ -e "dst${p#src}" ] || fail "the walk did not reach the bottom"
mv src/l1/l2/l3/l4 src/x4
mv src/l1/l2/l3 src/l3-old
mkdir src/l1/l2/l3
printf 'fifo data\n' >"src/x4${p#src/l1/l2/l3/l4}/a-fifo"
rc=0
wait "$pid" || rc=$?
assert_eq "$rc" 1 "exit status"
want="$(basename "$SMARTCP"): skipping directory 'src/l1/l2/l3', as it was replaced while being copied"
grep -qF -- "${want#*: }" "$ERR" || { _show "$ERR"; fail "no message about level 3"; }
[ "$(wc -l <"$ERR")" -eq 1 ] || { _show "$ERR"; fail "more than one message"; }
assert_eq "$(cat "dst${p#src}/zz")" bottom "the bottom's file"
assert_eq "$(cat "dst${p#src}/a-fifo")" "fifo data" "the FIFO's data"
pass "exit 1, level 3 named once, the bottom copied"

say "undisturbed, under ulimit -n 64: all of it"
rm -rf src dst
mkdir -p "$p"
printf 'bottom\n' >"$p/zz"
printf 'rest of level 3\n' >src/l1/l2/l3/yy
for i in $(seq 10); do
	printf '%s\n' "$i" >"src/f$i"
done
(
	ulimit -n 64
	exec "$SMARTCP" -a src dst
) >"$OUT" 2>"$ERR" || { _show "$ERR"; fail "exit $?"; }
diff -r src dst || fail "the copy differs"
pass "exit 0, equal"
