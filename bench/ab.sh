#!/usr/bin/env bash
# bench/ab.sh - two or more commands that copy one source tree, timed in
# the same rounds: an older build against a newer one, a program built on
# libsmartcp against smartcp.  The measurement rules of bench/bench.sh:
# before every timed run the previous destination is removed, `sync`,
# caches dropped, the source read once so it is cached (not with --cold),
# memory settled, the programs and their libraries read into the cache;
# every run gets a fresh destination name; the order rotates each round
# (A B C, B C A, ...).  Needs root (drop_caches, the tmpfs).  See
# bench/README.
set -euo pipefail
export LC_ALL=C

usage() {
	cat <<'EOF'
Usage: bench/ab.sh [OPTION]... --cmd LABEL=COMMAND --cmd LABEL=COMMAND...
  --cmd LABEL=COMMAND  a command to time (at least one; the first is the
                   base of the ratios).  COMMAND is split at blanks (no
                   quoting); the words SRC and DST become the source tree
                   and a new destination name.  Its output is discarded.
  --tree SHAPE:N   the source tree: bench:N, bench.sh's (N files of 0-16
                   KiB in 200 directories), or scale:N, scale.sh's (N
                   files of 0-4 KiB, 100 a directory, 100 directories a
                   directory above them); default bench:20000
  --fs WHERE       root: the scratch directory's own filesystem (default);
                   tmpfs: a tmpfs mounted in it.  The copies go to the
                   same filesystem
  --cold           nothing of the source cached before a run (default:
                   read once, warm)
  --runs N         rounds (default 5; env BENCH_RUNS)
  --settle MiB     memory touched before each run (0: off; env
                   BENCH_SETTLE; default 10 KiB an entry, 512-4096 MiB, at
                   most MemAvailable/4)
  --name NAME      the workload's name in the table and the TSV (default
                   SHAPE-N-WHERE, with -cold)
  --tsv FILE       the results as TSV too, every run's time
  --scratch DIR    parent of the scratch directory (default /var/tmp)
  --no-check       do not compare the copies with the source (diff -r)
  --no-strace      no syscall counts (one untimed strace -f -c run each)
  -h, --help       this help
EOF
}

# shellcheck disable=SC2034 # lib.sh names the script in its messages
BENCH_NAME=ab.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ---------------------------------------------------------------- options
CMDLINE="bench/ab.sh${*:+ $*}"
RUNS=${BENCH_RUNS:-5}
TREE=bench:20000
WHERE=root
COLD=0
SETTLE=${BENCH_SETTLE:-}
NAME=
TSV=
SCRATCH_PARENT=/var/tmp
DO_CHECK=1
DO_STRACE=1
declare -a LABELS=() CMDS=()
add_cmd() {
	[[ $1 == [!=]*=?* ]] || die "--cmd wants LABEL=COMMAND, got '$1'"
	LABELS+=("${1%%=*}") CMDS+=("${1#*=}")
}
bench_opt --cmd 'add_cmd()'
bench_opt --tree TREE
bench_opt --fs WHERE
bench_opt --cold COLD 1
bench_opt --runs RUNS
bench_opt --settle SETTLE
bench_opt --name NAME
bench_opt --tsv TSV
bench_opt --scratch SCRATCH_PARENT
bench_opt --no-check DO_CHECK 0
bench_opt --no-strace DO_STRACE 0
bench_parse "$@"

((${#CMDS[@]})) || { usage >&2; die "no --cmd given"; }
posint "$RUNS" || die "--runs must be a positive integer, got '$RUNS'"
SHAPE=${TREE%%:*} NFILES=${TREE#*:}
if [[ $SHAPE != bench && $SHAPE != scale ]] || ! posint "$NFILES"; then
	die "--tree: bench:N or scale:N, got '$TREE'"
fi
[[ $WHERE == root || $WHERE == tmpfs ]] || die "--fs: root or tmpfs, got '$WHERE'"
[[ -z $SETTLE || $SETTLE =~ ^[0-9]+$ ]] || die "--settle must be a number of MiB (0: off), got '$SETTLE'"
: "${NAME:=$SHAPE-$NFILES-$WHERE$( ((COLD)) && echo -cold)}"
[[ -z $TSV ]] || TSV=$(readlink -f "$TSV")
bench_need_root "drop_caches, the tmpfs"
have perl || die "perl is needed to make the tree"
[[ -x /usr/bin/time ]] || bench_apt_install "no peak RSS" time
((COLD == 0)) || have fio || bench_apt_install "no disk rate beside the cold rows" fio
have strace || { ((DO_STRACE)) && say "note: strace not installed; no syscall counts"; DO_STRACE=0; }

# Each command's program and the shared objects it loads: read into the
# cache before every run, so that no run pays for loading them from disk
# (after drop_caches the first start would).
declare -a PROGFILES=()
for c in "${CMDS[@]}"; do
	read -r -a w <<<"$c"
	p=$(command -v -- "${w[0]}") || die "--cmd: '${w[0]}' not found"
	PROGFILES+=("$(readlink -f -- "$p")")
	while read -r lib; do PROGFILES+=("$lib"); done < <(ldd "$p" 2>/dev/null |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
done

# ------------------------------------------------------- scratch, the tree
bench_scratch "$SCRATCH_PARENT" smartcp-ab
TIMEF=$SCRATCH/time.out RUNERR=$SCRATCH/run.err
if [[ $SHAPE == bench ]]; then
	NDIRS=200 ENTRIES=$((NFILES + 200)) KIB=$((NFILES * 12))
	DESC="$NFILES files of 0-16 KiB in $NDIRS dirs"
else
	ENTRIES=$((NFILES + NFILES / 100 + NFILES / 10000 + 1)) KIB=$((NFILES * 4))
	DESC="$NFILES files of 0-4 KiB, 100 a dir, 100 dirs a dir"
fi
TOP=$SCRATCH
if [[ $WHERE == tmpfs ]]; then
	TOP=$SCRATCH/t
	mkdir -p "$TOP"
	# the source and two copies (one being removed while the next is
	# made is never the case: removed first), in pages
	mount -t tmpfs -o "size=$((KIB * 3 / 1024 + 512))M,nr_inodes=$((ENTRIES * 3 + 10000))" ab-tmpfs "$TOP" ||
		die "mounting a tmpfs failed"
	MOUNTED+=("$TOP")
fi
SRC=$TOP/src OUT=$TOP/out
mkdir -p "$OUT"
say "[$NAME] making the tree: $DESC ..."
t0=$EPOCHSECONDS
if [[ $SHAPE == bench ]]; then gen_tree_bench "$SRC" "$NFILES" "$NDIRS"
else gen_tree_scale scale "$SRC" "$NFILES" 16016; fi
sync
say "[$NAME] made in $((EPOCHSECONDS - t0)) s"
if [[ -n $SETTLE ]]; then
	SETTLE_MIB=$((10#$SETTLE))
else
	SETTLE_MIB=$((ENTRIES * 10 / 1024))
	((SETTLE_MIB >= 512)) || SETTLE_MIB=512
	((SETTLE_MIB <= 4096)) || SETTLE_MIB=4096
	q=$(mem_quarter_mib)
	((SETTLE_MIB <= ${q:-0})) || SETTLE_MIB=${q:-0}
fi

# ------------------------------------------------------------------- runs
# words I SRC DST: command I's words, SRC and DST put in (into W).
words() {
	local x
	read -r -a W <<<"${CMDS[$1]}"
	for x in "${!W[@]}"; do
		case ${W[x]} in SRC) W[x]=$2 ;; DST) W[x]=$3 ;; esac
	done
}

LAST_DST=
prep() {
	if [[ -n $LAST_DST ]]; then rm -rf -- "$LAST_DST"; LAST_DST=; fi
	drop_caches
	# through cat: GNU tar does not read file data when writing to /dev/null
	((COLD)) || tar -C "$SRC" -cf - . | cat >/dev/null
	settle
	cat -- "${PROGFILES[@]}" >/dev/null
}

RUN_US=0 RUN_RSS=- RUN_RC=0
run_once() { # I DST
	local t0 t1 pfx=()
	RUN_RC=0 RUN_RSS=-
	: >"$TIMEF"
	[[ -x /usr/bin/time ]] && pfx=(/usr/bin/time -f %M -o "$TIMEF")
	words "$1" "$SRC" "$2"
	t0=$EPOCHREALTIME
	"${pfx[@]}" "${W[@]}" >/dev/null 2>"$RUNERR" || RUN_RC=$?
	t1=$EPOCHREALTIME
	RUN_US=$(us_between "$t0" "$t1")
	{ echo "### ${LABELS[$1]}: ${W[*]} (status $RUN_RC)"; head -n 20 "$RUNERR"; } >>"$ERRLOG"
	[[ -s $TIMEF ]] && RUN_RSS=$(tail -n 1 "$TIMEF")
	[[ $RUN_RSS =~ ^[0-9]+$ ]] || RUN_RSS=-
}

# strace_counts I -> "calls a file|the six most frequent, a file each"
strace_counts() {
	local out=$SCRATCH/strace.out d=$OUT/strace total
	words "$1" "$SRC" "$d"
	strace -f -c -S calls -o "$out" "${W[@]}" >/dev/null 2>>"$ERRLOG" || true
	rm -rf -- "$d"
	total=$(awk '$NF == "total" { print $4 }' "$out")
	[[ -n $total ]] || { echo "-|"; return; }
	printf '%s|' "$(awk -v t="$total" -v n="$NFILES" 'BEGIN { printf "%.2f", t / n }')"
	awk -v n="$NFILES" '$1 ~ /^[0-9.]+$/ && $NF != "total" && NF >= 5 {
		printf "%s %.2f, ", $NF, $4 / n; if (++k == 6) exit }' "$out" | sed 's/, $//'
}

START=$EPOCHSECONDS
N=${#CMDS[@]}
declare -A T=() TR=() RSS=() CHECK=() SYS=() TOP6=()
echo "smartcp A/B  $(date -u '+%Y-%m-%d %H:%M UTC')  kernel $(uname -r)  $(nproc) CPUs  load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: $CMDLINE"
for ((i = 0; i < N; i++)); do
	read -r -a w <<<"${CMDS[i]}"
	p=$(readlink -f -- "$(command -v -- "${w[0]}")")
	lib=$(ldd "$p" 2>/dev/null | awk '/libsmartcp/ { print "; " $1 " => " $3 }')
	echo "${LABELS[i]}: ${CMDS[i]} (sha256 $(sha256sum "$p" | cut -c1-12)$lib)"
done
echo "tree: $DESC in $(findmnt -no FSTYPE,SOURCE --target "$TOP" | head -n 1 | tr -s ' ' ' '); $( ((COLD)) && echo "COLD: caches dropped, source not read" || echo "warm: source read once") before each run; settle ${SETTLE_MIB} MiB"
for ((r = 0; r < RUNS; r++)); do
	for i in $(bench_order "$N" "$r"); do
		l=${LABELS[i]} dst=$OUT/dst.$r.$i
		say "[$NAME] round $((r + 1))/$RUNS: $l"
		prep
		run_once "$i" "$dst"
		LAST_DST=$dst
		((RUN_RC == 0)) && T[$l]+="$RUN_US " TR[$i.$r]=$RUN_US
		if [[ $RUN_RSS != - ]] && ((RUN_RSS > ${RSS[$l]:-0})); then RSS[$l]=$RUN_RSS; fi
		if ((RUN_RC)); then
			[[ ${CHECK[$l]:-} == FAILED* ]] ||
				CHECK[$l]="FAILED(rc=$RUN_RC: $(awk '{ print substr($0, 1, 160); exit }' "$RUNERR"))"
			say "!!!!!! $NAME: '$l' FAILED with status $RUN_RC"
		elif [[ -z ${CHECK[$l]:-} ]]; then
			CHECK[$l]=-
			if ((DO_CHECK)); then
				diff -r -q -- "$SRC" "$dst" >>"$ERRLOG" 2>&1 && CHECK[$l]=ok || CHECK[$l]=MISMATCH
				[[ ${CHECK[$l]} == ok ]] || say "!!!!!! MISMATCH: $NAME: '$l' made a copy that differs from the source"
			fi
		fi
	done
done
rm -rf -- "$LAST_DST"
if ((DO_STRACE)); then
	for ((i = 0; i < N; i++)); do
		say "[$NAME] strace -f -c: ${LABELS[i]}"
		st=$(strace_counts "$i")
		SYS[${LABELS[i]}]=${st%%|*} TOP6[${LABELS[i]}]=${st#*|}
	done
fi

# ---------------------------------------------------------------- results
declare -A MED=() MIN=() MAX=() OKRUNS=()
for l in "${LABELS[@]}"; do
	# shellcheck disable=SC2086 # the list of times, one a word
	set -- ${T[$l]:-}
	OKRUNS[$l]=$#
	md=- mn=- mx=-
	(($# == 0)) || read -r md mn mx <<<"$(stats "$@")"
	MED[$l]=$md MIN[$l]=$mn MAX[$l]=$mx
done
base=${LABELS[0]}
# paired I: the median over the rounds of command I's time / the first's
# in the same round (the two a few seconds apart, where the medians of
# the runs may come from minutes of different disk weather)
paired() {
	local r x=()
	for ((r = 0; r < RUNS; r++)); do
		[[ -n ${TR[$1.$r]:-} && -n ${TR[0.$r]:-} ]] && x+=("$(ratio "${TR[$1.$r]}" "${TR[0.$r]}")")
	done
	((${#x[@]})) || { echo -; return; }
	printf '%s\n' "${x[@]}" | sort -n | awk '{ v[NR] = $1 } END {
		printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
fmt='%-28s %9s %9s %9s %7s %7s %7s %8s %8s  %s\n'
echo ""
echo "== $NAME: $DESC; $RUNS rounds; ratios: each row / $base"
# shellcheck disable=SC2059 # the format is a variable on purpose
printf "$fmt" command 'median s' 'min s' 'max s' 'r(med)' 'r(min)' 'r(pair)' 'RSS KiB' sys/file check
PROBLEMS=0
[[ -z $TSV ]] || tsv_row workload command runs_ok median_s min_s max_s ratio_median ratio_min ratio_paired \
	ratio_of peak_rss_kib syscalls_per_file check times_s command_line >"$TSV"
for ((i = 0; i < N; i++)); do
	l=${LABELS[i]}
	rmd=$(ratio "${MED[$l]}" "${MED[$base]}") rmn=$(ratio "${MIN[$l]}" "${MIN[$base]}")
	rpr=$(paired "$i")
	((i)) || rmd=- rmn=- rpr=-
	c=${CHECK[$l]:--}
	[[ $c == ok || $c == - ]] || PROBLEMS=$((PROBLEMS + 1))
	# shellcheck disable=SC2059
	printf "$fmt" "$l" "$(sec "${MED[$l]}")" "$(sec "${MIN[$l]}")" "$(sec "${MAX[$l]}")" \
		"$rmd" "$rmn" "$rpr" "${RSS[$l]:--}" "${SYS[$l]:--}" "$c"
	# shellcheck disable=SC2086 # the list of times, one a word
	[[ -z $TSV ]] || tsv_row "$NAME" "$l" "${OKRUNS[$l]}" "$(sec "${MED[$l]}")" \
		"$(sec "${MIN[$l]}")" "$(sec "${MAX[$l]}")" "$rmd" "$rmn" "$rpr" "$( ((i)) && echo "$l / $base" || echo -)" \
		"${RSS[$l]:--}" "${SYS[$l]:--}" "$c" "$(csv_secs ${T[$l]:-})" "${CMDS[i]}" >>"$TSV"
done
((COLD == 0)) || echo "   $(disk_rate "$TOP") (after the runs)"
for l in "${LABELS[@]}"; do
	[[ -n ${TOP6[$l]:-} ]] && echo "   strace $l: ${SYS[$l]} syscalls/file; top: ${TOP6[$l]}"
done
echo ""
echo "total time: $((EPOCHSECONDS - START)) s (settling memory: $((SETTLE_US / 1000000)) s)"
cat <<'EOF'
Legend: median/min/max = wall seconds per run; each round runs every
  command once, the order rotating; before each run: the last copy removed,
  sync, drop_caches, the source read once (not when COLD), memory settled,
  the programs and their libraries read (untimed).  r(med), r(min) = this
  row / the first, of medians and of minimums; r(pair) = the median of
  the rounds' ratios, this row's run / the first's in the same round.
  RSS KiB = largest peak RSS over the runs (/usr/bin/time %M).  sys/file
  = system calls a file, one `strace -f -c` run.  check = the first copy
  compared with the source (diff -r).  Differences under ~10% are noise
  on this VM.
EOF
[[ -z $TSV ]] || say "TSV written to $TSV"
if ((PROBLEMS)); then
	echo "!!!!!! $PROBLEMS row(s) with MISMATCH or FAILED - see the check column"
	exit 1
fi
exit 0
