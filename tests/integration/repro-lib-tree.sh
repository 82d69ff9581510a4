#!/bin/bash
# Reproducers of what libsmartcp's tree copy (API 1.3) does against its
# header, found by the t-lib-tree-*.sh tests; not run by make check (it
# fails while they hold).  Each case runs tests/lib/treecp.c, built
# against make install DESTDIR=... (lib-installed.sh), prints "BUG N:
# what the header says; what happened" or "fixed N", and the script exits
# 1 while any case reproduces.  Run it by hand (a build in _build):
#
#	SMARTCP=$PWD/_build/src/smartcp bash tests/integration/repro-lib-tree.sh
#
# 1. With threads (-j4), sc_tree_copy() returns 0 before the workers'
#    files are copied, and sc_tree_finish() returns 0 when one of them
#    failed (EIO): the header says sc_tree_copy's 0 is "everything was
#    copied", -errno "something failed"; -j1 returns -EIO.
# 2. ... and when the copy was cancelled (sc_tree_cancel() from another
#    thread while the workers copy): 0 and 0, not -ECANCELED.
# 3. sc_tree_finish() returns 0 when the attributes of a directory that
#    waited for the workers failed (AFTER's SC_TREE_LATE with -ENOSYS,
#    faultfs's setattr=ENOSYS, --preserve=mode): the header says "-errno:
#    an attribute failed (said)".
# 4. sc_tree_copy() returns -EIO, not "the first failure's" -errno, for a
#    failure inside a directory operand (an entry vanished: -ENOENT).
# 5. AFTER's entry of kind SC_TREE_HARDLINK has EARLIER NULL; the header
#    says it is "the copy this is another name of".
# 6. BEFORE is not asked about a new regular file in a directory the copy
#    made, also with one thread (the walk's fast path): BEFORE answering
#    SC_TREE_QUIT at the second entry (--quit-after 1) leaves src/a, b, c
#    copied.  The header says only -j's worker files skip BEFORE.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-installed.sh"

serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_shim
need_treecp

TP=$(cd "$T" && pwd -P)
cd "$TP"
BUGS=0
bug() { printf 'BUG %s\n' "$*"; BUGS=$((BUGS + 1)); }
fixed() { printf 'fixed %s\n' "$*"; }
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
mkdir q
printf 'a\n' >q/a
printf 'b\n' >q/b
printf 'c\n' >q/c
"$TREECP" -r --quit-after 1 q d6 >o6 2>e6
n=$(find d6 -type f | wc -l)
if [ "$n" -gt 0 ]; then
	bug "6: BEFORE quit at the second entry, but $n files were copied (returned $(returned o6))"
else
	fixed "6: returned $(returned o6), no file copied"
fi

[ "$BUGS" -eq 0 ] || fail "$BUGS of the cases reproduce"
pass "none reproduces"
