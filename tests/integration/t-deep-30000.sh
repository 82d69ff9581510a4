#!/bin/bash
# A tree 30,000 levels deep copies completely, in memory that grows with
# its depth, not with its square, whatever the stack: the walk is a loop
# over a stack of levels on the heap (no C recursion), and each level
# keeps its name only, the whole names being built in one buffer per side
# (issue 27, items 5 and 12).  Before, 27,545 levels overflowed the
# default 8 MiB stack (SIGSEGV, a partial tree, no message), and 20,000
# levels took 815 MiB.
#
#   -r    under a 256 KiB stack: exit 0, the same tree, at most 64 MiB
#         of RSS (about 17 MiB here)
#   -a -j2 under a 256 KiB stack: the same tree, modes and times of all
#         30,000 directories too (their attributes wait for the workers
#         and are set at the end, the walk going down to them again)
#   short of memory (ulimit -v): it stops with a message naming the
#         directory and exit status 1, never a signal
set -eu
. "$(dirname "$0")/lib.sh"

need_cmd python3 find md5sum

LEVELS=30000
STACK_KIB=256
MAX_RSS_KIB=65536
ASAN=
if nm -D "$SMARTCP" 2>/dev/null | grep -q __asan_init; then
	# red zones around every local, and the sanitizer's own memory
	STACK_KIB=1024
	ASAN=1
fi

cd "$T"
# src/d/d/.../d, a file every 1,000 levels, a file and a symlink at the
# bottom; some directories with other modes
python3 - "$LEVELS" <<'EOF'
import os, sys
n = int(sys.argv[1])
os.mkdir("src")
fd = os.open("src", os.O_PATH | os.O_DIRECTORY)
for i in range(n):
    os.mkdir("d", 0o755 if i % 7 else 0o750, dir_fd=fd)
    if i % 1000 == 0:
        f = os.open("f", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
        os.write(f, b"level %d\n" % i)
        os.close(f)
    nfd = os.open("d", os.O_PATH | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
f = os.open("bottom", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd)
os.write(f, b"bottom\n")
os.close(f)
os.symlink("bottom", "link", dir_fd=fd)
EOF

# listing DIR [-t]: every entry below DIR with its type, mode and size
# (-t: and the modification time of directories), as one checksum
listing() {
	(cd "$1" && find . -printf '%P %y %m %s\n' | md5sum)
	if [ "${2:-}" = -t ]; then
		(cd "$1" && find . -type d -printf '%P %T@\n' | md5sum)
	fi
}
WANT=$(listing src)
WANT_T=$(listing src -t)

# short FILE: FILE shown with its long runs of d/ cut short
short() { sed -E 's|(d/){8,}|d/[...]/|g' "$1" >"$1.short"; _show "$1.short"; }

# maxrss PROGRAM ARGS...: runs it, says its peak RSS in KiB on fd 3
maxrss() {
	python3 -c '
import resource, subprocess, sys
r = subprocess.call(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=open(3, "w", closefd=False))
sys.exit(r if r >= 0 else 128 - r)' "$@"
}

say "-r: $LEVELS levels under a $STACK_KIB KiB stack"
rc=0
(
	ulimit -s "$STACK_KIB"
	maxrss "$SMARTCP" -r src dst
) >"$OUT" 2>"$ERR" 3>"$T/rss" || rc=$?
[ "$rc" -eq 0 ] || { short "$ERR"; fail "smartcp -r exited $rc (a signal: $((rc > 128 ? rc - 128 : 0)))"; }
[ ! -s "$ERR" ] || { short "$ERR"; fail "smartcp -r said something"; }
assert_eq "$(listing dst)" "$WANT" "the copy's names, types, modes and sizes"
assert_eq "$(find dst -name bottom -execdir cat {} \;)" bottom "the bottom file"
assert_eq "$(find dst -name link -execdir readlink {} \;)" bottom "the symlink at the bottom"
rss=$(cat "$T/rss")
if [ -z "$ASAN" ]; then
	[ "$rss" -le "$MAX_RSS_KIB" ] ||
		fail "smartcp -r of $LEVELS levels took $rss KiB of RSS (at most $MAX_RSS_KIB)"
fi
pass "-r: all $LEVELS levels, exit 0, $rss KiB RSS"
rm -rf dst

say "-a -j2: $LEVELS levels under a $STACK_KIB KiB stack, attributes at the end"
rc=0
(
	ulimit -s "$STACK_KIB"
	exec "$SMARTCP" -a -j2 src dst
) >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" -eq 0 ] || { short "$ERR"; fail "smartcp -a -j2 exited $rc"; }
[ ! -s "$ERR" ] || { short "$ERR"; fail "smartcp -a -j2 said something"; }
assert_eq "$(listing dst -t)" "$WANT_T" "the copy's names, types, modes, sizes and times"
pass "-a -j2: all $LEVELS levels, modes and times, exit 0"
rm -rf dst

if [ -n "$ASAN" ]; then
	# the sanitizer reserves terabytes of address space
	pass "(short of memory: not tried under AddressSanitizer)"
	exit 0
fi
say "short of memory: a message and exit 1, never a signal"
stopped=0
for kib in 8000 12000 16000 20000; do
	rc=0
	(
		ulimit -v "$kib"
		exec "$SMARTCP" -r src dst
	) >"$OUT" 2>"$ERR" || rc=$?
	case $rc in
	0) ;;
	1)
		# the name ends in "..." where even its quote found no memory
		grep -q ": \(cannot access \)\?'src/d/d/d/[d/]*\('\|\.\.\.\): Cannot allocate memory\$" "$ERR" ||
			{ short "$ERR"; fail "ulimit -v $kib: exit 1 without a message naming the directory"; }
		stopped=$((stopped + 1))
		;;
	126 | 127) ;;	# too little to start the program at all
	*)
		short "$ERR"
		fail "ulimit -v $kib: exit status $rc"
		;;
	esac
	rm -rf dst
done
[ "$stopped" -ge 1 ] || skip "no ulimit -v tried stopped the copy part-way (the rest passed)"
pass "stopped $stopped times with a message, exit 1"
