#!/bin/bash
# A source tree that changes while smartcp -r or -a copies it (-j1 and
# -j2).  The change is made at an exact point of the walk, with no race:
# the fault shim's "run" action runs a script inside the call that marks
# the point (the readdir that finds the end of a directory, or the first
# stat of a name) and the copy waits for it.
#
#   A  right after src/ is listed: a file deleted, one renamed, the
#      directory src/swapped replaced by a symlink to a directory outside
#      the tree, a file replaced by a symlink, a file replaced by another
#   B  right after lstat says src/swapped is a directory, before it is
#      opened: it becomes that symlink
#   C  right after src/swapped is listed, before its entries are opened:
#      the same
#   D  right after the first stat of src/replaced: replaced by another file
#   E  right after the first stat of src/gone: deleted
#
# Checked every time: nothing of the symlink's target enters the
# destination (-r and -a copy symlinks as symlinks, -P: the target's files
# must not be read); a vanished file gets cp's message, starting with
# smartcp's argv[0], and exit status 1; every other file is byte-identical;
# nothing partial or temporary is left that looks complete.  A file
# replaced or deleted after smartcp opened it (D, E: the fast path opens
# before its first stat) is copied whole as it was read, and the change
# is said ("changed while it was copied: replaced by another file",
# "...: removed"), with exit status 1.  GNU cp runs
# under the same shim for comparison; its outcome is shown in the table,
# and it is held to the same checks, but only smartcp can fail the test.
# (GNU cp 9.1 follows the swapped-in symlink in B and C.  smartcp opens a
# directory with O_NOFOLLOW and checks it is the one lstat saw, so B ends
# in "skipping directory ..., as it was replaced while being copied" and
# exit 1; and it opens entries relative to the directory it listed, so in
# C it copies the original entries, wherever they were moved.)
set -eu
. "$(dirname "$0")/lib.sh"

need_shim
LD_PRELOAD=$SHIM SMARTCP_FAULT=dirend=trace /bin/true 2>/dev/null ||
	fail "the shim at '$SHIM' has no dirend rules (rebuild it)"

GNU_CP=
if /bin/cp --version 2>/dev/null | head -n 1 | grep -q 'GNU coreutils'; then
	GNU_CP=/bin/cp
fi

# The shim matches absolute, physical paths.
TP=$(cd "$T" && pwd -P)
W=$TP/w

# ------------------------------------------------------------------ the tree

# make_tree: $W/src, its pristine copy $W/ref, the directory the swapped-in
# symlink points to ($W/outside: the same names, other bytes), and the file
# that replaces src/replaced ($W/new-replaced, also kept as $W/new.ref).
make_tree() {
	rm -rf "$W"
	mkdir -p "$W/src/sub" "$W/src/swapped/deep" "$W/outside/deep" \
		"$W/stash"
	cd "$W"
	random_file src/a.bin 300000
	random_file src/big.bin $((3 * 1024 * 1024 + 13))
	: >src/empty
	random_file src/gone 65536
	random_file src/moved 65537
	random_file src/replaced 200000
	random_file src/tolink 4097
	random_file src/sub/s1 12345
	random_file src/sub/s2 1
	random_file src/swapped/f1 100000
	random_file src/swapped/f2 7
	random_file src/swapped/deep/f3 5000
	ln -s a.bin src/rel-link
	for f in f1 f2 deep/f3 only-outside secret; do
		printf 'SECRET-OUTSIDE %s\n' "$f" >"outside/$f"
	done
	random_file new-replaced 333333
	cp new-replaced new.ref
	/bin/cp -a src ref
}

# The changes, run by the shim (without the shim) in the middle of a copy.
# Each leaves its mark in $W/fired, so a copy that never reached the point
# cannot pass as one that survived the change.
cat >"$T/mut-A.sh" <<EOF
set -e
cd '$W'
echo "\$SMARTCP_FAULT_PATH" >>fired
rm src/gone
mv src/moved src/moved.new
mv src/swapped stash/swapped
ln -s '$W/outside' src/swapped
rm src/tolink
ln -s ../outside/secret src/tolink
mv new-replaced src/replaced
EOF
cat >"$T/mut-swap.sh" <<EOF
set -e
cd '$W'
echo "\$SMARTCP_FAULT_PATH" >>fired
mv src/swapped stash/swapped
ln -s '$W/outside' src/swapped
EOF
cat >"$T/mut-replace.sh" <<EOF
set -e
cd '$W'
echo "\$SMARTCP_FAULT_PATH" >>fired
mv new-replaced src/replaced
EOF
cat >"$T/mut-delete.sh" <<EOF
set -e
cd '$W'
echo "\$SMARTCP_FAULT_PATH" >>fired
rm src/gone
EOF

# scenario X: sets RULE, MATCH, MUT for scenario X
scenario() {
	case $1 in
	A) RULE=dirend=run@call:1 MATCH=$W/src MUT=A ;;
	B) RULE=stat=run@call:1 MATCH=$W/src/swapped MUT=swap ;;
	C) RULE=dirend=run@call:1 MATCH=$W/src/swapped MUT=swap ;;
	D) RULE=stat=run@call:1 MATCH=$W/src/replaced MUT=replace ;;
	E) RULE=stat=run@call:1 MATCH=$W/src/gone MUT=delete ;;
	esac
}

# ------------------------------------------------------------------ checks

# listing DIR: "PATH TYPE" for everything under DIR, sorted.
listing() { (cd "$1" && find . -mindepth 1 -printf '%P %y\n' | LC_ALL=C sort); }

# no_leak: no byte and no name of $W/outside anywhere in dst (find and
# grep -r do not follow the symlinks they meet).
no_leak() {
	local hits
	hits=$({ grep -rlF SECRET-OUTSIDE dst || true
		 find dst -name only-outside -o -name secret; } | sort -u)
	[ -z "$hits" ] ||
		fail "exit $rc; followed the swapped-in symlink out of the tree, copied: $(echo "$hits" | paste -sd " ")"
}

# no_temporaries: no .smartcp* names in dst.
no_temporaries() {
	local left
	left=$(find dst -name '.smartcp*')
	[ -z "$left" ] || fail "temporaries left: $(echo "$left" | paste -sd " ")"
}

# same_as_ref [EXCEPT-ERE]: dst has the entries of ref (as changed by
# $WANT_SED) with the same bytes, except paths matching EXCEPT-ERE.
same_as_ref() {
	local except=${1:-'^$'} p y
	diff <(listing ref | sed -E "$WANT_SED" | grep -Ev -- "$except") \
	     <(listing dst | grep -Ev -- "$except") >"$W/listing.diff" ||
		{ _show "$W/listing.diff"; fail "dst does not hold the expected entries (< expected, > got)"; }
	while read -r p y; do
		[ "$y" = f ] || continue
		case $p in
		replaced) assert_same "$REPLACED_REF" "dst/$p" ;;
		*) assert_same "ref/$p" "dst/$p" ;;
		esac
	done < <(listing dst | grep -Ev -- "$except")
}

# messages: the copy's stderr, sorted, with the program's name as "cp".
messages() { sed "s|^$PROG: |cp: |" err | LC_ALL=C sort; }

# msgs_only ERE: exit 1 and every message matches ERE (at least one).
msgs_only() {
	assert_eq "$rc" 1 "exit status"
	[ -s err ] || fail "exit 1 without a message"
	! messages | grep -Ev -- "$1" | grep -q . ||
		{ _show err; fail "unexpected message (wanted /$1/)"; }
	! grep -v "^$PROG: " err | grep -q . ||
		{ _show err; fail "a message does not start with '$PROG: '"; }
}

# is_prefix SHORT LONG: SHORT holds fewer bytes than LONG, and those bytes
# start LONG.
is_prefix() {
	local n
	n=$(stat -c %s "$1")
	[ "$n" -lt "$(stat -c %s "$2")" ] && cmp -s -n "$n" "$1" "$2"
}

# swapped_dir_ok: whatever dst/swapped is, it holds no file but the
# original ones (moved aside to stash/, same bytes as ref/swapped).
swapped_dir_ok() {
	local p
	[ -e dst/swapped ] || [ -L dst/swapped ] || return 0
	if [ -L dst/swapped ]; then
		assert_eq "$(readlink dst/swapped)" "$W/outside" "target of the copied symlink dst/swapped"
		return 0
	fi
	for p in $(cd dst && find swapped -type f); do
		[ -f "ref/$p" ] || fail "dst/$p: not a file of the original directory"
		assert_same "ref/$p" "dst/$p"
	done
}

# check X: what must hold after scenario X (in $W, after the copy).
check() {
	WANT_SED=
	REPLACED_REF=$W/ref/replaced
	no_leak
	no_temporaries
	case $1 in
	A)
		assert_eq "$rc" 1 "exit status"
		diff <(messages) - >"$W/msg.diff" <<-EOF ||
		cp: cannot stat 'src/gone': No such file or directory
		cp: cannot stat 'src/moved': No such file or directory
		EOF
			{ _show "$W/msg.diff"; fail "messages differ from cp's (< got, > expected)"; }
		! grep -v "^$PROG: " err | grep -q . ||
			{ _show err; fail "a message does not start with '$PROG: '"; }
		# gone and moved are gone (moved.new was not listed);
		# swapped and tolink are symlinks now; replaced is new
		WANT_SED='/^(gone|moved|swapped\/.*) /d; s/^(swapped|tolink) [df]$/\1 l/'
		REPLACED_REF=$W/new.ref
		same_as_ref
		assert_eq "$(readlink dst/swapped)" "$W/outside" "target of dst/swapped"
		assert_eq "$(readlink dst/tolink)" ../outside/secret "target of dst/tolink"
		echo "exit 1, cp's 2 messages; symlinks copied as symlinks"
		;;
	B | C)
		if [ "$1" = B ] && [ "$PROG" = "$SMARTCP" ]; then
			# the directory is opened without following a
			# symlink, and checked against the lstat
			assert_eq "$rc" 1 "exit status"
			assert_eq "$(messages)" \
				"cp: skipping directory 'src/swapped', as it was replaced while being copied" \
				"message"
		fi
		if [ "$rc" -ne 0 ]; then
			msgs_only "'src/swapped[/']"
		else
			[ ! -s err ] || { _show err; fail "exit 0 with messages"; }
		fi
		same_as_ref '^swapped[/ ]'
		swapped_dir_ok
		printf 'exit %s, dst/swapped: %s%s\n' "$rc" \
			"$(stat -c %F dst/swapped 2>/dev/null || echo absent)" \
			"$([ -s err ] && echo "; $(head -n 1 err | sed "s|^$PROG: |cp: |")")"
		;;
	D)
		if [ "$rc" -eq 0 ]; then
			[ ! -s err ] || { _show err; fail "exit 0 with messages"; }
			if cmp -s dst/replaced ref/replaced; then
				echo "exit 0, the old file copied whole"
			elif cmp -s dst/replaced new.ref; then
				echo "exit 0, the new file copied whole"
			else
				fail "dst/replaced ($(stat -c %s dst/replaced) bytes) is neither the old file nor the new one"
			fi
		else
			msgs_only "'src/replaced'"
			[ "$(wc -l <err)" -eq 1 ] || { _show err; fail "more than one message"; }
			if grep -q "'src/replaced' changed while it was copied: replaced by another file\$" err; then
				# opened before the rename: the file that was
				# read, whole, and the change said
				assert_same ref/replaced dst/replaced
			elif [ -e dst/replaced ] && ! is_prefix dst/replaced ref/replaced &&
			   ! is_prefix dst/replaced new.ref; then
				fail "a failed dst/replaced ($(stat -c %s dst/replaced) bytes) looks complete or is no prefix"
			fi
			echo "exit 1, $(messages)"
		fi
		same_as_ref '^replaced '
		;;
	E)
		if [ "$rc" -eq 0 ]; then
			[ ! -s err ] || { _show err; fail "exit 0 with messages"; }
			assert_same ref/gone dst/gone
			echo "exit 0, the open file copied whole"
		else
			msgs_only "^cp: (cannot (stat 'src/gone'|open 'src/gone' for reading): No such file or directory|'src/gone' changed while it was copied: removed)\$"
			[ "$(wc -l <err)" -eq 1 ] || { _show err; fail "more than one message"; }
			if grep -q "changed while it was copied: removed\$" err; then
				# opened before the unlink: what was read, whole
				assert_same ref/gone dst/gone
			else
				[ ! -e dst/gone ] || fail "dst/gone left after the failure"
			fi
			echo "exit 1, $(messages)"
		fi
		same_as_ref '^gone '
		;;
	esac
}

# ------------------------------------------------------------------ the runs

# one X PROG OPTIONS...: scenario X with PROG OPTIONS src dst, in a
# subshell (fail ends only it); prints the outcome, returns 1 on failure.
# Run it as "one ... & wait $!": inside an if or before ||, bash would
# ignore set -e in the subshell too.
one() {
	local x=$1
	shift
	(
		set -eu
		scenario "$x"
		make_tree
		rc=0
		env LD_PRELOAD="$SHIM" SMARTCP_FAULT="$RULE" \
		    SMARTCP_FAULT_MATCH="$MATCH" SMARTCP_FAULT_LOG="$W/shim.log" \
		    SMARTCP_FAULT_RUN="sh '$T/mut-$MUT.sh'" \
		    "$@" src dst >out 2>err || rc=$?
		PROG=$1
		[ -s fired ] || { _show shim.log; fail "the change was never made: the copy did not reach the point"; }
		[ "$(wc -l <fired)" -eq 1 ] || fail "the change was made more than once"
		grep -q 'SMARTCP_FAULT_RUN exited 0' shim.log ||
			{ _show shim.log; fail "the change failed"; }
		[ "$rc" -lt 128 ] || fail "killed by signal $((rc - 128))"
		[ -d dst ] || fail "no dst directory (exit $rc)"
		printf '[at %s] ' "$(sed -n '1s/(.*//p' shim.log)"
		check "$x"
	)
}

nfail=0
row() { printf '| %-39s | %-14s | %s\n' "$1" "$2" "$3" >>"$T/table"; }
declare -A TITLE=(
	[A]="A after src/ is listed"
	[B]="B after lstat(src/swapped), before open"
	[C]="C after src/swapped/ is listed"
	[D]="D after the 1st stat of src/replaced"
	[E]="E after the 1st stat of src/gone"
)
: >"$T/table"

for x in A B C D E; do
	say "${TITLE[$x]}"
	for opts in "-r -j1" "-r -j2" "-a -j1" "-a -j2"; do
		rc=0
		# shellcheck disable=SC2086
		one "$x" "$SMARTCP" $opts >"$T/got" 2>"$T/why" &
		wait $! || rc=$?
		if [ "$rc" -eq 0 ]; then
			pass "smartcp $opts: $(cat "$T/got")"
			row "${TITLE[$x]}" "smartcp $opts" "ok: $(cat "$T/got")"
		else
			why=$(sed -n "s/^FAIL: $TEST_NAME: //p" "$T/why" | tail -n 1)
			cat "$T/why" >&2
			echo "FAILED: smartcp $opts: ${why:-see above}"
			row "${TITLE[$x]}" "smartcp $opts" "FAIL: ${why:-see the log}"
			nfail=$((nfail + 1))
		fi
	done
	[ -n "$GNU_CP" ] || continue
	for opts in -r -a; do
		rc=0
		one "$x" "$GNU_CP" "$opts" >"$T/got" 2>"$T/why" &
		wait $! || rc=$?
		if [ "$rc" -eq 0 ]; then
			row "${TITLE[$x]}" "GNU cp $opts" "$(cat "$T/got")"
		else
			why=$(sed -n "s/^FAIL: $TEST_NAME: //p" "$T/why" | tail -n 1)
			row "${TITLE[$x]}" "GNU cp $opts" "(fails the checks) $why"
		fi
	done
done
cd "$T"
[ -n "$GNU_CP" ] || say "GNU cp not at /bin/cp: no comparison"
cat "$T/table"
[ "$nfail" -eq 0 ] || fail "$nfail of 20 smartcp runs failed (table above)"
