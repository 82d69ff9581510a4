#!/bin/bash
# Issue 35, "not yet tried": a destination symlink planted before the
# copy, and /proc/self/fd operands.  What smartcp keeps from cp: a
# symlink that already exists at the destination is followed, as POSIX
# and GNU cp do (so root copying onto a name someone else may plant
# writes where the link leads: documented in smartcp(1)); what it must
# not add: --remove-destination removes the link and never writes
# through it, and a dangling link is not written through.
#
# Root copies the attacker's S/f onto D/f, where the attacker (uid 65534,
# owning D) has planted a symlink to root's $T/victim (0600), and onto D/g,
# a dangling symlink to $T/nothing; options: none, -f, -a, -p,
# --remove-destination, -a --remove-destination, -f --remove-destination,
# -n, -u, --backup, --attributes-only, -a --attributes-only (which gives
# the file the link leads to the source's owner and mode, as cp does);
# and the attacker's FIFO (4777) copied onto D/f with -a, -r and -a -f
# (the link is replaced, as cp does).
# Each runs once with GNU cp and once with smartcp on
# the same fresh setup; exit status, messages (program name aside), the
# victim (mode, owner, size, mtime, bytes) and what D holds (types, link
# targets, bytes) must be the same.
#
# /proc/self/fd operands, the same comparison: a source or destination
# named through a descriptor the caller passed (5<S/f, 5>D/c, 5<S/dir,
# 5<D as a target directory, with and without -a), and /proc/self/fd/N for
# N = 3..7 that the caller did not pass: the program's own descriptors
# (smartcp holds more than cp) must never be copied from or written to.
#
# Needs GNU cp (SKIP without).  Holds on 396ad10.  Runtime 20-50 s (two
# programs, ~90 cases, each on a fresh setup).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

race_setup
[ -z "$RACE_CP" ] || skip "compares smartcp with GNU cp: run it with smartcp"
GNU_CP=/bin/cp
"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' || skip "needs GNU cp at $GNU_CP"

cd "$T"
mkdir S S/dir
printf "the attacker's bytes\n" >S/f
printf 'in a directory\n' >S/dir/e
mkfifo S/p
chown -R "$ATTACKER" S
chmod 4777 S/p	# after chown, which clears set-user-ID
touch -d '2003-04-05 06:07:08' S/f

setup() {
	rm -rf D victim nothing
	printf 'root only\n' >victim
	chmod 0600 victim
	touch -d '2001-02-03 04:05:06' victim
	attacker_dir D
	ln -s "$T/victim" D/f
	ln -s "$T/nothing" D/g
	chown -h "$ATTACKER" D/f D/g
}

# state: the victim (its mtime: kept, or set by the copy) and what D
# holds.
state() {
	stat -c '%F %a %u %g %s' victim
	md5sum <victim
	[ "$(stat -c %Y victim)" = "$VICTIM_MTIME" ] || echo "mtime set"
	(cd D && find . -mindepth 1 | LC_ALL=C sort | while read -r p; do
		if [ -L "$p" ]; then
			echo "$p -> $(readlink "$p")"
		elif [ -f "$p" ]; then
			echo "$p $(stat -c '%a %u' "$p") $(md5sum <"$p")"
		else
			echo "$p $(stat -c '%F %a' "$p")"
		fi
	done)
}

# run PROG ARGS...: exit status, messages without the program's name,
# and the state after.  Descriptors 3 to 9 are closed first, so that
# /proc/self/fd/N is the program's own, never one the test inherited (the
# runner's log, or the machine's /dev/null, which -a gave the source's
# owner and mode).
run() {
	local prog=$1 rc=0
	shift
	(cd "$T" && eval "\"\$prog\" $*") >"$OUT" 2>"$ERR" \
		3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- || rc=$?
	echo "exit $rc"
	sed "s|^$prog: |PROG: |" "$ERR"
	state
}

setup
VICTIM_MTIME=$(stat -c %Y victim)
DIFFS=0
# same ARGS...: smartcp and GNU cp alike on a fresh setup each (ARGS are
# evaluated, for redirections).
same() {
	local want got
	setup
	want=$(run "$GNU_CP" "$@")
	setup
	got=$(run "$SMARTCP" "$@")
	if [ "$want" != "$got" ]; then
		DIFFS=$((DIFFS + 1))
		echo "--- cp $*, GNU cp / smartcp:" >&2
		diff <(echo "$want") <(echo "$got") | head -n 20 >&2 || true
	fi
}

say "a planted destination symlink"
for o in "" -f -a -p --remove-destination "-a --remove-destination" \
	 "-f --remove-destination" -n -u --backup --attributes-only \
	 "-a --attributes-only"; do
	same "$o S/f D/f"
	same "$o S/f D/g"
done
# a FIFO copied onto the planted link replaces the link
for o in -a -r "-a -f"; do
	same "$o S/p D/f"
done
setup
v=$(inode_state victim)
"$SMARTCP" --remove-destination S/f D/f
[ "$(inode_state victim)" = "$v" ] && [ ! -L D/f ] && cmp -s S/f D/f ||
	fail "--remove-destination wrote through D/f, or did not replace it"

say "/proc/self/fd operands"
same "/proc/self/fd/5 D/a 5<S/f"
same "-a /proc/self/fd/5 D/b 5<S/f"
same "S/f /proc/self/fd/5 5>D/c"
same "-a S/f /proc/self/fd/5 5>D/c"
same "-r /proc/self/fd/5 D/e 5<S/dir"
same "-a /proc/self/fd/5/. D/e 5<S/dir"
same "S/f /proc/self/fd/5/ 5<D"
same "-a S/f /proc/self/fd/5/ 5<D"
for n in $(seq 3 7); do
	same "-r /proc/self/fd/$n D/x"
	same "-a S/f /proc/self/fd/$n"
done
[ "$DIFFS" -eq 0 ] || fail "$DIFFS cases where smartcp did not do what GNU cp did"
pass "as GNU cp: planted destination symlinks and /proc/self/fd operands"
