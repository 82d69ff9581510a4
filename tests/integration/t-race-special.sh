#!/bin/bash
# Race 1 of issue 35: a FIFO or device node the copy makes in a directory
# someone else owns, swapped for a symlink before its attributes are set,
# must not lead root's chmod, chown, times or ACL to the file the symlink
# names.
#
# Uid 65534 owns the destination directory and the source: a FIFO of mode
# 4777 (anyone may make one).  Root runs `smartcp -a S/f D/`; the swapper
# (tests/race/swapper, as uid 65534) sees D/f appear and exchanges it for
# a symlink to $T/victim/secret (root, 0600).  Up to 396ad10 the node's
# ACL and mode were set by name (setxattr, fchmodat: both follow a
# symlink), and the victim became -rwsrwxrwx.  Variants: -a; -r
# --preserve=mode; -j4 -a of a directory of 8 FIFOs (each swapped); -a of
# a character device (1,3, made here) of mode 4777.
#
# Every attempt: the victim's type, mode, owner, size, mtime, bytes and
# xattrs are unchanged; a run in which the swap happened either ended as
# a clean copy (the swap came too late) or exits 1 with "skipping file
# 'D/f', as it was replaced while being copied" and nothing else; a run
# with no swap copied the node (type, mode) and said nothing.
#
# Measured (December 2026, 2 CPUs, other jobs running; attempts per
# variant as below, "won" = attempts that changed the victim):
#   smartcp 396ad10, 10 runs of the test: -a 11-19 of 20 won,
#     -r --preserve=mode 12-19 of 20, -j4 -a 6-10 of 10, device 9-20 of
#     20; every run of the test failed (as it must, until the fix).
#   GNU cp 9.1 (SMARTCP=/bin/cp, no -j: -a): about the same.
# Runtime ~15 s.  This test fails on 396ad10: it is the check of the fix.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

serialize race "the swapper must get a CPU when the copy makes its node"
race_setup

cd "$T"
mkdir victim
make_victim() {
	rm -f victim/secret
	printf 'root only\n' >victim/secret
	chmod 0600 victim/secret
	chmod 0700 victim
	touch -d '2001-02-03 04:05:06' victim/secret
}
make_victim
WANT=$(inode_state victim/secret)

# the source: the attacker's, a FIFO 4777, a device 4777, a directory of
# FIFOs
mkdir -p S/t
mkfifo S/f
mknod S/dev c 1 3
for i in $(seq 8); do mkfifo "S/t/p$i"; done
chown -R "$ATTACKER" S
chmod 4777 S/f S/dev S/t/p*	# after chown, which clears set-user-ID

# attempt NAME-IN-D WANT-TYPE WANT-MODE SWAPS SMARTCP-ARGS...
attempt() {
	local name=$1 type=$2 mode=$3 swaps=$4 got
	shift 4
	attacker_dir D
	race_try D -k symlink -t "$T/victim/secret" -c "$swaps" -- "$@"
	got=$(inode_state victim/secret)
	if [ "$got" != "$WANT" ]; then
		race_won "the victim is now: $(stat -c '%A %U' victim/secret)"
		make_victim
	fi
	race_outcome
	if [ -z "$SWAPPED" ] && [ -z "$RACE_CP" ]; then
		[ "$(stat -c '%F %a' "D/$name")" = "$type $mode" ] ||
			race_bad "D/$name is $(stat -c '%F %a' "D/$name")"
	fi
}

# variant LABEL ATTEMPTS ATTEMPT-ARGS...
variant() {
	local label=$1 n=$2 i
	shift 2
	race_begin "$label"
	for i in $(seq "$(runs "$n")"); do
		attempt "$@"
	done
	race_verdict
}

jobs=-j4
[ -z "$RACE_CP" ] || jobs=
variant "fifo -a" 20 f fifo 4777 1 -a S/f D/
variant "fifo -r --preserve=mode" 20 f fifo 4777 1 -r --preserve=mode S/f D/
# shellcheck disable=SC2086
variant "fifos${jobs:+ $jobs} -a" 10 p1 fifo 4777 8 $jobs -a S/t/. D
variant "char device -a" 20 dev "character special file" 4777 1 -a S/dev D/
rm -rf D
race_end "the victim never changed; every swap ended as a copy or said"
