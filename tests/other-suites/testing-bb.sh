# shellcheck shell=sh
# BusyBox's new-style tests (testsuite/NAME.tests) source BusyBox's
# harness from the folder they run in, and call
#	testing NAME COMMAND EXPECTED INPUT STDIN
# run.sh puts this file there under the harness's name.  A case passes, as in
# BusyBox, when what COMMAND prints on stdout (STDIN on its standard input,
# INPUT in the file "input") is EXPECTED, both taken with printf's \
# escapes.  Its stderr is kept beside; every cp call is noted (lib.sh).
# SKIP set skips the cases, as BusyBox's own harness does.
# shellcheck source=tests/other-suites/lib.sh
. "$SUITE_LIB"

FAILCOUNT=0

testing() {
	if [ $# -ne 5 ]; then
		echo "testing: $1: 5 arguments needed, $# given" >&2
		exit 1
	fi
	if [ -n "${SKIP:-}" ]; then
		suite_case_skip "$1"
		return 0
	fi
	suite_case_begin "$1"
	printf '%b' "$3" >"$SUITE_CASE.expected"
	printf '%b' "$4" >input
	printf '%b' "$5" | eval "$2" >"$SUITE_CASE.out" 2>"$SUITE_CASE.err"
	bb_rc=$?
	rm -f input
	if cmp -s "$SUITE_CASE.expected" "$SUITE_CASE.out"; then
		suite_case_end PASS
	else
		FAILCOUNT=$((FAILCOUNT + 1))
		suite_case_end FAIL
	fi
	return $bb_rc
}
