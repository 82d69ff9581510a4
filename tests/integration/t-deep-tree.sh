#!/bin/bash
# A deep tree copies completely on a small stack: the walk recurses once
# per directory level, so what each level keeps on the stack decides how
# deep a tree can go before smartcp dies of SIGSEGV.  2,040 levels (the
# deepest whose relative names still fit in PATH_MAX) under a 1 MiB stack
# (an eighth of the default 8 MiB) leave each level under ~500 bytes.
# AddressSanitizer's frames are several times larger (red zones around
# every local), so a sanitizer build gets 4 MiB, half the default: still
# well under what the walk took before (about 9 KiB a level).
set -eu
. "$(dirname "$0")/lib.sh"

LEVELS=2040
STACK_KIB=1024
if nm -D "$SMARTCP" 2>/dev/null | grep -q __asan_init; then
	STACK_KIB=4096
fi

cd "$T"
p=src
for _ in $(seq "$LEVELS"); do
	p=$p/d
done
mkdir -p "$p"
printf 'bottom\n' >"$p/f"
random_file src/d/d/d/top 70000
ln -s f "$p/link"
mid=src
for _ in $(seq $((LEVELS / 2))); do
	mid=$mid/d
done
printf 'middle\n' >"$mid/m"

# deep_copy OPTION...: copies src to a fresh dst with a STACK_KIB stack.
deep_copy() {
	rm -rf dst
	(
		ulimit -s "$STACK_KIB"
		exec "$SMARTCP" "$@" src dst
	) >"$OUT" 2>"$ERR" || {
		rc=$?
		_show "$ERR"
		fail "'smartcp $* src dst' under ulimit -s $STACK_KIB exited $rc"
	}
	diff -r src dst >"$T/.diff" 2>&1 || {
		_show "$T/.diff"
		fail "the copy of the $LEVELS-level tree differs (smartcp $*)"
	}
	assert_same "$p/f" "dst${p#src}/f"
	[ -L "dst${p#src}/link" ] || fail "the symlink at the bottom is missing"
}

say "-r: $LEVELS levels under a $STACK_KIB KiB stack"
deep_copy -r
pass "-r copied all $LEVELS levels, exit 0"

say "-a: $LEVELS levels under a $STACK_KIB KiB stack"
deep_copy -a
assert_eq "$(stat -c %a "$mid")" "$(stat -c %a "dst${mid#src}")" \
	"mode of the middle directory"
pass "-a copied all $LEVELS levels, exit 0"
