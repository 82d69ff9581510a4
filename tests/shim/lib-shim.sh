# Helpers for the fault-shim tests, tests/integration/t-shim-*.sh.
# Sourced after lib.sh, never run:
#
#	. "$(dirname "$0")/lib.sh"
#	. "$(dirname "$0")/../shim/lib-shim.sh"
#
# faultshim.so (see the comment atop faultshim.c for the SMARTCP_FAULT
# rules) stands in for the kernel at the libc boundary.  Every test copies
# $SRC (in $T/in/) to $DST (in $T/out/) on the local disk; the shim only
# touches reads and stats of $T/in/ and writes to $T/out/, so temporary
# files smartcp may make beside the destination count as the destination.

need_shim

mkdir -p "$T/in" "$T/out"
# The shim matches readlink(/proc/self/fd/N), which is canonical.
_shim_t=$(cd "$T" && pwd -P)
SRC=$T/in/src
DST=$T/out/dst
SHIM_LOG=$T/shim.log

# 3 MiB and an odd tail, so no offset below is page or block aligned.
SHIM_SIZE=$((3 * 1024 * 1024 + 13))
# Where the faults "after N bytes" strike: odd, and past the first
# read_write buffer (256 KiB) and the first splice (1 MiB pipe).
SHIM_AT=1000003

# shim_run STATUS FAULTS SMARTCP-ARGS...: copy with smartcp under the shim,
# SMARTCP_FAULT=FAULTS; its exit status must be STATUS.  A destination
# left by an earlier run is removed first.  stdout in $OUT, stderr in
# $ERR, the shim's log in $SHIM_LOG.
shim_run() {
	local want=$1 faults=$2
	shift 2
	rm -f "$DST"
	: >"$SHIM_LOG"
	assert_exit "$want" env -u SMARTCP_FAULT_MATCH \
		LD_PRELOAD="$SHIM" SMARTCP_FAULT="$faults" \
		SMARTCP_FAULT_LOG="$SHIM_LOG" \
		SMARTCP_FAULT_MATCH_SRC="$_shim_t/in/" \
		SMARTCP_FAULT_MATCH_DST="$_shim_t/out/" \
		"$SMARTCP" "$@"
}

# assert_injected ERE: the shim really changed a call (its log matches).
assert_injected() {
	grep -Eq -- "$1" "$SHIM_LOG" || {
		echo "--- shim log:" >&2
		head -n 20 "$SHIM_LOG" >&2
		fail "the shim did not log /$1/: was it reached?"
	}
}

# assert_not_logged ERE: no such call reached the shim (e.g. no write()
# after a failure that must not fall back; needs a "trace" rule).
assert_not_logged() {
	! grep -Eq -- "$1" "$SHIM_LOG" || {
		echo "--- shim log:" >&2
		grep -E -- "$1" "$SHIM_LOG" | head -n 20 >&2
		fail "unexpected /$1/ in the shim log"
	}
}

# v_chain and assert_chain: see lib.sh.

# assert_copied: $DST holds exactly the bytes of $SRC and stderr is quiet.
assert_copied() {
	assert_same "$SRC" "$DST"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty after a copy"; }
}

# assert_not_complete [LIMIT]: after a failed copy $DST does not look
# complete: it is gone, or it differs from $SRC and holds at most LIMIT
# bytes (nothing past the offset where the fault struck).
assert_not_complete() {
	[ -e "$DST" ] || return 0
	! cmp -s "$SRC" "$DST" ||
		fail "'$DST' equals the source although the copy failed"
	[ -z "${1:-}" ] ||
		assert_le "$(stat -c %s "$DST")" "$1" "bytes left in '$DST'"
}

# assert_error reading|writing|either MESSAGE: the error names the side and
# the file of that side, as cp does: "PROG: error reading 'SRC': MESSAGE"
# or "PROG: error writing 'DST': MESSAGE" (either: one of the two, for calls
# that cannot tell).  PROG is smartcp or argv[0] as given, like GNU tools.
assert_error() {
	local side=$1 text=$2 p l
	set --
	for p in smartcp "$SMARTCP"; do
		case $side in
		reading|either) set -- "$@" -e "$p: error reading '$SRC': $text" ;;
		esac
		case $side in
		writing|either) set -- "$@" -e "$p: error writing '$DST': $text" ;;
		esac
	done
	[ $# -gt 0 ] || fail "assert_error: bad side '$side'"
	grep -Fxq "$@" "$ERR" || {
		_show "$ERR"
		fail "no message 'smartcp: error $side ...: $text' in $ERR"
	}
}
