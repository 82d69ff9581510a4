#!/bin/bash
# The whole test suite, as CI runs it (README's second command):
#   1. installs what the tests need (apt-get, as root),
#   2. builds with -Wall -Wextra -Werror and runs unit + integration tests,
#   3. builds again with AddressSanitizer + UndefinedBehaviorSanitizer and
#      runs the whole suite under them,
#   4. builds again with ThreadSanitizer and runs the unit tests and the
#      tests that copy trees on -j workers, the -j stress test 20 times
#      over; any ThreadSanitizer report fails it,
#   5. runs the main paths under valgrind (no leaks),
#   6. fuzzes argument and mountinfo handling and libsmartcp's copier for a
#      bounded time,
#   7. make distcheck.
# Prints Check's summaries and the integration tests' (each an automake
# test of its own, counted from their .trs files; by hand, the runner's)
# at the end.
# SANITIZER_REPEAT=N runs only the sanitizer stages (3 and 4), N times in a
# row, and says how many runs passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/deps.sh"
smartcp_install_deps "$SMARTCP_TEST_DEPS" || exit 1
export LC_ALL=C
# Timeouts catch hangs, not slowness: sanitizers and a busy machine make
# tests slower, and a timeout must not make the suite fail at random.
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}
export INTEGRATION_TIMEOUT=${INTEGRATION_TIMEOUT:-600}
jobs=$(nproc)
failed=()
summaries=()
t_pass=0 t_fail=0 t_skip=0

cd "$top" && autoreconf -fi >/dev/null 2>&1 || { echo "autoreconf failed"; exit 1; }

# build DIR CONFIGURE-ARGS...: configure and build in DIR.
build() {
	local dir=$1; shift
	mkdir -p "$top/$dir" && cd "$top/$dir" || return 1
	"$top/configure" -q --enable-werror "$@" >/dev/null &&
		make -s -j"$jobs" >/dev/null
}

# tally NAME UNIT-SUMMARY INTEGRATION-SUMMARY: keep the summaries, add
# Check's "Checks: N, Failures: F, Errors: E" and the runner's "N passed,
# N failed, N skipped" to the totals of the closing line.
tally() {
	local name=$1 u=$2 i=$3 n
	summaries+=("== $name" "${u:-unit: no summary}" "${i:-integration: no summary}")
	echo "${u:-unit: no summary}"
	echo "${i:-integration: no summary}"
	if [[ $u =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]]; then
		n=$((BASH_REMATCH[2] + BASH_REMATCH[3]))
		t_pass=$((t_pass + BASH_REMATCH[1] - n))
		t_fail=$((t_fail + n))
	else
		t_fail=$((t_fail + 1))
	fi
	if [[ $i =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
		t_pass=$((t_pass + BASH_REMATCH[1]))
		t_fail=$((t_fail + BASH_REMATCH[2]))
		t_skip=$((t_skip + BASH_REMATCH[3]))
	else
		t_fail=$((t_fail + 1))
	fi
}

# unit_summary LOG...: Check's "N%: Checks: N, Failures: F, Errors: E"
# lines of the unit test programs (check_smartcp, and check_copier, which
# links libsmartcp.so) added up into one; nothing when a log has none.
unit_summary() {
	local log line c=0 f=0 e=0
	for log in "$@"; do
		line=$(grep -h '^[0-9]*%: Checks:' "$log" 2>/dev/null | tail -n1)
		[[ $line =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]] ||
			return 0
		c=$((c + BASH_REMATCH[1]))
		f=$((f + BASH_REMATCH[2]))
		e=$((e + BASH_REMATCH[3]))
	done
	echo "$(( c > 0 ? 100 * (c - f - e) / c : 0 ))%: Checks: $c, Failures: $f, Errors: $e"
}

# integration_summary: "integration: N passed, N failed, N skipped" from
# the .trs files make check wrote in the current build dir, one for each
# tests/integration/t-*.sh (automake's verdicts: PASS, SKIP; FAIL,
# ERROR and XPASS fail).  A test with no verdict did not run: it fails.
integration_summary() {
	local t r p=0 f=0 s=0 missing=0
	for t in "$top"/tests/integration/t-*.sh; do
		r=$(sed -n 's/^:test-result: //p' \
			"tests/integration/$(basename "$t" .sh).trs" 2>/dev/null | head -n 1)
		case $r in
		PASS | XFAIL) p=$((p + 1)) ;;
		SKIP) s=$((s + 1)) ;;
		'') missing=$((missing + 1)) ;;
		*) f=$((f + 1)) ;;
		esac
	done
	[ $((p + f + s)) -gt 0 ] || return 0	# make check ran none of them
	printf 'integration: %d passed, %d failed, %d skipped' \
		"$p" $((f + missing)) "$s"
	[ "$missing" -eq 0 ] || printf ' (%d did not run)' "$missing"
	echo
}

# check NAME: run make check in the current build dir (the integration
# tests side by side, -j), keep summaries.
check() {
	local name=$1 rc u i
	# no verdicts of an earlier run: a test that does not run now fails
	find tests -name '*.trs' -exec rm -f {} + 2>/dev/null
	rm -f test-suite.log
	make -s -j"$jobs" check >/dev/null 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "---- $name: test-suite.log (the logs of the tests that did not pass)"
		cat test-suite.log 2>/dev/null || echo "(none: make check did not get to the tests)"
	fi
	u=$(unit_summary tests/unit/check_smartcp.log tests/unit/check_copier.log)
	i=$(integration_summary)
	tally "$name" "$u" "$i"
	[ $rc -eq 0 ] || failed+=("$name")
}

# The tests whose copies run on -j workers (trees), for ThreadSanitizer.
TSAN_TESTS="t-archive-vs-cp t-tree-mutation t-xattr-rules t-jobs-stress t-jobs-batched-reads
 t-json-hostile-names t-signal-partial t-perm-race t-errors t-verify-writeout
 t-ext4-same-fs t-cross-fs t-install-hooks t-fd-limit t-deep-pathmax
 t-walk-reopen"

# tsan_check: in the ThreadSanitizer build dir, the unit tests and
# $TSAN_TESTS; every report goes to a file of its own, and any report
# fails the stage, whatever the tests said.
tsan_check() {
	local dir=$PWD reports=$PWD/tsan-reports rc=0 u i
	rm -rf "$reports" && mkdir -p "$reports"
	# builds the unit tests and the preload shims without running them
	make -s -j"$jobs" check TESTS= >/dev/null 2>&1 || return 1
	export TSAN_OPTIONS="log_path=$reports/report exitcode=66 history_size=4"
	tests/unit/check_smartcp >tests/unit/check_smartcp.log 2>&1 || rc=1
	tests/unit/check_copier >tests/unit/check_copier.log 2>&1 || rc=1
	SMARTCP=$dir/src/smartcp SHIM=$dir/tests/shim/faultshim.so \
	FAULTFS=$dir/tests/faultfs/faultfs TESTDATA=$top/tests/data \
	STRESS_RUNS=20 bash "$top/tests/integration/run.sh" $TSAN_TESTS \
		>tests/tsan-integration.log 2>&1 || rc=1
	unset TSAN_OPTIONS
	u=$(unit_summary tests/unit/check_smartcp.log tests/unit/check_copier.log)
	i=$(grep -h '^integration: ' tests/tsan-integration.log | tail -n1)
	if [ -n "$(ls -A "$reports")" ]; then
		echo "---- ThreadSanitizer reports:"
		cat "$reports"/*
		i="$i (ThreadSanitizer: $(ls "$reports" | wc -l) reports)"
		t_fail=$((t_fail + 1))
		rc=1
	fi
	if [ $rc -ne 0 ]; then
		cat tests/unit/check_smartcp.log tests/unit/check_copier.log \
			tests/tsan-integration.log
	fi
	tally thread-sanitizer "$u" "$i"
	[ $rc -eq 0 ] || failed+=("thread-sanitizer")
}


# sanitizer_stages: the whole suite under ASan + UBSan, then the unit and
# tree tests under ThreadSanitizer.  Builds only what changed.
sanitizer_stages() {
	local san tsan
	echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
	san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
	# The fault shim is preloaded into sanitized binaries: ASan must not
	# insist on coming first in the library list.
	export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	if build _build-san CFLAGS="-O1 -g $san" LDFLAGS="$san"; then
		check sanitizers
	else
		failed+=("sanitizer build")
	fi
	unset ASAN_OPTIONS UBSAN_OPTIONS

	echo "== ThreadSanitizer: unit tests, tree tests, -j stress test"
	tsan="-fsanitize=thread -fno-omit-frame-pointer"
	if build _build-tsan CFLAGS="-O1 -g $tsan" LDFLAGS="$tsan"; then
		tsan_check
	else
		failed+=("thread-sanitizer build")
	fi
}

# SANITIZER_REPEAT=N: only the sanitizer stages, N times in a row, to show
# the suite is deterministic; says how many of the N runs passed.
if [ -n "${SANITIZER_REPEAT:-}" ]; then
	ok=0
	for run in $(seq 1 "$SANITIZER_REPEAT"); do
		failed=()
		echo "== sanitizer run $run of $SANITIZER_REPEAT ($(date -u +%T))"
		sanitizer_stages
		if [ ${#failed[@]} -eq 0 ]; then
			ok=$((ok + 1))
		else
			echo "run $run FAILED: ${failed[*]}"
		fi
	done
	echo "sanitizer stages: $ok of $SANITIZER_REPEAT runs passed"
	echo "total: $t_pass passed, $t_fail failed, $t_skip skipped"
	[ "$ok" -eq "$SANITIZER_REPEAT" ]
	exit
fi

echo "== build (-Wall -Wextra -Werror) and test"
if build _build; then check plain; else failed+=("plain build"); fi

sanitizer_stages

echo "== valgrind on the main paths"
if SMARTCP="$top/_build/src/smartcp" bash "$top/tests/valgrind.sh"; then
	summaries+=("valgrind: no leaks, no errors")
else
	failed+=("valgrind")
fi

echo "== fuzzing (bounded: ${FUZZ_SECONDS:-45} s a target)"
if FUZZ_SECONDS=${FUZZ_SECONDS:-45} bash "$top/tests/fuzz/run-fuzz.sh" "$top/_build" >"$top/_build/fuzz.log" 2>&1; then
	summaries+=("$(tail -n 1 "$top/_build/fuzz.log")")
	tail -n 1 "$top/_build/fuzz.log"
else
	tail -n 40 "$top/_build/fuzz.log"
	failed+=("fuzz")
fi

echo "== make distcheck"
cd "$top/_build" && if make -s distcheck >distcheck.log 2>&1; then
	summaries+=("distcheck: passed")
else
	tail -n 60 distcheck.log
	failed+=("distcheck")
fi

echo
echo "== summary"
printf '%s\n' "${summaries[@]}"
if [ ${#failed[@]} -ne 0 ]; then
	echo "FAILED: ${failed[*]}"
	echo "total: $t_pass passed, $((t_fail > 0 ? t_fail : 1)) failed, $t_skip skipped"
	exit 1
fi
echo "total: $t_pass passed, $t_fail failed, $t_skip skipped"
