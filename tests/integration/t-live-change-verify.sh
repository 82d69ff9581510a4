#!/bin/bash
# --verify of a source that changes while it is copied.  The bytes read
# prove nothing about the source afterwards, so it is never "verified":
# the copy is compared with the source as it now is (status 0 if equal),
# copied once more if they differ (status 0 if the source held still), and
# if it changes again the run fails -- once, never a loop.  The changes
# are made at exact points by the fault shim's "run" action.  (With
# --allow-changing-source the copy is proven against what was read
# instead: t-live-verify-growing.)
set -eu
. "$(dirname "$0")/lib.sh"
need_root

need_shim

mount_tmpfs "$T/m" 256M
M=$(cd "$T/m" && pwd -P)
mkdir "$M/in" "$M/out"
SRC=$M/in/src
DST=$M/out/dst
SIZE=$((3 * 1024 * 1024 + 13))
random_file "$T/orig" "$SIZE"
random_file "$T/more" 100000
random_file "$T/old" 5000

fresh() {
	rm -f "$DST" "$SRC"
	cp "$T/orig" "$SRC"
	touch -d '2001-02-03 04:05:06' "$SRC"
}

# live STATUS RULE COMMAND SMARTCP-ARGS...: copy with --verify while
# COMMAND runs where RULE fires.
live() {
	local want=$1 rule=$2 cmd=$3
	shift 3
	: >"$T/shim.log"
	assert_exit "$want" timeout 120 env LD_PRELOAD="$SHIM" \
		SMARTCP_FAULT="$rule" SMARTCP_FAULT_MATCH_SRC="$M/in/" \
		SMARTCP_FAULT_LOG="$T/shim.log" SMARTCP_FAULT_RUN="$cmd" \
		"$SMARTCP" --verify "$@"
	grep -q '(ran: ' "$T/shim.log" ||
		{ _show "$T/shim.log"; fail "the change was never made"; }
}

quiet() { [ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty"; }; }

for road in read_write copy_file_range,read_write splice,read_write; do
	first=read=run@call:1
	case $road in
	copy_file_range*) first=cfr=run@call:1 ;;
	splice*) first=splice_read=run@call:1 ;;
	esac

	say "$road: grew once; the copy already equals the source as it now is"
	fresh
	live 0 "$first" "cat '$T/more' >>'$SRC'" -v --road="$road" "$SRC" "$DST"
	quiet
	assert_grep "source changed: grew from $SIZE to $((SIZE + 100000)) bytes; the copy equals it as it now is\]\$" "$OUT"
	assert_no_grep 'verified' "$OUT"
	assert_same "$SRC" "$DST"
	pass "$road: status 0, not called verified"

	say "$road: rewritten once behind the copy; copied again, equal"
	fresh
	live 0 "$first" "printf 'REWRITTEN' | dd of='$SRC' conv=notrunc status=none" \
		--json --road="$road" "$SRC" "$DST"
	quiet
	# splice carries the rewritten page by reference: then the first
	# comparison finds it equal already
	assert_grep '"source_changed":\{"how":"rewritten",.*"verify":"(recopied|current)",.*"status":"ok"' "$OUT"
	assert_same "$SRC" "$DST"
	pass "$road: $(grep -Eo '"verify":"[a-z]+"' "$OUT")"
done

say "read_write: grew once, the copy differs, copied again: recopied"
fresh
# the second read: the first 256 KiB are in the copy, the next read
# finds the file cut short, then it grows back past its old size
live 0 read=run@call:2 "truncate -s 1000 '$SRC'; cat '$T/orig' '$T/more' >>'$SRC'" \
	-v --road=read_write "$SRC" "$DST"
quiet
assert_grep "; copied again, equals it as it now is\]\$" "$OUT"
assert_same "$SRC" "$DST"
pass "recopied"

say "changes on every read: it changes again while copied again; exit 1, once"
fresh
live 1 read=run "head -c 1000 /dev/urandom >>'$SRC'" -v --road=read_write \
	"$SRC" "$DST"
assert_grep "^$SMARTCP: '$SRC' changed while it was copied, and again while it was copied once more: grew from [0-9]+ to [0-9]+ bytes\$" "$ERR"
assert_eq "$(wc -l <"$ERR")" 1 "lines on stderr"
[ ! -e "$DST" ] || fail "an unproven copy is left at '$DST'"
# read_write ran twice: its reads of the source are two runs to EOF
# (and the comparison's preads): a bounded number, not a loop
assert_le "$(grep -c '^read' "$T/shim.log")" 200 "reads of the source"
pass "failed once, nothing left"

say "... with --atomic over an old destination: the old one stays"
fresh
cp "$T/old" "$DST"
live 1 read=run "head -c 1000 /dev/urandom >>'$SRC'" --atomic --json \
	--road=read_write "$SRC" "$DST"
assert_same "$T/old" "$DST"
assert_grep '"source_changed":\{"how":"grew",[^}]*"again":true\}' "$OUT"
assert_grep '"verify":"failed",.*"status":"failed","error":"EBADMSG","failed":"changed"' "$OUT"
assert_no_grep 'verify_mismatch_at' "$OUT"
[ -z "$(find "$M/out" -name '.smartcp.*')" ] || fail "a temporary is left"
pass "--atomic: old destination intact"

say "replaced during the copy: what the name holds now is out of reach; exit 1"
fresh
live 1 read=run@call:1 "cp '$T/old' '$SRC.new' && mv '$SRC.new' '$SRC'" \
	--road=read_write "$SRC" "$DST"
assert_line "$SMARTCP: '$SRC' changed while it was copied: replaced by another file" "$ERR"
[ ! -e "$DST" ] || fail "an unproven copy is left at '$DST'"
pass "replaced: failed"
