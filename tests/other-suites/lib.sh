# shellcheck shell=sh
# What every adapter of tests/other-suites/run.sh shares: a case's record.
# POSIX sh, because BusyBox's suite runs under sh.  Sourced, never run.
#
# The environment says where things go:
#	SUITE_LOG	this suite's log folder for this cp (writable)
#	SUITE_WORK	the folder whose files are listed after each case
#
# A case is recorded as SUITE_LOG/NNN.* (NNN counts the cases in the order
# they ran):
#	.name		the suite's name for the case
#	.verdict	PASS, FAIL or SKIP, by the suite's own criterion
#	.out, .err	what the case printed, as the suite saw it
#	.calls		each call of cp during the case, as the cp wrapper
#			notes it (arguments, stdout, stderr, exit status)
#	.files		the files left in SUITE_WORK after the case
#
#	suite_case_begin NAME	starts a case (sets SUITE_CASE, exports
#				SUITE_CALLS for the wrapper)
#	suite_case_end VERDICT	closes it: the verdict and the listing
#	suite_case_skip NAME	a case the suite skipped

suite_case_begin() {
	suite_n=$(cat "$SUITE_LOG/count" 2>/dev/null || echo 0)
	suite_n=$((suite_n + 1))
	echo "$suite_n" >"$SUITE_LOG/count"
	SUITE_CASE=$SUITE_LOG/$(printf '%03d' "$suite_n")
	printf '%s\n' "$1" >"$SUITE_CASE.name"
	: >"$SUITE_CASE.out"
	: >"$SUITE_CASE.err"
	: >"$SUITE_CASE.calls"
	# the case may run cp as another user
	chmod 666 "$SUITE_CASE.calls"
	SUITE_CALLS=$SUITE_CASE.calls
	export SUITE_CALLS
}

suite_case_end() {
	echo "$1" >"$SUITE_CASE.verdict"
	suite_list "${SUITE_WORK:-.}" >"$SUITE_CASE.files"
	unset SUITE_CALLS
}

suite_case_skip() {
	suite_case_begin "$1"
	echo SKIP >"$SUITE_CASE.verdict"
	: >"$SUITE_CASE.files"
	unset SUITE_CALLS
}

# suite_list DIR: one line a file: name, type, mode, size, links, owner,
# link target, "sparse" when fewer blocks than the size needs; then the
# md5 of every regular file it can read.  Times are left out: the two runs
# happen at different moments.
suite_list() {
	(
		cd "$1" || exit 0
		find . -printf '%p %y %m %s %n %U %l %b\n' 2>/dev/null |
			awk '{ b = $NF; $NF = ""; if ($2 == "f" && b * 512 < $4) $NF = "sparse"; print }' |
			LC_ALL=C sort
		find . -type f -print0 2>/dev/null | LC_ALL=C sort -z |
			xargs -0 -r md5sum 2>/dev/null
	)
}
