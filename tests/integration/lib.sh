# Shared library for smartcp integration tests.  Sourced, never run:
#
#	. "$(dirname "$0")/lib.sh"
#
# Gives every test a scratch directory $T, one cleanup trap that undoes
# every mount and loop device the test made (also when it fails half-way or
# is killed by the runner's timeout), mount helpers for real filesystems on
# sparse loop images, assertions, and strace helpers that show which road
# (clone, copy_file_range, splice, read_write) smartcp really took.
#
# Exit statuses follow automake: 0 pass, 1 fail, 77 skip.

TEST_NAME=$(basename "$0" .sh)
TEST_DIR=$(cd "$(dirname "$0")" && pwd)

# The C locale, and the binary under test: $SMARTCP from the environment
# (the runner sets it), else the build tree automake describes, else the
# current directory (make check runs from the top build directory), else
# an in-tree build (find_smartcp()); said below when there is none.
. "$TEST_DIR/lib-run.sh"
find_smartcp || SMARTCP=${SMARTCP:-$TEST_DIR/../../src/smartcp}

# ---------------------------------------------------------------- messages

say() { printf '== %s\n' "$*"; }
pass() { printf 'ok: %s\n' "$*"; }
fail() {
	printf 'FAIL: %s: %s\n' "$TEST_NAME" "$*" >&2
	exit 1
}
skip() {
	printf 'SKIP: %s: %s\n' "$TEST_NAME" "$*" >&2
	exit 77
}

# ------------------------------------------------------ beside other tests

# make check -j runs the tests side by side.  A test that must not run
# beside any other says so in a line of its own at the top level of its
# file, after lib.sh is sourced, with the reason:
#
#	exclusive "why it must run alone"
#
# and one that must not run beside some others, as they all do:
#
#	serialize NAME "why"
#
# tests/integration/run-test.sh reads these lines before the test starts
# and waits for its turn, holding the lock for the whole test; here they
# only say it in the log.  Run by hand (bash t-foo.sh), no lock is taken.
exclusive() {
	case ${SMARTCP_TEST_LOCK:-} in
	'' | exclusive*) ;;
	*) fail "'exclusive' not seen by run-test.sh (a line of its own, at the top level)" ;;
	esac
	say "runs alone: $*"
}
serialize() {
	local n=$1
	shift
	case ", ${SMARTCP_TEST_LOCK:-}," in
	', ,' | *", serialize $n,"*) ;;
	*) fail "'serialize $n' not seen by run-test.sh (a line of its own, at the top level)" ;;
	esac
	say "never beside another '$n' test: $*"
}

need_root() {
	[ "$(id -u)" -eq 0 ] ||
		skip "needs root (${1:-mounts filesystems on loop devices})"
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "needs $c"
	done
}

# need_gnu_cp_as_user: for the tests that run GNU cp and smartcp side by
# side as uid 65534, both found through PATH as "cp": GNU_CP (/bin/cp,
# else SKIP), NB (the command prefix that runs as uid 65534) and
# $T/ours/cp (smartcp under cp's name, runnable by that user: $T made
# searchable).  Needs root.
need_gnu_cp_as_user() {
	need_cmd setpriv
	GNU_CP=/bin/cp
	"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' ||
		skip "$GNU_CP is not GNU cp"
	NB='setpriv --reuid=65534 --regid=65534 --clear-groups'
	chmod 0755 "$T"
	mkdir -p "$T/ours"
	ln -s "$SMARTCP" "$T/ours/cp"
	$NB "$T/ours/cp" --version >/dev/null 2>&1 ||
		skip "uid 65534 cannot run $SMARTCP (a directory on its path not searchable?)"
}

# need_shim: sets $SHIM to the fault shim (tests/shim/faultshim.so) by an
# absolute name, or fails.
need_shim() {
	SHIM=${SHIM:-$(dirname "$SMARTCP")/../tests/shim/faultshim.so}
	[ -f "$SHIM" ] ||
		fail "no fault shim at '$SHIM' (make tests/shim/faultshim.so; or set SHIM)"
	case $SHIM in
	/*) ;;
	*) SHIM=$PWD/$SHIM ;;
	esac
}

# need_treecmp: sets $TREECMP to tests/treecmp (built by make check),
# which compares two trees by directory descriptor, however deep; or
# fails.
need_treecmp() {
	local c
	TREECMP=${TREECMP:-}
	for c in ${abs_top_builddir:+"$abs_top_builddir/tests/treecmp"} \
		 "$(dirname "$SMARTCP")/../tests/treecmp"; do
		[ -z "$TREECMP" ] && [ -x "$c" ] && TREECMP=$c
	done
	[ -n "$TREECMP" ] && [ -x "$TREECMP" ] ||
		fail "no tests/treecmp next to '$SMARTCP' (make check, or make tests/treecmp; or set TREECMP)"
}

# german_catalog: the built German catalog as $T/locale/de, for
# SMARTCP_LOCALEDIR=$T/locale LANGUAGE=de LC_ALL=C.UTF-8; false (and
# nothing made) without po/de.gmo or a C.UTF-8 locale.
german_catalog() {
	local c gmo=
	for c in ${abs_top_builddir:+"$abs_top_builddir/po/de.gmo"} \
		 ${abs_top_srcdir:+"$abs_top_srcdir/po/de.gmo"} \
		 "$TEST_DIR/../../po/de.gmo"; do
		[ -f "$c" ] && { gmo=$c; break; }
	done
	[ -n "$gmo" ] || return 1
	locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$' || return 1
	mkdir -p "$T/locale/de/LC_MESSAGES"
	cp "$gmo" "$T/locale/de/LC_MESSAGES/smartcp.mo"
}

# -------------------------------------------------------- scratch + cleanup

# Everything to undo is appended to $T/.undo ("umount DIR", "loop DEV" or
# "sh COMMAND"), so helpers also work inside $(...) subshells; the trap
# undoes it in reverse order.
T=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-$TEST_NAME.XXXXXX") ||
	{ echo "FAIL: $TEST_NAME: cannot make a scratch directory" >&2; exit 1; }
: >"$T/.undo"

# The machine's own device nodes are never a test's destination: a test
# that copies onto one as root (-a, -b, --remove-destination) changes
# them for everything else on the machine.  Their mode, owner and type
# are read now and again in the trap; a change fails the test that saw
# it (it, or one running beside it, did it).
_DEV_NODES="/dev/null /dev/zero /dev/full /dev/random /dev/urandom"
_dev_state() { stat -c '%n %F %a %u %g %t:%T' $_DEV_NODES 2>/dev/null; }
_DEV_STATE=$(_dev_state)

_umount() {
	local d=$1
	for _ in 1 2 3; do
		umount "$d" 2>/dev/null && return 0
		mountpoint -q "$d" || return 0
		sync
		sleep 0.3
	done
	umount -R "$d" 2>/dev/null && return 0
	echo "warning: lazy unmount of $d" >&2
	umount -l "$d"
}

_cleanup() {
	local rc=$? what arg
	set +e
	trap - EXIT INT TERM HUP
	cd /
	if [ -f "$T/.undo" ]; then
		tac "$T/.undo" | while read -r what arg; do
			case $what in
			umount) _umount "$arg" ;;
			loop) losetup -d "$arg" 2>/dev/null ||
				{ sleep 0.5; losetup -d "$arg"; } ;;
			sh) sh -c "$arg" ;;
			esac
		done
	fi
	if [ "$(_dev_state)" != "$_DEV_STATE" ]; then
		echo "FAIL: $TEST_NAME: the machine's device nodes changed while it ran (it, or a test beside it, wrote to one):" >&2
		diff <(echo "$_DEV_STATE") <(_dev_state) >&2
		rc=1
	fi
	# Never delete through a mount point that is somehow still there.
	if grep -qF " $T/" /proc/self/mounts; then
		echo "warning: mounts left under $T; not removing it" >&2
		rc=1
	else
		rm -rf "$T"
	fi
	exit $rc
}
trap _cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

_register() { printf '%s %s\n' "$1" "$2" >>"$T/.undo"; }

if [ ! -x "$SMARTCP" ]; then
	fail "smartcp not found or not executable at '$SMARTCP' (set SMARTCP)"
fi

# ------------------------------------------------------------------ mounts

# do_mount DIR MOUNT-ARGS...: mount on DIR (created) and unmount in the trap.
do_mount() {
	local dir=$1
	shift
	mkdir -p "$dir"
	mount "$@" "$dir" || fail "mount $* $dir failed"
	_register umount "$dir"
}

# _mount_image FSTYPE DIR SIZE: a sparse image in $T on a loop device,
# which IMAGE_LOOP names afterwards (to mount it again, cold).
_mount_image() {
	local fs=$1 dir=$2 size=$3 img loop
	need_root "mounts $fs on a loop device"
	need_cmd losetup "mkfs.$fs"
	img=$(mktemp "$T/img-$fs.XXXXXX")
	truncate -s "$size" "$img"
	loop=$(losetup -f --show "$img") || fail "losetup $img failed"
	_register loop "$loop"
	IMAGE_LOOP=$loop
	case $fs in
	ext4)	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 \
			"$loop" ;;
	btrfs)	mkfs.btrfs -q -f "$loop" >/dev/null ;;
	xfs)	mkfs.xfs -q -f -m reflink=1 "$loop" ;;
	esac || fail "mkfs.$fs on $loop failed"
	do_mount "$dir" -t "$fs" "$loop"
}

mount_ext4() { _mount_image ext4 "$1" "${2:-300M}"; }
mount_btrfs() { _mount_image btrfs "$1" "${2:-512M}"; }
mount_xfs() { _mount_image xfs "$1" "${2:-300M}"; }
mount_tmpfs() {
	need_root "mounts tmpfs"
	do_mount "$1" -t tmpfs -o "size=${2:-256M}" tmpfs
}

# fs_type PATH: the filesystem type PATH lives on, as the kernel names it.
fs_type() { findmnt -n -o FSTYPE -T "$1" 2>/dev/null || stat -f -c %T "$1"; }

# _ensure_pseudo TYPE: echo where TYPE (tracefs, debugfs) is mounted; mount
# it in the scratch directory when it is mounted nowhere.
_ensure_pseudo() {
	local type=$1 dir
	dir=$(awk -v t="$type" '$3 == t { print $2; exit }' /proc/self/mounts)
	if [ -z "$dir" ]; then
		need_root "mounts $type"
		dir=$T/$type
		mkdir -p "$dir"
		mount -t "$type" "$type" "$dir" >&2 ||
			skip "cannot mount $type"
		_register umount "$dir"
	fi
	printf '%s\n' "$dir"
}
ensure_tracefs() { _ensure_pseudo tracefs; }
ensure_debugfs() { _ensure_pseudo debugfs; }

# ------------------------------------------------------------- assertions

# assert_same FILE1 FILE2: byte-identical.
assert_same() {
	local out
	[ -e "$1" ] || fail "'$1' does not exist"
	[ -e "$2" ] || fail "'$2' does not exist"
	out=$(cmp -- "$1" "$2" 2>&1) ||
		fail "'$1' ($(stat -c %s "$1") bytes) and '$2' ($(stat -c %s "$2") bytes) differ: $out"
}

# assert_exit EXPECTED CMD...: run CMD, stdout to $OUT, stderr to $ERR.
OUT=$T/.stdout
ERR=$T/.stderr
assert_exit() {
	local want=$1 rc=0
	shift
	"$@" >"$OUT" 2>"$ERR" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "--- stdout:" >&2
		head -n 20 "$OUT" >&2
		echo "--- stderr:" >&2
		head -n 20 "$ERR" >&2
		fail "'$*' exited $rc, expected $want"
	fi
}

# assert_grep ERE FILE / assert_line EXACT-LINE FILE / assert_no_grep ERE FILE
_show() { echo "--- $1:" >&2; head -n 20 "$1" >&2; }
assert_grep() {
	grep -Eq -- "$1" "$2" || { _show "$2"; fail "no match for /$1/ in $2"; }
}
assert_no_grep() {
	! grep -Eq -- "$1" "$2" || { _show "$2"; fail "unexpected /$1/ in $2"; }
}
assert_line() {
	grep -Fxq -- "$1" "$2" || { _show "$2"; fail "no line '$1' in $2"; }
}

# assert_eq GOT WANT WHAT
assert_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

# assert_le A B WHAT: integer A <= B.
assert_le() {
	[ "$1" -le "$2" ] || fail "$3: $1 is not <= $2"
}

# assert_size FILE BYTES
assert_size() {
	assert_eq "$(stat -c %s "$1")" "$2" "size of $1"
}

# blocks FILE: allocated 512-byte blocks.
blocks() { stat -c %b "$1"; }

# random_file FILE BYTES
random_file() {
	head -c "$2" /dev/urandom >"$1"
	assert_size "$1" "$2"
}

# ------------------------------------------------------------------ strace

# trace_smartcp LOG ARGS...: run smartcp under strace, recording the calls
# that reveal the road; returns smartcp's exit status.
trace_smartcp() {
	local log=$1
	shift
	# LeakSanitizer cannot run under ptrace; the sanitizer build checks
	# leaks in every run that is not traced.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=copy_file_range,ioctl,splice -o "$log" \
		"$SMARTCP" "$@"
}

# count_threads LOG: how many threads a program traced with
# `strace -f -e trace=clone,clone3 -o LOG` started.
count_threads() { grep -Ec '^[0-9]+ +clone3?\(.*= [0-9]+$' "$1" || true; }

# count_calls LOG NAME: how many NAME calls (copy_file_range, splice, FICLONE).
# count_ok LOG NAME: how many succeeded (copy_file_range and splice returning
# > 0, FICLONE returning 0).  FICLONE shares its number with BTRFS_IOC_CLONE,
# so strace may print "BTRFS_IOC_CLONE or FICLONE".
_call_re() {
	case $1 in
	FICLONE) echo 'ioctl\([0-9]+, ([A-Z_]+ or )?FICLONE,' ;;
	*) echo "(^|[ >])$1\\(" ;;
	esac
}
count_calls() { grep -Ec -- "$(_call_re "$2")" "$1" || true; }
count_ok() {
	case $2 in
	FICLONE) grep -Ec -- "$(_call_re FICLONE).*\) = 0\$" "$1" || true ;;
	*) grep -Ec -- "$2(\\(| resumed>).*\) = [1-9][0-9]*\$" "$1" || true ;;
	esac
}

# roads_called LOG: one line summarising LOG, e.g.
# "copy_file_range 2 (2 ok), FICLONE 0 (0 ok), splice 0 (0 ok)".
roads_called() {
	local n sep=
	for n in copy_file_range FICLONE splice; do
		printf '%s%s %s (%s ok)' "$sep" "$n" "$(count_calls "$1" $n)" \
			"$(count_ok "$1" $n)"
		sep=', '
	done
	echo
}

_show_roads() {
	echo "--- $1 (road calls only):" >&2
	grep -E 'copy_file_range|FICLONE|splice' "$1" | head -n 20 >&2
}

# assert_calls LOG NAME OP N: e.g. assert_calls log copy_file_range -eq 0.
# assert_ok_calls LOG NAME OP N: the same for successful calls.
assert_calls() {
	local got
	got=$(count_calls "$1" "$2")
	test "$got" "$3" "$4" || { _show_roads "$1"; fail "$2 calls: $got, expected $3 $4 ($(roads_called "$1"))"; }
}
assert_ok_calls() {
	local got
	got=$(count_ok "$1" "$2")
	test "$got" "$3" "$4" || { _show_roads "$1"; fail "successful $2 calls: $got, expected $3 $4 ($(roads_called "$1"))"; }
}

# v_road FILE: the final road of each -v line in FILE, one a line:
# "'a' -> 'b' [clone → copy_file_range: EXDEV → read_write]" gives read_write.
v_road() {
	sed -n 's/.*\[\([^]]*\)\]$/\1/p' "$1" |
		sed 's/.*→ *//; s/.*-> *//; s/:.*//'
}

# v_chain: the road chain of the -v line in $OUT ("[...]"), with the arrows
# written "->" whatever smartcp prints.
v_chain() {
	sed -n "s/^'.*' -> '.*' \\[\\(.*\\)\\]\$/\\1/p" "$OUT" |
		sed 's/ → / -> /g'
}

# assert_chain ERE: the -v chain in $OUT matches the anchored ERE, e.g.
# assert_chain 'copy_file_range: EXDEV -> read_write'.
assert_chain() {
	local got
	got=$(v_chain)
	printf '%s\n' "$got" | grep -Eqx -- "$1" || {
		_show "$OUT"
		fail "road chain: got '$got', expected /$1/"
	}
}

# ------------------------------------------------------- generated sources

# copy_generated SRC DST [LOG] [SMARTCP-OPTIONS...]: copy a generated file
# (proc, sysfs, tracefs, ...) with smartcp, under strace into LOG when LOG
# is not empty, and check that DST holds what cat reads.  The source is
# read before and after the copy; when it changed in between (a counter
# ticked) the copy is tried again, at most 5 times.
copy_generated() {
	local src=$1 dst=$2 log=${3:-} try rc
	shift 2
	[ $# -eq 0 ] || shift
	for try in 1 2 3 4 5; do
		cat -- "$src" >"$T/.ref1" || fail "cannot read $src with cat"
		rc=0
		if [ -n "$log" ]; then
			trace_smartcp "$log" "$@" "$src" "$dst" || rc=$?
		else
			"$SMARTCP" "$@" "$src" "$dst" || rc=$?
		fi
		[ "$rc" -eq 0 ] || fail "smartcp $* '$src' '$dst' exited $rc"
		cat -- "$src" >"$T/.ref2"
		if cmp -s "$T/.ref1" "$T/.ref2"; then
			assert_same "$T/.ref1" "$dst"
			return 0
		fi
		echo "note: $src changed during copy $try; again" >&2
		rm -f -- "$dst"
	done
	fail "$src reads differently every time; cannot check its copy"
}

# json_roads FILE: the top-level "road" of each per-file object of smartcp
# --json output (objects with a "source"), one a line.  Needs jq: "road"
# also names roads inside the "tried" and "skipped" lists.
json_roads() {
	jq -r 'select(type == "object" and has("source")) | .road' "$1" ||
		fail "$1 is not valid JSON Lines"
}

# check_json_road ROAD SMARTCP-ARGS...: run smartcp --json ARGS and check
# that every file took ROAD.  Not checked (said so) without jq.
check_json_road() {
	local want=$1 got
	shift
	if ! command -v jq >/dev/null 2>&1; then
		say "jq not installed: --json road not checked"
		return 0
	fi
	"$SMARTCP" --json "$@" >"$T/.json" || fail "smartcp --json $* exited $?"
	got=$(json_roads "$T/.json" | sort -u)
	[ "$got" = "$want" ] ||
		{ _show "$T/.json"; fail "--json road: got '$got', expected '$want'"; }
	pass "--json road $want"
}
