#!/bin/bash
# --atomic: the destination is the old file or the complete new one, never
# anything in between.  (a) ENOSPC leaves the old destination intact and no
# temporary behind; (b) without --atomic the same failure does not leave a
# destination that looks complete; (c) SIGKILL, SIGINT or SIGTERM mid-copy
# leave the old file intact and no temporary (O_TMPFILE: the temporary
# never had a name); (d) success puts a new inode in place, with the old
# file's mode when not preserving, while a reader of the old file keeps
# reading the old bytes.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd timeout

cd "$T"

# no_temporaries DIR WHAT: DIR holds no .smartcp* (nor any other new) entry.
no_temporaries() {
	local left
	left=$(find "$1" -mindepth 1 -maxdepth 1 -name '.smartcp*' -printf '%f\n')
	[ -z "$left" ] || fail "$2: temporaries left in $1: $left"
}

# ---------------------------------------------------------------- (a) (b)
M=$T/small
mount_tmpfs "$M" 8M
random_file src12 $((12 * 1024 * 1024))

say "(a) --atomic, ENOSPC on an 8 MiB tmpfs: old destination intact"
random_file "$M/dst" $((1024 * 1024))
cp -p "$M/dst" old.ref
ino=$(stat -c %i "$M/dst")
assert_exit 1 "$SMARTCP" --atomic src12 "$M/dst"
assert_grep "'$M/dst'" "$ERR"
assert_grep 'No space left on device' "$ERR"
assert_same "$M/dst" old.ref
assert_eq "$(stat -c %i "$M/dst")" "$ino" "inode of the old destination"
no_temporaries "$M" "--atomic after ENOSPC"
assert_eq "$(ls -A "$M")" dst "entries of $M"
pass "exit 1, '$(head -n 1 "$ERR")', old file intact, no temporary"

say "(b) without --atomic, the same ENOSPC"
assert_exit 1 "$SMARTCP" src12 "$M/dst"
assert_grep "'$M/dst'" "$ERR"
if [ -e "$M/dst" ] && cmp -s src12 "$M/dst"; then
	fail "destination looks complete after ENOSPC"
fi
no_temporaries "$M" "plain copy after ENOSPC"
pass "exit 1, destination $([ -e "$M/dst" ] && echo "a $(stat -c %s "$M/dst")-byte prefix" || echo absent)"

# --------------------------------------------------------------- (c)
E=$T/ext4
mount_ext4 "$E"

# start_writer FIFO REF: a slow source: 1 MiB every 0.2 s for 6 s.
start_writer() {
	rm -f -- "$1"
	mkfifo "$1"
	timeout 30 bash -c '
		for i in $(seq 30); do
			head -c 1048576 /dev/urandom || exit
			sleep 0.2
		done >"$1"' writer "$1" 2>/dev/null &
	writer=$!
}

kill_midway() {
	local sig=$1 want=$2 pid rc left
	say "(c) --atomic from a slow FIFO, kill -$sig after 1 s"
	random_file "$E/dst" 54321
	chmod 0640 "$E/dst"
	cp -p "$E/dst" old.ref
	ino=$(stat -c %i "$E/dst")
	start_writer fifo
	# (a script's background job starts with SIGINT ignored)
	env --default-signal=INT "$SMARTCP" --atomic fifo "$E/dst" 2>err.$sig &
	pid=$!
	sleep 1
	# still copying: the temporary has no name in the directory
	kill -0 "$pid" 2>/dev/null || fail "smartcp ended before the kill"
	left=$(ls -A "$E" | grep -vx -e dst -e lost+found || true)
	[ -z "$left" ] || fail "visible temporary during the copy: $left"
	grep -q "$E/#[0-9]* (deleted)" <(ls -l /proc/"$pid"/fd/ 2>/dev/null) ||
		say "note: no O_TMPFILE fd seen in /proc/$pid/fd"
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	kill "$writer" 2>/dev/null || true
	wait "$writer" 2>/dev/null || true
	assert_eq "$rc" "$want" "exit status after SIG$sig (128 + signal: died by it)"
	assert_same "$E/dst" old.ref
	assert_eq "$(stat -c '%i %a' "$E/dst")" "$ino 640" "inode and mode of the old destination"
	no_temporaries "$E" "after SIG$sig"
	assert_eq "$(ls -A "$E" | grep -vx lost+found)" dst "entries of $E after SIG$sig"
	pass "SIG$sig: status $rc, old file intact, no temporary"
}
kill_midway KILL 137
kill_midway INT 130
kill_midway TERM 143

# --------------------------------------------------------------- (d)
say "(d) success: new inode, old mode kept, old readers read the old bytes"
random_file "$E/dst" 100000
chmod 0640 "$E/dst"
cp "$E/dst" old.ref
random_file "$E/new" 200000
chmod 0755 "$E/new"
ino=$(stat -c %i "$E/dst")
exec 3<"$E/dst"
assert_exit 0 "$SMARTCP" --atomic "$E/new" "$E/dst"
cat <&3 >readback
exec 3<&-
assert_same readback old.ref
assert_same "$E/new" "$E/dst"
[ "$(stat -c %i "$E/dst")" != "$ino" ] || fail "--atomic reused the inode $ino"
assert_eq "$(stat -c %a "$E/dst")" 640 "mode after --atomic (old file's, not preserving)"
no_temporaries "$E" "after success"
pass "new inode, mode 640 kept, reader of the old file read the old bytes"

say "(d) with -p the source's mode wins"
assert_exit 0 "$SMARTCP" --atomic -p "$E/new" "$E/dst"
assert_same "$E/new" "$E/dst"
assert_eq "$(stat -c %a "$E/dst")" 755 "mode after --atomic -p"
pass "-p: mode 755"

say "(d) onto an absent destination: the source's mode under the umask"
umask 022
assert_exit 0 "$SMARTCP" --atomic "$E/new" "$E/fresh"
assert_same "$E/new" "$E/fresh"
assert_eq "$(stat -c %a "$E/fresh")" 755 "mode of a new --atomic copy"
no_temporaries "$E" "after a new file"
pass "new file, mode 755"
