#!/bin/bash
# --explain decides what the run decides before its first byte, and says
# it as the run does: the same exit status, the same messages, and for
# each file the same outcome (a plan where the run copies, "skipped
# 'DST'" where it leaves the destination alone, nothing but the message
# where it fails), while it changes nothing, asks nothing (-i is taken
# as answered yes, stdin is not read) and never blocks or reads data: a
# FIFO source is not opened for reading, so neither explain waits nor a
# writer waiting for a reader is let go.
#
# Each case is made twice from one fixture: --explain runs in one copy,
# the run (with -v --debug, which print the copied and the skipped
# files) in the other; the explain copy must be left exactly as it was.
set -eu
. "$(dirname "$0")/lib.sh"
need_cmd timeout

cd "$T"

# listing DIR: every entry with its type, mode, size, mtime and target
listing() { (cd "$1" && find . -printf '%p %y %m %s %T@ %l\n' | sort); }

# outcome OUT ERR: the outcome lines of a run (-v --debug) or of an
# explain: "copied 'S' -> 'D'", "skipped 'D'", and the messages.
run_outcome() {
	sed -E "s/ \(backup: '.*'\)( \[|\$)/\1/" "$1" |
		sed -n -E "s/^('.*' -> '.*') \[.*\]\$/copied \1/p; s/^('.*' -> '.*')\$/copied \1/p; /^skipped '/p"
	sed "s#^$SMARTCP:#smartcp:#" "$2"
}
explain_outcome() {
	awk '
		/^  plan: +(directory|symlink|special|hardlink)$/ { next }
		/^  plan: / { print "copied " head; next }
		/^skipped / { print; next }
		/^'\''.*'\'' -> '\''.*'\''$/ { head = $0 }
	' "$1"
	sed "s#^$SMARTCP:#smartcp:#" "$2"
}

# case NAME FIXTURE ARGS...: FIXTURE (a shell snippet) makes the files
# in a new directory; there `smartcp --explain ARGS` and `smartcp -v
# --debug ARGS` must end with the same status and outcome, and the
# explain's directory must be as the fixture left it.
n=0
case_() {
	local name=$1 fixture=$2 rc_e=0 rc_r=0
	shift 2
	n=$((n + 1))
	rm -rf "$T/c"
	mkdir -p "$T/c/explain" "$T/c/run"
	(cd "$T/c/explain" && eval "$fixture")
	(cd "$T/c/run" && eval "$fixture")
	listing "$T/c/explain" >"$T/c/before"
	(cd "$T/c/explain" && timeout 20 "$SMARTCP" --explain "$@") \
		</dev/null >"$T/c/e.out" 2>"$T/c/e.err" || rc_e=$?
	(cd "$T/c/run" && timeout 20 "$SMARTCP" -v --debug "$@") \
		</dev/null >"$T/c/r.out" 2>"$T/c/r.err" || rc_r=$?
	[ "$rc_e" -ne 124 ] || fail "$name: --explain blocked (killed after 20 s)"
	listing "$T/c/explain" >"$T/c/after"
	diff "$T/c/before" "$T/c/after" >&2 ||
		fail "$name: --explain changed the files (diff above)"
	# sorted: the two copies of a fixture are two sets of inodes, and a
	# directory's entries are copied in inode order
	explain_outcome "$T/c/e.out" "$T/c/e.err" | sort >"$T/c/e.outcome"
	run_outcome "$T/c/r.out" "$T/c/r.err" | sort >"$T/c/r.outcome"
	if ! diff "$T/c/r.outcome" "$T/c/e.outcome" >&2 || [ "$rc_e" != "$rc_r" ]; then
		_show "$T/c/e.out"
		_show "$T/c/r.out"
		fail "$name: --explain (exit $rc_e, > above) is not what the run did (exit $rc_r, <)"
	fi
	pass "$name: exit $rc_r, $(wc -l <"$T/c/r.outcome") outcome lines the same"
}

mkfile() { printf '%s\n' "$1" >"$1"; }

say "cases the run refuses, skips or copies: --explain says the same"
case_ same-file		'mkfile a'				a a
case_ same-file-link	'mkfile a; ln a b'			a b
case_ dangling-dest	'mkfile a; ln -s nowhere d'		a d
case_ dangling-atomic	'mkfile a; ln -s nowhere d'		--atomic a d
case_ dangling-posixly	'mkfile a; ln -s nowhere d'		--remove-destination a d
case_ update-newer	'mkfile a; mkfile b; touch -d 2030-01-01 b' -u a b
case_ update-older	'mkfile a; mkfile b; touch -d 2001-01-01 b' -u a b
case_ no-clobber	'mkfile a; mkfile b'			-n a b
case_ update-none-fail	'mkfile a; mkfile b'			--update=none-fail a b
case_ attributes-only	'mkfile a; mkfile b'			--attributes-only a b
case_ dir-onto-file	'mkdir d; mkfile f'			-r d f
case_ file-onto-dir	'mkfile f; mkdir -p t/f'		f t
case_ backup-is-source	'mkfile a; mkfile a~'			-b a~ a
case_ backup		'mkfile a; mkfile b'			-b a b
case_ remove-dest	'mkfile a; mkfile b'			--remove-destination a b
case_ verify-devnull	'mkfile a'				--verify a /dev/null
case_ socket-source	'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"s\")"' s out
case_ tree-mixed	'mkdir -p s/d t/d; for f in a b c d/e; do mkfile s/$f; done
			 mkfile t/b; touch -d 2030-01-01 t/b; mkfile t/c
			 touch -d 2001-01-01 t/c; ln -s nowhere t/d/e'	-r -u s/. t
case_ tree-no-clobber	'mkdir -p s t; mkfile s/a; mkfile s/b; mkfile t/a' -rn s/. t

say "-i under --explain asks nothing and reads nothing: taken as yes"
mkfile a
mkfile b
out=$(printf 'n\n' | { "$SMARTCP" --explain -i a b 2>"$ERR"; echo "rc=$?"; cat; })
[ ! -s "$ERR" ] || { _show "$ERR"; fail "--explain -i said something on stderr"; }
printf '%s\n' "$out" | grep -qx "'a' -> 'b'" || fail "--explain -i gave no plan: $out"
printf '%s\n' "$out" | grep -qx 'rc=0' || fail "--explain -i: $out"
printf '%s\n' "$out" | tail -n 1 | grep -qx n || fail "--explain -i read stdin: $out"
pass "plan shown, exit 0, the answer 'n' still unread"

say "--attributes-only: the plan says no data is copied"
assert_exit 0 "$SMARTCP" --explain --attributes-only a b
assert_line '  plan:    (no road)' "$OUT"
assert_grep '^  skipped: clone \(--attributes-only: no data is copied\), copy_file_range \(--attributes-only: no data is copied\), splice \(--attributes-only: no data is copied\), read_write \(--attributes-only: no data is copied\)$' "$OUT"
pass "no road, each skipped for --attributes-only"

say "a FIFO source: --explain neither blocks nor lets a waiting writer go"
mkfifo fifo
rm -f released
timeout 30 sh -c 'echo data >fifo && touch released' &
writer=$!
sleep 0.3
assert_exit 0 timeout 10 "$SMARTCP" --explain fifo out
assert_line "'fifo' -> 'out'" "$OUT"
assert_grep '^  plan: ' "$OUT"
mkdir -p tree
mkfifo tree/f
assert_exit 0 timeout 10 "$SMARTCP" -r --copy-contents --explain tree tout
assert_line "'tree/f' -> 'tout/f'" "$OUT"
sleep 0.3
[ ! -e released ] || fail "--explain opened the FIFO for reading: the writer went on"
[ ! -e out ] && [ ! -e tout ] || fail "--explain created a destination"
kill "$writer" 2>/dev/null || true
wait "$writer" 2>/dev/null || true
pass "no wait, the writer still waits, nothing made"

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	say "as uid 65534: an unreadable source, an unwritable destination (with and without -f)"
	NB="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 0755 "$T"
	for c in "unreadable|mkfile a; chmod 0 a|a b" \
		 "unwritable|mkfile a; mkfile b; chmod 0444 b|a b" \
		 "unwritable-f|mkfile a; mkfile b; chmod 0444 b|-f a b"; do
		IFS='|' read -r name fixture args <<<"$c"
		rm -rf "$T/u"
		for how in explain run; do
			mkdir -p "$T/u/$how"
			(cd "$T/u/$how" && eval "$fixture")
		done
		chown -R 65534:65534 "$T/u"
		[ "$name" != unreadable ] || chown -R 0:0 "$T/u/explain/a" "$T/u/run/a"
		rc_e=0 rc_r=0
		# shellcheck disable=SC2086
		(cd "$T/u/explain" && $NB "$SMARTCP" --explain $args) >"$T/u/e.out" 2>"$T/u/e.err" || rc_e=$?
		# shellcheck disable=SC2086
		(cd "$T/u/run" && $NB "$SMARTCP" -v $args) >"$T/u/r.out" 2>"$T/u/r.err" || rc_r=$?
		assert_eq "$rc_e" "$rc_r" "$name: exit status of --explain vs the run"
		diff <(sed "s#^$SMARTCP:#smartcp:#" "$T/u/r.err") \
			<(sed "s#^$SMARTCP:#smartcp:#" "$T/u/e.err") >&2 ||
			fail "$name: --explain's messages are not the run's (diff above)"
		pass "$name: exit $rc_r, $(wc -l <"$T/u/r.err") messages the same"
	done
fi

pass "$n cases: --explain's status and outcome are the run's"
