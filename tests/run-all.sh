#!/bin/bash
# The whole test suite, as CI runs it (README's second command):
#   1. installs what the tests need (apt-get, as root),
#   2. builds with -Wall -Wextra -Werror and runs every test: the unit
#      tests, the source checks and every integration test, once,
#   3. builds again with AddressSanitizer + UndefinedBehaviorSanitizer and
#      runs the unit tests and the integration tests that exercise memory
#      ($ASAN_TESTS, below, says which and why),
#   4. builds again with ThreadSanitizer and runs the unit tests and the
#      tests that copy on -j workers ($TSAN_TESTS), the -j stress test 20
#      times over; any ThreadSanitizer report fails it,
#   5. runs the main paths under valgrind (no leaks),
#   6. fuzzes argument and mountinfo handling and libsmartcp's copier for a
#      bounded time,
#   7. make distcheck-fast: the tarball builds (read-only sources, another
#      build directory), installs and uninstalls, its unit tests and source
#      checks pass and its integration tests run from it (a few: the whole
#      suite ran in stage 2), and it holds every file git has under tests/.
# The slow compatibility comparisons with GNU cp and the memory-pressure
# and size tests run once, in stage 2.
# Prints each stage's time (and the load average when it ended), Check's
# summaries and the integration tests' (each an automake test of its own,
# counted from their .trs files; by hand, the runner's) at the end.
# SANITIZER_REPEAT=N runs only the sanitizer stages (3 and 4), N times in a
# row, and says how many runs passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
failed=()
summaries=()
times=()
t_pass=0 t_fail=0 t_skip=0

# stage_begin NAME / stage_end: the stage's time, and the load average
# when it ended (other work on the machine slows every stage), in the
# closing summary.
stage_begin() {
	stage_name=$1
	stage_t0=$SECONDS
	echo "== $1 ($(date -u +%T))"
}
stage_end() {
	local d=$((SECONDS - stage_t0))
	times+=("$(printf '%-36s %3dm%02ds  (load %s)' "$stage_name" \
		$((d / 60)) $((d % 60)) "$(cut -d' ' -f1-3 /proc/loadavg)")")
}

stage_begin "1. dependencies, autoreconf"
. "$top/tests/deps.sh"
smartcp_install_deps "$SMARTCP_TEST_DEPS" || exit 1
export LC_ALL=C
# Timeouts catch hangs, not slowness: sanitizers and a busy machine make
# tests slower, and a timeout must not make the suite fail at random.
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}
export INTEGRATION_TIMEOUT=${INTEGRATION_TIMEOUT:-600}
jobs=$(nproc)

cd "$top" && autoreconf -fi >/dev/null 2>&1 || { echo "autoreconf failed"; exit 1; }
stage_end

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

# integration_summary [NAME...]: "integration: N passed, N failed, N
# skipped" from the .trs files make check wrote in the current build dir,
# one for each test NAME (t-foo), or for each tests/integration/t-*.sh
# (automake's verdicts: PASS, SKIP; FAIL, ERROR and XPASS fail).  A test
# with no verdict did not run: it fails.
integration_summary() {
	local t r p=0 f=0 s=0 missing=0 all=()
	if [ $# -gt 0 ]; then
		all=("$@")
	else
		all=("$top"/tests/integration/t-*.sh)
	fi
	for t in "${all[@]}"; do
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

# check NAME [T-NAME...]: run make check in the current build dir (the
# integration tests side by side, -j), keep summaries: every test, or
# the unit tests, the source checks and the integration tests T-NAME...
check() {
	local name=$1 rc u i tests=() t
	shift
	# no verdicts of an earlier run: a test that does not run now fails
	find tests -name '*.trs' -exec rm -f {} + 2>/dev/null
	rm -f test-suite.log
	if [ $# -gt 0 ]; then
		for t in "$@"; do
			tests+=("tests/integration/$t.sh")
		done
		# make expands $(SOURCE_CHECKS): tests/Makemodule.am's
		make -s -j"$jobs" check \
			TESTS='$(SOURCE_CHECKS) '"${tests[*]}" >make-check.log 2>&1
	else
		make -s -j"$jobs" check >make-check.log 2>&1
	fi
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "---- $name: test-suite.log (the logs of the tests that did not pass)"
		if [ -f test-suite.log ]; then
			cat test-suite.log
		else
			# what make said before it got to them: a build
			# that failed
			echo "(none: make check did not get to the tests; the end of what make said:)"
			tail -n 40 make-check.log
		fi
	fi
	u=$(unit_summary tests/unit/check_smartcp.log tests/unit/check_copier.log)
	i=$(integration_summary "$@")
	tally "$name" "$u" "$i"
	[ $rc -eq 0 ] || failed+=("$name")
}

# The integration tests that run under AddressSanitizer and
# UndefinedBehaviorSanitizer: those that drive the code that allocates,
# builds strings and buffers, parses and cleans up, each path once.
#  - the walk (levels, names beyond PATH_MAX, descriptors given back and
#    reopened, hard-link and operand tables, backups' names, error paths):
#    t-basic-copy t-deep-tree t-deep-pathmax t-walk-reopen t-fd-limit
#    t-dotdot-source t-into-itself-bind t-live-vanish t-archive-vs-cp
#    t-errors t-hostile-inputs t-backup-restore t-if-changed-backup
#    t-explain-changes-nothing t-explain-matches-run
#  - what is printed from what was recorded: --json of hostile names and
#    of failures, the road chains: t-json-hostile-names t-json-failures
#    t-json-tried t-json-tried-faultfs
#  - metadata buffers (xattrs, ACLs, xattr.conf): t-xattr-rules
#    t-preserve-atime t-attributes-only-atomic
#  - the library's copier (atomic temporaries, verify, holes, a changing
#    source, generated files read to EOF): t-atomic t-atomic-symlink
#    t-atomic-named-temp t-atomic-hardlink t-sync-atomic-corners
#    t-if-changed t-verify-writeout t-live-change-verify t-partial-existing
#    t-partial-symlink t-generated-sources t-proc-copy t-sparse
#    t-sparse-always t-lib-chain-eagain
#  - every fault and fallback path (short and interrupted calls, EIO,
#    ENOSPC, refusals, lying sizes, streams): every t-shim-* test but the
#    shim's self-test, and t-faultfs-eio-read t-faultfs-eio-write
#    t-faultfs-enospc t-faultfs-size-lie t-faultfs-grow t-faultfs-stream
#    t-faultfs-server-copy t-faultfs-verify-flip
#  - filesystem facts (mountinfo of thousands of mounts, libmount and
#    libblkid through dlopen or missing, overlay, bind mounts, clones):
#    t-many-mounts t-libmount-loaded t-libmount-missing
#    t-libmount-not-loaded t-overlay-bind t-cross-fs t-ext4-same-fs
#    t-clone-btrfs t-clone-xfs t-explain-other-machine
#  - the -j workers' queues, read-ahead buffers (io_uring) and the
#    cleanup a signal runs: t-jobs-output-order t-jobs-cached
#    t-jobs-batched-reads t-tree-read-ahead t-signal-partial
# The unit tests run here too (the backup names of t-backup-long-names,
# the options, quoting, JSON, plans, paths).
# Not here (they run once, in stage 2): the comparisons with GNU cp case by
# case (t-cp-compat*, t-backup-long-names, t-atomic-modes,
# t-atomic-replace-mode, t-faultfs-setattr-cp, t-debug-verbose,
# t-german-messages), whose code paths the tests above run; size and
# memory pressure (t-deep-30000, t-flat-dir, t-memory-pressure: what they
# measure is memory, which ASan's shadow changes); races and timing
# (t-tree-mutation, t-swap-race, t-perm-race, t-atomic-concurrent,
# t-live-change, t-live-resize, t-jobs-stress: stage 4 runs the threaded
# ones); the matrices (t-matrix-*: every option onto every destination
# under each fault, the code the tests above run one path at a time;
# t-matrix-none took 106 s under ASan, an eighth of the stage);
# t-faultfs-table (the faultfs scenarios above, on every road); install
# and terminal tests (t-installed-runs, t-lib-installed, t-install-hooks,
# t-progress-pty) and the shim's self-test.
ASAN_TESTS="t-basic-copy t-deep-tree t-deep-pathmax t-walk-reopen t-fd-limit
 t-dotdot-source t-into-itself-bind t-live-vanish t-archive-vs-cp t-errors
 t-hostile-inputs t-backup-restore t-if-changed-backup
 t-explain-changes-nothing t-explain-matches-run
 t-json-hostile-names t-json-failures t-json-tried t-json-tried-faultfs
 t-xattr-rules t-preserve-atime t-attributes-only-atomic
 t-atomic t-atomic-symlink t-atomic-named-temp t-atomic-hardlink
 t-sync-atomic-corners t-if-changed t-verify-writeout t-live-change-verify
 t-partial-existing t-partial-symlink t-generated-sources t-proc-copy
 t-sparse t-sparse-always t-lib-chain-eagain
 $(cd "$top/tests/integration" && ls t-shim-*.sh | sed 's/\.sh$//' |
   grep -vx t-shim-selftest | tr '\n' ' ')
 t-faultfs-eio-read t-faultfs-eio-write t-faultfs-enospc t-faultfs-size-lie
 t-faultfs-grow t-faultfs-stream t-faultfs-server-copy t-faultfs-verify-flip
 t-many-mounts t-libmount-loaded t-libmount-missing t-libmount-not-loaded
 t-overlay-bind t-cross-fs t-ext4-same-fs t-clone-btrfs t-clone-xfs
 t-explain-other-machine
 t-jobs-output-order t-jobs-cached t-jobs-batched-reads t-tree-read-ahead
 t-signal-partial"

# The integration tests that run under ThreadSanitizer: those whose copies
# run on -j workers beside the walk (trees), where threads share the
# copier, its facts cache and learned roads, the hard-link table handed
# back, ordered output, descriptors given back and the signal cleanup:
# the -j stress test (STRESS_RUNS times), the tree tests of every kind of
# entry, metadata and error (t-archive-vs-cp t-xattr-rules t-errors
# t-json-hostile-names t-verify-writeout t-install-hooks), a tree changing
# under the workers (t-tree-mutation), across and within filesystems
# (t-ext4-same-fs t-cross-fs), short of descriptors and deep
# (t-fd-limit t-deep-pathmax t-walk-reopen), the workers' read-ahead
# (t-jobs-batched-reads t-tree-read-ahead), signals and permissions while
# workers copy (t-signal-partial t-perm-race).  (t-jobs-output-order
# counts the threads smartcp starts, and ThreadSanitizer starts one of its
# own: it runs in stages 2 and 3.)
TSAN_TESTS="t-archive-vs-cp t-tree-mutation t-xattr-rules t-jobs-stress t-jobs-batched-reads
 t-json-hostile-names t-signal-partial t-perm-race t-errors t-verify-writeout
 t-ext4-same-fs t-cross-fs t-install-hooks t-fd-limit t-deep-pathmax
 t-walk-reopen t-tree-read-ahead"

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


# sanitizer_stages: the unit tests and $ASAN_TESTS under ASan + UBSan,
# then the unit tests and $TSAN_TESTS under ThreadSanitizer.  Builds only
# what changed.
sanitizer_stages() {
	local san tsan
	stage_begin "3. AddressSanitizer + UBSan"
	san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
	# The fault shim is preloaded into sanitized binaries: ASan must not
	# insist on coming first in the library list.
	export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	if build _build-san CFLAGS="-O1 -g $san" LDFLAGS="$san"; then
		# shellcheck disable=SC2086 # a list of names
		check sanitizers $ASAN_TESTS
	else
		failed+=("sanitizer build")
	fi
	unset ASAN_OPTIONS UBSAN_OPTIONS
	stage_end

	stage_begin "4. ThreadSanitizer"
	tsan="-fsanitize=thread -fno-omit-frame-pointer"
	if build _build-tsan CFLAGS="-O1 -g $tsan" LDFLAGS="$tsan"; then
		tsan_check
	else
		failed+=("thread-sanitizer build")
	fi
	stage_end
}

# dist_has_tests TARBALL: every file git keeps under tests/ (and the
# library's ABI baseline) is in TARBALL, so that the integration tests
# distcheck-fast does not run from it could run there too.  Nothing to
# compare without git (a tarball's own tree).
dist_has_tests() {
	local tarball=$1 missing
	git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || return 0
	missing=$(comm -23 \
		<(git -C "$top" ls-files tests lib/abi | LC_ALL=C sort) \
		<(tar -tzf "$tarball" | sed 's|^[^/]*/||' | LC_ALL=C sort))
	[ -z "$missing" ] && return 0
	echo "---- in git but not in $(basename "$tarball"):"
	echo "$missing"
	return 1
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

stage_begin "2. build (-Werror) and every test"
if build _build; then check plain; else failed+=("plain build"); fi
stage_end

sanitizer_stages

stage_begin "5. valgrind on the main paths"
if SMARTCP="$top/_build/src/smartcp" bash "$top/tests/valgrind.sh"; then
	summaries+=("valgrind: no leaks, no errors")
else
	failed+=("valgrind")
fi
stage_end

stage_begin "6. fuzzing (${FUZZ_SECONDS:-45} s a target)"
if FUZZ_SECONDS=${FUZZ_SECONDS:-45} bash "$top/tests/fuzz/run-fuzz.sh" "$top/_build" >"$top/_build/fuzz.log" 2>&1; then
	summaries+=("$(tail -n 1 "$top/_build/fuzz.log")")
	tail -n 1 "$top/_build/fuzz.log"
else
	tail -n 40 "$top/_build/fuzz.log"
	failed+=("fuzz")
fi
stage_end

stage_begin "7. make distcheck-fast"
cd "$top/_build" && rm -f smartcp-*.tar.gz &&
if make -s -j"$jobs" distcheck-fast >distcheck.log 2>&1 &&
	dist_has_tests "$(ls smartcp-*.tar.gz | head -n 1)"; then
	summaries+=("distcheck: passed (the tarball holds every test file git has)")
else
	tail -n 60 distcheck.log
	failed+=("distcheck")
fi
stage_end

echo
echo "== summary"
printf '%s\n' "${summaries[@]}"
echo "== time by stage"
printf '%s\n' "${times[@]}"
echo "total time: $((SECONDS / 60))m$((SECONDS % 60))s"
if [ ${#failed[@]} -ne 0 ]; then
	echo "FAILED: ${failed[*]}"
	echo "total: $t_pass passed, $((t_fail > 0 ? t_fail : 1)) failed, $t_skip skipped"
	exit 1
fi
echo "total: $t_pass passed, $t_fail failed, $t_skip skipped"
