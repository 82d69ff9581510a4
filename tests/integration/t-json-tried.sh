#!/bin/bash
# --json's "tried" is the road chain, and the chain is what the kernel was
# asked: for every road, the bytes it delivered and the error that ended
# it, as strace saw the calls.  A copy that fails on its first step names
# the road and its error; bytes written by the failing step count; the
# object's "bytes" is their sum, its "error" the last road's and its
# "road" null.  Cases: ENOSPC (a 2 MiB tmpfs, on splice, read_write and
# copy_file_range), EFBIG (ulimit -f, on each road) and an empty file,
# whose end one read finds (read_write), not a kernel road never called.
# EIO: t-json-tried-faultfs.sh; EAGAIN: t-lib-chain-eagain.sh.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-chain.sh"
need_root "mounts tmpfs"
need_cmd strace jq realpath

# chain_case WHAT STATUS SRC DST [SMARTCP-OPTIONS...]: smartcp --json SRC
# DST under strace; exit STATUS; its "tried" is the chain strace saw; the
# totals agree with it.
chain_case() {
	local what=$1 want=$2 src=$3 dst=$4 rc=0 got saw sum last
	shift 4
	rm -f "$dst"
	say "$what"
	trace_chain "$T/strace" "$SMARTCP" --json "$@" "$src" "$dst" \
		>"$T/json" 2>"$T/err" || rc=$?
	[ "$rc" -eq "$want" ] || { _show "$T/err"; _show "$T/json"; fail "$what: exited $rc, expected $want"; }
	got=$(json_chain "$T/json")
	saw=$(strace_chain "$T/strace" "$(realpath "$src")" \
			   "$(realpath -m "$dst")")
	[ -n "$saw" ] || fail "$what: strace saw no road at all"
	assert_chains_equal "$what" "$got" "$saw"
	sum=$(printf '%s\n' "$got" | awk '{ s += $3 } END { print s + 0 }')
	last=$(printf '%s\n' "$got" | awk 'END { print $2 }')
	assert_eq "$(jq -r 'select(has("source")) | .bytes' "$T/json")" "$sum" \
		"$what: \"bytes\" against the sum of \"tried\""
	if [ "$want" -eq 0 ]; then
		assert_eq "$last" ok "$what: the last road's result"
		assert_eq "$(jq -r 'select(has("source")) | .road' "$T/json")" \
			"$(printf '%s\n' "$got" | awk 'END { print $1 }')" \
			"$what: \"road\""
	else
		assert_eq "$(jq -r 'select(has("source")) | .error' "$T/json")" \
			"$last" "$what: \"error\" against the last road's result"
		assert_eq "$(jq -r 'select(has("source")) | .road' "$T/json")" \
			null "$what: \"road\" of a copy that failed"
	fi
	pass "$what: $(printf '%s\n' "$got" | tr '\n' ';')"
}

mount_tmpfs "$T/small" 2M
mount_tmpfs "$T/room" 64M
mkdir "$T/in"
random_file "$T/in/big" $((3 * 1024 * 1024 + 13))

# ENOSPC: the first road that meets it names it.
chain_case "ENOSPC, default road (splice)" 1 "$T/in/big" "$T/small/out"
chain_case "ENOSPC, read_write" 1 "$T/in/big" "$T/small/out" --road=read_write
chain_case "ENOSPC, splice" 1 "$T/in/big" "$T/small/out" --road=splice
# within one tmpfs: copy_file_range, the source beside it
mount_tmpfs "$T/one" 4M
random_file "$T/one/big" $((2 * 1024 * 1024 + 13))
chain_case "ENOSPC, copy_file_range" 1 "$T/one/big" "$T/one/out" \
	--road=copy_file_range
assert_grep 'copy_file_range ENOSPC' <(json_chain "$T/json")

# EFBIG: the file size limit strikes in the middle of a step, which
# still wrote up to the limit: those bytes count.
limit=977	# KiB: not a multiple of any buffer or pipe
efbig() {
	local what=$1 src=$2
	shift 2
	rm -f "$T/room/out"
	say "$what"
	trace_chain "$T/strace" bash -c \
		"trap '' XFSZ; ulimit -f $limit; exec \"\$0\" \"\$@\"" \
		"$SMARTCP" --json "$@" "$src" "$T/room/out" \
		>"$T/json" 2>"$T/err" && fail "$what: exited 0"
	assert_chains_equal "$what" "$(json_chain "$T/json")" \
		"$(strace_chain "$T/strace" "$(realpath "$src")" \
				"$(realpath -m "$T/room/out")")"
	assert_eq "$(json_chain "$T/json" | awk 'END { print $2 }')" EFBIG \
		"$what: the last road's result"
	assert_eq "$(jq -r 'select(has("source")) | .bytes' "$T/json")" \
		$((limit * 1024)) "$what: bytes written up to the limit"
	assert_eq "$(jq -r 'select(has("source")) | .error' "$T/json")" EFBIG \
		"$what: error"
	pass "$what: $(json_chain "$T/json" | tr '\n' ';')"
}
efbig "EFBIG, read_write" "$T/in/big" --road=read_write
efbig "EFBIG, splice" "$T/in/big" --road=splice
cp "$T/in/big" "$T/room/big"
efbig "EFBIG, copy_file_range" "$T/room/big" --road=copy_file_range
assert_eq "$(json_chain "$T/json")" "copy_file_range EFBIG $((limit * 1024))" \
	"EFBIG, copy_file_range: chain"

# An empty file: one read finds its end; no kernel road is called.
: >"$T/in/empty"
: >"$T/room/empty"
chain_case "empty file, same filesystem" 0 "$T/room/empty" "$T/room/out"
assert_eq "$(json_chain "$T/json")" "read_write ok 0" "empty file: chain"
assert_calls "$T/strace" copy_file_range -eq 0
chain_case "empty file, to tmpfs" 0 "$T/in/empty" "$T/room/out"
assert_eq "$(json_chain "$T/json")" "read_write ok 0" "empty file: chain"
assert_calls "$T/strace" splice -eq 0
# cp --debug says no offload was used for it, nor refused: none was asked
mkdir "$T/bin"
ln -s "$SMARTCP" "$T/bin/cp"
rm -f "$T/room/out"
assert_exit 0 "$T/bin/cp" --debug "$T/room/empty" "$T/room/out"
assert_grep '^copy offload: unknown, ' "$OUT"
pass "empty file: cp --debug says copy offload: unknown"
