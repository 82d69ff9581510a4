#!/bin/bash
# Two smartcp --atomic writers of one destination at once (150 calls
# each, an 8 MiB and a 12 MiB source) and a reader that takes a snapshot
# of the destination each time with one open (cat) and compares it with
# both sources: never torn -- every snapshot is exactly one source or the
# other, since each copy is renamed into place whole.  Bounded in time:
# the writers stop after 150 calls or 8 s, whichever comes first (on an
# idle 2-CPU VM the 150 calls take about 3 s).
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd timeout

mount_tmpfs "$T/m" 256M
M=$T/m
random_file "$M/a" $((8 * 1024 * 1024))
random_file "$M/b" $((12 * 1024 * 1024))
cp "$M/a" "$M/dst"

# writer SOURCE NAME: 150 atomic copies of SOURCE over dst, or until the
# deadline; records its failures.
writer() {
	local i end=$((SECONDS + 8))
	for ((i = 0; i < 150 && SECONDS < end; i++)); do
		"$SMARTCP" --atomic "$1" "$M/dst" 2>>"$T/writer.err" ||
			echo "call $i: exit $?" >>"$T/writer.err"
	done
	echo "$i" >"$T/calls.$2"
}

say "two --atomic writers, 150 calls each, and a snapshot reader"
: >"$T/writer.err"
writer "$M/a" a & wa=$!
writer "$M/b" b & wb=$!
reads=0 torn=0
while kill -0 "$wa" 2>/dev/null || kill -0 "$wb" 2>/dev/null; do
	cat "$M/dst" >"$T/snap"		# one open, one snapshot
	reads=$((reads + 1))
	if ! cmp -s "$T/snap" "$M/a" && ! cmp -s "$T/snap" "$M/b"; then
		torn=$((torn + 1))
		cp "$T/snap" "$T/torn.$torn"
	fi
done
wait "$wa" "$wb"
[ ! -s "$T/writer.err" ] || { _show "$T/writer.err"; fail "a writer failed"; }
[ "$reads" -ge 5 ] || fail "only $reads snapshots were taken: nothing was tested"
assert_eq "$torn" 0 "torn snapshots of $reads"
cmp -s "$M/dst" "$M/a" || cmp -s "$M/dst" "$M/b" ||
	fail "the final destination is neither source"
[ -z "$(find "$M" -name '.smartcp.*')" ] || fail "temporaries are left"
pass "$reads snapshots, none torn ($(cat "$T/calls.a") + $(cat "$T/calls.b") calls)"
