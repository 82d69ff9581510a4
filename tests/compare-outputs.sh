#!/bin/bash
# Runs two smartcp binaries, OLD and NEW, over the same trees with the
# same options and compares what each said and did: stdout, stderr, the
# exit status and the tree it left.  For a change that must not change
# smartcp's behaviour (issue 28 moved every file's copy into libsmartcp):
# run by hand, as root (it mounts a tmpfs and an ext4 image for the
# cross-filesystem destinations), with the two binaries built:
#
#   tests/compare-outputs.sh OLD/src/smartcp NEW/src/smartcp
#
# The trees hold regular, sparse and empty files, symlinks (to files, to
# nowhere), hard links, a FIFO, an unreadable file and directory, /proc
# and /sys files, and are copied into an empty destination on the same
# filesystem, on a tmpfs and on an ext4 image, and over existing
# destinations.  Options: none, -v, -v as cp (the binary called "cp"),
# --json (the "seconds" dropped), --explain, --debug, -a, --verify,
# --atomic, --if-changed, and some together.  Outputs name the scratch
# directory, which differs between the runs: it is replaced by "@T".
# Exit 0 when every run agrees, 1 with the differences otherwise.
set -u
export LC_ALL=C
unset LANGUAGE

[ $# -eq 2 ] || { echo "usage: $0 OLD-smartcp NEW-smartcp" >&2; exit 2; }
old=$(readlink -f "$1") new=$(readlink -f "$2")
[ -x "$old" ] && [ -x "$new" ] || { echo "$0: binaries not found" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "$0: run as root (mounts)" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/compare-outputs.XXXXXX") || exit 2
cleanup() {
	for m in "$T/ext4" "$T/tmpfs"; do
		mountpoint -q "$m" && umount "$m"
	done
	rm -rf "$T"
}
trap cleanup EXIT

mkdir -p "$T/bin/old" "$T/bin/new" "$T/tmpfs" "$T/ext4"
# each binary also as "cp", for the runs under cp's name
for v in old new; do
	b=${!v}
	ln -s "$b" "$T/bin/$v/smartcp"
	ln -s "$b" "$T/bin/$v/cp"
done
mount -t tmpfs -o size=64m tmpfs "$T/tmpfs" || exit 2
truncate -s 128M "$T/ext4.img" && mkfs.ext4 -q -F "$T/ext4.img" &&
	mount -o loop "$T/ext4.img" "$T/ext4" || exit 2

# The source tree.
src=$T/src
mkdir -p "$src/d/sub" "$src/locked" "$src/e"
head -c 300000 /dev/urandom >"$src/regular"
head -c 5000 /dev/urandom >"$src/d/small"
: >"$src/empty"
truncate -s 20M "$src/sparse"
printf 'data' | dd of="$src/sparse" bs=1 seek=10000000 conv=notrunc status=none
ln -s regular "$src/link"
ln -s nowhere "$src/dangling"
ln "$src/regular" "$src/d/hard"
mkfifo "$src/fifo"
echo secret >"$src/unreadable"
chmod 000 "$src/unreadable"
echo inside >"$src/locked/f"
chmod 000 "$src/locked"
echo deep >"$src/d/sub/deep"
chmod 4755 "$src/d/small"
setfattr -n user.note -v hello "$src/regular" 2>/dev/null || true
touch -d '2001-02-03 04:05:06' "$src/d/small" "$src/d"

fail=0 n=0
# normalize FILE: the scratch directory and the seconds go
norm() {
	sed -e "s|$T|@T|g" -e 's/"seconds":[0-9.]*/"seconds":S/g' \
	    -e 's/ in [0-9.]* s ([^)]*)/ in S/' "$1"
}

# A listing of tree DIR: type, mode, size, owner, link count (within
# the tree), the target of a symlink, the bytes of a file, xattrs.
listing() {
	(cd "$1" 2>/dev/null && find . -mindepth 1 -printf '%p %y %m %s %U:%G %l\n' |
		sort) || true
	(cd "$1" 2>/dev/null && find . -type f -readable -exec md5sum {} + |
		sort -k2) || true
	# attributes file by file in name order (getfattr -R follows the
	# directory's order, which -j workers' creation order decides)
	(cd "$1" 2>/dev/null && find . -mindepth 1 | sort |
		while IFS= read -r f; do
			getfattr -h -d -m - "$f" 2>/dev/null
		done | grep -v '^security\.') || true
}

# run NAME DESTKIND SETUP OPTIONS...: one comparison.  DESTKIND: where
# the destination is (same, tmpfs, ext4); SETUP: "new" (no destination)
# "empty" (an empty directory) or "existing" (a copy made first, then
# touched up).
run() {
	local name=$1 where=$2 setup=$3
	shift 3
	local base v f a
	case $where in
	same) base=$T/dst ;;
	tmpfs) base=$T/tmpfs/dst ;;
	ext4) base=$T/ext4/dst ;;
	esac
	n=$((n + 1))
	for v in old new; do
		local prog=$T/bin/$v/smartcp
		rm -rf "$base"
		[ "$setup" = empty ] && mkdir -p "$base"
		if [ "$setup" = existing ]; then
			mkdir -p "$base"
			cp -a "$src/d" "$src/regular" "$src/empty" "$base/" 2>/dev/null
			echo changed >"$base/d/small"
			chmod 600 "$base/regular"
		fi
		case "$*" in
		*CP*) prog=$T/bin/$v/cp ;;
		esac
		local args=()
		for a in "$@"; do
			[ "$a" = CP ] || args+=("$a")
		done
		(cd "$T" && "$prog" "${args[@]}" >"$T/$v.out" 2>"$T/$v.err" \
			</dev/null)
		echo $? >"$T/$v.rc"
		listing "$base" >"$T/$v.tree"
		for f in out err rc tree; do
			norm "$T/$v.$f" | sed "s|@T/bin/$v/|BIN/|g" >"$T/$v.$f.n"
		done
	done
	for f in rc out err tree; do
		if ! cmp -s "$T/old.$f.n" "$T/new.$f.n"; then
			echo "DIFF [$name] $f:"
			diff "$T/old.$f.n" "$T/new.$f.n" | head -20
			fail=1
		fi
	done
}

for where in same tmpfs ext4; do
	d=$T/dst
	case $where in
	tmpfs) d=$T/tmpfs/dst ;;
	ext4) d=$T/ext4/dst ;;
	esac
	for setup in new existing; do
		tag=$where/$setup
		run "plain $tag" $where $setup -r src "$d"
		run "-v $tag" $where $setup -rv src "$d"
		run "cp -v $tag" $where $setup CP -rv src "$d"
		run "--json $tag" $where $setup -r --json src "$d"
		run "--explain $tag" $where $setup -r --explain src "$d"
		run "--debug $tag" $where $setup -r --debug src "$d"
		run "-a -v $tag" $where $setup -av src "$d"
		run "cp -a -v $tag" $where $setup CP -av src "$d"
		run "--verify --json $tag" $where $setup -r --verify --json src "$d"
		run "--atomic -v $tag" $where $setup -rv --atomic src "$d"
		run "--if-changed -v $tag" $where $setup -rv --if-changed src "$d"
		run "-a --verify --atomic --json $tag" $where $setup \
			-a --verify --atomic --json src "$d"
		run "-f -v $tag" $where $setup -rfv src "$d"
		run "--sparse=always --json $tag" $where $setup \
			-r --sparse=always --json src "$d"
		# one worker: which file meets the refusal first (EXDEV) and
		# which then find it learned (EOPNOTSUPP) is theirs to race
		run "--reflink=always $tag" $where $setup -r -j1 --reflink=always \
			src "$d"
		run "--road=read_write --json $tag" $where $setup \
			-r --road=read_write --json src "$d"
	done
	# files one by one, generated ones among them
	for file in /proc/version /proc/sys/kernel/ostype \
		 /sys/kernel/mm/transparent_hugepage/enabled \
		 "$src/regular" "$src/sparse" "$src/unreadable" \
		 "$src/link" "$src/dangling"; do
		[ -e "$file" ] || [ -L "$file" ] || continue
		run "file $file -v $where" $where empty -v --json "$file" "$d/x"
		run "file $file cp $where" $where empty CP -v "$file" "$d/y"
		run "file $file --verify $where" $where empty --verify --debug \
			"$file" "$d/z"
	done
done

chmod 755 "$src/locked"
echo "compare-outputs: $n runs, $([ $fail = 0 ] && echo "all the same" || echo "differences above")"
exit $fail
