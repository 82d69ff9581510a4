#!/bin/bash
# --json tells the truth about failures: every entry that failed has an
# object with "status":"failed", the type of what failed (a directory, a
# special file, not "file" for everything), the step that failed in
# "failed" (as smartcp(1) lists them) and the errno of the failure in
# "error" -- no "error" at all where the failure has no errno (the same
# file, an omitted directory, --update=none-fail), never a made-up
# EINVAL.  A directory whose entries cannot be read (EACCES) has a failed
# object after the one that said it was made; the summary's "failures"
# is the number of failed objects.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "runs the copies as uid 65534, makes a device node"
need_cmd setpriv jq

NB='setpriv --reuid=65534 --regid=65534 --clear-groups'
chmod 0755 "$T"
mkdir "$T/w"
cd "$T/w"
$NB "$SMARTCP" --version >/dev/null 2>&1 ||
	skip "uid 65534 cannot run $SMARTCP (a directory on its path not searchable?)"

# json_run STATUS ARGS...: smartcp --json ARGS as uid 65534 in $T/w;
# stdout in $T/json.
json_run() {
	local want=$1 rc=0
	shift
	# shellcheck disable=SC2086 # NB is a command and its options
	$NB "$SMARTCP" --json "$@" >"$T/json" 2>"$T/err" || rc=$?
	[ "$rc" -eq "$want" ] || { _show "$T/err"; _show "$T/json"; fail "smartcp --json $*: exited $rc, expected $want"; }
	jq -e . "$T/json" >/dev/null || fail "not valid JSON Lines: $(cat "$T/json")"
}

# record SOURCE [N]: the N-th (default: last) object for SOURCE, as
# "type status error failed" ("-" for a key that is not there).
record() {
	jq -r --arg s "$1" 'select(.source == $s) |
		"\(.type) \(.status) \(.error // "-") \(.failed // "-")"' \
		"$T/json" | sed -n "${2:-\$}p"
}

# assert_record SOURCE WANT [N]
assert_record() {
	local got
	got=$(record "$1" "${3:-}")
	[ "$got" = "$2" ] || { _show "$T/json"; fail "object of '$1': got '$got', expected '$2'"; }
}

# Every failed object says what failed, and the summary counts them.
assert_failures_counted() {
	local n
	n=$(jq -s '[.[] | select(.status == "failed")] | length' "$T/json")
	assert_eq "$(jq -r 'select(has("summary")) | .summary.failures' "$T/json")" \
		"$n" "summary failures against failed objects"
	assert_eq "$(jq -s '[.[] | select(.status == "failed" and
			(has("failed") | not))] | length' "$T/json")" 0 \
		"failed objects without \"failed\""
	assert_eq "$(jq -s '[.[] | select(.error == "EINVAL")] | length' \
		"$T/json")" 0 "objects with a made-up EINVAL"
}

mkdir -p s/ok s/locked
echo x >s/ok/f
echo y >s/locked/g
echo z >s/unreadable
mknod s/null c 1 3
chmod 0 s/locked s/unreadable
chown -R 65534:65534 s
chown 65534:65534 .

say "a tree with an unreadable directory, an unreadable file, a device"
json_run 1 -r s d
assert_record s/locked "directory ok - -" 1
assert_record s/locked "directory failed EACCES read" 2
assert_record s/unreadable "file failed EACCES open"
assert_record s/null "special failed EPERM mknod"
assert_record s/ok/f "file ok - -"
assert_failures_counted
pass "unreadable directory, unreadable file, device node"

say "the same file"
json_run 1 s/ok/f s/ok/f
assert_record s/ok/f "file failed - same-file"
assert_failures_counted

say "a directory without -r"
json_run 1 s/ok d2
assert_record s/ok "directory failed - omitted"
assert_failures_counted

say "--update=none-fail"
echo a >a
echo b >b
chown 65534:65534 a b
json_run 1 --update=none-fail a b
assert_record a "file failed - not-replaced"
assert_failures_counted

say "a source that is not there, a destination that cannot be made"
json_run 1 missing d3
assert_record missing "unknown failed ENOENT stat"
json_run 1 a no/such/dir/x
assert_record a "file failed ENOENT create"
assert_failures_counted

say "a FIFO that cannot be made (-r)"
mkfifo s2fifo
chown 65534:65534 s2fifo
json_run 1 -r s2fifo no/such/dir/fifo
assert_record s2fifo "special failed ENOENT mknod"
assert_failures_counted
pass "each failure names its type, step and errno"
