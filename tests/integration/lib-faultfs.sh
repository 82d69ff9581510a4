# Helpers for the FUSE fault filesystem tests, tests/integration/t-faultfs-*.sh.
# Sourced after lib.sh, never run:
#
#	. "$(dirname "$0")/lib.sh"
#	. "$(dirname "$0")/lib-faultfs.sh"
#
# faultfs (tests/faultfs/faultfs.c; its header comment has the rules) is an
# in-memory FUSE filesystem whose files fail on request, set in the xattr
# "user.fault" of a file, or of a directory for the files made in it later:
#
#	set_fault "$M/in/src" 'size=0,eio_read@65536'
#
# so the real kernel delivers the faults to smartcp.  Sourcing this skips
# the test (77) when FUSE or faultfs is not there.
#
# Second half: the fault scenarios (ff_cell SCENARIO ROAD), shared by the
# one-behaviour tests and by t-faultfs-table.sh, which runs them all.

# The binary: $FAULTFS, else the build tree automake describes, else
# beside the smartcp under test.
if [ -z "${FAULTFS:-}" ]; then
	for _c in ${abs_top_builddir:+"$abs_top_builddir/tests/faultfs/faultfs"} \
		  "$(dirname "$SMARTCP")/../tests/faultfs/faultfs"; do
		if [ -x "$_c" ]; then
			FAULTFS=$_c
			break
		fi
	done
fi
need_root "mounts a FUSE filesystem"
[ -c /dev/fuse ] || skip "FUSE unavailable: no /dev/fuse"
if [ -z "${FAULTFS:-}" ] || [ ! -x "$FAULTFS" ]; then
	skip "faultfs not built (needs libfuse3-dev; make check builds it; or set FAULTFS)"
fi
need_cmd setfattr mountpoint
case $FAULTFS in
/*) ;;
*) FAULTFS=$PWD/$FAULTFS ;;
esac

# mount_faultfs DIR [OPTIONS]: mount a new, empty faultfs on DIR (made)
# with the -o OPTIONS (e.g. capacity=1048576), unmounted in the trap even
# when the test fails.  Its log (injected faults, copy_file_range calls)
# is DIR.log, its own output DIR.out.
mount_faultfs() {
	local dir=$1 opts=${2:-}
	mkdir -p "$dir"
	: >"$dir.log"
	"$FAULTFS" -f "$dir" -o "log=$dir.log${opts:+,$opts}" \
		</dev/null >"$dir.out" 2>&1 &
	# Registered before it is mounted: a mount that comes late is
	# still undone (the trap's umount skips what is not mounted).
	_register umount "$dir"
	for _ in $(seq 100); do
		grep -qF " $dir fuse.faultfs " /proc/self/mounts && return 0
		kill -0 $! 2>/dev/null || break
		sleep 0.05
	done
	_show "$dir.out"
	skip "FUSE unavailable: faultfs did not mount on $dir: $(tail -n 1 "$dir.out")"
}

# set_fault PATH RULES: give PATH (a file, or a directory for the files
# made in it from now on) the fault RULES; "" clears them.
set_fault() {
	setfattr -n user.fault -v "${2:-none}" -- "$1" ||
		fail "setfattr user.fault='$2' on '$1' failed"
}
clear_fault() { set_fault "$1" none; }

# assert_fault_hit DIR ERE: the log of the faultfs on DIR matches ERE (the
# fault was reached).  Lines look like
#	read /in/src off=1500007 len=131072 -> EIO (injected at 1500007)
#	copy_file_range(write) /out/dst off=0 len=... -> ENOSPC (injected at 0)
#	copy_file_range /in/src off=0 -> /out/dst off=0 len=... -> 3145741
assert_fault_hit() {
	grep -Eq -- "$2" "$1.log" || {
		_show "$1.log"
		fail "faultfs on $1 did not log /$2/: was the fault reached?"
	}
}

# v_chain and assert_chain: see lib.sh.

# assert_side_error reading|writing FILE TEXT: the one message smartcp
# gives names the side and that side's file, as cp does.
assert_side_error() {
	grep -Fxq -e "smartcp: error $1 '$2': $3" \
		-e "$SMARTCP: error $1 '$2': $3" "$ERR" || {
		_show "$ERR"
		fail "no message 'smartcp: error $1 '$2': $3'"
	}
}

# ------------------------------------------------------------- scenarios

# The source: 3 MiB and an odd tail.  The middle fault is odd and past
# the first read_write buffer (256 KiB) and the first splice (1 MiB pipe).
FF_SIZE=$((3 * 1024 * 1024 + 13))
FF_MID=1500007
FF_OLD=65537		# an old destination, for --atomic

# Roads as the table names them, and smartcp's options for each.
FF_ROADS="default copy_file_range splice read_write"
road_opts() {
	case $1 in
	default) ;;
	read_write) echo --road=read_write ;;
	*) echo "--road=$1,read_write" ;;
	esac
}

# shellcheck disable=SC2034 # used by t-faultfs-table.sh
FF_SCENARIOS="size0 size4096 size0_to_local size4096_to_local
eio_read_start eio_read_middle eio_read_end
eio_write_start eio_write_middle eio_write_end eio_write_atomic
enospc_file enospc_file_atomic enospc_fs enospc_fs_atomic
flip_verify"

# ff_setup: two faultfs mounts, each with in/src ($FF_SIZE random bytes,
# also in $T/ref) and out/: $T/ff, and $T/ffcap whose capacity leaves
# room for $FF_MID bytes beside the source.
ff_setup() {
	local m
	random_file "$T/ref" "$FF_SIZE"
	random_file "$T/old.ref" "$FF_OLD"
	mount_faultfs "$T/ff"
	mount_faultfs "$T/ffcap" "capacity=$((FF_SIZE + FF_MID))"
	for m in "$T/ff" "$T/ffcap"; do
		mkdir "$m/in" "$m/out"
		cp "$T/ref" "$m/in/src" || fail "cannot write to faultfs"
		assert_same "$T/ref" "$m/in/src"
	done
	mkdir "$T/local"
}

# ff_cell SCENARIO ROAD: copy $M/in/src with smartcp -v on ROAD under the
# fault SCENARIO, then check: the exit status; bytes (cmp) when it
# succeeds; when it fails, the message naming the side and its file, a
# destination absent or differing from the source and holding nothing
# past the fault (or, with --atomic, the old destination byte for byte,
# same inode); no temporaries; a source unchanged; and from faultfs's log
# that the fault struck on the road asked for.  fail()s on the first
# wrong thing.
ff_cell() {
	local sc=$1 road=$2 M=$T/ff dst_dir src_rule='' dir_rule='' want=0
	local side='' op='' err='' text='' limit='' atomic='' verify='' at=''
	local server=''		# the road is faultfs's own copy_file_range
	local ino left what

	case $road in default|copy_file_range) server=1 ;; esac
	dst_dir=$M/out
	case $sc in
	size0)		src_rule=size=0 ;;
	size4096)	src_rule=size=4096 ;;
	size0_to_local)	src_rule=size=0; dst_dir=$T/local; server= ;;
	size4096_to_local) src_rule=size=4096; dst_dir=$T/local; server= ;;
	eio_read_start)	src_rule=eio_read@0; at=0 ;;
	eio_read_middle) src_rule=eio_read@$FF_MID; at=$FF_MID ;;
	eio_read_end)	src_rule=eio_read@$((FF_SIZE - 1)); at=$((FF_SIZE - 1)) ;;
	eio_write_start) dir_rule=eio_write@0; at=0 ;;
	eio_write_middle) dir_rule=eio_write@$FF_MID; at=$FF_MID ;;
	eio_write_end)	dir_rule=eio_write@$((FF_SIZE - 1)); at=$((FF_SIZE - 1)) ;;
	eio_write_atomic) dir_rule=eio_write@$FF_MID; at=$FF_MID; atomic=1 ;;
	enospc_file)	dir_rule=enospc@$FF_MID; at=$FF_MID ;;
	enospc_file_atomic) dir_rule=enospc@$FF_MID; at=$FF_MID; atomic=1 ;;
	enospc_fs)	M=$T/ffcap; dst_dir=$M/out ;;
	enospc_fs_atomic) M=$T/ffcap; dst_dir=$M/out; atomic=1 ;;
	flip_verify)	src_rule=flip@$FF_MID; verify=1 ;;
	*)		fail "ff_cell: no scenario '$sc'" ;;
	esac
	case $sc in
	eio_read*)	want=1 side=reading op=read err=EIO ;;
	eio_write*)	want=1 side=writing op=write err=EIO ;;
	enospc*)	want=1 side=writing op=write err=ENOSPC ;;
	esac
	case $err in
	EIO)	text='Input/output error' ;;
	ENOSPC)	text='No space left on device' ;;
	esac
	[ -z "$at" ] || limit=$at
	[ -n "$at" ] || [ "$want" -eq 0 ] || limit=$FF_MID

	SRC=$M/in/src
	DST=$dst_dir/dst
	rm -rf "$M/out" "$T/local"
	mkdir "$M/out" "$T/local"
	if [ -n "$atomic" ]; then
		cp "$T/old.ref" "$DST"
		ino=$(stat -c %i "$DST")
	fi
	[ -z "$src_rule" ] || set_fault "$SRC" "$src_rule"
	[ -z "$dir_rule" ] || set_fault "$dst_dir" "$dir_rule"
	: >"$M.log"

	what=${src_rule:+source $src_rule}${dir_rule:+destination $dir_rule}
	[ "$M" = "$T/ff" ] || what="a full faultfs (room for $FF_MID bytes)"
	say "$sc on road $road: $what${atomic:+, --atomic}${verify:+, --verify}"
	# shellcheck disable=SC2046 # road_opts gives one word or none
	assert_exit "$want" "$SMARTCP" -v ${atomic:+--atomic} \
		${verify:+--verify} $(road_opts "$road") "$SRC" "$DST"

	# The source: unchanged, and the size lie really was there.
	[ -z "$src_rule" ] || clear_fault "$SRC"
	assert_same "$T/ref" "$SRC"
	case $src_rule in
	size=*)
		set_fault "$SRC" "$src_rule"
		assert_size "$SRC" "${src_rule#size=}"
		clear_fault "$SRC" ;;
	esac

	if [ "$want" -eq 0 ]; then
		assert_same "$T/ref" "$DST"
		[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty after a copy"; }
		case $road in
		default) [ "$dst_dir" = "$T/local" ] ||
			assert_chain 'copy_file_range.*' ;;
		*) assert_chain "$road.*" ;;
		esac
	else
		case $side in
		reading) assert_side_error reading "$SRC" "$text" ;;
		writing) assert_side_error writing "$DST" "$text" ;;
		esac
		if [ -n "$atomic" ]; then
			assert_same "$T/old.ref" "$DST"
			assert_eq "$(stat -c %i "$DST")" "$ino" "inode of the old destination"
		elif [ -e "$DST" ]; then
			! cmp -s "$T/ref" "$DST" ||
				fail "'$DST' equals the source although the copy failed"
			assert_le "$(stat -c %s "$DST")" "$limit" "bytes left in '$DST'"
		fi
	fi
	left=$(find "$dst_dir" -mindepth 1 -maxdepth 1 ! -name dst -printf '%f ')
	[ -z "$left" ] || fail "temporaries left in $dst_dir: $left"

	# The fault struck where and how it was meant to.
	case $sc in
	eio_*|enospc_file*)
		assert_fault_hit "$M" "^${server:+copy_file_range\\(}$op${server:+\\)} .* off=$at len=[0-9]+ -> $err \\(injected at $at\\)\$" ;;
	enospc_fs*)
		assert_fault_hit "$M" "^${server:+copy_file_range\\(}write${server:+\\)} .* -> ENOSPC \\(capacity" ;;
	size*)
		# size=0: the kernel cuts the count to 0 before asking
		# faultfs; size=4096: faultfs copies those 4096 bytes.
		[ -z "$server" ] || [ "$src_rule" != size=4096 ] ||
			assert_fault_hit "$M" "^copy_file_range /in/src off=0 -> .* -> 4096\$"
		# A kernel road stopped at the size stat gave; read_write
		# carried on to the real end.
		case $road in
		read_write) ;;
		default) assert_chain '.* -> read_write' ;;
		*) assert_chain "$road.* -> read_write" ;;
		esac ;;
	flip_verify)
		if [ -n "$server" ]; then
			assert_fault_hit "$M" "^copy_file_range /out/dst byte $FF_MID flipped"
			assert_chain "copy_file_range -> read_write.*[^0-9]$FF_MID([^0-9].*)?"
		else
			! grep -q flipped "$M.log" || fail "a flip on road $road"
		fi ;;
	esac
	[ -z "$dir_rule" ] || clear_fault "$dst_dir"
	pass "$sc on road $road"
}

# ff_all_roads SCENARIO...: ff_cell for each SCENARIO on each road.
ff_all_roads() {
	local sc road
	for sc in "$@"; do
		for road in $FF_ROADS; do
			ff_cell "$sc" "$road"
		done
	done
}
