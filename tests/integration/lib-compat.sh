# shellcheck shell=bash
# Helpers for the tests that hold smartcp against GNU cp case by case,
# tests/integration/t-cp-compat*.sh.  Sourced after lib.sh, never run:
#
#	. "$(dirname "$0")/lib.sh"
#	. "$(dirname "$0")/lib-compat.sh"
#	compat_init
#	c NAME 'CMD' [STDIN]
#	compat_finish
#
# Each case runs the shell snippet CMD, where "$CP" is the cp under test,
# once for smartcp and once for GNU cp, each in a fresh directory of its
# own, with STDIN (a string) on standard input.  Both are installed as
# ".../cp", so smartcp behaves as cp (no road on -v lines) and messages
# start with the same name.  The status, stdout, stderr and the files left
# must be the same; differences are printed as unified diffs (- gnu,
# + smartcp) and fail the test at compat_finish.
#
# The test may define before the cases:
#	compat_setup	run in each new case directory (as the test's user)
#	compat_listing	the files left, one line each (default: names,
#			types, modes, sizes, link counts, link targets, and
#			the md5 of every regular file)
# and set COMPAT_PREFIX (an array) to run each snippet under, e.g. setpriv.

compat_init() {
	GNU_CP=$(command -v cp) || skip "needs GNU cp"
	"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' ||
		skip "needs GNU cp (cp --version says: $("$GNU_CP" --version 2>&1 | head -n 1))"
	# Case directories $T/o/NAME and $T/g/NAME have names of the same
	# length, so messages that name them compare equal once normalised.
	mkdir "$T/ours" "$T/gnu" "$T/o" "$T/g" "$T/res"
	ln -s "$SMARTCP" "$T/ours/cp"
	ln -s "$GNU_CP" "$T/gnu/cp"
	ncases=0
	ndiff=0
	diffs=$T/res/all.diff
	: >"$diffs"
	COMPAT_PREFIX=()
}

# "$T/ours/cp" and "$T/gnu/cp" become "cp"; case directories CASEDIR.
compat_norm() { sed -e "s#$T/[a-z]*/cp#cp#g" -e "s#$T/[og]/[^/ ]*#CASEDIR#g"; }

compat_default_listing() {
	find . -printf '%p %y %m %s %n %l\n' | LC_ALL=C sort
	find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum
}

# c [-nolist] NAME CMD [STDIN]: one case (-nolist: compare status and
# output only, not the files left).
c() {
	local list=1 name cmd in impl dir r rc
	if [ "$1" = -nolist ]; then
		list=0
		shift
	fi
	name=$1 cmd=$2 in=${3:-}
	ncases=$((ncases + 1))
	for impl in ours gnu; do
		dir=$T/${impl:0:1}/$name
		r=$T/res/$name.$impl
		mkdir "$dir"
		if declare -F compat_setup >/dev/null; then
			(cd "$dir" && compat_setup)
		fi
		rc=0
		(cd "$dir" && CP=$T/$impl/cp "${COMPAT_PREFIX[@]}" bash -c "$cmd") \
			<<<"$in" >"$r.out" 2>"$r.err" || rc=$?
		{
			echo "status: $rc"
			echo "--- stdout:"
			compat_norm <"$r.out"
			echo "--- stderr:"
			compat_norm <"$r.err"
			if [ "$list" = 1 ]; then
				echo "--- files:"
				if declare -F compat_listing >/dev/null; then
					(cd "$dir" && compat_listing) | compat_norm
				else
					(cd "$dir" && compat_default_listing) | compat_norm
				fi
			fi
		} >"$r.all"
	done
	if diff -u --label "gnu: $cmd" --label "smartcp: $cmd" \
		"$T/res/$name.gnu.all" "$T/res/$name.ours.all" >"$T/res/$name.diff"; then
		printf 'same  %-22s %s\n' "$name" "$cmd"
	else
		printf 'DIFF  %-22s %s\n' "$name" "$cmd"
		cat "$T/res/$name.diff" >>"$diffs"
		ndiff=$((ndiff + 1))
	fi
}

# The verdict: pass when every case matched GNU cp.
compat_finish() {
	say "$ncases cases, $ndiff differ"
	if [ "$ndiff" -ne 0 ]; then
		cat "$diffs" >&2
		fail "$ndiff of $ncases cases differ from GNU cp (diffs above: - gnu, + smartcp)"
	fi
	pass "all $ncases cases as GNU cp does"
}
