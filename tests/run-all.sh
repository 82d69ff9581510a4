#!/bin/bash
# The whole test suite, as CI runs it (README's second command):
#   1. installs what the tests need (apt-get, as root),
#   2. builds with -Wall -Wextra -Werror and runs unit + integration tests,
#   3. builds again with AddressSanitizer + UndefinedBehaviorSanitizer and
#      runs the whole suite under them,
#   4. runs the main paths under valgrind (no leaks),
#   5. fuzzes argument and mountinfo handling for a bounded time,
#   6. make distcheck.
# Prints Check's and the integration runner's summaries at the end.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/deps.sh"
smartcp_install_deps "$SMARTCP_TEST_DEPS" || exit 1
export LC_ALL=C
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

# check NAME: run make check in the current build dir, keep summaries.
check() {
	local name=$1 rc
	make -s -j"$jobs" check >/dev/null 2>&1
	rc=$?
	for log in tests/unit/check_smartcp.log tests/integration.sh.log; do
		[ -f "$log" ] || continue
		if [ $rc -ne 0 ]; then
			echo "---- $name: $log"
			cat "$log"
		fi
	done
	local u i n
	u=$(grep -h '^[0-9]*%: Checks:' tests/unit/check_smartcp.log 2>/dev/null | tail -n1)
	i=$(grep -h '^integration: ' tests/integration.sh.log 2>/dev/null | tail -n1)
	summaries+=("== $name" "${u:-unit: no summary}" "${i:-integration: no summary}")
	echo "${u:-unit: no summary}"
	echo "${i:-integration: no summary}"
	# totals for the closing line: Check's "Checks: N, Failures: F,
	# Errors: E" and the runner's "N passed, N failed, N skipped"
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
	[ $rc -eq 0 ] || failed+=("$name")
}

echo "== build (-Wall -Wextra -Werror) and test"
if build _build; then check plain; else failed+=("plain build"); fi

echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# The fault shim is preloaded into sanitized binaries: ASan must not insist
# on coming first in the library list.
export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if build _build-san CFLAGS="-O1 -g $san" LDFLAGS="$san"; then
	check sanitizers
else
	failed+=("sanitizer build")
fi
unset ASAN_OPTIONS UBSAN_OPTIONS

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
