#!/usr/bin/env bash
# bench/bench.sh - measure smartcp side by side with cp, rsync, tar and cat.
#
# The measurement rules (a VM is noisy): before every timed run the
# previous destination is removed, `sync`, caches dropped, the source read
# once so it is cached, then N MiB of anonymous memory are touched and freed
# (--settle); every run gets a fresh destination name; tools alternate and
# the order rotates each round; medians, min-max and the ratio of minimums
# are reported.
# Needs root (loop mounts, drop_caches).  See bench/README.
set -euo pipefail
export LC_ALL=C

usage() {
	cat <<'EOF'
Usage: bench/bench.sh [OPTION]...
  --runs N         rounds per workload (default 5; env BENCH_RUNS)
  --size MiB       size of the large random file (default 1024; env BENCH_SIZE)
  --files N        files in the tree workloads (default 20000; env BENCH_FILES)
  --sparse-size MiB  apparent size of the sparse file (default 4096)
  --quick          --size 256 --runs 3 --files 5000 --sparse-size 1024
  --only LIST      comma-separated workloads or groups (env BENCH_ONLY):
                   ext4-same ext4-to-tmpfs tmpfs-to-ext4 btrfs-same xfs-same
                   btrfs-to-xfs tree-ext4 tree-tmpfs tree-btrfs tree-xfs
                   sparse-ext4 sparse-tmpfs verify-ext4 verify-tmpfs
                   root-tree cold-ext4 cold-root;
                   groups: files tree sparse verify, cold (cold-*),
                   root (root-tree cold-root), real (root and cold)
  --tsv FILE       also write the results as TSV to FILE (env BENCH_TSV)
  --smartcp PATH   binary to test (env SMARTCP; default ../src/smartcp next
                   to this script, else smartcp on PATH)
  --against PATH   another smartcp (an older build) run beside it in the
                   same rounds: rows "old smartcp ..." and their ratios
                   (env BENCH_AGAINST)
  --scratch DIR    parent of the scratch directory (default /var/tmp)
  --no-strace      skip the syscall counts of the tree workloads
  --settle MiB     before each timed run, touch and free this much anonymous
                   memory so the VM host backs it (0: off; env BENCH_SETTLE;
                   default min(4096, MemAvailable/4))
  -h, --help       this help
EOF
}

# shellcheck disable=SC2034 # lib.sh names the script in its messages
BENCH_NAME=bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ---------------------------------------------------------------- options
RUNS=${BENCH_RUNS:-5}
SIZE=${BENCH_SIZE:-1024}
NFILES=${BENCH_FILES:-20000}
SPARSE=${BENCH_SPARSE_SIZE:-4096}
ONLY=${BENCH_ONLY:-}
TSV=${BENCH_TSV:-}
SMARTCP=${SMARTCP:-}
AGAINST=${BENCH_AGAINST:-}
SCRATCH_PARENT=${BENCH_SCRATCH:-/var/tmp}
SETTLE=${BENCH_SETTLE:-}
DO_STRACE=1
NDIRS=200

quick() { SIZE=256 RUNS=3 NFILES=5000 SPARSE=1024; }
bench_opt --runs RUNS
bench_opt --size SIZE
bench_opt --files NFILES
bench_opt --sparse-size SPARSE
bench_opt --quick 'quick()' ''
bench_opt --only ONLY
bench_opt --tsv TSV
bench_opt --smartcp SMARTCP
bench_opt --against AGAINST
bench_opt --scratch SCRATCH_PARENT
bench_opt --no-strace DO_STRACE 0
bench_opt --settle SETTLE
bench_parse "$@"

for v in RUNS SIZE NFILES SPARSE; do
	posint "${!v}" || die "$v must be a positive integer, got '${!v}'"
done
((SPARSE >= 64)) || die "--sparse-size must be at least 64 MiB"
if [[ -z $SETTLE ]]; then
	# 1.5 GiB (size + 512 MiB) was measured too little: smartcp's 1 GiB
	# splice runs stayed bimodal (0.85-2.1 s) while 4 GiB gave 0.34-0.48 s.
	# Never so much that the cached source is pushed out.
	SETTLE=$(mem_quarter_mib)
	SETTLE=${SETTLE:-0}
	((SETTLE < 4096)) || SETTLE=4096
fi
[[ $SETTLE =~ ^[0-9]+$ ]] || die "--settle must be a number of MiB (0: off), got '$SETTLE'"
SETTLE=$((10#$SETTLE))
# shellcheck disable=SC2034 # what settle (lib.sh) touches
SETTLE_MIB=$SETTLE
bench_need_root "loop mounts, drop_caches"
bench_find_smartcp
[[ -z $AGAINST || -x $AGAINST ]] || die "--against: '$AGAINST' is not an executable"

ALL_WL=(ext4-same ext4-to-tmpfs tmpfs-to-ext4 btrfs-same xfs-same btrfs-to-xfs
	tree-ext4 tree-tmpfs tree-btrfs tree-xfs sparse-ext4 sparse-tmpfs verify-ext4 verify-tmpfs
	root-tree cold-ext4 cold-root)
groups_of() { # the groups a workload belongs to
	case $1 in
	tree-*) echo tree ;; sparse-*) echo sparse ;; verify-*) echo verify ;;
	root-tree) echo root real ;; cold-root) echo cold root real ;;
	cold-*) echo cold real ;; *) echo files ;;
	esac
}
declare -A SELECTED=()
if [[ -z $ONLY ]]; then
	for w in "${ALL_WL[@]}"; do SELECTED[$w]=1; done
else
	IFS=, read -r -a only_items <<<"$ONLY"
	for item in "${only_items[@]}"; do
		[[ -z $item ]] && continue
		hit=0
		for w in "${ALL_WL[@]}"; do
			if [[ $item == "$w" || " $(groups_of "$w") " == *" $item "* ]]; then SELECTED[$w]=1; hit=1; fi
		done
		((hit)) || die "unknown workload '$item' (see --help)"
	done
fi
selected() { [[ -n ${SELECTED[$1]:-} ]]; }

# ------------------------------------------------------------ tools needed
if ! have rsync || [[ ! -x /usr/bin/time ]]; then
	bench_apt_install "continuing without them" rsync time
fi
TIMECMD=()
if [[ -x /usr/bin/time ]]; then TIMECMD=(/usr/bin/time -f %M -o); fi
have rsync || say "note: rsync not installed; its rows are skipped"
have strace || { ((DO_STRACE)) && say "note: strace not installed; no syscall counts"; DO_STRACE=0; }
if [[ -n ${SELECTED[cold-ext4]:-}${SELECTED[cold-root]:-} ]] && ! have fio; then
	# the disk's random-read rate beside the cold rows
	bench_apt_install "the cold rows go without the disk's rate" fio
fi
have perl || die "perl is needed to generate the trees"

# ---------------------------------------------------------- scratch, mounts
# the binary pinned (copied there), the clean-up trap set
bench_scratch "$SCRATCH_PARENT" smartcp-bench
AGAINST_ORIG=$AGAINST
if [[ -n $AGAINST ]]; then
	# pinned as smartcp is: a rebuild during the run changes nothing
	cp -- "$AGAINST_ORIG" "$SCRATCH/smartcp-old"
	AGAINST=$SCRATCH/smartcp-old
fi
MNT=$SCRATCH/mnt
mkdir -p "$MNT"
TIMEF=$SCRATCH/time.out
# the "(C)" floor rows: bench/floor.c, built here (needs cc)
FLOOR=$SCRATCH/floor
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if have cc; then
	cc -O2 -o "$FLOOR" "$BENCH_DIR/floor.c" 2>>"$SCRATCH/cc.log" ||
		rm -f "$FLOOR"
fi
max() { local m=$1 x; for x; do ((x > m)) && m=$x; done; echo "$m"; }

need_fs() { # which filesystems the selected workloads use
	local fs=$1 w
	for w in "${!SELECTED[@]}"; do
		case $fs:$w in
		ext4:ext4-* | ext4:tmpfs-to-ext4 | ext4:tree-ext4 | ext4:sparse-* | ext4:verify-* | ext4:cold-ext4) return 0 ;;
		tmpfs:*tmpfs*) return 0 ;;
		btrfs:btrfs-* | btrfs:tree-btrfs) return 0 ;;
		xfs:xfs-* | xfs:*-to-xfs | xfs:tree-xfs) return 0 ;;
		esac
	done
	return 1
}

mount_loop() { # name MiB mkfs-command...
	local name=$1 mib=$2 img dev
	shift 2
	img=$SCRATCH/$name.img
	truncate -s "${mib}M" "$img"
	"$@" "$img" >/dev/null 2>&1 || { say "warning: '$* $img' failed; skipping $name"; rm -f "$img"; return 1; }
	dev=$(losetup --find --show "$img")
	LOOPS+=("$dev")
	mkdir -p "$MNT/$name"
	mount "$dev" "$MNT/$name" || { say "warning: mounting $name failed; skipping it"; return 1; }
	MOUNTED+=("$MNT/$name")
}

declare -A FS_OK=()
# Image sizes: the brief's sizes, grown when --size or --sparse-size need more
# (images are sparse files, so unused space costs nothing).  ext4 also holds a
# dense copy of the sparse file (cat, rsync without -S would write one).
EXT4_MIB=$(max 4096 $((2 * SIZE + 1024)) $((SIZE + SPARSE + 1024)))
BTRFS_MIB=$(max 6144 $((2 * SIZE + 2048)))
XFS_MIB=$(max 4096 $((2 * SIZE + 1024)))
TMPFS_MIB=$(max 6144 $((2 * SIZE + 1024)) $((SIZE + SPARSE + 1024)))

if need_fs ext4; then
	mount_loop ext4 "$EXT4_MIB" mkfs.ext4 -q -F && FS_OK[ext4]=1
fi
if need_fs btrfs; then
	if have mkfs.btrfs; then mount_loop btrfs "$BTRFS_MIB" mkfs.btrfs -q -f && FS_OK[btrfs]=1
	else say "note: mkfs.btrfs missing; btrfs workloads skipped"; fi
fi
if need_fs xfs; then
	if have mkfs.xfs; then mount_loop xfs "$XFS_MIB" mkfs.xfs -q -f -m reflink=1 && FS_OK[xfs]=1
	else say "note: mkfs.xfs missing; xfs workloads skipped"; fi
fi
if need_fs tmpfs; then
	mkdir -p "$MNT/tmpfs"
	mount -t tmpfs -o "size=${TMPFS_MIB}M" bench-tmpfs "$MNT/tmpfs" && MOUNTED+=("$MNT/tmpfs") && FS_OK[tmpfs]=1
fi

# ------------------------------------------------------------- data makers
make_random() { # path MiB
	[[ -e $1 ]] && return 0
	dd if=/dev/urandom of="$1" bs=1M count="$2" iflag=fullblock status=none
}

make_sparse() { # path MiB: 64 random 256 KiB chunks at spread offsets
	[[ -e $1 ]] && return 0
	local i step off
	truncate -s "${2}M" "$1"
	step=$(($2 * 1024 * 1024 / 64 / 262144)) # in 256 KiB blocks
	for ((i = 0; i < 64; i++)); do
		off=$((i * step + (i * 7) % (step > 1 ? step - 1 : 1)))
		dd if=/dev/urandom of="$1" bs=256K count=1 seek="$off" conv=notrunc status=none
	done
}

make_tree() { # dir: NFILES files of 0-16 KiB in NDIRS dirs, fixed seed
	[[ -e $1 ]] && return 0
	gen_tree_bench "$1" "$NFILES" "$NDIRS"
}

# ------------------------------------------------------------------- tools
tool_available() {
	case $1 in
	rsync*) have rsync ;;
	tar*) have tar ;;
	*"(C)") [[ -x $FLOOR ]] ;;
	*) return 0 ;;
	esac
}

# "create only": makes the tree SRC has at DST -- its directories, the
# names and the sizes of its files -- with bytes from memory, reading
# nothing: what creating the files costs the filesystem, a floor no
# copier of that tree goes below.  Its check compares names, types and
# sizes only.
# shellcheck disable=SC2016 # perl's variables
CREATE_ONLY='
	use strict; my $buf = "x" x (1 << 20);
	sub tree { my ($s, $d) = @_;
		mkdir $d or die "$d: $!";
		opendir my $h, $s or die "$s: $!";
		for my $e (grep { $_ ne "." && $_ ne ".." } readdir $h) {
			if (-d "$s/$e") { tree("$s/$e", "$d/$e"); next; }
			my $n = -s "$s/$e";
			open my $o, ">", "$d/$e" or die "$d/$e: $!";
			while ($n > 0) { my $k = $n < length $buf ? $n : length $buf;
				syswrite $o, $buf, $k or die "$d/$e: $!"; $n -= $k; }
			close $o or die "$d/$e: $!";
		} }
	tree(@ARGV);'

PFX=() # prefix for the command: /usr/bin/time ... or strace ...
run_tool() { # label src dst
	local l=$1 s=$2 d=$3
	case $l in
	smartcp) "${PFX[@]}" "$SMARTCP" "$s" "$d" ;;
	"smartcp -r") "${PFX[@]}" "$SMARTCP" -r "$s" "$d" ;;
	"smartcp -a") "${PFX[@]}" "$SMARTCP" -a "$s" "$d" ;;
	"smartcp -r -j1") "${PFX[@]}" "$SMARTCP" -r -j1 "$s" "$d" ;;
	"smartcp -r -jCPUS") "${PFX[@]}" "$SMARTCP" -r -j"$(nproc)" "$s" "$d" ;;
	"old smartcp") "${PFX[@]}" "$AGAINST" "$s" "$d" ;;
	"old smartcp -r") "${PFX[@]}" "$AGAINST" -r "$s" "$d" ;;
	"old smartcp -a") "${PFX[@]}" "$AGAINST" -a "$s" "$d" ;;
	"smartcp --verify") "${PFX[@]}" "$SMARTCP" --verify "$s" "$d" ;;
	"smartcp --sync") "${PFX[@]}" "$SMARTCP" --sync "$s" "$d" ;;
	"smartcp --sync --verify") "${PFX[@]}" "$SMARTCP" --sync --verify "$s" "$d" ;;
	"create only") "${PFX[@]}" perl -e "$CREATE_ONLY" "$s" "$d" ;;
	"create only (C)") "${PFX[@]}" "$FLOOR" create "$s" "$d" ;;
	"copy only (C)") "${PFX[@]}" "$FLOOR" copy "$s" "$d" ;;
	"checked copy (C)") "${PFX[@]}" "$FLOOR" checked "$s" "$d" ;;
	cp) "${PFX[@]}" cp "$s" "$d" ;;
	"cp --reflink=never") "${PFX[@]}" cp --reflink=never "$s" "$d" ;;
	"cp -r") "${PFX[@]}" cp -r "$s" "$d" ;;
	"cp -r --reflink=never") "${PFX[@]}" cp -r --reflink=never "$s" "$d" ;;
	"cp -a") "${PFX[@]}" cp -a "$s" "$d" ;;
	"rsync -a --whole-file")
		if [[ -d $s ]]; then "${PFX[@]}" rsync -a --whole-file "$s/" "$d/"
		else "${PFX[@]}" rsync -a --whole-file "$s" "$d"; fi ;;
	"rsync -aS --whole-file") "${PFX[@]}" rsync -aS --whole-file "$s" "$d" ;;
	"cat >" | "cat > (dense)") "${PFX[@]}" cat "$s" >"$d" ;;
	"tar | tar")
		mkdir "$d"
		# shellcheck disable=SC2016 # expanded by the inner bash
		"${PFX[@]}" bash -c 'tar -C "$1" -cf - . | tar -C "$2" -xf -' bash "$s" "$d" ;;
	*) die "internal: unknown tool '$l'" ;;
	esac
}

LAST_DST=
COLD=0 # 1: the cold workloads, whose source is not read before the run
prep() { # src: remove the last destination, sync, drop caches, cache src
	if [[ -n $LAST_DST ]]; then rm -rf -- "$LAST_DST"; LAST_DST=; fi
	drop_caches
	if ((COLD)); then
		: # nothing of the source cached: what copying a backup costs
	elif [[ -d $1 ]]; then
		# through cat: GNU tar does not read file data when writing to /dev/null
		tar -C "$1" -cf - . | cat >/dev/null
	else
		cat -- "$1" >/dev/null
	fi
	settle
	# Warm every program's code and libraries too, the same for all:
	# after drop_caches the first start of a binary reads its shared
	# libraries from disk, which is not what a copy costs.
	"$SMARTCP" --version >/dev/null
	cp --version >/dev/null
	if have rsync; then rsync --version >/dev/null; fi
	tar --version >/dev/null
}

RUN_US=0 RUN_RSS=- RUN_RC=0
run_once() { # label src dst
	local t0 t1
	RUN_RC=0 RUN_RSS=-
	: >"$TIMEF"
	PFX=()
	((${#TIMECMD[@]})) && PFX=("${TIMECMD[@]}" "$TIMEF")
	echo "### $1: $2 -> $3" >>"$ERRLOG"
	t0=$EPOCHREALTIME
	run_tool "$1" "$2" "$3" >/dev/null 2>>"$ERRLOG" || RUN_RC=$?
	t1=$EPOCHREALTIME
	RUN_US=$(us_between "$t0" "$t1")
	if [[ -s $TIMEF ]]; then RUN_RSS=$(tail -n 1 "$TIMEF"); fi
	[[ $RUN_RSS =~ ^[0-9]+$ ]] || RUN_RSS=-
}

check_copy() { # src dst [label] -> ok | MISMATCH
	if [[ ${3:-} == "create only"* ]]; then
		diff -q <(cd -- "$1" && find . -printf '%y %s %p\n' | sort) \
			<(cd -- "$2" && find . -printf '%y %s %p\n' | sort) \
			>>"$ERRLOG" 2>&1 && echo ok || echo MISMATCH
	elif [[ -d $1 ]]; then
		diff -r -q -- "$1" "$2" >>"$ERRLOG" 2>&1 && echo ok || echo MISMATCH
	else
		cmp -s -- "$1" "$2" && echo ok || echo MISMATCH
	fi
}

strace_per_file() { # label src dstdir nfiles -> "calls/file|top list"
	local l=$1 out=$SCRATCH/strace.out d total
	d="$3/strace.${l// /_}.$RANDOM"
	PFX=(strace -f -c -S calls -o "$out")
	run_tool "$l" "$2" "$d" >/dev/null 2>>"$ERRLOG" || true
	rm -rf -- "$d"
	total=$(awk '$NF == "total" { print $4 }' "$out")
	[[ -n $total ]] || { echo "-|"; return; }
	printf '%s|' "$(awk -v t="$total" -v n="$4" 'BEGIN { printf "%.2f", t / n }')"
	awk -v n="$4" '$1 ~ /^[0-9.]+$/ && $NF != "total" && NF >= 5 { printf "%s %.2f, ", $NF, $4 / n; if (++k == 6) exit }' "$out" | sed 's/, $//'
}

smartcp_roads() { # src dstdir: which roads smartcp takes (untimed --json run)
	local d="$2/roads.$RANDOM" r
	r=$("$SMARTCP" -r --json "$1" "$d" 2>>"$ERRLOG" | tail -n 1 |
		perl -ne 'while (/"(\w+)":\{"files":(\d+),"bytes":(\d+)\}/g) { print "$1($2) " if $2 }') || true
	rm -rf -- "$d"
	echo "${r% }"
}

# ----------------------------------------------------------- bookkeeping
TABLE=$SCRATCH/table.txt
TSVTMP=$SCRATCH/results.tsv
: >"$TABLE"
tsv_row workload tool runs median_s min_s max_s ratio_median ratio_min ratio_of \
	peak_rss_kib du_kib syscalls_per_file check times_s >"$TSVTMP"
PROBLEMS=0
out() { printf '%s\n' "$*" | tee -a "$TABLE"; }

# bench NAME DESCRIPTION SRC DSTDIR ROW...
#   ROW = "label;A;B": the row's ratio is median(A)/median(B) (empty: none)
bench() {
	local name=$1 desc=$2 src=$3 dstdir=$4
	shift 4
	local -a labels=() ra=() rb=()
	local row l a b
	for row; do
		IFS=';' read -r l a b <<<"$row"
		tool_available "$l" || continue
		labels+=("$l") ra+=("$a") rb+=("$b")
	done
	local n=${#labels[@]} r i dst
	local -A T=() RSS=() CHECK=() DU=() SYS=() TOP=() MED=() MIN=()
	local sparse=0 tree=0
	[[ $name == sparse-* ]] && sparse=1
	[[ -d $src ]] && tree=1
	mkdir -p "$dstdir"
	for ((r = 0; r < RUNS; r++)); do
		for i in $(bench_order "$n" "$r"); do
			l=${labels[i]}
			dst="$dstdir/dst.$name.$r.$i"
			say "[$name] round $((r + 1))/$RUNS: $l"
			prep "$src"
			run_once "$l" "$src" "$dst"
			LAST_DST=$dst
			# failed runs are reported in the check column, not timed
			((RUN_RC == 0)) && T[$l]+="$RUN_US "
			if [[ $RUN_RSS != - ]] && ((RUN_RSS > ${RSS[$l]:-0})); then RSS[$l]=$RUN_RSS; fi
			if ((RUN_RC != 0)); then
				CHECK[$l]="FAILED(rc=$RUN_RC)"
				say "!!!!!! $name: '$l' FAILED with status $RUN_RC"
			elif ((r == 0)); then
				CHECK[$l]=$(check_copy "$src" "$dst" "$l")
				[[ ${CHECK[$l]} == ok ]] || say "!!!!!! MISMATCH: $name: '$l' produced a copy that differs from the source"
				if ((sparse)); then DU[$l]=$(du -k "$dst" | cut -f1); fi
			fi
		done
	done
	rm -rf -- "$LAST_DST"; LAST_DST=
	local roads
	roads=$(smartcp_roads "$src" "$dstdir")
	if ((tree && DO_STRACE && !COLD)) && [[ $name == tree-* ]]; then
		local st
		for l in "smartcp -r" "cp -r" "smartcp -a" "cp -a"; do
			say "[$name] strace -c: $l"
			st=$(strace_per_file "$l" "$src" "$dstdir" "$NFILES")
			SYS[$l]=${st%%|*} TOP[$l]=${st#*|}
		done
	fi
	# statistics
	local -a st_
	local -A OKRUNS=()
	for l in "${labels[@]}"; do
		# shellcheck disable=SC2086 # word splitting of the list of times is wanted
		set -- ${T[$l]:-}
		OKRUNS[$l]=$#
		if (($#)); then
			read -r -a st_ <<<"$(stats "$@")"
			MED[$l]=${st_[0]} MIN[$l]=${st_[1]}
			T[$l]="${st_[*]}|${T[$l]}"
		else
			T[$l]="- - -|"
		fi
	done
	out ""
	out "== $name: $desc; $RUNS rounds${roads:+; smartcp road: $roads}"
	out "$(printf '%-24s %9s %9s %9s %7s %7s  %-36s %8s %8s %8s  %s' \
		tool 'median s' 'min s' 'max s' 'r(med)' 'r(min)' 'ratio is' 'RSS KiB' 'du KiB' 'sys/file' check)"
	local md mn mx rmd rmn rof times c
	for ((i = 0; i < n; i++)); do
		l=${labels[i]} a=${ra[i]} b=${rb[i]}
		read -r md mn mx <<<"${T[$l]%%|*}"
		times=${T[$l]#*|}
		rmd=- rmn=- rof=-
		if [[ -n $a && -n ${MED[$a]:-} && -n ${MED[$b]:-} ]]; then
			rmd=$(ratio "${MED[$a]}" "${MED[$b]}") rmn=$(ratio "${MIN[$a]}" "${MIN[$b]}") rof="$a / $b"
		fi
		c=${CHECK[$l]:-ok}
		[[ $c == ok ]] || PROBLEMS=$((PROBLEMS + 1))
		out "$(printf '%-24s %9s %9s %9s %7s %7s  %-36s %8s %8s %8s  %s' \
			"$l" "$(sec "$md")" "$(sec "$mn")" "$(sec "$mx")" "$rmd" "$rmn" "$rof" \
			"${RSS[$l]:--}" "${DU[$l]:--}" "${SYS[$l]:--}" "$c")"
		# shellcheck disable=SC2086 # the list of times, one a word
		tsv_row "$name" "$l" "${OKRUNS[$l]}" \
			"$(sec "$md")" "$(sec "$mn")" "$(sec "$mx")" "$rmd" "$rmn" "$rof" "${RSS[$l]:--}" \
			"${DU[$l]:--}" "${SYS[$l]:--}" "$c" "$(csv_secs $times)" >>"$TSVTMP"
	done
	if ((sparse)); then out "   (source: apparent $(du -k --apparent-size "$src" | cut -f1) KiB, allocated $(du -k "$src" | cut -f1) KiB)"; fi
	for l in "smartcp -r" "cp -r" "smartcp -a" "cp -a"; do
		[[ -n ${TOP[$l]:-} ]] && out "   strace $l: ${SYS[$l]} syscalls/file; top: ${TOP[$l]}"
	done
	return 0
}

FILE_ROWS=("smartcp;;" "cp;smartcp;cp" "cp --reflink=never;smartcp;cp --reflink=never"
	"rsync -a --whole-file;smartcp;rsync -a --whole-file" "cat >;smartcp;cat >")
TREE_ROWS=("smartcp -r;;" "cp -r;smartcp -r;cp -r" "cp -r --reflink=never;smartcp -r;cp -r --reflink=never"
	"smartcp -a;;" "cp -a;smartcp -a;cp -a" "rsync -a --whole-file;smartcp -a;rsync -a --whole-file"
	"tar | tar;smartcp -a;tar | tar")
SPARSE_ROWS=("smartcp;;" "cp;smartcp;cp" "cp --reflink=never;smartcp;cp --reflink=never"
	"rsync -aS --whole-file;smartcp;rsync -aS --whole-file" "cat > (dense);smartcp;cat > (dense)")
# --verify makes the copy durable (fdatasync) before reading it back, which
# a plain copy never waits for; the --sync pair shows the cost of the
# reading back alone.
VERIFY_ROWS=("smartcp;;" "smartcp --verify;smartcp --verify;smartcp"
	"smartcp --sync;;" "smartcp --sync --verify;smartcp --sync --verify;smartcp --sync")

# The real-disk rows: one tree's copy by the default -j, by -j1 and by cp.
# -jCPUS: one worker a CPU, the default where ext4 has a journal.  "create
# only": the same tree written from memory, the floor (CREATE_ONLY).  The
# "(C)" rows are bench/floor.c on one thread: "create only (C)" the same
# with the fewest system calls; "copy only (C)" the fewest calls of a copy
# that reads (6 a file); "checked copy (C)" that and the two checks smartcp
# makes against a file changing while it is copied (8 a file).
ROOT_ROWS=("smartcp -r;;" "cp -r;smartcp -r;cp -r" "smartcp -r -j1;smartcp -r;smartcp -r -j1"
	"smartcp -r -jCPUS;smartcp -r;smartcp -r -jCPUS"
	"create only;smartcp -r;create only"
	"create only (C);smartcp -r;create only (C)"
	"copy only (C);smartcp -r;copy only (C)"
	"checked copy (C);smartcp -r;checked copy (C)")
# --against: the older build in the same rounds, its ratios beside cp's.
if [[ -n $AGAINST ]]; then
	FILE_ROWS+=("old smartcp;smartcp;old smartcp")
	SPARSE_ROWS+=("old smartcp;smartcp;old smartcp")
	TREE_ROWS+=("old smartcp -r;smartcp -r;old smartcp -r"
		"old smartcp -a;smartcp -a;old smartcp -a")
	ROOT_ROWS+=("old smartcp -r;smartcp -r;old smartcp -r")
fi

fs_journal() { # dir -> "ext4 on /dev/vda, no journal" and the like
	local dir=$1 type src dev feat j=
	type=$(findmnt -no FSTYPE --target "$dir" 2>/dev/null | head -n 1)
	src=$(findmnt -no SOURCE --target "$dir" 2>/dev/null | head -n 1)
	if [[ $type == ext[34] ]]; then
		# the superblock's features when the device can be read; else
		# what the kernel says: ext4 names the journal thread of a
		# mounted filesystem in /sys/fs/ext4/DEV/journal_task, and
		# "<none>" when it has no journal
		feat=$(dumpe2fs -h "$src" 2>/dev/null | sed -n 's/^Filesystem features://p')
		dev=$(basename -- "$(readlink -f -- "$src" 2>/dev/null || echo "$src")")
		if [[ -n $feat ]]; then
			[[ " $feat " == *" has_journal "* ]] && j=journal || j="no journal"
		elif [[ -r /sys/fs/ext4/$dev/journal_task ]]; then
			[[ $(cat "/sys/fs/ext4/$dev/journal_task") == "<none>" ]] && j="no journal" || j=journal
		elif compgen -G "/proc/fs/jbd2/$dev-*" >/dev/null; then
			j=journal
		else
			j="journal unknown"
		fi
	fi
	echo "${type:-?} on ${src:-?}${j:+, $j}"
}

fs_ready() { # fs... : all mounted?
	local f
	for f; do [[ -n ${FS_OK[$f]:-} ]] || return 1; done
}
skip() { out ""; out "== $1: skipped ($2)"; }

# ----------------------------------------------------------------- header
START=$EPOCHSECONDS
{
	echo "smartcp benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')  kernel $(uname -r)  $(nproc) CPUs"
	echo "smartcp: $SMARTCP_ORIG ($("$SMARTCP" --version 2>/dev/null | head -n 1), sha256 $(sha256sum "$SMARTCP" | cut -c1-12), copied to scratch)"
	[[ -z $AGAINST ]] || echo "old smartcp: $AGAINST_ORIG ($("$AGAINST" --version 2>/dev/null | head -n 1), sha256 $(sha256sum "$AGAINST" | cut -c1-12), copied to scratch)"
	echo "peers: $(cp --version | head -n 1); $(have rsync && rsync --version | head -n 1 | awk '{ print "rsync", $3 }'); $(tar --version | head -n 1)"
	echo "settings: runs=$RUNS size=${SIZE}MiB files=$NFILES sparse=${SPARSE}MiB settle=$( ((SETTLE)) && echo "${SETTLE}MiB" || echo off) scratch=$SCRATCH"
	echo "images: ext4 ${EXT4_MIB}M, btrfs ${BTRFS_MIB}M, xfs ${XFS_MIB}M (reflink=1), tmpfs ${TMPFS_MIB}M"
} | tee -a "$TABLE"

E=$MNT/ext4 B=$MNT/btrfs X=$MNT/xfs M=$MNT/tmpfs
big="${SIZE} MiB random file"

for w in "${ALL_WL[@]}"; do
	selected "$w" || continue
	case $w in
	ext4-same)
		fs_ready ext4 || { skip "$w" "no ext4"; continue; }
		make_random "$E/big" "$SIZE"
		bench "$w" "$big, ext4 -> same ext4" "$E/big" "$E/out" "${FILE_ROWS[@]}" ;;
	ext4-to-tmpfs)
		fs_ready ext4 tmpfs || { skip "$w" "no ext4 or tmpfs"; continue; }
		make_random "$E/big" "$SIZE"
		bench "$w" "$big, ext4 -> tmpfs" "$E/big" "$M/out" "${FILE_ROWS[@]}" ;;
	tmpfs-to-ext4)
		fs_ready ext4 tmpfs || { skip "$w" "no ext4 or tmpfs"; continue; }
		make_random "$M/big" "$SIZE"
		bench "$w" "$big, tmpfs -> ext4" "$M/big" "$E/out" "${FILE_ROWS[@]}"
		rm -f "$M/big" ;;
	btrfs-same)
		fs_ready btrfs || { skip "$w" "no btrfs"; continue; }
		make_random "$B/big" "$SIZE"
		bench "$w" "$big, btrfs -> same btrfs (clone expected)" "$B/big" "$B/out" "${FILE_ROWS[@]}" ;;
	xfs-same)
		fs_ready xfs || { skip "$w" "no xfs"; continue; }
		make_random "$X/big" "$SIZE"
		bench "$w" "$big, xfs reflink=1 -> same xfs (clone expected)" "$X/big" "$X/out" "${FILE_ROWS[@]}"
		rm -f "$X/big" ;;
	btrfs-to-xfs)
		fs_ready btrfs xfs || { skip "$w" "no btrfs or xfs"; continue; }
		make_random "$B/big" "$SIZE"
		bench "$w" "$big, btrfs -> xfs" "$B/big" "$X/out" "${FILE_ROWS[@]}" ;;
	tree-ext4 | tree-tmpfs | tree-btrfs | tree-xfs)
		f=${w#tree-}
		fs_ready "$f" || { skip "$w" "no $f"; continue; }
		say "[$w] generating $NFILES files ..."
		make_tree "$MNT/$f/tree"
		bench "$w" "$NFILES files of 0-16 KiB in $NDIRS dirs, $f -> same $f" \
			"$MNT/$f/tree" "$MNT/$f/tree-out" "${TREE_ROWS[@]}"
		rm -rf -- "$MNT/$f/tree" ;;
	sparse-ext4 | sparse-tmpfs)
		f=${w#sparse-}
		fs_ready ext4 "$f" || { skip "$w" "no ext4 or $f"; continue; }
		make_sparse "$E/sparse" "$SPARSE"
		bench "$w" "${SPARSE} MiB sparse file, 16 MiB data in 64 extents, ext4 -> $f" \
			"$E/sparse" "$MNT/$f/sparse-out" "${SPARSE_ROWS[@]}" ;;
	root-tree)
		mkdir -p "$SCRATCH/root"
		say "[$w] generating $NFILES files ..."
		make_tree "$SCRATCH/root/tree"
		bench "$w" "$NFILES files of 0-16 KiB in $NDIRS dirs, warm, the scratch dir's own filesystem ($(fs_journal "$SCRATCH"))" \
			"$SCRATCH/root/tree" "$SCRATCH/root/out" "${ROOT_ROWS[@]}"
		rm -rf -- "$SCRATCH/root/tree" ;;
	cold-ext4 | cold-root)
		if [[ $w == cold-ext4 ]]; then
			fs_ready ext4 || { skip "$w" "no ext4"; continue; }
			top=$E where="ext4 image ($(fs_journal "$E"))"
		else
			top=$SCRATCH/root where="the scratch dir's own filesystem ($(fs_journal "$SCRATCH"))"
			mkdir -p "$top"
		fi
		say "[$w] generating $NFILES files ..."
		make_tree "$top/cold-tree"
		COLD=1
		bench "$w" "$NFILES files of 0-16 KiB in $NDIRS dirs, COLD (caches dropped, source not read), $where" \
			"$top/cold-tree" "$top/cold-out" "${ROOT_ROWS[@]}"
		COLD=0
		out "   $(disk_rate "$SCRATCH")"
		rm -rf -- "$top/cold-tree" ;;
	verify-ext4 | verify-tmpfs)
		f=${w#verify-}
		fs_ready ext4 "$f" || { skip "$w" "no ext4 or $f"; continue; }
		make_random "$E/big" "$SIZE"
		bench "$w" "$big, ext4 -> $f, --verify vs plain" "$E/big" "$MNT/$f/verify-out" "${VERIFY_ROWS[@]}" ;;
	esac
done

{
	echo ""
	echo "total time: $((EPOCHSECONDS - START)) s$( ((SETTLE)) && echo " (of which settle, ${SETTLE} MiB before each run: $((SETTLE_US / 1000000)) s)")"
	cat <<'EOF'
Legend: median/min/max = wall seconds per run (includes ~1 ms process start);
  each round runs every tool once, order rotated per round; before each run:
  old destination removed, sync, drop_caches, source read once (cached;
  not for the COLD workloads), then --settle MiB of memory touched and
  freed (untimed).  root-tree and cold-root copy in the scratch directory's
  own filesystem (/var/tmp here: the machine's disk, not a loop image).
  r(med), r(min) = ratio of medians / of minimums, as named in "ratio is":
  < 1 means smartcp is faster than that peer (verify rows: cost of --verify).
  Differences under ~10% are noise on this VM (see shared/benchmarking.md).
  RSS KiB = largest peak RSS over runs (/usr/bin/time %M; tar|tar: largest
  process).  du KiB = disk usage of the copy (sparse workloads).
  sys/file = syscalls per file from one `strace -f -c` run (tree workloads).
  check = content compared once per tool (cmp / diff -r), untimed; for
  "create only" (the tree written from memory, nothing read: the floor of
  any copy into that filesystem; "(C)": bench/floor.c, one fstatat,
  openat, write and close a file) names, types and sizes.  "copy only (C)",
  "checked copy (C)": bench/floor.c's bare copier, without and with
  smartcp's checks for a changing file (6 and 8 calls a file).
EOF
} | tee -a "$TABLE"

if [[ -n $TSV ]]; then cp -- "$TSVTMP" "$TSV" && say "TSV written to $TSV"; fi
if ((PROBLEMS)); then
	echo "!!!!!! $PROBLEMS row(s) with MISMATCH or FAILED - see the check column" | tee -a "$TABLE"
	exit 1
fi
exit 0
