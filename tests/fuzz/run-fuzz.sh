#!/bin/sh
# Builds smartcp's libFuzzer targets and runs each for a bounded time.
#
# usage: tests/fuzz/run-fuzz.sh [BUILDDIR]
#
#   BUILDDIR        a configured build directory holding config.h (argument
#                   or environment); default: configure into a private one
#   FUZZ_SECONDS    seconds per target (default 60)
#   FUZZ_TARGETS    targets to run (default "fuzz_args fuzz_mountinfo
#                   fuzz_copier")
#   FUZZ_WORKDIR    where binaries, the working corpus and crash files go
#                   (default: a new directory under ${TMPDIR:-/tmp}, removed
#                   after a clean run, kept when something was found)
#   FUZZ_CC         a clang with libFuzzer (default clang; CC is not used,
#                   CI often points it at gcc)
#
# Needs clang with libFuzzer's runtime: on Debian 12 the packages clang
# (clang-14) and libclang-rt-14-dev (only a Recommends of clang).  Run as
# root with either missing, the script installs them with apt-get; without
# BUILDDIR it also installs smartcp's build dependencies (tests/deps.sh).
#
# Targets (tests/fuzz/*.c, libFuzzer, ASan + UBSan):
#   fuzz_args       argv -> sc_options_parse, every argument through
#                   sc_quote/sc_quote_buf/sc_quote_plain/sc_json_string
#                   with independent round-trip checkers (fuzz_common.h);
#                   seeds in corpus/args, dictionary args.dict
#   fuzz_mountinfo  the input as a mountinfo file -> sc_fsinfo_new +
#                   sc_fsinfo_lookup_values; seeds in corpus/mountinfo
#   fuzz_copier     libsmartcp's copier: random option bits (valid and
#                   not) -> sc_copier_new, then sc_copier_copy_fd,
#                   sc_copier_explain_fd and sc_copier_verify_fd on small
#                   files, pipes and bad descriptors made from the input;
#                   seeds in corpus/copier
# A reproducer is replayed with: BIN CRASH-FILE (BIN is printed).
#
# Exit status: 0 when no target found anything, 1 when one crashed, hit a
# timeout or ran out of memory (each reproducer is printed), 2 when the
# targets could not be built.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-fuzz_args fuzz_mountinfo fuzz_copier}
builddir=${1:-${BUILDDIR:-}}
CC=${FUZZ_CC:-clang}

say() { printf 'fuzz: %s\n' "$*"; }
die() { printf 'fuzz: %s\n' "$*" >&2; exit 2; }

if [ -n "${FUZZ_WORKDIR:-}" ]; then
	work=$FUZZ_WORKDIR
	own_work=false
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-fuzz.XXXXXX")
	own_work=true
fi
work=$(cd "$work" && pwd)

apt_install() {
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		die "$1 is missing; install it (Debian: apt-get install $*)"
	fi
	say "installing $*"
	DEBIAN_FRONTEND=noninteractive
	export DEBIAN_FRONTEND
	apt-get install -y "$@" >"$work/apt.log" 2>&1 ||
		{ apt-get update >>"$work/apt.log" 2>&1 &&
		  apt-get install -y "$@" >>"$work/apt.log" 2>&1; } ||
		die "apt-get install $* failed (see $work/apt.log)"
}

# --- the compiler and libFuzzer --------------------------------------------
command -v "$CC" >/dev/null || apt_install clang
command -v "$CC" >/dev/null || die "no $CC after installing clang"
printf '%s\n' '#include <stdint.h>' '#include <stddef.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	'{ (void)d; (void)n; return 0; }' >"$work/probe.c"
libfuzzer_ok() {
	"$CC" -fsanitize=fuzzer,address,undefined "$work/probe.c" \
		-o "$work/probe" >"$work/probe.log" 2>&1
}
if ! libfuzzer_ok; then
	ver=$("$CC" -dumpversion | cut -d. -f1)
	apt_install "libclang-rt-$ver-dev"
	libfuzzer_ok || die "$CC -fsanitize=fuzzer does not link (see $work/probe.log)"
fi
say "compiler: $("$CC" --version | head -n 1)"

# --- config.h ---------------------------------------------------------------
if [ -z "$builddir" ]; then
	builddir=$work/config
	# smartcp's own build dependencies (libmount-dev, ...), as run-all.sh
	if [ -f "$top/tests/deps.sh" ] && command -v bash >/dev/null; then
		bash -c '. "$1" && smartcp_install_deps' sh "$top/tests/deps.sh" ||
			die "missing build dependencies (tests/deps.sh)"
	fi
	if [ ! -x "$top/configure" ]; then
		say "no configure script: running autoreconf -fi in $top"
		(cd "$top" && autoreconf -fi) >"$work/autoreconf.log" 2>&1 ||
			die "autoreconf failed (see $work/autoreconf.log)"
	fi
	mkdir -p "$builddir"
	say "configuring into $builddir for config.h"
	(cd "$builddir" && "$top/configure" -q) >"$work/configure.log" 2>&1 ||
		die "configure failed (see $work/configure.log)"
fi
[ -f "$builddir/config.h" ] || die "no config.h in $builddir"

# --- build ------------------------------------------------------------------
libs="$(pkg-config --libs mount blkid) -lattr -lacl -lpthread" ||
	die "pkg-config: libmount/libblkid missing"
pcflags=$(pkg-config --cflags mount blkid libxxhash)
cflags="-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
-I$top/include -I$top/lib -I$top/src -I$builddir $pcflags"
# what the fuzzed code pulls in: options -> plan, quote; report -> quote,
# change (the words for a changed source); plan -> fsinfo (kernel version
# helpers).  fuzz_copier links the engine (lib/) alone, as a program
# using libsmartcp does.  The engine is every C file the build puts in
# libsmartcp-engine.la (lib/Makemodule.am), so a new file in lib/ is
# linked here without a second list to keep.
engine=$(sed -n '/^lib_libsmartcp_engine_la_SOURCES *=/,/[^\\]$/p' \
	"$top/lib/Makemodule.am" | tr ' \t\\' '\n\n\n' | sed -n 's/\.c$//p')
[ -n "$engine" ] || die "no engine sources in lib/Makemodule.am"
# the program's side: its report prints the facts' origins, which come
# from the copier, so it links the engine as the program does
program="src/output/quote src/output/report src/output/report_json
src/output/report_usage src/output/messages src/cli/options src/cli/longopts
src/cli/help $engine"

mkdir -p "$work/obj" "$work/bin"
for s in $program $engine; do
	o=$work/obj/$(echo "$s" | tr / _).o
	[ -f "$o" ] && continue
	# shellcheck disable=SC2086
	"$CC" $cflags -fsanitize=fuzzer-no-link,address,undefined \
		-c "$top/$s.c" -o "$o" ||
		die "compiling $s.c failed"
done
for t in $targets; do
	[ -f "$here/$t.c" ] || die "no target $t"
	case $t in
	fuzz_copier) srcs=$engine ;;
	*) srcs=$program ;;
	esac
	objs=
	for s in $srcs; do objs="$objs $work/obj/$(echo "$s" | tr / _).o"; done
	# shellcheck disable=SC2086
	"$CC" $cflags -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		"$here/$t.c" $objs $libs -o "$work/bin/$t" ||
		die "building $t failed"
done
say "built $(echo "$targets" | wc -w) targets in $work/bin"

# --- run --------------------------------------------------------------------
# Sanitizer defaults, unless the caller has set their own.
: "${ASAN_OPTIONS:=detect_leaks=1:abort_on_error=0:symbolize=1}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS UBSAN_OPTIONS
mkdir -p "$work/tmp"
TMPDIR=$work/tmp
export TMPDIR

n_targets=0 total_runs=0 crashes=0
for t in $targets; do
	n_targets=$((n_targets + 1))
	name=${t#fuzz_}
	corpus=$work/corpus/$name
	seeds=$here/corpus/$name
	mkdir -p "$corpus" "$work/artifacts"
	dict=
	if [ -f "$here/$name.dict" ]; then dict="-dict=$here/$name.dict"; fi
	nseeds=$(find "$seeds" -type f 2>/dev/null | wc -l)
	say "running $t for ${seconds}s ($nseeds seeds)"
	rc=0
	# New inputs go to the working corpus; the seeds are only read.
	# shellcheck disable=SC2086
	"$work/bin/$t" -max_total_time="$seconds" -timeout=5 \
		-rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
		-artifact_prefix="$work/artifacts/$t-" $dict \
		"$corpus" "$seeds" >"$work/$t.log" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -n 1)
	runs=${runs:-0}
	total_runs=$((total_runs + runs))
	last=$(grep -E '^#[0-9]+' "$work/$t.log" | tail -n 1 || true)
	cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([^ ]*\).*/cov \1, features \2, corpus \3/p')
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$t.log" | tail -n 1)
	found=
	for f in "$work/artifacts/$t-"*; do
		if [ -e "$f" ]; then found="$found $f"; fi
	done
	if [ "$rc" -eq 0 ] && [ -z "$found" ]; then
		say "$t: $runs runs (${rate:-?}/s), ${cov:-no coverage line}, no crashes"
		continue
	fi
	crashes=$((crashes + 1))
	say "$t: FAILED (exit $rc) after $runs runs; log: $work/$t.log"
	grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz check failed|    #[0-9]+ )' \
		"$work/$t.log" | head -n 40 | sed 's/^/    /'
	for f in $found; do
		say "reproducer: $f ($(wc -c <"$f") bytes)"
		od -A d -c "$f" | head -n 20 | sed 's/^/    /'
		say "reproduce with: $work/bin/$t $f"
	done
	if [ -z "$found" ]; then
		tail -n 30 "$work/$t.log" | sed 's/^/    /'
	fi
done

say "$n_targets targets, $total_runs runs, $crashes crashes"
if [ "$crashes" -eq 0 ] && $own_work; then
	rm -rf "$work"
fi
[ "$crashes" -eq 0 ]
