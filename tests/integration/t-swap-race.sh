#!/bin/bash
# A destination directory swapped for a symlink while it is being filled
# never leads the copy out of the destination (issue 27, item 11).
# Whoever may write the destination's parent can rename a directory the
# copy just made and put a symlink to any directory in its place; root's
# `smartcp -a` then went on in it by its whole path, and made a root-only
# 0700 directory 0755 and filled it.  Now a directory the walk makes is
# opened at once and reached only through its descriptor; one that is no
# longer the one made is skipped and named, exit 1.
#
# tests/swapdir runs the copy and, when inotify sees a source directory
# opened (the walk starts reading it, right after making its copy),
# renames the copy away and puts a symlink to $T/victim (0700, holding a
# file) in its place.  Many runs, -a and -a -j4, a different directory
# each time; every run: the victim's mode, owner, times, entries and bytes
# are unchanged, and a run in which the swap happened exits 1 with the
# message for the swapped directory (the walk notices it at the latest
# when it leaves it, or, -j, when it comes back for its attributes).
#
# Then, without a race (the fault shim swaps at a set point): -a links
# the other names of a file to its first copy, found again by its path;
# that copy's directory swapped for a symlink to the victim must not make
# the new name a hard link to the victim's file.
set -eu
. "$(dirname "$0")/lib.sh"

need_root "a copy by root into a directory someone else may write"

SWAPDIR=${SWAPDIR:-}
for c in ${abs_top_builddir:+"$abs_top_builddir/tests/swapdir"} \
	 "$(dirname "$SMARTCP")/../tests/swapdir"; do
	[ -z "$SWAPDIR" ] && [ -x "$c" ] && SWAPDIR=$c
done
[ -n "$SWAPDIR" ] ||
	fail "no tests/swapdir next to '$SMARTCP' (make check, or make tests/swapdir)"

RUNS=${SWAP_RUNS:-200}
SECONDS_MAX=${SWAP_SECONDS:-20}
NDIRS=6

cd "$T"
for d in $(seq -w 1 $NDIRS); do
	mkdir -p "src/d$d/sub"
	for f in $(seq 25); do
		printf 'file %s of %s\n' "$f" "$d" >"src/d$d/f$f"
	done
	printf 'deeper\n' >"src/d$d/sub/g"
	chmod 0755 "src/d$d"
done
mkdir victim
printf 'root only\n' >victim/secret
cp victim/secret secret.ref
chmod 0700 victim
chmod 0600 victim/secret
touch -d '2001-02-03 04:05:06' victim/secret victim
victim_state() {
	stat -c '%a %u %g %Y' victim victim/secret
	ls -A victim
}
WANT=$(victim_state)

# the part of the message after the program's name
replaced() { printf "skipping directory '%s', as it was replaced while being copied" "$1"; }

say "$RUNS runs at most, $SECONDS_MAX s at most"
runs=0 swaps=0
SECONDS=0
while [ "$runs" -lt "$RUNS" ] && [ "$SECONDS" -lt "$SECONDS_MAX" ]; do
	runs=$((runs + 1))
	d=d$(printf '%0*d' ${#NDIRS} $((runs % NDIRS + 1)))
	case $((runs % 2)) in
	0) opts="-a" ;;
	1) opts="-a -j4" ;;
	esac
	rm -rf dst dst-log
	rc=0
	# shellcheck disable=SC2086
	"$SWAPDIR" "src/$d" "dst/$d" "$T/victim" dst-log \
		"$SMARTCP" $opts src dst >"$OUT" 2>"$ERR" || rc=$?
	[ "$rc" -ne 125 ] || { _show "$ERR"; fail "run $runs: swapdir could not do its part"; }
	[ "$rc" -lt 128 ] || { _show "$ERR"; fail "run $runs: smartcp $opts: killed by signal $((rc - 128))"; }
	got=$(victim_state)
	if [ "$got" != "$WANT" ]; then
		ls -la victim >&2
		fail "run $runs (smartcp $opts, dst/$d swapped: $([ -s dst-log ] && echo yes || echo no)): the victim changed: '$got', was '$WANT'"
	fi
	assert_same victim/secret secret.ref
	if [ -s dst-log ]; then
		swaps=$((swaps + 1))
		[ -L "dst/$d" ] || fail "run $runs: dst/$d is not the symlink put there"
		assert_eq "$rc" 1 "run $runs (smartcp $opts, dst/$d swapped): exit status"
		grep -qxF -- "$SMARTCP: $(replaced "dst/$d")" "$ERR" ||
			{ _show "$ERR"; fail "run $runs (smartcp $opts): no message naming dst/$d"; }
		# nothing else is said
		[ "$(wc -l <"$ERR")" -eq 1 ] ||
			{ _show "$ERR"; fail "run $runs (smartcp $opts): other messages"; }
	else
		assert_eq "$rc" 0 "run $runs (smartcp $opts, nothing swapped): exit status"
		[ ! -s "$ERR" ] || { _show "$ERR"; fail "run $runs (smartcp $opts): said something"; }
	fi
done
rm -rf dst dst-log
[ "$swaps" -ge 1 ] || fail "no run swapped a directory: the race was never run"
pass "$runs runs ($swaps swapped): the victim never changed; every swap said, exit 1"

# -a links a file's other names to its first copy, found again by its
# whole path: a directory on that path swapped for a symlink in the
# meantime must not make the copy a link to a file outside it.  No race
# here: the fault shim swaps the directory of the first copy right after
# the second directory is listed.
say "-a: the first copy of a hard-linked file, its directory swapped"
need_shim
TP=$(pwd -P)
mkdir -p hl/src/a hl/src/b hl/victim
printf 'linked\n' >hl/src/a/f
ln hl/src/a/f hl/src/b/f
printf 'root only\n' >hl/victim/f
chmod 0700 hl/victim
# the walk takes a directory's entries in inode order
if [ "$(stat -c %i hl/src/a)" -lt "$(stat -c %i hl/src/b)" ]; then
	first=a second=b
else
	first=b second=a
fi
rc=0
(cd hl && env LD_PRELOAD="$SHIM" SMARTCP_FAULT=dirend=run@call:1 \
	SMARTCP_FAULT_MATCH="$TP/hl/src/$second" SMARTCP_FAULT_LOG="$TP/hl/shim.log" \
	SMARTCP_FAULT_RUN="mv dst/$first dst/$first.moved && ln -s '$TP/hl/victim' dst/$first" \
	"$SMARTCP" -a -j1 src dst) >"$OUT" 2>"$ERR" || rc=$?
grep -q 'SMARTCP_FAULT_RUN exited 0' hl/shim.log ||
	{ _show hl/shim.log; fail "the swap was not made"; }
assert_eq "$(stat -c '%h %a' hl/victim/f hl/victim)" "1 644
2 700" "the victim's file (links, mode) and the victim"
[ ! -e "hl/dst/$second/f" ] || [ "$(stat -c %i "hl/dst/$second/f")" != "$(stat -c %i hl/victim/f)" ] ||
	fail "hl/dst/$second/f is a link to the victim's file"
assert_eq "$rc" 1 "exit status"
assert_eq "$(cat "$ERR")" \
	"$SMARTCP: skipping file 'dst/$first/f', as it was replaced while being copied" \
	"message"
pass "not linked to the victim's file; said, exit 1"

# The same with the swap one step later: the first copy found by its
# path and checked to be the copy, then, before the link is made, its
# directory swapped for a symlink to the victim.  Up to 635e2e1 the link
# was made by that path again (fstatat, then linkat): the new name became
# a hard link to the victim's file, said nowhere, exit 0 (and root's
# linkat is not held back by fs.protected_hardlinks).  Now the copy is
# held while it is checked and linked from what is held: the new name is
# a link to the copy, wherever it was moved.  The shim runs the swap
# after the first stat of the first copy once the second directory has
# been made.
say "-a: the first copy checked, then its directory swapped before the link"
mkdir -p hl2/src/a hl2/src/b hl2/victim
printf 'linked\n' >hl2/src/a/f
ln hl2/src/a/f hl2/src/b/f
printf 'root only\n' >hl2/victim/f
chmod 0600 hl2/victim/f
if [ "$(stat -c %i hl2/src/a)" -lt "$(stat -c %i hl2/src/b)" ]; then
	first=a second=b
else
	first=b second=a
fi
rc=0
(cd hl2 && env LD_PRELOAD="$SHIM" SMARTCP_FAULT=stat=run \
	SMARTCP_FAULT_MATCH="/hl2/dst/$first/f" SMARTCP_FAULT_LOG="$TP/hl2/shim.log" \
	SMARTCP_FAULT_RUN="[ -d dst/$second ] && [ ! -e swapped ] && touch swapped && mv dst/$first dst/$first.moved && ln -s '$TP/hl2/victim' dst/$first || :" \
	"$SMARTCP" -a -j1 src dst) >"$OUT" 2>"$ERR" || rc=$?
[ -e hl2/swapped ] || { _show hl2/shim.log; fail "the swap was not made"; }
assert_eq "$(stat -c %h hl2/victim/f)" 1 "the victim's links"
[ "$(stat -c %i "hl2/dst/$second/f")" = "$(stat -c %i "hl2/dst/$first.moved/f")" ] ||
	fail "hl2/dst/$second/f is not a link to the first copy"
assert_eq "$rc" 0 "exit status"
[ ! -s "$ERR" ] || { _show "$ERR"; fail "something said"; }
pass "linked to the copy checked, not to what its path led to at the link"
