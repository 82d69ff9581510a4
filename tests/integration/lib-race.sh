# shellcheck shell=bash
# Helpers of the race tests (t-race-*.sh, issue 35): root copies into a
# directory that uid 65534 owns, and tests/race/swapper, running as that
# user, swaps what the copy makes there for a symlink, a hard link or a
# directory of its own the moment inotify shows it.  Sourced after lib.sh:
#
#	. "$(dirname "$0")/lib.sh"
#	. "$(dirname "$0")/lib-race.sh"
#	race_setup
#
# A test makes a victim (something root owns outside the destination),
# runs attempts with race_try, compares the victim after each one with its
# own victim check and counts with race_won / race_outcome, and ends each
# variant with race_verdict and the whole test with race_end, which fails
# when the attacker won any attempt (the victim changed), when a run said
# something it should not have, or when no attempt was ever swapped.
#
# SMARTCP may be any cp: with GNU cp (its --version says GNU coreutils)
# only the victim is checked, never smartcp's messages, so that the same
# test gives cp's count (SMARTCP=/bin/cp bash tests/integration/t-race-...).
# With tests/lib/treecp (its --version says treecp: libsmartcp's tree
# copy through a program of its own, t-lib-tree-race.sh) a swap must be
# said in its words ("treecp: replaced 'S' -> 'D'", RACE_LIB=1).
# RACE_RUNS=N sets every variant's number of attempts.

ATTACKER_UID=65534
ATTACKER=$ATTACKER_UID:$ATTACKER_UID
RACE_FAILED=

# need_swapper: sets $SWAPPER to tests/race/swapper (make check builds
# it: found in the build tree, next to $SMARTCP or in the current
# directory), or fails.
need_swapper() {
	local c
	SWAPPER=${SWAPPER:-}
	for c in ${abs_top_builddir:+"$abs_top_builddir/tests/race/swapper"} \
		 "$(dirname "$SMARTCP")/../tests/race/swapper" \
		 "$PWD/tests/race/swapper"; do
		[ -z "$SWAPPER" ] && [ -x "$c" ] && SWAPPER=$c
	done
	[ -n "$SWAPPER" ] && [ -x "$SWAPPER" ] ||
		fail "no tests/race/swapper next to '$SMARTCP' (make check, or make tests/race/swapper; or set SWAPPER)"
}

# race_setup: root, the swapper, $T reachable by the attacker, and
# RACE_CP=1 when the program under test is GNU cp.
race_setup() {
	need_root "copies by root into a directory uid $ATTACKER_UID owns"
	need_cmd setpriv getfattr
	need_swapper
	chmod 0755 "$T"
	RACE_CP= RACE_LIB=
	if "$SMARTCP" --version 2>/dev/null | head -n 1 | grep -q 'GNU coreutils'; then
		RACE_CP=1
		say "$SMARTCP is GNU cp: counting the attacker's wins only"
	elif "$SMARTCP" --version 2>/dev/null | head -n 1 | grep -q '^treecp '; then
		RACE_LIB=1
		say "$SMARTCP is treecp: libsmartcp's tree copy, its own words"
	fi
}

# as_attacker CMD...: CMD as uid 65534.
as_attacker() {
	setpriv --reuid="$ATTACKER_UID" --regid="$ATTACKER_UID" --clear-groups "$@"
}

# attacker_dir DIR...: empty directories owned by the attacker (made
# anew).
attacker_dir() {
	rm -rf "$@"
	mkdir -p "$@"
	chown "$ATTACKER" "$@"
}

# variant LABEL ATTEMPTS ATTEMPT-ARGS...: ATTEMPTS runs (RACE_RUNS wins) of
# the test's own attempt() with ATTEMPT-ARGS, counted and judged as one
# variant.  A test that needs more defines its own after sourcing this.
variant() {
	local label=$1 n=$2
	shift 2
	race_begin "$label"
	while race_again "$(runs "$n")"; do
		attempt "$@"
	done
	race_verdict
}

# runs DEFAULT: the number of attempts of a variant (RACE_RUNS wins).
runs() { echo "${RACE_RUNS:-$1}"; }

# race_again N: another attempt of the variant begun?  N of them, and
# more, up to 6 N, while none was swapped yet: a race never run proves
# nothing, and on a busy machine a small window (a link made, then
# renamed at once) can pass ten times without the swapper's turn (CI saw
# -l -f's temporary swapped 0 of 10 times, where a quiet run swaps 3-8).
race_again() {
	[ "$RACE_ATTEMPTS" -lt "$1" ] ||
		{ [ "$RACE_SWAPS" -eq 0 ] && [ "$RACE_ATTEMPTS" -lt $(($1 * 6)) ]; }
}

# race_begin LABEL: counters for a variant.
race_begin() {
	RACE_LABEL=$1
	RACE_ATTEMPTS=0 RACE_SWAPS=0 RACE_WON=0 RACE_BAD=0
	RACE_FIRST_WON='' RACE_FIRST_BAD=''
	RACE_START=$SECONDS
}

# race_try DIR [SWAPPER-OPTION...] -- ARG...: one attempt, the swapper
# watching DIR and running "$SMARTCP ARG..." (as root, in the current
# directory), its output in $OUT and $ERR.  Sets RC (the program's exit
# status), SWAPPED (the names the swapper swapped, one a line; empty
# when it swapped nothing in time) and SWAPPED_INO (the inode numbers of
# the objects it swapped in, in the same order).
race_try() {
	local dir=$1 opts=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# -gt 0 ] || fail "race_try: no -- before the program's arguments"
	shift
	RACE_ATTEMPTS=$((RACE_ATTEMPTS + 1))
	RC=0
	"$SWAPPER" -u "$ATTACKER" -l "$T/.swaplog" "${opts[@]}" "$dir" \
		"$SMARTCP" "$@" >"$OUT" 2>"$ERR" || RC=$?
	[ "$RC" -ne 125 ] || { _show "$ERR"; fail "$RACE_LABEL: the swapper could not do its part"; }
	[ "$RC" -lt 128 ] || { _show "$ERR"; fail "$RACE_LABEL: $SMARTCP $*: killed by signal $((RC - 128))"; }
	SWAPPED=$(sed -n 's/^swapped \([^ ]*\) .*/\1/p' "$T/.swaplog")
	# shellcheck disable=SC2034 # for the tests
	SWAPPED_INO=$(sed -n 's/^swapped [^ ]* [^ ]* \([0-9]*\)$/\1/p' "$T/.swaplog")
	[ -z "$SWAPPED" ] || RACE_SWAPS=$((RACE_SWAPS + 1))
}

swapped_list() {
	if [ -n "$SWAPPED" ]; then
		printf '%s\n' "$SWAPPED" | paste -sd' '
	else
		echo nothing
	fi
}

# race_won WHAT: the attacker won this attempt (WHAT says how).
race_won() {
	RACE_WON=$((RACE_WON + 1))
	[ -n "$RACE_FIRST_WON" ] ||
		RACE_FIRST_WON="attempt $RACE_ATTEMPTS (swapped: $(swapped_list)): $1"
}

# race_bad WHAT: the run did not end as it should (WHAT says how).
race_bad() {
	RACE_BAD=$((RACE_BAD + 1))
	[ -n "$RACE_FIRST_BAD" ] ||
		RACE_FIRST_BAD="attempt $RACE_ATTEMPTS (swapped: $(swapped_list), exit $RC): $1 [stderr: $(head -c 300 "$ERR" | tr '\n' '|')]"
}

# race_outcome [NAME...]: how the attempt ended.  Nothing swapped: exit
# 0, nothing said.  Swapped: either the same (the swap came after the
# copy was done with the name), or exit 1 and every line said is
# "skipping file|directory 'X', as it was replaced while being copied"
# with X ending in a swapped name or one of NAMEs (a path's last
# components, e.g. a/b), or matches the ERE $RACE_ALSO_SAID when the test
# sets it (another message that names the swap).  treecp: its line for
# the stages SC_TREE_REPLACED and SC_TREE_SRC_REPLACED, "treecp: [source
# ]replaced 'S' -> 'X'" (X as above), instead; $RACE_ALSO_SAID is
# smartcp's words, not looked at.  GNU cp: not checked.
race_outcome() {
	local n names re
	[ -z "$RACE_CP" ] || return 0
	if [ -z "$SWAPPED" ] || [ "$RC" -eq 0 ]; then
		[ "$RC" -eq 0 ] && [ ! -s "$ERR" ] ||
			race_bad "exit $RC or something said"
		return 0
	fi
	# shellcheck disable=SC2086 # SWAPPED: one name a line
	names=$(printf '%s\n' $SWAPPED "$@" | sed 's/[][\.*^$]/\\&/g' |
		paste -sd'|')
	re="^$(printf '%s' "$SMARTCP" | sed 's/[][\.*^$]/\\&/g'): skipping (file|directory) '([^']*/)?($names)', as it was replaced while being copied\$"
	[ -z "${RACE_ALSO_SAID:-}" ] || re="$re|$RACE_ALSO_SAID"
	[ -z "$RACE_LIB" ] ||
		re="^treecp: (source )?replaced '[^']*' -> '([^']*/)?($names)'\$"
	n=$(grep -cvE -- "$re" "$ERR" || true)
	if [ "$RC" -ne 1 ] || [ ! -s "$ERR" ] || [ "$n" -ne 0 ]; then
		race_bad "not exit 1 with only 'skipping ... replaced' naming $(swapped_list) $*"
	fi
}

# race_verdict: the variant's line (a table row the runner shows) and its
# verdict, kept for race_end.
race_verdict() {
	local s=$((SECONDS - RACE_START))
	printf '| %-34s | %4d attempts | %4d swapped | %4d won | %3d s |\n' \
		"$RACE_LABEL" "$RACE_ATTEMPTS" "$RACE_SWAPS" "$RACE_WON" "$s"
	if [ "$RACE_WON" -gt 0 ]; then
		echo "  first won: $RACE_FIRST_WON" >&2
		RACE_FAILED="$RACE_FAILED; $RACE_LABEL: the attacker won $RACE_WON of $RACE_ATTEMPTS"
	fi
	if [ "$RACE_BAD" -gt 0 ]; then
		echo "  first wrong ending: $RACE_FIRST_BAD" >&2
		RACE_FAILED="$RACE_FAILED; $RACE_LABEL: $RACE_BAD of $RACE_ATTEMPTS runs ended wrongly"
	fi
	if [ "$RACE_SWAPS" -eq 0 ]; then
		RACE_FAILED="$RACE_FAILED; $RACE_LABEL: no attempt was swapped: the race was never run"
	fi
}

# race_end: fails with what every variant found, else passes.
race_end() {
	[ -z "$RACE_FAILED" ] || fail "${RACE_FAILED#; }"
	pass "${1:-the attacker never won}"
}

# inode_state PATH...: what must not change about PATHs (no ctime: a
# hard link the attacker makes changes it): type, mode, owner, size,
# modification time, links to it, its bytes or entries and its extended
# attributes (ACLs included).
inode_state() {
	local p
	for p in "$@"; do
		stat -c '%n %F %a %u %g %s %Y %h' "$p"
		if [ -d "$p" ]; then
			ls -A "$p"
		elif [ -f "$p" ]; then
			md5sum <"$p"
		fi
		getfattr -h -d -m - --absolute-names "$p" 2>/dev/null
	done
}
