#!/usr/bin/env bash
# bench/race.sh - how often an attacker wins the races of issue 35
# against smartcp, and against GNU cp, in one run.
#
# Root copies into a directory uid 65534 owns; tests/race/swapper, as that
# user, swaps what the copy makes there the moment inotify shows it (see
# its header and tests/integration/lib-race.sh).  Each race runs N
# attempts per tool, smartcp and cp alternating (A B, B A, ...), and a
# row gives, for each tool, the attempts the attacker won (the victim
# changed), the attempts in which a swap happened at all (before the copy
# ended), and for smartcp the runs that said "... replaced while being
# copied".  Races (--only, comma-separated):
#   fifo-a        -a of the attacker's FIFO (4777), swapped for a symlink
#                 to a root 0600 file: won = that file changed
#   fifo-mode     the same with -r --preserve=mode
#   fifo-j4       -j4 -a (cp: -a) of a directory of 8 FIFOs, each swapped
#   parents-a     cd S; -a --parents a/b/f D/ with D/a the attacker's,
#                 D/a/b swapped for a symlink to a root 0700 directory: won
#                 = that directory changed (mode, owner, times, entries)
#   parents-r     the same with -r
#   newdir-a      -a of root's tree S/t into D/, D/t swapped for the
#                 attacker's own directory: won = anything in it, or it is
#                 no longer the attacker's
#   slash-a       -a of the attacker's S/t (0755) to D/t/ (a slash at its
#                 end), D/t swapped for a symlink to an empty root 0700
#                 directory: won = that directory changed
#   links-flip    -a S/t S/u D/ of the attacker's S/t/x and S/u/y (one
#                 file); from the moment D/u is made, D/t flipped with a
#                 symlink to a root directory holding a root 0600 file x
#                 (swapper -f): won = D/u/y made a link to that file
# What is swapped is the first name the copy makes in the watched
# directory (a temporary name too), or each of the 8 in fifo-j4.
# Needs root, setpriv and the swapper (make check builds it).  See
# bench/README.
set -euo pipefail
export LC_ALL=C

usage() {
	cat <<'EOF'
Usage: bench/race.sh [OPTION]...
  --runs N         attempts per race and tool (default 1000; env BENCH_RUNS)
  --only LIST      races, comma-separated (default all: fifo-a,fifo-mode,
                   fifo-j4,parents-a,parents-r,newdir-a,slash-a,links-flip)
  --smartcp PATH   binary to test (env SMARTCP; default ../src/smartcp next
                   to this script, else smartcp on PATH)
  --cp PATH        the cp to compare with (default: cp on PATH; "none"
                   runs smartcp alone)
  --swapper PATH   the swapper (env SWAPPER; default tests/race/swapper of
                   the build tree smartcp is in)
  --tsv FILE       also write the counts as TSV to FILE
  --scratch DIR    parent of the scratch directory (default /var/tmp)
  -h, --help       this help
EOF
}

# shellcheck disable=SC2034 # lib.sh names the script in its messages
BENCH_NAME=race.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL=fifo-a,fifo-mode,fifo-j4,parents-a,parents-r,newdir-a,slash-a,links-flip
RUNS=${BENCH_RUNS:-1000}
ONLY=$ALL
SMARTCP=${SMARTCP:-}
CP=
SWAPPER=${SWAPPER:-}
TSV=
SCRATCH_PARENT=${BENCH_SCRATCH:-/var/tmp}
ATTACKER=65534:65534
bench_opt --runs RUNS
bench_opt --only ONLY
bench_opt --smartcp SMARTCP
bench_opt --cp CP
bench_opt --swapper SWAPPER
bench_opt --tsv TSV
bench_opt --scratch SCRATCH_PARENT
CMDLINE="$0 $*"
bench_parse "$@"

posint "$RUNS" || die "--runs needs a positive number"
bench_need_root "copies as root into a directory uid 65534 owns"
have setpriv || die "needs setpriv (util-linux)"
bench_find_smartcp
if [[ -z $SWAPPER ]]; then
	for c in "$(dirname "$SMARTCP")/../tests/race/swapper" \
		 "$(dirname "${BASH_SOURCE[0]}")/../tests/race/swapper"; do
		[[ -z $SWAPPER && -x $c ]] && SWAPPER=$(readlink -f "$c")
	done
fi
[[ -n $SWAPPER && -x $SWAPPER ]] ||
	die "no tests/race/swapper (make tests/race/swapper; or --swapper PATH)"
[[ -n $CP ]] || CP=$(command -v cp) || die "no cp on PATH"
[[ $CP == none ]] || CP=$(readlink -f "$CP")
for r in ${ONLY//,/ }; do
	[[ ,$ALL, == *,$r,* ]] || die "unknown race '$r' (races: $ALL)"
done

bench_scratch "$SCRATCH_PARENT" smartcp-race
chmod 0755 "$SCRATCH"
cd "$SCRATCH"
# pinned as smartcp is: a rebuild during the run changes nothing
SWAPPER_ORIG=$SWAPPER
cp -- "$SWAPPER_ORIG" "$SCRATCH/swapper"
SWAPPER=$SCRATCH/swapper

# ------------------------------------------------------------- the scene

# the attacker's sources: a FIFO 4777, 8 of them in a directory, a
# --parents tree; root's: a tree of its own
mkdir -p src/t src/p/a/b src/root/t/sub src/s/t src/l/t src/l/u
mkfifo src/f
for i in $(seq 8); do mkfifo "src/t/p$i"; done
printf 'the file\n' >src/p/a/b/f
printf 'a file\n' >src/s/t/a
printf 'linked\n' >src/l/t/x
ln src/l/t/x src/l/u/y
chown -R "$ATTACKER" src/f src/t src/p src/s src/l
chmod 4777 src/f src/t/p*	# after chown, which clears set-user-ID
chmod 0777 src/p/a/b
chmod 0755 src/s/t
printf 'root only\n' >src/root/t/secret
printf 'deeper\n' >src/root/t/sub/g
chmod 0600 src/root/t/secret src/root/t/sub/g
chmod 0700 src/root/t

make_victims() {
	rm -rf victim
	mkdir -p victim/dir victim/empty victim/ldir
	printf 'root only\n' >victim/file
	printf 'root only\n' >victim/dir/secret
	printf 'root only\n' >victim/ldir/x
	chmod 0600 victim/file victim/dir/secret victim/ldir/x
	chmod 0700 victim/dir victim/empty
	touch -d '2001-02-03 04:05:06' victim/file victim/dir/secret victim/dir \
		victim/empty victim/ldir/x
}
victim_state() {
	stat -c '%n %a %u %g %s %Y %h' victim/file victim/dir victim/dir/secret \
		victim/empty victim/ldir/x
	ls -A victim/dir victim/empty
	md5sum victim/file victim/dir/secret
	getfattr -h -d -m - --absolute-names victim/file victim/dir 2>/dev/null || true
}
make_victims
WANT=$(victim_state)

attacker_dir() {
	rm -rf "$@"
	mkdir -p "$@"
	chown "$ATTACKER" "$@"
}

# attempt RACE TOOL: one attempt; sets WON, SWAPPED, SAID (0 or 1).
attempt() {
	local race=$1 tool=$2 jobs=() dir=D opts=() args=() here=$SCRATCH
	local ino mine
	local log=$SCRATCH/swap.log err=$SCRATCH/err
	[[ $tool == "$CP" ]] || jobs=(-j4)
	case $race in
	fifo-a) opts=(-t "$SCRATCH/victim/file"); args=(-a src/f D/) ;;
	fifo-mode) opts=(-t "$SCRATCH/victim/file")
		args=(-r --preserve=mode src/f D/) ;;
	fifo-j4) opts=(-t "$SCRATCH/victim/file" -c 8)
		args=("${jobs[@]}" -a src/t/. D) ;;
	parents-a | parents-r)
		opts=(-t "$SCRATCH/victim/dir") dir=$SCRATCH/D/a
		here=$SCRATCH/src/p
		args=("-${race#parents-}" --parents a/b/f "$SCRATCH/D/") ;;
	newdir-a) opts=(-k dir); args=(-a src/root/t D/) ;;
	slash-a) opts=(-t "$SCRATCH/victim/empty" -n t)
		args=(-a src/s/t D/t/) ;;
	links-flip) opts=(-f -t "$SCRATCH/victim/ldir" -e create -n u -x t)
		args=(-a src/l/t src/l/u D/) ;;
	esac
	rm -rf D
	attacker_dir D "$dir"
	(cd "$here" && "$SWAPPER" -u "$ATTACKER" -l "$log" "${opts[@]}" \
		"$dir" "$tool" "${args[@]}" >/dev/null 2>"$err") || true
	SWAPPED=0 WON=0 SAID=0
	grep -q '^swapped' "$log" && SWAPPED=1
	grep -q 'replaced while being copied' "$err" && SAID=1
	if [[ $race == newdir-a ]]; then
		# the attacker's directory, found by its inode number
		ino=$(sed -n 's/^swapped [^ ]* [^ ]* \([0-9]*\)$/\1/p' "$log")
		[[ -z $ino ]] || mine=$(find D -maxdepth 2 -inum "$ino" -print -quit)
		[[ -n $ino && -n $mine ]] &&
			[[ -n $(ls -A "$mine") || $(stat -c %u "$mine") != "${ATTACKER%:*}" ]] &&
			WON=1
	elif [[ $(victim_state) != "$WANT" ]]; then
		WON=1
		make_victims
	fi
	return 0
}

# --------------------------------------------------------------- the runs

tools=("$SMARTCP")
[[ $CP == none ]] || tools+=("$CP")
{
	echo "command: $CMDLINE"
	echo "smartcp: $SMARTCP_ORIG ($("$SMARTCP" --version | head -n 1))"
	[[ $CP == none ]] || echo "cp:      $CP ($("$CP" --version | head -n 1))"
	echo "swapper: $SWAPPER_ORIG (as uid ${ATTACKER%:*})"
	echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "$RUNS attempts per race and tool, alternating; won = the attacker changed the victim;"
	echo "swapped = a swap happened before the copy ended; said = smartcp said 'replaced'"
	printf '%-10s %-26s %14s %8s %6s %14s %8s\n' race "smartcp options" \
		"smartcp won" swapped said "cp won" swapped
}
[[ -z $TSV ]] || tsv_row race tool attempts won swapped said >"$TSV"

total=0
for race in ${ONLY//,/ }; do
	declare -A won=() swapped=() said=()
	for t in "${tools[@]}"; do won[$t]=0 swapped[$t]=0 said[$t]=0; done
	for ((i = 0; i < RUNS; i++)); do
		for k in $(bench_order ${#tools[@]} "$i"); do
			t=${tools[k]}
			attempt "$race" "$t"
			won[$t]=$((won[$t] + WON))
			swapped[$t]=$((swapped[$t] + SWAPPED))
			said[$t]=$((said[$t] + SAID))
		done
	done
	case $race in
	fifo-a | newdir-a | parents-a | links-flip) o=-a ;;
	slash-a) o="-a S/t D/t/" ;;
	fifo-mode) o="-r --preserve=mode" ;;
	fifo-j4) o="-j4 -a (cp: -a)" ;;
	parents-r) o=-r ;;
	esac
	[[ $race != parents-* ]] || o="--parents $o"
	if [[ $CP == none ]]; then
		cpw=- cps=-
	else
		cpw="${won[$CP]}/$RUNS" cps=${swapped[$CP]}
	fi
	printf '%-10s %-26s %14s %8s %6s %14s %8s\n' "$race" "$o" \
		"${won[$SMARTCP]}/$RUNS" "${swapped[$SMARTCP]}" \
		"${said[$SMARTCP]}" "$cpw" "$cps"
	if [[ -n $TSV ]]; then
		tsv_row "$race" smartcp "$RUNS" "${won[$SMARTCP]}" \
			"${swapped[$SMARTCP]}" "${said[$SMARTCP]}" >>"$TSV"
		[[ $CP == none ]] || tsv_row "$race" cp "$RUNS" "${won[$CP]}" \
			"${swapped[$CP]}" - >>"$TSV"
	fi
	total=$((total + won[$SMARTCP]))
	unset won swapped said
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg); $SECONDS s"
# exit 1 when the attacker won any attempt against smartcp
((total == 0))
