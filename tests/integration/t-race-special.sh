#!/bin/bash
# Race 1 of issue 35: a FIFO or device node the copy makes in a directory
# someone else owns, swapped for a symlink (or a hard link) before its
# attributes are set, must not lead root's chmod, chown, times or ACL to
# the file it names.
#
# Uid 65534 owns the destination directory and the source: a FIFO of mode
# 4777 (anyone may make one).  Root runs `smartcp -a S/f D/`; the swapper
# (tests/race/swapper, as uid 65534) sees the first name made in D (D/f,
# or a temporary name) and exchanges it for a symlink to $T/victim/secret
# (root, 0600).  Up to 396ad10 the node's ACL and mode were set by name
# (setxattr, fchmodat: both follow a symlink), and the victim became
# -rwsrwxrwx.  Variants: -a; -r --preserve=mode; -j4 -a of a directory of
# 8 FIFOs (each swapped); -a of a character device (1,3, made here) of
# mode 4777; -a with the FIFO swapped for a hard link to root's
# $T/linkable/file (0666, which fs.protected_hardlinks=1 lets the attacker
# link): a check that the node is still a symlink is not enough, its type
# and owner must be the ones made (396ad10: the file became the
# attacker's, -rwsrwxrwx, with the FIFO's times).
#
# Every attempt: the victims' type, mode, owner, size, mtime, bytes,
# links and xattrs are unchanged; a run in which the swap happened either
# ended as a clean copy (the swap came too late) or exits 1 with
# "skipping file 'D/f', as it was replaced while being copied" and nothing
# else; a run with no swap copied the node (type, mode) and said nothing.
#
# Measured (December 2026, 2 CPUs, load 5-6 from other jobs; attempts per
# variant as below, 10 runs of the test; "won" = attempts that changed a
# victim):
#   smartcp 396ad10: -a won 10-15 of 20, -r --preserve=mode 7-13 of 20,
#     -j4 -a 6-10 of 10, device 9-15 of 20, hard link 8-17 of 20; every
#     run of the test failed (as it must, until the fix).
#   GNU cp 9.1 (SMARTCP=/bin/cp, no -j): -a 5-17 of 20, -r
#     --preserve=mode 6-16, -a of the directory 4-10 of 10, device 9-13,
#     hard link 8-10 (3 runs).
# Runtime 10-30 s.  This test fails on 396ad10: it is the check of the
# fix.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

serialize race "the swapper must get a CPU when the copy makes its node"
race_setup

cd "$T"
mkdir victim linkable
make_victim() {
	rm -f victim/secret linkable/file
	printf 'root only\n' >victim/secret
	chmod 0600 victim/secret
	chmod 0700 victim
	# one the attacker may hard-link (fs.protected_hardlinks=1: it may
	# read and write it), in a directory it can reach
	printf 'root, writable by all\n' >linkable/file
	chmod 0666 linkable/file
	touch -d '2001-02-03 04:05:06' victim/secret linkable/file
}
victims() {
	inode_state victim/secret linkable/file
}
make_victim
WANT=$(victims)

# the source: the attacker's, a FIFO 4777, a device 4777, a directory of
# FIFOs
mkdir -p S/t
mkfifo S/f
mknod S/dev c 1 3
for i in $(seq 8); do mkfifo "S/t/p$i"; done
chown -R "$ATTACKER" S
chmod 4777 S/f S/dev S/t/p*	# after chown, which clears set-user-ID

# attempt KIND NAME-IN-D WANT-TYPE WANT-MODE SWAPS SMARTCP-ARGS...: the
# swapper puts a symlink to victim/secret or (KIND hardlink) a hard link
# to linkable/file in the place of what the copy makes in D.
attempt() {
	local kind=$1 name=$2 type=$3 mode=$4 swaps=$5 target got
	shift 5
	target=$T/victim/secret
	[ "$kind" = symlink ] || target=$T/linkable/file
	attacker_dir D
	race_try D -k "$kind" -t "$target" -c "$swaps" -- "$@"
	if [ -z "$SWAPPED" ] && [ -z "$RACE_CP" ] &&
	   [ "$(stat -c '%F %a' "D/$name")" != "$type $mode" ]; then
		race_bad "D/$name is $(stat -c '%F %a' "D/$name")"
	fi
	rm -rf D	# the hard links the attacker made
	got=$(victims)
	if [ "$got" != "$WANT" ]; then
		race_won "the victims are now: $(stat -c '%n %A %U' victim/secret linkable/file | paste -sd' ')"
		make_victim
	fi
	race_outcome "$name" p1 p2 p3 p4 p5 p6 p7 p8
}

jobs=-j4
[ -z "$RACE_CP" ] || jobs=
variant "fifo -a" 20 symlink f fifo 4777 1 -a S/f D/
variant "fifo -r --preserve=mode" 20 symlink f fifo 4777 1 \
	-r --preserve=mode S/f D/
# shellcheck disable=SC2086
variant "fifos${jobs:+ $jobs} -a" 10 symlink p1 fifo 4777 8 $jobs -a S/t/. D
variant "char device -a" 20 symlink dev "character special file" 4777 1 \
	-a S/dev D/
variant "fifo -a, swapped for a hard link" 20 hardlink f fifo 4777 1 \
	-a S/f D/
rm -rf D
race_end "the victim never changed; every swap ended as a copy or said"
