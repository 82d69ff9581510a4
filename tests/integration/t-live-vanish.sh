#!/bin/bash
# An entry of a tree that vanishes between the listing of its directory
# and its turn to be copied (-j1 and -j2): cp's message, exit status 1,
# the rest of the tree copied, and the summary says it (the JSON summary's
# "vanished", the terminal's summary line).  The entry is removed at an
# exact point by the fault shim: right after the directory is listed.
set -eu
. "$(dirname "$0")/lib.sh"
need_cmd script timeout

need_shim

TP=$(cd "$T" && pwd -P)
cd "$TP"

make_tree() {
	rm -rf src dst
	mkdir -p src/sub
	random_file src/a 70000
	random_file src/b 80000
	random_file src/c 90000
	random_file src/sub/d 1000
}

# shimmed ARGS...: smartcp ARGS under the shim, src/b removed right after
# src/ is listed.
shimmed() {
	env LD_PRELOAD="$SHIM" SMARTCP_FAULT=dirend=run@call:1 \
		SMARTCP_FAULT_MATCH="$TP/src" \
		SMARTCP_FAULT_RUN="rm -f '$TP/src/b'" "$SMARTCP" "$@"
}

for j in 1 2; do
	say "-j$j: src/b vanishes after src/ is listed"
	make_tree
	assert_exit 1 shimmed -r -j"$j" --json src dst
	assert_line "$SMARTCP: cannot stat 'src/b': No such file or directory" "$ERR"
	assert_eq "$(wc -l <"$ERR")" 1 "lines on stderr"
	for f in a c sub/d; do
		assert_same "src/$f" "dst/$f"
	done
	[ ! -e dst/b ] || fail "dst/b exists"
	assert_grep '"source":"src/b",.*"status":"failed","error":"ENOENT"' "$OUT"
	assert_grep '^\{"summary":\{"files":3,.*"failures":1,.*\},"vanished":1,"seconds":' "$OUT"
	pass "-j$j: said, the rest copied, counted"
done

say "the terminal's summary line counts it"
make_tree
rc=0
timeout 60 script -qec "env LD_PRELOAD='$SHIM' SMARTCP_FAULT=dirend=run@call:1 SMARTCP_FAULT_MATCH='$TP/src' SMARTCP_FAULT_RUN=\"rm -f '$TP/src/b'\" '$SMARTCP' -r src dst" /dev/null </dev/null >pty.out || rc=$?
assert_eq "$rc" 1 "exit status on a pty"
tr -d '\r' <pty.out >pty.lines
assert_grep "cannot stat 'src/b': No such file or directory" pty.lines
assert_grep ': 3 files, .*; 1 failed; 1 vanished before its turn$' pty.lines
pass "summary: $(grep -o '1 failed.*' pty.lines)"

say "nothing vanishes: no such words"
make_tree
assert_exit 0 "$SMARTCP" -r --json src dst
assert_no_grep '"vanished"' "$OUT"
pass "no vanished key"
