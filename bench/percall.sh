#!/usr/bin/env bash
# bench/percall.sh - what one call of smartcp costs, next to GNU cp.
#
# Scripts and package install hooks run a copier once per file, so what a
# process spends before and after its one small copy (loading libraries,
# reading the mount table, setting up buffers) is paid per file.  This
# times series of sequential calls from a shell loop, each copying one
# small file to a new name, smartcp and cp alternating (A B B A ...), with
# the machine's mounts and inside a private mount namespace (unshare -m)
# with thousands of extra tmpfs mounts, as on a container host.  Those
# mounts are made in the namespace and vanish with it.  A cold row drops
# the page cache before each single call (the first hook after boot: the
# programs and their libraries come from the disk), and beside the times
# are the system calls and page faults of one call of each tool.  Needs
# root for the namespaces and drop_caches.  See bench/README.
set -euo pipefail
export LC_ALL=C

usage() {
	cat <<'EOF'
Usage: bench/percall.sh [OPTION]...
  --runs N         series per tool and setup (default 7; env BENCH_RUNS)
  --calls N        calls per series (default 200; env BENCH_CALLS)
  --mounts LIST    comma-separated numbers of extra tmpfs mounts, one setup
                   each; 0 is the machine's own mounts, without a namespace
                   (default 0,2000,8000; env BENCH_MOUNTS)
  --size BYTES     size of the file copied (default 6)
  --cold N         cold calls per tool: sync and drop_caches before each
                   single call, alternating (default 9; 0 skips the row;
                   env BENCH_COLD)
  --no-counts      skip the system calls (strace -f -c) and page faults
                   (perf stat) of one call of each tool
  --no-floor       skip the "startup only" rows: the same series of
                   `smartcp --version` and `cp --version` (machine's mounts),
                   what loading the programs and their libraries costs,
                   and the "libraries only" rows: an empty main() linked
                   with the shared libraries each program loads (built
                   with cc; skipped, saying so, without one)
  --tsv FILE       also write the results as TSV to FILE (env BENCH_TSV)
  --smartcp PATH   binary to test (env SMARTCP; default ../src/smartcp next
                   to this script, else smartcp on PATH)
  --cp PATH        the cp to compare with (default: cp on PATH)
  --scratch DIR    parent of the scratch directory (default /var/tmp)
  -h, --help       this help
EOF
}

# shellcheck disable=SC2034 # lib.sh names the script in its messages
BENCH_NAME=percall.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS=${BENCH_RUNS:-7}
CALLS=${BENCH_CALLS:-200}
MOUNTS=${BENCH_MOUNTS:-0,2000,8000}
SIZE=6
COLD=${BENCH_COLD:-9}
COUNTS=1
FLOOR=1
TSV=${BENCH_TSV:-}
SMARTCP=${SMARTCP:-}
CP=
SCRATCH_PARENT=${BENCH_SCRATCH:-/var/tmp}

# --- inner: one setup, run inside the namespace ----------------------------
# percall.sh --inner N: make N tmpfs mounts, then print one line per series,
# "TOOL WALL-US CPU-US", for the settings the outer run exported.
make_mounts() { # N DIR
	local n=$1 dir=$2 nr=
	((n)) || return 0
	mkdir -p "$dir"
	# mount(8) reads the whole mount table for every mount it makes, so
	# 8,000 of them take minutes; one perl process calling mount(2)
	# makes them in about a second.
	case $(uname -m) in
	x86_64) nr=165 ;;
	aarch64 | riscv64 | loongarch64) nr=40 ;;
	esac
	if [[ -n $nr ]] && command -v perl >/dev/null; then
		perl -e '
			my ($nr, $n, $dir) = @ARGV;
			for my $i (1 .. $n) {
				my ($s, $t, $ty, $o) = ("percall$i", "$dir/$i", "tmpfs", "size=4k");
				mkdir $t;
				syscall($nr, $s, $t, $ty, 0, $o) == 0 or die "mount $t: $!\n";
			}' "$nr" "$n" "$dir"
	else
		local i
		for ((i = 1; i <= n; i++)); do
			mkdir -p "$dir/$i"
			mount -t tmpfs -o size=4k "percall$i" "$dir/$i"
		done
	fi
}

# The times builtin, run in this shell (in a pipeline it would run in a
# subshell, which has no children yet), says how much user and system time
# the shell's finished children used ("0m1.234s 0m0.567s" on line 2).
# cpu_us BEFORE AFTER: the microseconds between two such outputs.
cpu_us() {
	awk 'FNR == 2 {
		for (i = 1; i <= 2; i++) {
			split($i, p, "m"); sub("s", "", p[2])
			t[FILENAME] += p[1] * 60 + p[2]
		} }
		END { printf "%d\n", (t[ARGV[2]] - t[ARGV[1]]) * 1000000 }' "$1" "$2"
}

# series TOOL-PATH SRC DSTDIR: CALLS sequential calls; prints the wall and
# the CPU (user + system of the calls) microseconds they took.
series() {
	local tool=$1 src=$2 d=$3 i t0 t1
	rm -rf -- "$d"
	mkdir -p "$d"
	times >"$d.c0"
	t0=$EPOCHREALTIME
	for ((i = 0; i < CALLS; i++)); do
		"$tool" "$src" "$d/f$i"
	done
	t1=$EPOCHREALTIME
	times >"$d.c1"
	echo "$(us_between "$t0" "$t1") $(cpu_us "$d.c0" "$d.c1")"
	rm -rf -- "$d" "$d.c0" "$d.c1"
}

version_series() { # TOOL-PATH SCRATCH: the same with TOOL --version
	local tool=$1 d=$2 i t0 t1
	times >"$d.c0"
	t0=$EPOCHREALTIME
	for ((i = 0; i < CALLS; i++)); do
		"$tool" --version >/dev/null
	done
	t1=$EPOCHREALTIME
	times >"$d.c1"
	echo "$(us_between "$t0" "$t1") $(cpu_us "$d.c0" "$d.c1")"
	rm -f -- "$d.c0" "$d.c1"
}

# empty_with_libs PROGRAM OUT: an empty main() that loads the shared
# libraries PROGRAM names (DT_NEEDED, found where PROGRAM finds them, so
# with their own dependencies too): what loading them costs, whatever the
# program then does.  False without a compiler.
empty_with_libs() {
	local prog=$1 out=$2 lib path cache
	local -a args=()
	command -v cc >/dev/null || return 1
	cache=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p 2>/dev/null || true)
	for lib in $(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		path=$(ldd "$prog" | awk -v l="$lib" '$1 == l && $3 ~ /^\// { print $3 }')
		[[ -n $path ]] || continue
		args+=("$path")
		# a run path only where the loader's cache does not find it:
		# with one, it probes glibc-hwcaps/ under it for every library
		grep -qF " => $path" <<<"$cache" ||
			args+=("-Wl,-rpath,$(dirname "$path")")
	done
	echo 'int main(void) { return 0; }' >"$out.c"
	cc -O2 -o "$out" "$out.c" -Wl,--no-as-needed "${args[@]}" 2>/dev/null
}

# cold_call TOOL-PATH SRC DST: one call after sync and drop_caches: the
# program, its libraries and SRC come from the disk.  Prints the wall and
# CPU microseconds of that call.
cold_call() {
	local tool=$1 src=$2 dst=$3 t0 t1
	rm -f -- "$dst"
	drop_caches
	times >"$dst.c0"
	t0=$EPOCHREALTIME
	"$tool" "$src" "$dst"
	t1=$EPOCHREALTIME
	times >"$dst.c1"
	echo "$(us_between "$t0" "$t1") $(cpu_us "$dst.c0" "$dst.c1")"
	rm -f -- "$dst" "$dst.c0" "$dst.c1"
}

# counts TOOL-PATH SRC SCRATCH: "SYSCALLS FAULTS LIBS" of one call: the
# system calls strace -f -c counts, the median page faults of 9 calls
# under perf stat, the shared objects the loader maps; "-" for what
# cannot be had (no strace, no perf).
counts() {
	local tool=$1 src=$2 d=$3 sys=- pf=- libs i
	local -a f=()
	if command -v strace >/dev/null; then
		rm -f -- "$d.o"
		strace -f -c -o "$d.sc" "$tool" "$src" "$d.o" >/dev/null 2>&1 &&
			sys=$(awk '$NF == "total" { print $4 }' "$d.sc")
	fi
	if command -v perf >/dev/null; then
		for ((i = 0; i < 9; i++)); do
			rm -f -- "$d.o"
			perf stat -x, -e page-faults -o "$d.pf" \
				"$tool" "$src" "$d.o" >/dev/null 2>&1 || break
			f+=("$(awk -F, '$3 == "page-faults" || $3 ~ /^page-faults/ { print $1 }' "$d.pf")")
		done
		((${#f[@]} == 9)) && pf=$(printf '%s\n' "${f[@]}" | sort -n | sed -n 5p)
	fi
	rm -f -- "$d.o"
	libs=$(LD_DEBUG=files "$tool" "$src" "$d.o" 2>&1 >/dev/null |
		grep -c 'generating link map' || true)
	rm -f -- "$d.o" "$d.sc" "$d.pf"
	echo "$sys $pf $libs"
}

inner() {
	local n=$1 r i
	make_mounts "$n" "$PC_SCRATCH/mnt"
	echo "mounts $(wc -l </proc/self/mountinfo)"
	# one untimed call each: the binaries and the source are cached
	"$PC_SMARTCP" "$PC_SRC" "$PC_SCRATCH/warm1"
	"$PC_CP" "$PC_SRC" "$PC_SCRATCH/warm2"
	for ((r = 0; r < PC_RUNS; r++)); do
		# A B, B A (bench_order): neither tool always runs first
		for i in $(bench_order 2 "$r"); do
			case $i in
			0) echo "smartcp $(series "$PC_SMARTCP" "$PC_SRC" "$PC_SCRATCH/out")" ;;
			1) echo "cp $(series "$PC_CP" "$PC_SRC" "$PC_SCRATCH/out")" ;;
			esac
		done
	done
	if ((PC_COUNTS)); then
		echo "count-smartcp $(counts "$PC_SMARTCP" "$PC_SRC" "$PC_SCRATCH/n")"
		echo "count-cp $(counts "$PC_CP" "$PC_SRC" "$PC_SCRATCH/n")"
	fi
	((n == 0)) || return 0
	# cold: A B, B A as above, one call each after drop_caches
	for ((r = 0; r < PC_COLD; r++)); do
		for i in $(bench_order 2 "$r"); do
			case $i in
			0) echo "smartcp-cold $(cold_call "$PC_SMARTCP" "$PC_SRC" "$PC_SCRATCH/cold")" ;;
			1) echo "cp-cold $(cold_call "$PC_CP" "$PC_SRC" "$PC_SCRATCH/cold")" ;;
			esac
		done
	done
	((PC_FLOOR)) || return 0
	for ((r = 0; r < PC_RUNS; r++)); do
		for i in $(bench_order 2 "$r"); do
			case $i in
			0) echo "smartcp-version $(version_series "$PC_SMARTCP" "$PC_SCRATCH/v")" ;;
			1) echo "cp-version $(version_series "$PC_CP" "$PC_SCRATCH/v")" ;;
			esac
		done
	done
	[[ -x $PC_SCRATCH/smartcp-libs && -x $PC_SCRATCH/cp-libs ]] || return 0
	for ((r = 0; r < PC_RUNS; r++)); do
		for i in $(bench_order 2 "$r"); do
			case $i in
			0) echo "smartcp-libs $(version_series "$PC_SCRATCH/smartcp-libs" "$PC_SCRATCH/v")" ;;
			1) echo "cp-libs $(version_series "$PC_SCRATCH/cp-libs" "$PC_SCRATCH/v")" ;;
			esac
		done
	done
}

if [[ ${1:-} == --inner ]]; then
	CALLS=$PC_CALLS
	inner "$2"
	exit 0
fi

# --- outer: options, setups, the table ---------------------------------------
bench_opt --runs RUNS
bench_opt --calls CALLS
bench_opt --mounts MOUNTS
bench_opt --size SIZE
bench_opt --cold COLD
bench_opt --no-counts COUNTS 0
bench_opt --no-floor FLOOR 0
bench_opt --tsv TSV
bench_opt --smartcp SMARTCP
bench_opt --cp CP
bench_opt --scratch SCRATCH_PARENT
bench_parse "$@"

for v in RUNS CALLS; do
	posint "${!v}" || die "$v must be a positive integer, got '${!v}'"
done
[[ $SIZE =~ ^[0-9]+$ ]] || die "--size must be a number of bytes, got '$SIZE'"
[[ $COLD =~ ^[0-9]+$ ]] || die "--cold must be a number of calls, got '$COLD'"
[[ $MOUNTS =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--mounts must be numbers separated by commas, got '$MOUNTS'"
bench_need_root "unshare -m, mounts"
command -v unshare >/dev/null || die "unshare (util-linux) is needed"

bench_find_smartcp
CP=$(command -v "${CP:-cp}") || die "cp not found"
# A build tree's program finds libsmartcp through a run path, and the
# loader probes glibc-hwcaps/ and tls/ directories under it for every
# library (a dozen failed stat calls): the issue's rows are taken with
# the installed program, which finds it through the loader's cache.
if readelf -d "$SMARTCP" 2>/dev/null | grep -Eq '\((RUN)?PATH\)'; then
	say "note: $SMARTCP has a run path ($(readelf -d "$SMARTCP" | sed -n 's/.*R[UN]*PATH.*\[\(.*\)\]/\1/p')):"
	say "      not an installed program; make install and use --smartcp for the issue's rows"
fi

# the binary pinned (copied to $SCRATCH/smartcp: a rebuild mid-run
# changes nothing), the clean-up trap set
bench_scratch "$SCRATCH_PARENT" smartcp-percall
head -c "$SIZE" /dev/urandom >"$SCRATCH/src"
if ((FLOOR)); then
	if empty_with_libs "$SMARTCP_ORIG" "$SCRATCH/smartcp-libs" &&
	   empty_with_libs "$CP" "$SCRATCH/cp-libs"; then
		say "libraries only: an empty main() with smartcp's libraries ($(ldd "$SCRATCH/smartcp-libs" | grep -c '=>')) and with cp's ($(ldd "$SCRATCH/cp-libs" | grep -c '=>'))"
	else
		say "libraries only: skipped (no C compiler to build the empty programs)"
		rm -f "$SCRATCH/smartcp-libs" "$SCRATCH/cp-libs"
	fi
fi
export PC_SMARTCP=$SCRATCH/smartcp PC_CP=$CP PC_SRC=$SCRATCH/src
export PC_SCRATCH=$SCRATCH PC_RUNS=$RUNS PC_CALLS=$CALLS PC_FLOOR=$FLOOR
export PC_COLD=$COLD PC_COUNTS=$COUNTS
SELF=$(readlink -f "${BASH_SOURCE[0]}")

ms() { awk -v us="$1" -v n="${2:-$CALLS}" 'BEGIN { printf "%.2f", us / n / 1000 }'; }

TSVTMP=$SCRATCH/results.tsv
tsv_row setup mountinfo_lines tool series median_ms min_ms max_ms r_med r_min \
	cpu_median_ms r_cpu ms_per_call_each_series >"$TSVTMP"
say "smartcp: $SMARTCP_ORIG ($("$SMARTCP" --version | head -n 1))"
say "cp:      $CP ($("$CP" --version | head -n 1))"
echo "per call: $CALLS sequential calls per series, one ${SIZE}-byte file to a new name each call;"
echo "          $RUNS series per tool, alternating (A B B A ...); wall ms per call (median, min, max)"
echo "          and CPU ms per call (user + system of the calls, median); ratios smartcp / cp"
((COLD == 0)) || echo "cold:     $COLD single calls per tool, alternating, each after sync and drop_caches (machine's mounts)"
echo "          load average at start: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
printf '%-28s %8s %-16s %9s %9s %9s %7s %7s %9s %7s\n' setup mounts tool 'median' 'min' 'max' 'r(med)' 'r(min)' 'cpu med' 'r(cpu)'

IFS=, read -r -a setups <<<"$MOUNTS"
for n in "${setups[@]}"; do
	n=$((10#$n))
	say "[percall] setup: $n extra mounts ..."
	if ((n == 0)); then
		out=$(bash "$SELF" --inner 0)
		name="machine's mounts"
	else
		out=$(unshare -m --propagation private bash "$SELF" --inner "$n")
		name="unshare -m, +$n tmpfs"
	fi
	lines=$(awk '$1 == "mounts" { print $2 }' <<<"$out")
	rows=(smartcp cp)
	if grep -q '^smartcp-cold ' <<<"$out"; then rows+=(smartcp-cold cp-cold); fi
	if grep -q '^smartcp-version ' <<<"$out"; then rows+=(smartcp-version cp-version); fi
	if grep -q '^smartcp-libs ' <<<"$out"; then rows+=(smartcp-libs cp-libs); fi
	declare -A MED=() MIN=() MAX=() ALL=() CPU=() PER=()
	for tool in "${rows[@]}"; do
		# shellcheck disable=SC2207 # one number per word
		t=($(awk -v t="$tool" '$1 == t { print $2 }' <<<"$out"))
		# shellcheck disable=SC2207
		c=($(awk -v t="$tool" '$1 == t { print $3 }' <<<"$out"))
		((${#t[@]})) || die "no timings for $tool in setup $n"
		# a cold row's numbers are single calls, the others series
		per=$CALLS
		[[ $tool != *-cold ]] || per=1
		read -r MED[$tool] MIN[$tool] MAX[$tool] <<<"$(stats "${t[@]}")"
		read -r CPU[$tool] _ _ <<<"$(stats "${c[@]}")"
		PER[$tool]=$per
		ALL[$tool]=$(for x in "${t[@]}"; do ms "$x" "$per"; printf ' '; done | sed 's/ $//; s/ /,/g')
	done
	for tool in "${rows[@]}"; do
		label=$name
		case $tool in
		smartcp | smartcp-cold | smartcp-version | smartcp-libs) peer=${tool/smartcp/cp}
			a=$(ratio "${MED[$tool]}" "${MED[$peer]}")
			b=$(ratio "${MIN[$tool]}" "${MIN[$peer]}")
			cr=$(ratio "${CPU[$tool]}" "${CPU[$peer]}") ;;
		*) a=- b=- cr=- ;;
		esac
		case $tool in
		*-cold) label="cold: drop_caches each call" ;;
		*-version) label="startup only (--version)" ;;
		*-libs) label="libraries only (empty main)" ;;
		esac
		p=${PER[$tool]}
		nser=$RUNS
		[[ $tool != *-cold ]] || nser=$COLD
		printf '%-28s %8s %-16s %9s %9s %9s %7s %7s %9s %7s\n' "$label" "$lines" "$tool" \
			"$(ms "${MED[$tool]}" "$p")" "$(ms "${MIN[$tool]}" "$p")" "$(ms "${MAX[$tool]}" "$p")" "$a" "$b" \
			"$(ms "${CPU[$tool]}" "$p")" "$cr"
		tsv_row "$label" "$lines" "$tool" "$nser" \
			"$(ms "${MED[$tool]}" "$p")" "$(ms "${MIN[$tool]}" "$p")" "$(ms "${MAX[$tool]}" "$p")" "$a" "$b" \
			"$(ms "${CPU[$tool]}" "$p")" "$cr" "${ALL[$tool]}" >>"$TSVTMP"
	done
	# one call of each: system calls, page faults, shared objects loaded
	if grep -q '^count-smartcp ' <<<"$out"; then
		read -r _ ss sp sl <<<"$(grep '^count-smartcp ' <<<"$out")"
		read -r _ cs cpf cl <<<"$(grep '^count-cp ' <<<"$out")"
		printf '%-28s %8s one call: system calls %s (cp %s), page faults %s (cp %s), shared objects %s (cp %s)\n' \
			"$name" "$lines" "$ss" "$cs" "$sp" "$cpf" "$sl" "$cl"
		tsv_row "$name" "$lines" counts 1 "syscalls=$ss" "cp_syscalls=$cs" \
			"page_faults=$sp" "cp_page_faults=$cpf" "objects=$sl" "cp_objects=$cl" - - >>"$TSVTMP"
	fi
	unset MED MIN MAX ALL CPU
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Differences under ~10% are noise on a shared VM (see shared/benchmarking.md)."
if [[ -n $TSV ]]; then cp -- "$TSVTMP" "$TSV" && say "TSV written to $TSV"; fi
