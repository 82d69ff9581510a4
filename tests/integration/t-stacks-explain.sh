#!/bin/bash
# Every row of the known-bad stacks (lib/stacks.txt) through --explain
# with assumed facts: on a stack where it holds (--assume-fs=TYPE@VERSION
# and --kernel, as lib/stacks.awk makes them) the plan skips the roads it
# is about, naming the row, or takes them and verifies, or names it; on
# the stack next to it (the module's next version, the kernel past its
# range) it does not hold.  The issue's own words: zfs@2.2.0 on 6.7 skips
# clone and copy_file_range naming zfs#15526, zfs@2.2.2 plans them.  And
# --json's "advisories", and TYPE@VERSION refused where it is malformed.
set -eu
. "$(dirname "$0")/lib.sh"
need_cmd jq

stacks=${abs_top_srcdir:-$TEST_DIR/../..}/lib/stacks.txt
[ -f "$stacks" ] || fail "no $stacks"
# (tabs to "|": read keeps empty fields between non-blank separators)
awk -v mode=tsv -f "${stacks%.txt}.awk" "$stacks" >"$T/rows.tsv" ||
	fail "lib/stacks.awk could not read lib/stacks.txt"
tr '\t' '|' <"$T/rows.tsv" >"$T/rows"
cd "$T"
echo data >f
mkdir dst

say "zfs@2.2.0 on Linux 6.7 skips clone and copy_file_range, naming zfs#15526"
assert_exit 0 "$SMARTCP" --explain --assume-fs=zfs@2.2.0 --kernel=6.7 f dst/
assert_line "  source:  assumed zfs@2.2.0 (unknown, 5 bytes)" "$OUT"
assert_line "  plan:    splice, read_write" "$OUT"
assert_grep "^  skipped: clone \(known to corrupt data on OpenZFS 2\.2\.0 with block cloning \(zfs#15526\)\), copy_file_range \(known to corrupt data on OpenZFS 2\.2\.0 with block cloning \(zfs#15526\)\)$" "$OUT"
assert_line "  advisory: zfs-bclone-2.2.0: clone, copy_file_range skipped (known to corrupt data on OpenZFS 2.2.0 with block cloning (zfs#15526))" "$OUT"
assert_grep "^  advisory: zfs-dnode-dirty: no hole detection with SEEK_DATA " "$OUT"
pass "skipped, and named"

say "zfs@2.2.2 on Linux 6.7 plans them"
assert_exit 0 "$SMARTCP" --explain --assume-fs=zfs@2.2.2 --kernel=6.7 f dst/
assert_line "  plan:    clone, copy_file_range, read_write" "$OUT"
assert_no_grep "advisory:" "$OUT"
pass "planned, nothing named"

say "each row holds on a stack made for it"
n=0
while IFS='|' read -r id cite fs side kernel module param libc roads seen \
		action source date ex exk clear clk; do
	if [ "$action" = none ]; then
		# told, never applied: smartcp is not exposed
		[ -z "$ex" ] || fail "row $id of action none has an example"
		continue
	fi
	assert_exit 0 "$SMARTCP" --explain --json --assume-fs="$ex" \
		--kernel="$exk" f dst/
	head -n1 "$OUT" >rec.json
	jq -e --arg id "$id" --arg a "$action" \
		'[.advisories[]? | select(.stack == $id and .action == $a)]
		 | length == 1' rec.json >/dev/null ||
		{ _show rec.json; fail "row $id: no advisory $action on $ex, Linux $exk"; }
	for road in $roads; do
		case $action:$road in
		*:holes)
			jq -e --arg id "$id" '.advisories[] | select(.stack ==
				$id) | .holes' rec.json >/dev/null ||
				fail "row $id: hole detection not turned off" ;;
		skip:*)
			jq -e --arg r "$road" --arg c "($cite)" '.skipped[] |
				select(.road == $r) | .reason | endswith($c)' \
				rec.json >/dev/null ||
				{ _show rec.json; fail "row $id: $road not skipped for it"; } ;;
		*)
			jq -e --arg r "$road" '.plan | index($r) != null' \
				rec.json >/dev/null ||
				fail "row $id: $road not taken" ;;
		esac
	done
	# and the text block says it in words
	assert_exit 0 "$SMARTCP" --explain --assume-fs="$ex" --kernel="$exk" \
		f dst/
	assert_grep "^  advisory: $id: " "$OUT"
	if [ -n "$clear" ]; then
		assert_exit 0 "$SMARTCP" --explain --json --assume-fs="$clear" \
			--kernel="$clk" f dst/
		head -n1 "$OUT" >rec.json
		jq -e --arg id "$id" '[.advisories[]? | select(.stack == $id)]
			| length == 0' rec.json >/dev/null ||
			{ _show rec.json; fail "row $id holds on $clear, Linux $clk"; }
	fi
	n=$((n + 1))
done <"$T/rows"
[ "$n" -ge 9 ] || fail "only $n rows checked"
pass "$n rows: each holds on its stack, none next to it"

say "a module of unknown version: what corrupted data is verified"
assert_exit 0 "$SMARTCP" --explain --json --assume-fs=zfs --kernel=6.7 f dst/
head -n1 "$OUT" >rec.json
jq -e '.plan == ["clone","copy_file_range","read_write"] and
	([.advisories[] | select(.verify and .maybe)] | length) == 2' \
	rec.json >/dev/null || { _show rec.json; fail "not verified"; }
pass "taken and verified"

say "--road still forces, and the row is named"
assert_exit 0 "$SMARTCP" --explain --json --road=clone,read_write \
	--assume-fs=zfs@2.2.0 --kernel=6.7 f dst/
head -n1 "$OUT" >rec.json
jq -e '.plan == ["clone","read_write"] and
	(.advisories[] | select(.stack == "zfs-bclone-2.2.0") | .forced ==
	 ["clone"])' rec.json >/dev/null || { _show rec.json; fail "not forced"; }
pass "forced"

say "other stacks print as they always did: no advisories key"
assert_exit 0 "$SMARTCP" --explain --json --assume-fs=ext4 --kernel=6.7 f dst/
assert_no_grep '"advisories"|"module"' "$OUT"

say "TYPE@VERSION that cannot be read is refused"
assert_exit 1 "$SMARTCP" --explain --assume-fs=zfs@2.x f dst/
assert_grep "invalid argument .zfs@2\.x. for .--assume-fs." "$ERR"
assert_grep "TYPE@VERSION" "$ERR"
assert_exit 1 "$SMARTCP" --explain --assume-fs=zfs@2.2.3,nosuch=1 f dst/
assert_grep "invalid argument .zfs@2\.2\.3,nosuch=1. for .--assume-fs." "$ERR"
assert_exit 1 "$SMARTCP" --explain --assume-fs=zfs2@2.2.0 f dst/
assert_grep "unknown filesystem type .zfs2@2\.2\.0. for .--assume-fs." "$ERR"
assert_exit 1 "$SMARTCP" --assume-fs=zfs@2.2.0 f dst/
pass "refused"
