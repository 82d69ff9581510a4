#!/bin/bash
# Runs the smartcp integration tests: every tests/integration/t-*.sh in
# name order, or only those named as arguments (t-foo, t-foo.sh, foo or a
# path).  Each runs under a timeout with its output in a log; one line per
# test, then "integration: N passed, N failed, N skipped".  Exit 1 when any
# test failed, else 0.
#
# Works from "make check" (cwd is the top build directory, $srcdir is set)
# and by hand:  SMARTCP=/path/to/smartcp bash tests/integration/run.sh

set -u
export LC_ALL=C
unset LANGUAGE

here=$(cd "$(dirname "$0")" && pwd)
timeout_s=${INTEGRATION_TIMEOUT:-120}

if [ -z "${SMARTCP:-}" ]; then
	for c in ${abs_top_builddir:+"$abs_top_builddir/src/smartcp"} \
		 "$PWD/src/smartcp" "$here/../../src/smartcp"; do
		if [ -x "$c" ]; then
			SMARTCP=$c
			break
		fi
	done
fi
if [ -z "${SMARTCP:-}" ] || [ ! -x "$SMARTCP" ]; then
	echo "integration: smartcp not found (build it, or set SMARTCP)" >&2
	echo "integration: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
case $SMARTCP in
/*) ;;
*) SMARTCP=$PWD/$SMARTCP ;;
esac
export SMARTCP

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

# leftovers NAME: mounts or loop devices still pointing into the scratch
# directories of test NAME (lib.sh names them $TMPDIR/smartcp-NAME.XXXXXX).
# Only this run's TMPDIR counts: two suites run side by side with their
# own TMPDIR do not see each other's mounts as leftovers.
scratch=$(cd "${TMPDIR:-/tmp}" && pwd -P)
leftovers() {
	{
		grep -F "$scratch/smartcp-$1." /proc/self/mounts
		losetup -a 2>/dev/null | grep -F "$scratch/smartcp-$1."
	} | sed 's/^/    left behind: /'
}

npass=0 nfail=0 nskip=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	log=$logdir/$name.log
	rc=0
	timeout -k 10 "$timeout_s" bash "$t" </dev/null >"$log" 2>&1 || rc=$?
	left=$(leftovers "$name")
	if [ -n "$left" ]; then
		sleep 1
		left=$(leftovers "$name")
	fi
	if [ -n "$left" ]; then
		echo "FAIL $name (left mounts or loop devices behind)"
		echo "$left"
		nfail=$((nfail + 1))
		continue
	fi
	case $rc in
	0)
		echo "PASS $name"
		# a test may print a results table (lines starting with |)
		grep '^|' "$log" | sed 's/^/    /' || true
		npass=$((npass + 1))
		;;
	77)
		reason=$(sed -n "s/^SKIP: $name: //p" "$log" | tail -n 1)
		echo "SKIP $name: ${reason:-skipped}"
		nskip=$((nskip + 1))
		;;
	*)
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			echo "FAIL $name (timed out after ${timeout_s}s)"
		else
			echo "FAIL $name"
		fi
		tail -n 25 "$log" | sed 's/^/    /'
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
