#!/bin/bash
# Race 2 of issue 35: --parents makes the parent directories of the file
# it copies; one of them, swapped for a symlink the moment it is made,
# must not lead the file, or the parent's attributes, into the directory
# the symlink names.
#
# Uid 65534 owns D/a and the source tree S/a/b/f (b of mode 0777).  Root
# runs `cd S && smartcp -a --parents a/b/f D/`; the swapper (as uid
# 65534) sees D/a/b made (the first name made in D/a, whatever it is:
# a temporary name too) and exchanges it for a symlink to $T/victim
# (root, 0700, holding one file).  Up to 396ad10 --parents worked by whole path:
# the file was created through D/a/b/f, and b's times, owner, ACL and mode
# were set by name (utimensat, lchown, setxattr: the last follows the
# symlink).  Variants: -a, and -r (the file only).
#
# Every attempt: the victim's mode, owner, mtime, entries and its file's
# bytes are unchanged; a run in which the swap happened either ended as a
# clean copy (the swap came too late) or exits 1 with "skipping file|
# directory ... replaced" naming D/a/b or D/a/b/f and nothing else; a run
# with no swap copied the file (bytes) and b (mode 0777 with -a).
#
# Measured (December 2026, 2 CPUs, load 5-6 from other jobs; 20 attempts
# a variant, 10 runs of the test):
#   smartcp 396ad10: -a won 11-17 of 20, -r 10-17 of 20; every run of
#     the test failed (as it must, until the fix).
#   GNU cp 9.1 (SMARTCP=/bin/cp): -a 9-16 of 20, -r 8-13 of 20.
# Runtime 9-14 s.  This test fails on 396ad10: it is the check of the
# fix.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

serialize race "the swapper must get a CPU when the copy makes a parent"
race_setup

cd "$T"
make_victim() {
	rm -rf victim
	mkdir victim
	printf 'root only\n' >victim/secret
	chmod 0600 victim/secret
	chmod 0700 victim
	touch -d '2001-02-03 04:05:06' victim/secret victim
}
make_victim
WANT=$(inode_state victim victim/secret)

mkdir -p S/a/b
printf 'the file\n' >S/a/b/f
chown -R "$ATTACKER" S
chmod 0777 S/a/b

# attempt MODE-OF-B SMARTCP-ARGS...: from S, into $T/D
attempt() {
	local mode=$1 got
	shift
	attacker_dir D/a
	cd S
	race_try "$T/D/a" -k symlink -t "$T/victim" -- "$@" "$T/D/"
	cd "$T"
	got=$(inode_state victim victim/secret)
	if [ "$got" != "$WANT" ]; then
		race_won "the victim is now: $(stat -c '%A %U' victim) holding $(find victim -mindepth 1 -printf '%f ')"
		make_victim
	fi
	race_outcome b b/f
	if [ -z "$SWAPPED" ] && [ -z "$RACE_CP" ]; then
		cmp -s D/a/b/f S/a/b/f || race_bad "D/a/b/f is not S/a/b/f"
		[ -z "$mode" ] || [ "$(stat -c %a D/a/b)" = "$mode" ] ||
			race_bad "D/a/b has mode $(stat -c %a D/a/b)"
	fi
}

# variant LABEL ATTEMPTS MODE-OF-B SMARTCP-OPTIONS...
variant() {
	local label=$1 n=$2
	shift 2
	race_begin "$label"
	while race_again "$(runs "$n")"; do
		attempt "$@" --parents a/b/f
	done
	race_verdict
}

variant "--parents -a" 20 777 -a
variant "--parents -r" 20 "" -r
rm -rf D
race_end "the victim never changed; every swap ended as a copy or said"
