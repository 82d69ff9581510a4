#!/bin/bash
# Issue 35, "not yet tried": --copy-contents reads a FIFO of the source
# as if it were a file.  Root copying a tree someone else owns with
# -r --copy-contents must never read what a symlink swapped in for that
# FIFO names: the copy would hold root's secret, with the mode the
# attacker gave the FIFO.
#
# Uid 65534 owns the source S: six files and a FIFO S/p (a writer of
# its own waits on it, so a copy that opens it reads "fifo data").  Root
# runs `smartcp -r --copy-contents S D`; the swapper, as uid 65534, puts
# a symlink to root's $T/victim (0600, "SECRET") over S/p the moment the
# copy opens S, closes S/r6 or opens S/r6 (a third of the attempts each:
# the files are made in order, p last, and the walk takes them in inode
# order), so that the swap falls before, in or after the copy's look at
# p.  The objects it swaps in wait in $T/O, not in S (the copy
# lists S).
#
# Every attempt: D/p never holds the victim's bytes; it is the symlink
# (swap before the look), the FIFO's data (swap after the open), or
# absent with exit 1 and a message naming S/p or D/p (in between: the
# open must not follow the symlink; "replaced" or "Too many levels of
# symbolic links" are both fine).
#
# Measured (December 2026, 2 CPUs, load 5-6 from other jobs; 30
# attempts, 10 runs of the test): smartcp 396ad10 won 0 of 30 in each
# run (it opens the source with O_NOFOLLOW); GNU cp 9.1 0 of 30 (the
# same).  The swap fell between the look and the open once in 300
# attempts (the walk's window is one fstatat wide); D/p was the symlink
# in 4-22 attempts of a run, the FIFO's data in the rest.  Holds on
# 396ad10.  Runtime 4-12 s.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

serialize race "the swapper must get a CPU when the copy opens the source"
race_setup

cd "$T"
printf 'SECRET\n' >victim
chmod 0600 victim
mkdir S
for i in 1 2 3 4 5 6; do printf 'file %s\n' "$i" >"S/r$i"; done
chown -R "$ATTACKER" S

race_begin "--copy-contents, S/p swapped"
early=0 late=0 between=0
while race_again "$(runs 30)"; do
	rm -rf D S/p
	attacker_dir O
	mkfifo -m 0644 S/p
	chown "$ATTACKER" S/p
	# the FIFO's writer: its open waits for a reader (setpriv execs sh:
	# $! is the writer, killed below when no reader came)
	setpriv --reuid="$ATTACKER_UID" --regid="$ATTACKER_UID" --clear-groups \
		sh -c 'printf "fifo data\n" >S/p' </dev/null >/dev/null 2>&1 &
	writer=$!
	_register sh "kill $writer 2>/dev/null"
	sleep 0.05
	case $(((RACE_ATTEMPTS + 1) % 3)) in
	0) trigger=(-e open -n . -x p) ;;
	1) trigger=(-e closeread -n r6 -x p) ;;
	2) trigger=(-e open -n r6 -x p) ;;
	esac
	race_try S -r -o "$T/O" -t "$T/victim" "${trigger[@]}" -- \
		-r --copy-contents S D
	kill "$writer" 2>/dev/null || true
	wait "$writer" 2>/dev/null || true
	if [ -f D/p ] && [ ! -L D/p ] && grep -q SECRET D/p; then
		race_won "D/p holds the victim's bytes ($(stat -c '%A %U' D/p))"
	fi
	if [ -L D/p ]; then
		early=$((early + 1))
	elif [ -f D/p ]; then
		late=$((late + 1))
	else
		between=$((between + 1))
	fi
	[ -z "$RACE_CP" ] || continue
	if [ "$RC" -eq 0 ]; then
		[ ! -s "$ERR" ] || race_bad "exit 0 with messages"
		[ -L D/p ] || [ "$(cat D/p 2>/dev/null)" = "fifo data" ] ||
			race_bad "D/p is neither the symlink nor the FIFO's data"
	elif [ -z "$SWAPPED" ] ||
	     ! grep -Eq "'(S|D)/p'.*(replaced|Too many levels of symbolic links)" "$ERR"; then
		race_bad "exit $RC"
	fi
done
race_verdict
say "D/p: the symlink $early times, the FIFO's data $late, none (refused) $between"
rm -rf D O
race_end "the copy never read what the swapped-in symlink names"
