#!/bin/bash
# Runs smartcp integration tests by hand, one after the other: every
# tests/integration/t-*.sh in name order, or only those named as arguments
# (t-foo, t-foo.sh, foo or a path).  Each runs through run-test.sh (its
# turn among tests run beside it, a timeout, the check that it left no
# mounts or loop devices behind) with its output in a log; one line per
# test (a passing test's results table, lines starting with |, under it;
# a failing test's last lines), then "integration: N passed, N failed,
# N skipped".  Exit 1 when any test failed (or could not run), else 0.
#
#	SMARTCP=/path/to/smartcp bash tests/integration/run.sh [t-foo ...]
#
# make check runs each test as a test of its own instead (in parallel
# with -j; see tests/Makemodule.am), through the same run-test.sh.

set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-run.sh"

if ! find_smartcp; then
	echo "integration: smartcp not found (build it, or set SMARTCP)" >&2
	echo "integration: 0 passed, 1 failed, 0 skipped"
	exit 1
fi

tests=()
if [ $# -eq 0 ]; then
	for t in "$here"/t-*.sh; do
		[ -e "$t" ] && tests+=("$t")
	done
else
	for a in "$@"; do
		a=${a##*/}
		a=${a%.sh}
		a=t-${a#t-}
		[ -e "$here/$a.sh" ] || { echo "integration: no test $a" >&2; exit 1; }
		tests+=("$here/$a.sh")
	done
fi

logdir=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-integration.XXXXXX") || exit 1

npass=0 nfail=0 nskip=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	log=$logdir/$name.log
	rc=0
	bash "$here/run-test.sh" "$t" </dev/null >"$log" 2>&1 || rc=$?
	# run-test.sh's own verdict, when it has one (a timeout, leftovers)
	why=$(sed -n 's/^run-test: \(FAIL\|ERROR\): //p' "$log" | tail -n 1)
	case $rc in
	0)
		echo "PASS $name"
		grep '^|' "$log" | sed 's/^/    /' || true
		npass=$((npass + 1))
		;;
	77)
		reason=$(sed -n "s/^SKIP: $name: //p" "$log" | tail -n 1)
		echo "SKIP $name: ${reason:-skipped}"
		nskip=$((nskip + 1))
		;;
	*)
		if [ "$rc" -eq 99 ]; then
			echo "ERROR $name${why:+ ($why)}"
		else
			echo "FAIL $name${why:+ ($why)}"
		fi
		grep '^run-test:     left behind: ' "$log" | sed 's/^run-test: //'
		grep -v '^run-test: ' "$log" | tail -n 25 | sed 's/^/    /'
		nfail=$((nfail + 1))
		;;
	esac
done

if [ "$nfail" -eq 0 ]; then
	rm -rf "$logdir"
else
	echo "logs: $logdir"
fi
echo "integration: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
