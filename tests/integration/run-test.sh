#!/bin/bash
# Runs one test: make check's log compiler for every tests/*.sh (see
# tests/Makemodule.am), and what tests/integration/run.sh runs for each
# test it is given.
#
#	bash tests/integration/run-test.sh tests/integration/t-foo.sh
#
# An integration test (tests/integration/t-*.sh):
#  - waits for its turn (not counted in its time): tests run side by side
#    under make check -j, and a test that declares `exclusive` (see
#    lib.sh) runs alone; one that declares `serialize NAME` never beside
#    another that declares the same NAME;
#  - runs under a timeout (INTEGRATION_TIMEOUT seconds, 600 by default,
#    as tests/run-all.sh sets it: it catches hangs, not slowness; beside
#    another test on a machine other suites load, t-cp-compat took 218 s
#    and once more than 300, t-memory-pressure 200), its output on ours
#    (the test's .log under make check);
#  - fails when it left mounts or loop devices behind (in its scratch
#    directories, $TMPDIR/smartcp-NAME.XXXXXX, made while it ran: another
#    test's mounts, or what an earlier run killed half-way left, are
#    never taken for this one's).
# Exit status as automake reads it: the test's own (0 pass, 77 skip,
# 99 hard error, anything else a failure); 99 when it timed out, 1 when it
# left mounts or loop devices behind.  Lines this script adds to the log
# start with "run-test: ".
#
# Any other script (tests/exports.sh, ...) just runs with bash.
#
# The locks are files in SMARTCP_TEST_LOCKDIR (/tmp by default), one set
# for the whole machine: two suites side by side (two build trees, two
# TMPDIRs) keep out of each other's way as one suite's tests do.

set -u
. "$(dirname "$0")/lib-run.sh"

[ $# -eq 1 ] || { echo "usage: bash $0 TEST.sh" >&2; exit 99; }
t=$1
case $t in
*/integration/t-*.sh | t-*.sh) ;;
*) exec bash "$t" ;;
esac
[ -f "$t" ] || { echo "run-test: no test $t"; exit 99; }
name=$(basename "$t" .sh)
timeout_s=${INTEGRATION_TIMEOUT:-600}

# The binary under test, as lib.sh finds it; said here once, so that a
# missing build is one clear message (lib.sh fails the test too).
if ! find_smartcp; then
	echo "run-test: smartcp not found (build it, or set SMARTCP)"
	exit 99
fi

# ------------------------------------------------------------------ turns

# Every test holds the suite lock shared while it runs; an exclusive test
# holds it alone.  A gate taken around each acquisition keeps an exclusive
# test from waiting for ever: once it waits, later tests queue behind it
# instead of joining the running ones.  The descriptors stay in this shell:
# the test (and the smartcp it runs, which counts its open descriptors)
# does not inherit them.
lockdir=${SMARTCP_TEST_LOCKDIR:-/tmp}
lock_fd() { # FD NAME: open $lockdir/smartcp-tests.NAME.lock on FD
	local f=$lockdir/smartcp-tests.$2.lock
	[ -e "$f" ] || : >>"$f" 2>/dev/null
	eval "exec $1<\"\$f\"" ||
		{ echo "run-test: cannot open the lock $f"; exit 99; }
}
mode=shared
grep -Eq '^[[:space:]]*exclusive([[:space:]]|$)' "$t" && mode=exclusive
serial=$(sed -n 's/^[[:space:]]*serialize[[:space:]]\{1,\}\([A-Za-z0-9_-]\{1,\}\).*/\1/p' "$t" |
	sort -u)
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }
waited=$(now_ms)
lock_fd 7 gate
lock_fd 8 suite
flock -x 7
if [ "$mode" = exclusive ]; then flock -x 8; else flock -s 8; fi
flock -u 7
exec 7<&-
fd=9
for s in $serial; do
	lock_fd "$fd" "serialize-$s"
	flock -x "$fd"
	mode="$mode, serialize $s"
	fd=$((fd + 1))
done
waited=$(($(now_ms) - waited))
[ "$waited" -lt 1000 ] ||
	printf 'run-test: waited %d.%01ds for its turn (%s)\n' \
		$((waited / 1000)) $((waited % 1000 / 100)) "$mode"
export SMARTCP_TEST_LOCK=$mode

# ------------------------------------------------------------ leftovers

# leftovers: mounts or loop devices pointing into scratch directories of
# this test's name.  Only this TMPDIR counts: a suite run beside with its
# own TMPDIR is not ours.  What is there before the test starts (an
# earlier run killed half-way) is said, and not held against this run.
scratch=$(cd "${TMPDIR:-/tmp}" && pwd -P)
leftovers() {
	{
		grep -F "$scratch/smartcp-$name." /proc/self/mounts
		losetup -a 2>/dev/null | grep -F "$scratch/smartcp-$name."
	} | { if [ -n "$before" ]; then grep -vxF -e "$before"; else cat; fi; } |
		sed 's/^/run-test:     left behind: /'
}
before=
before=$(leftovers | sed 's/^run-test:     left behind: //')
[ -z "$before" ] ||
	printf 'run-test: note: an earlier run left this behind (not counted):\n%s\n' \
		"$(printf '%s\n' "$before" | sed 's/^/run-test:     /')"

# ------------------------------------------------------------------ run

start=$SECONDS
rc=0
# shellcheck disable=SC2094 # the descriptors are closed, not read
timeout -k 10 "$timeout_s" bash "$t" </dev/null 7<&- 8<&- 9<&- 10<&- 11<&- ||
	rc=$?

# A loop device another test's private mount namespace still holds goes
# when that namespace ends (losetup -d set it to clear itself): give it a
# little while.
left=$(leftovers)
for _ in $(seq 20); do
	[ -n "$left" ] || break
	sleep 0.5
	left=$(leftovers)
done
if [ -n "$left" ]; then
	echo "$left"
	echo "run-test: FAIL: left mounts or loop devices behind (the test's exit status: $rc)"
	exit 1
fi

case $rc in
124 | 137)
	echo "run-test: ERROR: timed out after ${timeout_s}s (INTEGRATION_TIMEOUT)"
	exit 99 ;;
esac
echo "run-test: exit status $rc after $((SECONDS - start))s"
exit "$rc"
