#!/bin/bash
# What libsmartcp's tree copy (API 1.3) promises in its header about its
# answers, once found broken by the t-lib-tree-*.sh tests: each case runs
# tests/lib/treecp.c, built against make install DESTDIR=...
# (lib-installed.sh).
#
# 1. With threads (-j4), a failure of a file a worker copied (EIO) is
#    what sc_tree_finish() returns, when sc_tree_copy() returned before
#    the workers said it.
# 2. ... and a cancel (sc_tree_cancel() from another thread while the
#    workers copy) makes sc_tree_finish() return -ECANCELED.
# 3. sc_tree_finish() returns the failure of the attributes of a
#    directory that waited for the workers (AFTER's SC_TREE_LATE with
#    -ENOSYS, faultfs's setattr=ENOSYS, --preserve=mode).
# 4. sc_tree_copy() returns the first failure's -errno, also inside a
#    directory operand (an entry vanished: -ENOENT, not -EIO).
# 5. AFTER's entry of kind SC_TREE_HARDLINK names the copy it is another
#    name of (EARLIER).
# 6. BEFORE answering SC_TREE_QUIT stops the copy: asked about files
#    already at the destination, it quits at the second, which is left
#    as it was, and sc_tree_copy() returns -ECANCELED.  (It is not asked
#    about new files in a directory the copy made, where nothing is to
#    be decided: the header says so.)
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-installed.sh"

serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_shim
need_treecp

TP=$(cd "$T" && pwd -P)
cd "$TP"
BUGS=0
bug() { printf 'BROKEN %s\n' "$*"; BUGS=$((BUGS + 1)); }
fixed() { pass "$*"; }
returned() { sed -n 's/^returned: //p' "$1"; }
finished() { sed -n 's/^finished: //p' "$1"; }

mkdir -p src/d1 src/d2
for f in 1 2 3 4; do
	head -c 1000000 /dev/urandom >"src/d1/f$f"
	head -c 1000000 /dev/urandom >"src/d2/f$f"
done
printf 'fails\n' >src/d2/bad

# 1
LD_PRELOAD=$SHIM SMARTCP_FAULT='cfr=eio,read=eio' SMARTCP_FAULT_MATCH_SRC=/bad \
	"$TREECP" -r -j4 src d1 >o1 2>e1
if [ "$(returned o1)" = 0 ] && [ "$(finished o1)" = 0 ] && grep -q bad e1; then
	bug "1: -j4, src/d2/bad failed (EIO, said: $(head -n 1 e1)): sc_tree_copy() returned 0, sc_tree_finish() 0"
else
	fixed "1: returned $(returned o1), finished $(finished o1)"
fi

# 2
rm -f src/d2/bad
LD_PRELOAD=$SHIM SMARTCP_FAULT='cfr=short:131072,cfr=run' \
	SMARTCP_FAULT_MATCH_SRC="$TP/src/" SMARTCP_FAULT_RUN='sleep 0.01' \
	"$TREECP" -r -j4 --cancel-thread 0 --cancel-delay 300 src d2 >o2 2>e2
if grep -q 'Operation canceled' e2 && [ "$(returned o2)" != -ECANCELED ] &&
   [ "$(finished o2)" != -ECANCELED ]; then
	bug "2: -j4, cancelled from another thread ($(grep -c 'Operation canceled' e2) files said cancelled): sc_tree_copy() returned $(returned o2), sc_tree_finish() $(finished o2)"
else
	fixed "2: returned $(returned o2), finished $(finished o2)"
fi

# 3
if [ -c /dev/fuse ] && [ -x "${FAULTFS:-$BUILD/tests/faultfs/faultfs}" ]; then
	M=$T/ff
	mkdir -p "$M"
	"${FAULTFS:-$BUILD/tests/faultfs/faultfs}" -f "$M" -o "log=$T/ff.log" \
		</dev/null >"$T/ff.out" 2>&1 &
	_register umount "$M"
	for _ in $(seq 100); do
		grep -qF " $M fuse.faultfs " /proc/self/mounts && break
		sleep 0.05
	done
	mkdir "$M/out"
	setfattr -n user.fault -v setattr=ENOSYS "$M/out"
	"$TREECP" -r -j4 --preserve=mode src/d1 "$M/out/t" >o3 2>e3
	if grep -q '^treecp: late metadata' e3 && [ "$(finished o3)" = 0 ]; then
		bug "3: -j4, $(grep -m 1 "late metadata" e3): sc_tree_finish() returned 0"
	else
		fixed "3: finished $(finished o3), said: $(grep -c 'late metadata' e3) late"
	fi
else
	echo "skipped 3: no FUSE or no faultfs"
fi

# 4
mkdir -p v/sub
printf 'a\n' >v/a
printf 'b\n' >v/b
LD_PRELOAD=$SHIM SMARTCP_FAULT=dirend=run@call:1 SMARTCP_FAULT_MATCH="$TP/v" \
	SMARTCP_FAULT_RUN="rm -f '$TP/v/b'" "$TREECP" -r v d4 >o4 2>e4
if grep -q '^treecp: vanished' e4 && [ "$(returned o4)" != -ENOENT ]; then
	bug "4: only v/b failed ($(head -n 1 e4)): sc_tree_copy() returned $(returned o4), not -ENOENT"
else
	fixed "4: returned $(returned o4)"
fi

# 5
mkdir h
printf 'one\n' >h/a
ln h/a h/b
"$TREECP" -a h d5 >o5 2>e5
if grep -q "(hard link to '?')" o5; then
	bug "5: $(grep 'hard link' o5): AFTER's EARLIER was NULL"
else
	fixed "5: $(grep 'hard link' o5)"
fi

# 6
mkdir -p q d6/q
for f in a b c; do
	printf '%s\n' "$f" >"q/$f"
	printf 'old\n' >"d6/q/$f"
done
"$TREECP" -r --quit-after 1 q d6 >o6 2>e6	# into d6/q, as cp -r
left=$(grep -lx old d6/q/a d6/q/b d6/q/c | wc -l)
if [ "$(returned o6)" != -ECANCELED ] || [ "$left" -lt 2 ]; then
	bug "6: BEFORE quit at the second entry: returned $(returned o6), $left of 3 left as they were"
else
	fixed "6: returned $(returned o6), $left of 3 left as they were"
fi

[ "$BUGS" -eq 0 ] || fail "$BUGS of the cases broken"
pass "the six answers as the header gives them"
