# shellcheck shell=bash
# bench/lib.sh - what bench.sh, scale.sh, percall.sh and ab.sh share.
# Sourced, never run:
#
#	BENCH_NAME=bench.sh
#	. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Messages (die, say), the option parser (each script declares its
# options in a table, bench_opt, and calls bench_parse), finding and
# pinning the smartcp binary, the scratch directory and its clean-up trap
# (mounts and loop devices undone, the tools' error output shown, the
# scratch removed), dropping caches, settling memory, the disk's read
# rate, the statistics (median, min, max), the number formats (seconds,
# ratios), the order of the tools in a round, the TSV rows, and the
# generators of the source trees.  The measurement rules these follow
# are in bench/bench.sh's header.

# ---------------------------------------------------------------- messages

: "${BENCH_NAME:=$(basename -- "$0")}"
die() { echo "$BENCH_NAME: $*" >&2; exit 2; }
say() { echo "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }
posint() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }

# ----------------------------------------------------------------- options

# bench_opt OPTION VAR [VALUE]: OPTION (--name) sets the variable VAR.
# Without VALUE it takes an argument, given as "--name ARG" or
# "--name=ARG"; with VALUE it takes none and sets VAR to VALUE.  VAR may
# be a function's name followed by "()": the function is called with the
# argument (or VALUE) instead, for an option that sets several variables
# (--quick).  -h and --help call the script's usage function.
declare -A _BENCH_OPT_VAR=() _BENCH_OPT_VAL=() _BENCH_OPT_FLAG=()
bench_opt() {
	_BENCH_OPT_VAR[$1]=$2
	if (($# > 2)); then
		_BENCH_OPT_FLAG[$1]=1
		_BENCH_OPT_VAL[$1]=$3
	fi
}

_bench_set() { # VAR-or-FUNC() VALUE
	if [[ $1 == *'()' ]]; then
		"${1%'()'}" "$2"
	else
		printf -v "$1" '%s' "$2"
	fi
}

# bench_parse ARG...: the command line by the table; an unknown option
# (or a missing argument) says so with the usage on stderr, exit 2.
bench_parse() {
	local opt val
	while (($#)); do
		case $1 in
		-h | --help) usage; exit 0 ;;
		--*=*) opt=${1%%=*} val=${1#*=} ;;
		*) opt=$1 val= ;;
		esac
		if [[ -z ${_BENCH_OPT_VAR[$opt]+x} ]] ||
		   { [[ $1 == --*=* ]] && [[ -n ${_BENCH_OPT_FLAG[$opt]:-} ]]; }; then
			echo "$BENCH_NAME: unknown option '$1'" >&2
			usage >&2
			exit 2
		fi
		if [[ -n ${_BENCH_OPT_FLAG[$opt]:-} ]]; then
			_bench_set "${_BENCH_OPT_VAR[$opt]}" "${_BENCH_OPT_VAL[$opt]}"
		elif [[ $1 == --*=* ]]; then
			_bench_set "${_BENCH_OPT_VAR[$opt]}" "$val"
		else
			(($# > 1)) || { echo "$BENCH_NAME: option '$opt' needs an argument" >&2; usage >&2; exit 2; }
			_bench_set "${_BENCH_OPT_VAR[$opt]}" "$2"
			shift
		fi
		shift
	done
}

# ------------------------------------------------------- the program, root

# bench_find_smartcp: $SMARTCP as given (--smartcp, env SMARTCP), else
# ../src/smartcp next to these scripts, else smartcp on PATH; made an
# absolute name, or die.
bench_find_smartcp() {
	local here
	if [[ -z $SMARTCP ]]; then
		here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
		if [[ -x $here/../src/smartcp ]]; then
			SMARTCP=$here/../src/smartcp
		else
			SMARTCP=$(command -v smartcp || true)
		fi
	fi
	[[ -n $SMARTCP && -x $SMARTCP ]] || die "smartcp binary not found; use --smartcp PATH"
	SMARTCP=$(readlink -f "$SMARTCP")
}

# bench_need_root WHY
bench_need_root() { ((EUID == 0)) || die "must run as root ($1)"; }

# bench_apt_install WHAT PACKAGE...: install the packages with apt-get
# when it is there, saying so; a warning (WHAT: what goes without them)
# when that fails.
bench_apt_install() {
	local what=$1
	shift
	have apt-get || return 0
	say "installing $* with apt-get ..."
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q "$@" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "$@" >/dev/null 2>&1; } ||
		say "warning: apt-get install $* failed; $what"
}

# ------------------------------------------------------ scratch, clean-up

# bench_scratch PARENT PREFIX: makes $SCRATCH (PARENT/PREFIX.XXXX), sets
# the clean-up trap, and when $SMARTCP is set pins it: the binary is
# copied there ($SMARTCP_ORIG keeps its name), so a rebuild during the
# run changes nothing.  $ERRLOG collects the tools' error output.
# MOUNTED and LOOPS list what the clean-up undoes (mount points, in the
# order mounted; loop devices); a script may define bench_cleanup_hook,
# run first (BENCH_INTERRUPTED is 1 after Ctrl-C or SIGTERM).
declare -a MOUNTED=() LOOPS=()
# shellcheck disable=SC2034 # read by the scripts' bench_cleanup_hook
BENCH_INTERRUPTED=0
bench_scratch() {
	SCRATCH=$(mktemp -d "$1/$2.XXXX")
	ERRLOG=$SCRATCH/errors.log
	: >"$ERRLOG"
	trap _bench_cleanup EXIT
	trap 'BENCH_INTERRUPTED=1; exit 130' INT
	trap 'BENCH_INTERRUPTED=1; exit 143' TERM
	if [[ -n ${SMARTCP:-} ]]; then
		SMARTCP_ORIG=$SMARTCP
		cp -- "$SMARTCP_ORIG" "$SCRATCH/smartcp"
		SMARTCP=$SCRATCH/smartcp
	fi
}

# shellcheck disable=SC2317 # invoked by the trap
_bench_cleanup() {
	local rc=$? m i
	set +e
	trap - EXIT INT TERM
	cd /
	if declare -F bench_cleanup_hook >/dev/null; then bench_cleanup_hook; fi
	for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
		m=${MOUNTED[i]}
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	for m in "${LOOPS[@]}"; do losetup -d "$m" 2>/dev/null; done
	if grep -qv '^###' "$ERRLOG" 2>/dev/null; then
		say "--- tool error output (last 20 lines of $ERRLOG, now removed):"
		grep -v '^###' "$ERRLOG" | tail -n 20 | cut -c1-300 >&2
	fi
	rm -rf -- "$SCRATCH"
	exit "$rc"
}

# ------------------------------------------------------ caches and memory

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# mem_quarter_mib: a quarter of MemAvailable, in MiB: the most memory
# settling may touch without pushing the cached source out.
mem_quarter_mib() { awk '/^MemAvailable:/ { print int($2 / 4096) }' /proc/meminfo; }

# settle: touch $SETTLE_MIB MiB of anonymous memory and exit (0: nothing);
# SETTLE_US adds up the time it took.  This VM hands freed memory back to
# its host, which faults it back in at ~2 us per 4 KiB page; without this
# a timed run pays that for its buffers and the destination's page cache
# some of the time (1 GiB copies: 0.3 s or 0.9-1.5 s for every tool).
# perl is perl-base (Essential on Debian), so no compiler is needed;
# "\0" x N writes every byte of an N-byte string (peak RSS = N, checked).
SETTLE_MIB=0 SETTLE_US=0
settle() {
	((SETTLE_MIB)) || return 0
	local t0=$EPOCHREALTIME t1
	perl -e 'my $x = "\0" x ($ARGV[0] << 20); exit 0' "$SETTLE_MIB" ||
		die "settle: perl could not touch $SETTLE_MIB MiB (lower --settle)"
	t1=$EPOCHREALTIME
	SETTLE_US=$((SETTLE_US + $(us_between "$t0" "$t1")))
}

# disk_rate DIR: the random 4 KiB read rate of DIR's device at depth 1
# and 8 (fio, O_DIRECT, libaio, 4 s each, on a 512 MiB file there), the
# line printed beside the cold rows: a cold tree of small files cannot
# copy faster than its reads come back.
disk_rate() {
	local f=$1/fio.dat d iops line=
	if ! have fio; then echo "(fio not installed: no rate)"; return; fi
	for d in 1 8; do
		# O_DIRECT: the device, not the page cache; fio lays the 512 MiB
		# file out (written, not sparse) before it reads
		iops=$(fio --name=randread --filename="$f" --size=512M --rw=randread \
			--bs=4k --direct=1 --ioengine=libaio --iodepth="$d" --runtime=4 \
			--time_based --output-format=terse --terse-version=3 2>>"$ERRLOG" |
			awk -F';' 'NR == 1 { print $8 }')
		[[ $iops =~ ^[0-9]+$ ]] || { echo "(fio failed: see $ERRLOG)"; rm -f "$f"; return; }
		line+="${line:+, }depth $d: $iops/s"
	done
	rm -f "$f"
	echo "disk: random 4 KiB reads (fio, O_DIRECT, libaio, 4 s each) $line"
}

# ------------------------------------------------------ times and numbers

# us_between T0 T1: microseconds between two $EPOCHREALTIME readings.
us_between() { echo $((10#${2/./} - 10#${1/./})); }

# stats N...: "median min max" of integers (microseconds), the median of
# an even count the mean of the middle two, truncated to an integer.
stats() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%d %d %d\n", m, v[1], v[NR] }'
}

# sec US: seconds with three decimals (milliseconds: a process start
# costs about one, so more digits would be noise); "-" stays "-".
sec() { if [[ $1 == - ]]; then echo -; else awk -v u="$1" 'BEGIN { printf "%.3f", u / 1e6 }'; fi; }

# ratio A B: A / B with two decimals; "-" when either is "-" or B is 0.
ratio() {
	if [[ $1 == - || $2 == - ]]; then echo -; return; fi
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'
}

# bench_order N ROUND: the indices 0..N-1 in the order the tools run in
# round ROUND (from 0): rotated one further each round, A B C, B C A,
# C A B, ...; for two tools A B, B A, A B ...: no tool always runs first.
bench_order() {
	local k
	for ((k = 0; k < $1; k++)); do echo $(((k + $2) % $1)); done
}

# tsv_row FIELD...: one TSV line on stdout (append it to the file).
tsv_row() {
	local IFS=$'\t'
	printf '%s\n' "$*"
}

# csv_secs US...: the times as seconds (sec), joined by commas.
csv_secs() {
	local x out=
	for x; do out+="${out:+,}$(sec "$x")"; done
	echo "$out"
}

# ---------------------------------------------------------------- trees

# gen_tree_bench DIR N NDIRS: bench.sh's tree, N files of 0-16 KiB
# (random sizes and bytes, fixed seed) spread over NDIRS directories
# d000..; one perl process.
gen_tree_bench() {
	mkdir -p "$1"
	perl -e '
		use strict; my ($root, $n, $nd) = @ARGV; srand(20240611);
		my $pool = join "", map { chr int rand 256 } 1 .. 32768;
		mkdir sprintf("%s/d%03d", $root, $_) or die "mkdir: $!" for 0 .. $nd - 1;
		for my $i (0 .. $n - 1) {
			my $sz = int rand 16385; my $off = int rand 16384;
			my $f = sprintf "%s/d%03d/f%05d", $root, $i % $nd, $i;
			open my $o, ">", $f or die "$f: $!"; binmode $o;
			print $o substr($pool, $off, $sz); close $o or die "$f: $!";
		}' "$1" "$2" "$3"
}

# gen_tree_scale KIND DIR N SEED [LEN]: scale.sh's trees, files of 0-4096
# bytes from SEED, one perl process (1,000,000 files in about a minute on
# an ext4 image).  scale: 100 files in each leaf directory and 100 leaf
# directories in each directory above them (1,000,000 files: 100 top
# directories, 10,000 leaves); flat: every file in DIR; deep: N nested
# directories of one LEN-character name, a file at every 100th level and
# at the bottom, made by chdir, so the depth is not limited by PATH_MAX.
gen_tree_scale() {
	perl -e '
		use strict;
		my ($kind, $root, $n, $seed, $len) = @ARGV;
		srand($seed);
		my $pool = join "", map { chr int rand 256 } 1 .. 8192;
		sub wfile {
			my ($f, $sz) = @_;
			open my $o, ">", $f or die "$f: $!\n"; binmode $o;
			print $o substr($pool, int rand 4096, $sz);
			close $o or die "$f: $!\n";
		}
		mkdir $root or die "$root: $!\n";
		if ($kind eq "scale") {
			my $leaf;
			for my $i (0 .. $n - 1) {
				if ($i % 100 == 0) {
					my $g = int($i / 100);
					my $top = sprintf "%s/d%04d", $root, int($g / 100);
					if ($g % 100 == 0) { mkdir $top or die "$top: $!\n" }
					$leaf = sprintf "%s/e%02d", $top, $g % 100;
					mkdir $leaf or die "$leaf: $!\n";
				}
				wfile(sprintf("%s/f%02d", $leaf, $i % 100), int rand 4097);
			}
		} elsif ($kind eq "flat") {
			wfile(sprintf("%s/f%07d", $root, $_), int rand 4097) for 0 .. $n - 1;
		} else {
			chdir $root or die "$root: $!\n";
			my $name = "d" x $len;
			for my $l (1 .. $n) {
				mkdir $name or die "level $l: $!\n";
				chdir $name or die "level $l: $!\n";
				wfile("f", int rand 4097) if $l % 100 == 0 || $l == $n;
			}
		}' "$1" "$2" "$3" "$4" "${5:-1}"
}
