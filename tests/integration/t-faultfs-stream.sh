#!/bin/bash
# A regular file opened as a stream (FUSE FOPEN_NONSEEKABLE; some /proc and
# debugfs files too) refuses pread, pwrite and offsets with ESPIPE.  cp
# reads and writes it with read() and write(); smartcp did pread and
# failed with "Illegal seek".  Now such a source or destination is copied
# whole on every road asked for (the offset roads step aside to
# read_write), and writing into /proc/version fails as cp's does.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"
need_cmd strace

ff_setup
S=$T/ff/in/src
set_fault "$S" stream
# the rule holds: lseek on it is refused (perl is Essential on Debian)
perl -e 'open(F, "<", $ARGV[0]) or die "open: $!\n";
	sysseek(F, 4096, 0) and exit 0; print "$!\n"; exit 1' "$S" >"$T/seek" &&
	fail "lseek worked on a stream file: the rule did not hold"
assert_grep "Illegal seek" "$T/seek"

# The offset roads are asked first; their ESPIPE (or, where faultfs
# itself copies, success) decides, read_write is the fallback.
for road in default copy_file_range splice read_write; do
	opt=()
	case $road in
	default) ;;
	read_write) opt=(--road=read_write) ;;
	*) opt=(--road="$road,read_write") ;;
	esac
	say "stream source -> local disk, road $road"
	rm -f "$T/local/dst"
	assert_exit 0 "$SMARTCP" -v "${opt[@]}" "$S" "$T/local/dst"
	assert_same "$T/ref" "$T/local/dst"
	pass "$(cat "$OUT")"

	say "local file -> an existing stream destination, road $road"
	random_file "$T/ff/out/dst" 1000
	set_fault "$T/ff/out/dst" stream
	assert_exit 0 "$SMARTCP" -v "${opt[@]}" "$T/ref" "$T/ff/out/dst"
	clear_fault "$T/ff/out/dst"
	assert_same "$T/ref" "$T/ff/out/dst"
	pass "$(cat "$OUT")"
done

say "stream source through a pipe into a stream destination"
random_file "$T/ff/out/dst" 1000
set_fault "$T/ff/out/dst" stream
assert_exit 0 bash -c 'cat "$1" | "$2" /dev/stdin "$3"' bash "$S" "$SMARTCP" "$T/ff/out/dst"
clear_fault "$T/ff/out/dst"
assert_same "$T/ref" "$T/ff/out/dst"
pass "whole"

say "--verify of a stream source (digests of what read() gave)"
rm -f "$T/local/dst"
assert_exit 0 "$SMARTCP" -v --verify "$S" "$T/local/dst"
assert_grep "verified\\]\$" "$OUT"
assert_same "$T/ref" "$T/local/dst"
pass "$(cat "$OUT")"
clear_fault "$S"

say "--verify into a stream destination: refused before writing a byte"
# (opening it truncated it, as any failed overwrite without --atomic
# does; the truncated file is removed, so nothing looks complete)
random_file "$T/ff/out/dst" 1000
set_fault "$T/ff/out/dst" stream
: >"$T/ff.log"
assert_exit 1 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -y -o "$T/ff.log" -e trace=write,pwrite64,splice,copy_file_range \
	"$SMARTCP" --verify "$T/ref" "$T/ff/out/dst"
assert_grep "cannot verify '$T/ff/out/dst': nothing written there can be read back" "$ERR"
assert_no_grep "<$T/ff/out/dst>" "$T/ff.log"
[ ! -e "$T/ff/out/dst" ] || ! cmp -s "$T/ref" "$T/ff/out/dst" ||
	fail "the destination looks complete"
pass "$(cat "$ERR")"

say "writing into /proc/version fails with cp's error, not 'Illegal seek'"
echo data >"$T/a"
assert_exit 1 "$SMARTCP" "$T/a" /proc/version
assert_grep "error writing '/proc/version': Input/output error" "$ERR"
pass "$(cat "$ERR")"
