#!/bin/bash
# An entry that vanishes between the listing of its directory and its
# turn (t-live-vanish.sh's case: the fault shim removes src/b right after
# src/ is listed), by smartcp and by libsmartcp's tree copy through a
# program of its own (tests/lib/treecp.c, built against make install
# DESTDIR=...: lib-installed.sh), -r with -j1 and -j2.  Both: exit 1, one
# message naming src/b and ENOENT (smartcp: cp's "cannot stat"; treecp:
# the stage the library gave, SC_TREE_VANISHED), the rest of the tree
# copied byte for byte, and no dst/b.  That the library looked and found
# nothing: strace shows the fstatat of b that failed with ENOENT, and no
# open of it for reading.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-installed.sh"

serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_cmd strace
need_shim
need_treecp

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

# shimmed LOG PROGRAM ARGS...: PROGRAM ARGS under the shim and strace
# (into LOG, from one file a thread: no call cut in two by another's),
# src/b removed right after src/ is listed.
shimmed() {
	local log=$1 rc=0
	shift
	rm -f "$log" "$log".*
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -ff -qq -o "$log" -e trace=newfstatat,fstatat64,statx,openat \
		env LD_PRELOAD="$SHIM" SMARTCP_FAULT=dirend=run@call:1 \
		SMARTCP_FAULT_MATCH="$TP/src" \
		SMARTCP_FAULT_RUN="rm -f '$TP/src/b'" "$@" || rc=$?
	cat "$log".* >"$log"
	return "$rc"
}

# rest_copied: everything but b, and no b.
rest_copied() {
	local f
	for f in a c sub/d; do
		assert_same "src/$f" "dst/$f"
	done
	[ ! -e dst/b ] || fail "dst/b exists"
}

for j in 1 2; do
	say "smartcp -r -j$j: src/b vanishes after src/ is listed"
	make_tree
	assert_exit 1 shimmed "$T/smartcp.trace" "$SMARTCP" -r -j"$j" src dst
	assert_line "$SMARTCP: cannot stat 'src/b': No such file or directory" "$ERR"
	assert_eq "$(wc -l <"$ERR")" 1 "smartcp -j$j: lines on stderr"
	rest_copied
	pass "smartcp -j$j: said, the rest copied"

	say "treecp -r -j$j: the same"
	make_tree
	assert_exit 1 shimmed "$T/treecp.trace" "$TREECP" -r -j"$j" src dst
	assert_line "treecp: vanished 'src/b' -> 'dst/b': No such file or directory" "$ERR"
	assert_eq "$(wc -l <"$ERR")" 1 "treecp -j$j: lines on stderr"
	rest_copied
	for f in a c sub/d; do
		assert_line "'src/$f' -> 'dst/$f' [copy_file_range]" "$OUT"
	done
	assert_no_grep "'src/b' -> " "$OUT"
	grep -Eq '(fstatat(64)?|statx)\(.*"b".*= -1 ENOENT' "$T/treecp.trace" ||
		fail "treecp -j$j: no failed stat of b in the trace"
	! grep -E 'openat\(.*"b", O_RDONLY' "$T/treecp.trace" | grep -qv ENOENT ||
		fail "treecp -j$j: b was opened"
	pass "treecp -j$j: SC_TREE_VANISHED said, the rest copied"
done
