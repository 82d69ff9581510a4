#!/usr/bin/env bash
# bench/scale.sh - how smartcp's cost grows with the tree, next to GNU cp.
#
# Issue 16: trees of 20,000, 200,000 and 1,000,000 small files (tmpfs and a
# journaled ext4 loop image), one directory of 200,000 entries and a tree
# 2,000 levels deep; time per entry, syscalls per entry and peak RSS for
# each, an SVG chart of the curves (bench/scale-svg.awk) and the issue's
# targets checked at the end.  The measurement rules of bench/bench.sh:
# before every timed run the previous destination is removed, `sync`,
# caches dropped, the source read once so it is cached,
# memory settled; every run gets a fresh destination name; smartcp and cp
# alternate, the order rotating each round.  The source trees are made once
# and kept in an ext4 image in a cache directory.  Needs root (loop mounts,
# drop_caches).  See bench/README.
set -euo pipefail
export LC_ALL=C

usage() {
	cat <<'EOF'
Usage: bench/scale.sh [OPTION]...
  --sizes LIST     files in the scale trees, comma-separated
                   (default 20000,200000,1000000; env BENCH_SIZES)
  --runs N         rounds per workload (default 5; env BENCH_RUNS)
  --fs LIST        filesystems: tmpfs,ext4 (default both)
  --only LIST      workloads: scale,flat,deep (default all; env BENCH_ONLY)
  --flat N         entries of the one-directory workload (default 200000)
  --deep N         levels of the deep tree (default 2000)
  --deep-name-len L  characters in each directory name of the deep tree
                   (default 1: 2,000 levels make paths of ~4,000 bytes,
                   under PATH_MAX; 3 makes them ~8,000 bytes, past it)
  --quick          --sizes 2000,20000 --runs 3 --flat 20000 --deep 500
  --cache DIR      where the ext4 image holding the source trees is kept
                   between runs (default /var/tmp/smartcp-scale)
  --scratch DIR    parent of the scratch directory (default $TMPDIR or
                   /var/tmp)
  --smartcp PATH   binary to test (env SMARTCP; default ../src/smartcp next
                   to this script, else smartcp on PATH)
  --tsv FILE       results as TSV (default scale.tsv in the current
                   directory); the chart goes next to it, FILE minus .tsv
                   plus .svg
  --no-strace      skip the syscall counts (one untimed strace -f -c run
                   per tool and workload)
  --settle MiB     before each timed run, touch and free this much anonymous
                   memory so the VM host backs it (0: off; env BENCH_SETTLE;
                   default per workload: 10 KiB an entry, 512-4096 MiB,
                   at most MemAvailable/4)
  -h, --help       this help
EOF
}

# shellcheck disable=SC2034 # lib.sh names the script in its messages
BENCH_NAME=scale.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ---------------------------------------------------------------- options
CMDLINE="bench/scale.sh${*:+ $*}"
SIZES=${BENCH_SIZES:-20000,200000,1000000}
RUNS=${BENCH_RUNS:-5}
FSLIST=tmpfs,ext4
ONLY=${BENCH_ONLY:-scale,flat,deep}
FLAT=200000
DEEP=2000
DEEP_LEN=1
CACHE=/var/tmp/smartcp-scale
SCRATCH_PARENT=${BENCH_SCRATCH:-${TMPDIR:-/var/tmp}}
SMARTCP=${SMARTCP:-}
TSV=${BENCH_TSV:-scale.tsv}
DO_STRACE=1
SETTLE=${BENCH_SETTLE:-}

quick() { SIZES=2000,20000 RUNS=3 FLAT=20000 DEEP=500; }
bench_opt --sizes SIZES
bench_opt --runs RUNS
bench_opt --fs FSLIST
bench_opt --only ONLY
bench_opt --flat FLAT
bench_opt --deep DEEP
bench_opt --deep-name-len DEEP_LEN
bench_opt --quick 'quick()' ''
bench_opt --cache CACHE
bench_opt --scratch SCRATCH_PARENT
bench_opt --smartcp SMARTCP
bench_opt --tsv TSV
bench_opt --no-strace DO_STRACE 0
bench_opt --settle SETTLE
bench_parse "$@"

for v in RUNS FLAT DEEP DEEP_LEN; do
	posint "${!v}" || die "$v must be a positive integer, got '${!v}'"
done
IFS=, read -r -a SIZE_LIST <<<"$SIZES"
((${#SIZE_LIST[@]})) || die "--sizes is empty"
for n in "${SIZE_LIST[@]}"; do posint "$n" || die "--sizes: '$n' is not a positive integer"; done
mapfile -t SIZE_LIST < <(printf '%s\n' "${SIZE_LIST[@]}" | sort -n -u)
IFS=, read -r -a FS_LIST <<<"$FSLIST"
for f in "${FS_LIST[@]}"; do [[ $f == tmpfs || $f == ext4 ]] || die "--fs: unknown filesystem '$f' (tmpfs, ext4)"; done
IFS=, read -r -a ONLY_LIST <<<"$ONLY"
declare -A WANT=()
for w in "${ONLY_LIST[@]}"; do
	[[ $w == scale || $w == flat || $w == deep ]] || die "--only: unknown workload '$w' (scale, flat, deep)"
	WANT[$w]=1
done
if [[ -n $SETTLE ]]; then
	[[ $SETTLE =~ ^[0-9]+$ ]] || die "--settle must be a number of MiB (0: off), got '$SETTLE'"
	SETTLE=$((10#$SETTLE))
fi
[[ $TSV == *.tsv ]] && SVG=${TSV%.tsv}.svg || SVG=$TSV.svg
bench_need_root "loop mounts, drop_caches"
bench_find_smartcp
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SVG_AWK=$HERE/scale-svg.awk
TSV=$(readlink -f "$TSV")
SVG=$(readlink -f "$SVG")

# ------------------------------------------------------------ tools needed
if [[ ! -x /usr/bin/time ]]; then
	bench_apt_install "no peak RSS" time
fi
TIMECMD=()
if [[ -x /usr/bin/time ]]; then TIMECMD=(/usr/bin/time -f %M -o); fi
have strace || { ((DO_STRACE)) && say "note: strace not installed; no syscall counts"; DO_STRACE=0; }
have perl || die "perl is needed to generate and check the trees"
perl -MDigest::MD5 -e 1 2>/dev/null || die "perl's Digest::MD5 is needed to check the copies"
for t in mkfs.ext4 losetup flock; do have "$t" || die "$t is needed"; done

# ------------------------------------------------- cache, scratch, cleanup
mkdir -p "$CACHE"
CACHE=$(readlink -f "$CACHE")
exec 9>"$CACHE/lock"
flock -n 9 || die "another scale.sh is using $CACHE"
# the binary pinned (copied there), the clean-up trap set
bench_scratch "$SCRATCH_PARENT" smartcp-scale
# Short mount points: the deep tree's paths are measured from them.
E=$SCRATCH/e T=$SCRATCH/t
TIMEF=$SCRATCH/time.out
RUNERR=$SCRATCH/run.err

# shellcheck disable=SC2317 # run by lib.sh's clean-up
bench_cleanup_hook() {
	# The cache image keeps only the source trees; after an interrupt
	# the destinations are left for the next run to remove (1,000,000
	# files take a while).
	if [[ -n ${FS_OK[ext4]:-} ]] && ((!BENCH_INTERRUPTED)); then
		rm -rf -- "$E/out"
		fstrim "$E" >/dev/null 2>&1 # give freed blocks back to the sparse image
	fi
}

# ----------------------------------------------------------- the trees
# A tree is named by its parameters; a stamp file next to it in the cache
# image holds them, so a tree made with other parameters (or an older
# generator) is made again.  GEN is bumped whenever the generator changes.
GEN=1
SEED=16016
tree_key() { # kind n [name-len] -> the stamp line
	case $1 in
	scale) echo "gen=$GEN kind=scale files=$2 per_dir=100 dirs_per_dir=100 sizes=0-4096 seed=$SEED" ;;
	flat) echo "gen=$GEN kind=flat files=$2 sizes=0-4096 seed=$SEED" ;;
	deep) echo "gen=$GEN kind=deep levels=$2 name_len=$3 file_every=100 sizes=0-4096 seed=$SEED" ;;
	esac
}

# One perl process makes the whole tree (gen_tree_scale, lib.sh).
generate() { # kind dir n [name-len]
	gen_tree_scale "$1" "$2" "$3" "$SEED" "${4:-1}"
}

# The listing of a tree: one line per entry below the top, in a sorted
# walk: "d PATH" or "f SIZE MD5 PATH" (l, o: symlinks, others).  perl walks
# by chdir, so no path is ever longer than one name: it works past PATH_MAX,
# where diff -r and cmp cannot open the files.  Two trees are equal
# (types, names, sizes, contents) when their listings are.
listing() { # dir > listing
	perl -MDigest::MD5 -e '
		use strict;
		my ($root) = @ARGV;
		chdir $root or die "$root: $!\n";
		sub walk {
			my ($rel) = @_;
			opendir my $d, "." or die "$rel: $!\n";
			my @e = sort grep { $_ ne "." && $_ ne ".." } readdir $d;
			closedir $d;
			for my $e (@e) {
				my $p = $rel eq "" ? $e : "$rel/$e";
				my @st = lstat $e or die "$p: $!\n";
				if (-l _) { print "l ", readlink($e), " $p\n" }
				elsif (-d _) {
					print "d $p\n";
					chdir $e or die "$p: $!\n";
					walk($p);
					chdir ".." or die "$p/..: $!\n";
				} elsif (-f _) {
					open my $f, "<", $e or die "$p: $!\n"; binmode $f;
					print "f $st[7] ", Digest::MD5->new->addfile($f)->hexdigest, " $p\n";
					close $f;
				} else { print "o $p\n" }
			}
		}
		walk("");' "$1"
}

# ---------------------------------------------------------- filesystems
declare -A FS_OK=()
want_fs() { [[ ",$FSLIST," == *",$1,"* ]]; }

# What the selected trees need, to size the image and the tmpfs.
NEED_INODES=0 NEED_KIB=0 MAX_INODES=0 MAX_KIB=0
need() { # entries KiB
	NEED_INODES=$((NEED_INODES + $1)) NEED_KIB=$((NEED_KIB + $2))
	(($1 > MAX_INODES)) && MAX_INODES=$1
	(($2 > MAX_KIB)) && MAX_KIB=$2
	return 0
}
if [[ -n ${WANT[scale]:-} ]]; then
	for n in "${SIZE_LIST[@]}"; do need $((n + n / 100 + n / 10000 + 2)) $((n * 4 + n / 25 + 64)); done
fi
[[ -n ${WANT[flat]:-} ]] && need "$FLAT" $((FLAT * 4 + FLAT / 64 + 64))
[[ -n ${WANT[deep]:-} ]] && need $((DEEP * 2)) $((DEEP * 8 + 64))

mount_cache_image() {
	local img=$CACHE/trees.img stamp=$CACHE/image.stamp have_mib have_ino dev
	# The image holds every tree of this run and one copy of the largest,
	# with room for trees kept from other runs: 4,000,000 inodes and
	# 48 GiB (sparse) unless more is needed.
	local ino=$(((NEED_INODES + MAX_INODES) * 3 / 2)) mib=$(((NEED_KIB + MAX_KIB) * 3 / 2 / 1024))
	((ino < 4000000)) && ino=4000000
	((mib < 49152)) && mib=49152
	if [[ -e $img ]] && losetup -j "$img" | grep -q .; then
		die "$img is attached to a loop device already ($(losetup -j "$img")); detach it first"
	fi
	if [[ -f $img && -f $stamp ]]; then
		read -r have_mib have_ino <"$stamp" || true
		if [[ ${have_mib:-0} -lt $mib || ${have_ino:-0} -lt $ino ]]; then
			say "cache image $img is too small (${have_mib:-?} MiB, ${have_ino:-?} inodes); making it again"
			rm -f -- "$img" "$stamp"
		fi
	else
		rm -f -- "$img" "$stamp"
	fi
	if [[ ! -f $img ]]; then
		say "making the cache image $img (${mib} MiB sparse, $ino inodes, journaled ext4) ..."
		truncate -s "${mib}M" "$img"
		mkfs.ext4 -q -F -N "$ino" -E lazy_itable_init=0,lazy_journal_init=0 "$img" >/dev/null 2>&1 ||
			{ rm -f "$img"; say "warning: mkfs.ext4 failed; skipping ext4"; return 1; }
		echo "$mib $ino" >"$stamp"
	fi
	dev=$(losetup --find --show "$img") || { say "warning: losetup failed; skipping ext4"; return 1; }
	LOOPS+=("$dev")
	mkdir -p "$E"
	mount "$dev" "$E" || { say "warning: mounting the cache image failed; skipping ext4"; return 1; }
	MOUNTED+=("$E")
	if [[ -e $E/out ]]; then
		say "removing the destinations an interrupted run left in the cache image ..."
		rm -rf -- "$E/out"
	fi
	mkdir -p "$E/out"
}

mount_tmpfs() {
	# the largest tree twice (source and one copy) in 4 KiB pages
	local mib=$(((MAX_KIB * 2 + MAX_KIB / 2) / 1024 + 512))
	mkdir -p "$T"
	mount -t tmpfs -o "size=${mib}M,nr_inodes=$((MAX_INODES * 3 + 10000))" scale-tmpfs "$T" || {
		say "warning: mounting a tmpfs failed; skipping tmpfs"; return 1; }
	MOUNTED+=("$T")
	mkdir -p "$T/out"
	TMPFS_MIB=$mib
}

# ensure_tree FS NAME KIND N [LEN]: the tree ROOT/NAME with its stamp; its
# listing in the cache directory.  ext4: kept in the cache image between
# runs; tmpfs: made for this run (same generator and seed, so the same
# tree) and removed after its workload.
ensure_tree() {
	local fs=$1 name=$2 kind=$3 n=$4 len=${5:-1} root key t0
	[[ $fs == ext4 ]] && root=$E || root=$T
	key=$(tree_key "$kind" "$n" "$len")
	if [[ -d $root/$name && -f $root/$name.stamp && $(cat "$root/$name.stamp") == "$key" ]]; then
		say "[$name] reusing the tree in the cache image"
	else
		rm -rf -- "${root:?}/$name" "$root/$name.stamp"
		say "[$name] generating on $fs: $key ..."
		t0=$EPOCHSECONDS
		generate "$kind" "$root/$name" "$n" "$len"
		sync
		echo "$key" >"$root/$name.stamp"
		say "[$name] generated in $((EPOCHSECONDS - t0)) s"
	fi
	local list=$CACHE/$name.list
	if [[ ! -f $list || $(head -n 1 "$list") != "$key" ]]; then
		say "[$name] listing the source (sizes and MD5 of every file) ..."
		{ echo "$key"; listing "$root/$name"; } >"$list.tmp"
		mv -- "$list.tmp" "$list"
	fi
}

# ------------------------------------------------------------------- runs
# Memory settled before each timed run (settle, lib.sh): --settle, else
# per workload (a large tree in the tmpfs lowers MemAvailable): twice
# what the copy touches (a 4 KiB page and ~1 KiB of inode and dentry an
# entry), at least 512 MiB, at most 4096 MiB and a quarter of
# MemAvailable.  Touching 4 GiB took 4-13 s a run here, longer than
# copying the smaller trees.
settle_amount() { # entries of the workload -> SETTLE_MIB
	if [[ -n $SETTLE ]]; then SETTLE_MIB=$SETTLE; return; fi
	local w=$(($1 * 10 / 1024)) m
	((w >= 512)) || w=512
	((w <= 4096)) || w=4096
	m=$(mem_quarter_mib)
	SETTLE_MIB=$((${m:-0} < w ? ${m:-0} : w))
}

TOOLS=("smartcp -r" "cp -r")
PFX=()
run_tool() { # label src dst (relative to the filesystem's root, the cwd)
	case $1 in
	"smartcp -r") "${PFX[@]}" "$SMARTCP" -r "$2" "$3" 9>&- ;; # (9: the cache lock)
	"cp -r") "${PFX[@]}" cp -r "$2" "$3" 9>&- ;;
	*) die "internal: unknown tool '$1'" ;;
	esac
}

LAST_DST=
prep() { # src: remove the last destination, sync, drop caches, cache src
	if [[ -n $LAST_DST ]]; then rm -rf -- "$LAST_DST"; LAST_DST=; fi
	drop_caches
	# through cat: GNU tar does not read file data when writing to /dev/null
	{ tar -cf - "$1" 2>/dev/null || true; } | cat >/dev/null
	settle
	# the programs' code and libraries cached too, the same for both
	"$SMARTCP" --version >/dev/null
	cp --version >/dev/null
}

RUN_US=0 RUN_RSS=- RUN_RC=0 RUN_ERR=
run_once() { # label src dst
	local t0 t1
	RUN_RC=0 RUN_RSS=- RUN_ERR=
	: >"$TIMEF"
	PFX=()
	((${#TIMECMD[@]})) && PFX=("${TIMECMD[@]}" "$TIMEF")
	t0=$EPOCHREALTIME
	run_tool "$1" "$2" "$3" >/dev/null 2>"$RUNERR" || RUN_RC=$?
	t1=$EPOCHREALTIME
	RUN_US=$(us_between "$t0" "$t1")
	{ echo "### $1: $2 -> $3 (status $RUN_RC)"; head -n 20 "$RUNERR"; } >>"$ERRLOG"
	if ((RUN_RC)); then
		# /usr/bin/time adds "Command exited with non-zero status N"
		# (awk reads the file itself: a pipe into head could end the
		# writer with SIGPIPE, which pipefail and set -e make fatal)
		RUN_ERR=$(awk '!/^Command exited with/ { print substr($0, 1, 160); exit }' "$RUNERR")
		if [[ -z $RUN_ERR ]] && ((RUN_RC > 128)); then
			RUN_ERR="killed by signal $((RUN_RC - 128)) ($(kill -l $((RUN_RC - 128)) 2>/dev/null || echo ?))"
		fi
	fi
	if [[ -s $TIMEF ]]; then RUN_RSS=$(tail -n 1 "$TIMEF"); fi
	[[ $RUN_RSS =~ ^[0-9]+$ ]] || RUN_RSS=-
}

check_copy() { # name dst -> ok | MISMATCH (and the first difference in ERRLOG)
	local list=$CACHE/$1.list
	if tail -n +2 "$list" | cmp -s - <(listing "$2" 2>>"$ERRLOG"); then
		echo ok
	else
		{
			echo "### MISMATCH $1 vs $2, first differences (< source, > copy):"
			diff <(tail -n +2 "$list") <(listing "$2" 2>&1) | head -n 5 || true
		} >>"$ERRLOG"
		echo MISMATCH
	fi
}

strace_calls() { # label src dst -> total syscalls (or -)
	local out=$SCRATCH/strace.out total
	: >"$out"
	PFX=(strace -f -c -o "$out")
	run_tool "$1" "$2" "$3" >/dev/null 2>>"$ERRLOG" || true
	rm -rf -- "$3"
	total=$(awk '$NF == "total" { print $4 }' "$out")
	echo "${total:--}"
}

# ----------------------------------------------------------- bookkeeping
per() { if [[ $1 == - || $2 == 0 ]]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; fi; }
commas() { # 1234567 -> 1,234,567 (LC_ALL=C does not group digits)
	local s=$1 r=
	while ((${#s} > 3)); do r=,${s: -3}$r s=${s:0:${#s}-3}; done
	echo "$s$r"
}

TSVTMP=$SCRATCH/results.tsv
tsv_row workload fs n files entries tool runs_ok median_s min_s max_s us_per_entry \
	syscalls_per_entry peak_rss_kib ratio_median ratio_min check times_s >"$TSVTMP"
PROBLEMS=0
# results for the targets: R[kind:fs:n:tool:what]
declare -A R=()
out() { printf '%s\n' "$*"; }
row_fmt='%-11s %9s %9s %9s %9s %8s %7s %7s %9s  %s\n'

# bench KIND FS N NAME DESC
bench() {
	local kind=$1 fs=$2 n=$3 name=$4 desc=$5 root list files entries wl_t0=$EPOCHSECONDS
	[[ $fs == ext4 ]] && root=$E || root=$T
	list=$CACHE/$name.list
	files=$(grep -c '^f ' "$list" || true)
	entries=$(($(wc -l <"$list") - 1))
	cd "$root"
	settle_amount "$entries"
	local r i l dst
	local -A TM=() RSS=() CHECK=() SYS=() MED=() MIN=()
	for ((r = 0; r < RUNS; r++)); do
		for i in $(bench_order ${#TOOLS[@]} "$r"); do
			l=${TOOLS[i]}
			dst=out/$name.${l// /}.$r
			say "[$name on $fs] round $((r + 1))/$RUNS: $l"
			prep "$name"
			run_once "$l" "$name" "$dst"
			LAST_DST=$dst
			if ((RUN_RC == 0)); then TM[$l]+="$RUN_US "; fi
			if [[ $RUN_RSS != - ]] && ((RUN_RSS > ${RSS[$l]:-0})); then RSS[$l]=$RUN_RSS; fi
			if ((RUN_RC)); then
				# a failure is recorded, not timed; the first one is kept
				[[ ${CHECK[$l]:-} == FAILED* ]] || CHECK[$l]="FAILED(rc=$RUN_RC: ${RUN_ERR:-no message})"
				say "!!!!!! $name on $fs: '$l' FAILED with status $RUN_RC: $RUN_ERR"
			elif [[ -z ${CHECK[$l]:-} ]]; then
				say "[$name on $fs] checking the copy of $l ..."
				CHECK[$l]=$(check_copy "$name" "$dst")
				[[ ${CHECK[$l]} == ok ]] || say "!!!!!! MISMATCH: $name on $fs: '$l' produced a copy that differs from the source (see the error output at the end)"
			fi
		done
	done
	rm -rf -- "$LAST_DST"; LAST_DST=
	if ((DO_STRACE)); then
		for l in "${TOOLS[@]}"; do
			say "[$name on $fs] strace -f -c: $l"
			SYS[$l]=$(per "$(strace_calls "$l" "$name" "out/$name.strace")" "$entries")
		done
	fi
	out ""
	out "== $name on $fs: $desc; $(commas "$files") files, $(commas "$entries") entries; $RUNS rounds"
	# shellcheck disable=SC2059 # the format is a variable on purpose
	out "$(printf "$row_fmt" tool 'median s' 'min s' 'max s' 'us/entry' 'RSS KiB' 'r(med)' 'r(min)' 'sys/entry' check)"
	local -A MAX=() OKRUNS=()
	local md mn mx us c rmd rmn times
	for l in "${TOOLS[@]}"; do
		# shellcheck disable=SC2086 # word splitting of the list of times is wanted
		set -- ${TM[$l]:-}
		OKRUNS[$l]=$#
		if (($#)); then
			read -r md mn mx <<<"$(stats "$@")"
		else
			md=- mn=- mx=-
		fi
		MED[$l]=$md MIN[$l]=$mn MAX[$l]=$mx
	done
	for l in "${TOOLS[@]}"; do
		md=${MED[$l]} mn=${MIN[$l]} mx=${MAX[$l]}
		us=$(per "$md" "$entries")
		rmd=- rmn=-
		if [[ $l == smartcp* ]]; then
			rmd=$(ratio "$md" "${MED["cp -r"]}") rmn=$(ratio "$mn" "${MIN["cp -r"]}")
		fi
		c=${CHECK[$l]:-ok}
		[[ $c == ok ]] || PROBLEMS=$((PROBLEMS + 1))
		# shellcheck disable=SC2059
		out "$(printf "$row_fmt" "$l" "$(sec "$md")" "$(sec "$mn")" "$(sec "$mx")" "$us" \
			"${RSS[$l]:--}" "$rmd" "$rmn" "${SYS[$l]:--}" "$c")"
		# shellcheck disable=SC2086 # the list of times, one a word
		times=$(csv_secs ${TM[$l]:-})
		tsv_row "$kind" "$fs" "$n" "$files" "$entries" "$l" "${OKRUNS[$l]}" \
			"$(sec "$md")" "$(sec "$mn")" "$(sec "$mx")" "$us" "${SYS[$l]:--}" "${RSS[$l]:--}" \
			"$rmd" "$rmn" "$c" "${times:--}" >>"$TSVTMP"
		R[$kind:$fs:$n:$l:us]=$us
		R[$kind:$fs:$n:$l:rss]=${RSS[$l]:--}
		R[$kind:$fs:$n:$l:rmed]=$rmd
		R[$kind:$fs:$n:$l:rmin]=$rmn
	done
	out "   ($((EPOCHSECONDS - wl_t0)) s for this workload with its preparation, checks and strace runs; settle $SETTLE_MIB MiB)"
	cd /
}

# ----------------------------------------------------------------- header
START=$EPOCHSECONDS
echo "smartcp scaling benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')  kernel $(uname -r)  $(nproc) CPUs  $(awk '/^MemTotal:/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
echo "command: $CMDLINE"
echo "smartcp: $SMARTCP_ORIG ($("$SMARTCP" --version 2>/dev/null | head -n 1), sha256 $(sha256sum "$SMARTCP" | cut -c1-12), copied to scratch); peer: $(cp --version | head -n 1)"

if want_fs ext4; then mount_cache_image && FS_OK[ext4]=1; fi
if want_fs tmpfs; then mount_tmpfs && FS_OK[tmpfs]=1; fi
echo "settings: sizes=$(IFS=,; echo "${SIZE_LIST[*]}") runs=$RUNS only=$ONLY flat=$FLAT deep=${DEEP}x$DEEP_LEN settle=$(if [[ -n $SETTLE ]]; then echo "${SETTLE}MiB"; else echo "per workload, 10 KiB an entry, 512-4096 MiB, <= MemAvailable/4"; fi)"
echo "filesystems: ${FS_OK[ext4]:+ext4 (cache image $CACHE/trees.img, journaled, same-filesystem copies) }${FS_OK[tmpfs]:+tmpfs (${TMPFS_MIB}M)}"

for fs in "${FS_LIST[@]}"; do
	if [[ -z ${FS_OK[$fs]:-} ]]; then out ""; out "== $fs: skipped (could not be set up)"; continue; fi
	root=$E
	[[ $fs == tmpfs ]] && root=$T
	if [[ -n ${WANT[scale]:-} ]]; then
		for n in "${SIZE_LIST[@]}"; do
			name=scale-$n
			ensure_tree "$fs" "$name" scale "$n"
			bench scale "$fs" "$n" "$name" "files of 0-4 KiB, 100 a directory, $fs -> same $fs"
			[[ $fs == tmpfs ]] && rm -rf -- "${root:?}/$name" "$root/$name.stamp"
		done
	fi
	if [[ -n ${WANT[flat]:-} ]]; then
		name=flat-$FLAT
		ensure_tree "$fs" "$name" flat "$FLAT"
		bench flat "$fs" "$FLAT" "$name" "one directory of $(commas "$FLAT") files of 0-4 KiB, $fs -> same $fs"
		[[ $fs == tmpfs ]] && rm -rf -- "${root:?}/$name" "$root/$name.stamp"
	fi
	if [[ -n ${WANT[deep]:-} ]]; then
		name=deep-${DEEP}x$DEEP_LEN
		ensure_tree "$fs" "$name" deep "$DEEP" "$DEEP_LEN"
		# the longest path a tool opens: the copy's bottom file, from
		# the filesystem's root (the tools run there with relative names)
		longest=$((${#name} + 12 + DEEP * (DEEP_LEN + 1) + 2))
		bench deep "$fs" "$DEEP" "$name" "$(commas "$DEEP") levels of ${DEEP_LEN}-character names, a file every 100 levels; longest path ~$(commas "$longest") bytes ($( ((longest < 4096)) && echo "under" || echo "PAST") PATH_MAX 4096), $fs -> same $fs"
		[[ $fs == tmpfs ]] && rm -rf -- "${root:?}/$name" "$root/$name.stamp"
	fi
done

# ---------------------------------------------------------------- targets
# Issue 16, measured with -j at its default, on the scale trees: time per
# entry at the largest size <= 1.2x that at the smallest; peak RSS at the
# largest <= 64 MiB; ratio to cp at every size no worse than at the
# smallest (medians; within 10%, the noise here, says so).
verdict() { [[ $1 == 1 ]] && echo "met" || echo "NOT met"; }
targets() {
	local fs s="smartcp -r" n0=${SIZE_LIST[0]} n1=${SIZE_LIST[-1]} a b ok r0 r line n rn
	[[ -n ${WANT[scale]:-} ]] || return 0
	out ""
	out "Issue 16 targets (smartcp -r at the default -j, scale trees, smallest $(commas "$n0") vs largest $(commas "$n1") files):"
	[[ $n1 == 1000000 && $n0 == 20000 ]] || out "  (the issue's sizes are 20,000 and 1,000,000; these are the sizes run)"
	for fs in "${FS_LIST[@]}"; do
		[[ -n ${FS_OK[$fs]:-} ]] || continue
		a=${R[scale:$fs:$n0:$s:us]:--} b=${R[scale:$fs:$n1:$s:us]:--}
		if [[ $a == - || $b == - ]]; then
			out "  $fs: time per entry: no numbers (failed runs)"
		else
			ok=$(awk -v a="$a" -v b="$b" 'BEGIN { print (b <= 1.2 * a) ? 1 : 0 }')
			out "  $fs: time per entry at $(commas "$n1") <= 1.2x that at $(commas "$n0"): $(verdict "$ok") ($b us vs $a us: $(ratio "$b" "$a")x)"
		fi
		b=${R[scale:$fs:$n1:$s:rss]:--}
		if [[ $b == - ]]; then
			out "  $fs: peak RSS: no numbers"
		else
			ok=$((b <= 65536 ? 1 : 0))
			out "  $fs: peak RSS at $(commas "$n1") <= 64 MiB: $(verdict "$ok") ($(awk -v k="$b" 'BEGIN { printf "%.1f", k / 1024 }') MiB; cp -r: $(awk -v k="${R[scale:$fs:$n1:cp -r:rss]:-0}" 'BEGIN { printf "%.1f", k / 1024 }') MiB)"
		fi
		r0=${R[scale:$fs:$n0:$s:rmed]:--}
		if [[ $r0 == - ]]; then
			out "  $fs: ratio to cp: no numbers at $(commas "$n0")"
			continue
		fi
		ok=1 line=
		for n in "${SIZE_LIST[@]}"; do
			rn=${R[scale:$fs:$n:$s:rmed]:--}
			line+="${line:+, }$(commas "$n"): $rn (min ${R[scale:$fs:$n:$s:rmin]:--})"
			[[ $rn == - ]] && { ok=0; continue; }
			if awk -v a="$rn" -v b="$r0" 'BEGIN { exit !(a > b) }'; then
				if awk -v a="$rn" -v b="$r0" 'BEGIN { exit !(a <= 1.1 * b) }'; then
					[[ $ok == 1 ]] && ok=noise
				else
					ok=0
				fi
			fi
		done
		case $ok in
		1) ok="met" ;; noise) ok="met within noise (<= 10% worse)" ;; *) ok="NOT met" ;;
		esac
		out "  $fs: ratio smartcp/cp at every size no worse than at $(commas "$n0"): $ok (medians: $line)"
	done
}
targets

{
	echo ""
	echo "total time: $((EPOCHSECONDS - START)) s$( ((SETTLE_US)) && echo " (of which settling memory before each run: $((SETTLE_US / 1000000)) s)")"
	cat <<'EOF'
Legend: median/min/max = wall seconds per run; us/entry = median / entries
  (files and directories below the top); each round runs both tools, the
  order rotating; before each run: old destination removed, sync,
  drop_caches, source read once (cached), memory settled (untimed).
  r(med), r(min) = smartcp / cp, ratio of medians / of minimums (< 1:
  smartcp faster); differences under ~10% are noise on this VM.
  RSS KiB = largest peak RSS over runs (/usr/bin/time %M).  sys/entry =
  syscalls per entry from one `strace -f -c` run.  check = the first good
  copy compared with the source (names, types, sizes, MD5 of every file);
  FAILED(rc: first error line) = the tool's exit status was not 0.
EOF
}

cp -- "$TSVTMP" "$TSV" && say "TSV written to $TSV"
if [[ -f $SVG_AWK ]]; then
	if awk -F'\t' -v title="smartcp -r vs GNU cp -r: cost per entry and peak RSS as the tree grows" \
		-v subtitle="kernel $(uname -r), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'); $CMDLINE" \
		-f "$SVG_AWK" "$TSV" >"$SVG.tmp"; then
		mv -- "$SVG.tmp" "$SVG" && say "chart written to $SVG"
	else
		rm -f -- "$SVG.tmp"; say "warning: the chart could not be drawn"
	fi
else
	say "warning: $SVG_AWK missing; no chart"
fi
if ((PROBLEMS)); then
	echo "!!!!!! $PROBLEMS row(s) with MISMATCH or FAILED - see the check column"
	exit 1
fi
exit 0
