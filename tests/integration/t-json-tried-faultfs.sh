#!/bin/bash
# --json's "tried" against strace when EIO ends a copy (the fault
# filesystem delivers it): reading the source or writing the
# destination, on the first step or part way, on each road.  The road
# that met EIO names it with the bytes it delivered before, and no road
# is shown as "ok" that ended in EIO.  (ENOSPC, EFBIG and an empty file:
# t-json-tried.sh.)
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"
. "$(dirname "$0")/lib-chain.sh"
need_cmd strace jq realpath

M=$T/ff
mount_faultfs "$M"
mkdir "$M/in" "$M/out" "$T/local"
random_file "$T/ref" "$FF_SIZE"
cp "$T/ref" "$M/in/src"
cp "$T/ref" "$T/local/src"

# eio_case WHAT SRC DST [SMARTCP-OPTIONS...]: the copy fails with EIO;
# its chain is what strace saw and ends in EIO.
eio_case() {
	local what=$1 src=$2 dst=$3 got saw
	shift 3
	rm -f "$dst"
	say "$what"
	trace_chain "$T/strace" "$SMARTCP" --json "$@" "$src" "$dst" \
		>"$T/json" 2>"$T/err" && fail "$what: exited 0"
	got=$(json_chain "$T/json")
	saw=$(strace_chain "$T/strace" "$(realpath "$src")" \
			   "$(realpath -m "$dst")")
	assert_chains_equal "$what" "$got" "$saw"
	assert_eq "$(printf '%s\n' "$got" | awk 'END { print $2 }')" EIO \
		"$what: the last road's result"
	assert_eq "$(printf '%s\n' "$got" | grep -c ' EIO ')" 1 \
		"$what: roads that met EIO"
	assert_eq "$(jq -r 'select(has("source")) | .bytes' "$T/json")" \
		"$(printf '%s\n' "$got" | awk '{ s += $3 } END { print s + 0 }')" \
		"$what: \"bytes\" against the sum of \"tried\""
	assert_eq "$(jq -r 'select(has("source")) | "\(.error) \(.road)"' "$T/json")" \
		"EIO null" "$what: error and road"
	pass "$what: $(printf '%s\n' "$got" | tr '\n' ';')"
}

# Reading the source: faultfs to the local disk.
for at in 0 "$FF_MID"; do
	set_fault "$M/in/src" "eio_read@$at"
	eio_case "EIO reading at $at, default road" "$M/in/src" "$T/local/dst"
	eio_case "EIO reading at $at, read_write" "$M/in/src" "$T/local/dst" \
		--road=read_write
	eio_case "EIO reading at $at, splice" "$M/in/src" "$T/local/dst" \
		--road=splice
	# the server's own copy within faultfs
	eio_case "EIO reading at $at, copy_file_range" "$M/in/src" "$M/out/dst" \
		--road=copy_file_range
	clear_fault "$M/in/src"
done
[ "$(json_chain "$T/json")" != "" ] || fail "no chain"

# Writing the destination: the local disk to faultfs.
for at in 0 "$FF_MID"; do
	set_fault "$M/out" "eio_write@$at"
	eio_case "EIO writing at $at, default road" "$T/local/src" "$M/out/dst"
	eio_case "EIO writing at $at, read_write" "$T/local/src" "$M/out/dst" \
		--road=read_write
	eio_case "EIO writing at $at, splice" "$T/local/src" "$M/out/dst" \
		--road=splice
	clear_fault "$M/out"
done
assert_fault_hit "$M" "-> EIO \\(injected at $FF_MID\\)"
