#!/bin/bash
# Issue 35: the windows no event shows.  The other race tests swap a name
# the moment inotify shows it made; a check of a name and its use a
# moment later (a stat, then a link by the same path) make no event in
# between.  Here the swapper flips: once the copy has reached a given
# point, it exchanges a name with an object of the attacker's again and
# again (renameat2 RENAME_EXCHANGE) until the copy ends, so every call
# of the copy meets the name in one state or the other.  Uid 65534 owns
# the destination directory D (and, where said, the source).
#
#  1. Hard links in two directories (-a S/t S/u D/, S/t/x and S/u/y one
#     file): D/u/y is made a link to D/t/x, the first copy, found by its
#     path.  From the moment D/u is made, D/t is flipped with a symlink
#     to $T/vdir, which holds root's 0600 file x.  Up to 635e2e1 the copy
#     was checked by its path (fstatat) and then linked by that path
#     again: checked in D/t, linked in $T/vdir, D/u/y became a second
#     name of root's file in the attacker's directory (root's linkat is
#     not stopped by fs.protected_hardlinks: a name that keeps a setuid
#     program alive after its upgrade).  Now it is held, checked and
#     linked from what is held.  (-a S/t S/u ... links across operands
#     as within one.)
#  2. A directory of the attacker's merged into (-a R/t D/, D/t and D/t/sub
#     the attacker's, root's own tree R/t): from the first file made in
#     D/t, D/t/sub is flipped with a symlink to $T/victim (root 0700,
#     holding a 0600 file).  Holds: the existing sub is opened checked
#     against what was stat'ed and filled and given its attributes
#     through that descriptor.
#  3. A new directory, -j4 -a R/t D/ with the directory attributes set at
#     the end of the run: D/t flipped with an empty directory of the
#     attacker's from the moment it is made.  Holds: nothing lands in the
#     attacker's directory, which stays the attacker's.
#  4. --parents: cd S; -a --parents a/b/f D/ with D/a the attacker's, D/a/b
#     flipped with a symlink to $T/victim from the moment it is made.
#     Holds: the parents are held from the moment they are made.
#
# Every attempt: the victims are unchanged; a run either ended as a
# clean copy or exits 1 and says only "skipping file|directory ...
# replaced" naming the flipped name or a name below it.
#
# Measured (December 2026, 2 CPUs shared with other jobs; one run each):
# GNU cp 9.1 (SMARTCP=/bin/cp, no -j) loses all four: hard links 7 of 20
# (it links by the path, unchecked), merged 1 of 20, new directory 3 of
# 10, --parents 6 of 10.  smartcp 635e2e1 won none here: its window
# between the check and the link is a few microseconds (1 of 70 attempts
# by hand; bench/race.sh links-flip: 29 of 1,000, GNU cp 249, now 0), which
# t-swap-race's last part opens at a set point, where 635e2e1 fails every
# time.  After the fix: 0 won in each.  Runtime ~20 s.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

serialize race "the swapper flips names while the copy runs"
race_setup

cd "$T"
make_victims() {
	rm -rf victim vdir
	mkdir victim vdir
	printf 'root only\n' >victim/secret
	printf 'root only, x\n' >vdir/x
	chmod 0600 victim/secret vdir/x
	chmod 0700 victim
	touch -d '2001-02-03 04:05:06' victim/secret victim vdir/x
}
victims() { inode_state victim victim/secret vdir/x; }
make_victims
WANT=$(victims)

# the attacker's sources: hard links in two directories, a --parents tree
mkdir -p S/t S/u S/a/b
printf 'linked\n' >S/t/x
ln S/t/x S/u/y
printf 'the file\n' >S/a/b/f
chown -R "$ATTACKER" S
chmod 0777 S/a/b
# root's own: a tree to merge, a tree to make
mkdir -p R/m/t R/n/t/sub
printf 'first\n' >R/m/t/a
mkdir R/m/t/sub
printf 'root data\n' >R/m/t/sub/g
printf 'root only\n' >R/n/t/secret
printf 'deeper\n' >R/n/t/sub/g
chmod 0600 R/m/t/sub/g R/n/t/secret
chmod 0700 R/n/t

# check_victims: after an attempt (D still there: the victims' links)
check_victims() {
	if [ "$(victims)" != "$WANT" ]; then
		race_won "the victims are now: $(stat -c '%n %A %U %h' victim victim/secret vdir/x | paste -sd' '), victim holds $(ls -A victim | paste -sd' ')"
		make_victims
	fi
}

# variant LABEL ATTEMPTS FUNCTION
variant() {
	race_begin "$1"
	while race_again "$(runs "$2")"; do
		"$3"
	done
	race_verdict
}

links() {
	attacker_dir D
	race_try D -f -k symlink -t "$T/vdir" -e create -n u -x t -- \
		-a S/t S/u D/
	check_victims
	race_outcome x y
}

merge() {
	attacker_dir D D/t D/t/sub
	race_try D/t -f -k symlink -t "$T/victim" -e create -n a -x sub -- \
		-a R/m/t D/
	check_victims
	# a symlink in sub's place when it is looked at: refused as cp
	# refuses it
	RACE_ALSO_SAID="^$SMARTCP: cannot overwrite non-directory 'D/t/sub' with directory 'R/m/t/sub'\$" \
		race_outcome sub sub/g
}

newdir() {
	local ino sw in
	attacker_dir D
	# shellcheck disable=SC2086 # JOBS: -j4, or nothing for GNU cp
	race_try D -f -k dir -n t -- $JOBS -a R/n/t D/
	for ino in $SWAPPED_INO; do
		sw=$(find D -maxdepth 2 -inum "$ino" -print -quit)
		[ -n "$sw" ] || continue
		in=$(ls -A "$sw")
		if [ -n "$in" ] || [ "$(stat -c %u "$sw")" != "$ATTACKER_UID" ]; then
			race_won "the attacker's $sw ($(stat -c '%A %U' "$sw")) holds: $(printf '%s\n' "$in" | paste -sd' ')"
		fi
	done
	check_victims
	race_outcome t sub
}

parents() {
	attacker_dir D/a
	cd S
	race_try "$T/D/a" -f -k symlink -t "$T/victim" -n b -- \
		-a --parents a/b/f "$T/D/"
	cd "$T"
	check_victims
	race_outcome b b/f
}

variant "hard links, D/t flipped -a" 20 links
variant "merged D/t/sub flipped -a" 20 merge
JOBS=-j4
[ -z "$RACE_CP" ] || JOBS=
variant "new directory flipped${JOBS:+ $JOBS} -a" 10 newdir
variant "--parents D/a/b flipped -a" 10 parents
rm -rf D
race_end "the victims never changed; every run ended as a copy or said"
