#!/bin/bash
# Issue 35, the same shape as race 3 in another place: a directory made
# for an operand named with a slash at its end ("D/t/").  The walk makes
# it as that path, then opens it O_PATH|O_NOFOLLOW and checks that it is
# the one made; but a path that ends in a slash has the kernel follow a
# symlink at its last name whatever O_NOFOLLOW says.  A symlink put in
# the new directory's place was then opened as if it were that
# directory: the check (a directory, root's, no mode bits beyond those
# asked, empty) passes for any empty directory of root's (/mnt, /srv, an
# empty /usr/local/bin on many systems), and the whole tree was copied
# into it, which, with -a, was then given the source's owner and mode:
# the attacker's.
#
# Uid 65534 owns the destination directory D and the source S/t (0755,
# two files).  Root runs `smartcp -a S/t D/t/` (and -r); the swapper, as
# uid 65534, exchanges the new D/t for a symlink to $T/victim (root,
# 0700, empty) the moment it is made.
#
# Every attempt: the victim's mode, owner, times and entries are
# unchanged; a run in which the swap happened either ended as a clean
# copy (the swap came after the open) or exits 1 with "skipping
# directory 'D/t/', as it was replaced while being copied" and nothing
# else; a run with no swap copied the tree.
#
# Measured (December 2026, 2 CPUs shared with other jobs; 20 attempts a
# variant, one run each): smartcp 635e2e1 -a won 9 of 20, -r 12 of 20
# (the victim became drwxr-xr-x nobody holding a and b, or root's 0700
# holding them): this test fails on 635e2e1, it is the check of the
# fix; after it 0 of 20 each.  GNU cp 9.1 (SMARTCP=/bin/cp): -a 14 of
# 20, -r 8 of 20.  In 1,000 attempts of -a (bench/race.sh slash-a):
# 635e2e1 472, GNU cp 641, now 0.  Runtime ~12 s.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

serialize race "the swapper must get a CPU when the copy makes a directory"
race_setup

cd "$T"
make_victim() {
	rm -rf victim
	mkdir victim
	chmod 0700 victim
	touch -d '2001-02-03 04:05:06' victim
}
make_victim
WANT=$(inode_state victim)

mkdir -p S/t
printf 'the first\n' >S/t/a
printf 'the second\n' >S/t/b
chown -R "$ATTACKER" S
chmod 0755 S/t

# attempt SMARTCP-OPTIONS...: into D/t/
attempt() {
	attacker_dir D
	race_try D -k symlink -t "$T/victim" -n t -- "$@" S/t D/t/
	if [ "$(inode_state victim)" != "$WANT" ]; then
		race_won "the victim is now $(stat -c '%A %U' victim), holding: $(ls -A victim | paste -sd' ')"
		make_victim
	fi
	race_outcome t/
	if [ -z "$SWAPPED" ] && [ -z "$RACE_CP" ]; then
		diff -r S/t D/t >/dev/null || race_bad "D/t is not a copy of S/t"
	fi
}

variant "new directory D/t/ -a" 20 -a
variant "new directory D/t/ -r" 20 -r
rm -rf D
race_end "the victim never changed; every swap ended as a copy or said"
