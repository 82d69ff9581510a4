#!/bin/bash
# Runs smartcp's main paths under valgrind: no leaks, no memory errors.
set -eu
export LC_ALL=C
S=${SMARTCP:?SMARTCP must name the smartcp binary}
command -v valgrind >/dev/null || { echo "SKIP: valgrind not installed"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
vg() {
	valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible \
		--error-exitcode=99 "$S" "$@"
}
head -c 3M /dev/urandom > "$T/a"
mkdir -p "$T/tree/sub" && echo x > "$T/tree/sub/f" && ln -s f "$T/tree/sub/l"
n=0
run() {
	local rc=0
	vg "$@" >/dev/null 2>"$T/err" || rc=$?
	if [ $rc -eq 99 ]; then cat "$T/err"; echo "valgrind: errors in: smartcp $*"; exit 1; fi
	n=$((n + 1))
}
run -v "$T/a" "$T/b"
run --road=read_write "$T/a" "$T/c"
run --road=splice "$T/a" "$T/d"
run -v /proc/cpuinfo "$T/cpuinfo"
run -a "$T/tree" "$T/tree2"
run --explain -r "$T/tree" "$T/tree3"
run --json "$T/a" /proc/version "$T/tree"
run /nonexistent "$T/x"
run "$T/tree" "$T/y"
echo "valgrind: $n runs, no leaks or errors"
