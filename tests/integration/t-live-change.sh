#!/bin/bash
# A source that changes while it is copied, on every road (clone,
# copy_file_range, splice, read_write), made to happen at an exact point
# with no race: the fault shim's "run" action changes the file right after
# the road's first call returns (the first FICLONE, copy_file_range,
# splice from the source, or read), and the copy goes on from there.
#
# Checked: a file that grew, shrank, was rewritten in place or replaced
# under its name is said on stderr in exactly these words and fails the
# run (exit 1); -v and --json say it too; the destination holds what was
# read and nothing past the size the source ended with;
# --allow-changing-source keeps it from failing; installed as cp nothing
# is said and the status is 0, as GNU cp's.
set -eu
. "$(dirname "$0")/lib.sh"
need_root

need_shim

# xfs with reflink: all four roads serve a copy within it.  The shim
# matches physical paths.
mount_xfs "$T/x"
X=$(cd "$T/x" && pwd -P)
mkdir "$X/in" "$X/out"
SRC=$X/in/src
DST=$X/out/dst
SIZE=$((3 * 1024 * 1024 + 13))
random_file "$T/orig" "$SIZE"
random_file "$T/more" 100000
random_file "$T/other" 4000

# The rule that fires right after the first call of each road.
declare -A POINT=(
	[clone]=clone=run@call:1
	[copy_file_range]=cfr=run@call:1
	[splice]=splice_read=run@call:1
	[read_write]=read=run@call:1
)
declare -A ROADS=(
	[clone]=clone
	[copy_file_range]=copy_file_range,read_write
	[splice]=splice,read_write
	[read_write]=read_write
)

# The changes, as shell commands run inside the copy.
declare -A CHANGE=(
	[grew]="cat '$T/more' >>'$SRC'"
	[shrank]="truncate -s 1000 '$SRC'"
	[rewritten]="printf 'REWRITTEN' | dd of='$SRC' conv=notrunc status=none"
	[replaced]="cp '$T/other' '$SRC.new' && mv '$SRC.new' '$SRC'"
)
declare -A SAID=(
	[grew]="grew from $SIZE to $((SIZE + 100000)) bytes"
	[shrank]="shrank from $SIZE to 1000 bytes"
	[rewritten]="rewritten, same size"
	[replaced]="replaced by another file"
)

# fresh: the source as it was, with an old mtime (a rewrite then moves it
# whatever the clock's granularity), and no destination.
fresh() {
	rm -f "$DST" "$SRC"
	cp "$T/orig" "$SRC"
	touch -d '2001-02-03 04:05:06' "$SRC"
	sync -f "$SRC"
}

# live STATUS ROAD CHANGE SMARTCP-ARGS...: copy $SRC to $DST by ROAD while
# CHANGE happens; the exit status must be STATUS.
live() {
	local want=$1 road=$2 change=$3
	shift 3
	fresh
	: >"$T/shim.log"
	assert_exit "$want" env LD_PRELOAD="$SHIM" \
		SMARTCP_FAULT="${POINT[$road]}" \
		SMARTCP_FAULT_MATCH_SRC="$X/in/" \
		SMARTCP_FAULT_LOG="$T/shim.log" \
		SMARTCP_FAULT_RUN="${CHANGE[$change]}" \
		"$SMARTCP" --road="${ROADS[$road]}" "$@"
	grep -q '(ran: ' "$T/shim.log" ||
		{ _show "$T/shim.log"; fail "$road: the change was never made"; }
}

# what_was_read ROAD CHANGE: the bytes the copy must hold.
what_was_read() {
	local road=$1 change=$2
	case $change in
	grew)
		# a clone is a snapshot of the file before the append; the
		# other roads follow a file to the end a read finds
		if [ "$road" = clone ]; then
			cat "$T/orig"
		else
			cat "$T/orig" "$T/more"
		fi ;;
	shrank) head -c 1000 "$T/orig" ;;	# no stale tail past 1000
	rewritten)
		# read_write read its first buffer before the rewrite, and
		# clone and copy_file_range had moved everything; splice had
		# put the first pages of the source's page cache in the pipe,
		# by reference, so the rewrite reaches the copy through it
		if [ "$road" = splice ]; then
			cat "$SRC"
		else
			cat "$T/orig"
		fi ;;
	replaced) cat "$T/orig" ;;	# the file that was open
	esac
}

for road in clone copy_file_range splice read_write; do
	for change in grew shrank rewritten replaced; do
		say "$road: the source $change during the copy"
		live 1 "$road" "$change" -v "$SRC" "$DST"
		assert_line "$SMARTCP: '$SRC' changed while it was copied: ${SAID[$change]}" "$ERR"
		assert_eq "$(wc -l <"$ERR")" 1 "lines on stderr"
		assert_grep "^'$SRC' -> '$DST' \[.*$road.*, source changed: ${SAID[$change]}\]\$" "$OUT"
		what_was_read "$road" "$change" >"$T/want"
		assert_same "$T/want" "$DST"
		pass "$road, $change: said, exit 1, $(stat -c %s "$DST") bytes as read"
	done

	say "$road: --json has the change, the status and the summary count"
	live 1 "$road" grew --json "$SRC" "$DST"
	assert_grep '"source_changed":\{"how":"grew","size_before":'"$SIZE"',"size_after":'$((SIZE + 100000))',"again":false\}' "$OUT"
	assert_grep '"status":"failed","failed":"changed"\}$' "$OUT"
	assert_grep '^\{"summary":\{"files":1,.*"failures":1,.*\},"changed":1,"seconds":' "$OUT"
	pass "$road: JSON source_changed"

	say "$road: --allow-changing-source: said by -v, status 0, stderr quiet"
	live 0 "$road" shrank -v --allow-changing-source "$SRC" "$DST"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty"; }
	assert_grep "source changed: shrank from $SIZE to 1000 bytes\]\$" "$OUT"
	head -c 1000 "$T/orig" >"$T/want"
	assert_same "$T/want" "$DST"
	live 0 "$road" grew --json --allow-changing-source "$SRC" "$DST"
	assert_grep '"source_changed":\{"how":"grew",.*"status":"ok"\}$' "$OUT"
	pass "$road: allowed"

	say "$road: installed as cp: GNU cp's silence and status, no stale tail"
	mkdir -p "$T/bin"
	ln -sf "$SMARTCP" "$T/bin/cp"
	SMARTCP_SAVED=$SMARTCP
	SMARTCP=$T/bin/cp
	live 0 "$road" shrank -v "$SRC" "$DST"
	SMARTCP=$SMARTCP_SAVED
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "cp: stderr not empty"; }
	assert_eq "$(cat "$OUT")" "'$SRC' -> '$DST'" "cp -v output"
	assert_same "$T/want" "$DST"
	pass "$road: as cp, quiet and 0"
done

say "a source that does not change: nothing said, nothing added to JSON"
fresh
assert_exit 0 "$SMARTCP" --json "$SRC" "$DST"
assert_no_grep 'source_changed|"changed"' "$OUT"
[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty"; }
assert_same "$SRC" "$DST"
pass "unchanged: no new field"

say "generated files and FIFOs: sizes and times that move by themselves say nothing"
# /proc/self/stat changes with every read (times, counters), its st_size
# is 0, and its inode's times are the kernel's; a FIFO is read once
for f in /proc/self/stat /proc/self/mountinfo /proc/uptime; do
	assert_exit 0 "$SMARTCP" -v "$f" "$T/gen"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "$f: stderr not empty"; }
	assert_no_grep 'source changed' "$OUT"
	[ -s "$T/gen" ] || fail "$f: nothing copied"
done
mkfifo "$T/fifo"
head -c 300000 "$T/orig" >"$T/fifo" &
assert_exit 0 "$SMARTCP" -v "$T/fifo" "$T/fifo.out"
wait $!
[ ! -s "$ERR" ] || { _show "$ERR"; fail "fifo: stderr not empty"; }
head -c 300000 "$T/orig" >"$T/want"
assert_same "$T/want" "$T/fifo.out"
pass "generated and FIFO sources: nothing said, exit 0"

say "--atomic: the copy of a changed source is committed, and the run fails"
fresh
cp "$T/other" "$DST"
: >"$T/shim.log"
assert_exit 1 env LD_PRELOAD="$SHIM" SMARTCP_FAULT=read=run@call:1 \
	SMARTCP_FAULT_MATCH_SRC="$X/in/" SMARTCP_FAULT_RUN="${CHANGE[grew]}" \
	"$SMARTCP" --atomic --road=read_write "$SRC" "$DST"
assert_line "$SMARTCP: '$SRC' changed while it was copied: ${SAID[grew]}" "$ERR"
assert_same "$SRC" "$DST"
[ -z "$(find "$X/out" -name '.smartcp.*')" ] || fail "a temporary is left"
pass "--atomic: complete for what was read"

say "the message is translated (LANGUAGE=de)"
if german_catalog; then
	fresh
	assert_exit 1 env LD_PRELOAD="$SHIM" SMARTCP_FAULT=read=run@call:1 \
		SMARTCP_FAULT_MATCH_SRC="$X/in/" SMARTCP_FAULT_RUN="${CHANGE[grew]}" \
		SMARTCP_LOCALEDIR="$T/locale" LANGUAGE=de LC_ALL=C.UTF-8 \
		"$SMARTCP" --road=read_write "$SRC" "$DST"
	assert_line "$SMARTCP: '$SRC' hat sich beim Kopieren geändert: von $SIZE auf $((SIZE + 100000)) Bytes gewachsen" "$ERR"
	pass "German: $(cat "$ERR")"
else
	echo "(no po/de.gmo or no C.UTF-8 locale: not checked)"
fi
