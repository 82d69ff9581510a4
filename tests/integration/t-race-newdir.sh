#!/bin/bash
# Race 3 of issue 35: a directory the copy has just made, swapped for a
# directory of someone else's before the copy opens it, must not be
# filled: nothing of the subtree may land in a directory another user
# owns.
#
# Uid 65534 owns the destination directory D.  Root runs `smartcp -a S/t
# D/` of a tree of its own (t 0700, files 0600, a subdirectory); the
# swapper (as uid 65534) sees D/t made (the first name made in D,
# whatever it is: a temporary name too) and exchanges it for an empty
# directory of its own.  Up to 396ad10 the one call between mkdirat and
# the O_PATH open of the new directory was a window: nothing checked that
# the directory opened was the one made, and the whole subtree was copied
# into the attacker's directory (and, -a, that directory was given t's
# owner and mode, with the attacker still able to rename what is in it).
# Variants: -a, -r, -j4 -a.
#
# Every attempt: when the swap happened, the attacker's directory
# (found by its inode number, wherever the copy left it) is empty and
# still the attacker's; the run either ended as a clean copy (the swap came after
# the open: the copy went on in its own directory, D/.swap.0 now) or exits
# 1 with "skipping directory 'D/t', as it was replaced while being copied"
# and nothing else; a run with no swap copied the tree (diff -r).
#
# Measured (December 2026, 2 CPUs, load 5-6 from other jobs; 20 attempts
# a variant, 10 runs of the test):
#   smartcp 396ad10: -a won 9-13 of 20, -r 7-13, -j4 -a 7-12; every run
#     of the test failed (as it must, until the fix).
#   GNU cp 9.1 (SMARTCP=/bin/cp, no -j): -a 13-19 of 20, -r 11-15.
# Runtime 10-20 s.  This test fails on 396ad10: it is the check of the
# fix.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

serialize race "the swapper must get a CPU when the copy makes a directory"
race_setup

cd "$T"
mkdir -p S/t/sub
printf 'root only\n' >S/t/secret
printf 'deeper\n' >S/t/sub/g
chmod 0600 S/t/secret S/t/sub/g
chmod 0700 S/t

# attempt SMARTCP-OPTIONS...
attempt() {
	local in ino sw
	attacker_dir D
	race_try D -k dir -- "$@" S/t D/
	for ino in $SWAPPED_INO; do
		# the attacker's directory, wherever it is now (in the place
		# of the name swapped, t or a temporary name, or moved on)
		sw=$(find D -maxdepth 2 -inum "$ino" -print -quit)
		[ -n "$sw" ] || continue	# removed: none of the tree in it
		in=$(ls -A "$sw")
		if [ -n "$in" ] || [ "$(stat -c %u "$sw")" != "$ATTACKER_UID" ]; then
			race_won "the attacker's $sw ($(stat -c '%A %U' "$sw")) holds: $(printf '%s\n' "$in" | paste -sd' ')"
		fi
	done
	race_outcome t
	if [ -z "$SWAPPED" ] && [ -z "$RACE_CP" ]; then
		diff -r S/t D/t >/dev/null || race_bad "D/t is not a copy of S/t"
	fi
}

variant "new directory -a" 20 -a
variant "new directory -r" 20 -r
[ -n "$RACE_CP" ] || variant "new directory -j4 -a" 20 -j4 -a
rm -rf D
race_end "nothing landed in the attacker's directory; every swap ended as a copy or said"
