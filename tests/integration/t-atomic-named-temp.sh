#!/bin/bash
# --atomic where O_TMPFILE is missing (FUSE: faultfs): the temporary has
# a name, .smartcp.XXXXXXXXXXXX beside the destination, and every signal that
# can be caught (SIGINT, SIGTERM, SIGHUP, SIGPIPE) removes it before
# smartcp dies, whether the destination is an operand or deep in a tree
# (named through its directory's descriptor); the old destination stays
# whole.  SIGKILL cannot be caught: there the named temporary is left, as
# smartcp(1) says under SIGNALS (it once claimed the temporary "has no
# name" whatever the filesystem).  The fault shim sends each signal at
# an exact point: once 1 MiB of the temporary is written.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"
need_shim

cd "$T"
M=$T/ff
mount_faultfs "$M"
random_file big $((3 * 1024 * 1024))
random_file old.ref 4096

# temporaries DIR: the names of the .smartcp* entries in DIR
temporaries() { find "$1" -maxdepth 1 -name '.smartcp*' -printf '%f\n'; }

# signalled SIG ARGS...: smartcp --atomic ARGS under the shim, which
# sends SIG once a write at offset 1 MiB or later reached a temporary;
# its status in $rc.
signalled() {
	local sig=$1 dfl
	shift
	rc=0
	# (a script's background job starts with SIGINT ignored; SIGKILL
	# has no handler to reset)
	dfl=--default-signal=$sig
	[ "$sig" != KILL ] || dfl=--default-signal=INT
	env "$dfl" LD_PRELOAD="$SHIM" \
		SMARTCP_FAULT="write=run@1M" SMARTCP_FAULT_MATCH_DST=.smartcp. \
		SMARTCP_FAULT_RUN="kill -$sig \$PPID" \
		"$SMARTCP" --atomic --road=read_write "$@" 2>"$ERR" || rc=$?
}

say "no O_TMPFILE on faultfs: --atomic names its temporary"
mkdir -p "$M/d"
cp old.ref "$M/d/dst"
rc=0
LD_PRELOAD="$SHIM" SMARTCP_FAULT="write=run@1M" SMARTCP_FAULT_MATCH_DST=.smartcp. \
	SMARTCP_FAULT_RUN="ls -A '$M/d' >'$T/seen'" \
	"$SMARTCP" --atomic --road=read_write big "$M/d/dst" 2>"$ERR" || rc=$?
assert_eq "$rc" 0 "exit status of the copy"
tmp=$(grep '^\.smartcp\.' "$T/seen" || true)
[ -n "$tmp" ] || skip "no named temporary seen: this faultfs takes O_TMPFILE"
assert_same "$M/d/dst" big
[ -z "$(temporaries "$M/d")" ] || fail "a temporary left after a copy that ended well"
pass "temporary $tmp while copying, none after"

for sig in INT TERM HUP PIPE; do
	say "SIG$sig part-way: the named temporary goes, the old file stays"
	cp old.ref "$M/d/dst"
	signalled "$sig" big "$M/d/dst"
	[ "$rc" -gt 128 ] || { _show "$ERR"; fail "exit $rc, expected death by SIG$sig"; }
	assert_same "$M/d/dst" old.ref
	left=$(temporaries "$M/d")
	[ -z "$left" ] || fail "SIG$sig left the temporary $left"
	pass "SIG$sig: exit $rc, old file whole, no temporary"
done

say "SIGINT part-way deep in a tree (-r): the temporary goes there too"
mkdir -p src/a/b/c
cp big src/a/b/c/f
mkdir -p "$M/t/a/b/c"
cp old.ref "$M/t/a/b/c/f"
signalled INT -r src/. "$M/t"
[ "$rc" -gt 128 ] || { _show "$ERR"; fail "exit $rc, expected death by SIGINT"; }
assert_same "$M/t/a/b/c/f" old.ref
left=$(temporaries "$M/t/a/b/c")
[ -z "$left" ] || fail "SIGINT left the temporary $left in the tree"
pass "exit $rc, old file whole, no temporary in $M/t/a/b/c"

say "SIGNALS in smartcp(1) says so"
man=${abs_top_srcdir:-$TEST_DIR/../..}/man/smartcp.1.in
if [ -f "$man" ]; then
	sed -n '/^\.SH SIGNALS/,/^\.SH /p' "$man" | tr '\n' ' ' >signals.txt
	grep -q 'O_TMPFILE' signals.txt && grep -q 'smartcp\. XXXXXX' signals.txt &&
		grep -q 'SIGKILL leaves there' signals.txt ||
		fail "SIGNALS in $man does not say that SIGKILL leaves the named temporary"
	pass "it says the named temporary is left by SIGKILL where O_TMPFILE is missing"
else
	say "SKIPPED: no man/smartcp.1.in at $man"
fi

say "SIGKILL cannot be caught: the named temporary stays (as SIGNALS says)"
cp old.ref "$M/d/dst"
signalled KILL big "$M/d/dst"
assert_eq "$rc" 137 "exit status after SIGKILL"
assert_same "$M/d/dst" old.ref
left=$(temporaries "$M/d")
[ -n "$left" ] || fail "no temporary after SIGKILL: SIGNALS says one is left where O_TMPFILE is missing"
rm -f "$M/d/$left"
pass "old file whole; $left left behind, as documented"
