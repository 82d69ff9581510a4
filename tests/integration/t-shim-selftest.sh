#!/bin/bash
# The fault shim itself, driven by coreutils rather than smartcp, so that a
# failing t-shim-* test can be blamed on the right party: without rules it
# changes nothing; its rules cut, fail, lie and fake as faultshim.c says;
# a malformed SMARTCP_FAULT stops the program with status 99.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"
need_cmd dd cp stat

random_file "$SRC" "$SHIM_SIZE"

# under FAULTS CMD...: CMD with the shim, filters as in shim_run.
under() {
	local faults=$1
	shift
	: >"$SHIM_LOG"
	env -u SMARTCP_FAULT_MATCH LD_PRELOAD="$SHIM" SMARTCP_FAULT="$faults" \
		SMARTCP_FAULT_LOG="$SHIM_LOG" \
		SMARTCP_FAULT_MATCH_SRC="$_shim_t/in/" \
		SMARTCP_FAULT_MATCH_DST="$_shim_t/out/" "$@"
}

say "no rules: nothing changes, nothing is logged"
rm -f "$DST"
under "" dd if="$SRC" of="$DST" bs=64k status=none ||
	fail "dd failed under the shim without rules"
assert_same "$SRC" "$DST"
[ ! -s "$SHIM_LOG" ] || fail "the shim logged without rules"
pass "transparent"

say "read=eio@$SHIM_AT: exactly $SHIM_AT bytes arrive, then EIO"
rm -f "$DST"
assert_exit 1 under "read=eio@$SHIM_AT" dd if="$SRC" of="$DST" bs=64k \
	status=none
assert_grep "Input/output error" "$ERR"
assert_size "$DST" "$SHIM_AT"
cmp -s -n "$SHIM_AT" "$SRC" "$DST" || fail "the bytes before the fault differ"
assert_injected "^read\\(.* off=$SHIM_AT .*-> EIO \\(injected: read=eio@$SHIM_AT\\)"
pass "cut at $SHIM_AT, then EIO"

say "write=enospc@$SHIM_AT"
rm -f "$DST"
assert_exit 1 under "write=enospc@$SHIM_AT" dd if="$SRC" of="$DST" bs=64k \
	status=none
assert_grep "No space left on device" "$ERR"
assert_size "$DST" "$SHIM_AT"
pass "ENOSPC after $SHIM_AT bytes"

say "read=eintr@every:2, write=short:4096: dd retries, all bytes arrive"
rm -f "$DST"
under "read=eintr@every:2,write=short:4096" dd if="$SRC" of="$DST" bs=64k \
	status=none || fail "dd failed"
assert_same "$SRC" "$DST"
assert_injected '^read\(.*-> EINTR \(injected'
assert_injected '^write\(.*-> 4096 of 65536 asked \(shortened'
pass "EINTR and short writes"

say "stat=size:0 lies to statx for the source only"
assert_eq "$(under stat=size:0 stat -c %s "$SRC")" 0 "size of the source"
assert_injected "-> st_size 0 instead of $SHIM_SIZE"
assert_eq "$(under stat=size:0 stat -c %s "$0")" "$(stat -c %s "$0")" \
	"size of a file the filters leave out"
pass "size lie"

say "clone=ok and clone=flip:12345 make FICLONE work on any filesystem"
rm -f "$DST"
under clone=ok cp --reflink=always "$SRC" "$DST" || fail "cp failed"
assert_same "$SRC" "$DST"
assert_injected "FICLONE.*-> 0, copied $SHIM_SIZE bytes \\(injected: clone=ok\\)"
rm -f "$DST"
under clone=flip:12345 cp --reflink=always "$SRC" "$DST" || fail "cp failed"
# cmp -l: one line per differing byte, numbered from 1.
assert_eq "$(cmp -l "$SRC" "$DST" | awk '{ print $1 }' | tr '\n' ' ')" \
	"12346 " "differing bytes"
pass "fake clones"

say "clone=eopnotsupp"
rm -f "$DST"
assert_exit 1 under clone=eopnotsupp cp --reflink=always "$SRC" "$DST"
assert_injected 'FICLONE.*-> EOPNOTSUPP \(injected'
pass "refused clone"

say "a malformed rule stops the program with status 99"
for bad in nosuch=eio read=nosuch cfr=size:1 read=eio@x read=short:0 \
	   stat=size clone=zero read; do
	assert_exit 99 under "$bad" true
	assert_grep "^faultshim: SMARTCP_FAULT: " "$ERR"
done
pass "bad rules refused"
