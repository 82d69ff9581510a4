#!/bin/bash
# Cancellation in the middle of a tree, through libsmartcp's tree copy
# (tests/lib/treecp.c, built against make install DESTDIR=...:
# lib-installed.sh) and, for SIGINT, through smartcp.  30 files of 1 MB in
# 6 directories, their copy slowed by the fault shim (copy_file_range
# cut to 128 KiB a call, each call followed by a short sleep: ~70 ms a
# file), so that a cancel lands in the middle of a file.  sc_tree_cancel()
# is called
#   - from the after callback once 7 files were said (--cancel-after 7);
#   - from another thread, 40 ms after the tree's progress counted 3
#     files (--cancel-thread 3 --cancel-delay 40);
#   - from SIGINT's handler, sent once 3 files are in the copy (smartcp
#     dies of SIGINT after its handler abandoned the file in progress).
# Each with -j1 and -j4.  Every run: exit 1 (a cancel) or 130 (SIGINT);
# everything in the copy is a regular file of the source with all its
# bytes, or none at all (no part of a file, no temporary); for treecp,
# the files in the copy are exactly those its after callback was told
# were copied (a file cancelled half-way is removed: the copy made it),
# and the cancel in the middle of a file (a file said "Operation
# canceled"), where the run is about one, happened: else it is run again
# (3 tries); with -j1, sc_tree_copy() returned -ECANCELED, and nothing
# more was begun: with --cancel-after 7, strace sees 7 sources opened for
# reading; after SIGINT (strace shows where it came) no file is made.
# (With -j4, sc_tree_copy() may return before its workers' files are
# said: what sc_tree_finish() returns then is t-lib-tree-word's.)
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-installed.sh"

serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_cmd strace
need_shim
need_treecp

TP=$(cd "$T" && pwd -P)
cd "$TP"
for d in 1 2 3 4 5 6; do
	mkdir -p "src/d$d"
	for f in 1 2 3 4 5; do
		head -c 1000000 /dev/urandom >"src/d$d/f$f"
	done
done

# slowly PROGRAM ARGS...: PROGRAM under the shim (and strace, into
# $T/trace: the opens and the signals), its process ID in $T/pid
slowly() {
	rm -f "$T/pid"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -o "$T/trace" -e trace=openat \
		sh -c 'echo $$ >"$0"; exec "$@"' "$T/pid" \
		env LD_PRELOAD="$SHIM" SMARTCP_FAULT='cfr=short:131072,cfr=run' \
		SMARTCP_FAULT_MATCH_SRC="$TP/src/" \
		SMARTCP_FAULT_RUN='sleep 0.005' "$@"
}

# settled [SAID]: every regular file in dst is its source's bytes, or
# absent; nothing else is there.  SAID (treecp's stdout): the files in
# dst are those said copied.  Sets COMPLETE.
settled() {
	local said=${1:-} f
	COMPLETE=0
	(cd dst && find . ! -type d | sed 's|^\./||' | sort) >"$T/in-dst"
	while read -r f; do
		[ -f "src/$f" ] && [ -f "dst/$f" ] && [ ! -L "dst/$f" ] ||
			fail "dst/$f is not a file of the source"
		cmp -s "src/$f" "dst/$f" ||
			fail "dst/$f is $(stat -c %s "dst/$f") bytes of $(stat -c %s "src/$f"): part of a file was left"
		COMPLETE=$((COMPLETE + 1))
	done <"$T/in-dst"
	[ -n "$said" ] || return 0
	sed -n "s|^'src/\\([^']*\\)' -> 'dst/[^']*' \\[.*\\]\$|\\1|p" "$said" |
		sort >"$T/said"
	cmp -s "$T/said" "$T/in-dst" || {
		diff "$T/said" "$T/in-dst" | head >&2
		fail "the copy does not hold exactly the files said copied"
	}
}

# mid_file: did the run cancel a file half-way (treecp said it)?
mid_file() { grep -q "^treecp: copy '.*': Operation canceled\$" "$ERR"; }

# signalled PROGRAM ARGS...: PROGRAM ARGS src dst, slowly, in the
# background; SIGINT once 3 files are in dst.  RC: its exit status.
signalled() {
	local pid n
	rm -rf dst
	slowly "$@" src dst >"$OUT" 2>"$ERR" &
	pid=$!
	for _ in $(seq 300); do
		n=$(find dst -type f 2>/dev/null | wc -l)
		[ "$n" -lt 3 ] || break
		sleep 0.05
	done
	# the program (sh, then env, became it), not strace
	kill -INT "$(cat "$T/pid")"
	RC=0
	wait "$pid" || RC=$?
}

# nothing_made_after_signal: no file was made once SIGINT came.
nothing_made_after_signal() {
	local n
	n=$(grep -n -- '--- SIGINT' "$T/trace" | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || fail "strace saw no SIGINT"
	! tail -n +"$n" "$T/trace" | grep -E 'openat\(.*O_CREAT' | grep -q . ||
		fail "a file was made after SIGINT: $(tail -n +"$n" "$T/trace" | grep O_CREAT | head -n 2)"
}

for j in 1 4; do
	say "treecp -r -j$j --cancel-after 7"
	rm -rf dst
	assert_exit 1 slowly "$TREECP" -r -j$j --cancel-after 7 src dst
	settled "$OUT"
	if [ "$j" = 1 ]; then
		assert_grep "^treecp: cancelled: 'src' -> 'dst': Operation canceled\$" "$ERR"
		assert_line "returned: -ECANCELED" "$OUT"
		assert_eq "$COMPLETE" 7 "files in the copy"
		n=$(grep -Ec "openat\(.*\"f[0-9]\", O_RDONLY.* = [0-9]+$" "$T/trace" || true)
		assert_eq "$n" 7 "sources opened for reading"
	fi
	pass "-j$j after callback: $COMPLETE whole files, nothing else"

	say "treecp -r -j$j --cancel-thread 3 --cancel-delay 40"
	for try in 1 2 3; do
		rm -rf dst
		assert_exit 1 slowly "$TREECP" -r -j$j --cancel-thread 3 \
			--cancel-delay 40 src dst
		assert_grep '^treecp: cancelled from another thread after' "$ERR"
		settled "$OUT"
		[ "$j" = 4 ] || assert_line "returned: -ECANCELED" "$OUT"
		! mid_file || break
		say "try $try: the cancel came between two files; again"
	done
	mid_file || fail "-j$j: no cancel in the middle of a file in 3 tries"
	pass "-j$j another thread: $COMPLETE whole files, the one in the middle removed"

	say "treecp -r -j$j, SIGINT"
	for try in 1 2 3; do
		signalled "$TREECP" -r -j$j
		assert_eq "$RC" 130 "treecp -j$j's exit status after SIGINT"
		settled "$OUT"
		[ "$j" = 4 ] || assert_line "returned: -ECANCELED" "$OUT"
		nothing_made_after_signal
		! mid_file || break
		say "try $try: SIGINT came between two files; again"
	done
	mid_file || fail "-j$j: no SIGINT in the middle of a file in 3 tries"
	pass "-j$j SIGINT: $COMPLETE whole files, the one in the middle removed"

	say "smartcp -r -j$j, SIGINT"
	signalled "$SMARTCP" -r -j$j
	assert_eq "$RC" 130 "smartcp -j$j's exit status after SIGINT"
	settled
	nothing_made_after_signal
	pass "-j$j smartcp SIGINT: $COMPLETE whole files, nothing else"
done
