#!/bin/bash
# Progress and the summary line are for people: on a terminal, --progress
# shows "<done>  <rate>/s  '<file>' [<road>]" while a slow copy runs and
# the summary "N file, ..." at the end; with standard error on a pipe or a
# file neither appears (stderr stays empty); -q on a terminal prints no
# summary and no progress.  The copied bytes are the bytes written.
set -eu
. "$(dirname "$0")/lib.sh"
need_cmd script timeout

cd "$T"

# start_writer FIFO REF: 12 chunks of 1 MiB into FIFO, 0.2 s apart
# (about 2.5 s), each also appended to REF.  Sets $writer.
start_writer() {
	rm -f -- "$1" "$2"
	mkfifo "$1"
	: >"$2"
	timeout 30 bash -c '
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			head -c 1048576 /dev/urandom >"$2.chunk"
			cat "$2.chunk" >>"$2"
			cat "$2.chunk"
			sleep 0.2
		done >"$1"
		rm -f "$2.chunk"' writer "$1" "$2" &
	writer=$!
}

# on_pty OUTFILE CMD...: run CMD on a pseudo-terminal (stdin, stdout and
# stderr all the terminal); what it printed goes to OUTFILE.
on_pty() {
	local out=$1 cmd
	shift
	cmd=$(printf '%q ' "$@")
	timeout 60 script -qec "$cmd" /dev/null </dev/null >"$out"
}

say "--progress on a terminal, slow FIFO source"
start_writer fifo ref
rc=0
on_pty pty.out "$SMARTCP" --progress fifo out1 || rc=$?
wait "$writer" || fail "writer failed ($?)"
assert_eq "$rc" 0 "exit status of smartcp --progress on a pty"
assert_same ref out1
assert_size out1 $((12 * 1024 * 1024))
# progress lines are separated by \r
tr '\r' '\n' <pty.out >pty.lines
assert_grep "MiB/s .*'fifo' \[(read_write|splice|copy_file_range|clone)\]" pty.lines
assert_grep '^(.\[K)?.*: 1 file, 12\.0 MiB in [0-9.]+ s' pty.lines
n=$(grep -c 'MiB/s .*\[' pty.lines || true)
pass "progress shown ($n updates), summary shown, bytes equal"

say "the same copy with stderr on a file: no progress, no summary"
start_writer fifo ref
rc=0
"$SMARTCP" --progress fifo out2 >stdout2 2>stderr2 || rc=$?
wait "$writer" || fail "writer failed ($?)"
assert_eq "$rc" 0 "exit status with stderr to a file"
assert_same ref out2
[ ! -s stderr2 ] || { _show stderr2; fail "stderr not empty when it is a file"; }
[ ! -s stdout2 ] || { _show stdout2; fail "stdout not empty"; }
pass "stderr (a file) empty"

say "the same copy with stderr on a pipe"
start_writer fifo ref
{ rc=0; "$SMARTCP" --progress fifo out3 2>&1 >stdout3 || rc=$?
  echo "$rc" >rc3; } | cat >stderr3
rc=$(cat rc3)
wait "$writer" || fail "writer failed ($?)"
assert_eq "$rc" 0 "exit status with stderr to a pipe"
assert_same ref out3
[ ! -s stderr3 ] || { _show stderr3; fail "stderr not empty when it is a pipe"; }
pass "stderr (a pipe) empty"

say "-q --progress on a terminal: no summary, no progress"
start_writer fifo ref
rc=0
on_pty pty4.out "$SMARTCP" -q --progress fifo out4 || rc=$?
wait "$writer" || fail "writer failed ($?)"
assert_eq "$rc" 0 "exit status of smartcp -q on a pty"
assert_same ref out4
tr '\r' '\n' <pty4.out >pty4.lines
assert_no_grep 'MiB/s' pty4.lines
assert_no_grep '[0-9]+ files?,' pty4.lines
[ ! -s pty4.out ] || { od -c pty4.out | head >&2; fail "-q printed something on the terminal"; }
pass "-q: terminal silent"
