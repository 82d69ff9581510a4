#!/bin/bash
# What install hooks meet: a destination that is a running program
# (ETXTBSY) is replaced with --remove-destination or --atomic, as install
# does, and refused otherwise as cp refuses it; -x stays on one
# filesystem; sockets, FIFOs and device nodes are recreated under -a.
set -eu
. "$(dirname "$0")/lib.sh"

say "a running program as destination"
cp /bin/sleep "$T/prog"
cp /bin/true "$T/newprog"
"$T/prog" 30 &
pid=$!
trap 'kill $pid 2>/dev/null || true; _cleanup' EXIT
sleep 0.2
rc=0
"$SMARTCP" "$T/newprog" "$T/prog" 2>"$T/err" || rc=$?
assert_eq "$rc" 1 "exit status without --remove-destination"
assert_grep "cannot create regular file '$T/prog': Text file busy" "$T/err"
cmp -s /bin/sleep "$T/prog" || fail "the running program was changed"
for opt in --remove-destination --atomic; do
	cp /bin/sleep "$T/prog2"
	"$T/prog2" 30 &
	pid2=$!
	sleep 0.2
	"$SMARTCP" "$opt" "$T/newprog" "$T/prog2" ||
		fail "smartcp $opt failed on a running program"
	assert_same "$T/newprog" "$T/prog2"
	kill "$pid2"
	wait "$pid2" 2>/dev/null || true
	pass "$opt replaced a running program"
done
kill $pid
wait $pid 2>/dev/null || true

say "-a recreates a socket, a FIFO and a device node"
mkdir -p "$T/sp"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/sp/sock"
mkfifo "$T/sp/fifo"
if [ "$(id -u)" = 0 ]; then mknod "$T/sp/null" c 1 3; fi
"$SMARTCP" -a "$T/sp" "$T/sp2"
[ -S "$T/sp2/sock" ] || fail "socket not recreated"
[ -p "$T/sp2/fifo" ] || fail "FIFO not recreated"
if [ "$(id -u)" = 0 ]; then
	[ -c "$T/sp2/null" ] || fail "device not recreated"
	assert_eq "$(stat -c %t:%T "$T/sp2/null")" "$(stat -c %t:%T "$T/sp/null")" "device numbers"
fi
pass "special files recreated"

if [ "$(id -u)" = 0 ]; then
	say "-x: a mount point is made, not entered"
	mkdir -p "$T/x/src/mnt" "$T/x/src/plain"
	echo top >"$T/x/src/plain/f"
	mount_tmpfs "$T/x/src/mnt" 8M
	echo inner >"$T/x/src/mnt/inner"
	"$SMARTCP" -rx "$T/x/src" "$T/x/dst"
	assert_same "$T/x/src/plain/f" "$T/x/dst/plain/f"
	[ -d "$T/x/dst/mnt" ] || fail "the mount point directory was not made"
	[ ! -e "$T/x/dst/mnt/inner" ] || fail "-x copied another filesystem"
	"$SMARTCP" -r "$T/x/src" "$T/x/dst2"
	assert_same "$T/x/src/mnt/inner" "$T/x/dst2/mnt/inner"
	pass "-x stays on one filesystem; without it the mount is copied"
else
	echo "SKIP part: -x needs root to mount" >&2
fi
