# shellcheck shell=bash
# toybox's tests (tests/NAME.test) run in a shell that gives them
#	testing NAME COMMAND EXPECTED INPUT STDIN
#	testcmd NAME ARGS EXPECTED INPUT STDIN	(COMMAND is "$C" ARGS)
# and the switches skipnot CMD..., toyonly CMD... and optional OPTION.
# Sourced by run.sh before the test.  A case passes, as in toybox, when
# what COMMAND prints on stdout (STDIN on its standard input, INPUT in
# the file "input") is EXPECTED, both taken with echo -e's escapes.
# Its stderr is kept beside; every cp call is noted (lib.sh).
# shellcheck source=tests/other-suites/lib.sh
. "$SUITE_LIB"

FAILCOUNT=0
SKIP=0
C=${C:-cp}
CMDNAME=${CMDNAME:-cp}

# Every option counts as built in: the cp under test is a whole cp.
optional() { SKIP=0; }

# skipnot CMD...: skip the next case unless CMD succeeds.
skipnot() {
	eval "$@" >/dev/null 2>&1 && return 0
	SKIP=$((SKIP + 1))
	return 1
}

# toyonly CMD...: the case checks toybox's own extensions: skip it.
toyonly() {
	[ "$SKIP" -eq 0 ] && SKIP=1
	"$@"
}

testing() {
	local rc
	if [ $# -ne 5 ]; then
		echo "testing: $1: 5 arguments needed, $# given" >&2
		exit 1
	fi
	if [ "$SKIP" -gt 0 ]; then
		SKIP=$((SKIP - 1))
		suite_case_skip "$CMDNAME $1"
		return 0
	fi
	suite_case_begin "$CMDNAME $1"
	echo -ne "$3" >"$SUITE_CASE.expected"
	if [ -n "$4" ]; then
		echo -ne "$4" >input
	else
		rm -f input
	fi
	echo -ne "$5" | eval -- "$2" >"$SUITE_CASE.out" 2>"$SUITE_CASE.err"
	rc=$?
	[ $rc -gt 128 ] &&
		echo "exited with signal (or returned $rc)" >>"$SUITE_CASE.out"
	rm -f input
	if cmp -s "$SUITE_CASE.expected" "$SUITE_CASE.out"; then
		suite_case_end PASS
	else
		FAILCOUNT=$((FAILCOUNT + 1))
		suite_case_end FAIL
	fi
	return 0
}

testcmd() {
	testing "${1:-$CMDNAME $2}" "\"$C\" $2" "$3" "$4" "$5"
}
