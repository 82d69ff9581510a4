#!/bin/bash
# --verify --allow-changing-source of a file being appended to (issue 37,
# item 6): the user said the source is live and asked for what was copied
# to be proven.  The copy is verified against the bytes that were read
# (read_write's digests, the length included), and the source is never
# read again; the kernel roads, which move bytes the program never sees,
# are left out of the plan for that reason (--explain says so).  Before,
# the copy was compared with the source as it had become, copied once
# more, found changed again, and the run failed with no destination: a
# growing log could not be copied (10 of 10 runs failed here).
#   - at exact points: the fault shim appends 1000 bytes after every read
#     of the source, for every road the user may name;
#   - as it happens: a writer appends 64 KiB every 2 ms while smartcp
#     copies, LIVE_RUNS times (20): every run must succeed.
# Each copy is a prefix of the file, at least as long as the file was,
# and its length is what --json says was copied.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_shim
need_cmd python3 jq

mount_tmpfs "$T/m" 768M
M=$(cd "$T/m" && pwd -P)
mkdir "$M/in" "$M/out"
SRC=$M/in/src
DST=$M/out/dst
SIZE=$((3 * 1024 * 1024 + 13))
random_file "$T/orig" "$SIZE"

# prefix: DST is the start of SRC, at least SIZE long; its length in $N
prefix() {
	N=$(stat -c %s "$DST")
	assert_le "$SIZE" "$N" "bytes in the copy"
	cmp -s -n "$N" "$SRC" "$DST" || fail "the copy is not a prefix of the file"
}

say "--explain: read_write alone, and why"
cp "$T/orig" "$SRC"
assert_exit 0 "$SMARTCP" --explain --verify --allow-changing-source "$SRC" "$DST"
assert_grep '^  plan:    read_write$' "$OUT"
assert_grep '^  skipped: .*copy_file_range \(verification of a source that may change\)' "$OUT"
assert_exit 0 "$SMARTCP" --explain --verify "$SRC" "$DST"
assert_no_grep 'may change' "$OUT"
pass "the plan says why the kernel roads are left out"

for road in default read_write copy_file_range,read_write splice,read_write; do
	say "$road: 1000 bytes appended after every read of the source"
	rm -f "$DST" "$SRC"
	cp "$T/orig" "$SRC"
	opts=()
	[ "$road" = default ] || opts=(--road="$road")
	: >"$T/shim.log"
	assert_exit 0 timeout 120 env LD_PRELOAD="$SHIM" SMARTCP_FAULT=read=run \
		SMARTCP_FAULT_MATCH_SRC="$M/in/" SMARTCP_FAULT_LOG="$T/shim.log" \
		SMARTCP_FAULT_RUN="head -c 1000 /dev/urandom >>'$SRC'" \
		"$SMARTCP" --json --verify --allow-changing-source \
		${opts[@]+"${opts[@]}"} "$SRC" "$DST"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty"; }
	prefix
	rec=$(head -n 1 "$OUT")
	assert_eq "$(jq -r '[.road, .verify, .status, .source_changed.how] | join(" ")' <<<"$rec")" \
		"read_write ok ok grew" "road, verify, status, change"
	assert_eq "$(jq -r .bytes <<<"$rec")" "$N" "bytes said"
	# read once, never again: every read of the source at an offset of
	# its own, in order
	grep -Eo 'off=[0-9]+ len=[0-9]+ -> [0-9]+ ' "$T/shim.log" |
		awk '{ sub(/off=/, "", $1); if ($1 + 0 < at) bad = 1; at = $1 + 1 }
		     END { exit bad }' ||
		{ _show "$T/shim.log"; fail "the source was read again"; }
	pass "$road: $N bytes, a prefix of $(stat -c %s "$SRC"), verified by what was read"
done

say "without --allow-changing-source it is not proven: exit 1, nothing left"
rm -f "$DST" "$SRC"
cp "$T/orig" "$SRC"
assert_exit 1 timeout 120 env LD_PRELOAD="$SHIM" SMARTCP_FAULT=read=run \
	SMARTCP_FAULT_MATCH_SRC="$M/in/" SMARTCP_FAULT_RUN="head -c 1000 /dev/urandom >>'$SRC'" \
	"$SMARTCP" --verify --road=read_write "$SRC" "$DST"
assert_grep "changed while it was copied, and again while it was copied once more: grew from" "$ERR"
[ ! -e "$DST" ] || fail "an unproven copy is left"
pass "still refused where the user did not say the source is live"

say "a writer appends while smartcp copies, ${LIVE_RUNS:=20} times"
rm -f "$DST" "$SRC"
cp "$T/orig" "$SRC"
cat >"$T/writer.py" <<'EOF'
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
block = bytes(range(256)) * 256
while True:
    os.write(fd, block)
    time.sleep(0.002)
EOF
python3 "$T/writer.py" "$SRC" </dev/null >/dev/null 2>&1 &
writer=$!
_register sh "kill $writer 2>/dev/null"
failed=0
for i in $(seq "$LIVE_RUNS"); do
	truncate -s "$SIZE" "$SRC"
	# the writer is running (python may take a second to start)
	for _ in $(seq 500); do
		[ "$(stat -c %s "$SRC")" -gt "$SIZE" ] && break
		sleep 0.01
	done
	rm -f "$DST"
	rc=0
	timeout 120 "$SMARTCP" --json --verify --allow-changing-source \
		"$SRC" "$DST" >"$T/run.json" 2>"$T/run.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		failed=$((failed + 1))
		echo "run $i: exit $rc: $(cat "$T/run.err")"
		continue
	fi
	prefix
	assert_eq "$(jq -r .bytes <"$T/run.json" | head -n 1)" "$N" "run $i: bytes said"
	assert_eq "$(jq -r .verify <"$T/run.json" | head -n 1)" ok "run $i: verify"
done
kill "$writer"
wait "$writer" 2>/dev/null || true
[ "$failed" -eq 0 ] || fail "$failed of $LIVE_RUNS copies of a growing file failed"
pass "$LIVE_RUNS of $LIVE_RUNS copies of a growing file verified"
