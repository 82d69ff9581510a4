#!/bin/bash
# tests/compare-outputs.sh OLD NEW: runs two smartcp binaries over the same
# trees with the same options and compares what each printed (stdout,
# stderr), its exit status and the tree it made.  For a change that must
# not change behaviour (a reshaping of the code): build the old binary
# from the commit before, the new one from the change, and run this as
# root (it mounts a tmpfs and an ext4 loop image, and removes them).
#
# The source tree mixes what a copy meets: regular, sparse and empty
# files, symlinks (to a file, dangling, to a directory), hard links, a
# FIFO, an unreadable file and directory, /proc and /sys files; it is
# copied within ext4, from ext4 to tmpfs, onto existing destinations, with
# -v (also under the name cp), --json ("seconds" dropped), --explain,
# --debug, -a, --verify, --atomic, --if-changed and -j.
# Exit 0 when every case is the same, 1 with the differences otherwise.
set -u
export LC_ALL=C

[ $# -eq 2 ] || { echo "usage: $0 OLD-SMARTCP NEW-SMARTCP" >&2; exit 2; }
OLD=$(readlink -f "$1") NEW=$(readlink -f "$2")
for b in "$OLD" "$NEW"; do
	[ -x "$b" ] || { echo "$0: $b: not executable" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mounts tmpfs and ext4)"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-compare.XXXXXX") || exit 2
loop=
cleanup() {
	umount "$T/ext4" "$T/tmpfs" 2>/dev/null
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
[ -z "${KEEP:-}" ] || trap 'umount "$T/ext4" "$T/tmpfs"; losetup -d "$loop"; echo "kept $T"' EXIT
trap 'exit 2' INT TERM HUP

E=$T/ext4 M=$T/tmpfs
mkdir -p "$E" "$M" "$T/bin" "$T/out"
truncate -s 256M "$T/ext4.img"
mkfs.ext4 -q -F "$T/ext4.img" || exit 2
loop=$(losetup -f --show "$T/ext4.img") || exit 2
mount "$loop" "$E" || exit 2
mount -t tmpfs -o size=256M tmpfs "$M" || exit 2
# the name cp, for each binary (a symlink: smartcp takes its program
# name from argv[0])
# both binaries run from the same path, which their messages print: the
# side's binary is linked there before each run

# The source tree, in ext4.
S=$E/src
mkdir -p "$S/sub/deeper" "$S/closed"
head -c 300000 /dev/urandom >"$S/big"
head -c 5000 /dev/urandom >"$S/sub/small"
: >"$S/empty"
printf 'abc\n' >"$S/sub/deeper/text"
truncate -s 20M "$S/sparse"
printf 'data' | dd of="$S/sparse" bs=1 seek=10485760 conv=notrunc status=none
ln -s big "$S/link"
ln -s nowhere "$S/dangling"
ln -s sub "$S/dirlink"
ln "$S/big" "$S/hard"
mkfifo "$S/fifo"
head -c 100 /dev/urandom >"$S/unreadable"
chmod 000 "$S/unreadable"
printf 'x\n' >"$S/closed/inside"
chmod 000 "$S/closed"
chmod 4755 "$S/sub/small"
setfattr -n user.note -v hello "$S/big" 2>/dev/null || true
touch -d '2001-02-03 04:05:06' "$S/sub/deeper/text"

# tree DIR BEFORE SINCE UNTIL: one line per entry: name, type, mode,
# size, links, target or data hash, the mtime of files ("pre": set while
# the destination was prepared, from BEFORE to SINCE; "new": by the run,
# from SINCE to UNTIL; else the time itself, kept from the source or set
# on purpose), user xattrs.
tree() {
	local before=$2 since=$3 until=$4
	(cd "$1" 2>/dev/null && find . -mindepth 1 -print0 | sort -z |
	while IFS= read -r -d '' f; do
		st=$(stat -c '%F %a %s %h' "$f")
		case $(stat -c %F "$f") in
		"symbolic link") x=$(readlink "$f") ;;
		"regular file"|"regular empty file")
			x=$(md5sum <"$f" 2>/dev/null | cut -c1-32)
			m=$(stat -c %Y "$f")
			if [ "$m" -ge "$since" ] && [ "$m" -le "$until" ]; then
				m=new
			elif [ "$m" -ge "$before" ] && [ "$m" -le "$until" ]; then
				m=pre
			fi
			x="$x $m" ;;
		*) x= ;;
		esac
		xa=$(getfattr -h -d -m '^user\.' "$f" 2>/dev/null | grep -v '^#' | tr '\n' ' ')
		printf '%s|%s|%s|%s\n' "$f" "$st" "$x" "$xa"
	done)
}

# Every output has the run's own directory in it: the same for both.
n=0 bad=0
# one NAME PRE DST-DIR ARGS...: runs ARGS (the first is "smartcp" or
# "cp") with each binary, after PRE (a shell snippet preparing the
# destination, run in DST-DIR), and compares.
one() {
	local name=$1 pre=$2 dd=$3 side
	shift 3
	n=$((n + 1))
	for side in old new; do
		rm -rf "$dd"
		mkdir -p "$dd"
		local prog=$T/bin/$1 before since
		before=$(date +%s)
		(cd "$dd" && eval "$pre") >/dev/null 2>&1
		ln -sfn "$([ $side = old ] && echo "$OLD" || echo "$NEW")" "$prog"
		if [ -n "$pre" ]; then
			# what PRE wrote must be older than SINCE: a file it
			# wrote in this very second would count as the run's
			while [ "$(date +%s)" = "$before" ]; do sleep 0.05; done
		fi
		since=$(date +%s)
		(cd "$dd" && ${RUNAS:-} "$prog" "${@:2}") >"$T/out/$name.$side.out" \
			2>"$T/out/$name.$side.err" </dev/null
		echo "exit $?" >>"$T/out/$name.$side.err"
		sed -i 's/"seconds":[0-9.e+-]*/"seconds":_/g' \
			"$T/out/$name.$side.out"
		tree "$dd" "$before" "$since" "$(date +%s)" \
			>"$T/out/$name.$side.tree"
		chmod -R u+rwx "$dd" 2>/dev/null
	done
	local diff=0 f
	for f in out err tree; do
		if ! cmp -s "$T/out/$name.old.$f" "$T/out/$name.new.$f"; then
			[ $diff = 1 ] || echo "DIFFERS: $name ($*)"
			diff=1
			diff -u "$T/out/$name.old.$f" "$T/out/$name.new.$f" |
				head -n 30 | sed 's/^/    /'
		fi
	done
	if [ $diff = 1 ]; then bad=$((bad + 1)); else echo "same: $name"; fi
}

D=$E/dst X=$M/dst
for prog in smartcp cp; do
	one "$prog-r-v" "" "$D" $prog -r -v "$S" "$D/t"
	one "$prog-a-v" "" "$D" $prog -a -v "$S" "$D/t"
	one "$prog-a-v-tmpfs" "" "$X" $prog -a -v "$S" "$X/t"
	one "$prog-existing" "mkdir t; cp -a $S/. t/; echo old >t/big; chmod 600 t/sub/small" \
		"$D" $prog -a -v "$S/." "$D/t"
	one "$prog-files-v" "echo old >big; ln -s big l" "$D" \
		$prog -v "$S/big" "$S/empty" "$S/sparse" "$S/link" "$D"
	one "$prog-proc" "" "$D" $prog -v /proc/filesystems /proc/version \
		/sys/kernel/mm/transparent_hugepage/enabled "$D"
done
one json "" "$D" smartcp -a --json "$S" "$D/t"
one json-tmpfs "" "$X" smartcp -r --json "$S" "$X/t"
one json-j1 "" "$D" smartcp -a -j1 --json "$S" "$D/t"
one explain "" "$D" smartcp -r --explain "$S" "$D/t"
one explain-tmpfs "" "$X" smartcp -a --explain "$S" "$X/t"
one explain-existing "mkdir t; echo old >t/big" "$D" smartcp -r --explain "$S/." "$D/t"
one debug "" "$X" smartcp -a --debug "$S/big" "$S/sparse" "$S/empty" /proc/sys/kernel/ostype "$X"
one verify "" "$X" smartcp -a -v --verify "$S" "$X/t"
one verify-json "" "$D" smartcp -r --json --verify "$S/big" "$S/sparse" "$D"
one atomic "echo old >big; ln -s big l; mkdir d" "$D" \
	smartcp -v --atomic -p "$S/big" "$S/sub/small" "$S/sparse" "$D"
one atomic-tree "" "$X" smartcp -a -v --atomic "$S" "$X/t"
one atomic-symlink "echo old >target; ln -s target l" "$D" \
	smartcp -v --atomic "$S/big" "$D/l"
one if-changed "cp -a $S/big $S/empty .; echo x >sparse" "$D" \
	smartcp -v --if-changed "$S/big" "$S/empty" "$S/sparse" "$D"
one if-changed-json "cp -a $S/big ." "$D" \
	smartcp --json --if-changed "$S/big" "$S/sparse" "$D"
one backup "echo old >big" "$D" smartcp -v -b "$S/big" "$D"
one no-clobber "echo old >big" "$D" smartcp -v -n "$S/big" "$S/empty" "$D"
one update "echo old >big; touch -d 2030-01-01 big" "$D" smartcp -v -u "$S/big" "$D"
one j4 "" "$X" smartcp -a -j4 --json "$S" "$X/t"
one sparse-never "" "$X" smartcp -v --sparse=never "$S/sparse" "$X"
one roads "" "$D" smartcp -v --road=splice,read_write "$S/big" "$S/sparse" "$D"
one attributes-only "cp $S/big .; echo x >empty" "$D" \
	smartcp -v --attributes-only -p "$S/big" "$S/empty" "$D"
one sync-json "" "$D" smartcp --json --sync "$S/big" "$D"
one fifo-copy-contents "" "$X" smartcp -v --copy-contents "$S/empty" "$X"
one missing "" "$D" smartcp -v "$S/nothere" "$S/big" "$D"
one into-itself "" "$D" smartcp -r "$S" "$S/sub/x"
# unreadable files and directories: as a user (root reads them all)
chmod 755 "$T" "$E" "$M"
RUNAS="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
U=$M/user
one user-r "chmod 777 ." "$U" smartcp -r -v "$S" "$U/t"
one user-a-json "chmod 777 ." "$U" smartcp -a --json "$S" "$U/t"
one user-cp-a "chmod 777 ." "$U" cp -a -v "$S" "$U/t"
RUNAS=

echo "compare-outputs: $n cases, $((n - bad)) the same, $bad different"
[ $bad -eq 0 ]
