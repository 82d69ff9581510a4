#!/bin/bash
# Interrupted in the middle of a copy (SIGINT, SIGTERM, SIGHUP), smartcp
# removes the destination it was writing, so no file looks complete when
# it is not; the source is untouched.  SIGKILL cannot be caught: there
# only --atomic protects (t-atomic.sh).  A signal the caller ignores
# (nohup's SIGHUP; SIGINT for a script's background job) stays ignored,
# as it does for cp: the copy goes on and finishes whole.
set -eu
. "$(dirname "$0")/lib.sh"

# slow_writer FIFO REF: 1 MiB every 0.2 s for ~3 s, also kept in REF; it
# ends by itself (timeout) and holds none of the test's descriptors
slow_writer() {
	timeout 6 bash -c '
		for _ in $(seq 15); do
			head -c 1M /dev/urandom | tee -a "$2"
			sleep 0.2
		done >"$1"' bash "$1" "$2" </dev/null >/dev/null 2>&1
}

# copy_then_signal SIG CMD...: run CMD "$T/fifo" "$T/dst" in the
# background while slow_writer feeds the FIFO (all it wrote also goes to
# $T/ref), send SIG after 1 s, wait; CMD's exit status in $rc.
copy_then_signal() {
	local sig=$1 wpid pid
	shift
	rm -f "$T/fifo" "$T/ref" "$T/dst"
	mkfifo "$T/fifo"
	slow_writer "$T/fifo" "$T/ref" &
	wpid=$!
	"$@" "$T/fifo" "$T/dst" 2>"$T/err" &
	pid=$!
	sleep 1
	[ -e "$T/dst" ] || fail "the copy had not started"
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
}

for sig in INT TERM HUP; do
	say "SIG$sig in the middle of a copy from a slow source"
	# A script's background job starts with SIGINT ignored; --default-
	# signal gives the job what a shell's foreground job would have.
	copy_then_signal "$sig" env --default-signal="$sig" "$SMARTCP"
	[ "$rc" -gt 128 ] || fail "exit $rc, expected death by SIG$sig"
	[ ! -e "$T/dst" ] || fail "a partial destination was left: $(stat -c %s "$T/dst") bytes"
	pass "SIG$sig: exit $rc, no partial destination"
done

say "SIGINT during a tree copy with workers: no partial file left"
mkdir -p "$T/tree/a" "$T/tree/b"
for i in $(seq 40); do head -c 300000 /dev/urandom >"$T/tree/a/f$i"; done
mkfifo "$T/tree/b/zz-fifo"
# --copy-contents: the FIFO operand is read, after the tree; the tree copy
# is done by then, the FIFO is not
rm -f "$T/ref"
slow_writer "$T/tree/b/zz-fifo" "$T/ref" &
wpid=$!
mkdir "$T/out"
env --default-signal=INT "$SMARTCP" -r --copy-contents "$T/tree/a" \
	"$T/tree/b/zz-fifo" "$T/out/" 2>"$T/err" &
pid=$!
sleep 1
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
[ "$rc" -gt 128 ] || fail "exit $rc, expected death by SIGINT"
[ ! -e "$T/out/zz-fifo" ] || fail "the interrupted file was left"
for i in $(seq 40); do
	assert_same "$T/tree/a/f$i" "$T/out/a/f$i"
done
pass "finished files kept, the interrupted one removed"

for sig in HUP INT; do
	say "SIG$sig ignored by the caller (nohup, a background job): the copy finishes"
	copy_then_signal "$sig" bash -c 'trap "" "$1"; shift; exec "$@"' bash \
		"$sig" "$SMARTCP"
	[ "$rc" -eq 0 ] || fail "exit $rc after an ignored SIG$sig, expected 0"
	assert_same "$T/ref" "$T/dst"
	pass "SIG$sig ignored: exit 0, $(stat -c %s "$T/dst") bytes, all of them"
done

say "SIGINT deeper than PATH_MAX: the partial file there is removed too"
# 50 levels of 100-byte names: the handler removes the file by its
# directory's descriptor, not by its 5,000-byte path
printf -v pad '%96s' ''
pad=${pad// /d}
mkdir "$T/deep"
(
	cd "$T/deep"
	for i in $(seq -f %04g 50); do
		mkdir "$pad$i"
		cd "$pad$i"
	done
	# made first, copied first (the walk's order is the inodes')
	printf 'copied whole\n' >a-file
	mkfifo zz-fifo
)
rm -f "$T/ref"
env --default-signal=INT "$SMARTCP" -r --copy-contents "$T/deep" \
	"$T/deepout" 2>"$T/err" &
pid=$!
# the walk waits at the bottom, opening the FIFO, once a-file is copied:
# only then the writer (a slow build, a sanitizer's, may take seconds
# to get down there)
for _ in $(seq 300); do
	(
		cd "$T/deepout"
		for i in $(seq -f %04g 50); do
			cd "$pad$i"
		done
		[ -e a-file ]
	) 2>/dev/null && break
	sleep 0.1
done
(
	cd "$T/deep"
	for i in $(seq -f %04g 50); do
		cd "$pad$i"
	done
	slow_writer zz-fifo "$T/ref"
) &
wpid=$!
sleep 1
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -gt 128 ] || fail "exit $rc, expected death by SIGINT"
# the writer, in a subshell (it must cd down), ends by itself: the FIFO
# has no reader now
wait "$wpid" 2>/dev/null || true
left=$(
	cd "$T/deepout"
	for i in $(seq -f %04g 50); do
		cd "$pad$i"
	done
	ls
)
[ "$left" = "a-file" ] || fail "left at the bottom: $left"
pass "the bottom holds its finished file, not the interrupted one"

if command -v script >/dev/null 2>&1; then
	say "on a terminal, the interrupted run says how far it got"
	rm -rf "$T/out"
	mkdir "$T/out"
	rm -f "$T/ref"
	slow_writer "$T/tree/b/zz-fifo" "$T/ref" &
	wpid=$!
	cmd=$(printf '%q ' timeout -s INT 1 "$SMARTCP" -r --copy-contents \
		"$T/tree/a" "$T/tree/b/zz-fifo" "$T/out/")
	timeout 60 script -qec "$cmd" /dev/null </dev/null >"$T/pty" || true
	wait "$wpid" 2>/dev/null || true	# ends by itself, as above
	# 40 files of 300,000 bytes, then the FIFO, which the signal cuts
	# (a slow build may still be in the tree: N is what it copied)
	line=$(tr -d '\r' <"$T/pty" | grep -E "interrupted by SIGINT after [0-9]+ files \([0-9]+ bytes\) were copied(; the file being written was removed)?$") ||
		{ _show "$T/pty"; fail "no line saying how far it got"; }
	n=$(printf '%s\n' "$line" | sed -E 's/.* after ([0-9]+) files \(([0-9]+) bytes.*/\1 \2/')
	[ "${n% *}" -le 40 ] && [ "${n#* }" -eq $(( ${n% *} * 300000 )) ] ||
		fail "the line counts wrong: $line"
	[ ! -e "$T/out/zz-fifo" ] || fail "the interrupted file was left"
	pass "said: ...${line#*: }"
	say "off a terminal (a script), nothing more is said"
	grep -q "interrupted by" "$T/err" && fail "said off a terminal"
	pass "stderr of the earlier runs has no such line"
fi
