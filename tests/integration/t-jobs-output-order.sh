#!/bin/bash
# With -j running by default, output keeps a sequential run's order
# between stdout and stderr where that order shows:
#  - under the name cp, `cp -rv s d >log 2>&1` writes exactly what GNU cp
#    writes, byte for byte: a tree with unreadable files and an
#    unreadable directory mixed in (files the workers hand back to the
#    walk), and a tree whose destination runs out of inodes (errors said
#    on the workers), where -> lines used to come first and the errors
#    of a run of files after them;
#  - under its own name, when stdout and stderr are the same file, what
#    -j2 writes is what -j1 writes.
# And the default number of workers is the number of CPUs the process
# may run on (its affinity), not all the machine has: none under
# `taskset -c 0`.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts tmpfs, runs the copies as uid 65534"
need_cmd setpriv strace taskset

need_gnu_cp_as_user
# LeakSanitizer cannot run under ptrace (see trace_smartcp in lib.sh)
NOLEAK="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mkdir "$T/src"
# Workers start for a destination on tmpfs (not for ext4 without a
# journal, where one worker starts only for a tree that is not cached).
mount_tmpfs "$T/m" 64M
chmod 0777 "$T/m"

# A tree: three directories of 30 files, two of each unreadable, and an
# unreadable directory.
cd "$T/src"
mkdir s
for d in a b c; do
	mkdir "s/$d"
	for i in $(seq 30); do echo "$d$i" >"s/$d/f$i"; done
	chmod 0 "s/$d/f3" "s/$d/f17"
done
mkdir s/b/locked
echo x >s/b/locked/y
chmod 0 s/b/locked
# One directory of 60 files into a tmpfs of 40 inodes: the files the walk
# reaches last cannot be created (ENOSPC), said by the worker that copies
# the run. Which files those are follows the source directory's order
# (readdir), which differs between filesystems and even between two ext4
# filesystems (each has its own hash seed): no file name is assumed.
mkdir s2
for i in $(seq 60); do echo "$i" >"s2/f$i"; done
chown -R 65534:65534 s s2
do_mount "$T/small" -t tmpfs -o mode=0777,nr_inodes=40 tmpfs

# as_cp WHO SRC DST-DIR: `cp -rv SRC DST-DIR/d >log 2>&1` as uid 65534,
# WHO being "ours" (smartcp as cp) or "gnu", cp found through PATH so
# that both are called "cp"; the log in $T/WHO.log, the copy removed.
as_cp() {
	local who=$1 src=$2 dir=$3 path=/usr/bin:/bin
	[ "$who" = gnu ] || path=$T/ours:$path
	rm -rf "$dir/d"
	# shellcheck disable=SC2086 # NB is a command and its options
	(cd "$T/src" && PATH=$path $NB cp -rv "$src" "$dir/d" \
		>"$T/$who.log" 2>&1) || true
	rm -rf "$dir/d"
}

say "cp -rv of a tree with unreadable files, >log 2>&1"
as_cp ours s "$T/m"
as_cp gnu s "$T/m"
assert_grep "^cp: cannot open 's/a/f3' for reading: Permission denied\$" "$T/gnu.log"
assert_grep "^cp: cannot access 's/b/locked': Permission denied\$" "$T/gnu.log"
cmp "$T/ours.log" "$T/gnu.log" || {
	diff "$T/ours.log" "$T/gnu.log" | head -n 20 >&2
	fail "cp -rv >log 2>&1: not what GNU cp writes"
}
pass "the same $(wc -l <"$T/gnu.log") lines as GNU cp"

say "cp -rv into a destination that runs out of inodes, >log 2>&1"
as_cp ours s2 "$T/small"
as_cp gnu s2 "$T/small"
assert_grep "^cp: cannot create regular file '.*/f[0-9]*': No space left on device\$" "$T/gnu.log"
cmp "$T/ours.log" "$T/gnu.log" || {
	diff "$T/ours.log" "$T/gnu.log" | head -n 20 >&2
	fail "cp -rv >log 2>&1 (ENOSPC): not what GNU cp writes"
}
pass "the same $(wc -l <"$T/gnu.log") lines as GNU cp"

# Workers really copied: without them this proves nothing.
rm -rf "$T/small/d"
# shellcheck disable=SC2086
(cd "$T/src" && PATH=$T/ours:/usr/bin:/bin ASAN_OPTIONS=$NOLEAK \
	strace -f -qq -e trace=clone,clone3 \
	-o "$T/threads" $NB cp -rv s2 "$T/small/d" >/dev/null 2>&1) || true
n=$(count_threads "$T/threads")
nproc=$(nproc)
if [ "$nproc" -ge 2 ]; then
	[ "$n" -ge 2 ] || fail "cp -r started $n threads with $nproc CPUs: no workers ran"
else
	say "NOTE: one CPU: no workers by default, the cp cases ran on one thread"
fi

say "smartcp -rv >log 2>&1: -j2 writes what -j1 writes"
rm -rf "$T/small/d"
(cd "$T/src" && $NB "$SMARTCP" -rv -j1 s2 "$T/small/d" >"$T/j1.log" 2>&1) || true
rm -rf "$T/small/d"
(cd "$T/src" && $NB "$SMARTCP" -rv -j2 s2 "$T/small/d" >"$T/j2.log" 2>&1) || true
rm -rf "$T/small/d"
assert_grep "No space left on device" "$T/j1.log"
cmp "$T/j2.log" "$T/j1.log" || {
	diff "$T/j2.log" "$T/j1.log" | head -n 20 >&2
	fail "smartcp -rv -j2 >log 2>&1 differs from -j1"
}
# ... and apart, each file gets its own lines, as before
(cd "$T/src" && $NB "$SMARTCP" -rv -j2 s2 "$T/small/d" >"$T/j2.out" \
	2>"$T/j2.err") || true
rm -rf "$T/small/d"
assert_eq "$(grep -c ' -> ' "$T/j2.out")" "$(grep -c ' -> ' "$T/j1.log")" \
	"-> lines on stdout alone"
assert_eq "$(grep -c 'No space' "$T/j2.err")" "$(grep -c 'No space' "$T/j1.log")" \
	"messages on stderr alone"
pass "-j2 keeps -j1's order in one file"

say "the default number of workers follows the CPU affinity"
# the first CPU this test may run on ("0-3,8" gives 0)
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
rm -rf "$T/m/d"
ASAN_OPTIONS=$NOLEAK taskset -c "$cpu" \
	strace -f -qq -e trace=clone,clone3 -o "$T/one" \
	"$SMARTCP" -r "$T/src/s2" "$T/m/d"
assert_eq "$(count_threads "$T/one")" 0 "threads started under taskset -c $cpu"
if [ "$nproc" -ge 2 ]; then
	rm -rf "$T/m/d"
	ASAN_OPTIONS=$NOLEAK strace -f -qq -e trace=clone,clone3 -o "$T/all" \
		"$SMARTCP" -r "$T/src/s2" "$T/m/d"
	assert_eq "$(count_threads "$T/all")" "$((nproc < 16 ? nproc : 16))" \
		"threads started with $nproc CPUs"
	# the user's -j is the user's word
	rm -rf "$T/m/d"
	ASAN_OPTIONS=$NOLEAK taskset -c "$cpu" \
		strace -f -qq -e trace=clone,clone3 -o "$T/j2" \
		"$SMARTCP" -r -j2 "$T/src/s2" "$T/m/d"
	assert_eq "$(count_threads "$T/j2")" 2 "threads started with -j2 under taskset -c $cpu"
fi
pass "workers as the CPUs allowed"
