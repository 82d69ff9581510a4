#!/bin/bash
# Short of memory, a tree copy keeps going with fewer workers and smaller
# buffers; where it must fail, it says why, exits non-zero, and no file
# is left under its final name with less than the source holds.
#
# Linux overcommits, so memory runs short as allocations that fail: under
# RLIMIT_AS (ulimit -v), or where overcommit is off.  Two ways here:
#  - tests/shim/nomem.so makes exactly the allocations or thread starts a
#    case names fail: buffers of 64 KiB and more (the copy buffer goes
#    down from 256 KiB to 32 KiB, and fdopendir's own 32 KiB to a listing
#    on the stack), no thread or one thread for -j4, every K-th
#    allocation anywhere;
#  - the real limit: ulimit -v from the least that runs smartcp at all
#    up, where -j4's threads cannot have their stacks.
# Sanitizer builds are skipped (their shadow memory needs terabytes of
# address space, and their own allocator cannot be interposed).
set -eu
. "$(dirname "$0")/lib.sh"

if nm -D "$SMARTCP" 2>/dev/null | grep -Eq '__(a|t)san_init'; then
	skip "a sanitizer build: its allocator and shadow memory rule out both ways of running short of memory"
fi
need_cmd strace
NOMEM=${NOMEM:-$(dirname "${SHIM:-$(dirname "$SMARTCP")/../tests/shim/faultshim.so}")/nomem.so}
[ -f "$NOMEM" ] || fail "no nomem.so at '$NOMEM' (make check builds it)"
case $NOMEM in /*) ;; *) NOMEM=$PWD/$NOMEM ;; esac

cd "$T"
for d in $(seq 12); do
	mkdir -p "src/d$d"
	for f in $(seq 25); do
		head -c $(((d * 977 + f * 131) % 9000)) /dev/urandom >"src/d$d/f$f"
	done
done
random_file src/d1/big $((3 * 1024 * 1024 + 17))
ln src/d2/f1 src/d5/link
ln -s ../d1/big src/d3/sym
chmod 700 src/d4

# same_tree: dst is src, attributes as -a keeps them
same_tree() {
	diff -r --no-dereference src dst >"$T/.diff" 2>&1 ||
		{ _show "$T/.diff"; fail "the copy differs ($1)"; }
	[ "$(stat -c %i dst/d2/f1)" = "$(stat -c %i dst/d5/link)" ] ||
		fail "the hard link became two files ($1)"
	assert_eq "$(stat -c %a dst/d4)" 700 "mode of d4's copy ($1)"
}

# nothing_partial WHAT: every regular file under dst has the bytes of its
# source; the messages give the reason
nothing_partial() {
	local f
	if [ -d dst ]; then
		while IFS= read -r -d '' f; do
			cmp -s "src/$f" "dst/$f" ||
				fail "dst/$f is under its final name without the source's bytes ($1)"
		done < <(cd dst && find . -type f -print0)
	fi
	[ -s "$ERR" ] || fail "a failure with nothing said ($1)"
	grep -Ev 'memory exhausted|Cannot allocate memory|error while loading shared libraries|cannot allocate TLS' "$ERR" >"$T/.other" &&
		{ _show "$T/.other"; fail "a message that does not say memory ran short ($1)"; }
	return 0
}

nomem() { env LD_PRELOAD="$NOMEM" "$@"; }

say "the copy buffer shrinks: allocations of 64 KiB and more fail"
rm -rf dst
assert_exit 0 nomem SMARTCP_NOMEM_MIN=64k strace -f -qq -y -e trace=pread64,read \
	-o "$T/rw.log" "$SMARTCP" -a -j4 --road=read_write src dst
same_tree "no 64 KiB buffers"
[ ! -s "$ERR" ] || { _show "$ERR"; fail "something was said"; }
# 3 MiB in 32 KiB reads: at least 96 of them (256 KiB would take 13)
n=$(grep -Ec '^[0-9]+ +p?read(64)?\([0-9]+</[^>]*/src/d1/big>' "$T/rw.log" || true)
[ "$n" -ge 96 ] || fail "src/d1/big was read in $n calls: the buffer did not shrink to 32 KiB"
pass "-a -j4, every allocation from 64 KiB refused: the same tree, big read in $n calls"

# The buffer is allocated where a road needs it (issue 30): the kernel's
# roads need none, and a copy by copy_file_range is made without it.
say "no memory for even the smallest buffer: read_write fails, said, nothing partial"
rm -rf dst
assert_exit 1 nomem SMARTCP_NOMEM_MIN=16k "$SMARTCP" -a --road=read_write src dst
nothing_partial "no 16 KiB buffer, read_write"
grep -q 'Cannot allocate memory' "$ERR" || { _show "$ERR"; fail "not said why"; }
pass "no buffer: every file said, none left partial"
say "no memory for even the smallest buffer: copy_file_range needs none"
rm -rf dst
assert_exit 0 nomem SMARTCP_NOMEM_MIN=16k "$SMARTCP" -a --road=copy_file_range src dst
same_tree "no 16 KiB buffer, copy_file_range"
pass "no buffer: the tree copied by copy_file_range"

say "threads that cannot start: -j4 with none, and with one"
for k in 0 1; do
	rm -rf dst
	assert_exit 0 nomem SMARTCP_NOMEM_THREADS=$k strace -f -qq \
		-e trace=clone,clone3 -o "$T/clone.log" "$SMARTCP" -a -j4 src dst
	same_tree "$k thread(s)"
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "something was said ($k threads)"; }
	assert_eq "$(count_threads "$T/clone.log")" "$k" "threads started"
done
pass "-j4 with 0 and 1 threads to be had: the same tree"

say "every K-th allocation fails: a clean copy, or the reason and no partial file"
fails=0
for every in 5 17 40 90 150 300 700 1500; do
	for skip in 1 3; do
		rm -rf dst
		rc=0
		nomem SMARTCP_NOMEM_EVERY=$every SMARTCP_NOMEM_SKIP=$skip \
			"$SMARTCP" -a -j4 src dst >"$OUT" 2>"$ERR" || rc=$?
		case $rc in
		0) same_tree "every $every, from $skip"
		   [ ! -s "$ERR" ] || { _show "$ERR"; fail "exit 0 with a message (every $every)"; } ;;
		1) nothing_partial "every $every, from $skip"; fails=$((fails + 1)) ;;
		*) _show "$ERR"; fail "every $every, from $skip: exit $rc (a crash?)" ;;
		esac
	done
done
pass "16 runs, $fails of them failed with the reason, none crashed or left a partial file"

say "ulimit -v: from the least that runs smartcp at all"
# the least address space (KiB) in which `smartcp --version` runs
lo=1024 hi=262144
while [ $((hi - lo)) -gt 32 ]; do
	mid=$(((lo + hi) / 2))
	if (ulimit -v "$mid"; "$SMARTCP" --version) >/dev/null 2>&1; then
		hi=$mid
	else
		lo=$mid
	fi
done
base=$hi
ok=0
for add in $(seq 0 64 1536) 2048 4096 6144 8192 12288 16384; do
	rm -rf dst
	rc=0
	(ulimit -s 8192 -v $((base + add)); exec "$SMARTCP" -a -j4 src dst) \
		>"$OUT" 2>"$ERR" || rc=$?
	case $rc in
	0) same_tree "ulimit -v $((base + add))"; ok=$((ok + 1)) ;;
	1 | 127) [ "$add" -lt 1536 ] || { _show "$ERR"; fail "exit $rc with $add KiB more than --version needs"; }
		 nothing_partial "ulimit -v $((base + add))" ;;
	*) _show "$ERR"; fail "ulimit -v $((base + add)): exit $rc" ;;
	esac
done
# 16 MiB more than --version needs: not enough for -j4's stacks (8 MiB
# each), so the copies that passed ran on fewer threads
pass "smartcp --version runs in $base KiB; -a -j4 copied whole in $ok of 31 limits, from 1.5 MiB more at the latest"
