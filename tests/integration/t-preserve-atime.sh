#!/bin/bash
# --preserve=timestamps (and -p, -a) keeps each source's atime as it was
# before the copy, also when the user does not own the sources: then
# cachestat(2) is refused and the -j probe that asks whether a tree is
# cached (jobs.c, data_cached()) fell back on mmap, which marks the file
# accessed; the copy then kept the probe's atime instead of the source's.
# On ext4 without a journal (where the probe runs: one worker by
# default), as uid 65534, beside GNU cp.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts ext4 on a loop device, runs copies as uid 65534"
need_cmd setpriv mkfs.ext4
[ "$(nproc)" -ge 2 ] ||
	skip "one CPU: no workers by default, so no probe to check"

need_gnu_cp_as_user

truncate -s 256M "$T/e.img"
mkfs.ext4 -q -F -O ^has_journal "$T/e.img"
do_mount "$T/e" -o loop "$T/e.img"		# relatime, the default
mkdir "$T/e/s" "$T/e/dst"
chmod 0777 "$T/e/dst"
for d in a b c; do
	mkdir "$T/e/s/$d"
	for i in $(seq 8); do head -c 20000 /dev/urandom >"$T/e/s/$d/f$i"; done
done
chmod -R a+rX "$T/e/s"		# root's, readable by all

# run WHO NAME OPTS...: copy s to dst/NAME as uid 65534, the sources'
# atimes set before (older than their mtimes: relatime updates them on
# access) and the caches dropped, so that the probe finds a cold tree.
run() {
	local who=$1 name=$2 path=/usr/bin:/bin
	shift 2
	[ "$who" = gnu ] || path=$T/ours:$path
	find "$T/e/s" -type f -exec touch -m -d '2002-02-02 00:00' {} +
	find "$T/e/s" -type f -exec touch -a -d '2001-01-01 00:00' {} +
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# shellcheck disable=SC2086 # NB is a command and its options
	(cd "$T/e" && PATH=$path $NB cp "$@" s "dst/$name") ||
		fail "$who cp $* s dst/$name failed"
}

# atimes NAME: how many copied files have each atime (year, month, day).
atimes() {
	find "$T/e/dst/$1" -type f -printf '%AY-%Am-%Ad\n' | sort | uniq -c |
		tr -s ' ' | tr '\n' ';'
}

want=' 24 2001-01-01;'
for opts in "-r --preserve=timestamps" "-rp" "-a"; do
	name=$(echo "$opts" | tr -dc 'a-z')
	run gnu "gnu-$name" $opts
	assert_eq "$(atimes "gnu-$name")" "$want" "GNU cp $opts, atimes"
	run ours "ours-$name" $opts
	assert_eq "$(atimes "ours-$name")" "$want" "cp $opts (smartcp), atimes"
	pass "cp $opts as uid 65534: every copy has its source's atime, as with GNU cp"
done
