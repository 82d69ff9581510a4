#!/bin/bash
# The race tests through libsmartcp's tree copy, installed: tests/lib/
# treecp.c built against make install DESTDIR=... (lib-installed.sh)
# runs in smartcp's place in t-race-newdir.sh (a directory the copy made,
# swapped for the attacker's before it is filled: -a, -r, -j4 -a) and
# t-race-special.sh (a FIFO or a device node the copy made, swapped for a
# symlink or a hard link to root's file before its attributes are set:
# -a, -r --preserve=mode, -j4 -a of a directory of FIFOs, a device, a
# hard link), each as it is, with SMARTCP pointing at treecp
# (lib-race.sh's RACE_LIB: a swap is said in treecp's words, the stages
# SC_TREE_REPLACED and SC_TREE_SRC_REPLACED).  Every variant: the
# attacker won no attempt, every swap ended as a copy or said, and at
# least one attempt was swapped.  smartcp's own runs of those tests are
# the tests themselves.  RACE_RUNS sets the attempts of every variant
# (6 here by default: the tests' own 20 would take a minute and more).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-installed.sh"
. "$(dirname "$0")/lib-race.sh"

serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
serialize race "the swapper must get a CPU when the copy makes its node or directory"
need_root "copies by root into a directory uid $ATTACKER_UID owns"
need_cmd setpriv getfattr
need_swapper
need_treecp
chmod 0755 "$T"

export SWAPPER
export RACE_RUNS=${RACE_RUNS:-6}
for t in t-race-newdir t-race-special; do
	say "$t through treecp"
	rc=0
	SMARTCP=$TREECP bash "$TEST_DIR/$t.sh" >"$T/$t.log" 2>&1 || rc=$?
	grep '^|' "$T/$t.log" || true
	case $rc in
	0) pass "$t: $(sed -n 's/^ok: //p' "$T/$t.log" | tail -n 1)" ;;
	77) skip "$t: $(sed -n 's/^SKIP: [^:]*: //p' "$T/$t.log")" ;;
	*)
		tail -n 30 "$T/$t.log" >&2
		fail "$t through treecp exited $rc"
		;;
	esac
	grep -q "is treecp: libsmartcp's tree copy" "$T/$t.log" ||
		fail "$t did not run treecp as treecp (RACE_LIB)"
done
